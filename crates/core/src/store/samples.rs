//! Sample storage: writers push samples, readers get per-GPU frames; in
//! between, samples live as compressed columnar chunks of up to
//! [`CHUNK_SAMPLES`] per run and GPU (format in `samples::codec`), indexed by
//! their first and last timestamp so a time range touches only its chunks.

use std::collections::BTreeMap;
use std::ops::Range;

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use breakpoint_formats::BillLineTaken;
use breakpoint_formats::timings::thread_cpu;
use rusqlite::params;

use super::Store;
use crate::domain::BillingLine;
use crate::error::{Error, Result};
use crate::samples::codec::{ChunkColumns, DecodedChunk, ValueCodec, decode_chunk, encode_columns};
use crate::samples::energy::{GpuEnergy, PowerTally, tallied_energy};
use crate::samples::steps::StepTally;
use crate::samples::{Column, Field, Sample, SeriesFrame};

/// GPUs numbered below this find their buffer directly; others by a search.
const DIRECT_GPUS: usize = 256;

/// Samples per stored chunk: large enough that per-row overhead vanishes,
/// small enough that an hour of one GPU at 1 Hz decodes one or two chunks.
pub const CHUNK_SAMPLES: usize = 4096;

/// Buffers samples per GPU and stores a chunk whenever one fills up.
///
/// Full chunks are encoded on a thread of their own while the caller goes on
/// producing samples (a 1.4 M-row import parses on one core and encodes on
/// the other); the rows are inserted here, in order, on the caller's
/// connection.
///
/// The writer does not open a transaction of its own: use it inside
/// [`Store::atomically`] so that a run's samples land all together.
pub struct SampleWriter<'s> {
    store: &'s Store,
    run_id: i64,
    /// Each GPU's buffer, in GPU order.
    gpus: Vec<(u32, GpuBuffer)>,
    /// Where GPU `g` (below [`DIRECT_GPUS`]) lies in `gpus`, plus one (0:
    /// none yet): a row's buffer is found in one load, not a search.
    direct: Vec<u16>,
    written: u64,
    out_of_order: u64,
    encoder: Option<Encoder>,
    /// Emptied chunk buffers, reused rather than allocated per chunk.
    spare: Vec<ChunkColumns>,
    /// The last chunk of each GPU, encoded, waiting for those sent before.
    last_chunks: Vec<Chunk>,
    bill_lines: BillLinesWritten,
}

/// Bill lines handed to the writer as they were read: stored at once, or
/// left out as held by the platform's other runs (the same bill in other
/// bytes, an export overlapping an earlier one).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BillLinesWritten {
    pub stored: u64,
    pub held_before: u64,
    /// The runs holding the lines left out.
    pub earlier_runs: Vec<i64>,
}

struct GpuBuffer {
    columns: ChunkColumns,
    next_seq: i64,
    last_stored_t: Option<i64>,
    /// The steps between the times written, and the power integral, while
    /// this writer wrote every sample of the GPU in the run (none were
    /// stored before it).
    steps: Option<StepTally>,
    power: Option<PowerTally>,
}

impl GpuBuffer {
    /// The energy of every sample this buffer's GPU has in the run, as
    /// reading them back would integrate it: `Some(None)` where they hold
    /// no power interval; `None` where the tallies cannot tell.
    fn energy(&self, gpu: u32) -> Option<Option<GpuEnergy>> {
        tallied_energy(self.steps.as_ref()?, self.power.as_ref()?, gpu)
    }
}

/// A full chunk on its way to the store.
struct Chunk {
    gpu: u32,
    seq: i64,
    columns: ChunkColumns,
    blob: Vec<u8>,
}

/// The encoding thread: chunks go in as samples and come back with their
/// blob, in the order they were sent.
struct Encoder {
    to_worker: Option<SyncSender<Chunk>>,
    from_worker: Receiver<Chunk>,
    /// The thread, which ends saying how much processor time it used.
    worker: Option<JoinHandle<Option<Duration>>>,
    in_flight: usize,
}

/// Chunks sent and not yet stored before the writer waits for the encoder:
/// two per GPU written, within these bounds. The GPUs of a sampling loop
/// fill their chunks within a few rows of each other, so the chunks come in
/// bursts of one per GPU; a queue shorter than a burst stopped the parser
/// until the encoder had caught up (an eighth of an 8-GPU import's time).
/// A chunk in flight holds its columns: 0.4 MiB for ten fields, 0.75 MiB
/// with all of them.
const IN_FLIGHT_MIN: usize = 4;
const IN_FLIGHT_MAX: usize = 32;

impl Encoder {
    fn start() -> Self {
        let (to_worker, jobs) = sync_channel::<Chunk>(IN_FLIGHT_MAX);
        let (done, from_worker) = sync_channel::<Chunk>(IN_FLIGHT_MAX);
        let worker = std::thread::spawn(move || {
            for mut chunk in jobs {
                // Chunks come in bursts (one per GPU) and take milliseconds
                // each; woken by the first, this thread held a core for the
                // whole burst while a row worker, ready to run, waited
                // behind it and the other core idled (the kernel seldom
                // moves a thread in time). Stepping aside before each chunk
                // lets that worker go first: 1.83 of the two cores busy
                // during an import instead of 1.73.
                std::thread::yield_now();
                chunk.blob = encode_columns(&chunk.columns, ValueCodec::Pco);
                if done.send(chunk).is_err() {
                    break;
                }
            }
            thread_cpu()
        });
        Self {
            to_worker: Some(to_worker),
            from_worker,
            worker: Some(worker),
            in_flight: 0,
        }
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        // A writer dropped half-way (a failed import) stops the thread.
        drop(self.to_worker.take());
        while self.from_worker.recv().is_ok() {}
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

fn encoder_stopped() -> Error {
    Error::Io(std::io::Error::other("the sample encoding thread stopped"))
}

/// What a writer stored.
#[derive(Debug, Clone, Default)]
pub struct WriteSummary {
    pub samples: u64,
    /// Samples that arrived earlier than a sample already stored for their
    /// GPU; they are kept (readers sort), and the importer warns about them.
    pub out_of_order: u64,
    /// The time steps of each GPU whose stored samples are exactly those
    /// written, in time order, as reading them back would find them.
    pub steps: BTreeMap<u32, StepTally>,
    /// The processor time of the thread that encoded the full chunks
    /// (`import --timings`); `None` where none was started or the system
    /// keeps no thread clocks.
    pub encoding_cpu: Option<Duration>,
    pub bill_lines: BillLinesWritten,
}

impl Store {
    /// A writer appending samples to run `run_id`.
    pub fn sample_writer(&self, run_id: i64) -> Result<SampleWriter<'_>> {
        self.run(run_id)?;
        Ok(SampleWriter {
            store: self,
            run_id,
            gpus: Vec::new(),
            direct: vec![0; DIRECT_GPUS],
            written: 0,
            out_of_order: 0,
            encoder: None,
            spare: Vec::new(),
            last_chunks: Vec::new(),
            bill_lines: BillLinesWritten::default(),
        })
    }

    /// The GPUs a run has samples for.
    pub fn sample_gpus(&self, run_id: i64) -> Result<Vec<u32>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT DISTINCT gpu FROM sample_chunks WHERE run_id = ?1 ORDER BY gpu",
        )?;
        let rows = stmt.query_map([run_id], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// First and last sample time of a run, over all GPUs.
    pub fn sample_span(&self, run_id: i64) -> Result<Option<(i64, i64)>> {
        Ok(self.conn().query_row(
            "SELECT min(t_first_ms), max(t_last_ms) FROM sample_chunks WHERE run_id = ?1",
            [run_id],
            |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
        )?)
    }

    /// Samples of one GPU with `range.start ≤ t < range.end` (all when
    /// `None`), in time order; `fields` limits the columns decoded.
    pub fn read_samples(
        &self,
        run_id: i64,
        gpu: u32,
        range: Option<Range<i64>>,
        fields: Option<&[Field]>,
    ) -> Result<SeriesFrame> {
        let range = range.unwrap_or(i64::MIN..i64::MAX);
        let mut stmt = self.conn().prepare_cached(
            "SELECT data FROM sample_chunks
             WHERE run_id = ?1 AND gpu = ?2 AND t_last_ms >= ?3 AND t_first_ms < ?4
             ORDER BY seq",
        )?;
        let mut rows = stmt.query(params![run_id, gpu, range.start, range.end])?;
        let mut chunks = Vec::new();
        while let Some(row) = rows.next()? {
            let blob = row.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
            let chunk = decode_chunk(blob, fields).map_err(|e| Error::CorruptSamples {
                run_id,
                reason: e.to_string(),
            })?;
            chunks.push(chunk);
        }
        Ok(assemble(gpu, chunks, &range))
    }

    /// Each of `gpus`' whole series (of `fields`) reduced by `each`, in GPU
    /// order: on the machine's cores, each worker reading through a
    /// connection of its own, where the database is a file and no
    /// transaction is open on this connection (another one would not see
    /// it); one GPU at a time otherwise. Memory holds a series per worker.
    pub fn per_gpu<T: Send>(
        &self,
        run_id: i64,
        gpus: &[u32],
        fields: Option<&[Field]>,
        each: impl Fn(SeriesFrame) -> T + Sync,
    ) -> Result<Vec<T>> {
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(gpus.len());
        let shared = workers > 1 && self.conn().is_autocommit() && self.path().is_file();
        if !shared {
            return gpus
                .iter()
                .map(|&gpu| Ok(each(self.read_samples(run_id, gpu, None, fields)?)))
                .collect();
        }
        let each = &each;
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let path = self.path().to_path_buf();
                    scope.spawn(move || -> Result<Vec<(usize, T)>> {
                        let reader = Store::open_existing(&path)?;
                        (w..gpus.len())
                            .step_by(workers)
                            .map(|k| {
                                let frame = reader.read_samples(run_id, gpus[k], None, fields)?;
                                Ok((k, each(frame)))
                            })
                            .collect()
                    })
                })
                .collect();
            let mut out: Vec<Option<T>> = (0..gpus.len()).map(|_| None).collect();
            for handle in handles {
                let done = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                for (k, value) in done {
                    out[k] = Some(value);
                }
            }
            Ok(out.into_iter().flatten().collect())
        })
    }

    /// Every GPU's stored pieces (of the GPUs in `only`, where given) that
    /// overlap `range`, folded into a value of its own: `fold(&mut value,
    /// piece)` per piece in the order written, GPUs spread over the
    /// machine's cores (decoding is the expensive part). Pieces are read
    /// here, in turn across the GPUs, and handed to the workers through
    /// bounded queues, so memory holds a few pieces per worker however long
    /// the run. In GPU order.
    pub fn fold_samples<A: Send>(
        &self,
        run_id: i64,
        only: Option<&[u32]>,
        range: Range<i64>,
        fields: Option<&[Field]>,
        init: impl Fn(u32) -> A + Sync,
        fold: impl Fn(&mut A, SeriesFrame) + Sync,
    ) -> Result<Vec<(u32, A)>> {
        let mut gpus = self.sample_gpus(run_id)?;
        if let Some(only) = only {
            gpus.retain(|gpu| only.contains(gpu));
        }
        if gpus.is_empty() {
            return Ok(Vec::new());
        }
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(gpus.len());
        // The pieces' keys in turn across GPUs (seq, then gpu), each piece
        // then read by its key: sorting the keys alone, not the data.
        let mut keys = self.conn().prepare_cached(
            "SELECT gpu, seq FROM sample_chunks
             WHERE run_id = ?1 AND t_last_ms >= ?2 AND t_first_ms < ?3
             ORDER BY seq, gpu",
        )?;
        let keys: Vec<(u32, i64)> = keys
            .query_map(params![run_id, range.start, range.end], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut piece = self.conn().prepare_cached(
            "SELECT data FROM sample_chunks WHERE run_id = ?1 AND gpu = ?2 AND seq = ?3",
        )?;
        let (init, fold, gpus) = (&init, &fold, &gpus);
        std::thread::scope(|scope| {
            let mut queues = Vec::new();
            let mut handles = Vec::new();
            for w in 0..workers {
                let (queue, pieces) = sync_channel::<(usize, Vec<u8>)>(4);
                queues.push(queue);
                handles.push(scope.spawn(move || {
                    // Worker w folds GPUs w, w + workers, …
                    let mut values: Vec<(u32, A)> = (w..gpus.len())
                        .step_by(workers)
                        .map(|k| (gpus[k], init(gpus[k])))
                        .collect();
                    for (k, blob) in pieces {
                        let chunk = decode_chunk(&blob, fields)?;
                        let piece = SeriesFrame::new(gpus[k], chunk.t_ms, chunk.columns);
                        fold(&mut values[k / workers].1, piece);
                    }
                    Ok::<_, crate::samples::codec::CodecError>(values)
                }));
            }
            let mut read = || -> Result<()> {
                for (gpu, seq) in &keys {
                    let Ok(k) = gpus.binary_search(gpu) else {
                        continue;
                    };
                    let blob: Vec<u8> = piece.query_row(params![run_id, gpu, seq], |r| r.get(0))?;
                    if queues[k % workers].send((k, blob)).is_err() {
                        break; // the worker stopped on a bad piece: said below
                    }
                }
                Ok(())
            };
            let read = read();
            drop(queues);
            let mut folded: Vec<Option<(u32, A)>> = (0..gpus.len()).map(|_| None).collect();
            for (w, handle) in handles.into_iter().enumerate() {
                let values = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    .map_err(|e| Error::CorruptSamples {
                        run_id,
                        reason: e.to_string(),
                    })?;
                for (n, value) in values.into_iter().enumerate() {
                    folded[w + n * workers] = Some(value);
                }
            }
            read?;
            Ok(folded.into_iter().flatten().collect())
        })
    }
}

/// Join decoded chunks into one frame: cut each to the range, line up the
/// columns (a field missing from a chunk is absent there), restore time order.
///
/// Sized once, and a chunk's column with every value present copied as a
/// slice; a column's presence map is made only once a value is missing.
/// Pushing value by value into growing vectors, with a map for every
/// column, was most of the time taken to read a long run back.
fn assemble(gpu: u32, chunks: Vec<DecodedChunk>, range: &Range<i64>) -> SeriesFrame {
    let mut fields: Vec<Field> = chunks
        .iter()
        .flat_map(|c| c.columns.iter().map(|(f, _)| *f))
        .collect();
    fields.sort();
    fields.dedup();

    // Within a chunk times are sorted (the writer sorts before storing).
    let cuts: Vec<Range<usize>> = chunks
        .iter()
        .map(|c| {
            c.t_ms.partition_point(|t| *t < range.start)..c.t_ms.partition_point(|t| *t < range.end)
        })
        .collect();
    let total = cuts.iter().map(|cut| cut.len()).sum();
    let mut t_ms = Vec::with_capacity(total);
    let mut values: Vec<Vec<i64>> = (0..fields.len())
        .map(|_| Vec::with_capacity(total))
        .collect();
    // `None` while every value so far is present.
    let mut present: Vec<Option<Vec<bool>>> = vec![None; fields.len()];
    for (chunk, cut) in chunks.iter().zip(cuts) {
        let before = t_ms.len();
        t_ms.extend_from_slice(&chunk.t_ms[cut.clone()]);
        for (k, field) in fields.iter().enumerate() {
            let column = chunk
                .columns
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, c)| c);
            let (v, p) = (&mut values[k], &mut present[k]);
            match column {
                Some(column) if column.presence().is_none() => {
                    v.extend_from_slice(&column.values()[cut.clone()]);
                    if let Some(p) = p {
                        p.resize(p.len() + cut.len(), true);
                    }
                }
                _ => {
                    let got = |i: usize| column.and_then(|c| c.get(i));
                    if cut.clone().any(|i| got(i).is_none()) {
                        p.get_or_insert_with(|| {
                            let mut all = Vec::with_capacity(total);
                            all.resize(before, true);
                            all
                        });
                    }
                    for i in cut.clone() {
                        let value = got(i);
                        v.push(value.unwrap_or(0));
                        if let Some(p) = p {
                            p.push(value.is_some());
                        }
                    }
                }
            }
        }
    }

    // Chunks overlap in time only when a source wrote out of order.
    if !t_ms.is_sorted() {
        let mut order: Vec<usize> = (0..t_ms.len()).collect();
        order.sort_by_key(|&i| t_ms[i]);
        t_ms = order.iter().map(|&i| t_ms[i]).collect();
        for k in 0..fields.len() {
            values[k] = order.iter().map(|&i| values[k][i]).collect();
            if let Some(p) = &present[k] {
                present[k] = Some(order.iter().map(|&i| p[i]).collect());
            }
        }
    }

    let columns = fields
        .into_iter()
        .zip(values)
        .zip(present)
        .map(|((field, v), p)| (field, Column::from_parts(v, p)))
        .collect();
    SeriesFrame::new(gpu, t_ms, columns)
}

impl SampleWriter<'_> {
    /// Buffer `sample` (copied once, into its GPU's chunk).
    #[inline]
    pub fn push(&mut self, sample: &Sample) -> Result<()> {
        let k = match self.slot(sample.gpu) {
            Some(k) => k,
            None => self.add_gpu(sample.gpu)?,
        };
        let buffer = &mut self.gpus[k].1;
        buffer.columns.push(sample);
        if buffer.columns.len() >= CHUNK_SAMPLES {
            self.flush(k, false)?;
        }
        Ok(())
    }

    /// Where GPU `gpu`'s buffer lies in `gpus`, if it has one.
    #[inline]
    fn slot(&self, gpu: u32) -> Option<usize> {
        match self.direct.get(gpu as usize) {
            Some(0) => None,
            Some(k) => Some(usize::from(*k) - 1),
            None => self.gpus.binary_search_by_key(&gpu, |(g, _)| *g).ok(),
        }
    }

    /// A buffer for a GPU not seen before, numbered on from what the run
    /// already holds of it.
    #[cold]
    fn add_gpu(&mut self, gpu: u32) -> Result<usize> {
        let next_seq = self.store.conn().query_row(
            "SELECT ifnull(max(seq) + 1, 0) FROM sample_chunks WHERE run_id = ?1 AND gpu = ?2",
            params![self.run_id, gpu],
            |r| r.get(0),
        )?;
        let buffer = GpuBuffer {
            columns: ChunkColumns::with_capacity(CHUNK_SAMPLES),
            next_seq,
            last_stored_t: None,
            steps: (next_seq == 0).then(StepTally::default),
            power: (next_seq == 0).then(PowerTally::default),
        };
        let k = self.gpus.partition_point(|(g, _)| *g < gpu);
        self.gpus.insert(k, (gpu, buffer));
        // The GPUs after it moved up one. Those below `DIRECT_GPUS` come
        // first in GPU order, so their places fit.
        for (k, (g, _)) in self.gpus.iter().enumerate().skip(k) {
            if let Some(direct) = self.direct.get_mut(*g as usize) {
                *direct = u16::try_from(k + 1).unwrap_or(0);
            }
        }
        Ok(k)
    }

    pub fn extend(&mut self, samples: impl IntoIterator<Item = Sample>) -> Result<()> {
        for s in samples {
            self.push(&s)?;
        }
        Ok(())
    }

    /// Hand a GPU's buffered samples to the encoder (the last chunks are
    /// encoded here).
    fn flush(&mut self, k: usize, last: bool) -> Result<()> {
        let (gpu, buffer) = &mut self.gpus[k];
        let gpu = *gpu;
        if buffer.columns.is_empty() {
            return Ok(());
        }
        if !buffer.columns.times().is_sorted() {
            buffer.columns.sort_by_time();
        }
        let times = buffer.columns.times();
        let last_t = times[times.len() - 1];
        if let Some(previous) = buffer.last_stored_t {
            self.out_of_order += times.iter().filter(|t| **t < previous).count() as u64;
        }
        buffer.last_stored_t = Some(buffer.last_stored_t.map_or(last_t, |p| p.max(last_t)));
        if let Some(steps) = &mut buffer.steps {
            steps.extend(times.iter().copied());
        }
        if let Some(power) = &mut buffer.power {
            let columns = &buffer.columns;
            match (
                columns.complete(Field::PowerMw),
                columns.complete(Field::UtilGpuPct),
            ) {
                // Nearly every chunk: both columns whole.
                (Some(mw), Some(util)) => {
                    for ((t, mw), util) in times.iter().zip(mw).zip(util) {
                        power.push(*t, Some(*mw), Some(*util));
                    }
                }
                _ => {
                    for (i, t) in times.iter().enumerate() {
                        power.push(
                            *t,
                            columns.value(Field::PowerMw, i),
                            columns.value(Field::UtilGpuPct, i),
                        );
                    }
                }
            }
        }
        let replacement = self
            .spare
            .pop()
            .unwrap_or_else(|| ChunkColumns::with_capacity(CHUNK_SAMPLES));
        let chunk = Chunk {
            gpu,
            seq: buffer.next_seq,
            columns: std::mem::replace(&mut buffer.columns, replacement),
            blob: Vec::new(),
        };
        buffer.next_seq += 1;
        if last {
            // The last chunks are encoded here while the encoder works
            // through what it was sent: the import's tail on two cores.
            // They are stored after those, so that the order of the rows —
            // and the database's pages — does not depend on how far the
            // encoder had got.
            let blob = encode_columns(&chunk.columns, ValueCodec::Pco);
            self.last_chunks.push(Chunk { blob, ..chunk });
            return Ok(());
        }
        let encoder = self.encoder.get_or_insert_with(Encoder::start);
        encoder
            .to_worker
            .as_ref()
            .ok_or_else(encoder_stopped)?
            .send(chunk)
            .map_err(|_| encoder_stopped())?;
        encoder.in_flight += 1;
        // Store what is ready; wait only when the encoder is far behind.
        let in_flight = (2 * self.gpus.len()).clamp(IN_FLIGHT_MIN, IN_FLIGHT_MAX);
        while let Some(encoder) = self.encoder.as_mut()
            && encoder.in_flight > 0
        {
            let ready = if encoder.in_flight >= in_flight {
                encoder.from_worker.recv().ok()
            } else {
                encoder.from_worker.try_recv().ok()
            };
            let Some(chunk) = ready else {
                break;
            };
            encoder.in_flight -= 1;
            self.insert(chunk)?;
        }
        Ok(())
    }

    fn insert(&mut self, mut chunk: Chunk) -> Result<()> {
        let times = chunk.columns.times();
        self.store
            .conn()
            .prepare_cached(
                "INSERT INTO sample_chunks (run_id, gpu, seq, t_first_ms, t_last_ms, n, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                self.run_id,
                chunk.gpu,
                chunk.seq,
                times[0],
                times[times.len() - 1],
                times.len() as i64,
                chunk.blob
            ])?;
        self.written += times.len() as u64;
        chunk.columns.clear();
        self.spare.push(chunk.columns);
        Ok(())
    }

    /// Store what is still buffered and update the run's sample count.
    pub fn finish(mut self) -> Result<WriteSummary> {
        for k in 0..self.gpus.len() {
            self.flush(k, true)?;
        }
        let mut encoding_cpu = None;
        if let Some(mut encoder) = self.encoder.take() {
            drop(encoder.to_worker.take());
            while encoder.in_flight > 0 {
                let chunk = encoder.from_worker.recv().map_err(|_| encoder_stopped())?;
                encoder.in_flight -= 1;
                self.insert(chunk)?;
            }
            // Nothing left for it: the thread has ended, or is ending.
            encoding_cpu = encoder.worker.take().and_then(|w| w.join().ok().flatten());
        }
        for chunk in std::mem::take(&mut self.last_chunks) {
            self.insert(chunk)?;
        }
        self.store.conn().execute(
            "UPDATE runs SET sample_count = sample_count + ?2 WHERE id = ?1",
            params![self.run_id, self.written as i64],
        )?;
        let mut steps = BTreeMap::new();
        for (gpu, buffer) in std::mem::take(&mut self.gpus) {
            // The GPU's energy, where the tally tells it exactly as reading
            // its samples back would; otherwise whatever was kept no longer
            // holds, and the samples are read when it is asked for.
            match buffer.energy(gpu) {
                Some(energy) => self.store.keep_energy(self.run_id, gpu, energy.as_ref())?,
                None => self.store.forget_energy(self.run_id, gpu)?,
            }
            if let Some(tally) = buffer.steps.filter(StepTally::in_order) {
                steps.insert(gpu, tally);
            }
        }
        Ok(WriteSummary {
            samples: self.written,
            out_of_order: self.out_of_order,
            steps,
            encoding_cpu,
            bill_lines: std::mem::take(&mut self.bill_lines),
        })
    }

    /// A bill line read at `line` of its file, stored now: a bill of
    /// millions of lines is never held. A line id the run holds already is
    /// `Repeated` at the line it came from; a line another run of the
    /// platform holds is left out and counted.
    pub fn bill_line(&mut self, bill: &BillingLine, line: u64) -> Result<BillLineTaken> {
        if let Some(id) = &bill.line_id
            && let Some(first) = self.store.bill_line_source(self.run_id, id)?
        {
            return Ok(BillLineTaken::Repeated { first });
        }
        if let Some(run) = self.store.bill_line_imported_before(self.run_id, bill)? {
            self.bill_lines.held_before += 1;
            if !self.bill_lines.earlier_runs.contains(&run) {
                self.bill_lines.earlier_runs.push(run);
            }
            return Ok(BillLineTaken::Taken);
        }
        self.store.add_billing_line(self.run_id, bill, Some(line))?;
        self.bill_lines.stored += 1;
        Ok(BillLineTaken::Taken)
    }
}
