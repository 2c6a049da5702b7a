//! One node's stretch of the range: fetched chunk by chunk, each answer
//! read without building a tree of it and held to what was asked, merged
//! into one `query_range` answer for the importer.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Calls, PullError, chunks};

/// The most series one node's answer may hold: a node has a few GPUs and
/// Breakpoint asks for a few dozen series of each.
pub(super) const MAX_SERIES: usize = 4096;

/// A `query_range` answer as the server wrote it, read without building a
/// tree of it: labels and values borrowed from the text.
#[derive(Deserialize)]
struct RangeAnswer<'a> {
    #[serde(borrow)]
    status: Cow<'a, str>,
    #[serde(borrow, default)]
    data: Option<RangeData<'a>>,
    #[serde(borrow, default, rename = "errorType")]
    error_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct RangeData<'a> {
    #[serde(borrow)]
    result: Vec<RangeSeries<'a>>,
}

#[derive(Deserialize)]
struct RangeSeries<'a> {
    #[serde(borrow, default)]
    metric: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(borrow, default)]
    values: Vec<(f64, Cow<'a, str>)>,
}

/// One series of a stretch, merged over its chunks, as the importer reads it.
#[derive(Serialize)]
struct MergedSeries {
    metric: BTreeMap<String, String>,
    values: Vec<(f64, String)>,
}

/// One node's stretch of the range, fetched chunk by chunk and merged into
/// one `query_range` answer. What the server sends beyond what was asked —
/// points outside the chunk, a second point at one time — is left out and
/// counted; more series than a node has is refused. So what is kept is
/// bounded by what was asked, whatever the server answers.
pub(super) fn fetch_stretch(
    calls: &Calls<'_>,
    query: &str,
    (from, to): (i64, i64),
    step: i64,
    mut progress: impl FnMut(usize, usize),
) -> Result<(Vec<u8>, u64), PullError> {
    let parts = chunks(from, to, step);
    let mut series: BTreeMap<String, MergedSeries> = BTreeMap::new();
    let mut dropped = 0u64;
    for (i, (a, b)) in parts.iter().enumerate() {
        let text = calls.get_text(
            "/api/v1/query_range",
            &[
                ("query", query.to_string()),
                ("start", a.to_string()),
                ("end", b.to_string()),
                ("step", format!("{step}s")),
            ],
        )?;
        let answer: RangeAnswer<'_> = serde_json::from_str(&text).map_err(|e| {
            PullError::Server(format!(
                "not a query_range answer ({e}): {}",
                breakpoint_core::text::printable_excerpt(&text, 200)
            ))
        })?;
        if answer.status != "success" {
            return Err(PullError::Server(format!(
                "the server answered {}: {}",
                breakpoint_core::text::printable_excerpt(
                    answer.error_type.as_deref().unwrap_or("an error"),
                    80
                ),
                breakpoint_core::text::printable_excerpt(
                    answer.error.as_deref().unwrap_or("no message"),
                    200
                )
            )));
        }
        let result = answer
            .data
            .ok_or_else(|| PullError::Server("a query_range answer without result".into()))?
            .result;
        for s in result {
            let key = serde_json::to_string(&s.metric).unwrap_or_default();
            if !series.contains_key(&key) && series.len() >= MAX_SERIES {
                return Err(PullError::Server(format!(
                    "the server answered more than {MAX_SERIES} series for one node: refused"
                )));
            }
            let merged = series.entry(key).or_insert_with(|| MergedSeries {
                metric: s
                    .metric
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                values: Vec::new(),
            });
            let mut last = merged.values.last().map(|(t, _)| *t);
            for (t, v) in s.values {
                // Only what was asked, once: within the chunk, after the
                // point before it.
                let asked = t >= *a as f64 && t <= *b as f64;
                if !asked || last.is_some_and(|l| t <= l) {
                    dropped += 1;
                    continue;
                }
                last = Some(t);
                merged.values.push((t, v.into_owned()));
            }
        }
        progress(i + 1, parts.len());
    }
    let result: Vec<MergedSeries> = series.into_values().collect();
    let bytes = serde_json::to_vec(&json!({
        "status": "success",
        "data": { "resultType": "matrix", "result": result },
    }))
    .map_err(|e| PullError::Server(e.to_string()))?;
    Ok((bytes, dropped))
}
