//! The IPC commands as the UI calls them: through Tauri's invoke path on the
//! mock runtime (no window, no web view), against a fresh database.

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use breakpoint_app::consent::{WorkloadConsent, WorkloadRequest};
use breakpoint_app::state::AppState;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

struct Harness {
    _app: App<MockRuntime>,
    webview: WebviewWindow<MockRuntime>,
    dir: tempfile::TempDir,
    /// What the native workload dialog would answer, and what it was asked.
    consent_answer: Arc<AtomicBool>,
    asked: Arc<Mutex<Vec<WorkloadRequest>>>,
}

impl Harness {
    fn new() -> Harness {
        Harness::with_trace(None)
    }

    /// A harness whose probe replays a recorded trace instead of NVML.
    fn with_trace(trace: Option<&str>) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let mut state = AppState::open_at(dir.path().join("app.db"), "en").unwrap();
        state.probe_trace = trace.map(std::path::PathBuf::from);
        let consent_answer = Arc::new(AtomicBool::new(false));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let (answer, log) = (consent_answer.clone(), asked.clone());
        let consent = WorkloadConsent::new(move |request| {
            log.lock().unwrap().push(request.clone());
            answer.load(Ordering::SeqCst)
        });
        let app = mock_builder()
            .manage(state)
            .manage(consent)
            .invoke_handler(breakpoint_app::handler())
            .build(mock_context(noop_assets()))
            .unwrap();
        let webview = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        Harness {
            _app: app,
            webview,
            dir,
            consent_answer,
            asked,
        }
    }

    /// Invokes a command; Ok is its JSON result, Err the `{ kind, message }`.
    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.webview, request).map(|body| body.deserialize::<Value>().unwrap())
    }

    /// A new platform of kind "other"; its id.
    fn platform(&self, name: &str) -> Value {
        self.ok(
            "add_platform",
            json!({ "platform": { "name": name, "kind": "other", "notes": null } }),
        )
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.call(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }
}

fn fixture(path: &str) -> String {
    format!(
        "{}/../tests/fixtures/logs/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn an_empty_database_then_the_demo_ranks_six_platforms() {
    let h = Harness::new();
    let info = h.ok("app_info", json!({}));
    assert_eq!(info["platforms"], 0);
    assert_eq!(info["demo"], false);

    h.ok("load_demo", json!({}));
    let view = h.ok("rank", json!({ "request": { "samples": 200, "seed": 1 } }));
    let platforms = view["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), 6);
    let ranks: Vec<_> = platforms
        .iter()
        .map(|p| p["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5, 6]);
    assert!(h.ok("app_info", json!({}))["demo"].as_bool().unwrap());
}

#[test]
fn slider_weights_re_rank_and_bad_weights_are_refused_with_a_kind() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let order = |weights: Value| -> Vec<String> {
        h.ok(
            "rank",
            json!({ "request": { "weights": weights, "samples": 10 } }),
        )["platforms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_ne!(order(json!([1, 1, 1, 1])), order(json!([0, 0, 0, 1])));

    let err = h
        .call("rank", json!({ "request": { "weights": [1, 1, 1] } }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert!(err["message"].as_str().unwrap().contains("four"));
    let err = h
        .call("rank", json!({ "request": { "weights": [1, -1, 1, 1] } }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
}

#[test]
fn a_cell_explains_its_metrics_and_runs() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let top = h.ok("rank", json!({ "request": { "samples": 10 } }))["platforms"][0].clone();
    let cell = h.ok(
        "explain",
        json!({ "platformId": top["id"], "breakpoint": "sustain", "request": { "samples": 0 } }),
    );
    let metrics = cell["metrics"].as_array().unwrap();
    assert!(metrics.len() >= 5, "{cell}");
    assert!(
        metrics
            .iter()
            .any(|m| !m["runs"].as_array().unwrap().is_empty())
    );
}

#[test]
fn platforms_are_added_listed_and_validated() {
    let h = Harness::new();
    let name = "<img src=x onerror=alert(1)> 阿里云";
    let id = h.ok(
        "add_platform",
        json!({ "platform": { "name": name, "kind": "hyperscaler", "notes": null } }),
    );
    let list = h.ok("list_platforms", json!({}));
    assert_eq!(list[0]["name"], name, "names are stored verbatim");
    assert_eq!(list[0]["id"], id);

    let err = h
        .call(
            "add_platform",
            json!({ "platform": { "name": name, "kind": "hyperscaler", "notes": null } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "conflict", "{err}");
    let err = h
        .call(
            "add_platform",
            json!({ "platform": { "name": "x", "kind": "spaceship", "notes": null } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "invalid", "{err}");
    let err = h.call("platform_detail", json!({ "id": 999 })).unwrap_err();
    assert_eq!(err["kind"], "not_found", "{err}");

    let templates = h.ok("templates", json!({}));
    let first = templates[0]["name"].as_str().unwrap().to_string();
    let tid = h.ok("add_template", json!({ "name": first }));
    let detail = h.ok("platform_detail", json!({ "id": tid }));
    assert!(!detail["claims"].as_array().unwrap().is_empty(), "{detail}");

    h.ok("delete_platform", json!({ "id": tid }));
    assert_eq!(
        h.ok("list_platforms", json!({})).as_array().unwrap().len(),
        1
    );
}

#[test]
fn importing_reports_each_file_and_a_bad_file_changes_nothing() {
    let h = Harness::new();
    let id = h.platform("p");
    let rows = h.ok(
        "import_files",
        json!({
            "platformId": id,
            "paths": [fixture("smi-csv/driver-610.csv"), fixture("smi-csv/bad-number.csv")],
        }),
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["status"], "imported", "{}", rows[0]);
    assert_eq!(rows[0]["samples"], 10);
    assert_eq!(rows[1]["status"], "failed", "{}", rows[1]);
    let why = rows[1]["error"].as_str().unwrap();
    assert!(
        why.contains("bad-number.csv:5:"),
        "names file and line: {why}"
    );

    let runs = h.ok("list_runs", json!({}));
    assert_eq!(
        runs.as_array().unwrap().len(),
        1,
        "the failed file left no run"
    );
    let detail = h.ok("run_detail", json!({ "id": runs[0]["id"] }));
    assert_eq!(detail["run"]["samples"], 10, "{detail}");
    assert_eq!(detail["run"]["records"], 0, "{detail}");

    // A table-based run lists its records, not zero samples alone.
    let rows = h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [fixture("tables/startup-attempts.csv")] }),
    );
    assert_eq!(rows[0]["status"], "imported", "{rows}");
    let runs = h.ok("list_runs", json!({}));
    assert_eq!(runs[1]["samples"], 0, "{runs}");
    assert_eq!(runs[1]["records"], 5, "{runs}");
}

#[test]
fn the_report_is_written_where_asked_and_a_bad_date_is_refused() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let err = h.call("open_report", json!({})).unwrap_err();
    assert_eq!(err["kind"], "not_found", "nothing exported yet: {err}");
    let path = h.dir.path().join("decision.pdf");
    let result = h.ok(
        "export_report",
        json!({ "request": { "path": path, "lang": "en", "title": null, "date": "2026-11-30" } }),
    );
    assert!(result["pages"].as_u64().unwrap() >= 3, "{result}");
    assert!(std::fs::read(&path).unwrap().starts_with(b"%PDF"));

    let err = h
        .call(
            "export_report",
            json!({ "request": { "path": h.dir.path().join("x.pdf"), "lang": "en", "title": null, "date": "30/11/2026" } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert!(!h.dir.path().join("x.pdf").exists());
}

#[test]
fn billing_prices_a_workload_on_every_platform() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let bills = h.ok(
        "bill",
        json!({ "workload": "compute=1h42m18s,io-wait=34m42s" }),
    );
    assert_eq!(bills.as_array().unwrap().len(), 6);
    let err = h
        .call("bill", json!({ "workload": "compute=soon" }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
}

#[test]
fn the_probe_without_nvidia_gpus_says_so() {
    let h = Harness::new();
    let probe = h.ok("probe_inventory", json!({}));
    // CI machines have no NVIDIA driver: the state explains instead of failing.
    if probe["status"] == "no_gpu" {
        assert!(!probe["message"].as_str().unwrap().is_empty(), "{probe}");
        assert!(probe["gpus"].as_array().unwrap().is_empty());
    } else {
        assert_eq!(probe["status"], "ready", "{probe}");
    }
}

#[test]
fn every_command_is_on_the_allowlist_and_nothing_else() {
    let root = env!("CARGO_MANIFEST_DIR");
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let start = lib.find("generate_handler![").unwrap();
    let end = start + lib[start..].find(']').unwrap();
    let mut handled: Vec<&str> = lib[start + "generate_handler![".len()..end]
        .split(',')
        .filter_map(|c| c.trim().rsplit("::").next())
        .filter(|c| !c.is_empty())
        .collect();
    let toml = std::fs::read_to_string(format!("{root}/permissions/app.toml")).unwrap();
    let start = toml.find("commands.allow").unwrap();
    let end = start + toml[start..].find(']').unwrap();
    let mut allowed: Vec<&str> = toml[start..end].split('"').skip(1).step_by(2).collect();
    handled.sort_unstable();
    allowed.sort_unstable();
    assert_eq!(handled, allowed);
}

#[test]
fn offerings_and_billing_rules_are_edited_with_field_errors() {
    let h = Harness::new();
    let id = h.platform("p");
    let offering = |count: u32, price: f64| {
        json!({ "platformId": id, "offering": {
            "accelerator": "NVIDIA A100-SXM4-80GB", "count": count, "currency": "CNY",
            "price_on_demand": price, "price_spot": null, "region": null } })
    };
    let oid = h.ok("add_offering", offering(8, 12.8));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert_eq!(detail["offerings"][0]["count"], 8);
    assert!(
        detail["offerings"][0]["accelerator"]
            .as_str()
            .unwrap()
            .contains("A100")
    );

    let err = h.call("add_offering", offering(8, -1.0)).unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert_eq!(err["field"], "price_on_demand", "{err}");
    let err = h.call("add_offering", offering(0, 1.0)).unwrap_err();
    assert_eq!(err["field"], "count", "{err}");

    let rule = |granularity: u32, rounding: &str| {
        json!({ "platformId": id, "rule": {
            "mode": "on-demand", "granularity_s": granularity,
            "minimum_charge_s": 0, "rounding": rounding, "bills_io_wait": false, "bills_idle": true } })
    };
    h.ok("set_billing_rule", rule(3600, "ceil"));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert!(
        detail["billing"][0].as_str().unwrap().contains("3600 s"),
        "{detail}"
    );
    let err = h.call("set_billing_rule", rule(0, "ceil")).unwrap_err();
    assert_eq!(err["field"], "granularity_s", "{err}");
    let err = h
        .call("set_billing_rule", rule(60, "sometimes"))
        .unwrap_err();
    assert_eq!(err["field"], "rounding", "{err}");

    h.ok("delete_offering", json!({ "id": oid }));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert!(detail["offerings"].as_array().unwrap().is_empty());
}

#[test]
fn claims_are_recorded_with_their_source_and_validated() {
    let h = Harness::new();
    let id = h.platform("p");
    let claim = |subject: &str, source: &str| {
        json!({ "platformId": id, "claim": {
            "subject": subject, "value": 99.9, "unit": "%", "text": "SLA availability", "source": source } })
    };
    h.ok("add_claim", claim("availability", "contract §4.2"));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert_eq!(detail["claims"][0]["subject"], "availability", "{detail}");
    assert_eq!(detail["claims"][0]["source"], "contract §4.2");

    let err = h
        .call("add_claim", claim("availability", "  "))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert_eq!(err["field"], "source", "{err}");
    let err = h.call("add_claim", claim("", "x")).unwrap_err();
    assert_eq!(err["field"], "subject", "{err}");
}

#[test]
fn sampling_a_replayed_trace_emits_ticks_and_writes_an_importable_log() {
    use std::sync::mpsc;
    use tauri::Listener;

    let trace = format!(
        "{}/../tests/fixtures/probe/trace.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let h = Harness::with_trace(Some(&trace));
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
fn a_delivery_check_names_each_mismatch_and_is_stored_as_a_run() {
    let trace = format!(
        "{}/../tests/fixtures/probe/trace.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let h = Harness::with_trace(Some(&trace));
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

    let none = Harness::new();
    let err = none
        .call("probe_check", json!({ "offeringId": 1 }))
        .unwrap_err();
    assert!(
        err["kind"] == "no_gpu" || err["kind"] == "not_found",
        "{err}"
    );
}

fn trace() -> String {
    format!(
        "{}/../tests/fixtures/probe/trace.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Collects one event's payloads as they arrive.
fn events(h: &Harness, name: &str) -> std::sync::mpsc::Receiver<Value> {
    use tauri::Listener;
    let (tx, rx) = std::sync::mpsc::channel();
    h.webview.listen_any(name, move |e| {
        let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
    });
    rx
}

fn files_in(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
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

#[test]
fn a_dropped_folder_imports_every_log_in_it_whatever_its_wrapping() {
    let h = Harness::new();
    let id = h.platform("p");
    let folder = h.dir.path().join("copied-home");
    std::fs::create_dir(&folder).unwrap();
    for f in [
        "smi-csv/header-units.csv.gz",
        "smi-csv/powershell-redirect.csv",
        "gpustat/watch-power.log",
    ] {
        let from = std::path::PathBuf::from(fixture(f));
        std::fs::copy(&from, folder.join(from.file_name().unwrap())).unwrap();
    }
    let rows = h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [folder] }),
    );
    let got: Vec<(&str, &str, &str)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
                r["format"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("header-units.csv.gz", "imported", "nvidia-smi-csv"),
            ("powershell-redirect.csv", "imported", "nvidia-smi-csv"),
            ("watch-power.log", "imported", "gpustat"),
        ]
    );

    // A path that is not there stops the import before anything is stored.
    let before = h.ok("list_runs", json!({})).as_array().unwrap().len();
    let err = h
        .call(
            "import_files",
            json!({ "platformId": id, "paths": [folder, h.dir.path().join("gone.csv")] }),
        )
        .unwrap_err();
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .ends_with("gone.csv: does not exist"),
        "{err}"
    );
    assert_eq!(
        h.ok("list_runs", json!({})).as_array().unwrap().len(),
        before
    );
}

#[test]
fn a_runs_detail_lists_its_interruptions() {
    let h = Harness::new();
    let id = h.platform("p");
    let rows = h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [fixture("smi-csv/gpu-fell-off.csv")] }),
    );
    let detail = h.ok("run_detail", json!({ "id": rows[0]["run_id"] }));
    assert_eq!(detail["events"], 2, "{detail}");
    let first = &detail["event_list"][0];
    assert_eq!(first["kind"], "gpu-lost");
    assert_eq!(first["gpu"], 1);
    assert!(
        first["detail"]
            .as_str()
            .unwrap()
            .contains("Unable to determine the device handle"),
        "{first}"
    );
    assert!(detail["event_list"][1]["gpu"].is_null(), "every GPU");
    assert!(detail["event_list"][1]["duration_s"].as_f64().unwrap() > 300.0);
}
