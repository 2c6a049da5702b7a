//! What finishing a job costs on each platform, in time and money, from
//! what was measured there — with its spread, since a buyer picks on the
//! bad case as much as the median.
//!
//! A job is GPU-hours of work on GPUs delivering their datasheet's matrix
//! throughput, run on `gpus` GPUs in step (a synchronous job runs at its
//! slowest GPU). Each draw of the model takes, from the platform's
//! evidence:
//!
//! - the delivered share of the datasheet (`sustain.gemm_nominal_pct`): a
//!   node drawn from the platform's nodes by their share of the fleet, the
//!   job's slowest of the nodes it spans;
//! - the interruption rate (`sustain.interruptions_per_100h`) of a run
//!   drawn from the platform's runs, and interruptions drawn over the
//!   job's GPU-hours (any GPU stopping stops the job): each loses the work
//!   since the last checkpoint (up to one checkpoint interval) and the
//!   restart (`sustain.recovery_s`, else the job's own `restart`) and a new
//!   start;
//! - the start (`startup.baseline_p50_s` and `_p95_s`, a log-normal through
//!   both).
//!
//! The time is billed under the platform's rule at its price (the offering
//! measured), on demand, and on the monthly plan where the offering has one.
//! A term the platform has not measured takes a stated default with a wide
//! band, and says so. Seeded: the same seed, the same bands.

mod model;
mod spec;
#[cfg(test)]
mod tests;

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;

use model::{Draw, Model};
pub use model::{Figures, NEVER_FINISHES, hours_on};
pub use spec::JobSpec;

use crate::billing_sim::{self, Phase, Segment, Session, Workload};
use crate::domain::money::{self, Decimal};
use crate::domain::{BillingRule, Prices};
use crate::error::{Result, ValidationError};
use crate::metrics::{self, Sources, TimeWindow};
use crate::store::Store;

/// p10, p50 and p90 of a quantity over the draws.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    pub p10: f64,
    pub p50: f64,
    pub p90: f64,
}

impl Band {
    fn of(values: &mut [f64]) -> Band {
        values.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let i = ((values.len() as f64 - 1.0) * q).round() as usize;
            values.get(i).copied().unwrap_or(f64::NAN)
        };
        Band {
            p10: at(0.1),
            p50: at(0.5),
            p90: at(0.9),
        }
    }

    fn scaled(self, factor: f64) -> Band {
        Band {
            p10: self.p10 * factor,
            p50: self.p50 * factor,
            p90: self.p90 * factor,
        }
    }
}

/// One term of the model: its typical value, what it rests on, and its
/// share of the job's hours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub name: &'static str,
    /// The typical (median) value, in `unit`.
    pub value: f64,
    pub unit: &'static str,
    /// "sustain.gemm_nominal_pct over 3 node(s), runs #4 #9", or "default: …".
    pub source: String,
    /// Share of the job's median wall hours (0–1); none for a rate.
    pub share: Option<f64>,
}

/// A money band in a currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoneyBand {
    pub p10: Decimal,
    pub p50: Decimal,
    pub p90: Decimal,
    pub currency: String,
}

/// One platform's answer, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformCost {
    pub platform: String,
    /// The cost band in the reporting currency (or the platform's own,
    /// where no rate joins them: `not_comparable` says so).
    pub cost: Option<MoneyBand>,
    /// The price mode the band is for ("on-demand", "monthly").
    pub mode: Option<String>,
    /// Wall hours the job runs (not counting hours a day it may not run).
    pub hours: Band,
    /// Calendar days, at its hours a day.
    pub days: Band,
    /// The share of draws done within the deadline, where there is one.
    pub deadline_probability: Option<f64>,
    /// The share of draws in which the job does not finish (interrupted
    /// faster than it reaches its checkpoints): held at
    /// [`NEVER_FINISHES`] × its compute time in the bands.
    pub unfinished: f64,
    pub terms: Vec<Term>,
    /// Why there is no cost: no billing rule, no price.
    pub missing: Option<String>,
    pub not_comparable: Option<String>,
    /// The rate the cost was converted at.
    pub rate: Option<crate::rates::RateUsed>,
}

/// How the answer is asked for.
#[derive(Debug, Clone, Default)]
pub struct CostRequest {
    pub currency: Option<String>,
    pub accelerator: Option<String>,
    pub draws: usize,
    pub seed: u64,
}

/// The most draws one answer takes.
pub const MAX_DRAWS: usize = 200_000;

/// A job's time and cost on every platform, seeded.
pub fn job_cost(store: &Store, job: &JobSpec, request: &CostRequest) -> Result<Vec<PlatformCost>> {
    if request.draws == 0 || request.draws > MAX_DRAWS {
        return Err(ValidationError::new(
            "draws",
            format!("{}: between 1 and {MAX_DRAWS}", request.draws),
        )
        .into());
    }
    let window = TimeWindow::default().of_class(request.accelerator.as_deref());
    let evidence = metrics::platform_evidence_in(store, &window, Sources::All)?;
    let currencies: Vec<Option<String>> = evidence.iter().map(|e| e.currency.clone()).collect();
    let reporting = crate::rates::reporting(store, request.currency.as_deref(), &currencies)?;
    let book = crate::rates::RateBook::of(store)?;
    let today = crate::rates::today();
    let mut out = Vec::new();
    for e in &evidence {
        let runs: Vec<_> = store
            .runs(Some(e.platform.id))?
            .into_iter()
            .filter(|r| window.contains(r))
            .collect();
        let rule = metrics::billing::rule(store, &e.platform)?;
        let price = metrics::billing::price(store, &e.platform, &runs, window.class.as_ref())?;
        let offering = match &price {
            Some(p) => Some(store.offering(p.offering_id)?),
            None => None,
        };
        // The same stream for every platform: two platforms that measured
        // the same differ by nothing, and every difference is the
        // evidence's (common random numbers).
        let mut rng = StdRng::seed_from_u64(request.seed);
        let model = Model::of(e, job);
        let draws: Vec<Draw> = (0..request.draws).map(|_| model.draw(&mut rng)).collect();
        let mut hours: Vec<f64> = draws.iter().map(|d| d.wall_s / 3600.0).collect();
        let hours_band = Band::of(&mut hours);
        let days_band = hours_band.scaled(1.0 / job.hours_per_day);
        let deadline_probability = job.deadline_s.map(|deadline| {
            let calendar = |d: &Draw| d.wall_s * 24.0 / job.hours_per_day;
            draws.iter().filter(|d| calendar(d) <= deadline).count() as f64 / draws.len() as f64
        });
        let terms = model.terms(&draws, hours_band.p50);
        let unfinished = draws
            .iter()
            .filter(|d| d.wall_s >= (NEVER_FINISHES - 1.0) * d.compute_s)
            .count() as f64
            / draws.len() as f64;
        let (cost, mode, missing) = match (&rule, &price, &offering) {
            (Some(rule), Some(p), Some(o)) => {
                let (band, mode) = cost_band(job, &draws, rule, p.price, &o.prices);
                (Some(band), Some(mode), None)
            }
            (None, _, _) => (None, None, Some("no billing rule".to_string())),
            _ => (
                None,
                None,
                Some(if window.class.is_some() {
                    "no priced offering of that accelerator".to_string()
                } else {
                    "no price for the offering measured (one offering priced, or runs imported with --offering)".to_string()
                }),
            ),
        };
        let (mut money_band, mut not_comparable, mut rate) = (None, None, None);
        if let (Some(band), Some(p)) = (cost, &price) {
            let to = reporting
                .as_ref()
                .map_or(p.currency.clone(), |r| r.currency.clone());
            match book.rate(&p.currency, &to, today) {
                Some(r) => {
                    money_band = Some(MoneyBand {
                        p10: money::to_cents(money::exact(band.p10) * r.rate),
                        p50: money::to_cents(money::exact(band.p50) * r.rate),
                        p90: money::to_cents(money::exact(band.p90) * r.rate),
                        currency: to,
                    });
                    if r.from != r.to {
                        rate = Some(r);
                    }
                }
                None => {
                    not_comparable = Some(format!(
                        "in {}; {}",
                        p.currency,
                        crate::rates::missing_rate(&p.currency, &to)
                    ));
                    money_band = Some(MoneyBand {
                        p10: money::to_cents(money::exact(band.p10)),
                        p50: money::to_cents(money::exact(band.p50)),
                        p90: money::to_cents(money::exact(band.p90)),
                        currency: p.currency.clone(),
                    });
                }
            }
        }
        out.push(PlatformCost {
            platform: e.platform.name.clone(),
            cost: money_band,
            mode,
            hours: hours_band,
            days: days_band,
            deadline_probability,
            unfinished,
            terms,
            missing,
            not_comparable,
            rate,
        });
    }
    Ok(out)
}

/// The answer in words: the platform cheapest at the median and at the
/// bad case (p90), in one currency, and what its answer rests on least —
/// or why there is no answer yet.
pub fn answer(costs: &[PlatformCost]) -> String {
    let comparable: Vec<&PlatformCost> = costs
        .iter()
        .filter(|c| c.cost.is_some() && c.not_comparable.is_none())
        .collect();
    let currencies: Vec<&str> = comparable
        .iter()
        .filter_map(|c| c.cost.as_ref().map(|m| m.currency.as_str()))
        .collect();
    if comparable.len() < 2 || currencies.windows(2).any(|w| w[0] != w[1]) {
        return "No answer yet: fewer than two platforms are priced in one currency (offerings with prices, billing rules, and rates between currencies)".into();
    }
    let by = |pick: &dyn Fn(&MoneyBand) -> Decimal| {
        comparable
            .iter()
            .min_by_key(|c| c.cost.as_ref().map(pick))
            .copied()
    };
    let (Some(median), Some(bad)) = (by(&|m| m.p50), by(&|m| m.p90)) else {
        return "No answer yet".into();
    };
    let money = |c: &PlatformCost, pick: &dyn Fn(&MoneyBand) -> Decimal| {
        c.cost
            .as_ref()
            .map(|m| format!("{} {}", pick(m), m.currency))
            .unwrap_or_default()
    };
    let guessed: Vec<&str> = median
        .terms
        .iter()
        .filter(|t| t.source.starts_with("not measured"))
        .map(|t| t.name)
        .collect();
    let never: Vec<String> = costs
        .iter()
        .filter(|c| c.unfinished > 0.0)
        .map(|c| format!("{} ({:.0} % of draws)", c.platform, 100.0 * c.unfinished))
        .collect();
    let mut out = format!(
        "{} finishes the job cheapest at the median ({})",
        median.platform,
        money(median, &|m| m.p50)
    );
    if bad.platform == median.platform {
        out.push_str(" and in the bad case (p90)");
    } else {
        out.push_str(&format!(
            "; in the bad case (p90) {} does ({} against {})",
            bad.platform,
            money(bad, &|m| m.p90),
            money(median, &|m| m.p90)
        ));
    }
    if !never.is_empty() {
        out.push_str(&format!(
            "; the job may never finish on {}: interrupted faster than it reaches its checkpoints",
            never.join(", ")
        ));
    }
    if !guessed.is_empty() {
        out.push_str(&format!(
            "; {} for {} rests on defaults, not measurements: measure it to settle the answer",
            guessed.join(", "),
            median.platform
        ));
    }
    out
}

/// The cost band under the cheapest mode by median: on demand under the
/// rule, or the monthly plan (30-day months of every GPU, kept per
/// accelerator-hour × 720 h).
fn cost_band(
    job: &JobSpec,
    draws: &[Draw],
    rule: &BillingRule,
    on_demand: f64,
    prices: &Prices,
) -> (Band, String) {
    let mut by_hours: Vec<f64> = draws
        .iter()
        .map(|d| {
            let workload = Workload {
                sessions: vec![Session {
                    segments: vec![
                        Segment {
                            phase: Phase::Queue,
                            seconds: d.start_s,
                        },
                        Segment {
                            phase: Phase::Compute,
                            seconds: d.wall_s - d.start_s,
                        },
                    ],
                }],
                gpus: job.gpus,
            };
            money::to_f64(billing_sim::bill(&workload, rule, on_demand).exact_amount)
        })
        .collect();
    let hourly = Band::of(&mut by_hours);
    if let Some(monthly) = prices.monthly {
        let hours = f64::from(crate::domain::MONTH_HOURS);
        let mut months: Vec<f64> = draws
            .iter()
            .map(|d| {
                let calendar = d.wall_s * 24.0 / job.hours_per_day;
                (calendar / super::pricing::MONTH_S).ceil().max(1.0)
                    * hours
                    * monthly
                    * f64::from(job.gpus)
            })
            .collect();
        let plan = Band::of(&mut months);
        if plan.p50 < hourly.p50 {
            return (plan, "monthly".into());
        }
    }
    (hourly, "on-demand".into())
}
