//! The job-cost model against simulated platforms of known truth, with a
//! simulator written apart from the model.
//!
//! 1. The mechanics: for platforms stated by their true figures (a
//!    delivered share, an interruption rate, a restart), the simulator
//!    steps the job through its work — faults arrive per GPU-hour, each
//!    loses the work since the last checkpoint, the restart and a start —
//!    and the model's median is printed beside the true mean (goal: within
//!    5 %).
//! 2. Calibration: platforms whose truth is drawn (a fleet's share, its
//!    nodes' spread, an interruption rate from the field's prior) and
//!    whose evidence is of 1, 10, 100 or 1000 GPU-hours (the nodes
//!    measured and the interruptions watched that much) — the model's
//!    p10–p90 band is held against one true run of the job; the share of
//!    trials whose truth falls inside is printed per evidence size (goal:
//!    75–85 % at every size).
//! 3. Picks: pairs of platforms of different cards (A100, H100), shares
//!    and prices, the work on a named card: where their true expected
//!    costs differ by 20 % or more, the share of trials in which the
//!    model's median names the cheaper one (goal: ≥ 95 %).
//!
//! Run: `cargo bench -p breakpoint-api --bench job_cost`
//! (`BENCH_TRIALS` sets the trials per evidence size; default 400).

use breakpoint_api::accelerator::{Accelerator, normalise};
use breakpoint_api::job_cost::{
    Evidenced, FIELD_RATE_PER_GPU_HOUR, Figures, InterruptionRisk, JobSpec, NEVER_FINISHES,
    NODE_SPREAD_POINTS, PRIOR_SHAPE, Work, hours_given, hours_on,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma, Normal, Poisson};

const RUNS: usize = 4_000;
const DRAWS: usize = 2_000;

/// A platform as it truly is.
#[derive(Debug, Clone)]
struct Truth {
    card: Accelerator,
    /// The fleet's mean delivered share, %, and its nodes' spread.
    share: f64,
    spread: f64,
    /// Interruptions per GPU-hour.
    rate: f64,
    restart_s: f64,
    /// Start-up p50 and p95, s.
    start: (f64, f64),
}

/// One true run of the job's wall hours, stepped through fault by fault.
fn simulate(job: &JobSpec, truth: &Truth, rng: &mut StdRng) -> f64 {
    let card_hours = job
        .work
        .gpu_hours_on(Some(&truth.card), job.precision)
        .expect("a card the table knows");
    let nodes = job.gpus.div_ceil(8);
    let node = Normal::new(truth.share, truth.spread).expect("a spread");
    let slowest = (0..nodes)
        .map(|_| node.sample(rng))
        .fold(f64::INFINITY, f64::min)
        .clamp(1.0, 150.0)
        / 100.0;
    let compute_h = card_hours / (f64::from(job.gpus) * slowest);
    let checkpoint_h = job.checkpoint_s / 3600.0;
    let fault_rate = truth.rate * f64::from(job.gpus);
    let sigma = (truth.start.1 / truth.start.0).ln() / 1.645;
    let start = |rng: &mut StdRng| {
        let z: f64 = rand_distr::StandardNormal.sample(rng);
        truth.start.0 * (sigma * z).exp() / 3600.0
    };
    let (mut done, mut wall, mut lost) = (0.0f64, start(rng), 0.0f64);
    loop {
        let until_fault = if fault_rate > 0.0 {
            -(1.0 - rng.random::<f64>()).ln() / fault_rate
        } else {
            f64::INFINITY
        };
        if done + until_fault >= compute_h {
            wall += compute_h - done;
            return wall;
        }
        let reached = done + until_fault;
        let back = truth.restart_s / 3600.0 + start(rng);
        let kept = (reached / checkpoint_h).floor() * checkpoint_h;
        lost += reached - kept.max(done) + back;
        wall += until_fault + back;
        done = kept.max(done);
        // A job that restarts faster than it reaches its checkpoints never
        // ends: held where the model holds it.
        if lost > (NEVER_FINISHES - 1.0) * compute_h {
            return wall - lost + (NEVER_FINISHES - 1.0) * compute_h + (compute_h - done);
        }
    }
}

/// What a buyer with `gpu_hours` of evidence holds about a platform: the
/// nodes measured (one per 125 GPU-hours, one to eight) and the
/// interruptions watched.
fn evidence_of(truth: &Truth, gpu_hours: f64, rng: &mut StdRng) -> Evidenced {
    let nodes = (gpu_hours / 125.0).ceil().clamp(1.0, 8.0) as usize;
    let node = Normal::new(truth.share, truth.spread).expect("a spread");
    let events = Poisson::new(truth.rate * gpu_hours).map_or(0.0, |p: Poisson<f64>| p.sample(rng));
    Evidenced {
        card: Some(truth.card.clone()),
        share_pct: (0..nodes).map(|_| node.sample(rng)).collect(),
        interruptions: InterruptionRisk {
            events,
            gpu_hours,
            unwatched_faults: 0.0,
        },
        restart_s: truth.restart_s,
        start_s: truth.start,
    }
}

/// A platform drawn from the field: its card, a share of 60–92 %, a node
/// spread of the field's, a rate from the field's prior.
fn drawn(card: &Accelerator, rng: &mut StdRng) -> Truth {
    let prior = Gamma::new(PRIOR_SHAPE, FIELD_RATE_PER_GPU_HOUR / PRIOR_SHAPE).expect("a prior");
    Truth {
        card: card.clone(),
        share: rng.random_range(60.0..92.0),
        spread: NODE_SPREAD_POINTS,
        rate: prior.sample(rng),
        restart_s: 600.0,
        start: (300.0, 900.0),
    }
}

fn mechanics() {
    let platforms = [
        ("healthy", 90.0, 0.0, 300.0),
        ("slow", 64.0, 0.2, 300.0),
        ("flaky", 85.0, 2.0, 900.0),
        ("very flaky", 80.0, 6.0, 1200.0),
    ];
    let jobs = [
        "gpus=8,work=2000h,checkpoint=30m",
        "gpus=64,work=20000h,checkpoint=1h",
    ];
    println!(
        "1. mechanics: the model's median against a simulator of the same job ({RUNS} runs each)"
    );
    println!(
        "  {:<34} {:<11} {:>10} {:>10} {:>8}",
        "job", "platform", "truth h", "model p50", "error"
    );
    let mut worst: f64 = 0.0;
    for spec in jobs {
        let job = JobSpec::parse(spec).expect("a job");
        for (name, share, rate, restart) in platforms {
            let f = Figures {
                share_pct: share,
                interruptions_per_100h: rate,
                restart_s: restart,
                start_s: 300.0,
            };
            let truth = Truth {
                card: normalise("H100 SXM"),
                share,
                spread: 0.0,
                rate: rate / 100.0,
                restart_s: restart,
                start: (300.0, 300.0),
            };
            let mut rng = StdRng::seed_from_u64(11);
            let runs: Vec<f64> = (0..RUNS)
                .map(|_| simulate(&job, &truth, &mut rng))
                .collect();
            let mean = runs.iter().sum::<f64>() / runs.len() as f64;
            let band = hours_on(&job, f, RUNS, 5);
            let error = (band.p50 - mean) / mean;
            worst = worst.max(error.abs());
            println!(
                "  {spec:<34} {name:<11} {mean:>10.1} {:>10.1} {:>7.2} %",
                band.p50,
                100.0 * error
            );
        }
    }
    println!(
        "  worst |model p50 − truth mean|: {:.2} % (goal ≤ 5 %)",
        100.0 * worst
    );
}

fn calibration(trials: usize) {
    const SPEC: &str = "gpus=64,work=20000h@A100-80GB,checkpoint=1h";
    let job = JobSpec::parse(SPEC).expect("a job");
    let cards = [normalise("A100-SXM4-80GB"), normalise("H100 SXM")];
    println!(
        "2. calibration: {trials} platforms drawn from the field per evidence size, the model's p10–p90 band held against one true run ({SPEC})"
    );
    println!(
        "  {:>16} {:>10} {:>14}",
        "evidence GPU-h", "in band", "band width"
    );
    let mut all_in = true;
    for gpu_hours in [1.0, 10.0, 100.0, 1000.0] {
        let mut rng = StdRng::seed_from_u64(17 + gpu_hours as u64);
        let (mut inside, mut width) = (0usize, 0.0);
        for trial in 0..trials {
            let truth = drawn(&cards[trial % 2], &mut rng);
            let evidence = evidence_of(&truth, gpu_hours, &mut rng);
            let band = hours_given(&job, &evidence, DRAWS, trial as u64).expect("paced");
            let run = simulate(&job, &truth, &mut rng);
            if band.p10 <= run && run <= band.p90 {
                inside += 1;
            }
            width += (band.p90 - band.p10) / band.p50;
        }
        let share = inside as f64 / trials as f64;
        all_in &= (0.75..=0.85).contains(&share);
        println!(
            "  {gpu_hours:>16} {:>9.1} % {:>13.1} %",
            100.0 * share,
            100.0 * width / trials as f64
        );
    }
    println!(
        "  goal: 75–85 % in band at every evidence size: {}",
        if all_in { "held" } else { "NOT HELD" }
    );
}

fn picks(trials: usize) {
    const SPEC: &str = "gpus=16,work=4000h@A100-80GB,checkpoint=30m";
    let job = JobSpec::parse(SPEC).expect("a job");
    let a100 = normalise("A100-SXM4-80GB");
    let h100 = normalise("H100 SXM");
    let mut rng = StdRng::seed_from_u64(23);
    let (mut decided, mut right) = (0usize, 0usize);
    for trial in 0..trials {
        // Prices an hour per GPU in a market: an H100 two to three times an
        // A100's.
        let side = |card: &Accelerator, rng: &mut StdRng| {
            let price = if card.model == "H100" {
                rng.random_range(18.0..36.0)
            } else {
                rng.random_range(7.0..14.0)
            };
            (drawn(card, rng), price)
        };
        let (a, pa) = side(&a100, &mut rng);
        let (b, pb) = side(&h100, &mut rng);
        let gpu_hours = [1.0, 10.0, 100.0, 1000.0][trial % 4];
        let truth_cost = |t: &Truth, price: f64, rng: &mut StdRng| {
            let runs = 200;
            let mean = (0..runs).map(|_| simulate(&job, t, rng)).sum::<f64>() / f64::from(runs);
            mean * price * f64::from(job.gpus)
        };
        let (ta, tb) = (truth_cost(&a, pa, &mut rng), truth_cost(&b, pb, &mut rng));
        if (ta / tb - 1.0).abs() < 0.2 && (tb / ta - 1.0).abs() < 0.2 {
            continue;
        }
        decided += 1;
        let ea = evidence_of(&a, gpu_hours, &mut rng);
        let eb = evidence_of(&b, gpu_hours, &mut rng);
        let ma = hours_given(&job, &ea, DRAWS, trial as u64)
            .expect("paced")
            .p50
            * pa;
        let mb = hours_given(&job, &eb, DRAWS, trial as u64)
            .expect("paced")
            .p50
            * pb;
        if (ma < mb) == (ta < tb) {
            right += 1;
        }
    }
    let rate = right as f64 / decided.max(1) as f64;
    println!(
        "3. picks: pairs of an A100 and an H100 platform ({SPEC}), evidence of 1–1000 GPU-hours: the cheaper named in {:.1} % of the {decided} trials whose true costs differ by ≥ 20 % (goal ≥ 95 %: {})",
        100.0 * rate,
        if rate >= 0.95 { "held" } else { "NOT HELD" }
    );
    if let Work::OnCard { card, tflops, .. } = &job.work {
        println!("  the work's card: {card} at {tflops} TFLOP/s BF16");
    }
}

fn main() {
    let trials: usize = std::env::var("BENCH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|t| *t > 0)
        .unwrap_or(400);
    println!("job-cost model against simulated platforms of known truth");
    mechanics();
    calibration(trials);
    picks(trials);
}
