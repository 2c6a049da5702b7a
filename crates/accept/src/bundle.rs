//! Writing an acceptance bundle: the checks' logs and a manifest (each
//! entry's check, size and SHA-256) in one tar file, the manifest first.
//! `breakpoint import BUNDLE` reads it back whole or not at all.

use std::path::Path;

use breakpoint_core::import::bundle::{
    BUNDLE_FORMAT, BUNDLE_VERSION, ChecklistItem, MANIFEST, Manifest, ManifestEntry, append_entry,
    sha256_hex,
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
    path: &Path,
    host: Option<String>,
    logs: &[Log],
    checklist: Vec<ChecklistItem>,
) -> std::io::Result<Manifest> {
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
    let temp = path.with_extension("tar.partial");
    {
        let file = std::fs::File::create(&temp)?;
        let mut tar = tar::Builder::new(file);
        let mtime = manifest.created_at.as_second().max(0) as u64;
        let json = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
        append_entry(&mut tar, MANIFEST, &json, mtime)?;
        for l in logs {
            append_entry(&mut tar, &l.name, &l.bytes, mtime)?;
        }
        tar.into_inner()?.sync_all()?;
    }
    std::fs::rename(&temp, path)?;
    Ok(manifest)
}
