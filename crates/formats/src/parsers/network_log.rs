//! Breakpoint's network log (JSON Lines): TCP connect times to the
//! endpoints a workload depends on (storage, registry, …), measured every
//! few seconds on the rented instance by `breakpoint accept network`.
//!
//! ```text
//! {"format":"breakpoint-network","version":1,"host":"node-3","interval_ms":5000,"targets":["10.0.0.5:443"]}
//! {"t":1717200000000,"target":"10.0.0.5:443","ms":1.84}
//! {"t":1717200005000,"target":"10.0.0.5:443","error":"timed out after 2000 ms"}
//! ```
//!
//! The import keeps, per target, the attempts, their connect-time p50 and
//! p95, the jitter (p95 − p50) and the share lost, in the run's metadata
//! (`network`); the sustain metrics take the worst target.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use crate::stats::percentile;

pub const NETWORK_FORMAT: &str = "breakpoint-network";
pub const NETWORK_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkHeader {
    pub format: String,
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub interval_ms: u32,
    pub targets: Vec<String>,
}

/// One connection attempt: its time, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkRecord {
    pub t: i64,
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one target's attempts add up to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetStats {
    pub target: String,
    pub attempts: u64,
    pub ok: u64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    /// p95 − p50 of the connect times: how far the slow tail sits from the
    /// usual.
    pub jitter_ms: Option<f64>,
    pub loss_pct: f64,
}

/// Each target's figures, in the order the records first name them.
pub fn stats_by_target(records: &[NetworkRecord]) -> Vec<TargetStats> {
    let mut targets: Vec<&str> = Vec::new();
    for r in records {
        if !targets.contains(&r.target.as_str()) {
            targets.push(&r.target);
        }
    }
    targets
        .into_iter()
        .map(|t| {
            let mine: Vec<&NetworkRecord> = records.iter().filter(|r| r.target == t).collect();
            target_stats(t, &mine)
        })
        .collect()
}

/// One target's figures from its attempts.
fn target_stats(target: &str, records: &[&NetworkRecord]) -> TargetStats {
    let mut times: Vec<f64> = records.iter().filter_map(|r| r.ms).collect();
    times.sort_by(f64::total_cmp);
    let attempts = records.len() as u64;
    let ok = times.len() as u64;
    let (p50, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));
    TargetStats {
        target: target.to_string(),
        attempts,
        ok,
        p50_ms: p50,
        p95_ms: p95,
        jitter_ms: p50.zip(p95).map(|(a, b)| b - a),
        loss_pct: if attempts == 0 {
            0.0
        } else {
            100.0 * (attempts - ok) as f64 / attempts as f64
        },
    }
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut header: Option<NetworkHeader> = None;
    let mut records: Vec<NetworkRecord> = Vec::new();
    while let Some(line) = lines.next_line()? {
        if line.text.trim().is_empty() {
            continue;
        }
        if header.is_none() {
            let h: NetworkHeader = serde_json::from_str(line.text).map_err(|e| {
                LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a network log header: {e}"),
                )
            })?;
            if h.format != NETWORK_FORMAT || h.version != NETWORK_VERSION {
                return Err(ParseFailure::Line(LineError::new(
                    line.number,
                    None,
                    format!(
                        "{} version {} is not a network log this version reads ({NETWORK_FORMAT} {NETWORK_VERSION})",
                        h.format, h.version
                    ),
                )));
            }
            b.host = h.host.clone();
            b.interval_ms = Some(h.interval_ms);
            header = Some(h);
            continue;
        }
        match serde_json::from_str::<NetworkRecord>(line.text) {
            Ok(r) if r.ms.is_some_and(|ms| !(ms.is_finite() && ms >= 0.0)) => b.bad_line(
                &line,
                LineError::new(line.number, None, "ms must be a duration"),
            )?,
            Ok(r) if r.ms.is_none() && r.error.is_none() => b.bad_line(
                &line,
                LineError::new(line.number, None, "an attempt has either ms or error"),
            )?,
            Ok(r) => {
                b.saw_time(r.t);
                records.push(r);
            }
            Err(e) => b.bad_line(
                &line,
                LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a network record: {e}"),
                ),
            )?,
        }
    }
    let Some(header) = header else {
        return Err(ParseFailure::Whole("an empty network log".into()));
    };
    if records.is_empty() {
        return Err(ParseFailure::Whole(
            "the network log holds no attempt (stopped before the first round?)".into(),
        ));
    }
    let stats = stats_by_target(&records);
    for t in &header.targets {
        if !stats.iter().any(|s| &s.target == t) {
            b.warn(format!("{t}: named in the header but never attempted"));
        }
    }
    for s in &stats {
        if s.loss_pct > 0.0 {
            b.warn(format!(
                "{}: {} of {} connections failed ({:.1} %)",
                s.target,
                s.attempts - s.ok,
                s.attempts,
                s.loss_pct
            ));
        }
    }
    b.metadata.insert(
        "network".into(),
        serde_json::to_value(&stats).map_err(|e| ParseFailure::Whole(e.to_string()))?,
    );
    b.metadata_records += records.len() as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_and_loss_per_target() {
        let r = |ms: Option<f64>| NetworkRecord {
            t: 0,
            target: "a".into(),
            ms,
            error: ms.is_none().then(|| "refused".into()),
        };
        let records: Vec<NetworkRecord> = (1..=19)
            .map(|i| r(Some(f64::from(i))))
            .chain([r(None)])
            .collect();
        let refs: Vec<&NetworkRecord> = records.iter().collect();
        let s = target_stats("a", &refs);
        assert_eq!((s.attempts, s.ok), (20, 19));
        assert_eq!(s.p50_ms, Some(10.0));
        assert!((s.p95_ms.unwrap_or(0.0) - 18.1).abs() < 1e-9);
        assert!((s.jitter_ms.unwrap_or(0.0) - 8.1).abs() < 1e-9);
        assert_eq!(s.loss_pct, 5.0);
    }

    #[test]
    fn targets_keep_the_order_the_records_first_name_them() {
        let r = |target: &str, ms: Option<f64>| NetworkRecord {
            t: 0,
            target: target.into(),
            ms,
            error: ms.is_none().then(|| "refused".into()),
        };
        let records = [
            r("pypi.org:443", Some(30.0)),
            r("github.com:443", None),
            r("pypi.org:443", Some(10.0)),
            r("github.com:443", Some(50.0)),
        ];
        let stats = stats_by_target(&records);
        let names: Vec<&str> = stats.iter().map(|s| s.target.as_str()).collect();
        assert_eq!(names, ["pypi.org:443", "github.com:443"]);
        assert_eq!((stats[0].attempts, stats[0].p50_ms), (2, Some(20.0)));
        assert_eq!((stats[1].ok, stats[1].loss_pct), (1, 50.0));
    }
}
