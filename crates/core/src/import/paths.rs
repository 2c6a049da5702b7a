//! What "import these" means for the paths a user gives or drops: files as
//! they are, and the files inside a directory (recursively, in name order,
//! hidden ones skipped) — a folder of logs copied home from an instance.
//!
//! Links are followed, but each real directory is visited once, so a link
//! back to a parent (`ln -s .. up`) or to itself ends the walk instead of
//! looping; what was passed over is said, never silently dropped.

use std::collections::HashSet;
use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};

use super::ImportError;

/// The files to import, and what inside the folders was passed over.
#[derive(Debug, Default, PartialEq)]
pub struct Expanded {
    pub files: Vec<PathBuf>,
    /// "PATH: reason", one per entry not imported.
    pub skipped: Vec<String>,
}

/// The files to import for `paths`. A path that does not exist or is not a
/// regular file or folder, or a directory that holds no files, is refused
/// by name before anything is imported.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Expanded, ImportError> {
    let refuse = |path: &Path, reason: String| ImportError::File {
        file: crate::text::printable(&path.display().to_string()).into_owned(),
        reason,
    };
    let mut out = Expanded::default();
    let mut visited = HashSet::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| {
            refuse(
                path,
                match e.kind() {
                    std::io::ErrorKind::NotFound if path.is_symlink() => {
                        "is a link to something that does not exist".into()
                    }
                    std::io::ErrorKind::NotFound => "does not exist".into(),
                    _ => format!("cannot be read: {e}"),
                },
            )
        })?;
        if meta.is_dir() {
            let before = out.files.len();
            let root = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            walk(path, &meta, &root, &mut visited, &mut out)
                .map_err(|e| refuse(path, format!("cannot read the directory: {e}")))?;
            if out.files.len() == before {
                return Err(refuse(path, "the directory holds no files".into()));
            }
            out.files[before..].sort();
        } else if meta.is_file() {
            out.files.push(path.clone());
        } else {
            return Err(refuse(path, not_a_file(&meta.file_type())));
        }
    }
    Ok(out)
}

/// What a path that is neither a file nor a folder is, in words.
fn not_a_file(kind: &FileType) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "is a named pipe (FIFO), not a file; save the log to a file and import that"
                .into();
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "is a device, not a file".into();
        }
        if kind.is_socket() {
            return "is a socket, not a file".into();
        }
    }
    let _ = kind;
    "is not a regular file".into()
}

/// Identity of a real directory, whatever links lead to it.
#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

#[cfg(unix)]
fn identity(_: &Path, meta: &Metadata) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path, _: &Metadata) -> Option<DirId> {
    std::fs::canonicalize(path).ok()
}

/// Whether `path` is a link to `root` itself or to a folder above it
/// (`ln -s .. up`): following it would import what the user did not give.
fn leads_above(path: &Path, root: &Path) -> bool {
    path.is_symlink() && std::fs::canonicalize(path).is_ok_and(|target| root.starts_with(&target))
}

fn walk(
    dir: &Path,
    meta: &Metadata,
    root: &Path,
    visited: &mut HashSet<DirId>,
    out: &mut Expanded,
) -> std::io::Result<()> {
    if let Some(id) = identity(dir, meta)
        && !visited.insert(id)
    {
        out.skipped.push(format!(
            "{}: a folder already walked (another link leads to it)",
            crate::text::printable(&dir.display().to_string())
        ));
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        let shown = || crate::text::printable(&path.display().to_string()).into_owned();
        match std::fs::metadata(&path) {
            Err(e) => out.skipped.push(format!(
                "{}: {}",
                shown(),
                if path.is_symlink() {
                    "a link to something that does not exist".to_string()
                } else {
                    format!("cannot be read: {e}")
                }
            )),
            Ok(m) if m.is_dir() && leads_above(&path, root) => out.skipped.push(format!(
                "{}: a link back to the folder being imported, or above it",
                shown()
            )),
            Ok(m) if m.is_dir() => walk(&path, &m, root, visited, out)?,
            Ok(m) if m.is_file() => out.files.push(path),
            Ok(m) => out
                .skipped
                .push(format!("{}: {}", shown(), not_a_file(&m.file_type()))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn directories_expand_to_their_files_in_name_order_without_hidden_ones() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(logs.join("node-2")).unwrap();
        std::fs::create_dir_all(logs.join(".cache")).unwrap();
        for f in [
            "b.csv",
            "a.csv",
            ".hidden.csv",
            "node-2/c.csv",
            ".cache/d.csv",
        ] {
            std::fs::write(logs.join(f), "x").unwrap();
        }
        let single = dir.path().join("single.csv");
        std::fs::write(&single, "x").unwrap();
        let files = expand_paths(&[single.clone(), logs.clone()]).unwrap().files;
        assert_eq!(
            files,
            [
                single,
                logs.join("a.csv"),
                logs.join("b.csv"),
                logs.join("node-2/c.csv")
            ]
        );
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let err = expand_paths(&[empty]).unwrap_err().to_string();
        assert!(
            err.ends_with("empty: the directory holds no files"),
            "{err}"
        );
        let err = expand_paths(&[dir.path().join("nope.csv")])
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("nope.csv: does not exist"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn links_that_loop_are_walked_once_and_said() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("A");
        std::fs::create_dir_all(a.join("sub")).unwrap();
        std::fs::write(a.join("log.csv"), "x").unwrap();
        std::fs::write(a.join("sub/more.csv"), "x").unwrap();
        symlink(".", a.join("s1")).unwrap();
        symlink(".", a.join("s2")).unwrap();
        symlink("..", a.join("sub/up")).unwrap();
        symlink("missing.csv", a.join("dangling.csv")).unwrap();
        symlink("sub", a.join("again")).unwrap();
        let expanded = expand_paths(std::slice::from_ref(&a)).unwrap();
        assert_eq!(
            expanded.files,
            [a.join("again/more.csv"), a.join("log.csv")]
        );
        let skipped = expanded.skipped.join("\n");
        assert_eq!(expanded.skipped.len(), 5, "{skipped}");
        assert!(
            skipped.contains("A/sub: a folder already walked"),
            "{skipped}"
        );
        assert!(skipped.contains("A/s1: a link back to the folder being imported"));
        assert!(skipped.contains("A/s2: a link back to the folder being imported"));
        assert!(skipped.contains("A/again/up: a link back to the folder being imported"));
        assert!(skipped.contains("dangling.csv: a link to something that does not exist"));
    }

    #[cfg(unix)]
    #[test]
    fn pipes_and_devices_are_named_for_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("live.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let err = expand_paths(&[fifo]).unwrap_err().to_string();
        assert!(err.contains("is a named pipe (FIFO), not a file"), "{err}");
        let err = expand_paths(&[PathBuf::from("/dev/null")])
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("/dev/null: is a device, not a file"), "{err}");
    }
}
