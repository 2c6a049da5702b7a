//! The JSON Lines log of the four-breakpoint review's monitoring script (§3.2): every 30 s,
//! `{"timestamp": "<local ISO time>", "power": W, "temp": °C, "mem_used": MiB,
//! "util": %}`.
//!
//! The script writes `0` for whatever it failed to read (`status.get(…, 0)`).
//! A running GPU never draws 0 W nor sits at 0 °C, so those zeros are read
//! as "not reported"; a utilisation or memory of 0 is real (an idle GPU),
//! except in a record of nothing but zeros — a failed read, skipped with a
//! warning.
//! Variants that add a GPU number (`gpu`, `index`, `gpu_id`) are accepted.

use std::io::BufRead;

use serde::Deserialize;

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use crate::samples::{Field, Sample};

#[derive(Deserialize)]
struct ScriptLine {
    timestamp: serde_json::Value,
    power: Option<f64>,
    temp: Option<f64>,
    mem_used: Option<f64>,
    util: Option<f64>,
    #[serde(alias = "index", alias = "gpu_id")]
    gpu: Option<u32>,
}

fn scaled(v: Option<f64>, factor: f64) -> Option<i64> {
    v.filter(|v| v.is_finite())
        .map(|v| (v * factor).round() as i64)
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut any = false;
    b.interval_ms = b.interval_ms.or(Some(30_000));
    while let Some(line) = lines.next_line()? {
        if line.text.trim().is_empty() {
            continue;
        }
        let record: ScriptLine = match serde_json::from_str(line.text) {
            Ok(r) => r,
            Err(e) => {
                let error = LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a script log record: {e}"),
                );
                b.bad_line(&line, error)?;
                continue;
            }
        };
        let t = match &record.timestamp {
            serde_json::Value::String(s) => ctx.times.parse(s),
            serde_json::Value::Number(n) => n
                .as_f64()
                .and_then(|v| super::super::timestamps::parse_epoch(&v.to_string())),
            _ => None,
        };
        let Some(t_ms) = t else {
            let error = LineError::new(
                line.number,
                None,
                format!("{} is not a time for timestamp", record.timestamp),
            );
            b.bad_line(&line, error)?;
            continue;
        };
        // All zeros is the script's failed read, not an idle GPU at 0 °C.
        if [record.power, record.temp, record.mem_used, record.util]
            .iter()
            .all(|v| v.is_none_or(|x| x == 0.0))
        {
            b.warn(format!(
                "line {}: the record holds only zeros (the script could not read the GPU); not stored as a measurement",
                line.number
            ));
            continue;
        }
        let mut s = Sample::new(t_ms, record.gpu.unwrap_or(0));
        if let Some(p) = scaled(record.power, 1000.0).filter(|p| *p != 0) {
            s.set(Field::PowerMw, p);
        }
        if let Some(c) = scaled(record.temp, 1.0).filter(|c| *c != 0) {
            s.set(Field::TempGpuC, c);
        }
        if let Some(m) = scaled(record.mem_used, 1.0) {
            s.set(Field::MemUsedMib, m);
        }
        if let Some(u) = scaled(record.util, 1.0) {
            s.set(Field::UtilGpuPct, u);
        }
        b.sample(&s)?;
        any = true;
    }
    if !any {
        return Err(ParseFailure::Whole(
            "the script log holds no records".into(),
        ));
    }
    Ok(())
}
