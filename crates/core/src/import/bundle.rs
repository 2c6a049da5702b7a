//! Acceptance bundles: the logs an acceptance run wrote on the instance, in
//! one tar file with a manifest first (each entry's check, size and
//! SHA-256). Imported whole or not at all: every entry is checked against
//! the manifest before anything is stored, then all are imported in one
//! transaction, each deduplicated like any log.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ImportError, ImportOptions, ImportOutcome, detect, import_reader};
use crate::archive::{self, sha256_hex};
use crate::store::Store;

pub const BUNDLE_FORMAT: &str = "breakpoint-acceptance";
pub const BUNDLE_VERSION: u32 = 1;
pub use crate::archive::MANIFEST;
/// No single log in a bundle may be larger (a week of 1 Hz samples on 8
/// GPUs is well under it).
const ENTRY_LIMIT: u64 = 1 << 30;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub created_at: jiff::Timestamp,
    pub entries: Vec<ManifestEntry>,
    /// The checklist as the instance printed it: each check's figure, the
    /// seed's threshold, pass or fail.
    #[serde(default)]
    pub checklist: Vec<ChecklistItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub name: String,
    /// network, stress, billing-probe, failover …
    pub check: String,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChecklistItem {
    pub check: String,
    pub measured: String,
    pub threshold: String,
    /// `None`: measured, nothing to pass or fail.
    pub passed: Option<bool>,
}

/// A checklist's verdict in one line, what failed first: "2 of 6 checks
/// failed: failover drill, numeric drift" or "all 5 checks passed".
pub fn checklist_verdict(checklist: &[ChecklistItem]) -> String {
    let judged = checklist.iter().filter(|c| c.passed.is_some()).count();
    let failed: Vec<&str> = checklist
        .iter()
        .filter(|c| c.passed == Some(false))
        .map(|c| c.check.as_str())
        .collect();
    if failed.is_empty() {
        match judged {
            0 => "nothing to pass or fail".to_string(),
            1 => "the one check passed".to_string(),
            n => format!("all {n} checks passed"),
        }
    } else {
        format!(
            "{} of {judged} checks failed: {}",
            failed.len(),
            failed.join(", ")
        )
    }
}

/// Whether a file is a bundle: a tar whose first entry is the manifest.
pub fn is_bundle(path: &Path) -> bool {
    archive::is_manifest_first(path)
}

/// A log of a bundle, with its manifest entry.
type BundledLog = (ManifestEntry, Vec<u8>);

/// Every log of the bundle, checked against the manifest.
fn read(path: &Path, shown: &str) -> Result<(Manifest, Vec<BundledLog>), ImportError> {
    let refuse = |reason: String| ImportError::file(shown, &reason);
    let file = std::fs::File::open(path).map_err(|e| refuse(format!("cannot open: {e}")))?;
    let mut archive = tar::Archive::new(file);
    let mut entries = archive::Entries::of(&mut archive).map_err(refuse)?;
    let manifest: Manifest = entries.manifest(ENTRY_LIMIT, "bundle").map_err(refuse)?;
    if manifest.format != BUNDLE_FORMAT || manifest.version > BUNDLE_VERSION {
        return Err(refuse(format!(
            "{} version {} is not a bundle this version of Breakpoint reads ({BUNDLE_FORMAT} {BUNDLE_VERSION}): update Breakpoint",
            manifest.format, manifest.version
        )));
    }
    let mut logs = Vec::new();
    for expected in &manifest.entries {
        let entry = entries.expect(&expected.name).map_err(refuse)?;
        let bytes = archive::read_whole(entry, &expected.name, ENTRY_LIMIT).map_err(refuse)?;
        if bytes.len() as u64 != expected.bytes || sha256_hex(&bytes) != expected.sha256 {
            return Err(refuse(format!(
                "{} does not match the manifest (size or SHA-256): the bundle was changed or damaged",
                expected.name
            )));
        }
        logs.push((expected.clone(), bytes));
    }
    Ok((manifest, logs))
}

/// Import every log of a bundle, all or nothing; one outcome per entry.
pub fn import_bundle(
    store: &Store,
    path: &Path,
    options: &ImportOptions,
) -> Result<(Manifest, Vec<ImportOutcome>), ImportError> {
    let shown = path.display().to_string();
    let (manifest, logs) = read(path, &shown)?;
    // Each run remembers the bundle it came in, with the checklist the
    // instance printed: what the report's acceptance page shows.
    let mut options = options.clone();
    options.extra_metadata.insert(
        "acceptance_bundle".into(),
        serde_json::json!({
            "file": path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "host": manifest.host,
            "created_at": manifest.created_at,
            "checklist": manifest.checklist,
        }),
    );
    let options = &options;
    let outcomes = store.atomically(|store| -> Result<Vec<ImportOutcome>, ImportError> {
        let mut out = Vec::new();
        for (entry, bytes) in &logs {
            let named = format!("{shown}:{}", entry.name);
            let format = detect(&bytes[..bytes.len().min(64 << 10)])
                .map_err(|reason| ImportError::file(&named, &reason))?;
            out.push(import_reader(
                store,
                &bytes[..],
                &named,
                format,
                options,
                None,
            )?);
        }
        Ok(out)
    })?;
    Ok((manifest, outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(check: &str, passed: Option<bool>) -> ChecklistItem {
        ChecklistItem {
            check: check.into(),
            measured: String::new(),
            threshold: String::new(),
            passed,
        }
    }

    #[test]
    fn a_checklist_verdict_names_what_failed() {
        let list = [
            item("stress stability", Some(true)),
            item("billing probe", None),
            item("failover drill", Some(false)),
            item("numeric drift", Some(false)),
        ];
        assert_eq!(
            checklist_verdict(&list),
            "2 of 3 checks failed: failover drill, numeric drift"
        );
        assert_eq!(checklist_verdict(&list[..2]), "the one check passed");
        assert_eq!(checklist_verdict(&list[1..2]), "nothing to pass or fail");
    }
}
