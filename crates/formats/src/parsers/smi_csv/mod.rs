//! `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`, with or
//! without `-l`/`-lms`, in every shape scripts leave behind: any subset and
//! order of fields (up to full dumps of 200+ columns), units in the header
//! (`power.draw [W]`) or in the values (`33.09 W`), `[N/A]`-style cells,
//! several GPUs interleaved (by index, UUID or PCI bus id), throttle reasons
//! as a hex mask or as per-reason `Active`/`Not Active` columns (both naming
//! generations), the header repeated before every row, rows without a time.
//!
//! This is the bulk path (1.4 M rows for 48 h on 8 GPUs), so a row is read in
//! one pass over its cells with no allocation, in two steps: its cells
//! (`read_cells`, which needs only the layout) and the rest (`finish_row`:
//! which GPU, its time when the row has none, the inventory, the sample),
//! which depends on the rows before it. What the columns are — from the
//! header, `--fields` or the values' shape — is `layout`'s; where the
//! reading stands between lines, and a line read against it, `reading`'s;
//! reading the cells of many rows on every core is `parallel`'s; knowing a
//! cell written as its GPU's row before wrote it, `last_cells`'; this file
//! reads a row.

mod last_cells;
mod layout;
mod parallel;
mod reading;

use std::io::BufRead;

use super::super::ParseContext;
use super::super::blocks;
use super::super::builder::{GpuKey, LineError, Loss, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::Line;
use super::super::timestamps::TimeReader;
use super::super::values::{
    PlainReader, is_gpu_lost, is_missing, parse_field, read_plain_index, split_unit, trim_cell,
};
use super::memory_health::{Findings, is_found};
use super::{RoundClock, split_cells};
use crate::accelerator;
use crate::samples::{Field, Sample};
use last_cells::LastCells;
use layout::{Column, Inv, Layout, PlainCell};
use reading::Reading;

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    parse_in(input, ctx, b, Some(blocks::BLOCK_BYTES))
}

/// Read the file; after the first rows, in blocks of about `block_bytes`
/// on every core, or line by line (`None`, the reference the blocks are
/// held to in tests).
fn parse_in<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: Option<usize>,
) -> ParseResult {
    let mut reading = Reading::new(ctx)?;
    // The first lines say what the columns are; the rows after them are
    // read in blocks on every core (`parallel`), in the same order and to
    // the same effect as one by one.
    blocks::read_lines(input, &mut reading, ctx, b, block_bytes)?;
    reading.finish(b)
}

enum RowError {
    Line(LineError),
    Store(ParseFailure),
}

/// What a row's cells say, before the run is consulted: the part of
/// reading a row that needs only the layout, so it can be done ahead, on
/// another core.
struct RowCells {
    t_ms: Option<i64>,
    index: Option<u32>,
    uuid: Option<CellText>,
    bus: Option<CellText>,
    sample: Sample,
    reasons: Option<i64>,
    mem_free: Option<i64>,
    lost: bool,
    /// Memory health findings the row reports ("Yes" cells).
    health: Findings,
}

impl Default for RowCells {
    fn default() -> Self {
        Self::new()
    }
}

impl RowCells {
    /// Empty again, as `new` would be, without rewriting the sample's values
    /// (`Sample::reset`).
    fn clear(&mut self) {
        self.t_ms = None;
        self.index = None;
        self.uuid = None;
        self.bus = None;
        self.sample.reset(0, 0);
        self.reasons = None;
        self.mem_free = None;
        self.lost = false;
        self.health = Findings::default();
    }

    /// Whether `finish_row` would only name the GPU by its index, time the
    /// sample and store it: an index and no other identity, a time, no
    /// loss, no health finding, no memory to derive, and no throttle
    /// reasons to fold in (`has_mask`: the layout's own mask column wins).
    fn is_plain(&self, has_mask: bool) -> bool {
        self.index.is_some()
            && self.t_ms.is_some()
            && self.uuid.is_none()
            && self.bus.is_none()
            && !self.lost
            && self.health.is_empty()
            && self.mem_free.is_none()
            && (self.reasons.is_none() || has_mask)
    }

    fn new() -> Self {
        Self {
            t_ms: None,
            index: None,
            uuid: None,
            bus: None,
            sample: Sample::new(0, 0),
            reasons: None,
            mem_free: None,
            lost: false,
            health: Findings::default(),
        }
    }
}

/// `text.trim().is_empty()`, decided by the first byte for nearly every
/// line (a row starts with a digit, a header with a letter).
fn is_blank(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => false,
        _ => text.trim().is_empty(),
    }
}

/// A cell's text: where it lies in its line, or unquoted.
enum CellText {
    At(usize, usize),
    Unquoted(String),
}

impl CellText {
    fn of<'a>(&'a self, line: &'a str) -> &'a str {
        match self {
            CellText::At(from, to) => line.get(*from..*to).unwrap_or_default(),
            CellText::Unquoted(text) => text,
        }
    }
}

/// Read a row's cells in one pass into `row`, a new `RowCells` (filled in
/// place: a row is a few hundred bytes, and moving each of 1.4 M rows from
/// call to call showed in the profile). Errors name the line and column.
fn read_cells(
    layout: &Layout,
    line: &Line<'_>,
    times: &mut TimeReader,
    last: &mut LastCells,
    row: &mut RowCells,
    may_quote: bool,
) -> Result<(), LineError> {
    let fail = |col: usize, reason: String| LineError::new(line.number, Some(col + 1), reason);
    let columns = &layout.columns;
    let mut count = 0;
    let cell_of = |i: usize,
                   cell: &str,
                   at: Option<usize>,
                   row: &mut RowCells,
                   times: &mut TimeReader|
     -> Result<(), LineError> {
        let Some((column, unit, name)) = columns.get(i) else {
            return Ok(());
        };
        let text_of = |cell: &str| {
            let trimmed = trim_cell(cell);
            match at {
                // Trimmed, as the cell's place in the line.
                Some(at) => {
                    // `trimmed` is a slice of `cell`: its offset is the lead.
                    let lead = trimmed.as_ptr() as usize - cell.as_ptr() as usize;
                    CellText::At(at + lead, at + lead + trimmed.len())
                }
                None => CellText::Unquoted(trimmed.to_string()),
            }
        };
        match column {
            Column::Timestamp => {
                row.t_ms = Some(times.parse(cell).ok_or_else(|| {
                    fail(i, format!("\"{}\" is not a time for {name}", cell.trim()))
                })?);
            }
            Column::Index => {
                row.index =
                    Some(gpu_number(cell).ok_or_else(|| {
                        fail(i, format!("\"{}\" is not a GPU index", cell.trim()))
                    })?);
            }
            Column::Uuid if !is_missing(cell) => row.uuid = Some(text_of(cell)),
            Column::BusId if !is_missing(cell) => row.bus = Some(text_of(cell)),
            Column::Value(field) => {
                let Some(reader) = &layout.readers[i] else {
                    return Ok(());
                };
                match reader.read(cell) {
                    Ok(Some(v)) => {
                        row.sample.set(*field, v);
                    }
                    // Absent, or gone: "[GPU is lost]" reads as not reported.
                    Ok(None) => row.lost |= is_gpu_lost(cell),
                    Err(reason) => {
                        return Err(fail(i, format!("{reason} for {}", header_name(name, unit))));
                    }
                }
            }
            Column::MemFree => {
                row.mem_free = parse_field(Field::MemUsedMib, cell, unit.as_deref())
                    .map_err(|r| fail(i, format!("{r} for {}", header_name(name, unit))))?;
            }
            Column::Health(finding) if is_found(cell) => row.health.insert(*finding),
            Column::Reason(bit) => match trim_cell(cell) {
                "Active" | "active" => row.reasons = Some(row.reasons.unwrap_or(0) | bit),
                "Not Active" | "not active" | "Not active" => {
                    row.reasons = Some(row.reasons.unwrap_or(0));
                }
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
    // `may_quote`: false where the caller knows the line holds no quote
    // (a block without one), which spares a search per row.
    if may_quote && memchr::memchr(b'"', text.as_bytes()).is_some() {
        for (i, cell) in split_cells(text).iter().enumerate() {
            count += 1;
            cell_of(i, cell, None, row, times)?;
        }
    } else {
        // nvidia-smi's own rows: a value cell is read as its bytes are
        // found (`read_plain`); anything else is cut at its comma first.
        let bytes = text.as_bytes();
        last.for_layout(layout.id, layout.plain.len());
        // The index comes first in nvidia-smi's rows: from there on, a
        // GPU's value cells are compared with its own last ones.
        let mut gpu_places = last.places_of(None);
        let mut at = 0;
        loop {
            let i = count;
            count += 1;
            let rest = &bytes[at..];
            let plain = match layout.plain.get(i) {
                Some(cell @ (PlainCell::Value(reader) | PlainCell::MemFree(reader))) => {
                    read_remembered(reader, last, gpu_places + i, rest).map(|(v, len)| {
                        match cell {
                            PlainCell::MemFree(_) => row.mem_free = Some(v),
                            _ => {
                                row.sample.set(reader.field, v);
                            }
                        }
                        len
                    })
                }
                Some(PlainCell::Index) => read_plain_index(rest, b',').map(|(index, len)| {
                    row.index = Some(index);
                    gpu_places = last.places_of(Some(index));
                    len
                }),
                Some(PlainCell::Time) => times.read_plain(rest, b',').map(|(t, len)| {
                    row.t_ms = Some(t);
                    len
                }),
                _ => None,
            };
            let len = match plain {
                Some(len) => len,
                None => {
                    let len = find_comma(&bytes[at..]).unwrap_or(bytes.len() - at);
                    cell_of(i, &text[at..at + len], Some(at), row, times)?;
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
    super::check_row_width(line.number, count, columns.len())
}

/// A value cell at the start of `rest`: as the cell kept at `place` read,
/// where it is written the same, or read in one pass and kept.
#[inline(always)]
fn read_remembered(
    reader: &PlainReader,
    last: &mut LastCells,
    place: usize,
    rest: &[u8],
) -> Option<(i64, usize)> {
    if let Some(remembered) = last.get(place, rest) {
        return Some(remembered);
    }
    let read = reader.read_plain(rest, b',');
    if let Some((v, len)) = read {
        last.keep(place, rest, len, v);
    }
    read
}

/// Where the first comma is. Cells are a few bytes to a few dozen long (the
/// time: 23): eight bytes at a time beats both a byte loop and a searcher,
/// whose set-up costs more than such a search.
#[inline]
fn find_comma(bytes: &[u8]) -> Option<usize> {
    const BYTES: u64 = 0x0101_0101_0101_0101;
    let mut at = 0;
    while let Some(word) = bytes.get(at..).and_then(|b| b.first_chunk::<8>()) {
        // Bytes that are commas become zero; the lowest flagged byte is the
        // first zero (a borrow can flag bytes above it, never below).
        let x = u64::from_le_bytes(*word) ^ (u64::from(b',') * BYTES);
        let zero = x.wrapping_sub(BYTES) & !x & (0x80 * BYTES);
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes[at..].iter().position(|b| *b == b',').map(|i| at + i)
}

/// The rest of a row, in file order: which GPU it is, its time when it
/// carries none, what the inventory learns, and the sample.
fn finish_row(
    layout: &Layout,
    cells: &mut RowCells,
    line: &Line<'_>,
    b: &mut RunBuilder<'_>,
    inventory_done: &mut Vec<bool>,
    clock: Option<&mut RoundClock>,
    positional: &mut (i64, u32),
) -> Result<(), RowError> {
    let uuid = cells.uuid.as_ref().map(|c| c.of(line.text));
    let bus = cells.bus.as_ref().map(|c| c.of(line.text));
    let (t_ms, reasons, mem_free, lost) = (cells.t_ms, cells.reasons, cells.mem_free, cells.lost);
    let gpu = which_gpu(b, cells.index, uuid, bus, t_ms, positional);
    let sample = &mut cells.sample;
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
        first_sight(layout, line.text, b, sample);
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

/// A GPU's number as nvidia-smi or a wrapping script writes it: `3`, and
/// from scripts also `gpu3`, `GPU 3` or `cuda:3`.
fn gpu_number(cell: &str) -> Option<u32> {
    let cell = cell.trim_ascii();
    let digits = cell.trim_start_matches(|c: char| !c.is_ascii_digit());
    let prefix = &cell[..cell.len() - digits.len()];
    let known_prefix = matches!(
        prefix.trim_end().to_ascii_lowercase().as_str(),
        "" | "gpu" | "gpu#" | "#" | "cuda:" | "device" | "dev"
    );
    if known_prefix {
        digits.parse().ok()
    } else {
        None
    }
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
        (Some(i), None, None) => i,
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
mod tests;
