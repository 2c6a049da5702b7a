//! Shared by every fuzz target: import bytes as one format into a throwaway
//! in-memory store.

use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{Format, ImportOptions, import_reader};
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
    let _ = import_reader(&store, data, "fuzz", "fuzz", format, &options, None);
    let _ = breakpoint_core::import::detect(data);
}
