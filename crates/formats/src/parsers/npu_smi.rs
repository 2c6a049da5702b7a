//! Huawei Ascend's `npu-smi`: the `npu-smi info` table (one snapshot, or a
//! loop of them under `date` lines) and the `npu-smi info watch` stream.
//!
//! ```text
//! | npu-smi 23.0.rc3                 Version: 23.0.rc3                       |
//! | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
//! | Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
//! | 0     910B3               | OK            | 93.8        35                0    / 0             |
//! | 0                         | 0000:C1:00.0  | 0           0    / 0          3161 / 65536         |
//!
//! NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) Memory(%)   Memory BW(%)
//! 0           0           94.3        36          0           0           0           3           0
//! ```
//!
//! The table's readings are matched to the column names of its two header
//! rows (the columns differ between the 910, 910B and 310P generations);
//! the chip's bus id names it. A health other than OK is a warning and a
//! note on the run. The watch stream carries no times: `date` lines between
//! its rounds, or `--start` and `--interval` (its `-d`, 1 s unless set),
//! place them.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{Line, LineReader};
use super::super::values::{is_missing, parse_field};
use super::{RoundClock, untimed_snapshot_time};
use crate::accelerator;
use crate::domain::{Event, EventKind};
use crate::samples::{Field, Sample};

/// What a column of either form holds.
fn field_of(name: &str) -> Option<Field> {
    let n = name.to_ascii_lowercase().replace(' ', "");
    Some(match n.as_str() {
        "power(w)" | "pwr(w)" => Field::PowerMw,
        "temp(c)" => Field::TempGpuC,
        "aicore(%)" => Field::UtilGpuPct,
        "memorybw(%)" => Field::UtilMemPct,
        _ => return None,
    })
}

/// "93.8        35                0    / 0" → ["93.8", "35", "0 / 0"]:
/// a used / total pair is one value.
fn cell_values(cell: &str) -> Vec<String> {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words.get(i + 1) == Some(&"/") && i + 2 < words.len() {
            out.push(format!("{} / {}", words[i], words[i + 2]));
            i += 3;
        } else {
            out.push(words[i].to_string());
            i += 1;
        }
    }
    out
}

const HEALTH: [&str; 5] = ["OK", "Warning", "Alarm", "Critical", "UNKNOWN"];

/// The first row of an NPU, kept until its chip row names the bus.
struct Pending {
    npu: String,
    name: String,
    health: String,
    values: Vec<(String, String)>,
}

#[derive(Default)]
struct Table {
    /// Column names of the header rows' third cells.
    first: Vec<String>,
    second: Vec<String>,
    version: Option<String>,
    t_ms: Option<i64>,
    in_processes: bool,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut reader = Reader::default();
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if text.trim().is_empty() || text.starts_with('+') {
            continue;
        }
        if text.starts_with('|') {
            let cells: Vec<&str> = text
                .trim_start_matches('|')
                .trim_end_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            reader.table_row(&cells, &line, ctx, b)?;
        } else {
            reader.outside_table(text, &line, ctx, b)?;
        }
    }
    if !reader.read_any && reader.snapshots == 0 && reader.watch.is_none() {
        return Err(ParseFailure::Whole(
            "no npu-smi table (\"| npu-smi … Version: …\") or watch header (\"NpuID(Idx) …\") found"
                .into(),
        ));
    }
    Ok(())
}

/// What the lines so far have said: the table being read, an NPU row
/// waiting for its chip row, a `watch` stream, the time of the snapshot.
#[derive(Default)]
struct Reader {
    table: Table,
    pending: Option<Pending>,
    watch: Option<Watch>,
    snapshots: u64,
    untimed: Option<RoundClock>,
    last_date: Option<i64>,
    read_any: bool,
}

impl Reader {
    /// A line outside the tables: a `date` line, or `npu-smi info watch`
    /// output (its header, then its rows).
    fn outside_table(
        &mut self,
        text: &str,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        if let Some(t) = ctx.times.parse_date_line(text.trim()) {
            self.last_date = Some(t);
            self.table.t_ms = Some(t);
            if let Some(w) = &mut self.watch {
                w.clock = Some(RoundClock::new(t, w.interval_ms));
            }
            return Ok(());
        }
        if text.trim_start().starts_with("NpuID") {
            self.watch = Some(Watch::new(text, ctx, self.last_date, b)?);
            return Ok(());
        }
        if let Some(w) = &mut self.watch {
            match w.row(text, line.number, b) {
                Ok(sample) => {
                    b.sample(&sample)?;
                    self.read_any = true;
                }
                Err(e) => b.bad_line(line, e)?,
            }
        }
        Ok(())
    }

    /// A row of the `npu-smi info` table: the banner, a header, an NPU's
    /// first row (kept until its chip row), or the chip row that completes it.
    fn table_row(
        &mut self,
        cells: &[&str],
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        let first = cells.first().copied().unwrap_or("");
        if first.starts_with("npu-smi") {
            // A new snapshot: its banner.
            self.table.version = first
                .split_once("Version:")
                .map(|(_, v)| v.trim().to_string())
                .or_else(|| first.split_whitespace().nth(1).map(str::to_string));
            self.table.in_processes = false;
            self.snapshots += 1;
            if self.last_date.is_none() {
                self.table.t_ms =
                    untimed_snapshot_time(ctx, &mut self.untimed, b, line.number, "npu-smi")?;
            }
            return Ok(());
        }
        if first.starts_with("NPU") && cells.get(1).is_some_and(|c| c.starts_with("Health")) {
            self.table.first = names(cells.get(2).copied().unwrap_or(""));
            return Ok(());
        }
        if first.starts_with("Chip") && cells.get(1).is_some_and(|c| c.starts_with("Bus-Id")) {
            self.table.second = names(cells.get(2).copied().unwrap_or(""));
            return Ok(());
        }
        if first.starts_with("NPU") && cells.iter().any(|c| c.starts_with("Process")) {
            self.table.in_processes = true;
            return Ok(());
        }
        if self.table.in_processes || cells.len() < 3 {
            return Ok(());
        }
        let health = cells[1];
        if HEALTH.contains(&health) {
            let mut words = first.split_whitespace();
            let npu = words.next().unwrap_or("").to_string();
            let name = words.collect::<Vec<_>>().join(" ");
            self.pending = Some(Pending {
                npu,
                name,
                health: health.to_string(),
                values: self
                    .table
                    .first
                    .iter()
                    .cloned()
                    .zip(cell_values(cells[2]))
                    .collect(),
            });
            return Ok(());
        }
        match self.pending.take() {
            Some(p) => self.chip_row(p, cells, line, b),
            None => Ok(()),
        }
    }

    /// The chip row under an NPU's first row: its bus, then one sample of
    /// both rows' values, and its health when it is not OK.
    fn chip_row(
        &mut self,
        p: Pending,
        cells: &[&str],
        line: &Line<'_>,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        let first = cells.first().copied().unwrap_or("");
        // A card with two chips (310P Duo) may show one bus for both.
        let chip = first.split_whitespace().next().unwrap_or("0");
        let bus = if chip == "0" {
            cells[1].to_string()
        } else {
            format!("{}/chip{chip}", cells[1])
        };
        let gpu = b.gpu(GpuKey::BusId(&bus));
        let info = b.inventory(gpu);
        if info.accelerator.is_none() && !p.name.is_empty() {
            info.accelerator = Some(accelerator::normalise(&format!("Ascend {}", p.name)));
        }
        if let Some(v) = &self.table.version {
            info.driver_version = Some(v.clone());
        }
        let values: Vec<(String, String)> = p
            .values
            .into_iter()
            .chain(self.table.second.iter().cloned().zip(cell_values(cells[2])))
            .collect();
        let Some(t_ms) = self.table.t_ms else {
            return Ok(());
        };
        self.read_any = true;
        if p.health != "OK"
            && let Ok(at) = jiff::Timestamp::from_millisecond(t_ms)
        {
            b.warn(format!(
                "line {}: NPU {} ({bus}) reports its health as {}",
                line.number, p.npu, p.health
            ));
            b.event(Event {
                gpu: Some(gpu),
                detail: Some(format!("npu-smi: health {}", p.health)),
                ..Event::new(at, EventKind::Note)
            });
        }
        match table_sample(gpu, t_ms, &values).map_err(|r| LineError::new(line.number, None, r)) {
            Ok(sample) => {
                if let Some(total) = sample.get(Field::MemTotalMib) {
                    b.inventory(gpu).vram_mib = Some(total as u64);
                }
                b.sample(&sample)?;
            }
            Err(e) => b.bad_line(line, e)?,
        }
        Ok(())
    }
}

/// Column names of a header cell: "Power(W)    Temp(C)    Hugepages-Usage(page)".
fn names(cell: &str) -> Vec<String> {
    cell.split_whitespace().map(str::to_string).collect()
}

/// One NPU's readings from the table, by column name.
fn table_sample(gpu: u32, t_ms: i64, values: &[(String, String)]) -> Result<Sample, String> {
    let mut sample = Sample::new(t_ms, gpu);
    let mut memory: Option<(&str, &str)> = None;
    for (name, value) in values {
        if let Some(field) = field_of(name) {
            if let Some(v) = parse_field(field, value, None)? {
                sample.set(field, v);
            }
            continue;
        }
        // HBM is the accelerator's memory where the part has it; the
        // 310P's is "Memory-Usage".
        let lower = name.to_ascii_lowercase();
        if let Some((used, total)) = value.split_once(" / ")
            && (lower.starts_with("hbm-usage")
                || (lower.starts_with("memory-usage") && memory.is_none()))
            && total.trim() != "0"
        {
            memory = Some((used, total));
        }
    }
    if let Some((used, total)) = memory {
        for (field, text) in [(Field::MemUsedMib, used), (Field::MemTotalMib, total)] {
            if !is_missing(text)
                && let Some(v) = parse_field(field, text, Some("MB"))?
            {
                sample.set(field, v);
            }
        }
    }
    Ok(sample)
}

/// `npu-smi info watch`: a header, then a row per NPU chip per round.
struct Watch {
    columns: Vec<(String, Option<Field>)>,
    chips: Vec<(String, String)>,
    clock: Option<RoundClock>,
    interval_ms: i64,
}

impl Watch {
    fn new(
        header: &str,
        ctx: &ParseContext,
        last_date: Option<i64>,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult<Self> {
        // Names end in their unit in brackets; some have spaces inside
        // ("AI Core(%)"), so the header is cut after each ')'.
        let columns: Vec<(String, Option<Field>)> = header
            .split_inclusive(')')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| (n.to_string(), field_of(n)))
            .collect();
        let interval_ms = i64::from(ctx.interval_ms.unwrap_or(1000));
        b.interval_ms = b.interval_ms.or(Some(interval_ms as u32));
        let start = last_date.or(ctx.start.map(|s| s.as_millisecond()));
        Ok(Self {
            columns,
            chips: Vec::new(),
            clock: start.map(|t| RoundClock::new(t, interval_ms)),
            interval_ms,
        })
    }

    fn row(&mut self, text: &str, line: u64, b: &mut RunBuilder<'_>) -> Result<Sample, LineError> {
        let values: Vec<&str> = text.split_whitespace().collect();
        if values.len() != self.columns.len() {
            return Err(LineError::new(
                line,
                None,
                format!(
                    "{} values for the {} columns of the npu-smi watch header",
                    values.len(),
                    self.columns.len()
                ),
            ));
        }
        let Some(clock) = &mut self.clock else {
            return Err(LineError::new(
                line,
                None,
                "npu-smi info watch prints no times; give --start (when the watch began) and \
                 --interval (its -d delay, 1 s unless set), or put `date` lines between rounds",
            ));
        };
        let npu = values[0].to_string();
        let chip = values.get(1).copied().unwrap_or("0").to_string();
        let key = (npu, chip);
        let index = match self.chips.iter().position(|c| *c == key) {
            Some(i) => i,
            None => {
                self.chips.push(key);
                self.chips.len() - 1
            }
        } as u32;
        let t_ms = clock.time_for(index);
        let gpu = b.gpu(GpuKey::Index(index));
        let mut sample = Sample::new(t_ms, gpu);
        for ((name, field), value) in self.columns.iter().zip(&values) {
            if let Some(field) = field
                && let Some(v) = parse_field(*field, value, None)
                    .map_err(|r| LineError::new(line, None, format!("{r} in {name}")))?
            {
                sample.set(*field, v);
            }
        }
        Ok(sample)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_one_value() {
        assert_eq!(
            cell_values("0           0    / 0          3161 / 65536"),
            vec!["0", "0 / 0", "3161 / 65536"]
        );
        assert_eq!(cell_values("NA          44"), vec!["NA", "44"]);
    }

    #[test]
    fn columns_by_meaning() {
        assert_eq!(field_of("Power(W)"), Some(Field::PowerMw));
        assert_eq!(field_of("Pwr(W)"), Some(Field::PowerMw));
        assert_eq!(field_of("AI Core(%)"), Some(Field::UtilGpuPct));
        assert_eq!(field_of("AICore(%)"), Some(Field::UtilGpuPct));
        assert_eq!(field_of("Hugepages-Usage(page)"), None);
    }
}
