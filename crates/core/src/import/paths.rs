//! What "import these" means for the paths a user gives or drops: files as
//! they are, and the files inside a directory (recursively, in name order,
//! hidden ones skipped) — a folder of logs copied home from an instance.

use std::path::{Path, PathBuf};

use super::ImportError;

/// The files to import for `paths`. A path that does not exist, or a
/// directory that holds no files, is refused by name before anything is
/// imported.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ImportError> {
    let refuse = |path: &Path, reason: String| ImportError::File {
        file: path.display().to_string(),
        reason,
    };
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found)
                .map_err(|e| refuse(path, format!("cannot read the directory: {e}")))?;
            if found.is_empty() {
                return Err(refuse(path, "the directory holds no files".into()));
            }
            found.sort();
            files.extend(found);
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            return Err(refuse(path, "does not exist".into()));
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
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
        let files = expand_paths(&[single.clone(), logs.clone()]).unwrap();
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
}
