//! How results reach the terminal: tables for people, JSON for scripts.
//! Output is written in one piece so a closed pipe is noticed once.

use std::fmt;
use std::io::{IsTerminal, Write};

use comfy_table::ContentArrangement;
use comfy_table::presets::UTF8_BORDERS_ONLY;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// A table for a person: a border around it and under the header, each
/// column as wide as its widest cell. On a terminal comfy-table lays it out
/// (it wraps cells to the terminal's width); anywhere else, and for one cell
/// per line, the same text is written here directly, a tenth of the work
/// for a ranking of a thousand platforms.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

pub fn table(header: &[&str]) -> Table {
    Table {
        header: header.iter().map(|h| h.to_string()).collect(),
        rows: Vec::new(),
    }
}

impl Table {
    pub fn add_row<S: ToString>(&mut self, row: impl IntoIterator<Item = S>) -> &mut Table {
        self.rows
            .push(row.into_iter().map(|c| c.to_string()).collect());
        self
    }

    fn comfy(&self, arrangement: ContentArrangement) -> comfy_table::Table {
        let mut t = comfy_table::Table::new();
        t.load_style(UTF8_BORDERS_ONLY)
            .set_content_arrangement(arrangement)
            .set_header(&self.header);
        for row in &self.rows {
            t.add_row(row);
        }
        t
    }

    /// The table as comfy-table writes it when nothing needs wrapping;
    /// none for what only it lays out (a cell of several lines, a row of
    /// another length than the header).
    fn plain(&self) -> Option<String> {
        let columns = self.header.len();
        let lines = std::iter::once(&self.header).chain(&self.rows);
        if columns == 0
            || self.rows.iter().any(|r| r.len() != columns)
            || lines.clone().flatten().any(|c| c.contains('\n'))
        {
            return None;
        }
        // comfy-table gives an empty column one space.
        let mut widths = vec![1; columns];
        for row in lines.clone() {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.width());
            }
        }
        // Each column padded by a space on both sides, a space between.
        let inner = widths.iter().map(|w| w + 2).sum::<usize>() + columns - 1;
        let rule = |left: char, fill: char, right: char, out: &mut String| {
            out.push(left);
            out.extend(std::iter::repeat_n(fill, inner));
            out.push(right);
        };
        let row_text = |row: &[String], out: &mut String| {
            out.push('\n');
            out.push('│');
            for (c, (cell, w)) in row.iter().zip(&widths).enumerate() {
                if c > 0 {
                    out.push(' ');
                }
                out.push(' ');
                out.push_str(cell);
                out.extend(std::iter::repeat_n(' ', w - cell.width() + 1));
            }
            out.push('│');
        };
        let mut out = String::with_capacity((self.rows.len() + 4) * (inner + 8));
        rule('┌', '─', '┐', &mut out);
        row_text(&self.header, &mut out);
        out.push('\n');
        rule('╞', '═', '╡', &mut out);
        for row in &self.rows {
            row_text(row, &mut out);
        }
        out.push('\n');
        rule('└', '─', '┘', &mut out);
        Some(out)
    }
}

/// Columns output takes where it is not a terminal (a pipe, a file, a CI
/// log): what a reader's window shows without scrolling sideways.
pub const PIPED_WIDTH: usize = 100;

/// `--wide`: nothing is wrapped.
static WIDE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Print everything whole, however wide (`--wide`).
pub fn set_wide(wide: bool) {
    WIDE.store(wide, std::sync::atomic::Ordering::Relaxed);
}

/// The columns output may take: the terminal's, else [`PIPED_WIDTH`];
/// unbounded with `--wide`.
pub fn width() -> usize {
    if WIDE.load(std::sync::atomic::Ordering::Relaxed) {
        usize::MAX
    } else if std::io::stdout().is_terminal() {
        comfy_table::Table::new()
            .width()
            .map_or(PIPED_WIDTH, usize::from)
    } else {
        PIPED_WIDTH
    }
}

impl Table {
    /// The table within [`width`]: its widest cells wrap.
    /// Each column narrowed until the table fits: first the one with the
    /// most room above its longest word (a rule written as a sentence wraps
    /// before a name does), so words stay whole; only a table too wide even
    /// then breaks its longest words. A header wraps at its words.
    pub fn fitted(&self) -> String {
        let limit = width();
        if limit == usize::MAX {
            return self.comfy(ContentArrangement::Disabled).to_string();
        }
        let columns = self.header.len();
        let longest_word = |cell: &str| {
            cell.split_whitespace()
                .map(|w| w.width())
                .max()
                .unwrap_or(0)
        };
        let mut words: Vec<usize> = self.header.iter().map(|h| longest_word(h).max(1)).collect();
        let mut widths = words.clone();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.lines().map(|l| l.width()).max().unwrap_or(0));
                words[i] = words[i].max(longest_word(cell));
            }
        }
        // Borders, a space of padding each side of a cell, one between.
        let available = limit.saturating_sub(3 * columns + 1);
        while widths.iter().sum::<usize>() > available {
            let Some(roomiest) = (0..columns)
                .filter(|&i| widths[i] > words[i])
                .max_by_key(|&i| (widths[i] - words[i], widths[i]))
            else {
                break;
            };
            widths[roomiest] -= 1;
        }
        while widths.iter().sum::<usize>() > available {
            let Some(widest) = (0..columns)
                .filter(|&i| widths[i] > 4)
                .max_by_key(|&i| widths[i])
            else {
                break;
            };
            widths[widest] -= 1;
        }
        let mut t = self.comfy(ContentArrangement::Dynamic);
        t.set_width(u16::try_from(limit).unwrap_or(u16::MAX));
        for (i, w) in widths.iter().enumerate() {
            if let Some(column) = t.column_mut(i) {
                column.set_constraint(comfy_table::ColumnConstraint::Absolute(
                    comfy_table::Width::Fixed(u16::try_from(w + 2).unwrap_or(u16::MAX)),
                ));
            }
        }
        t.to_string()
    }
}

/// `text` wrapped at word boundaries within [`width`], each line after the
/// first indented by `hang` spaces more than the first's own indent.
pub fn wrapped(text: &str, hang: usize) -> String {
    let limit = width();
    let indent = text.len() - text.trim_start().len();
    let pad = " ".repeat(indent + hang);
    let mut out = String::with_capacity(text.len() + 16);
    let mut line = " ".repeat(indent);
    let mut used = indent;
    let mut first = true;
    // A word wider than a line (a long path, a field list) is cut at the
    // width: nothing may run past it.
    let room = limit.saturating_sub(indent + hang).max(8);
    let words = text.split_whitespace().flat_map(|word| {
        let (mut pieces, mut piece, mut used) = (Vec::new(), String::new(), 0);
        for c in word.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > room {
                pieces.push(std::mem::take(&mut piece));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        pieces.push(piece);
        pieces
    });
    for word in words {
        let word = word.as_str();
        let w = word.width();
        if !first && used + 1 + w > limit {
            out.push_str(&line);
            out.push('\n');
            line = pad.clone();
            used = pad.len();
            first = true;
        }
        if !first {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += w;
        first = false;
    }
    out.push_str(&line);
    out
}

/// A table within [`width`]: written directly where it fits (or with
/// `--wide`), else laid out by comfy-table with its widest cells wrapped.
impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = width();
        if let Some(text) = self.plain()
            && (limit == usize::MAX || text.lines().next().is_some_and(|l| l.width() <= limit))
        {
            return f.write_str(&text);
        }
        f.write_str(&self.fitted())
    }
}

/// Write text for a person: a control character from a stored name or file
/// name is shown escaped instead of steering the terminal.
pub fn print(text: &str) -> std::io::Result<()> {
    let text = breakpoint_api::text::printable_multiline(text);
    let text = fit_lines(&text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Lines of prose wider than [`width`] wrapped at words, each continuation
/// indented two more than its line; a table's lines are laid out already.
fn fit_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let limit = width();
    if limit == usize::MAX || text.lines().all(|l| l.width() <= limit) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let in_table = body.starts_with(['┌', '│', '╞', '├', '└', '+', '|']);
        if body.width() > limit && !in_table {
            out.push_str(&wrapped(body, 2));
        } else {
            out.push_str(body);
        }
        out.push_str(end);
    }
    std::borrow::Cow::Owned(out)
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
    breakpoint_api::text::time_words(t)
}

/// An elapsed time in milliseconds as every face says it ("2 h 17 min",
/// "42 s").
pub fn duration_ms(ms: i64) -> String {
    breakpoint_api::presentation::elapsed(ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    #[test]
    fn wrapped_lines_keep_within_the_width_and_hang() {
        let text = format!("  to measure it: {}", "word ".repeat(60));
        let long = format!("  {}", "x".repeat(250));
        for line in wrapped(&long, 2).lines() {
            assert!(line.width() <= PIPED_WIDTH, "{line}");
        }
        let out = wrapped(&text, 2);
        assert!(out.lines().count() > 2);
        for (i, line) in out.lines().enumerate() {
            assert!(line.width() <= PIPED_WIDTH, "{line}");
            assert!(
                line.starts_with(if i == 0 { "  to" } else { "    word" }),
                "{line}"
            );
        }
    }

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(number(12.8), "12.8");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.00001), "0");
        assert_eq!(number(1.23456), "1.2346");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration_ms(8_220_000), "2 h 17 min");
        assert_eq!(duration_ms(61_000), "1 min 1 s");
        assert_eq!(duration_ms(42_000), "42 s");
    }

    /// Cells as the command line fills them: words, numbers, dashes and
    /// per cents, CJK names, empty cells.
    fn any_cell() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9 ._%–-]{0,12}",
            "[阿里云腾讯华为]{1,4}",
            Just(String::new()),
            Just("–".to_string()),
        ]
    }

    proptest! {
        /// Written here, a table is the text comfy-table makes of it.
        #[test]
        fn a_plain_table_is_what_comfy_table_writes(
            (header, rows) in (1usize..6).prop_flat_map(|n| (
                proptest::collection::vec(any_cell(), n),
                proptest::collection::vec(proptest::collection::vec(any_cell(), n), 0..6),
            )),
        ) {
            let mut t = Table { header, rows: Vec::new() };
            for row in rows {
                t.add_row(row);
            }
            prop_assert_eq!(
                t.plain().unwrap(),
                t.comfy(ContentArrangement::Disabled).to_string()
            );
        }
    }

    #[test]
    fn what_only_comfy_table_lays_out_is_left_to_it() {
        let mut t = table(&["a", "b"]);
        t.add_row(["one\ntwo", "x"]);
        assert!(t.plain().is_none());
        let mut t = table(&["a", "b"]);
        t.add_row(["only one"]);
        assert!(t.plain().is_none());
    }
}
