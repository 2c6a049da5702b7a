//! Shared by every fuzz target: import bytes as one format into a throwaway
//! in-memory store, half the time skipping bad lines. Whatever the bytes,
//! every message that may quote them (the error, each stored warning) stays
//! bounded and printable: input is echoed as an excerpt, never whole.

use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{Format, ImportOptions, ImportOutcome, import_reader};
use breakpoint_core::store::Store;

pub fn import(data: &[u8], format: Format) {
    let Ok(store) = Store::open_in_memory() else {
        return;
    };
    let Ok(platform) = Platform::new("fuzz", PlatformKind::Other, None) else {
        return;
    };
    let Ok(platform) = store.create_platform(&platform) else {
        return;
    };
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        interval_ms: Some(1000),
        ..ImportOptions::new(platform.id)
    };
    let skip = data.first().is_some_and(|b| b & 1 == 1);
    let options = ImportOptions {
        skip_bad_lines: skip,
        ..options
    };
    match import_reader(&store, data, "fuzz", format, &options, None) {
        Err(e) => bounded(&e.to_string()),
        Ok(ImportOutcome::Imported(report)) => {
            for w in &report.warnings {
                bounded(w);
            }
        }
        Ok(ImportOutcome::AlreadyImported { .. }) => {}
    }
    let _ = breakpoint_core::import::detect(data);
}

/// An echo of input: short, and without a character that would steer a
/// terminal or break an SVG.
fn bounded(message: &str) {
    // The message's own words plus a 400-character excerpt of input.
    assert!(message.chars().count() < 1200, "{} characters", message.len());
    assert!(
        !message
            .chars()
            .any(breakpoint_core::text::is_steering),
        "{message:?}"
    );
}
