//! A fleet judged from summaries its Prometheus computes: per GPU and
//! window, the figures the sustain metrics need, as PromQL over range
//! vectors (counts of points, of busy, working, throttled and hot points,
//! the busy power level, the hottest reading, XID changes). Raw samples are
//! fetched only for the windows whose summaries flag something — a silence,
//! a GPU lost or back, a level change, a throttle, an XID — so a healthy
//! fleet costs one query per node and day, a faulty one a few raw ranges
//! more (docs/fleet.md gives the queries).
//!
//! Every figure is counted over a subquery at the pull's step
//! (`[window:step]`), which evaluates the series exactly where a full pull's
//! `query_range` would: the same points, the same five-minute lookback.
//!
//! Each node is stored in a transaction of its own, as a summary run (its
//! windows, and the events its drilled windows showed) beside one run per
//! drilled stretch, kept for looking at and never scored twice. A pull cut
//! off half-way keeps the nodes it finished; run again, it asks only for
//! the rest.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use breakpoint_core::domain::{
    GpuInfo, MEASURES_NOTHING, NewRun, Provenance, RunKind, SUMMARISED, SourceKind,
};
use breakpoint_core::import::{Format, ImportOptions, ImportOutcome, import_reader};
use breakpoint_core::metrics::sustain::{BUSY_UTIL, HOT_C};
use breakpoint_core::samples::windows::{DrilledStretch, GpuWindow, REASON_BITS, WindowSummary};
use breakpoint_core::samples::{COUNTED_THROTTLE, WORKING_UTIL};
use breakpoint_core::store::Store;
use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Value, json};

use super::stretch::fetch_stretch;
use super::summary_answer::for_each_series;
use super::{
    Calls, DAY_S, Progress, PullError, PullRequest, invalid, quoted, series_query, stamp,
    stored_stretches, uncovered,
};
use crate::api::PromApi;

/// Windows a day divides into evenly, and no shorter than this.
const SHORTEST_WINDOW_S: u32 = 300;
/// The most GPUs one node's summary may hold.
const MAX_GPUS: u32 = 1024;
/// A window's busy level this far from the one before flags it.
const LEVEL_CHANGE: f64 = 0.1;

/// What was summarised and drilled into, per node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeSummarised {
    pub node: String,
    /// The summary run, where anything new was summarised.
    pub run: Option<i64>,
    pub gpus: usize,
    pub windows: usize,
    pub drilled: Vec<DrilledStretch>,
    /// Already stored for the whole range.
    pub already: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SummaryReport {
    pub window_s: u32,
    pub nodes: Vec<NodeSummarised>,
    pub requests: u64,
    pub retries: u64,
    /// Samples stored by the drilled stretches, and the points the
    /// summaries stand for.
    pub samples_stored: u64,
    pub points_summarised: u64,
}

/// The selectors of the series the figures read, for one node.
struct Series {
    power: String,
    util: String,
    temp: String,
    xid: String,
    reasons: String,
}

impl Series {
    fn of(sel: &str) -> Series {
        let of = |name: &str| format!("{{__name__=~\"DCGM_FI_DEV_{name}\",{sel}}}");
        Series {
            power: of("POWER_USAGE"),
            util: of("GPU_UTIL"),
            temp: of("GPU_TEMP"),
            xid: of("XID_ERRORS"),
            reasons: of("(CLOCK_THROTTLE_REASONS|CLOCKS_EVENT_REASONS)"),
        }
    }

    /// Bit `b` of the clock-event mask, 0 or 1 (PromQL has no bitwise
    /// operators).
    fn bit(&self, b: i64) -> String {
        format!("(floor({} / {b}) % 2)", self.reasons)
    }
}

/// The PromQL of every figure a window needs, for one node, as
/// docs/fleet.md shows it; `sel` holds the node's label matchers. A figure
/// that counts points, or filters them, is a subquery at the pull's step
/// (`[1h:15s]`): it sees exactly the points a full pull would get. A
/// largest value or a count of changes reads the stored samples as they
/// are (`[1h]`), which costs the server less and gives the same answer.
pub fn figures(sel: &str, window_s: u32, step_s: u32) -> Vec<(String, String)> {
    let s = Series::of(sel);
    let (p, u, t, x, r) = (&s.power, &s.util, &s.temp, &s.xid, &s.reasons);
    let at_step = format!("[{window_s}s:{step_s}s]");
    let stored = format!("[{window_s}s]");
    // Matching on everything but the metric's name: the same GPU.
    let same = "ignoring(__name__)";
    let busy = format!("({u} >= {BUSY_UTIL})");
    let working = format!("({u} > {WORKING_UTIL})");
    let counted: Vec<String> = (0..REASON_BITS as u32)
        .map(|k| 1i64 << k)
        .filter(|b| COUNTED_THROTTLE & b != 0)
        .map(|b| s.bit(b))
        .collect();
    vec![
        ("points".into(), format!("count_over_time({p}{at_step})")),
        ("busy".into(), format!("count_over_time({busy}{at_step})")),
        (
            "busy_power".into(),
            format!("quantile_over_time(0.5, ({p} and {same} {busy}){at_step})"),
        ),
        ("mean_power".into(), format!("avg_over_time({p}{stored})")),
        ("masked".into(), format!("count_over_time({r}{at_step})")),
        (
            "working".into(),
            format!("count_over_time(({r} and {same} {working}){at_step})"),
        ),
        (
            "throttled".into(),
            format!(
                "count_over_time((({}) > 0 and {same} {working}){at_step})",
                counted.join(" + ")
            ),
        ),
        (
            "reasoned".into(),
            format!("count_over_time(({r} > 0){at_step})"),
        ),
        (
            "temp_points".into(),
            format!("count_over_time({t}{at_step})"),
        ),
        (
            "hot".into(),
            format!("count_over_time(({t} > {HOT_C}){at_step})"),
        ),
        ("max_temp".into(), format!("max_over_time({t}{stored})")),
        ("xid_max".into(), format!("max_over_time({x}{stored})")),
        ("xid_changes".into(), format!("changes({x}{stored})")),
    ]
}

/// Each reason bit's count: asked only for the days where some window saw
/// a reason at all (its `reasoned` figure).
pub fn reason_figures(sel: &str, window_s: u32, step_s: u32) -> Vec<(String, String)> {
    let s = Series::of(sel);
    (0..REASON_BITS)
        .map(|k| {
            (
                format!("reason{k}"),
                format!(
                    "count_over_time(({} == 1)[{window_s}s:{step_s}s])",
                    s.bit(1 << k)
                ),
            )
        })
        .collect()
}

/// The figures as one query: each tagged with a `bp_figure` label.
fn one_query(figures: &[(String, String)]) -> String {
    figures
        .iter()
        .map(|(name, q)| format!("label_replace({q}, \"bp_figure\", \"{name}\", \"\", \"\")"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The windows of `[from, to]` (seconds): each `window_s` long, aligned to
/// whole windows of the day, wholly inside the range (its first point at
/// or after `from`, its last at or before `to`). Their starts.
pub fn windows_in(from: i64, to: i64, window_s: i64, step_s: i64) -> Vec<i64> {
    let mut start = from.div_euclid(window_s) * window_s;
    if start < from {
        start += window_s;
    }
    let mut out = Vec::new();
    while start + window_s - step_s <= to {
        out.push(start);
        start += window_s;
    }
    out
}

/// Pull summaries of the range for every node, drilling into what they
/// flag; each node stored on its own.
pub fn pull_summaries(
    store: &Store,
    api: &dyn PromApi,
    request: &PullRequest,
    window_s: u32,
    cancel: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<SummaryReport, PullError> {
    let (from, to) = (request.from.as_second(), request.to.as_second());
    if request.step_s == 0 {
        return Err(invalid("step_s", "must be at least 1 s".into()));
    }
    if window_s < SHORTEST_WINDOW_S
        || DAY_S % i64::from(window_s) != 0
        || !window_s.is_multiple_of(request.step_s)
    {
        return Err(invalid(
            "window_s",
            format!(
                "{window_s} s: a window divides a day evenly, is a whole number of steps, \
                 and is at least {SHORTEST_WINDOW_S} s (e.g. 1h, 6h, 1d)"
            ),
        ));
    }
    if to - from + i64::from(request.step_s) < i64::from(window_s) {
        return Err(invalid(
            "to",
            format!("the range is shorter than one window ({window_s} s)"),
        ));
    }
    let calls = Calls::new(api, cancel);
    let (extra, nodes) = calls.nodes(request).map_err(|e| e.after(Vec::new()))?;
    progress(Progress::Nodes(nodes.len()));
    let mut report = SummaryReport {
        window_s,
        nodes: Vec::new(),
        requests: 0,
        retries: 0,
        samples_stored: 0,
        points_summarised: 0,
    };
    // Each node is stored on its own: one that stops the pull is said with
    // the nodes stored before it, which are kept.
    let mut kept: Vec<String> = Vec::new();
    for (node, label) in nodes.iter() {
        let summarised = summarise_node(
            store,
            &calls,
            request,
            window_s,
            &extra,
            node,
            label,
            progress,
            &mut report,
        )
        .map_err(|e| e.after(kept.clone()))?;
        if summarised.run.is_some() {
            kept.push(node.clone());
        }
        report.nodes.push(summarised);
    }

    let (requests, retries) = calls.requests.lock().map(|n| *n).unwrap_or((0, 0));
    report.requests = requests;
    report.retries = retries;
    Ok(report)
}

/// One node's missing stretches summarised and stored, each in a
/// transaction of its own once everything of it was fetched.
#[allow(clippy::too_many_arguments)]
fn summarise_node(
    store: &Store,
    calls: &Calls,
    request: &PullRequest,
    window_s: u32,
    extra: &str,
    node: &str,
    label: &str,
    progress: &(dyn Fn(Progress) + Sync),
    report: &mut SummaryReport,
) -> Result<NodeSummarised, PullError> {
    if calls.cancel.load(Ordering::Relaxed) {
        return Err(PullError::Cancelled);
    }
    let (from, to) = (request.from.as_second(), request.to.as_second());
    let matcher = format!("{label}={}", quoted(node));
    let sel = if extra.is_empty() {
        matcher
    } else {
        format!("{extra},{matcher}")
    };
    let stored = stored_stretches(store, request.platform_id, &request.url, node)?;
    let missing = uncovered(from, to, &stored, i64::from(request.step_s));
    let mut summarised = NodeSummarised {
        node: node.to_string(),
        run: None,
        gpus: 0,
        windows: 0,
        drilled: Vec::new(),
        already: missing.is_empty(),
    };
    for (a, b) in missing {
        let starts = windows_in(a, b, i64::from(window_s), i64::from(request.step_s));
        if starts.is_empty() {
            continue;
        }
        let node_pull = NodePull {
            request,
            node,
            sel: &sel,
            window_s: i64::from(window_s),
            step_s: i64::from(request.step_s),
            starts: &starts,
        };
        let (windows, inventory) = node_pull.summaries(calls)?;
        if windows.is_empty() {
            // Found by its other series (nvidia_gpu_exporter's): the
            // summaries read DCGM's.
            return Err(PullError::Server(format!(
                "{node}: no DCGM series to summarise between {} and {}; summaries read \
                 dcgm-exporter's series — pull this fleet's samples with --samples",
                request.from, request.to
            )));
        }
        let stretches = drill_stretches(&windows, &starts, node_pull.window_s, node_pull.step_s);
        // Everything asked of the server before the workspace is
        // written: the write lock is held for the storing alone, never
        // while the network is waited on.
        let fetched = stretches
            .iter()
            .map(|stretch| node_pull.fetch(calls, stretch))
            .collect::<Result<Vec<_>, _>>()?;
        // Everything of this node at once, or nothing of it.
        let stored =
            store.atomically(|store| node_pull.store(store, windows, inventory, &fetched))?;
        report.samples_stored += stored.drilled.iter().map(|d| d.samples).sum::<u64>();
        report.points_summarised += stored.points;
        summarised.run = Some(stored.run);
        summarised.gpus = summarised.gpus.max(stored.gpus);
        summarised.windows += stored.windows;
        summarised.drilled.extend(stored.drilled);
        progress(Progress::Summarised {
            node: node.to_string(),
            windows: summarised.windows,
            drilled: summarised.drilled.len(),
        });
    }
    Ok(summarised)
}

/// One node's stretch of the range, summarised window by window.
struct NodePull<'a> {
    request: &'a PullRequest,
    node: &'a str,
    sel: &'a str,
    window_s: i64,
    step_s: i64,
    starts: &'a [i64],
}

/// A flagged stretch's raw samples as the server gave them.
struct Fetched<'s> {
    stretch: &'s Stretch,
    query: String,
    bytes: Vec<u8>,
    dropped: u64,
}

/// What storing one node's stretch gave.
struct NodeStored {
    run: i64,
    gpus: usize,
    windows: usize,
    points: u64,
    drilled: Vec<DrilledStretch>,
}

/// Each GPU's windows, in time order, by GPU index.
type Windows = BTreeMap<u32, Vec<GpuWindow>>;

impl NodePull<'_> {
    /// Every window of every GPU: one query per day of windows.
    fn summaries(&self, calls: &Calls) -> Result<(Windows, BTreeMap<u32, GpuInfo>), PullError> {
        let query = one_query(&figures(self.sel, self.window_s as u32, self.step_s as u32));
        // By GPU, then by window start, while the answers come in.
        let mut read: BTreeMap<u32, BTreeMap<i64, GpuWindow>> = BTreeMap::new();
        let mut inventory = BTreeMap::new();
        let mut day_starts: Vec<&[i64]> = Vec::new();
        let mut rest = self.starts;
        while let Some(first) = rest.first() {
            let day = first.div_euclid(DAY_S);
            let n = rest
                .iter()
                .take_while(|s| s.div_euclid(DAY_S) == day)
                .count();
            day_starts.push(&rest[..n]);
            rest = &rest[n..];
        }
        let reasons = one_query(&reason_figures(
            self.sel,
            self.window_s as u32,
            self.step_s as u32,
        ));
        for starts in day_starts {
            // A window's figures are evaluated at its last step.
            let end_of = |start: i64| start + self.window_s - self.step_s;
            let (first, last) = (starts[0], starts[starts.len() - 1]);
            let ask = |query: &str| {
                calls.get_text(
                    "/api/v1/query_range",
                    &[
                        ("query", query.to_string()),
                        ("start", end_of(first).to_string()),
                        ("end", end_of(last).to_string()),
                        ("step", format!("{}s", self.window_s)),
                    ],
                )
            };
            read_answer(&ask(&query)?, starts, self, &mut read, &mut inventory)?;
            let reasoned = read.values().any(|by_start| {
                by_start
                    .range(first..=last)
                    .any(|(_, w)| w.reasons_seen > 0)
            });
            if reasoned {
                read_answer(&ask(&reasons)?, starts, self, &mut read, &mut inventory)?;
            }
        }
        let expected = (self.window_s / self.step_s) as u32;
        let windows = read
            .into_iter()
            .map(|(gpu, mut by_start)| {
                let list = self
                    .starts
                    .iter()
                    .map(|&start| {
                        // A window the GPU had no point in came back as no
                        // series at all.
                        let mut w = by_start.remove(&start).unwrap_or_else(|| GpuWindow {
                            gpu,
                            start_ms: start * 1000,
                            end_ms: (start + self.window_s) * 1000,
                            ..GpuWindow::default()
                        });
                        // A whole window's first and last point are its
                        // first and last step; a window missing points is
                        // drilled into, and its samples say where they
                        // begin and end.
                        if w.points + 1 >= expected && w.points > 0 {
                            w.first_ms = Some(w.start_ms);
                            w.last_ms = Some(w.end_ms - self.step_s * 1000);
                        }
                        w
                    })
                    .collect();
                (gpu, list)
            })
            .collect();
        Ok((windows, inventory))
    }

    /// The summary run, its windows, and the drilled stretches.
    fn store(
        &self,
        store: &Store,
        mut windows: Windows,
        inventory: BTreeMap<u32, GpuInfo>,
        fetched: &[Fetched<'_>],
    ) -> Result<NodeStored, PullError> {
        let (from, to) = (
            self.starts[0],
            self.starts[self.starts.len() - 1] + self.window_s - self.step_s,
        );
        let mut run = NewRun::new(
            self.request.platform_id,
            RunKind::Sustain,
            SourceKind::Import,
        );
        run.provenance = Provenance {
            file_name: Some(format!(
                "prometheus summary {} {}–{}",
                self.node,
                stamp(from),
                stamp(to)
            )),
            sha256: None,
            format: Some("prometheus-summary".into()),
            host: Some(self.node.to_string()),
        };
        run.started_at = Timestamp::from_second(from).ok();
        run.ended_at = Timestamp::from_second(to).ok();
        run.interval_ms = Some((self.step_s * 1000) as u32);
        run.inventory = inventory.into_values().collect();
        run.metadata.insert(
            WindowSummary::PULL_KEY.into(),
            json!({
                "url": self.request.url,
                "node": self.node,
                "from_s": from,
                "to_s": to,
                "step_s": self.step_s,
                "window_s": self.window_s,
                "summary": true,
            }),
        );
        run.metadata.insert(
            SUMMARISED.into(),
            Value::from(windows.values().map(Vec::len).sum::<usize>()),
        );
        let summary = store.create_run(run)?;
        let mut drilled = Vec::new();
        let mut events = Vec::new();
        for f in fetched {
            let stretch = f.stretch;
            let d = self.drill(store, summary.id, f)?;
            if let Some(id) = d.run {
                events.extend(store.events(id)?);
                self.first_and_last_from(store, id, stretch, &mut windows)?;
            }
            for list in windows.values_mut() {
                for w in list.iter_mut() {
                    let start = w.start_ms / 1000;
                    if (stretch.from_s..=stretch.to_s).contains(&start) {
                        w.drilled = Some(stretch.why.join(", "));
                    }
                }
            }
            drilled.push(d);
        }
        let all: Vec<GpuWindow> = windows.into_values().flatten().collect();
        store.add_windows(summary.id, &all)?;
        store.add_events(summary.id, &events)?;
        let mut run = store.run(summary.id)?;
        if let Some(p) = run
            .metadata
            .get_mut(WindowSummary::PULL_KEY)
            .and_then(Value::as_object_mut)
        {
            p.insert(
                "drilled".into(),
                serde_json::to_value(&drilled).unwrap_or_default(),
            );
        }
        store.set_run_metadata(summary.id, &run.metadata)?;
        Ok(NodeStored {
            run: summary.id,
            gpus: run.inventory.len(),
            windows: all.len(),
            points: all.iter().map(|w| u64::from(w.points)).sum(),
            drilled,
        })
    }

    /// Where each drilled window's points begin and end, from its samples.
    fn first_and_last_from(
        &self,
        store: &Store,
        drilled: i64,
        stretch: &Stretch,
        windows: &mut Windows,
    ) -> Result<(), PullError> {
        for (gpu, list) in windows.iter_mut() {
            let frame = store.read_samples(
                drilled,
                *gpu,
                Some(stretch.from_s * 1000..(stretch.to_s + self.step_s) * 1000),
                Some(&[]),
            )?;
            for w in list
                .iter_mut()
                .filter(|w| (stretch.from_s..=stretch.to_s).contains(&(w.start_ms / 1000)))
            {
                let mut inside = frame
                    .t_ms
                    .iter()
                    .copied()
                    .filter(|t| (w.start_ms..w.end_ms).contains(t));
                w.first_ms = inside.next();
                w.last_ms = inside.next_back().or(w.first_ms);
            }
        }
        Ok(())
    }

    /// One flagged stretch's raw samples, fetched (outside any
    /// transaction).
    fn fetch<'s>(&self, calls: &Calls, stretch: &'s Stretch) -> Result<Fetched<'s>, PullError> {
        let query = series_query(self.sel);
        let (bytes, dropped) = fetch_stretch(
            calls,
            &query,
            (stretch.from_s, stretch.to_s),
            self.step_s,
            |_, _| {},
        )?;
        Ok(Fetched {
            stretch,
            query,
            bytes,
            dropped,
        })
    }

    /// One flagged stretch's raw samples, through the importer a full pull
    /// uses; kept as a run of its own that says it is detail.
    fn drill(
        &self,
        store: &Store,
        summary: i64,
        fetched: &Fetched<'_>,
    ) -> Result<DrilledStretch, PullError> {
        let Fetched {
            stretch,
            query,
            bytes,
            dropped,
        } = fetched;
        let mut options = ImportOptions {
            tz: jiff::tz::TimeZone::UTC,
            ..ImportOptions::new(self.request.platform_id)
        };
        options.extra_metadata.insert(
            "prometheus".into(),
            json!({
                "url": self.request.url,
                "node": self.node,
                "query": query,
                "from_s": stretch.from_s,
                "to_s": stretch.to_s,
                "step_s": self.step_s,
                "dropped_points": dropped,
                "drilled_for": summary,
                "why": stretch.why,
            }),
        );
        options.extra_metadata.insert(
            MEASURES_NOTHING.into(),
            Value::from(format!(
                "the raw samples of windows summary run {summary} flagged; they count there"
            )),
        );
        let name = format!(
            "prometheus {} drilled {}–{}",
            self.node,
            stamp(stretch.from_s),
            stamp(stretch.to_s)
        );
        let (run, samples) =
            match import_reader(store, &bytes[..], &name, Format::PromRange, &options, None) {
                Ok(ImportOutcome::Imported(r)) => (Some(r.run_id), r.samples),
                Ok(ImportOutcome::AlreadyImported { run_id, .. }) => (Some(run_id), 0),
                // The node said nothing in the whole stretch.
                Err(breakpoint_core::import::ImportError::Empty { .. }) => (None, 0),
                Err(e) => return Err(e.into()),
            };
        Ok(DrilledStretch {
            from_s: stretch.from_s,
            to_s: stretch.to_s,
            why: stretch.why.clone(),
            run,
            samples,
        })
    }
}

/// The most series one node's day of summaries may hold: every figure
/// (two dozen with the reasons) of every GPU a node may have.
const MAX_SUMMARY_SERIES: usize = 32 * MAX_GPUS as usize;

/// A query's answer into the windows: each series is one figure of one
/// GPU, read as the answer is parsed (`summary_answer`).
fn read_answer(
    text: &str,
    starts: &[i64],
    pull: &NodePull<'_>,
    windows: &mut BTreeMap<u32, BTreeMap<i64, GpuWindow>>,
    inventory: &mut BTreeMap<u32, GpuInfo>,
) -> Result<(), PullError> {
    for_each_series(text, MAX_SUMMARY_SERIES, &mut |s| {
        let label = |k: &str| s.metric.get(k).map(|v| v.as_ref());
        let Some(figure) = label("bp_figure") else {
            return Ok(());
        };
        let Some(gpu) = label("gpu")
            .and_then(|g| g.parse::<u32>().ok())
            .or_else(|| label("device")?.strip_prefix("nvidia")?.parse().ok())
        else {
            return Ok(());
        };
        if gpu >= MAX_GPUS {
            return Err(format!(
                "a summary answer names GPU {gpu}; a node has fewer"
            ));
        }
        let info = inventory.entry(gpu).or_insert_with(|| GpuInfo {
            index: gpu,
            ..GpuInfo::default()
        });
        if info.uuid.is_none() {
            info.uuid = label("UUID").or(label("uuid")).map(str::to_string);
        }
        if info.accelerator.is_none() {
            info.accelerator = label("modelName").map(breakpoint_core::accelerator::normalise);
        }
        if info.host.is_none() {
            info.host = Some(pull.node.to_string());
        }
        let list = windows.entry(gpu).or_default();
        for (t, v) in &s.values {
            let Ok(v) = v.parse::<f64>() else {
                return Err("a summary answer holds a point that is not [time, \"value\"]".into());
            };
            // Only the windows asked for, with a finite figure.
            let start = *t as i64 - pull.window_s + pull.step_s;
            if !starts.contains(&start) || !v.is_finite() || v < 0.0 {
                continue;
            }
            let w = list.entry(start).or_insert_with(|| GpuWindow {
                gpu,
                start_ms: start * 1000,
                end_ms: (start + pull.window_s) * 1000,
                ..GpuWindow::default()
            });
            set_figure(w, figure, v, pull.window_s / pull.step_s);
        }
        Ok(())
    })
    .map_err(|why| PullError::Server(format!("{}: {why}", pull.node)))
}

/// One figure into its window. Counts are held to the points a window can
/// have (a server's error is not a count of a million).
fn set_figure(w: &mut GpuWindow, figure: &str, v: f64, most: i64) {
    let count = || v.round().min(most as f64) as u32;
    match figure {
        "points" => w.points = count(),
        "reasoned" => w.reasons_seen = count(),
        "busy" => w.busy = count(),
        // DCGM reports watts; samples hold milliwatts.
        "busy_power" => w.busy_power_mw = Some((v * 1000.0).round() as i64),
        "mean_power" => w.mean_power_mw = Some((v * 1000.0).round() as i64),
        "masked" => w.masked = count(),
        "working" => w.working = count(),
        "throttled" => w.throttled = count(),
        "temp_points" => w.temp_points = count(),
        "hot" => w.hot = count(),
        "max_temp" => w.max_temp_c = Some(v.round() as i64),
        "xid_max" => w.xid_max = Some(v.round() as i64),
        "xid_changes" => w.xid_changes = count(),
        other => {
            if let Some(k) = other
                .strip_prefix("reason")
                .and_then(|k| k.parse::<usize>().ok())
                .filter(|k| *k < REASON_BITS)
            {
                w.reasons[k] = count();
            }
        }
    }
}

/// A stretch of whole windows to drill into, and what flagged it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stretch {
    pub from_s: i64,
    pub to_s: i64,
    pub why: Vec<String>,
}

/// Why one GPU's window is worth its raw samples, given the window before.
pub fn flags(w: &GpuWindow, before: Option<&GpuWindow>, expected: u32) -> Vec<&'static str> {
    let mut why = Vec::new();
    if w.points > 0 && w.points + 1 < expected {
        why.push("a silence");
    }
    if let Some(b) = before {
        if b.points > 0 && w.points == 0 {
            why.push("a GPU gone");
        }
        if b.points == 0 && w.points > 0 {
            why.push("a GPU back");
        }
        let level = |w: &GpuWindow| {
            (w.busy as usize >= 10)
                .then_some(w.busy_power_mw)
                .flatten()
                .map(|p| p as f64)
        };
        if let (Some(now), Some(then)) = (level(w), level(b))
            && then > 0.0
            && ((now - then) / then).abs() > LEVEL_CHANGE
        {
            why.push("a level change");
        }
    }
    if w.xid_changes > 0 || (before.is_none() && w.xid_max.is_some_and(|x| x > 0)) {
        why.push("an XID");
    }
    if w.throttled > 0 {
        why.push("throttling");
    }
    why
}

/// The stretches of a node to drill into: its flagged windows, consecutive
/// ones joined, and joined across windows in which no GPU had a point (a
/// node silent for hours is one silence, seen whole).
pub fn drill_stretches(
    windows: &Windows,
    starts: &[i64],
    window_s: i64,
    step_s: i64,
) -> Vec<Stretch> {
    let expected = (window_s / step_s) as u32;
    // Each window's flags, by reason, with the GPUs that raised it: a
    // fleet of a thousand GPUs flagged at once gives a few reasons, each
    // naming its GPUs, not a thousand sentences copied into every window.
    type Flagged = BTreeMap<&'static str, std::collections::BTreeSet<u32>>;
    let mut flagged: Vec<Option<Flagged>> = vec![None; starts.len()];
    for list in windows.values() {
        for (i, w) in list.iter().enumerate() {
            let why = flags(w, i.checked_sub(1).and_then(|j| list.get(j)), expected);
            if !why.is_empty() {
                let entry = flagged[i].get_or_insert_with(Flagged::new);
                for reason in why {
                    entry.entry(reason).or_default().insert(w.gpu);
                }
            }
        }
    }
    let silent = |i: usize| {
        windows
            .values()
            .all(|list| list.get(i).is_none_or(|w| w.points == 0))
    };
    let mut out: Vec<(usize, usize, Flagged)> = Vec::new();
    for (i, why) in flagged.into_iter().enumerate() {
        let Some(why) = why else { continue };
        match out.last_mut() {
            Some((_, end, reasons)) if (*end + 1..i).all(silent) => {
                *end = i;
                for (reason, gpus) in why {
                    reasons.entry(reason).or_default().extend(gpus);
                }
            }
            _ => out.push((i, i, why)),
        }
    }
    out.into_iter()
        .map(|(a, b, why)| Stretch {
            from_s: starts[a],
            to_s: starts[b] + window_s - step_s,
            why: why
                .into_iter()
                .map(|(reason, gpus)| format!("{reason} ({})", gpu_words(&gpus)))
                .collect(),
        })
        .collect()
}

/// "GPU 3", "GPUs 0, 1 and 5", "GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 292 more".
fn gpu_words(gpus: &std::collections::BTreeSet<u32>) -> String {
    const NAMED: usize = 8;
    let named: Vec<String> = gpus.iter().take(NAMED).map(u32::to_string).collect();
    match gpus.len() {
        1 => format!("GPU {}", named[0]),
        n if n <= NAMED => {
            let (last, rest) = named.split_last().unwrap_or((&named[0], &[]));
            format!("GPUs {} and {last}", rest.join(", "))
        }
        n => format!("GPUs {} and {} more", named.join(", "), n - NAMED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(gpu: u32, start: i64, points: u32, power_w: i64) -> GpuWindow {
        GpuWindow {
            gpu,
            start_ms: start * 1000,
            end_ms: (start + 3600) * 1000,
            points,
            busy: points,
            busy_power_mw: Some(power_w * 1000),
            ..GpuWindow::default()
        }
    }

    #[test]
    fn windows_are_whole_aligned_and_inside_the_range() {
        // From 00:00 to the last step of 06:00: six hours.
        assert_eq!(
            windows_in(0, 6 * 3600 - 15, 3600, 15),
            [0, 3600, 7200, 10800, 14400, 18000]
        );
        // From 00:10: the first whole window starts at 01:00.
        assert_eq!(windows_in(600, 3 * 3600 - 15, 3600, 15), [3600, 7200]);
        assert!(windows_in(0, 3000, 3600, 15).is_empty());
    }

    #[test]
    fn silences_losses_level_changes_and_xids_are_flagged_and_quiet_windows_are_not() {
        let steady = window(0, 0, 240, 600);
        assert!(flags(&steady, None, 240).is_empty());
        assert!(flags(&window(0, 3600, 239, 600), Some(&steady), 240).is_empty());
        assert_eq!(
            flags(&window(0, 3600, 200, 600), Some(&steady), 240),
            ["a silence"]
        );
        assert_eq!(
            flags(&window(0, 3600, 0, 600), Some(&steady), 240),
            ["a GPU gone"]
        );
        assert_eq!(
            flags(&window(0, 3600, 240, 450), Some(&steady), 240),
            ["a level change"]
        );
        let xid = GpuWindow {
            xid_changes: 1,
            ..steady.clone()
        };
        assert_eq!(flags(&xid, Some(&steady), 240), ["an XID"]);
        // A GPU that was gone before the range: its XID stands, once.
        let old = GpuWindow {
            xid_max: Some(79),
            ..steady.clone()
        };
        assert_eq!(flags(&old, None, 240), ["an XID"]);
        assert!(flags(&old, Some(&old), 240).is_empty());
    }

    /// A thousand GPUs flagged at once give one line a reason, naming a few
    /// GPUs and counting the rest: never a sentence per GPU copied into
    /// every window (which took a gigabyte for one node's day).
    #[test]
    fn a_whole_fleet_flagged_is_said_in_a_line_a_reason() {
        let mut windows = Windows::new();
        for gpu in 0..1000 {
            let mut quiet = window(gpu, 0, 240, 300);
            quiet.xid_changes = 1;
            windows.insert(gpu, vec![quiet]);
        }
        let stretches = drill_stretches(&windows, &[0], 3600, 15);
        assert_eq!(stretches.len(), 1);
        assert_eq!(
            stretches[0].why,
            ["an XID (GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 992 more)"]
        );
        let few = [0u32, 1, 5].into_iter().collect();
        assert_eq!(gpu_words(&few), "GPUs 0, 1 and 5");
        assert_eq!(gpu_words(&[3u32].into_iter().collect()), "GPU 3");
    }

    #[test]
    fn flagged_windows_join_across_a_silent_node_and_nowhere_else() {
        let starts: Vec<i64> = (0..8).map(|h| h * 3600).collect();
        let points = [240, 240, 100, 0, 0, 240, 240, 240];
        let mut windows = Windows::new();
        windows.insert(
            0,
            starts
                .iter()
                .zip(points)
                .map(|(s, p)| window(0, *s, p, if *s >= 7 * 3600 { 450 } else { 600 }))
                .collect(),
        );
        let stretches = drill_stretches(&windows, &starts, 3600, 15);
        assert_eq!(stretches.len(), 2, "{stretches:?}");
        // The silence from 02:00 to its end at 05:00, seen whole.
        assert_eq!(
            (stretches[0].from_s, stretches[0].to_s),
            (7200, 6 * 3600 - 15)
        );
        assert!(stretches[0].why.contains(&"a silence (GPU 0)".to_string()));
        assert!(stretches[0].why.contains(&"a GPU back (GPU 0)".to_string()));
        // The sag at 07:00, alone.
        assert_eq!(stretches[1].from_s, 7 * 3600);
        assert_eq!(stretches[1].why, ["a level change (GPU 0)"]);
    }

    /// docs/fleet.md shows the queries as this build asks them.
    #[test]
    fn docs_show_the_queries() {
        const BEGIN: &str = "<!-- summary queries: generated by `BREAKPOINT_BLESS=1 cargo test -p breakpoint-fleet docs_show_the_queries` -->\n";
        const END: &str = "<!-- summary queries end -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fleet.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let (Some(a), Some(b)) = (doc.find(BEGIN), doc.find(END)) else {
            panic!("docs/fleet.md has no block for the summary queries");
        };
        let mut block = String::from("\n| figure | PromQL |\n| --- | --- |\n");
        let node = "Hostname=\"NODE\"";
        for (name, q) in figures(node, 3600, 15)
            .into_iter()
            .chain(reason_figures(node, 3600, 15))
        {
            block.push_str(&format!("| `{name}` | `{}` |\n", q.replace('|', "\\|")));
        }
        block.push('\n');
        let current = format!("{}{BEGIN}{block}{}", &doc[..a], &doc[b..]);
        if std::env::var_os("BREAKPOINT_BLESS").is_some() {
            std::fs::write(&path, &current).unwrap();
        } else {
            assert!(
                doc == current,
                "docs/fleet.md shows other queries than this build asks: run \
                 BREAKPOINT_BLESS=1 cargo test -p breakpoint-fleet docs_show_the_queries"
            );
        }
    }

    #[test]
    fn the_figures_count_what_the_samples_count() {
        let q = figures("Hostname=\"node-1\"", 3600, 15);
        let get = |name: &str| &q.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(
            get("points"),
            "count_over_time({__name__=~\"DCGM_FI_DEV_POWER_USAGE\",Hostname=\"node-1\"}[3600s:15s])"
        );
        assert!(get("busy").contains(">= 90)"), "{}", get("busy"));
        assert!(get("hot").contains("> 83)"));
        // Counted throttling: HW slowdown, SW and HW thermal, power brake.
        let t = get("throttled");
        for b in [8, 32, 64, 128] {
            assert!(t.contains(&format!("/ {b})")), "{t}");
        }
        assert!(!t.contains("/ 1)") && !t.contains("/ 4)"), "{t}");
        assert_eq!(q.len(), 13);
        // Largest values and changes read the stored samples as they are.
        assert!(
            get("xid_changes").ends_with("[3600s])"),
            "{}",
            get("xid_changes")
        );
        let one = one_query(&q);
        assert_eq!(one.matches("label_replace(").count(), q.len());
        let reasons = reason_figures("Hostname=\"node-1\"", 3600, 15);
        assert_eq!(reasons.len(), REASON_BITS);
        assert!(
            reasons[5].1.contains("/ 32) % 2) == 1)[3600s:15s]"),
            "{}",
            reasons[5].1
        );
    }
}
