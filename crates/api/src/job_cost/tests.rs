//! The job-cost model: its spec, its answer, and its draws against a
//! simulated truth.

#![allow(clippy::unwrap_used)]

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

fn priced(name: &str, p50: i64, p90: i64, guessed: bool) -> PlatformCost {
    PlatformCost {
        platform: name.into(),
        card: Some("NVIDIA H200".into()),
        pace: None,
        cost: Some(MoneyBand {
            p10: Decimal::from(p50 - 10),
            p50: Decimal::from(p50),
            p90: Decimal::from(p90),
            currency: "CNY".into(),
        }),
        mode: None,
        hours: Band {
            p10: 1.0,
            p50: 1.0,
            p90: 1.0,
        },
        days: Band {
            p10: 1.0,
            p50: 1.0,
            p90: 1.0,
        },
        deadline_probability: None,
        unfinished: 0.0,
        terms: vec![Term {
            key: TermKey::Compute,
            name: "compute",
            value: 1.0,
            unit: "h",
            source: if guessed {
                "not measured: …".into()
            } else {
                "measured".into()
            },
            share: None,
            band: Band {
                p10: 1.0,
                p50: 1.0,
                p90: 1.0,
            },
        }],
        missing: None,
        unpriced: Vec::new(),
        not_comparable: None,
        rate: None,
        priced_at: None,
    }
}

fn job() -> JobSpec {
    JobSpec::parse("gpus=8,work=100h").unwrap()
}

/// The job costed as `platforms` say.
fn costed(platforms: &[PlatformCost]) -> JobCost {
    let job = job();
    JobCost {
        reading: job.work.reading(job.precision),
        reading_zh: job.work.reading_in(job.precision, true),
        job,
        incomparable: None,
        draws: 1,
        seed: 1,
        platforms: platforms.to_vec(),
        answer: String::new(),
        answer_zh: String::new(),
    }
}

#[test]
fn the_answer_names_the_median_and_the_bad_case() {
    let a = answer(&costed(&[
        priced("A", 100, 200, false),
        priced("B", 110, 130, true),
    ]));
    assert!(a.starts_with("A finishes the job cheapest at the median (100 CNY); in the bad case (p90) B does (130 CNY against 200 CNY)"), "{a}");
    let a = answer(&costed(&[
        priced("A", 100, 120, true),
        priced("B", 110, 130, false),
    ]));
    assert!(
        a.contains("and in the bad case (p90); compute for A rests on defaults"),
        "{a}"
    );
    assert!(answer(&costed(&[priced("A", 1, 2, false)])).starts_with("No answer yet"));
}

#[test]
fn the_answer_speaks_chinese_to_a_chinese_reader() {
    let a = answer_in(
        &costed(&[priced("A", 100, 200, false), priced("B", 110, 130, true)]),
        true,
    );
    assert_eq!(
        a,
        "按中位数，A 完成该作业最便宜（100 CNY）；最坏情况（p90）下则是 B（130 CNY，对比 200 CNY）；工作量：各平台自身 GPU 按数据手册速率的 100 GPU 小时。"
    );
    let a = answer_in(
        &costed(&[priced("A", 100, 120, true), priced("B", 110, 130, false)]),
        true,
    );
    assert!(
        a.contains("最坏情况（p90）下亦然；A 的计算基于默认值而非实测"),
        "{a}"
    );
    assert!(answer_in(&costed(&[]), true).starts_with("尚无结论"));
    assert_eq!(mode_words(BillingMode::Monthly, true), "包月");
}

/// A job interrupted far faster than it reaches a checkpoint never
/// ends: its draws are held at the limit, not 10^11 hours.
#[test]
fn a_job_that_cannot_finish_is_held_at_the_limit() {
    let job = JobSpec::parse("gpus=8,work=800h,checkpoint=2h").unwrap();
    let figures = Figures {
        share_pct: 100.0,
        interruptions_per_100h: 500.0,
        restart_s: 600.0,
        start_s: 60.0,
    };
    let band = hours_on(&job, figures, 200, 3);
    let compute_h = 100.0;
    assert!(band.p90 <= NEVER_FINISHES * compute_h + 1.0, "{band:?}");
    assert!(band.p50 >= (NEVER_FINISHES - 1.0) * compute_h, "{band:?}");
}

#[test]
fn a_job_is_read_as_users_write_it() {
    let job = JobSpec::parse("gpus=8,work=2000h,checkpoint=30m,deadline=14d").unwrap();
    assert_eq!(
        (job.gpus, &job.work),
        (8, &Work::OwnCard { gpu_hours: 2000.0 })
    );
    assert_eq!(job.deadline_s, Some(14.0 * 86_400.0));
    assert!(
        JobSpec::parse("work=10h")
            .unwrap_err()
            .to_string()
            .contains("gpus")
    );
    assert!(JobSpec::parse("gpus=8,work=10h,disk=3").is_err());
    assert!(JobSpec::parse("gpus=0,work=10h").is_err());
    let job = JobSpec::parse("gpus=4,work=10h,data=500GB,storage=2TB").unwrap();
    assert_eq!(
        (job.data_bytes, job.storage_bytes),
        (Some(500e9), Some(2e12))
    );
    let job = JobSpec::parse("gpus=4,requests=2.5k,per-gpu=0.5/s").unwrap();
    let Work::OwnCard { gpu_hours } = job.work else {
        panic!("{:?}", job.work)
    };
    assert!((gpu_hours - 5000.0 / 3600.0).abs() < 1e-9);
    let job = JobSpec::parse("gpus=4,horizon=18mo,utilisation=50%").unwrap();
    let horizon = job.horizon.unwrap();
    assert_eq!(
        (horizon.seconds, horizon.utilisation),
        (18.0 * 30.0 * 86_400.0, 0.5)
    );
    assert_eq!(
        job.work,
        Work::OwnCard {
            gpu_hours: 4.0 * 18.0 * 30.0 * 24.0 * 0.5
        }
    );
    for (bad, field) in [
        ("gpus=4,requests=10M", "job.per-gpu"),
        ("gpus=4,per-gpu=3", "job.requests"),
        ("gpus=4,utilisation=50%", "job.horizon"),
        ("gpus=4,horizon=3 fortnights", "job.horizon"),
        ("gpus=4,horizon=1y,utilisation=120%", "job.utilisation"),
        ("gpus=4,work=1h,storage=lots", "job.storage"),
        ("gpus=4,work=1h,requests=5,per-gpu=1", "job.work"),
    ] {
        let e = JobSpec::parse(bad).unwrap_err();
        assert_eq!(e.field, field, "{bad}: {e}");
    }
}

/// The model against a simulator of the same job written apart: a run
/// of `gpus` GPUs, interrupted at `rate` per 100 GPU-hours, losing the
/// work since its last checkpoint and a fixed restart each time. The
/// model's median lands within 5 % of the simulated mean, and its band
/// holds the truth's middle.
#[test]
fn the_model_lands_on_a_simulated_truth() {
    let job = JobSpec::parse("gpus=16,work=4000h,checkpoint=1h,restart=10m").unwrap();
    let (share, rate) = (0.8, 1.5);
    let band = hours_on(
        &job,
        Figures {
            share_pct: 80.0,
            interruptions_per_100h: rate,
            restart_s: 600.0,
            start_s: 300.0,
        },
        5_000,
        7,
    );
    // The truth: step the job forward, failing by exponential arrivals.
    let mut truth_rng = StdRng::seed_from_u64(99);
    let compute_h = 4000.0 / (16.0 * share);
    let job_rate = rate / 100.0 * 16.0;
    let mut total = 0.0;
    let runs = 5_000;
    for _ in 0..runs {
        let (mut done, mut wall) = (0.0f64, 300.0 / 3600.0);
        while done < compute_h {
            let until_fault = -(1.0 - truth_rng.random::<f64>()).ln() / job_rate;
            if done + until_fault >= compute_h {
                wall += compute_h - done;
                break;
            }
            // Work since the last checkpoint (on the hour of work) is lost.
            let reached = done + until_fault;
            let kept = (reached).floor().max(done.floor());
            wall += until_fault + 600.0 / 3600.0 + 300.0 / 3600.0;
            done = kept.max(done);
        }
        total += wall;
    }
    let truth = total / f64::from(runs);
    assert!(
        (band.p50 - truth).abs() / truth < 0.05,
        "model p50 {} vs truth {truth}",
        band.p50
    );
    assert!(
        band.p10 <= truth && truth <= band.p90,
        "{band:?} vs {truth}"
    );
    assert!(band.p10 <= band.p50 && band.p50 <= band.p90);
}
