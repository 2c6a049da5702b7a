//! Store tests through the real `open()` on temporary files.

use std::path::Path;

use super::*;
use crate::domain::{
    BillingMode, BillingRule, Event, EventKind, NewRun, OfferingSpec, Platform, PlatformKind,
    RunKind, SourceKind,
};
use crate::samples::{Field, Sample};

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

fn sample_run(store: &Store) -> i64 {
    let p = platform(store, "P");
    store
        .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
        .unwrap()
        .id
}

#[test]
fn samples_round_trip_across_chunks_and_gpus() {
    let store = Store::open_in_memory().unwrap();
    let run = sample_run(&store);
    let n = CHUNK_SAMPLES as i64 * 2 + 17;
    let make = |i: i64, gpu: u32| {
        let mut s = Sample::new(i * 1000, gpu).with(Field::PowerMw, 250_000 - i);
        if i % 5 != 0 {
            s.set(Field::TempGpuC, 60 + i % 7);
        }
        s
    };
    store
        .atomically(|s| -> Result<()> {
            let mut w = s.sample_writer(run)?;
            for i in 0..n {
                for gpu in 0..2 {
                    w.push(&make(i, gpu))?;
                }
            }
            assert_eq!(w.finish()?.samples, n as u64 * 2);
            Ok(())
        })
        .unwrap();

    assert_eq!(store.sample_gpus(run).unwrap(), vec![0, 1]);
    assert_eq!(store.run(run).unwrap().sample_count, n as u64 * 2);
    // Chunks are stored in the order they were made whatever the encoding
    // thread's pace, and each GPU's last one after them: the same input
    // gives the same rows in the same order (and the same file).
    let order: Vec<(u32, i64)> = store
        .conn()
        .prepare("SELECT gpu, seq FROM sample_chunks ORDER BY rowid")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(order, [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]);
    let all = store.read_samples(run, 1, None, None).unwrap();
    assert_eq!(all.len(), n as usize);
    let expected: Vec<Sample> = (0..n).map(|i| make(i, 1)).collect();
    assert_eq!(all.samples().collect::<Vec<_>>(), expected);

    // A range that straddles a chunk boundary, one field only.
    let start = (CHUNK_SAMPLES as i64 - 10) * 1000;
    let frame = store
        .read_samples(
            run,
            0,
            Some(start..start + 3_600_000),
            Some(&[Field::TempGpuC]),
        )
        .unwrap();
    assert_eq!(frame.len(), 3600);
    assert_eq!(frame.t_ms[0], start);
    assert!(frame.column(Field::PowerMw).is_none());
    let temps = frame.column(Field::TempGpuC).unwrap();
    // Every fifth sample has no temperature: absent, not 0.
    let first_missing = (0..frame.len())
        .find(|i| (start / 1000 + *i as i64) % 5 == 0)
        .unwrap();
    assert_eq!(temps.get(first_missing), None);
    assert_eq!(store.sample_span(run).unwrap(), Some((0, (n - 1) * 1000)));

    // Folded GPU by GPU on several threads: each GPU sees its own pieces,
    // in order, and the GPUs come back in order.
    let folded = store
        .fold_samples(
            run,
            None,
            start..start + 3_600_000,
            None,
            |gpu| (gpu, Vec::<i64>::new()),
            |(gpu, times): &mut (u32, Vec<i64>), piece| {
                assert_eq!(piece.gpu, *gpu);
                times.extend(
                    piece
                        .t_ms
                        .iter()
                        .filter(|t| (start..start + 3_600_000).contains(*t)),
                );
            },
        )
        .unwrap();
    assert_eq!(folded.iter().map(|(g, _)| *g).collect::<Vec<_>>(), [0, 1]);
    for (_, (_, times)) in &folded {
        assert_eq!(times, &frame.t_ms, "in order, none lost");
    }
    // Only the GPUs asked for.
    let one = store
        .fold_samples(
            run,
            Some(&[1, 7]),
            0..i64::MAX,
            None,
            |_| 0,
            |n, piece| {
                assert_eq!(piece.gpu, 1);
                *n += piece.len();
            },
        )
        .unwrap();
    assert_eq!(one, [(1, n as usize)]);
    // A damaged piece is named, not folded.
    store
        .conn()
        .execute(
            "UPDATE sample_chunks SET data = x'00ff' WHERE gpu = 1 AND seq = 1",
            [],
        )
        .unwrap();
    let damaged = store.fold_samples(run, None, 0..i64::MAX, None, |_| (), |_, _| ());
    assert!(
        matches!(damaged, Err(Error::CorruptSamples { .. })),
        "{damaged:?}"
    );
}

#[test]
fn out_of_order_samples_are_counted_and_read_back_sorted() {
    let store = Store::open_in_memory().unwrap();
    let run = sample_run(&store);
    let mut w = store.sample_writer(run).unwrap();
    let n = CHUNK_SAMPLES as i64;
    for i in 0..n {
        w.push(&Sample::new(i * 10 + 5, 0).with(Field::UtilGpuPct, 1))
            .unwrap();
    }
    // A straggler that belongs in the chunk already stored.
    w.push(&Sample::new(0, 0).with(Field::UtilGpuPct, 2))
        .unwrap();
    let summary = w.finish().unwrap();
    assert_eq!(summary.out_of_order, 1);
    let frame = store.read_samples(run, 0, None, None).unwrap();
    assert!(frame.t_ms.is_sorted());
    assert_eq!(frame.column(Field::UtilGpuPct).unwrap().get(0), Some(2));
}

#[test]
fn a_field_a_whole_chunk_lacks_reads_back_absent_there_and_present_elsewhere() {
    let store = Store::open_in_memory().unwrap();
    let run = sample_run(&store);
    let n = CHUNK_SAMPLES as i64;
    // The first chunk has no temperature at all, the second every one, the
    // third one in two; a straggler then lands in the first chunk's time.
    let make = |i: i64| {
        let mut s = Sample::new(i * 10 + 5, 0).with(Field::PowerMw, i);
        if i >= n && (i < 2 * n || i % 2 == 0) {
            s.set(Field::TempGpuC, 40 + i % 30);
        }
        s
    };
    let mut w = store.sample_writer(run).unwrap();
    for i in 0..3 * n {
        w.push(&make(i)).unwrap();
    }
    let straggler = Sample::new(0, 0)
        .with(Field::PowerMw, -1)
        .with(Field::TempGpuC, 99);
    w.push(&straggler).unwrap();
    w.finish().unwrap();

    let mut expected: Vec<Sample> = (0..3 * n).map(make).collect();
    expected.insert(0, straggler);
    let frame = store.read_samples(run, 0, None, None).unwrap();
    assert_eq!(frame.samples().collect::<Vec<_>>(), expected);
    // A range inside the chunk without it: no temperature at all there.
    let inside = store
        .read_samples(run, 0, Some(1_000..2_000), Some(&[Field::TempGpuC]))
        .unwrap();
    assert_eq!(inside.len(), 100);
    assert!(
        inside
            .column(Field::TempGpuC)
            .is_none_or(|c| c.present_count() == 0)
    );
    // A range inside the chunk with every one: a column without gaps.
    let whole = (n * 10 + 5)..(2 * n * 10);
    let full = store
        .read_samples(run, 0, Some(whole), Some(&[Field::TempGpuC]))
        .unwrap();
    let temps = full.column(Field::TempGpuC).unwrap();
    assert_eq!((temps.presence(), temps.len()), (None, n as usize));
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

#[test]
fn each_gpu_is_read_whole_side_by_side_or_one_at_a_time_inside_a_transaction() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let p = platform(&store, "P");
    let run = store
        .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
        .unwrap();
    let mut w = store.sample_writer(run.id).unwrap();
    for t in 0..5000 {
        for gpu in 0..3 {
            w.push(&Sample::new(t * 1000, gpu).with(Field::PowerMw, i64::from(gpu) * 1000 + t))
                .unwrap();
        }
    }
    w.finish().unwrap();
    let gpus = store.sample_gpus(run.id).unwrap();
    let sum = |frame: crate::samples::SeriesFrame| {
        let power = frame.column(Field::PowerMw).unwrap();
        (
            frame.gpu,
            frame.len(),
            (0..frame.len()).filter_map(|i| power.get(i)).sum::<i64>(),
        )
    };
    let expected: Vec<(u32, usize, i64)> = (0..3)
        .map(|gpu| (gpu, 5000, 5000 * i64::from(gpu) * 1000 + 4999 * 5000 / 2))
        .collect();
    // Side by side, through connections of their own.
    assert_eq!(
        store
            .per_gpu(run.id, &gpus, Some(&[Field::PowerMw]), sum)
            .unwrap(),
        expected
    );
    // Inside a transaction, what it wrote is seen: read here, in turn.
    let seen = store
        .atomically(|s| -> Result<_> {
            let mut w = s.sample_writer(run.id)?;
            w.push(&Sample::new(9_000_000, 2).with(Field::PowerMw, 1))?;
            w.finish()?;
            s.per_gpu(run.id, &gpus, Some(&[Field::PowerMw]), sum)
        })
        .unwrap();
    assert_eq!(seen[2].1, 5001);
}

#[test]
fn each_gpu_s_energy_is_kept_as_written_exactly_as_its_samples_give_it() {
    use crate::metrics::energy::{gpu_energy, run_energy};
    let store = Store::open_in_memory().unwrap();
    let run = sample_run(&store);
    let n = CHUNK_SAMPLES as i64 * 2 + 300;
    let mut w = store.sample_writer(run).unwrap();
    for i in 0..n {
        // GPU 0: a jittery 1 Hz log with a silence, waiting now and then,
        // a reading without power here and there.
        let t = i * 1000 + (i * 7919) % 90 + if i > n / 2 { 600_000 } else { 0 };
        let mut s = Sample::new(t, 0).with(Field::UtilGpuPct, if i % 50 < 5 { 0 } else { 97 });
        if i % 13 != 0 {
            s.set(Field::PowerMw, 250_000 + (i * 31) % 4_000);
        }
        w.push(&s).unwrap();
        // GPU 1: its second chunk starts before the first one ends.
        let t = if i == CHUNK_SAMPLES as i64 {
            500
        } else {
            i * 1000
        };
        w.push(&Sample::new(t, 1).with(Field::PowerMw, 100_000))
            .unwrap();
        // GPU 2: no power at all.
        w.push(&Sample::new(i * 1000, 2).with(Field::TempGpuC, 50))
            .unwrap();
    }
    w.finish().unwrap();

    let read = |gpu| gpu_energy(&store.read_samples(run, gpu, None, None).unwrap());
    let kept = store.kept_energy(run).unwrap();
    let zero = read(0).unwrap();
    assert!(zero.hours > 0.0 && zero.working_w.is_some() && zero.waiting_w.is_some());
    assert_eq!(kept.get(&0), Some(&Some(zero.clone())), "bit for bit");
    assert_eq!(kept.get(&1), None, "out of order: left to be read");
    assert_eq!(kept.get(&2), Some(&None), "known to have none");

    // Asked for, GPU 1 is integrated from its samples once, and kept.
    let energy = run_energy(&store, &store.run(run).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(energy.gpus, vec![zero.clone(), read(1).unwrap()]);
    assert_eq!(store.kept_energy(run).unwrap().len(), 3);

    // Samples added later: what was kept for that GPU no longer holds.
    let mut w = store.sample_writer(run).unwrap();
    w.push(&Sample::new(n * 1000 + 600_050, 0).with(Field::PowerMw, 1))
        .unwrap();
    w.finish().unwrap();
    let kept = store.kept_energy(run).unwrap();
    assert_eq!(kept.get(&0), None);
    assert!(kept.contains_key(&1) && kept.contains_key(&2));
    let energy = run_energy(&store, &store.run(run).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(energy.gpus[0], read(0).unwrap());
    assert_ne!(energy.gpus[0], zero);
}

#[test]
fn a_run_s_energy_is_told_at_once_while_another_process_writes() {
    use crate::metrics::energy::run_energy;
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let run = sample_run(&store);
    let mut w = store.sample_writer(run).unwrap();
    for i in 0..100 {
        w.push(&Sample::new(i * 1000, 0).with(Field::PowerMw, 200_000))
            .unwrap();
    }
    w.finish().unwrap();
    // As a workspace from before energy was kept.
    store.conn().execute("DELETE FROM gpu_energy", []).unwrap();
    store.wait_for_other_writers().unwrap();

    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    let energy = run_energy(&store, &store.run(run).unwrap())
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!((energy.kwh * 3.6e6 - 200.0 * 99.0).abs() < 1e-6);
    assert!(
        store.kept_energy(run).unwrap().is_empty(),
        "nothing waited for"
    );

    other.execute_batch("COMMIT").unwrap();
    run_energy(&store, &store.run(run).unwrap()).unwrap();
    assert_eq!(store.kept_energy(run).unwrap().len(), 1);

    // Scoring the run, which reads its samples anyway, keeps it too.
    store.conn().execute("DELETE FROM gpu_energy", []).unwrap();
    crate::metrics::compute_run(&store, &store.run(run).unwrap()).unwrap();
    let kept = store.kept_energy(run).unwrap();
    assert_eq!(kept.get(&0), Some(&Some(energy.gpus[0].clone())));
}
