//! Nodes judged against each other and over time: a node whose collective
//! or RDMA bandwidth lies well below its peers' (a straggler node, as a GPU
//! below its node's best is a straggler GPU), and a node found bad in one
//! run that is bad again when it comes back in a later one.
//!
//! Both need more than one run: they are the platform's, computed once its
//! runs' own figures are in, and each is given to the run it concerns.

use std::collections::BTreeMap;

use super::RunValue;
use super::aggregate::RunFigures;
use super::faulty_gpus::health_findings;
use crate::domain::{Event, Run};
use crate::metrics::catalog::keys;
use crate::perf;

pub(super) const STRAGGLER_NODES: &str = keys::SUSTAIN_STRAGGLER_NODES_PCT;
pub(super) const RECURRING: &str = keys::SUSTAIN_RECURRING_BAD_PCT;

/// A node more than this share below its peers' median is a straggler.
const STRAGGLER_SHARE: f64 = 0.10;

/// The host a run measured, where it names one.
fn host_of(run: &Run) -> Option<String> {
    run.provenance
        .host
        .clone()
        .or_else(|| run.inventory.iter().find_map(|g| g.host.clone()))
}

/// The run's perf log, unless it measures nothing (planted, simulated).
fn scored_perf_log(run: &Run) -> Option<perf::PerfLog> {
    let log: perf::PerfLog = serde_json::from_value(run.metadata.get("perf")?.clone()).ok()?;
    perf::measures_nothing(&log).is_none().then_some(log)
}

/// One node's figure on a test other nodes may have run alike.
struct NodeFigure {
    /// The figures' index of the run.
    run: usize,
    node: String,
    /// The test, rank count and size: only alike figures compare.
    alike: String,
    label: String,
    value: f64,
}

fn node_figures(figures: &[RunFigures]) -> Vec<NodeFigure> {
    let mut out = Vec::new();
    for (index, f) in figures.iter().enumerate() {
        let Some(log) = scored_perf_log(f.run) else {
            continue;
        };
        let node = host_of(f.run).unwrap_or_else(|| format!("run #{}", f.run.id));
        for r in log
            .results
            .iter()
            .filter(|r| r.gpu.is_none() && r.unit == "GB/s")
        {
            let setting = |k: &str| r.settings.get(k).and_then(serde_json::Value::as_u64);
            // A collective over several nodes is the fabric's, no node's.
            if setting("nodes").is_some_and(|n| n > 1) {
                continue;
            }
            let size = setting("size_bytes")
                .or_else(|| setting("bytes"))
                .unwrap_or(0);
            out.push(NodeFigure {
                run: index,
                node: node.clone(),
                alike: format!("{} {} {size}", r.test, r.gpus.len()),
                label: r.label(),
                value: r.median,
            });
        }
    }
    out
}

/// Give each run that measured a node alike with others its part of the
/// share of straggler nodes; returns the runs whose node straggled, with
/// why.
pub(super) fn add_stragglers(figures: &mut [RunFigures]) -> BTreeMap<usize, String> {
    let all = node_figures(figures);
    let mut slow: BTreeMap<usize, String> = BTreeMap::new();
    let mut compared: BTreeMap<usize, String> = BTreeMap::new();
    for f in &all {
        let mut peers: Vec<f64> = all
            .iter()
            .filter(|p| p.alike == f.alike && p.node != f.node)
            .map(|p| p.value)
            .collect();
        if peers.is_empty() {
            continue;
        }
        peers.sort_by(f64::total_cmp);
        let median = crate::stats::percentile(&peers, 0.5).unwrap_or(f.value);
        let text = format!(
            "{}: {} {} GB/s against the median {} GB/s of {} other node(s)",
            f.node,
            f.label,
            perf::number(f.value),
            perf::number(median),
            peers.len()
        );
        if f.value < median * (1.0 - STRAGGLER_SHARE) {
            let below = 100.0 * (1.0 - f.value / median);
            slow.entry(f.run)
                .or_insert(format!("{text}: {below:.0} % below, a straggler"));
        } else {
            compared.entry(f.run).or_insert(text);
        }
    }
    for (run, text) in &compared {
        if !slow.contains_key(run) {
            figures[*run].values.push(RunValue::pooled(
                STRAGGLER_NODES,
                0.0,
                1.0,
                Some(format!("{text}: within 10 %")),
            ));
        }
    }
    for (run, text) in &slow {
        figures[*run].values.push(RunValue::pooled(
            STRAGGLER_NODES,
            1.0,
            1.0,
            Some(text.clone()),
        ));
    }
    slow
}

/// One appearance of a node in a run, and what was wrong with it there.
struct Seen {
    run: usize,
    bad: Vec<String>,
}

/// Every node the runs name (by host, else a GPU by UUID), in the runs'
/// time order (runs without a date after, in the order imported), with what
/// each run found wrong with it.
fn appearances(
    figures: &[RunFigures],
    events: &[Vec<Event>],
    straggling: &BTreeMap<usize, String>,
) -> BTreeMap<String, Vec<Seen>> {
    let mut order: Vec<usize> = (0..figures.len()).collect();
    order.sort_by_key(|&i| {
        let r = figures[i].run;
        (r.started_at.map_or(i64::MAX, |t| t.as_millisecond()), r.id)
    });
    let mut nodes: BTreeMap<String, Vec<Seen>> = BTreeMap::new();
    for i in order {
        let run = figures[i].run;
        let unit_of = |gpu: Option<u32>| -> Option<String> {
            let info = gpu.and_then(|g| run.inventory.iter().find(|x| x.index == g));
            info.and_then(|g| g.host.clone())
                .or_else(|| host_of(run))
                .map(|h| format!("node {h}"))
                .or_else(|| {
                    info.and_then(|g| g.uuid.clone())
                        .map(|u| format!("GPU {u}"))
                })
        };
        let mut here: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for g in &run.inventory {
            if let Some(unit) = unit_of(Some(g.index)) {
                here.entry(unit).or_default();
            }
        }
        if let Some(unit) = unit_of(None) {
            here.entry(unit).or_default();
        }
        let mut bad: Vec<(Option<u32>, String)> = health_findings(run, &events[i]);
        if let Some(log) = scored_perf_log(run) {
            for s in perf::stragglers(&log, perf::DEFAULT_STRAGGLER_SHARE) {
                bad.push((
                    Some(s.gpu),
                    format!(
                        "GPU {} straggled ({} {:.0} % below GPU {})",
                        s.gpu, s.test, s.deficit_pct, s.best_gpu
                    ),
                ));
            }
        }
        if let Some(why) = straggling.get(&i) {
            bad.push((None, format!("a straggler node ({why})")));
        }
        for (gpu, what) in bad {
            if let Some(unit) = unit_of(gpu) {
                here.entry(unit).or_default().push(what);
            }
        }
        for (unit, bad) in here {
            nodes.entry(unit).or_default().push(Seen { run: i, bad });
        }
    }
    nodes
}

/// Give the run in which a bad node came back its part of the share of
/// bad nodes found bad again.
pub(super) fn add_recurring(
    figures: &mut [RunFigures],
    events: &[Vec<Event>],
    straggling: &BTreeMap<usize, String>,
) {
    let nodes = appearances(figures, events, straggling);
    // Per run: nodes that came back there, and those of them bad again.
    let mut parts: BTreeMap<usize, (u32, u32, Vec<String>)> = BTreeMap::new();
    for (unit, seen) in nodes {
        let Some(first_bad) = seen.iter().position(|s| !s.bad.is_empty()) else {
            continue;
        };
        let later = &seen[first_bad + 1..];
        let Some(back) = later.first() else {
            continue;
        };
        let was = &seen[first_bad];
        let again = later.iter().find(|s| !s.bad.is_empty());
        let part = parts.entry(back.run).or_default();
        part.0 += 1;
        let first_run = figures[was.run].run.id;
        let back_run = figures[back.run].run.id;
        match again {
            Some(s) => {
                part.1 += 1;
                part.2.push(format!(
                    "{unit}: bad in run #{first_run} ({}), back in run #{back_run}, bad again in run #{} ({})",
                    was.bad.join(", "),
                    figures[s.run].run.id,
                    s.bad.join(", ")
                ));
            }
            None => part.2.push(format!(
                "{unit}: bad in run #{first_run} ({}), back in run #{back_run} and sound since",
                was.bad.join(", ")
            )),
        }
    }
    for (run, (back, again, said)) in parts {
        figures[run].values.push(RunValue::pooled(
            RECURRING,
            f64::from(again),
            f64::from(back),
            Some(format!(
                "{again} of {back} bad node(s) that came back were bad again: {}",
                said.join("; ")
            )),
        ));
    }
}
