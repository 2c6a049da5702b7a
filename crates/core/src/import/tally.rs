//! The events an import found, by kind, for its summary.

use jiff::Timestamp;
use serde::Serialize;

/// Events of one kind (one Xid code) a log holds: how many, on which GPUs,
/// over what time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventTally {
    pub kind: crate::domain::EventKind,
    pub code: Option<i64>,
    /// What a health check found ("row remapping failed"): its findings
    /// are told apart by it.
    pub finding: Option<String>,
    pub count: usize,
    pub gpus: Vec<u32>,
    pub first: Timestamp,
    pub last: Timestamp,
    /// Whether they count against the platform (an application's Xid and
    /// a recorded warning do not).
    pub counted: bool,
}

impl EventTally {
    /// Every event but a billing phase, a note and a gap (counted on its
    /// own), by kind and code, in the order of their first time.
    pub fn of(events: &[crate::domain::Event]) -> Vec<EventTally> {
        use crate::domain::EventKind;
        let mut out: Vec<EventTally> = Vec::new();
        for e in events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::Phase | EventKind::Note | EventKind::Gap))
        {
            let code = if e.kind == EventKind::Xid {
                e.code
            } else {
                None
            };
            let finding = if e.kind == EventKind::HealthFault {
                e.detail.clone()
            } else {
                None
            };
            let at = e.at;
            match out
                .iter_mut()
                .find(|t| t.kind == e.kind && t.code == code && t.finding == finding)
            {
                Some(t) => {
                    t.count += 1;
                    t.first = t.first.min(at);
                    t.last = t.last.max(at);
                    if let Some(g) = e.gpu
                        && !t.gpus.contains(&g)
                    {
                        t.gpus.push(g);
                    }
                }
                None => out.push(EventTally {
                    kind: e.kind,
                    code,
                    finding,
                    count: 1,
                    gpus: e.gpu.into_iter().collect(),
                    first: at,
                    last: at,
                    counted: e.counts_against_platform() || e.kind == EventKind::HealthFault,
                }),
            }
        }
        for t in &mut out {
            t.gpus.sort_unstable();
        }
        out.sort_by_key(|t| t.first);
        out
    }
}

impl std::fmt::Display for EventTally {
    /// "2 × Xid 48: double-bit ECC error (…) on GPU 1, 3, 10 Oct 15:02–15:40 UTC"
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.code, &self.finding) {
            (Some(code), _) => crate::accelerator::xid::describe(code),
            (None, Some(finding)) => format!("{}: {finding}", self.kind),
            (None, None) => self.kind.to_string(),
        };
        write!(f, "{} × {what}", self.count)?;
        if !self.gpus.is_empty() {
            let gpus: Vec<String> = self.gpus.iter().map(u32::to_string).collect();
            write!(f, " on GPU {}", gpus.join(", "))?;
        }
        let day = |t: Timestamp| crate::text::minute_words(t);
        if self.first == self.last {
            write!(f, ", {}", day(self.first))?;
        } else {
            write!(f, ", {} → {}", day(self.first), day(self.last))?;
        }
        if !self.counted {
            write!(f, " (not counted against the platform)")?;
        }
        Ok(())
    }
}
