//! `nvidia-smi dmon` text: whitespace-aligned columns under `#` headers, a
//! units line, the header repeated every screenful, `-` for what a GPU does
//! not report (MIG instances show `-` for all utilisation), optional date and
//! time columns (`-o DT`, `-o T`), any `-s` selection.

use std::io::BufRead;

use jiff::civil::Date;
use smallvec::SmallVec;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::smi_messages;
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

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut layout: Option<Layout> = None;
    let mut awaiting_units = false;
    let mut clock: Option<RoundClock> = None;
    // For `-o T`: the date of the rows, advanced when the time wraps past midnight.
    let mut day: Option<(Date, i64)> = None;
    let mut rows = 0u64;
    // "date time" of a row, assembled here rather than allocated per row.
    let mut stamp = String::new();

    while let Some(line) = lines.next_line()? {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            continue;
        }
        if let Some(rest) = text.strip_prefix('#') {
            let words: Vec<String> = rest
                .split_whitespace()
                .map(str::to_ascii_lowercase)
                .collect();
            let is_names = words.iter().any(|w| w == "gpu");
            if is_names {
                if layout.as_ref().is_none_or(|l| l.header != rest.trim()) {
                    let columns: Vec<Column> = words.iter().map(|w| classify(w)).collect();
                    layout = Some(Layout::new(rest.trim(), columns, None));
                    awaiting_units = true;
                }
                continue;
            }
            if awaiting_units && let Some(l) = layout.as_mut() {
                let units: Vec<&str> = rest.split_whitespace().collect();
                if units.len() == l.columns.len() {
                    *l = Layout::new(&l.header, std::mem::take(&mut l.columns), Some(&units));
                }
                awaiting_units = false;
            }
            continue;
        }
        let cells: Cells<'_> = text.split_ascii_whitespace().collect();
        let fits = text.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && layout
                .as_ref()
                .is_some_and(|l| cells.len() == l.columns.len());
        // `date` between runs of a dmon loop: it times the rows after it
        // when they carry no time of their own (no `-o DT`/`-o T`).
        if !fits && let Some(t) = ctx.times.parse_date_line(text) {
            let timed = layout
                .as_ref()
                .is_some_and(|l| l.columns.iter().any(|c| matches!(c, Column::Time)));
            if !timed {
                let interval = ctx.interval_ms.unwrap_or(1000);
                b.interval_ms = b.interval_ms.or(Some(interval));
                clock = Some(RoundClock::new(t, i64::from(interval)));
            }
            continue;
        }
        let Some(l) = layout.as_ref() else {
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
            b.bad_line(&line, error)?;
            continue;
        }
        match read_row(
            l,
            &cells,
            line.number,
            ctx,
            b,
            &mut clock,
            &mut day,
            &mut stamp,
        ) {
            Ok(Some(sample)) => {
                b.sample(sample)?;
                rows += 1;
            }
            Ok(None) => {}
            Err(RowError::Line(e)) => b.bad_line(&line, e)?,
        }
    }
    if rows == 0 && layout.is_none() {
        return Err(ParseFailure::Whole("no dmon header (# gpu …) found".into()));
    }
    Ok(())
}

enum RowError {
    Line(LineError),
}

#[allow(clippy::too_many_arguments)]
fn read_row(
    l: &Layout,
    cells: &[&str],
    line_no: u64,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    clock: &mut Option<RoundClock>,
    day: &mut Option<(Date, i64)>,
    stamp: &mut String,
) -> Result<Option<Sample>, RowError> {
    let fail =
        |i: usize, reason: String| RowError::Line(LineError::new(line_no, Some(i + 1), reason));
    let mut date = None;
    let mut time = None;
    let mut gpu = None;
    for (i, (column, cell)) in l.columns.iter().zip(cells).enumerate() {
        match column {
            Column::Date => date = Some(*cell),
            Column::Time => time = Some((i, *cell)),
            Column::Gpu => {
                gpu = Some(
                    cell.parse::<u32>()
                        .map_err(|_| fail(i, format!("\"{cell}\" is not a GPU index")))?,
                )
            }
            _ => {}
        }
    }
    let gpu = b.gpu(GpuKey::Index(gpu.unwrap_or(0)));
    let t_ms = match (date, time) {
        (Some(d), Some((i, t))) => {
            stamp.clear();
            stamp.push_str(d);
            stamp.push(' ');
            stamp.push_str(t);
            ctx.times
                .parse(stamp)
                .ok_or_else(|| fail(i, format!("\"{d} {t}\" is not a date and time")))?
        }
        (None, Some((i, t))) => {
            let (mut date, last) = match *day {
                Some(d) => d,
                None => {
                    let date = match ctx.start {
                        Some(s) => jiff::tz::TimeZone::UTC.to_datetime(s).date(),
                        None => {
                            b.warn("the rows carry a time of day but no date; dates count from 1970-01-01 (give --start to anchor them)");
                            Date::constant(1970, 1, 1)
                        }
                    };
                    (date, i64::MIN)
                }
            };
            let mut t = ctx
                .times
                .parse_on(date, t)
                .ok_or_else(|| fail(i, format!("\"{t}\" is not a time of day")))?;
            // Past midnight the time of day starts again.
            if last != i64::MIN && t < last - 12 * 3_600_000 {
                date = date.tomorrow().map_err(|e| fail(i, e.to_string()))?;
                t = ctx.times.parse_on(date, cells[i]).unwrap_or(t);
            }
            *day = Some((date, t));
            t
        }
        _ => {
            if clock.is_none() {
                let interval = ctx.interval_ms.unwrap_or(1000);
                let start = ctx.start.map_or(0, |s| s.as_millisecond());
                if ctx.start.is_none() {
                    b.warn("the rows carry no time; times count from 1970-01-01 at the dmon interval (give --start and --interval)");
                }
                b.interval_ms = b.interval_ms.or(Some(interval));
                *clock = Some(RoundClock::new(start, i64::from(interval)));
            }
            clock.as_mut().map_or(0, |c| c.time_for(gpu))
        }
    };
    let mut sample = Sample::new(t_ms, gpu);
    let mut violation: Option<i64> = None;
    for (i, (column, cell)) in l.columns.iter().zip(cells).enumerate() {
        match column {
            Column::Value(field) => {
                match l.readers[i].as_ref().map_or(Ok(None), |r| r.read(cell)) {
                    Ok(Some(v)) => {
                        sample.set(*field, v);
                    }
                    Ok(None) => {}
                    Err(reason) => {
                        return Err(fail(i, format!("{reason} for {}", field_label(*field))));
                    }
                }
            }
            Column::ThermalViolation if !is_missing(cell) => {
                let active = cell
                    .parse::<f64>()
                    .map_err(|_| fail(i, format!("\"{cell}\" is not a number for tviol")))?
                    > 0.0;
                violation = Some(violation.unwrap_or(0) | if active { 0x20 } else { 0 });
            }
            Column::PowerViolation if !is_missing(cell) => {
                let active = cell
                    .parse::<f64>()
                    .map_err(|_| fail(i, format!("\"{cell}\" is not a number for pviol")))?
                    > 0.0;
                violation = Some(violation.unwrap_or(0) | if active { 0x4 } else { 0 });
            }
            _ => {}
        }
    }
    if let Some(mask) = violation {
        sample.set(Field::ThrottleMask, mask);
    }
    Ok(Some(sample))
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
