//! Breakpoint's drift log (one JSON document): the reference operator
//! suite's outputs on this platform compared, operator by operator, with a
//! reference platform's, as `breakpoint accept drift` writes it.
//!
//! ```text
//! {"format":"breakpoint-drift","version":1,"compared_at":"2026-06-01T08:00:00Z",
//!  "tolerance":1e-4,"suite":"ops-1","seed":1,
//!  "reference":{"host":"lab-a100","framework":"torch 2.5.1","device":"cuda:0 (NVIDIA A100)","sha256":"…"},
//!  "subject":{"host":"node-3","framework":"torch 2.5.1","device":"npu:0 (Ascend910B)","sha256":"…"},
//!  "operators":[{"operator":"matmul","rel_l2":3.1e-7,"max_abs":2.4e-6,"passed":true},
//!               {"operator":"gru","passed":false,"note":"did not run: RuntimeError: …"}]}
//! ```
//!
//! The import keeps the comparison in the run's metadata (`drift`: both
//! sides and the tolerance; `operators`: each operator's figures); the
//! switch metrics read numeric drift and operator coverage from it.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use super::super::ParseContext;
use super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;

pub const DRIFT_FORMAT: &str = "breakpoint-drift";
pub const DRIFT_VERSION: u32 = 1;

/// Where one side of the comparison ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteSide {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub framework: String,
    pub device: String,
    /// SHA-256 of the outputs document compared.
    pub sha256: String,
}

/// One operator's outputs against the reference's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperatorDrift {
    pub operator: String,
    /// ‖out − ref‖ / ‖ref‖ over the whole output; absent when there was
    /// nothing to compare (the operator failed, shapes differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_l2: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_abs: Option<f64>,
    /// Ran, finite, and within the tolerance.
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An operator left out of the comparison, and why (the reference could
/// not run it: nothing to compare against).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotCompared {
    pub operator: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriftLog {
    pub format: String,
    pub version: u32,
    pub compared_at: jiff::Timestamp,
    pub tolerance: f64,
    pub suite: String,
    pub seed: u64,
    pub reference: SuiteSide,
    pub subject: SuiteSide,
    pub operators: Vec<OperatorDrift>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_compared: Vec<NotCompared>,
}

impl DriftLog {
    /// Operators that passed, and operators compared.
    pub fn coverage(&self) -> (usize, usize) {
        let passed = self.operators.iter().filter(|o| o.passed).count();
        (passed, self.operators.len())
    }

    /// The verdict in words, what failed first: "2 of 14 operators failed
    /// (gru: did not run; conv3d: rel. L2 3.2e-3 above 1e-4); worst rel. L2
    /// …, median …", or that every operator matched.
    pub fn summary(&self) -> String {
        let failed: Vec<String> = self
            .operators
            .iter()
            .filter(|o| !o.passed)
            .map(|o| match (o.rel_l2, &o.note) {
                (Some(e), _) => format!(
                    "{}: rel. L2 {e:.1e} above {:.0e}",
                    o.operator, self.tolerance
                ),
                (None, Some(note)) => format!("{}: {note}", o.operator),
                (None, None) => format!("{}: no output to compare", o.operator),
            })
            .collect();
        let figures = match self.drift() {
            Some((_, (_, worst))) if worst == 0.0 && failed.is_empty() => {
                return format!(
                    "none: every one of the {} operators equals the reference's output",
                    self.operators.len()
                );
            }
            Some((median, (worst, e))) => {
                format!("worst rel. L2 {e:.2e} ({worst}), median {median:.2e}")
            }
            None => "no operator could be compared".to_string(),
        };
        if failed.is_empty() {
            return format!("every operator within {:.0e}; {figures}", self.tolerance);
        }
        format!(
            "{} of {} operators failed ({}); {figures}",
            failed.len(),
            self.operators.len(),
            failed.join("; ")
        )
    }

    /// The median relative L2 error over the operators compared, and the
    /// worst operator with its error.
    pub fn drift(&self) -> Option<(f64, (&str, f64))> {
        let mut errors: Vec<f64> = self.operators.iter().filter_map(|o| o.rel_l2).collect();
        errors.sort_by(f64::total_cmp);
        let median = crate::stats::percentile(&errors, 0.5)?;
        let worst = self
            .operators
            .iter()
            .filter_map(|o| o.rel_l2.map(|e| (o.operator.as_str(), e)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        Some((median, worst))
    }
}

/// A drift log is a few kilobytes; anything near this is not one.
const DRIFT_LIMIT: u64 = 16 << 20;

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let text = read_document(input, DRIFT_LIMIT, "the drift log")?;
    let log: DriftLog = serde_json::from_str(&text).map_err(|e| {
        ParseFailure::Whole(format!(
            "line {}, column {}: not a drift log: {e}",
            e.line(),
            e.column()
        ))
    })?;
    if log.format != DRIFT_FORMAT || log.version != DRIFT_VERSION {
        return Err(ParseFailure::Whole(format!(
            "{} version {} is not a drift log this version reads ({DRIFT_FORMAT} {DRIFT_VERSION})",
            log.format, log.version
        )));
    }
    if !(log.tolerance.is_finite() && log.tolerance > 0.0) {
        return Err(ParseFailure::Whole(format!(
            "tolerance {} must be a positive number",
            log.tolerance
        )));
    }
    if log.operators.is_empty() {
        return Err(ParseFailure::Whole(
            "the drift log compares no operator".into(),
        ));
    }
    for o in &log.operators {
        for (what, v) in [("rel_l2", o.rel_l2), ("max_abs", o.max_abs)] {
            if v.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                return Err(ParseFailure::Whole(format!(
                    "operator {}: {what} must be a non-negative number",
                    o.operator
                )));
            }
        }
        if o.passed && o.rel_l2.is_none_or(|e| e > log.tolerance) {
            return Err(ParseFailure::Whole(format!(
                "operator {}: marked passed without an error within the tolerance {:e}",
                o.operator, log.tolerance
            )));
        }
    }
    b.saw_time(log.compared_at.as_millisecond());
    b.host = log.subject.host.clone();
    let (passed, total) = log.coverage();
    if passed < total {
        let failed: Vec<&str> = log
            .operators
            .iter()
            .filter(|o| !o.passed)
            .map(|o| o.operator.as_str())
            .collect();
        b.warn(format!(
            "{} of {total} operators failed against {} on {}: {}",
            total - passed,
            log.reference.framework,
            log.reference.device,
            failed.join(", ")
        ));
    }
    let to_value = |v: serde_json::Result<serde_json::Value>| {
        v.map_err(|e| ParseFailure::Whole(e.to_string()))
    };
    b.metadata.insert(
        "drift".into(),
        serde_json::json!({
            "tolerance": log.tolerance,
            "suite": log.suite,
            "seed": log.seed,
            "reference": to_value(serde_json::to_value(&log.reference))?,
            "subject": to_value(serde_json::to_value(&log.subject))?,
            "not_compared": to_value(serde_json::to_value(&log.not_compared))?,
        }),
    );
    b.metadata.insert(
        "operators".into(),
        to_value(serde_json::to_value(&log.operators))?,
    );
    b.metadata_records += log.operators.len() as u64;
    Ok(())
}
