//! gpustat, the one-line-per-GPU view many ML teams leave running
//! (`gpustat -i 5 >> gpu.log`, `gpustat --json` in a loop):
//!
//! ```text
//! gpu-node-3                   Sat Jun  1 11:27:05 2024  535.104.05
//! [0] NVIDIA A100-SXM4-80GB | 54°C, 100 %, 372 / 400 W | 61227 / 81920 MB | alice(61218M)
//! ```
//!
//! A header line (host, local date, driver) opens each query; each GPU row
//! is cells split on `|`: index and name, then temperature (`°C`, or `'C`
//! without Unicode), optional fan `%` (`-F`), utilisation `%`, optional
//! power `draw / limit W` (`-P`), then memory `used / total MB` (gpustat
//! says MB; the numbers are MiB). `--json` writes one object per query with
//! `query_time` and a `gpus` list under nvidia-smi's field names; objects
//! appended one after another are read in turn.

use std::io::BufRead;

use serde::Deserialize;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::smi_messages;
use crate::accelerator;
use crate::samples::{Field, Sample};

pub fn parse<R: BufRead>(
    mut input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let starts_json = input
        .fill_buf()?
        .iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|c| *c == b'{');
    if starts_json {
        parse_json(input, ctx, b)
    } else {
        parse_text(input, ctx, b)
    }
}

fn parse_text<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut t_ms: Option<i64> = None;
    let mut driver: Option<String> = None;
    let mut rows = 0u64;
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            continue;
        }
        if !text.starts_with('[') {
            if let Some((t, host, version)) = header(ctx, text) {
                t_ms = Some(t);
                driver = version;
                if b.host.is_none() && !host.is_empty() {
                    b.host = Some(host);
                }
            } else {
                b.bad_line(
                    &line,
                    LineError::new(
                        line.number,
                        None,
                        "neither a gpustat header (host, date, driver) nor a GPU row ([0] …)",
                    ),
                )?;
            }
            continue;
        }
        let Some(t) = t_ms else {
            b.bad_line(
                &line,
                LineError::new(
                    line.number,
                    None,
                    "a GPU row before any gpustat header line",
                ),
            )?;
            continue;
        };
        match row(text, t) {
            Ok((sample, name)) => {
                let gpu = sample.gpu;
                let info = b.inventory(gpu);
                if info.accelerator.is_none() {
                    info.accelerator = Some(accelerator::normalise(name));
                }
                if let Some(d) = &driver {
                    info.driver_version = Some(d.clone());
                }
                if let Some(total) = sample.get(Field::MemTotalMib) {
                    info.vram_mib = Some(total as u64);
                }
                if let Some(limit) = sample.get(Field::PowerLimitMw) {
                    info.power_limit_enforced_w = Some(limit as f64 / 1000.0);
                }
                b.sample(&sample)?;
                rows += 1;
            }
            Err(reason) => b.bad_line(&line, LineError::new(line.number, None, reason))?,
        }
    }
    if rows == 0 {
        return Err(ParseFailure::Whole(
            "no gpustat GPU rows ([0] …) found".into(),
        ));
    }
    Ok(())
}

/// "gpu-node-3   Sat Jun  1 11:27:05 2024  535.104.05": the time, the host
/// and the driver version.
fn header(ctx: &mut ParseContext, text: &str) -> Option<(i64, String, Option<String>)> {
    const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let words: Vec<&str> = text.split_whitespace().collect();
    // [host] weekday month day time year [driver]
    let (host, rest) = match words.first() {
        Some(w) if WEEKDAYS.contains(w) => ("", &words[..]),
        Some(host) => (*host, &words[1..]),
        None => return None,
    };
    let (date, driver) = match rest.len() {
        5 => (rest, None),
        6 => (&rest[..5], Some(rest[5])),
        _ => return None,
    };
    let t = ctx.times.parse_ctime(&date.join(" "))?;
    Some((t, host.to_string(), driver.map(str::to_string)))
}

/// One GPU row: its sample, and the name gpustat shows.
fn row(text: &str, t_ms: i64) -> Result<(Sample, &str), String> {
    let mut cells = text.split('|').map(str::trim);
    let first = cells.next().unwrap_or_default();
    let (index, name) = first
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .ok_or_else(|| format!("\"{first}\" does not start with a GPU index in brackets"))?;
    let index: u32 = index
        .trim()
        .parse()
        .map_err(|_| format!("\"{index}\" is not a GPU index"))?;
    let mut sample = Sample::new(t_ms, index);
    let number = |text: &str| -> Result<Option<i64>, String> {
        let t = text.trim();
        if t.is_empty() || t == "??" || t.eq_ignore_ascii_case("N/A") {
            return Ok(None);
        }
        t.parse::<f64>()
            .map(|v| Some(v.round() as i64))
            .map_err(|_| format!("\"{t}\" is not a number"))
    };
    for cell in cells {
        if cell.ends_with("MB") || cell.ends_with("MiB") {
            // "61227 / 81920 MB"
            let numbers = cell.trim_end_matches("MiB").trim_end_matches("MB");
            if let Some((used, total)) = numbers.split_once('/') {
                if let Some(v) = number(used)? {
                    sample.set(Field::MemUsedMib, v);
                }
                if let Some(v) = number(total)? {
                    sample.set(Field::MemTotalMib, v);
                }
            }
            continue;
        }
        if !(cell.contains("°C") || cell.contains("'C")) {
            // Processes ("alice(61218M)") and anything newer.
            continue;
        }
        // "54°C,  30 %, 100 %, 372 / 400 W": temperature, [fan], utilisation, [power].
        let parts: Vec<&str> = cell.split(',').map(str::trim).collect();
        let mut percents = Vec::new();
        for part in parts {
            if let Some(temp) = part.strip_suffix("°C").or_else(|| part.strip_suffix("'C")) {
                if let Some(v) = number(temp)? {
                    sample.set(Field::TempGpuC, v);
                }
            } else if let Some(p) = part.strip_suffix('%') {
                percents.push(number(p)?);
            } else if let Some(power) = part.strip_suffix('W')
                && let Some((draw, limit)) = power.split_once('/')
            {
                if let Some(v) = number(draw)? {
                    sample.set(Field::PowerMw, v * 1000);
                }
                if let Some(v) = number(limit)? {
                    sample.set(Field::PowerLimitMw, v * 1000);
                }
            }
        }
        // With `-F` the fan comes before the utilisation.
        let (fan, util) = match percents.as_slice() {
            [fan, util, ..] => (*fan, *util),
            [util] => (None, *util),
            [] => (None, None),
        };
        if let Some(v) = fan {
            sample.set(Field::FanPct, v);
        }
        if let Some(v) = util {
            sample.set(Field::UtilGpuPct, v);
        }
    }
    Ok((sample, name.trim()))
}

#[derive(Deserialize)]
struct Query {
    hostname: Option<String>,
    driver_version: Option<String>,
    query_time: String,
    gpus: Vec<JsonGpu>,
}

#[derive(Deserialize)]
struct JsonGpu {
    index: u32,
    uuid: Option<String>,
    name: Option<String>,
    #[serde(rename = "temperature.gpu")]
    temperature: Option<f64>,
    #[serde(rename = "fan.speed")]
    fan: Option<f64>,
    #[serde(rename = "utilization.gpu")]
    utilization: Option<f64>,
    #[serde(rename = "power.draw")]
    power: Option<f64>,
    #[serde(rename = "enforced.power.limit")]
    power_limit: Option<f64>,
    #[serde(rename = "memory.used")]
    memory_used: Option<f64>,
    #[serde(rename = "memory.total")]
    memory_total: Option<f64>,
}

fn parse_json<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut queries = serde_json::Deserializer::from_reader(input).into_iter::<Query>();
    let mut n = 0u64;
    loop {
        let query = match queries.next() {
            None => break,
            Some(Ok(q)) => q,
            // A loop killed mid-write leaves the last object unfinished.
            Some(Err(e)) if e.is_eof() && n > 0 => {
                b.warn(format!(
                    "the last gpustat query is cut off (line {}); it was ignored",
                    e.line()
                ));
                break;
            }
            Some(Err(e)) => {
                return Err(ParseFailure::Line(LineError::new(
                    e.line() as u64,
                    Some(e.column()),
                    format!("not a gpustat --json query: {e}"),
                )));
            }
        };
        n += 1;
        let t_ms = ctx.times.parse(&query.query_time).ok_or_else(|| {
            ParseFailure::Whole(format!(
                "query {n}: \"{}\" is not a time for query_time",
                query.query_time
            ))
        })?;
        if b.host.is_none() {
            b.host = query.hostname.clone();
        }
        for g in query.gpus {
            let gpu = b.gpu(GpuKey::Index(g.index));
            if let Some(uuid) = &g.uuid {
                b.alias(GpuKey::Uuid(uuid), gpu);
            }
            let info = b.inventory(gpu);
            if info.accelerator.is_none()
                && let Some(name) = &g.name
            {
                info.accelerator = Some(accelerator::normalise(name));
            }
            if let Some(d) = &query.driver_version {
                info.driver_version = Some(d.clone());
            }
            if let Some(total) = g.memory_total {
                info.vram_mib = Some(total as u64);
            }
            if let Some(limit) = g.power_limit {
                info.power_limit_enforced_w = Some(limit);
            }
            let mut sample = Sample::new(t_ms, gpu);
            let mut set = |field: Field, value: Option<f64>, scale: f64| {
                if let Some(v) = value.filter(|v| v.is_finite()) {
                    sample.set(field, (v * scale).round() as i64);
                }
            };
            set(Field::TempGpuC, g.temperature, 1.0);
            set(Field::FanPct, g.fan, 1.0);
            set(Field::UtilGpuPct, g.utilization, 1.0);
            set(Field::PowerMw, g.power, 1000.0);
            set(Field::PowerLimitMw, g.power_limit, 1000.0);
            set(Field::MemUsedMib, g.memory_used, 1.0);
            set(Field::MemTotalMib, g.memory_total, 1.0);
            b.sample(&sample)?;
        }
    }
    if n == 0 {
        return Err(ParseFailure::Whole("no gpustat --json query found".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn rows_with_and_without_fan_and_power() {
        let (s, name) = row(
            "[1] NVIDIA A100-SXM4-80GB | 54°C, 100 %, 372 / 400 W | 61227 / 81920 MB | alice(61218M)",
            0,
        )
        .unwrap();
        assert_eq!(name, "NVIDIA A100-SXM4-80GB");
        assert_eq!(s.gpu, 1);
        assert_eq!(
            (
                s.get(Field::TempGpuC),
                s.get(Field::UtilGpuPct),
                s.get(Field::FanPct)
            ),
            (Some(54), Some(100), None)
        );
        assert_eq!(
            (s.get(Field::PowerMw), s.get(Field::PowerLimitMw)),
            (Some(372_000), Some(400_000))
        );
        assert_eq!(
            (s.get(Field::MemUsedMib), s.get(Field::MemTotalMib)),
            (Some(61_227), Some(81_920))
        );
        let (s, _) = row(
            "[0] NVIDIA GeForce RTX 4090 | 45'C,  30 %,  97 % | 22101 / 24564 MB |",
            0,
        )
        .unwrap();
        assert_eq!(
            (
                s.get(Field::TempGpuC),
                s.get(Field::FanPct),
                s.get(Field::UtilGpuPct)
            ),
            (Some(45), Some(30), Some(97))
        );
        assert_eq!(s.get(Field::PowerMw), None);
        assert!(row("[x] broken | 1°C, 2 % |", 0).is_err());
    }
}
