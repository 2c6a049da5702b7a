//! Metrics: numbers derived from stored runs, one set per run (cached), then
//! gathered per platform — the median over runs, with minimum and maximum
//! kept and the runs named. Billing metrics are derived per platform from
//! its billing rules and prices, and cross-checked against its runs.

pub mod billing;
pub mod catalog;
mod run;
pub mod sustain;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::{Claim, Platform, Run};
use crate::error::Result;
use crate::store::Store;

pub use run::compute_run;

/// Bump when a computation changes, so cached values are recomputed.
pub const ENGINE_VERSION: i64 = 1;

/// One metric's value from one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunValue {
    pub key: String,
    pub value: f64,
    /// What the value was made of, in words ("p50 of 10 attempts; stages …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A run a value came from, as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSource {
    pub run_id: i64,
    pub file: Option<String>,
    pub sha256_prefix: Option<String>,
    pub value: f64,
}

/// One metric of one platform.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    pub key: String,
    /// The median over runs.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub runs: Vec<RunSource>,
    pub details: Vec<String>,
}

/// Everything known about one platform, ready to score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformEvidence {
    pub platform: Platform,
    pub metrics: BTreeMap<String, Evidence>,
    pub claims: Vec<Claim>,
    pub runs: usize,
    /// The currency of its prices, for comparing costs like with like.
    pub currency: Option<String>,
}

impl PlatformEvidence {
    pub fn value(&self, key: &str) -> Option<f64> {
        self.metrics.get(key).map(|e| e.value)
    }
}

/// A run's metrics, from the cache when they were computed by this engine.
pub fn run_values(store: &Store, run: &Run) -> Result<Vec<RunValue>> {
    if let Some(json) = store.cached_metrics(run.id, ENGINE_VERSION)?
        && let Ok(values) = serde_json::from_str(&json)
    {
        return Ok(values);
    }
    let values = compute_run(store, run)?;
    if let Ok(json) = serde_json::to_string(&values) {
        store.cache_metrics(run.id, ENGINE_VERSION, &json)?;
    }
    Ok(values)
}

fn median(values: &mut [f64]) -> f64 {
    sustain::median(values).unwrap_or(f64::NAN)
}

/// The evidence of every platform.
pub fn platform_evidence(store: &Store) -> Result<Vec<PlatformEvidence>> {
    let mut out = Vec::new();
    for platform in store.platforms()? {
        out.push(evidence_of(store, platform)?);
    }
    Ok(out)
}

pub fn evidence_of(store: &Store, platform: Platform) -> Result<PlatformEvidence> {
    let runs = store.runs(Some(platform.id))?;
    let mut by_key: BTreeMap<String, (Vec<RunSource>, Vec<String>)> = BTreeMap::new();
    for run in &runs {
        for v in run_values(store, run)? {
            if !v.value.is_finite() {
                continue;
            }
            let entry = by_key.entry(v.key.clone()).or_default();
            entry.0.push(source(run, v.value));
            if let Some(d) = v.detail {
                entry.1.push(format!("run {}: {d}", run.id));
            }
        }
    }
    for v in billing::platform_values(store, &platform, &runs, &by_key)? {
        let entry = by_key.entry(v.value.key.clone()).or_default();
        entry.0.extend(v.sources);
        if let Some(d) = v.value.detail {
            entry.1.push(d);
        }
        if entry.0.is_empty() {
            // Derived from the platform's rules alone: no run behind it.
            entry.0.push(RunSource {
                run_id: 0,
                file: None,
                sha256_prefix: None,
                value: v.value.value,
            });
        }
    }
    let metrics = by_key
        .into_iter()
        .filter(|(_, (sources, _))| !sources.is_empty())
        .map(|(key, (sources, details))| {
            let mut values: Vec<f64> = sources.iter().map(|s| s.value).collect();
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let value = median(&mut values);
            let runs = sources.into_iter().filter(|s| s.run_id != 0).collect();
            (
                key.clone(),
                Evidence {
                    key,
                    value,
                    min,
                    max,
                    runs,
                    details,
                },
            )
        })
        .collect();
    Ok(PlatformEvidence {
        currency: billing::price(store, &platform)?.map(|(_, c)| c),
        claims: store.claims(Some(platform.id))?,
        runs: runs.len(),
        platform,
        metrics,
    })
}

pub(crate) fn source(run: &Run, value: f64) -> RunSource {
    RunSource {
        run_id: run.id,
        file: run.provenance.file_name.clone(),
        sha256_prefix: run
            .provenance
            .sha256
            .as_ref()
            .map(|h| h[..12.min(h.len())].to_string()),
        value,
    }
}
