//! How results reach the terminal: tables for people, JSON for scripts.
//! Output is written in one piece so a closed pipe is noticed once.

use std::io::Write;

use comfy_table::presets::UTF8_BORDERS_ONLY;
use comfy_table::{ContentArrangement, Table};
use serde::Serialize;

pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().map(|h| h.to_string()));
    t
}

/// Write text for a person: a control character from a stored name or file
/// name is shown escaped instead of steering the terminal.
pub fn print(text: &str) -> std::io::Result<()> {
    let text = breakpoint_core::text::printable_multiline(text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

pub fn print_json<T: Serialize + ?Sized>(value: &T) -> std::io::Result<()> {
    // JSON escapes control characters itself.
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

pub fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "–".to_string(), |v| v.to_string())
}

/// A price or other decimal, without trailing noise.
pub fn number(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

pub fn opt_number(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), number)
}

/// "2024-06-01 11:27:05 UTC"
pub fn time(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// "2 h 17 m", "42 s"
pub fn duration_ms(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s >= 3600 => format!("{} h {:02} m", s / 3600, (s % 3600) / 60),
        s if s >= 60 => format!("{} m {:02} s", s / 60, s % 60),
        s => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(12.8), "12.8");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.00001), "0");
        assert_eq!(number(1.23456), "1.2346");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration_ms(8_220_000), "2 h 17 m");
        assert_eq!(duration_ms(61_000), "1 m 01 s");
        assert_eq!(duration_ms(42_000), "42 s");
    }
}
