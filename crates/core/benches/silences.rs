//! Outage detection against loggers' own rhythms: seeded 4-hour logs of
//! five kinds of logger — steady 1 Hz, a periodic ~4 s pause after every
//! ~32 rows (what a real `nvidia-smi -l 1` loop does), jitter with
//! occasional late rows, irregular steps of 1–8 s, and bursts of rows
//! between sleeps of a minute or so — with true outages of 2–30 minutes
//! planted in some. Each log's silences go through the import's rule
//! (`samples::rhythm`) and, beside it in the same run, through the rule it
//! replaced (every silence longer than three steps); a detection is right
//! when it overlaps a planted outage.
//!
//! Run: `cargo bench -p breakpoint-core --bench silences`
//! Goal: precision and recall ≥ 0.95 for every kind of logger.

use breakpoint_core::samples::rhythm;
use breakpoint_core::samples::steps::StepTally;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const HOUR_MS: i64 = 3_600_000;
const LENGTH_MS: i64 = 4 * HOUR_MS;
const LOGS_PER_KIND: u64 = 200;

#[derive(Clone, Copy, Debug)]
enum Logger {
    Steady,
    PeriodicPause,
    Jitter,
    Irregular,
    Bursts,
}

impl Logger {
    const ALL: [Logger; 5] = [
        Logger::Steady,
        Logger::PeriodicPause,
        Logger::Jitter,
        Logger::Irregular,
        Logger::Bursts,
    ];

    /// The next row's time after `t` (the row count so far is `n`).
    fn next(self, t: i64, n: u64, rng: &mut StdRng) -> i64 {
        match self {
            Logger::Steady => t + 1000,
            Logger::PeriodicPause => {
                if n % 32 == 31 {
                    t + rng.random_range(3_700..4_200)
                } else {
                    t + 1000
                }
            }
            Logger::Jitter => {
                if rng.random_bool(0.01) {
                    t + rng.random_range(2_000..6_000)
                } else {
                    t + rng.random_range(600..1_400)
                }
            }
            Logger::Irregular => t + rng.random_range(1_000..8_000),
            Logger::Bursts => {
                if n % 60 == 59 {
                    t + rng.random_range(45_000..90_000)
                } else {
                    t + 1000
                }
            }
        }
    }
}

/// One log: its row times and the planted outages (start, end).
fn log(kind: Logger, seed: u64) -> (Vec<i64>, Vec<(i64, i64)>) {
    let mut rng = StdRng::seed_from_u64(seed);
    // Up to three outages, apart from each other and from the ends.
    let mut outages: Vec<(i64, i64)> = Vec::new();
    for _ in 0..rng.random_range(0..=3) {
        let start = rng.random_range(HOUR_MS / 4..LENGTH_MS - HOUR_MS / 2);
        let end = start + rng.random_range(2 * 60_000..30 * 60_000);
        if outages
            .iter()
            .all(|(s, e)| end + 60_000 < *s || start > *e + 60_000)
        {
            outages.push((start, end));
        }
    }
    outages.sort_unstable();
    let mut times = Vec::new();
    let (mut t, mut n) = (0i64, 0u64);
    while t < LENGTH_MS {
        if let Some((_, end)) = outages.iter().find(|(s, e)| t >= *s && t < *e) {
            t = *end;
            continue;
        }
        times.push(t);
        t = kind.next(t, n, &mut rng);
        n += 1;
    }
    (times, outages)
}

#[derive(Default)]
struct Tally {
    detected: u64,
    right: u64,
    planted: u64,
    found: u64,
}

impl Tally {
    fn add(&mut self, detected: &[(i64, i64)], planted: &[(i64, i64)]) {
        let overlaps =
            |(from, length): (i64, i64), (s, e): (i64, i64)| from < e && from + length > s;
        self.detected += detected.len() as u64;
        self.right += detected
            .iter()
            .filter(|d| planted.iter().any(|p| overlaps(**d, *p)))
            .count() as u64;
        self.planted += planted.len() as u64;
        self.found += planted
            .iter()
            .filter(|p| detected.iter().any(|d| overlaps(*d, **p)))
            .count() as u64;
    }

    fn precision(&self) -> f64 {
        if self.detected == 0 {
            1.0
        } else {
            self.right as f64 / self.detected as f64
        }
    }

    fn recall(&self) -> f64 {
        if self.planted == 0 {
            1.0
        } else {
            self.found as f64 / self.planted as f64
        }
    }
}

fn main() {
    let started = std::time::Instant::now();
    println!(
        "outages against loggers' rhythms: {LOGS_PER_KIND} seeded 4 h logs per kind, 0–3 outages of 2–30 min planted in each"
    );
    println!(
        "  {:<16} {:>8} {:>10} {:>8}   {:>14} {:>10}",
        "logger", "planted", "precision", "recall", "old precision", "old recall"
    );
    for kind in Logger::ALL {
        let (mut now, mut old) = (Tally::default(), Tally::default());
        for seed in 0..LOGS_PER_KIND {
            let (times, planted) = log(kind, seed * 7 + kind as u64);
            let tally = StepTally::of(&times);
            let Some(step) = tally.median_step() else {
                continue;
            };
            // As the import does where the tally did not keep them all:
            // from the times themselves.
            let silences = tally.steps_longer_than(3 * step).unwrap_or_else(|| {
                times
                    .windows(2)
                    .map(|w| (w[0], w[1] - w[0]))
                    .filter(|(_, d)| *d > 3 * step)
                    .collect()
            });
            let found = rhythm::outages(step, &silences);
            now.add(&found, &planted);
            old.add(&silences, &planted);
        }
        println!(
            "  {:<16} {:>8} {:>10.3} {:>8.3}   {:>14.3} {:>10.3}",
            format!("{kind:?}"),
            now.planted,
            now.precision(),
            now.recall(),
            old.precision(),
            old.recall()
        );
    }
    println!(
        "  goal: precision and recall ≥ 0.95 for every logger ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
}
