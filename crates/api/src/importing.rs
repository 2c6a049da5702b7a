//! Importing what a user gives or drops: files and folders, one run per
//! file, each all or nothing, with progress, cancellation and a result per
//! file (one failure does not stop the others).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use serde::Serialize;

use crate::import;
use crate::store::Store;

/// The import's own vocabulary, as the faces set it up and read its outcome.
pub use breakpoint_core::import::bundle::checklist_verdict;
pub use breakpoint_core::import::{
    Duplicate, Format, ImportError, ImportOptions, ImportOutcome, ImportTimings, ZoneFrom,
    import_file, timestamps,
};

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FileResult {
    Done(ImportOutcome),
    /// Not imported; nothing of it was stored. `status` is "failed", or
    /// "cancelled" when the batch was cancelled before or while it was read.
    NotImported {
        status: &'static str,
        file: String,
        error: String,
    },
}

impl FileResult {
    pub fn failed(&self) -> bool {
        matches!(self, FileResult::NotImported { .. })
    }
}

/// Told as a batch goes: a face shows progress from it.
pub trait ImportObserver {
    /// File `index` of `total` begins; `bytes` is its size.
    fn started(&mut self, _index: usize, _total: usize, _path: &Path, _bytes: u64) {}
    /// Bytes of the current file read so far (every few MiB).
    fn progress(&mut self, _bytes: u64) {}
    fn finished(&mut self, _index: usize, _result: &FileResult) {}
}

/// An observer that wants to hear nothing.
pub struct Quiet;
impl ImportObserver for Quiet {}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batch {
    pub files: Vec<FileResult>,
    /// What the folders held that is not a log ("PATH: reason").
    pub skipped: Vec<String>,
    /// How the files moved the answer, where they did (the entry kept in
    /// the decision's history).
    pub decision: Option<crate::decision_log::LogEntry>,
}

impl Batch {
    pub fn failures(&self) -> usize {
        self.files.iter().filter(|f| f.failed()).count()
    }
}

/// Import every file the paths stand for. A path that does not exist (or a
/// folder with no file) stops the batch before anything is stored; after
/// that each file succeeds or fails on its own. Setting `options.cancel`
/// stops the file being read (nothing of it is stored) and the ones after.
pub fn import_paths(
    store: &Store,
    paths: &[PathBuf],
    options: &ImportOptions,
    observer: &mut dyn ImportObserver,
) -> Result<Batch, ImportError> {
    // An offering of another platform is refused once, before any file.
    if let Some(id) = options.offering_id {
        store.offering_of(options.platform_id, id)?;
    }
    let mut expanded = import::expand_paths(paths)?;
    // Logs that name GPUs only by PCI address (kernel logs) go after the
    // others, so that they can take their GPU numbers from an inventory
    // imported in the same batch.
    expanded
        .files
        .sort_by_key(|path| import::names_gpus_by_address_only(path));
    let total = expanded.files.len();
    let cancelled = || {
        options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    };
    let mut files = Vec::with_capacity(total);
    for (index, path) in expanded.files.iter().enumerate() {
        let shown = path.display().to_string();
        let result = if cancelled() {
            FileResult::NotImported {
                status: "cancelled",
                file: shown,
                error: "cancelled before it was read; nothing was stored".into(),
            }
        } else {
            let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            observer.started(index, total, path, bytes);
            // An acceptance bundle: its logs, all or nothing, each a result.
            if import::bundle::is_bundle(path) {
                match import::bundle::import_bundle(store, path, options) {
                    Ok((_, outcomes)) => {
                        for outcome in outcomes {
                            let result = FileResult::Done(outcome);
                            observer.finished(index, &result);
                            files.push(result);
                        }
                    }
                    Err(e) => {
                        let result = FileResult::NotImported {
                            status: "failed",
                            file: shown,
                            error: e.to_string(),
                        };
                        observer.finished(index, &result);
                        files.push(result);
                    }
                }
                continue;
            }
            let mut progress = |b: u64| observer.progress(b);
            match import::import_file(store, path, options, Some(&mut progress)) {
                Ok(outcome) => FileResult::Done(outcome),
                Err(e) => FileResult::NotImported {
                    status: if cancelled() { "cancelled" } else { "failed" },
                    file: shown,
                    error: match e {
                        ImportError::Store(inner) => inner.to_string(),
                        other => other.to_string(),
                    },
                },
            }
        };
        observer.finished(index, &result);
        files.push(result);
    }
    let decision = moved_answer(store, options.platform_id, &files);
    Ok(Batch {
        files,
        skipped: expanded.skipped,
        decision,
    })
}

/// Where the files imported moved the answer (the lead, a platform's
/// chance of being the best, the plan), the entry kept in the decision's
/// history. The files are stored already: a failure to judge them is no
/// failure of the import, and is left for the next ranking to show.
fn moved_answer(
    store: &Store,
    platform_id: i64,
    files: &[FileResult],
) -> Option<crate::decision_log::LogEntry> {
    let imported: Vec<String> = files
        .iter()
        .filter_map(|f| match f {
            FileResult::Done(ImportOutcome::Imported(r)) => {
                // The file's name: the history travels in reports, the
                // folders it was read from need not.
                let name = Path::new(&r.file)
                    .file_name()
                    .map_or(r.file.clone(), |n| n.to_string_lossy().into_owned());
                Some(format!("{name} (run #{})", r.run_id))
            }
            _ => None,
        })
        .collect();
    if imported.is_empty() {
        return None;
    }
    let platform = store
        .platform_by_id(platform_id)
        .map_or_else(|_| format!("platform #{platform_id}"), |p| p.name);
    let trigger = crate::decision_log::Trigger {
        files: imported,
        platform,
    };
    crate::decision_log::record(store, trigger).ok().flatten()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::domain::{Platform, PlatformKind};

    const CSV: &str = "timestamp, index, power.draw [W]\n2024/06/01 00:00:00.000, 0, 250.00 W\n2024/06/01 00:00:01.000, 0, 251.00 W\n";

    #[derive(Default)]
    struct Heard(Vec<String>);
    impl ImportObserver for Heard {
        fn started(&mut self, index: usize, total: usize, path: &Path, _: u64) {
            let name = path.file_name().unwrap().to_string_lossy();
            self.0.push(format!("start {index}/{total} {name}"));
        }
        fn finished(&mut self, index: usize, result: &FileResult) {
            self.0
                .push(format!("done {index} failed={}", result.failed()));
        }
    }

    #[test]
    fn each_file_stands_alone_and_the_observer_hears_each() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), CSV).unwrap();
        std::fs::write(dir.path().join("b.csv"), "not a log at all\n").unwrap();
        let store = Store::open_in_memory().unwrap();
        let p = store
            .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
            .unwrap();
        let options = ImportOptions {
            tz: jiff::tz::TimeZone::UTC,
            ..ImportOptions::new(p.id)
        };
        let mut heard = Heard::default();
        let batch =
            import_paths(&store, &[dir.path().to_path_buf()], &options, &mut heard).unwrap();
        assert_eq!(batch.failures(), 1);
        assert!(matches!(
            batch.files[0],
            FileResult::Done(ImportOutcome::Imported(_))
        ));
        assert_eq!(
            heard.0,
            [
                "start 0/2 a.csv",
                "done 0 failed=false",
                "start 1/2 b.csv",
                "done 1 failed=true"
            ]
        );
    }

    #[test]
    fn a_cancelled_batch_stores_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), CSV).unwrap();
        let store = Store::open_in_memory().unwrap();
        let p = store
            .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
            .unwrap();
        let cancel = Arc::new(AtomicBool::new(true));
        let options = ImportOptions {
            cancel: Some(cancel),
            ..ImportOptions::new(p.id)
        };
        let batch =
            import_paths(&store, &[dir.path().join("a.csv")], &options, &mut Quiet).unwrap();
        assert!(matches!(
            &batch.files[0],
            FileResult::NotImported {
                status: "cancelled",
                ..
            }
        ));
        assert_eq!(store.info().unwrap().runs, 0);
    }
}
