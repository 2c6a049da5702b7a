//! Pulling a fleet's DCGM history from Prometheus: one run per node, its
//! GPUs by UUID, through the same `query_range` importer a saved answer
//! goes through.
//!
//! The range is cut into chunks within Prometheus's 11 000 points per
//! series; nodes are fetched several at a time, each call retried with
//! backoff when the server is busy or away for a moment. Everything is
//! stored in one transaction: a server that goes down half-way, a query
//! that errors, or a cancel leaves nothing behind. A node already pulled
//! for part of the range is asked only for what is not stored yet, so an
//! overlapping range adds nothing twice.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use breakpoint_core::error::ValidationError;
use breakpoint_core::import::{Format, ImportOptions, ImportOutcome, import_reader};
use breakpoint_core::store::Store;
use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::api::{ApiError, PromApi};

mod stretch;
pub mod summary;
mod summary_answer;
#[cfg(test)]
use stretch::MAX_SERIES;
use stretch::fetch_stretch;

/// The DCGM exporter's series Breakpoint reads (docs/fleet.md).
pub const DCGM_SERIES: &[&str] = &[
    "POWER_USAGE",
    "GPU_TEMP",
    "MEMORY_TEMP",
    "SM_CLOCK",
    "MEM_CLOCK",
    "GPU_UTIL",
    "MEM_COPY_UTIL",
    "FB_USED",
    "CLOCK_THROTTLE_REASONS",
    "CLOCKS_EVENT_REASONS",
    "XID_ERRORS",
    "PCIE_TX_THROUGHPUT",
    "PCIE_RX_THROUGHPUT",
    "PCIE_REPLAY_COUNTER",
    "POWER_VIOLATION",
    "THERMAL_VIOLATION",
    "TOTAL_ENERGY_CONSUMPTION",
];

/// The common nvidia_gpu_exporter's series, for fleets without DCGM.
pub const NVIDIA_SMI_SERIES: &[&str] = &[
    "power_draw_watts",
    "enforced_power_limit_watts",
    "temperature_gpu",
    "temperature_memory",
    "utilization_gpu_ratio",
    "utilization_memory_ratio",
    "fan_speed_ratio",
    "clocks_current_sm_clock_hz",
    "clocks_current_memory_clock_hz",
    "memory_used_bytes",
    "memory_total_bytes",
];

/// Prometheus refuses a range query of more than 11 000 points per series.
const POINTS_PER_QUERY: i64 = 10_000;
const RETRIES: u32 = 4;
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest `Retry-After` a pull waits out between two tries.
const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(120);
/// Query-frontends (Thanos, Mimir, Cortex) split a range at UTC midnights
/// and cache each day: a chunk that never crosses one is served whole from
/// that cache and never cut again.
const DAY_S: i64 = 86_400;

#[derive(Debug, Clone)]
pub struct PullRequest {
    pub from: Timestamp,
    pub to: Timestamp,
    pub step_s: u32,
    /// Label matchers narrowing the fleet: `{Hostname=~"node-.*"}`.
    pub selector: Option<String>,
    /// Nodes fetched at once.
    pub concurrency: usize,
    /// The server's address as provenance keeps it (no credentials).
    pub url: String,
    pub platform_id: i64,
}

/// What happened, per node.
#[derive(Debug, Clone, Serialize)]
pub struct NodePulled {
    pub node: String,
    /// Runs stored (one per stretch of the range not stored before).
    pub runs: Vec<i64>,
    pub samples: u64,
    pub gpus: usize,
    /// Already stored for the whole range.
    pub already: bool,
    /// Points the server sent outside the asked range or twice for one
    /// time: left out.
    pub dropped_points: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PullReport {
    pub query: String,
    pub nodes: Vec<NodePulled>,
    pub requests: u64,
    pub retries: u64,
}

/// Progress, for a face to show.
#[derive(Debug, Clone, Serialize)]
pub enum Progress {
    Nodes(usize),
    Chunk {
        node: String,
        done: usize,
        of: usize,
    },
    Stored {
        node: String,
        samples: u64,
    },
    /// A node's windows summarised, and the stretches drilled into.
    Summarised {
        node: String,
        windows: usize,
        drilled: usize,
    },
}

/// Why a pull stored nothing. Each says where it stopped, so a face can
/// word it in its own terms (the command line's flags, the app's form).
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// A field of the request, by `PullRequest`'s own name for it.
    #[error("{}: {}", .0.field, .0.reason)]
    Invalid(ValidationError),
    /// Discovery found no series of the exporters in the range.
    #[error("no DCGM series between {from} and {to} matching {query}; nothing was stored")]
    NoSeries {
        from: Timestamp,
        to: Timestamp,
        query: String,
    },
    /// The server refused, failed or answered what cannot be read, after
    /// the retries.
    #[error("{0}")]
    Server(String),
    #[error("cancelled; nothing was stored")]
    Cancelled,
    /// A pull that stores node by node stopped after some were stored:
    /// those are kept, and said.
    #[error("{}; {}", cause_words(.cause), kept_words(.kept))]
    Stopped {
        cause: Box<PullError>,
        kept: Vec<String>,
    },
    /// Storing what was fetched failed; the transaction rolled back.
    #[error(transparent)]
    Import(#[from] breakpoint_core::import::ImportError),
}

/// What stopped a pull, without what its own words say of storing.
fn cause_words(cause: &PullError) -> String {
    match cause {
        PullError::Cancelled => "cancelled".into(),
        other => other.to_string(),
    }
}

/// "the 2 node(s) stored before it are kept (node-1, node-2): run the pull
/// again for the rest", or that nothing was.
fn kept_words(kept: &[String]) -> String {
    const NAMED: usize = 8;
    if kept.is_empty() {
        return "nothing was stored".into();
    }
    let mut names: Vec<&str> = kept.iter().take(NAMED).map(String::as_str).collect();
    if kept.len() > NAMED {
        names.push("…");
    }
    format!(
        "the {} node(s) stored before it are kept ({}): run the pull again for the rest",
        kept.len(),
        names.join(", ")
    )
}

impl PullError {
    /// This error, said with what was stored before it: `kept` nodes.
    pub(crate) fn after(self, kept: Vec<String>) -> PullError {
        match self {
            // Already says it; nothing of the request was stored then.
            e @ (PullError::Invalid(_) | PullError::NoSeries { .. }) => e,
            e @ (PullError::Cancelled | PullError::Import(_)) if kept.is_empty() => e,
            e => PullError::Stopped {
                cause: Box::new(e),
                kept,
            },
        }
    }
}

impl PullError {
    /// Whether the user stopped it (with or without nodes kept).
    pub fn is_cancelled(&self) -> bool {
        match self {
            PullError::Cancelled => true,
            PullError::Stopped { cause, .. } => cause.is_cancelled(),
            _ => false,
        }
    }
}

impl From<breakpoint_core::Error> for PullError {
    fn from(e: breakpoint_core::Error) -> Self {
        PullError::Import(e.into())
    }
}

fn invalid(field: &str, reason: String) -> PullError {
    PullError::Invalid(ValidationError::new(field, reason))
}

/// The label matchers inside a selector's braces.
fn matchers(selector: Option<&str>) -> Result<String, PullError> {
    let Some(s) = selector.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(String::new());
    };
    let inner = s
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(s)
        .trim();
    if inner.contains(['{', '}']) || !inner.contains(['=', '~']) {
        return Err(invalid(
            "selector",
            format!("{s} is not label matchers, e.g. {{Hostname=~\"node-.*\"}}"),
        ));
    }
    Ok(inner.to_string())
}

/// The query for every series Breakpoint reads (DCGM's, and
/// nvidia_gpu_exporter's), narrowed by `extra`.
pub fn series_query(extra: &str) -> String {
    let names = format!(
        "DCGM_FI_DEV_({})|nvidia_smi_({})",
        DCGM_SERIES.join("|"),
        NVIDIA_SMI_SERIES.join("|")
    );
    if extra.is_empty() {
        format!("{{__name__=~\"{names}\"}}")
    } else {
        format!("{{__name__=~\"{names}\",{extra}}}")
    }
}

fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Chunks of `[from, to]` (seconds) of at most `POINTS_PER_QUERY` steps,
/// none across a UTC midnight, each starting one step after the last one
/// ended.
pub fn chunks(from: i64, to: i64, step: i64) -> Vec<(i64, i64)> {
    let span = step * (POINTS_PER_QUERY - 1);
    let mut out = Vec::new();
    let mut start = from;
    while start <= to {
        // The last step before the next midnight (or the first step itself
        // where one step is a day or more).
        let day_end = (start.div_euclid(DAY_S) + 1) * DAY_S - 1;
        let within_day = start + (day_end - start).div_euclid(step) * step;
        let end = (start + span).min(within_day).min(to);
        out.push((start, end));
        start = end + step;
    }
    out
}

/// The parts of `[from, to]` no stored run covers (seconds).
pub fn uncovered(from: i64, to: i64, covered: &[(i64, i64)], step: i64) -> Vec<(i64, i64)> {
    let mut covered = covered.to_vec();
    covered.sort();
    let mut out = Vec::new();
    let mut start = from;
    for (a, b) in covered {
        if b < start {
            continue;
        }
        if a > to {
            break;
        }
        if a > start {
            out.push((start, (a - step).min(to)));
        }
        start = start.max(b + step);
    }
    if start <= to {
        out.push((start, to));
    }
    out.retain(|(a, b)| a <= b);
    out
}

struct Calls<'a> {
    api: &'a dyn PromApi,
    cancel: &'a AtomicBool,
    requests: Mutex<(u64, u64)>,
}

impl<'a> Calls<'a> {
    fn new(api: &'a dyn PromApi, cancel: &'a AtomicBool) -> Self {
        Calls {
            api,
            cancel,
            requests: Mutex::new((0, 0)),
        }
    }

    /// The request's label matchers, and the nodes they find in range.
    fn nodes(&self, request: &PullRequest) -> Result<(String, Nodes), PullError> {
        let extra = matchers(request.selector.as_deref())?;
        let nodes = discover(self, request, &extra)?;
        Ok((extra, nodes))
    }

    /// One call, retried on transient failures with 0.5 s, 1 s, 2 s waits.
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<Value, PullError> {
        self.retried(|| self.api.get(path, params))
    }

    fn retried<T>(&self, call: impl Fn() -> Result<T, ApiError>) -> Result<T, PullError> {
        let mut backoff = FIRST_BACKOFF;
        for attempt in 0..RETRIES {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(PullError::Cancelled);
            }
            if let Ok(mut n) = self.requests.lock() {
                n.0 += 1;
                n.1 += u64::from(attempt > 0);
            }
            let last = attempt + 1 == RETRIES;
            let wait = match call() {
                Ok(v) => return Ok(v),
                Err(ApiError::Refused(m)) => return Err(PullError::Server(m)),
                Err(e) if last => {
                    return Err(PullError::Server(format!("{e} (after {RETRIES} tries)")));
                }
                Err(ApiError::Transient(_)) => backoff,
                // A busy server's own word on when to come back, never
                // sooner than the backoff; one that asks for longer than a
                // pull should sit silent is left, and says so.
                Err(ApiError::Busy {
                    message,
                    retry_after,
                }) => match retry_after {
                    Some(after) if after > LONGEST_RETRY_AFTER => {
                        return Err(PullError::Server(format!(
                            "{message}: the server asks to wait {} s before asking again; \
                             try later",
                            after.as_secs()
                        )));
                    }
                    Some(after) => after.max(backoff),
                    None => backoff,
                },
            };
            self.pause(wait)?;
            backoff *= 2;
        }
        Err(PullError::Server("no answer".into()))
    }

    /// Sleep `wait`, waking to a cancel within a tenth of a second.
    fn pause(&self, wait: Duration) -> Result<(), PullError> {
        let until = std::time::Instant::now() + wait;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Err(PullError::Cancelled);
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
    }
}

impl Calls<'_> {
    /// `get`, as the server's text (see `PromApi::get_text`).
    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, PullError> {
        self.retried(|| self.api.get_text(path, params))
    }
}

/// The node a series belongs to, and the label that names it.
fn node_of(labels: &Map<String, Value>) -> Option<(&'static str, String)> {
    for key in ["Hostname", "hostname", "instance"] {
        if let Some(v) = labels.get(key).and_then(Value::as_str) {
            return Some((key, v.to_string()));
        }
    }
    None
}

/// A node's stretches already stored from this server, in seconds.
fn stored_stretches(
    store: &Store,
    platform_id: i64,
    url: &str,
    node: &str,
) -> Result<Vec<(i64, i64)>, PullError> {
    let mut out = Vec::new();
    for run in store.runs(Some(platform_id))? {
        let Some(p) = run.metadata.get("prometheus") else {
            continue;
        };
        let text = |k: &str| p.get(k).and_then(Value::as_str);
        if text("url") == Some(url)
            && text("node") == Some(node)
            && let (Some(a), Some(b)) = (
                p.get("from_s").and_then(Value::as_i64),
                p.get("to_s").and_then(Value::as_i64),
            )
        {
            out.push((a, b));
        }
    }
    Ok(out)
}

/// Above this many node-days, a pull reads summaries by default: pulling
/// every sample of 64 nodes of 8 GPUs for a day is ~30 M points.
pub const SUMMARIES_ABOVE_NODE_DAYS: f64 = 64.0;

/// Whether a fleet of `nodes` over the request's range is better judged
/// from summaries than from every sample (docs/fleet.md).
pub fn prefers_summaries(nodes: usize, request: &PullRequest) -> bool {
    let days = (request.to.as_second() - request.from.as_second()) as f64 / DAY_S as f64;
    nodes as f64 * days > SUMMARIES_ABOVE_NODE_DAYS
}

/// How many nodes the range holds (one discovery request).
pub fn fleet_nodes(
    api: &dyn PromApi,
    request: &PullRequest,
    cancel: &AtomicBool,
) -> Result<usize, PullError> {
    Ok(Calls::new(api, cancel).nodes(request)?.1.len())
}

/// Pull the range into `store`, one run per node (per stretch not stored
/// before), all or nothing: discover the nodes, plan what each still needs,
/// then fetch and store it.
pub fn pull(
    store: &Store,
    api: &dyn PromApi,
    request: &PullRequest,
    cancel: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<PullReport, PullError> {
    let (from, to) = (request.from.as_second(), request.to.as_second());
    if to <= from {
        return Err(invalid(
            "to",
            format!("{} is not after the start {}", request.to, request.from),
        ));
    }
    if request.step_s == 0 {
        return Err(invalid("step_s", "must be at least 1 s".into()));
    }
    let calls = Calls::new(api, cancel);
    // All or nothing: whatever stops it, nothing was stored.
    let nothing = |e: PullError| e.after(Vec::new());
    let (extra, nodes) = calls.nodes(request).map_err(nothing)?;
    progress(Progress::Nodes(nodes.len()));
    let (jobs, mut pulled) = plan(store, request, &nodes, &extra).map_err(nothing)?;
    store
        .atomically(|store| fetch_and_store(store, &calls, request, jobs, &mut pulled, progress))
        .map_err(nothing)?;
    let (requests, retries) = calls.requests.lock().map(|n| *n).unwrap_or((0, 0));
    Ok(PullReport {
        query: series_query(&extra),
        nodes: pulled.into_values().collect(),
        requests,
        retries,
    })
}

/// Nodes by name, each with the label that names it.
type Nodes = BTreeMap<String, &'static str>;

/// The nodes in range, each by its Hostname (else instance) label.
fn discover(calls: &Calls, request: &PullRequest, extra: &str) -> Result<Nodes, PullError> {
    let query = series_query(extra);
    let series = calls.get(
        "/api/v1/series",
        &[
            ("match[]", query.clone()),
            ("start", request.from.as_second().to_string()),
            ("end", request.to.as_second().to_string()),
        ],
    )?;
    let mut nodes: BTreeMap<String, &'static str> = BTreeMap::new();
    for labels in series.as_array().into_iter().flatten() {
        if let Some((label, node)) = labels.as_object().and_then(node_of) {
            nodes.entry(node).or_insert(label);
        }
    }
    if nodes.is_empty() {
        return Err(PullError::NoSeries {
            from: request.from,
            to: request.to,
            query,
        });
    }
    Ok(nodes)
}

/// One stretch of one node to fetch.
struct Job {
    node: String,
    query: String,
    stretch: (i64, i64),
}

/// What each node still needs: the stretches of the range not stored from
/// this server before, and the node's report, started.
fn plan(
    store: &Store,
    request: &PullRequest,
    nodes: &BTreeMap<String, &'static str>,
    extra: &str,
) -> Result<(Vec<Job>, BTreeMap<String, NodePulled>), PullError> {
    let (from, to) = (request.from.as_second(), request.to.as_second());
    let step = i64::from(request.step_s);
    let mut jobs = Vec::new();
    let mut pulled = BTreeMap::new();
    for (node, label) in nodes {
        let stored = stored_stretches(store, request.platform_id, &request.url, node)?;
        let missing = uncovered(from, to, &stored, step);
        pulled.insert(
            node.clone(),
            NodePulled {
                node: node.clone(),
                runs: Vec::new(),
                samples: 0,
                gpus: 0,
                already: missing.is_empty(),
                dropped_points: 0,
            },
        );
        let matcher = format!("{label}={}", quoted(node));
        let query = series_query(&if extra.is_empty() {
            matcher
        } else {
            format!("{extra},{matcher}")
        });
        jobs.extend(missing.into_iter().map(|stretch| Job {
            node: node.clone(),
            query: query.clone(),
            stretch,
        }));
    }
    Ok((jobs, pulled))
}

/// Fetch the jobs on `request.concurrency` workers and store each as it
/// arrives, in this thread (SQLite's one writer). The first failure stops
/// the others.
fn fetch_and_store(
    store: &Store,
    calls: &Calls,
    request: &PullRequest,
    jobs: Vec<Job>,
    pulled: &mut BTreeMap<String, NodePulled>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), PullError> {
    let step = i64::from(request.step_s);
    let queue = Mutex::new(jobs);
    let workers = request.concurrency.clamp(1, 16);
    std::thread::scope(|scope| -> Result<(), PullError> {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..workers {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || {
                while let Some(job) = queue.lock().ok().and_then(|mut q| q.pop()) {
                    let fetched =
                        fetch_stretch(calls, &job.query, job.stretch, step, |done, of| {
                            progress(Progress::Chunk {
                                node: job.node.clone(),
                                done,
                                of,
                            })
                        });
                    let failed = fetched.is_err();
                    if tx.send((job, fetched)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (job, fetched) in rx {
            let stored = fetched.and_then(|(bytes, dropped)| {
                store_stretch(store, request, &job, &bytes, dropped, pulled, progress)
            });
            if let Err(e) = stored {
                // Stop the others; the caller's transaction rolls back.
                calls.cancel.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        if calls.cancel.load(Ordering::Relaxed) {
            return Err(PullError::Cancelled);
        }
        Ok(())
    })
}

/// A time as the runs' names write it: 2026-06-01T10:00:00Z.
fn stamp(s: i64) -> String {
    Timestamp::from_second(s)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// One fetched stretch through the `query_range` importer, with where it
/// came from in the run's metadata.
fn store_stretch(
    store: &Store,
    request: &PullRequest,
    job: &Job,
    bytes: &[u8],
    dropped: u64,
    pulled: &mut BTreeMap<String, NodePulled>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(), PullError> {
    let (a, b) = job.stretch;
    let mut options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(request.platform_id)
    };
    options.extra_metadata.insert(
        "prometheus".into(),
        json!({
            "url": request.url,
            "node": job.node,
            "query": job.query,
            "from_s": a,
            "to_s": b,
            "step_s": request.step_s,
            // Points the server sent beyond what was asked.
            "dropped_points": dropped,
        }),
    );
    let report = pulled.get_mut(&job.node);
    let name = format!("prometheus {} {}–{}", job.node, stamp(a), stamp(b));
    match import_reader(store, bytes, &name, Format::PromRange, &options, None) {
        Ok(ImportOutcome::Imported(r)) => {
            progress(Progress::Stored {
                node: job.node.clone(),
                samples: r.samples,
            });
            if let Some(p) = report {
                p.runs.push(r.run_id);
                p.samples += r.samples;
                p.gpus = p.gpus.max(r.gpus);
                p.dropped_points += dropped;
            }
            Ok(())
        }
        // Stored before, or a stretch where the node's series hold no
        // point or no reading (every point NaN): nothing to add.
        Ok(ImportOutcome::AlreadyImported { .. })
        | Err(breakpoint_core::import::ImportError::Empty { .. }) => {
            if let Some(p) = report {
                p.dropped_points += dropped;
            }
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that answers every chunk with more than was asked: an hour
    /// before and after it, each point twice, and, when `series` is large,
    /// more series than any node has.
    struct Overanswering {
        series: usize,
    }

    impl PromApi for Overanswering {
        fn get(&self, _path: &str, _params: &[(&str, String)]) -> Result<Value, ApiError> {
            Ok(json!([{ "__name__": "DCGM_FI_DEV_POWER_USAGE", "Hostname": "node-1", "gpu": "0" }]))
        }

        fn get_text(&self, _path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
            let param = |k: &str| {
                params
                    .iter()
                    .find(|(n, _)| *n == k)
                    .and_then(|(_, v)| v.parse::<i64>().ok())
                    .unwrap_or(0)
            };
            let (a, b) = (param("start"), param("end"));
            // (Many series carry one point each: the count is what is tested.)
            let around = if self.series > 16 { 0 } else { 3600 };
            let points: Vec<Value> = (a - around..=b + around)
                .step_by(if self.series > 16 { 100_000 } else { 15 })
                .flat_map(|t| [json!([t, "250.5"]), json!([t, "251.5"])])
                .collect();
            let result: Vec<Value> = (0..self.series)
                .map(|g| {
                    json!({
                        "metric": { "__name__": "DCGM_FI_DEV_POWER_USAGE", "Hostname": "node-1", "gpu": g.to_string() },
                        "values": points,
                    })
                })
                .collect();
            Ok(json!({ "status": "success", "data": { "resultType": "matrix", "result": result } }).to_string())
        }
    }

    fn request(platform_id: i64) -> PullRequest {
        PullRequest {
            from: Timestamp::from_second(1_780_000_000).unwrap(),
            to: Timestamp::from_second(1_780_000_000 + 3600).unwrap(),
            step_s: 15,
            selector: None,
            concurrency: 1,
            url: "http://prom.test".into(),
            platform_id,
        }
    }

    fn store() -> (Store, i64) {
        let store = Store::open_in_memory().unwrap();
        let p = store
            .create_platform(
                &breakpoint_core::domain::Platform::new(
                    "P",
                    breakpoint_core::domain::PlatformKind::Other,
                    None,
                )
                .unwrap(),
            )
            .unwrap();
        (store, p.id)
    }

    #[test]
    fn what_a_server_sends_beyond_the_asked_range_is_left_out_and_counted() {
        let (store, platform) = store();
        let report = pull(
            &store,
            &Overanswering { series: 2 },
            &request(platform),
            &AtomicBool::new(false),
            &|_| {},
        )
        .unwrap();
        let node = &report.nodes[0];
        // The hour asked at 15 s: 241 points a GPU, the first of each time.
        assert_eq!(node.samples, 2 * 241, "{report:?}");
        assert!(node.dropped_points >= 2 * (2 * 240 + 241), "{report:?}");
        let run = store.run(node.runs[0]).unwrap();
        assert_eq!(
            run.metadata["prometheus"]["dropped_points"].as_u64(),
            Some(node.dropped_points)
        );
        let frame = store
            .read_samples(
                run.id,
                0,
                None,
                Some(&[breakpoint_core::samples::Field::PowerMw]),
            )
            .unwrap();
        assert!(
            frame
                .t_ms
                .iter()
                .all(|t| (1_780_000_000_000..=1_780_003_600_000).contains(t))
        );
    }

    #[test]
    fn more_series_than_a_node_has_are_refused_and_nothing_is_stored() {
        let (store, platform) = store();
        let e = pull(
            &store,
            &Overanswering {
                series: MAX_SERIES + 1,
            },
            &request(platform),
            &AtomicBool::new(false),
            &|_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("more than 4096 series"), "{e}");
        assert!(store.runs(None).unwrap().is_empty());
    }

    #[test]
    fn chunks_stay_within_the_point_limit_and_a_day_and_never_overlap() {
        // Two days from midnight at 15 s: each day its own chunk (5 760
        // steps, under the point limit), the second ending at the range.
        let c = chunks(0, 48 * 3600, 15);
        assert_eq!(
            c,
            [
                (0, DAY_S - 15),
                (DAY_S, 2 * DAY_S - 15),
                (2 * DAY_S, 2 * DAY_S)
            ]
        );
        // At 60 s a day is 1 440 steps; from mid-morning, the first chunk
        // ends at the last step before midnight.
        let c = chunks(9 * 3600 + 7, 3 * DAY_S, 60);
        assert_eq!(c[0], (9 * 3600 + 7, 9 * 3600 + 7 + 899 * 60));
        // The point limit still holds where a day has more steps than it.
        let c = chunks(0, DAY_S, 1);
        assert_eq!(c[0], (0, POINTS_PER_QUERY - 1));
        for w in c.windows(2) {
            assert_eq!(w[1].0, w[0].1 + 1);
        }
        for c in [
            chunks(123, 9 * DAY_S, 15),
            chunks(0, DAY_S, 1),
            chunks(5, 4 * DAY_S, 7_200),
        ] {
            for (a, b) in &c {
                assert!((b - a) / 15 < POINTS_PER_QUERY || (b - a) < POINTS_PER_QUERY);
                assert_eq!(
                    a.div_euclid(DAY_S),
                    b.div_euclid(DAY_S),
                    "{a}..{b} crosses midnight"
                );
            }
        }
        assert_eq!(chunks(100, 100, 15), vec![(100, 100)]);
        // A step of more than a day: one point a chunk.
        assert_eq!(chunks(0, 4 * DAY_S, 2 * DAY_S).len(), 3);
    }

    /// A server that is busy `busy` times (with `retry_after` seconds when
    /// given), then answers.
    struct BusyThen {
        busy: std::sync::atomic::AtomicU32,
        retry_after: Option<u64>,
    }

    impl PromApi for BusyThen {
        fn get(&self, _path: &str, _params: &[(&str, String)]) -> Result<Value, ApiError> {
            if self.busy.load(Ordering::Relaxed) > 0 {
                self.busy.fetch_sub(1, Ordering::Relaxed);
                return Err(ApiError::Busy {
                    message: "prom.test: HTTP 429: too many requests".into(),
                    retry_after: self.retry_after.map(Duration::from_secs),
                });
            }
            Ok(json!([]))
        }

        fn get_text(&self, _path: &str, _params: &[(&str, String)]) -> Result<String, ApiError> {
            Ok(String::new())
        }
    }

    #[test]
    fn a_busy_server_is_given_the_time_it_asks_for_and_one_that_asks_too_much_is_left() {
        let cancel = AtomicBool::new(false);
        let asked = |busy: u32, retry_after: Option<u64>| {
            let api = BusyThen {
                busy: busy.into(),
                retry_after,
            };
            let calls = Calls {
                api: &api,
                cancel: &cancel,
                requests: Mutex::new((0, 0)),
            };
            let started = std::time::Instant::now();
            let answer = calls.get("/api/v1/series", &[]);
            let retries = calls.requests.lock().unwrap().1;
            (answer, started.elapsed(), retries)
        };
        // Retry-After: 1 is waited out, not the half-second backoff.
        let (answer, took, retries) = asked(1, Some(1));
        assert!(answer.is_ok());
        assert_eq!(retries, 1);
        assert!(took >= Duration::from_secs(1), "{took:?}");
        // No Retry-After: the backoff alone.
        let (answer, took, _) = asked(1, None);
        assert!(answer.is_ok() && took < Duration::from_secs(1), "{took:?}");
        // An hour is more than a pull sits silent for: said, not waited.
        let (answer, took, _) = asked(1, Some(3600));
        let e = answer.unwrap_err();
        assert!(e.to_string().contains("asks to wait 3600 s"), "{e}");
        // What a pull then says of what it stored.
        let said = |kept: &[&str]| {
            PullError::Server("stopped".into())
                .after(kept.iter().map(|k| k.to_string()).collect())
                .to_string()
        };
        assert_eq!(said(&[]), "stopped; nothing was stored");
        assert_eq!(
            said(&["node-1"]),
            "stopped; the 1 node(s) stored before it are kept (node-1): run the pull again for the rest"
        );
        assert!(took < Duration::from_secs(1));
        // Busy every time: given up after the retries, saying so.
        let (answer, _, retries) = asked(RETRIES, None);
        assert!(answer.unwrap_err().to_string().contains("after 4 tries"));
        assert_eq!(retries, u64::from(RETRIES - 1));
    }

    #[test]
    fn a_cancel_ends_the_wait_for_a_busy_server() {
        let api = BusyThen {
            busy: 1.into(),
            retry_after: Some(100),
        };
        let cancel = AtomicBool::new(false);
        let calls = Calls {
            api: &api,
            cancel: &cancel,
            requests: Mutex::new((0, 0)),
        };
        let started = std::time::Instant::now();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                cancel.store(true, Ordering::Relaxed);
            });
            assert!(matches!(
                calls.get("/api/v1/series", &[]),
                Err(PullError::Cancelled)
            ));
        });
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn only_what_is_not_stored_is_asked_for() {
        assert_eq!(uncovered(0, 100, &[], 10), vec![(0, 100)]);
        assert_eq!(uncovered(0, 100, &[(0, 100)], 10), vec![]);
        assert_eq!(uncovered(0, 100, &[(0, 50)], 10), vec![(60, 100)]);
        assert_eq!(uncovered(0, 100, &[(30, 50)], 10), vec![(0, 20), (60, 100)]);
        assert_eq!(
            uncovered(40, 100, &[(0, 50), (80, 200)], 10),
            vec![(60, 70)]
        );
    }

    /// A server with no series at all.
    struct Empty;

    impl PromApi for Empty {
        fn get(&self, _path: &str, _params: &[(&str, String)]) -> Result<Value, ApiError> {
            Ok(json!([]))
        }

        fn get_text(&self, _path: &str, _params: &[(&str, String)]) -> Result<String, ApiError> {
            Ok(String::new())
        }
    }

    #[test]
    fn each_refusal_says_where_the_pull_stopped_and_which_field_is_at_fault() {
        let (store, platform) = store();
        let pull_with = |change: &dyn Fn(&mut PullRequest)| {
            let mut r = request(platform);
            change(&mut r);
            pull(&store, &Empty, &r, &AtomicBool::new(false), &|_| {}).unwrap_err()
        };
        let field = |e: PullError| match e {
            PullError::Invalid(v) => v.field,
            other => panic!("not a field's fault: {other}"),
        };
        assert_eq!(field(pull_with(&|r| r.to = r.from)), "to");
        assert_eq!(field(pull_with(&|r| r.step_s = 0)), "step_s");
        assert_eq!(
            field(pull_with(&|r| r.selector = Some("node-3".into()))),
            "selector"
        );
        // Discovery, not the request: nothing in range.
        let none = pull_with(&|_| {});
        assert!(matches!(none, PullError::NoSeries { .. }), "{none}");
        assert!(none.to_string().contains("nothing was stored"), "{none}");
        assert!(store.runs(Some(platform)).unwrap().is_empty());
    }

    #[test]
    fn selectors_narrow_the_query() {
        assert_eq!(
            matchers(Some("{Hostname=~\"node-.*\"}")).unwrap(),
            "Hostname=~\"node-.*\""
        );
        assert!(matchers(Some("node-3")).is_err());
        let q = series_query("Hostname=\"n1\"");
        assert!(
            q.starts_with("{__name__=~\"DCGM_FI_DEV_(POWER_USAGE|")
                && q.ends_with(",Hostname=\"n1\"}")
        );
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
    }
}
