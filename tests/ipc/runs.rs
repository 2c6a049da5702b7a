//! Importing logs (files and folders) and reading a run back.

use serde_json::json;

use crate::harness::*;

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
fn a_timeline_is_asked_for_at_the_window_width_and_again_when_zoomed() {
    let h = Harness::new();
    let id = h.platform("p");
    h.ok(
        "import_files",
        json!({ "platformId": id, "paths": [fixture("smi-csv/driver-610.csv")] }),
    );
    let run = h.ok("list_runs", json!({}))[0]["id"].clone();
    let (whole, values) = timeline(&h, json!({ "id": run, "range": null, "columns": 50 }));
    assert_eq!(whole["columns"], 50);
    assert_eq!(whole["samples"], 10);
    let fields: Vec<&str> = whole["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["power_mw", "temp_gpu_c", "sm_clock_mhz"]);
    let power = &whole["panels"][0];
    assert_eq!(power["unit"], "W");
    // GPU 0 reached 566.21 W at 10:41:08, in stored milliwatts; its four
    // values per column start where the header says.
    let gpu0 = &power["gpus"][0];
    let at = gpu0["at"].as_u64().unwrap() as usize;
    let mine = &values[at..at + 4 * gpu0["columns"].as_array().unwrap().len()];
    assert!(mine.contains(&566_210), "{mine:?}");
    let gpu1 = &power["gpus"][1];
    assert_eq!(gpu1["at"].as_u64().unwrap() as usize, at + mine.len());
    // Zoomed to the first two seconds: only their samples are read.
    let start = whole["start_ms"].as_i64().unwrap();
    let (zoomed, _) = timeline(
        &h,
        json!({ "id": run, "range": [start, start + 1_500], "columns": 50 }),
    );
    assert_eq!(zoomed["samples"], 4, "{zoomed}");
    assert_eq!(zoomed["span"], whole["span"]);
    // What a request may ask is bounded.
    let refused = h
        .call_bytes(
            "run_timeline",
            json!({ "id": run, "range": null, "columns": 100_000 }),
        )
        .unwrap_err();
    assert_eq!(refused["kind"], "invalid", "{refused}");
}

/// A timeline answer read as the web view reads it: the header's length,
/// the header, padding to four bytes, then 32-bit values.
fn timeline(h: &Harness, args: serde_json::Value) -> (serde_json::Value, Vec<i32>) {
    let bytes = h.call_bytes("run_timeline", args).unwrap();
    let n = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
    let header = serde_json::from_slice(&bytes[4..4 + n]).unwrap();
    let start = 4 + n.next_multiple_of(4);
    assert_eq!((bytes.len() - start) % 4, 0);
    let values = bytes[start..]
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    (header, values)
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
