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
    // Without --platform, --import is refused before anything is measured.
    let out = ws
        .cmd(&["accept", "network", "--target", &open, "--import"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--import needs --platform"));
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
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "host = \"node-9\"\n\
             [ready]\nfirst_compute = \"true\"\ntimeout = \"30s\"\n\
             [network]\ntargets = [\"{}\"]\nevery = \"200ms\"\n\
             [stress]\ncommand = [\"sleep\", \"30\"]\nduration = \"2s\"\ninterval = \"100ms\"\n\
             [billing_probe]\ninstance = \"i-9\"\nseconds = \"1s\"\n\
             [failover]\nlog = \"{}\"\njob = \"train.sh\"\nafter = \"1s\"\nwindow = \"10s\"\n",
            listener.local_addr().unwrap(),
            log.display()
        ),
    )
    .unwrap();
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
    ] {
        assert!(stdout.contains(check), "{check} missing: {stdout}");
    }
    assert!(stdout.contains("(5 logs)"), "{stdout}");

    // On the workstation: one import brings the whole run in.
    let station = Workspace::new();
    station.ok(&["platform", "add", "Lab"]);
    let imported = station.ok(&["import", bundle.to_str().unwrap(), "--platform", "Lab"]);
    assert_eq!(imported.matches("→ run").count(), 5, "{imported}");
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
    ] {
        assert!(formats.contains(&f), "{f} not imported: {formats:?}");
    }
    // Again: every log is recognised, nothing stored twice.
    let again = station.ok(&["import", bundle.to_str().unwrap(), "--platform", "Lab"]);
    assert_eq!(
        station.json(&["runs", "list"]).as_array().unwrap().len(),
        5,
        "{again}"
    );
    // The cells it measured: startup, sustain, billing.
    let explain = station.ok(&["explain", "Lab"]);
    for key in [
        "startup.baseline_p50_s",
        "sustain.stress_util_floor_pct",
        "sustain.resume_success_pct",
        "sustain.net_loss_pct",
    ] {
        assert!(
            explain.contains(key) && explain.contains("acceptance.tar:"),
            "{key}: {explain}"
        );
    }

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
