//! The probe over IPC: no-GPU state, sampling and delivery checks on a
//! replayed trace, and workloads behind the native confirmation.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use crate::harness::*;

#[test]
fn a_machine_without_gpus_gets_an_explanation_not_a_failure() {
    // A recorded machine whose driver listed no GPU: the same answer
    // whichever machine runs the test.
    let empty = format!(
        "{}/../tests/fixtures/probe/no-gpu.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let h = Harness::with_trace(Some(&empty));
    let probe = h.ok("probe_inventory", json!({}));
    assert_eq!(probe["status"], "no_gpu", "{probe}");
    let message = probe["message"].as_str().unwrap();
    assert!(
        message.contains("reports no GPU") && message.contains("breakpoint import"),
        "{message}"
    );
    assert!(probe["gpus"].as_array().unwrap().is_empty());
    // Nothing to check an order against, and said so.
    let id = h.platform("p");
    let offering = h.ok(
        "add_offering",
        json!({ "platformId": id, "offering": {
            "accelerator": "NVIDIA A100-SXM4-80GB", "count": 1, "currency": "CNY",
            "price_on_demand": 10.0, "price_spot": null, "region": null } }),
    );
    let err = h
        .call("probe_check", json!({ "offeringId": offering }))
        .unwrap_err();
    assert_eq!(err["kind"], "no_gpu", "{err}");
}

#[test]
fn a_replayed_machine_lists_its_gpus() {
    let h = Harness::with_trace(Some(&trace()));
    let probe = h.ok("probe_inventory", json!({}));
    assert_eq!(probe["status"], "ready", "{probe}");
    let gpus = probe["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2, "{probe}");
    assert_eq!(gpus[0]["canonical"], "NVIDIA A100 80GB SXM", "{probe}");
    assert_eq!(gpus[1]["pcie"], "Gen4 x8", "{probe}");
    assert!(
        probe["message"]
            .as_str()
            .unwrap()
            .contains("no GPU is being read"),
        "a replay says it is one"
    );
}

#[test]
fn sampling_a_replayed_trace_emits_ticks_and_writes_an_importable_log() {
    use std::sync::mpsc;
    use tauri::Listener;

    let h = Harness::with_trace(Some(&trace()));
    let probe = h.ok("probe_inventory", json!({}));
    assert_eq!(probe["status"], "ready", "{probe}");
    assert!(
        probe["message"].as_str().unwrap().contains("Replaying"),
        "the screen must say it is a replay"
    );

    let (ticks, tick_rx) = mpsc::channel();
    h.webview.listen_any("probe-tick", move |e| {
        let _ = ticks.send(e.payload().to_string());
    });
    let (done, done_rx) = mpsc::channel();
    h.webview.listen_any("probe-finished", move |e| {
        let _ = done.send(e.payload().to_string());
    });

    let err = h
        .call("probe_start", json!({ "intervalMs": 10 }))
        .unwrap_err();
    assert_eq!(err["field"], "interval_ms", "{err}");

    let started = h.ok("probe_start", json!({ "intervalMs": 100 }));
    let timeout = std::time::Duration::from_secs(10);
    for _ in 0..3 {
        let tick: Value = serde_json::from_str(&tick_rx.recv_timeout(timeout).unwrap()).unwrap();
        assert!(!tick["gpus"].as_array().unwrap().is_empty(), "{tick}");
    }
    assert_eq!(h.ok("cancel_job", json!({ "job": started["job"] })), true);
    let finished: Value = serde_json::from_str(&done_rx.recv_timeout(timeout).unwrap()).unwrap();
    assert!(finished["error"].is_null(), "{finished}");
    assert!(finished["samples"].as_u64().unwrap() >= 3, "{finished}");

    let id = h.platform("probed");
    let rows = h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [started["log_path"]] }),
    );
    assert_eq!(rows[0]["status"], "imported", "{rows}");
    assert_eq!(rows[0]["format"], "probe-log", "{rows}");
}

#[test]
fn a_conformity_check_names_each_mismatch_and_is_stored_as_a_run() {
    let h = Harness::with_trace(Some(&trace()));
    let id = h.platform("p");
    let order = |accelerator: &str, count: u32| {
        h.ok(
            "add_offering",
            json!({ "platformId": id, "offering": {
                "accelerator": accelerator, "count": count, "currency": "CNY",
                "price_on_demand": 10.0, "price_spot": null, "region": null } }),
        )
    };
    // The trace holds two A100 80GB SXM.
    let matching = order("NVIDIA A100-SXM4-80GB", 2);
    let check = h.ok("probe_check", json!({ "offeringId": matching }));
    assert_eq!(check["gpus"], 2);
    assert_eq!(check["mismatches"], json!([]), "{check}");

    let wrong = order("NVIDIA H100 80GB HBM3", 8);
    let check = h.ok("probe_check", json!({ "offeringId": wrong }));
    let mismatches: Vec<&str> = check["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(mismatches.iter().any(|m| m.starts_with("model")), "{check}");
    assert!(mismatches.iter().any(|m| m.starts_with("count")), "{check}");

    let runs = h.ok("list_runs", json!({}));
    assert_eq!(
        runs.as_array().unwrap().len(),
        2,
        "each check is a delivery run"
    );
    assert_eq!(runs[0]["kind"], "delivery");

    let err = h
        .call("probe_check", json!({ "offeringId": 999 }))
        .unwrap_err();
    assert_eq!(err["kind"], "not_found", "{err}");
}

#[test]
fn a_workload_runs_only_after_the_native_dialog_says_yes() {
    let h = Harness::with_trace(Some(&trace()));
    let logs = h.dir.path().join("probe-logs");
    let run = json!({
        "commandLine": "sh -c 'echo started in $PWD; sleep 0.3; exit 4'",
        "dir": h.dir.path(),
        "intervalMs": 100,
    });

    // Refused: nothing runs, nothing is written, the probe stays free.
    let err = h.call("probe_run", run.clone()).unwrap_err();
    assert_eq!(err["kind"], "cancelled", "{err}");
    let asked = h.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].command,
        ["sh", "-c", "echo started in $PWD; sleep 0.3; exit 4"],
        "the dialog shows the exact argv that would run"
    );
    assert_eq!(asked[0].dir.as_deref(), Some(h.dir.path()));
    assert_eq!(files_in(&logs), 0, "a refused workload writes nothing");

    // Allowed: it runs under the probe and reports how it went.
    h.consent_answer.store(true, Ordering::SeqCst);
    let ticks = events(&h, "probe-tick");
    let done = events(&h, "probe-finished");
    let started = h.ok("probe_run", run);
    let timeout = std::time::Duration::from_secs(20);
    let tick = ticks.recv_timeout(timeout).unwrap();
    assert!(!tick["gpus"].as_array().unwrap().is_empty(), "{tick}");
    let finished = done.recv_timeout(timeout).unwrap();
    assert!(finished["error"].is_null(), "{finished}");
    let workload = &finished["workload"];
    assert_eq!(workload["exit_code"], 4, "{finished}");
    assert_eq!(workload["stopped"], false);
    assert!(workload["wall_s"].as_f64().unwrap() >= 0.3, "{workload}");
    assert_eq!(
        workload["output_tail"],
        json!([format!("started in {}", h.dir.path().display())])
    );

    let id = h.platform("wrapped");
    let rows = h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [started["log_path"]] }),
    );
    assert_eq!(rows[0]["status"], "imported", "{rows}");
}

#[test]
fn a_running_workload_is_stopped_by_cancel_job() {
    let h = Harness::with_trace(Some(&trace()));
    h.consent_answer.store(true, Ordering::SeqCst);
    let done = events(&h, "probe-finished");
    let started = h.ok(
        "probe_run",
        json!({ "commandLine": "sleep 60", "dir": null, "intervalMs": 100 }),
    );
    // One probe job at a time: a second one is refused before anyone is asked.
    let err = h
        .call("probe_start", json!({ "intervalMs": 100 }))
        .unwrap_err();
    assert_eq!(err["kind"], "conflict", "{err}");
    let before = h.asked.lock().unwrap().len();
    let err = h
        .call(
            "probe_run",
            json!({ "commandLine": "true", "dir": null, "intervalMs": 100 }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "conflict", "{err}");
    assert_eq!(h.asked.lock().unwrap().len(), before);

    assert_eq!(h.ok("cancel_job", json!({ "job": started["job"] })), true);
    let finished = done
        .recv_timeout(std::time::Duration::from_secs(20))
        .unwrap();
    assert_eq!(finished["workload"]["stopped"], true, "{finished}");
    assert!(
        finished["workload"]["exit_code"].is_null(),
        "ended by SIGTERM"
    );
    // The probe is free again.
    let again = h.ok("probe_start", json!({ "intervalMs": 100 }));
    h.ok("cancel_job", json!({ "job": again["job"] }));
}

#[test]
fn a_workload_that_cannot_start_is_refused_next_to_its_field_without_asking() {
    let h = Harness::with_trace(Some(&trace()));
    h.consent_answer.store(true, Ordering::SeqCst);
    for (line, dir, field, says) in [
        (
            "python3 'train.py",
            None,
            "command_line",
            "quote is not closed",
        ),
        ("   ", None, "command_line", "type the command"),
        (
            "no-such-program --epochs 1",
            None,
            "command_line",
            "no program \"no-such-program\" on PATH",
        ),
        ("true", Some("/no/such/folder"), "dir", "no directory"),
    ] {
        let err = h
            .call(
                "probe_run",
                json!({ "commandLine": line, "dir": dir, "intervalMs": 100 }),
            )
            .unwrap_err();
        assert_eq!(err["kind"], "invalid", "{line}: {err}");
        assert_eq!(err["field"], field, "{line}: {err}");
        assert!(err["message"].as_str().unwrap().contains(says), "{err}");
    }
    assert!(h.asked.lock().unwrap().is_empty(), "nobody was asked");
    assert_eq!(files_in(&h.dir.path().join("probe-logs")), 0);
}
