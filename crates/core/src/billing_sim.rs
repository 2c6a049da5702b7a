//! The billing simulator: what a workload would cost under each platform's
//! billing rule. A workload is a list of sessions (an instance started and
//! stopped), each a timeline of phases — queue, compute, io-wait, idle. The
//! rule decides which phases are billed, the unit they are rounded to and
//! the minimum charge per session.
//!
//! The four-breakpoint review's worked example is the test vector: 2 h 17 m wall with 1 h 42 m
//! 18 s compute at 12.8 per hour costs 38.40 on hourly-ceiling billing of
//! wall time and 21.82 on per-second billing of compute only.

use serde::{Deserialize, Serialize};

use crate::domain::money::{self, Decimal};
use crate::domain::{BillingRule, Rounding};
use crate::error::ValidationError;

use breakpoint_model::labelled_enum;

labelled_enum! {
    pub enum Phase ("phase") {
        Queue => "queue",
        Compute => "compute",
        IoWait => "io-wait",
        Idle => "idle",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub phase: Phase,
    pub seconds: f64,
}

/// One instance lifetime: from start to stop.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub segments: Vec<Segment>,
}

impl Session {
    pub fn seconds(&self, phase: Phase) -> f64 {
        self.segments
            .iter()
            .filter(|s| s.phase == phase)
            .map(|s| s.seconds)
            .sum()
    }

    pub fn wall_seconds(&self) -> f64 {
        self.segments.iter().map(|s| s.seconds).sum()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub sessions: Vec<Session>,
    /// Accelerators billed per session.
    pub gpus: u32,
}

/// What a workload can be: at most 10¹¹ s of wall time in all (three
/// millennia), 100 000 GPUs, a million sessions — so its bill at any price
/// and rate stays inside what an exact decimal holds.
pub const MAX_WORKLOAD_S: f64 = 1e11;
const MAX_GPUS: u32 = 100_000;
const MAX_SESSIONS: usize = 1_000_000;

impl Workload {
    /// The workload if it is one a bill can be made of: every phase a
    /// finite, non-negative time, the whole within [`MAX_WORKLOAD_S`], its
    /// GPUs and sessions counted within their bounds.
    pub fn checked(self) -> Result<Workload, ValidationError> {
        if !(1..=MAX_GPUS).contains(&self.gpus) {
            return Err(ValidationError::new(
                "gpus",
                format!("{}: between 1 and {MAX_GPUS}", self.gpus),
            ));
        }
        if self.sessions.is_empty() || self.sessions.len() > MAX_SESSIONS {
            return Err(ValidationError::new(
                "sessions",
                format!(
                    "{} session(s): between 1 and {MAX_SESSIONS}",
                    self.sessions.len()
                ),
            ));
        }
        let mut total = 0.0;
        for (i, session) in self.sessions.iter().enumerate() {
            for (k, segment) in session.segments.iter().enumerate() {
                if !(segment.seconds.is_finite() && segment.seconds >= 0.0) {
                    return Err(ValidationError::new(
                        format!("sessions[{i}].segments[{k}].seconds"),
                        format!("{} is not a length of time", segment.seconds),
                    ));
                }
                total += segment.seconds;
            }
        }
        if total > MAX_WORKLOAD_S {
            return Err(ValidationError::new(
                "workload",
                format!(
                    "{total:.3e} s in all: past what a workload can be (at most 10¹¹ s, three millennia)"
                ),
            ));
        }
        Ok(self)
    }
}

impl Workload {
    /// The four-breakpoint review's Stable Diffusion XL job on one A100-80G: 2 h 17 m wall,
    /// 1 h 42 m 18 s of it computing, the rest loading data and saving
    /// checkpoints, no queue.
    pub fn reference() -> Workload {
        Workload {
            sessions: vec![Session {
                segments: vec![
                    Segment {
                        phase: Phase::Queue,
                        seconds: 0.0,
                    },
                    Segment {
                        phase: Phase::Compute,
                        seconds: 6138.0,
                    },
                    Segment {
                        phase: Phase::IoWait,
                        seconds: 2082.0,
                    },
                ],
            }],
            gpus: 1,
        }
    }

    /// The workload a GPU's samples show: seconds with utilisation above
    /// 10 % are compute, the rest of the observed time idle.
    pub fn from_frame(frame: &crate::samples::SeriesFrame) -> Option<Workload> {
        let util = frame.column(crate::samples::Field::UtilGpuPct)?;
        let step = frame.median_step_ms()? as f64 / 1000.0;
        let busy = util
            .iter()
            .flatten()
            .filter(|u| *u > crate::samples::WORKING_UTIL)
            .count() as f64;
        let observed = util.iter().flatten().count() as f64;
        Some(Workload {
            sessions: vec![Session {
                segments: vec![
                    Segment {
                        phase: Phase::Compute,
                        seconds: busy * step,
                    },
                    Segment {
                        phase: Phase::Idle,
                        seconds: (observed - busy) * step,
                    },
                ],
            }],
            gpus: 1,
        })
    }

    pub fn compute_seconds(&self) -> f64 {
        self.sessions
            .iter()
            .map(|s| s.seconds(Phase::Compute))
            .sum()
    }

    pub fn wall_seconds(&self) -> f64 {
        self.sessions.iter().map(Session::wall_seconds).sum()
    }

    /// Parse "compute=1h42m18s,io-wait=35m,queue=0" with an optional
    /// "sessions=N" (the same session N times) and "gpus=N".
    pub fn parse_spec(spec: &str) -> Result<Workload, ValidationError> {
        let mut session = Session::default();
        let mut sessions = 1u32;
        let mut gpus = 1u32;
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                ValidationError::new("workload", format!("\"{part}\" is not phase=duration"))
            })?;
            match key.trim() {
                "sessions" | "repeat" => sessions = whole(key, value)?,
                "gpus" => gpus = whole(key, value)?,
                phase => {
                    let phase: Phase = phase.parse()?;
                    session.segments.push(Segment {
                        phase,
                        seconds: parse_duration(value)?,
                    });
                }
            }
        }
        if session.segments.is_empty() {
            return Err(ValidationError::new(
                "workload",
                "names no phase (e.g. compute=1h42m18s,io-wait=35m)",
            ));
        }
        Workload {
            sessions: vec![session; sessions as usize],
            gpus,
        }
        .checked()
    }
}

fn whole(key: &str, value: &str) -> Result<u32, ValidationError> {
    value
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_SESSIONS as u32).contains(n))
        .ok_or_else(|| ValidationError::new(key, format!("\"{value}\" is not a whole number ≥ 1")))
}

/// "1h42m18s", "35m", "90s", "6138", "1.5h" → seconds (the one grammar,
/// `text::duration_seconds`), or why not.
pub fn parse_duration(text: &str) -> Result<f64, ValidationError> {
    let t = text.trim();
    crate::text::duration_seconds(t).ok_or_else(|| {
        ValidationError::new(
            "duration",
            format!("\"{t}\" is not a duration (e.g. 1h42m18s, 35m, 6138)"),
        )
    })
}

/// What a workload costs under one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bill {
    /// Seconds charged after minimums and rounding, all sessions.
    pub billed_seconds: f64,
    pub compute_seconds: f64,
    pub wall_seconds: f64,
    /// The bill, to the cent.
    /// Exact decimal text in JSON ("108.32", never 108.32399999999961).
    pub amount: Decimal,
    /// What per-second billing of compute alone would cost, to the cent.
    /// Exact decimal text in JSON ("108.32", never 108.32399999999961).
    pub fair_amount: Decimal,
    /// The amount before rounding to the cent, for figures derived from
    /// it (a cost per hour must not inherit the bill's rounding).
    #[serde(skip)]
    pub exact_amount: Decimal,
    #[serde(skip)]
    pub exact_fair_amount: Decimal,
}

impl Bill {
    /// Billed amount ÷ the fair amount − 1, in percent.
    /// From the amounts before rounding, so that a cent of rounding on a
    /// small bill does not read as an overcharge.
    pub fn overcharge_pct(&self) -> Option<f64> {
        (!self.exact_fair_amount.is_zero())
            .then(|| (money::to_f64(self.exact_amount / self.exact_fair_amount) - 1.0) * 100.0)
    }
}

fn round_units(seconds: f64, rule: &BillingRule) -> f64 {
    let unit = f64::from(rule.granularity_s.max(1));
    let units = seconds / unit;
    // Tolerate float dust: 3.0000000001 units is 3 units.
    let units = if (units - units.round()).abs() < 1e-9 {
        units.round()
    } else {
        units
    };
    let rounded = match rule.rounding {
        Rounding::Ceil => units.ceil(),
        Rounding::Nearest => units.round(),
        Rounding::Floor => units.floor(),
    };
    rounded * unit
}

/// Price a workload: per session, the billed phases are summed, raised to
/// the minimum charge and rounded to the billing unit; idle time at a
/// separate idle price is rounded on its own. Within the bounds of
/// workloads ([`Workload::checked`]) and prices every amount fits an exact
/// decimal; a price from before those bounds that does not is refused
/// here, never wrapped or zeroed.
pub fn bill(
    workload: &Workload,
    rule: &BillingRule,
    price_per_hour: f64,
) -> Result<Bill, ValidationError> {
    let past = || {
        ValidationError::new(
            "price",
            format!("{price_per_hour} an hour for this workload is past what an amount can hold"),
        )
    };
    let exact = |v: f64| money::checked_exact(v).ok_or_else(past);
    let price = exact(price_per_hour)?;
    let hour = Decimal::from(3600);
    // seconds × price ÷ hour, checked.
    let charge = |seconds: f64, price: Decimal| -> Result<Decimal, ValidationError> {
        exact(seconds)?
            .checked_mul(price)
            .and_then(|a| a.checked_div(hour))
            .ok_or_else(past)
    };
    let mut billed_seconds = 0.0;
    let mut amount = Decimal::ZERO;
    for session in &workload.sessions {
        let separate_idle = rule.bills_idle && rule.idle_price_per_hour.is_some();
        let mut seconds = session.seconds(Phase::Compute);
        if rule.bills_queue {
            seconds += session.seconds(Phase::Queue);
        }
        if rule.bills_io_wait {
            seconds += session.seconds(Phase::IoWait);
        }
        if rule.bills_idle && !separate_idle {
            seconds += session.seconds(Phase::Idle);
        }
        if seconds > 0.0 {
            let charged = round_units(seconds.max(f64::from(rule.minimum_charge_s)), rule);
            billed_seconds += charged;
            amount = amount
                .checked_add(charge(charged, price)?)
                .ok_or_else(past)?;
        }
        if let (true, Some(idle_price)) = (separate_idle, rule.idle_price_per_hour) {
            let idle = round_units(session.seconds(Phase::Idle), rule);
            billed_seconds += idle;
            amount = amount
                .checked_add(charge(idle, exact(idle_price)?)?)
                .ok_or_else(past)?;
        }
    }
    let gpus = Decimal::from(workload.gpus.max(1));
    let fair = charge(workload.compute_seconds(), price)?
        .checked_mul(gpus)
        .ok_or_else(past)?;
    let amount = amount.checked_mul(gpus).ok_or_else(past)?;
    Ok(Bill {
        billed_seconds,
        compute_seconds: workload.compute_seconds(),
        wall_seconds: workload.wall_seconds(),
        amount: money::to_cents(amount),
        exact_amount: amount,
        fair_amount: money::to_cents(fair),
        exact_fair_amount: fair,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::BillingMode;

    /// A workload is bounded before it is billed: a phase of 10³⁰⁰ s or a
    /// negative one never becomes a bill of zero.
    #[test]
    fn a_workload_past_what_one_can_be_is_refused() {
        let json = |seconds: &str| {
            serde_json::from_str::<Workload>(&format!(
                "{{\"sessions\":[{{\"segments\":[{{\"phase\":\"compute\",\"seconds\":{seconds}}}]}}],\"gpus\":1}}"
            ))
            .unwrap()
            .checked()
        };
        assert!(json("6138").is_ok());
        assert!(
            json("1e300")
                .unwrap_err()
                .reason
                .contains("past what a workload can be")
        );
        assert!(
            json("-5")
                .unwrap_err()
                .reason
                .contains("not a length of time")
        );
        assert!(Workload::parse_spec("compute=1000000000000h").is_err());
        let e = Workload::parse_spec("compute=1h,sessions=1000000,io-wait=100000h").unwrap_err();
        assert!(e.reason.contains("10¹¹ s"), "{e}");
    }

    fn rule(granularity_s: u32, bills_io_wait: bool, bills_idle: bool) -> BillingRule {
        BillingRule {
            granularity_s,
            bills_io_wait,
            bills_idle,
            ..BillingRule::per_second(1, BillingMode::OnDemand)
        }
    }

    /// An amount as it prints: to the cent, exactly.
    fn cents(v: Decimal) -> String {
        v.to_string()
    }

    #[test]
    fn amounts_print_exactly_in_json() {
        let b = bill(&Workload::reference(), &rule(3600, true, true), 12.8).unwrap();
        let json = serde_json::to_string(&b).unwrap_or_default();
        assert!(json.contains("\"amount\":\"38.40\","), "{json}");
        assert!(!json.contains("0000000"), "{json}");
    }

    #[test]
    fn the_seed_worked_bill() {
        let job = Workload::reference();
        assert_eq!(job.wall_seconds(), 2.0 * 3600.0 + 17.0 * 60.0);
        let hourly = bill(&job, &rule(3600, true, true), 12.8).unwrap();
        assert_eq!(
            (hourly.billed_seconds, cents(hourly.amount)),
            (3.0 * 3600.0, "38.40".to_string())
        );
        let per_second_compute = bill(&job, &rule(1, false, false), 12.8).unwrap();
        assert_eq!(
            (
                per_second_compute.billed_seconds,
                cents(per_second_compute.amount)
            ),
            (6138.0, "21.82".to_string())
        );
        assert!((hourly.overcharge_pct().unwrap() - 75.95).abs() < 0.01);
        assert_eq!(per_second_compute.overcharge_pct(), Some(0.0));
    }

    #[test]
    fn autoscaling_flap_costs_60_48_a_day() {
        // 12 start/stop cycles an hour, each charged a one-minute minimum at 12.6/h = 0.21.
        let flaps = Workload::parse_spec("compute=20s,sessions=288").unwrap();
        let r = BillingRule {
            minimum_charge_s: 60,
            ..rule(60, true, true)
        };
        let day = bill(&flaps, &r, 12.6).unwrap();
        assert_eq!(cents(day.amount), "60.48");
    }

    #[test]
    fn rounding_minimums_and_idle_prices() {
        let job = Workload::parse_spec("compute=90s").unwrap();
        assert_eq!(
            bill(&job, &rule(60, true, true), 60.0)
                .unwrap()
                .billed_seconds,
            120.0
        );
        let nearest = BillingRule {
            rounding: Rounding::Nearest,
            ..rule(60, true, true)
        };
        assert_eq!(bill(&job, &nearest, 60.0).unwrap().billed_seconds, 120.0);
        let floor = BillingRule {
            rounding: Rounding::Floor,
            ..rule(60, true, true)
        };
        assert_eq!(bill(&job, &floor, 60.0).unwrap().billed_seconds, 60.0);
        let idle = Workload::parse_spec("compute=1h,idle=1h").unwrap();
        let cheap_idle = BillingRule {
            idle_price_per_hour: Some(1.0),
            ..rule(1, true, true)
        };
        assert_eq!(
            cents(bill(&idle, &cheap_idle, 10.0).unwrap().amount),
            "11.00"
        );
        assert_eq!(
            cents(bill(&idle, &rule(1, true, false), 10.0).unwrap().amount),
            "10.00"
        );
    }

    #[test]
    fn specs_and_durations_parse_with_clear_errors() {
        assert_eq!(parse_duration("1h42m18s").unwrap(), 6138.0);
        assert_eq!(parse_duration("6138").unwrap(), 6138.0);
        assert_eq!(parse_duration("1.5h").unwrap(), 5400.0);
        assert!(parse_duration("soon").is_err());
        let w = Workload::parse_spec("compute=1h42m18s, io-wait=35m, gpus=8").unwrap();
        assert_eq!((w.compute_seconds(), w.gpus), (6138.0, 8));
        assert_eq!(Workload::parse_spec("nap=1h").unwrap_err().field, "phase");
        assert!(Workload::parse_spec("").is_err());
    }
}
