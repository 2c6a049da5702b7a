//! Cambricon's `cnmon`: the boxed table (one snapshot, or a loop of them)
//! and `cnmon info`'s indented report.
//!
//! ```text
//! | CNMON v5.10.22                                               Driver v5.10.22 |
//! | Card  VF  Name       Firmware |               Bus-Id | Util        Ecc-Error |
//! | Fan   Temp      Pwr:Usage/Cap |         Memory-Usage | Mode     Compute-Mode |
//! | 0     /   MLU370-X8    v1.1.4 |         0000:4F:00.0 | 0%                  0 |
//! |  0%   35C        47 W/ 250 W  |     0 MiB/ 23374 MiB | FULL          Default |
//!
//! Card 0
//!     Product Name                   : MLU370-X8
//!     Power Info
//!         Usage                      : 47 W
//! ```
//!
//! As with nvidia-smi's table, cells are read by their units (`C`, `W`,
//! `MiB`, `%`), not by column positions; the report is read by its keys'
//! meaning under their sections.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::values::{is_missing, parse_field};
use super::{RoundClock, untimed_snapshot_time};
use crate::accelerator;
use crate::samples::{Field, Sample};

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut t_ms: Option<i64> = None;
    let mut dated = false;
    let mut untimed: Option<RoundClock> = None;
    let mut driver: Option<String> = None;
    let mut card: Option<(u32, u32)> = None; // (gpu, utilisation) of the identity row
    let mut report: Option<Report> = None;
    let mut snapshots = 0u64;
    let mut in_processes = false;

    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if text.trim().is_empty() || text.starts_with('+') {
            continue;
        }
        if !text.starts_with('|') {
            if let Some(t) = ctx.times.parse_date_line(text.trim()) {
                if let Some(r) = report.take() {
                    r.finish(b, t_ms)?;
                }
                t_ms = Some(t);
                dated = true;
                continue;
            }
            // `cnmon info`: "Card 0" opens a card, indented keys follow.
            if let Some(index) = text
                .strip_prefix("Card ")
                .and_then(|i| i.trim().parse().ok())
            {
                if let Some(r) = report.take() {
                    r.finish(b, t_ms)?;
                }
                if !dated && t_ms.is_none() {
                    t_ms = untimed_snapshot_time(ctx, &mut untimed, b, line.number, "cnmon info")?;
                }
                snapshots += 1;
                report = Some(Report::new(b.gpu(GpuKey::Index(index))));
                continue;
            }
            if let Some(r) = &mut report {
                r.line(text, b)
                    .map_err(|reason| LineError::new(line.number, None, reason))
                    .or_else(|e| b.bad_line(&line, e))?;
            }
            continue;
        }
        let cells: Vec<&str> = text
            .trim_start_matches('|')
            .trim_end_matches('|')
            .split('|')
            .collect();
        let first = cells.first().map_or("", |c| c.trim());
        if first.starts_with("CNMON") {
            driver = first
                .split_once("Driver")
                .map(|(_, v)| v.trim().trim_start_matches('v').to_string());
            in_processes = false;
            snapshots += 1;
            if !dated {
                t_ms = untimed_snapshot_time(ctx, &mut untimed, b, line.number, "cnmon")?;
            }
            continue;
        }
        if first.starts_with("Processes") {
            in_processes = true;
            continue;
        }
        if in_processes || cells.len() < 3 {
            continue;
        }
        // "0     /   MLU370-X8    v1.1.4" | bus | "0%   0": a card's identity.
        if first
            .split_whitespace()
            .next()
            .is_some_and(|w| w.parse::<u32>().is_ok())
        {
            if let Some(identity) = card_identity(first, &cells, driver.as_deref(), b) {
                card = Some(identity);
            }
            continue;
        }
        let Some((gpu, util)) = card.take() else {
            continue;
        };
        let Some(t) = t_ms else {
            continue;
        };
        match readings(&cells, t, gpu, util) {
            Ok(sample) => {
                if let Some(total) = sample.get(Field::MemTotalMib) {
                    b.inventory(gpu).vram_mib = Some(total as u64);
                }
                b.sample(&sample)?;
            }
            Err(reason) => b.bad_line(&line, LineError::new(line.number, None, reason))?,
        }
    }
    if let Some(r) = report.take() {
        r.finish(b, t_ms)?;
    }
    if snapshots == 0 {
        return Err(ParseFailure::Whole(
            "no cnmon table (\"| CNMON v… Driver v… |\") or cnmon info card (\"Card 0\") found"
                .into(),
        ));
    }
    Ok(())
}

/// A card's first row: its index, PCI bus, name and driver into the
/// inventory; its GPU and utilisation (`u32::MAX` when not shown) for the
/// row below. `None` for a row whose second cell is not a bus.
fn card_identity(
    first: &str,
    cells: &[&str],
    driver: Option<&str>,
    b: &mut RunBuilder<'_>,
) -> Option<(u32, u32)> {
    let mut words = first.split_whitespace();
    let index: u32 = words.next()?.parse().ok()?;
    let bus = cells[1].trim();
    if !(bus.contains(':') && bus.contains('.')) {
        return None;
    }
    let gpu = b.gpu(GpuKey::Index(index));
    b.alias(GpuKey::BusId(bus), gpu);
    // The VF column ("/" when not virtualised) sits before the name.
    let rest: Vec<&str> = words.filter(|w| *w != "/").collect();
    if let Some(name) = rest.first() {
        let info = b.inventory(gpu);
        info.accelerator
            .get_or_insert_with(|| accelerator::normalise(name));
        if let Some(d) = driver {
            info.driver_version = Some(d.to_string());
        }
    }
    let util = cells[2]
        .split_whitespace()
        .find(|w| w.ends_with('%'))
        .and_then(|w| w.trim_end_matches('%').parse().ok());
    Some((gpu, util.unwrap_or(u32::MAX)))
}

/// The second row of a card: "0%   35C        47 W/ 250 W" | "0 MiB/ 23374 MiB".
fn readings(cells: &[&str], t_ms: i64, gpu: u32, util: u32) -> Result<Sample, String> {
    let mut sample = Sample::new(t_ms, gpu);
    if util != u32::MAX {
        sample.set(Field::UtilGpuPct, i64::from(util));
    }
    let mut set = |field: Field, text: &str| -> Result<(), String> {
        if let Some(v) = parse_field(field, text.trim(), None)? {
            sample.set(field, v);
        }
        Ok(())
    };
    let first = cells[0];
    let (left, power) = first.split_once("W/").map_or((first, None), |(l, cap)| {
        // "47 W/ 250 W": the usage is the last number before "W/".
        let usage = l
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let left = &l[..l.len() - usage.len()];
        (left, Some((usage, cap)))
    });
    for word in left.split_whitespace() {
        if let Some(fan) = word.strip_suffix('%') {
            set(Field::FanPct, fan)?;
        } else if let Some(temp) = word.strip_suffix('C') {
            set(Field::TempGpuC, temp)?;
        }
    }
    if let Some((usage, cap)) = power {
        set(Field::PowerMw, &format!("{usage} W"))?;
        set(Field::PowerLimitMw, cap.trim())?;
    }
    if let Some((used, total)) = cells[1].split_once('/') {
        set(Field::MemUsedMib, used)?;
        set(Field::MemTotalMib, total)?;
    }
    Ok(sample)
}

/// One card of `cnmon info`, read key by key under its sections.
struct Report {
    gpu: u32,
    sample: Sample,
    section: String,
    section_indent: usize,
}

impl Report {
    fn new(gpu: u32) -> Self {
        Self {
            gpu,
            sample: Sample::new(0, gpu),
            section: String::new(),
            section_indent: 0,
        }
    }

    fn line(&mut self, text: &str, b: &mut RunBuilder<'_>) -> Result<(), String> {
        let indent = text.len() - text.trim_start().len();
        let content = text.trim();
        let Some((key, value)) = content
            .split_once(" : ")
            .or_else(|| content.split_once(": "))
        else {
            self.section = content.to_string();
            self.section_indent = indent;
            return Ok(());
        };
        if indent <= self.section_indent {
            self.section.clear();
        }
        let (key, value) = (key.trim(), value.trim());
        if is_missing(value) {
            return Ok(());
        }
        let mut set = |field: Field, text: &str| -> Result<(), String> {
            if let Some(v) = parse_field(field, text, None)? {
                self.sample.set(field, v);
            }
            Ok(())
        };
        match (self.section.as_str(), key) {
            ("", "Product Name") => {
                b.inventory(self.gpu).accelerator = Some(accelerator::normalise(value));
            }
            ("", "Driver Version") => {
                b.inventory(self.gpu).driver_version = Some(value.trim_start_matches('v').into());
            }
            ("", "Serial Number") => b.inventory(self.gpu).serial = Some(value.into()),
            ("Utilization", "MLU Average") => set(Field::UtilGpuPct, value)?,
            ("Physical Memory Usage" | "Memory Usage", "Total") => {
                set(Field::MemTotalMib, value)?;
                if let Some(m) = parse_field(Field::MemTotalMib, value, None)? {
                    b.inventory(self.gpu).vram_mib = Some(m as u64);
                }
            }
            ("Physical Memory Usage" | "Memory Usage", "Used") => set(Field::MemUsedMib, value)?,
            ("Power Info" | "Power", "Usage") => set(Field::PowerMw, value)?,
            ("Power Info" | "Power", "Cap") => {
                set(Field::PowerLimitMw, value)?;
                if let Some(mw) = parse_field(Field::PowerLimitMw, value, None)? {
                    b.inventory(self.gpu).power_limit_enforced_w = Some(mw as f64 / 1000.0);
                }
            }
            ("Temperature", "Chip") => set(Field::TempGpuC, value)?,
            ("Temperature", "Memory Die" | "Memory") => set(Field::TempMemC, value)?,
            ("Fan Speed" | "", "Fan" | "Fan Speed") => set(Field::FanPct, value)?,
            ("Frequency" | "Clocks", "IPU Freq" | "Current Frequency" | "MLU Freq") => {
                set(Field::SmClockMhz, value)?
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(mut self, b: &mut RunBuilder<'_>, t_ms: Option<i64>) -> ParseResult {
        let Some(t) = t_ms else {
            return Ok(());
        };
        if self.sample.is_empty() {
            return Ok(());
        }
        self.sample.t_ms = t;
        b.sample(&self.sample)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cards_readings_by_their_units() {
        let cells = [
            "  0%   35C        47 W/ 250 W  ",
            "     0 MiB/ 23374 MiB ",
            " FULL Default ",
        ];
        let s = readings(&cells, 0, 0, 12).unwrap();
        assert_eq!(
            (
                s.get(Field::FanPct),
                s.get(Field::TempGpuC),
                s.get(Field::PowerMw),
                s.get(Field::PowerLimitMw),
                s.get(Field::MemTotalMib),
                s.get(Field::UtilGpuPct)
            ),
            (
                Some(0),
                Some(35),
                Some(47_000),
                Some(250_000),
                Some(23_374),
                Some(12)
            )
        );
    }
}
