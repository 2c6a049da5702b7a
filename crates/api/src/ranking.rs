//! Ranking the platforms under a profile (adjusted or not), with its
//! robustness and the platforms that got worse, explaining one platform's
//! scores, and its metrics over time.

use serde::Serialize;

use crate::domain::{Breakpoint, Platform, validate};
use crate::error::{Error, Result, ValidationError};
// The request's own types, re-exported so that the faces build a request
// from this module alone.
use crate::metrics::history::{self, Degradation, MetricHistory};
use crate::metrics::{self, catalog};
pub use crate::metrics::{Sources, TimeWindow};
pub use crate::scoring::RobustnessOptions;
/// The robustness every face takes unless told otherwise.
pub use crate::scoring::robustness::{CONCENTRATION, SAMPLES, SEED};
use crate::scoring::{self, PlatformScore, Ranking, Robustness, presets};
use crate::store::{Store, StoredProfile};

/// What a ranking is asked for.
#[derive(Debug, Clone, Default)]
pub struct RankRequest {
    /// The weight profile [default: balanced].
    pub profile: Option<String>,
    /// Breakpoint weights that replace the profile's (shares are taken of
    /// their sum, so 0.4 and 40 mean the same).
    pub weights: Vec<(Breakpoint, f64)>,
    /// Coverage under which a platform is "insufficient evidence"
    /// [default: the profile's].
    pub coverage_threshold: Option<f64>,
    pub robustness: RobustnessOptions,
    /// Only runs measured within this window count.
    pub window: TimeWindow,
    /// Whose metrics keep their sources (the runs behind each value, with
    /// files, hashes and details) [default: every platform's]. A face that
    /// shows the table alone asks for none.
    pub sources: Sources,
    /// The currency money is compared in [default: the workspace's, else
    /// the one most platforms' prices are in].
    pub currency: Option<String>,
}

/// The reporting currency, and the rates that brought other currencies
/// into it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Money {
    pub currency: Option<crate::rates::Reporting>,
    pub rates: Vec<crate::rates::RateUsed>,
}

/// Bring the evidence's money into one currency (`rates::make_comparable`).
fn comparable(
    store: &Store,
    evidence: &mut [metrics::PlatformEvidence],
    asked: Option<&str>,
) -> Result<Money> {
    let currencies: Vec<Option<String>> = evidence.iter().map(|e| e.currency.clone()).collect();
    let Some(reporting) = crate::rates::reporting(store, asked, &currencies)? else {
        return Ok(Money::default());
    };
    let book = crate::rates::RateBook::of(store)?;
    let rates = crate::rates::make_comparable(evidence, &reporting, &book, crate::rates::today());
    Ok(Money {
        currency: Some(reporting),
        rates,
    })
}

/// "startup=0.4": one breakpoint weight, as the command line writes it.
pub fn parse_weight(text: &str) -> std::result::Result<(Breakpoint, f64), ValidationError> {
    let (key, value) = text.split_once('=').ok_or_else(|| {
        ValidationError::new(
            "weight",
            format!("\"{text}\": write it as breakpoint=weight, e.g. startup=0.4"),
        )
    })?;
    let breakpoint: Breakpoint = key.trim().parse()?;
    let weight: f64 = value.trim().parse().map_err(|_| {
        ValidationError::new(
            "weight",
            format!("\"{text}\": \"{}\" is not a number", value.trim()),
        )
    })?;
    Ok((
        breakpoint,
        validate::non_negative(&format!("weight.{breakpoint}"), weight)?,
    ))
}

/// The profile a request names, with its weight and threshold overrides
/// applied and checked. An adjusted profile says so in its name.
pub fn profile(store: &Store, request: &RankRequest) -> Result<StoredProfile> {
    let mut profile = store.weight_profile(
        request
            .profile
            .as_deref()
            .unwrap_or(presets::DEFAULT_PROFILE),
    )?;
    for (breakpoint, weight) in &request.weights {
        profile.profile.breakpoints.set(*breakpoint, *weight);
    }
    profile.profile.breakpoints = profile.profile.breakpoints.validate()?;
    if let Some(threshold) = request.coverage_threshold {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(
                ValidationError::new("coverage_threshold", "must be between 0 and 1").into(),
            );
        }
        profile.coverage_threshold = threshold;
    }
    if !request.weights.is_empty() || request.coverage_threshold.is_some() {
        profile.profile.name = format!("{} (adjusted)", profile.profile.name);
    }
    Ok(profile)
}

/// The most weight draws a ranking takes: a million draws settle every
/// share to a tenth of a percent; past that a typo, and memory.
pub const MAX_SAMPLES: usize = 1_000_000;

fn check_robustness(options: &RobustnessOptions) -> Result<()> {
    if !(options.concentration > 0.0 && options.concentration.is_finite()) {
        return Err(ValidationError::new("concentration", "must be a number above 0").into());
    }
    // Checked before the draws are made.
    if options.samples > MAX_SAMPLES {
        return Err(ValidationError::new(
            "samples",
            format!(
                "{} weight draws: at most {MAX_SAMPLES} (10 000 settle the shares to a percent)",
                options.samples
            ),
        )
        .into());
    }
    Ok(())
}

/// A ranking with its robustness, and the profile it was made under.
#[derive(Debug, Clone, Serialize)]
pub struct RankOutcome {
    pub ranking: Ranking,
    pub robustness: Robustness,
    /// "Pick X because …" or "no decision yet", and what to measure next.
    pub decision: super::decision::Decision,
    /// Platforms whose latest runs are worse than their baseline.
    pub degradations: Vec<DegradationWarning>,
    /// Where each platform's price comes from and how old it is.
    pub prices: Vec<PlatformPrice>,
    /// The currency costs are compared in, and the rates used.
    pub money: Money,
    /// The accelerator compared on, where one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassCompared>,
    #[serde(skip)]
    pub profile: StoredProfile,
}

/// The accelerator a ranking compares on: the platforms left out for
/// having neither an offering nor a run of it (like for like: a platform
/// is never ranked on an H100 from its A100 logs), and those ranked that
/// offer no priced offering of it (their cost is not compared).
#[derive(Debug, Clone, Serialize)]
pub struct ClassCompared {
    pub name: String,
    pub without_card: Vec<String>,
    pub without_offering: Vec<String>,
}

/// With a class asked for: which platforms have the card (an offering of
/// it, or a run that measured it), and what is said of the others.
pub(crate) fn class_compared(
    store: &Store,
    window: &TimeWindow,
) -> Result<Option<(ClassCompared, Vec<i64>)>> {
    let Some(class) = &window.class else {
        return Ok(None);
    };
    let same = |a: &crate::accelerator::Accelerator| a.same_product(class) || class.same_product(a);
    let mut with = Vec::new();
    let (mut without_card, mut without_offering) = (Vec::new(), Vec::new());
    for p in store.platforms()? {
        let offerings = store.offerings(Some(p.id))?;
        let offered = offerings.iter().any(|o| same(&o.accelerator));
        let measured = store.runs(Some(p.id))?.iter().any(|r| {
            r.inventory
                .iter()
                .filter_map(|g| g.accelerator.as_ref())
                .any(same)
                || r.offering_snapshot
                    .as_ref()
                    .is_some_and(|o| same(&o.accelerator))
        });
        if !offered && !measured {
            without_card.push(p.name);
            continue;
        }
        with.push(p.id);
        if !offerings
            .iter()
            .any(|o| o.prices.on_demand.is_some() && same(&o.accelerator))
        {
            without_offering.push(p.name);
        }
    }
    Ok(Some((
        ClassCompared {
            name: class.canonical.clone(),
            without_card,
            without_offering,
        },
        with,
    )))
}

/// A platform that got worse on a metric (metrics::history's test).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DegradationWarning {
    pub platform: String,
    pub key: String,
    pub name: String,
    pub unit: String,
    pub degradation: Degradation,
    /// The recent runs judged.
    pub runs: Vec<i64>,
}

impl DegradationWarning {
    /// "AutoDL: Start latency p50, baseline load worse in its latest 3
    /// runs (#7, #8, #9): median 75.2 s against 60.1 s over 8 runs before".
    pub fn sentence(&self) -> String {
        let d = &self.degradation;
        format!(
            "{}: {} worse in its latest {} runs ({}): median {} against {} over {} runs before",
            self.platform,
            self.name,
            d.recent_runs,
            self.runs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(", "),
            history::figure(d.recent_median, &self.unit),
            history::figure(d.baseline_median, &self.unit),
            d.baseline_runs
        )
    }
}

/// The degradations the gathered evidence shows, in words a face prints.
pub fn degradations_in(evidence: &[metrics::PlatformEvidence]) -> Vec<DegradationWarning> {
    evidence
        .iter()
        .flat_map(|e| {
            e.degradations.iter().filter_map(|d| {
                let def = catalog::metric(&d.key)?;
                Some(DegradationWarning {
                    platform: e.platform.name.clone(),
                    key: d.key.clone(),
                    name: def.name.to_string(),
                    unit: def.unit.to_string(),
                    degradation: d.degradation.clone(),
                    runs: d.runs.clone(),
                })
            })
        })
        .collect()
}

/// A platform's metrics over time within the request's window.
pub fn history(
    store: &Store,
    window: &TimeWindow,
    platform: PlatformRef<'_>,
) -> Result<(Platform, Vec<MetricHistory>)> {
    let platform = match platform {
        PlatformRef::Name(name) => store.platform(name)?,
        PlatformRef::Id(id) => store.platform_by_id(id)?,
    };
    let history = history::platform_history(store, &platform, window)?;
    Ok((platform, history))
}

impl RankOutcome {
    /// A platform's share of the weight draws in which it ranks first.
    pub fn p_first(&self, platform: &str) -> f64 {
        self.robustness
            .acceptability
            .iter()
            .find(|a| a.platform == platform)
            .and_then(|a| a.ranks.first().copied())
            .unwrap_or(0.0)
    }

    /// `p_first` of every platform, in the ranking's order, in one pass (a
    /// search per platform is a million comparisons at a thousand): the
    /// acceptability lists the ranked platforms in that order.
    pub fn p_firsts(&self) -> Vec<f64> {
        let mut acceptability = self.robustness.acceptability.iter().peekable();
        self.ranking
            .platforms
            .iter()
            .map(|p| {
                match acceptability.next_if(|a| p.rank.is_some() && a.platform == p.platform.name) {
                    Some(a) => a.ranks.first().copied().unwrap_or(0.0),
                    None if p.rank.is_some() => self.p_first(&p.platform.name),
                    None => 0.0,
                }
            })
            .collect()
    }
}

/// The platforms scored under the request, robustness aside: what every
/// view of the scores starts from (the ranking, the ClusterMAX categories).
pub(crate) struct Scored {
    pub(crate) profile: StoredProfile,
    pub(crate) ranking: Ranking,
    pub(crate) money: Money,
    pub(crate) class: Option<ClassCompared>,
    pub(crate) degradations: Vec<DegradationWarning>,
    pub(crate) prices: Vec<PlatformPrice>,
}

pub(crate) fn scored(store: &Store, request: &RankRequest) -> Result<Scored> {
    let profile = profile(store, request)?;
    let mut evidence = metrics::platform_evidence_in(store, &request.window, request.sources)?;
    let class = class_compared(store, &request.window)?;
    if let Some((_, with)) = &class {
        evidence.retain(|e| with.contains(&e.platform.id));
    }
    let money = comparable(store, &mut evidence, request.currency.as_deref())?;
    let degradations = degradations_in(&evidence);
    let prices = prices_in(&evidence);
    let ranking = scoring::rank_evidence(evidence, &profile);
    Ok(Scored {
        profile,
        ranking,
        money,
        class: class.map(|(c, _)| c),
        degradations,
        prices,
    })
}

/// Rank every platform under the request, with how robust the order is.
pub fn rank(store: &Store, request: &RankRequest) -> Result<RankOutcome> {
    check_robustness(&request.robustness)?;
    let Scored {
        profile,
        ranking,
        money,
        class,
        degradations,
        prices,
    } = scored(store, request)?;
    let robustness = scoring::robustness(&ranking, &request.robustness);
    let decision = super::decision::decide(
        store,
        &ranking,
        &robustness,
        money.currency.as_ref().map(|c| c.currency.as_str()),
    )?;
    Ok(RankOutcome {
        ranking,
        robustness,
        decision,
        degradations,
        prices,
        money,
        class,
        profile,
    })
}

/// Where a platform's price comes from, said once for every face.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformPrice {
    pub platform: String,
    /// "price from skypilot-catalog vms.csv on 2026-08-09 — STALE: …".
    pub said: String,
    pub said_zh: String,
    pub stale: bool,
}

impl PlatformPrice {
    /// "Platform A: price from skypilot-catalog vms.csv on 2026-08-09 —
    /// STALE: …", as every face shows it.
    pub fn line(&self, zh: bool) -> String {
        format!(
            "{}: {}",
            self.platform,
            if zh { &self.said_zh } else { &self.said }
        )
    }
}

/// The price sources of the platforms that have one (a price typed by
/// hand has none to say), stale ones first.
pub fn prices_in(evidence: &[metrics::PlatformEvidence]) -> Vec<PlatformPrice> {
    let mut prices: Vec<PlatformPrice> = evidence
        .iter()
        .filter_map(|e| {
            let source = e.price_source.as_ref()?;
            Some(PlatformPrice {
                platform: e.platform.name.clone(),
                said: source.said(),
                said_zh: source.said_in(true),
                stale: source.stale(),
            })
        })
        .collect();
    prices.sort_by_key(|p| !p.stale);
    prices
}

/// One platform's scores under a profile: every metric behind them, with
/// the runs they came from.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub profile: StoredProfile,
    pub score: PlatformScore,
    /// What the platform's logs say about its hardware (Xid errors, lost
    /// GPUs, failed health checks, narrowed links).
    pub hardware: super::hardware::HardwareEvidence,
    /// The currency costs are compared in, and the rates used.
    pub money: Money,
    /// What its spot instances meet, from the spot traces imported for it
    /// (evidence about the instance and place each names; never scored).
    pub spot: Option<String>,
}

/// Explain a platform (by name, alias or id) under the request's profile.
/// Robustness is not computed: an explanation does not need it.
pub fn explain(
    store: &Store,
    request: &RankRequest,
    platform: PlatformRef<'_>,
) -> Result<Explanation> {
    let profile = profile(store, request)?;
    let platform = match platform {
        PlatformRef::Name(name) => store.platform(name)?,
        PlatformRef::Id(id) => store.platform_by_id(id)?,
    };
    // Every platform's values (the best of each sets relative anchors),
    // this one's sources.
    let mut evidence =
        metrics::platform_evidence_in(store, &request.window, Sources::Of(platform.id))?;
    let money = comparable(store, &mut evidence, request.currency.as_deref())?;
    let score = scoring::rank_evidence(evidence, &profile)
        .platforms
        .into_iter()
        .find(|p| p.platform.id == platform.id)
        .ok_or_else(|| Error::not_found("platform", &platform.name))?;
    let hardware = super::hardware::of_platform(store, platform.id)?;
    let runs: Vec<_> = store
        .runs(Some(platform.id))?
        .into_iter()
        .filter(|r| request.window.contains(r))
        .collect();
    let offering =
        match metrics::billing::price(store, &platform, &runs, request.window.class.as_ref())? {
            Some(p) => Some(store.offering(p.offering_id)?),
            None => None,
        };
    let spot =
        metrics::spot::SpotEvidence::of(store, platform.id, offering.as_ref())?.map(|s| s.words());
    Ok(Explanation {
        profile,
        score,
        hardware,
        money,
        spot,
    })
}

/// How a face names a platform.
#[derive(Debug, Clone, Copy)]
pub enum PlatformRef<'a> {
    Name(&'a str),
    Id(i64),
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn weights_are_parsed_and_checked_in_one_place() {
        assert_eq!(
            parse_weight("startup=0.4").unwrap(),
            (Breakpoint::Startup, 0.4)
        );
        assert_eq!(
            parse_weight(" billing = 25 ").unwrap(),
            (Breakpoint::Billing, 25.0)
        );
        assert!(
            parse_weight("startup")
                .unwrap_err()
                .reason
                .contains("breakpoint=weight")
        );
        assert!(parse_weight("speed=1").is_err());
        assert!(
            parse_weight("startup=x")
                .unwrap_err()
                .reason
                .contains("not a number")
        );
        assert_eq!(
            parse_weight("startup=-1").unwrap_err().field,
            "weight.startup"
        );
        assert!(parse_weight("startup=NaN").is_err());
    }

    #[test]
    fn an_adjusted_profile_says_so_and_bad_requests_are_refused() {
        let store = Store::open_in_memory().unwrap();
        let request = RankRequest {
            weights: vec![(Breakpoint::Startup, 1.0)],
            ..RankRequest::default()
        };
        assert_eq!(
            profile(&store, &request).unwrap().profile.name,
            "balanced (adjusted)"
        );
        let zero = RankRequest {
            weights: Breakpoint::ALL.iter().map(|b| (*b, 0.0)).collect(),
            ..RankRequest::default()
        };
        assert!(profile(&store, &zero).is_err());
        let threshold = RankRequest {
            coverage_threshold: Some(1.5),
            ..RankRequest::default()
        };
        assert!(profile(&store, &threshold).is_err());
        let concentration = RankRequest {
            robustness: RobustnessOptions {
                concentration: 0.0,
                ..RobustnessOptions::default()
            },
            ..RankRequest::default()
        };
        assert!(rank(&store, &concentration).is_err());
    }
}
