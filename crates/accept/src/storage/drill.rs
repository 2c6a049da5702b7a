//! The escape-hatch drill: a job writing checkpoints while its storage
//! path is cut — does it carry on from the local cache, stall, or fail?

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use breakpoint_formats::parsers::storage_log::{DrillFigures, DrillOutcome};

use super::{Scratch, Volume, copy_file, free_bytes, round3, write_file};

/// Cuts the job's storage path and brings it back: the seam the drill's
/// tests plant an outage through.
pub trait Cutter: Send + Sync {
    fn cut(&self) -> Result<(), String>;
    fn restore(&self) -> Result<(), String>;
}

/// Commands the user names (an unmount and a mount, a firewall rule and
/// its removal), run with `sh -c`.
pub struct ShellCutter {
    pub cut: String,
    pub restore: String,
}

/// A cut or restore command still running after this is stopped: a drill
/// must end, and say why, even when an unmount hangs.
const COMMAND_LIMIT: Duration = Duration::from_secs(120);

fn run_shell(what: &str, command: &str) -> Result<(), String> {
    run_shell_within(what, command, COMMAND_LIMIT)
}

/// `sh -c command` in a process group of its own, so that a command past
/// `limit` is stopped whole: `sh` and whatever it started (a hung `umount`,
/// a `sleep` in a script), not `sh` alone.
fn run_shell_within(what: &str, command: &str, limit: Duration) -> Result<(), String> {
    let mut shell = std::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut shell, 0);
    let mut child = shell
        .spawn()
        .map_err(|e| format!("cannot run the {what} command: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= limit => {
                #[cfg(unix)]
                {
                    use rustix::process::{Pid, Signal, kill_process_group};
                    let _ = kill_process_group(Pid::from_child(&child), Signal::KILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the {what} command did not finish within {} s; it and what it started were stopped",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("the {what} command: {e}")),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut said = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut said);
    }
    let said = breakpoint_core::text::printable_excerpt(said.trim(), 200);
    Err(format!(
        "the {what} command failed ({status}){}",
        if said.is_empty() {
            String::new()
        } else {
            format!(": {said}")
        }
    ))
}

impl Cutter for ShellCutter {
    fn cut(&self) -> Result<(), String> {
        run_shell("cut", &self.cut)
    }

    fn restore(&self) -> Result<(), String> {
        run_shell("restore", &self.restore)
    }
}

/// How the drill runs.
#[derive(Debug, Clone)]
pub struct DrillOptions {
    pub checkpoint_bytes: u64,
    /// A checkpoint this often.
    pub every: Duration,
    /// The path is cut this long after the drill starts…
    pub cut_after: Duration,
    /// …for this long…
    pub cut_for: Duration,
    /// …and the job runs on this long after it is back.
    pub settle: Duration,
    /// A checkpoint that holds the job longer stalls it.
    pub stall_after: Duration,
}

/// Checkpoints a drill's job keeps in each place; older ones are removed.
const KEPT: u32 = 3;

/// Where a drill writes: a volume and the directory in it.
pub struct Place<'a> {
    pub volume: &'a (dyn Volume + 'a),
    pub path: &'a Path,
}

/// What the job saw, kept by the threads of the drill.
#[derive(Default)]
struct Seen {
    /// Seconds from the start at which checkpoints reached the network path.
    landed: Vec<f64>,
    restored_at: Option<f64>,
    sync_errors: u32,
}

/// A job writing a checkpoint every `every` to the network path (through
/// the local cache where one is named: written there, the job carries on,
/// and a writer copies it up behind it), while the path is cut for
/// `cut_for`: whether the job carried on, stalled or failed, and how long
/// after the path's return a checkpoint reached it again.
pub fn drill(
    network: Place<'_>,
    local: Option<Place<'_>>,
    cutter: &dyn Cutter,
    options: &DrillOptions,
    stop: &AtomicBool,
) -> Result<DrillFigures, String> {
    // Room for the checkpoints kept and the one being written, everywhere.
    let needed = options.checkpoint_bytes * (u64::from(KEPT) + 1);
    for place in std::iter::once(&network).chain(local.as_ref()) {
        if let Some(free) = free_bytes(place.path).filter(|f| *f < needed) {
            return Err(format!(
                "{}: {} free, too little for the drill's checkpoints ({} kept at {} each; lower --drill-checkpoint)",
                place.path.display(),
                breakpoint_core::sizes::size_words(free as f64),
                KEPT + 1,
                breakpoint_core::sizes::size_words(options.checkpoint_bytes as f64)
            ));
        }
    }
    let net_scratch = Scratch::new(network.path)?;
    let local_scratch = local.as_ref().map(|l| Scratch::new(l.path)).transpose()?;
    let seen = Mutex::new(Seen::default());
    let t0 = Instant::now();
    let total = options.cut_after + options.cut_for + options.settle;
    let cut_failed: Mutex<Option<String>> = Mutex::new(None);
    let restore_failed: Mutex<Option<String>> = Mutex::new(None);
    let (mut checkpoints, mut longest_wait, mut failure) = (0u32, 0f64, None::<String>);
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        // The outage, on a clock of its own.
        s.spawn(|| {
            sleep_until(t0 + options.cut_after, stop, &finished);
            if stop.load(Ordering::Relaxed) || finished.load(Ordering::Relaxed) {
                return;
            }
            if let Err(e) = cutter.cut() {
                // A cut that half-happened is undone all the same.
                let _ = cutter.restore();
                set(&cut_failed, e);
                return;
            }
            sleep_until(
                t0 + options.cut_after + options.cut_for,
                stop,
                &AtomicBool::new(false),
            );
            if let Err(e) = cutter.restore() {
                set(&restore_failed, e);
            }
            if let Ok(mut seen) = seen.lock() {
                seen.restored_at = Some(t0.elapsed().as_secs_f64());
            }
        });
        // The writer that copies the local cache up to the network path.
        let (send, receive) = mpsc::channel::<PathBuf>();
        let uploader = local_scratch.as_ref().map(|_| {
            let (seen, net_scratch, finished) = (&seen, &net_scratch, &finished);
            let volume = network.volume;
            // A path that never comes back is given up on, not retried for ever.
            let give_up = t0 + total + options.settle.max(Duration::from_secs(1)) * 4;
            s.spawn(move || {
                let mut pending: Option<PathBuf> = None;
                let mut landed: std::collections::VecDeque<PathBuf> = Default::default();
                loop {
                    if pending.is_some()
                        && finished.load(Ordering::Relaxed)
                        && Instant::now() >= give_up
                    {
                        return;
                    }
                    // The newest checkpoint is the one worth copying.
                    let next = match pending.take() {
                        Some(p) => receive.try_iter().last().or(Some(p)),
                        None => receive.recv().ok(),
                    };
                    let Some(from) = next else { return };
                    let name = from
                        .file_name()
                        .map(|n| n.to_os_string())
                        .unwrap_or_default();
                    let to = net_scratch.path(&name.to_string_lossy());
                    match copy_file(&from, volume, &to) {
                        Ok(()) => {
                            if let Ok(mut seen) = seen.lock() {
                                seen.landed.push(t0.elapsed().as_secs_f64());
                            }
                            landed.push_back(to);
                            while landed.len() > KEPT as usize {
                                if let Some(old) = landed.pop_front() {
                                    let _ = std::fs::remove_file(old);
                                }
                            }
                        }
                        // The job moved on and dropped it: a newer one comes.
                        Err(_) if !from.exists() => {
                            let _ = std::fs::remove_file(&to);
                        }
                        Err(_) => {
                            if let Ok(mut seen) = seen.lock() {
                                seen.sync_errors += 1;
                            }
                            let _ = std::fs::remove_file(&to);
                            pending = Some(from);
                            std::thread::sleep(options.every / 4);
                        }
                    }
                }
            })
        });
        // The job.
        let mut k = 0u32;
        while t0.elapsed() < total && !stop.load(Ordering::Relaxed) {
            let name = format!("checkpoint-{k}");
            let began = Instant::now();
            let written = match (&local, &local_scratch) {
                (Some(l), Some(scratch)) => {
                    let path = scratch.path(&name);
                    let r = write_file(l.volume, &path, options.checkpoint_bytes, u64::from(k));
                    if r.is_ok() {
                        let _ = send.send(path);
                    }
                    r.map_err(|e| format!("the local cache: {e}"))
                }
                _ => {
                    let r = write_file(
                        network.volume,
                        &net_scratch.path(&name),
                        options.checkpoint_bytes,
                        u64::from(k),
                    );
                    if r.is_ok()
                        && let Ok(mut seen) = seen.lock()
                    {
                        seen.landed.push(t0.elapsed().as_secs_f64());
                    }
                    r.map_err(|e| format!("the network path: {e}"))
                }
            };
            let wait = began.elapsed().as_secs_f64();
            longest_wait = longest_wait.max(wait);
            if let Err(e) = written {
                failure = Some(format!("checkpoint {k} could not be written to {e}"));
                break;
            }
            checkpoints += 1;
            // A job keeps its last few checkpoints, not every one: the
            // drill's disk use stays bounded however long it runs.
            if let Some(old) = k.checked_sub(KEPT) {
                let old = format!("checkpoint-{old}");
                match &local_scratch {
                    Some(scratch) => {
                        let _ = std::fs::remove_file(scratch.path(&old));
                    }
                    None => {
                        let _ = std::fs::remove_file(net_scratch.path(&old));
                    }
                }
            }
            k += 1;
            sleep_until(began + options.every, stop, &AtomicBool::new(false));
        }
        finished.store(true, Ordering::Relaxed);
        drop(send);
        // The writer finishes its last copy once the path is back (the
        // scope waits for it).
        drop(uploader);
    });
    let seen = seen.into_inner().unwrap_or_default();
    let cut_s = options.cut_for.as_secs_f64();
    let mut figures = DrillFigures {
        t: jiff::Timestamp::now().as_millisecond(),
        path: network.path.display().to_string(),
        local: local.as_ref().map(|l| l.path.display().to_string()),
        cut_s,
        outcome: DrillOutcome::Continues,
        checkpoints,
        longest_wait_s: round3(longest_wait),
        recovered_after_s: seen.restored_at.and_then(|back| {
            seen.landed
                .iter()
                .find(|t| **t >= back)
                .map(|t| round3(t - back))
        }),
        detail: String::new(),
    };
    let cut_failed = cut_failed.into_inner().ok().flatten();
    let restore_failed = restore_failed.into_inner().ok().flatten();
    figures.outcome = if let Some(e) = &cut_failed {
        figures.detail = format!("the path was not cut: {e}");
        DrillOutcome::NotRun
    } else if let Some(e) = &failure {
        figures.detail = format!("{e}: the job would have failed");
        DrillOutcome::Fails
    } else if longest_wait > options.stall_after.as_secs_f64() {
        figures.detail = format!(
            "a checkpoint held the job for {longest_wait:.1} s (the stall limit is {:.0} s)",
            options.stall_after.as_secs_f64()
        );
        DrillOutcome::Stalls
    } else {
        figures.detail = if local.is_some() {
            format!(
                "{checkpoints} checkpoints kept on the local cache; {} copy attempts to the network path failed while it was cut",
                seen.sync_errors
            )
        } else {
            format!("{checkpoints} checkpoints written to the network path, none held the job")
        };
        DrillOutcome::Continues
    };
    if figures.outcome != DrillOutcome::NotRun && figures.recovered_after_s.is_none() {
        figures
            .detail
            .push_str("; no checkpoint reached the network path after it came back");
    }
    if let Some(e) = restore_failed {
        figures.detail.push_str(&format!(
            "; restoring the path failed: {e} — restore it by hand"
        ));
    }
    if stop.load(Ordering::Relaxed) {
        figures.detail.push_str("; stopped before its end");
    }
    for left in local_scratch
        .into_iter()
        .chain(std::iter::once(net_scratch))
        .filter_map(Scratch::remove)
    {
        figures.detail.push_str(&format!("; {left}"));
    }
    Ok(figures)
}

fn set(slot: &Mutex<Option<String>>, value: String) {
    if let Ok(mut s) = slot.lock() {
        *s = Some(value);
    }
}

fn sleep_until(at: Instant, stop: &AtomicBool, done: &AtomicBool) {
    while Instant::now() < at && !stop.load(Ordering::Relaxed) && !done.load(Ordering::Relaxed) {
        std::thread::sleep((at - Instant::now()).min(Duration::from_millis(20)));
    }
}

impl DrillOptions {
    /// The drill's timing from what a user states: the path is cut after
    /// two checkpoints, and the job runs on for three more after it is back.
    pub fn new(
        checkpoint_bytes: u64,
        every: Duration,
        cut_for: Duration,
        stall_after: Duration,
    ) -> Self {
        Self {
            checkpoint_bytes,
            every,
            cut_after: every * 2,
            cut_for,
            settle: every * 3,
            stall_after,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A cut that overruns its limit is stopped whole: the shell and the
    /// process it started, not the shell alone.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_command_past_its_limit_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let command = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
        let e = run_shell_within("cut", &command, Duration::from_millis(500)).unwrap_err();
        assert!(
            e.contains("did not finish within 0 s; it and what it started were stopped"),
            "{e}"
        );
        let pid = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .to_string();
        // Gone, or a zombie waiting for whoever adopted it.
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
        };
        let started = Instant::now();
        while running() && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(), "the cut's child {pid} still runs");
    }

    #[test]
    fn a_command_that_fails_says_what_it_wrote() {
        let e = run_shell_within("restore", "echo 'mount: busy' >&2; exit 3", COMMAND_LIMIT)
            .unwrap_err();
        assert!(
            e.contains("the restore command failed") && e.contains("mount: busy"),
            "{e}"
        );
        assert!(run_shell_within("cut", "true", COMMAND_LIMIT).is_ok());
    }
}
