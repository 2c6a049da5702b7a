//! Files the user names for Breakpoint to write (a report, a bundle). Never
//! the open workspace (its database, the files SQLite keeps beside it, its
//! campaign ledger); never a folder; never a link, a device, a pipe or a
//! socket unless the user says `--force`; and always whole: written beside
//! the target under a fresh name, synced, then renamed over it, so that
//! whoever opens the path sees the old file or the whole new one.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ValidationError;

/// Whether `path` may be written as an output of the workspace whose
/// database is `workspace`. `force` allows replacing what is not a plain
/// file (a link, a device, a pipe); the workspace and folders never.
pub fn check(path: &Path, workspace: &Path, force: bool) -> Result<(), ValidationError> {
    let refuse = |why: String| {
        ValidationError::new(
            "output",
            format!(
                "{}: {why}",
                crate::text::printable(&path.display().to_string())
            ),
        )
    };
    if workspace_files(workspace)
        .iter()
        .any(|own| same_file(path, own))
    {
        return Err(refuse(
            "is the open workspace (its database or a file beside it); writing there would destroy it: refused".into(),
        ));
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        // Nothing there yet: a new file.
        return Ok(());
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(refuse(
            "is a folder; name a file in it (…/report.pdf)".into(),
        ));
    }
    if kind.is_file() || force {
        return Ok(());
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
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |f| f.write_all(bytes))
}

/// Write through `fill` beside `path` under a fresh name, flush to disk,
/// then rename over `path`: a crash or a full disk leaves the old file (and
/// at most a `.partial` file beside it), never half of the new one. The
/// `.partial` file is created new: a link planted under its name is not
/// followed.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".partial");
    let tmp = path.with_file_name(tmp_name);
    // A partial file left by a crash (or anything else under that name).
    match std::fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            fill(&mut f)?;
            f.sync_all()
        });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
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
        let check = |p: &Path, force: bool| check(p, &db, force).map_err(|e| e.to_string());
        // The database under any name, its files beside it, forced or not.
        for p in [
            db.clone(),
            dir.path().join(".").join("work.db"),
            dir.path().join("work.db-wal"),
            dir.path().join("work.db-shm"),
            dir.path().join("work.db.campaigns.jsonl"),
        ] {
            let e = check(&p, true).unwrap_err();
            assert!(e.contains("open workspace"), "{e}");
        }
        #[cfg(unix)]
        {
            let link = dir.path().join("link.pdf");
            std::os::unix::fs::symlink(&db, &link).unwrap();
            assert!(check(&link, true).unwrap_err().contains("open workspace"));
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

    #[cfg(unix)]
    #[test]
    fn a_link_planted_under_the_partial_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("r.pdf.partial")).unwrap();
        write_atomically(&dir.path().join("r.pdf"), b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(dir.path().join("r.pdf")).unwrap(), b"new");
    }
}
