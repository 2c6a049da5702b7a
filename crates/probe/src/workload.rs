//! Wrapping a workload (`probe run`, the app's "Run a workload"): launch →
//! first GPU activity (a startup attempt), samples while it runs, busy
//! seconds against wall time (the billing cross-check) and its exit status.
//! Asked to stop, it is sent SIGTERM and, if still running after a grace
//! period, SIGKILL — sampling goes on until it has gone, so the log ends
//! with its exit.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use breakpoint_destination::{Destination, Protected};
use breakpoint_formats::parsers::ProbeRecord;
use breakpoint_model::domain::{ImageState, LoadScenario, StartupAttempt, StartupOutcome};
use serde::Serialize;

use crate::clock::Clock;
use crate::session::{ProbeError, Session, SessionOptions, Summary, TickInfo};
use crate::source::GpuSource;

/// How long a workload asked to stop gets to save its work before it is
/// killed: enough for a training loop to write a checkpoint.
pub const STOP_GRACE_MS: i64 = 10_000;

/// How often the workload is checked for an exit between ticks.
const EXIT_POLL_MS: i64 = 20;

/// What to run under the probe.
#[derive(Debug, Clone, Default)]
pub struct Workload {
    /// The program and its arguments; no shell is involved.
    pub command: Vec<String>,
    /// Where it runs; `None` is the probe's own working directory.
    pub dir: Option<PathBuf>,
    /// A file for its stdout and stderr (stdin then reads nothing); `None`
    /// shares the probe's terminal.
    pub output: Option<PathBuf>,
    /// Start it in a process group of its own, so that stopping it reaches
    /// everything it started (`sh -c`, launchers). The CLI leaves it in the
    /// terminal's group, where Ctrl-C already reaches it.
    pub own_group: bool,
    /// Added to the log's summary (and so to the imported run's metadata):
    /// what the run was for (`"acceptance": "stress"`).
    pub tags: serde_json::Map<String, serde_json::Value>,
}

impl Workload {
    /// The command as one line a shell would split back into the same
    /// arguments, for the log, messages and the confirmation dialog.
    pub fn shown(&self) -> String {
        shell_line(&self.command)
    }

    /// Refuse what cannot start before anything is written: no command, a
    /// program not found, a missing directory.
    pub fn validate(&self) -> Result<(), ProbeError> {
        let refuse = |why: String| ProbeError::Spawn {
            command: self.shown(),
            error: std::io::Error::new(std::io::ErrorKind::NotFound, why),
        };
        let Some(program) = self.command.first().filter(|p| !p.trim().is_empty()) else {
            return Err(refuse("no command given".into()));
        };
        if let Some(dir) = &self.dir
            && !dir.is_dir()
        {
            return Err(refuse(format!("no directory {}", dir.display())));
        }
        if program.contains('/') {
            let path = match &self.dir {
                Some(dir) => dir.join(program),
                None => PathBuf::from(program),
            };
            if !path.is_file() {
                return Err(refuse(format!("no program {}", path.display())));
            }
        } else if !on_path(program) {
            return Err(refuse(format!("no program \"{program}\" on PATH")));
        }
        Ok(())
    }
}

/// Arguments as one line, each quoted where a shell would split or expand
/// it (`sh -c 'sleep 1; exit 3'`).
pub fn shell_line(args: &[String]) -> String {
    shlex::try_join(args.iter().map(String::as_str)).unwrap_or_else(|_| args.join(" "))
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrapReport {
    pub summary: Summary,
    /// The workload's exit code (`None` when a signal ended it).
    pub exit_code: Option<i32>,
    pub wall_s: f64,
    /// Seconds in which some GPU was above 10 % utilisation, counted in
    /// real time between readings; `None` when no GPU reported utilisation
    /// (a GPU in MIG mode does not), which is not the same as 0.
    pub busy_s: Option<f64>,
    /// Launch → first GPU activity; `None` if the workload never used a GPU
    /// (or, when `gpu_use_unknown`, if that could not be seen).
    pub first_activity_s: Option<f64>,
    /// Neither utilisation nor the GPUs' process lists could be read, so
    /// whether the workload used a GPU is not known.
    pub gpu_use_unknown: bool,
    /// Whether it ended because it was asked to stop.
    pub stopped: bool,
}

/// Every process descended from `root` (Linux /proc), root included.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // "pid (comm) state ppid …" — comm may hold spaces and parentheses.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse().ok());
            if let Some(ppid) = ppid {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parent_of.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found
}

/// Run `workload` under the probe and sample until it exits. Setting `stop`
/// ends it (SIGTERM, then SIGKILL after [`STOP_GRACE_MS`]). `progress` is
/// called after every tick with what it read and the running figures.
pub fn wrap<S: GpuSource + ?Sized, C: Clock>(
    source: &mut S,
    clock: &C,
    path: &Path,
    options: &SessionOptions,
    workload: &Workload,
    stop: &AtomicBool,
    mut progress: impl FnMut(&TickInfo, &Summary),
) -> Result<WrapReport, ProbeError> {
    workload.validate()?;
    let shown = workload.shown();
    let spawn_error = |error| ProbeError::Spawn {
        command: shown.clone(),
        error,
    };
    let mut command = command_for(workload)?;
    let mut session = Session::start(source, clock, path, options)?;
    let launch = clock.now_ms();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            // Nothing ran: leave no log that says otherwise.
            drop(session);
            let _ = std::fs::remove_file(path);
            return Err(spawn_error(error));
        }
    };
    let mut busy_s: Option<f64> = None;
    // Whether GPU use could be seen at all: utilisation or process lists.
    let mut use_visible = false;
    let mut first_activity: Option<i64> = None;
    let mut stopping = Stopping::default();
    let mut exit: Option<(ExitStatus, i64)> = None;
    let (status, end) = loop {
        // Between ticks, watch for the exit (so wall time ends when the
        // workload did, not at the next tick) and for a stop request.
        let deadline = session.next_tick_ms();
        while exit.is_none() {
            if let Some(status) = child.try_wait().map_err(spawn_error)? {
                exit = Some((status, clock.now_ms()));
                break;
            }
            let now = clock.now_ms();
            if stop.load(Ordering::Relaxed) {
                stopping.advance(&mut child, workload.own_group, now);
            }
            if now >= deadline {
                break;
            }
            clock.sleep_until((now + EXIT_POLL_MS).min(deadline));
        }
        let tick = session.tick()?;
        if let Some(busy) = tick.busy {
            use_visible = true;
            // Real time, not intervals: after a stall one tick stands for
            // more than one interval of the workload's life.
            let add = if busy {
                tick.elapsed_ms as f64 / 1000.0
            } else {
                0.0
            };
            busy_s = Some(busy_s.unwrap_or(0.0) + add);
        }
        if first_activity.is_none() {
            let ours = descendants(child.id());
            let pids = session.compute_pids();
            use_visible |= pids.is_some();
            let ours_on_gpu = pids.is_some_and(|p| p.iter().any(|p| ours.contains(p)));
            if tick.busy == Some(true) || ours_on_gpu {
                first_activity = Some(tick.now_ms);
            }
        }
        progress(&tick, &session.summary());
        if let Some(exit) = exit {
            break exit;
        }
    };
    if let Some(at) = first_activity {
        session.write(&startup_record(launch, at))?;
    }
    let wall_s = (end - launch) as f64 / 1000.0;
    let first_activity_s = first_activity.map(|at| (at - launch) as f64 / 1000.0);
    let stopped = stopping.asked_at.is_some();
    let mut extra = serde_json::Map::new();
    extra.insert("wrapped_command".into(), serde_json::json!(shown));
    extra.insert("exit_code".into(), serde_json::json!(status.code()));
    extra.insert("wall_s".into(), serde_json::json!(wall_s));
    extra.insert("busy_s".into(), serde_json::json!(busy_s));
    extra.insert(
        "first_activity_s".into(),
        serde_json::json!(first_activity_s),
    );
    let gpu_use_unknown = first_activity.is_none() && !use_visible;
    if gpu_use_unknown {
        extra.insert("gpu_use_unknown".into(), serde_json::json!(true));
    } else if first_activity.is_none() {
        extra.insert("never_used_gpu".into(), serde_json::json!(true));
    }
    if stopped {
        extra.insert("stopped_by_user".into(), serde_json::json!(true));
    }
    for (k, v) in &workload.tags {
        extra.insert(k.clone(), v.clone());
    }
    let summary = session.finish(extra)?;
    Ok(WrapReport {
        summary,
        exit_code: status.code(),
        wall_s,
        busy_s,
        first_activity_s,
        gpu_use_unknown,
        stopped,
    })
}

/// Launch → first GPU activity as a startup attempt in the log: a wrapped
/// workload is a start measured from inside the machine.
fn startup_record(launch: i64, first_activity: i64) -> ProbeRecord {
    let ts = |ms: i64| jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ProbeRecord::Startup {
        t: launch,
        startup: StartupAttempt {
            scenario: LoadScenario::Baseline,
            image: ImageState::Warm,
            submitted_at: ts(launch),
            provisioned_at: None,
            image_ready_at: None,
            first_compute_at: Some(ts(first_activity)),
            outcome: StartupOutcome::Ok,
        },
    }
}

fn command_for(workload: &Workload) -> Result<Command, ProbeError> {
    let (program, args) = workload
        .command
        .split_first()
        .ok_or_else(|| ProbeError::Spawn {
            command: String::new(),
            error: std::io::Error::other("no command given"),
        })?;
    let mut command = Command::new(program);
    command.args(args);
    if let Some(dir) = &workload.dir {
        command.current_dir(dir);
    }
    if let Some(out) = &workload.output {
        let output_error = |error| ProbeError::Output {
            path: out.clone(),
            error,
        };
        // Created new, beside its log: it replaces nothing.
        let file = Destination::check(out, &Protected::default(), false)
            .map_err(|e| output_error(std::io::Error::other(e.to_string())))?
            .create_new()
            .map_err(|e| output_error(e.source))?;
        let err = file.try_clone().map_err(output_error)?;
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(file))
            .stderr(Stdio::from(err));
    }
    #[cfg(unix)]
    if workload.own_group {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    Ok(command)
}

/// Stopping a workload: SIGTERM first, SIGKILL once the grace period has
/// passed.
#[derive(Default)]
struct Stopping {
    asked_at: Option<i64>,
    killed: bool,
}

impl Stopping {
    fn advance(&mut self, child: &mut Child, own_group: bool, now_ms: i64) {
        match self.asked_at {
            None => {
                terminate(child, own_group, false);
                self.asked_at = Some(now_ms);
            }
            Some(at) if !self.killed && now_ms - at >= STOP_GRACE_MS => {
                terminate(child, own_group, true);
                self.killed = true;
            }
            Some(_) => {}
        }
    }
}

/// Ask the workload to end (SIGTERM), or make it (SIGKILL): its whole
/// process group when it has one of its own. A workload that is already
/// gone makes this a no-op.
fn terminate(child: &mut Child, own_group: bool, force: bool) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process, kill_process_group};
        let pid = Pid::from_child(child);
        let signal = if force { Signal::KILL } else { Signal::TERM };
        let _ = if own_group {
            kill_process_group(pid, signal)
        } else {
            kill_process(pid, signal)
        };
    }
    #[cfg(not(unix))]
    {
        let _ = own_group;
        let _ = force;
        let _ = child.kill();
    }
}
