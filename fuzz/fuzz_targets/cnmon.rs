#![no_main]
//! Any bytes given to the cnmon importer: an import or a refusal, never a panic.

use breakpoint_formats::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    breakpoint_fuzz_support::import(data, Format::Cnmon);
});
