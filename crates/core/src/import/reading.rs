//! How a file was read — the options that shaped its run — kept with the
//! run, so that the same log offered again read another way replaces it.

use serde::Serialize;

use super::{Format, ImportOptions, zone_name};
use crate::store::Store;

/// A run of the same log, read with other options, that a new import took
/// the place of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replaced {
    pub run_id: i64,
    /// "tz UTC → Asia/Shanghai; start – → 2026-06-01T00:00:00Z"
    pub change: String,
}

/// The run metadata key for how a log was read (`reading`).
pub(super) const READ_WITH: &str = "read_with";

/// What the options said of how to read a file: a log imported again read
/// differently takes its earlier run's place.
pub(super) fn reading(options: &ImportOptions, format: Format) -> serde_json::Value {
    let zone = zone_name(&options.tz);
    serde_json::json!({
        "format": format.as_str(),
        "kind": options.kind.map(|k| k.to_string()),
        "tz": zone,
        "start": options.start.map(|t| t.to_string()),
        "interval_ms": options.interval_ms,
        "fields": options.fields,
        "skip_bad_lines": options.skip_bad_lines,
    })
}

/// How this import reads the earlier run's log differently, where it is of
/// the same platform and its reading is on record; `None` leaves it be.
pub(super) fn changed_reading(
    store: &Store,
    earlier_run: i64,
    options: &ImportOptions,
    format: Format,
) -> crate::Result<Option<String>> {
    let earlier = store.run(earlier_run)?;
    if earlier.platform_id != options.platform_id {
        return Ok(None);
    }
    let Some(serde_json::Value::Object(before)) = earlier.metadata.get(READ_WITH) else {
        return Ok(None);
    };
    let serde_json::Value::Object(now) = reading(options, format) else {
        return Ok(None);
    };
    let shown = |v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => "–".to_string(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    // The format is the file's own: forcing another one on the same bytes
    // is a slip, answered "already imported" as before, not a new run.
    let changes: Vec<String> = now
        .iter()
        .filter(|(k, _)| k.as_str() != "format")
        .filter(|(k, v)| before.get(k.as_str()).unwrap_or(&serde_json::Value::Null) != *v)
        .map(|(k, v)| format!("{k} {} → {}", shown(before.get(k.as_str())), shown(Some(v))))
        .collect();
    Ok((!changes.is_empty()).then(|| changes.join("; ")))
}
