//! A text log's lines read in blocks on every core, and finished in order.
//!
//! Reading a row (cutting it into cells, the numbers, the time) needs only
//! what the lines above said the columns are, and it is most of an import's
//! work; what comes after — which GPU, the inventory, losses, the sample
//! into the store — depends on the rows before. So this thread cuts the
//! text into blocks of whole lines, workers read ahead what each line says
//! (`ReadsAhead::read_ahead`), and this thread takes the blocks back in
//! file order and finishes each line (`ReadsAhead::finish`). A format reads
//! again, line by line, whatever its workers could not judge alone, so the
//! run is the same as reading one line at a time — which each format's
//! tests hold it to.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Duration;

use crossbeam_channel::{Sender, TrySendError, bounded};

use super::ParseContext;
use super::builder::{ParseFailure, ParseResult, RunBuilder};
use super::lines::{Line, LineReader, not_utf8};
use super::timings::{CpuSpan, ReadTimings, thread_cpu};

/// Bytes of text per block: enough rows (~1300) that handing a block over
/// costs little beside reading it, few enough that the blocks in flight
/// and their rows take a few megabytes.
pub const BLOCK_BYTES: usize = 128 << 10;

/// Lines per block at most: a block of short lines (or a file of empty
/// ones) keeps what is read ahead of it to a megabyte, whatever the lines.
const BLOCK_LINES: usize = 2048;

/// Blocks in flight while a worker holds the one awaited, per worker: what
/// this thread reads ahead itself meanwhile.
const AHEAD_PER_WORKER: u64 = 8;

/// More workers than this find nothing more to do: this thread, the
/// hasher and the sample encoder keep their own pace.
const MAX_WORKERS: usize = 4;

/// A format's reading, split into what workers do ahead and what this
/// thread does in order.
pub trait ReadsAhead {
    /// What a worker needs to know, as the lines read so far left it (the
    /// columns): taken for each block when it is handed out.
    type Plan: Send;
    /// A worker's own state (a time reader, what it noticed of the block).
    type Worker: Send;
    /// What was read ahead of one line. Kept from block to block and
    /// written over in place: moving a few hundred bytes for each of
    /// 1.4 M lines showed in the profile.
    type Ahead: Send + Default;

    /// Whether the lines read so far tell workers enough (the columns, a
    /// header) for the rest to be read ahead.
    fn ready(&self) -> bool;
    fn plan(&self) -> ParseResult<Self::Plan>;
    fn worker(&self, ctx: &ParseContext) -> Self::Worker;
    /// A worker starts a block of whole lines.
    fn start_block(_worker: &mut Self::Worker, _text: &str) {}
    /// On a worker: what `line` says, as far as the plan tells.
    fn read_ahead(
        plan: &Self::Plan,
        worker: &mut Self::Worker,
        line: &Line<'_>,
        ahead: &mut Self::Ahead,
    );
    /// In file order: the line, from what was read ahead of it under
    /// `plan` where that is what reading it now would give.
    fn finish(
        &mut self,
        plan: &Self::Plan,
        line: &Line<'_>,
        ahead: &mut Self::Ahead,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult;
    /// One line, read here from start to end.
    fn line(
        &mut self,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult;
}

/// Read every line of `input`: one at a time until `reading` is ready,
/// then in blocks of about `block_bytes` on every core — or on, one at a
/// time (`None`: the reference the blocks are held to in tests).
pub fn read_lines<R: BufRead, F: ReadsAhead>(
    input: R,
    reading: &mut F,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: Option<usize>,
) -> ParseResult {
    let mut lines = LineReader::new(input);
    while !reading.ready() {
        let Some(line) = lines.next_line()? else {
            return Ok(());
        };
        reading.line(&line, ctx, b)?;
    }
    match block_bytes {
        Some(block_bytes) => read_rest(&mut lines, reading, ctx, b, block_bytes),
        None => {
            while let Some(line) = lines.next_line()? {
                reading.line(&line, ctx, b)?;
            }
            Ok(())
        }
    }
}

/// Read the rest of `lines` as `reading.line` would one line at a time,
/// in blocks of about `block_bytes` on every core.
fn read_rest<R: BufRead, F: ReadsAhead>(
    lines: &mut LineReader<R>,
    reading: &mut F,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: usize,
) -> ParseResult {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS);
    // Blocks handed out: one waiting beyond those being read. Two per
    // worker held twice the text and its read rows in flight (a block's
    // rows take 3.7 times its text) for nothing: on two cores, one waiting
    // made the import 6 % faster (20 rounds, interleaved) and 2–4 % faster
    // beside a busy loop; none waiting left a worker idle (6 % slower
    // beside a busy loop). What this thread reads ahead when a worker is
    // slow (`ahead`) stays as far as it was: less was slower there.
    let in_flight = workers as u64 + 1;
    let ahead = AHEAD_PER_WORKER * workers as u64;
    // Workers wait on the channel itself (crossbeam's receivers are shared
    // without a lock). Behind a `Mutex<Receiver>`, the worker holding the
    // lock woke the other one for every block handed out, only for it to
    // wait again — a third of the wake-ups on the hot path, and on two
    // cores it left one idle a tenth of the time.
    let (to_workers, jobs) = bounded::<Job<F>>(workers);
    let timed = ctx.timings.is_some();
    std::thread::scope(|scope| {
        let (done, from_workers) = channel::<Option<Done<F>>>();
        let mut started = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (jobs, done) = (jobs.clone(), done.clone());
            let mut worker = reading.worker(ctx);
            let thread = std::thread::Builder::new()
                .name("import-rows".into())
                .spawn_scoped(scope, move || {
                    while let Ok(job) = jobs.recv() {
                        // A bug that panics here fails the import (`None`)
                        // rather than leave the importing thread waiting
                        // for this block forever.
                        let read =
                            catch_unwind(AssertUnwindSafe(|| read_block::<F>(job, &mut worker)));
                        let failed = read.is_err();
                        if done.send(read.ok()).is_err() || failed {
                            break;
                        }
                    }
                    // The thread's whole life was reading rows.
                    if timed { thread_cpu() } else { None }
                });
            started.extend(thread.ok());
        }
        // With every worker gone, waiting for a block fails rather than
        // waits forever.
        drop(done);
        if started.is_empty() {
            // No thread to be had: read on here, line by line.
            while let Some(line) = lines.next_line()? {
                reading.line(&line, ctx, b)?;
            }
            return Ok(());
        }
        // Leaving this closure, with the result or at an error, drops the
        // sender: the workers finish what they hold and stop.
        let mut blocks = Blocks {
            to_workers,
            from_workers,
            queued: jobs,
            helper: reading.worker(ctx),
            sent: 0,
            taken: 0,
            in_flight,
            ahead,
            block_bytes,
            arrived: BTreeMap::new(),
            spare_bytes: Vec::new(),
            spare_lines: Vec::new(),
            ended: false,
            timed,
            cutting_cpu: Duration::ZERO,
            reading_here_cpu: Duration::ZERO,
        };
        let mut finishing_cpu = Duration::ZERO;
        while let Some(mut block) = blocks.next(lines, reading)? {
            let span = CpuSpan::start(timed);
            finish_block(&mut block, reading, ctx, b)?;
            span.add_to(&mut finishing_cpu);
            blocks.recycle(block);
        }
        let (cutting_cpu, reading_here_cpu) = (blocks.cutting_cpu, blocks.reading_here_cpu);
        // The channel closes: the workers stop, and say what they used.
        drop(blocks);
        let workers = started.len();
        let workers_cpu = started
            .into_iter()
            .filter_map(|worker| worker.join().ok().flatten())
            .sum();
        if let Some(timings) = ctx.timings.as_mut() {
            *timings = ReadTimings {
                workers,
                workers_cpu,
                cutting_cpu,
                reading_here_cpu,
                finishing_cpu,
            };
        }
        Ok(())
    })
}

/// A block on its way to a worker.
struct Job<F: ReadsAhead> {
    seq: u64,
    first_line: u64,
    bytes: Vec<u8>,
    plan: F::Plan,
    /// An earlier block's lines, to fill again.
    lines: Lines<F::Ahead>,
}

/// A block back from a worker: its text and what was read of each line.
struct Done<F: ReadsAhead> {
    seq: u64,
    first_line: u64,
    /// The block's lines up to the first one that is not UTF-8.
    text: String,
    /// That line's number, and where in it the bad byte is.
    not_utf8: Option<(u64, usize)>,
    plan: F::Plan,
    lines: Lines<F::Ahead>,
}

/// The lines of a block, their slots kept from block to block.
struct Lines<A> {
    slots: Vec<Slot<A>>,
    len: usize,
}

/// One line of a block, where it lies in the block's text, and what was
/// read of it.
struct Slot<A> {
    start: u32,
    end: u32,
    terminated: bool,
    ahead: A,
}

impl<A: Default> Lines<A> {
    fn new() -> Self {
        Self {
            // Sized once for a block's lines: growing it on a worker
            // reallocated megabytes, page faults included, again and again.
            slots: Vec::with_capacity(BLOCK_LINES),
            len: 0,
        }
    }

    /// The next line's slot, as the last block left it.
    fn next_slot(&mut self) -> &mut Slot<A> {
        if self.len == self.slots.len() {
            self.slots.push(Slot {
                start: 0,
                end: 0,
                terminated: false,
                ahead: A::default(),
            });
        }
        self.len += 1;
        &mut self.slots[self.len - 1]
    }
}

/// The blocks handed out and taken back, in order.
struct Blocks<F: ReadsAhead> {
    to_workers: Sender<Job<F>>,
    from_workers: Receiver<Option<Done<F>>>,
    /// The blocks handed out and not yet taken by a worker, and this
    /// thread's own worker state: rather than wait, this thread reads a
    /// block itself (`help`).
    queued: crossbeam_channel::Receiver<Job<F>>,
    helper: F::Worker,
    sent: u64,
    taken: u64,
    in_flight: u64,
    /// Blocks in flight at most while this thread reads ahead itself.
    ahead: u64,
    /// Blocks back before the one whose turn it is.
    arrived: BTreeMap<u64, Done<F>>,
    spare_bytes: Vec<Vec<u8>>,
    spare_lines: Vec<Lines<F::Ahead>>,
    ended: bool,
    block_bytes: usize,
    /// Whether this thread's CPU time is counted, and what it counted.
    timed: bool,
    cutting_cpu: Duration,
    reading_here_cpu: Duration,
}

impl<F: ReadsAhead> Blocks<F> {
    /// The next block in file order, once read ahead; more blocks are
    /// handed out meanwhile.
    fn next<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        reading: &F,
    ) -> ParseResult<Option<Done<F>>> {
        while self.sent - self.taken < self.in_flight {
            let Some(mut job) = self.cut(lines, reading)? else {
                break;
            };
            loop {
                match self.to_workers.try_send(job) {
                    Ok(()) => break,
                    // Every worker is busy and the queue full: one of its
                    // blocks is read here meanwhile, which makes room.
                    Err(TrySendError::Full(back)) => {
                        job = back;
                        self.help()?;
                    }
                    Err(TrySendError::Disconnected(_)) => return Err(stopped()),
                }
            }
        }
        if self.taken == self.sent {
            return Ok(None);
        }
        let done = loop {
            if let Some(done) = self.arrived.remove(&self.taken) {
                break done;
            }
            let done = match self.from_workers.try_recv() {
                Ok(done) => done,
                // Nothing back yet. Waiting here while a block sits in the
                // queue left a core idle whenever the workers shared the
                // other one (a sixth of an import's time on two cores):
                // the block is read here instead.
                Err(TryRecvError::Empty) if self.help()? => continue,
                // Nor is one queued: the block awaited is still on a
                // worker. Where the machine gives that worker's core little
                // time, waiting for it held the whole import back; the next
                // blocks of the file are read here meanwhile, up to a bound.
                Err(TryRecvError::Empty) if self.sent - self.taken < self.ahead => {
                    match self.cut(lines, reading)? {
                        Some(job) => {
                            self.read_here(job)?;
                            continue;
                        }
                        None => self.from_workers.recv().ok().flatten(),
                    }
                }
                Err(TryRecvError::Empty) => self.from_workers.recv().ok().flatten(),
                Err(TryRecvError::Disconnected) => None,
            };
            let done = done.ok_or_else(stopped)?;
            self.arrived.insert(done.seq, done);
        };
        self.taken += 1;
        Ok(Some(done))
    }

    /// The next block of the file, numbered; `None` at its end.
    fn cut<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        reading: &F,
    ) -> ParseResult<Option<Job<F>>> {
        if self.ended {
            return Ok(None);
        }
        let mut bytes = self.spare_bytes.pop().unwrap_or_default();
        let span = CpuSpan::start(self.timed);
        let cut = lines.next_block(self.block_bytes, BLOCK_LINES, &mut bytes);
        span.add_to(&mut self.cutting_cpu);
        let Some(first_line) = cut? else {
            self.ended = true;
            return Ok(None);
        };
        let job = Job {
            seq: self.sent,
            first_line,
            bytes,
            plan: reading.plan()?,
            lines: self.spare_lines.pop().unwrap_or_else(Lines::new),
        };
        self.sent += 1;
        Ok(Some(job))
    }

    /// Read a block here, on this thread.
    fn read_here(&mut self, job: Job<F>) -> ParseResult {
        let helper = &mut self.helper;
        let span = CpuSpan::start(self.timed);
        let read = catch_unwind(AssertUnwindSafe(|| read_block::<F>(job, helper)));
        span.add_to(&mut self.reading_here_cpu);
        let done = read.map_err(|_| stopped())?;
        self.arrived.insert(done.seq, done);
        Ok(())
    }

    /// Read a block still waiting for a worker here, if there is one.
    fn help(&mut self) -> ParseResult<bool> {
        let Ok(job) = self.queued.try_recv() else {
            return Ok(false);
        };
        self.read_here(job)?;
        Ok(true)
    }

    fn recycle(&mut self, mut done: Done<F>) {
        done.lines.len = 0;
        self.spare_lines.push(done.lines);
        self.spare_bytes.push(done.text.into_bytes());
    }
}

fn stopped() -> ParseFailure {
    ParseFailure::Io(std::io::Error::other(
        "a row-reading thread failed; nothing was stored",
    ))
}

/// A worker's part: the lines of a block, and what each says.
fn read_block<F: ReadsAhead>(job: Job<F>, worker: &mut F::Worker) -> Done<F> {
    let Job {
        seq,
        first_line,
        bytes,
        plan,
        mut lines,
    } = job;
    lines.len = 0;
    let (text, not_utf8) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            // Lines before the bad one are read; the bad one stops the
            // import, as `LineReader` would stop it.
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            let line_start = memchr::memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
            let number =
                first_line + memchr::memchr_iter(b'\n', &bytes[..line_start]).count() as u64;
            bytes.truncate(line_start);
            let text = String::from_utf8(bytes).unwrap_or_default();
            (text, Some((number, valid - line_start)))
        }
    };
    F::start_block(worker, &text);
    let all = text.as_bytes();
    let (mut at, mut number) = (0, first_line);
    while at < all.len() {
        let (len, terminated) = match memchr::memchr(b'\n', &all[at..]) {
            Some(i) => (i, true),
            None => (all.len() - at, false),
        };
        let mut end = at + len;
        if end > at && all[end - 1] == b'\r' {
            end -= 1;
        }
        let line = Line {
            number,
            text: text.get(at..end).unwrap_or_default(),
            terminated,
        };
        let slot = lines.next_slot();
        (slot.start, slot.end, slot.terminated) = (at as u32, end as u32, terminated);
        F::read_ahead(&plan, worker, &line, &mut slot.ahead);
        at += len + usize::from(terminated);
        number += 1;
    }
    Done {
        seq,
        first_line,
        text,
        not_utf8,
        plan,
        lines,
    }
}

/// This thread's part: each line of a block in order.
fn finish_block<F: ReadsAhead>(
    block: &mut Done<F>,
    reading: &mut F,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let slots = &mut block.lines.slots[..block.lines.len];
    for (number, slot) in (block.first_line..).zip(slots) {
        let line = Line {
            number,
            text: block
                .text
                .get(slot.start as usize..slot.end as usize)
                .unwrap_or_default(),
            terminated: slot.terminated,
        };
        reading.finish(&block.plan, &line, &mut slot.ahead, ctx, b)?;
    }
    match block.not_utf8 {
        Some((line, byte)) => Err(ParseFailure::Io(not_utf8(line, byte))),
        None => Ok(()),
    }
}

/// For the formats' tests: everything a parse leaves behind.
#[cfg(test)]
pub mod testing {
    use super::super::builder::{ParseResult, RunBuilder};
    use super::ParseContext;
    use crate::samples::Sample;

    /// A format's parse, reading in blocks of the given size or line by
    /// line (`None`).
    pub type Parse =
        fn(&[u8], &mut ParseContext, &mut RunBuilder<'_>, Option<usize>) -> ParseResult;

    /// Assert that `input` reads the same in blocks of each of `sizes` as
    /// line by line, with and without `--skip-bad-lines`.
    pub fn assert_blocks_read_like_lines(parse: Parse, input: &[u8], sizes: &[usize]) {
        for skip in [false, true] {
            let reference = parsed(parse, input, None, skip);
            for &size in sizes {
                assert_eq!(
                    parsed(parse, input, Some(size), skip),
                    reference,
                    "blocks of {size}"
                );
            }
        }
    }

    /// Assert that a file with a line that is not UTF-8 stops at that line,
    /// with the same message, however it is read.
    pub fn assert_not_utf8_stops_alike(parse: Parse, input: &[u8]) {
        let reference = parsed(parse, input, None, true);
        assert!(reference.contains("not UTF-8"), "{reference}");
        for size in [1, 7, 300, 1 << 20] {
            assert_eq!(
                parsed(parse, input, Some(size), true),
                reference,
                "blocks of {size}"
            );
        }
    }

    /// A file of `first` then `picks` from `lines`, one per line; its last
    /// line cut off (no newline) where `last_cut`.
    pub fn file_of(first: &[&str], lines: &[&str], picks: &[usize], last_cut: bool) -> Vec<u8> {
        let mut text = String::new();
        for line in first
            .iter()
            .chain(picks.iter().map(|&i| &lines[i % lines.len()]))
        {
            text.push_str(line);
            text.push('\n');
        }
        if last_cut {
            text.pop();
        }
        text.into_bytes()
    }

    /// `f` with a parse context and a builder whose samples are kept in
    /// memory; the samples come back beside `f`'s result.
    pub fn with_builder<T>(
        skip_bad_lines: bool,
        f: impl FnOnce(&mut ParseContext, RunBuilder<'_>) -> T,
    ) -> (T, Vec<Sample>) {
        let mut samples = Vec::new();
        let b = RunBuilder::new(&mut samples, skip_bad_lines, None);
        let mut ctx = ParseContext {
            interval_ms: Some(1000),
            ..ParseContext::new("t.log", jiff::tz::TimeZone::UTC)
        };
        let out = f(&mut ctx, b);
        (out, samples)
    }

    /// Its outcome, the samples (per GPU, in the order read) and what the
    /// builder holds.
    pub fn parsed(
        parse: Parse,
        input: &[u8],
        block_bytes: Option<usize>,
        skip_bad_lines: bool,
    ) -> String {
        let (text, mut samples) = with_builder(skip_bad_lines, |ctx, mut b| {
            let outcome = format!("{:?}", parse(input, ctx, &mut b, block_bytes));
            let built = b.finish();
            format!(
                "{outcome}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{} skipped",
                built.events,
                built.warnings,
                built.inventory,
                built.metadata,
                built.interval_ms,
                built.skipped_lines
            )
        });
        // A stable sort: each GPU's samples keep the order they were read.
        samples.sort_by_key(|s| s.gpu);
        format!("{text}\n{samples:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads nothing; its workers panic at a line that says so.
    struct Fragile {
        finished: u64,
    }

    impl ReadsAhead for Fragile {
        type Plan = ();
        type Worker = ();
        type Ahead = bool;

        fn ready(&self) -> bool {
            true
        }

        fn plan(&self) -> ParseResult<()> {
            Ok(())
        }

        fn worker(&self, _ctx: &ParseContext) {}

        fn read_ahead(_plan: &(), _worker: &mut (), line: &Line<'_>, ahead: &mut bool) {
            assert_ne!(line.text, "panic", "a bug in a worker");
            *ahead = true;
        }

        fn finish(
            &mut self,
            _plan: &(),
            _line: &Line<'_>,
            ahead: &mut bool,
            _ctx: &mut ParseContext,
            _b: &mut RunBuilder<'_>,
        ) -> ParseResult {
            self.finished += u64::from(*ahead);
            Ok(())
        }

        fn line(
            &mut self,
            _line: &Line<'_>,
            _ctx: &mut ParseContext,
            _b: &mut RunBuilder<'_>,
        ) -> ParseResult {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_finished_in_blocks_of_any_size() {
        let text = "a\nb\n\nc\r\nd";
        for size in [1, 2, 3, 1 << 20] {
            let mut reading = Fragile { finished: 0 };
            testing::with_builder(false, |ctx, mut b| {
                read_lines(text.as_bytes(), &mut reading, ctx, &mut b, Some(size)).unwrap();
            });
            assert_eq!(reading.finished, 5, "blocks of {size}");
        }
    }

    #[test]
    fn timings_are_taken_only_when_asked_for_and_change_nothing() {
        let text = "a\nb\nc\n".repeat(5000);
        for timed in [false, true] {
            let mut reading = Fragile { finished: 0 };
            let (timings, _) = testing::with_builder(false, |ctx, mut b| {
                ctx.timings = timed.then(ReadTimings::default);
                read_lines(text.as_bytes(), &mut reading, ctx, &mut b, Some(64)).unwrap();
                ctx.timings
            });
            assert_eq!(reading.finished, 15_000, "timed: {timed}");
            match timings {
                None => assert!(!timed),
                Some(t) => {
                    assert!(timed);
                    assert!(t.workers >= 1, "{t:?}");
                    if cfg!(unix) {
                        // Thousands of blocks cut and finished here: the
                        // clock moved for both.
                        assert!(t.cutting_cpu > Duration::ZERO, "{t:?}");
                        assert!(t.finishing_cpu > Duration::ZERO, "{t:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_worker_that_panics_fails_the_import_instead_of_leaving_it_waiting() {
        let text = "a\nb\npanic\nc\n".repeat(100);
        for size in [1, 64, 1 << 20] {
            let mut reading = Fragile { finished: 0 };
            let (result, _) = testing::with_builder(false, |ctx, mut b| {
                read_lines(text.as_bytes(), &mut reading, ctx, &mut b, Some(size))
            });
            let Err(ParseFailure::Io(e)) = result else {
                panic!("blocks of {size}: {result:?}")
            };
            assert!(e.to_string().contains("row-reading thread failed"), "{e}");
        }
    }
}
