//! `breakpoint probe` through the binary: the real NVML source on a machine
//! without a driver, and recorded traces replayed for everything else.

use std::path::PathBuf;
use std::time::Duration;

use crate::util::Workspace;

fn trace() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/probe/trace.json")
        .display()
        .to_string()
}

fn nvml_present() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
        "/usr/lib64/libnvidia-ml.so.1",
        "/usr/lib/libnvidia-ml.so.1",
    ]
    .iter()
    .any(|p| std::path::Path::new(p).exists())
}

#[test]
fn without_a_driver_the_probe_says_so_in_one_line_and_exits_3() {
    if nvml_present() {
        // On a GPU machine the same command must work instead.
        let ws = Workspace::new();
        ws.ok(&["probe", "inventory"]);
        return;
    }
    let ws = Workspace::new();
    for args in [
        vec!["probe", "inventory"],
        vec!["probe", "sample", "--duration", "1s"],
        vec!["probe", "run", "--", "true"],
    ] {
        let out = ws.cmd(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: no NVIDIA driver found (libnvidia-ml.so.1 could not be loaded), nor npu-smi, amd-smi, rocm-smi or cnmon listing an accelerator; run this on a machine with one, or import a log with 'breakpoint import'\n"
        );
    }
    assert!(!ws.db.exists(), "probing touched no database");
}

#[test]
fn inventory_and_conformity_check_on_a_recorded_machine() {
    let ws = Workspace::new();
    let gpus = ws.json(&["probe", "inventory", "--replay-trace", &trace()]);
    assert_eq!(gpus.as_array().unwrap().len(), 2);
    assert_eq!(gpus[1]["pcie_width_current"], 8);
    let out = ws
        .cmd(&[
            "probe",
            "check",
            "--replay-trace",
            &trace(),
            "--expect-gpu",
            "A100 80GB SXM",
            "--expect-count",
            "2",
            "--expect-pcie-width",
            "16",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 mismatch(es) between the order and this machine:\n  pcie_width: ordered PCIe x16, found PCIe x8\n"
    );
    ws.ok(&[
        "probe",
        "check",
        "--replay-trace",
        &trace(),
        "--expect-gpu",
        "A100 80GB SXM",
        "--expect-count",
        "2",
    ]);
    // Against a stored offering, the check is kept as a delivery run.
    ws.ok(&["platform", "add", "--template", "autodl"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "autodl",
        "--accelerator",
        "A100 80GB SXM",
        "--count",
        "2",
        "--pcie-width",
        "16",
        "--price-on-demand",
        "9",
    ]);
    let out = ws
        .cmd(&[
            "probe",
            "check",
            "--replay-trace",
            &trace(),
            "--offering",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let runs = ws.json(&["runs", "list"]);
    assert_eq!(runs[0]["kind"], "delivery");
    assert_eq!(runs[0]["source"], "probe");
    let explained = ws.json(&["explain", "autodl", "startup"]);
    let m = explained["breakpoints"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "startup.delivery_mismatches")
        .unwrap()
        .clone();
    assert_eq!(m["value"], 1.0);
}

#[test]
fn sampling_writes_a_log_that_imports() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Node pool"]);
    let log = ws.dir.path().join("run.jsonl");
    let out = ws.ok(&[
        "probe",
        "sample",
        "--replay-trace",
        &trace(),
        "--interval",
        "100ms",
        "--duration",
        "1s",
        "-o",
        log.to_str().unwrap(),
        "--platform",
        "Node pool",
        "--import",
    ]);
    assert!(
        out.contains("2 GPU(s)")
            && out.contains("(lost GPU [1])")
            && out.contains("imported as run 1"),
        "{out}"
    );
    let run = ws.json(&["runs", "show", "1"]);
    assert_eq!(run["provenance"]["format"], "probe-log");
    assert_eq!(run["provenance"]["host"], "node-7");
    assert_eq!(run["source"], "probe");
    assert!(run["sample_count"].as_u64().unwrap() >= 15);
    assert!(
        run["events"].as_array().unwrap().len() >= 4,
        "three XIDs and a lost GPU"
    );
}

#[test]
fn a_killed_sampler_leaves_a_log_that_imports() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Node pool"]);
    let log = ws.dir.path().join("killed.jsonl");
    let mut child = ws
        .process(&[
            "probe",
            "sample",
            "--replay-trace",
            &trace(),
            "--interval",
            "100ms",
            "-o",
            log.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    child.kill().unwrap(); // SIGKILL: no summary, maybe a cut line
    child.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("\"summary\""),
        "killed before it could finish"
    );
    let out = ws.ok(&["import", log.to_str().unwrap(), "--platform", "Node pool"]);
    assert!(out.contains("probe-log → run 1"), "{out}");
    assert!(
        ws.json(&["runs", "show", "1"])["sample_count"]
            .as_u64()
            .unwrap()
            >= 10
    );
}

#[test]
fn a_wrapped_workload_passes_its_exit_code_through() {
    let ws = Workspace::new();
    let log = ws.dir.path().join("w.jsonl");
    let out = ws
        .cmd(&[
            "probe",
            "run",
            "--replay-trace",
            &trace(),
            "--interval",
            "100ms",
            "-o",
            log.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "sleep 0.5; exit 7",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("workload: exit 7") && stderr.contains("first GPU activity"),
        "{stderr}"
    );
    let last = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(
        last.contains("\"wrapped_command\":\"sh -c 'sleep 0.5; exit 7'\"")
            && last.contains("\"exit_code\":7"),
        "{last}"
    );
    ws.fails(
        &["probe", "sample", "--interval", "50ms"],
        1,
        "error: --interval: the interval must be from 100 ms to 60 min (it was 50 ms)",
    );
}

/// A directory holding a fake vendor tool that prints a recorded output,
/// for a PATH on which no NVIDIA driver exists.
fn fake_tool(ws: &Workspace, program: &str, output_fixture: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let dir = ws.dir.path().join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join(program);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat '{}'\n",
            crate::util::fixture(output_fixture)
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn without_nvml_the_probe_reads_an_ascend_machine_through_npu_smi() {
    let ws = Workspace::new();
    let path = fake_tool(&ws, "npu-smi", "npu-smi/info-310p-duo.txt");
    let out = ws
        .cmd(&["probe", "inventory", "--json"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inventory: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let gpus = inventory["gpus"]
        .as_array()
        .or(inventory.as_array())
        .unwrap();
    assert_eq!(gpus.len(), 2, "{inventory}");
    assert_eq!(gpus[0]["accelerator"]["family"], "Ascend 310P");

    ws.ok(&["platform", "add", "Ascend pool"]);
    let log = ws.dir.path().join("npu.jsonl");
    let out = ws
        .cmd(&[
            "probe",
            "sample",
            "--interval",
            "200ms",
            "--duration",
            "1s",
            "-o",
            log.to_str().unwrap(),
            "--platform",
            "Ascend pool",
            "--import",
        ])
        .env("PATH", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("imported as run 1"), "{stdout}");
    let run = ws.json(&["runs", "show", "1"]);
    assert!(run["sample_count"].as_u64().unwrap() >= 8, "{run}");
    let notes: Vec<&str> = run["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["detail"].as_str())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("readings through npu-smi")),
        "{notes:?}"
    );
}
