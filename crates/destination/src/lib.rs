//! Files the user names for Breakpoint to write: reports, bundles, dispute
//! sheets, suites written out as scripts, check logs, a workload's output.
//! Every one goes through here, and a test fails on a write anywhere else
//! (`every_write_goes_through_the_destination_module` below).
//!
//! Never the workspace (its database, the files SQLite keeps beside it, its
//! campaign ledger and lock); never a folder; never a link, a device, a pipe
//! or a socket unless the user says `--force`. A file written at once is
//! written beside the target under a fresh name, synced, then renamed over
//! it, so that whoever opens the path sees the old file or the whole new
//! one; a log that grows while it is written (the probe's) is created new
//! and never replaces anything.

use std::io::Write;
use std::path::{Path, PathBuf};

use breakpoint_model::ValidationError;

/// The workspaces an output must never replace: the open one, and any other
/// the user keeps (the default one, the demo's) when the command runs
/// without opening one.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    databases: Vec<PathBuf>,
}

impl Protected {
    /// The workspace whose database is at `db`.
    pub fn workspace(db: &Path) -> Self {
        Self::default().and(db)
    }

    /// This one too.
    pub fn and(mut self, db: &Path) -> Self {
        // An in-memory store has no file to protect.
        if !db.as_os_str().is_empty() && db != Path::new(":memory:") {
            self.databases.push(db.to_path_buf());
        }
        self
    }

    fn files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.databases.iter().flat_map(|db| workspace_files(db))
    }
}

/// A file the user named for an output, checked (see [`Destination::check`]).
#[derive(Debug, Clone)]
pub struct Destination {
    path: PathBuf,
}

/// An output that could not be written; the message names the file.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write: {source}", breakpoint_model::text::printable(&path.display().to_string()))]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl Destination {
    /// Whether `path` may be written as an output: never one of the
    /// `protected` workspaces' files or a folder; `force` allows replacing
    /// what is not a plain file (a link, a device, a pipe).
    pub fn check(path: &Path, protected: &Protected, force: bool) -> Result<Self, ValidationError> {
        let refuse = |why: String| {
            ValidationError::new(
                "output",
                format!(
                    "{}: {why}",
                    breakpoint_model::text::printable(&path.display().to_string())
                ),
            )
        };
        if path.as_os_str().is_empty() {
            return Err(ValidationError::new("output", "an empty file name"));
        }
        if protected.files().any(|own| same_file(path, &own)) {
            return Err(refuse(
                "is the workspace (its database or a file beside it); writing there would destroy it: refused".into(),
            ));
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            // Nothing there yet: a new file.
            return Ok(Self {
                path: path.to_path_buf(),
            });
        };
        let kind = meta.file_type();
        if kind.is_dir() {
            return Err(refuse(
                "is a folder; name a file in it (…/report.pdf)".into(),
            ));
        }
        if kind.is_file() || force {
            return Ok(Self {
                path: path.to_path_buf(),
            });
        }
        let what = if kind.is_symlink() {
            "a symbolic link (the link itself would be replaced by a file)"
        } else {
            special_kind(&kind)
        };
        Err(refuse(format!(
            "is {what}, not a plain file: refused; --force replaces it"
        )))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn failed(&self, source: std::io::Error) -> WriteError {
        WriteError {
            path: self.path.clone(),
            source,
        }
    }

    /// Write `bytes` whole (beside, synced, renamed over the target).
    pub fn write(&self, bytes: &[u8]) -> Result<(), WriteError> {
        write_atomically(&self.path, bytes).map_err(|e| self.failed(e))
    }

    /// Write through `fill` whole (see [`write_with`]).
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), WriteError> {
        write_with(&self.path, fill).map_err(|e| self.failed(e))
    }

    /// A log that is read while it grows (the probe's, a workload's
    /// output): created new, so it replaces nothing, and a link planted
    /// under its name is not followed.
    pub fn create_new(&self) -> Result<std::fs::File, WriteError> {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.path)
            .map_err(|e| self.failed(e))
    }

    /// A file written piece by piece that takes the target's place only
    /// when [`Stream::finish`] is called: a check's table written as it
    /// measures. A crash leaves the target as it was and the pieces in a
    /// scratch file of the program's own beside it (see [`scratch_beside`]).
    pub fn stream(&self) -> Result<Stream, WriteError> {
        let scratch = scratch_beside(&self.path).map_err(|e| self.failed(e))?;
        Ok(Stream {
            scratch,
            target: self.clone(),
        })
    }
}

/// See [`Destination::stream`].
#[derive(Debug)]
pub struct Stream {
    /// Removed when dropped unfinished (an error, a panic unwinding).
    scratch: tempfile::NamedTempFile,
    target: Destination,
}

impl Stream {
    pub fn file(&mut self) -> &mut std::fs::File {
        self.scratch.as_file_mut()
    }

    /// Sync what was written and put it in the target's place.
    pub fn finish(self) -> Result<(), WriteError> {
        let Stream { scratch, target } = self;
        scratch.as_file().sync_all().map_err(|e| target.failed(e))?;
        scratch
            .persist(&target.path)
            .map(drop)
            .map_err(|e| target.failed(e.error))
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.scratch.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.scratch.flush()
    }
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a plain file"
    }
}

#[cfg(not(unix))]
fn special_kind(_kind: &std::fs::FileType) -> &'static str {
    "not a plain file"
}

/// The workspace database and every file SQLite and Breakpoint keep beside
/// it.
fn workspace_files(db: &Path) -> Vec<PathBuf> {
    let beside = |suffix: &str| {
        let mut name = db.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        db.with_file_name(name)
    };
    vec![
        db.to_path_buf(),
        beside("-wal"),
        beside("-shm"),
        beside("-journal"),
        beside(".campaigns.jsonl"),
        beside(".campaigns.lock"),
    ]
}

/// Whether two paths name one file: the same device and inode where both
/// exist (links and other spellings included), else the same absolute path.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    let absolute = |p: &Path| {
        p.parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| Path::new(".").canonicalize(), Path::canonicalize)
            .map(|dir| dir.join(p.file_name().unwrap_or_default()))
    };
    matches!((absolute(a), absolute(b)), (Ok(x), Ok(y)) if x == y)
}

/// Write `bytes` to `path` whole (see [`write_with`]).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |f| f.write_all(bytes))
}

/// Write through `fill` beside `path` under a fresh name, flush to disk,
/// then rename over `path`: a crash or a full disk leaves the old file (and
/// at most a scratch file of the program's own beside it, after a kill),
/// never half of the new one.
fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut scratch = scratch_beside(path)?;
    fill(scratch.as_file_mut())?;
    scratch.as_file().sync_all()?;
    // On an error the scratch file is dropped, and with it removed.
    scratch.persist(path).map(drop).map_err(|e| e.error)
}

/// A scratch file beside `path` under a name no one else holds:
/// `.report.pdf.a8Zk2q.partial`, created new (`O_EXCL`), so that no file
/// the program did not create — a user's `report.pdf.partial`, the
/// workspace itself, a link planted anywhere — is ever opened, replaced or
/// removed. Its permissions are those of a new file (the umask's), not a
/// scratch file's 0600, since it becomes the user's output. Dropped, it is
/// removed; only a killed process leaves it behind, and nothing later
/// removes it either: the name says what it is.
fn scratch_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".partial").rand_bytes(6);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_workspace_folders_and_special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("work.db");
        std::fs::write(&db, b"db").unwrap();
        std::fs::write(dir.path().join("work.db-wal"), b"wal").unwrap();
        let protected = Protected::workspace(&db);
        let check = |p: &Path, force: bool| {
            Destination::check(p, &protected, force)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        // The database under any name, its files beside it, forced or not.
        for p in [
            db.clone(),
            dir.path().join(".").join("work.db"),
            dir.path().join("work.db-wal"),
            dir.path().join("work.db-shm"),
            dir.path().join("work.db.campaigns.jsonl"),
        ] {
            let e = check(&p, true).unwrap_err();
            assert!(e.contains("is the workspace"), "{e}");
        }
        #[cfg(unix)]
        {
            let link = dir.path().join("link.pdf");
            std::os::unix::fs::symlink(&db, &link).unwrap();
            assert!(check(&link, true).unwrap_err().contains("is the workspace"));
            let other = dir.path().join("other.pdf");
            std::fs::write(&other, b"x").unwrap();
            let link = dir.path().join("link2.pdf");
            std::os::unix::fs::symlink(&other, &link).unwrap();
            assert!(check(&link, false).unwrap_err().contains("symbolic link"));
            assert!(check(&link, true).is_ok());
            assert!(
                check(Path::new("/dev/null"), false)
                    .unwrap_err()
                    .contains("a device")
            );
        }
        assert!(check(dir.path(), true).unwrap_err().contains("is a folder"));
        assert!(check(&dir.path().join("new.pdf"), false).is_ok());
        std::fs::write(dir.path().join("old.pdf"), b"x").unwrap();
        assert!(check(&dir.path().join("old.pdf"), false).is_ok());
    }

    #[test]
    fn a_failed_write_leaves_neither_a_partial_file_nor_a_changed_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.pdf");
        std::fs::write(&target, b"old").unwrap();
        write_atomically(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A target in a folder that does not exist: an error, nothing left.
        let nowhere = dir.path().join("missing").join("r.pdf");
        assert!(write_atomically(&nowhere, b"x").is_err());
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("r.pdf")]);
    }

    /// Files beside the target under the names a scratch file once had —
    /// the workspace itself (`--db x.partial report -o x`), a user's
    /// `report.pdf.partial`, a link planted there — are never opened,
    /// replaced or removed.
    #[test]
    fn nothing_beside_the_target_is_removed_or_followed() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("x.partial");
        std::fs::write(&workspace, b"the workspace").unwrap();
        write_atomically(&dir.path().join("x"), b"report").unwrap();
        assert_eq!(std::fs::read(&workspace).unwrap(), b"the workspace");
        let users = dir.path().join("r.pdf.partial");
        std::fs::write(&users, b"keep").unwrap();
        let target = Destination {
            path: dir.path().join("r.pdf"),
        };
        target.write(b"new").unwrap();
        let mut stream = target.stream().unwrap();
        stream.write_all(b"streamed").unwrap();
        stream.finish().unwrap();
        assert_eq!(std::fs::read(&users).unwrap(), b"keep");
        assert_eq!(
            std::fs::read(dir.path().join("r.pdf")).unwrap(),
            b"streamed"
        );
        #[cfg(unix)]
        {
            let victim = dir.path().join("victim");
            std::fs::write(&victim, b"keep").unwrap();
            std::os::unix::fs::symlink(&victim, dir.path().join(".s.pdf.partial")).unwrap();
            write_atomically(&dir.path().join("s.pdf"), b"new").unwrap();
            assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        }
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = vec!["r.pdf", "r.pdf.partial", "x", "x.partial"];
        if cfg!(unix) {
            expected.extend([".s.pdf.partial", "s.pdf", "victim"]);
        }
        expected.sort();
        assert_eq!(left, expected);
    }

    #[test]
    fn a_stream_dropped_unfinished_leaves_the_target_and_no_scratch() {
        let dir = tempfile::tempdir().unwrap();
        let target = Destination {
            path: dir.path().join("t.txt"),
        };
        target.write(b"old").unwrap();
        let mut stream = target.stream().unwrap();
        stream.write_all(b"half").unwrap();
        drop(stream);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
        assert_eq!(std::fs::read(dir.path().join("t.txt")).unwrap(), b"old");
    }

    #[cfg(unix)]
    #[test]
    fn an_output_gets_a_new_files_permissions_not_a_scratch_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.pdf");
        write_atomically(&path, b"x").unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // Whatever the umask leaves of 0666, as for any new file.
        assert_eq!(mode(&path), mode(&plain), "{:o}", mode(&path));
    }

    /// Every write of a file outside this module is a scratch file of the
    /// program's own or the ledger, and says so in a `// writes:` comment
    /// on it or just above it; anything else is a path the user named, and
    /// goes through [`Destination`].
    #[test]
    fn every_write_goes_through_the_destination_module() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        let mut folders = vec![root.join("src-tauri/src")];
        for krate in std::fs::read_dir(root.join("crates")).unwrap() {
            folders.push(krate.unwrap().path().join("src"));
        }
        while let Some(folder) = folders.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                if path.is_dir() && name != "tests" {
                    folders.push(path);
                } else if name.ends_with(".rs") && name != "tests.rs" {
                    files.push(path);
                }
            }
        }
        assert!(files.len() > 50, "the sources were not found");
        let writes = [
            "fs::write(",
            "File::create(",
            "OpenOptions::new()",
            "fs::rename(",
            "fs::copy(",
            ".persist(",
        ];
        let mut unguarded = Vec::new();
        for file in files
            .iter()
            .filter(|f| !f.ends_with("destination/src/lib.rs"))
        {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text
                .lines()
                .take_while(|l| !l.starts_with("#[cfg(test)]"))
                .collect();
            for (i, line) in lines.iter().enumerate() {
                let said = lines[i.saturating_sub(2)..=i]
                    .iter()
                    .any(|l| l.contains("// writes:"));
                if writes.iter().any(|w| line.contains(w)) && !said {
                    unguarded.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
        assert!(
            unguarded.is_empty(),
            "writes that bypass breakpoint_destination:\n{}",
            unguarded.join("\n")
        );
    }
}
