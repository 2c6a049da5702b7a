//! The simulator: one demo platform's evidence, written in the formats the
//! real tools write. Seeded, so the demo is the same on every machine.

use std::fmt::Write;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, LogNormal, Normal};

use super::{DemoFile, DemoPlatform};
use crate::billing_sim::{self, Phase, Segment, Session, Workload};
use crate::import::Format;

const GPUS: usize = 8;
/// The four-breakpoint review sampled every 30 s for 48 h.
const STEP_S: i64 = 30;
const HOURS: i64 = 48;
/// 2024-06-01T00:00:00Z.
const START: i64 = 1_717_200_000;
/// The reference job (the four-breakpoint review's SDXL run) inside the sustain log.
const JOB_START: i64 = START + 2 * 3600;
const JOB_LOAD_S: i64 = 1200;
const JOB_COMPUTE_S: i64 = 6138;
const JOB_WALL_S: i64 = 8220;

fn stamp(epoch_s: i64) -> String {
    jiff::Timestamp::from_second(epoch_s)
        .map(|t| t.strftime("%Y/%m/%d %H:%M:%S.000").to_string())
        .unwrap_or_default()
}

fn iso(epoch_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(epoch_ms)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

pub fn generate(p: &DemoPlatform, seed: u64) -> Vec<DemoFile> {
    let mut rng = StdRng::seed_from_u64(seed);
    let (sustain, measured_busy_s) = sustain_csv(p, &mut rng);
    let letter = p.letter.to_ascii_lowercase();
    vec![
        DemoFile {
            name: format!("demo-{letter}-nvidia-smi.csv"),
            format: Format::SmiCsv,
            bytes: sustain.into_bytes(),
        },
        DemoFile {
            name: format!("demo-{letter}-startup.csv"),
            format: Format::StartupTable,
            bytes: startup_csv(p, &mut rng).into_bytes(),
        },
        DemoFile {
            name: format!("demo-{letter}-switch.csv"),
            format: Format::SwitchTable,
            bytes: switch_csv(p, &mut rng).into_bytes(),
        },
        DemoFile {
            name: format!("demo-{letter}-drills.csv"),
            format: Format::DrillTable,
            bytes: drills_csv(p, &mut rng).into_bytes(),
        },
        DemoFile {
            name: format!("demo-{letter}-billing.csv"),
            format: Format::BillingTable,
            bytes: billing_csv(p, measured_busy_s).into_bytes(),
        },
        DemoFile {
            name: format!("demo-{letter}-perf.json"),
            format: Format::PerfLog,
            bytes: perf_json(p, &mut rng).into_bytes(),
        },
    ]
}

/// What the GPUs are doing at second `t` of the log: utilisation 0–100.
fn utilisation(t: i64, noise: i64) -> i64 {
    if (JOB_START..JOB_START + JOB_WALL_S).contains(&t) {
        let into = t - JOB_START;
        // Load data, compute, then save: the reference job's shape.
        return if (JOB_LOAD_S..JOB_LOAD_S + JOB_COMPUTE_S).contains(&into) {
            96 + noise
        } else {
            2
        };
    }
    // A checkpoint every two hours idles the GPUs for two minutes.
    if (t - START) % 7200 < 120 {
        4
    } else {
        95 + noise
    }
}

/// 48 h of 8 GPUs at 30 s, as `nvidia-smi --query-gpu=… --format=csv -l 30`
/// writes it; also returns the seconds GPU 0 was busy during the reference job.
fn sustain_csv(p: &DemoPlatform, rng: &mut StdRng) -> (String, f64) {
    let mut out = String::with_capacity(6 << 20);
    out.push_str(
        "timestamp, index, name, pci.bus_id, pcie.link.width.current, pcie.link.width.max, power.draw [W], \
         temperature.gpu, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], \
         clocks.sm [MHz], clocks_throttle_reasons.active\n",
    );
    let jitter = Normal::new(0.0, 1.5).expect("valid constant parameters");
    let mut busy_s = 0.0;
    for step in 0..HOURS * 3600 / STEP_S {
        let t = START + step * STEP_S;
        if let Some((hour, minutes)) = p.gap {
            let from = START + i64::from(hour) * 3600;
            if (from..from + i64::from(minutes) * 60).contains(&(t)) {
                continue;
            }
        }
        let noise = rng.random_range(-2..=3);
        let util = utilisation(t, noise).clamp(0, 100);
        let busy = util >= 90;
        if (JOB_START..JOB_START + JOB_WALL_S).contains(&t) && util > 10 {
            busy_s += STEP_S as f64;
        }
        for gpu in 0..GPUS {
            let sagged = p
                .power_sag
                .filter(|(hour, _, _)| t >= START + i64::from(*hour) * 3600);
            let (mut power, mut sm) = if busy { (250.0, 1410) } else { (62.0, 210) };
            if let (true, Some((_, watts, clock))) = (busy, sagged) {
                power -= watts as f64;
                sm = clock;
            }
            power += jitter.sample(rng);
            let hot = p
                .hot_edge
                .filter(|(count, _)| gpu >= GPUS - count)
                .map(|(_, c)| c);
            let mut temp = if busy { 70 + (gpu as i64 % 4) } else { 45 };
            if let (true, Some(c)) = (busy, hot) {
                temp = c - i64::from(rng.random_range(0..2u8));
            } else if busy {
                temp += i64::from(rng.random_range(0..2u8));
            }
            let mut mask = if busy { 0 } else { 1 };
            if busy && temp >= 86 {
                mask |= 0x20; // software thermal slowdown
            }
            if busy && rng.random_ratio(1, 150) {
                mask |= 0x4; // the preventive software power cap, not counted
            }
            let _ = writeln!(
                out,
                "{}, {gpu}, NVIDIA A100-SXM4-80GB, 00000000:{:02X}:00.0, {}, 16, {:.2} W, {temp}, {util} %, {} %, {} MiB, 81920 MiB, {sm} MHz, 0x{mask:016X}",
                stamp(t),
                0x07 + gpu * 8,
                p.pcie_width,
                power.max(20.0),
                if busy { util / 2 } else { 0 },
                if busy { 61_227 } else { 4 },
            );
        }
    }
    (out, busy_s)
}

/// The perf suite on the node, then its matrix product kept running for
/// the 48 h of the sustain log, timed every 30 min: the demo's delivered
/// performance. The platform's traits show as they would: A's x8 link
/// halves its host copies, F's hot edge GPUs trail their node, E's power
/// sag after hour 30 takes 17 % of its throughput (the four-breakpoint
/// review's figure for a 250 → 228 W slide).
fn perf_json(p: &DemoPlatform, rng: &mut StdRng) -> String {
    // How close each platform's healthy cards come to the datasheet.
    let efficiency = match p.letter {
        'A' => 0.89,
        'B' => 0.90,
        'C' => 0.92,
        'D' => 0.88,
        'E' => 0.91,
        _ => 0.87,
    };
    let noise = Normal::new(1.0, 0.004).expect("valid constant parameters");
    // F's hottest edge GPU throttles past the straggler line, the next one
    // stays inside it.
    let thermal = |gpu: usize| match (p.hot_edge, gpu) {
        (Some(_), 7) => 0.88,
        (Some(_), 6) => 0.95,
        _ => 1.0,
    };
    let mut results = Vec::new();
    for gpu in 0..GPUS {
        let gemm =
            |results: &mut Vec<serde_json::Value>, dtype: &str, peak: f64, rng: &mut StdRng| {
                let v = peak * efficiency * thermal(gpu) * noise.sample(rng);
                results.push(serde_json::json!({
                "test": "gemm", "gpu": gpu, "dtype": dtype, "unit": "TFLOP/s",
                "median": round(v), "min": round(v * 0.99), "max": round(v * 1.005), "repeats": 10,
                "m": 8192, "n": 8192, "k": 8192,
            }));
            };
        for (dtype, peak) in [
            ("fp32", 19.5),
            ("tf32", 156.0),
            ("bf16", 312.0),
            ("fp16", 312.0),
        ] {
            gemm(&mut results, dtype, peak, rng);
        }
        let copy = 2039.0 * 0.86 * noise.sample(rng);
        results.push(serde_json::json!({
            "test": "device_copy", "gpu": gpu, "unit": "GB/s", "median": round(copy),
            "min": round(copy * 0.995), "max": round(copy * 1.003), "repeats": 10, "bytes": 1u64 << 30,
        }));
        let link =
            serde_json::json!({"gen": 4, "gen_max": 4, "width": p.pcie_width, "width_max": 16});
        for (test, base) in [("h2d", 24.8), ("d2h", 25.6)] {
            let v = base * f64::from(p.pcie_width) / 16.0 * noise.sample(rng);
            results.push(serde_json::json!({
                "test": test, "gpu": gpu, "unit": "GB/s", "median": round(v), "min": round(v * 0.99),
                "max": round(v * 1.004), "repeats": 10, "bytes": 256u64 << 20, "pinned": true, "link": link,
            }));
        }
    }
    let mut points = Vec::new();
    for step in 0..=HOURS * 2 {
        let t_s = step * 1800;
        let sagged = p
            .power_sag
            .filter(|(hour, _, _)| t_s >= i64::from(*hour) * 3600);
        for gpu in 0..GPUS {
            let (mut tflops, mut power) = (312.0 * efficiency * 0.95 * thermal(gpu), 250.0);
            if let Some((_, watts, _)) = sagged {
                tflops *= 0.83;
                power -= watts as f64;
            }
            points.push(serde_json::json!({
                "t_s": t_s, "at": iso((START + t_s) * 1000), "gpu": gpu,
                "tflops": round(tflops * noise.sample(rng)), "power_w": round(power + noise.sample(rng) - 1.0),
            }));
        }
    }
    let gpus: Vec<serde_json::Value> = (0..GPUS)
        .map(|gpu| {
            serde_json::json!({"index": gpu, "name": "NVIDIA A100-SXM4-80GB",
            "pci_bus_id": format!("00000000:{:02X}:00.0", 0x07 + gpu * 8), "memory_mib": 81920})
        })
        .collect();
    let log = serde_json::json!({
        "format": "breakpoint-perf", "version": 1,
        "started_at": iso((START - 600) * 1000), "finished_at": iso((START + HOURS * 3600) * 1000),
        "host": format!("demo-{}-node-1", p.letter.to_ascii_lowercase()),
        "framework": "torch 2.5.1", "backend": "cuda",
        "settings": {"gemm_size": 8192, "repeats": 10, "warmup": 3, "copy_mib": 1024, "transfer_mib": 256},
        "gpus": gpus, "results": results,
        "skipped": [{"test": "all_reduce", "reason": "the demo does not simulate collectives"}],
        "timeline": {"test": "gemm", "dtype": "bf16", "m": 8192, "n": 8192, "k": 8192,
                     "interval_s": 1800.0, "duration_s": (HOURS * 3600) as f64, "points": points},
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Start attempts at baseline, peak and mixed load, warm and cold images.
fn startup_csv(p: &DemoPlatform, rng: &mut StdRng) -> String {
    let mut out = String::from(
        "scenario,image,submitted_at,provisioned_at,image_ready_at,first_compute_at,outcome\n",
    );
    let spread = LogNormal::new(0.0, 0.18).expect("valid constant parameters");
    let day3 = (START + 2 * 86_400) * 1000;
    let mut k = 0i64;
    let mut attempt = |out: &mut String,
                       scenario: &str,
                       image: &str,
                       median_s: f64,
                       timeout: bool,
                       rng: &mut StdRng| {
        let submitted = day3 + k * 600_000;
        k += 1;
        if timeout {
            let _ = writeln!(out, "{scenario},{image},{},,,,timeout", iso(submitted));
            return;
        }
        let latency_ms = (median_s * spread.sample(rng) * 1000.0).round() as i64;
        let _ = writeln!(
            out,
            "{scenario},{image},{},{},{},{},ok",
            iso(submitted),
            iso(submitted + latency_ms * 6 / 10),
            iso(submitted + latency_ms * 9 / 10),
            iso(submitted + latency_ms)
        );
    };
    for _ in 0..10 {
        attempt(&mut out, "baseline", "warm", p.baseline_s, false, rng);
    }
    let timeouts = (p.peak_timeouts * 10.0).round() as usize;
    for i in 0..10 {
        attempt(&mut out, "peak", "warm", p.peak_s, i < timeouts, rng);
    }
    for _ in 0..5 {
        attempt(&mut out, "mixed", "warm", p.mixed_s, false, rng);
    }
    for _ in 0..5 {
        attempt(
            &mut out,
            "baseline",
            "cold",
            p.baseline_s + p.cold_extra_s,
            false,
            rng,
        );
    }
    out
}

/// The standard environment matrix, switched to from PyTorch 2.1 + cu118.
fn switch_csv(p: &DemoPlatform, rng: &mut StdRng) -> String {
    let targets = [
        ("MindSpore 2.3 + CANN 7.0", true),
        ("PyTorch 2.1 + CANN 7.0", true),
        ("PyTorch 2.3 + cu121", false),
        ("TensorFlow 2.15 + cu118", false),
        ("PaddlePaddle 2.6 + cu118", false),
    ];
    let mut out = String::from(
        "from_env,to_env,success,manual_steps,duration_s,rel_l2_error,ops_passed,ops_total\n",
    );
    for (i, (to, domestic)) in targets.iter().enumerate() {
        let steps = if i == 0 {
            p.manual_steps
        } else {
            p.manual_steps
                .saturating_add_signed(rng.random_range(-2..=2))
        };
        let drift = if i == 0 {
            p.drift.1
        } else {
            p.drift.0 * rng.random_range(0.8..1.2)
        };
        let ops = if *domestic {
            format!("{},127", p.ops_passed)
        } else {
            ",".into()
        };
        let _ = writeln!(
            out,
            "PyTorch 2.1 + cu118,{to},{},{steps},{:.0},{drift:.3e},{ops}",
            i >= p.switch_failures,
            600.0 + f64::from(steps) * 240.0 * rng.random_range(0.8..1.2),
        );
    }
    out
}

/// The long-term partner assessment's fault drills.
fn drills_csv(p: &DemoPlatform, rng: &mut StdRng) -> String {
    let mut out = String::from("fault,detected,recovered,recovery_s,progress_lost_s\n");
    let faults = [
        "process-kill",
        "out-of-memory",
        "bad-data-path",
        "instance-recreate",
        "checkpoint-resume",
    ];
    for fault in faults {
        // The drill a platform fails first is the one the long-term partner assessment names as the
        // hardest to diagnose: a bad data path.
        if fault == "bad-data-path" && p.unrecovered > 0 {
            let _ = writeln!(out, "{fault},yes,no,,");
        } else {
            let r = p.recovery_s * rng.random_range(0.85..1.15);
            let _ = writeln!(out, "{fault},yes,yes,{r:.0},{:.0}", r * 2.0);
        }
    }
    out
}

/// The bill of the reference job, as the platform computed it.
fn billing_csv(p: &DemoPlatform, measured_busy_s: f64) -> String {
    let billed_compute = measured_busy_s + p.billed_extra_s;
    let wall = JOB_WALL_S as f64;
    let job = Workload {
        sessions: vec![Session {
            segments: vec![
                Segment {
                    phase: Phase::Compute,
                    seconds: billed_compute,
                },
                Segment {
                    phase: Phase::IoWait,
                    seconds: (wall - billed_compute).max(0.0),
                },
            ],
        }],
        gpus: 1,
    };
    // The demo's prices and its one job are far inside what a bill holds.
    let (billed_seconds, amount) = billing_sim::bill(&job, &p.rule(0), p.price_per_hour)
        .map_or((0.0, Default::default()), |b| (b.billed_seconds, b.amount));
    format!(
        "instance,start,end,billed_seconds,compute_seconds,queue_seconds,io_wait_seconds,amount,currency,unit_price\n\
         sdxl-reference-job,{},{},{:.0},{billed_compute:.0},0,{:.0},{:.2},CNY,{}\n",
        iso(JOB_START * 1000),
        iso((JOB_START + JOB_WALL_S) * 1000),
        billed_seconds,
        (wall - billed_compute).max(0.0),
        amount,
        p.price_per_hour
    )
}
