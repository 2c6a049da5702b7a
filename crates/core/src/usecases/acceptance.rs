//! Verdicts of the acceptance checks, from the logs they wrote — the same
//! import and the same metrics as any evidence, so that what the instance
//! prints is what the workstation will score.

use std::path::Path;

use crate::domain::{Platform, PlatformKind, SourceKind};
use crate::import::{ImportError, ImportOptions, ImportOutcome, import_file};
use crate::metrics::stress::{self, StressFigures};
use crate::samples::Field;
use crate::store::Store;

/// Each GPU's stress figures in a probe log (read into a private store: the
/// log need not be imported anywhere yet).
pub fn stress_of_log(path: &Path) -> Result<Vec<(u32, StressFigures)>, ImportError> {
    let store = Store::open_in_memory()?;
    let platform = Platform::new("check", PlatformKind::Other, None).map_err(crate::Error::from)?;
    let platform = store.create_platform(&platform)?;
    let options = ImportOptions {
        source: SourceKind::Probe,
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform.id)
    };
    let ImportOutcome::Imported(report) = import_file(&store, path, &options, None)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for gpu in store.sample_gpus(report.run_id)? {
        let frame = store.read_samples(report.run_id, gpu, None, Some(&[Field::UtilGpuPct]))?;
        if let Some(f) = stress::judge(&frame) {
            out.push((gpu, f));
        }
    }
    Ok(out)
}
