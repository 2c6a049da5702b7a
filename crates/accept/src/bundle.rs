//! Writing an acceptance bundle: the checks' logs and a manifest (each
//! entry's check, size and SHA-256) in one tar file, the manifest first.
//! `breakpoint import BUNDLE` reads it back whole or not at all.

use breakpoint_destination::{Destination, WriteError};

use breakpoint_core::archive::{self, sha256_hex};
use breakpoint_core::import::bundle::{
    BUNDLE_FORMAT, BUNDLE_VERSION, ChecklistItem, Manifest, ManifestEntry,
};

/// One log for the bundle.
pub struct Log {
    pub name: String,
    pub check: String,
    pub bytes: Vec<u8>,
}

/// Write the bundle atomically (a temporary file renamed into place): a
/// bundle is never seen half-written.
pub fn write(
    destination: &Destination,
    host: Option<String>,
    logs: &[Log],
    checklist: Vec<ChecklistItem>,
) -> Result<Manifest, WriteError> {
    let manifest = Manifest {
        format: BUNDLE_FORMAT.into(),
        version: BUNDLE_VERSION,
        host,
        created_at: jiff::Timestamp::now(),
        entries: logs
            .iter()
            .map(|l| ManifestEntry {
                name: l.name.clone(),
                check: l.check.clone(),
                bytes: l.bytes.len() as u64,
                sha256: sha256_hex(&l.bytes),
            })
            .collect(),
        checklist,
    };
    let mtime = manifest.created_at.as_second().max(0) as u64;
    let entries: Vec<(&str, &[u8])> = logs
        .iter()
        .map(|l| (l.name.as_str(), l.bytes.as_slice()))
        .collect();
    archive::write(destination, &manifest, &entries, mtime)?;
    Ok(manifest)
}
