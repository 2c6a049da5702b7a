//! A suite Breakpoint carries as a Python script, written out to a scratch
//! folder and run by the platform's own interpreter (where the framework
//! and its device libraries are), with a time limit. What it printed last
//! is kept for a failure.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The suite's file name and text, the interpreter, and its arguments.
pub struct Script<'a> {
    pub name: &'a str,
    pub text: &'a str,
    /// What the suite is called in messages ("the operator suite").
    pub title: &'a str,
    pub python: &'a str,
    pub args: Vec<std::ffi::OsString>,
    pub timeout: Duration,
}

/// Run the script to its end; an error says what it printed last.
pub fn run(script: &Script<'_>) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    let path = dir.path().join(script.name);
    std::fs::write(&path, script.text)
        .map_err(|e| format!("cannot write {}: {e}", script.title))?;
    let mut child = Command::new(script.python)
        .arg(&path)
        .args(&script.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: cannot run it: {e}", script.python))?;
    // Drain stderr on a thread so a chatty framework never blocks on a full pipe.
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > script.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} did not finish within {:.0} s",
                    script.title,
                    script.timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for {}: {e}", script.title)),
        }
    };
    let said = reader.join().unwrap_or_default();
    let tail: Vec<&str> = said.lines().rev().take(6).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    if !status.success() {
        return Err(format!(
            "{} failed ({status}):\n{}",
            script.title,
            if tail.is_empty() {
                "(it printed nothing)"
            } else {
                &tail
            }
        ));
    }
    Ok(())
}
