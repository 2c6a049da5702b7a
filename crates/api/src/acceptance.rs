//! Verdicts of the acceptance checks, from the logs they wrote — the same
//! import and the same metrics as any evidence, so that what the instance
//! prints is what the workstation will score.

use std::path::Path;

use serde::Serialize;

use crate::domain::{Platform, PlatformKind, Run, SourceKind};
use crate::import::bundle::ChecklistItem;
use crate::import::{ImportError, ImportOptions, ImportOutcome, import_file};
use crate::metrics::stress::{self, StressFigures};
use crate::samples::Field;
use crate::store::Store;

/// Each GPU's stress figures in a probe log (read into a private store: the
/// log need not be imported anywhere yet).
pub fn stress_of_log(path: &Path) -> Result<Vec<(u32, StressFigures)>, ImportError> {
    let store = Store::open_in_memory()?;
    let platform = Platform::new("check", PlatformKind::Other, None).map_err(crate::Error::from)?;
    let platform = store.create_platform(&platform)?;
    let options = ImportOptions {
        source: SourceKind::Probe,
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform.id)
    };
    let ImportOutcome::Imported(report) = import_file(&store, path, &options, None)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for gpu in store.sample_gpus(report.run_id)? {
        let frame = store.read_samples(report.run_id, gpu, None, Some(&[Field::UtilGpuPct]))?;
        if let Some(f) = stress::judge(&frame) {
            out.push((gpu, f));
        }
    }
    Ok(out)
}

/// One acceptance run as it came in: the bundle's name, the host that made
/// it and when, the checklist the instance printed, and the runs imported
/// from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcceptanceSheet {
    pub file: Option<String>,
    pub host: Option<String>,
    pub created_at: Option<jiff::Timestamp>,
    pub checklist: Vec<ChecklistItem>,
    pub runs: Vec<i64>,
}

impl AcceptanceSheet {
    /// "acceptance-node-3.tar (node-3, 2026-06-01 08:00:00 UTC)".
    pub fn title(&self) -> String {
        format!(
            "{} ({}, {})",
            self.file.as_deref().unwrap_or("?"),
            self.host.as_deref().unwrap_or("?"),
            self.created_at.map_or("?".into(), crate::text::time_words)
        )
    }

    /// Checks that failed, of those with a verdict.
    pub fn failed(&self) -> usize {
        self.checklist
            .iter()
            .filter(|c| c.passed == Some(false))
            .count()
    }
}

/// The acceptance runs imported for a platform, oldest bundle first: one
/// sheet per bundle however many of its logs became runs.
pub fn checklists(store: &Store, platform_id: i64) -> crate::Result<Vec<AcceptanceSheet>> {
    Ok(checklists_in(&store.runs(Some(platform_id))?))
}

/// `checklists` of a platform whose runs are at hand.
pub fn checklists_in(runs: &[Run]) -> Vec<AcceptanceSheet> {
    let mut sheets: Vec<AcceptanceSheet> = Vec::new();
    for run in runs {
        let Some(b) = run.metadata.get("acceptance_bundle") else {
            continue;
        };
        let text = |k: &str| b.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let file = text("file");
        let host = text("host");
        let created_at = text("created_at").and_then(|t| t.parse().ok());
        if let Some(sheet) = sheets
            .iter_mut()
            .find(|s| s.file == file && s.host == host && s.created_at == created_at)
        {
            sheet.runs.push(run.id);
            continue;
        }
        let checklist: Vec<ChecklistItem> = b
            .get("checklist")
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default();
        sheets.push(AcceptanceSheet {
            file,
            host,
            created_at,
            checklist,
            runs: vec![run.id],
        });
    }
    sheets.sort_by_key(|s| s.created_at);
    sheets
}
