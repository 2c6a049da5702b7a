//! The job-cost model against simulated platforms of known truth: for each
//! platform (a delivered share, an interruption rate, a restart), a
//! simulator written apart from the model runs the job many times — the
//! job steps through its work, faults arrive per GPU-hour, each loses the
//! work since the last checkpoint and the restart and start — and gives
//! the true mean and spread of its wall time. The model's median is
//! printed beside the true mean (goal: within 5 %), and its p10–p90 band
//! beside the share of simulated runs inside it (goal: about 80 %).
//!
//! Run: `cargo bench -p breakpoint-core --bench job_cost`

use breakpoint_api::job_cost::{Figures, JobSpec, hours_on};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const RUNS: usize = 4_000;

/// One simulated run's wall hours.
fn simulate(job: &JobSpec, f: Figures, rng: &mut StdRng) -> f64 {
    let compute_h = job.work_gpu_hours / (f64::from(job.gpus) * f.share_pct / 100.0);
    let checkpoint_h = job.checkpoint_s / 3600.0;
    let fault_rate = f.interruptions_per_100h / 100.0 * f64::from(job.gpus);
    let (mut done, mut wall) = (0.0f64, f.start_s / 3600.0);
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
        wall += until_fault + (f.restart_s + f.start_s) / 3600.0;
        done = (reached / checkpoint_h).floor() * checkpoint_h;
    }
}

fn main() {
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
    println!("job-cost model against simulated platforms of known truth ({RUNS} runs each)");
    println!(
        "  {:<34} {:<11} {:>10} {:>10} {:>8} {:>9}",
        "job", "platform", "truth h", "model p50", "error", "in band"
    );
    let mut worst_error: f64 = 0.0;
    for spec in jobs {
        let job = JobSpec::parse(spec).expect("a job");
        for (name, share, rate, restart) in platforms {
            let f = Figures {
                share_pct: share,
                interruptions_per_100h: rate,
                restart_s: restart,
                start_s: 300.0,
            };
            let mut rng = StdRng::seed_from_u64(11);
            let truth: Vec<f64> = (0..RUNS).map(|_| simulate(&job, f, &mut rng)).collect();
            let mean = truth.iter().sum::<f64>() / truth.len() as f64;
            let band = hours_on(&job, f, RUNS, 5);
            let inside = truth
                .iter()
                .filter(|t| band.p10 <= **t && **t <= band.p90)
                .count() as f64
                / truth.len() as f64;
            let error = (band.p50 - mean) / mean;
            worst_error = worst_error.max(error.abs());
            println!(
                "  {spec:<34} {name:<11} {mean:>10.1} {:>10.1} {:>7.2} % {:>8.0} %",
                band.p50,
                100.0 * error,
                100.0 * inside
            );
        }
    }
    println!(
        "  worst |model p50 − truth mean|: {:.2} % (goal ≤ 5 %; bands: p10–p90, about 80 % of runs inside)",
        100.0 * worst_error
    );
}
