//! Faults that a log without samples records (a kernel log, a journal) on a
//! node whose GPUs another run sampled at the same time: counted against
//! the platform in that run's interruptions, over its sampled GPU-hours —
//! once, however many logs tell of it.
//!
//! A kernel log alone watches GPUs for a time it cannot show (when did the
//! driver start looking; was the node up?), so its own rate needs a span
//! and the GPUs it saw taken in charge (`run::event_log_exposure_ms`). The
//! same fault on the very node whose nvidia-smi CSV or probe log was
//! sampled is evidence about those GPU-hours: leaving it out made a
//! platform whose node lost a GPU to a double-bit error score as its
//! healthy twin.
//!
//! The node is matched by name (the log's host against the sampled run's
//! host and its GPUs' hosts); a log that names no host is matched only
//! where exactly one sampled node covers the time, never borrowed from one
//! of several. A fault the sampled run recorded itself (the same kind and
//! code within two minutes) is not counted again, and the Xids one GPU
//! reports in the same minute (an NVLink error behind its link event) are
//! one interruption.

use std::collections::BTreeSet;

use super::RunValue;
use super::aggregate::RunFigures;
use crate::domain::{Event, EventKind};
use crate::metrics::catalog::keys;

const KEY: &str = keys::SUSTAIN_INTERRUPTIONS_PER_100H;

/// Two records of one fault are at most this far apart (a kernel log's
/// time and the probe's, on clocks that disagree a little).
const SAME_FAULT_MS: i64 = 120_000;

/// A sampled run: where it is in `figures` (and its events), its node and
/// its time.
struct Sampled {
    index: usize,
    names: Vec<String>,
    from_ms: i64,
    to_ms: i64,
    /// Faults counted here from other logs, one per incident.
    attached: Vec<Event>,
}

fn same_fault(a: &Event, b: &Event) -> bool {
    (a.at.as_millisecond() - b.at.as_millisecond()).abs() <= SAME_FAULT_MS
        && (a.kind == b.kind
            || matches!(
                (a.kind, b.kind),
                (EventKind::Xid, EventKind::GpuLost) | (EventKind::GpuLost, EventKind::Xid)
            ))
        && (a.kind != EventKind::Xid || b.kind != EventKind::Xid || a.code == b.code)
}

/// The faults of sample-less runs that a sampled run's interruptions hold
/// (attached here, or recorded by the run itself): by run id and the
/// event's place in the run's events.
pub(super) type Placed = BTreeSet<(i64, usize)>;

/// Count each fault of a sample-less run against the sampled run of the
/// same node that covers its time (see the module's comment); the fault
/// leaves the sample-less run's own count, so that it counts once.
pub(super) fn attach(figures: &mut [RunFigures], events: &[Vec<Event>]) -> Placed {
    let mut placed = Placed::new();
    // Most platforms hold no log without samples: nothing to read then.
    if figures.iter().all(|f| f.run.watched()) {
        return placed;
    }
    let mut sampled: Vec<Sampled> = Vec::new();
    for (index, f) in figures.iter().enumerate() {
        let r = f.run;
        if !r.watched() || !f.values.iter().any(|v| v.key == KEY) {
            continue;
        }
        let (Some(from), Some(to)) = (r.started_at, r.ended_at) else {
            continue;
        };
        sampled.push(Sampled {
            index,
            names: r.hosts(),
            from_ms: from.as_millisecond(),
            to_ms: to.as_millisecond() + i64::from(r.interval_ms.unwrap_or(0)),
            attached: Vec::new(),
        });
    }
    if sampled.is_empty() {
        return placed;
    }
    for i in 0..figures.len() {
        let run = figures[i].run;
        if run.watched() {
            continue;
        }
        let names = run.hosts();
        for (position, event) in events[i]
            .iter()
            .cloned()
            .enumerate()
            .filter(|(_, e)| e.counts_against_platform())
        {
            let t = event.at.as_millisecond();
            let covering: Vec<usize> = (0..sampled.len())
                .filter(|&k| sampled[k].from_ms <= t && t <= sampled[k].to_ms)
                .filter(|&k| names.is_empty() || sampled[k].names.iter().any(|n| names.contains(n)))
                .collect();
            let Some(&first) = covering.first() else {
                continue;
            };
            // A log without a host: only one node may be meant.
            if names.is_empty()
                && covering
                    .iter()
                    .any(|&k| sampled[k].names != sampled[first].names)
            {
                continue;
            }
            let recorded = covering.iter().any(|&k| {
                events[sampled[k].index]
                    .iter()
                    .any(|e| same_fault(e, &event))
            });
            let same_incident = sampled[first].attached.iter().any(|e| {
                e.gpu == event.gpu
                    && (e.at.as_millisecond() - t).abs()
                        <= crate::accelerator::xid::SAME_INCIDENT_MS
            });
            if !recorded && !same_incident {
                add(
                    &mut figures[sampled[first].index].values,
                    1.0,
                    &format!(
                        "{} on {}, from run #{}'s log of the same node",
                        describe(&event),
                        crate::text::time_words(event.at),
                        run.id
                    ),
                );
                sampled[first].attached.push(event);
            }
            // Counted with the sampled run (now, or by its own record).
            add(&mut figures[i].values, -1.0, "");
            placed.insert((run.id, position));
        }
    }
    placed
}

/// "Xid 48: double-bit ECC error (…)", or the event's kind.
pub(super) fn describe(event: &Event) -> String {
    match (event.kind, event.code) {
        (EventKind::Xid, Some(code)) => crate::accelerator::xid::describe(code),
        (kind, _) => kind.to_string(),
    }
}

/// Move a run's pooled interruption count by `by`, keeping what was
/// counted in its detail.
fn add(values: &mut [RunValue], by: f64, why: &str) {
    let Some(v) = values.iter_mut().find(|v| v.key == KEY) else {
        return;
    };
    let Some(pooled) = v.pooled.as_mut() else {
        return;
    };
    pooled.count = (pooled.count + by).max(0.0);
    v.value = 100.0 * pooled.count / pooled.exposure;
    if !why.is_empty() {
        let detail = v.detail.get_or_insert_with(String::new);
        detail.push_str(&format!("; + {why}"));
    }
}
