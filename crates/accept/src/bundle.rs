//! Writing an acceptance bundle: the checks' logs and a manifest (each
//! entry's check, size and SHA-256) in one tar file, the manifest first.
//! `breakpoint import BUNDLE` reads it back whole or not at all.

use std::path::Path;

use breakpoint_core::import::bundle::{
    BUNDLE_FORMAT, BUNDLE_VERSION, ChecklistItem, MANIFEST, Manifest, ManifestEntry, sha256_hex,
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
        let mut add = |name: &str, bytes: &[u8]| -> std::io::Result<()> {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_mtime(manifest.created_at.as_second().max(0) as u64);
            header.set_cksum();
            tar.append_data(&mut header, name, bytes)
        };
        let json = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
        add(MANIFEST, &json)?;
        for l in logs {
            add(&l.name, &l.bytes)?;
        }
        tar.into_inner()?.sync_all()?;
    }
    std::fs::rename(&temp, path)?;
    Ok(manifest)
}
