//! Runs arrive through import and the probe; until those exist here the
//! suite records them through the core, then inspects them with the CLI.

use breakpoint_api::Store;
use breakpoint_api::domain::{NewRun, Provenance, RunKind, SourceKind};
use breakpoint_model::samples::{Field, Sample};

use crate::util::Workspace;

fn with_run() -> (Workspace, i64) {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "autodl"]);
    let store = Store::open(&ws.db).unwrap();
    let platform = store.platform("AutoDL").unwrap();
    let mut run = NewRun::new(platform.id, RunKind::Sustain, SourceKind::Import);
    run.provenance = Provenance {
        file_name: Some("gpu.csv".into()),
        sha256: Some("ab".repeat(32)),
        format: Some("nvidia-smi-csv".into()),
        host: Some("node-1".into()),
    };
    run.started_at = Some("2024-06-01T00:00:00Z".parse().unwrap());
    run.ended_at = Some("2024-06-01T02:17:00Z".parse().unwrap());
    let run = store.create_run(run).unwrap();
    store
        .atomically(|s| -> breakpoint_api::Result<_> {
            let mut w = s.sample_writer(run.id)?;
            for i in 0..100 {
                w.push(
                    &Sample::new(1_717_200_000_000 + i * 1000, 0).with(Field::PowerMw, 250_000),
                )?;
            }
            w.finish()
        })
        .unwrap();
    (ws, run.id)
}

#[test]
fn runs_are_listed_shown_and_removed() {
    let (ws, id) = with_run();
    let runs = ws.json(&["runs", "list", "--platform", "AutoDL"]);
    assert_eq!(runs[0]["id"], id);
    assert_eq!(runs[0]["sample_count"], 100);
    assert_eq!(runs[0]["provenance"]["format"], "nvidia-smi-csv");
    let table = ws.ok(&["runs", "list"]);
    assert!(
        table.contains("gpu.csv") && table.contains("2 h 17 min"),
        "{table}"
    );

    let shown = ws.json(&["runs", "show", &id.to_string()]);
    assert_eq!(shown["platform"], "AutoDL");
    assert_eq!(shown["sample_gpus"], serde_json::json!([0]));
    let text = ws.ok(&["runs", "show", &id.to_string()]);
    assert!(text.contains(&"ab".repeat(32)), "{text}");

    assert_eq!(ws.json(&["db", "info"])["samples"], 100);
    // Evidence is not deleted on a typo: like `platform rm`, it asks.
    ws.fails(
        &["runs", "rm", &id.to_string()],
        1,
        &format!("error: run {id} holds 100 sample(s) and 0 record(s) (from gpu.csv); add --yes to delete them"),
    );
    ws.ok(&["runs", "rm", &id.to_string(), "--yes"]);
    assert_eq!(ws.json(&["runs", "list"]), serde_json::json!([]));
    assert_eq!(ws.json(&["db", "info"])["samples"], 0);
}

#[test]
fn removing_a_platform_with_runs_needs_yes() {
    let (ws, _) = with_run();
    ws.fails(
        &["platform", "rm", "AutoDL"],
        1,
        "error: platform \"AutoDL\" has 0 offering(s) and 1 run(s); add --yes to delete them too",
    );
    ws.ok(&["platform", "rm", "AutoDL", "--yes"]);
    let info = ws.json(&["db", "info"]);
    assert_eq!(
        (info["runs"].as_i64(), info["samples"].as_i64()),
        (Some(0), Some(0))
    );
}

#[test]
fn a_runs_events_health_checks_and_links_are_shown_by_meaning() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "autodl"]);
    let f = crate::util::fixture;
    ws.ok(&[
        "import",
        &f("kernel/dmesg-fell-off.log"),
        &f("dcgm-diag/r3-memory-fail-8gpu.txt"),
        &f("lspci/h100-8gpu-one-x8.txt"),
        "--platform",
        "AutoDL",
    ]);
    // Kernel logs are imported after the batch's other files (they may
    // take GPU numbers from them).
    let id_of = |format: &str| {
        ws.json(&["runs", "list"])
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["provenance"]["format"] == format)
            .map(|r| r["id"].to_string())
            .unwrap()
    };
    let (kernel, diag, lspci) = (id_of("kernel-log"), id_of("dcgmi-diag"), id_of("lspci"));
    assert_eq!(kernel, "3");
    // The kernel log: Xids by meaning, GPUs by PCI address, blame.
    let out = ws.ok(&["runs", "show", &kernel]);
    assert!(
        out.contains("GPU 6 (00000000:B7:00.0)")
            && out.contains("xid 79")
            && out.contains("GPU has fallen off the bus"),
        "{out}"
    );
    assert!(out.contains("no (application)"), "{out}");
    let detail = ws.json(&["runs", "show", &kernel]);
    let fell = detail["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["code"] == 79)
        .unwrap();
    assert_eq!(
        (fell["blame"].as_str(), fell["counted"].as_bool()),
        (Some("platform"), Some(true))
    );

    // The health check: the failing hardware test by GPU, a faulty GPU
    // rather than a difference from the order.
    let out = ws.ok(&["runs", "show", &diag]);
    assert!(
        out.contains("faulty GPU: GPU 0: dcgmi diag GPU Memory failed"),
        "{out}"
    );
    assert!(!out.contains("not as ordered"), "{out}");
    assert!(out.contains("health checks"), "{out}");

    // lspci: the narrowed link.
    let out = ws.ok(&["runs", "show", &lspci]);
    assert!(
        out.contains("not as ordered: pcie_link: PCIe x8 on 1 GPU (00000000:AB:00.0)"),
        "{out}"
    );

    // explain gathers them for the platform.
    let out = ws.ok(&["explain", "AutoDL"]);
    assert!(out.contains("Hardware evidence from the logs"), "{out}");
    assert!(out.contains("GPU has fallen off the bus"), "{out}");
    assert!(
        out.contains(&format!(
            "health check GPU Memory Fail on GPU 0 (run #{diag})"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "GPU 5 (00000000:AB:00.0) runs its PCIe link at x8 of x16 (run #{lspci})"
        )),
        "{out}"
    );
}
