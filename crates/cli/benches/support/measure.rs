//! Shared by the benches: a command's wall time and peak memory.

use std::process::Command;
use std::time::{Duration, Instant};

/// Run a command, returning its wall time and peak resident memory (MiB),
/// read from /proc while it runs; a command that fails is an error.
#[allow(dead_code)]
pub fn measure(cmd: &mut Command) -> std::io::Result<(f64, f64)> {
    match measure_outcome(cmd)? {
        (s, mib, true) => Ok((s, mib)),
        _ => Err(std::io::Error::other(format!("{cmd:?} failed"))),
    }
}

/// The same for a command that may fail (a refusal is what is measured):
/// wall time, peak memory (MiB), and whether it succeeded. The time ends
/// when the command does (a thread waits for it), not at the next look at
/// its memory, which comes every 5 ms.
#[allow(dead_code)]
pub fn measure_outcome(cmd: &mut Command) -> std::io::Result<(f64, f64, bool)> {
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let status_path = format!("/proc/{}/status", child.id());
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        (start.elapsed().as_secs_f64(), status)
    });
    let mut peak_kib = 0u64;
    while !waiter.is_finished() {
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            for line in status.lines() {
                if let Some(v) = line.strip_prefix("VmHWM:") {
                    let kib: u64 = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
                    peak_kib = peak_kib.max(kib);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (seconds, status) = waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the command failed"))?;
    Ok((seconds, peak_kib as f64 / 1024.0, status?.success()))
}
