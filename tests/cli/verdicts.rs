//! Verdicts a fleet cannot hide: fleets of several 8-GPU nodes written as
//! nvidia-smi CSV by a seeded generator — one GPU sagging, one falling off
//! the bus, one node split over two files — imported and ranked through the
//! binary beside their healthy twins.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::util::{Workspace, metric_in};

const GPUS: u32 = 8;
const HOURS: f64 = 6.0;

/// One node's log: `GPUS` GPUs sampled every minute from `from_h` to `to_h`
/// (hours after 08:00 UTC), busy throughout. `sag`: (GPU, onset hour,
/// depth) from which that GPU's power and SM clock fall; `lost`: (GPU,
/// hour) after which that GPU writes no more rows.
struct Node {
    name: &'static str,
    from_h: f64,
    to_h: f64,
    sag: Option<(u32, f64, f64)>,
    lost: Option<(u32, f64)>,
}

impl Node {
    fn healthy(name: &'static str) -> Node {
        Node {
            name,
            from_h: 0.0,
            to_h: HOURS,
            sag: None,
            lost: None,
        }
    }

    fn csv(&self, seed: u64) -> String {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = String::from(
            "timestamp, index, name, uuid, pci.bus_id, power.draw [W], temperature.gpu, utilization.gpu [%], memory.used [MiB], clocks.current.sm [MHz], clocks_throttle_reasons.active\n",
        );
        let (first, last) = ((self.from_h * 60.0) as i64, (self.to_h * 60.0) as i64);
        for minute in first..last {
            let hour = minute as f64 / 60.0;
            for gpu in 0..GPUS {
                if self.lost.is_some_and(|(g, at)| g == gpu && hour >= at) {
                    continue;
                }
                let depth = match self.sag {
                    Some((g, onset, depth)) if g == gpu && hour >= onset => depth,
                    _ => 0.0,
                };
                let noise = 1.0 + rng.random_range(-0.01..0.01);
                let power = 250.0 * (1.0 - depth) * noise;
                let sm = (1410.0 * (1.0 - depth)).round();
                let util = rng.random_range(93..=99);
                let (h, m) = (8 + minute / 60, minute % 60);
                out.push_str(&format!(
                    "2026/06/01 {h:02}:{m:02}:00.000, {gpu}, NVIDIA A100-SXM4-80GB, GPU-{name}-{gpu:04}, 00000000:{bus:02X}:00.0, {power:.2} W, {temp}, {util} %, {mem} MiB, {sm} MHz, 0x0000000000000000\n",
                    name = self.name,
                    bus = 0x10 + gpu * 8,
                    temp = 66 + rng.random_range(0..4),
                    mem = 60_000 + rng.random_range(0..2_000),
                ));
            }
        }
        out
    }
}

/// A platform whose nodes' logs are imported one run per file.
fn platform(ws: &Workspace, name: &str, nodes: &[Node]) {
    ws.ok(&["platform", "add", name]);
    for (i, node) in nodes.iter().enumerate() {
        let path = ws
            .dir
            .path()
            .join(format!("{}-{}-{}.csv", name.to_lowercase(), node.name, i));
        std::fs::write(&path, node.csv(1000 + i as u64)).expect("write log");
        ws.ok(&[
            "import",
            "--platform",
            name,
            "--tz",
            "UTC",
            path.to_str().expect("path"),
        ]);
    }
}

fn platform_score<'a>(ranking: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    ranking["ranking"]["platforms"]
        .as_array()
        .expect("platforms")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} not ranked"))
}

fn breakpoint<'a>(platform: &'a serde_json::Value, b: &str) -> &'a serde_json::Value {
    platform["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .find(|x| x["breakpoint"] == b)
        .expect("breakpoint")
}

fn number(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Four nodes: on node 3 GPU 5 loses 12 % of its power and clocks from hour
/// 3; on node 2 GPU 1's rows stop at hour 4 while its neighbours go on.
fn faulty_fleet() -> Vec<Node> {
    vec![
        Node::healthy("node1"),
        Node {
            lost: Some((1, 4.0)),
            ..Node::healthy("node2")
        },
        Node {
            sag: Some((5, 3.0, 0.12)),
            ..Node::healthy("node3")
        },
        Node::healthy("node4"),
    ]
}

#[test]
fn a_sagging_gpu_and_a_lost_gpu_pull_the_fleet_below_its_healthy_twin() {
    let ws = Workspace::new();
    platform(&ws, "Faulty", &faulty_fleet());
    platform(
        &ws,
        "Healthy",
        &["node1", "node2", "node3", "node4"].map(Node::healthy),
    );
    let ranking = ws.json(&["rank", "--samples", "200"]);
    let (faulty, healthy) = (
        platform_score(&ranking, "Faulty"),
        platform_score(&ranking, "Healthy"),
    );
    let sustain = |p| number(&breakpoint(p, "sustain")["score"]);
    assert!(
        sustain(healthy) - sustain(faulty) >= 10.0,
        "sustain: healthy {} vs faulty {}",
        sustain(healthy),
        sustain(faulty)
    );
    assert!(sustain(healthy) > 99.0, "{}", sustain(healthy));

    // The lost GPU is an interruption, its last two hours lost: 2 of 192
    // GPU-hours expected.
    let availability = number(&metric_in(faulty, "sustain.availability_pct")["value"]);
    assert!(
        (availability - 100.0 * 190.0 / 192.0).abs() < 0.05,
        "{availability}"
    );
    let interruptions = number(&metric_in(faulty, "sustain.interruptions_per_100h")["value"]);
    assert!(
        (interruptions - 100.0 / 192.0).abs() < 0.01,
        "{interruptions}"
    );
    assert_eq!(
        number(&metric_in(healthy, "sustain.availability_pct")["value"]),
        100.0
    );

    // The sag, named by node and GPU with its share of the fleet, and read
    // once: as the power drop, not again as phantom utilisation.
    let drop = metric_in(faulty, "sustain.power_drop_pct");
    let worst = &drop["worst"][0];
    assert!(
        worst["node"].as_str().unwrap().contains("node3")
            && worst["gpu"].as_str().unwrap().starts_with("GPU 5"),
        "{worst}"
    );
    assert!((number(&worst["value"]) - 12.0).abs() < 0.5, "{worst}");
    assert!(
        (number(&worst["share"]) - 48.0 / 190.0).abs() < 0.01,
        "{worst}"
    );
    assert!(number(&drop["score"]) < 85.0, "{drop}");
    let phantom = metric_in(faulty, "sustain.phantom_util_pct");
    assert_eq!(number(&phantom["score"]), 100.0, "{phantom}");

    // explain names the same units, in its table and its JSON.
    let explained = ws.json(&["explain", "Faulty"]);
    let text = explained.to_string();
    assert!(text.contains("node3") && text.contains("GPU 5"), "{text}");
    let table = ws.ok(&["explain", "Faulty"]);
    assert!(table.contains("worst units"), "{table}");
    assert!(table.contains("GPU 5"), "{table}");
    // So does the PDF, below its sustain table.
    let pdf = ws.dir.path().join("fleet.pdf");
    ws.ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "100"]);
    let text = std::process::Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (scripts/setup installs it)");
    let text = String::from_utf8_lossy(&text.stdout).replace('\n', " ");
    assert!(
        text.contains("The worst units behind the figures")
            && text.contains("Faulty — Sustained power drop")
            && text.contains("GPU 5"),
        "{text}"
    );
}

#[test]
fn a_sag_split_over_two_logs_is_found_as_in_one() {
    let ws = Workspace::new();
    let sag = Some((5, 3.0, 0.12));
    platform(
        &ws,
        "Whole",
        &[Node {
            sag,
            ..Node::healthy("node3")
        }],
    );
    // The same node written as two files split at the onset, as a second
    // pull of the same hours writes it.
    platform(
        &ws,
        "Split",
        &[
            Node {
                to_h: 3.0,
                sag,
                ..Node::healthy("node3")
            },
            Node {
                from_h: 3.0,
                sag,
                ..Node::healthy("node3")
            },
        ],
    );
    let ranking = ws.json(&["rank", "--samples", "200"]);
    let drop = |name| {
        let m = metric_in(platform_score(&ranking, name), "sustain.power_drop_pct");
        (number(&m["value"]), number(&m["score"]), m.clone())
    };
    let (whole, whole_score, _) = drop("Whole");
    let (split, split_score, split_metric) = drop("Split");
    assert!((whole - 12.0).abs() < 0.5, "whole {whole}");
    assert!(
        (split - whole).abs() < 0.5,
        "split {split} vs whole {whole}"
    );
    assert!(
        (split_score - whole_score).abs() < 5.0,
        "{split_score} vs {whole_score}"
    );
    // Each file alone shows no drop: the range over runs stays flat while
    // the history is not.
    assert!(number(&split_metric["max"]) >= 11.5, "{split_metric}");
    assert!(
        split_metric["worst"][0]["gpu"]
            .as_str()
            .unwrap()
            .starts_with("GPU 5")
    );
}

#[test]
fn a_gpu_that_stops_reporting_is_an_event_of_its_run() {
    let ws = Workspace::new();
    platform(
        &ws,
        "Lost",
        &[Node {
            lost: Some((1, 4.0)),
            ..Node::healthy("node2")
        }],
    );
    let runs = ws.json(&["runs", "list"]);
    let run = runs.as_array().expect("runs")[0]["id"]
        .as_i64()
        .expect("id");
    let shown = ws.json(&["runs", "show", &run.to_string()]);
    let text = shown.to_string();
    assert!(text.contains("gpu-lost"), "{text}");
    assert!(
        text.contains("stopped reporting while 7 other GPUs went on"),
        "{text}"
    );
}

/// A probe log of `host` with two GPUs at the journal fixture's PCI
/// addresses, sampled every minute from 00:00 to 02:00 UTC on 3 February
/// 2025, busy and healthy throughout.
fn probe_log(ws: &Workspace, host: &str) -> String {
    let mut lines = vec![
        serde_json::json!({
            "format": "breakpoint-probe", "version": 1, "host": host,
            "started_at": "2025-02-03T00:00:00Z", "interval_ms": 60000,
            "gpus": [{"index": 0, "pci_bus_id": "00000000:1B:00.0"},
                     {"index": 1, "pci_bus_id": "00000000:43:00.0"}]
        })
        .to_string(),
    ];
    let t0: i64 = 1_738_540_800_000;
    for k in 0..121 {
        for gpu in 0..2 {
            lines.push(
                serde_json::json!({
                    "t": t0 + k * 60_000, "gpu": gpu, "power_mw": 650_000, "temp_gpu_c": 65,
                    "sm_clock_mhz": 1980, "util_gpu_pct": 99, "mem_used_mib": 60_000,
                    "throttle_mask": 0
                })
                .to_string(),
            );
        }
    }
    let path = ws.dir.path().join(format!("{host}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_string()
}

/// Platform P with `host`'s probe log and `logs` imported.
fn node(host: &str, logs: &[&str]) -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    ws.ok(&["import", "--platform", "P", &probe_log(&ws, host)]);
    for log in logs {
        ws.ok(&["import", "--platform", "P", log]);
    }
    ws
}

fn sustain_of(ws: &Workspace) -> (f64, f64) {
    let explained = ws.json(&["explain", "P"]);
    let score = explained["breakpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["breakpoint"] == "sustain")
        .unwrap()["score"]
        .as_f64()
        .unwrap();
    let rate = metric_in(&explained, "sustain.interruptions_per_100h")["value"]
        .as_f64()
        .unwrap();
    (score, rate)
}

/// The node's own kernel log, at the same hours as its samples, holds an
/// NVLink fault (Xid 149 with Xid 74 behind it) and a context-switch fault
/// (Xid 109 with 44): two incidents against the sampled GPU-hours, each
/// counted once — below the healthy twin that has the samples alone.
#[test]
fn faults_in_the_nodes_kernel_log_count_against_its_sampled_hours() {
    let journal = crate::util::fixture("kernel/journal-short-iso-nvlink.log");
    let healthy = node("gpu-node-12", &[]);
    let faulty = node("gpu-node-12", &[&journal]);
    let (healthy_score, healthy_rate) = sustain_of(&healthy);
    let (faulty_score, faulty_rate) = sustain_of(&faulty);
    assert_eq!((healthy_score, healthy_rate), (100.0, 0.0));
    assert!(faulty_score < healthy_score, "{faulty_score}");
    // Two incidents over 2 GPUs × 2 h 1 min of samples.
    let expected = 100.0 * 2.0 / (2.0 * 121.0 / 60.0);
    assert!(
        (faulty_rate - expected).abs() < 1e-9,
        "{faulty_rate} vs {expected}"
    );

    // The same log of another node's host counts in no rate here: its
    // faults fall outside every sampled hour. It still names two of the
    // platform's GPUs as faulty.
    let elsewhere = node("gpu-node-7", &[&journal]);
    let (score, rate) = sustain_of(&elsewhere);
    assert_eq!(rate, 0.0);
    assert!(score < healthy_score, "{score}");
    let faulty = elsewhere.metric("P", "sustain.faulty_gpus_pct");
    assert_eq!(faulty["value"].as_f64(), Some(50.0), "{faulty}");
}

fn faulty_share(ws: &Workspace) -> f64 {
    ws.metric("P", "sustain.faulty_gpus_pct")["value"]
        .as_f64()
        .unwrap()
}

/// A kernel excerpt of a few seconds around a double-bit error, from the
/// node whose GPUs were sampled the day before: no GPU-hours cover it and
/// it gives no rate, but it names the card — one of the node's two GPUs
/// is found faulty, once however often it is imported beside others. A
/// passing `dcgmi diag` changes nothing; a failed memory test is a faulty
/// GPU, not a difference from the order.
#[test]
fn a_fault_without_gpu_hours_counts_as_a_faulty_gpu() {
    let healthy = node("gpu-node-12", &[]);
    let (healthy_score, _) = sustain_of(&healthy);
    assert_eq!(faulty_share(&healthy), 0.0);

    let ws = node("gpu-node-12", &[]);
    let excerpt = ws.dir.path().join("excerpt.log");
    std::fs::write(
        &excerpt,
        "2025-02-04T03:00:01+00:00 gpu-node-12 kernel: NVRM: Xid (PCI:0000:1b:00): 48, pid=0, DBE (0x1,0x8) GPU has a double bit error\n\
         2025-02-04T03:00:02+00:00 gpu-node-12 kernel: NVRM: Xid (PCI:0000:1b:00): 64, pid=0, Dynamic Page Retirement: Failed to retire page\n",
    )
    .unwrap();
    ws.ok(&["import", "--platform", "P", excerpt.to_str().unwrap()]);
    let (score, rate) = sustain_of(&ws);
    assert_eq!(rate, 0.0, "an excerpt of a second gives no rate");
    assert_eq!(faulty_share(&ws), 50.0);
    assert!(score < healthy_score, "{score} vs {healthy_score}");
    let detail = ws.metric("P", "sustain.faulty_gpus_pct").to_string();
    assert!(detail.contains("Xid 48"), "{detail}");

    let passing = node(
        "gpu-node-12",
        &[&crate::util::fixture("dcgm-diag/r1-pass.json")],
    );
    assert_eq!(sustain_of(&passing).0, healthy_score);
    assert_eq!(faulty_share(&passing), 0.0);

    let failing = node(
        "gpu-node-12",
        &[&crate::util::fixture("dcgm-diag/r3-memory-fail-8gpu.txt")],
    );
    assert!(sustain_of(&failing).0 < healthy_score);
    assert!(faulty_share(&failing) > 0.0);
    let delivery = failing.json(&["explain", "P"]).to_string();
    assert!(
        !delivery.contains("GPU Memory failed on GPU 0 for"),
        "a faulty GPU is no delivery mismatch: {delivery}"
    );
}

/// A real `nvidia-smi -l 1` loop pauses ~3.9 s after every ~32 rows: its
/// rhythm, not 83 outages in 48 minutes. A true outage of ten minutes in
/// the same rhythm still counts, once.
#[test]
fn a_loggers_own_pauses_are_not_outages() {
    let write = |ws: &Workspace, outage: Option<(usize, usize)>| {
        let mut csv = String::from("timestamp, index, power.draw [W], utilization.gpu [%]\n");
        let mut t = jiff::Timestamp::from_second(1_764_576_000).unwrap();
        for row in 0..2880 {
            if outage.is_some_and(|(from, to)| (from..to).contains(&row)) {
                t = t.checked_add(jiff::SignedDuration::from_secs(1)).unwrap();
                continue;
            }
            csv.push_str(&format!(
                "{}, 0, 650.00 W, 99 %\n",
                t.strftime("%Y/%m/%d %H:%M:%S%.3f")
            ));
            let pause = if row % 32 == 31 { 3_900 } else { 1_000 };
            t = t
                .checked_add(jiff::SignedDuration::from_millis(pause))
                .unwrap();
        }
        let path = ws.dir.path().join("loop.csv");
        std::fs::write(&path, csv).unwrap();
        path.to_str().unwrap().to_string()
    };
    let rate = |ws: &Workspace| {
        ws.metric("P", "sustain.interruptions_per_100h")["value"]
            .as_f64()
            .unwrap()
    };
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    let out = ws.ok(&[
        "import",
        "--platform",
        "P",
        "--tz",
        "UTC",
        &write(&ws, None),
    ]);
    assert!(out.contains("0 gap(s) stored as interruptions"), "{out}");
    assert_eq!(rate(&ws), 0.0);
    assert_eq!(
        ws.metric("P", "sustain.availability_pct")["value"].as_f64(),
        Some(100.0)
    );
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    let out = ws.ok(&[
        "import",
        "--platform",
        "P",
        "--tz",
        "UTC",
        &write(&ws, Some((1000, 1600))),
    ]);
    assert!(out.contains("1 gap(s) stored as interruptions"), "{out}");
    assert!(rate(&ws) > 0.0);
}

/// A `-q` report whose GPU's row remapping failed counts that GPU as
/// faulty, timed or not: with its Timestamp line the finding is an event,
/// without one it is kept with the run and counted the same.
#[test]
fn a_failed_row_remap_in_a_q_report_is_a_faulty_gpu() {
    let text = std::fs::read_to_string(crate::util::fixture("smi-q/a100-535.txt"))
        .unwrap()
        .replace(
            "Remapping Failure Occurred        : No",
            "Remapping Failure Occurred        : Yes",
        );
    for timed in [true, false] {
        let ws = Workspace::new();
        ws.ok(&["platform", "add", "P"]);
        let body = if timed {
            text.clone()
        } else {
            text.lines()
                .filter(|l| !l.starts_with("Timestamp"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let path = ws.dir.path().join("q.txt");
        std::fs::write(&path, body).unwrap();
        let out = ws.ok(&[
            "import",
            "--platform",
            "P",
            "--tz",
            "UTC",
            path.to_str().unwrap(),
        ]);
        assert!(out.contains("row remapping failed"), "{out}");
        let faulty = ws.metric("P", "sustain.faulty_gpus_pct");
        assert!(
            faulty["value"].as_f64().is_some_and(|v| v > 0.0),
            "timed {timed}: {faulty}"
        );
    }
}
