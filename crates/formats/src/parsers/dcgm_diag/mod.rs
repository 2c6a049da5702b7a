//! `dcgmi diag` results — the JSON document (`-j`) or the table people
//! save from the terminal — as health evidence for a delivery check. Every
//! result (category, test, GPU, status, message) is kept in the run's
//! metadata as `dcgm_diag`; anything but a pass or a skip is also a warning
//! on the run, and a failure counts as a delivery problem.

mod json;
mod table;

pub(crate) use table::looks_like_rows;

use std::io::BufRead;

use serde_json::Value;

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;

#[derive(Debug, Clone, PartialEq)]
struct DiagResult {
    category: Option<String>,
    test: String,
    /// `None`: every GPU the test ran on.
    gpu: Option<String>,
    status: String,
    message: Option<String>,
}

pub fn parse<R: BufRead>(
    mut input: R,
    _ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let raw = read_document(&mut input, 64 << 20, "the dcgmi diag document")?;
    let (results, version, driver) = if raw.trim_start().starts_with('{') {
        let doc: Value = serde_json::from_str(&raw).map_err(|e| {
            ParseFailure::Line(LineError::new(
                e.line() as u64,
                Some(e.column()),
                format!("not valid JSON: {e}"),
            ))
        })?;
        let mut results = Vec::new();
        json::walk(&doc, None, &mut results);
        let version = [
            "/version",
            "/DCGM GPU Diagnostic/version",
            "/metadata/version",
        ]
        .iter()
        .find_map(|p| doc.pointer(p).and_then(json::text));
        let driver = doc
            .pointer("/DCGM GPU Diagnostic/Driver Version Detected")
            .and_then(json::text);
        (results, version, driver)
    } else {
        let t = table::read(&raw);
        (t.results, t.dcgm_version, t.driver_version)
    };
    if results.is_empty() {
        return Err(ParseFailure::Whole(
            "no diagnostic test results found (neither the dcgmi diag table nor its --json document)"
                .into(),
        ));
    }
    for r in &results {
        let status = r.status.to_ascii_lowercase();
        if !matches!(
            status.as_str(),
            "pass" | "passed" | "skip" | "skipped" | "not run"
        ) {
            b.warn(format!(
                "dcgmi diag: {} {} on {}{}",
                r.test,
                r.status,
                r.gpu
                    .as_deref()
                    .map_or("every GPU".to_string(), |g| format!("GPU {g}")),
                r.message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ));
        }
    }
    let json: Vec<Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "category": r.category, "test": r.test, "gpu": r.gpu,
                "status": r.status, "message": r.message,
            })
        })
        .collect();
    b.metadata.insert("dcgm_diag".into(), Value::Array(json));
    if let Some(version) = version {
        b.metadata
            .insert("dcgm_version".into(), Value::String(version));
    }
    if let Some(driver) = driver {
        b.metadata
            .insert("driver_version".into(), Value::String(driver));
    }
    b.metadata_records += results.len() as u64;
    Ok(())
}
