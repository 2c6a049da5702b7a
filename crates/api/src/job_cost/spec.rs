//! A job as users describe it: "gpus=8,work=2000h,checkpoint=30m,…", a
//! serving job by its requests, and a steady workload over a horizon.

use serde::Serialize;

use super::work::{self, Precision, Work, large_count, peak_of};
use crate::billing_sim;
use crate::error::ValidationError;
use breakpoint_model::sizes;

/// What a job can be: past these it is a typing error, and its cost would
/// pass what money can hold. Each is said in the refusal.
pub mod bounds {
    /// 10⁹ GPU-hours: 100 000 GPUs for over a year (the largest training
    /// runs published are a few 10⁷).
    pub const WORK_GPU_HOURS: f64 = 1e9;
    /// Requests a serving job serves: 10¹⁵.
    pub const REQUESTS: f64 = 1e15;
    /// Requests a second one GPU serves: 10⁻³ to 10⁷.
    pub const PER_GPU: (f64, f64) = (1e-3, 1e7);
    /// Bytes of data or storage: an exabyte.
    pub const BYTES: f64 = 1e18;
    /// A deadline or a horizon: 30 years.
    pub const CALENDAR_S: f64 = 30.0 * 365.0 * 86_400.0;
    /// Between checkpoints, or to restart: a year, at least a second.
    pub const CHECKPOINT_S: (f64, f64) = (1.0, 365.0 * 86_400.0);
}

/// The keys a job is written with, for messages.
const KEYS: &str = "gpus, work, params, tokens, precision, requests, per-gpu, checkpoint, restart, \
     data, storage, deadline, hours-per-day, horizon, utilisation";

/// A job as a user describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSpec {
    pub gpus: u32,
    /// The work, in a unit that means the same on every card (or, said so,
    /// on each platform's own).
    pub work: Work,
    /// The matrix precision it runs at: the datasheet figure that paces it.
    pub precision: Precision,
    /// Seconds between checkpoints.
    pub checkpoint_s: f64,
    /// Seconds to restart from a checkpoint, where the platform has not
    /// measured it.
    pub restart_s: f64,
    /// Hours a day the job may run (a job stopped at night takes longer).
    pub hours_per_day: f64,
    /// Calendar seconds it must be done in, where it has a deadline.
    pub deadline_s: Option<f64>,
    /// Bytes of data brought to the platform before the job starts.
    pub data_bytes: Option<f64>,
    /// Bytes kept on the platform's disks while the job runs (dataset,
    /// checkpoints).
    pub storage_bytes: Option<f64>,
    /// A steady workload rather than one job: the GPUs busy a share of a
    /// stretch of calendar time.
    pub horizon: Option<Horizon>,
}

/// A steady workload: `utilisation` of the job's GPUs over `seconds` of
/// calendar time, its work following from both.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Horizon {
    pub seconds: f64,
    /// 0–1.
    pub utilisation: f64,
}

impl JobSpec {
    /// "gpus=8,work=2000h[,checkpoint=30m][,restart=5m][,data=500GB]
    /// [,storage=2TB][,deadline=14d][,hours-per-day=24]"; a serving job as
    /// "requests=50M,per-gpu=120/s" in place of work; a steady workload as
    /// "horizon=3y,utilisation=60%" in place of work.
    pub fn parse(spec: &str) -> std::result::Result<JobSpec, ValidationError> {
        let mut job = JobSpec {
            gpus: 0,
            work: Work::OwnCard { gpu_hours: 0.0 },
            precision: Precision::Bf16,
            checkpoint_s: 1800.0,
            restart_s: 300.0,
            hours_per_day: 24.0,
            deadline_s: None,
            data_bytes: None,
            storage_bytes: None,
            horizon: None,
        };
        let refuse = |key: &str, why: String| ValidationError::new(format!("job.{key}"), why);
        let (mut requests, mut per_gpu, mut horizon_s, mut utilisation) = (None, None, None, None);
        let (mut params, mut tokens, mut flop) = (None, None, None);
        // GPU-hours, and the card they are on where one is named.
        let mut hours: Option<(f64, Option<String>)> = None;
        let mut given: Vec<String> = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                refuse(
                    "spec",
                    format!("\"{part}\" is not key=value (gpus=8,work=2000h,…)"),
                )
            })?;
            let (key, value) = (key.trim(), value.trim());
            // One value a key: "gpus=8,gpus=16" is a typing error, not 16.
            let canonical = if key == "utilization" {
                "utilisation"
            } else {
                key
            };
            if given.iter().any(|g| g == canonical) {
                return Err(refuse(
                    key,
                    format!(
                        "given twice (\"{}\"): give each key once",
                        crate::text::printable_excerpt(spec, 80)
                    ),
                ));
            }
            given.push(canonical.to_string());
            let within = |what: f64, (low, high): (f64, f64), bound: &str| {
                if what.is_finite() && what >= low && what <= high {
                    Ok(what)
                } else {
                    Err(refuse(
                        key,
                        format!("\"{value}\" is past what a job can be ({bound})"),
                    ))
                }
            };
            let duration =
                || billing_sim::parse_duration(value).map_err(|e| refuse(key, e.reason.clone()));
            let size = || {
                sizes::parse_bytes(&format!("job.{key}"), value)
                    .and_then(|b| within(b, (0.0, bounds::BYTES), "at most an exabyte, 1000PB"))
            };
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
                "work" => {
                    let lower = value.to_ascii_lowercase();
                    if let Some(number) = lower.strip_suffix("flop") {
                        let f = large_count(number).ok_or_else(|| {
                            refuse(
                                key,
                                format!(
                                    "\"{value}\" is not an amount of compute (e.g. 3.2e21FLOP)"
                                ),
                            )
                        })?;
                        flop = Some(within(
                            f,
                            (1.0, work::MAX_FLOP),
                            "at most 3.6 × 10²⁸ FLOP: 10⁹ GPU-hours at 10 PFLOP/s",
                        )?);
                    } else {
                        let (time, card) = match value.split_once('@') {
                            Some((time, card)) => (time.trim(), Some(card.trim().to_string())),
                            None => (value, None),
                        };
                        let seconds = billing_sim::parse_duration(time)
                            .map_err(|e| refuse(key, e.reason.clone()))?;
                        let gpu_hours = within(
                            seconds / 3600.0,
                            (0.0, bounds::WORK_GPU_HOURS),
                            "at most 10⁹ GPU-hours: 100 000 GPUs for over a year",
                        )?;
                        if card.as_deref().is_some_and(str::is_empty) {
                            return Err(refuse(
                                key,
                                format!("\"{value}\" names no card after @ (e.g. 2000h@A100-80GB)"),
                            ));
                        }
                        hours = Some((gpu_hours, card));
                    }
                }
                "params" | "tokens" => {
                    let n = large_count(value).ok_or_else(|| {
                        refuse(key, format!("\"{value}\" is not a count (e.g. 7B, 1T)"))
                    })?;
                    let n = within(n, (1.0, 1e16), "at most 10¹⁶")?;
                    if key == "params" {
                        params = Some(n);
                    } else {
                        tokens = Some(n);
                    }
                }
                "precision" => {
                    job.precision = Precision::parse(value).ok_or_else(|| {
                        refuse(
                            key,
                            format!("\"{value}\" is not one of bf16, fp16, fp8, tf32, fp32"),
                        )
                    })?;
                }
                "requests" => {
                    let n = count(value).ok_or_else(|| {
                        refuse(
                            key,
                            format!("\"{value}\" is not a count (e.g. 50M, 2000000)"),
                        )
                    })?;
                    requests = Some(within(n, (1.0, bounds::REQUESTS), "at most 10¹⁵ requests")?)
                }
                "per-gpu" => {
                    per_gpu = Some(
                        value
                            .trim_end_matches("/s")
                            .trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|r| r.is_finite() && *r > 0.0)
                            .ok_or_else(|| {
                                refuse(
                                    key,
                                    format!("\"{value}\" is not requests a second (e.g. 120/s)"),
                                )
                            })
                            .and_then(|r| {
                                within(r, bounds::PER_GPU, "between 0.001/s and 10⁷/s a GPU")
                            })?,
                    )
                }
                "checkpoint" => {
                    job.checkpoint_s =
                        within(duration()?, bounds::CHECKPOINT_S, "between 1 s and a year")?
                }
                "restart" => {
                    job.restart_s =
                        within(duration()?, (0.0, bounds::CHECKPOINT_S.1), "at most a year")?
                }
                "deadline" => {
                    job.deadline_s = Some(within(
                        duration()?,
                        (1.0, bounds::CALENDAR_S),
                        "at most 30 years",
                    )?)
                }
                "data" => job.data_bytes = Some(size()?),
                "storage" => job.storage_bytes = Some(size()?),
                "horizon" => {
                    let h = horizon(value).ok_or_else(|| {
                        refuse(
                            key,
                            format!("\"{value}\" is not a stretch of time (e.g. 3y, 18mo, 90d)"),
                        )
                    })?;
                    horizon_s = Some(within(h, (1.0, bounds::CALENDAR_S), "at most 30 years")?)
                }
                "utilisation" | "utilization" => {
                    utilisation = Some(
                        value
                            .trim_end_matches('%')
                            .trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|u| *u > 0.0 && *u <= 100.0)
                            .ok_or_else(|| refuse(key, format!("\"{value}\" is not 1–100 %")))?
                            / 100.0,
                    )
                }
                "hours-per-day" => {
                    job.hours_per_day = value
                        .trim_end_matches('h')
                        .parse()
                        .ok()
                        .filter(|h: &f64| *h > 0.0 && *h <= 24.0)
                        .ok_or_else(|| refuse(key, format!("\"{value}\" is not 1–24 hours")))?;
                }
                other => return Err(refuse(other, format!("not a job key ({KEYS})"))),
            }
        }
        if job.gpus == 0 {
            return Err(refuse("gpus", "missing: gpus=8".into()));
        }
        let compute_given = flop.is_some() || params.is_some() || tokens.is_some();
        let ways = [
            hours.is_some(),
            compute_given,
            requests.is_some(),
            horizon_s.is_some(),
        ];
        if ways.iter().filter(|w| **w).count() > 1 {
            return Err(refuse(
                "work",
                "give the work one way: work=2000h[@CARD], or work=…FLOP, or params=…,tokens=…, or requests=…,per-gpu=…, or horizon=…,utilisation=…".into(),
            ));
        }
        let work_bound = |hours: f64, how: &str| {
            if hours <= bounds::WORK_GPU_HOURS {
                Ok(hours)
            } else {
                Err(refuse(
                    "work",
                    format!(
                        "{how} is {hours:.3e} GPU-hours, past what a job can be (at most 10⁹ GPU-hours)"
                    ),
                ))
            }
        };
        let mut own_card_hours = 0.0;
        match (hours, flop, params, tokens) {
            (Some((gpu_hours, None)), ..) => own_card_hours = gpu_hours,
            (Some((gpu_hours, Some(card))), ..) => {
                let named = crate::accelerator::normalise(&card);
                let peak = peak_of(&named, job.precision).map_err(|why| {
                    refuse(
                        "work",
                        format!("{why}; the work's card must be one the datasheet table knows"),
                    )
                })?;
                job.work = Work::OnCard {
                    gpu_hours,
                    card: named.canonical.clone(),
                    tflops: peak.value,
                    cited: format!("{}, {}", peak.source, peak.date),
                };
            }
            (None, Some(f), None, None) => {
                job.work = Work::Compute {
                    flop: f,
                    params: None,
                    tokens: None,
                }
            }
            (None, None, Some(n), Some(d)) => {
                let f = 6.0 * n * d;
                if f > work::MAX_FLOP {
                    return Err(refuse(
                        "work",
                        format!("6 × params × tokens is {f:.3e} FLOP, past what a job can be"),
                    ));
                }
                job.work = Work::Compute {
                    flop: f,
                    params: Some(n),
                    tokens: Some(d),
                };
            }
            (None, Some(_), _, _) => {
                return Err(refuse(
                    "work",
                    "give the compute one way: work=…FLOP, or params=…,tokens=…".into(),
                ));
            }
            (None, None, Some(_), None) => {
                return Err(refuse("tokens", "missing: the tokens trained on, tokens=1T (the compute is 6 × params × tokens)".into()));
            }
            (None, None, None, Some(_)) => {
                return Err(refuse("params", "missing: the model's parameters, params=7B (the compute is 6 × params × tokens)".into()));
            }
            (None, None, None, None) => {}
        }
        match (requests, per_gpu) {
            (Some(n), Some(rate)) => {
                own_card_hours = work_bound(n / rate / 3600.0, "requests ÷ per-gpu")?
            }
            (Some(_), None) => {
                return Err(refuse(
                    "per-gpu",
                    "missing: the requests a second one GPU serves, per-gpu=120/s".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(refuse("requests", "missing: requests=50M".into()));
            }
            (None, None) => {}
        }
        match (horizon_s, utilisation) {
            (Some(seconds), utilisation) => {
                let utilisation = utilisation.unwrap_or(1.0);
                job.horizon = Some(Horizon {
                    seconds,
                    utilisation,
                });
                own_card_hours = work_bound(
                    f64::from(job.gpus) * seconds / 3600.0 * utilisation,
                    "gpus × horizon × utilisation",
                )?;
            }
            (None, Some(_)) => {
                return Err(refuse(
                    "horizon",
                    "missing: utilisation is of a horizon, horizon=3y".into(),
                ));
            }
            (None, None) => {}
        }
        if matches!(job.work, Work::OwnCard { .. }) {
            if own_card_hours <= 0.0 {
                return Err(refuse(
                    "work",
                    "missing: the work, work=2000h@A100-80GB (GPU-hours on a named card), work=3.2e21FLOP, params=7B,tokens=1T (or requests=…,per-gpu=…, or horizon=…)"
                        .into(),
                ));
            }
            job.work = Work::OwnCard {
                gpu_hours: own_card_hours,
            };
        }
        if job.checkpoint_s <= 0.0 {
            return Err(refuse("checkpoint", "must be above 0".into()));
        }
        Ok(job)
    }
}

/// "50M", "2.5k", "2000000": a count.
fn count(text: &str) -> Option<f64> {
    let t = text.trim();
    let (number, factor) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'B' | 'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n * factor)
        .filter(|n| n.is_finite() && *n > 0.0)
}

/// "3y", "18mo", "90d", "2000h": calendar seconds (a year of 365 days).
fn horizon(text: &str) -> Option<f64> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().ok().filter(|n: &f64| *n > 0.0)?;
    let day = 86_400.0;
    match unit.trim() {
        "y" | "yr" | "year" | "years" => Some(n * 365.0 * day),
        "mo" | "month" | "months" => Some(n * 30.0 * day),
        "w" | "week" | "weeks" => Some(n * 7.0 * day),
        _ => billing_sim::parse_duration(t).ok().filter(|s| *s > 0.0),
    }
}
