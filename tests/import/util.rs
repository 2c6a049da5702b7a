use std::path::PathBuf;

use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{
    ImportError, ImportOptions, ImportOutcome, ImportReport, import_file,
};
use breakpoint_core::samples::{Field, Sample};
use breakpoint_core::store::Store;

pub fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/logs")
        .join(path)
}

pub fn store() -> (Store, i64) {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    (store, p.id)
}

pub fn utc_options(platform: i64) -> ImportOptions {
    ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform)
    }
}

pub fn try_import(
    path: &str,
    adjust: impl FnOnce(&mut ImportOptions),
) -> (Store, Result<ImportOutcome, ImportError>) {
    let (store, platform) = store();
    let mut options = utc_options(platform);
    adjust(&mut options);
    let result = import_file(&store, &fixture(path), &options, None);
    (store, result)
}

pub fn import(path: &str, adjust: impl FnOnce(&mut ImportOptions)) -> (Store, ImportReport) {
    let (store, result) = try_import(path, adjust);
    match result {
        Ok(ImportOutcome::Imported(report)) => (store, *report),
        other => panic!("{path}: {other:?}"),
    }
}

pub fn ms(utc: &str) -> i64 {
    utc.parse::<jiff::Timestamp>().unwrap().as_millisecond()
}

/// The sample of `gpu` at exactly `t` (UTC, RFC 3339).
pub fn sample_at(store: &Store, run: i64, gpu: u32, t: &str) -> Sample {
    let t = ms(t);
    let frame = store.read_samples(run, gpu, Some(t..t + 1), None).unwrap();
    assert_eq!(frame.len(), 1, "one sample of GPU {gpu} at {t}");
    frame.sample(0)
}

pub fn all_samples(store: &Store, run: i64, gpu: u32) -> Vec<Sample> {
    store
        .read_samples(run, gpu, None, None)
        .unwrap()
        .samples()
        .collect()
}

/// Shorthand for the assertions: a field's value or None.
pub fn v(s: &Sample, f: Field) -> Option<i64> {
    s.get(f)
}
