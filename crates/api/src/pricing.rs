//! What a workload costs on every platform, under each one's billing rule
//! and on-demand price, beside what it would cost billed fairly (compute
//! only, per second).

use serde::Serialize;

use crate::billing_sim::{self, Bill, Workload};
use crate::domain::money::{self, Decimal};
use crate::domain::{BillingMode, BillingRule, Platform, Prices, Run};
use crate::error::{Result, ValidationError};
use crate::metrics::billing;
use crate::metrics::energy::{self, EnergyFactors, PowerProfile, WorkloadEnergy};
use crate::samples::Field;
use crate::store::Store;

/// Where the workload comes from.
#[derive(Debug, Clone)]
pub enum WorkloadSource {
    /// The source documents' reference job.
    Reference,
    /// Phases as written: "compute=1h42m18s,io-wait=35m".
    Spec(String),
    /// A workload file's JSON text, and its name for messages.
    Json { name: String, text: String },
    /// A run's own compute and idle, from its GPU utilisation.
    Run(i64),
}

impl WorkloadSource {
    /// What a face was given: "reference" or nothing, phases with `=`, or
    /// else the path of a workload file.
    pub fn from_text(text: Option<&str>) -> std::result::Result<Self, ValidationError> {
        match text.map(str::trim) {
            None | Some("") | Some("reference") => Ok(WorkloadSource::Reference),
            Some(spec) if spec.contains('=') => Ok(WorkloadSource::Spec(spec.to_string())),
            Some(path) => {
                // A workload is a few sessions: a megabyte is thousands of
                // them. Bounded by what is read (a device says 0 bytes).
                const LIMIT: u64 = 1 << 20;
                let shown = crate::text::printable(path);
                let refuse = |why: String| {
                    ValidationError::new("workload", format!("workload file \"{shown}\": {why}"))
                };
                let mut text = String::new();
                std::fs::File::open(path)
                    .and_then(|f| {
                        std::io::Read::read_to_string(
                            &mut std::io::Read::take(f, LIMIT + 1),
                            &mut text,
                        )
                    })
                    .map_err(|e| refuse(format!("cannot be read: {e}")))?;
                if text.len() as u64 > LIMIT {
                    return Err(refuse("larger than 1 MiB: not a workload".into()));
                }
                Ok(WorkloadSource::Json {
                    name: path.to_string(),
                    text,
                })
            }
        }
    }
}

/// The workload a source stands for.
pub fn workload(store: &Store, source: &WorkloadSource) -> Result<Workload> {
    let refuse = |reason: String| ValidationError::new("workload", reason).into();
    match source {
        WorkloadSource::Reference => Ok(Workload::reference()),
        WorkloadSource::Spec(spec) => Ok(Workload::parse_spec(spec)?),
        WorkloadSource::Json { name, text } => serde_json::from_str::<Workload>(text)
            .map_err(|e| {
                refuse(format!(
                    "{name}:{}:{}: not a workload ({{\"sessions\": [{{\"segments\": [{{\"phase\": \"compute\", \"seconds\": 6138}}]}}], \"gpus\": 1}}): {e}",
                    e.line(),
                    e.column()
                ))
            })?
            .checked()
            .map_err(|e| refuse(format!("{name}: {}: {}", e.field, e.reason))),
        WorkloadSource::Run(run) => {
            store.run(*run)?;
            let gpu = store
                .sample_gpus(*run)?
                .into_iter()
                .next()
                .ok_or_else(|| refuse(format!("run {run} has no samples to derive a workload from")))?;
            let frame = store.read_samples(*run, gpu, None, Some(&[Field::UtilGpuPct]))?;
            Workload::from_frame(&frame).ok_or_else(|| {
                refuse(format!(
                    "run {run} has no GPU utilisation to tell compute from idle"
                ))
            })
        }
    }
}

/// One platform's bill, or why there is none.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformBill {
    pub platform: String,
    /// The rule in words ("60 s units, up, io-wait billed, idle free").
    pub rule: Option<String>,
    /// Per accelerator-hour.
    pub price_per_hour: Option<f64>,
    /// Which offering's price, and why that one.
    pub offering: Option<String>,
    pub currency: Option<String>,
    pub bill: Option<Bill>,
    /// Why there is no bill.
    pub missing: Option<String>,
    /// The workload under each price mode the offering has, cheapest
    /// first; `bill` is the on-demand one.
    pub modes: Vec<ModeCost>,
    /// The cheapest mode that fits the workload (spot is shown, never
    /// chosen: a preemptible instance may not finish it).
    pub cheapest: Option<BillingMode>,
    /// The bill in the reporting currency, where the platform's is another
    /// and a rate joins them (`in_currency`).
    pub reported: Option<Reported>,
    /// Why the bill is not in the reporting currency: no rate joins them.
    pub not_comparable: Option<String>,
    /// The workload's energy at the platform's measured power, where its
    /// runs sampled power.
    pub energy: Option<WorkloadEnergy>,
    /// The measured power it rests on.
    pub power: Option<PowerProfile>,
}

/// A bill brought into the reporting currency at a dated rate.
#[derive(Debug, Clone, Serialize)]
pub struct Reported {
    pub currency: String,
    /// On demand under the rule, to the cent (decimal text in JSON).
    pub amount: Decimal,
    /// The fair bill (compute only, billed per second), to the cent.
    pub fair_amount: Decimal,
    /// The cheapest mode that fits, to the cent.
    pub cheapest_amount: Option<Decimal>,
    pub rate: crate::rates::RateUsed,
}

/// Bring every bill into one currency (`currency`, else the workspace's,
/// else the one most bills are in): each bill in another currency gets its
/// amounts at the day's rate, or why it cannot.
pub fn in_currency(
    store: &Store,
    bills: &mut [PlatformBill],
    currency: Option<&str>,
) -> Result<Option<crate::rates::Reporting>> {
    let currencies: Vec<Option<String>> = bills.iter().map(|b| b.currency.clone()).collect();
    let Some(reporting) = crate::rates::reporting(store, currency, &currencies)? else {
        return Ok(None);
    };
    let book = crate::rates::RateBook::of(store)?;
    let today = crate::rates::today();
    let to = reporting.currency.as_str();
    for b in bills.iter_mut() {
        let (Some(from), Some(bill)) = (b.currency.clone(), &b.bill) else {
            continue;
        };
        if from == to {
            continue;
        }
        match book.rate(&from, to, today) {
            Some(rate) => {
                let convert = |a: Decimal| a.checked_mul(rate.rate).map(money::to_cents);
                let cheapest = b
                    .cheapest
                    .and_then(|c| b.modes.iter().find(|m| m.mode == c))
                    .map(|m| convert(m.amount));
                match (convert(bill.amount), convert(bill.fair_amount), cheapest) {
                    (Some(amount), Some(fair_amount), None)
                    | (Some(amount), Some(fair_amount), Some(Some(_))) => {
                        b.reported = Some(Reported {
                            currency: to.to_string(),
                            amount,
                            fair_amount,
                            cheapest_amount: cheapest.flatten(),
                            rate,
                        });
                    }
                    // Never an amount wrapped or zeroed: said instead.
                    _ => {
                        b.not_comparable = Some(format!(
                            "in {from}; in {to} at {rate} it is past what an amount can hold"
                        ));
                    }
                }
            }
            None => {
                b.not_comparable = Some(format!(
                    "in {from}; {}",
                    crate::rates::missing_rate(&from, to)
                ));
            }
        }
    }
    Ok(Some(reporting))
}

/// What the workload costs under one price mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeCost {
    pub mode: BillingMode,
    /// Exact decimal text in JSON, to the cent.
    pub amount: Decimal,
    /// How it was reckoned: "3 months × 8 GPUs at 25000 CNY/month".
    pub how: String,
}

use crate::domain::MONTH_HOURS;
/// A month as providers bill it, in seconds.
pub(crate) const MONTH_S: f64 = MONTH_HOURS as f64 * 3600.0;

/// The workload under each mode the offering prices: on-demand (its bill
/// under the rule), monthly (each session rounded up to whole 30-day
/// months of every GPU, at the plan's price per accelerator-hour), spot
/// (the on-demand rule at the spot price).
fn mode_costs(
    workload: &Workload,
    rule: &BillingRule,
    on_demand: &Bill,
    prices: &Prices,
) -> Vec<ModeCost> {
    let currency = &prices.currency;
    let mut out = vec![ModeCost {
        mode: BillingMode::OnDemand,
        amount: on_demand.amount,
        how: format!(
            "{} billed at {} {currency}/GPU-hour under the rule",
            crate::text::duration_words(on_demand.billed_seconds),
            prices.on_demand.map_or("–".into(), |p| p.to_string())
        ),
    }];
    if let Some(monthly) = prices.monthly {
        let months: f64 = workload
            .sessions
            .iter()
            .map(|s| (s.wall_seconds() / MONTH_S).ceil().max(1.0))
            .sum();
        // Within the bounds of prices and workloads this holds; checked all
        // the same, and left out rather than wrapped.
        let amount = money::checked_exact(monthly)
            .and_then(|m| m.checked_mul(Decimal::from(MONTH_HOURS)))
            .and_then(|m| m.checked_mul(money::checked_exact(months)?))
            .and_then(|m| m.checked_mul(Decimal::from(workload.gpus)))
            .map(money::to_cents);
        if let Some(amount) = amount {
            out.push(ModeCost {
                mode: BillingMode::Monthly,
                amount,
                how: format!(
                    "{months} month(s) × {} GPU(s) × {MONTH_HOURS} h at {monthly} {currency}/GPU-hour on the monthly plan",
                    workload.gpus
                ),
            });
        }
    }
    if let Some(spot) = prices.spot
        && let Ok(b) = billing_sim::bill(workload, rule, spot)
    {
        out.push(ModeCost {
            mode: BillingMode::Spot,
            amount: b.amount,
            how: format!("at {spot} {currency}/GPU-hour; may be reclaimed before the work is done"),
        });
    }
    out.sort_by_key(|m| m.amount);
    out
}

/// The workload priced on every platform, in the store's platform order;
/// with `class`, at each one's offering of that accelerator.
pub fn price_everywhere(
    store: &Store,
    workload: &Workload,
    class: Option<&str>,
) -> Result<Vec<PlatformBill>> {
    let class = class.map(crate::accelerator::normalise);
    store
        .platforms()?
        .into_iter()
        .map(|platform| {
            let runs = store.runs(Some(platform.id))?;
            price_on(store, workload, platform, &runs, class.as_ref())
        })
        .collect()
}

/// The workload priced on one platform, whose runs (for their measured
/// power) are at hand.
pub fn price_on(
    store: &Store,
    workload: &Workload,
    platform: Platform,
    runs: &[Run],
    class: Option<&crate::accelerator::Accelerator>,
) -> Result<PlatformBill> {
    let rule = billing::rule(store, &platform)?;
    let price = billing::price(store, &platform, runs, class)?;
    let priced_offerings = store
        .offerings(Some(platform.id))?
        .iter()
        .filter(|o| o.prices.on_demand.is_some())
        .count();
    let (bill, missing) = match (&rule, &price) {
        (Some(rule), Some(p)) => match billing_sim::bill(workload, rule, p.price) {
            Ok(bill) => (Some(bill), None),
            Err(e) => (None, Some(e.reason)),
        },
        (None, _) => (None, Some("no billing rule".to_string())),
        (_, None) if class.is_some() => (
            None,
            Some("no priced offering of that accelerator".to_string()),
        ),
        (_, None) if priced_offerings > 1 => (
            None,
            Some(
                "several priced offerings and no run tells which was measured (import with --offering)"
                    .to_string(),
            ),
        ),
        (_, None) => (None, Some("no on-demand price".to_string())),
    };
    let modes = match (&rule, &price, &bill) {
        (Some(rule), Some(p), Some(on_demand)) => {
            let offering = store.offering(p.offering_id)?;
            mode_costs(workload, rule, on_demand, &offering.prices)
        }
        _ => Vec::new(),
    };
    let cheapest = modes
        .iter()
        .find(|m| m.mode != BillingMode::Spot)
        .map(|m| m.mode);
    let power = energy::power_profile(store, runs)?;
    let factors = EnergyFactors::of_platform(store, platform.id)?;
    Ok(PlatformBill {
        platform: platform.name,
        rule: rule.as_ref().map(BillingRule::in_words),
        price_per_hour: price.as_ref().map(|p| p.price),
        offering: price.as_ref().map(|p| p.why.clone()),
        currency: price.map(|p| p.currency),
        bill,
        missing,
        modes,
        cheapest,
        reported: None,
        not_comparable: None,
        energy: power
            .as_ref()
            .map(|p| energy::workload_energy(workload, p, factors)),
        power,
    })
}
