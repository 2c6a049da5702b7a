//! One node's stretch of the range: fetched chunk by chunk, each answer
//! read without building a tree of it and held to what was asked, merged
//! into one `query_range` answer for the importer.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, Error as _, SeqAccess, Visitor};
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
    #[serde(borrow, deserialize_with = "at_most_max_series")]
    result: Vec<RangeSeries<'a>>,
}

#[derive(Deserialize)]
struct RangeSeries<'a> {
    #[serde(borrow, default)]
    metric: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "asked_points")]
    values: Vec<(f64, Cow<'a, str>)>,
}

thread_local! {
    /// The chunk being read on this thread (from, to, the most points a
    /// series can have in it): points outside it are dropped while the
    /// answer is parsed, so what a hostile answer adds is never held.
    static WINDOW: Cell<(f64, f64, usize)> = const { Cell::new((f64::MIN, f64::MAX, usize::MAX)) };
    /// Points dropped while parsing on this thread.
    static DROPPED: Cell<u64> = const { Cell::new(0) };
    /// Whether the answer being parsed on this thread was refused for
    /// holding more series than a node has (told apart from a malformed
    /// answer by this, not by the parser's message).
    static TOO_MANY_SERIES: Cell<bool> = const { Cell::new(false) };
}

/// A series' points, kept only where asked for: inside the chunk, each
/// after the one before, no more than the chunk has steps.
fn asked_points<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(f64, Cow<'de, str>)>, D::Error> {
    struct Points;
    impl<'de> Visitor<'de> for Points {
        type Value = Vec<(f64, Cow<'de, str>)>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of [time, value] points")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let (from, to, most) = WINDOW.get();
            let mut kept: Vec<(f64, Cow<'de, str>)> = Vec::new();
            let mut dropped = 0u64;
            while let Some((t, v)) = seq.next_element::<(f64, Cow<'de, str>)>()? {
                let after_last = kept.last().is_none_or(|(last, _)| t > *last);
                if t < from || t > to || !after_last || kept.len() >= most {
                    dropped += 1;
                    continue;
                }
                kept.push((t, v));
            }
            DROPPED.set(DROPPED.get() + dropped);
            Ok(kept)
        }
    }
    d.deserialize_seq(Points)
}

/// An answer's series, refused as soon as there are more than a node has.
fn at_most_max_series<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RangeSeries<'de>>, D::Error> {
    struct Series;
    impl<'de> Visitor<'de> for Series {
        type Value = Vec<RangeSeries<'de>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of series")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut all = Vec::new();
            while let Some(s) = seq.next_element::<RangeSeries<'de>>()? {
                if all.len() >= MAX_SERIES {
                    TOO_MANY_SERIES.set(true);
                    return Err(A::Error::custom(format!(
                        "more than {MAX_SERIES} series for one node"
                    )));
                }
                all.push(s);
            }
            Ok(all)
        }
    }
    d.deserialize_seq(Series)
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
        // The most points a series can have in this chunk, one of slack.
        let most = usize::try_from((b - a) / step.max(1) + 2).unwrap_or(usize::MAX);
        WINDOW.set((*a as f64, *b as f64, most));
        DROPPED.set(0);
        TOO_MANY_SERIES.set(false);
        let parsed: Result<RangeAnswer<'_>, _> = serde_json::from_str(&text);
        dropped += DROPPED.get();
        let answer = parsed.map_err(|e| {
            if TOO_MANY_SERIES.get() {
                return PullError::Server(format!(
                    "the server answered more than {MAX_SERIES} series for one node: refused"
                ));
            }
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
            // Within the chunk the parse kept only asked points, in order;
            // across chunks a point must still come after the last one.
            let mut last = merged.values.last().map(|(t, _)| *t);
            for (t, v) in s.values {
                if last.is_some_and(|l| t <= l) {
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
