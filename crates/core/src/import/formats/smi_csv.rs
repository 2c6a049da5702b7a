//! `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`, with or
//! without `-l`/`-lms`, in every shape scripts leave behind: any subset and
//! order of fields (up to full dumps of 200+ columns), units in the header
//! (`power.draw [W]`) or in the values (`33.09 W`), `[N/A]`-style cells,
//! several GPUs interleaved (by index, UUID or PCI bus id), throttle reasons
//! as a hex mask or as per-reason `Active`/`Not Active` columns (both naming
//! generations), the header repeated before every row, rows without a time.
//!
//! This is the bulk path (1.4 M rows for 48 h on 8 GPUs), so a row is read in
//! one pass over its cells with no allocation.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, Loss, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{Line, LineReader};
use super::super::smi_messages;
use super::super::values::{ValueReader, is_gpu_lost, is_missing, parse_field, split_unit};
use super::{RoundClock, split_cells};
use crate::accelerator;
use crate::samples::{Field, Sample};

/// What a column holds and how it is read.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    Timestamp,
    Index,
    Uuid,
    BusId,
    Value(Field),
    /// `memory.free`: gives `memory.used` when only total and free are queried.
    MemFree,
    /// One throttle/event reason as `Active` / `Not Active`.
    Reason(i64),
    Inventory(Inv),
    /// Known but not stored (e.g. `count`, `pci.domain`).
    Ignored,
    /// Not a field this build knows: kept in the run's metadata.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Inv {
    Name,
    Serial,
    Driver,
    Vbios,
    PcieGenCurrent,
    PcieGenMax,
    PcieWidthCurrent,
    PcieWidthMax,
    PowerDefault,
    PowerMin,
    PowerMax,
    MaxSm,
    MaxMem,
    Persistence,
    Mig,
    Ecc,
}

/// Throttle / clock-event reason bits, by the suffix both naming
/// generations share (`clocks_throttle_reasons.X`, `clocks_event_reasons.X`).
const REASONS: &[(&str, i64)] = &[
    ("gpu_idle", 0x1),
    ("applications_clocks_setting", 0x2),
    ("sw_power_cap", 0x4),
    ("hw_slowdown", 0x8),
    ("sync_boost", 0x10),
    ("sw_thermal_slowdown", 0x20),
    ("hw_thermal_slowdown", 0x40),
    ("hw_power_brake_slowdown", 0x80),
    ("display_clock_setting", 0x100),
];

fn classify(name: &str) -> Column {
    use Column::*;
    use Field::*;
    if let Some(reason) = name
        .strip_prefix("clocks_throttle_reasons.")
        .or_else(|| name.strip_prefix("clocks_event_reasons."))
    {
        return match reason {
            "active" => Value(ThrottleMask),
            "supported" => Ignored,
            r => REASONS
                .iter()
                .find(|(n, _)| *n == r)
                .map_or(Unknown, |(_, bit)| Reason(*bit)),
        };
    }
    match name {
        "timestamp" => Timestamp,
        "index" => Index,
        "uuid" | "gpu_uuid" => Uuid,
        "pci.bus_id" | "gpu_bus_id" => BusId,
        "power.draw" => Value(PowerMw),
        // Newer drivers split power.draw; either stands in when it is absent.
        "power.draw.instant" | "power.draw.average" => Value(PowerMw),
        "power.limit" | "enforced.power.limit" => Value(PowerLimitMw),
        "temperature.gpu" => Value(TempGpuC),
        "temperature.memory" => Value(TempMemC),
        "utilization.gpu" => Value(UtilGpuPct),
        "utilization.memory" => Value(UtilMemPct),
        "utilization.encoder" => Value(UtilEncPct),
        "utilization.decoder" => Value(UtilDecPct),
        "memory.used" => Value(MemUsedMib),
        "memory.total" => Value(MemTotalMib),
        "memory.free" => MemFree,
        "clocks.sm" | "clocks.current.sm" => Value(SmClockMhz),
        "clocks.mem" | "clocks.current.memory" => Value(MemClockMhz),
        "fan.speed" => Value(FanPct),
        "pstate" => Value(Pstate),
        "name" | "gpu_name" => Inventory(Inv::Name),
        "serial" | "gpu_serial" => Inventory(Inv::Serial),
        "driver_version" => Inventory(Inv::Driver),
        "vbios_version" => Inventory(Inv::Vbios),
        "pcie.link.gen.current" | "pcie.link.gen.gpucurrent" => Inventory(Inv::PcieGenCurrent),
        "pcie.link.gen.max" | "pcie.link.gen.gpumax" => Inventory(Inv::PcieGenMax),
        "pcie.link.width.current" => Inventory(Inv::PcieWidthCurrent),
        "pcie.link.width.max" => Inventory(Inv::PcieWidthMax),
        "power.default_limit" => Inventory(Inv::PowerDefault),
        "power.min_limit" => Inventory(Inv::PowerMin),
        "power.max_limit" => Inventory(Inv::PowerMax),
        "clocks.max.sm" | "clocks.max.sm_clock" => Inventory(Inv::MaxSm),
        "clocks.max.memory" | "clocks.max.mem" => Inventory(Inv::MaxMem),
        "persistence_mode" => Inventory(Inv::Persistence),
        "mig.mode.current" => Inventory(Inv::Mig),
        "ecc.mode.current" => Inventory(Inv::Ecc),
        n if n.starts_with("clocks_event_reasons_counters.")
            || n.starts_with("clocks.")
            || n.starts_with("pci.")
            || n.starts_with("pcie.")
            || n.starts_with("power.")
            || n.starts_with("temperature.")
            || n.starts_with("ecc.")
            || n.starts_with("retired_pages.")
            || n.starts_with("remapped_rows.")
            || n.starts_with("mig.")
            || n.starts_with("encoder.")
            || n.starts_with("fbc.")
            || n.starts_with("inforom.")
            || n.starts_with("reset_status.")
            || n.starts_with("protected_memory.")
            || n.starts_with("memory.")
            || n.starts_with("utilization.")
            || matches!(
                n,
                "count"
                    | "display_mode"
                    | "display_active"
                    | "accounting.mode"
                    | "accounting.buffer_size"
                    | "driver_model.current"
                    | "driver_model.pending"
                    | "compute_mode"
                    | "compute_cap"
                    | "gom.current"
                    | "gom.pending"
                    | "vbios_version.oem"
                    | "addressing_mode"
                    | "platform.chassis_serial_number"
            ) =>
        {
            Ignored
        }
        _ => Unknown,
    }
}

/// The columns of a file, from its header (or from `--fields`).
#[derive(Debug, Clone)]
struct Layout {
    /// The header line as written, to recognise it when it repeats.
    header_text: Option<String>,
    columns: Vec<(Column, Option<String>, String)>,
    /// For each column holding a sample field, its reader.
    readers: Vec<Option<ValueReader>>,
    has_time: bool,
    has_mask: bool,
}

impl Layout {
    fn from_names(names: &[String], header_text: Option<String>) -> Result<Layout, String> {
        let mut columns = Vec::with_capacity(names.len());
        for raw in names {
            let raw = raw.trim();
            let (name, unit) = match raw.split_once('[') {
                Some((n, u)) => (n.trim(), Some(u.trim_end_matches(']').trim().to_string())),
                None => (raw, None),
            };
            let name = name.to_ascii_lowercase();
            columns.push((classify(&name), unit, name));
        }
        // Where two columns give one field (power.draw and its .instant or
        // .average forms; power.limit and enforced.power.limit) the plainer
        // one is read and the other kept aside.
        let rank = |name: &str| match name {
            "power.draw.instant" | "enforced.power.limit" => 1,
            "power.draw.average" => 2,
            _ => 0,
        };
        for i in 0..columns.len() {
            let Column::Value(field) = columns[i].0 else {
                continue;
            };
            let beaten = columns.iter().enumerate().any(|(j, (c, _, name))| {
                *c == Column::Value(field) && j != i && (rank(name), j) < (rank(&columns[i].2), i)
            });
            if beaten {
                columns[i].0 = Column::Ignored;
            }
        }
        let known = columns
            .iter()
            .filter(|(c, _, _)| !matches!(c, Column::Unknown))
            .count();
        if known == 0 {
            return Err("no column is a known nvidia-smi --query-gpu field".into());
        }
        Ok(Layout {
            readers: columns
                .iter()
                .map(|(c, unit, _)| match c {
                    Column::Value(f) => Some(ValueReader::new(*f, unit.as_deref())),
                    _ => None,
                })
                .collect(),
            has_time: columns.iter().any(|(c, _, _)| *c == Column::Timestamp),
            has_mask: columns
                .iter()
                .any(|(c, _, _)| *c == Column::Value(Field::ThrottleMask)),
            header_text,
            columns,
        })
    }
}

/// A header line: every cell is a lower-case field name (with an optional
/// `[unit]`), and at least one is known.
fn is_header(text: &str) -> bool {
    // Rows start with a time, a number or a value; headers with a name.
    if !text
        .trim_ascii_start()
        .starts_with(|c: char| c.is_ascii_lowercase())
    {
        return false;
    }
    let mut any_known = false;
    for cell in text.split(',') {
        let name = cell.trim().split(" [").next().unwrap_or("").trim();
        // Field names are identifiers with dots; a few are camelCase
        // (`pci.baseClass`), none starts upper-case (values such as
        // "Enabled" or "NVIDIA A100" do).
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
            && name.starts_with(|c: char| c.is_ascii_lowercase());
        if !plain {
            return false;
        }
        any_known |= !matches!(classify(name), Column::Unknown);
    }
    any_known
}

/// Guess the columns of a header-less file from the shape of its values,
/// where that is unambiguous; otherwise say which column could not be told.
fn infer_layout(text: &str) -> Result<Layout, String> {
    let mut names = Vec::new();
    let mut watts = 0;
    for (i, cell) in text.split(',').enumerate() {
        let c = cell.trim();
        let b = c.as_bytes();
        let name = if b.len() >= 19 && b[4] == b'/' && b[7] == b'/' && b[13] == b':' {
            "timestamp"
        } else if c.starts_with("GPU-") {
            "uuid"
        } else if c.len() >= 12 && c.matches(':').count() == 2 && c.contains('.') {
            "pci.bus_id"
        } else if c.starts_with("0x") {
            "clocks_throttle_reasons.active"
        } else if c.ends_with(" W") && watts == 0 {
            watts += 1;
            "power.draw"
        } else if i == 1
            && names.first() == Some(&"timestamp")
            && c.parse::<u32>().is_ok_and(|n| n < 64)
        {
            "index"
        } else if c.starts_with("NVIDIA ") || c.starts_with("Tesla ") {
            "name"
        } else {
            return Err(format!(
                "this nvidia-smi CSV has no header, and column {} (\"{c}\") could be several fields; give the --query-gpu field list with --fields",
                i + 1
            ));
        };
        names.push(name);
    }
    Layout::from_names(
        &names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        None,
    )
}

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
                    let step = ctx.interval_ms.or(b.interval_ms).map_or(0, i64::from);
                    clock = Some(RoundClock::new(t, step));
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
                let step = ctx.interval_ms.or(b.interval_ms).map_or(0, i64::from);
                clock = Some(RoundClock::new(t, step));
                continue;
            }
            let interval = ctx.interval_ms.or(b.interval_ms).ok_or_else(|| {
                ParseFailure::Whole(
                    "the rows carry no timestamp; give the sampling interval with --interval (e.g. --interval 1s)".into(),
                )
            })?;
            let start_ms = match ctx.start {
                Some(s) => s.as_millisecond(),
                None => {
                    b.warn("the rows carry no date; times count from 1970-01-01 (give --start to anchor them)");
                    0
                }
            };
            clock = Some(RoundClock::new(start_ms, i64::from(interval)));
        }
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
                    let step = ctx.interval_ms.or(b.interval_ms).map_or(0, i64::from);
                    clock = Some(RoundClock::new(t, step));
                }
            }
            Err(RowError::Line(e)) => b.bad_line(&line, e)?,
            Err(RowError::Store(e)) => return Err(e),
        }
    }
    if layout.is_none() {
        return Err(ParseFailure::Whole("the file holds no rows".into()));
    }
    Ok(())
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
    // One pass over the cells; inventory columns wait until the GPU is known.
    for (i, cell) in cells(line.text).enumerate() {
        count += 1;
        let Some((column, unit, name)) = columns.get(i) else {
            continue;
        };
        let cell: &str = &cell;
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
                    continue;
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

    let gpu = match (index, uuid.as_deref(), bus.as_deref()) {
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
            // No id column: GPUs are told apart by their place among the
            // rows that share a timestamp.
            let t = t_ms.unwrap_or(i64::MIN);
            if positional.0 == t && t != i64::MIN {
                positional.1 += 1;
            } else {
                *positional = (t, 0);
            }
            positional.1
        }
    };
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
        read_inventory(layout, line.text, b, gpu);
        if let Some(total) = sample.get(Field::MemTotalMib) {
            b.inventory(gpu).vram_mib = Some(total as u64);
        }
        if let Some(limit) = sample.get(Field::PowerLimitMw) {
            b.inventory(gpu).power_limit_enforced_w = Some(limit as f64 / 1000.0);
        }
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

/// The cells of a row: a plain split for nvidia-smi's own output (cells are
/// short, so a byte loop beats a searcher), CSV quoting rules only for lines
/// that contain quotes.
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
    if text.bytes().any(|b| b == b'"') {
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

    #[test]
    fn headers_are_told_from_rows() {
        assert!(is_header(
            "timestamp, index, power.draw [W], utilization.gpu [%]"
        ));
        assert!(is_header("index,clocks_event_reasons.hw_slowdown"));
        assert!(!is_header("2024/06/01 11:27:05.177, 0, 33.09 W"));
        assert!(!is_header("0, NVIDIA A100-SXM4-80GB"));
        assert!(!is_header("foo, bar"));
    }

    #[test]
    fn both_reason_generations_map_to_the_same_bits() {
        assert_eq!(
            classify("clocks_throttle_reasons.hw_slowdown"),
            Column::Reason(0x8)
        );
        assert_eq!(
            classify("clocks_event_reasons.hw_slowdown"),
            Column::Reason(0x8)
        );
        assert_eq!(
            classify("clocks_event_reasons.active"),
            Column::Value(Field::ThrottleMask)
        );
        assert_eq!(classify("kmd_version"), Column::Unknown);
    }

    #[test]
    fn header_less_files_are_inferred_only_when_unambiguous() {
        let l = infer_layout("2024/06/01 11:27:05.177, 0, 33.09 W, GPU-1234").unwrap();
        assert_eq!(l.columns[2].0, Column::Value(Field::PowerMw));
        let e = infer_layout("2024/06/01 11:27:05.177, 0, 45 %, 30 %").unwrap_err();
        assert!(e.contains("column 3") && e.contains("--fields"), "{e}");
    }
}
