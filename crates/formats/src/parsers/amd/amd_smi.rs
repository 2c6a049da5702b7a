//! `amd-smi metric` / `amd-smi monitor`: text, `--csv` or `--json`.
//!
//! ```text
//! GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL  GFX_CLOCK  MEM_UTIL  MEM_CLOCK
//!   0  140 W     35 °C     28 °C       0 %    130 MHz       0 %    900 MHz
//!
//! gpu,power_usage,hotspot_temperature,memory_temperature,gfx_util,gfx_clock,mem_util,mem_clock
//! 0,140,35,28,0,130,0,900
//!
//! [{"gpu": 0, "power": {"socket_power": {"value": 140, "unit": "W"}}, …}]
//! ```
//!
//! A `timestamp` column or key (watch mode) times its row; JSON documents
//! appended by a loop are read one after another.

use std::io::BufRead;

use serde_json::Value;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::super::lines::{Line, LineReader};
use super::super::super::timestamps::parse_epoch;
use super::super::split_cells;
use super::documents::JsonDocuments;
use super::{Placer, sample_of, store};

const TOOL: &str = "amd-smi";

/// How the rows are laid out, from the header.
enum Layout {
    Csv(Vec<String>),
    Text(Vec<String>),
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut layout: Option<Layout> = None;
    let mut placer = Placer::new();
    let mut json = JsonDocuments::default();
    let mut rows = 0u64;
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if text.trim().is_empty() {
            continue;
        }
        if json.is_open() || (layout.is_none() && text.trim_start().starts_with(['[', '{'])) {
            rows += json.read_line(&line, TOOL, b, |doc, first, b| {
                json_document(doc, first, &mut placer, ctx, b)
            })?;
            continue;
        }
        if let Some(t) = ctx.times.parse_date_line(text.trim()) {
            placer.dated(t, ctx);
            continue;
        }
        let lower = text.trim_start().to_ascii_lowercase();
        if lower.starts_with("gpu,") {
            layout = Some(Layout::Csv(
                split_cells(text)
                    .iter()
                    .map(|c| c.trim().to_string())
                    .collect(),
            ));
            continue;
        }
        if lower.starts_with("gpu ")
            && !text.trim_start()[3..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit())
        {
            layout = Some(Layout::Text(
                text.split_whitespace().map(str::to_string).collect(),
            ));
            continue;
        }
        let readings = match &layout {
            Some(Layout::Csv(names)) => {
                let cells = split_cells(text);
                if cells.len() != names.len() {
                    let e = LineError::new(
                        line.number,
                        None,
                        format!(
                            "{} cells for the {} columns of the header",
                            cells.len(),
                            names.len()
                        ),
                    );
                    b.bad_line(&line, e)?;
                    continue;
                }
                names
                    .iter()
                    .cloned()
                    .zip(cells.iter().map(|c| c.trim().to_string()))
                    .collect::<Vec<_>>()
            }
            Some(Layout::Text(names)) => names.iter().cloned().zip(text_values(text)).collect(),
            None => continue,
        };
        row(&line, &readings, &mut placer, ctx, b)?;
        rows += 1;
    }
    json.finish(b);
    if rows == 0 {
        return Err(ParseFailure::Whole(
            "no amd-smi readings (a \"GPU …\" or \"gpu,…\" header with rows, or amd-smi --json GPU objects)"
                .into(),
        ));
    }
    Ok(())
}

/// "  0  140 W     35 °C   N/A" → ["0", "140 W", "35 °C", "N/A"]: a unit
/// joins the number before it.
fn text_values(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in line.split_whitespace() {
        let is_unit = !word.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.')
            && word != "N/A"
            && out.last().is_some_and(|l| l.parse::<f64>().is_ok());
        match out.last_mut() {
            Some(last) if is_unit => {
                last.push(' ');
                last.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

fn row(
    line: &Line<'_>,
    readings: &[(String, String)],
    placer: &mut Placer,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let gpu = readings
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("gpu"))
        .and_then(|(_, v)| v.trim().parse::<u32>().ok());
    let Some(gpu) = gpu else {
        let e = LineError::new(line.number, None, "no GPU index in the row");
        return b.bad_line(line, e);
    };
    let stamped = readings
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("timestamp"))
        .and_then(|(_, v)| parse_epoch(v).or_else(|| ctx.times.parse(v)));
    let t_ms = match stamped {
        Some(t) => t,
        None => match placer.time_for(gpu, line.number, TOOL, ctx, b) {
            Ok(t) => t,
            Err(e) => return b.bad_line(line, e),
        },
    };
    let sample = sample_of(b, gpu, t_ms, readings);
    store(b, line, sample)
}

/// One `--json` document: GPU objects (`"gpu": 0`) anywhere in it, their
/// readings flattened to `section key` names.
fn json_document(
    doc: &Value,
    first_line: u64,
    placer: &mut Placer,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult<u64> {
    let mut gpus = Vec::new();
    find_gpus(doc, &mut gpus);
    let line = Line {
        number: first_line,
        text: "",
        terminated: true,
    };
    for g in &gpus {
        let Some(index) = g
            .get("gpu")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
        else {
            continue;
        };
        let mut readings = Vec::new();
        flatten("", g, &mut readings);
        let stamped = g.get("timestamp").and_then(|t| match t {
            Value::Number(n) => n.as_f64().and_then(|f| parse_epoch(&f.to_string())),
            Value::String(s) => parse_epoch(s).or_else(|| ctx.times.parse(s)),
            _ => None,
        });
        let t_ms = match stamped {
            Some(t) => t,
            None => match placer.time_for(index, first_line, TOOL, ctx, b) {
                Ok(t) => t,
                Err(e) => {
                    b.bad_line(&line, e)?;
                    continue;
                }
            },
        };
        let sample = sample_of(b, index, t_ms, &readings);
        store(b, &line, sample)?;
    }
    Ok(gpus.len() as u64)
}

fn find_gpus<'v>(v: &'v Value, out: &mut Vec<&'v serde_json::Map<String, Value>>) {
    match v {
        Value::Object(o) if o.get("gpu").is_some_and(Value::is_u64) => out.push(o),
        Value::Object(o) => o.values().for_each(|c| find_gpus(c, out)),
        Value::Array(a) => a.iter().for_each(|c| find_gpus(c, out)),
        _ => {}
    }
}

/// {"power": {"socket_power": {"value": 140, "unit": "W"}}} →
/// ("power socket_power", "140 W").
fn flatten(prefix: &str, o: &serde_json::Map<String, Value>, out: &mut Vec<(String, String)>) {
    for (k, v) in o {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix} {k}")
        };
        match v {
            Value::Object(inner) if inner.contains_key("value") => {
                let value = inner.get("value").map(scalar).unwrap_or_default();
                let unit = inner.get("unit").and_then(Value::as_str).unwrap_or("");
                out.push((key, format!("{value} {unit}").trim().to_string()));
            }
            Value::Object(inner) => flatten(&key, inner, out),
            Value::Array(_) | Value::Null => {}
            other => out.push((key, scalar(other))),
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_join_their_numbers() {
        assert_eq!(
            text_values("  0  140 W     35 °C     N/A       0 %    130 MHz"),
            vec!["0", "140 W", "35 °C", "N/A", "0 %", "130 MHz"]
        );
    }
}
