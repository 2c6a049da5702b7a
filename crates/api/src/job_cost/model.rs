//! One platform's model of the job: the draws of its terms from the
//! platform's evidence (or stated defaults), and the run each draw makes —
//! stretch by stretch between checkpoints, the failed tries of each
//! geometric.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::Distribution;

use super::{Band, JobSpec, Term, TermKey};
use crate::metrics::{Evidence, PlatformEvidence};

/// A draw longer than this many times its compute time does not finish:
/// its length is held there, and the share of such draws is said. A job
/// that restarts faster than it can reach its next checkpoint never ends,
/// and a band of 10^11 hours says nothing a buyer can use.
pub const NEVER_FINISHES: f64 = 100.0;

/// MB/s data reaches a platform at where it was not measured: a shared
/// 1 Gbit/s link at worst, a fast object-store copy at best.
const UPLOAD_DEFAULT_MB_S: (f64, f64) = (30.0, 300.0);

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
        upload: fixed(UPLOAD_DEFAULT_MB_S.1),
        nodes: job.gpus.div_ceil(8),
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut hours: Vec<f64> = (0..draws.max(1))
        .map(|_| model.draw(&mut rng).wall_s / 3600.0)
        .collect();
    Band::of(&mut hours)
}

/// One draw of the job's run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Draw {
    pub(super) wall_s: f64,
    pub(super) compute_s: f64,
    pub(super) lost_s: f64,
    pub(super) start_s: f64,
    /// Bringing the job's data to the platform, before its start.
    pub(super) upload_s: f64,
    pub(super) interruptions: u64,
    pub(super) share: f64,
    /// Interrupted faster than it reaches its checkpoints: its losses held
    /// at [`NEVER_FINISHES`] × its compute time. Only losses to
    /// interruptions hold a draw; a job long for its data is long.
    pub(super) unfinished: bool,
}

/// Where a term's draws come from.
#[derive(Debug, Clone)]
pub(super) enum Source {
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
pub(super) struct Model {
    job: JobSpec,
    share: Source,
    rate: Source,
    restart: Source,
    start_p50: Source,
    start_p95: Source,
    /// MB/s the job's data reaches the platform at.
    upload: Source,
    /// Nodes of eight GPUs the job spans: its pace is the slowest's.
    nodes: u32,
}

impl Model {
    pub(super) fn of(e: &PlatformEvidence, job: &JobSpec) -> Model {
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
            upload: Source::of(
                e,
                "switch.upload_mb_s",
                Source::Default {
                    low: UPLOAD_DEFAULT_MB_S.0,
                    high: UPLOAD_DEFAULT_MB_S.1,
                    why: "accept storage --upload measures it",
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

    pub(super) fn draw(&self, rng: &mut StdRng) -> Draw {
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
        // Drawn whether or not the job brings data, so a job with and
        // without it meet the same draws of everything else.
        let upload_mb_s = self.upload.draw(rng).max(0.1);
        let upload_s = self
            .job
            .data_bytes
            .map_or(0.0, |bytes| bytes / 1e6 / upload_mb_s);
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
        let unfinished = lost_s > limit;
        if unfinished {
            interruptions = (interruptions as f64 * limit / lost_s).round() as u64;
            lost_s = limit;
        }
        Draw {
            wall_s: upload_s + start_s + compute_s + lost_s,
            compute_s,
            lost_s,
            start_s,
            upload_s,
            interruptions,
            share,
            unfinished,
        }
    }

    /// Each term's median and what it rests on.
    pub(super) fn terms(&self, draws: &[Draw], hours_p50: f64) -> Vec<Term> {
        let median = |f: &dyn Fn(&Draw) -> f64| {
            let mut v: Vec<f64> = draws.iter().map(f).collect();
            Band::of(&mut v).p50
        };
        let mean = |f: &dyn Fn(&Draw) -> f64| draws.iter().map(f).sum::<f64>() / draws.len() as f64;
        let share_of = |hours: f64| (hours_p50 > 0.0).then(|| hours / hours_p50);
        let compute_h = median(&|d| d.compute_s / 3600.0);
        let lost_h = mean(&|d| d.lost_s / 3600.0);
        let start_s = median(&|d| d.start_s);
        let mut terms = vec![
            Term {
                key: TermKey::Share,
                name: TermKey::Share.name_in(false),
                value: 100.0 * median(&|d| d.share),
                unit: "%",
                source: self.share.said(),
                share: None,
            },
            Term {
                key: TermKey::Compute,
                name: TermKey::Compute.name_in(false),
                value: compute_h,
                unit: "h",
                source: format!(
                    "{} GPU-hours of work on {} GPU(s) at the delivered share",
                    self.job.work_gpu_hours, self.job.gpus
                ),
                share: share_of(compute_h),
            },
            Term {
                key: TermKey::Interruptions,
                name: TermKey::Interruptions.name_in(false),
                value: mean(&|d| d.interruptions as f64),
                unit: "count",
                source: self.rate.said(),
                share: None,
            },
            Term {
                key: TermKey::Lost,
                name: TermKey::Lost.name_in(false),
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
                key: TermKey::Start,
                name: TermKey::Start.name_in(false),
                value: start_s,
                unit: "s",
                source: format!(
                    "p50 {}; p95 {}",
                    self.start_p50.said(),
                    self.start_p95.said()
                ),
                share: share_of(start_s / 3600.0),
            },
        ];
        if let Some(bytes) = self.job.data_bytes {
            let upload_h = median(&|d| d.upload_s / 3600.0);
            terms.push(Term {
                key: TermKey::Data,
                name: TermKey::Data.name_in(false),
                value: upload_h,
                unit: "h",
                source: format!(
                    "{} at {}",
                    breakpoint_model::sizes::size_words(bytes),
                    self.upload.said()
                ),
                share: share_of(upload_h),
            });
        }
        terms
    }
}
