//! `breakpoint cost`: a job's time and money from what was measured, with
//! its spread — platforms that differ in one measured term differ in the
//! answer by that term, and only by it.

use crate::util::{Workspace, fixture};

/// A platform billed by the second, with eight H200s at 20 CNY an hour on
/// demand and whatever other prices `extra` gives.
fn priced(ws: &Workspace, name: &str, extra: &[&str]) {
    ws.ok(&["platform", "add", name]);
    ws.ok(&["billing", "set", "--platform", name, "--granularity", "1"]);
    let mut args = vec![
        "offering",
        "add",
        "--platform",
        name,
        "--accelerator",
        "H200",
        "--count",
        "8",
        "--currency",
        "CNY",
        "--price-on-demand",
        "20",
    ];
    args.extend_from_slice(extra);
    ws.ok(&args);
}

/// Platforms P and Q with the same offering and rule.
fn twins(ws: &Workspace) {
    for name in ["P", "Q"] {
        priced(ws, name, &[]);
    }
}

fn band<'a>(costs: &'a serde_json::Value, platform: &str) -> &'a serde_json::Value {
    costs["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["platform"] == platform)
        .unwrap()
}

fn money(v: &serde_json::Value) -> f64 {
    v.as_str().unwrap().parse().unwrap()
}

/// Q's GPU delivers 80 % of P's matrix throughput (its perf log, the same
/// price): a compute-bound job needs 1.15–1.40× the hours and the money.
#[test]
fn a_slower_gpu_needs_more_hours_and_money() {
    let ws = Workspace::new();
    twins(&ws);
    let perf = std::fs::read_to_string(fixture("perf/h200.json")).unwrap();
    let mut slow: serde_json::Value = serde_json::from_str(&perf).unwrap();
    for r in slow["results"].as_array_mut().unwrap() {
        if r["test"] == "gemm" {
            for k in ["median", "min", "max"] {
                let v = r[k].as_f64().unwrap();
                r[k] = serde_json::json!(v * 0.8);
            }
        }
    }
    let slow_path = ws.dir.path().join("slow.json");
    std::fs::write(&slow_path, serde_json::to_string_pretty(&slow).unwrap()).unwrap();
    ws.ok(&["import", "--platform", "P", &fixture("perf/h200.json")]);
    ws.ok(&["import", "--platform", "Q", slow_path.to_str().unwrap()]);
    let costs = ws.json(&["cost", "--job", "gpus=8,work=2000h", "--draws", "500"]);
    let (p, q) = (band(&costs, "P"), band(&costs, "Q"));
    let hours = q["hours"]["p50"].as_f64().unwrap() / p["hours"]["p50"].as_f64().unwrap();
    let cost = money(&q["cost"]["p50"]) / money(&p["cost"]["p50"]);
    assert!((1.15..=1.40).contains(&hours), "hours ×{hours}: {costs}");
    assert!((1.15..=1.40).contains(&cost), "cost ×{cost}");
    for platform in [p, q] {
        for what in ["hours", "cost"] {
            let b = &platform[what];
            let (lo, mid, hi) = if what == "cost" {
                (money(&b["p10"]), money(&b["p50"]), money(&b["p90"]))
            } else {
                (
                    b["p10"].as_f64().unwrap(),
                    b["p50"].as_f64().unwrap(),
                    b["p90"].as_f64().unwrap(),
                )
            };
            assert!(lo <= mid && mid <= hi, "{what}: {b}");
        }
    }
    // Every term says what it rests on.
    let share = &p["terms"][0];
    assert!(
        share["source"]
            .as_str()
            .unwrap()
            .starts_with("sustain.gemm_nominal_pct"),
        "{share}"
    );
    // Seeded: the same answer again.
    assert_eq!(
        ws.json(&["cost", "--job", "gpus=8,work=2000h", "--draws", "500"]),
        costs
    );
    let text = ws.ok(&[
        "cost",
        "--job",
        "gpus=8,work=2000h,deadline=14d",
        "--draws",
        "500",
    ]);
    assert!(text.contains("deadline met"), "{text}");
    // The answer in words: the faster GPU finishes cheapest, and the terms
    // it rests on that were not measured are named.
    assert!(
        text.contains("P finishes the job cheapest at the median"),
        "{text}"
    );
    assert!(
        costs["answer"]
            .as_str()
            .unwrap()
            .contains("rests on defaults"),
        "{costs}"
    );
}

/// A node that went silent for ten minutes in two hours: its platform
/// costs more than its healthy twin for the same job — draw by draw never
/// less (the same streams), and more in the bad case, where the
/// interruptions it may meet fall.
#[test]
fn a_platform_whose_node_went_silent_costs_more() {
    let ws = Workspace::new();
    twins(&ws);
    let log = |silent: bool| {
        let mut csv = String::from("timestamp, index, name, utilization.gpu [%], power.draw [W]\n");
        for minute in 0..120 {
            if silent && (60..70).contains(&minute) {
                continue;
            }
            csv.push_str(&format!(
                "2026/06/01 {:02}:{:02}:00.000, 0, NVIDIA H200, 99 %, 650.00 W\n",
                8 + minute / 60,
                minute % 60
            ));
        }
        let path = ws.dir.path().join(format!("node-{silent}.csv"));
        std::fs::write(&path, csv).unwrap();
        path.to_str().unwrap().to_string()
    };
    ws.ok(&["import", "--platform", "P", "--tz", "UTC", &log(false)]);
    ws.ok(&["import", "--platform", "Q", "--tz", "UTC", &log(true)]);
    let costs = ws.json(&["cost", "--job", "gpus=8,work=2000h", "--draws", "500"]);
    let (p, q) = (band(&costs, "P"), band(&costs, "Q"));
    for at in ["p10", "p50"] {
        assert!(money(&q["cost"][at]) >= money(&p["cost"][at]), "{costs}");
    }
    assert!(
        money(&q["cost"]["p90"]) > money(&p["cost"]["p90"]),
        "{costs}"
    );
    assert!(q["hours"]["p90"].as_f64() > p["hours"]["p90"].as_f64());
    ws.fails(
        &["cost", "--job", "gpus=8"],
        1,
        "error: job.work: missing: the work, work=2000h@A100-80GB (GPU-hours on a named card), work=3.2e21FLOP, params=7B,tokens=1T (or requests=…,per-gpu=…, or horizon=…)",
    );
}

/// Price modes, horizons, storage and serving jobs: M has a monthly plan
/// and prices its disks and transfer; D prices on demand only.
#[test]
fn horizons_pick_each_platforms_cheapest_mode_and_data_is_priced_where_it_can_be() {
    let ws = Workspace::new();
    priced(
        &ws,
        "M",
        &[
            "--price-monthly",
            "10",
            "--price-storage",
            "0.5",
            "--price-transfer",
            "0.1",
        ],
    );
    priced(&ws, "D", &[]);
    let draws = ["--draws", "300"];
    let cost = |args: &[&str]| {
        let mut all = vec!["cost"];
        all.extend_from_slice(args);
        all.extend_from_slice(&draws);
        ws.json(&all)
    };
    // A short job: a month of eight GPUs is dearer than its hours on demand.
    let short = cost(&["--job", "gpus=8,work=100h"]);
    assert_eq!(band(&short, "M")["mode"], "on-demand", "{short}");
    // Around the clock for a year, the monthly plan wins where there is one.
    let year = cost(&["--job", "gpus=8", "--horizon", "1y", "--utilisation", "60%"]);
    let (m, d) = (band(&year, "M"), band(&year, "D"));
    assert_eq!(m["mode"], "monthly", "{year}");
    assert_eq!(d["mode"], "on-demand", "{year}");
    // 13 months of 8 GPUs at 10 CNY per GPU-hour, whatever the draw.
    assert_eq!(money(&m["cost"]["p50"]), 13.0 * 720.0 * 10.0 * 8.0, "{m}");
    assert!(money(&d["cost"]["p50"]) > money(&m["cost"]["p50"]));
    let answer = year["answer"].as_str().unwrap();
    assert!(
        answer.starts_with(
            "M runs the workload (60 % of 8 GPU(s) over 365 days (a year)) cheapest at the median (748800.00 CNY, monthly)"
        ),
        "{answer}"
    );
    // Spot when asked for: neither prices it.
    let spot = cost(&["--job", "gpus=8,work=100h", "--mode", "spot"]);
    assert_eq!(
        band(&spot, "M")["missing"],
        "no spot price for the offering measured",
        "{spot}"
    );
    // Storage and transfer: priced on M, said to be left out on D.
    let data = cost(&["--job", "gpus=8,work=100h,data=500GB,storage=2TB"]);
    let plain = money(&band(&short, "M")["cost"]["p50"]);
    let with_data = money(&band(&data, "M")["cost"]["p50"]);
    // At least the transfer (500 GB × 0.1) and some storage, on top of
    // the GPUs — which run longer too, while the data comes in.
    assert!(with_data > plain + 50.0, "{plain} → {with_data}");
    assert!(band(&data, "M")["unpriced"].as_array().unwrap().is_empty());
    assert_eq!(band(&data, "D")["unpriced"].as_array().unwrap().len(), 2);
    let terms = band(&data, "M")["terms"].as_array().unwrap();
    let upload = terms.iter().find(|t| t["key"] == "data").unwrap();
    assert!(
        upload["source"]
            .as_str()
            .unwrap()
            .starts_with("500 GB at not measured"),
        "{upload}"
    );
    assert!(
        data["answer"]
            .as_str()
            .unwrap()
            .contains("storage or transfer is not priced on D"),
        "{data}"
    );
    // A serving job by its requests: 36 M requests at 100 a second on one
    // GPU is 100 GPU-hours.
    let serving = cost(&["--job", "gpus=8,requests=36M,per-gpu=100/s"]);
    assert_eq!(serving["job"]["work"]["gpu_hours"], 100.0, "{serving}");
    // One way to give the work.
    ws.fails(
        &["cost", "--job", "gpus=8,work=10h,horizon=1y"],
        1,
        "error: job.work: give the work one way: work=2000h[@CARD], or work=…FLOP, or params=…,tokens=…, or requests=…,per-gpu=…, or horizon=…,utilisation=…",
    );
}

/// Two platforms of the same delivered-share evidence, an A100 80GB and an
/// H100 SXM, the work on the A100: the H100 finishes it in about a third of
/// the hours (312 ÷ 989.5 TFLOP/s BF16), and the answer says how the work
/// was read. Without a card the hours are each platform's own, and the
/// answer refuses to compare cards that differ.
#[test]
fn work_on_a_named_card_paces_each_platform_by_its_datasheet() {
    let ws = Workspace::new();
    for (name, card, price) in [
        ("Ampere", "A100-SXM4-80GB", "10"),
        ("Hopper", "H100 SXM", "25"),
    ] {
        ws.ok(&["platform", "add", name]);
        ws.ok(&["billing", "set", "--platform", name, "--granularity", "1"]);
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            name,
            "--accelerator",
            card,
            "--count",
            "8",
            "--currency",
            "CNY",
            "--price-on-demand",
            price,
        ]);
    }
    let costs = ws.json(&["cost", "--job", "gpus=8,work=1000h@A100-80GB"]);
    let hours = |p: &str| band(&costs, p)["hours"]["p50"].as_f64().unwrap();
    let ratio = hours("Hopper") / hours("Ampere");
    assert!((0.25..=0.45).contains(&ratio), "{ratio}: {costs}");
    let answer = costs["answer"].as_str().unwrap();
    assert!(
        answer.contains("the work: 1000 GPU-hours on NVIDIA A100 80GB (312 TFLOP/s BF16 dense"),
        "{answer}"
    );
    assert!(answer.contains("= 1.12 × 10²¹ FLOP at BF16"), "{answer}");
    assert!(
        answer.starts_with("Hopper finishes the job cheapest"),
        "{answer}"
    );
    assert_eq!(band(&costs, "Hopper")["card"], "NVIDIA H100 80GB SXM");
    // In FLOP, and as 6·N·D: the same reading on every card.
    let flop = ws.json(&["cost", "--job", "gpus=8,params=7B,tokens=20B"]);
    assert!(
        flop["reading"]
            .as_str()
            .unwrap()
            .starts_with("6 × 7 × 10⁹ parameters × 2 × 10¹⁰ tokens = 8.4 × 10²⁰ FLOP at BF16"),
        "{flop}"
    );
    // GPU-hours on each platform's own card: these cards differ, so no pick.
    let own = ws.json(&["cost", "--job", "gpus=8,work=1000h"]);
    let answer = own["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("No answer yet: the work is in GPU-hours on each platform's own card, and their cards differ"),
        "{answer}"
    );
    // A card the datasheet table cannot tell is named, never a reference.
    ws.fails(
        &["cost", "--job", "gpus=8,work=1000h@H100"],
        1,
        "error: job.work: H100 names cards of different BF16 peaks (H100 SXM 989.5 TFLOP/s, H100 PCIe 756 TFLOP/s): say which (e.g. H100-SXM); the work's card must be one the datasheet table knows",
    );
    // A precision the card has no dense rate at is said on its platform.
    let fp8 = ws.json(&["cost", "--job", "gpus=8,work=1e21FLOP,precision=fp8"]);
    assert!(
        band(&fp8, "Ampere")["missing"]
            .as_str()
            .unwrap()
            .contains("has no FP8 figure"),
        "{fp8}"
    );
}

/// Thin evidence is not read as no risk: an hour of clean logs leaves the
/// interruption rate wider (p90) than 200 GPU-hours of them, and a fault
/// seen by the kernel of a sampled node makes its platform cost more than
/// its healthy twin.
#[test]
fn risk_follows_exposure_and_faults_from_any_log() {
    let ws = Workspace::new();
    twins(&ws);
    priced(&ws, "R", &[]);
    let csv = |gpus: u32, minutes: u32, name: &str| {
        let mut text =
            String::from("timestamp, index, name, utilization.gpu [%], power.draw [W]\n");
        for minute in 0..minutes {
            let at = 8 * 60 + minute;
            for gpu in 0..gpus {
                text.push_str(&format!(
                    "2026/06/{:02} {:02}:{:02}:00.000, {gpu}, NVIDIA H200, 99 %, 650.00 W\n",
                    1 + at / 1440,
                    at % 1440 / 60,
                    at % 60
                ));
            }
        }
        let path = ws.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // P: one GPU for an hour. Q: eight GPUs for 25 hours (200 GPU-hours).
    ws.ok(&[
        "import",
        "--platform",
        "P",
        "--tz",
        "UTC",
        &csv(1, 60, "hour.csv"),
    ]);
    ws.ok(&[
        "import",
        "--platform",
        "Q",
        "--tz",
        "UTC",
        &csv(8, 25 * 60, "long.csv"),
    ]);
    let costs = ws.json(&["cost", "--job", "gpus=8,work=2000h"]);
    let rate_p90 = |p: &str| {
        band(&costs, p)["terms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["key"] == "rate")
            .unwrap()["band"]["p90"]
            .as_f64()
            .unwrap()
    };
    assert!(rate_p90("P") > rate_p90("Q"), "{costs}");
    // R: the same hour as P, and its kernel saw the GPU fall off the bus.
    ws.ok(&[
        "import",
        "--platform",
        "R",
        "--tz",
        "UTC",
        &csv(1, 60, "hour-r.csv"),
    ]);
    let kernel = ws.dir.path().join("kern.log");
    std::fs::write(
        &kernel,
        "[    0.000000] Linux version 5.15.0-105-generic (buildd@lcy02) #115-Ubuntu SMP\n\
         [    1.734512] rtc_cmos 00:00: setting system clock to 2026-06-01T08:00:00 UTC (1780300800)\n\
         [   12.219004] nvidia 0000:18:00.0: enabling device (0000 -> 0002)\n\
         [ 1800.114207] NVRM: Xid (PCI:0000:18:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n",
    )
    .unwrap();
    ws.ok(&["import", "--platform", "R", kernel.to_str().unwrap()]);
    let costs = ws.json(&["cost", "--job", "gpus=8,work=2000h"]);
    let p50 = |p: &str| money(&band(&costs, p)["cost"]["p50"]);
    let p90 = |p: &str| money(&band(&costs, p)["cost"]["p90"]);
    assert!(p50("R") >= p50("P") && p90("R") > p90("P"), "{costs}");
    let rate = |p: &str| {
        band(&costs, p)["terms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["key"] == "rate")
            .unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    assert!(rate("R") > 10.0 * rate("P"), "{costs}");
}

/// The demo's every term measured: its bands are the spread of finite
/// evidence, never a point, and no default is printed as a range of one
/// value.
#[test]
fn the_demos_bands_are_honest() {
    let ws = Workspace::new();
    ws.ok(&["demo", "--samples", "100"]);
    let costs = ws.json(&["cost", "--job", "gpus=8,work=2000h@A100-80GB"]);
    for p in costs["platforms"].as_array().unwrap() {
        let (p10, p90) = (money(&p["cost"]["p10"]), money(&p["cost"]["p90"]));
        assert!(p10 < p90, "{}: {p10} – {p90}", p["platform"]);
        for t in p["terms"].as_array().unwrap() {
            let source = t["source"].as_str().unwrap();
            if let Some(range) = source.split("drawn from ").nth(1) {
                let (low, high) = range.split_once('–').unwrap();
                let high: String = high
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                assert_ne!(low, high, "{source}");
            }
        }
    }
}

/// "No answer yet" says the real reason, platform by platform: only one
/// platform has a monthly plan, or the card asked for; spot without
/// measured reclaims is not costed at all.
#[test]
fn no_answer_says_which_platform_lacks_what() {
    let ws = Workspace::new();
    priced(&ws, "P", &["--price-monthly", "12", "--price-spot", "8"]);
    priced(&ws, "Q", &[]);
    let monthly = ws.json(&["cost", "--job", "gpus=8,work=100h", "--mode", "monthly"]);
    assert_eq!(
        monthly["answer"],
        "No answer yet: only P can be costed; Q: no monthly price for the offering measured"
    );
    let card = ws.json(&["cost", "--job", "gpus=8,work=100h", "--accelerator", "A100"]);
    let answer = card["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("No answer yet: no platform can be costed; P: neither an offering nor a run of NVIDIA A100"),
        "{answer}"
    );
    let spot = ws.json(&["cost", "--job", "gpus=8,work=100h", "--mode", "spot"]);
    assert!(
        band(&spot, "P")["missing"]
            .as_str()
            .unwrap()
            .starts_with("spot reclaims not measured here"),
        "{spot}"
    );
}

/// A spot trace makes a spot job costable on the platform it was imported
/// for: its reclaims are drawn from the trace, which is named; the same job
/// costs more time where the trace reclaims more, and the platform's own
/// measured interruption rate is left as it was.
#[test]
fn a_spot_trace_prices_a_spot_job_with_reclaims_drawn_from_it() {
    let ws = Workspace::new();
    priced(&ws, "P", &["--price-spot", "8"]);
    let before = ws.json(&["explain", "P"]);
    ws.ok(&[
        "import",
        &fixture("spot/us-east-1a_v100_1.json"),
        "--platform",
        "P",
    ]);
    let spot = ws.json(&[
        "cost",
        "--job",
        "gpus=8,work=400h",
        "--mode",
        "spot",
        "--draws",
        "400",
    ]);
    let p = band(&spot, "P");
    assert!(p["missing"].is_null(), "{p}");
    assert_eq!(p["mode"], "spot");
    let reclaims = p["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == "reclaims")
        .unwrap();
    assert!(
        reclaims["source"]
            .as_str()
            .unwrap()
            .contains("spot trace us-east-1a_v100_1.json (1 × v100, us-east-1a): 5 reclaim(s)"),
        "{reclaims}"
    );
    // 5 reclaims in 64.5 hours: about 0.08 an instance-hour at the median.
    let rate = reclaims["value"].as_f64().unwrap();
    assert!((0.06..0.10).contains(&rate), "{rate}");
    let interruptions = p["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == "interruptions")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    // 400 GPU-hours on 8 GPUs is about 50 h on one instance: ~4 reclaims.
    assert!((2.0..7.0).contains(&interruptions), "{interruptions}");
    // Evidence about the offering, never a measurement of the platform.
    let after = ws.json(&["explain", "P"]);
    assert_eq!(before["breakpoints"], after["breakpoints"]);
    assert!(
        after["spot"]
            .as_str()
            .unwrap()
            .contains("an instance lives (probability) 1 h")
    );
    let text = ws.ok(&[
        "cost",
        "--job",
        "gpus=8,work=400h",
        "--mode",
        "spot",
        "--draws",
        "400",
    ]);
    assert!(text.contains("spot reclaims: "), "{text}");
}

/// Without a trace, the AWS Spot Instance Advisor's band for the instance
/// the platform's price list quotes for its offering prices a spot job,
/// said as a band; a trace, where there is one, says more and is used.
#[test]
fn the_spot_advisors_band_prices_a_spot_job_until_a_trace_says_more() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "AWS"]);
    ws.ok(&["billing", "set", "--platform", "AWS", "--granularity", "1"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "AWS",
        "--accelerator",
        "A100-80GB",
        "--count",
        "8",
        "--currency",
        "USD",
        "--price-on-demand",
        "5",
        "--price-spot",
        "2",
    ]);
    ws.ok(&[
        "import",
        &fixture("catalogs/skypilot-aws-vms.csv"),
        "--platform",
        "AWS",
    ]);
    ws.ok(&[
        "import",
        &fixture("spot/aws-spot-advisor.json"),
        "--platform",
        "AWS",
    ]);
    let job = [
        "cost",
        "--job",
        "gpus=8,work=400h",
        "--mode",
        "spot",
        "--draws",
        "300",
    ];
    let spot = ws.json(&job);
    let aws = band(&spot, "AWS");
    assert!(aws["missing"].is_null(), "{aws}");
    let reclaims = aws["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == "reclaims")
        .unwrap();
    let source = reclaims["source"].as_str().unwrap();
    assert!(
        source.contains(
            "AWS Spot Instance Advisor: p4de.24xlarge in us-east-1 is in the \"10-15%\" band"
        ),
        "{source}"
    );
    // 11–16 % of instances a month: about 2·10⁻⁴ an instance-hour.
    let rate = reclaims["value"].as_f64().unwrap();
    assert!((1.5e-4..2.5e-4).contains(&rate), "{rate}");
    ws.ok(&[
        "import",
        &fixture("spot/us-east-1a_v100_1.json"),
        "--platform",
        "AWS",
    ]);
    let spot = ws.json(&job);
    let source = band(&spot, "AWS")["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["key"] == "reclaims")
        .unwrap()["source"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        source.contains("spot trace us-east-1a_v100_1.json"),
        "{source}"
    );
}
