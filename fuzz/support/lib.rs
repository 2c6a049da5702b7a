//! Shared by every fuzz target: parse bytes as one format with the samples
//! kept in memory — the parsers alone, no store — half the time skipping
//! bad lines. Whatever the bytes, every message that may quote them (the
//! error, each warning) stays bounded and printable: input is echoed as an
//! excerpt, never whole.

use breakpoint_formats::{Format, ParseContext, ParseFailure, RunBuilder};
use breakpoint_model::text;

pub fn import(data: &[u8], format: Format) {
    let skip = data.first().is_some_and(|b| b & 1 == 1);
    let mut samples = Vec::new();
    let mut builder = RunBuilder::new(&mut samples, skip, Some(1000));
    let mut ctx = ParseContext {
        interval_ms: Some(1000),
        ..ParseContext::new("fuzz", jiff::tz::TimeZone::UTC)
    };
    match breakpoint_formats::parse(format, data, &mut ctx, &mut builder) {
        // What the user is shown is bounded the way the core bounds it.
        Err(ParseFailure::Line(e)) => bounded(&text::bounded_message(&e.reason)),
        Err(ParseFailure::Whole(reason)) => bounded(&text::bounded_message(&reason)),
        Err(_) => {}
        Ok(()) => {
            for w in &builder.finish().warnings {
                bounded(w);
            }
        }
    }
    let _ = breakpoint_formats::detect(data);
}

/// An echo of input: short, and without a character that would steer a
/// terminal or break an SVG.
fn bounded(message: &str) {
    // The message's own words plus a 400-character excerpt of input.
    assert!(message.chars().count() < 1200, "{} characters", message.len());
    assert!(!message.chars().any(text::is_steering), "{message:?}");
}
