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

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::Distribution;
use serde::Serialize;

use crate::billing_sim::{self, Phase, Segment, Session, Workload};
use crate::domain::money::{self, Decimal};
use crate::domain::{BillingRule, Prices};
use crate::error::{Result, ValidationError};
use crate::metrics::{self, Evidence, PlatformEvidence, Sources, TimeWindow};
use crate::store::Store;

/// A job as a user describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSpec {
    pub gpus: u32,
    /// GPU-hours on GPUs delivering their datasheet's matrix throughput.
    pub work_gpu_hours: f64,
    /// Seconds between checkpoints.
    pub checkpoint_s: f64,
    /// Seconds to restart from a checkpoint, where the platform has not
    /// measured it.
    pub restart_s: f64,
    /// Hours a day the job may run (a job stopped at night takes longer).
    pub hours_per_day: f64,
    /// Calendar seconds it must be done in, where it has a deadline.
    pub deadline_s: Option<f64>,
}

impl JobSpec {
    /// "gpus=8,work=2000h[,checkpoint=30m][,restart=5m][,deadline=14d][,hours-per-day=24]".
    pub fn parse(spec: &str) -> std::result::Result<JobSpec, ValidationError> {
        let mut job = JobSpec {
            gpus: 0,
            work_gpu_hours: 0.0,
            checkpoint_s: 1800.0,
            restart_s: 300.0,
            hours_per_day: 24.0,
            deadline_s: None,
        };
        let refuse = |key: &str, why: String| ValidationError::new(format!("job.{key}"), why);
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                refuse(
                    "spec",
                    format!("\"{part}\" is not key=value (gpus=8,work=2000h,…)"),
                )
            })?;
            let (key, value) = (key.trim(), value.trim());
            let duration =
                || billing_sim::parse_duration(value).map_err(|e| refuse(key, e.reason.clone()));
            match key {
                "gpus" => {
                    job.gpus = value
                        .parse()
                        .ok()
                        .filter(|g| (1..=100_000).contains(g))
                        .ok_or_else(|| {
                            refuse(key, format!("\"{value}\" is not a GPU count (1–100000)"))
                        })?;
                }
                "work" => job.work_gpu_hours = duration()? / 3600.0,
                "checkpoint" => job.checkpoint_s = duration()?,
                "restart" => job.restart_s = duration()?,
                "deadline" => job.deadline_s = Some(duration()?),
                "hours-per-day" => {
                    job.hours_per_day = value
                        .trim_end_matches('h')
                        .parse()
                        .ok()
                        .filter(|h: &f64| *h > 0.0 && *h <= 24.0)
                        .ok_or_else(|| refuse(key, format!("\"{value}\" is not 1–24 hours")))?;
                }
                other => {
                    return Err(refuse(
                        other,
                        "not a job key (gpus, work, checkpoint, restart, deadline, hours-per-day)"
                            .to_string(),
                    ));
                }
            }
        }
        if job.gpus == 0 {
            return Err(refuse("gpus", "missing: gpus=8".into()));
        }
        if job.work_gpu_hours <= 0.0 {
            return Err(refuse(
                "work",
                "missing: the GPU-hours of work, work=2000h".into(),
            ));
        }
        if job.checkpoint_s <= 0.0 {
            return Err(refuse("checkpoint", "must be above 0".into()));
        }
        Ok(job)
    }
}

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

/// A draw longer than this many times its compute time does not finish:
/// its length is held there, and the share of such draws is said. A job
/// that restarts faster than it can reach its next checkpoint never ends,
/// and a band of 10^11 hours says nothing a buyer can use.
pub const NEVER_FINISHES: f64 = 100.0;

/// Stretches between checkpoints one draw follows at most.
const MAX_STRETCHES: f64 = 1024.0;
/// Failed tries of one stretch followed one by one; more are summed by
/// their mean and spread.
const TRIES_FOLLOWED: u64 = 32;
/// Failed tries of one stretch at most: a stretch that needs more never
/// ends, and its draw says so by its length.
const MAX_TRIES: f64 = 1e9;

/// One stretch of `length` seconds of work between checkpoints, faults
/// arriving at `per_s`: the failed tries it takes, and the work they lost.
fn stretch(per_s: f64, length: f64, rng: &mut StdRng) -> (u64, f64) {
    // A try runs through with probability e^(−λs); the failures before it
    // are geometric.
    let through = (-per_s * length).exp();
    let fail = 1.0 - through;
    if fail <= 0.0 {
        return (0, 0.0);
    }
    let u: f64 = 1.0 - rng.random::<f64>();
    // ln(1 − e^(−λs)), kept exact where the stretch almost never runs
    // through (there `fail` rounds to 1 and its logarithm to 0).
    let log_fail = (-through).ln_1p();
    let tries = if through <= 0.0 || log_fail == 0.0 {
        MAX_TRIES
    } else {
        (u.ln() / log_fail).floor().clamp(0.0, MAX_TRIES)
    };
    let failed = tries as u64;
    // Each failed try lost the time to its fault: exponential, cut at the
    // stretch's length.
    let lost = if failed <= TRIES_FOLLOWED {
        (0..failed)
            .map(|_| -(1.0 - rng.random::<f64>() * fail).ln() / per_s)
            .sum()
    } else {
        let mean = 1.0 / per_s - length * through / fail;
        let z: f64 = rand_distr::StandardNormal.sample(rng);
        (tries * mean + z * (tries).sqrt() * length / 12f64.sqrt()).max(0.0)
    };
    (failed, lost)
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

/// A platform stated by its figures rather than its evidence: what a job
/// would take there ("what if"), and the seam the model is checked through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Delivered share of the datasheet, %.
    pub share_pct: f64,
    pub interruptions_per_100h: f64,
    pub restart_s: f64,
    pub start_s: f64,
}

/// The job's wall hours on a platform of these figures, as a band over
/// `draws` seeded draws.
pub fn hours_on(job: &JobSpec, figures: Figures, draws: usize, seed: u64) -> Band {
    let fixed = |v: f64| Source::Default {
        low: v,
        high: v,
        why: "stated",
    };
    let model = Model {
        job: job.clone(),
        share: fixed(figures.share_pct),
        rate: fixed(figures.interruptions_per_100h),
        restart: fixed(figures.restart_s),
        start_p50: fixed(figures.start_s),
        start_p95: fixed(figures.start_s),
        nodes: job.gpus.div_ceil(8),
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut hours: Vec<f64> = (0..draws.max(1))
        .map(|_| model.draw(&mut rng).wall_s / 3600.0)
        .collect();
    Band::of(&mut hours)
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

/// One draw of the job's run.
#[derive(Debug, Clone, Copy)]
struct Draw {
    wall_s: f64,
    compute_s: f64,
    lost_s: f64,
    start_s: f64,
    interruptions: u64,
    share: f64,
}

/// Where a term's draws come from.
#[derive(Debug, Clone)]
enum Source {
    /// Values drawn by their weights (nodes by their share of the fleet,
    /// or runs equally), from a metric.
    Measured {
        key: &'static str,
        values: Vec<(f64, f64)>,
        runs: Vec<i64>,
    },
    /// Not measured: a stated default, drawn uniformly over a band.
    Default {
        low: f64,
        high: f64,
        why: &'static str,
    },
}

impl Source {
    fn of(e: &PlatformEvidence, key: &'static str, default: Source) -> Source {
        let Some(ev) = e.metrics.get(key) else {
            return default;
        };
        Source::Measured {
            key,
            values: weighted(ev),
            runs: ev.runs.iter().map(|r| r.run_id).collect(),
        }
    }

    fn draw(&self, rng: &mut StdRng) -> f64 {
        match self {
            Source::Measured { values, .. } => {
                let total: f64 = values.iter().map(|(w, _)| w).sum();
                let mut pick = rng.random::<f64>() * total;
                for (w, v) in values {
                    if pick < *w {
                        return *v;
                    }
                    pick -= w;
                }
                values.last().map_or(0.0, |(_, v)| *v)
            }
            Source::Default { low, high, .. } => rng.random_range(*low..=*high),
        }
    }

    fn said(&self) -> String {
        match self {
            Source::Measured { key, values, runs } => {
                let runs: Vec<String> = runs.iter().map(|r| format!("#{r}")).collect();
                format!(
                    "{key}: {} figure(s) from run(s) {}",
                    values.len(),
                    runs.join(" ")
                )
            }
            Source::Default { low, high, why } => {
                format!("not measured: a default drawn from {low}–{high} ({why})")
            }
        }
    }
}

/// A metric's figures with their weights: the units' spread where it is
/// judged per unit, else each run's value equally, else its one value.
fn weighted(ev: &Evidence) -> Vec<(f64, f64)> {
    if !ev.spread.is_empty() {
        return ev.spread.iter().map(|s| (s.share, s.value)).collect();
    }
    if !ev.runs.is_empty() {
        return ev.runs.iter().map(|r| (1.0, r.value)).collect();
    }
    vec![(1.0, ev.value)]
}

/// The job's model on one platform.
struct Model {
    job: JobSpec,
    share: Source,
    rate: Source,
    restart: Source,
    start_p50: Source,
    start_p95: Source,
    /// Nodes of eight GPUs the job spans: its pace is the slowest's.
    nodes: u32,
}

impl Model {
    fn of(e: &PlatformEvidence, job: &JobSpec) -> Model {
        Model {
            job: job.clone(),
            share: Source::of(
                e,
                "sustain.gemm_nominal_pct",
                Source::Default {
                    low: 55.0,
                    high: 85.0,
                    why: "accept perf measures it",
                },
            ),
            rate: Source::of(
                e,
                "sustain.interruptions_per_100h",
                Source::Default {
                    low: 0.0,
                    high: 2.0,
                    why: "probe sample or a long log measures it",
                },
            ),
            restart: Source::of(
                e,
                "sustain.recovery_s",
                Source::Default {
                    low: job.restart_s,
                    high: job.restart_s,
                    why: "the job's own restart; accept failover measures it",
                },
            ),
            start_p50: Source::of(
                e,
                "startup.baseline_p50_s",
                Source::Default {
                    low: 60.0,
                    high: 900.0,
                    why: "campaign run measures it",
                },
            ),
            start_p95: Source::of(
                e,
                "startup.baseline_p95_s",
                Source::Default {
                    low: 300.0,
                    high: 1800.0,
                    why: "campaign run measures it",
                },
            ),
            nodes: job.gpus.div_ceil(8),
        }
    }

    /// A start: log-normal through the drawn p50 and p95.
    fn start(&self, rng: &mut StdRng) -> f64 {
        let p50 = self.start_p50.draw(rng).max(1.0);
        let p95 = self.start_p95.draw(rng).max(p50);
        let sigma = (p95 / p50).ln() / 1.645;
        let z: f64 = rand_distr::StandardNormal.sample(rng);
        p50 * (sigma * z).exp()
    }

    fn draw(&self, rng: &mut StdRng) -> Draw {
        // The slowest of the nodes the job spans.
        let share = (0..self.nodes.min(64))
            .map(|_| self.share.draw(rng))
            .fold(f64::INFINITY, f64::min)
            .clamp(1.0, 150.0)
            / 100.0;
        let compute_s = self.job.work_gpu_hours * 3600.0 / (f64::from(self.job.gpus) * share);
        let per_gpu_hour = self.rate.draw(rng).max(0.0) / 100.0;
        // Any GPU stopping stops the job: the job's rate is its GPUs'.
        let per_s = per_gpu_hour * f64::from(self.job.gpus) / 3600.0;
        let start_s = self.start(rng);
        // The run, checkpoint by checkpoint: a stretch of work between two
        // checkpoints is tried until it runs through without a fault; each
        // failed try loses the work it had done (a fault's time within the
        // stretch), a restart and a new start. The tries a stretch takes
        // are geometric, so no fault is stepped through one by one.
        let checkpoint = self.job.checkpoint_s;
        let back_s = self.restart.draw(rng).max(0.0) + self.start(rng);
        let (mut lost_s, mut interruptions) = (0.0f64, 0u64);
        if per_s > 0.0 {
            let stretches = (compute_s / checkpoint).ceil().max(1.0);
            // A job of very many stretches is followed over a sample of them,
            // its losses scaled to all: a draw's time stays bounded.
            let followed = stretches.min(MAX_STRETCHES);
            let scale = stretches / followed;
            let full = followed as u64;
            for i in 0..full {
                let length = if i + 1 == full && followed == stretches {
                    compute_s - checkpoint * (stretches - 1.0)
                } else {
                    checkpoint
                };
                let (failed, lost) = stretch(per_s, length, rng);
                interruptions += failed;
                lost_s += lost + failed as f64 * back_s;
            }
            lost_s *= scale;
            interruptions = (interruptions as f64 * scale).round() as u64;
        }
        // Held at the point past which the job does not finish.
        let limit = (NEVER_FINISHES - 1.0) * compute_s;
        if lost_s > limit {
            interruptions = (interruptions as f64 * limit / lost_s).round() as u64;
            lost_s = limit;
        }
        Draw {
            wall_s: start_s + compute_s + lost_s,
            compute_s,
            lost_s,
            start_s,
            interruptions,
            share,
        }
    }

    /// Each term's median and what it rests on.
    fn terms(&self, draws: &[Draw], hours_p50: f64) -> Vec<Term> {
        let median = |f: &dyn Fn(&Draw) -> f64| {
            let mut v: Vec<f64> = draws.iter().map(f).collect();
            Band::of(&mut v).p50
        };
        let mean = |f: &dyn Fn(&Draw) -> f64| draws.iter().map(f).sum::<f64>() / draws.len() as f64;
        let share_of = |hours: f64| (hours_p50 > 0.0).then(|| hours / hours_p50);
        let compute_h = median(&|d| d.compute_s / 3600.0);
        let lost_h = mean(&|d| d.lost_s / 3600.0);
        let start_s = median(&|d| d.start_s);
        vec![
            Term {
                name: "delivered share of the datasheet (slowest node)",
                value: 100.0 * median(&|d| d.share),
                unit: "%",
                source: self.share.said(),
                share: None,
            },
            Term {
                name: "compute",
                value: compute_h,
                unit: "h",
                source: format!(
                    "{} GPU-hours of work on {} GPU(s) at the delivered share",
                    self.job.work_gpu_hours, self.job.gpus
                ),
                share: share_of(compute_h),
            },
            Term {
                name: "interruptions",
                value: mean(&|d| d.interruptions as f64),
                unit: "count",
                source: self.rate.said(),
                share: None,
            },
            Term {
                name: "lost to interruptions (work since the checkpoint, restart, a new start)",
                value: lost_h,
                unit: "h",
                source: format!(
                    "checkpoint every {} s; restart: {}",
                    self.job.checkpoint_s,
                    self.restart.said()
                ),
                share: share_of(lost_h),
            },
            Term {
                name: "start-up",
                value: start_s,
                unit: "s",
                source: format!(
                    "p50 {}; p95 {}",
                    self.start_p50.said(),
                    self.start_p95.said()
                ),
                share: share_of(start_s / 3600.0),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn priced(name: &str, p50: i64, p90: i64, guessed: bool) -> PlatformCost {
        PlatformCost {
            platform: name.into(),
            cost: Some(MoneyBand {
                p10: Decimal::from(p50 - 10),
                p50: Decimal::from(p50),
                p90: Decimal::from(p90),
                currency: "CNY".into(),
            }),
            mode: None,
            hours: Band {
                p10: 1.0,
                p50: 1.0,
                p90: 1.0,
            },
            days: Band {
                p10: 1.0,
                p50: 1.0,
                p90: 1.0,
            },
            deadline_probability: None,
            unfinished: 0.0,
            terms: vec![Term {
                name: "compute",
                value: 1.0,
                unit: "h",
                source: if guessed {
                    "not measured: …".into()
                } else {
                    "measured".into()
                },
                share: None,
            }],
            missing: None,
            not_comparable: None,
            rate: None,
        }
    }

    #[test]
    fn the_answer_names_the_median_and_the_bad_case() {
        let a = answer(&[priced("A", 100, 200, false), priced("B", 110, 130, true)]);
        assert!(a.starts_with("A finishes the job cheapest at the median (100 CNY); in the bad case (p90) B does (130 CNY against 200 CNY)"), "{a}");
        let a = answer(&[priced("A", 100, 120, true), priced("B", 110, 130, false)]);
        assert!(
            a.contains("and in the bad case (p90); compute for A rests on defaults"),
            "{a}"
        );
        assert!(answer(&[priced("A", 1, 2, false)]).starts_with("No answer yet"));
    }

    /// A job interrupted far faster than it reaches a checkpoint never
    /// ends: its draws are held at the limit, not 10^11 hours.
    #[test]
    fn a_job_that_cannot_finish_is_held_at_the_limit() {
        let job = JobSpec::parse("gpus=8,work=800h,checkpoint=2h").unwrap();
        let figures = Figures {
            share_pct: 100.0,
            interruptions_per_100h: 500.0,
            restart_s: 600.0,
            start_s: 60.0,
        };
        let band = hours_on(&job, figures, 200, 3);
        let compute_h = 100.0;
        assert!(band.p90 <= NEVER_FINISHES * compute_h + 1.0, "{band:?}");
        assert!(band.p50 >= (NEVER_FINISHES - 1.0) * compute_h, "{band:?}");
    }

    #[test]
    fn a_job_is_read_as_users_write_it() {
        let job = JobSpec::parse("gpus=8,work=2000h,checkpoint=30m,deadline=14d").unwrap();
        assert_eq!((job.gpus, job.work_gpu_hours), (8, 2000.0));
        assert_eq!(job.deadline_s, Some(14.0 * 86_400.0));
        assert!(
            JobSpec::parse("work=10h")
                .unwrap_err()
                .to_string()
                .contains("gpus")
        );
        assert!(JobSpec::parse("gpus=8,work=10h,disk=3").is_err());
        assert!(JobSpec::parse("gpus=0,work=10h").is_err());
    }

    /// The model against a simulator of the same job written apart: a run
    /// of `gpus` GPUs, interrupted at `rate` per 100 GPU-hours, losing the
    /// work since its last checkpoint and a fixed restart each time. The
    /// model's median lands within 5 % of the simulated mean, and its band
    /// holds the truth's middle.
    #[test]
    fn the_model_lands_on_a_simulated_truth() {
        let job = JobSpec::parse("gpus=16,work=4000h,checkpoint=1h,restart=10m").unwrap();
        let (share, rate) = (0.8, 1.5);
        let band = hours_on(
            &job,
            Figures {
                share_pct: 80.0,
                interruptions_per_100h: rate,
                restart_s: 600.0,
                start_s: 300.0,
            },
            5_000,
            7,
        );
        // The truth: step the job forward, failing by exponential arrivals.
        let mut truth_rng = StdRng::seed_from_u64(99);
        let compute_h = 4000.0 / (16.0 * share);
        let job_rate = rate / 100.0 * 16.0;
        let mut total = 0.0;
        let runs = 5_000;
        for _ in 0..runs {
            let (mut done, mut wall) = (0.0f64, 300.0 / 3600.0);
            while done < compute_h {
                let until_fault = -(1.0 - truth_rng.random::<f64>()).ln() / job_rate;
                if done + until_fault >= compute_h {
                    wall += compute_h - done;
                    break;
                }
                // Work since the last checkpoint (on the hour of work) is lost.
                let reached = done + until_fault;
                let kept = (reached).floor().max(done.floor());
                wall += until_fault + 600.0 / 3600.0 + 300.0 / 3600.0;
                done = kept.max(done);
            }
            total += wall;
        }
        let truth = total / f64::from(runs);
        assert!(
            (band.p50 - truth).abs() / truth < 0.05,
            "model p50 {} vs truth {truth}",
            band.p50
        );
        assert!(
            band.p10 <= truth && truth <= band.p90,
            "{band:?} vs {truth}"
        );
        assert!(band.p10 <= band.p50 && band.p50 <= band.p90);
    }
}
