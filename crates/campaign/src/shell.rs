//! Running a recipe's commands: through `sh -c`, each bounded in time and
//! stoppable, its whole process group killed so that an `ssh` or a cloud
//! CLI it started does not linger. Tests put a fake provider behind the
//! same trait (or on PATH).

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a command did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandResult {
    /// `None`: it did not exit by itself (killed, or could not start).
    pub exit: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub cancelled: bool,
    pub elapsed_ms: u64,
}

impl CommandResult {
    pub fn ok(&self) -> bool {
        self.exit == Some(0)
    }

    /// The last lines of what it printed, for a failure's message.
    pub fn tail(&self, lines: usize) -> String {
        let all: Vec<&str> = self
            .stdout
            .lines()
            .chain(self.stderr.lines())
            .filter(|l| !l.trim().is_empty())
            .collect();
        let start = all.len().saturating_sub(lines);
        breakpoint_core::text::bounded_message(&all[start..].join("\n"))
    }
}

pub trait Shell: Send + Sync {
    /// Run `command`; stop it after `timeout` or once `cancel` is set.
    fn run(&self, command: &str, timeout: Duration, cancel: &AtomicBool) -> CommandResult;
}

/// The machine's `sh`.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemShell;

/// Output kept per stream: enough for ids, JSON and the last lines of an
/// error, never all of a runaway command's output.
const OUTPUT_LIMIT: u64 = 4 << 20;

impl Shell for SystemShell {
    fn run(&self, command: &str, timeout: Duration, cancel: &AtomicBool) -> CommandResult {
        let started = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so that the whole tree can be stopped.
            cmd.process_group(0);
        }
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                return CommandResult {
                    stderr: format!("cannot run sh: {e}"),
                    ..CommandResult::default()
                };
            }
        };
        let capture = |stream: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                if let Some(s) = stream {
                    let _ = s.take(OUTPUT_LIMIT).read_to_end(&mut text);
                }
                String::from_utf8_lossy(&text).into_owned()
            })
        };
        let out = capture(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let err = capture(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let (mut timed_out, mut cancelled) = (false, false);
        let exit = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) => {}
                Err(_) => break None,
            }
            timed_out = started.elapsed() >= timeout;
            cancelled = cancel.load(Ordering::Relaxed);
            if timed_out || cancelled {
                stop_group(&mut child);
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        CommandResult {
            exit,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
            timed_out,
            cancelled,
            elapsed_ms: started.elapsed().as_millis() as u64,
        }
    }
}

/// Kill the command and everything it started.
fn stop_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_run_bounded_and_stoppable() {
        let never = AtomicBool::new(false);
        let r = SystemShell.run(
            "echo out; echo err >&2; exit 3",
            Duration::from_secs(5),
            &never,
        );
        assert_eq!(
            (r.exit, r.stdout.as_str(), r.stderr.as_str()),
            (Some(3), "out\n", "err\n")
        );
        assert_eq!(r.tail(1), "err");

        // A child that would outlive its shell is stopped with it.
        let r = SystemShell.run(
            "sleep 30 & sleep 30; echo never",
            Duration::from_millis(300),
            &never,
        );
        assert!(
            r.timed_out && r.exit.is_none() && r.elapsed_ms < 5000,
            "{r:?}"
        );

        let cancel = AtomicBool::new(true);
        let r = SystemShell.run("sleep 30", Duration::from_secs(30), &cancel);
        assert!(r.cancelled && r.elapsed_ms < 5000, "{r:?}");
    }
}
