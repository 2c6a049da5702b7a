//! `accept all --plan plan.toml`: the checks a plan names, one after the
//! other on the instance — network measured throughout, beside the others —
//! then a one-page checklist and one bundle file with every log.
//!
//! ```toml
//! host = "gpu-node-3"
//!
//! [network]
//! targets = ["oss-cn-hangzhou-internal.aliyuncs.com:443", "registry.example.com:5000"]
//! every = "5s"
//!
//! [stress]
//! command = ["gpu_burn", "300"]
//! duration = "5m"
//!
//! [billing_probe]
//! instance = "i-bp1abc"
//! seconds = "90s"
//! sleep = "300s"
//!
//! [failover]
//! log = "/root/train.log"
//! job = "train.py"
//! after = "30s"
//! window = "2m"
//!
//! [drift]
//! reference = "operators-lab-a100.json"
//! tolerance = 1e-4
//!
//! [perf]
//! duration = "1h"
//! interval = "1m"
//! straggler_pct = 10
//!
//! [storage]
//! paths = ["/mnt/data"]
//! local = ["/nvme"]
//! checkpoint = "4GB"
//! upload = "ossutil cp {file} oss://my-bucket/breakpoint-upload"
//!
//! [storage.drill]
//! cut = "umount -l /mnt/data"
//! restore = "mount /mnt/data"
//! cut_for = "60s"
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use breakpoint_core::import::bundle::ChecklistItem;
use breakpoint_core::text::parse_duration;
use breakpoint_destination::{Destination, Protected};
use breakpoint_formats::parsers::network_log::NetworkRecord;
use breakpoint_probe::{GpuSource, SessionOptions, SystemClock};
use serde::Deserialize;

use crate::bundle::Log;
use crate::{billing, drift, failover, network, perf, ready, storage, stress, verdicts};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    host: Option<String>,
    ready: Option<RawReady>,
    network: Option<RawNetwork>,
    stress: Option<RawStress>,
    billing_probe: Option<RawBilling>,
    failover: Option<RawFailover>,
    drift: Option<RawDrift>,
    perf: Option<RawPerf>,
    storage: Option<RawStorage>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStorage {
    #[serde(default)]
    paths: Vec<PathBuf>,
    #[serde(default)]
    local: Vec<PathBuf>,
    checkpoint: Option<String>,
    upload: Option<String>,
    upload_size: Option<String>,
    drill: Option<RawStorageDrill>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStorageDrill {
    cut: String,
    restore: String,
    cut_for: Option<String>,
    every: Option<String>,
    stall_after: Option<String>,
    checkpoint: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPerf {
    python: Option<String>,
    device: Option<String>,
    quick: Option<bool>,
    duration: Option<String>,
    interval: Option<String>,
    straggler_pct: Option<f64>,
    timeout: Option<String>,
    /// Tests of the analysis: the CPU split into devices, slowdowns planted.
    cpu_devices: Option<u32>,
    #[serde(default)]
    plant: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrift {
    reference: PathBuf,
    tolerance: Option<f64>,
    python: Option<String>,
    device: Option<String>,
    timeout: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReady {
    first_compute: String,
    submitted_at: Option<jiff::Timestamp>,
    timeout: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNetwork {
    targets: Vec<String>,
    every: Option<String>,
    timeout: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStress {
    command: Vec<String>,
    duration: Option<String>,
    interval: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBilling {
    instance: String,
    seconds: Option<String>,
    sleep: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFailover {
    log: PathBuf,
    job: String,
    progress: Option<String>,
    after: Option<String>,
    window: Option<String>,
    resume: Option<String>,
}

/// A checked plan: every duration, pattern and address understood.
#[derive(Debug, Clone)]
pub struct Plan {
    pub host: Option<String>,
    /// The first computation, when the instance was requested, the timeout.
    pub ready: Option<(String, Option<i64>, Duration)>,
    pub network: Option<(Vec<network::Target>, Duration, Duration)>,
    pub stress: Option<(Vec<String>, Duration, u32)>,
    pub billing: Option<billing::Plan>,
    pub failover: Option<failover::Options>,
    pub drift: Option<DriftPlan>,
    /// The perf suite and the share below its node's best that makes a
    /// straggler.
    pub perf: Option<(perf::SuiteRun, f64)>,
    /// The data path; the drill in it runs because the plan asks for it.
    pub storage: Option<storage::Plan>,
}

/// The drift check: the reference platform's outputs (read when the plan
/// is checked), the tolerance, and how the suite runs here.
#[derive(Debug, Clone)]
pub struct DriftPlan {
    pub reference: drift::Outputs,
    pub reference_sha256: String,
    pub tolerance: f64,
    pub suite: drift::SuiteRun,
}

/// Read and check a plan; one message naming the file and what is wrong.
pub fn parse(text: &str, file: &str) -> Result<Plan, String> {
    let raw: RawPlan = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
        format!(
            "{file}{}: {}",
            line.map(|l| format!(":{l}")).unwrap_or_default(),
            e.message().trim()
        )
    })?;
    let c = Checker { file };
    let plan = Plan {
        host: raw.host.clone(),
        ready: raw.ready.map(|r| c.ready(r)).transpose()?,
        network: raw.network.map(|n| c.network(n)).transpose()?,
        stress: raw.stress.map(|s| c.stress(s)).transpose()?,
        billing: raw.billing_probe.map(|b| c.billing(b)).transpose()?,
        failover: raw.failover.map(|f| c.failover(f)).transpose()?,
        drift: raw.drift.map(|d| c.drift(d)).transpose()?,
        perf: raw.perf.map(|p| c.perf(p)).transpose()?,
        storage: raw
            .storage
            .map(|st| c.storage(st, raw.host.clone()))
            .transpose()?,
    };
    if plan.ready.is_none()
        && plan.network.is_none()
        && plan.stress.is_none()
        && plan.billing.is_none()
        && plan.failover.is_none()
        && plan.drift.is_none()
        && plan.perf.is_none()
        && plan.storage.is_none()
    {
        return Err(format!(
            "{file}: the plan names no check ([ready], [network], [stress], [billing_probe], [failover], [drift], [perf], [storage])"
        ));
    }
    Ok(plan)
}

/// Each section of a plan checked, every refusal naming the file and key.
struct Checker<'a> {
    file: &'a str,
}

impl Checker<'_> {
    fn duration(&self, what: &str, v: &Option<String>, default: u64) -> Result<Duration, String> {
        match v {
            None => Ok(Duration::from_secs(default)),
            Some(t) => parse_duration(t).ok_or_else(|| {
                format!(
                    "{}: {what} = \"{t}\" is not a duration (5s, 10m)",
                    self.file
                )
            }),
        }
    }

    fn ready(&self, r: RawReady) -> Result<(String, Option<i64>, Duration), String> {
        Ok((
            r.first_compute,
            r.submitted_at.map(|t| t.as_millisecond()),
            self.duration("ready.timeout", &r.timeout, 600)?,
        ))
    }

    fn network(&self, n: RawNetwork) -> Result<(Vec<network::Target>, Duration, Duration), String> {
        let file = self.file;
        if n.targets.is_empty() {
            return Err(format!("{file}: network.targets names no endpoint"));
        }
        let targets = n
            .targets
            .iter()
            .map(|t| network::resolve(t).map_err(|e| format!("{file}: network.targets: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((
            targets,
            self.duration("network.every", &n.every, 5)?,
            self.duration("network.timeout", &n.timeout, 2)?,
        ))
    }

    fn stress(&self, s: RawStress) -> Result<(Vec<String>, Duration, u32), String> {
        if s.command.is_empty() {
            return Err(format!("{}: stress.command is empty", self.file));
        }
        let interval = self.duration("stress.interval", &s.interval, 1)?;
        Ok((
            s.command,
            self.duration("stress.duration", &s.duration, 300)?,
            interval.as_millis() as u32,
        ))
    }

    fn billing(&self, b: RawBilling) -> Result<billing::Plan, String> {
        Ok(billing::Plan {
            instance: b.instance,
            compute: self.duration("billing_probe.seconds", &b.seconds, 90)?,
            sleep: b
                .sleep
                .as_ref()
                .map(|s| {
                    parse_duration(s).ok_or_else(|| {
                        format!(
                            "{}: billing_probe.sleep = \"{s}\" is not a duration",
                            self.file
                        )
                    })
                })
                .transpose()?,
        })
    }

    fn failover(&self, f: RawFailover) -> Result<failover::Options, String> {
        let pattern = f.progress.unwrap_or_else(|| r"step (\d+)".into());
        let progress = regex_lite::Regex::new(&pattern).map_err(|e| {
            format!(
                "{}: failover.progress is not a regular expression: {e}",
                self.file
            )
        })?;
        Ok(failover::Options {
            log: f.log,
            progress,
            pattern: f.job,
            after: self.duration("failover.after", &f.after, 30)?,
            window: self.duration("failover.window", &f.window, 120)?,
            resume: f.resume,
            poll: Duration::from_millis(200),
        })
    }

    fn drift(&self, d: RawDrift) -> Result<DriftPlan, String> {
        let file = self.file;
        let (reference, reference_sha256) = drift::read_outputs(&d.reference)
            .map_err(|e| format!("{file}: drift.reference: {e}"))?;
        let tolerance = d.tolerance.unwrap_or(drift::DEFAULT_TOLERANCE);
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(format!(
                "{file}: drift.tolerance = {tolerance} must be a positive number"
            ));
        }
        let device = d.device.unwrap_or_else(|| "auto".into());
        if !drift::DEVICES.contains(&device.as_str()) {
            return Err(format!(
                "{file}: drift.device = \"{device}\": one of {}",
                drift::DEVICES.join(", ")
            ));
        }
        let seed = reference.seed;
        Ok(DriftPlan {
            reference,
            reference_sha256,
            tolerance,
            suite: drift::SuiteRun {
                python: d.python.unwrap_or_else(|| "python3".into()),
                device,
                seed,
                timeout: self.duration("drift.timeout", &d.timeout, 600)?,
            },
        })
    }

    fn size(&self, what: &str, v: &Option<String>, default: u64) -> Result<u64, String> {
        match v {
            None => Ok(default),
            Some(t) => breakpoint_core::sizes::parse_bytes(what, t)
                .map(|b| b as u64)
                .map_err(|e| format!("{}: {what} = \"{t}\": {}", self.file, e.reason)),
        }
    }

    fn storage(&self, st: RawStorage, host: Option<String>) -> Result<storage::Plan, String> {
        use breakpoint_formats::parsers::storage_log::Role;
        use storage::defaults;
        let file = self.file;
        if st.paths.is_empty() && st.local.is_empty() {
            return Err(format!(
                "{file}: storage names no location (paths = [\"/mnt/data\"], local = [\"/nvme\"])"
            ));
        }
        let drill = match st.drill {
            None => None,
            Some(d) => Some(storage::DrillPlan {
                options: storage::DrillOptions::new(
                    self.size(
                        "storage.drill.checkpoint",
                        &d.checkpoint,
                        defaults::DRILL_CHECKPOINT_BYTES,
                    )?,
                    self.duration(
                        "storage.drill.every",
                        &d.every,
                        defaults::DRILL_EVERY.as_secs(),
                    )?,
                    self.duration(
                        "storage.drill.cut_for",
                        &d.cut_for,
                        defaults::DRILL_CUT_FOR.as_secs(),
                    )?,
                    self.duration(
                        "storage.drill.stall_after",
                        &d.stall_after,
                        defaults::DRILL_STALL_AFTER.as_secs(),
                    )?,
                ),
                cut: d.cut,
                restore: d.restore,
            }),
        };
        if drill.is_some() && st.paths.is_empty() {
            return Err(format!(
                "{file}: storage.drill cuts the data path: name it in storage.paths"
            ));
        }
        Ok(storage::Plan {
            host,
            locations: st
                .paths
                .into_iter()
                .map(|p| (p, Role::Data))
                .chain(st.local.into_iter().map(|p| (p, Role::Local)))
                .collect(),
            location: storage::LocationOptions::new(self.size(
                "storage.checkpoint",
                &st.checkpoint,
                defaults::CHECKPOINT_BYTES,
            )?),
            upload: st
                .upload
                .map(|command| -> Result<storage::UploadPlan, String> {
                    Ok(storage::UploadPlan {
                        command,
                        bytes: self.size(
                            "storage.upload_size",
                            &st.upload_size,
                            defaults::UPLOAD_BYTES,
                        )?,
                        limit: defaults::UPLOAD_LIMIT,
                    })
                })
                .transpose()?,
            drill,
        })
    }

    fn perf(&self, p: RawPerf) -> Result<(perf::SuiteRun, f64), String> {
        let file = self.file;
        let device = p.device.unwrap_or_else(|| "auto".into());
        if !perf::DEVICES.contains(&device.as_str()) {
            return Err(format!(
                "{file}: perf.device = \"{device}\": one of {}",
                perf::DEVICES.join(", ")
            ));
        }
        let share = p.straggler_pct.unwrap_or(10.0);
        if !(share > 0.0 && share < 100.0) {
            return Err(format!(
                "{file}: perf.straggler_pct = {share}: a share between 0 and 100"
            ));
        }
        let duration = match &p.duration {
            Some(_) => Some(self.duration("perf.duration", &p.duration, 0)?),
            None => None,
        };
        let interval = self.duration("perf.interval", &p.interval, 60)?;
        if interval.is_zero() {
            return Err(format!("{file}: perf.interval must be longer than zero"));
        }
        let timeout =
            self.duration("perf.timeout", &p.timeout, 600)? + duration.unwrap_or_default();
        Ok((
            perf::SuiteRun {
                python: p.python.unwrap_or_else(|| "python3".into()),
                device,
                quick: p.quick.unwrap_or(false),
                timeline: duration.map(|d| (d, interval)),
                cpu_devices: p.cpu_devices,
                plant: p.plant,
                timeout,
            },
            share / 100.0,
        ))
    }
}

/// A plan file read and checked; one message naming the file when not.
pub fn read_file(path: &Path) -> Result<Plan, String> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    parse(&text, &shown)
}

/// What `accept all` leaves: the bundle, its manifest (with the
/// checklist), and this platform's operator outputs kept beside it.
pub struct Bundled {
    pub bundle: PathBuf,
    pub manifest: breakpoint_core::import::bundle::Manifest,
    pub operator_outputs: Option<PathBuf>,
}

/// Run a plan into one bundle at `bundle` (never over a workspace in
/// `protected`): the logs are written in a scratch folder beside it, packed
/// with the checklist, and the folder removed; this platform's operator
/// outputs, a reference for other platforms, are kept beside the bundle.
pub fn into_bundle(
    plan: &Plan,
    bundle: &Path,
    protected: &Protected,
    trace: Option<&Path>,
    gpus: Option<&mut dyn GpuSource>,
    stop: &Arc<AtomicBool>,
    say: &dyn Fn(&str),
) -> Result<Bundled, String> {
    let check = |path: &Path| Destination::check(path, protected, false).map_err(|e| e.to_string());
    let bundle_destination = check(bundle)?;
    let outputs_destination = check(&bundle.with_extension("operators.json"))?;
    let beside = bundle
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let work = tempfile::Builder::new()
        .prefix(".acceptance-")
        .tempdir_in(beside)
        .map_err(|e| format!("{}: cannot create a scratch folder: {e}", beside.display()))?;
    let results = run(plan, work.path(), trace, gpus, stop, say)?;
    let manifest = crate::bundle::write(
        &bundle_destination,
        plan.host.clone(),
        &results.logs,
        results.checklist,
    )
    .map_err(|e| e.to_string())?;
    let operator_outputs = match &results.operator_outputs {
        Some(from) => {
            outputs_destination
                .write(&read(from)?)
                .map_err(|e| e.to_string())?;
            Some(outputs_destination.path().to_path_buf())
        }
        None => None,
    };
    Ok(Bundled {
        bundle: bundle.to_path_buf(),
        manifest,
        operator_outputs,
    })
}

/// What a run of the plan produced: the logs for the bundle, the
/// checklist, and this platform's operator outputs (kept beside the
/// bundle, not in it: they are a reference for other platforms, not
/// evidence to import).
pub struct Results {
    pub logs: Vec<Log>,
    pub checklist: Vec<ChecklistItem>,
    pub operator_outputs: Option<PathBuf>,
}

/// Run the plan's checks in `dir` (the logs are written there first). The
/// stress check needs a GPU source; network runs on its own thread for the
/// length of the others (at least one round). Each check is a step of its
/// own, and its verdict comes from [`crate::verdicts`], as it does when the
/// check runs alone.
pub fn run(
    plan: &Plan,
    dir: &Path,
    trace: Option<&Path>,
    gpus: Option<&mut dyn GpuSource>,
    stop: &Arc<AtomicBool>,
    say: &dyn Fn(&str),
) -> Result<Results, String> {
    let mut done = Done::default();
    let network_stop = Arc::new(AtomicBool::new(false));
    let network_job = plan
        .network
        .clone()
        .map(|network| start_network(network, plan.host.clone(), dir, &network_stop));
    if let Some(ready) = &plan.ready {
        run_ready(ready, trace, say, &mut done)?;
    }
    if let Some(stress) = &plan.stress {
        let Some(source) = gpus else {
            return Err(
                "the stress check needs GPUs to sample, and none could be opened here".into(),
            );
        };
        run_stress(stress, plan.host.clone(), source, dir, stop, say, &mut done)?;
    }
    if let Some(b) = &plan.billing {
        run_billing(b, dir, say, &mut done)?;
    }
    if let Some(f) = &plan.failover {
        run_failover(f, say, &mut done)?;
    }
    let mut operator_outputs = None;
    if let Some(d) = &plan.drift {
        operator_outputs = Some(run_drift(d, plan.host.as_deref(), dir, say, &mut done)?);
    }
    if let Some((suite, share)) = &plan.perf {
        run_perf(suite, *share, plan.host.as_deref(), dir, say, &mut done)?;
    }
    if let Some(s) = &plan.storage {
        run_storage(s, dir, stop, say, &mut done)?;
    }
    if let Some(job) = network_job {
        network_stop.store(true, Ordering::Relaxed);
        let (path, records) = job
            .join()
            .map_err(|_| "the network check failed".to_string())??;
        done.checklist.extend(verdicts::network(&records));
        done.log("network.jsonl", "network", read(&path)?);
    }
    Ok(Results {
        logs: done.logs,
        checklist: done.checklist,
        operator_outputs,
    })
}

/// What the steps have produced so far.
#[derive(Default)]
struct Done {
    logs: Vec<Log>,
    checklist: Vec<ChecklistItem>,
}

impl Done {
    fn log(&mut self, name: &str, check: &str, bytes: Vec<u8>) {
        self.logs.push(Log {
            name: name.into(),
            check: check.into(),
            bytes,
        });
    }
}

/// A file in the run's own scratch folder: no workspace lives there.
fn scratch(path: &Path) -> Result<Destination, String> {
    Destination::check(path, &Protected::default(), false).map_err(|e| e.to_string())
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

type NetworkJob = std::thread::JoinHandle<Result<(PathBuf, Vec<NetworkRecord>), String>>;

/// Network rounds on a thread of their own until `stop`.
fn start_network(
    (targets, every, timeout): (Vec<network::Target>, Duration, Duration),
    host: Option<String>,
    dir: &Path,
    stop: &Arc<AtomicBool>,
) -> NetworkJob {
    let stop = stop.clone();
    let path = dir.join("network.jsonl");
    std::thread::spawn(move || {
        let mut file = scratch(&path)?.create_new().map_err(|e| e.to_string())?;
        let mut records = Vec::new();
        let options = network::Options {
            every,
            duration: Duration::from_secs(7 * 24 * 3600),
            timeout,
            host,
        };
        network::measure(
            &targets,
            &network::TcpConnector,
            &options,
            &mut file,
            &stop,
            |r| records.push(r.clone()),
        )
        .map_err(|e| e.to_string())?;
        Ok((path, records))
    })
}

fn run_storage(
    plan: &storage::Plan,
    dir: &Path,
    stop: &AtomicBool,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<(), String> {
    plan.check()?;
    let path = dir.join("storage.jsonl");
    let mut file = scratch(&path)?.create_new().map_err(|e| e.to_string())?;
    let measured = storage::run(plan, &mut file, stop, &|line| {
        say(&format!("storage: {line}"))
    })?;
    drop(file);
    for problem in &measured.problems {
        say(&format!("storage: {problem}"));
    }
    done.checklist.extend(verdicts::storage(&measured.records));
    done.log("storage.jsonl", "storage", read(&path)?);
    Ok(())
}

fn run_ready(
    (first_compute, submitted_ms, timeout): &(String, Option<i64>, Duration),
    trace: Option<&Path>,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<(), String> {
    say("ready: boot → driver → first compute");
    let mut system = ready::System {
        trace: trace.map(Path::to_path_buf),
        first_compute: first_compute.clone(),
        compute_timeout: *timeout,
    };
    let stages = ready::measure(
        &mut system,
        &ready::Options {
            boot_ms: ready::boot_time_now_ms()?,
            submitted_ms: *submitted_ms,
            timeout: *timeout,
            poll: Duration::from_secs(1),
        },
    );
    done.checklist
        .push(verdicts::ready(&stages, submitted_ms.is_some(), *timeout));
    done.log("ready.csv", "ready", ready::table(&stages).into_bytes());
    Ok(())
}

fn run_stress(
    (command, duration, interval): &(Vec<String>, Duration, u32),
    host: Option<String>,
    source: &mut dyn GpuSource,
    dir: &Path,
    stop: &Arc<AtomicBool>,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<(), String> {
    say(&format!(
        "stress: {} for {:.0} s",
        command.join(" "),
        duration.as_secs_f64()
    ));
    let path = dir.join("stress.jsonl");
    let options = SessionOptions {
        interval_ms: *interval,
        host,
        ..SessionOptions::default()
    };
    // Its own flag: the load is stopped when its time is up.
    let load_stop = Arc::new(AtomicBool::new(stop.load(Ordering::Relaxed)));
    let (_, figures) = stress::run(
        source,
        &SystemClock::default(),
        &path,
        &options,
        &stress::Load {
            command,
            duration: *duration,
        },
        &load_stop,
        |_, _| {},
    )?;
    done.checklist.push(verdicts::stress(&figures));
    done.log("stress.jsonl", "stress", read(&path)?);
    Ok(())
}

fn run_billing(
    b: &billing::Plan,
    dir: &Path,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<(), String> {
    say(&format!(
        "billing probe on {}: {:.0} s",
        b.instance,
        b.compute.as_secs_f64()
    ));
    let path = dir.join("billing-probe.csv");
    let mut file = scratch(&path)?.create_new().map_err(|e| e.to_string())?;
    let job = billing::run(b, &billing::SystemClock, &mut file).map_err(|e| e.to_string())?;
    done.checklist.push(verdicts::billing(&job, &b.instance));
    done.log("billing-probe.csv", "billing-probe", read(&path)?);
    Ok(())
}

fn run_failover(f: &failover::Options, say: &dyn Fn(&str), done: &mut Done) -> Result<(), String> {
    say(&format!("failover drill on {}", f.pattern));
    let outcome = failover::drill(f, &failover::System)?;
    done.checklist.push(verdicts::failover(&outcome, f.window));
    done.log(
        "failover.csv",
        "failover",
        failover::table(&outcome).into_bytes(),
    );
    Ok(())
}

/// The operator suite here, compared with the reference; returns where
/// this platform's outputs were written.
fn run_drift(
    d: &DriftPlan,
    host: Option<&str>,
    dir: &Path,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<PathBuf, String> {
    say(&format!(
        "numeric drift: the operator suite ({}) against {} on {}",
        d.suite.device, d.reference.framework, d.reference.device
    ));
    let outputs_path = dir.join("operators.json");
    let (outputs, sha256) = drift::run_suite(&d.suite, &scratch(&outputs_path)?)?;
    let mut log = drift::compare(
        (&d.reference, &d.reference_sha256),
        (&outputs, &sha256),
        d.tolerance,
        jiff::Timestamp::now(),
    )?;
    // The plan names the host; the suite only knows the machine's own
    // name (a VM's, often).
    if let Some(host) = host {
        log.subject.host = Some(host.to_string());
    }
    done.checklist
        .push(verdicts::drift(&log, d.tolerance, &d.reference.device));
    let mut bytes = serde_json::to_vec_pretty(&log).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    done.log("drift.json", "drift", bytes);
    Ok(outputs_path)
}

/// The perf suite here: its log, with the plan's host, and its verdict.
fn run_perf(
    suite: &perf::SuiteRun,
    share: f64,
    host: Option<&str>,
    dir: &Path,
    say: &dyn Fn(&str),
    done: &mut Done,
) -> Result<(), String> {
    say(&format!(
        "delivered performance: the perf suite ({})",
        suite.device
    ));
    let mut log = perf::run_suite(suite, &scratch(&dir.join("perf.json"))?)?;
    if let Some(host) = host {
        log.host = Some(host.to_string());
    }
    done.checklist.push(verdicts::perf(&log, share));
    let mut bytes = serde_json::to_vec_pretty(&log).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    done.log("perf.json", "perf", bytes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_checked_before_anything_runs() {
        let good = "[network]\ntargets = [\"127.0.0.1:9\"]\n[billing_probe]\ninstance = \"i-1\"\nseconds = \"2s\"\n";
        let p = parse(good, "plan.toml").unwrap_or_else(|e| panic!("{e}"));
        assert!(p.network.is_some() && p.billing.is_some() && p.stress.is_none());
        let e = parse(
            "[network]\ntargets = [\"127.0.0.1:9\"]\nevery = \"soon\"\n",
            "plan.toml",
        )
        .unwrap_err();
        assert!(e.contains("network.every"), "{e}");
        let e = parse("[strees]\ncommand = [\"x\"]\n", "plan.toml").unwrap_err();
        assert!(
            e.contains("plan.toml:1") && e.contains("unknown field"),
            "{e}"
        );
        assert!(
            parse("host = \"x\"\n", "plan.toml")
                .unwrap_err()
                .contains("names no check")
        );
    }
}
