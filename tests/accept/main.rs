//! Acceptance checks on planted conditions: measured figures that come out
//! of the same import and metrics as any log.

#![allow(clippy::unwrap_used)]

mod storage;

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use breakpoint_accept::network::{Connector, Options, Target, TcpConnector, measure, resolve};
use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{ImportOptions, ImportOutcome, import_file};
use breakpoint_core::store::Store;

/// Connect times from a seeded sequence: every 20th attempt dropped, one in
/// ten 40 ms slow, the rest 2 ms ± 0.5.
struct Planted {
    n: Mutex<u64>,
}

impl Connector for Planted {
    fn connect(&self, _target: &Target, _timeout: Duration) -> Result<f64, String> {
        let mut n = self.n.lock().unwrap();
        *n += 1;
        let k = *n;
        if k.is_multiple_of(20) {
            return Err("connection refused".into());
        }
        if k % 10 == 5 {
            return Ok(40.0);
        }
        Ok(2.0 + ((k * 7919) % 11) as f64 / 10.0 - 0.5)
    }
}

fn import(path: &std::path::Path) -> (Store, i64) {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(p.id)
    };
    match import_file(&store, path, &options, None).unwrap() {
        ImportOutcome::Imported(r) => (store, r.run_id),
        other => panic!("{other:?}"),
    }
}

#[test]
fn planted_delays_and_drops_are_measured_as_jitter_and_loss() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    let target = resolve("127.0.0.1:9").unwrap();
    let options = Options {
        every: Duration::from_millis(1),
        duration: Duration::from_secs(60),
        timeout: Duration::from_secs(1),
        host: Some("node-1".into()),
    };
    let planted = Planted { n: Mutex::new(0) };
    // Exactly 40 attempts: stopped from the progress callback.
    let stop = AtomicBool::new(false);
    let mut count = 0;
    let tally = measure(&[target], &planted, &options, &mut file, &stop, |_| {
        count += 1;
        if count == 40 {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    drop(file);
    let attempts = tally[0].attempts;
    assert_eq!(attempts, 40);
    let (store, run) = import(&path);
    let run = store.run(run).unwrap();
    let stats = &run.metadata["network"][0];
    assert_eq!(stats["attempts"], attempts);
    let values = breakpoint_core::metrics::compute_run(&store, &run).unwrap();
    let get = |k: &str| values.iter().find(|v| v.key == k).unwrap().value;
    // Planted: one in twenty dropped, one in ten at 40 ms.
    let loss = get("sustain.net_loss_pct");
    assert!(
        (loss - 100.0 * (attempts / 20) as f64 / attempts as f64).abs() < 1e-9,
        "{loss}"
    );
    assert!((get("sustain.net_connect_p95_ms") - 40.0).abs() < 1e-9);
    let jitter = get("sustain.net_jitter_ms");
    assert!(jitter > 37.0 && jitter < 38.6, "{jitter}");
    assert_eq!(run.provenance.host.as_deref(), Some("node-1"));
}

#[test]
fn a_real_listener_and_a_closed_port_on_127_0_0_1() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = resolve(&listener.local_addr().unwrap().to_string()).unwrap();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        resolve(&l.local_addr().unwrap().to_string()).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    let options = Options {
        every: Duration::from_millis(50),
        duration: Duration::from_millis(400),
        timeout: Duration::from_millis(500),
        host: None,
    };
    let mut seen = 0;
    measure(
        &[open.clone(), closed.clone()],
        &TcpConnector,
        &options,
        &mut file,
        &AtomicBool::new(false),
        |_| seen += 1,
    )
    .unwrap();
    drop(file);
    assert!(seen >= 10, "{seen}");
    let (store, run) = import(&path);
    let run = store.run(run).unwrap();
    let by_target = |name: &str| {
        run.metadata["network"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["target"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_target(&open.name)["loss_pct"], 0.0);
    assert_eq!(by_target(&closed.name)["loss_pct"], 100.0);
    assert!(run.warnings.iter().any(|w| w.contains(&closed.name)));
    drop(listener);
}

/// A clock that only moves when told: a 390 s billing probe in no time.
struct Manual(std::cell::Cell<i64>);

impl breakpoint_accept::billing::Clock for Manual {
    fn now_ms(&self) -> i64 {
        self.0.get()
    }
    fn pass(&self, d: Duration, _busy: bool) {
        self.0.set(self.0.get() + d.as_millis() as i64);
    }
}

#[test]
fn a_billing_probe_matched_to_its_bill_measures_the_billing_unit() {
    use breakpoint_api::ranking::{PlatformRef, RankRequest, explain};
    use breakpoint_core::domain::{BillingMode, BillingRule};

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_memory().unwrap();
    let platform = store
        .create_platform(&Platform::new("Hourly", PlatformKind::Other, None).unwrap())
        .unwrap();
    // The console says per-minute billing.
    store
        .set_billing_rule(&BillingRule {
            granularity_s: 60,
            ..BillingRule::per_second(platform.id, BillingMode::OnDemand)
        })
        .unwrap();
    let probe = dir.path().join("probe.csv");
    let plan = breakpoint_accept::billing::Plan {
        instance: "i-7".into(),
        compute: Duration::from_secs(90),
        sleep: None,
    };
    let clock = Manual(std::cell::Cell::new(1_717_200_000_000));
    let mut file = std::fs::File::create(&probe).unwrap();
    breakpoint_accept::billing::run(&plan, &clock, &mut file).unwrap();
    drop(file);
    // The platform's bill for that instance: a whole hour.
    let bill = dir.path().join("bill.csv");
    std::fs::write(
        &bill,
        "instance,start,end,billed_seconds,amount,currency,unit_price\n\
         i-7,2024-06-01T00:00:00Z,2024-06-01T00:01:30Z,3600,12.80,CNY,12.8\n",
    )
    .unwrap();
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform.id)
    };
    for f in [&probe, &bill] {
        assert!(matches!(
            import_file(&store, f, &options, None).unwrap(),
            ImportOutcome::Imported(_)
        ));
    }
    let e = explain(
        &store,
        &RankRequest::default(),
        PlatformRef::Id(platform.id),
    )
    .unwrap();
    let granularity = e
        .score
        .breakpoints
        .iter()
        .flat_map(|b| &b.metrics)
        .find(|m| m.key == "billing.granularity_s")
        .unwrap();
    assert_eq!(granularity.value, Some(3600.0));
    let detail = granularity.details.join(" ");
    assert!(
        detail.contains("a 90.0 s job on i-7")
            && detail.contains("billed 3600 s")
            && detail.contains("DISAGREES"),
        "{detail}"
    );
    assert!(
        !granularity.runs.is_empty(),
        "the probe run is named behind the figure"
    );
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/accept")
        .join(name)
}

#[test]
fn a_killed_job_restarted_by_its_supervisor_is_measured_exactly() {
    use breakpoint_accept::failover::{Options, System, drill, table};

    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    // A job that has run for hours: its log holds 3000 steps written before
    // the drill (not now, and not to be timed as if they were), and its
    // checkpoint is at step 3000.
    let history: String = (1..=3000).map(|i| format!("step {i} loss 0.5\n")).collect();
    std::fs::write(&log, history).unwrap();
    std::fs::write(dir.path().join("ckpt"), "3000").unwrap();
    let mut supervisor = std::process::Command::new(fixture("supervisor.sh"))
        .env("LOG", &log)
        .env("CKPT", dir.path().join("ckpt"))
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let options = Options {
        log: log.clone(),
        progress: regex_lite::Regex::new(r"step (\d+)").unwrap(),
        pattern: "train.sh".into(),
        after: Duration::from_millis(1200),
        window: Duration::from_secs(10),
        resume: None,
        poll: Duration::from_millis(50),
    };
    let outcome = drill(&options, &System);
    // The supervisor's process group (it and the job under it) goes,
    // whatever happened.
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&supervisor),
        rustix::process::Signal::KILL,
    );
    let _ = supervisor.wait();
    let outcome = outcome.unwrap();
    assert!(!outcome.killed.is_empty());
    let detected = outcome.detected_s.unwrap();
    let recovered = outcome.recovered_s.unwrap();
    assert!((0.25..3.0).contains(&detected), "{outcome:?}");
    assert!(recovered >= detected && recovered < 4.0, "{outcome:?}");
    // The log says what was lost: the last step before the second start,
    // and the checkpoint that start resumed from.
    let text = std::fs::read_to_string(&log).unwrap();
    let second = text.match_indices("resumed from").nth(1).unwrap().0;
    let last_before: u64 = text[..second]
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("step ")?.split(' ').next()?.parse().ok())
        .unwrap();
    let resumed: u64 = text[second..]
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("resumed from ")
        .parse()
        .unwrap();
    assert_eq!(outcome.progress_at_kill, Some(last_before));
    assert_eq!(outcome.first_progress_after, Some(resumed + 1));
    assert_eq!(outcome.steps_lost, Some(last_before - resumed));
    // A step every 0.1 s (and the moments a shell takes around it): the
    // seconds lost are the steps lost at that pace, timed from the fault.
    let lost_s = outcome.progress_lost_s.unwrap();
    let expected = 0.1 * (last_before - resumed) as f64;
    assert!(
        lost_s >= expected - 0.12 && lost_s <= expected * 1.3 + 0.12,
        "{lost_s} s lost for {} steps: {outcome:?}",
        last_before - resumed
    );

    // As a fault-drill table, it imports and feeds the recovery metrics.
    let path = dir.path().join("drill.csv");
    std::fs::write(&path, table(&outcome)).unwrap();
    let (store, run) = import(&path);
    let drills = store.fault_drills(run).unwrap();
    assert_eq!(drills.len(), 1);
    assert!(drills[0].recovered && drills[0].detected);
}

#[test]
fn a_target_the_header_names_but_no_attempt_reached_is_said_not_scored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"format":"breakpoint-network","version":1,"interval_ms":1000,"targets":["a:1","b:2"]}"#,
            "\n",
            r#"{"t":1700000000000,"target":"a:1","ms":2.5}"#,
            "\n",
            r#"{"t":1700000001000,"target":"a:1","ms":3.5}"#,
            "\n",
        ),
    )
    .unwrap();
    let (store, run) = import(&path);
    let run = store.run(run).unwrap();
    let targets = run.metadata["network"].as_array().unwrap();
    assert_eq!(targets.len(), 1);
    assert_eq!(targets[0]["target"], "a:1");
    assert_eq!(targets[0]["attempts"], 2);
    assert!(
        run.warnings
            .iter()
            .any(|w| w == "b:2: named in the header but never attempted"),
        "{:?}",
        run.warnings
    );
}
