//! The failover drill (the four-breakpoint review, §6.2 item 3, the long-term partner assessment's fault drills): kill
//! a running training job the way a hardware fault would (SIGKILL, no
//! warning), then watch whether the platform brings it back — the process
//! returns, its progress lines resume — within a window, or run the user's
//! resume command; measure detection, recovery and the progress lost.
//!
//! The job is found by a pattern in its command line; its progress is read
//! from the log it writes (`step (\d+)` by default). Times are those at
//! which the drill saw things, to within its poll interval.

use std::io::{BufRead, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the drill does to processes: the seam tests may replace.
pub trait Processes {
    /// Pids whose command line contains `pattern` (never the drill's own).
    fn find(&self, pattern: &str) -> Vec<u32>;
    fn kill(&self, pid: u32) -> Result<(), String>;
}

/// Linux's /proc and SIGKILL.
pub struct System;

impl Processes for System {
    /// A process is the job when one of its arguments is the pattern, or a
    /// path whose file name is: never a long command line that merely
    /// mentions it (a shell, an editor), never the drill or its ancestors.
    fn find(&self, pattern: &str) -> Vec<u32> {
        let spared = ancestors();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut pids: Vec<u32> = entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| !spared.contains(pid))
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|raw| {
                    raw.split(|b| *b == 0).any(|arg| {
                        let arg = String::from_utf8_lossy(arg);
                        arg == pattern
                            || Path::new(arg.as_ref())
                                .file_name()
                                .is_some_and(|n| n.to_string_lossy() == pattern)
                    })
                })
            })
            .collect();
        pids.sort_unstable();
        pids
    }

    fn kill(&self, pid: u32) -> Result<(), String> {
        #[cfg(unix)]
        {
            let pid = rustix::process::Pid::from_raw(pid as i32).ok_or("not a pid")?;
            rustix::process::kill_process(pid, rustix::process::Signal::KILL)
                .map_err(|e| e.to_string())
        }
        #[cfg(not(unix))]
        {
            Err(format!("cannot kill {pid} here"))
        }
    }
}

/// The drill and every process above it.
fn ancestors() -> Vec<u32> {
    let mut out = vec![std::process::id()];
    let mut pid = std::process::id();
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            break;
        };
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            break;
        };
        if ppid <= 1 {
            break;
        }
        out.push(ppid);
        pid = ppid;
    }
    out
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The job's log, where its progress lines go.
    pub log: PathBuf,
    pub progress: regex_lite::Regex,
    /// The job's program or script, as one of its arguments or that
    /// argument's file name (`train.py`).
    pub pattern: String,
    /// Kill this long after the drill starts (once progress has been seen).
    pub after: Duration,
    /// How long to wait for the platform to bring the job back.
    pub window: Duration,
    /// Run if the job is not back within the window.
    pub resume: Option<String>,
    pub poll: Duration,
}

/// What the drill measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub killed: Vec<u32>,
    pub progress_at_kill: Option<u64>,
    /// Seconds from the kill to a new process matching the pattern.
    pub detected_s: Option<f64>,
    /// Seconds from the kill to the first progress line after it.
    pub recovered_s: Option<f64>,
    pub first_progress_after: Option<u64>,
    /// Steps done again: progress at the kill − (first after − 1).
    pub steps_lost: Option<u64>,
    /// The same in seconds, at the pace measured before the kill.
    pub progress_lost_s: Option<f64>,
    pub resumed_by_command: bool,
}

/// Follows a growing log from where it was, line by line.
struct Follower {
    path: PathBuf,
    offset: u64,
}

impl Follower {
    /// From the log's end as it is now: the lines already there were
    /// written at times nobody saw, and timing them as if written now would
    /// make the job look many times faster than it is.
    fn from_end(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            offset: std::fs::metadata(path).map_or(0, |m| m.len()),
        }
    }

    /// The progress values of the lines added since the last call.
    fn progress(&mut self, re: &regex_lite::Regex) -> Vec<u64> {
        let Ok(mut file) = std::fs::File::open(&self.path) else {
            return Vec::new();
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut reader = std::io::BufReader::new(file);
        let mut out = Vec::new();
        let mut line = String::new();
        // Only whole lines: a line being written is read next time.
        while reader.read_line(&mut line).unwrap_or(0) > 0 && line.ends_with('\n') {
            self.offset += line.len() as u64;
            if let Some(v) = re
                .captures(&line)
                .and_then(|c| c.get(1))
                .and_then(|m| m.as_str().parse().ok())
            {
                out.push(v);
            }
            line.clear();
        }
        out
    }
}

/// Run the drill.
pub fn drill(options: &Options, processes: &dyn Processes) -> Result<Outcome, String> {
    let start = Instant::now();
    let mut follower = Follower::from_end(&options.log);
    // Progress with the time it was seen: the pace before the kill.
    let mut seen: Vec<(Instant, u64)> = Vec::new();
    while start.elapsed() < options.after || seen.len() < 2 {
        for p in follower.progress(&options.progress) {
            seen.push((Instant::now(), p));
        }
        if start.elapsed() > options.after + options.window {
            return Err(format!(
                "no progress lines matching {} in {} before the kill: is the job running and writing there?",
                options.progress.as_str(),
                options.log.display()
            ));
        }
        std::thread::sleep(options.poll);
    }
    for p in follower.progress(&options.progress) {
        seen.push((Instant::now(), p));
    }
    let targets = processes.find(&options.pattern);
    if targets.is_empty() {
        return Err(format!(
            "no process's command line contains \"{}\"",
            options.pattern
        ));
    }
    for pid in &targets {
        processes
            .kill(*pid)
            .map_err(|e| format!("cannot kill {pid}: {e}"))?;
    }
    let fault = Instant::now();
    // What the job wrote before it died is whole now; the platform cannot
    // have restarted it within these microseconds.
    for p in follower.progress(&options.progress) {
        seen.push((fault, p));
    }
    let at_kill = seen.last().map(|(_, p)| *p);
    let pace = match (seen.first(), seen.last()) {
        (Some((t0, p0)), Some((t1, p1))) if p1 > p0 && t1 > t0 => {
            Some((p1 - p0) as f64 / (*t1 - *t0).as_secs_f64())
        }
        _ => None,
    };
    let mut outcome = Outcome {
        killed: targets.clone(),
        progress_at_kill: at_kill,
        detected_s: None,
        recovered_s: None,
        first_progress_after: None,
        steps_lost: None,
        progress_lost_s: None,
        resumed_by_command: false,
    };
    let mut deadline = fault + options.window;
    loop {
        if outcome.detected_s.is_none()
            && processes
                .find(&options.pattern)
                .iter()
                .any(|p| !targets.contains(p))
        {
            outcome.detected_s = Some(fault.elapsed().as_secs_f64());
        }
        if let Some(first) = follower.progress(&options.progress).first() {
            outcome.recovered_s = Some(fault.elapsed().as_secs_f64());
            outcome.first_progress_after = Some(*first);
            break;
        }
        if Instant::now() >= deadline {
            match (&options.resume, outcome.resumed_by_command) {
                (Some(command), false) => {
                    std::process::Command::new("sh")
                        .arg("-c")
                        .arg(command)
                        .stdin(std::process::Stdio::null())
                        .spawn()
                        .map_err(|e| format!("cannot run the resume command: {e}"))?;
                    outcome.resumed_by_command = true;
                    deadline = Instant::now() + options.window;
                }
                _ => break,
            }
        }
        std::thread::sleep(options.poll);
    }
    if let (Some(kill), Some(first)) = (outcome.progress_at_kill, outcome.first_progress_after) {
        let lost = kill.saturating_sub(first.saturating_sub(1));
        outcome.steps_lost = Some(lost);
        outcome.progress_lost_s = seconds_lost(&seen, fault, first.saturating_sub(1))
            .or_else(|| pace.filter(|p| *p > 0.0).map(|p| lost as f64 / p));
    }
    Ok(outcome)
}

/// The work lost, in seconds: from when the job first reached the progress
/// it resumed from (`resumed`) to the fault, where the drill saw that
/// progress written; none where it was written before the drill began.
fn seconds_lost(seen: &[(Instant, u64)], fault: Instant, resumed: u64) -> Option<f64> {
    let (at, _) = seen.iter().find(|(_, p)| *p >= resumed)?;
    let reached = seen.iter().any(|(_, p)| *p <= resumed);
    reached.then(|| fault.saturating_duration_since(*at).as_secs_f64())
}

/// The drill as a fault-drills table row that imports (`fault-drills`).
pub fn table(outcome: &Outcome) -> String {
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.1}"));
    format!(
        "fault,detected,recovered,recovery_s,progress_lost_s\nprocess-kill,{},{},{},{}\n",
        if outcome.detected_s.is_some() || outcome.recovered_s.is_some() {
            "yes"
        } else {
            "no"
        },
        if outcome.recovered_s.is_some() {
            "yes"
        } else {
            "no"
        },
        opt(outcome.recovered_s),
        opt(outcome.progress_lost_s),
    )
}
