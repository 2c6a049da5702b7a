//! What a monitoring history shows without any test being run — the
//! passive checks the ClusterMAX rating expects of a provider: a GPU's PCIe
//! replay counter rising (its link retrying transfers: a bad riser, slot or
//! cable), uncorrectable ECC errors, NVLink errors rising, and a stalled
//! collective — every GPU of a node at full utilisation while drawing
//! near-idle power for minutes, the signature of a collective waiting on a
//! peer that never answers.
//!
//! Each becomes a health fault on the run (counted in the share of GPUs
//! found faulty, never as an interruption): a counter's rise on its GPU, a
//! stall on the node (no GPU of it is to blame). Corrected ECC errors are
//! noted, never counted: the memory did its job.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::ParseFailure;
use crate::domain::{
    Event, EventKind, GpuInfo, WATCHED_ECC, WATCHED_NVLINK, WATCHED_PCIE_REPLAYS, WATCHED_STALLS,
};
use crate::samples::{Field, SeriesFrame};
use crate::store::Store;

/// Replays a healthy link never reaches over a watch: a few retries are
/// noise, this many a link that keeps failing its checks.
pub const REPLAY_RISE: i64 = 100;
/// A GPU this busy…
pub const STALL_UTIL_PCT: i64 = 95;
/// …drawing at most this share of its power limit (idle is 10–20 % of it
/// on current data-centre cards; a collective moving data draws far more)…
pub const STALL_POWER_SHARE: f64 = 0.25;
/// …on every GPU of the node for this long is a stalled collective.
pub const STALL_MIN_MS: i64 = 120_000;

/// NVLink errors (CRC, replays and recoveries together) a healthy set of
/// links never reaches over a watch; like PCIe replays, a few are noise.
pub const NVLINK_RISE: i64 = 100;

const ECC: [Field; 4] = [
    Field::EccSbeVolatile,
    Field::EccDbeVolatile,
    Field::EccSbeAggregate,
    Field::EccDbeAggregate,
];
const NVLINK: [Field; 3] = [
    Field::NvlinkCrcErrors,
    Field::NvlinkReplays,
    Field::NvlinkRecoveries,
];

/// What a stalled collective is read from.
const STALL: [Field; 3] = [Field::UtilGpuPct, Field::PowerMw, Field::PowerLimitMw];

/// What the passive checks made of a run's samples.
pub(super) struct Passive {
    pub(super) events: Vec<Event>,
    /// The checks its samples allowed ([`crate::domain::PASSIVE_WATCH`]).
    pub(super) watched: Vec<&'static str>,
}

/// The passive findings of run `run_id`'s samples.
pub(super) fn find(
    store: &Store,
    run_id: i64,
    inventory: &[GpuInfo],
    host: Option<&str>,
) -> Result<Passive, ParseFailure> {
    let mut events = Vec::new();
    // Every error counter a device reports, and the stall's readings.
    let fields: Vec<Field> = Field::ALL
        .into_iter()
        .filter(|f| f.is_error_count() || STALL.contains(f))
        .collect();
    let (mut replays_watched, mut stalls_watched) = (false, false);
    let (mut ecc_watched, mut nvlink_watched) = (false, false);
    // Each node's GPUs' stalled stretches.
    let mut stalls: BTreeMap<String, Vec<Vec<(i64, i64)>>> = BTreeMap::new();
    for gpu in store.sample_gpus(run_id)? {
        let frame = store.read_samples(run_id, gpu, None, Some(&fields))?;
        let holds = |field| {
            frame
                .column(field)
                .is_some_and(|c| c.iter().any(|v| v.is_some()))
        };
        replays_watched |= holds(Field::PcieReplays);
        stalls_watched |= holds(Field::UtilGpuPct) && holds(Field::PowerMw);
        ecc_watched |= ECC.into_iter().any(holds);
        nvlink_watched |= NVLINK.into_iter().any(holds);
        events.extend(replay_rise(&frame));
        events.extend(ecc_errors(&frame));
        events.extend(nvlink_rise(&frame));
        let node = inventory
            .iter()
            .find(|g| g.index == gpu)
            .and_then(|g| g.host.as_deref())
            .or(host)
            .unwrap_or("the node")
            .to_string();
        stalls.entry(node).or_default().push(stalled(&frame));
    }
    for (node, gpus) in stalls {
        let count = gpus.len();
        for (from, to) in common(gpus) {
            let Ok(at) = Timestamp::from_millisecond(from) else {
                continue;
            };
            events.push(Event {
                duration_ms: Some(to - from),
                detail: Some(format!(
                    "stalled collective on {node}: all {count} GPUs at ≥ {STALL_UTIL_PCT} % \
                     utilisation drawing ≤ {:.0} % of their power limit for {:.1} min",
                    STALL_POWER_SHARE * 100.0,
                    (to - from) as f64 / 60_000.0
                )),
                ..Event::new(at, EventKind::HealthFault)
            });
        }
    }
    let watched = [
        (replays_watched, WATCHED_PCIE_REPLAYS),
        (stalls_watched, WATCHED_STALLS),
        (ecc_watched, WATCHED_ECC),
        (nvlink_watched, WATCHED_NVLINK),
    ]
    .into_iter()
    .filter_map(|(watched, name)| watched.then_some(name))
    .collect();
    Ok(Passive { events, watched })
}

/// How much a cumulative counter rose over the run, and when it first
/// did: each step up counted, a step down (a reset, a driver reload)
/// starting it again. `None` where the GPU never reported it.
struct Rise {
    by: i64,
    low: i64,
    high: i64,
    first_at: Option<i64>,
}

fn rise(frame: &SeriesFrame, field: Field) -> Option<Rise> {
    let column = frame.column(field)?;
    let mut r = Rise {
        by: 0,
        low: i64::MAX,
        high: i64::MIN,
        first_at: None,
    };
    let mut previous: Option<i64> = None;
    for (i, value) in column.iter().enumerate() {
        let Some(v) = value else { continue };
        r.low = r.low.min(v);
        r.high = r.high.max(v);
        if let Some(p) = previous
            && v > p
        {
            r.by += v - p;
            r.first_at.get_or_insert(frame.t_ms[i]);
        }
        previous = Some(v);
    }
    (r.low <= r.high).then_some(r)
}

/// The hours the frame spans, for saying a rate.
fn span_h(frame: &SeriesFrame) -> f64 {
    match (frame.t_ms.first(), frame.t_ms.last()) {
        (Some(a), Some(b)) => (b - a) as f64 / 3.6e6,
        _ => 0.0,
    }
}

fn on_gpu(
    frame: &SeriesFrame,
    at_ms: i64,
    kind: EventKind,
    code: i64,
    detail: String,
) -> Option<Event> {
    let at = Timestamp::from_millisecond(at_ms).ok()?;
    Some(Event {
        gpu: Some(frame.gpu),
        code: Some(code),
        detail: Some(detail),
        ..Event::new(at, kind)
    })
}

/// A rise of the replay counter by [`REPLAY_RISE`] or more over the run
/// (a reset of the counter, a driver reload, starts it again).
fn replay_rise(frame: &SeriesFrame) -> Option<Event> {
    let r = rise(frame, Field::PcieReplays)?;
    if r.by < REPLAY_RISE {
        return None;
    }
    on_gpu(
        frame,
        r.first_at?,
        EventKind::HealthFault,
        r.by,
        format!(
            "PCIe replay counter rose by {} ({} → {}) over {:.1} h: the link \
             retries its transfers (a riser, slot or cable failing its checks)",
            r.by,
            r.low,
            r.high,
            span_h(frame)
        ),
    )
}

/// Uncorrectable ECC errors during the watch are a fault of the GPU's
/// memory (one is enough: data was lost); corrected ones are noted. The
/// volatile counter is read where the GPU reports it, else the aggregate.
fn ecc_errors(frame: &SeriesFrame) -> Vec<Event> {
    let pick = |volatile, aggregate| rise(frame, volatile).or_else(|| rise(frame, aggregate));
    let mut out = Vec::new();
    if let Some(r) = pick(Field::EccDbeVolatile, Field::EccDbeAggregate)
        && r.by > 0
        && let Some(at) = r.first_at
    {
        out.extend(on_gpu(
            frame,
            at,
            EventKind::HealthFault,
            r.by,
            format!(
                "{} uncorrectable ECC errors over {:.1} h: the GPU's memory lost data (a \
                 double-bit error; the GPU needs a reset and its rows remapped)",
                r.by,
                span_h(frame)
            ),
        ));
    }
    if let Some(r) = pick(Field::EccSbeVolatile, Field::EccSbeAggregate)
        && r.by > 0
        && let Some(at) = r.first_at
    {
        out.extend(on_gpu(
            frame,
            at,
            EventKind::Note,
            r.by,
            format!(
                "{} corrected ECC errors over {:.1} h (corrected: shown, never counted)",
                r.by,
                span_h(frame)
            ),
        ));
    }
    out
}

/// NVLink errors (CRC, replays and recoveries together) rising by
/// [`NVLINK_RISE`] or more: a link that keeps failing its checks.
fn nvlink_rise(frame: &SeriesFrame) -> Option<Event> {
    let parts: Vec<(&str, Rise)> = [
        ("CRC errors", Field::NvlinkCrcErrors),
        ("replays", Field::NvlinkReplays),
        ("recoveries", Field::NvlinkRecoveries),
    ]
    .into_iter()
    .filter_map(|(name, field)| Some((name, rise(frame, field)?)))
    .collect();
    let total: i64 = parts.iter().map(|(_, r)| r.by).sum();
    if total < NVLINK_RISE {
        return None;
    }
    let at = parts.iter().filter_map(|(_, r)| r.first_at).min()?;
    let said = parts
        .iter()
        .filter(|(_, r)| r.by > 0)
        .map(|(name, r)| format!("{name} +{}", r.by))
        .collect::<Vec<_>>()
        .join(", ");
    on_gpu(
        frame,
        at,
        EventKind::HealthFault,
        total,
        format!(
            "NVLink errors rose by {total} ({said}) over {:.1} h: a link keeps failing its \
             checks",
            span_h(frame)
        ),
    )
}

/// The stretches (from, to) in which the GPU was busy at near-idle power,
/// each at least [`STALL_MIN_MS`] long. Without a power limit the GPU's own
/// highest reading stands for it.
fn stalled(frame: &SeriesFrame) -> Vec<(i64, i64)> {
    let (Some(util), Some(power)) = (
        frame.column(Field::UtilGpuPct),
        frame.column(Field::PowerMw),
    ) else {
        return Vec::new();
    };
    let limit = frame.column(Field::PowerLimitMw);
    let highest = power.iter().flatten().max().unwrap_or(0);
    let mut out = Vec::new();
    let mut open: Option<(i64, i64)> = None;
    for (i, &t) in frame.t_ms.iter().enumerate() {
        let cap = limit
            .and_then(|c| c.get(i))
            .filter(|l| *l > 0)
            .unwrap_or(highest);
        let stalled = matches!(
            (util.get(i), power.get(i)),
            (Some(u), Some(p)) if u >= STALL_UTIL_PCT && (p as f64) <= STALL_POWER_SHARE * cap as f64
        );
        open = match (open, stalled) {
            (Some((from, _)), true) => Some((from, t)),
            (None, true) => Some((t, t)),
            (Some(stretch), false) => {
                out.push(stretch);
                None
            }
            (None, false) => None,
        };
    }
    out.extend(open);
    out.retain(|(from, to)| to - from >= STALL_MIN_MS);
    out
}

/// The stretches every GPU shares, at least [`STALL_MIN_MS`] long.
fn common(gpus: Vec<Vec<(i64, i64)>>) -> Vec<(i64, i64)> {
    let mut gpus = gpus.into_iter();
    let Some(mut shared) = gpus.next() else {
        return Vec::new();
    };
    for other in gpus {
        let mut next = Vec::new();
        for &(a0, a1) in &shared {
            for &(b0, b1) in &other {
                let (from, to) = (a0.max(b0), a1.min(b1));
                if to - from >= STALL_MIN_MS {
                    next.push((from, to));
                }
            }
        }
        shared = next;
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_stretch_every_gpu_shares_long_enough_is_a_stall() {
        let a = vec![(0, 300_000), (600_000, 700_000)];
        let b = vec![(60_000, 400_000)];
        assert_eq!(common(vec![a.clone(), b]), vec![(60_000, 300_000)]);
        // One GPU working through it: no stall of the node.
        assert_eq!(common(vec![a, Vec::new()]), Vec::<(i64, i64)>::new());
    }
}
