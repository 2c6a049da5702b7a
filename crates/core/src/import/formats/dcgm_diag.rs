//! `dcgmi diag --json` results: health evidence for a delivery check. The
//! JSON layout differs between DCGM generations (results per test with
//! `gpu_ids` or `gpu_id`, `info`/`warnings`/`error` details), so the document
//! is walked for test objects — a `name` with a `results` list — wherever
//! they sit. Every result is kept in the run's metadata; anything but a pass
//! or a skip is also a warning on the run.

use std::io::BufRead;

use serde_json::Value;

use super::super::ParseContext;
use super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;

#[derive(Debug, Clone, PartialEq)]
struct DiagResult {
    category: Option<String>,
    test: String,
    gpu: Option<String>,
    status: String,
    message: Option<String>,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(text).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(o) => o
            .get("message")
            .or_else(|| o.get("msg"))
            .or_else(|| o.get("warning"))
            .and_then(text),
        _ => None,
    }
}

fn walk(v: &Value, category: Option<&str>, out: &mut Vec<DiagResult>) {
    match v {
        Value::Object(o) => {
            let category = o.get("category").and_then(Value::as_str).or(category);
            if let (Some(name), Some(Value::Array(results))) =
                (o.get("name").and_then(Value::as_str), o.get("results"))
            {
                for r in results {
                    let status = r
                        .get("status")
                        .and_then(text)
                        .unwrap_or_else(|| "unknown".into());
                    let gpu = r
                        .get("gpu_ids")
                        .or_else(|| r.get("gpu_id"))
                        .or_else(|| r.get("entity_id"))
                        .and_then(text);
                    let message = ["info", "warnings", "warning", "error", "errors"]
                        .iter()
                        .find_map(|k| r.get(*k).and_then(text))
                        .filter(|m| !m.is_empty());
                    out.push(DiagResult {
                        category: category.map(String::from),
                        test: name.to_string(),
                        gpu,
                        status,
                        message,
                    });
                }
                return;
            }
            for child in o.values() {
                walk(child, category, out);
            }
        }
        Value::Array(a) => {
            for child in a {
                walk(child, category, out);
            }
        }
        _ => {}
    }
}

pub fn parse<R: BufRead>(
    mut input: R,
    _ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let raw = read_document(&mut input, 64 << 20, "the dcgmi diag document")?;
    let doc: Value = serde_json::from_str(&raw).map_err(|e| {
        ParseFailure::Line(super::super::builder::LineError::new(
            e.line() as u64,
            Some(e.column()),
            format!("not valid JSON: {e}"),
        ))
    })?;
    let mut results = Vec::new();
    walk(&doc, None, &mut results);
    if results.is_empty() {
        return Err(ParseFailure::Whole(
            "no diagnostic test results found in the dcgmi diag JSON".into(),
        ));
    }
    for r in &results {
        let status = r.status.to_ascii_lowercase();
        if !matches!(
            status.as_str(),
            "pass" | "passed" | "skip" | "skipped" | "not run"
        ) {
            b.warn(format!(
                "dcgmi diag: {} {} on GPU {}{}",
                r.test,
                r.status,
                r.gpu.as_deref().unwrap_or("?"),
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
    if let Some(version) = doc.pointer("/version").and_then(text) {
        b.metadata
            .insert("dcgm_version".into(), Value::String(version));
    }
    b.records += results.len() as u64;
    Ok(())
}
