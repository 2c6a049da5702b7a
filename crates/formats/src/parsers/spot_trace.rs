//! Spot availability traces, as SkyPilot publishes them for its spot
//! research: `{"metadata": {"gap_seconds": 600, …}, "data": [0, 1, …]}`, one
//! point per `gap_seconds`, 0 while a spot instance of the traced type was
//! held, 1 while it was not (preempted, or no capacity to get one back).
//!
//! Their gang traces count the instances held at each point instead; the
//! file name gives the place and instance (`us-east-1a_v100_1.json`) where
//! the metadata does not.
//!
//! A trace is evidence about the instance type and place it names, not a
//! measurement of the platform: it is kept with the run (`SPOT_TRACE`) as
//! what a job on spot meets — each hold that ends is a reclaim — and read
//! only where a spot job is costed. The platform's own interruption rate
//! stays its runs'.

use std::io::BufRead;

use serde::Deserialize;

use super::super::ParseContext;
use super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use crate::domain::spot::{SPOT_TRACE, SpotTrace};

/// A trace is a few months of points minutes apart (a year at one a
/// minute is 1.5 MB): far below this, which bounds what is held (a point
/// read is four bytes).
const LIMIT: u64 = 16 << 20;

#[derive(Deserialize)]
struct Document {
    metadata: serde_json::Map<String, serde_json::Value>,
    /// Each point a count: 0 or 1, or the instances a gang held.
    data: Vec<u32>,
}

/// The place and instance a trace's file name gives, as SkyPilot names
/// them: `us-east-1a_v100_1.json` (zone, GPU, count), `us-east1-b_c3-88.json`
/// (zone, instance type).
fn named_by_file(file: &str) -> (Option<String>, Option<String>) {
    let stem = file.strip_suffix(".json").unwrap_or(file);
    let parts: Vec<&str> = stem.split('_').collect();
    match parts.as_slice() {
        [zone, gpu, count] if count.parse::<u32>().is_ok() => {
            (Some((*zone).to_string()), Some(format!("{count} × {gpu}")))
        }
        [zone, instance] => (Some((*zone).to_string()), Some((*instance).to_string())),
        _ => (None, None),
    }
}

/// Whether `text` opens a spot trace (for detection).
pub(crate) fn is_spot_trace(text: &str) -> bool {
    text.contains("\"gap_seconds\"") && text.contains("\"data\"")
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let doc: Document = super::read_json(input, LIMIT, "the spot trace")?;
    let gap_s = doc
        .metadata
        .get("gap_seconds")
        .and_then(serde_json::Value::as_f64)
        .filter(|g| g.is_finite() && *g > 0.0 && *g <= 86_400.0)
        .ok_or_else(|| {
            ParseFailure::Whole(
                "metadata.gap_seconds must be the seconds between points (more than 0, at most a day)"
                    .into(),
            )
        })?;
    let counts = doc.data;
    let text_of = |keys: &[&str]| {
        keys.iter().find_map(|k| {
            doc.metadata.get(*k).and_then(|v| match v {
                serde_json::Value::String(s) => Some(crate::text::printable_excerpt(s, 80)),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
        })
    };
    let file = ctx
        .file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default()
        .to_string();
    let (named_place, named_instance) = named_by_file(&file);
    let instance = text_of(&["instance_type", "instance", "type"]).or(named_instance);
    let place = text_of(&["zone", "availability_zone", "region"]).or(named_place);
    let source = (!file.is_empty()).then_some(file);
    // One instance's trace reads 1 where it was lost; a gang's counts the
    // instances held.
    let trace = if counts.iter().all(|c| *c <= 1) {
        let held: Vec<bool> = counts.iter().map(|c| *c == 0).collect();
        SpotTrace::of(&held, gap_s, instance, place, source)
    } else {
        SpotTrace::of_counts(&counts, gap_s, instance, place, source)
    }
    .ok_or_else(|| {
        ParseFailure::Whole("the trace never holds an instance: no spot time to learn from".into())
    })?;
    b.warn(trace.words());
    b.metadata.insert(
        SPOT_TRACE.into(),
        serde_json::to_value(&trace).map_err(|e| ParseFailure::Whole(e.to_string()))?,
    );
    b.metadata_records += 1;
    Ok(())
}
