//! `breakpoint accept`: checks that write logs and import on the spot.

use std::net::TcpListener;

use crate::util::Workspace;

#[test]
fn a_network_check_against_127_0_0_1_imports_and_scores() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listener.local_addr().unwrap().to_string();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let log = ws.dir.path().join("net.jsonl");
    let out = ws.ok(&[
        "accept",
        "network",
        "--target",
        &open,
        "--target",
        &closed,
        "--every",
        "100ms",
        "--duration",
        "1s",
        "-o",
        log.to_str().unwrap(),
        "--platform",
        "Lab",
        "--import",
    ]);
    assert!(out.contains("imported as run 1 of Lab"), "{out}");
    assert!(
        out.contains("100.0 %"),
        "the closed port lost every attempt: {out}"
    );
    let run = ws.json(&["runs", "show", "1"]);
    assert_eq!(run["provenance"]["format"], "network-log");
    let explain = ws.ok(&["explain", "Lab", "sustain"]);
    assert!(
        explain.contains("Network connection loss")
            && explain.contains(&format!("worst endpoint {closed}")),
        "{explain}"
    );
    // Without --platform, --import is refused before anything is measured,
    // as a usage error like every check's.
    let out = ws
        .cmd(&["accept", "network", "--target", &open, "--import"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the following required arguments were not provided: --platform <PLATFORM>\n"
    );
    drop(listener);
}

fn trace(name: &str) -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/probe")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn a_stress_check_passes_a_steady_load_and_fails_a_15_pct_swing() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let run = |name: &str, import: bool| {
        let log = ws.dir.path().join(format!("{name}.jsonl"));
        let mut args = vec![
            "accept",
            "stress",
            "--duration",
            "2s",
            "--interval",
            "100ms",
            "--replay-trace",
        ];
        let t = trace(name);
        args.push(&t);
        let l = log.to_str().unwrap().to_string();
        args.extend(["-o", &l]);
        if import {
            args.extend(["--platform", "Lab", "--import"]);
        }
        args.extend(["--", "sleep", "30"]);
        ws.cmd(&args).output().unwrap()
    };
    let out = run("stress-swing.json", false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("75.0 %") && stdout.contains("15.0 %") && stdout.contains("FAIL"),
        "{stdout}"
    );

    let out = run("stress-steady.json", true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("): pass") && stdout.contains("imported as run 1 of Lab"),
        "{stdout}"
    );
    let shown = ws.json(&["runs", "show", "1"]);
    assert_eq!(shown["metadata"]["acceptance"], "stress");
    let explain = ws.ok(&["explain", "Lab", "sustain"]);
    assert!(
        explain.contains("Stress: time at ≥ 95 % utilisation")
            && explain.contains("passes the seed's check"),
        "{explain}"
    );
}

#[test]
fn a_billing_probe_and_the_bill_measure_the_billing_unit() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Minutely"]);
    let probe = ws.dir.path().join("probe.csv");
    let out = ws.ok(&[
        "accept",
        "billing-probe",
        "--instance",
        "job-42",
        "--seconds",
        "1s",
        "-o",
        probe.to_str().unwrap(),
        "--platform",
        "Minutely",
        "--import",
    ]);
    assert!(
        out.contains("ran 1.0") && out.contains("imported as run 1"),
        "{out}"
    );
    let bill = ws.dir.path().join("bill.csv");
    std::fs::write(
        &bill,
        "instance,start,end,billed_seconds,amount,currency,unit_price\n\
         job-42,2024-06-01T00:00:00Z,2024-06-01T00:00:01Z,60,0.21,CNY,12.8\n",
    )
    .unwrap();
    ws.ok(&["import", bill.to_str().unwrap(), "--platform", "Minutely"]);
    let explain = ws.ok(&["explain", "Minutely", "billing"]);
    assert!(
        explain.contains(
            "billing.granularity_s: measured: a 1.0 s job on job-42 (run #1) was billed 60 s"
        ),
        "{explain}"
    );
}

#[test]
fn a_failover_drill_kills_the_job_and_measures_its_return() {
    use std::os::unix::process::CommandExt;

    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let fixtures =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accept");
    let log = ws.dir.path().join("train.log");
    let mut supervisor = std::process::Command::new(fixtures.join("supervisor.sh"))
        .env("LOG", &log)
        .env("CKPT", ws.dir.path().join("ckpt"))
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let table = ws.dir.path().join("drill.csv");
    let out = ws
        .cmd(&[
            "accept",
            "failover",
            "--log",
            log.to_str().unwrap(),
            "--job",
            "train.sh",
            "--after",
            "1s",
            "--window",
            "10s",
            "-o",
            table.to_str().unwrap(),
            "--platform",
            "Lab",
            "--import",
        ])
        .output()
        .unwrap();
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&supervisor),
        rustix::process::Signal::KILL,
    );
    let _ = supervisor.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("killed 1 process(es)") && stdout.contains("imported as run 1 of Lab"),
        "{stdout}"
    );
    let explain = ws.ok(&["explain", "Lab", "sustain"]);
    assert!(
        explain.contains("sustain.resume_success_pct")
            && explain.contains("1 of 1 drills recovered"),
        "{explain}"
    );
}

#[test]
fn a_plan_runs_every_check_into_one_bundle_that_imports_whole() {
    use std::os::unix::process::CommandExt;

    let ws = Workspace::new();
    let dir = ws.dir.path();
    let fixtures =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/accept");
    let log = dir.join("train.log");
    let mut supervisor = std::process::Command::new(fixtures.join("supervisor.sh"))
        .env("LOG", &log)
        .env("CKPT", dir.join("ckpt"))
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let reference = dir.join("reference-operators.json");
    ws.ok(&[
        "accept",
        "operators",
        "--device",
        "numpy",
        "-o",
        reference.to_str().unwrap(),
    ]);
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "host = \"node-9\"\n\
             [ready]\nfirst_compute = \"true\"\ntimeout = \"30s\"\n\
             [network]\ntargets = [\"{}\"]\nevery = \"200ms\"\n\
             [stress]\ncommand = [\"sleep\", \"30\"]\nduration = \"2s\"\ninterval = \"100ms\"\n\
             [billing_probe]\ninstance = \"i-9\"\nseconds = \"1s\"\n\
             [failover]\nlog = \"{}\"\njob = \"train.sh\"\nafter = \"1s\"\nwindow = \"10s\"\n\
             [drift]\nreference = \"{}\"\ndevice = \"numpy\"\n\
             [perf]\ndevice = \"numpy\"\nquick = true\ncpu_devices = 2\n\
             [storage]\npaths = [\"{data}\"]\nlocal = [\"{local}\"]\ncheckpoint = \"16MB\"\n\
             upload = \"cp {{file}} {up}/\"\nupload_size = \"8MB\"\n\
             [storage.drill]\ncut = \"true\"\nrestore = \"true\"\ncut_for = \"1s\"\nevery = \"300ms\"\ncheckpoint = \"1MB\"\n",
            listener.local_addr().unwrap(),
            log.display(),
            reference.display(),
            data = dir.join("data").display(),
            local = dir.join("local").display(),
            up = dir.join("up").display(),
        ),
    )
    .unwrap();
    for d in ["data", "local", "up"] {
        std::fs::create_dir(dir.join(d)).unwrap();
    }
    let bundle = dir.join("acceptance.tar");
    let out = ws
        .cmd(&[
            "accept",
            "all",
            "--plan",
            plan.to_str().unwrap(),
            "-o",
            bundle.to_str().unwrap(),
            "--replay-trace",
            &trace("stress-steady.json"),
        ])
        .output()
        .unwrap();
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&supervisor),
        rustix::process::Signal::KILL,
    );
    let _ = supervisor.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for check in [
        "stress stability",
        "billing probe",
        "failover drill",
        "network 127.0.0.1",
        "numeric drift",
        "delivered performance",
        "storage outage drill",
        "upload",
    ] {
        assert!(stdout.contains(check), "{check} missing: {stdout}");
    }
    assert!(stdout.contains("(8 logs)"), "{stdout}");
    assert!(stdout.contains("all 6 checks passed"), "{stdout}");
    // The data path's files are gone from every location.
    for d in ["data", "local"] {
        assert_eq!(std::fs::read_dir(dir.join(d)).unwrap().count(), 0, "{d}");
    }
    assert!(
        bundle.with_extension("operators.json").exists(),
        "this platform's outputs are kept beside the bundle"
    );

    // On the workstation: one import brings the whole run in.
    let station = Workspace::new();
    station.ok(&["platform", "add", "Lab"]);
    let imported = station.ok(&["import", bundle.to_str().unwrap(), "--platform", "Lab"]);
    assert_eq!(imported.matches("→ run").count(), 8, "{imported}");
    let runs = station.json(&["runs", "list"]);
    let formats: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["provenance"]["format"].as_str())
        .collect();
    for f in [
        "startup-attempts",
        "probe-log",
        "billing-events",
        "fault-drills",
        "network-log",
        "drift-log",
        "perf-log",
        "storage-log",
    ] {
        assert!(formats.contains(&f), "{f} not imported: {formats:?}");
    }
    // Again: every log is recognised, nothing stored twice.
    let again = station.ok(&["import", bundle.to_str().unwrap(), "--platform", "Lab"]);
    assert_eq!(
        station.json(&["runs", "list"]).as_array().unwrap().len(),
        8,
        "{again}"
    );
    // The cells it measured: startup, sustain, switch.
    let explain = station.ok(&["explain", "Lab"]);
    for key in [
        "switch.drift_rel_l2",
        "switch.op_coverage_pct",
        "startup.baseline_p50_s",
        "sustain.stress_util_floor_pct",
        "sustain.resume_success_pct",
        "sustain.net_loss_pct",
        "sustain.straggler_pct",
        "sustain.checkpoint_write_s",
        "sustain.data_read_vs_local_pct",
        "sustain.storage_drill",
        "switch.upload_mb_s",
    ] {
        assert!(
            explain.contains(key) && explain.contains("acceptance.tar:"),
            "{key}: {explain}"
        );
    }

    // The checklist as the instance printed it, with the runs it became.
    let sheets = station.json(&["accept", "checklists", "Lab"]);
    let bundle_sheet = &sheets[0]["bundles"][0];
    assert_eq!(bundle_sheet["host"], "node-9");
    // Every log of the plan carries the plan's host, the drift log's too
    // (the suite itself knows only the machine's own name).
    let drift_run = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provenance"]["format"] == "drift-log")
        .unwrap();
    assert_eq!(drift_run["provenance"]["host"], "node-9", "{drift_run}");
    let perf_run = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provenance"]["format"] == "perf-log")
        .unwrap();
    assert_eq!(perf_run["provenance"]["host"], "node-9", "{perf_run}");
    // Records kept in metadata are counted like any other.
    for r in runs.as_array().unwrap() {
        let format = r["provenance"]["format"].as_str().unwrap();
        if matches!(
            format,
            "drift-log" | "network-log" | "perf-log" | "storage-log"
        ) {
            assert!(r["records"].as_u64().unwrap() > 0, "{r}");
        }
    }
    assert_eq!(bundle_sheet["runs"].as_array().unwrap().len(), 8);
    let checks: Vec<&str> = bundle_sheet["checklist"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert!(checks.contains(&"numeric drift"), "{checks:?}");
    assert!(checks.contains(&"delivered performance"), "{checks:?}");

    // The report's acceptance page shows the checklist the instance printed.
    let pdf = dir.join("report.pdf");
    station.ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "100"]);
    let text = std::process::Command::new("pdftotext")
        .args(["-layout", pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Acceptance checklists") && text.contains("acceptance.tar (node-9"),
        "{text}"
    );
    assert!(
        text.contains("stress stability") && text.contains("failover drill"),
        "{text}"
    );

    // A bundle cut off in the middle is refused, and nothing of it stored.
    let bytes = std::fs::read(&bundle).unwrap();
    let cut = dir.join("cut.tar");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let fresh = Workspace::new();
    fresh.ok(&["platform", "add", "Lab"]);
    let out = fresh
        .cmd(&["import", cut.to_str().unwrap(), "--platform", "Lab"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cut off") || stderr.contains("missing"),
        "{stderr}"
    );
    assert!(fresh.json(&["runs", "list"]).as_array().unwrap().is_empty());
    drop(listener);
}

/// The operator suite on NumPy twice: identical outputs, no drift; then a
/// copy with one operator scaled by 1 + 1e-3 and another that failed is
/// caught operator by operator, and the import fills the switch cells.
#[test]
fn numeric_drift_is_zero_between_identical_runs_and_a_planted_error_is_caught() {
    use base64::Engine;

    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let dir = ws.dir.path();
    let reference = dir.join("reference.json");
    let out = ws.ok(&[
        "accept",
        "operators",
        "--device",
        "numpy",
        "-o",
        reference.to_str().unwrap(),
    ]);
    assert!(out.contains("14 of 14 operators ran"), "{out}");

    // The suite run again here, compared with the reference: identical.
    let same = ws.json(&[
        "accept",
        "drift",
        "--reference",
        reference.to_str().unwrap(),
        "--device",
        "numpy",
        "-o",
        dir.join("same.json").to_str().unwrap(),
    ]);
    let operators = same["comparison"]["operators"].as_array().unwrap();
    assert_eq!(operators.len(), 14);
    for o in operators {
        assert_eq!(o["rel_l2"], 0.0, "{o}");
        assert_eq!(o["passed"], true, "{o}");
    }

    // Plant: conv2d's output scaled by 1 + 1e-3 (a relative L2 error of
    // exactly 1e-3), and gru failed as an unsupported operator would.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&reference).unwrap()).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    for op in doc["operators"].as_array_mut().unwrap() {
        match op["name"].as_str().unwrap() {
            "conv2d" => {
                let bytes = b64.decode(op["data"].as_str().unwrap()).unwrap();
                let scaled: Vec<u8> = bytes
                    .chunks_exact(4)
                    .flat_map(|c| {
                        let v = f64::from(f32::from_le_bytes(c.try_into().unwrap()));
                        ((v * (1.0 + 1e-3)) as f32).to_le_bytes()
                    })
                    .collect();
                op["data"] = b64.encode(scaled).into();
            }
            "gru" => {
                *op = serde_json::json!({"name": "gru", "error": "RuntimeError: GRU is not supported"});
            }
            _ => {}
        }
    }
    let planted = dir.join("planted.json");
    std::fs::write(&planted, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = ws
        .cmd(&[
            "accept",
            "drift",
            "--reference",
            reference.to_str().unwrap(),
            "--outputs",
            planted.to_str().unwrap(),
            "-o",
            dir.join("drift.json").to_str().unwrap(),
            "--platform",
            "Lab",
            "--import",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success(), "failed operators fail the check");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let by = |name: &str| {
        report["comparison"]["operators"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["operator"] == name)
            .unwrap()
            .clone()
    };
    let conv = by("conv2d");
    // float32 rounding of the scaled values moves the figure a little.
    assert!(
        (conv["rel_l2"].as_f64().unwrap() - 1e-3).abs() < 1e-6,
        "{conv}"
    );
    assert_eq!(conv["passed"], false);
    assert_eq!(by("gru")["passed"], false);
    assert!(
        by("gru")["note"]
            .as_str()
            .unwrap()
            .contains("not supported")
    );
    assert_eq!(by("matmul")["rel_l2"], 0.0);
    assert!(report["imported"].as_str().unwrap().contains("run 1"));

    let explain = ws.ok(&["explain", "Lab", "switch"]);
    assert!(
        explain.contains("12 of 14 operators; failed: conv2d, gru"),
        "{explain}"
    );
    assert!(
        explain.contains("worst conv2d of 13 operators"),
        "{explain}"
    );
    // Judged by the worst operator, not the median (0, as twelve of the
    // thirteen compared match exactly): the drift cell scores 0 at 1e-3.
    let switch = ws.json(&["explain", "Lab", "switch"]);
    let drift = switch["breakpoints"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "switch.drift_rel_l2")
        .unwrap();
    assert!(
        (drift["value"].as_f64().unwrap() - 1e-3).abs() < 1e-6,
        "{drift}"
    );
    assert!(drift["score"].as_f64().unwrap() < 1.0, "{drift}");
    // The summary says what failed; the run counts its fourteen operators.
    let text = ws
        .cmd(&[
            "accept",
            "drift",
            "--reference",
            reference.to_str().unwrap(),
            "--outputs",
            planted.to_str().unwrap(),
            "-o",
            dir.join("drift-again.json").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "numeric drift: 2 of 14 operators failed (conv2d: rel. L2 1.0e-3 above 1e-4; gru:"
        ),
        "{text}"
    );
    let runs = ws.json(&["runs", "list"]);
    assert_eq!(runs[0]["records"], 14, "{runs}");
    let shown = ws.ok(&["runs", "show", "1"]);
    assert!(shown.contains("14 records in its metadata"), "{shown}");

    // A reference from other inputs is refused with the way out.
    doc["seed"] = 7.into();
    std::fs::write(&planted, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = ws
        .cmd(&[
            "accept",
            "drift",
            "--reference",
            reference.to_str().unwrap(),
            "--outputs",
            planted.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("seed 1 and 7"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `accept storage` here: a data path and a local one measured, an upload
/// timed through `cp`, the drill run with commands that cut nothing; the
/// log imports and fills the storage metrics; nothing is left behind.
#[test]
fn the_data_path_is_measured_and_its_drill_asks_first() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    let dir = ws.dir.path();
    for d in ["data", "local", "up"] {
        std::fs::create_dir(dir.join(d)).unwrap();
    }
    let (data, local, up) = (dir.join("data"), dir.join("local"), dir.join("up"));
    let upload = format!("cp {{file}} {}/", up.display());
    let log = dir.join("storage.jsonl");
    let args = [
        "accept",
        "storage",
        "--path",
        data.to_str().unwrap(),
        "--local",
        local.to_str().unwrap(),
        "--checkpoint",
        "16MB",
        "--upload",
        &upload,
        "--upload-size",
        "8MB",
    ];
    // The drill disturbs the instance: no terminal, no drill, nothing written.
    let mut drill = args.to_vec();
    drill.extend([
        "--drill",
        "--cut",
        "true",
        "--restore",
        "true",
        "--cut-for",
        "1s",
        "--every",
        "300ms",
        "--drill-checkpoint",
        "1MB",
        "-o",
        log.to_str().unwrap(),
    ]);
    ws.fails(
        &drill,
        1,
        "error: the drill cuts a path on this instance: confirm it on a terminal, or pass --yes",
    );
    assert!(!log.exists());
    drill.extend(["--yes", "--platform", "P", "--import"]);
    let out = ws.json(&drill);
    let records = out["records"].as_array().unwrap();
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["location", "location", "upload", "drill"], "{out}");
    assert_eq!(records[3]["outcome"], "continues", "{out}");
    assert!(out["imported"].as_str().unwrap().contains("of P"), "{out}");
    for d in [&data, &local] {
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "{}", d.display());
    }
    let explain = ws.ok(&["explain", "P"]);
    for key in [
        "sustain.checkpoint_write_s",
        "sustain.data_read_vs_local_pct",
        "sustain.storage_drill",
        "switch.upload_mb_s",
    ] {
        assert!(
            explain.contains(key) && explain.contains("storage.jsonl"),
            "{key}: {explain}"
        );
    }
    // A location that is not a directory is said before anything is
    // written.
    let nothing = dir.join("x.jsonl");
    ws.fails(
        &[
            "accept",
            "storage",
            "--path",
            data.to_str().unwrap(),
            "--local",
            "/nonexistent/nvme",
            "-o",
            nothing.to_str().unwrap(),
        ],
        1,
        "error: /nonexistent/nvme: not a directory",
    );
    assert!(!nothing.exists());
    ws.fails(
        &["accept", "storage"],
        1,
        "error: name a location: --path DIR (where the data lives) or --local DIR (the local SSD)",
    );
    // A log cut off mid-line imports up to its last whole line; a record
    // whose durations are not durations is refused by its line.
    let text = std::fs::read_to_string(&log).unwrap();
    let other = Workspace::new();
    other.ok(&["platform", "add", "Q"]);
    let cut = dir.join("cut.jsonl");
    std::fs::write(&cut, &text[..text.len() - 20]).unwrap();
    let said = other.ok(&["import", "--platform", "Q", cut.to_str().unwrap()]);
    assert!(
        said.contains("storage-log") && said.contains("the last line is cut off"),
        "{said}"
    );
    let bad = dir.join("bad.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(
        &bad,
        format!(
            "{}\n{}\n",
            lines[0],
            lines[1].replace("\"write_s\":", "\"write_s\":-")
        ),
    )
    .unwrap();
    other.fails(
        &["import", "--platform", "Q", bad.to_str().unwrap()],
        1,
        &format!(
            "error: {}:2: write_s and read_s must be durations",
            bad.display()
        ),
    );
}

/// Ctrl-C in the middle of a location: the measurement stops at once, its
/// files go, and the log keeps what was measured, marked as stopped.
#[test]
fn a_storage_check_stopped_with_ctrl_c_leaves_nothing_behind() {
    let ws = Workspace::new();
    let dir = ws.dir.path().join("data");
    std::fs::create_dir(&dir).unwrap();
    let log = ws.dir.path().join("storage.jsonl");
    let mut child = ws
        .process(&[
            "accept",
            "storage",
            "--path",
            dir.to_str().unwrap(),
            "--checkpoint",
            "3GB",
            "-o",
            log.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::fs::read_dir(&dir).unwrap().count() == 0 {
        assert!(started.elapsed().as_secs() < 20, "the check never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("\"cut_short\":\"stopped\""), "{text}");
}
