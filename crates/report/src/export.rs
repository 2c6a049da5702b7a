//! The decision-matrix PDF as a file: gathered, composed, rendered and
//! written so that a partial file never takes the final name.

use std::io::Write;
use std::path::{Path, PathBuf};

use breakpoint_core::store::Store;
use breakpoint_core::usecases::ranking::RankRequest;

use crate::fonts::FontSet;
use crate::pdf::{ReportError, ReportOptions, compose, render};

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub file: PathBuf,
    pub pages: usize,
    pub bytes: usize,
}

/// Write the report of the store, ranked as `request` asks, to `path`.
pub fn export(
    store: &Store,
    request: &RankRequest,
    options: &ReportOptions,
    path: &Path,
) -> Result<Exported, ReportError> {
    let data = crate::gather(store, request, options.lang)?;
    let layout = compose(&data, options)?;
    let pdf = render(&layout, options, &FontSet::discover())?;
    write_atomically(path, &pdf).map_err(|error| ReportError::Write {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(Exported {
        file: path.to_path_buf(),
        pages: layout.pages.len(),
        bytes: pdf.len(),
    })
}

/// Write beside the target, flush to disk, then rename over it: whoever
/// opens `path` sees the old file or the whole new one, never half of it
/// (a crash or a full disk leaves at most a `.partial` file beside it).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".partial");
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
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
}
