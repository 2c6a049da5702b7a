//! The rules of a probe session that every face applies the same way: how
//! often it may sample, and what its log is called.

use std::path::{Path, PathBuf};

/// Faster than this, NVML's own sampling (power is averaged over about
/// 100 ms) gives nothing new and the log grows for nothing.
pub const MIN_INTERVAL_MS: u32 = 100;
/// Slower than this a sample misses most of what happens (a throttling
/// episode lasts seconds to minutes).
pub const MAX_INTERVAL_MS: u32 = 60 * 60 * 1000;

/// Why an interval cannot be used, if it cannot.
pub fn check_interval(interval_ms: u32) -> Result<u32, String> {
    if (MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&interval_ms) {
        Ok(interval_ms)
    } else {
        Err(format!(
            "the interval must be from {MIN_INTERVAL_MS} ms to {} min (it was {interval_ms} ms)",
            MAX_INTERVAL_MS / 60_000
        ))
    }
}

/// The name of a log: `%N` replaced by the host name and `%T` by the start
/// time in `pattern` (so one command line serves every node of a fleet), or
/// `{kind}-HOST-TIME.jsonl` in `dir` when no pattern is given.
pub fn log_path(
    pattern: Option<&Path>,
    dir: &Path,
    kind: &str,
    host: Option<&str>,
    now: jiff::Timestamp,
) -> PathBuf {
    let host = host
        .map(String::from)
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "local".into());
    // Only what is safe in a file name, whatever the host is called.
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    match pattern {
        Some(p) => PathBuf::from(
            p.to_string_lossy()
                .replace("%N", &host)
                .replace("%T", &stamp),
        ),
        None => dir.join(format!("{kind}-{host}-{stamp}.jsonl")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_from_100_ms_to_an_hour() {
        assert_eq!(check_interval(100), Ok(100));
        assert_eq!(check_interval(3_600_000), Ok(3_600_000));
        assert!(
            check_interval(99)
                .unwrap_err()
                .contains("from 100 ms to 60 min")
        );
        assert!(check_interval(3_600_001).is_err());
    }

    #[test]
    fn logs_are_named_by_host_and_time() {
        let t: jiff::Timestamp = "2024-06-01T08:00:00Z".parse().unwrap_or_default();
        assert_eq!(
            log_path(None, Path::new("logs"), "probe", Some("gpu-node/3"), t),
            Path::new("logs/probe-gpu-node_3-20240601T080000Z.jsonl")
        );
        assert_eq!(
            log_path(
                Some(Path::new("run-%N-%T.jsonl")),
                Path::new("x"),
                "probe",
                Some("n1"),
                t
            ),
            Path::new("run-n1-20240601T080000Z.jsonl")
        );
    }
}
