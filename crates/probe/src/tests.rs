//! The probe on recorded traces: NotSupported fields, a lost GPU, an XID
//! burst, a workload that never touches the GPU, and logs that import.

use std::sync::atomic::{AtomicBool, Ordering};

use breakpoint_core::domain::{EventKind, GpuInfo, Platform, PlatformKind};
use breakpoint_core::import::{ImportOptions, ImportOutcome, import_file};
use breakpoint_core::samples::Field;
use breakpoint_core::store::Store;

use crate::clock::{ManualClock, SystemClock};
use crate::scripted::{ScriptedSource, Tick};
use crate::session::SessionOptions;
use crate::source::{GpuEvent, ReadError, Reading};
use crate::workload::{STOP_GRACE_MS, Workload};

fn reading(power_mw: Option<i64>, util: i64) -> Reading {
    let mut values = vec![
        (Field::UtilGpuPct, util),
        (Field::TempGpuC, 60),
        (Field::ThrottleMask, 0),
    ];
    if let Some(p) = power_mw {
        values.push((Field::PowerMw, p));
    }
    Reading { values }
}

fn gpus(n: u32) -> Vec<GpuInfo> {
    (0..n)
        .map(|index| GpuInfo {
            index,
            host: Some("node".into()),
            ..GpuInfo::default()
        })
        .collect()
}

fn options() -> SessionOptions {
    SessionOptions {
        interval_ms: 1000,
        ..SessionOptions::default()
    }
}

fn workload(command: Vec<String>) -> Workload {
    Workload {
        command,
        ..Workload::default()
    }
}

fn sh(script: &str) -> Vec<String> {
    ["sh", "-c", script].map(String::from).to_vec()
}

/// Import a probe log and return the store and run id.
fn import(path: &std::path::Path) -> (Store, i64) {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    match import_file(&store, path, &ImportOptions::new(p.id), None).unwrap() {
        ImportOutcome::Imported(r) => (store, r.run_id),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unsupported_fields_are_absent_and_listed_in_the_capabilities() {
    let ticks = vec![Tick {
        answers: vec![Ok(reading(Some(250_000), 97)), Ok(reading(None, 97))],
        ..Tick::default()
    }];
    let mut source = ScriptedSource::new(gpus(2), ticks);
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("p.jsonl");
    let summary = crate::sample(
        &mut source,
        &clock,
        &log,
        &options(),
        Some(10_000),
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(
        summary.samples, 22,
        "an initial reading and 10 ticks of 2 GPUs"
    );
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let caps = &header["capabilities"];
    assert!(
        caps["0"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("power_mw"))
    );
    assert!(
        !caps["1"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("power_mw"))
    );
    let (store, run) = import(&log);
    let gpu1 = store.read_samples(run, 1, None, None).unwrap();
    assert!(gpu1.column(Field::PowerMw).is_none(), "never 0: absent");
    assert_eq!(store.read_samples(run, 0, None, None).unwrap().len(), 11);
}

#[test]
fn a_lost_gpu_is_an_event_and_the_others_keep_sampling() {
    let ok = || Ok(reading(Some(250_000), 98));
    let ticks = vec![
        Tick {
            answers: vec![ok(), ok()],
            ..Tick::default()
        },
        Tick {
            answers: vec![ok(), ok()],
            events: vec![
                GpuEvent::Xid { gpu: 1, code: 48 },
                GpuEvent::Xid { gpu: 1, code: 48 },
                GpuEvent::Xid { gpu: 1, code: 79 },
            ],
            ..Tick::default()
        },
        Tick {
            answers: vec![ok(), Err(ReadError::Lost("GPU is lost".into()))],
            ..Tick::default()
        },
        Tick {
            answers: vec![ok(), ok()],
            ..Tick::default()
        },
    ];
    let mut source = ScriptedSource::new(gpus(2), ticks);
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("p.jsonl");
    let summary = crate::sample(
        &mut source,
        &clock,
        &log,
        &options(),
        Some(6_000),
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(summary.lost_gpus, vec![1]);
    let (store, run) = import(&log);
    let events = store.events(run).unwrap();
    let xids = events.iter().filter(|e| e.kind == EventKind::Xid).count();
    assert_eq!(xids, 3, "the whole burst");
    assert_eq!(
        events
            .iter()
            .filter(|e| e.kind == EventKind::GpuLost && e.gpu == Some(1))
            .count(),
        1
    );
    assert_eq!(store.read_samples(run, 0, None, None).unwrap().len(), 7);
    // The first reading, then two ticks; nothing once it was lost.
    assert_eq!(store.read_samples(run, 1, None, None).unwrap().len(), 3);
}

#[test]
fn a_stop_request_ends_sampling_cleanly_with_a_summary() {
    let mut source = ScriptedSource::new(
        gpus(1),
        vec![Tick {
            answers: vec![Ok(reading(Some(100_000), 50))],
            ..Tick::default()
        }],
    );
    let clock = ManualClock::new(0);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("p.jsonl");
    let stop = AtomicBool::new(false);
    let mut ticks = 0;
    let summary = crate::sample(
        &mut source,
        &clock,
        &log,
        &options(),
        None,
        &stop,
        |_, _| {
            ticks += 1;
            if ticks == 5 {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        },
    )
    .unwrap();
    assert_eq!((summary.samples, summary.mean_power_w), (6, Some(100.0)));
    let last = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(last.contains("\"summary\""), "{last}");
    // Writing the same log twice is refused rather than overwriting it.
    let again = crate::sample(
        &mut source,
        &clock,
        &log,
        &options(),
        Some(1),
        &AtomicBool::new(false),
        |_, _| {},
    );
    assert!(
        again
            .unwrap_err()
            .to_string()
            .contains("cannot write the probe log")
    );
}

#[test]
fn a_workload_that_never_touches_the_gpu_is_timed_and_its_exit_code_kept() {
    let mut source = ScriptedSource::new(
        gpus(1),
        vec![Tick {
            answers: vec![Ok(reading(Some(60_000), 0))],
            ..Tick::default()
        }],
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    let opts = SessionOptions {
        interval_ms: 50,
        ..SessionOptions::default()
    };
    let command = vec![
        "sh".to_string(),
        "-c".to_string(),
        "sleep 0.2; exit 3".to_string(),
    ];
    let report = crate::wrap(
        &mut source,
        &SystemClock::default(),
        &log,
        &opts,
        &workload(command),
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(report.exit_code, Some(3));
    assert_eq!(report.first_activity_s, None);
    assert_eq!(report.busy_s, Some(0.0));
    assert!(report.wall_s >= 0.2, "{}", report.wall_s);
    let (store, run) = import(&log);
    assert!(store.startup_attempts(run).unwrap().is_empty());
    assert_eq!(store.run(run).unwrap().metadata["never_used_gpu"], true);
}

#[test]
fn a_workload_that_uses_the_gpu_records_its_start_latency() {
    let idle = Tick {
        answers: vec![Ok(reading(Some(60_000), 0))],
        ..Tick::default()
    };
    let busy = Tick {
        answers: vec![Ok(reading(Some(250_000), 99))],
        ..Tick::default()
    };
    let mut ticks = vec![idle.clone(), idle];
    ticks.extend(std::iter::repeat_n(busy, 50));
    let mut source = ScriptedSource::new(gpus(1), ticks);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    let opts = SessionOptions {
        interval_ms: 50,
        ..SessionOptions::default()
    };
    let command = vec!["sh".to_string(), "-c".to_string(), "sleep 0.4".to_string()];
    let report = crate::wrap(
        &mut source,
        &SystemClock::default(),
        &log,
        &opts,
        &workload(command),
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(report.exit_code, Some(0));
    let first = report.first_activity_s.unwrap();
    assert!((0.05..0.3).contains(&first), "{first}");
    assert!(report.busy_s.unwrap() > 0.1);
    let (store, run) = import(&log);
    let attempt = &store.startup_attempts(run).unwrap()[0];
    assert!((attempt.latency_s().unwrap() - first).abs() < 1e-9);
}

#[test]
fn our_own_processes_count_as_first_activity() {
    let me = std::process::id();
    assert!(crate::workload::descendants(me).contains(&me));
    // A child of ours is found among our descendants.
    let mut child = std::process::Command::new("sleep")
        .arg("2")
        .spawn()
        .unwrap();
    assert!(crate::workload::descendants(me).contains(&child.id()));
    let _ = child.kill();
    let _ = child.wait();
}

fn idle_source() -> ScriptedSource {
    ScriptedSource::new(
        gpus(1),
        vec![Tick {
            answers: vec![Ok(reading(Some(60_000), 0))],
            ..Tick::default()
        }],
    )
}

#[test]
fn a_stopped_workload_gets_sigterm_and_the_log_says_it_was_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    let opts = SessionOptions {
        interval_ms: 50,
        ..SessionOptions::default()
    };
    let stop = AtomicBool::new(false);
    let mut ticks = 0;
    let report = crate::wrap(
        &mut idle_source(),
        &SystemClock::default(),
        &log,
        &opts,
        &Workload {
            own_group: true,
            ..workload(sh("sleep 60"))
        },
        &stop,
        |_, _| {
            ticks += 1;
            if ticks == 3 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )
    .unwrap();
    assert!(report.stopped);
    assert_eq!(report.exit_code, None, "ended by a signal");
    assert!(report.wall_s < 30.0, "{}", report.wall_s);
    let (store, run) = import(&log);
    assert_eq!(store.run(run).unwrap().metadata["stopped_by_user"], true);
}

#[test]
fn a_workload_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    let marker = dir.path().join("trapped");
    // The manual clock lets the grace period pass in a few hundred ticks.
    let clock = ManualClock::new(1_717_200_000_000);
    let stop = AtomicBool::new(false);
    let mut stop_at = None;
    let mut last_tick = 0;
    let ready = dir.path().join("ready");
    let script = format!(
        "trap 'echo > {}' TERM; touch {}; while true; do sleep 0.05; done",
        marker.display(),
        ready.display()
    );
    let report = crate::wrap(
        &mut idle_source(),
        &clock,
        &log,
        &options(),
        &Workload {
            own_group: true,
            output: Some(dir.path().join("out.txt")),
            ..workload(sh(&script))
        },
        &stop,
        |tick, _| {
            last_tick = tick.now_ms;
            // Ask it to stop once its trap is set.
            if stop_at.is_none() && ready.exists() {
                stop_at = Some(tick.now_ms);
                stop.store(true, Ordering::Relaxed);
            } else if stop_at.is_some() {
                // The grace period passes in virtual time; leave the shell
                // some real time to run its trap.
                std::thread::sleep(std::time::Duration::from_millis(30));
            }
        },
    )
    .unwrap();
    assert!(report.stopped);
    assert_eq!(report.exit_code, None);
    let asked = stop_at.unwrap();
    assert!(
        last_tick - asked >= STOP_GRACE_MS,
        "killed {} ms after the stop, before the grace period ended",
        last_tick - asked
    );
    assert!(marker.exists(), "SIGTERM was delivered first");
}

#[test]
fn the_workload_output_goes_to_its_file_and_runs_in_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    let out = dir.path().join("out.txt");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let report = crate::wrap(
        &mut idle_source(),
        &SystemClock::default(),
        &log,
        &SessionOptions {
            interval_ms: 50,
            ..SessionOptions::default()
        },
        &Workload {
            dir: Some(work.clone()),
            output: Some(out.clone()),
            ..workload(sh("pwd; echo oops >&2; read line || echo no-stdin"))
        },
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert_eq!(report.exit_code, Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            work.canonicalize().unwrap().to_str().unwrap(),
            "oops",
            "no-stdin"
        ]
    );
}

#[test]
fn a_workload_that_cannot_start_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    for (w, why) in [
        (workload(Vec::new()), "no command given"),
        (
            workload(vec!["no-such-program-here".into()]),
            "no program \"no-such-program-here\" on PATH",
        ),
        (
            workload(vec!["./missing.sh".into()]),
            "no program ./missing.sh",
        ),
        (
            Workload {
                dir: Some(dir.path().join("nowhere")),
                ..workload(vec!["true".into()])
            },
            "no directory",
        ),
    ] {
        let err = crate::wrap(
            &mut idle_source(),
            &SystemClock::default(),
            &log,
            &options(),
            &w,
            &AtomicBool::new(false),
            |_, _| {},
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(why), "{err}");
        assert!(!log.exists(), "{why}: no log written");
    }
}

#[test]
fn wall_time_ends_when_the_workload_exits_not_at_the_next_tick() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("w.jsonl");
    // Ticks 2 s apart; the workload lasts a fraction of one.
    let opts = SessionOptions {
        interval_ms: 2000,
        ..SessionOptions::default()
    };
    let report = crate::wrap(
        &mut idle_source(),
        &SystemClock::default(),
        &log,
        &opts,
        &workload(sh("sleep 0.2")),
        &AtomicBool::new(false),
        |_, _| {},
    )
    .unwrap();
    assert!(
        (0.2..1.5).contains(&report.wall_s),
        "wall {} s: the exit was seen between ticks",
        report.wall_s
    );
}

fn event_kinds(path: &std::path::Path) -> Vec<(EventKind, Option<u32>)> {
    use breakpoint_formats::parsers::ProbeRecord;
    crate::log::read_records(path)
        .into_iter()
        .filter_map(|r| match r {
            ProbeRecord::Event { event, gpu, .. } => Some((event, gpu)),
            _ => None,
        })
        .collect()
}

/// After a stall the missed ticks are skipped, not fired back to back, and
/// the tick says how much real time it stands for.
#[test]
fn missed_ticks_are_skipped_and_elapsed_time_is_real() {
    let ticks = vec![Tick {
        answers: vec![Ok(reading(Some(250_000), 97))],
        ..Tick::default()
    }];
    let mut source = ScriptedSource::new(gpus(1), ticks);
    let start = 1_717_200_000_000;
    let clock = ManualClock::new(start);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.jsonl");
    let mut session =
        crate::session::Session::start(&mut source, &clock, &path, &options()).unwrap();
    let t1 = session.tick().unwrap();
    assert_eq!((t1.now_ms - start, t1.elapsed_ms), (1000, 1000));
    // The driver (or the machine) stalls for five intervals.
    clock.advance(5000);
    let t2 = session.tick().unwrap();
    assert_eq!((t2.now_ms - start, t2.elapsed_ms), (6000, 5000));
    assert_eq!(t2.busy, Some(true));
    let t3 = session.tick().unwrap();
    assert_eq!(
        (t3.now_ms - start, t3.elapsed_ms),
        (7000, 1000),
        "the next tick waits for its time on the grid"
    );
}

#[test]
fn a_gpu_that_needs_a_reset_or_answers_nothing_is_one_event_per_incident() {
    let ok = || Ok(reading(Some(250_000), 97));
    let reset = || Err(ReadError::ResetRequired("the GPU needs a reset".into()));
    let unreadable = || Err(ReadError::Unreadable("NVML answered no query".into()));
    let tick = |a: Result<Reading, ReadError>, b: Result<Reading, ReadError>| Tick {
        answers: vec![a, b],
        ..Tick::default()
    };
    let mut script = vec![tick(ok(), ok())];
    for _ in 0..3 {
        script.push(tick(reset(), unreadable()));
    }
    script.push(tick(ok(), ok()));
    let mut source = ScriptedSource::new(gpus(2), script);
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.jsonl");
    let mut session =
        crate::session::Session::start(&mut source, &clock, &path, &options()).unwrap();
    // The start reads the first tick of the script, and so does the first tick.
    for _ in 0..5 {
        session.tick().unwrap();
    }
    session.finish(serde_json::Map::new()).unwrap();
    assert_eq!(
        event_kinds(&path),
        [
            (EventKind::ResetRequired, Some(0)),
            (EventKind::Unreadable, Some(1)),
            (EventKind::Recovered, Some(1)),
        ],
        "GPU 0 is not read again until the retry; GPU 1 is read every tick"
    );
}

#[test]
fn busy_is_unknown_when_no_gpu_reports_utilisation() {
    let no_util = Reading {
        values: vec![(Field::PowerMw, 90_000)],
    };
    let mut source = ScriptedSource::new(
        gpus(1),
        vec![Tick {
            answers: vec![Ok(no_util)],
            ..Tick::default()
        }],
    );
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let mut session = crate::session::Session::start(
        &mut source,
        &clock,
        &dir.path().join("p.jsonl"),
        &options(),
    )
    .unwrap();
    assert_eq!(session.tick().unwrap().busy, None);
}
