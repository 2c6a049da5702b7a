//! One platform's model of the job: the draws of its terms from the
//! platform's evidence (or stated defaults), and the run each draw makes —
//! stretch by stretch between checkpoints, the failed tries of each
//! geometric. Each measured term carries the uncertainty of its evidence:
//! the delivered share that of a few nodes measured (the fleet's mean is
//! known to ± its spread over √n, and each node the job lands on varies
//! by the spread), the interruption rate its posterior over the GPU-hours
//! watched (`metrics::interruption_risk`).

// A draw takes six small streams: a generator cheap to seed and to run
// (xoshiro), since thousands are seeded an answer.
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::Distribution;

use super::rates::{Rate, Reclaims};
use super::{Band, JobSpec, Term, TermKey};
use crate::catalogue::keys;
use crate::metrics::interruption_risk::InterruptionRisk;
use crate::metrics::{Evidence, PlatformEvidence};

/// How much one node's delivered share differs from another's of the same
/// card, in points, before the platform's own nodes say: same-model GPUs
/// in one fleet differ by a few per cent (Sinha et al., "Not All GPUs Are
/// Created Equal", 2022), and a straggler is one 10 % below its peers. It
/// counts as two nodes' worth of evidence beside the measured spread.
pub const NODE_SPREAD_POINTS: f64 = 3.0;
const NODE_SPREAD_WEIGHT: f64 = 2.0;

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
/// With `at_least_one`, the stretch is one known to fail (the tries past
/// the first are geometric again: a try does not remember the one before).
fn stretch(per_s: f64, length: f64, at_least_one: bool, rng: &mut SmallRng) -> (u64, f64) {
    // A try runs through with probability e^(−λs); the failures before it
    // are geometric.
    let through = (-per_s * length).exp();
    let fail = 1.0 - through;
    if fail <= 0.0 {
        return (u64::from(at_least_one), 0.0);
    }
    let u: f64 = 1.0 - rng.random::<f64>();
    // ln(1 − e^(−λs)), kept exact where the stretch almost never runs
    // through (there `fail` rounds to 1 and its logarithm to 0).
    let log_fail = (-through).ln_1p();
    let more = if through <= 0.0 || log_fail == 0.0 {
        MAX_TRIES
    } else {
        (u.ln() / log_fail).floor().clamp(0.0, MAX_TRIES)
    };
    let tries = (more + f64::from(u8::from(at_least_one))).min(MAX_TRIES);
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

/// `n` stretches of `length` seconds: how many fail is binomial, so only
/// those are followed (a job of thousands of stretches that meets two
/// faults costs two, not thousands); past [`MAX_STRETCHES`] failing ones a
/// sample of them stands for all. The failed tries, and the time they lost.
fn stretches(per_s: f64, length: f64, n: u64, rng: &mut SmallRng) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let fail = -(-per_s * length).exp_m1();
    if fail <= 0.0 {
        return (0.0, 0.0);
    }
    let failing = rand_distr::Binomial::new(n, fail.min(1.0)).map_or(0, |b| b.sample(rng));
    let followed = failing.min(MAX_STRETCHES as u64);
    let scale = if followed == 0 {
        0.0
    } else {
        failing as f64 / followed as f64
    };
    let (mut tries, mut lost) = (0.0, 0.0);
    for _ in 0..followed {
        let (t, l) = stretch(per_s, length, true, rng);
        tries += t as f64;
        lost += l;
    }
    (tries * scale, lost * scale)
}

/// A platform stated by its figures rather than its evidence: what a job
/// would take there ("what if"), and the seam the model is checked through
/// against a simulator of known truth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Delivered share of the datasheet, %.
    pub share_pct: f64,
    pub interruptions_per_100h: f64,
    pub restart_s: f64,
    pub start_s: f64,
}

/// The job's wall hours on a platform of these figures, as a band over
/// `draws` seeded draws: the figures are the truth, nothing is drawn for
/// them.
pub fn hours_on(job: &JobSpec, figures: Figures, draws: usize, seed: u64) -> Band {
    let fixed = |v: f64| Source::Default {
        low: v,
        high: v,
        why: "stated",
    };
    let model = Model {
        job: job.clone(),
        card_gpu_hours: job.work.gpu_hours_on(None, job.precision).unwrap_or(0.0),
        card_words: String::new(),
        share: Share::Stated(figures.share_pct),
        rate: Rate::Stated(figures.interruptions_per_100h / 100.0),
        restart: fixed(figures.restart_s),
        start_p50: fixed(figures.start_s),
        start_p95: fixed(figures.start_s),
        upload: fixed(UPLOAD_DEFAULT_MB_S.1),
        nodes: job.gpus.div_ceil(8),
        reclaims: None,
    };
    band_of(&model, draws, seed)
}

/// A platform's evidence as a buyer holds it: the delivered share measured
/// on some nodes, what was watched for interruptions, a restart and a
/// start — the seam the model's calibration is checked through.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidenced {
    /// The platform's card: what the job's work is paced on.
    pub card: Option<crate::accelerator::Accelerator>,
    /// Each measured node's delivered share, %; none: not measured.
    pub share_pct: Vec<f64>,
    pub interruptions: InterruptionRisk,
    pub restart_s: f64,
    /// Start-up p50 and p95, s.
    pub start_s: (f64, f64),
}

/// The job's wall hours on a platform of this evidence, as a band; or why
/// its work cannot be paced on the card.
pub fn hours_given(
    job: &JobSpec,
    evidence: &Evidenced,
    draws: usize,
    seed: u64,
) -> Result<Band, String> {
    let fixed = |v: f64| Source::Default {
        low: v,
        high: v,
        why: "stated",
    };
    let model = Model {
        job: job.clone(),
        card_gpu_hours: job
            .work
            .gpu_hours_on(evidence.card.as_ref(), job.precision)?,
        card_words: String::new(),
        share: if evidence.share_pct.is_empty() {
            Share::Default {
                low: SHARE_DEFAULT.0,
                high: SHARE_DEFAULT.1,
            }
        } else {
            Share::of_nodes(
                &evidence
                    .share_pct
                    .iter()
                    .map(|v| (1.0, *v))
                    .collect::<Vec<_>>(),
                evidence.share_pct.len(),
                Vec::new(),
            )
        },
        rate: Rate::posterior(evidence.interruptions),
        restart: fixed(evidence.restart_s),
        start_p50: fixed(evidence.start_s.0),
        start_p95: fixed(evidence.start_s.1),
        upload: fixed(UPLOAD_DEFAULT_MB_S.1),
        nodes: job.gpus.div_ceil(8),
        reclaims: None,
    };
    Ok(band_of(&model, draws, seed))
}

fn band_of(model: &Model, draws: usize, seed: u64) -> Band {
    let mut hours: Vec<f64> = (0..draws.max(1))
        .map(|i| model.draw(&mut Streams::of(seed, i)).wall_s / 3600.0)
        .collect();
    Band::of(&mut hours)
}

/// The delivered share where no `accept perf` measured it, %: large
/// products reach 75–80 % of the dense peak on healthy cards, and a
/// platform not measured may be anywhere from a poor one to a good one.
const SHARE_DEFAULT: (f64, f64) = (55.0, 85.0);

/// Where the delivered share's draws come from.
#[derive(Debug, Clone)]
pub(super) enum Share {
    /// Measured on `n` nodes: the fleet's mean known to ± `sd`/√n, each
    /// node the job lands on drawn about it with `sd`.
    Measured {
        mean: f64,
        sd: f64,
        n: f64,
        runs: Vec<i64>,
    },
    /// Not measured: a stated default, uniform over a band.
    Default { low: f64, high: f64 },
    /// Stated as the truth ("what if").
    Stated(f64),
}

impl Share {
    /// From measured nodes (weight, share %): their weighted mean, and
    /// their spread pooled with the field's ([`NODE_SPREAD_POINTS`], worth
    /// two nodes), so that one node measured is not taken as the fleet.
    fn of_nodes(values: &[(f64, f64)], n: usize, runs: Vec<i64>) -> Share {
        let total: f64 = values
            .iter()
            .map(|(w, _)| w)
            .sum::<f64>()
            .max(f64::MIN_POSITIVE);
        let mean = values.iter().map(|(w, v)| w * v).sum::<f64>() / total;
        let n = n.max(1) as f64;
        let squares: f64 = values
            .iter()
            .map(|(w, v)| w / total * (v - mean).powi(2))
            .sum::<f64>()
            * n;
        let sd = ((NODE_SPREAD_WEIGHT * NODE_SPREAD_POINTS.powi(2) + squares)
            / (NODE_SPREAD_WEIGHT + n - 1.0))
            .sqrt();
        Share::Measured { mean, sd, n, runs }
    }

    fn of(e: &PlatformEvidence) -> Share {
        let Some(ev) = e.metrics.get(SHARE_KEY) else {
            return Share::Default {
                low: SHARE_DEFAULT.0,
                high: SHARE_DEFAULT.1,
            };
        };
        let values = weighted(ev);
        let n = ev.runs.len().max(values.len());
        Share::of_nodes(&values, n, ev.runs.iter().map(|r| r.run_id).collect())
    }

    /// The slowest of `nodes` nodes the job spans, as a fraction.
    fn draw(&self, nodes: u32, rng: &mut SmallRng) -> f64 {
        let pct = match self {
            Share::Stated(v) => *v,
            Share::Default { low, high } => {
                let fleet = rng.random_range(*low..=*high);
                (0..nodes.clamp(1, 64))
                    .map(|_| fleet + NODE_SPREAD_POINTS * normal(rng))
                    .fold(f64::INFINITY, f64::min)
            }
            Share::Measured { mean, sd, n, .. } => {
                let fleet = mean + sd / n.sqrt() * normal(rng);
                (0..nodes.clamp(1, 64))
                    .map(|_| fleet + sd * normal(rng))
                    .fold(f64::INFINITY, f64::min)
            }
        };
        pct.clamp(1.0, 150.0) / 100.0
    }

    fn said(&self) -> String {
        match self {
            Share::Measured { mean, sd, n, runs } => {
                let runs: Vec<String> = runs.iter().map(|r| format!("#{r}")).collect();
                format!(
                    "{SHARE_KEY}: {:.1} % over {} node(s) (run(s) {}), a node ± {:.1} points, the fleet's mean ± {:.1}",
                    mean,
                    n,
                    runs.join(" "),
                    sd,
                    sd / n.sqrt()
                )
            }
            Share::Default { low, high } => format!(
                "not measured: the fleet's share drawn from {low}–{high} % (accept perf measures it)"
            ),
            Share::Stated(v) => format!("stated: {v} %"),
        }
    }
}

const SHARE_KEY: &str = keys::SUSTAIN_GEMM_NOMINAL_PCT;

/// A standard normal draw.
fn normal(rng: &mut SmallRng) -> f64 {
    rand_distr::StandardNormal.sample(rng)
}

/// The random streams of one draw, one per term, seeded from the answer's
/// seed and the draw's number: every platform meets the same streams
/// (common random numbers), and a term that takes more or fewer numbers on
/// one platform (a rejection sampler, a stretch that fails more often)
/// leaves every other term's draws as they are. Two platforms that
/// measured the same differ by nothing, and one that measured worse is
/// worse draw by draw.
pub(super) struct Streams {
    share: SmallRng,
    rate: SmallRng,
    start: SmallRng,
    back: SmallRng,
    upload: SmallRng,
    stretches: SmallRng,
    reclaim: SmallRng,
}

impl Streams {
    pub(super) fn of(seed: u64, draw: usize) -> Streams {
        let stream = |term: u64| {
            SmallRng::seed_from_u64(
                seed ^ (draw as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    ^ term.wrapping_mul(0xD1B5_4A32_D192_ED03),
            )
        };
        Streams {
            share: stream(1),
            rate: stream(2),
            start: stream(3),
            back: stream(4),
            upload: stream(5),
            stretches: stream(6),
            reclaim: stream(7),
        }
    }
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
    /// The interruption rate drawn, per 100 GPU-hours.
    pub(super) rate_per_100h: f64,
    /// Spot reclaims per instance-hour drawn (0 off spot).
    pub(super) reclaims_per_hour: f64,
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

    fn draw(&self, rng: &mut SmallRng) -> f64 {
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
            // A default of one value is no range: said as the value.
            Source::Default { low, high, why } if low == high => {
                format!("not measured: {low} ({why})")
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
    /// The work as GPU-hours on this platform's card at its datasheet rate.
    card_gpu_hours: f64,
    /// How the work was paced here: "NVIDIA H100 80GB SXM, 989.5 TFLOP/s BF16".
    card_words: String,
    share: Share,
    rate: Rate,
    restart: Source,
    start_p50: Source,
    start_p95: Source,
    /// MB/s the job's data reaches the platform at.
    upload: Source,
    /// Nodes of eight GPUs the job spans: its pace is the slowest's.
    nodes: u32,
    /// On spot: the reclaim rate per instance-hour, drawn from the
    /// platform's spot traces, and the instances the job holds.
    reclaims: Option<Reclaims>,
}

impl Model {
    /// The model of `job` on the platform of evidence `e`, whose card is
    /// `card` (and its words); the work is already paced to that card
    /// (`card_gpu_hours`).
    pub(super) fn of(
        e: &PlatformEvidence,
        job: &JobSpec,
        card_gpu_hours: f64,
        card_words: String,
    ) -> Model {
        Model {
            job: job.clone(),
            card_gpu_hours,
            card_words,
            share: Share::of(e),
            rate: Rate::posterior(InterruptionRisk::of(&e.metrics)),
            restart: Source::of(
                e,
                keys::SUSTAIN_RECOVERY_S,
                Source::Default {
                    low: job.restart_s,
                    high: job.restart_s,
                    why: "the job's own restart, s; accept failover measures it",
                },
            ),
            start_p50: Source::of(
                e,
                keys::STARTUP_BASELINE_P50_S,
                Source::Default {
                    low: 60.0,
                    high: 900.0,
                    why: "campaign run measures it",
                },
            ),
            start_p95: Source::of(
                e,
                keys::STARTUP_BASELINE_P95_S,
                Source::Default {
                    low: 300.0,
                    high: 1800.0,
                    why: "campaign run measures it",
                },
            ),
            upload: Source::of(
                e,
                keys::SWITCH_UPLOAD_MB_S,
                Source::Default {
                    low: UPLOAD_DEFAULT_MB_S.0,
                    high: UPLOAD_DEFAULT_MB_S.1,
                    why: "accept storage --upload measures it",
                },
            ),
            nodes: job.gpus.div_ceil(8),
            reclaims: None,
        }
    }

    /// The model on spot instances: reclaims drawn as `reclaims` says.
    pub(super) fn on_spot(mut self, reclaims: Reclaims) -> Model {
        self.reclaims = Some(reclaims);
        self
    }

    /// A start: log-normal through the drawn p50 and p95.
    fn start(&self, rng: &mut SmallRng) -> f64 {
        let p50 = self.start_p50.draw(rng).max(1.0);
        let p95 = self.start_p95.draw(rng).max(p50);
        let sigma = (p95 / p50).ln() / 1.645;
        let z: f64 = rand_distr::StandardNormal.sample(rng);
        p50 * (sigma * z).exp()
    }

    pub(super) fn draw(&self, streams: &mut Streams) -> Draw {
        // The slowest of the nodes the job spans.
        let share = self.share.draw(self.nodes, &mut streams.share);
        let compute_s = self.card_gpu_hours * 3600.0 / (f64::from(self.job.gpus) * share);
        let per_gpu_hour = self.rate.draw(&mut streams.rate);
        // Any GPU stopping stops the job: the job's rate is its GPUs'; on
        // spot, any of its instances reclaimed stops it too.
        let reclaims_per_hour = self
            .reclaims
            .as_ref()
            .map_or(0.0, |r| r.draw(&mut streams.reclaim));
        let instances = self.reclaims.as_ref().map_or(0, |r| r.instances);
        let per_s = (per_gpu_hour * f64::from(self.job.gpus)
            + reclaims_per_hour * f64::from(instances))
            / 3600.0;
        let start_s = self.start(&mut streams.start);
        let upload_mb_s = self.upload.draw(&mut streams.upload).max(0.1);
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
        let back_s = self.restart.draw(&mut streams.back).max(0.0) + self.start(&mut streams.back);
        let rng = &mut streams.stretches;
        let (mut lost_s, mut interruptions) = (0.0f64, 0u64);
        if per_s > 0.0 {
            // Whole stretches of one checkpoint's work, then what is left.
            let whole = (compute_s / checkpoint).ceil().max(1.0) - 1.0;
            let last = compute_s - checkpoint * whole;
            let (tries, lost) = stretches(per_s, checkpoint, whole as u64, rng);
            let (last_tries, last_lost) = stretch(per_s, last, false, rng);
            let tries = tries + last_tries as f64;
            lost_s = lost + last_lost + tries * back_s;
            interruptions = tries.round() as u64;
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
            rate_per_100h: 100.0 * per_gpu_hour,
            reclaims_per_hour,
            unfinished,
        }
    }

    /// Each term's median and what it rests on.
    pub(super) fn terms(&self, draws: &[Draw], hours_p50: f64) -> Vec<Term> {
        let band = |f: &dyn Fn(&Draw) -> f64| {
            let mut v: Vec<f64> = draws.iter().map(f).collect();
            Band::of(&mut v)
        };
        let mean = |f: &dyn Fn(&Draw) -> f64| draws.iter().map(f).sum::<f64>() / draws.len() as f64;
        let share_of = |hours: f64| (hours_p50 > 0.0).then(|| hours / hours_p50);
        let share = band(&|d| 100.0 * d.share);
        let compute = band(&|d| d.compute_s / 3600.0);
        let rate = band(&|d| d.rate_per_100h);
        let interruptions = band(&|d| d.interruptions as f64);
        let lost = band(&|d| d.lost_s / 3600.0);
        let lost_h = mean(&|d| d.lost_s / 3600.0);
        let start = band(&|d| d.start_s);
        let term = |key: TermKey,
                    value: f64,
                    unit: &'static str,
                    source: String,
                    share: Option<f64>,
                    band: Band| Term {
            key,
            name: key.name_in(false),
            value,
            unit,
            source,
            share,
            band,
        };
        let reclaim_term = self.reclaims.as_ref().map(|r| {
            let b = band(&|d| d.reclaims_per_hour);
            term(
                TermKey::Reclaims,
                b.p50,
                "/instance-h",
                format!("{} instance(s) held; {}", r.instances, r.said),
                None,
                b,
            )
        });
        let mut terms = vec![
            term(
                TermKey::Share,
                share.p50,
                "%",
                self.share.said(),
                None,
                share,
            ),
            term(
                TermKey::Compute,
                compute.p50,
                "h",
                if self.card_words.is_empty() {
                    format!(
                        "{:.1} GPU-hours at the datasheet rate on {} GPU(s), at the delivered share",
                        self.card_gpu_hours, self.job.gpus
                    )
                } else {
                    format!(
                        "{:.1} GPU-hours on {} at its datasheet rate, on {} GPU(s) at the delivered share",
                        self.card_gpu_hours, self.card_words, self.job.gpus
                    )
                },
                share_of(compute.p50),
                compute,
            ),
            term(
                TermKey::Rate,
                rate.p50,
                "/100 GPU-h",
                self.rate.said(),
                None,
                rate,
            ),
            term(
                TermKey::Interruptions,
                mean(&|d| d.interruptions as f64),
                "interruptions",
                if self.reclaims.is_some() {
                    "the rate over the job's GPU-hours and its spot instances' reclaims; the figure is the mean over the draws".into()
                } else {
                    "the rate over the job's GPU-hours; the figure is the mean over the draws"
                        .into()
                },
                None,
                interruptions,
            ),
            term(
                TermKey::Lost,
                lost_h,
                "h",
                format!(
                    "checkpoint every {}; restart: {}",
                    crate::text::duration_words(self.job.checkpoint_s),
                    self.restart.said()
                ),
                share_of(lost_h),
                lost,
            ),
            term(
                TermKey::Start,
                start.p50,
                "s",
                format!(
                    "p50 {}; p95 {}",
                    self.start_p50.said(),
                    self.start_p95.said()
                ),
                share_of(start.p50 / 3600.0),
                start,
            ),
        ];
        if let Some(bytes) = self.job.data_bytes {
            let upload = band(&|d| d.upload_s / 3600.0);
            terms.push(term(
                TermKey::Data,
                upload.p50,
                "h",
                format!(
                    "{} at {}",
                    breakpoint_model::sizes::size_words(bytes),
                    self.upload.said()
                ),
                share_of(upload.p50),
                upload,
            ));
        }
        if let Some(t) = reclaim_term {
            // Beside the interruption rate it adds to.
            let at = terms
                .iter()
                .position(|t| t.key == TermKey::Rate)
                .map_or(terms.len(), |i| i + 1);
            terms.insert(at, t);
        }
        terms
    }
}
