//! `breakpoint import` through the binary: reports, errors, directories,
//! duplicates, and a process killed mid-import.

use std::path::PathBuf;
use std::time::Duration;

use crate::util::{Workspace, fixture};

fn with_platform() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "autodl"]);
    ws
}

#[test]
fn an_imported_log_is_listed_with_its_row_count() {
    let ws = with_platform();
    let out = ws.ok(&[
        "import",
        &fixture("smi-csv/header-units.csv"),
        "--platform",
        "AutoDL",
        "--tz",
        "UTC",
    ]);
    assert!(
        out.starts_with(&format!(
            "{}: nvidia-smi-csv → run 1 (sustain)\n",
            fixture("smi-csv/header-units.csv")
        )),
        "{out}"
    );
    assert!(out.contains("2 GPU(s), 12 samples"), "{out}");
    assert!(
        out.contains("2024-06-01 11:27:05 UTC → 2024-06-01 11:27:10 UTC"),
        "{out}"
    );
    let runs = ws.json(&["runs", "list"]);
    assert_eq!(runs[0]["sample_count"], 12);
    assert_eq!(runs[0]["provenance"]["format"], "nvidia-smi-csv");
    assert_eq!(runs[0]["provenance"]["file_name"], "header-units.csv");
    assert_eq!(runs[0]["inventory"].as_array().unwrap().len(), 2);
}

#[test]
fn json_reports_every_file() {
    let ws = with_platform();
    let report = ws.json(&[
        "import",
        &fixture("tables/startup-attempts.csv"),
        "--platform",
        "AutoDL",
    ]);
    assert_eq!(report[0]["status"], "imported");
    assert_eq!(report[0]["format"], "startup-attempts");
    assert_eq!(report[0]["kind"], "startup");
    assert_eq!(report[0]["records"], 5);
    assert_eq!(report[0]["sha256"].as_str().unwrap().len(), 64);
    // The run list counts the same records (a table run has no samples).
    let runs = ws.json(&["runs", "list"]);
    assert_eq!(runs[0]["sample_count"], 0);
    assert_eq!(runs[0]["records"], 5);
    assert!(ws.ok(&["runs", "list"]).contains("records"));
}

#[test]
fn the_same_file_twice_stores_nothing_the_second_time() {
    let ws = with_platform();
    let file = fixture("smi-csv/header-units.csv");
    ws.ok(&["import", &file, "--platform", "AutoDL", "--tz", "UTC"]);
    let before = ws.snapshot();
    let out = ws.ok(&["import", &file, "--platform", "AutoDL", "--tz", "UTC"]);
    assert_eq!(
        out,
        format!("{file}: already imported as run 1 on AutoDL (the same file); nothing stored\n")
    );
    assert_eq!(ws.snapshot(), before);
}

/// A log read in the wrong zone is imported again with `--tz`: the new
/// run takes the old one's place, and the summary says so and how.
#[test]
fn the_same_file_read_differently_replaces_its_run() {
    let ws = with_platform();
    let file = fixture("smi-csv/header-units.csv");
    ws.ok(&["import", &file, "--platform", "AutoDL", "--tz", "UTC"]);
    let before = ws.json(&["runs", "list"]);
    let out = ws.ok(&[
        "import",
        &file,
        "--platform",
        "AutoDL",
        "--tz",
        "Asia/Shanghai",
    ]);
    assert!(
        out.contains("replaces run 1, the same log read differently then (tz UTC → Asia/Shanghai)"),
        "{out}"
    );
    let after = ws.json(&["runs", "list"]);
    assert_eq!(after.as_array().unwrap().len(), 1, "{after}");
    assert_eq!(after[0]["id"], 2);
    // Eight hours earlier: the same wall-clock times, read in UTC+8.
    let start = |runs: &serde_json::Value| {
        runs[0]["started_at"]
            .as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap()
    };
    assert_eq!(
        start(&before).as_second() - start(&after).as_second(),
        8 * 3600
    );
    // Read the same way again: nothing stored.
    let again = ws.ok(&[
        "import",
        &file,
        "--platform",
        "AutoDL",
        "--tz",
        "Asia/Shanghai",
    ]);
    assert!(again.contains("already imported as run 2"), "{again}");
}

/// The summary names what the log held, by kind, GPU and time.
#[test]
fn an_import_names_the_events_it_found() {
    let ws = with_platform();
    let out = ws.ok(&[
        "import",
        &fixture("kernel/journal-short-iso-nvlink.log"),
        "--platform",
        "AutoDL",
    ]);
    assert!(out.contains("found: 1 × Xid 149: NVLink"), "{out}");
    assert!(out.contains("2025-02-03 00:15 UTC"), "{out}");
}

#[test]
fn a_bad_line_is_one_message_and_nothing_is_stored() {
    let ws = with_platform();
    let file = fixture("smi-csv/bad-number.csv");
    ws.fails(
        &["import", &file, "--platform", "AutoDL"],
        1,
        &format!("error: {file}:5:5: \"12.5.3 W\" is not a number for power.draw [W]"),
    );
    let out = ws.ok(&[
        "import",
        &file,
        "--platform",
        "AutoDL",
        "--skip-bad-lines",
        "--tz",
        "UTC",
    ]);
    assert!(
        out.contains("11 samples") && out.contains("1 line(s) skipped"),
        "{out}"
    );
    assert!(
        out.contains(
            "warning: line 5:5: \"12.5.3 W\" is not a number for power.draw [W] (skipped)"
        ),
        "{out}"
    );
}

#[test]
fn usage_mistakes_are_named() {
    let ws = with_platform();
    let file = fixture("smi-csv/header-units.csv");
    ws.fails(
        &["import", &file, "--platform", "Nowhere"],
        1,
        "error: platform \"Nowhere\" not found",
    );
    ws.fails(
        &["import", &file, "--platform", "AutoDL", "--tz", "Mars/Olympus"],
        1,
        "error: --tz: unknown time zone \"Mars/Olympus\" (use an IANA name such as Asia/Shanghai, UTC or +08:00)",
    );
    ws.fails(
        &["import", "/no/such/file.csv", "--platform", "AutoDL"],
        1,
        "error: /no/such/file.csv: does not exist",
    );
    ws.fails(
        &["import", &file, "--platform", "AutoDL", "--interval", "fast"],
        2,
        "error: invalid value 'fast' for '--interval <DURATION>': \"fast\" is not an interval (e.g. 500ms, 1s, 30s)",
    );
    let no_time = fixture("smi-csv/no-timestamp.csv");
    ws.fails(
        &["import", &no_time, "--platform", "AutoDL"],
        1,
        &format!("error: {no_time}: the rows carry no timestamp; give the sampling interval with --interval (e.g. --interval 1s)"),
    );
    let out = ws.ok(&[
        "import",
        &no_time,
        "--platform",
        "AutoDL",
        "--interval",
        "2s",
        "--start",
        "2024-06-01T00:00:00Z",
    ]);
    assert!(
        out.contains("12 samples") && out.contains("every 2000 ms"),
        "{out}"
    );
}

#[test]
fn a_directory_imports_one_run_per_file_and_failures_do_not_stop_the_rest() {
    let ws = with_platform();
    let dir = ws.dir.path().join("logs");
    std::fs::create_dir(&dir).unwrap();
    for (name, from) in [
        ("node-1.csv", "smi-csv/header-units.csv"),
        ("node-2.jsonl", "probe/probe-v1.jsonl"),
        ("node-3.csv", "smi-csv/bad-number.csv"),
    ] {
        std::fs::copy(fixture(from), dir.join(name)).unwrap();
    }
    let out = ws
        .cmd(&[
            "import",
            dir.to_str().unwrap(),
            "--platform",
            "AutoDL",
            "--tz",
            "UTC",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("node-3.csv:5:5:"), "{stderr}");
    assert!(
        stderr.ends_with("error: 1 of 3 files not imported; nothing was stored from them\n"),
        "{stderr}"
    );
    let runs = ws.json(&["runs", "list"]);
    let hosts: Vec<_> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["provenance"]["file_name"].clone())
        .collect();
    assert_eq!(
        hosts,
        vec![
            serde_json::json!("node-1.csv"),
            serde_json::json!("node-2.jsonl")
        ]
    );
    assert_eq!(runs[1]["provenance"]["host"], "gpu-node-3");
}

/// A big enough nvidia-smi CSV that an import takes a while in a debug build.
fn big_csv(ws: &Workspace, rows: usize) -> PathBuf {
    let path = ws.dir.path().join("big.csv");
    let mut text =
        String::from("timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu\n");
    for i in 0..rows {
        let s = i / 8;
        text.push_str(&format!(
            "2024/06/{:02} {:02}:{:02}:{:02}.000, {}, {}.{:02} W, {} %, {}\n",
            1 + s / 86_400,
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            i % 8,
            200 + i % 50,
            i % 100,
            90 + i % 11,
            60 + i % 20
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn killing_an_import_leaves_the_whole_run_or_none_of_it() {
    let ws = with_platform();
    let rows = 120_000;
    let csv = big_csv(&ws, rows);
    // Kill at spread-out moments: before, during and (for the last) after the work.
    let delays = [5u64, 40, 90, 160, 250, 400, 700, 3000];
    let mut outcomes = Vec::new();
    for delay in delays {
        let mut child = ws
            .process(&[
                "import",
                csv.to_str().unwrap(),
                "--platform",
                "AutoDL",
                "--tz",
                "UTC",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();

        let conn = rusqlite_check(&ws.db);
        let info = ws.json(&["db", "info"]);
        let runs = ws.json(&["runs", "list"]);
        match runs.as_array().unwrap().len() {
            0 => assert_eq!(info["samples"], 0, "no run, no samples"),
            1 => {
                assert_eq!(runs[0]["sample_count"], rows, "a run is whole");
                assert_eq!(info["samples"], rows);
                ws.ok(&["runs", "rm", &runs[0]["id"].to_string(), "--yes"]);
            }
            n => panic!("{n} runs after one import"),
        }
        outcomes.push((delay, conn, runs.as_array().unwrap().len()));
    }
    // The last attempt had time to finish: the import itself works; and at
    // least one kill landed while the import was under way.
    assert_eq!(outcomes.last().unwrap().2, 1, "{outcomes:?}");
    assert!(outcomes[1..5].iter().any(|o| o.2 == 0), "{outcomes:?}");
}

/// The database's own consistency check, through a fresh connection.
fn rusqlite_check(db: &std::path::Path) -> String {
    let out = std::process::Command::new("sqlite3")
        .arg(db)
        .arg("PRAGMA integrity_check;")
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout).trim().to_string();
            assert_eq!(text, "ok", "integrity check");
            text
        }
        // Without the sqlite3 shell the CLI's own reads above are the check.
        _ => "unchecked".into(),
    }
}

/// A log of `rows` rows of two GPUs at 1 Hz, as nvidia-smi writes it.
fn long_log(ws: &Workspace, rows: u32) -> PathBuf {
    let mut text = String::from("timestamp, index, power.draw [W], utilization.gpu [%]\n");
    for i in 0..rows {
        let (m, s) = (i / 60 % 60, i % 60);
        text.push_str(&format!(
            "2024/06/01 {:02}:{m:02}:{s:02}.000, {}, {}.{:02} W, {} %\n",
            i / 3600,
            i % 2,
            200 + i % 50,
            i % 100,
            i % 101
        ));
    }
    let path = ws.dir.path().join("long.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn timings_say_where_an_import_spent_its_time_only_when_asked() {
    let ws = with_platform();
    let log = long_log(&ws, 40_000).display().to_string();
    let import = ["import", &log, "--platform", "AutoDL", "--tz", "UTC"];
    let plain = ws.ok(&import);
    assert!(!plain.contains("timings"), "{plain}");

    let ws = with_platform();
    let out = ws.ok(&[&import[..], &["--timings"]].concat());
    let line = |start: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no {start} line in {out}"))
    };
    let wall = line("timings:");
    for stage in ["setting up", "reading lines", "storing", "committing"] {
        assert!(wall.contains(stage), "{wall}");
    }
    let cpu = line("processor time:");
    for part in [
        "this thread",
        "row worker(s)",
        "SHA-256",
        "encoding samples",
    ] {
        assert!(cpu.contains(part), "{cpu}");
    }

    // The same figures for scripts, in seconds; the stages make the whole.
    let ws = with_platform();
    let report = ws.json(&[&["--json"][..], &import, &["--timings"]].concat());
    let t = &report[0]["timings"];
    let secs = |key: &str| t[key].as_f64().unwrap_or_else(|| panic!("{key} in {t}"));
    let stages: f64 = ["setting_up_s", "reading_s", "storing_s", "committing_s"]
        .into_iter()
        .map(secs)
        .sum();
    assert!((stages - secs("wall_s")).abs() < 1e-6, "{t}");
    assert!(secs("reading_s") > 0.0, "{t}");
    assert!(t["row_workers"].as_u64().unwrap() >= 1, "{t}");
    assert!(secs("hashing_cpu_s") > 0.0, "{t}");
    assert!(secs("cpu_s") >= secs("this_thread_cpu_s"), "{t}");
    assert_eq!(report[0]["samples"], 40_000);
}
