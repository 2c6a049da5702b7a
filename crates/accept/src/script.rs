//! A suite Breakpoint carries as a Python script, written out to a scratch
//! folder and run by the platform's own interpreter (where the framework
//! and its device libraries are), with a time limit. What it printed last
//! is kept for a failure. It saves its document in the scratch folder too:
//! the user's path is written by Breakpoint, through the destination
//! checks, once the document has been read and found whole.

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

/// The most a suite's document may hold (the perf log's own bound).
const DOCUMENT_LIMIT: u64 = 64 << 20;

/// Run the script to its end, with `-o FILE` in a scratch folder, and
/// return what it saved there; an error says what it printed last.
pub fn run(script: &Script<'_>) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a scratch folder: {e}"))?;
    let path = dir.path().join(script.name);
    let document = dir.path().join("document.json");
    // writes: a scratch folder of our own, removed when it is dropped.
    std::fs::write(&path, script.text)
        .map_err(|e| format!("cannot write {}: {e}", script.title))?;
    let mut child = Command::new(script.python)
        .arg(&path)
        .args(&script.args)
        .arg("-o")
        .arg(&document)
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
    let mut bytes = Vec::new();
    std::fs::File::open(&document)
        .and_then(|f| f.take(DOCUMENT_LIMIT + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("{} saved no document: {e}", script.title))?;
    if bytes.len() as u64 > DOCUMENT_LIMIT {
        return Err(format!(
            "{} saved a document larger than {} MiB: refused",
            script.title,
            DOCUMENT_LIMIT >> 20
        ));
    }
    Ok(bytes)
}
