//! Manifest-first archives, and the SHA-256 that names their contents.
//!
//! The acceptance bundle and the workspace bundle are both a tar whose
//! first entry is `manifest.json`, naming every other entry with its size
//! and SHA-256. Writing one (whole, through a temporary file), reading its
//! entries in order with each refusal in words, and hashing live here once;
//! each bundle keeps only what its manifest says.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

/// The manifest's name: the first entry of every bundle.
pub const MANIFEST: &str = "manifest.json";

/// SHA-256 of `bytes`, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Bytes (a digest) as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Write a manifest-first archive to `path` whole (a temporary file renamed
/// into place, so it is never seen half-written): the manifest, then the
/// entries in the order given, every one with plain permissions and the
/// same time, so the same contents give the same bytes.
pub fn write(
    destination: &breakpoint_destination::Destination,
    manifest: &impl serde::Serialize,
    entries: &[(&str, &[u8])],
    mtime_s: u64,
) -> Result<(), breakpoint_destination::WriteError> {
    let json =
        serde_json::to_vec_pretty(manifest).map_err(|e| breakpoint_destination::WriteError {
            path: destination.path().to_path_buf(),
            source: std::io::Error::other(e),
        })?;
    destination.write_with(|file| {
        let mut tar = tar::Builder::new(file);
        append_entry(&mut tar, MANIFEST, &json, mtime_s)?;
        for (name, bytes) in entries {
            append_entry(&mut tar, name, bytes, mtime_s)?;
        }
        tar.into_inner().map(|_| ())
    })
}

fn append_entry<W: Write>(
    tar: &mut tar::Builder<W>,
    name: &str,
    bytes: &[u8],
    mtime_s: u64,
) -> std::io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(mtime_s);
    header.set_cksum();
    tar.append_data(&mut header, name, bytes)
}

/// Whether a file is a manifest-first archive (its first entry's name).
pub fn is_manifest_first(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut archive = tar::Archive::new(file);
    let Ok(mut entries) = archive.entries() else {
        return false;
    };
    entries
        .next()
        .and_then(Result::ok)
        .and_then(|e| e.path().ok().map(|p| p.as_os_str() == MANIFEST))
        .unwrap_or(false)
}

/// An archive's entries as they are read, each step refused in words
/// (the caller names the file).
pub struct Entries<'a> {
    entries: tar::Entries<'a, File>,
}

pub type Entry<'a> = tar::Entry<'a, File>;

impl<'a> Entries<'a> {
    /// The entries of an opened archive.
    pub fn of(archive: &'a mut tar::Archive<File>) -> Result<Self, String> {
        let entries = archive
            .entries()
            .map_err(|e| format!("not a bundle: {e}"))?;
        Ok(Self { entries })
    }

    /// The next entry, `what` naming what was expected there; `None` at the
    /// archive's end.
    pub fn next(&mut self, what: &str) -> Result<Option<(String, Entry<'a>)>, String> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        let entry = entry.map_err(|e| format!("cut off or damaged at {what}: {e}"))?;
        let name = entry
            .path()
            .map_err(|e| format!("a bad entry name at {what}: {e}"))?
            .to_string_lossy()
            .into_owned();
        Ok(Some((name, entry)))
    }

    /// The next entry, which must be there and be called `name`.
    pub fn expect(&mut self, name: &str) -> Result<Entry<'a>, String> {
        let (found, entry) = self
            .next(name)?
            .ok_or_else(|| format!("{name} is missing: the bundle is cut off"))?;
        if found != name {
            return Err(format!(
                "found an entry named {found} where the manifest lists {name}: refused"
            ));
        }
        Ok(entry)
    }

    /// The manifest, which must come first, read whole (at most `limit`
    /// bytes) and parsed; `kind` says what manifest it should be.
    pub fn manifest<M: serde::de::DeserializeOwned>(
        &mut self,
        limit: u64,
        kind: &str,
    ) -> Result<M, String> {
        let (name, entry) = self
            .next("the manifest")?
            .ok_or_else(|| "an empty bundle".to_string())?;
        if name != MANIFEST {
            return Err(format!(
                "the first entry is {name}, not {MANIFEST}: not a {kind}"
            ));
        }
        let bytes = read_whole(entry, &name, limit)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("{MANIFEST} is not a {kind} manifest: {e}"))
    }

    /// Refuse an entry the manifest did not list.
    pub fn end(&mut self) -> Result<(), String> {
        match self.entries.next() {
            None => Ok(()),
            Some(extra) => {
                let name = extra
                    .ok()
                    .and_then(|e| e.path().ok().map(|p| p.to_string_lossy().into_owned()))
                    .unwrap_or_else(|| "a damaged entry".into());
                Err(format!(
                    "{name}: an entry the manifest does not list: refused"
                ))
            }
        }
    }
}

/// An entry's bytes, refused before reading when it says it is larger
/// than `limit`, and when it ends before its stated size.
pub fn read_whole(mut entry: Entry<'_>, name: &str, limit: u64) -> Result<Vec<u8>, String> {
    if entry.size() > limit {
        return Err(format!("{name} is larger than {}", size_text(limit)));
    }
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    entry
        .by_ref()
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name} is cut off: {e}"))?;
    if (bytes.len() as u64) < entry.size() {
        return Err(format!("{name} is cut off"));
    }
    Ok(bytes)
}

/// "1 GiB", "64 MiB", "1000 bytes".
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

/// Copy an entry to `out`, hashing it on the way: its SHA-256 as hex,
/// refused when it ends before `expected_bytes`.
pub fn copy_hashed(
    entry: &mut Entry<'_>,
    name: &str,
    expected_bytes: u64,
    out: &mut impl Write,
) -> Result<String, String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut read = 0u64;
    loop {
        let n = entry
            .read(&mut buf)
            .map_err(|e| format!("{name} is cut off: {e}"))?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| format!("cannot unpack {name}: {e}"))?;
    }
    if read != expected_bytes {
        return Err(format!(
            "{name} is cut off: {read} of its {expected_bytes} bytes"
        ));
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn at(path: &Path) -> breakpoint_destination::Destination {
        breakpoint_destination::Destination::check(path, &Default::default(), false).unwrap()
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct M {
        entries: Vec<String>,
    }

    #[test]
    fn an_archive_reads_back_manifest_first_and_refuses_what_it_does_not_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.tar");
        let manifest = M {
            entries: vec!["a.log".into()],
        };
        write(&at(&path), &manifest, &[("a.log", b"hello")], 0).unwrap();
        assert!(is_manifest_first(&path));
        let mut archive = tar::Archive::new(File::open(&path).unwrap());
        let mut entries = Entries::of(&mut archive).unwrap();
        assert_eq!(entries.manifest::<M>(1 << 20, "test").unwrap(), manifest);
        let entry = entries.expect("a.log").unwrap();
        assert_eq!(read_whole(entry, "a.log", 100).unwrap(), b"hello");
        entries.end().unwrap();

        write(
            &at(&path),
            &manifest,
            &[("a.log", b"hello"), ("evil.sh", b"x")],
            0,
        )
        .unwrap();
        let mut archive = tar::Archive::new(File::open(&path).unwrap());
        let mut entries = Entries::of(&mut archive).unwrap();
        entries.manifest::<M>(1 << 20, "test").unwrap();
        let mut entry = entries.expect("a.log").unwrap();
        let mut out = Vec::new();
        assert_eq!(
            copy_hashed(&mut entry, "a.log", 5, &mut out).unwrap(),
            sha256_hex(b"hello")
        );
        assert_eq!(
            entries.end().unwrap_err(),
            "evil.sh: an entry the manifest does not list: refused"
        );
    }

    #[test]
    fn hex_is_lowercase_and_whole() {
        assert_eq!(hex(&[0, 15, 255]), "000fff");
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
