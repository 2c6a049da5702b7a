//! Delivered performance: `accept perf` end to end on the CPU (devices split
//! off it and run at a fixed pace, slowdowns planted), and perf logs
//! recorded on an H200 imported and scored exactly.

use crate::util::{Workspace, fixture};

fn near(actual: f64, expected: f64, points: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= points,
        "{what}: {actual} is not {expected} ± {points}"
    );
}

#[test]
fn planted_stragglers_and_decays_are_found_with_their_magnitudes() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let log = ws.dir.path().join("perf.json");
    // GPU 2 a quarter slower throughout; GPU 1 a fifth slower from 3 s into
    // the timeline.
    let out = ws
        .cmd(&[
            "accept",
            "perf",
            "--device",
            "numpy",
            "--cpu-devices",
            "4",
            "--plant",
            "2:0.25",
            "--plant",
            "1:0.2@3",
            "--duration",
            "6s",
            "--interval",
            "500ms",
            "-o",
            log.to_str().unwrap(),
            "--platform",
            "Lab",
            "--import",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a straggler fails the check: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let reading = &report["reading"];
    let stragglers = reading["stragglers"].as_array().unwrap();
    let tests: Vec<&str> = stragglers
        .iter()
        .map(|s| s["test"].as_str().unwrap())
        .collect();
    assert_eq!(tests.len(), 2, "{stragglers:?}");
    assert!(tests.contains(&"gemm fp32") && tests.contains(&"device_copy"));
    for s in stragglers {
        assert_eq!(s["gpu"], 2, "{s}");
        near(
            s["deficit_pct"].as_f64().unwrap(),
            25.0,
            2.0,
            "GPU 2's deficit",
        );
    }
    let decays = reading["decays"].as_array().unwrap();
    assert_eq!(decays.len(), 4);
    for d in decays {
        let (gpu, pct) = (d["gpu"].as_u64().unwrap(), d["decay_pct"].as_f64().unwrap());
        if gpu == 1 {
            near(pct, 20.0, 2.0, "GPU 1's decay");
            let onset = d["onset_s"].as_f64().unwrap();
            assert!((3.0..=4.5).contains(&onset), "onset {onset}");
        } else {
            near(pct, 0.0, 2.0, &format!("GPU {gpu}'s decay"));
        }
    }
    assert_eq!(report["verdict"]["passed"], false);
    assert!(
        report["verdict"]["measured"]
            .as_str()
            .unwrap()
            .starts_with("1 of 4 GPUs are stragglers; worst GPU 2"),
        "{}",
        report["verdict"]
    );
    // Imported, the log is kept and shown but scores nothing: its devices
    // are the CPU split to test the suite, and slowdowns were planted.
    for key in [
        "sustain.straggler_pct",
        "sustain.throughput_decay_pct",
        "sustain.gemm_nominal_pct",
    ] {
        assert!(ws.metric("Lab", key)["value"].is_null(), "{key}");
    }
    assert_eq!(ws.json(&["perf"]), serde_json::json!([]));
    let shown = ws.ok(&["runs", "show", "1"]);
    assert!(
        shown.contains("NOT SCORED: slowdowns were planted in this perf log to test the analysis"),
        "{shown}"
    );
    assert!(ws.ok(&["runs", "list"]).contains("(not scored)"));
}

#[test]
fn a_perf_log_recorded_on_an_h200_imports_and_scores_exactly() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let path = fixture("perf/h200.json");
    let imported = ws.ok(&["import", "--platform", "Lab", &path]);
    assert!(imported.contains("perf-log → run 1"), "{imported}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let figure = |test: &str, dtype: Option<&str>| {
        log["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["test"] == test && r["dtype"].as_str() == dtype)
            .unwrap()["median"]
            .as_f64()
            .unwrap()
    };
    let exact = |key: &str, expected: f64| {
        let v = ws.metric("Lab", key)["value"].as_f64().unwrap();
        assert!((v - expected).abs() < 1e-9, "{key}: {v} against {expected}");
    };
    // BF16 against the H200's dense 989.5 TFLOP/s, the copy against 4.8 TB/s,
    // the slower direction against Gen5 x16's 63.0 GB/s.
    exact(
        "sustain.gemm_nominal_pct",
        100.0 * figure("gemm", Some("bf16")) / 989.5,
    );
    exact(
        "sustain.membw_nominal_pct",
        100.0 * figure("device_copy", None) / 4800.0,
    );
    let slower = figure("h2d", None).min(figure("d2h", None));
    exact("sustain.host_link_pct", 100.0 * slower / (3.938 * 16.0));
    // One GPU: no peer to straggle behind.
    assert!(ws.metric("Lab", "sustain.straggler_pct")["value"].is_null());
    let decay = ws.metric("Lab", "sustain.throughput_decay_pct");
    assert!(decay["value"].as_f64().unwrap() < 2.0, "{decay}");
    // The inventory names the card, so the delivery checks see it.
    let runs = ws.json(&["runs", "show", "1"]);
    assert_eq!(
        runs["inventory"][0]["accelerator"]["model"], "H200",
        "{runs}"
    );

    // Side by side: a second platform on the same model, slower.
    ws.ok(&["platform", "add", "Other"]);
    let slower_log = ws.dir.path().join("other.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut other: serde_json::Value = serde_json::from_str(&text).unwrap();
    for r in other["results"].as_array_mut().unwrap() {
        for k in ["median", "min", "max"] {
            r[k] = serde_json::json!(r[k].as_f64().unwrap() * 0.5);
        }
    }
    std::fs::write(&slower_log, other.to_string()).unwrap();
    ws.ok(&[
        "import",
        "--platform",
        "Other",
        slower_log.to_str().unwrap(),
    ]);
    let peers = ws.json(&["perf"]);
    assert_eq!(peers[0]["model"], "NVIDIA H200 141GB", "{peers}");
    let rows = peers[0]["platforms"].as_array().unwrap();
    let gemm_of = |name: &str| {
        rows.iter().find(|p| p["platform"] == name).unwrap()["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["test"] == "gemm bf16")
            .unwrap()
            .clone()
    };
    assert_eq!(gemm_of("Lab")["percentile"], 100.0);
    assert_eq!(gemm_of("Other")["percentile"], 0.0);
    assert_eq!(gemm_of("Other")["peers"], 2);
    let table = ws.ok(&["perf"]);
    assert!(table.contains("above 100 % of 1 other"), "{table}");
}

#[test]
fn a_planted_log_says_so_and_a_broken_one_changes_nothing() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    ws.ok(&["import", "--platform", "Lab", &fixture("perf/h200.json")]);
    let scores = |ws: &Workspace| {
        let mut explained = ws.json(&["explain", "Lab"]);
        explained.as_object_mut().unwrap().remove("runs");
        (
            explained,
            ws.json(&["rank"])["ranking"]["platforms"].clone(),
        )
    };
    let before = scores(&ws);
    // A log with a planted slowdown measures no platform: kept and shown,
    // and every score stays as it was.
    let planted = ws.ok(&[
        "import",
        "--platform",
        "Lab",
        &fixture("perf/h200-planted-decay.json"),
    ]);
    assert!(
        planted.contains(
            "slowdowns were planted in this perf log to test the analysis (GPU 0 by 15 %): its figures measure no platform; kept, never scored"
        ),
        "{planted}"
    );
    assert_eq!(scores(&ws), before);
    // The real log's decay, not the planted 15 %.
    let decay = ws.metric("Lab", "sustain.throughput_decay_pct")["value"]
        .as_f64()
        .unwrap();
    assert!(decay < 1.0, "{decay}");
    assert!(
        ws.ok(&["runs", "show", "2"])
            .contains("NOT SCORED: slowdowns were planted")
    );

    let text = std::fs::read_to_string(fixture("perf/h200.json")).unwrap();
    let broken = ws.dir.path().join("broken.json");
    std::fs::write(&broken, text.replacen("\"gpu\": 0", "\"gpu\": 3", 1)).unwrap();
    let before = ws.snapshot();
    let out = ws
        .cmd(&["import", "--platform", "Lab", broken.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("broken.json")
            && stderr.contains("results[0] (gemm fp32): GPU 3 is not among"),
        "{stderr}"
    );
    assert_eq!(ws.snapshot(), before);
}
