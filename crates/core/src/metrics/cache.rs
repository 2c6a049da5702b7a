//! The caches behind the metrics: each run's values (JSON, under the
//! engine version that computed them), and each platform's gathered
//! evidence at its stamp, kept whole (JSON) and as a summary without
//! sources (postcard). What a read computed is written once its consistent
//! view is over, and only for runs and platforms that still exist.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::{
    ENGINE_VERSION, Evidence, EvidenceMap, MetricDegradation, PlatformEvidence, RunValue, Share,
    compute_run,
};
use crate::domain::{Claim, Platform, Run};
use crate::error::Result;
use crate::store::Store;

/// Metrics computed (not read from the cache) during one gathering, and
/// platforms' evidence gathered anew (with the stamp read), kept once the
/// consistent read is over.
#[derive(Default)]
pub(super) struct Fresh {
    /// (run, its creation time, its values as JSON).
    metrics: Vec<(i64, i64, String)>,
    evidence: Vec<FreshEvidence>,
    /// (platform, stamp, summary): summaries of evidence read whole from
    /// the cache, where the summary was missing (written by a build that
    /// keeps another form of it).
    summaries: Vec<(i64, i64, Vec<u8>)>,
}

/// A platform's evidence as the cache keeps it: whole (JSON), and without
/// its sources (postcard).
struct FreshEvidence {
    platform_id: i64,
    stamp: i64,
    whole: String,
    summary: Vec<u8>,
}

/// A run's metrics, from the cache when they were computed by this engine.
pub(super) fn run_values(store: &Store, run: &Run, fresh: &mut Fresh) -> Result<Vec<RunValue>> {
    if let Some(json) = store.cached_metrics(run.id, ENGINE_VERSION)?
        && let Ok(values) = serde_json::from_str(&json)
    {
        return Ok(values);
    }
    let values = compute_run(store, run)?;
    if let Ok(json) = serde_json::to_string(&values) {
        fresh
            .metrics
            .push((run.id, run.created_at.as_millisecond(), json));
    }
    Ok(values)
}

impl Fresh {
    /// Keep a platform's evidence gathered anew at `stamp`: whole (JSON,
    /// with each run's time, which the evidence itself does not show) and
    /// as a summary without sources (postcard).
    pub(super) fn evidence(&mut self, platform_id: i64, stamp: i64, evidence: &PlatformEvidence) {
        let run_times: BTreeMap<i64, i64> = evidence
            .metrics
            .values()
            .flat_map(|e| e.runs.iter().map(|r| (r.run_id, r.at_ms)))
            .collect();
        let whole = serde_json::to_string(&WholeRef {
            evidence,
            run_times: &run_times,
        });
        let summary = summary(evidence);
        if let (Ok(whole), Ok(summary)) = (whole, summary) {
            self.evidence.push(FreshEvidence {
                platform_id,
                stamp,
                whole,
                summary,
            });
        }
    }

    /// Keep the summary of a platform's evidence read whole at `stamp`,
    /// unless this read gathered it anew (and keeps both already).
    pub(super) fn summary(&mut self, platform_id: i64, stamp: i64, evidence: &PlatformEvidence) {
        if self.evidence.iter().any(|e| e.platform_id == platform_id) {
            return;
        }
        if let Ok(summary) = summary(evidence) {
            self.summaries.push((platform_id, stamp, summary));
        }
    }

    /// Cache what was computed, for runs that still exist.
    fn keep(self, store: &Store) -> Result<()> {
        if (self.metrics.is_empty() && self.evidence.is_empty() && self.summaries.is_empty())
            || store.is_read_only()
        {
            return Ok(());
        }
        store.atomically(|store| {
            for (run_id, created_at_ms, json) in &self.metrics {
                store.cache_metrics(*run_id, *created_at_ms, ENGINE_VERSION, json)?;
            }
            for e in &self.evidence {
                store.cache_evidence(e.platform_id, ENGINE_VERSION, e.stamp, &e.whole)?;
                store.cache_summary(e.platform_id, SUMMARY_KEY, e.stamp, &e.summary)?;
            }
            for (platform_id, stamp, summary) in &self.summaries {
                store.cache_summary(*platform_id, SUMMARY_KEY, *stamp, summary)?;
            }
            Ok(())
        })
    }
}

/// Read on one snapshot, then keep what was computed for runs that still
/// exist.
pub(super) fn read_then_cache<T>(
    store: &Store,
    between: impl FnOnce(&Store),
    read: impl FnOnce(&Store, &mut Fresh) -> Result<T>,
) -> Result<T> {
    let mut fresh = Fresh::default();
    let value = store.snapshot(|store| read(store, &mut fresh))?;
    between(store);
    fresh.keep(store)?;
    Ok(value)
}

/// Each run's values, from the cache where they are (computed and cached
/// where not).
pub(crate) fn cached_values(store: &Store, runs: &[Run]) -> Result<Vec<(i64, Vec<RunValue>)>> {
    read_then_cache(
        store,
        |_| {},
        |store, fresh| {
            runs.iter()
                .map(|run| Ok((run.id, run_values(store, run, fresh)?)))
                .collect()
        },
    )
}

/// A platform's evidence as the cache keeps it whole: with each run's time,
/// which the evidence itself does not show.
#[derive(Deserialize)]
struct Whole {
    evidence: PlatformEvidence,
    run_times: BTreeMap<i64, i64>,
}

/// `Whole`, borrowed, for writing.
#[derive(Serialize)]
struct WholeRef<'a> {
    evidence: &'a PlatformEvidence,
    run_times: &'a BTreeMap<i64, i64>,
}

/// What the summaries' `engine` column holds: the engine that gathered the
/// evidence and the form of the summary. Postcard does not say what its
/// bytes hold, so a build reads only the summaries of its own form (a
/// build of another form, opening the same workspace, reads none of these
/// and writes its own over them, as these are written over its).
pub(super) const SUMMARY_KEY: i64 = ENGINE_VERSION * 1000 + SUMMARY_FORM;

/// 3: each metric's spread over its units beside its median, minimum and
/// maximum (2: without it; 1, under the bare engine number, was the whole
/// evidence without sources).
/// 4: the price's source beside the currency.
const SUMMARY_FORM: i64 = 4;

/// A platform's evidence without its sources as the summary cache keeps
/// it: per metric its key, median, minimum and maximum, in key order. The
/// platform itself is not kept (whoever reads a summary has it), nor a
/// metric's key twice, nor the runs and details a summary never has.
#[derive(Serialize)]
struct SummaryRef<'a> {
    metrics: Vec<(&'a str, f64, f64, f64, &'a [Share])>,
    claims: &'a [Claim],
    runs: usize,
    currency: &'a Option<String>,
    price_source: &'a Option<super::billing::PriceSource>,
    degradations: &'a [MetricDegradation],
}

/// `SummaryRef`, read back (the keys borrowed from the bytes).
#[derive(Deserialize)]
struct Summary<'a> {
    #[serde(borrow)]
    metrics: Vec<(&'a str, f64, f64, f64, Vec<Share>)>,
    claims: Vec<Claim>,
    runs: usize,
    currency: Option<String>,
    price_source: Option<super::billing::PriceSource>,
    degradations: Vec<MetricDegradation>,
}

/// A platform's evidence as a summary without sources (postcard).
fn summary(evidence: &PlatformEvidence) -> postcard::Result<Vec<u8>> {
    postcard::to_allocvec(&SummaryRef {
        metrics: evidence
            .metrics
            .iter()
            .map(|(key, e)| (key, e.value, e.min, e.max, e.spread.as_slice()))
            .collect(),
        claims: &evidence.claims,
        runs: evidence.runs,
        currency: &evidence.currency,
        price_source: &evidence.price_source,
        degradations: &evidence.degradations,
    })
}

/// A platform's evidence without sources, read from its summary: all but
/// the platform.
pub(super) struct CachedSummary {
    metrics: EvidenceMap,
    claims: Vec<Claim>,
    runs: usize,
    currency: Option<String>,
    price_source: Option<super::billing::PriceSource>,
    degradations: Vec<MetricDegradation>,
}

/// A summary read back; none when the bytes are not one.
pub(super) fn decode_summary(bytes: &[u8]) -> Option<CachedSummary> {
    let summary: Summary = postcard::from_bytes(bytes).ok()?;
    // In key order as written: listed as they come.
    let metrics = summary
        .metrics
        .into_iter()
        .map(|(key, value, min, max, spread)| Evidence {
            spread,
            ..Evidence::without_sources(key, value, min, max)
        })
        .collect();
    Some(CachedSummary {
        metrics,
        claims: summary.claims,
        runs: summary.runs,
        currency: summary.currency,
        price_source: summary.price_source,
        degradations: summary.degradations,
    })
}

impl CachedSummary {
    pub(super) fn into_evidence(self, platform: Platform) -> PlatformEvidence {
        PlatformEvidence {
            platform,
            metrics: self.metrics,
            claims: self.claims,
            runs: self.runs,
            currency: self.currency,
            price_source: self.price_source,
            not_comparable: Vec::new(),
            degradations: self.degradations,
        }
    }
}

/// Each platform's evidence from its cached JSON, where the cache holds it
/// at the platform's current stamp; split among the cores for many.
pub(super) fn decode_all(
    platforms: &[Platform],
    cached: &HashMap<i64, String>,
) -> Vec<Option<PlatformEvidence>> {
    let decode = |platforms: &[Platform]| -> Vec<Option<PlatformEvidence>> {
        platforms
            .iter()
            .map(|p| cached.get(&p.id).and_then(|json| from_whole(json)))
            .collect()
    };
    let threads = if platforms.len() < 64 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |t| t.get().min(8))
    };
    if threads == 1 {
        return decode(platforms);
    }
    let chunk = platforms.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = platforms
            .chunks(chunk)
            .map(|part| (part.len(), scope.spawn(move || decode(part))))
            .collect();
        parts
            .into_iter()
            // A decoder cannot panic short of a bug; gather anew then.
            .flat_map(|(len, part)| part.join().unwrap_or_else(|_| vec![None; len]))
            .collect()
    })
}

/// Evidence from the cache's JSON, each run's time put back in its sources.
pub(super) fn from_whole(json: &str) -> Option<PlatformEvidence> {
    let cached = serde_json::from_str::<Whole>(json).ok()?;
    let mut evidence = cached.evidence;
    for source in evidence
        .metrics
        .values_mut()
        .flat_map(|e| e.runs.iter_mut())
    {
        source.at_ms = cached.run_times.get(&source.run_id).copied().unwrap_or(0);
    }
    Some(evidence)
}
