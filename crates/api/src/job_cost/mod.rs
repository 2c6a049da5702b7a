//! What finishing a job costs on each platform, in time and money, from
//! what was measured there — with its spread, since a buyer picks on the
//! bad case as much as the median.
//!
//! A job's work is in a unit that means the same on every card (GPU-hours
//! on a named card, or FLOP; `work`), paced on each platform by its card's
//! datasheet peak at the job's precision, run on `gpus` GPUs in step (a
//! synchronous job runs at its slowest GPU). Each draw of the model takes,
//! from the platform's evidence:
//!
//! - the delivered share of the datasheet (`sustain.gemm_nominal_pct`): a
//!   node drawn from the platform's nodes by their share of the fleet, the
//!   job's slowest of the nodes it spans, the fleet's mean known only as
//!   well as the nodes measured tell it;
//! - the interruption rate from its posterior over every GPU-hour watched
//!   (`metrics::interruption_risk`: fatal faults of evidence without hours
//!   count too), and interruptions drawn over the job's GPU-hours (any GPU
//!   stopping stops the job): each loses the work
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

mod answer;
mod model;
mod rates;
mod spec;
#[cfg(test)]
mod tests;
mod work;

use serde::Serialize;

/// What the interruption term rests on: the posterior over what was
/// watched, and the field's prior it starts from.
pub use crate::metrics::interruption_risk::{
    FIELD_RATE_PER_GPU_HOUR, InterruptionRisk, PRIOR_SHAPE,
};
pub use answer::{answer, answer_in, mode_words};
use model::{Draw, Model, Streams};
pub use model::{Evidenced, Figures, NEVER_FINISHES, NODE_SPREAD_POINTS, hours_given, hours_on};
pub use spec::{Horizon, JobSpec};
pub use work::{Precision, Work, powers};

use crate::billing_sim::{self, Phase, Segment, Session, Workload};
use crate::domain::money::{self, Decimal};
use crate::domain::{BillingMode, BillingRule, Prices};
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
    /// "267 / 284 / 302" (p10 / p50 / p90, whole numbers), or "–" where
    /// nothing was drawn (a platform that could not be costed).
    pub fn words(&self) -> String {
        if !self.p50.is_finite() {
            return "–".into();
        }
        format!("{:.0} / {:.0} / {:.0}", self.p10, self.p50, self.p90)
    }

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

/// The work on one platform's card: the GPU-hours it takes there at the
/// delivered share (median).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pace {
    pub card: String,
    pub share_pct: f64,
    pub gpu_hours: f64,
}

impl Pace {
    /// "on NVIDIA H100 80GB SXM at 71 % delivered that is 563 GPU-hours".
    pub fn words(&self, zh: bool) -> String {
        if zh {
            format!(
                "在 {} 上按 {:.0} % 的交付比例为 {:.0} GPU 小时",
                self.card, self.share_pct, self.gpu_hours
            )
        } else {
            format!(
                "on {} at {:.0} % delivered that is {:.0} GPU-hours",
                self.card, self.share_pct, self.gpu_hours
            )
        }
    }
}

/// One term of the model: its typical value, what it rests on, and its
/// share of the job's hours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub key: TermKey,
    pub name: &'static str,
    /// The typical (median) value, in `unit`.
    pub value: f64,
    pub unit: &'static str,
    /// "sustain.gemm_nominal_pct over 3 node(s), runs #4 #9", or "default: …".
    pub source: String,
    /// Share of the job's median wall hours (0–1); none for a rate.
    pub share: Option<f64>,
    /// The term's own p10 / p50 / p90 over the draws: how sure it is.
    pub band: Band,
}

impl Term {
    /// "88.5 % (p10–p90 85.1–91)": the term's median, unit and spread, as
    /// every face prints it.
    pub fn figure(&self, zh: bool) -> String {
        let spread = crate::presentation::spread(self.band.p10, self.band.p90);
        let figure = crate::presentation::figure(self.value, self.unit, zh);
        if spread.is_empty() {
            figure
        } else {
            format!("{figure} {spread}")
        }
    }
}

/// Which term a [`Term`] is, for pictures and translations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TermKey {
    /// The delivered share of the datasheet (%): a rate, not hours.
    Share,
    /// Interruptions per 100 GPU-hours the job meets (its posterior).
    Rate,
    Compute,
    /// Interruptions met (a count).
    Interruptions,
    /// Hours lost to interruptions.
    Lost,
    /// Start-up (seconds).
    Start,
    /// Bringing the job's data (hours).
    Data,
    /// Spot reclaims per instance-hour, from the platform's spot traces.
    Reclaims,
}

impl TermKey {
    /// The term's name, in Chinese where `zh`.
    pub fn name_in(self, zh: bool) -> &'static str {
        match (self, zh) {
            (TermKey::Share, false) => "delivered share of the datasheet (slowest node)",
            (TermKey::Share, true) => "实际交付算力占数据手册比例（最慢节点）",
            (TermKey::Compute, false) => "compute",
            (TermKey::Compute, true) => "计算",
            (TermKey::Rate, false) => "interruption rate",
            (TermKey::Rate, true) => "中断率",
            (TermKey::Interruptions, false) => "interruptions",
            (TermKey::Interruptions, true) => "中断次数",
            (TermKey::Lost, false) => {
                "lost to interruptions (work since the checkpoint, restart, a new start)"
            }
            (TermKey::Lost, true) => "中断损失（检查点后的工作、重启、重新启动）",
            (TermKey::Start, false) => "start-up",
            (TermKey::Start, true) => "启动",
            (TermKey::Data, false) => "bringing the data",
            (TermKey::Data, true) => "数据上传",
            (TermKey::Reclaims, false) => "spot reclaims",
            (TermKey::Reclaims, true) => "竞价实例回收率",
        }
    }

    /// The term's part of the job's hours, where it is one.
    pub fn hours(self, value: f64) -> Option<f64> {
        match self {
            TermKey::Compute | TermKey::Lost | TermKey::Data => Some(value),
            TermKey::Start => Some(value / 3600.0),
            TermKey::Share | TermKey::Rate | TermKey::Interruptions | TermKey::Reclaims => None,
        }
    }
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
    /// The card the job was paced on here (the offering priced, the card
    /// asked for, else the card its runs measured).
    pub card: Option<String>,
    /// The work on this platform's card, at its delivered share.
    pub pace: Option<Pace>,
    /// The cost band in the reporting currency (or the platform's own,
    /// where no rate joins them: `not_comparable` says so).
    pub cost: Option<MoneyBand>,
    /// The price mode the band is for: the one asked for, else the
    /// cheapest at the median.
    pub mode: Option<BillingMode>,
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
    /// Parts of the job the cost leaves out for want of a price
    /// ("storage: no price per GB-month").
    pub unpriced: Vec<String>,
    pub not_comparable: Option<String>,
    /// The rate the cost was converted at.
    pub rate: Option<crate::rates::RateUsed>,
    /// Which offering's price it is and where that price comes from, with
    /// its day ("the offering its runs were made on (#1, …); price from
    /// skypilot-catalog vms.csv on 2026-08-09 — STALE: …").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priced_at: Option<String>,
}

/// How the answer is asked for.
#[derive(Debug, Clone)]
pub struct CostRequest {
    pub currency: Option<String>,
    /// The price mode to cost; none: the cheapest each platform offers.
    pub mode: Option<BillingMode>,
    pub accelerator: Option<String>,
    pub draws: usize,
    pub seed: u64,
}

/// Draws every face takes unless told otherwise: the command line, the
/// PDF and the app print the same figures because they ask the same.
pub const DRAWS: usize = 4000;
/// The seed every face takes unless told otherwise.
pub const SEED: u64 = 1;

impl Default for CostRequest {
    fn default() -> Self {
        CostRequest {
            currency: None,
            mode: None,
            accelerator: None,
            draws: DRAWS,
            seed: SEED,
        }
    }
}

/// The most draws one answer takes.
pub const MAX_DRAWS: usize = 200_000;

/// The job costed on every platform, with how its work was read and the
/// answer in words: one value every face shows as it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobCost {
    pub job: JobSpec,
    /// How the work was read ("2000 GPU-hours on NVIDIA A100 80GB SXM (…)
    /// = 2.25 × 10²¹ FLOP at BF16"), in English and Chinese.
    pub reading: String,
    pub reading_zh: String,
    /// Why the platforms' costs do not compare, where they do not: work on
    /// each platform's own card when their cards differ.
    pub incomparable: Option<String>,
    pub draws: usize,
    pub seed: u64,
    pub platforms: Vec<PlatformCost>,
    /// The answer in English and Chinese.
    pub answer: String,
    pub answer_zh: String,
}

/// The job costed on every platform, seeded: what `cost`, the PDF's cost
/// page and the app's Decision screen show.
pub fn cost(store: &Store, job: &JobSpec, request: &CostRequest) -> Result<JobCost> {
    let platforms = job_cost(store, job, request)?;
    let incomparable = incomparable(job, &platforms);
    let mut out = JobCost {
        job: job.clone(),
        reading: job.work.reading_in(job.precision, false),
        reading_zh: job.work.reading_in(job.precision, true),
        incomparable,
        draws: request.draws,
        seed: request.seed,
        platforms,
        answer: String::new(),
        answer_zh: String::new(),
    };
    out.answer = answer_in(&out, false);
    out.answer_zh = answer_in(&out, true);
    Ok(out)
}

/// Work on each platform's own card compares only where every platform
/// has the same card: an A100-hour is a third of an H100-hour.
fn incomparable(job: &JobSpec, platforms: &[PlatformCost]) -> Option<String> {
    if !matches!(job.work, Work::OwnCard { .. }) {
        return None;
    }
    let mut cards: Vec<String> = Vec::new();
    for p in platforms.iter().filter(|p| p.cost.is_some()) {
        let card = p.card.clone().unwrap_or_else(|| "an unknown card".into());
        if !cards.contains(&card) {
            cards.push(card);
        }
    }
    (cards.len() > 1).then(|| {
        format!(
            "the work is in GPU-hours on each platform's own card, and their cards differ ({}): give it on one card (work=2000h@A100-80GB) or as compute (work=3.2e21FLOP, params=7B,tokens=1T)",
            cards.join(", ")
        )
    })
}

/// The card a platform's job runs on: the one asked for, else its
/// offering's that was priced, else the card most of its runs measured.
fn card_of(
    class: Option<&crate::accelerator::Accelerator>,
    offering: Option<&crate::domain::Offering>,
    runs: &[crate::domain::Run],
) -> Option<crate::accelerator::Accelerator> {
    if let Some(c) = class {
        // The offering of that class says more (form, memory) than the
        // class asked for.
        return Some(offering.map_or_else(|| c.clone(), |o| o.accelerator.clone()));
    }
    if let Some(o) = offering {
        return Some(o.accelerator.clone());
    }
    let mut counts: Vec<(crate::accelerator::Accelerator, usize)> = Vec::new();
    for card in runs
        .iter()
        .flat_map(|r| r.inventory.iter())
        .filter_map(|g| g.accelerator.clone())
    {
        match counts
            .iter_mut()
            .find(|(c, _)| c.canonical == card.canonical)
        {
            Some((_, n)) => *n += 1,
            None => counts.push((card, 1)),
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.canonical.cmp(&a.0.canonical)))
        .map(|(c, _)| c)
}

/// A job's time and cost on every platform, seeded (see [`cost`], which
/// adds the reading of its work and the answer).
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
    // Like for like: with a card asked for, a platform with neither an
    // offering nor a run of it is not costed on it.
    let with_card = crate::ranking::class_compared(store, &window)?.map(|(_, with)| with);
    let mut out = Vec::new();
    for e in &evidence {
        if let (Some(with), Some(class)) = (&with_card, &window.class)
            && !with.contains(&e.platform.id)
        {
            out.push(PlatformCost::missing(
                &e.platform.name,
                None,
                format!("neither an offering nor a run of {}", class.canonical),
            ));
            continue;
        }
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
        let card = card_of(window.class.as_ref(), offering.as_ref(), &runs);
        let paced = job.work.gpu_hours_on(card.as_ref(), job.precision);
        let card_hours = match paced {
            Ok(hours) => hours,
            Err(why) => {
                out.push(PlatformCost::missing(
                    &e.platform.name,
                    card.as_ref().map(|c| c.canonical.clone()),
                    format!("its work cannot be paced: {why}"),
                ));
                continue;
            }
        };
        let card_words = match (&job.work, &card) {
            (Work::OwnCard { .. }, _) | (_, None) => String::new(),
            (_, Some(c)) => crate::perf::reference::nominal(c, job.precision.figure()).map_or(
                c.canonical.clone(),
                |p| {
                    format!(
                        "{} ({} TFLOP/s {})",
                        c.canonical,
                        p.value,
                        job.precision.upper()
                    )
                },
            ),
        };
        // The same stream for every platform: two platforms that measured
        // the same differ by nothing, and every difference is the
        // evidence's (common random numbers).
        // On spot, the reclaims the platform's spot traces give; without a
        // trace spot is not costed (below).
        let spot = match (request.mode, &offering) {
            (Some(BillingMode::Spot), Some(o)) if o.prices.spot.is_some() => {
                metrics::spot::SpotEvidence::of(store, e.platform.id, Some(o))?
                    .map(|s| rates::Reclaims::of(&s, job.gpus.div_ceil(o.count.max(1))))
            }
            _ => None,
        };
        let on_spot = spot.is_some();
        let mut model = Model::of(e, job, card_hours, card_words);
        if let Some(reclaims) = spot {
            model = model.on_spot(reclaims);
        }
        let draws: Vec<Draw> = (0..request.draws)
            .map(|i| model.draw(&mut Streams::of(request.seed, i)))
            .collect();
        let mut hours: Vec<f64> = draws.iter().map(|d| d.wall_s / 3600.0).collect();
        let hours_band = Band::of(&mut hours);
        let days_band = hours_band.scaled(1.0 / job.hours_per_day);
        let deadline = job.deadline_s.or(job.horizon.map(|h| h.seconds));
        let deadline_probability = deadline.map(|deadline| {
            let calendar = |d: &Draw| d.wall_s * 24.0 / job.hours_per_day;
            draws.iter().filter(|d| calendar(d) <= deadline).count() as f64 / draws.len() as f64
        });
        let terms = model.terms(&draws, hours_band.p50);
        let share_p50 = terms
            .iter()
            .find(|t| t.key == TermKey::Share)
            .map_or(0.0, |t| t.value);
        let pace = card.as_ref().map(|c| Pace {
            card: c.canonical.clone(),
            share_pct: share_p50,
            gpu_hours: card_hours * 100.0 / share_p50.max(1.0),
        });
        let unfinished = draws.iter().filter(|d| d.unfinished).count() as f64 / draws.len() as f64;
        let mut unpriced = Vec::new();
        let (cost, mode, missing) = match (&rule, &price, &offering) {
            // A spot instance is reclaimed at the provider's will: its
            // reclaims are interruptions the runs on demand did not
            // measure, and a cost drawn without them would be the on-demand
            // risk at the spot price.
            (Some(_), Some(_), Some(o))
                if request.mode == Some(BillingMode::Spot) && o.prices.spot.is_some() && !on_spot =>
            (
                None,
                None,
                Some(
                    "spot reclaims not measured here: a spot trace (docs/formats.md, \"Spot traces\") measures them; without one spot is not costed"
                        .to_string(),
                ),
            ),
            (Some(rule), Some(p), Some(o)) => {
                let prices = Prices {
                    on_demand: Some(p.price),
                    ..o.prices.clone()
                };
                unpriced = unpriced_parts(job, &prices);
                match cost_band(job, &draws, rule, &prices, request.mode) {
                    Some((band, mode)) => (Some(band), Some(mode), None),
                    None => (
                        None,
                        None,
                        Some(format!(
                            "no {} price for the offering measured",
                            request.mode.map_or("", |m| m.as_str())
                        )),
                    ),
                }
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
        let mut missing = missing;
        if let (Some(band), Some(p)) = (cost, &price) {
            let to = reporting
                .as_ref()
                .map_or(p.currency.clone(), |r| r.currency.clone());
            let (factor, currency) = match book.rate(&p.currency, &to, today) {
                Some(r) => {
                    let factor = r.rate;
                    if r.from != r.to {
                        rate = Some(r);
                    }
                    (factor, to)
                }
                None => {
                    not_comparable = Some(format!(
                        "in {}; {}",
                        p.currency,
                        crate::rates::missing_rate(&p.currency, &to)
                    ));
                    (Decimal::ONE, p.currency.clone())
                }
            };
            let in_money = |v: f64| money::converted(v, factor);
            match (in_money(band.p10), in_money(band.p50), in_money(band.p90)) {
                (Some(p10), Some(p50), Some(p90)) => {
                    money_band = Some(MoneyBand {
                        p10,
                        p50,
                        p90,
                        currency,
                    })
                }
                // Never a cost of zero for one past what money holds.
                _ => {
                    missing = Some(format!(
                        "costs more than an amount can hold ({:.3e} {currency} at the bad case): check the job and the price",
                        band.p90 * money::to_f64(factor)
                    ));
                    rate = None;
                }
            }
        }
        out.push(PlatformCost {
            platform: e.platform.name.clone(),
            card: card.map(|c| c.canonical),
            pace,
            cost: money_band,
            mode,
            hours: hours_band,
            days: days_band,
            deadline_probability,
            unfinished,
            terms,
            missing,
            unpriced,
            not_comparable,
            rate,
            priced_at: price.as_ref().map(|p| p.why.clone()),
        });
    }
    Ok(out)
}

impl PlatformCost {
    /// A platform the job cannot be costed on, and why.
    fn missing(platform: &str, card: Option<String>, why: String) -> PlatformCost {
        let none = Band {
            p10: f64::NAN,
            p50: f64::NAN,
            p90: f64::NAN,
        };
        PlatformCost {
            platform: platform.to_string(),
            card,
            pace: None,
            cost: None,
            mode: None,
            hours: none,
            days: none,
            deadline_probability: None,
            unfinished: 0.0,
            terms: Vec::new(),
            missing: Some(why),
            unpriced: Vec::new(),
            not_comparable: None,
            rate: None,
            priced_at: None,
        }
    }
}

/// The parts of the job the offering's prices leave out.
fn unpriced_parts(job: &JobSpec, prices: &Prices) -> Vec<String> {
    let mut out = Vec::new();
    if job.storage_bytes.is_some() && prices.storage_gb_month.is_none() {
        out.push("storage (no price per GB-month: offering add --price-storage)".to_string());
    }
    if job.data_bytes.is_some() && prices.transfer_gb.is_none() {
        out.push("data transfer (no price per GB: offering add --price-transfer)".to_string());
    }
    out
}

/// The cost band in the mode asked for, or the cheapest by median of
/// those the offering prices: on demand and spot under the billing rule,
/// the monthly plan as whole 30-day months of every GPU (kept per
/// accelerator-hour × 720 h; a steady workload that needs more hours than
/// its horizon rents more GPUs); spot only when asked for. Storage (pro rata over the calendar time)
/// and transfer are added where priced. None where the mode asked for has
/// no price.
fn cost_band(
    job: &JobSpec,
    draws: &[Draw],
    rule: &BillingRule,
    prices: &Prices,
    asked: Option<BillingMode>,
) -> Option<(Band, BillingMode)> {
    let calendar = |d: &Draw| d.wall_s * 24.0 / job.hours_per_day;
    let data = |d: &Draw| {
        let kept = job
            .horizon
            .map_or(calendar(d), |h| h.seconds.max(calendar(d)));
        let storage =
            job.storage_bytes.unwrap_or(0.0) / 1e9 * prices.storage_gb_month.unwrap_or(0.0) * kept
                / super::pricing::MONTH_S;
        let transfer = job.data_bytes.unwrap_or(0.0) / 1e9 * prices.transfer_gb.unwrap_or(0.0);
        storage + transfer
    };
    let band = |mode: BillingMode| -> Option<Band> {
        let price = prices.for_mode(mode)?;
        let mut costs: Vec<f64> = draws
            .iter()
            .map(|d| {
                let gpu_time = match mode {
                    BillingMode::Monthly => {
                        let hours = f64::from(crate::domain::MONTH_HOURS);
                        let (span, gpus) = match job.horizon {
                            // A workload that does not fit its horizon on
                            // these GPUs rents more for all of it.
                            Some(h) => (
                                h.seconds,
                                (f64::from(job.gpus) * (calendar(d) / h.seconds).max(1.0)).ceil(),
                            ),
                            None => (calendar(d), f64::from(job.gpus)),
                        };
                        (span / super::pricing::MONTH_S).ceil().max(1.0) * hours * price * gpus
                    }
                    BillingMode::OnDemand | BillingMode::Spot => {
                        let workload = Workload {
                            sessions: vec![Session {
                                segments: vec![
                                    Segment {
                                        phase: Phase::Queue,
                                        seconds: d.start_s + d.upload_s,
                                    },
                                    Segment {
                                        phase: Phase::Compute,
                                        seconds: d.wall_s - d.start_s - d.upload_s,
                                    },
                                ],
                            }],
                            gpus: job.gpus,
                        };
                        // Past what an amount holds: infinite, and said
                        // as such by the conversion to money.
                        billing_sim::bill(&workload, rule, price)
                            .map_or(f64::INFINITY, |b| money::to_f64(b.exact_amount))
                    }
                };
                gpu_time + data(d)
            })
            .collect();
        Some(Band::of(&mut costs))
    };
    match asked {
        Some(mode) => band(mode).map(|b| (b, mode)),
        // Spot is costed only when asked for: its reclaims are interruptions
        // the runs on demand did not measure.
        None => [BillingMode::OnDemand, BillingMode::Monthly]
            .into_iter()
            .filter_map(|mode| band(mode).map(|b| (b, mode)))
            .min_by(|a, b| a.0.p50.total_cmp(&b.0.p50)),
    }
}
