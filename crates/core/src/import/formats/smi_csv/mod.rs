//! `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`, with or
//! without `-l`/`-lms`, in every shape scripts leave behind: any subset and
//! order of fields (up to full dumps of 200+ columns), units in the header
//! (`power.draw [W]`) or in the values (`33.09 W`), `[N/A]`-style cells,
//! several GPUs interleaved (by index, UUID or PCI bus id), throttle reasons
//! as a hex mask or as per-reason `Active`/`Not Active` columns (both naming
//! generations), the header repeated before every row, rows without a time.
//!
//! This is the bulk path (1.4 M rows for 48 h on 8 GPUs), so a row is read in
//! one pass over its cells with no allocation. What the columns are — from
//! the header, `--fields` or the values' shape — is `layout`'s; this file
//! reads the rows.

mod layout;

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, Loss, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{Line, LineReader};
use super::super::smi_messages;
use super::super::values::{is_gpu_lost, is_missing, parse_field, split_unit};
use super::{RoundClock, split_cells};
use crate::accelerator;
use crate::samples::{Field, Sample};
use layout::{Column, Inv, Layout, infer_layout, is_header};

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut layout = match &ctx.fields {
        Some(fields) => Some(Layout::from_names(fields, None).map_err(ParseFailure::Whole)?),
        None => None,
    };
    let mut clock: Option<RoundClock> = None;
    let mut inventory_done: Vec<bool> = Vec::new();
    let mut unknown_reported = false;
    // With no id column, GPUs are told apart by their place among rows that
    // share a timestamp.
    let mut positional = (i64::MIN, 0u32);
    // Rows without times read as one snapshot at the file's time; how many.
    let mut snapshot = false;
    let mut rows = 0u64;

    while let Some(line) = lines.next_line()? {
        let text = line.text;
        if text.trim().is_empty() {
            continue;
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            continue;
        }
        if is_header(text) {
            let repeated = layout
                .as_ref()
                .and_then(|l| l.header_text.as_deref())
                .is_some_and(|h| h == text);
            if !repeated {
                let names: Vec<String> = text.split(',').map(str::to_string).collect();
                let new = Layout::from_names(&names, Some(text.to_string()))
                    .map_err(|e| LineError::new(line.number, None, e))?;
                if !unknown_reported {
                    let unknown: Vec<&str> = new
                        .columns
                        .iter()
                        .filter(|(c, _, _)| *c == Column::Unknown)
                        .map(|(_, _, n)| n.as_str())
                        .collect();
                    if !unknown.is_empty() {
                        b.metadata
                            .insert("unknown_columns".into(), serde_json::json!(unknown));
                        unknown_reported = true;
                    }
                }
                layout = Some(new);
            }
            continue;
        }
        if layout.is_none() {
            match infer_layout(text) {
                Ok(inferred) => layout = Some(inferred),
                // A `date` line before the first header-less rows.
                Err(_) if let Some(t) = ctx.times.parse_date_line(text) => {
                    clock = Some(clock_from_date(t, ctx, b));
                    continue;
                }
                Err(e) => return Err(LineError::new(line.number, None, e).into()),
            }
        }
        let Some(layout) = layout.as_ref() else {
            continue;
        };
        if !layout.has_time && clock.is_none() {
            // `date` before the rows (`while :; do date; nvidia-smi …; done`)
            // times them, interval or not.
            if let Some(t) = ctx.times.parse_date_line(text) {
                clock = Some(clock_from_date(t, ctx, b));
                continue;
            }
            let interval = match (ctx.interval_ms.or(b.interval_ms), ctx.start, ctx.file_time) {
                (Some(interval), _, _) => interval,
                // One snapshot (`nvidia-smi --query-gpu=… --format=csv >
                // snap.csv`): taken when the file was written. More than
                // one row per GPU is refused at the end.
                (None, None, Some(written)) => {
                    b.warn(format!(
                        "the rows carry no time: read as one snapshot taken when the file was written, {}",
                        written.strftime("%Y-%m-%d %H:%M:%S UTC")
                    ));
                    snapshot = true;
                    clock = Some(RoundClock::new(written.as_millisecond(), 0));
                    0
                }
                (None, _, _) => return Err(no_times()),
            };
            if !snapshot {
                let start_ms = match ctx.start {
                    Some(s) => s.as_millisecond(),
                    None => {
                        b.warn("the rows carry no date; times count from 1970-01-01 (give --start to anchor them)");
                        0
                    }
                };
                clock = Some(RoundClock::new(start_ms, i64::from(interval)));
            }
        }
        rows += 1;
        match read_row(
            layout,
            &line,
            ctx,
            b,
            &mut inventory_done,
            clock.as_mut(),
            &mut positional,
        ) {
            Ok(()) => {}
            // Not a row: a `date` line between two runs of the loop. It
            // times the rows that follow when they carry no time themselves.
            Err(RowError::Line(_)) if let Some(t) = ctx.times.parse_date_line(text) => {
                if !layout.has_time {
                    clock = Some(clock_from_date(t, ctx, b));
                }
            }
            Err(RowError::Line(e)) => b.bad_line(&line, e)?,
            Err(RowError::Store(e)) => return Err(e),
        }
    }
    if layout.is_none() {
        return Err(ParseFailure::Whole("the file holds no rows".into()));
    }
    if snapshot && rows > b.gpu_count() as u64 {
        // Several rows per GPU and no times: a loop, whose rows cannot all
        // have been taken when the file was written.
        return Err(no_times());
    }
    Ok(())
}

fn no_times() -> ParseFailure {
    ParseFailure::Whole(
        "the rows carry no timestamp; give the sampling interval with --interval (e.g. --interval 1s)"
            .into(),
    )
}

/// The clock for time-less rows after a `date` line: from that time, one
/// round per interval (with none given, the block's rows share the time).
fn clock_from_date(t_ms: i64, ctx: &ParseContext, b: &RunBuilder<'_>) -> RoundClock {
    let step = ctx.interval_ms.or(b.interval_ms).map_or(0, i64::from);
    RoundClock::new(t_ms, step)
}

enum RowError {
    Line(LineError),
    Store(ParseFailure),
}

fn read_row(
    layout: &Layout,
    line: &Line<'_>,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    inventory_done: &mut Vec<bool>,
    clock: Option<&mut RoundClock>,
    positional: &mut (i64, u32),
) -> Result<(), RowError> {
    let fail = |col: usize, reason: String| {
        RowError::Line(LineError::new(line.number, Some(col + 1), reason))
    };
    let columns = &layout.columns;
    let mut t_ms = None;
    let mut index = None;
    let mut uuid = None;
    let mut bus = None;
    let mut sample = Sample::new(0, 0);
    let mut reasons: Option<i64> = None;
    let mut mem_free = None;
    let mut lost = false;
    let mut count = 0;
    let mut cell_of = |i: usize, cell: &str, sample: &mut Sample| -> Result<(), RowError> {
        let Some((column, unit, name)) = columns.get(i) else {
            return Ok(());
        };
        match column {
            Column::Timestamp => {
                t_ms = Some(ctx.times.parse(cell).ok_or_else(|| {
                    fail(i, format!("\"{}\" is not a time for {name}", cell.trim()))
                })?);
            }
            Column::Index => {
                index = Some(
                    cell.trim_ascii()
                        .parse::<u32>()
                        .map_err(|_| fail(i, format!("\"{}\" is not a GPU index", cell.trim())))?,
                );
            }
            Column::Uuid if !is_missing(cell) => uuid = Some(cell.trim().to_string()),
            Column::BusId if !is_missing(cell) => bus = Some(cell.trim().to_string()),
            Column::Value(field) => {
                let Some(reader) = &layout.readers[i] else {
                    return Ok(());
                };
                match reader.read(cell) {
                    Ok(Some(v)) => {
                        sample.set(*field, v);
                    }
                    // Absent, or gone: "[GPU is lost]" reads as not reported.
                    Ok(None) => lost |= is_gpu_lost(cell),
                    Err(reason) => {
                        return Err(fail(i, format!("{reason} for {}", header_name(name, unit))));
                    }
                }
            }
            Column::MemFree => {
                mem_free = parse_field(Field::MemUsedMib, cell, unit.as_deref())
                    .map_err(|r| fail(i, format!("{r} for {}", header_name(name, unit))))?;
            }
            Column::Reason(bit) => match cell.trim() {
                "Active" | "active" => reasons = Some(reasons.unwrap_or(0) | bit),
                "Not Active" | "not active" | "Not active" => reasons = Some(reasons.unwrap_or(0)),
                c if is_missing(c) => {}
                c => {
                    return Err(fail(
                        i,
                        format!("\"{c}\" is neither Active nor Not Active for {name}"),
                    ));
                }
            },
            _ => {}
        }
        Ok(())
    };
    // One pass over the cells; inventory columns wait until the GPU is known.
    let text = line.text;
    if memchr::memchr(b'"', text.as_bytes()).is_some() {
        for (i, cell) in split_cells(text).iter().enumerate() {
            count += 1;
            cell_of(i, cell, &mut sample)?;
        }
    } else {
        // nvidia-smi's own rows: a value cell is read as its bytes are
        // found (`read_plain`); anything else is cut at its comma first.
        let bytes = text.as_bytes();
        let mut at = 0;
        loop {
            let i = count;
            count += 1;
            let plain = match columns.get(i) {
                Some((Column::Value(field), _, _)) => layout.readers[i]
                    .as_ref()
                    .and_then(|r| r.read_plain(&bytes[at..], b','))
                    .map(|(v, len)| (*field, v, len)),
                _ => None,
            };
            let len = match plain {
                Some((field, v, len)) => {
                    sample.set(field, v);
                    len
                }
                None => {
                    // Cells are a few bytes long: a byte loop beats a
                    // searcher, whose set-up costs more than the search.
                    let len = bytes[at..]
                        .iter()
                        .position(|b| *b == b',')
                        .unwrap_or(bytes.len() - at);
                    cell_of(i, &text[at..at + len], &mut sample)?;
                    len
                }
            };
            at += len;
            if at >= bytes.len() {
                break;
            }
            at += 1;
        }
    }
    if count != columns.len() {
        return Err(RowError::Line(LineError::new(
            line.number,
            None,
            format!(
                "the row has {count} fields but the header names {}",
                columns.len()
            ),
        )));
    }

    let gpu = which_gpu(b, index, uuid.as_deref(), bus.as_deref(), t_ms, positional);
    sample.gpu = gpu;
    sample.t_ms = match (t_ms, clock) {
        (Some(t), _) => t,
        (None, Some(clock)) => clock.time_for(gpu),
        (None, None) => 0,
    };
    if !layout.has_mask
        && let Some(mask) = reasons
    {
        sample.set(Field::ThrottleMask, mask);
    }
    if sample.get(Field::MemUsedMib).is_none()
        && let (Some(total), Some(free)) = (sample.get(Field::MemTotalMib), mem_free)
    {
        sample.set(Field::MemUsedMib, total - free);
    }

    if !inventory_done.get(gpu as usize).copied().unwrap_or(false) {
        if inventory_done.len() <= gpu as usize {
            inventory_done.resize(gpu as usize + 1, false);
        }
        inventory_done[gpu as usize] = true;
        first_sight(layout, line.text, b, &sample);
    }
    if lost {
        // The row's other cells say nothing about a GPU that is gone: no
        // sample, one loss however many rows repeat it.
        b.gpu_lost(
            Loss::Gpu(gpu),
            Some(sample.t_ms),
            "nvidia-smi reported \"GPU is lost\"".into(),
        );
        return Ok(());
    }
    b.sample(sample).map_err(RowError::Store)
}

/// Which GPU a row is about: by index (its UUID and bus id become names of
/// that index), else by UUID, else by bus id, else — no id column at all —
/// by its place among the rows that share a timestamp.
fn which_gpu(
    b: &mut RunBuilder<'_>,
    index: Option<u32>,
    uuid: Option<&str>,
    bus: Option<&str>,
    t_ms: Option<i64>,
    positional: &mut (i64, u32),
) -> u32 {
    match (index, uuid, bus) {
        (Some(i), uuid, bus) => {
            for alias in [uuid.map(GpuKey::Uuid), bus.map(GpuKey::BusId)]
                .into_iter()
                .flatten()
            {
                b.alias(alias, i);
            }
            i
        }
        (None, Some(u), bus) => {
            let i = b.gpu(GpuKey::Uuid(u));
            if let Some(bus) = bus {
                b.alias(GpuKey::BusId(bus), i);
            }
            i
        }
        (None, None, Some(bus)) => b.gpu(GpuKey::BusId(bus)),
        (None, None, None) => {
            let t = t_ms.unwrap_or(i64::MIN);
            if positional.0 == t && t != i64::MIN {
                positional.1 += 1;
            } else {
                *positional = (t, 0);
            }
            positional.1
        }
    }
}

/// The first row of a GPU: what the inventory learns from it (its
/// identity columns, memory size, power limit).
fn first_sight(layout: &Layout, text: &str, b: &mut RunBuilder<'_>, sample: &Sample) {
    let gpu = sample.gpu;
    read_inventory(layout, text, b, gpu);
    if let Some(total) = sample.get(Field::MemTotalMib) {
        b.inventory(gpu).vram_mib = Some(total as u64);
    }
    if let Some(limit) = sample.get(Field::PowerLimitMw) {
        b.inventory(gpu).power_limit_enforced_w = Some(limit as f64 / 1000.0);
    }
}

/// The cells of a row: a plain split for nvidia-smi's own output, CSV
/// quoting rules only for lines that contain quotes.
enum Cells<'a> {
    Plain(Option<&'a str>),
    Quoted(Box<smallvec::IntoIter<[std::borrow::Cow<'a, str>; 16]>>),
}

impl<'a> Iterator for Cells<'a> {
    type Item = std::borrow::Cow<'a, str>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Cells::Plain(rest) => {
                let s = (*rest)?;
                // Cells are a few bytes long: a byte loop beats a searcher,
                // whose set-up costs more than the search (measured).
                match s.bytes().position(|b| b == b',') {
                    Some(i) => {
                        *rest = Some(&s[i + 1..]);
                        Some(std::borrow::Cow::Borrowed(&s[..i]))
                    }
                    None => {
                        *rest = None;
                        Some(std::borrow::Cow::Borrowed(s))
                    }
                }
            }
            Cells::Quoted(cells) => cells.next(),
        }
    }
}

fn cells(text: &str) -> Cells<'_> {
    if memchr::memchr(b'"', text.as_bytes()).is_some() {
        Cells::Quoted(Box::new(split_cells(text).into_iter()))
    } else {
        Cells::Plain(Some(text))
    }
}

/// The inventory and unknown columns of a GPU's first row.
fn read_inventory(layout: &Layout, text: &str, b: &mut RunBuilder<'_>, gpu: u32) {
    for ((column, unit, name), cell) in layout.columns.iter().zip(cells(text)) {
        if is_missing(&cell) {
            continue;
        }
        match column {
            Column::Inventory(inv) => set_inventory(b, gpu, *inv, cell.trim(), unit.as_deref()),
            Column::Unknown => {
                let values = b
                    .metadata
                    .entry("unknown_values")
                    .or_insert_with(|| serde_json::json!({}));
                if let Some(map) = values.as_object_mut() {
                    map.entry(name.clone())
                        .or_insert_with(|| serde_json::json!(cell.trim()));
                }
            }
            _ => {}
        }
    }
}

fn header_name(name: &str, unit: &Option<String>) -> String {
    match unit {
        Some(u) => format!("{name} [{u}]"),
        None => name.to_string(),
    }
}

fn set_inventory(b: &mut RunBuilder<'_>, gpu: u32, inv: Inv, value: &str, unit: Option<&str>) {
    let number = |v: &str| split_unit(v).0.parse::<f64>().ok();
    let whole = |v: &str| split_unit(v).0.trim_end_matches('x').parse::<u32>().ok();
    let enabled = |v: &str| match v.to_ascii_lowercase().as_str() {
        "enabled" | "on" | "yes" => Some(true),
        "disabled" | "off" | "no" => Some(false),
        _ => None,
    };
    let _ = unit;
    let info = b.inventory(gpu);
    match inv {
        Inv::Name => info.accelerator = Some(accelerator::normalise(value)),
        Inv::Serial => info.serial = Some(value.to_string()),
        Inv::Driver => info.driver_version = Some(value.to_string()),
        Inv::Vbios => info.vbios_version = Some(value.to_string()),
        Inv::PcieGenCurrent => info.pcie_gen_current = whole(value),
        Inv::PcieGenMax => info.pcie_gen_max = whole(value),
        Inv::PcieWidthCurrent => info.pcie_width_current = whole(value),
        Inv::PcieWidthMax => info.pcie_width_max = whole(value),
        Inv::PowerDefault => info.power_limit_default_w = number(value),
        Inv::PowerMin => info.power_limit_min_w = number(value),
        Inv::PowerMax => info.power_limit_max_w = number(value),
        Inv::MaxSm => info.max_sm_clock_mhz = whole(value),
        Inv::MaxMem => info.max_mem_clock_mhz = whole(value),
        Inv::Persistence => info.persistence_enabled = enabled(value),
        Inv::Mig => info.mig_enabled = enabled(value),
        Inv::Ecc => info.ecc_enabled = enabled(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn unquoted_rows_split_like_str_split() {
        for text in [
            "",
            ",",
            ",,",
            "a",
            "a,",
            ",a",
            "1234567,9",
            "12345678,0",
            "1234567890123456,x,",
            "温度,功率 W, 33.09 W,,",
            "2024/06/01 00:00:00.177, 0, 240.12 W, 71, 97 %, 48 %, 61227 MiB, 1410 MHz, 1593 MHz, 0x0000000000000000",
        ] {
            let ours: Vec<String> = cells(text).map(|c| c.into_owned()).collect();
            let expected: Vec<&str> = text.split(',').collect();
            assert_eq!(ours, expected, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn any_text_splits_like_str_split(text in "[a-c,é 0-9]{0,80}") {
            let ours: Vec<String> = cells(&text).map(|c| c.into_owned()).collect();
            let expected: Vec<&str> = text.split(',').collect();
            prop_assert_eq!(ours, expected);
        }
    }
}
