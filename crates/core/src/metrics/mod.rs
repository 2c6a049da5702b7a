//! Metrics: numbers derived from stored runs, one set per run (cached), then
//! gathered per platform — the median over runs, with minimum and maximum
//! kept and the runs named. Billing metrics are derived per platform from
//! its billing rules and prices, and cross-checked against its runs.

mod aggregate;
pub mod billing;
mod cache;
pub mod catalog;
pub mod checks_ran;
mod delivered;
pub mod energy;
mod evidence_map;
mod faults;
pub mod faulty_gpus;
pub mod history;
pub mod interruption_risk;
mod nodes;
pub mod reconcile;
mod run;
pub mod sources;
pub mod spot;
pub mod stages;
pub mod stress;
pub mod sustain;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::{Claim, Platform, Run};
use crate::error::Result;
use crate::metrics::catalog::keys;
use crate::store::Store;

pub use aggregate::{Share, UnitFigure};
pub(crate) use cache::cached_values;
use cache::{Fresh, read_then_cache, run_values};
pub use evidence_map::EvidenceMap;
pub use run::{compute_run, not_evidence};

/// Bump when a computation changes, so cached values (each run's metrics,
/// each platform's gathered evidence) are recomputed.
/// 2: runs keep their energy figures with their metrics.
/// 3: rates pooled, faults judged per GPU history and node, lost GPUs.
/// 4: delivered performance from perf logs; bills reconciled with what was
///    measured.
/// 5: evidence that measures nothing (planted, CPU-simulated) scores
///    nothing; bills read a line at a time.
/// 6: the share of GPUs found faulty; failed health checks leave delivery.
/// 7: the data path (storage logs); a run's energy kept per GPU, so its
///    detail reads no samples.
/// 8: energy integrated in exact integer sums (the last digits of a run's
///    kWh and mean powers move), kept per GPU as the import writes it.
/// 9: pooled rates keep their count and exposure; the interruption rate's
///    posterior is said beside it.
/// 10: a platform's runs count the measured ones (price lists apart); its
///    evidence keeps where its price comes from.
/// 11: the field's health checks, the fabric and node metrics.
/// 12: details say their figures as every face does (no exponents, a
///     small share "< 1 %", elapsed times in one grammar).
pub const ENGINE_VERSION: i64 = 12;

/// One metric's value from one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunValue {
    pub key: String,
    pub value: f64,
    /// What the value was made of, in words ("p50 of 10 attempts; stages …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For a pooled rate: what the run counted, over what exposure (the
    /// value is 100 × count ÷ exposure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pooled: Option<Pooled>,
    /// For a figure judged per GPU: each GPU's own, with the time it covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<GpuValue>,
}

impl RunValue {
    pub fn new(key: &str, value: f64, detail: Option<String>) -> RunValue {
        RunValue {
            key: key.to_string(),
            value,
            detail,
            pooled: None,
            gpus: Vec::new(),
        }
    }

    /// A rate of `count` over `exposure`, as 100 × count ÷ exposure.
    pub fn pooled(key: &str, count: f64, exposure: f64, detail: Option<String>) -> RunValue {
        RunValue {
            pooled: Some(Pooled { count, exposure }),
            ..RunValue::new(key, 100.0 * count / exposure, detail)
        }
    }
}

/// A rate's parts, added up over runs before dividing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pooled {
    pub count: f64,
    pub exposure: f64,
}

/// One GPU's figure in one run, and the time its samples cover (ms): runs
/// of the same GPU that touch in time are read again as one history.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GpuValue {
    pub gpu: u32,
    pub value: f64,
    pub from_ms: i64,
    pub to_ms: i64,
}

/// A run a value came from, as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSource {
    pub run_id: i64,
    /// When the run was measured (ms): the order of a platform's history.
    /// Kept in the evidence cache beside the evidence, not shown.
    #[serde(skip)]
    pub at_ms: i64,
    pub file: Option<String>,
    pub sha256_prefix: Option<String>,
    pub value: f64,
}

impl RunSource {
    /// "#12 gpu.csv 3f2a9c41d0e7": the run, its file and the start of its hash.
    pub fn label(&self) -> String {
        format!(
            "#{} {} {}",
            self.run_id,
            self.file.as_deref().unwrap_or("–"),
            self.sha256_prefix.as_deref().unwrap_or("")
        )
        .trim_end()
        .to_string()
    }
}

/// One metric of one platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub key: String,
    /// The median over runs.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub runs: Vec<RunSource>,
    pub details: Vec<String>,
    /// For a metric judged per unit: every unit's figure and its share of
    /// the exposure (merged into at most [`aggregate::SPREAD_BINS`] bins of
    /// neighbouring values); the score is the expected score over them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Share>,
    /// The worst units behind the figure, worst first, named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worst: Vec<UnitFigure>,
    /// For a pooled rate: every run's count and exposure, summed (what a
    /// posterior over the rate rests on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pooled: Option<Pooled>,
}

impl Evidence {
    /// A metric's median, minimum and maximum without the runs and details
    /// behind them (as a summary keeps it).
    pub fn without_sources(key: impl Into<String>, value: f64, min: f64, max: f64) -> Evidence {
        Evidence {
            key: key.into(),
            value,
            min,
            max,
            runs: Vec::new(),
            details: Vec::new(),
            spread: Vec::new(),
            worst: Vec::new(),
            pooled: None,
        }
    }
}

/// Everything known about one platform, ready to score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlatformEvidence {
    pub platform: Platform,
    pub metrics: EvidenceMap,
    pub claims: Vec<Claim>,
    pub runs: usize,
    /// The currency of its prices, for comparing costs like with like.
    pub currency: Option<String>,
    /// Where the price its costs are figured at comes from, and its day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<billing::PriceSource>,
    /// Money metrics left out for want of a rate into the reporting
    /// currency (`rates::make_comparable`), with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_comparable: Vec<NotComparable>,
    /// The metrics its latest runs are worse on (the history test over
    /// each metric's per-run values), found while the runs are at hand so
    /// that evidence without its sources still carries them.
    pub degradations: Vec<MetricDegradation>,
}

/// A money metric a platform has no figure for in the reporting currency:
/// its prices are in another and no rate joins the two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotComparable {
    pub key: String,
    /// "not comparable: USD prices and no USD→CNY rate (breakpoint rates add USD CNY RATE)"
    pub reason: String,
}

/// A metric a platform got worse on, and the recent runs judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricDegradation {
    pub key: String,
    pub degradation: history::Degradation,
    pub runs: Vec<i64>,
}

impl PlatformEvidence {
    pub fn value(&self, key: &str) -> Option<f64> {
        self.metrics.get(key).map(|e| e.value)
    }
}

/// Which platforms' evidence is wanted with its sources (each metric's
/// runs, their files and hashes, and the details): a ranking shown as a
/// table needs none, and reads a few hundred bytes a platform instead of
/// kilobytes; an explanation needs one platform's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sources {
    #[default]
    All,
    None,
    Of(i64),
}

impl Sources {
    fn of(self, platform_id: i64) -> bool {
        match self {
            Sources::All => true,
            Sources::None => false,
            Sources::Of(id) => id == platform_id,
        }
    }
}

/// The runs a ranking or a history takes, by when they were measured:
/// from `since` (inclusive) to `until` (exclusive); open ends take all —
/// and, where `class` names an accelerator, only the runs measured on it
/// (like with like: an A100 platform's evidence beside another's A100s).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TimeWindow {
    pub since: Option<jiff::Timestamp>,
    pub until: Option<jiff::Timestamp>,
    /// Only runs measured on this accelerator (its product: an "A100"
    /// without memory takes both sizes); runs that name no card (a
    /// campaign's, a bill's) stay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<crate::accelerator::Accelerator>,
}

impl TimeWindow {
    pub fn contains(&self, run: &Run) -> bool {
        let at = history::measured_at(run);
        self.since.is_none_or(|s| at >= s)
            && self.until.is_none_or(|u| at < u)
            && self.class.as_ref().is_none_or(|c| measured_on(run, c))
    }

    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.until.is_none() && self.class.is_none()
    }

    /// The same window, of one accelerator class (by name, as a user
    /// writes it: "A100", "H100 80GB").
    pub fn of_class(self, name: Option<&str>) -> Self {
        TimeWindow {
            class: name
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(crate::accelerator::normalise),
            ..self
        }
    }

    /// The window `--since` and `--until` name: each an RFC 3339 time or a
    /// date (UTC); a date as `until` takes in the whole of that day.
    pub fn parse(
        since: Option<&str>,
        until: Option<&str>,
    ) -> std::result::Result<Self, crate::error::ValidationError> {
        let bound = |field: &str, text: &str, end_of_day: bool| {
            let text = text.trim();
            if let Ok(t) = text.parse::<jiff::Timestamp>() {
                return Ok(t);
            }
            let date: jiff::civil::Date = text.parse().map_err(|_| {
                crate::error::ValidationError::new(
                    field,
                    format!("\"{text}\" is neither a date (2026-06-01) nor a time (2026-06-01T08:00:00Z)"),
                )
            })?;
            let day = if end_of_day {
                date.tomorrow()
                    .map_err(|e| crate::error::ValidationError::new(field, e.to_string()))?
            } else {
                date
            };
            jiff::tz::TimeZone::UTC
                .to_timestamp(day.to_datetime(jiff::civil::Time::midnight()))
                .map_err(|e| crate::error::ValidationError::new(field, e.to_string()))
        };
        let window = TimeWindow {
            since: since.map(|t| bound("since", t, false)).transpose()?,
            until: until.map(|t| bound("until", t, true)).transpose()?,
            class: None,
        };
        if let (Some(s), Some(u)) = (window.since, window.until)
            && s >= u
        {
            return Err(crate::error::ValidationError::new(
                "until",
                format!("{u} is not after since ({s})"),
            ));
        }
        Ok(window)
    }
}

/// Whether a run was measured on `class`: the card its GPUs name, else the
/// offering it was made on; a run that names no card is about none.
pub fn measured_on(run: &Run, class: &crate::accelerator::Accelerator) -> bool {
    let same = |a: &crate::accelerator::Accelerator| a.same_product(class) || class.same_product(a);
    let cards: Vec<&crate::accelerator::Accelerator> = run
        .inventory
        .iter()
        .filter_map(|g| g.accelerator.as_ref())
        .collect();
    match (cards.is_empty(), &run.offering_snapshot) {
        (false, _) => cards.iter().any(|a| same(a)),
        (true, Some(o)) => same(&o.accelerator),
        (true, None) => true,
    }
}

fn median(values: &mut [f64]) -> f64 {
    sustain::median(values).unwrap_or(f64::NAN)
}

/// The evidence of every platform, read from one consistent view of the
/// database (a run deleted or imported meanwhile is wholly in or wholly out).
pub fn platform_evidence(store: &Store) -> Result<Vec<PlatformEvidence>> {
    platform_evidence_in(store, &TimeWindow::default(), Sources::All)
}

/// The evidence of every platform from the runs measured within `window`,
/// with its sources where `sources` asks for them (a window gathers anew,
/// sources and all).
pub fn platform_evidence_in(
    store: &Store,
    window: &TimeWindow,
    sources: Sources,
) -> Result<Vec<PlatformEvidence>> {
    read_then_cache(
        store,
        |_| {},
        |store, fresh| {
            let platforms = store.platforms()?;
            if !window.is_open() {
                return platforms
                    .into_iter()
                    .map(|platform| gather(store, platform, window, fresh))
                    .collect();
            }
            if sources == Sources::All {
                // Every platform's cached evidence in one read, decoded on
                // every core.
                let cached = store.cached_evidence_all(ENGINE_VERSION)?;
                let decoded = cache::decode_all(&platforms, &cached);
                return platforms
                    .into_iter()
                    .zip(decoded)
                    .map(|(platform, hit)| match hit {
                        Some(mut evidence) => {
                            evidence.platform = platform;
                            Ok(evidence)
                        }
                        None => gather(store, platform, window, fresh),
                    })
                    .collect();
            }
            // The summaries without sources: a few hundred bytes a platform
            // in a binary form that decodes without parsing numbers, which
            // makes a warm ranking of a thousand platforms a few milliseconds
            // of reading.
            let mut summaries =
                store.cached_summaries_all(cache::SUMMARY_KEY, cache::decode_summary)?;
            platforms
                .into_iter()
                .map(|platform| {
                    if sources.of(platform.id) {
                        return gather(store, platform, window, fresh);
                    }
                    if let Some(summary) = summaries.remove(&platform.id) {
                        return Ok(summary.into_evidence(platform));
                    }
                    // No summary of this build's form: the next ranking
                    // finds one.
                    let (id, stamp) = (platform.id, store.platform_stamp(platform.id)?);
                    let evidence = gather(store, platform, window, fresh)?;
                    fresh.summary(id, stamp, &evidence);
                    Ok(evidence)
                })
                .collect()
        },
    )
}

/// `platform_evidence`, with `between` called after reading and before the
/// computed values are cached: the window in which another process may
/// delete a run (tests use it to play that race deterministically).
#[cfg(test)]
fn gather_then(store: &Store, between: impl FnOnce(&Store)) -> Result<Vec<PlatformEvidence>> {
    read_then_cache(store, between, |store, fresh| {
        store
            .platforms()?
            .into_iter()
            .map(|platform| gather(store, platform, &TimeWindow::default(), fresh))
            .collect()
    })
}

/// The evidence of one platform.
pub fn evidence_of(store: &Store, platform: Platform) -> Result<PlatformEvidence> {
    read_then_cache(
        store,
        |_| {},
        |store, fresh| gather(store, platform, &TimeWindow::default(), fresh),
    )
}

/// A platform's evidence: from the cache when nothing it is made of changed
/// since it was gathered (the whole range only; a window gathers anew).
fn gather(
    store: &Store,
    platform: Platform,
    window: &TimeWindow,
    fresh: &mut Fresh,
) -> Result<PlatformEvidence> {
    if !window.is_open() {
        return gather_runs(store, platform, window, fresh);
    }
    let stamp = store.platform_stamp(platform.id)?;
    if let Some(json) = store.cached_evidence(platform.id, ENGINE_VERSION, stamp)?
        && let Some(mut evidence) = cache::from_whole(&json)
    {
        // The name, kind and notes as they are now (an edit stamps too, but
        // the row read here is the truth).
        evidence.platform = platform;
        return Ok(evidence);
    }
    let id = platform.id;
    let evidence = gather_runs(store, platform, window, fresh)?;
    fresh.evidence(id, stamp, &evidence);
    Ok(evidence)
}

fn gather_runs(
    store: &Store,
    platform: Platform,
    window: &TimeWindow,
    fresh: &mut Fresh,
) -> Result<PlatformEvidence> {
    // Evidence that measures no platform (see `not_evidence`) is kept and
    // shown, never counted for the platform.
    let runs: Vec<Run> = store
        .runs(Some(platform.id))?
        .into_iter()
        .filter(|r| window.contains(r) && not_evidence(r).is_none())
        .collect();
    let mut figures: Vec<aggregate::RunFigures> = runs
        .iter()
        .map(|run| {
            Ok(aggregate::RunFigures {
                run,
                values: run_values(store, run, fresh)?,
            })
        })
        .collect::<Result<_>>()?;
    // Each run's events, read once for the faults of both kinds.
    let events: Vec<Vec<crate::domain::Event>> = runs
        .iter()
        .map(|r| store.events(r.id))
        .collect::<Result<_>>()?;
    let placed = faults::attach(&mut figures, &events);
    faulty_gpus::add(&mut figures, &events, &placed);
    let straggling = nodes::add_stragglers(&mut figures);
    nodes::add_recurring(&mut figures, &events, &straggling);
    let mut by_key: BTreeMap<String, (Vec<RunSource>, Vec<String>)> = BTreeMap::new();
    let mut values_by_key: BTreeMap<&str, Vec<(&Run, &RunValue)>> = BTreeMap::new();
    for f in &figures {
        for v in &f.values {
            // Figures kept with the metrics that are not metrics (energy).
            if !v.value.is_finite() || catalog::metric(&v.key).is_none() {
                continue;
            }
            let entry = by_key.entry(v.key.clone()).or_default();
            entry.0.push(source(f.run, v.value));
            if let Some(d) = &v.detail {
                entry.1.push(format!("run {}: {d}", f.run.id));
            }
            values_by_key.entry(&v.key).or_default().push((f.run, v));
        }
    }
    let histories = aggregate::GpuHistories::of(store, &figures)?;
    let mut platform_wide: Vec<RunValue> = Vec::new();
    for v in billing::platform_values(store, &platform, &runs, window.class.as_ref(), &by_key)? {
        let entry = by_key.entry(v.value.key.clone()).or_default();
        entry.0.extend(v.sources);
        if let Some(d) = &v.value.detail {
            entry.1.push(d.clone());
        }
        if entry.0.is_empty() {
            // Derived from the platform's rules alone: no run behind it.
            entry.0.push(RunSource {
                run_id: 0,
                at_ms: 0,
                file: None,
                sha256_prefix: None,
                value: v.value.value,
            });
        }
        platform_wide.push(v.value);
    }
    let metrics = by_key
        .into_iter()
        .filter(|(_, (sources, _))| !sources.is_empty())
        .filter_map(|(key, (sources, details))| {
            let def = catalog::metric(&key)?;
            let runs = values_by_key.remove(key.as_str()).unwrap_or_default();
            if runs.is_empty() || platform_wide.iter().any(|v| v.key == key) {
                // Billing figures the platform's rules give: the median of
                // what its sources say.
                let mut values: Vec<f64> = sources.iter().map(|s| s.value).collect();
                let min = values.iter().copied().fold(f64::INFINITY, f64::min);
                let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let value = median(&mut values);
                let runs = sources.into_iter().filter(|s| s.run_id != 0).collect();
                return Some(Evidence {
                    runs,
                    details,
                    ..Evidence::without_sources(key, value, min, max)
                });
            }
            let sources = sources.into_iter().filter(|s| s.run_id != 0).collect();
            Some(aggregate::combine(def, &runs, &histories, sources, details))
        })
        .collect();
    let mut metrics = metrics;
    // The rate a job meets: the measured count over its exposure, and the
    // posterior it gives (what `cost` draws from).
    let risk = interruption_risk::InterruptionRisk::of(&metrics);
    if let Some(e) = metrics.get_mut(keys::SUSTAIN_INTERRUPTIONS_PER_100H) {
        e.details.insert(0, risk.words());
    }
    let priced = billing::price(store, &platform, &runs, window.class.as_ref())?;
    Ok(PlatformEvidence {
        price_source: priced.as_ref().and_then(|p| p.source.clone()),
        currency: priced.map(|p| p.currency),
        not_comparable: Vec::new(),
        claims: store.claims(Some(platform.id))?,
        runs: runs.iter().filter(|r| !is_offering_evidence(r)).count(),
        degradations: degradations(&metrics),
        platform,
        metrics,
    })
}

/// A run that holds evidence about an offering (a provider's price list, a
/// spot trace) rather than a measurement of the platform: counted apart
/// from the runs that measured it.
pub fn is_offering_evidence(run: &Run) -> bool {
    run.provenance
        .format
        .as_deref()
        .and_then(|f| f.parse::<crate::import::Format>().ok())
        .is_some_and(|f| f.is_offering_evidence())
}

/// Each metric's per-run values in the order the runs were measured, put to
/// the history test: the same test as `history::platform_history`, without
/// reading the runs again.
fn degradations(metrics: &EvidenceMap) -> Vec<MetricDegradation> {
    catalog::METRICS
        .iter()
        .filter_map(|def| {
            let mut points: Vec<&RunSource> = metrics.get(def.key)?.runs.iter().collect();
            points.sort_by_key(|r| (r.at_ms, r.run_id));
            let values: Vec<f64> = points.iter().map(|r| r.value).collect();
            let degradation = history::degradation(&values, def.higher_is_better)?;
            let recent = points.len() - degradation.recent_runs;
            Some(MetricDegradation {
                key: def.key.to_string(),
                runs: points[recent..].iter().map(|r| r.run_id).collect(),
                degradation,
            })
        })
        .collect()
}

pub(crate) fn source(run: &Run, value: f64) -> RunSource {
    RunSource {
        run_id: run.id,
        at_ms: history::measured_at(run).as_millisecond(),
        file: run.provenance.file_name.clone(),
        sha256_prefix: run
            .provenance
            .sha256
            .as_ref()
            .map(|h| h[..12.min(h.len())].to_string()),
        value,
    }
}

#[cfg(test)]
mod tests;
