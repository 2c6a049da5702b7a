//! Text that came from outside (file names, log lines, names users typed)
//! on its way to a terminal, an SVG chart, a PDF or a stored message.
//!
//! Two rules keep such text from doing harm: an echo of input is an
//! *excerpt* (a 200 MB line must not become a 200 MB error message), and
//! characters that steer a terminal or break XML are *shown*, not obeyed
//! (an ESC in a file name must neither recolour the terminal nor make the
//! report's SVG invalid).
//!
//! It also keeps the words Breakpoint itself prints that more than one
//! face needs: lengths of time, and units with their Chinese (`unit_zh`).

use std::borrow::Cow;
use std::fmt::Write;

/// "1 more byte", "6 more bytes": what an excerpt left out.
fn more_bytes(n: usize) -> String {
    if n == 1 {
        "1 more byte".into()
    } else {
        format!("{n} more bytes")
    }
}

/// At most `max_chars` characters of `text`, cut on a character boundary,
/// with what was left out said in bytes.
pub fn excerpt(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!(
            "{}… ({})",
            &text[..cut],
            more_bytes(text.len() - cut)
        )),
    }
}

/// Whether a character changes how text is shown rather than being shown:
/// C0/C1 controls and DEL, and the bidirectional overrides and isolates
/// (U+202A–U+202E, U+2066–U+2069) that can make "gpu.csv" display as
/// "vsc.upg".
pub fn is_steering(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters with no visible form that make two names look identical:
/// zero-width spaces and joiners, the word joiner and invisible operators,
/// the byte-order mark used as a zero-width no-break space, soft hyphens,
/// Hangul fillers and variation selectors.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` with every steering character written out as an escape
/// (`\n`, `\t`, `\u{1b}`), so that a terminal, an XML document or a PDF
/// shows it instead of acting on it. Text without any is returned as is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_steering) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_steering(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `printable`, but line breaks and tabs are kept: for whole documents (a
/// table for the terminal, an SVG chart) whose own layout uses them.
pub fn printable_multiline(text: &str) -> Cow<'_, str> {
    let keeps = |c: char| c == '\n' || c == '\t';
    if !text.chars().any(|c| is_steering(c) && !keeps(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if keeps(c) {
            out.push(c);
        } else {
            out.push_str(&printable(c.encode_utf8(&mut [0; 4])));
        }
    }
    Cow::Owned(out)
}

/// A cell of a CSV file Breakpoint writes for a spreadsheet: control and
/// steering characters shown as escapes (a CR, LF or ESC in a cell reaches
/// the file as the text `\r`, never raw), a cell a spreadsheet would run
/// as a formula (=, +, -, @ first, even after spaces) kept as text with a
/// leading quote, then quoted where it holds a separator or a quote.
pub fn csv_cell(cell: &str) -> String {
    let shown = printable(cell);
    let formula = shown.trim_start().starts_with(['=', '+', '-', '@']);
    let cell = if formula {
        format!("'{shown}")
    } else {
        shown.into_owned()
    };
    if cell.contains([',', ';', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

/// A message that may quote input (a parser's reason, a warning), bounded
/// as a whole so that no path lets a huge line through.
pub fn bounded_message(message: &str) -> String {
    const MESSAGE_CHARS: usize = 400;
    printable_excerpt(message, MESSAGE_CHARS)
}

/// `printable` and `excerpt` at once: at most `max_chars` characters of
/// output, escapes counted as what they print.
pub fn printable_excerpt(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    for (at, c) in text.char_indices() {
        let escaped = printable(&text[at..at + c.len_utf8()]);
        let width = escaped.chars().count();
        if shown + width > max_chars {
            let _ = write!(out, "… ({})", more_bytes(text.len() - at));
            return out;
        }
        out.push_str(&escaped);
        shown += width;
    }
    out
}

/// A length of time in words, as a bill's reader says it: "1 second",
/// "1 minute", "1 hour", "30 days (a month)", "2 h 17 m 0 s".
pub fn duration_words(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "–".into();
    }
    let plural = |n: u64, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let whole = seconds.round() as u64;
    if (seconds - whole as f64).abs() > 1e-6 {
        return format!("{seconds:.1} s");
    }
    match whole {
        0 => "0 seconds".into(),
        2_592_000 => "30 days (a month)".into(),
        31_536_000 => "365 days (a year)".into(),
        s if s % 86_400 == 0 => plural(s / 86_400, "day"),
        s if s % 3600 == 0 => plural(s / 3600, "hour"),
        s if s % 60 == 0 && s < 3600 => plural(s / 60, "minute"),
        s if s < 60 => plural(s, "second"),
        s => {
            let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
            let mut parts = Vec::new();
            if d > 0 {
                parts.push(format!("{d} d"));
            }
            if d > 0 || h > 0 {
                parts.push(format!("{h} h"));
            }
            parts.push(format!("{m} m"));
            if sec > 0 {
                parts.push(format!("{sec} s"));
            }
            parts.join(" ")
        }
    }
}

/// A moment as Breakpoint shows it, always in UTC and saying so:
/// "2026-12-05 06:09:12 UTC".
pub fn time_words(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// A moment to the minute: "2026-12-05 06:09 UTC".
pub fn minute_words(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// Seconds in a duration as people write it — the one grammar every
/// duration Breakpoint reads follows: a bare number of seconds ("6138",
/// "1.5"), or numbers each with its unit, in any order and spacing
/// ("1h42m18s", "35m", "90 s", "1.5h", "2d 4h", "500ms"), units `ms`, `s`,
/// `m` or `min`, `h`, `d`. `None` for anything else, or a total that is not
/// a finite number of seconds ≥ 0.
pub fn duration_seconds(text: &str) -> Option<f64> {
    let t = text.trim();
    if let Ok(seconds) = t.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then_some(seconds);
    }
    let mut rest = t;
    let mut total = 0.0;
    let mut parts = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|i| *i > 0)?;
        let value: f64 = rest[..digits].parse().ok()?;
        rest = rest[digits..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            "d" => 86_400.0,
            _ => return None,
        };
        total += value * factor;
        parts += 1;
        rest = rest[unit_len..].trim_start();
    }
    (parts > 0 && total.is_finite() && total >= 0.0).then_some(total)
}

/// A duration longer than zero, with its unit ("90s", "10m", "2h",
/// "500ms", "1h30m"): where a setting is written (flags, plans, recipes), a
/// bare "10" could mean seconds or minutes to whoever wrote it.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    if text.trim().parse::<f64>().is_ok() {
        return None;
    }
    duration_seconds(text)
        .filter(|s| *s > 0.0)
        .map(std::time::Duration::from_secs_f64)
}

/// Units written in words, and their Simplified Chinese. Symbols that read
/// the same in both (%, s, ms, °C, W, MHz, GB/s, TFLOP/s, kWh) are not
/// listed: they need no translation.
const UNITS_ZH: &[(&str, &str)] = &[
    ("score", "分"),
    ("h", "小时"),
    ("hour", "小时"),
    ("hours", "小时"),
    ("min", "分钟"),
    ("minute", "分钟"),
    ("minutes", "分钟"),
    ("second", "秒"),
    ("seconds", "秒"),
    ("d", "天"),
    ("day", "天"),
    ("days", "天"),
    ("GPU-h", "GPU 小时"),
    ("GPU-hour", "GPU 小时"),
    ("GPU-hours", "GPU 小时"),
    ("/100 GPU-h", "次/100 GPU 小时"),
    ("per 100 GPU-h", "每 100 GPU 小时"),
    ("per 100 GPU-hours", "每 100 GPU 小时"),
    ("currency", "货币单位"),
    ("currency/GPU-h", "货币单位/GPU 小时"),
    ("count", "次"),
    ("mismatches", "处不符"),
    ("steps", "步"),
    ("runs", "次运行"),
    ("rel. L2", "相对 L2"),
];

/// The Simplified Chinese of a unit written in words ("h", "GPU-hours",
/// "/100 GPU-h", "days", "runs"); `None` for a symbol that needs none
/// ("%", "s", "W", "MHz") or a unit not known.
pub fn unit_zh(unit: &str) -> Option<&'static str> {
    UNITS_ZH
        .iter()
        .find(|(en, _)| *en == unit)
        .map(|(_, zh)| *zh)
}

/// A unit as a Chinese or an English reader sees it: `unit_zh` where there
/// is one, else the unit as it is.
pub fn unit_in(unit: &str, zh: bool) -> &str {
    match unit_zh(unit) {
        Some(words) if zh => words,
        _ => unit,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn every_duration_follows_one_grammar() {
        for (text, seconds) in [
            ("6138", 6138.0),
            ("1.5", 1.5),
            ("0", 0.0),
            ("1h42m18s", 6138.0),
            ("35m", 2100.0),
            ("90 s", 90.0),
            ("1.5h", 5400.0),
            ("2d 4h", 187_200.0),
            ("500ms", 0.5),
            ("10min", 600.0),
        ] {
            assert_eq!(duration_seconds(text), Some(seconds), "{text}");
        }
        for bad in ["", "h", "5x", "1h 2", "-3s", "1..5s", "three", "NaN"] {
            assert_eq!(duration_seconds(bad), None, "{bad}");
        }
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("10"), None);
        assert_eq!(
            parse_duration("1m30s"),
            Some(std::time::Duration::from_secs(90))
        );
    }

    use super::*;

    #[test]
    fn durations_read_as_a_bill_says_them() {
        assert_eq!(duration_words(1.0), "1 second");
        assert_eq!(duration_words(60.0), "1 minute");
        assert_eq!(duration_words(900.0), "15 minutes");
        assert_eq!(duration_words(3600.0), "1 hour");
        assert_eq!(duration_words(86_400.0), "1 day");
        assert_eq!(duration_words(2_592_000.0), "30 days (a month)");
        assert_eq!(duration_words(8220.0), "2 h 17 m");
        assert_eq!(duration_words(6138.0), "1 h 42 m 18 s");
        assert_eq!(duration_words(f64::NAN), "–");
    }

    #[test]
    fn units_in_words_have_chinese_and_symbols_stay() {
        assert_eq!(unit_zh("h"), Some("小时"));
        assert_eq!(unit_zh("/100 GPU-h"), Some("次/100 GPU 小时"));
        assert_eq!(unit_zh("GPU-hours"), Some("GPU 小时"));
        assert_eq!(unit_zh("days"), Some("天"));
        assert_eq!(unit_zh("runs"), Some("次运行"));
        for symbol in ["%", "s", "ms", "°C", "W", "MHz", "GB/s", "TFLOP/s", "kWh"] {
            assert_eq!(unit_zh(symbol), None, "{symbol}");
            assert_eq!(unit_in(symbol, true), symbol);
        }
        assert_eq!(unit_in("h", true), "小时");
        assert_eq!(unit_in("h", false), "h");
        let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
        let mut seen: Vec<&str> = Vec::new();
        for (en, zh) in UNITS_ZH {
            assert!(zh.chars().any(cjk), "{en}: {zh}");
            assert!(!seen.contains(en), "{en} is listed twice");
            seen.push(en);
        }
    }

    #[test]
    fn excerpts_cut_on_character_boundaries_and_say_what_was_left_out() {
        assert_eq!(excerpt("short", 10), "short");
        assert_eq!(excerpt("阿里云平台", 3), "阿里云… (6 more bytes)");
        assert_eq!(excerpt("abcd", 3), "abc… (1 more byte)");
        let huge = "x".repeat(200 << 20);
        let e = excerpt(&huge, 120);
        assert!(e.len() < 200, "{}", e.len());
        assert!(e.ends_with(&format!("({} more bytes)", huge.len() - 120)));
    }

    #[test]
    fn steering_characters_are_shown_not_obeyed() {
        assert_eq!(printable("gpu.csv"), "gpu.csv");
        assert!(matches!(printable("阿里云 A100"), Cow::Borrowed(_)));
        assert_eq!(
            printable("a\u{1b}[31mred\nb\u{202e}c\u{85}"),
            "a\\u{1b}[31mred\\nb\\u{202e}c\\u{85}"
        );
        assert_eq!(printable("tab\there"), "tab\\there");
        assert_eq!(
            printable_multiline("a\tb\nc\u{1b}[2Kd\r"),
            "a\tb\nc\\u{1b}[2Kd\\r"
        );
    }

    #[test]
    fn escapes_count_against_the_bound() {
        let hostile = "\u{1b}\u{202e}".repeat(10_000);
        let m = bounded_message(&hostile);
        assert!(m.chars().count() < 430, "{}", m.chars().count());
        assert!(m.starts_with("\\u{1b}\\u{202e}"), "{m}");
        assert_eq!(bounded_message("plain"), "plain");
    }

    #[test]
    fn invisible_and_bidi_characters_are_recognised() {
        for c in ['\u{200B}', '\u{200D}', '\u{FEFF}', '\u{2060}', '\u{FE0F}'] {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in ['\u{202E}', '\u{2066}', '\u{200F}'] {
            assert!(is_bidi_control(c), "{c:?}");
        }
        assert!(
            !"阿里云 Café"
                .chars()
                .any(|c| is_invisible(c) || is_steering(c))
        );
    }
}
