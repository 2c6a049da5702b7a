//! `audit.values.json`, what ClusterMAX's audit tool (`cmax audit`) writes:
//! `{"schema_version": 1, "runner": "audit", "cluster": {…}, "audit_data":
//! {…}}` (older files are the bare `audit_data`). The audit's collector
//! records checks as nested objects, each verdict either an object with a
//! `status` (`securityVersions.nvidiaDriver`: status, version, minimum,
//! advisory) or a status word (`networking.ibTenantIsolation: "pass"`);
//! everything else is a recorded fact its own rules judge when it reports.
//!
//! Kept as the audit wrote it (`CMAX_AUDIT`), dated at
//! `audit_data.audit.timestamp`: evidence for the categories Breakpoint
//! does not measure, never scored.

use std::io::BufRead;

use serde_json::{Map, Value};

use super::super::ParseContext;
use super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use crate::domain::audit::{Audit, AuditFact, AuditResult, AuditStatus, CMAX_AUDIT};
use crate::text::printable_excerpt;

/// A full audit is tens of KiB.
const LIMIT: u64 = 8 << 20;
/// Results and facts kept; an audit has a few hundred.
const MAX_ENTRIES: usize = 4000;
/// Nesting read; the collector's deepest is five.
const MAX_DEPTH: usize = 10;
/// A value or message shown, in characters.
const TEXT: usize = 160;
/// Keys read beside a status: what makes the verdict readable.
const DETAIL_KEYS: [&str; 5] = ["version", "minimum", "detail", "message", "advisory"];

/// Whether `text` is an audit's values (for detection).
pub(crate) fn is_cmax_audit(text: &str) -> bool {
    (text.contains("\"audit_data\"") && text.contains("\"runner\""))
        || (text.contains("\"audit\"")
            && (text.contains("\"securityVersions\"") || text.contains("\"healthChecks\"")))
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let doc: Value = super::read_json(input, LIMIT, "the cmax audit")?;
    let Value::Object(doc) = doc else {
        return Err(ParseFailure::Whole(
            "the cmax audit is not a JSON object".into(),
        ));
    };
    if let Some(version) = doc.get("schema_version")
        && version.as_u64() != Some(1)
    {
        return Err(ParseFailure::Whole(format!(
            "schema_version {version}: this reader knows cmax's version 1"
        )));
    }
    if let Some(runner) = doc.get("runner").and_then(Value::as_str)
        && runner != "audit"
    {
        return Err(ParseFailure::Whole(format!(
            "runner \"{}\": only an audit's values are read (runner \"audit\")",
            printable_excerpt(runner, 40)
        )));
    }
    let (cluster, data) = match doc.get("audit_data") {
        Some(Value::Object(data)) => (doc.get("cluster").and_then(Value::as_object), data),
        Some(_) => {
            return Err(ParseFailure::Whole("audit_data is not an object".into()));
        }
        None => (None, &doc),
    };
    let Some(Value::Object(about)) = data.get("audit") else {
        return Err(ParseFailure::Whole(
            "no audit_data.audit object: not a cmax audit's values".into(),
        ));
    };
    let text = |map: Option<&Map<String, Value>>, key: &str| {
        map.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(|s| printable_excerpt(s.trim(), 80))
    };
    let stamp = text(Some(about), "timestamp").or_else(|| text(cluster, "audited_at"));
    let audited_at = stamp
        .as_deref()
        .and_then(|s| s.parse::<jiff::Timestamp>().ok());
    match (&stamp, audited_at) {
        (_, Some(at)) => b.saw_time(at.as_millisecond()),
        (Some(s), None) => b.warn(format!(
            "audit_data.audit.timestamp \"{s}\" is no time: the audit is shown undated"
        )),
        (None, None) => b.warn("the audit states no time: it is shown undated"),
    }
    b.host = text(Some(about), "hostname");
    let mut audit = Audit {
        cluster: text(Some(about), "clusterName"),
        host: b.host.clone(),
        orchestrator: text(cluster, "orchestrator").or_else(|| text(Some(about), "type")),
        gpu: text(cluster, "gpu_model")
            .or_else(|| text(data.get("gpus").and_then(Value::as_object), "model")),
        audited_at,
        results: Vec::new(),
        facts: Vec::new(),
        left_out: 0,
    };
    for (key, value) in data {
        // Who, where and when: said above, not results.
        if matches!(key.as_str(), "audit" | "serverLocation") {
            continue;
        }
        walk(&mut audit, key, value, 1);
    }
    in_order(&mut audit);
    if audit.results.is_empty() && audit.facts.is_empty() {
        return Err(ParseFailure::Whole(
            "the cmax audit records no check".into(),
        ));
    }
    let needs_a_look = audit
        .results
        .iter()
        .filter(|r| r.status.needs_a_look())
        .count();
    b.warn(format!(
        "a cmax audit{}: {} results ({needs_a_look} to look at) and {} recorded facts, shown in the ClusterMAX categories (`breakpoint report --categories clustermax`), never scored",
        audit
            .cluster
            .as_deref()
            .map(|c| format!(" of {c}"))
            .unwrap_or_default(),
        audit.results.len(),
        audit.facts.len()
    ));
    if audit.left_out > 0 {
        b.warn(format!(
            "{} entries past {MAX_ENTRIES} (or nested deeper than {MAX_DEPTH}) left out",
            audit.left_out
        ));
    }
    b.metadata_records += (audit.results.len() + audit.facts.len()) as u64;
    b.metadata.insert(
        CMAX_AUDIT.into(),
        serde_json::to_value(&audit).map_err(|e| ParseFailure::Whole(e.to_string()))?,
    );
    Ok(())
}

fn walk(audit: &mut Audit, path: &str, value: &Value, depth: usize) {
    if audit.results.len() + audit.facts.len() >= MAX_ENTRIES || depth > MAX_DEPTH {
        audit.left_out += 1;
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(status) = map.get("status").and_then(Value::as_str) {
                let detail = detail(map);
                audit.results.push(AuditResult {
                    check: printable_excerpt(path, TEXT),
                    status: status_of(status),
                    detail,
                });
                return;
            }
            for (key, inner) in map {
                walk(audit, &format!("{path}.{key}"), inner, depth + 1);
            }
        }
        Value::Array(items) => {
            // Lists of devices and mounts: their size says enough.
            let scalars: Vec<String> = items.iter().filter_map(scalar).collect();
            let value = if scalars.len() == items.len() && scalars.len() <= 8 {
                format!("[{}]", scalars.join(", "))
            } else {
                format!("{} entries", items.len())
            };
            audit.facts.push(AuditFact {
                path: printable_excerpt(path, TEXT),
                value: printable_excerpt(&value, TEXT),
            });
        }
        _ => {
            let Some(text) = scalar(value) else {
                return;
            };
            // A status word is a verdict where the key says it is one, or
            // where it can be nothing else (`ibTenantIsolation: "pass"`).
            let last = path.rsplit('.').next().unwrap_or(path);
            let status = AuditStatus::read(&text).filter(|s| {
                last.to_ascii_lowercase().contains("status")
                    || matches!(
                        s,
                        AuditStatus::Pass | AuditStatus::Fail | AuditStatus::Warning
                    )
            });
            match status {
                Some(status) => audit.results.push(AuditResult {
                    check: printable_excerpt(path, TEXT),
                    status,
                    detail: String::new(),
                }),
                None => audit.facts.push(AuditFact {
                    path: printable_excerpt(path, TEXT),
                    value: printable_excerpt(&text, TEXT),
                }),
            }
        }
    }
}

/// Failures first, then by place: the same audit reads the same whatever
/// order its keys came in.
fn in_order(audit: &mut Audit) {
    audit
        .results
        .sort_by(|a, b| a.status.cmp(&b.status).then_with(|| a.check.cmp(&b.check)));
    audit.facts.sort_by(|a, b| a.path.cmp(&b.path));
}

fn status_of(word: &str) -> AuditStatus {
    AuditStatus::read(word).unwrap_or_else(|| {
        AuditStatus::Other(printable_excerpt(
            &word.trim().to_ascii_lowercase().replace(['-', ' '], "_"),
            40,
        ))
    })
}

/// "580.126.09, minimum 580.159.03 — Below the minimum version".
fn detail(map: &Map<String, Value>) -> String {
    let said = |key: &str| {
        map.get(key)
            .and_then(scalar)
            .filter(|s| !s.is_empty() && s != "unknown")
    };
    let mut parts = Vec::new();
    if let Some(v) = said("version") {
        parts.push(v);
    }
    if let Some(m) = said("minimum") {
        parts.push(format!("minimum {m}"));
    }
    let mut out = parts.join(", ");
    for key in &DETAIL_KEYS[2..] {
        if let Some(words) = said(key) {
            if !out.is_empty() {
                out.push_str(" — ");
            }
            out.push_str(&words);
            break;
        }
    }
    printable_excerpt(&out, TEXT)
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Null => Some("null".into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit_of(value: Value) -> Audit {
        let mut audit = Audit {
            cluster: None,
            host: None,
            orchestrator: None,
            gpu: None,
            audited_at: None,
            results: Vec::new(),
            facts: Vec::new(),
            left_out: 0,
        };
        if let Value::Object(map) = value {
            for (k, v) in &map {
                walk(&mut audit, k, v, 1);
            }
        }
        in_order(&mut audit);
        audit
    }

    #[test]
    fn verdicts_are_told_from_facts() {
        let audit = audit_of(serde_json::json!({
            "securityVersions": {"nvidiaDriver": {"status": "fail", "version": "580.126.09",
                "minimum": "580.159.03", "detail": "Below the minimum version"}},
            "security": {"januscape": {"status": "host-patch-required", "exposed": true}},
            "networking": {"ibTenantIsolation": "pass", "rdmaType": "infiniband"},
            "storage": {"rwxStatus": "not_applicable"},
            "containers": {"singularity": false, "devices": ["a", "b"]},
        }));
        let results: Vec<(&str, String, &str)> = audit
            .results
            .iter()
            .map(|r| (r.check.as_str(), r.status.word(), r.detail.as_str()))
            .collect();
        assert_eq!(
            results,
            [
                (
                    "securityVersions.nvidiaDriver",
                    "fail".to_string(),
                    "580.126.09, minimum 580.159.03 — Below the minimum version"
                ),
                ("security.januscape", "host patch required".to_string(), ""),
                ("networking.ibTenantIsolation", "pass".to_string(), ""),
                ("storage.rwxStatus", "not applicable".to_string(), ""),
            ]
        );
        let facts: Vec<(&str, &str)> = audit
            .facts
            .iter()
            .map(|f| (f.path.as_str(), f.value.as_str()))
            .collect();
        assert_eq!(
            facts,
            [
                ("containers.devices", "[a, b]"),
                ("containers.singularity", "false"),
                ("networking.rdmaType", "infiniband"),
            ]
        );
    }

    #[test]
    fn a_hostile_audit_is_bounded() {
        let mut deep = serde_json::json!("bottom");
        for _ in 0..50 {
            deep = serde_json::json!({ "k": deep });
        }
        let audit = audit_of(serde_json::json!({ "deep": deep }));
        assert!(audit.facts.is_empty() && audit.left_out == 1);
        let wide: Map<String, Value> = (0..10_000)
            .map(|i| (format!("k{i}"), Value::Bool(true)))
            .collect();
        let audit = audit_of(serde_json::json!({ "wide": wide }));
        assert_eq!(audit.facts.len(), MAX_ENTRIES);
        assert_eq!(audit.left_out, 10_000 - MAX_ENTRIES as u64);
    }
}
