//! Store tests through the real `open()` on temporary files.

use std::path::Path;

use super::*;
use crate::domain::{
    BillingMode, BillingRule, Event, EventKind, NewRun, OfferingSpec, Platform, PlatformKind,
    RunKind, SourceKind,
};
use crate::samples::{Field, Sample};

mod samples;

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test.db");
    (dir, path)
}

fn platform(store: &Store, name: &str) -> Platform {
    store
        .create_platform(&Platform::new(name, PlatformKind::Hyperscaler, None).unwrap())
        .unwrap()
}

fn a100(platform_id: i64, price: f64) -> crate::domain::Offering {
    OfferingSpec {
        accelerator: "A100 80GB SXM".into(),
        count: 8,
        currency: "CNY".into(),
        price_on_demand: Some(price),
        ..OfferingSpec::default()
    }
    .build(platform_id)
    .unwrap()
}

#[test]
fn a_new_file_gets_the_latest_schema() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
    let mode: String = store
        .conn()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(store);
    // Opening again is a no-op.
    assert_eq!(
        Store::open(&path).unwrap().schema_version().unwrap(),
        LATEST_VERSION
    );
}

#[test]
fn every_earlier_schema_version_migrates_to_the_latest() {
    for version in 0..LATEST_VERSION as usize {
        let (_dir, path) = temp_db();
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        migrations::apply_up_to(&mut conn, version).unwrap();
        drop(conn);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.schema_version().unwrap(),
            LATEST_VERSION,
            "from {version}"
        );
    }
}

#[test]
fn a_newer_schema_is_refused_and_left_untouched() {
    let (_dir, path) = temp_db();
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", LATEST_VERSION + 1)
        .unwrap();
    drop(conn);
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).err().unwrap();
    assert!(matches!(err, Error::SchemaTooNew { found, .. } if found == LATEST_VERSION + 1));
    assert!(err.to_string().contains("upgrade Breakpoint"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn files_that_are_not_breakpoint_databases_are_refused() {
    let (dir, path) = temp_db();
    std::fs::write(&path, b"this is not a database at all, just text......").unwrap();
    let err = Store::open(&path).err().unwrap();
    assert!(err.to_string().contains("not a database"), "{err}");

    let other = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t(x)").unwrap();
    drop(conn);
    let err = Store::open(&other).err().unwrap();
    assert!(err.to_string().contains("another program"), "{err}");

    let err = Store::open(Path::new("/nonexistent-dir/x.db"))
        .err()
        .unwrap();
    assert!(err.to_string().contains("does not exist"), "{err}");
    let err = Store::open(dir.path()).err().unwrap();
    assert!(err.to_string().contains("directory"), "{err}");
}

#[test]
fn deleting_a_platform_removes_its_offerings_runs_and_samples() {
    let store = Store::open_in_memory().unwrap();
    let p = platform(&store, "阿里云");
    let keep = platform(&store, "AutoDL");
    let o = store.create_offering(&a100(p.id, 12.8)).unwrap();
    let mut new_run = NewRun::new(p.id, RunKind::Sustain, SourceKind::Import);
    new_run.offering_id = Some(o.id);
    let run = store.create_run(new_run).unwrap();
    let mut w = store.sample_writer(run.id).unwrap();
    w.push(&Sample::new(0, 0).with(Field::PowerMw, 1)).unwrap();
    w.finish().unwrap();
    store
        .add_events(
            run.id,
            &[Event::new(jiff::Timestamp::UNIX_EPOCH, EventKind::Gap)],
        )
        .unwrap();
    store
        .create_run(NewRun::new(keep.id, RunKind::Sustain, SourceKind::Import))
        .unwrap();

    store.delete_platform(p.id).unwrap();
    let info = store.info().unwrap();
    assert_eq!((info.platforms, info.offerings, info.runs), (1, 0, 1));
    assert_eq!((info.samples, info.events), (0, 0));
    assert!(matches!(
        store.platform("阿里云"),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn platform_names_are_unique_ignoring_case_composition_and_look_alikes() {
    let store = Store::open_in_memory().unwrap();
    platform(&store, "AutoDL");
    platform(&store, "Café");
    let refused = |name: &str| {
        store
            .create_platform(&Platform::new(name, PlatformKind::Other, None).unwrap())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(refused("AutoDL"), "platform \"AutoDL\" already exists");
    assert_eq!(
        refused("autodl"),
        "platform \"autodl\" reads the same as the existing platform \"AutoDL\"; choose another name"
    );
    // Decomposed é (as macOS file names carry it), upper case beyond ASCII,
    // and a Cyrillic а standing in for the Latin a.
    assert!(refused("Cafe\u{301}").contains("already exists"));
    assert!(refused("CAFÉ").contains("reads the same as"));
    assert!(refused("C\u{430}fé").contains("reads the same as"));
    assert!(
        Platform::new("Caf\u{200B}é", PlatformKind::Other, None).is_err(),
        "a zero-width space is refused before it reaches the store"
    );
    assert_eq!(store.platforms().unwrap().len(), 2);
    assert_eq!(store.platform("AUTODL").unwrap().name, "AutoDL");
    assert_eq!(store.platform("CAFÉ").unwrap().name, "Café");
    assert_eq!(store.platform("Cafe\u{301}").unwrap().name, "Café");
    // Renaming onto a look-alike is refused too; renaming to itself is not.
    let mut autodl = store.platform("AutoDL").unwrap();
    autodl.name = "cafe\u{301}".into();
    assert!(store.update_platform(&autodl).is_err());
    autodl.name = "AutoDL".into();
    store.update_platform(&autodl).unwrap();
}

#[test]
fn run_ids_are_never_reused_after_a_delete() {
    let store = Store::open_in_memory().unwrap();
    let p = platform(&store, "P");
    let new_run = || {
        store
            .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
            .unwrap()
            .id
    };
    let first = new_run();
    let second = new_run();
    store.delete_run(second).unwrap();
    let third = new_run();
    assert!(
        third > second,
        "run {second} was deleted; the next run got {third}"
    );
    store.delete_run(third).unwrap();
    store.delete_run(first).unwrap();
    assert!(new_run() > third);
}

#[test]
fn a_database_of_each_earlier_schema_opens_with_its_data_intact() {
    for version in 1..LATEST_VERSION as usize {
        let (_dir, path) = temp_db();
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        migrations::apply_up_to(&mut conn, version).unwrap();
        conn.execute_batch(
            "INSERT INTO platforms (id, name, kind, created_at_ms) VALUES (7, 'Old', 'other', 1);
             INSERT INTO runs (id, platform_id, kind, source, file_name, sha256, created_at_ms,
                               sample_count, warnings_json)
                 VALUES (3, 7, 'sustain', 'import', 'a.csv', 'aa', 10, 0, '[\"w\"]'),
                        (9, 7, 'sustain', 'import', 'b.csv', 'bb', 11, 0, '[]');
             INSERT INTO events (run_id, at_ms, gpu, kind, detail)
                 VALUES (9, 1000, 0, 'gap', 'kept');
             INSERT INTO sample_chunks (run_id, gpu, seq, t_first_ms, t_last_ms, n, data)
                 VALUES (9, 0, 0, 1000, 1000, 1, x'00');
             INSERT INTO billing_lines (run_id, instance, start_ms, end_ms, billed_seconds,
                                        amount, currency, unit_price)
                 VALUES (3, 'job', 0, 3600000, 3600, 0.1, 'CNY', 12.8);",
        )
        .unwrap();
        drop(conn);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), LATEST_VERSION);
        let runs = store.runs(None).unwrap();
        assert_eq!(
            runs.iter().map(|r| r.id).collect::<Vec<_>>(),
            [3, 9],
            "from {version}"
        );
        assert_eq!(runs[0].warnings, ["w"]);
        assert_eq!(runs[1].provenance.file_name.as_deref(), Some("b.csv"));
        assert_eq!(store.events(9).unwrap()[0].detail.as_deref(), Some("kept"));
        assert_eq!(store.run_by_sha256("aa").unwrap(), Some(3));
        // Money written as floats comes back as the decimals it was.
        let line = &store.billing_lines(3).unwrap()[0];
        assert_eq!(
            (line.amount.to_string(), line.unit_price.to_string()),
            ("0.1".to_string(), "12.8".to_string()),
            "from {version}"
        );
        // Children still refer to their runs: deleting one cascades.
        store.delete_run(9).unwrap();
        assert!(store.events(9).unwrap().is_empty());
        let chunks: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM sample_chunks", [], |r| r.get(0))
            .unwrap();
        assert_eq!(chunks, 0, "from {version}");
        // And the freed id 9 is not handed out again.
        let p = store.platform("Old").unwrap();
        let next = store
            .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
            .unwrap();
        assert!(next.id > 9, "from {version}: got {}", next.id);
        let violations: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(violations, 0);
    }
}

#[test]
fn reading_commands_refuse_a_missing_database_and_create_nothing() {
    let (dir, path) = temp_db();
    let Err(err) = Store::open_existing(&path) else {
        panic!("a missing database was opened")
    };
    assert!(
        err.to_string().contains("there is no database here"),
        "{err}"
    );
    assert!(!path.exists());
    assert!(Store::open_existing(dir.path()).is_err());
    Store::open(&path).unwrap();
    assert!(!Store::open_existing(&path).unwrap().is_read_only());
}

#[test]
fn a_run_keeps_the_price_and_billing_rule_of_its_time() {
    let store = Store::open_in_memory().unwrap();
    let p = platform(&store, "A");
    let o = store.create_offering(&a100(p.id, 12.8)).unwrap();
    let mut rule = BillingRule::per_second(p.id, BillingMode::OnDemand);
    rule.granularity_s = 3600;
    store.set_billing_rule(&rule).unwrap();
    let mut new_run = NewRun::new(p.id, RunKind::Billing, SourceKind::Import);
    new_run.offering_id = Some(o.id);
    let run = store.create_run(new_run).unwrap();

    // The platform changes its price and rule afterwards …
    store.delete_offering(o.id).unwrap();
    rule.granularity_s = 1;
    store.set_billing_rule(&rule).unwrap();

    // … and the old evidence still says what it was.
    let run = store.run(run.id).unwrap();
    let snapshot = run.offering_snapshot.unwrap();
    assert_eq!(snapshot.prices.on_demand, Some(12.8));
    assert_eq!(run.billing_snapshot[0].granularity_s, 3600);
    assert_eq!(run.offering_id, None);
    assert_eq!(store.billing_rules(p.id).unwrap()[0].granularity_s, 1);
}

#[test]
fn an_offering_of_another_platform_is_refused_for_a_run() {
    let store = Store::open_in_memory().unwrap();
    let a = platform(&store, "A");
    let b = platform(&store, "B");
    let o = store.create_offering(&a100(b.id, 1.0)).unwrap();
    let mut new_run = NewRun::new(a.id, RunKind::Sustain, SourceKind::Import);
    new_run.offering_id = Some(o.id);
    assert!(matches!(store.create_run(new_run), Err(Error::Invalid(_))));
}

#[test]
fn atomically_leaves_nothing_behind_on_error() {
    let store = Store::open_in_memory().unwrap();
    let result: Result<()> = store.atomically(|s| {
        platform(s, "A");
        s.create_platform(&Platform::new("A", PlatformKind::Other, None).unwrap())?;
        Ok(())
    });
    assert!(result.is_err());
    assert!(store.platforms().unwrap().is_empty());
}

/// A run to hang samples and events on.
fn sample_run(store: &Store) -> i64 {
    let p = platform(store, "P");
    store
        .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
        .unwrap()
        .id
}

#[test]
fn events_of_one_kind_are_read_alone_in_time_order() {
    let store = Store::open_in_memory().unwrap();
    let run = sample_run(&store);
    let at = |s: i64| jiff::Timestamp::from_second(s).unwrap();
    store
        .add_events(
            run,
            &[
                Event::new(at(30), EventKind::Phase),
                Event::new(at(10), EventKind::Xid),
                Event::new(at(20), EventKind::Phase),
            ],
        )
        .unwrap();
    let phases = store.events_of_kind(run, EventKind::Phase).unwrap();
    assert_eq!(
        phases.iter().map(|e| e.at).collect::<Vec<_>>(),
        [at(20), at(30)]
    );
    assert!(phases.iter().all(|e| e.kind == EventKind::Phase));
    assert_eq!(store.events(run).unwrap().len(), 3);
}

#[test]
fn two_writers_on_one_file_both_land() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    drop(store);
    let handles: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = Store::open(&path).unwrap();
                for i in 0..25 {
                    store
                        .atomically(|s| -> Result<()> {
                            platform(s, &format!("writer {w} platform {i}"));
                            Ok(())
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(Store::open(&path).unwrap().platforms().unwrap().len(), 50);
}

#[test]
fn nested_transactions_roll_back_only_their_own_work() {
    let store = Store::open_in_memory().unwrap();
    store
        .atomically(|s| -> Result<()> {
            platform(s, "outer");
            let inner: Result<()> = s.atomically(|s| {
                platform(s, "inner");
                Err(Error::not_found("thing", "x"))
            });
            assert!(inner.is_err());
            s.atomically(|s| -> Result<()> {
                platform(s, "kept");
                Ok(())
            })
        })
        .unwrap();
    let names: Vec<String> = store
        .platforms()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, vec!["kept", "outer"]);
    let failed: Result<()> = store.atomically(|s| {
        s.atomically(|s| -> Result<()> {
            platform(s, "lost");
            Ok(())
        })?;
        Err(Error::not_found("thing", "y"))
    });
    assert!(failed.is_err());
    assert_eq!(store.platforms().unwrap().len(), 2);
}

#[test]
fn a_writer_told_to_wait_waits_past_ten_seconds_and_says_so_each_ten() {
    let step = WAIT_STEP.as_millis() as i32;
    let at = |ms: i32| ms / step;
    assert!(wait_long(at(15_000)), "gave up at 15 s");
    assert!(!wait_long(at(31 * 60 * 1000)), "waited past half an hour");
    let notices: Vec<i32> = (0..at(40_000))
        .filter(|a| is_notice_time(WAIT_STEP * *a as u32))
        .map(|a| a * step / 1000)
        .collect();
    assert_eq!(notices, [1, 11, 21, 31]);
}

#[test]
fn a_write_waits_for_a_long_write_of_another_connection_instead_of_failing() {
    let (_dir, path) = temp_db();
    let holder = Store::open(&path).unwrap();
    let waiter = Store::open(&path).unwrap();
    waiter.wait_for_other_writers().unwrap();
    let (started, start) = std::sync::mpsc::channel();
    let held = std::thread::spawn(move || {
        holder
            .atomically(|s| {
                s.create_platform(&Platform::new("First", PlatformKind::Other, None).unwrap())?;
                started.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(1500));
                Ok::<_, Error>(())
            })
            .unwrap();
    });
    start.recv().unwrap();
    waiter
        .create_platform(&Platform::new("Second", PlatformKind::Other, None).unwrap())
        .unwrap();
    held.join().unwrap();
    assert_eq!(waiter.platforms().unwrap().len(), 2);
}
