//! `nvidia-smi dmon` text: whitespace-aligned columns under `#` headers, a
//! units line, the header repeated every screenful, `-` for what a GPU does
//! not report (MIG instances show `-` for all utilisation), optional date and
//! time columns (`-o DT`, `-o T`), any `-s` selection.

use std::io::BufRead;
use std::ops::Range;
use std::sync::Arc;

use jiff::civil::Date;
use smallvec::SmallVec;

use super::super::ParseContext;
use super::super::blocks::{self, ReadsAhead};
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::Line;
use super::super::smi_messages;
use super::super::timestamps::TimeReader;
use super::super::values::{ValueReader, is_missing};
use super::RoundClock;
use crate::samples::{Field, Sample};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Column {
    Date,
    Time,
    Gpu,
    Value(Field),
    /// `tviol`: a thermal violation in the interval (counts as throttling).
    ThermalViolation,
    /// `pviol`: % of the interval at the power cap (shown, not counted).
    PowerViolation,
    Ignored,
}

fn classify(name: &str) -> Column {
    use Field::*;
    match name {
        "date" => Column::Date,
        "time" => Column::Time,
        "gpu" | "idx" => Column::Gpu,
        "pwr" => Column::Value(PowerMw),
        "gtemp" => Column::Value(TempGpuC),
        "mtemp" => Column::Value(TempMemC),
        "sm" => Column::Value(UtilGpuPct),
        "mem" => Column::Value(UtilMemPct),
        "enc" => Column::Value(UtilEncPct),
        "dec" => Column::Value(UtilDecPct),
        "mclk" => Column::Value(MemClockMhz),
        // dmon's processor clock is the graphics/SM clock.
        "pclk" => Column::Value(SmClockMhz),
        "fb" => Column::Value(MemUsedMib),
        "rxpci" => Column::Value(PcieRxKbps),
        "txpci" => Column::Value(PcieTxKbps),
        "pviol" => Column::PowerViolation,
        "tviol" => Column::ThermalViolation,
        _ => Column::Ignored,
    }
}

struct Layout {
    header: String,
    columns: Vec<Column>,
    /// Each value column's reader, its unit worked out once (from the units
    /// line under the names, else dmon's own units).
    readers: Vec<Option<ValueReader>>,
}

impl Layout {
    fn new(header: &str, columns: Vec<Column>, units: Option<&[&str]>) -> Self {
        let readers = columns
            .iter()
            .enumerate()
            .map(|(i, column)| match column {
                Column::Value(field) => {
                    let unit = units.and_then(|u| u.get(i)).and_then(|u| match *u {
                        "Idx" | "YYYYMMDD" | "HH:MM:SS" | "-" => None,
                        u => Some(u),
                    });
                    Some(ValueReader::new(*field, unit))
                }
                _ => None,
            })
            .collect();
        Self {
            header: header.to_string(),
            columns,
            readers,
        }
    }
}

/// A row's cells; dmon prints at most a few dozen columns.
type Cells<'a> = SmallVec<[&'a str; 32]>;

/// The cells of a row: `split_ascii_whitespace`, as a loop over bytes
/// (the iterator was a fifth of a dmon import).
fn cells_of(text: &str) -> Cells<'_> {
    let bytes = text.as_bytes();
    let mut cells = Cells::new();
    let mut at = 0;
    while at < bytes.len() {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        // Cut at ASCII bytes, so at characters' edges.
        if let Some(cell) = text.get(start..at).filter(|c| !c.is_empty()) {
            cells.push(cell);
        }
    }
    cells
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    parse_in(input, ctx, b, Some(blocks::BLOCK_BYTES))
}

/// Read the file; once the columns are known and a row has been read, in
/// blocks of about `block_bytes` on every core, or line by line (`None`,
/// the reference the blocks are held to in tests).
fn parse_in<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: Option<usize>,
) -> ParseResult {
    let mut reading = Reading::default();
    blocks::read_lines(input, &mut reading, ctx, b, block_bytes)?;
    reading.finish()
}

/// Where the reading stands between lines.
#[derive(Default)]
struct Reading {
    layout: Option<Arc<Layout>>,
    /// Counts the layouts: a row read ahead under an earlier one is read
    /// again.
    layout_version: u64,
    awaiting_units: bool,
    clock: Option<RoundClock>,
    /// For `-o T`: the date of the rows, advanced when the time wraps past
    /// midnight.
    day: Option<(Date, i64)>,
    rows: u64,
    /// "date time" of a row, assembled here rather than allocated per row.
    stamp: String,
}

impl Reading {
    fn set_layout(&mut self, layout: Layout) {
        self.layout = Some(Arc::new(layout));
        self.layout_version += 1;
    }

    /// A row whose cells have been read (here or ahead, on another core).
    fn row(
        &mut self,
        row: &mut RowCells,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        match self.finish_row(row, line, ctx, b) {
            Ok(()) => {
                b.sample(&row.sample)?;
                self.rows += 1;
                Ok(())
            }
            Err(e) => b.bad_line(line, e),
        }
    }

    /// The rest of a row, in file order: which GPU it is and, unless it
    /// carries a date and a time, its time. The first error is the one
    /// reading the row from left to right meets.
    fn finish_row(
        &mut self,
        row: &mut RowCells,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> Result<(), LineError> {
        let index = std::mem::replace(&mut row.gpu, Ok(0))?;
        let gpu = b.gpu(GpuKey::Index(index));
        let t_ms = match std::mem::take(&mut row.t_ms) {
            Some(t) => t?,
            None => {
                let time_of_day = row
                    .time_of_day
                    .take()
                    .map(|(i, at)| (i, line.text.get(at).unwrap_or_default()));
                self.time_in_order(time_of_day, line.number, gpu, ctx, b)?
            }
        };
        if let Some(e) = row.value_error.take() {
            return Err(e);
        }
        row.sample.t_ms = t_ms;
        row.sample.gpu = gpu;
        Ok(())
    }

    /// The time of a row that carries no date: a time of day on the rows'
    /// date (`-o T`), or the sampling round's.
    fn time_in_order(
        &mut self,
        time_of_day: Option<(usize, &str)>,
        line_no: u64,
        gpu: u32,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> Result<i64, LineError> {
        let fail = |i: usize, reason: String| LineError::new(line_no, Some(i + 1), reason);
        if let Some((i, t)) = time_of_day {
            let (mut date, last) = match self.day {
                Some(d) => d,
                None => {
                    let date = match ctx.start {
                        Some(s) => jiff::tz::TimeZone::UTC.to_datetime(s).date(),
                        None => super::dateless_day(ctx, b, "the rows (a time of day each)"),
                    };
                    (date, i64::MIN)
                }
            };
            let mut t_ms = ctx
                .times
                .parse_on(date, t)
                .ok_or_else(|| fail(i, format!("\"{t}\" is not a time of day")))?;
            // Past midnight the time of day starts again.
            if last != i64::MIN && t_ms < last - 12 * 3_600_000 {
                date = date.tomorrow().map_err(|e| fail(i, e.to_string()))?;
                t_ms = ctx.times.parse_on(date, t).unwrap_or(t_ms);
            }
            self.day = Some((date, t_ms));
            return Ok(t_ms);
        }
        if self.clock.is_none() {
            let interval = ctx.interval_ms.unwrap_or(1000);
            let start = super::dateless_origin_ms(
                ctx,
                b,
                "the rows carry no time: they are read at the dmon interval, and",
            );
            b.interval_ms = b.interval_ms.or(Some(interval));
            self.clock = Some(RoundClock::new(start, i64::from(interval)));
        }
        Ok(self.clock.as_mut().map_or(0, |c| c.time_for(gpu)))
    }

    fn finish(&self) -> ParseResult {
        if self.rows == 0 && self.layout.is_none() {
            return Err(ParseFailure::Whole("no dmon header (# gpu …) found".into()));
        }
        Ok(())
    }
}

/// What a row's cells say, before the run is consulted: the part of
/// reading a row that needs only the layout, so it can be done ahead.
struct RowCells {
    gpu: Result<u32, LineError>,
    /// Read when the row carries a date and a time.
    t_ms: Option<Result<i64, LineError>>,
    /// When it carries a time but no date (`-o T`): the column of its time
    /// and where that lies in the line, for the time to be read in order.
    time_of_day: Option<(usize, Range<usize>)>,
    /// The readings (time and GPU are set when the row is finished).
    sample: Sample,
    value_error: Option<LineError>,
}

impl Default for RowCells {
    fn default() -> Self {
        Self {
            gpu: Ok(0),
            t_ms: None,
            time_of_day: None,
            sample: Sample::new(0, 0),
            value_error: None,
        }
    }
}

/// Read a row's cells — parts of `line` — into `row` (a fresh `RowCells`).
fn read_cells(
    l: &Layout,
    line: &str,
    cells: &[&str],
    line_no: u64,
    times: &mut TimeReader,
    stamp: &mut String,
    row: &mut RowCells,
) {
    let fail = |i: usize, reason: String| LineError::new(line_no, Some(i + 1), reason);
    let mut date = None;
    let mut time = None;
    let mut gpu = None;
    for (i, (column, cell)) in l.columns.iter().zip(cells).enumerate() {
        match column {
            Column::Date => date = Some(*cell),
            Column::Time => time = Some((i, *cell)),
            Column::Gpu => match cell.parse::<u32>() {
                Ok(g) => gpu = Some(g),
                Err(_) => {
                    row.gpu = Err(fail(i, format!("\"{cell}\" is not a GPU index")));
                    return;
                }
            },
            _ => {}
        }
    }
    row.gpu = Ok(gpu.unwrap_or(0));
    if let (None, Some((i, t))) = (date, time) {
        let at = t.as_ptr() as usize - line.as_ptr() as usize;
        row.time_of_day = Some((i, at..at + t.len()));
    }
    if let (Some(d), Some((i, t))) = (date, time) {
        stamp.clear();
        stamp.push_str(d);
        stamp.push(' ');
        stamp.push_str(t);
        row.t_ms = Some(
            times
                .parse(stamp)
                .ok_or_else(|| fail(i, format!("\"{d} {t}\" is not a date and time"))),
        );
    }
    let mut violation: Option<i64> = None;
    for (i, (column, cell)) in l.columns.iter().zip(cells).enumerate() {
        let error = match column {
            Column::Value(field) => {
                let read = l.readers[i].as_ref().map_or(Ok(None), |r| {
                    // A plain number (nearly every cell) without the
                    // general reader; it reads anything else, the same.
                    match r.read_plain(cell.as_bytes(), b' ') {
                        Some((v, end)) if end == cell.len() => Ok(Some(v)),
                        _ => r.read(cell),
                    }
                });
                match read {
                    Ok(Some(v)) => {
                        row.sample.set(*field, v);
                        None
                    }
                    Ok(None) => None,
                    Err(reason) => Some(format!("{reason} for {}", field_label(*field))),
                }
            }
            Column::ThermalViolation if !is_missing(cell) => match cell.parse::<f64>() {
                Ok(v) => {
                    violation = Some(violation.unwrap_or(0) | if v > 0.0 { 0x20 } else { 0 });
                    None
                }
                Err(_) => Some(format!("\"{cell}\" is not a number for tviol")),
            },
            Column::PowerViolation if !is_missing(cell) => match cell.parse::<f64>() {
                Ok(v) => {
                    violation = Some(violation.unwrap_or(0) | if v > 0.0 { 0x4 } else { 0 });
                    None
                }
                Err(_) => Some(format!("\"{cell}\" is not a number for pviol")),
            },
            _ => None,
        };
        if let Some(reason) = error {
            row.value_error = Some(fail(i, reason));
            return;
        }
    }
    if let Some(mask) = violation {
        row.sample.set(Field::ThrottleMask, mask);
    }
}

/// What a worker made of a line.
#[derive(Default)]
struct Ahead {
    /// A row read under the plan; anything else is read again in order.
    row: bool,
    cells: RowCells,
}

impl ReadsAhead for Reading {
    type Plan = (Arc<Layout>, u64);
    /// A time reader, and where a row's date and time are put together.
    type Worker = (TimeReader, String);
    type Ahead = Ahead;

    fn ready(&self) -> bool {
        self.layout.is_some() && self.rows > 0
    }

    fn plan(&self) -> ParseResult<Self::Plan> {
        match &self.layout {
            Some(layout) => Ok((layout.clone(), self.layout_version)),
            None => Err(ParseFailure::Whole("no dmon header (# gpu …) found".into())),
        }
    }

    fn worker(&self, ctx: &ParseContext) -> Self::Worker {
        (TimeReader::new(ctx.times.zone().clone()), String::new())
    }

    fn read_ahead(
        plan: &Self::Plan,
        worker: &mut Self::Worker,
        line: &Line<'_>,
        ahead: &mut Ahead,
    ) {
        let l = &plan.0;
        let text = line.text.trim();
        // A row as `line` would take it: digits first, as many cells as
        // the header names; anything else is read again in order.
        ahead.row = text.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && smi_messages::recognise(text).is_none();
        if !ahead.row {
            return;
        }
        let cells = cells_of(text);
        ahead.row = cells.len() == l.columns.len();
        if ahead.row {
            ahead.cells = RowCells::default();
            let (times, stamp) = worker;
            read_cells(
                l,
                line.text,
                &cells,
                line.number,
                times,
                stamp,
                &mut ahead.cells,
            );
        }
    }

    fn finish(
        &mut self,
        plan: &Self::Plan,
        line: &Line<'_>,
        ahead: &mut Ahead,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        if !ahead.row || plan.1 != self.layout_version {
            return self.line(line, ctx, b);
        }
        self.row(&mut ahead.cells, line, ctx, b)
    }

    fn line(
        &mut self,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        let text = line.text.trim();
        if text.is_empty() {
            return Ok(());
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            return Ok(());
        }
        if let Some(rest) = text.strip_prefix('#') {
            let words: Vec<String> = rest
                .split_whitespace()
                .map(str::to_ascii_lowercase)
                .collect();
            let is_names = words.iter().any(|w| w == "gpu");
            if is_names {
                if self.layout.as_ref().is_none_or(|l| l.header != rest.trim()) {
                    let columns: Vec<Column> = words.iter().map(|w| classify(w)).collect();
                    self.set_layout(Layout::new(rest.trim(), columns, None));
                    self.awaiting_units = true;
                }
                return Ok(());
            }
            if self.awaiting_units
                && let Some(l) = self.layout.clone()
            {
                let units: Vec<&str> = rest.split_whitespace().collect();
                if units.len() == l.columns.len() {
                    self.set_layout(Layout::new(&l.header, l.columns.clone(), Some(&units)));
                }
                self.awaiting_units = false;
            }
            return Ok(());
        }
        let cells = cells_of(text);
        let fits = text.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && self
                .layout
                .as_ref()
                .is_some_and(|l| cells.len() == l.columns.len());
        // `date` between runs of a dmon loop: it times the rows after it
        // when they carry no time of their own (no `-o DT`/`-o T`).
        if !fits && let Some(t) = ctx.times.parse_date_line(text) {
            let timed = self
                .layout
                .as_ref()
                .is_some_and(|l| l.columns.iter().any(|c| matches!(c, Column::Time)));
            if !timed {
                let interval = ctx.interval_ms.unwrap_or(1000);
                b.interval_ms = b.interval_ms.or(Some(interval));
                self.clock = Some(RoundClock::new(t, i64::from(interval)));
            }
            return Ok(());
        }
        let Some(l) = self.layout.clone() else {
            return Err(LineError::new(
                line.number,
                None,
                "a data row before any dmon header (# gpu …)",
            )
            .into());
        };
        if cells.len() != l.columns.len() {
            let error = LineError::new(
                line.number,
                None,
                format!(
                    "the row has {} columns but the header names {}",
                    cells.len(),
                    l.columns.len()
                ),
            );
            return b.bad_line(line, error);
        }
        let mut row = RowCells::default();
        read_cells(
            &l,
            line.text,
            &cells,
            line.number,
            &mut ctx.times,
            &mut self.stamp,
            &mut row,
        );
        self.row(&mut row, line, ctx, b)
    }
}

fn field_label(field: Field) -> &'static str {
    match field {
        Field::PowerMw => "pwr",
        Field::TempGpuC => "gtemp",
        Field::TempMemC => "mtemp",
        Field::UtilGpuPct => "sm",
        Field::UtilMemPct => "mem",
        Field::UtilEncPct => "enc",
        Field::UtilDecPct => "dec",
        Field::MemClockMhz => "mclk",
        Field::SmClockMhz => "pclk",
        Field::MemUsedMib => "fb",
        Field::PcieRxKbps => "rxpci",
        Field::PcieTxKbps => "txpci",
        other => other.key(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PARSE: blocks::testing::Parse = |i, c, b, s| parse_in(i, c, b, s);

    fn parsed(input: &[u8], block_bytes: Option<usize>, skip_bad_lines: bool) -> String {
        blocks::testing::parsed(PARSE, input, block_bytes, skip_bad_lines)
    }

    #[test]
    fn every_fixture_reads_the_same_in_blocks() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/logs/dmon");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let input = std::fs::read(entry.unwrap().path()).unwrap();
            blocks::testing::assert_blocks_read_like_lines(PARSE, &input, &[1, 50, 1 << 20]);
            files += 1;
        }
        assert!(files >= 8, "{files} fixtures");
    }

    /// Lines of every kind the reader meets, for files made of them.
    const LINES: &[&str] = &[
        " 20240601    23:59:58       0    250     71     80     97     48      0      0   1593   1410  61227",
        " 20240601    23:59:58       1    251     72     81     98     49      0      0   1593   1410  61227",
        " 20240602    00:00:01       0      -      -      -      -      -      -      -   1593    210      4",
        " 20240602    00:00:01       1    24x     45     50      0      0      0      0   1593    210      4",
        " 2024060x    00:00:02       0     60     45     50      0      0      0      0   1593    210      4\r",
        " 20240602    00:00:02       y     60     45     50      0      0      0      0   1593    210      4",
        " 20240602    00:00:03       0     60     45     50",
        "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk    fb",
        "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %    MHz    MHz    MB",
        "#Time         gpu    pwr  gtemp     sm",
        "#HH:MM:SS     Idx      W      C      %",
        " 23:59:59       0    214     41     78",
        " 00:00:01       1    215     42     79",
        " 25:00:01       1    215     42     79",
        "# gpu    pwr  gtemp     sm  pviol  tviol",
        "# Idx      W      C      %      %   bool",
        "    0    342     47    100      0      1",
        "    1    340     46     99    1.5      0",
        "    1    340     46     99    1.5   yes",
        "Sat Jun  1 00:00:09 UTC 2024",
        "Failed to initialize NVML: Driver/library version mismatch",
        "",
        "   ",
    ];

    /// A file of `picks` from `LINES` after a first header and row.
    fn file(picks: &[usize], last_cut: bool) -> Vec<u8> {
        blocks::testing::file_of(&[LINES[7], LINES[8], LINES[0]], LINES, picks, last_cut)
    }

    #[test]
    fn blocks_read_what_lines_read() {
        let all: Vec<usize> = (0..LINES.len()).chain(0..LINES.len()).collect();
        let mut input = file(&all, true);
        blocks::testing::assert_blocks_read_like_lines(PARSE, &input, &[1, 2, 7, 64, 300, 1 << 20]);
        // A line that is not UTF-8 stops the import where it is, however read.
        input.extend_from_slice(
            b"\n    0    3\xff2     47    100      0      1\n    1  1  1  1  1  1\n",
        );
        blocks::testing::assert_not_utf8_stops_alike(PARSE, &input);
    }

    proptest! {
        #[test]
        fn cells_are_split_ascii_whitespace(text in "[ \t\r\x0C0-9a-z.é\u{a0}-]{0,60}") {
            let expected: Vec<&str> = text.split_ascii_whitespace().collect();
            prop_assert_eq!(cells_of(&text).to_vec(), expected);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any mix of rows, headers, units, date lines, messages and bad
        /// lines reads the same in blocks of any size as line by line.
        #[test]
        fn any_file_reads_the_same_in_blocks(
            picks in proptest::collection::vec(0..LINES.len(), 0..40),
            last_cut: bool,
            skip: bool,
            size in 1usize..400,
        ) {
            let input = file(&picks, last_cut);
            prop_assert_eq!(parsed(&input, Some(size), skip), parsed(&input, None, skip));
        }
    }
}
