//! What nvidia-smi says of a GPU's memory that a health check counts
//! against it while it keeps running: pages retired but waiting for a
//! reset to take effect, a row remap waiting for one, a row remap that
//! failed. The text report (`Retired Pages`, `Remapped Rows`), its XML
//! twin and the CSV query fields (`retired_pages.pending`,
//! `remapped_rows.pending`, `remapped_rows.failure`) all say it with
//! "Yes".
//!
//! Each finding is one `health-fault` event per GPU, at the first time the
//! output shows it: a loop printing "Yes" every second for an hour found
//! one fault, not 3600. Output without a time gets no invented one: the
//! finding is kept in the run's metadata (`untimed_health`), and said.

use jiff::Timestamp;

use super::super::builder::RunBuilder;
use crate::domain::{Event, EventKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finding {
    RetiredPagesPending,
    RowRemapPending,
    RowRemapFailed,
}

impl Finding {
    const ALL: [Finding; 3] = [
        Finding::RetiredPagesPending,
        Finding::RowRemapPending,
        Finding::RowRemapFailed,
    ];

    /// The event's detail, and the warning's words.
    pub(crate) fn detail(self) -> &'static str {
        match self {
            Finding::RetiredPagesPending => "retired pages pending a reset",
            Finding::RowRemapPending => "row remap pending a reset",
            Finding::RowRemapFailed => "row remapping failed",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Whether a cell or value reports the finding. nvidia-smi writes "Yes";
/// "No", "N/A", "[N/A]" and anything else are no finding.
pub(crate) fn is_found(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("yes")
}

/// The findings of one GPU in one reading, as bits: a CSV row holds one
/// without allocating.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Findings(u8);

impl Findings {
    pub(crate) fn insert(&mut self, finding: Finding) {
        self.0 |= finding.bit();
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn iter(self) -> impl Iterator<Item = Finding> {
        Finding::ALL
            .into_iter()
            .filter(move |f| self.0 & f.bit() != 0)
    }
}

/// The findings already put on the run, so that each GPU's is put there
/// once however many readings repeat it.
#[derive(Debug, Default)]
pub(crate) struct Reported {
    done: Vec<(u32, Finding)>,
}

impl Reported {
    /// Put `found` on the run for `gpu`: a `health-fault` event at `at_ms`,
    /// or, when the output gave no time, a warning naming what was found.
    pub(crate) fn report(
        &mut self,
        b: &mut RunBuilder<'_>,
        gpu: u32,
        found: Findings,
        at_ms: Option<i64>,
    ) {
        for finding in found.iter() {
            if self.done.contains(&(gpu, finding)) {
                continue;
            }
            self.done.push((gpu, finding));
            match at_ms.and_then(|ms| Timestamp::from_millisecond(ms).ok()) {
                Some(at) => b.event(Event {
                    gpu: Some(gpu),
                    detail: Some(finding.detail().to_string()),
                    ..Event::new(at, EventKind::HealthFault)
                }),
                None => {
                    b.warn(format!(
                        "GPU {gpu}: {} (no time in the output: counted as a faulty GPU, without a time)",
                        finding.detail()
                    ));
                    let kept = b
                        .metadata
                        .entry(crate::domain::UNTIMED_HEALTH)
                        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
                    if let serde_json::Value::Array(list) = kept {
                        list.push(serde_json::json!({"gpu": gpu, "what": finding.detail()}));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::testing::with_builder;

    #[test]
    fn only_yes_is_a_finding() {
        assert!(is_found("Yes") && is_found(" yes "));
        for value in ["No", "N/A", "[N/A]", "", "Unknown Error"] {
            assert!(!is_found(value), "{value}");
        }
    }

    #[test]
    fn each_gpu_and_kind_is_reported_once_with_its_first_time() {
        let (built, _) = with_builder(false, |_, mut b| {
            let mut reported = Reported::default();
            let mut both = Findings::default();
            both.insert(Finding::RowRemapPending);
            both.insert(Finding::RowRemapFailed);
            let mut pending = Findings::default();
            pending.insert(Finding::RowRemapPending);
            reported.report(&mut b, 1, pending, Some(1_000));
            reported.report(&mut b, 1, both, Some(2_000));
            reported.report(&mut b, 0, pending, Some(3_000));
            reported.report(&mut b, 2, both, None);
            reported.report(&mut b, 2, both, None);
            b.finish()
        });
        let events: Vec<_> = built
            .events
            .iter()
            .map(|e| {
                (
                    e.gpu,
                    e.kind,
                    e.at.as_millisecond(),
                    e.detail.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            events,
            vec![
                (
                    Some(1),
                    EventKind::HealthFault,
                    1_000,
                    "row remap pending a reset"
                ),
                (
                    Some(1),
                    EventKind::HealthFault,
                    2_000,
                    "row remapping failed"
                ),
                (
                    Some(0),
                    EventKind::HealthFault,
                    3_000,
                    "row remap pending a reset"
                ),
            ]
        );
        assert_eq!(
            built.warnings,
            vec![
                "GPU 2: row remap pending a reset (no time in the output: counted as a faulty GPU, without a time)",
                "GPU 2: row remapping failed (no time in the output: counted as a faulty GPU, without a time)",
            ]
        );
    }
}
