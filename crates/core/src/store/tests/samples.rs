//! Samples: stored in chunks and read back, whole, in ranges or folded
//! GPU by GPU; and each GPU's energy, kept as written or integrated once.

use super::*;

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
