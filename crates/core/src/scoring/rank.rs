//! The side-by-side ranking: per platform the four breakpoint scores with
//! their coverage, the overall score and the rank.
//!
//! Breakpoint score = weighted mean of the scores of its *measured* metrics;
//! coverage = measured weight ÷ total weight. Overall = weighted mean of the
//! measured breakpoints. Nothing unmeasured counts as 0 or 100. A platform
//! whose overall coverage is under the profile's threshold is marked
//! "insufficient evidence" and listed after the ranked ones. Ties share a
//! rank.

use serde::Serialize;

use super::{curve, presets};
use crate::domain::{Breakpoint, Platform};
use crate::metrics::catalog::{self, Anchors};
use crate::metrics::{Evidence, EvidenceMap, PlatformEvidence, RunSource, UnitFigure};
use crate::store::StoredProfile;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricScore {
    pub key: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    pub weight: f64,
    /// `None`: not measured.
    pub value: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub score: Option<f64>,
    /// Scores at the run-to-run minimum and maximum, for robustness.
    pub score_range: Option<(f64, f64)>,
    pub runs: Vec<RunSource>,
    pub details: Vec<String>,
    /// For a metric judged per unit: the worst nodes (or runs) behind it,
    /// worst first, with their share of the platform's exposure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub worst: Vec<UnitFigure>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakpointScore {
    pub breakpoint: Breakpoint,
    pub score: Option<f64>,
    pub coverage: f64,
    pub metrics: Vec<MetricScore>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformScore {
    #[serde(flatten)]
    pub platform: Platform,
    pub breakpoints: Vec<BreakpointScore>,
    pub overall: Option<f64>,
    pub coverage: f64,
    /// 1-based; `None` for insufficient evidence.
    pub rank: Option<u32>,
    pub insufficient_evidence: bool,
    /// Runs behind the scores.
    pub evidence: usize,
    pub claims: Vec<crate::domain::Claim>,
}

impl PlatformScore {
    pub fn breakpoint(&self, b: Breakpoint) -> &BreakpointScore {
        &self.breakpoints[Breakpoint::ALL.iter().position(|x| *x == b).unwrap_or(0)]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    pub profile: String,
    /// Breakpoint weights as shares of 1, in startup, sustain, switch, billing order.
    pub weights: [f64; 4],
    pub coverage_threshold: f64,
    /// Ranked platforms first (by rank), then those with insufficient evidence.
    pub platforms: Vec<PlatformScore>,
}

/// Overall score from breakpoint scores and weight shares: the weighted
/// mean over measured breakpoints.
pub fn overall(scores: &[Option<f64>; 4], weights: &[f64; 4]) -> Option<f64> {
    let (mut num, mut den) = (0.0, 0.0);
    for (s, w) in scores.iter().zip(weights) {
        if let Some(s) = s {
            num += w * s;
            den += w;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// Weighted mean of measured metric scores and the measured share of weight.
pub fn breakpoint_score(metrics: &[MetricScore]) -> (Option<f64>, f64) {
    let total: f64 = metrics.iter().map(|m| m.weight).sum();
    let (mut num, mut den) = (0.0, 0.0);
    for m in metrics {
        if let Some(s) = m.score {
            num += m.weight * s;
            den += m.weight;
        }
    }
    let coverage = if total > 0.0 { den / total } else { 0.0 };
    ((den > 0.0).then(|| num / den), coverage)
}

pub fn rank(evidence: &[PlatformEvidence], profile: &StoredProfile) -> Ranking {
    rank_evidence(evidence.to_vec(), profile)
}

/// `rank`, taking the evidence: each metric's runs and details move into
/// its score instead of being copied (a ranking of a thousand platforms
/// holds tens of thousands of them).
pub fn rank_evidence(evidence: Vec<PlatformEvidence>, profile: &StoredProfile) -> Ranking {
    let weights = presets::breakpoint_shares(profile);
    let scorers: Vec<Scorer> = catalog::METRICS
        .iter()
        .map(|def| Scorer {
            def,
            anchors: presets::anchors(profile, def),
            weight: presets::metric_weight(profile, def).max(0.0),
        })
        .collect();
    // Each breakpoint's metrics (their places in the catalogue), so that
    // each platform's lists are made at their size in one go.
    let groups: [Vec<usize>; 4] = std::array::from_fn(|b| {
        (0..scorers.len())
            .filter(|i| scorers[*i].def.breakpoint == Breakpoint::ALL[b])
            .collect()
    });
    let by_key = KeyIndex::new();
    let best = BestValues::of(&evidence, &by_key);
    // Each platform's evidence lands in catalogue slots (one buffer, reused)
    // and moves on into its scores.
    let mut slots: Vec<Option<Evidence>> = Vec::new();
    slots.resize_with(catalog::METRICS.len(), || None);
    let mut ranked: Vec<PlatformScore> = evidence
        .into_iter()
        .map(|mut e| {
            by_key.fill(std::mem::take(&mut e.metrics), &mut slots);
            let currency = best.currency(&e.currency);
            let breakpoints: Vec<BreakpointScore> = Breakpoint::ALL
                .iter()
                .zip(&groups)
                .map(|(b, group)| {
                    let metrics: Vec<MetricScore> = group
                        .iter()
                        .map(|&i| {
                            let mut m = scorers[i].score(slots[i].take(), best.get(i, currency));
                            if m.value.is_none()
                                && let Some(n) = e.not_comparable.iter().find(|n| n.key == m.key)
                            {
                                m.details.push(n.reason.clone());
                            }
                            m
                        })
                        .collect();
                    let (score, coverage) = breakpoint_score(&metrics);
                    BreakpointScore {
                        breakpoint: *b,
                        score,
                        coverage,
                        metrics,
                    }
                })
                .collect();
            let scores: [Option<f64>; 4] = std::array::from_fn(|i| breakpoints[i].score);
            let coverage: f64 = breakpoints
                .iter()
                .zip(&weights)
                .map(|(b, w)| b.coverage * w)
                .sum();
            let overall = overall(&scores, &weights);
            PlatformScore {
                platform: e.platform,
                insufficient_evidence: coverage < profile.coverage_threshold || overall.is_none(),
                breakpoints,
                overall,
                coverage,
                rank: None,
                evidence: e.runs,
                claims: e.claims,
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        a.insufficient_evidence
            .cmp(&b.insufficient_evidence)
            .then(
                b.overall
                    .unwrap_or(f64::NEG_INFINITY)
                    .total_cmp(&a.overall.unwrap_or(f64::NEG_INFINITY)),
            )
            .then_with(|| a.platform.name.cmp(&b.platform.name))
    });
    assign_ranks(&mut ranked);
    Ranking {
        profile: profile.profile.name.clone(),
        weights,
        coverage_threshold: profile.coverage_threshold,
        platforms: ranked,
    }
}

/// How one metric is scored under the profile: worked out once, not once
/// per platform.
struct Scorer {
    def: &'static catalog::MetricDef,
    anchors: Anchors,
    weight: f64,
}

impl Scorer {
    fn score(&self, ev: Option<Evidence>, best: Option<f64>) -> MetricScore {
        let best = match self.anchors {
            Anchors::RelativeToBest { .. } => best,
            Anchors::Fixed { .. } => None,
        };
        let score = ev.as_ref().and_then(|ev| {
            if ev.spread.is_empty() {
                return curve::score(&self.anchors, ev.value, best);
            }
            // Judged per unit: the expected score over the units a buyer
            // may be given, so that a fault on any share of the fleet moves
            // it in proportion to that share.
            let (mut sum, mut shares) = (0.0, 0.0);
            for s in &ev.spread {
                sum += s.share * curve::score(&self.anchors, s.value, best)?;
                shares += s.share;
            }
            (shares > 0.0).then(|| sum / shares)
        });
        let score_range = ev.as_ref().and_then(|ev| {
            Some((
                curve::score(&self.anchors, ev.min, best)?,
                curve::score(&self.anchors, ev.max, best)?,
            ))
        });
        let (value, min, max, runs, details, worst) = match ev {
            Some(ev) => (
                Some(ev.value),
                Some(ev.min),
                Some(ev.max),
                ev.runs,
                ev.details,
                ev.worst,
            ),
            None => (None, None, None, Vec::new(), Vec::new(), Vec::new()),
        };
        MetricScore {
            key: self.def.key,
            name: self.def.name,
            unit: self.def.unit,
            weight: self.weight,
            value,
            min,
            max,
            score,
            score_range,
            runs,
            details,
            worst,
        }
    }
}

/// The catalogue's keys in sorted order with their places in it: a
/// platform's metrics (a map sorted by key) land in catalogue slots in one
/// walk over both, instead of a look-up per metric.
struct KeyIndex(Vec<(&'static str, usize)>);

impl KeyIndex {
    fn new() -> KeyIndex {
        let mut keys: Vec<(&'static str, usize)> = catalog::METRICS
            .iter()
            .enumerate()
            .map(|(i, def)| (def.key, i))
            .collect();
        keys.sort_unstable();
        KeyIndex(keys)
    }

    /// Each catalogue metric's evidence into its slot (all of them empty
    /// before); keys the catalogue does not know are dropped.
    fn fill(&self, metrics: EvidenceMap, slots: &mut [Option<Evidence>]) {
        let mut known = self.0.iter().peekable();
        for ev in metrics {
            if let Some(i) = Self::next_slot(&mut known, &ev.key) {
                slots[i] = Some(ev);
            }
        }
    }

    /// Each catalogue metric's value, as `fill` would place it.
    fn values<'a>(&'a self, metrics: &'a EvidenceMap) -> impl Iterator<Item = (usize, f64)> + 'a {
        let mut known = self.0.iter().peekable();
        metrics
            .iter()
            .filter_map(move |(key, ev)| Some((Self::next_slot(&mut known, key)?, ev.value)))
    }

    /// The slot of `key`, walking the sorted catalogue forward from where
    /// the last key left it (keys come in sorted order).
    fn next_slot(
        known: &mut std::iter::Peekable<std::slice::Iter<'_, (&'static str, usize)>>,
        key: &str,
    ) -> Option<usize> {
        while known.next_if(|(k, _)| *k < key).is_some() {}
        known.next_if(|(k, _)| *k == key).map(|(_, i)| *i)
    }
}

/// Relative metrics compare against the best (lowest positive) value in the
/// same currency: each metric's best per currency, found in one pass rather
/// than once per platform.
struct BestValues {
    currencies: Vec<Option<String>>,
    /// best[currency][metric], in catalogue order.
    best: Vec<Vec<Option<f64>>>,
}

impl BestValues {
    fn of(evidence: &[PlatformEvidence], by_key: &KeyIndex) -> BestValues {
        let mut out = BestValues {
            currencies: Vec::new(),
            best: Vec::new(),
        };
        for e in evidence {
            let currency = match out.currencies.iter().position(|c| *c == e.currency) {
                Some(i) => i,
                None => {
                    out.currencies.push(e.currency.clone());
                    out.best.push(vec![None; catalog::METRICS.len()]);
                    out.currencies.len() - 1
                }
            };
            let best = &mut out.best[currency];
            for (i, v) in by_key.values(&e.metrics).filter(|(_, v)| *v > 0.0) {
                best[i] = Some(best[i].map_or(v, |b: f64| b.min(v)));
            }
        }
        out
    }

    fn currency(&self, currency: &Option<String>) -> usize {
        self.currencies
            .iter()
            .position(|c| c == currency)
            .unwrap_or(usize::MAX)
    }

    fn get(&self, metric: usize, currency: usize) -> Option<f64> {
        self.best.get(currency)?.get(metric).copied().flatten()
    }
}

/// Competition ranking (1, 1, 3) over the ranked platforms; scores equal to
/// within a millionth of a point tie.
fn assign_ranks(platforms: &mut [PlatformScore]) {
    let mut previous: Option<(f64, u32)> = None;
    for (i, p) in platforms.iter_mut().enumerate() {
        if p.insufficient_evidence {
            continue;
        }
        let o = p.overall.unwrap_or(f64::NEG_INFINITY);
        let r = match previous {
            Some((prev, r)) if (prev - o).abs() < 1e-6 => r,
            _ => i as u32 + 1,
        };
        p.rank = Some(r);
        previous = Some((o, r));
    }
}
