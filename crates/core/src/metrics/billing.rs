//! Billing metrics of a platform: what its rule does to the reference
//! workload, what finishing that workload costs at its price, and whether
//! its bills agree with what the GPUs measurably did.

use std::collections::BTreeMap;

use super::{RunSource, RunValue, source};
use crate::billing_sim::{self, Phase, Segment, Workload};
use crate::domain::money;
use crate::domain::{BillingMode, BillingRule, Platform, Run};
use crate::error::Result;
use crate::metrics::catalog::keys;
use crate::samples::Field;
use crate::store::Store;

use super::sustain::{WORKING_UTIL, median};
use crate::samples::median_step as step_ms;

/// A platform-level value and the runs behind it (none for rule-only values).
pub struct PlatformValue {
    pub value: RunValue,
    pub sources: Vec<RunSource>,
}

/// The rule that prices on-demand use of the platform: its own on-demand
/// rule, else any platform-wide rule, else the first offering rule.
pub fn rule(store: &Store, platform: &Platform) -> Result<Option<BillingRule>> {
    let rules = store.billing_rules(platform.id)?;
    Ok(rules
        .iter()
        .find(|r| r.offering_id.is_none() && r.mode == BillingMode::OnDemand)
        .or_else(|| rules.iter().find(|r| r.offering_id.is_none()))
        .or_else(|| rules.first())
        .cloned())
}

/// The on-demand price a platform's figures are costed at: the offering
/// its evidence was measured on, so that a platform measured on A100s is
/// never priced at its RTX 4090.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    pub offering_id: i64,
    /// Per accelerator-hour.
    pub price: f64,
    pub currency: String,
    /// "the offering its runs were imported for (#3, 8 × NVIDIA A100)".
    pub why: String,
    /// Where the price comes from and its day, where known.
    pub source: Option<PriceSource>,
}

/// A price older than this many days is flagged wherever it is used: a
/// catalog of last season is no quote.
pub const STALE_AFTER_DAYS: i64 = 90;

/// Where a price comes from and the day it held: what every cost and bill
/// built on it says, and what flags it stale.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PriceSource {
    /// "skypilot-catalog vms.csv (spot, zone use1-atl2-az1)".
    pub source: Option<String>,
    pub on: Option<jiff::civil::Date>,
}

impl PriceSource {
    /// The source of an offering's prices; none for a price typed without one.
    pub fn of(prices: &crate::domain::Prices) -> Option<Self> {
        (prices.source.is_some() || prices.priced_on.is_some()).then(|| PriceSource {
            source: prices.source.clone(),
            on: prices.priced_on,
        })
    }

    /// Days since the price held, where its day is known.
    pub fn age_days(&self, today: jiff::civil::Date) -> Option<i64> {
        let on = self.on?;
        today.since(on).ok().map(|span| i64::from(span.get_days()))
    }

    /// Older than [`STALE_AFTER_DAYS`] today.
    pub fn stale(&self) -> bool {
        self.age_days(crate::import::timestamps::today())
            .is_some_and(|a| a > STALE_AFTER_DAYS)
    }

    /// "price from skypilot-catalog vms.csv on 2026-12-01", with "STALE (…)"
    /// past [`STALE_AFTER_DAYS`].
    pub fn said(&self) -> String {
        self.said_in(false)
    }

    /// `said`, in English or Chinese.
    pub fn said_in(&self, zh: bool) -> String {
        let mut out = String::from(if zh { "价格" } else { "price" });
        if let Some(source) = &self.source {
            out.push_str(&if zh {
                format!("来自 {source}")
            } else {
                format!(" from {source}")
            });
        }
        if let Some(on) = self.on {
            out.push_str(&if zh {
                format!("，{on} 的报价")
            } else {
                format!(" on {on}")
            });
            if let Some(age) = self
                .age_days(crate::import::timestamps::today())
                .filter(|a| *a > STALE_AFTER_DAYS)
            {
                out.push_str(&if zh {
                    format!(" — 已过期（STALE）：{age} 天前（超过 {STALE_AFTER_DAYS} 天）；请导入当前价目表")
                } else {
                    format!(
                        " — STALE: {age} days old (more than {STALE_AFTER_DAYS}); import a current catalog"
                    )
                });
            }
        }
        out
    }
}

/// "; price from skypilot-catalog vms.csv on 2026-12-01", with "STALE (…)"
/// past [`STALE_AFTER_DAYS`]; "; price entered by hand (no source or day)"
/// for one typed without them.
pub fn provenance(prices: &crate::domain::Prices) -> String {
    PriceSource::of(prices).map_or_else(|| format!("; {BY_HAND}"), |s| format!("; {}", s.said()))
}

/// What a price typed without a source or day says of itself.
pub const BY_HAND: &str = "price entered by hand (no source or day)";

/// The offering a platform's evidence is priced at (`Priced`): the one
/// most of its runs name, else the cheapest of the card most of its runs
/// saw, else its only priced offering. `None` where it has none priced, or
/// several and nothing tells which was measured: a price chosen by chance
/// would compare unlike with like.
pub fn price(
    store: &Store,
    platform: &Platform,
    runs: &[Run],
    class: Option<&crate::accelerator::Accelerator>,
) -> Result<Option<Priced>> {
    // Compared on one class of card: only that class's offerings.
    let offerings: Vec<_> = store
        .offerings(Some(platform.id))?
        .into_iter()
        .filter(|o| o.prices.on_demand.is_some())
        .filter(|o| {
            class.is_none_or(|c| o.accelerator.same_product(c) || c.same_product(&o.accelerator))
        })
        .collect();
    let priced = |o: &crate::domain::Offering, why: String| Priced {
        offering_id: o.id,
        price: o.prices.on_demand.unwrap_or(0.0),
        currency: o.prices.currency.clone(),
        why: format!("{why}{}", provenance(&o.prices)),
        source: PriceSource::of(&o.prices),
    };
    let named = |o: &crate::domain::Offering| {
        format!("#{}, {} × {}", o.id, o.count, o.accelerator.canonical)
    };
    // The offering the runs were imported for.
    let mut by_offering: BTreeMap<i64, usize> = BTreeMap::new();
    for id in runs.iter().filter_map(|r| r.offering_id) {
        *by_offering.entry(id).or_default() += 1;
    }
    if let Some((id, _)) = by_offering
        .iter()
        .max_by_key(|(id, n)| (**n, std::cmp::Reverse(**id)))
        && let Some(o) = offerings.iter().find(|o| o.id == *id)
    {
        return Ok(Some(priced(
            o,
            format!("the offering its runs were made on ({})", named(o)),
        )));
    }
    // The card the runs saw.
    let mut cards: Vec<(crate::accelerator::Accelerator, usize)> = Vec::new();
    for a in runs
        .iter()
        .flat_map(|r| r.inventory.iter().filter_map(|g| g.accelerator.as_ref()))
    {
        match cards.iter_mut().find(|(c, _)| c.same_product(a)) {
            Some((_, n)) => *n += 1,
            None => cards.push((a.clone(), 1)),
        }
    }
    cards.sort_by_key(|c| std::cmp::Reverse(c.1));
    if let Some((card, _)) = cards.first() {
        let cheapest = offerings
            .iter()
            .filter(|o| o.accelerator.same_product(card) || card.same_product(&o.accelerator))
            .min_by(|a, b| {
                a.prices
                    .on_demand
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&b.prices.on_demand.unwrap_or(f64::INFINITY))
            });
        if let Some(o) = cheapest {
            return Ok(Some(priced(
                o,
                format!(
                    "the offering of the card its runs measured, {} ({})",
                    card.canonical,
                    named(o)
                ),
            )));
        }
    }
    match offerings.as_slice() {
        [only] => Ok(Some(priced(
            only,
            format!("its only priced offering ({})", named(only)),
        ))),
        _ => Ok(None),
    }
}

fn value(key: &str, v: f64, detail: String) -> RunValue {
    RunValue::new(key, v, Some(detail))
}

/// The billing unit the bills imply, beside what the typed rule says.
fn measured_granularity(m: &MeasuredUnit, typed: Option<&BillingRule>) -> PlatformValue {
    let verdict = match typed {
        Some(r) if r.granularity_s == m.unit_s => {
            format!("; the typed rule agrees ({} s)", r.granularity_s)
        }
        Some(r) => format!(
            "; the typed rule says {} s: the bill DISAGREES with it",
            r.granularity_s
        ),
        None => String::new(),
    };
    PlatformValue {
        value: value(
            keys::BILLING_GRANULARITY_S,
            f64::from(m.unit_s),
            format!("measured: {}{verdict}", m.detail),
        ),
        sources: m.sources.clone(),
    }
}

pub fn platform_values(
    store: &Store,
    platform: &Platform,
    runs: &[Run],
    class: Option<&crate::accelerator::Accelerator>,
    run_level: &BTreeMap<String, (Vec<RunSource>, Vec<String>)>,
) -> Result<Vec<PlatformValue>> {
    let mut out = Vec::new();
    let measured = measured_unit(store, runs)?;
    let typed = rule(store, platform)?;
    if let Some(m) = &measured {
        out.push(measured_granularity(m, typed.as_ref()));
    }
    let mut platform_wide = |v: RunValue| {
        out.push(PlatformValue {
            value: v,
            sources: Vec::new(),
        })
    };
    let reference = Workload::reference();
    // What the platform measurably bills replaces the typed unit in the
    // simulations below.
    let effective = typed.map(|r| BillingRule {
        granularity_s: measured.as_ref().map_or(r.granularity_s, |m| m.unit_s),
        ..r
    });
    if let Some(rule) = effective {
        if measured.is_none() {
            platform_wide(value(
                keys::BILLING_GRANULARITY_S,
                f64::from(rule.granularity_s),
                format!(
                    "{} rule: {} s units, rounding {}",
                    rule.mode, rule.granularity_s, rule.rounding
                ),
            ));
        }
        let unit = billing_sim::bill(&reference, &rule, 1.0);
        if let Some((unit, over)) = unit
            .ok()
            .and_then(|u| u.overcharge_pct().map(|over| (u, over)))
        {
            platform_wide(value(
                keys::BILLING_OVERCHARGE_PCT,
                over,
                format!(
                    "reference workload: {:.0} s billed for {:.0} s of compute ({:.0} s wall)",
                    unit.billed_seconds, unit.compute_seconds, unit.wall_seconds
                ),
            ));
        }
        // A price past what a bill can hold (stored before prices were
        // bounded) prices nothing: the cost metrics stay unmeasured.
        let priced = price(store, platform, runs, class)?.and_then(|p| {
            let b = billing_sim::bill(&reference, &rule, p.price).ok()?;
            Some((p, b))
        });
        if let Some((
            Priced {
                price,
                currency,
                why,
                ..
            },
            b,
        )) = priced
        {
            platform_wide(value(
                keys::BILLING_COST_PER_USEFUL_GPU_HOUR,
                money::to_f64(b.exact_amount) / (b.compute_seconds / 3600.0),
                format!(
                    "{:.2} {currency} for {:.2} compute hours at {price} {currency}/h, {why}",
                    b.amount,
                    b.compute_seconds / 3600.0
                ),
            ));
            // Finishing the job: compute lengthened by the measured power drop;
            // the measured start latency billed as queue where the rule bills queue.
            let mid = |key: &str| {
                run_level.get(key).and_then(|(s, _)| {
                    let mut v: Vec<f64> = s.iter().map(|s| s.value).collect();
                    median(&mut v)
                })
            };
            let drop = mid(keys::SUSTAIN_POWER_DROP_PCT)
                .unwrap_or(0.0)
                .clamp(0.0, 90.0);
            let queue = mid(keys::STARTUP_BASELINE_P50_S).unwrap_or(0.0);
            let stretched = finishing(&reference, drop, queue);
            if let Ok(finish) = billing_sim::bill(&stretched, &rule, price) {
                platform_wide(value(
                    keys::BILLING_REFERENCE_COST,
                    money::to_f64(finish.exact_amount),
                    format!(
                        "{:.2} {currency}: compute {:.0} s after a {drop:.1} % power drop, queue {queue:.0} s",
                        finish.amount, finish.compute_seconds
                    ),
                ));
            }
        }
    }
    bill_error(store, runs, &mut out)?;
    reconciled(store, runs, &mut out)?;
    Ok(out)
}

/// The bills against the measurements: billed idle time and billed time
/// in question (`reconcile`), pooled over every line.
fn reconciled(store: &Store, runs: &[Run], out: &mut Vec<PlatformValue>) -> Result<()> {
    let r = super::reconcile::reconcile(store, runs)?;
    if r.lines == 0 {
        return Ok(());
    }
    // Each bill run stands behind the platform's pooled value.
    let sources = |value: f64| -> Vec<RunSource> {
        runs.iter()
            .filter(|run| r.bill_runs.contains(&run.id))
            .map(|run| source(run, value))
            .collect()
    };
    let amounts: Vec<String> = r
        .amounts
        .iter()
        .map(|(currency, (billed, question))| format!("{question} of {billed} {currency}"))
        .collect();
    if r.sampled_billed_seconds > 0.0 {
        out.push(PlatformValue {
            value: RunValue::pooled(
                keys::BILLING_BILLED_IDLE_PCT,
                r.idle_seconds,
                r.sampled_billed_seconds,
                Some(format!(
                    "{:.0} s of {:.0} billed seconds sampled had no GPU working",
                    r.idle_seconds, r.sampled_billed_seconds
                )),
            ),
            sources: sources(100.0 * r.idle_seconds / r.sampled_billed_seconds),
        });
    }
    if r.billed_seconds > 0.0 {
        out.push(PlatformValue {
            value: RunValue::pooled(
                keys::BILLING_DISPUTED_PCT,
                r.seconds_in_question,
                r.billed_seconds,
                Some(format!(
                    "{:.0} of {:.0} billed seconds in question over {} line(s): {}{}",
                    r.seconds_in_question,
                    r.billed_seconds,
                    r.lines,
                    amounts.join(", "),
                    if r.seconds_unmeasured > 0.0 {
                        format!(
                            "; {:.0} billed seconds no measurement covers (not borne out, not counted here)",
                            r.seconds_unmeasured
                        )
                    } else {
                        String::new()
                    }
                )),
            ),
            sources: sources(100.0 * r.seconds_in_question / r.billed_seconds),
        });
    }
    Ok(())
}

/// The reference job as a platform finishes it: its compute lengthened by
/// the measured power drop (`drop` %), its queue by the measured start
/// latency (`queue` s).
fn finishing(reference: &Workload, drop: f64, queue: f64) -> Workload {
    Workload {
        sessions: reference
            .sessions
            .iter()
            .map(|s| billing_sim::Session {
                segments: s
                    .segments
                    .iter()
                    .map(|seg| match seg.phase {
                        Phase::Compute => Segment {
                            phase: Phase::Compute,
                            seconds: seg.seconds / (1.0 - drop / 100.0),
                        },
                        Phase::Queue => Segment {
                            phase: Phase::Queue,
                            seconds: seg.seconds + queue,
                        },
                        _ => seg.clone(),
                    })
                    .collect(),
            })
            .collect(),
        gpus: reference.gpus,
    }
}

/// Billing units platforms use, smallest first.
const UNITS: [u32; 10] = [1, 10, 30, 60, 300, 600, 900, 1800, 3600, 86400];

/// The billing unit a platform's bills imply for jobs whose phases were
/// recorded on the instance (a billing probe, or the user's own events).
struct MeasuredUnit {
    unit_s: u32,
    detail: String,
    sources: Vec<RunSource>,
}

/// The unit that, rounding the job's wall time up, gives what was billed:
/// the smallest that does so for the wall time as measured, else within a
/// second of it, else within the clocks' wider disagreement (2 s or 2 % of
/// the job).
/// A job whose length is a multiple of several units cannot tell them
/// apart (90 s reads the same under per-second and per-30-s billing).
pub fn unit_for(wall_s: f64, billed_s: f64) -> Option<u32> {
    let rounded = |wall: f64, u: f64| (wall / u).ceil().max(1.0) * u;
    let within = |slack: f64| {
        UNITS.into_iter().find(|u| {
            let u = f64::from(*u);
            [wall_s - slack, wall_s, wall_s + slack]
                .iter()
                .any(|w| (rounded(w.max(0.0), u) - billed_s).abs() <= 0.5)
        })
    };
    within(0.0)
        .or_else(|| within(1.0))
        .or_else(|| within((wall_s * 0.02).max(2.0)))
}

fn measured_unit(store: &Store, runs: &[Run]) -> Result<Option<MeasuredUnit>> {
    // Each instance's recorded job: first start, last end, across phases.
    let mut jobs: BTreeMap<String, (i64, i64, i64)> = BTreeMap::new();
    for run in runs {
        for e in store.events_of_kind(run.id, crate::domain::EventKind::Phase)? {
            let Some(instance) = e
                .detail
                .as_deref()
                .and_then(|d| d.split_once(" on "))
                .map(|(_, i)| i.to_string())
            else {
                continue;
            };
            let start = e.at.as_millisecond();
            let end = start + e.duration_ms.unwrap_or(0);
            let job = jobs.entry(instance).or_insert((start, end, run.id));
            job.0 = job.0.min(start);
            job.1 = job.1.max(end);
        }
    }
    if jobs.is_empty() {
        return Ok(None);
    }
    let mut found: Vec<(u32, String, i64)> = Vec::new();
    for run in runs {
        // One line at a time: a bill may hold a million.
        store.visit_billing_lines(run.id, |line| {
            let Some((start, end, job_run)) = jobs.get(&line.instance) else {
                return Ok(());
            };
            let wall = (end - start) as f64 / 1000.0;
            if let Some(unit) = unit_for(wall, line.billed_seconds) {
                found.push((
                    unit,
                    format!(
                        "a {wall:.1} s job on {} (run #{job_run}) was billed {:.0} s",
                        line.instance, line.billed_seconds
                    ),
                    *job_run,
                ));
            }
            Ok(())
        })?;
    }
    // The largest unit seen wins: a platform rounds at least that much.
    let Some(max) = found.iter().map(|f| f.0).max() else {
        return Ok(None);
    };
    let sources = runs
        .iter()
        .filter(|r| found.iter().any(|f| f.2 == r.id))
        .map(|r| source(r, f64::from(max)))
        .collect();
    Ok(Some(MeasuredUnit {
        unit_s: max,
        detail: found
            .iter()
            .filter(|f| f.0 == max)
            .map(|f| f.1.clone())
            .collect::<Vec<_>>()
            .join("; "),
        sources,
    }))
}

/// Billed compute time against measured busy time (any GPU above 10 %
/// utilisation) over each billed period, from the platform's own samples.
fn bill_error(store: &Store, runs: &[Run], out: &mut Vec<PlatformValue>) -> Result<()> {
    let sample_runs: Vec<&Run> = runs.iter().filter(|r| r.sample_count > 0).collect();
    let mut errors = Vec::new();
    let mut sources = Vec::new();
    let mut details = Vec::new();
    for run in runs {
        store.visit_billing_lines(run.id, |line| {
            let Some(billed) = line.compute_seconds else {
                return Ok(());
            };
            let (from, to) = (line.start.as_millisecond(), line.end.as_millisecond());
            let mut measured: Option<f64> = None;
            for s in &sample_runs {
                for gpu in store.sample_gpus(s.id)? {
                    let frame = store.read_samples(
                        s.id,
                        gpu,
                        Some(from..to),
                        Some(&[Field::UtilGpuPct]),
                    )?;
                    let (Some(util), Some(step)) = (
                        frame.column(Field::UtilGpuPct),
                        step_ms(&frame.t_ms).or(s.interval_ms.map(i64::from)),
                    ) else {
                        continue;
                    };
                    let busy = util.iter().flatten().filter(|u| *u > WORKING_UTIL).count() as f64
                        * step as f64
                        / 1000.0;
                    measured = Some(measured.map_or(busy, |m: f64| m.max(busy)));
                }
            }
            if let Some(m) = measured.filter(|m| *m > 0.0) {
                let error = (billed - m).abs() / m * 100.0;
                errors.push(error);
                sources.push(source(run, error));
                details.push(format!(
                    "{}: billed {billed:.0} s of compute, measured {m:.0} s busy",
                    line.instance
                ));
            }
            Ok(())
        })?;
    }
    if let Some(e) = median(&mut errors) {
        out.push(PlatformValue {
            value: RunValue::new(keys::BILLING_BILL_ERROR_PCT, e, Some(details.join("; "))),
            sources,
        });
    }
    Ok(())
}

#[cfg(test)]
mod unit_tests {
    use super::{provenance, unit_for};

    #[test]
    fn a_price_says_its_source_and_day_and_an_old_one_is_flagged() {
        let mut prices = crate::domain::Prices::new("USD", Some(4.0), None, None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            provenance(&prices),
            "; price entered by hand (no source or day)"
        );
        prices.source = Some("skypilot-catalog vms.csv".into());
        prices.priced_on = "2020-01-01".parse().ok();
        let said = provenance(&prices);
        assert!(
            said.starts_with("; price from skypilot-catalog vms.csv on 2020-01-01 — STALE: "),
            "{said}"
        );
        prices.priced_on = Some(
            jiff::tz::TimeZone::UTC
                .to_datetime(jiff::Timestamp::now())
                .date(),
        );
        assert!(!provenance(&prices).contains("STALE"));
    }

    #[test]
    fn units_from_a_probe_job_and_its_bill() {
        assert_eq!(unit_for(90.0, 90.0), Some(1));
        assert_eq!(unit_for(90.4, 91.0), Some(1));
        assert_eq!(unit_for(90.0, 120.0), Some(60));
        assert_eq!(unit_for(90.0, 3600.0), Some(3600));
        assert_eq!(unit_for(389.8, 3600.0), Some(3600));
        assert_eq!(unit_for(90.0, 50.0), None);
    }
}
