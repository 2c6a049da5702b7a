//! The field's health checks as evidence: a planted `#wrong` and a planted
//! FAULTY GPU lower sustain against a healthy twin, a node whose collective
//! runs at 60 % of its peers is a straggler, and a node found bad that is
//! bad again when it comes back is counted so.

use crate::util::{Workspace, fixture, metric_in};

#[path = "../shared/planting.rs"]
mod planting;
use planting::plant_wrong;

const BURN: &str = "health/gpu-burn/a100-8gpu-ok-cr-progress.log";
const NCCL: &str = "health/nccl/h100-8gpu-1node-v2.17.8-allcollectives.log";

/// A copy of `fixture` with `edit` applied, in the workspace's folder.
fn planted(ws: &Workspace, name: &str, file: &str, edit: impl Fn(String) -> String) -> String {
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    let path = ws.dir.path().join(name);
    std::fs::write(&path, edit(text)).unwrap();
    path.display().to_string()
}

fn value(ws: &Workspace, platform: &str, key: &str) -> f64 {
    metric_in(&ws.json(&["explain", platform]), key)["value"]
        .as_f64()
        .unwrap_or_else(|| panic!("{platform}: {key} has no value"))
}

fn sustain_score(ws: &Workspace, platform: &str) -> f64 {
    ws.json(&["explain", platform])["breakpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["breakpoint"] == "sustain")
        .unwrap()["score"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_planted_wrong_result_and_a_planted_faulty_gpu_lower_sustain_against_a_healthy_twin() {
    let ws = Workspace::new();
    for p in ["Healthy", "Planted"] {
        ws.ok(&["platform", "add", p]);
    }
    ws.ok(&["import", &fixture(BURN), "--platform", "Healthy"]);
    ws.ok(&["import", &fixture(NCCL), "--platform", "Healthy"]);
    let burn = planted(&ws, "burn.log", BURN, |t| {
        t.replacen("GPU 3: OK", "GPU 3: FAULTY", 1)
    });
    let out = ws.ok(&["import", &burn, "--platform", "Planted"]);
    assert!(out.contains("GPU 3: gpu-burn: FAULTY"), "{out}");
    let nccl = planted(&ws, "nccl.log", NCCL, |t| plant_wrong(&t));
    let out = ws.ok(&["import", &nccl, "--platform", "Planted"]);
    assert!(out.contains("all_reduce: 3 wrong results"), "{out}");

    assert_eq!(value(&ws, "Healthy", "sustain.faulty_gpus_pct"), 0.0);
    // GPU 3 of the burn, and one of the 8 GPUs the collective judged (it
    // names none), of 16 observed.
    let faulty = value(&ws, "Planted", "sustain.faulty_gpus_pct");
    assert!((faulty - 12.5).abs() < 1e-6, "{faulty}");
    assert!(sustain_score(&ws, "Planted") < sustain_score(&ws, "Healthy"));
    // The all-reduce inside the node held against NVLink.
    let fabric = value(&ws, "Healthy", "sustain.fabric_nominal_pct");
    assert!(fabric > 80.0 && fabric < 110.0, "{fabric}");
}

#[test]
fn a_node_at_sixty_percent_of_its_peers_is_a_straggler_and_is_named() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Fleet"]);
    for (n, share) in [(1, 1.0), (2, 1.0), (3, 0.6)] {
        let file = planted(&ws, &format!("node-{n}.log"), NCCL, |t| {
            let t = t.replace("cnode3-002", &format!("node-{n}"));
            scale_busbw(&t, share)
        });
        ws.ok(&["import", &file, "--platform", "Fleet"]);
    }
    let explained = ws.json(&["explain", "Fleet"]);
    let stragglers = metric_in(&explained, "sustain.straggler_nodes_pct")["value"]
        .as_f64()
        .unwrap();
    assert!((stragglers - 100.0 / 3.0).abs() < 1e-6, "{stragglers}");
    let text = ws.ok(&["explain", "Fleet", "sustain"]);
    assert!(text.contains("node-3: all_reduce"), "{text}");
    assert!(text.contains("40 % below, a straggler"), "{text}");
}

/// Every bus bandwidth of the output times `share`.
fn scale_busbw(text: &str, share: f64) -> String {
    let mut out = String::new();
    let mut columns: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#       size") || t.starts_with("# size") {
            columns = t
                .trim_start_matches('#')
                .split_whitespace()
                .map(str::to_string)
                .collect();
        }
        let cells: Vec<&str> = t.split_whitespace().collect();
        if !t.starts_with('#') && !columns.is_empty() && cells.len() == columns.len() {
            let scaled: Vec<String> = cells
                .iter()
                .zip(&columns)
                .map(|(c, name)| match (name.as_str(), c.parse::<f64>()) {
                    ("busbw" | "algbw", Ok(v)) => format!("{:.2}", v * share),
                    _ => c.to_string(),
                })
                .collect();
            out.push_str(&format!("  {}\n", scaled.join("  ")));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn a_bad_node_that_comes_back_bad_is_counted_again() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Repairs"]);
    // node-9's all-reduce returns wrong data, the node comes back and does
    // again; node-8 does once and comes back sound.
    for (file, host, wrong) in [
        ("a.log", "node-9", true),
        ("b.log", "node-8", true),
        ("c.log", "node-9", true),
        ("d.log", "node-8", false),
    ] {
        let path = planted(&ws, file, NCCL, |t| {
            // The same node's second run differs by a comment line (the
            // same bytes twice are one import).
            let t = t.replace("cnode3-002", host) + &format!("# {file}\n");
            if wrong { plant_wrong(&t) } else { t }
        });
        ws.ok(&["import", &path, "--platform", "Repairs"]);
    }
    let recurring = value(&ws, "Repairs", "sustain.recurring_bad_pct");
    assert!((recurring - 50.0).abs() < 1e-6, "{recurring}");
    let text = ws.ok(&["explain", "Repairs", "sustain"]);
    assert!(text.contains("node node-9: bad in run #1"), "{text}");
    assert!(text.contains("back in run #4 and sound since"), "{text}");
}
