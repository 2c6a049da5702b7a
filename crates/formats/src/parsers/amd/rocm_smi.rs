//! `rocm-smi --json` (objects keyed by card: `{"card0": {"GPU use (%)":
//! "0", …}}`) and `rocm-smi --csv` (`device,Temperature (Sensor edge)
//! (C),…`), alone or in a loop.

use std::io::BufRead;

use serde_json::Value;

use super::super::super::ParseContext;
use super::super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use super::super::super::lines::{Line, LineReader};
use super::super::split_cells;
use super::documents::JsonDocuments;
use super::{Placer, sample_of, store};

const TOOL: &str = "rocm-smi";

/// "card3" → 3.
fn card_index(name: &str) -> Option<u32> {
    name.trim().strip_prefix("card")?.parse().ok()
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut header: Option<Vec<String>> = None;
    let mut placer = Placer::new();
    let mut json = JsonDocuments::default();
    let mut rows = 0u64;
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if text.trim().is_empty() {
            continue;
        }
        if json.is_open() || text.trim_start().starts_with('{') {
            rows += json.read_line(&line, TOOL, b, |doc, first, b| {
                json_document(doc, first, &mut placer, ctx, b)
            })?;
            continue;
        }
        if let Some(t) = ctx.times.parse_date_line(text.trim()) {
            placer.dated(t, ctx);
            continue;
        }
        if text.starts_with("device,") {
            header = Some(
                split_cells(text)
                    .iter()
                    .map(|c| c.trim().to_string())
                    .collect(),
            );
            continue;
        }
        let Some(names) = &header else {
            continue;
        };
        let cells = split_cells(text);
        let Some(index) = cells.first().and_then(|c| card_index(c)) else {
            continue;
        };
        let readings: Vec<(String, String)> = names
            .iter()
            .cloned()
            .zip(cells.iter().map(|c| c.trim().to_string()))
            .collect();
        let t_ms = match placer.time_for(index, line.number, TOOL, ctx, b) {
            Ok(t) => t,
            Err(e) => {
                b.bad_line(&line, e)?;
                continue;
            }
        };
        let sample = sample_of(b, index, t_ms, &readings);
        store(b, &line, sample)?;
        rows += 1;
    }
    json.finish(b);
    if rows == 0 {
        return Err(ParseFailure::Whole(
            "no rocm-smi readings (\"card0\" objects in --json, or a \"device,…\" --csv header with rows)"
                .into(),
        ));
    }
    Ok(())
}

fn json_document(
    doc: &Value,
    first_line: u64,
    placer: &mut Placer,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult<u64> {
    let Value::Object(cards) = doc else {
        return Ok(0);
    };
    let line = Line {
        number: first_line,
        text: "",
        terminated: true,
    };
    let mut n = 0;
    for (name, readings) in cards {
        let (Some(index), Value::Object(readings)) = (card_index(name), readings) else {
            continue;
        };
        let pairs: Vec<(String, String)> = readings
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect();
        let t_ms = match placer.time_for(index, first_line, TOOL, ctx, b) {
            Ok(t) => t,
            Err(e) => {
                b.bad_line(&line, e)?;
                continue;
            }
        };
        if let Some(name) = readings.get("Card series").and_then(Value::as_str) {
            let gpu = b.gpu(super::super::super::builder::GpuKey::Index(index));
            let info = b.inventory(gpu);
            info.accelerator
                .get_or_insert_with(|| crate::accelerator::normalise(name));
        }
        let sample = sample_of(b, index, t_ms, &pairs);
        store(b, &line, sample)?;
        n += 1;
    }
    Ok(n)
}
