//! The provisional answer and its plan against simulated workspaces of
//! known truth.
//!
//! Each workspace has 3–6 platforms, sixteen metrics in four breakpoints
//! gathered by eight measurements of two metrics each (each with its hours;
//! each platform with its hourly price), a weight profile, and some of the
//! measurements already made on some platforms (a third, on average). The
//! truth is every platform's score on every metric, in two regimes: drawn
//! from the model's own prior (each score uniform over 0–100, on its own),
//! and drawn as real platforms are — a platform's quality shared by its
//! metrics, each metric that quality plus noise. The true best is the best
//! overall at the profile's weights with every score known.
//!
//! 1. Calibration: the leaning's P(best), binned, beside the share of
//!    those leanings that are the true best (goal: of leaders given
//!    60–80 %, 60–80 % truly best).
//! 2. The plan against the weight order: from the same start, measure one
//!    step at a time — the plan's first (its chance of changing the lead
//!    per unit of cost), the same with every measurement at one price, or
//!    the heaviest metric left — until everything is measured; count the
//!    measurements and their cost until the leaning is the true best for
//!    good (goal: the plan below the weight order). Beside it, where the
//!    plan says "enough" (no step with more than a 5 % chance of changing
//!    the lead): how many measurements and how much of the cost that took,
//!    and how often the leaning there is the true best.
//!
//! Run: `cargo bench -p breakpoint-core --bench plan`
//! (`BENCH_WORKSPACES` sets the workspaces per regime; default 200).

use breakpoint_core::scoring::provisional::{Board, Candidate, StepTerms, outlook, precedence};
use breakpoint_core::scoring::robustness::{CONCENTRATION, SEED};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

const BREAKPOINTS: usize = 4;
const PER_BREAKPOINT: usize = 4;
const SLOTS: usize = BREAKPOINTS * PER_BREAKPOINT;
/// Measurements, each gathering two metrics of one breakpoint.
const MEASUREMENTS: usize = SLOTS / 2;
/// As the app and the CLI draw them.
const DRAWS: usize = 2_000;
const ENOUGH: f64 = 0.05;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Regime {
    Prior,
    Correlated,
}

/// A workspace as it truly is, and what is measured of it.
struct World {
    truth: Vec<[f64; SLOTS]>,
    measured: Vec<[bool; MEASUREMENTS]>,
    slot_weight: [f64; SLOTS],
    weights: [f64; 4],
    /// Hours per measurement, price per hour per platform.
    hours: [f64; MEASUREMENTS],
    price: Vec<f64>,
}

impl World {
    fn draw(regime: Regime, rng: &mut StdRng) -> World {
        let n = rng.random_range(3..=6);
        let noise = Normal::new(0.0, 18.0).expect("a spread");
        let truth = (0..n)
            .map(|_| {
                let quality: f64 = rng.random_range(25.0..75.0);
                let mut scores = [0.0; SLOTS];
                for s in &mut scores {
                    *s = match regime {
                        Regime::Prior => rng.random_range(0.0..100.0),
                        Regime::Correlated => (quality + noise.sample(rng)).clamp(0.0, 100.0),
                    };
                }
                scores
            })
            .collect();
        let measured = (0..n)
            .map(|_| {
                let mut m = [false; MEASUREMENTS];
                for x in &mut m {
                    *x = rng.random_bool(1.0 / 3.0);
                }
                m
            })
            .collect();
        let mut slot_weight = [0.0; SLOTS];
        for w in &mut slot_weight {
            *w = rng.random_range(0.5..2.0);
        }
        let presets = [
            [0.25, 0.25, 0.25, 0.25],
            [0.4, 0.3, 0.1, 0.2],
            [0.1, 0.5, 0.1, 0.3],
            [0.2, 0.2, 0.2, 0.4],
        ];
        let weights = presets[rng.random_range(0..presets.len())];
        let choices = [0.1, 0.5, 1.0, 2.5, 5.0, 24.0];
        let mut hours = [0.0; MEASUREMENTS];
        for h in &mut hours {
            *h = choices[rng.random_range(0..choices.len())];
        }
        let price = (0..n).map(|_| rng.random_range(5.0..40.0)).collect();
        World {
            truth,
            measured,
            slot_weight,
            weights,
            hours,
            price,
        }
    }

    fn platforms(&self) -> usize {
        self.truth.len()
    }

    /// The board as the evidence stands.
    fn board(&self) -> Board {
        let n = self.platforms();
        Board {
            platforms: (0..n).map(|p| format!("P{p}")).collect(),
            scores: (0..n)
                .map(|p| {
                    (0..SLOTS)
                        .map(|s| self.measured[p][s / 2].then_some(self.truth[p][s]))
                        .collect()
                })
                .collect(),
            spread: vec![vec![None; SLOTS]; n],
            slots: (0..SLOTS)
                .map(|s| (s / PER_BREAKPOINT, self.slot_weight[s]))
                .collect(),
            weights: self.weights,
        }
    }

    /// The best overall at the profile's weights, every score known.
    fn true_best(&self) -> usize {
        let overall = |p: usize| -> f64 {
            (0..BREAKPOINTS)
                .map(|b| {
                    let slots = b * PER_BREAKPOINT..(b + 1) * PER_BREAKPOINT;
                    let (num, den) = slots.fold((0.0, 0.0), |(n, d), s| {
                        (
                            n + self.slot_weight[s] * self.truth[p][s],
                            d + self.slot_weight[s],
                        )
                    });
                    self.weights[b] * num / den
                })
                .sum()
        };
        (0..self.platforms())
            .max_by(|a, b| overall(*a).total_cmp(&overall(*b)))
            .unwrap_or(0)
    }

    /// The measurements not yet made on every platform: each with the
    /// platforms missing it.
    fn left(&self) -> Vec<(usize, Vec<usize>)> {
        (0..MEASUREMENTS)
            .filter_map(|m| {
                let on: Vec<usize> = (0..self.platforms())
                    .filter(|p| !self.measured[*p][m])
                    .collect();
                (!on.is_empty()).then_some((m, on))
            })
            .collect()
    }

    fn cost(&self, m: usize, on: &[usize]) -> f64 {
        on.iter().map(|p| self.hours[m] * self.price[*p]).sum()
    }

    /// A measurement's share of the overall score.
    fn weight(&self, m: usize) -> f64 {
        let b = (2 * m) / PER_BREAKPOINT;
        let within: f64 = (b * PER_BREAKPOINT..(b + 1) * PER_BREAKPOINT)
            .map(|s| self.slot_weight[s])
            .sum();
        self.weights[b] * (self.slot_weight[2 * m] + self.slot_weight[2 * m + 1]) / within
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    /// The plan's first step, priced as the world prices it.
    Plan,
    /// The same rule with every measurement at one price: the chance of
    /// changing the lead alone.
    PlanEqualCost,
    /// The heaviest metric left.
    WeightOrder,
}

/// One walk from the world's start to everything measured.
struct Walk {
    /// The leaning and its P(best) before each step, and at the end.
    leanings: Vec<(usize, f64)>,
    /// The cost of each step.
    costs: Vec<f64>,
    /// Where the plan first said "enough" (steps taken then).
    enough_at: Option<usize>,
}

fn walk(mut world: World, policy: Policy) -> (Walk, usize) {
    let best = world.true_best();
    let mut leanings = Vec::new();
    let mut costs = Vec::new();
    let mut enough_at = None;
    loop {
        let left = world.left();
        let candidates: Vec<Candidate> = left
            .iter()
            .map(|(m, on)| Candidate {
                fills: on
                    .iter()
                    .flat_map(|p| [(*p, 2 * m), (*p, 2 * m + 1)])
                    .collect(),
            })
            .collect();
        let o = outlook(&world.board(), &candidates, DRAWS, SEED, CONCENTRATION);
        let leaning = o.leaning.unwrap_or(0);
        leanings.push((leaning, o.p_best[leaning]));
        if enough_at.is_none() && o.p_change.iter().all(|p| *p <= ENOUGH) {
            enough_at = Some(costs.len());
        }
        if left.is_empty() {
            break;
        }
        let chosen = match policy {
            Policy::Plan | Policy::PlanEqualCost => {
                let terms: Vec<StepTerms> = left
                    .iter()
                    .zip(&o.p_change)
                    .map(|((m, on), p)| StepTerms {
                        configuration: false,
                        p_change: *p,
                        cost: Some(match policy {
                            Policy::PlanEqualCost => 1.0,
                            _ => world.cost(*m, on),
                        }),
                        weight: world.weight(*m),
                    })
                    .collect();
                (0..left.len())
                    .min_by(|a, b| precedence(&terms[*a], &terms[*b]))
                    .unwrap_or(0)
            }
            Policy::WeightOrder => (0..left.len())
                .max_by(|a, b| {
                    world
                        .weight(left[*a].0)
                        .total_cmp(&world.weight(left[*b].0))
                })
                .unwrap_or(0),
        };
        let (m, on) = &left[chosen];
        costs.push(world.cost(*m, on));
        for p in on {
            world.measured[*p][*m] = true;
        }
    }
    (
        Walk {
            leanings,
            costs,
            enough_at,
        },
        best,
    )
}

/// Steps (and their cost) until the leaning is the true best for good;
/// none where even everything measured leans elsewhere.
fn to_truth(walk: &Walk, best: usize) -> Option<(usize, f64)> {
    let last_wrong = walk.leanings.iter().rposition(|(l, _)| *l != best);
    let steps = match last_wrong {
        None => 0,
        Some(i) if i + 1 < walk.leanings.len() => i + 1,
        Some(_) => return None,
    };
    Some((steps, walk.costs[..steps].iter().sum()))
}

fn main() {
    let workspaces: u64 = std::env::var("BENCH_WORKSPACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    println!(
        "{workspaces} seeded workspaces per regime; {DRAWS} draws each (weights Dirichlet of concentration {CONCENTRATION}, seed {SEED})"
    );
    for regime in [Regime::Prior, Regime::Correlated] {
        let started = std::time::Instant::now();
        // Calibration over every state both walks pass through.
        let bins = [0.0, 0.4, 0.6, 0.8, 1.0001];
        let mut binned = vec![(0usize, 0usize, 0.0f64); bins.len() - 1];
        // Steps and cost until the leaning is the true best for good, per
        // policy; workspaces that lean elsewhere even with all measured.
        let mut reached = [
            (Vec::new(), 0.0f64, 0usize),
            (Vec::new(), 0.0, 0),
            (Vec::new(), 0.0, 0),
        ];
        let (mut enough_steps, mut enough_right, mut enough_seen) = (0usize, 0usize, 0usize);
        let (mut enough_cost, mut all_cost) = (0.0, 0.0);
        let mut start_right = 0usize;
        for i in 0..workspaces {
            let seed = 62_000
                + i
                + if regime == Regime::Prior {
                    0
                } else {
                    1_000_000
                };
            let world = || World::draw(regime, &mut StdRng::seed_from_u64(seed));
            let (plan, best) = walk(world(), Policy::Plan);
            let (equal, _) = walk(world(), Policy::PlanEqualCost);
            let (by_weight, _) = walk(world(), Policy::WeightOrder);
            start_right += usize::from(plan.leanings[0].0 == best);
            for w in [&plan, &by_weight] {
                for (leaning, p) in &w.leanings {
                    if let Some(b) = bins.windows(2).position(|r| *p >= r[0] && *p < r[1]) {
                        binned[b].0 += 1;
                        binned[b].1 += usize::from(*leaning == best);
                        binned[b].2 += p;
                    }
                }
            }
            for (k, w) in [&plan, &equal, &by_weight].into_iter().enumerate() {
                match to_truth(w, best) {
                    Some((steps, cost)) => {
                        reached[k].0.push(steps);
                        reached[k].1 += cost;
                    }
                    None => reached[k].2 += 1,
                }
            }
            if let Some(at) = plan.enough_at {
                enough_seen += 1;
                enough_steps += at;
                enough_right += usize::from(plan.leanings[at].0 == best);
                enough_cost += plan.costs[..at].iter().sum::<f64>();
                all_cost += plan.costs.iter().sum::<f64>();
            }
        }
        let regime_said = match regime {
            Regime::Prior => "truth drawn from the model's prior (each score uniform, on its own)",
            Regime::Correlated => {
                "truth drawn as platforms are (a quality shared by a platform's metrics, ±18 points each)"
            }
        };
        println!("\n{regime_said}");
        println!(
            "  the leaning at the start is the true best in {:.1} % of workspaces",
            100.0 * start_right as f64 / workspaces as f64
        );
        println!("  calibration (every state of both walks):");
        println!("    P(best) given   states   mean given   truly best");
        for (b, (n, right, sum)) in binned.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            println!(
                "    {:>3.0}–{:<3.0} %      {n:>6}   {:>8.1} %   {:>8.1} %{}",
                100.0 * bins[b],
                (100.0 * bins[b + 1]).min(100.0),
                100.0 * sum / *n as f64,
                100.0 * *right as f64 / *n as f64,
                if b == 2 { "   (goal: 60–80 %)" } else { "" }
            );
        }
        let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
        let said: Vec<(f64, f64, usize)> = reached
            .iter()
            .map(|(steps, cost, never)| (mean(steps), cost / steps.len().max(1) as f64, *never))
            .collect();
        println!(
            "  measurements until the leaning is the true best for good (mean; workspaces that lean elsewhere even with all measured):"
        );
        for (name, (steps, cost, never)) in [
            "the plan (chance per unit of cost)",
            "the plan, every measurement one price",
            "the weight order",
        ]
        .iter()
        .zip(&said)
        {
            println!("    {name:<40} {steps:>5.2} steps, {cost:>7.0} in cost   ({never})");
        }
        println!(
            "    the plan against the weight order: {:.2} in cost, {:.2} in steps; at one price {:.2} in steps   (goal: below 1)",
            said[0].1 / said[2].1.max(1e-9),
            said[0].0 / said[2].0.max(1e-9),
            said[1].0 / said[2].0.max(1e-9),
        );
        println!(
            "  where the plan says enough ({enough_seen} of {workspaces}): after {:.2} of {MEASUREMENTS} measurements on average, {:.0} % of the cost of measuring everything; the leaning then the true best in {:.1} %",
            enough_steps as f64 / enough_seen.max(1) as f64,
            100.0 * enough_cost / all_cost.max(1e-9),
            100.0 * enough_right as f64 / enough_seen.max(1) as f64
        );
        println!("  ({:.1} s)", started.elapsed().as_secs_f64());
    }
}
