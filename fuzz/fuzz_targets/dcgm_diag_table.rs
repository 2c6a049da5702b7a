#![no_main]
//! Any text given to the dcgmi diag reader as a table (the JSON target
//! covers documents): an import or a refusal, never a panic.

use breakpoint_formats::Format;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // A leading '{' would make it the JSON reader's input.
    if data.first() == Some(&b'{') {
        return;
    }
    breakpoint_fuzz_support::import(data, Format::DcgmDiag);
});
