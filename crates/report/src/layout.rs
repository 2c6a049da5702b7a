//! Page layout for the report: a list of drawing operations per page,
//! built top-down with a cursor, tables that continue on the next page with
//! their header repeated. Rendering (pdf.rs) only replays the operations,
//! which keeps pagination testable and the output deterministic.

use crate::fonts::needs_cjk;

/// A4 landscape, in PDF points.
pub const PAGE_W: f32 = 842.0;
pub const PAGE_H: f32 = 595.0;
pub const MARGIN: f32 = 36.0;
const BOTTOM: f32 = PAGE_H - MARGIN - 18.0;

pub type Rgb = (u8, u8, u8);
pub const INK: Rgb = (0x22, 0x22, 0x22);
pub const MUTED: Rgb = (0x66, 0x66, 0x66);
pub const RULE: Rgb = (0xCC, 0xCC, 0xCC);
pub const BAND: Rgb = (0xF2, 0xF2, 0xF2);
pub const WARN: Rgb = (0xD5, 0x5E, 0x00);

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Text {
        x: f32,
        y: f32,
        size: f32,
        text: String,
        bold: bool,
        colour: Rgb,
    },
    Line {
        from: (f32, f32),
        to: (f32, f32),
        width: f32,
        colour: Rgb,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        colour: Rgb,
    },
    Svg {
        svg: String,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Align {
    Left,
    Right,
}

pub struct Column {
    pub header: String,
    pub width: f32,
    pub align: Align,
}

impl Column {
    pub fn new(header: impl Into<String>, width: f32, align: Align) -> Self {
        Self {
            header: header.into(),
            width,
            align,
        }
    }
}

/// Roughly how wide text sets in the report's fonts: CJK glyphs are square,
/// Latin ones a little over half an em.
pub fn text_width(text: &str, size: f32) -> f32 {
    text.chars()
        .map(|c| {
            if needs_cjk(c.encode_utf8(&mut [0; 4])) {
                size
            } else if c.is_ascii_uppercase() || c == 'm' || c == 'w' || c == 'W' || c == 'M' {
                size * 0.72
            } else if c == ' '
                || c == '.'
                || c == ','
                || c == ':'
                || c == 'i'
                || c == 'l'
                || c == '|'
            {
                size * 0.32
            } else {
                // Digits and most lower-case letters are about 0.6 em in DejaVu Sans.
                size * 0.62
            }
        })
        .sum()
}

/// Cut text to fit `width`, ending with an ellipsis when cut.
pub fn clip(text: &str, size: f32, width: f32) -> String {
    if text_width(text, size) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if text_width(&out, size) + text_width(&c.to_string(), size) + size * 0.6 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// Break text into lines no wider than `width` (at spaces; CJK anywhere).
pub fn wrap(text: &str, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split_inclusive(' ') {
            let candidate = format!("{line}{word}");
            if text_width(candidate.trim_end(), size) > width && !line.is_empty() {
                lines.push(line.trim_end().to_string());
                line = String::new();
            }
            // A single word longer than the line is cut by characters.
            if text_width(word, size) > width {
                for c in word.chars() {
                    if text_width(&format!("{line}{c}"), size) > width {
                        lines.push(std::mem::take(&mut line));
                    }
                    line.push(c);
                }
            } else {
                line.push_str(word);
            }
        }
        lines.push(line.trim_end().to_string());
    }
    lines
}

pub struct Layout {
    pub pages: Vec<Vec<Op>>,
    pub y: f32,
}

impl Default for Layout {
    fn default() -> Self {
        Self::new()
    }
}

impl Layout {
    pub fn new() -> Self {
        Self {
            pages: Vec::new(),
            y: MARGIN,
        }
    }

    fn ops(&mut self) -> &mut Vec<Op> {
        if self.pages.is_empty() {
            self.pages.push(Vec::new());
        }
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    pub fn page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN;
    }

    /// Start a new page unless `height` still fits on this one.
    pub fn need(&mut self, height: f32) {
        if self.pages.is_empty() || self.y + height > BOTTOM {
            self.page();
        }
    }

    pub fn text_at(&mut self, x: f32, y: f32, size: f32, text: &str, bold: bool, colour: Rgb) {
        self.ops().push(Op::Text {
            x,
            y,
            size,
            // What came from outside (names, file names) is shown, never obeyed.
            text: breakpoint_core::text::printable(text).into_owned(),
            bold,
            colour,
        });
    }

    pub fn heading(&mut self, text: &str) {
        self.need(40.0);
        let y = self.y + 18.0;
        self.text_at(MARGIN, y, 18.0, text, true, INK);
        self.y += 30.0;
    }

    pub fn subheading(&mut self, text: &str) {
        self.need(36.0);
        let y = self.y + 13.0;
        self.text_at(MARGIN, y, 13.0, text, true, INK);
        self.y += 22.0;
    }

    pub fn paragraph(&mut self, text: &str, size: f32, colour: Rgb) {
        for line in wrap(text, size, PAGE_W - 2.0 * MARGIN) {
            self.need(size * 1.45);
            let y = self.y + size;
            self.text_at(MARGIN, y, size, &line, false, colour);
            self.y += size * 1.45;
        }
        self.y += size * 0.4;
    }

    pub fn gap(&mut self, h: f32) {
        self.y += h;
    }

    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: Rgb) {
        self.ops().push(Op::Rect { x, y, w, h, colour });
    }

    pub fn line(&mut self, from: (f32, f32), to: (f32, f32), width: f32, colour: Rgb) {
        self.ops().push(Op::Line {
            from,
            to,
            width,
            colour,
        });
    }

    /// A chart scaled to the page width (at most `max_h` high).
    pub fn svg(&mut self, svg: String, w_px: f32, h_px: f32, max_h: f32) {
        let avail_w = PAGE_W - 2.0 * MARGIN;
        let scale = (avail_w / w_px).min(max_h / h_px);
        let (w, h) = (w_px * scale, h_px * scale);
        self.need(h + 6.0);
        let y = self.y;
        self.ops().push(Op::Svg {
            svg,
            x: MARGIN,
            y,
            w,
            h,
        });
        self.y += h + 8.0;
    }

    /// A table; rows that do not fit continue on the next page under a
    /// repeated header. Cells are clipped to their column.
    pub fn table(&mut self, columns: &[Column], rows: &[Vec<String>], size: f32) {
        let row_h = size * 1.75;
        let header = |l: &mut Layout| {
            l.need(row_h * 2.0);
            let mut x = MARGIN;
            let y = l.y;
            for c in columns {
                let text = clip(&c.header, size, c.width - 12.0);
                let tx = match c.align {
                    Align::Left => x + 3.0,
                    Align::Right => x + c.width - 9.0 - text_width(&text, size),
                };
                l.text_at(tx, y + size * 1.2, size, &text, true, INK);
                x += c.width;
            }
            let total: f32 = columns.iter().map(|c| c.width).sum();
            l.line((MARGIN, y + row_h), (MARGIN + total, y + row_h), 0.8, INK);
            l.y += row_h;
        };
        header(self);
        let total: f32 = columns.iter().map(|c| c.width).sum();
        for (i, row) in rows.iter().enumerate() {
            if self.y + row_h > BOTTOM {
                self.page();
                header(self);
            }
            let y = self.y;
            if i % 2 == 1 {
                self.rect(MARGIN, y, total, row_h, BAND);
            }
            let mut x = MARGIN;
            for (c, cell) in columns.iter().zip(row) {
                let text = clip(cell, size, c.width - 12.0);
                let tx = match c.align {
                    Align::Left => x + 3.0,
                    Align::Right => x + c.width - 9.0 - text_width(&text, size),
                };
                self.text_at(tx, y + size * 1.2, size, &text, false, INK);
                x += c.width;
            }
            self.y += row_h;
        }
        self.line((MARGIN, self.y), (MARGIN + total, self.y), 0.5, RULE);
        self.y += size;
    }

    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.pages.iter().flatten().filter_map(|op| match op {
            Op::Text { text, .. } => Some(text.as_str()),
            Op::Svg { svg, .. } => Some(svg.as_str()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tables_continue_on_new_pages_with_their_header() {
        let mut l = Layout::new();
        l.heading("Matrix");
        let columns = [
            Column::new("platform", 200.0, Align::Left),
            Column::new("score", 80.0, Align::Right),
        ];
        let rows: Vec<Vec<String>> = (0..100)
            .map(|i| vec![format!("platform {i}"), format!("{i}.0")])
            .collect();
        l.table(&columns, &rows, 9.0);
        assert!(l.pages.len() >= 3, "{} pages", l.pages.len());
        for page in &l.pages {
            assert!(
                page.iter().any(
                    |op| matches!(op, Op::Text { text, bold: true, .. } if text == "platform")
                )
            );
        }
        let rows_drawn = l.texts().filter(|t| t.starts_with("platform ")).count();
        assert_eq!(rows_drawn, 100);
    }

    #[test]
    fn text_wraps_and_clips() {
        let lines = wrap(
            "one two three four five six seven eight nine ten",
            10.0,
            60.0,
        );
        assert!(lines.len() > 2);
        assert!(lines.iter().all(|l| text_width(l, 10.0) <= 60.0));
        assert_eq!(clip("short", 10.0, 100.0), "short");
        assert!(clip("a very long platform name indeed", 10.0, 60.0).ends_with('…'));
        assert!(text_width("阿里云", 10.0) > text_width("abc", 10.0));
    }
}
