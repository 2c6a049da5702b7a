//! The rows after the first ones, read in blocks on every core.
//!
//! Reading a row's cells (cutting it at its commas, the numbers, the time)
//! needs only the layout, and it is most of an import's work; what comes
//! after — which GPU, the inventory, losses, the sample into the store —
//! depends on the rows before. So this thread cuts the text into blocks of
//! whole lines, workers read the cells of each block's rows, and this
//! thread takes the blocks back in file order and finishes each row as
//! `Reading::line` would. A line the workers cannot judge alone (a header,
//! an nvidia-smi complaint, a row read under a layout that a header has
//! since replaced, or one timed by the lines before it) is read again here,
//! line by line, so the run is the same as reading one line at a time.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex};

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::super::lines::{Line, LineReader, not_utf8};
use super::super::super::smi_messages;
use super::super::super::timestamps::TimeReader;
use super::layout::{Layout, is_header};
use super::{Reading, RowCells, is_blank, read_cells};

/// Bytes of text per block: enough rows (~1300) that handing a block over
/// costs little beside reading it, few enough that the blocks in flight
/// and their rows take a few megabytes.
pub(super) const BLOCK_BYTES: usize = 128 << 10;

/// Lines per block at most: a block of short lines (or a file of empty
/// ones) keeps what is read ahead of it to a megabyte, whatever the lines.
const BLOCK_LINES: usize = 2048;

/// More workers than this find nothing more to do: this thread, the
/// hasher and the sample encoder keep their own pace.
const MAX_WORKERS: usize = 4;

/// A block on its way to a worker.
struct Job {
    seq: u64,
    first_line: u64,
    bytes: Vec<u8>,
    layout: Arc<Layout>,
    version: u64,
    /// An earlier block's lines, to fill again.
    lines: Lines,
}

/// A block back from a worker: its text and what was read of each line.
struct Done {
    seq: u64,
    first_line: u64,
    /// The block's lines up to the first one that is not UTF-8.
    text: String,
    /// That line's number, and where in it the bad byte is.
    not_utf8: Option<(u64, usize)>,
    version: u64,
    lines: Lines,
}

/// The lines of a block. Their slots are kept from block to block and
/// written over in place: a slot is a few hundred bytes, and building one
/// for every line and moving it in showed in the profile.
struct Lines {
    slots: Vec<ReadAhead>,
    len: usize,
}

impl Lines {
    fn new() -> Self {
        Self {
            // Sized once for a block's lines: growing it on a worker
            // reallocated megabytes, page faults included, again and again.
            slots: Vec::with_capacity(BLOCK_LINES),
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    /// The next line's slot, as the last block left it.
    fn next_slot(&mut self) -> &mut ReadAhead {
        if self.len == self.slots.len() {
            self.slots.push(ReadAhead {
                start: 0,
                end: 0,
                terminated: false,
                what: Ahead::Blank,
                cells: RowCells::new(),
                error: None,
            });
        }
        self.len += 1;
        &mut self.slots[self.len - 1]
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut ReadAhead> {
        self.slots[..self.len].iter_mut()
    }
}

/// One line of a block, where it lies in the block's text, and what was
/// read of it.
struct ReadAhead {
    start: u32,
    end: u32,
    terminated: bool,
    what: Ahead,
    /// A row's cells, read in place (`Ahead::Row`).
    cells: RowCells,
    /// Why they could not be read.
    error: Option<LineError>,
}

#[derive(Clone, Copy, PartialEq)]
enum Ahead {
    Blank,
    /// A line for `Reading::line` (a header, a message, …).
    Other,
    Row,
}

/// Read the rest of the input, as `Reading::line` would one line at a time.
pub(super) fn read_rest<R: BufRead>(
    lines: &mut LineReader<R>,
    reading: &mut Reading,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: usize,
) -> ParseResult {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS);
    let in_flight = 2 * workers as u64;
    let zone = ctx.times.zone().clone();
    let (to_workers, jobs) = sync_channel::<Job>(workers);
    let jobs = Mutex::new(jobs);
    std::thread::scope(|scope| {
        let (done, from_workers) = channel::<Option<Done>>();
        let mut started = 0;
        for _ in 0..workers {
            let (jobs, done) = (&jobs, done.clone());
            let mut times = TimeReader::new(zone.clone());
            let worker = std::thread::Builder::new()
                .name("import-rows".into())
                .spawn_scoped(scope, move || {
                    while let Some(job) = next_job(jobs) {
                        // A bug that panics here fails the import (`None`)
                        // rather than leave the importing thread waiting
                        // for this block forever.
                        let read = catch_unwind(AssertUnwindSafe(|| read_ahead(job, &mut times)));
                        let failed = read.is_err();
                        if done.send(read.ok()).is_err() || failed {
                            return;
                        }
                    }
                });
            started += usize::from(worker.is_ok());
        }
        drop(done);
        if started == 0 {
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
            sent: 0,
            taken: 0,
            in_flight,
            block_bytes,
            arrived: BTreeMap::new(),
            spare_bytes: Vec::new(),
            spare_lines: Vec::new(),
            ended: false,
        };
        while let Some(mut block) = blocks.next(lines, reading)? {
            finish_block(&mut block, reading, ctx, b)?;
            blocks.recycle(block);
        }
        Ok(())
    })
}

fn next_job(jobs: &Mutex<Receiver<Job>>) -> Option<Job> {
    jobs.lock().ok()?.recv().ok()
}

/// The blocks handed out and taken back, in order.
struct Blocks {
    to_workers: SyncSender<Job>,
    from_workers: Receiver<Option<Done>>,
    sent: u64,
    taken: u64,
    in_flight: u64,
    /// Blocks back before the one whose turn it is.
    arrived: BTreeMap<u64, Done>,
    spare_bytes: Vec<Vec<u8>>,
    spare_lines: Vec<Lines>,
    ended: bool,
    block_bytes: usize,
}

impl Blocks {
    /// The next block in file order, once read ahead; more blocks are
    /// handed out meanwhile.
    fn next<R: BufRead>(
        &mut self,
        lines: &mut LineReader<R>,
        reading: &Reading,
    ) -> ParseResult<Option<Done>> {
        while !self.ended && self.sent - self.taken < self.in_flight {
            let mut bytes = self.spare_bytes.pop().unwrap_or_default();
            let Some(first_line) = lines.next_block(self.block_bytes, BLOCK_LINES, &mut bytes)?
            else {
                self.ended = true;
                break;
            };
            let Some(layout) = reading.layout.clone() else {
                return Err(ParseFailure::Whole("the file holds no rows".into()));
            };
            let job = Job {
                seq: self.sent,
                first_line,
                bytes,
                layout,
                version: reading.layout_version,
                lines: self.spare_lines.pop().unwrap_or_else(Lines::new),
            };
            self.to_workers.send(job).map_err(|_| stopped())?;
            self.sent += 1;
        }
        if self.taken == self.sent {
            return Ok(None);
        }
        let done = loop {
            if let Some(done) = self.arrived.remove(&self.taken) {
                break done;
            }
            let done = self
                .from_workers
                .recv()
                .ok()
                .flatten()
                .ok_or_else(stopped)?;
            self.arrived.insert(done.seq, done);
        };
        self.taken += 1;
        Ok(Some(done))
    }

    fn recycle(&mut self, mut done: Done) {
        done.lines.clear();
        self.spare_lines.push(done.lines);
        self.spare_bytes.push(done.text.into_bytes());
    }
}

fn stopped() -> ParseFailure {
    ParseFailure::Io(std::io::Error::other(
        "a row-reading thread failed; nothing was stored",
    ))
}

/// A worker's part: the lines of a block, and the cells of its rows.
fn read_ahead(job: Job, times: &mut TimeReader) -> Done {
    let Job {
        seq,
        first_line,
        bytes,
        layout,
        version,
        mut lines,
    } = job;
    lines.clear();
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
    let all = text.as_bytes();
    // Quoted cells are rare: one search of the block spares one per row.
    let quotes = memchr::memchr(b'"', all).is_some();
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
        let what = if is_blank(line.text) {
            Ahead::Blank
        } else if smi_messages::recognise(line.text).is_some() || is_header(line.text) {
            Ahead::Other
        } else {
            Ahead::Row
        };
        let slot = lines.next_slot();
        (slot.start, slot.end, slot.terminated, slot.what) =
            (at as u32, end as u32, terminated, what);
        slot.error = None;
        if what == Ahead::Row {
            slot.cells = RowCells::new();
            slot.error = read_cells(&layout, &line, times, &mut slot.cells, quotes).err();
        }
        at += len + usize::from(terminated);
        number += 1;
    }
    Done {
        seq,
        first_line,
        text,
        not_utf8,
        version,
        lines,
    }
}

/// This thread's part: each line of a block in order, finished from what
/// was read ahead where that is what reading it now would give.
fn finish_block(
    block: &mut Done,
    reading: &mut Reading,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    for (number, ahead) in (block.first_line..).zip(block.lines.iter_mut()) {
        let line = Line {
            number,
            text: block
                .text
                .get(ahead.start as usize..ahead.end as usize)
                .unwrap_or_default(),
            terminated: ahead.terminated,
        };
        match ahead.what {
            Ahead::Blank => {}
            Ahead::Row if reading.takes_cells_read_ahead(block.version) => {
                let cells = match ahead.error.take() {
                    Some(e) => Err(e),
                    None => Ok(&mut ahead.cells),
                };
                reading.row(cells, &line, ctx, b)?;
            }
            _ => reading.line(&line, ctx, b)?,
        }
    }
    match block.not_utf8 {
        Some((line, byte)) => Err(ParseFailure::Io(not_utf8(line, byte))),
        None => Ok(()),
    }
}
