//! The data path, the fifth must-do of the four-breakpoint review's
//! checklist (§6.2): how fast each data location writes a checkpoint and
//! reads it back, how fast data reaches the platform, and what a job that
//! checkpoints to the network path does when that path is cut — stall,
//! fail, or carry on from the local cache. Written to a storage log
//! (`breakpoint-storage`, see docs/formats.md) a line per measurement, so a
//! session stopped half-way leaves a log that imports.
//!
//! Every file is written under a directory of its own in the location
//! (`.breakpoint-storage-…`), removed when the measurement ends, fails or is
//! stopped with Ctrl-C; nothing is read or written outside it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use breakpoint_formats::parsers::storage_log::{
    DrillFigures, DrillOutcome, LocationFigures, Role, STORAGE_FORMAT, STORAGE_VERSION,
    StorageHeader, StorageRecord, UploadFigures,
};

/// Bytes per sequential read or write: large enough that the device, not
/// the system call, sets the pace; a multiple of every sector size.
pub const BLOCK: usize = 1 << 20;

/// Bytes per random read, aligned as direct I/O needs.
const PAGE: usize = 4096;

/// The file system operations a measurement makes: the seam tests replace
/// with a paced disk or a path that fails or hangs while it is cut.
pub trait Volume: Send + Sync {
    /// A new file for writing; direct I/O where asked and allowed.
    fn create(&self, path: &Path, direct: bool) -> io::Result<File> {
        // writes: the measurement's own files, inside the directory it made
        // for them (`Scratch`), removed when it ends.
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        if direct {
            o.custom_flags(direct_flag());
        }
        o.open(path)
    }

    fn open(&self, path: &Path, direct: bool) -> io::Result<File> {
        // writes: nothing — read only, with direct I/O where asked.
        let mut o = OpenOptions::new();
        o.read(true);
        if direct {
            o.custom_flags(direct_flag());
        }
        o.open(path)
    }

    fn write(&self, file: &mut File, block: &[u8]) -> io::Result<()> {
        file.write_all(block)
    }

    /// Bytes read into `buf`; 0 at the end.
    fn read(&self, file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
        file.read(buf)
    }

    fn read_at(&self, file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
        file.read_exact_at(buf, offset)
    }

    /// Make what was written durable, as a checkpoint's writer must.
    fn sync(&self, file: &File) -> io::Result<()> {
        file.sync_all()
    }

    /// Drop the file's pages from the cache, so that reading it back
    /// measures the device (buffered I/O only).
    fn forget(&self, file: &File) {
        let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed);
    }
}

fn direct_flag() -> i32 {
    rustix::fs::OFlags::DIRECT.bits() as i32
}

/// The machine's file systems.
pub struct Disk;

impl Volume for Disk {}

/// A buffer aligned to the page, as direct I/O requires.
struct Aligned {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize) -> Self {
        let raw = vec![0u8; len + PAGE];
        let start = (PAGE - raw.as_ptr() as usize % PAGE) % PAGE;
        Self { raw, start, len }
    }

    fn slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    fn slice_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

/// A small, fast generator of incompressible bytes (xorshift64*): storage
/// that compresses or deduplicates must not flatter the figures.
struct Noise(u64);

impl Noise {
    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            let v = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        let mut b = [0u8; 8];
        self.fill(&mut b);
        u64::from_le_bytes(b) % n.max(1)
    }
}

/// A directory of the measurement's own in a location, removed with
/// everything in it when dropped.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new(location: &Path) -> Result<Self, String> {
        if !location.is_dir() {
            return Err(format!("{}: not a directory", location.display()));
        }
        let stamp = jiff::Timestamp::now().as_nanosecond();
        let dir = location.join(format!(
            ".breakpoint-storage-{}-{stamp}",
            std::process::id()
        ));
        std::fs::create_dir(&dir)
            .map_err(|e| format!("{}: cannot write here ({e})", location.display()))?;
        Ok(Self { dir })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Bytes free to an unprivileged writer at `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// How a location is measured.
#[derive(Debug, Clone)]
pub struct LocationOptions {
    /// Bytes of the checkpoint written and read back.
    pub bytes: u64,
    /// Each phase stops here, its figure taken over what it did.
    pub phase_limit: Duration,
    /// Random 4 KiB reads at most.
    pub random_reads: u64,
    pub random_limit: Duration,
}

/// Measure one location: a checkpoint-sized file written and made durable,
/// read back, and random reads within it. Direct I/O where the file system
/// takes it; else the cache is flushed and dropped between phases.
pub fn measure_location(
    volume: &dyn Volume,
    location: &Path,
    role: Role,
    options: &LocationOptions,
    stop: &AtomicBool,
) -> Result<LocationFigures, String> {
    let blocks = options.bytes.div_ceil(BLOCK as u64).max(1);
    let bytes = blocks * BLOCK as u64;
    if let Some(free) = free_bytes(location).filter(|f| *f < bytes + bytes / 10) {
        return Err(format!(
            "{}: {} free, too little for a {} checkpoint (lower --checkpoint)",
            location.display(),
            breakpoint_core::sizes::size_words(free as f64),
            breakpoint_core::sizes::size_words(bytes as f64)
        ));
    }
    let scratch = Scratch::new(location)?;
    let file_path = scratch.path("checkpoint");
    let fail = |what: &str, e: io::Error| format!("{}: {what}: {e}", location.display());
    let (mut file, direct) = match volume.create(&file_path, true) {
        Ok(f) => (f, true),
        Err(_) => (
            volume
                .create(&file_path, false)
                .map_err(|e| fail("cannot create a file", e))?,
            false,
        ),
    };
    let mut cut_short: Option<String> = None;
    let stopped = |started: Instant, cut_short: &mut Option<String>| {
        if stop.load(Ordering::Relaxed) {
            *cut_short = Some("stopped".into());
            true
        } else if started.elapsed() >= options.phase_limit {
            *cut_short = Some(format!("{} s limit reached", options.phase_limit.as_secs()));
            true
        } else {
            false
        }
    };

    // Write, and make it durable.
    let mut block = Aligned::new(BLOCK);
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15 ^ bytes);
    let started = Instant::now();
    let mut written = 0u64;
    while written < bytes && !stopped(started, &mut cut_short) {
        noise.fill(block.slice_mut());
        volume
            .write(&mut file, block.slice())
            .map_err(|e| fail("write failed", e))?;
        written += BLOCK as u64;
    }
    volume.sync(&file).map_err(|e| fail("fsync failed", e))?;
    let write_s = started.elapsed().as_secs_f64();
    if !direct {
        volume.forget(&file);
    }
    drop(file);

    // Read it back.
    // A file system that took direct writes may still refuse direct
    // reads: read it buffered then, its pages dropped first.
    let mut file = match volume.open(&file_path, direct) {
        Ok(f) => f,
        Err(_) if direct => {
            let f = volume
                .open(&file_path, false)
                .map_err(|e| fail("cannot open the file again", e))?;
            volume.forget(&f);
            f
        }
        Err(e) => return Err(fail("cannot open the file again", e)),
    };
    let started = Instant::now();
    let mut read = 0u64;
    while read < written && !stopped(started, &mut cut_short) {
        let n = volume
            .read(&mut file, block.slice_mut())
            .map_err(|e| fail("read failed", e))?;
        if n == 0 {
            break;
        }
        read += n as u64;
    }
    let mut read_s = started.elapsed().as_secs_f64();
    if read > 0 && read < written {
        // Cut short: the pace over what was read, stated for the whole.
        read_s *= written as f64 / read as f64;
    }
    if !direct {
        volume.forget(&file);
    }

    // Random reads within it.
    let mut page = Aligned::new(PAGE);
    let pages = (written / PAGE as u64).max(1);
    let mut latencies: Vec<f64> = Vec::new();
    let started = Instant::now();
    while (latencies.len() as u64) < options.random_reads
        && started.elapsed() < options.random_limit
        && !stop.load(Ordering::Relaxed)
    {
        let offset = noise.below(pages) * PAGE as u64;
        let t = Instant::now();
        volume
            .read_at(&file, page.slice_mut(), offset)
            .map_err(|e| fail("random read failed", e))?;
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let random_s = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| breakpoint_core::stats::percentile(&latencies, q).map(round3);
    drop(file);
    drop(scratch);
    Ok(LocationFigures {
        t: jiff::Timestamp::now().as_millisecond(),
        path: location.display().to_string(),
        role,
        direct,
        bytes: written,
        write_s: round3(write_s),
        read_s: round3(read_s),
        random_reads: latencies.len() as u64,
        random_iops: (random_s > 0.0 && !latencies.is_empty())
            .then(|| round3(latencies.len() as f64 / random_s)),
        random_p50_ms: at(0.5),
        random_p99_ms: at(0.99),
        cut_short,
    })
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Write `bytes` of incompressible data to a new file, durable.
fn write_file(volume: &dyn Volume, path: &Path, bytes: u64, seed: u64) -> io::Result<()> {
    let mut file = volume.create(path, false)?;
    let mut block = vec![0u8; BLOCK];
    let mut noise = Noise(seed | 1);
    let mut left = bytes;
    while left > 0 {
        let n = left.min(BLOCK as u64) as usize;
        noise.fill(&mut block[..n]);
        volume.write(&mut file, &block[..n])?;
        left -= n as u64;
    }
    volume.sync(&file)
}

/// Copy a file through a volume, durable at the other end.
fn copy_file(from: &Path, volume: &dyn Volume, to: &Path) -> io::Result<()> {
    let mut source = File::open(from)?;
    let mut file = volume.create(to, false)?;
    let mut block = vec![0u8; BLOCK];
    loop {
        let n = source.read(&mut block)?;
        if n == 0 {
            break;
        }
        volume.write(&mut file, &block[..n])?;
    }
    volume.sync(&file)
}

/// Time the upload of a file of `bytes` through the user's own command
/// (`{file}` in it becomes the file's path), as the platform's tool copies
/// data in; the file is removed afterwards. A command that runs past
/// `limit` is stopped and the upload counts as failed.
pub fn upload(
    command: &str,
    local: &Path,
    bytes: u64,
    limit: Duration,
    stop: &AtomicBool,
) -> Result<UploadFigures, String> {
    if !command.contains("{file}") {
        return Err(format!(
            "--upload: \"{command}\" does not say where the file goes: write {{file}} for it"
        ));
    }
    let scratch = Scratch::new(local)?;
    let file = scratch.path("upload.bin");
    write_file(&Disk, &file, bytes, 0x517C_C1B7)
        .map_err(|e| format!("{}: cannot write the file to upload: {e}", local.display()))?;
    let quoted = format!("'{}'", file.display().to_string().replace('\'', r"'\''"));
    let started = Instant::now();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command.replace("{file}", &quoted))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the upload command: {e}"))?;
    let mut figures = UploadFigures {
        t: jiff::Timestamp::now().as_millisecond(),
        via: command.to_string(),
        bytes,
        seconds: None,
        error: None,
    };
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let seconds = started.elapsed().as_secs_f64();
                if status.success() {
                    figures.seconds = Some(round3(seconds));
                } else {
                    let mut said = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut said);
                    }
                    figures.error = Some(format!(
                        "{status}: {}",
                        breakpoint_core::text::printable_excerpt(said.trim(), 200)
                    ));
                }
                break;
            }
            Ok(None) if stop.load(Ordering::Relaxed) || started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                figures.error = Some(if stop.load(Ordering::Relaxed) {
                    "stopped".into()
                } else {
                    format!("still running after {} s", limit.as_secs())
                });
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("the upload command: {e}")),
        }
    }
    Ok(figures)
}

/// Cuts the job's storage path and brings it back: the seam the drill's
/// tests plant an outage through.
pub trait Cutter: Send + Sync {
    fn cut(&self) -> Result<(), String>;
    fn restore(&self) -> Result<(), String>;
}

/// Commands the user names (an unmount and a mount, a firewall rule and
/// its removal), run with `sh -c`.
pub struct ShellCutter {
    pub cut: String,
    pub restore: String,
}

/// A cut or restore command still running after this is stopped: a drill
/// must end, and say why, even when an unmount hangs.
const COMMAND_LIMIT: Duration = Duration::from_secs(120);

fn run_shell(what: &str, command: &str) -> Result<(), String> {
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the {what} command: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= COMMAND_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the {what} command did not finish within {} s",
                    COMMAND_LIMIT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("the {what} command: {e}")),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut said = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut said);
    }
    let said = breakpoint_core::text::printable_excerpt(said.trim(), 200);
    Err(format!(
        "the {what} command failed ({status}){}",
        if said.is_empty() {
            String::new()
        } else {
            format!(": {said}")
        }
    ))
}

impl Cutter for ShellCutter {
    fn cut(&self) -> Result<(), String> {
        run_shell("cut", &self.cut)
    }

    fn restore(&self) -> Result<(), String> {
        run_shell("restore", &self.restore)
    }
}

/// How the drill runs.
#[derive(Debug, Clone)]
pub struct DrillOptions {
    pub checkpoint_bytes: u64,
    /// A checkpoint this often.
    pub every: Duration,
    /// The path is cut this long after the drill starts…
    pub cut_after: Duration,
    /// …for this long…
    pub cut_for: Duration,
    /// …and the job runs on this long after it is back.
    pub settle: Duration,
    /// A checkpoint that holds the job longer stalls it.
    pub stall_after: Duration,
}

/// Checkpoints a drill's job keeps in each place; older ones are removed.
const KEPT: u32 = 3;

/// Where a drill writes: a volume and the directory in it.
pub struct Place<'a> {
    pub volume: &'a (dyn Volume + 'a),
    pub path: &'a Path,
}

/// What the job saw, kept by the threads of the drill.
#[derive(Default)]
struct Seen {
    /// Seconds from the start at which checkpoints reached the network path.
    landed: Vec<f64>,
    restored_at: Option<f64>,
    sync_errors: u32,
}

/// A job writing a checkpoint every `every` to the network path (through
/// the local cache where one is named: written there, the job carries on,
/// and a writer copies it up behind it), while the path is cut for
/// `cut_for`: whether the job carried on, stalled or failed, and how long
/// after the path's return a checkpoint reached it again.
pub fn drill(
    network: Place<'_>,
    local: Option<Place<'_>>,
    cutter: &dyn Cutter,
    options: &DrillOptions,
    stop: &AtomicBool,
) -> Result<DrillFigures, String> {
    // Room for the checkpoints kept and the one being written, everywhere.
    let needed = options.checkpoint_bytes * (u64::from(KEPT) + 1);
    for place in std::iter::once(&network).chain(local.as_ref()) {
        if let Some(free) = free_bytes(place.path).filter(|f| *f < needed) {
            return Err(format!(
                "{}: {} free, too little for the drill's checkpoints ({} kept at {} each; lower --drill-checkpoint)",
                place.path.display(),
                breakpoint_core::sizes::size_words(free as f64),
                KEPT + 1,
                breakpoint_core::sizes::size_words(options.checkpoint_bytes as f64)
            ));
        }
    }
    let net_scratch = Scratch::new(network.path)?;
    let local_scratch = local.as_ref().map(|l| Scratch::new(l.path)).transpose()?;
    let seen = Mutex::new(Seen::default());
    let t0 = Instant::now();
    let total = options.cut_after + options.cut_for + options.settle;
    let cut_failed: Mutex<Option<String>> = Mutex::new(None);
    let restore_failed: Mutex<Option<String>> = Mutex::new(None);
    let (mut checkpoints, mut longest_wait, mut failure) = (0u32, 0f64, None::<String>);
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        // The outage, on a clock of its own.
        s.spawn(|| {
            sleep_until(t0 + options.cut_after, stop, &finished);
            if stop.load(Ordering::Relaxed) || finished.load(Ordering::Relaxed) {
                return;
            }
            if let Err(e) = cutter.cut() {
                // A cut that half-happened is undone all the same.
                let _ = cutter.restore();
                set(&cut_failed, e);
                return;
            }
            sleep_until(
                t0 + options.cut_after + options.cut_for,
                stop,
                &AtomicBool::new(false),
            );
            if let Err(e) = cutter.restore() {
                set(&restore_failed, e);
            }
            if let Ok(mut seen) = seen.lock() {
                seen.restored_at = Some(t0.elapsed().as_secs_f64());
            }
        });
        // The writer that copies the local cache up to the network path.
        let (send, receive) = mpsc::channel::<PathBuf>();
        let uploader = local_scratch.as_ref().map(|_| {
            let (seen, net_scratch, finished) = (&seen, &net_scratch, &finished);
            let volume = network.volume;
            // A path that never comes back is given up on, not retried for ever.
            let give_up = t0 + total + options.settle.max(Duration::from_secs(1)) * 4;
            s.spawn(move || {
                let mut pending: Option<PathBuf> = None;
                let mut landed: std::collections::VecDeque<PathBuf> = Default::default();
                loop {
                    if pending.is_some()
                        && finished.load(Ordering::Relaxed)
                        && Instant::now() >= give_up
                    {
                        return;
                    }
                    // The newest checkpoint is the one worth copying.
                    let next = match pending.take() {
                        Some(p) => receive.try_iter().last().or(Some(p)),
                        None => receive.recv().ok(),
                    };
                    let Some(from) = next else { return };
                    let name = from
                        .file_name()
                        .map(|n| n.to_os_string())
                        .unwrap_or_default();
                    let to = net_scratch.path(&name.to_string_lossy());
                    match copy_file(&from, volume, &to) {
                        Ok(()) => {
                            if let Ok(mut seen) = seen.lock() {
                                seen.landed.push(t0.elapsed().as_secs_f64());
                            }
                            landed.push_back(to);
                            while landed.len() > KEPT as usize {
                                if let Some(old) = landed.pop_front() {
                                    let _ = std::fs::remove_file(old);
                                }
                            }
                        }
                        // The job moved on and dropped it: a newer one comes.
                        Err(_) if !from.exists() => {
                            let _ = std::fs::remove_file(&to);
                        }
                        Err(_) => {
                            if let Ok(mut seen) = seen.lock() {
                                seen.sync_errors += 1;
                            }
                            let _ = std::fs::remove_file(&to);
                            pending = Some(from);
                            std::thread::sleep(options.every / 4);
                        }
                    }
                }
            })
        });
        // The job.
        let mut k = 0u32;
        while t0.elapsed() < total && !stop.load(Ordering::Relaxed) {
            let name = format!("checkpoint-{k}");
            let began = Instant::now();
            let written = match (&local, &local_scratch) {
                (Some(l), Some(scratch)) => {
                    let path = scratch.path(&name);
                    let r = write_file(l.volume, &path, options.checkpoint_bytes, u64::from(k));
                    if r.is_ok() {
                        let _ = send.send(path);
                    }
                    r.map_err(|e| format!("the local cache: {e}"))
                }
                _ => {
                    let r = write_file(
                        network.volume,
                        &net_scratch.path(&name),
                        options.checkpoint_bytes,
                        u64::from(k),
                    );
                    if r.is_ok()
                        && let Ok(mut seen) = seen.lock()
                    {
                        seen.landed.push(t0.elapsed().as_secs_f64());
                    }
                    r.map_err(|e| format!("the network path: {e}"))
                }
            };
            let wait = began.elapsed().as_secs_f64();
            longest_wait = longest_wait.max(wait);
            if let Err(e) = written {
                failure = Some(format!("checkpoint {k} could not be written to {e}"));
                break;
            }
            checkpoints += 1;
            // A job keeps its last few checkpoints, not every one: the
            // drill's disk use stays bounded however long it runs.
            if let Some(old) = k.checked_sub(KEPT) {
                let old = format!("checkpoint-{old}");
                match &local_scratch {
                    Some(scratch) => {
                        let _ = std::fs::remove_file(scratch.path(&old));
                    }
                    None => {
                        let _ = std::fs::remove_file(net_scratch.path(&old));
                    }
                }
            }
            k += 1;
            sleep_until(began + options.every, stop, &AtomicBool::new(false));
        }
        finished.store(true, Ordering::Relaxed);
        drop(send);
        // The writer finishes its last copy once the path is back (the
        // scope waits for it).
        drop(uploader);
    });
    let seen = seen.into_inner().unwrap_or_default();
    let cut_s = options.cut_for.as_secs_f64();
    let mut figures = DrillFigures {
        t: jiff::Timestamp::now().as_millisecond(),
        path: network.path.display().to_string(),
        local: local.as_ref().map(|l| l.path.display().to_string()),
        cut_s,
        outcome: DrillOutcome::Continues,
        checkpoints,
        longest_wait_s: round3(longest_wait),
        recovered_after_s: seen.restored_at.and_then(|back| {
            seen.landed
                .iter()
                .find(|t| **t >= back)
                .map(|t| round3(t - back))
        }),
        detail: String::new(),
    };
    let cut_failed = cut_failed.into_inner().ok().flatten();
    let restore_failed = restore_failed.into_inner().ok().flatten();
    figures.outcome = if let Some(e) = &cut_failed {
        figures.detail = format!("the path was not cut: {e}");
        DrillOutcome::NotRun
    } else if let Some(e) = &failure {
        figures.detail = format!("{e}: the job would have failed");
        DrillOutcome::Fails
    } else if longest_wait > options.stall_after.as_secs_f64() {
        figures.detail = format!(
            "a checkpoint held the job for {longest_wait:.1} s (the stall limit is {:.0} s)",
            options.stall_after.as_secs_f64()
        );
        DrillOutcome::Stalls
    } else {
        figures.detail = if local.is_some() {
            format!(
                "{checkpoints} checkpoints kept on the local cache; {} copy attempts to the network path failed while it was cut",
                seen.sync_errors
            )
        } else {
            format!("{checkpoints} checkpoints written to the network path, none held the job")
        };
        DrillOutcome::Continues
    };
    if figures.outcome != DrillOutcome::NotRun && figures.recovered_after_s.is_none() {
        figures
            .detail
            .push_str("; no checkpoint reached the network path after it came back");
    }
    if let Some(e) = restore_failed {
        figures.detail.push_str(&format!(
            "; restoring the path failed: {e} — restore it by hand"
        ));
    }
    if stop.load(Ordering::Relaxed) {
        figures.detail.push_str("; stopped before its end");
    }
    drop(local_scratch);
    drop(net_scratch);
    Ok(figures)
}

fn set(slot: &Mutex<Option<String>>, value: String) {
    if let Ok(mut s) = slot.lock() {
        *s = Some(value);
    }
}

fn sleep_until(at: Instant, stop: &AtomicBool, done: &AtomicBool) {
    while Instant::now() < at && !stop.load(Ordering::Relaxed) && !done.load(Ordering::Relaxed) {
        std::thread::sleep((at - Instant::now()).min(Duration::from_millis(20)));
    }
}

/// The log's header line.
pub fn header(host: Option<String>) -> StorageHeader {
    StorageHeader {
        format: STORAGE_FORMAT.into(),
        version: STORAGE_VERSION,
        host,
    }
}

/// Write one line of the log and flush it, so that a stopped session
/// leaves what it measured.
pub fn write_line(out: &mut dyn Write, record: &StorageRecord) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        serde_json::to_string(record).map_err(io::Error::other)?
    )?;
    out.flush()
}

/// What a storage session measures unless told otherwise: bounded so that
/// a check never fills a disk or runs for hours.
pub mod defaults {
    use std::time::Duration;

    /// The checkpoint written and read back at each location.
    pub const CHECKPOINT_BYTES: u64 = 4_000_000_000;
    /// Each phase stops here.
    pub const PHASE_LIMIT: Duration = Duration::from_secs(600);
    pub const RANDOM_READS: u64 = 2000;
    pub const RANDOM_LIMIT: Duration = Duration::from_secs(10);
    pub const UPLOAD_BYTES: u64 = 1_000_000_000;
    pub const UPLOAD_LIMIT: Duration = Duration::from_secs(1800);
    /// The drill's checkpoints: smaller, so they come often.
    pub const DRILL_CHECKPOINT_BYTES: u64 = 256_000_000;
    pub const DRILL_EVERY: Duration = Duration::from_secs(10);
    pub const DRILL_CUT_FOR: Duration = Duration::from_secs(60);
    pub const DRILL_STALL_AFTER: Duration = Duration::from_secs(30);
}

impl DrillOptions {
    /// The drill's timing from what a user states: the path is cut after
    /// two checkpoints, and the job runs on for three more after it is back.
    pub fn new(
        checkpoint_bytes: u64,
        every: Duration,
        cut_for: Duration,
        stall_after: Duration,
    ) -> Self {
        Self {
            checkpoint_bytes,
            every,
            cut_after: every * 2,
            cut_for,
            settle: every * 3,
            stall_after,
        }
    }
}

impl LocationOptions {
    pub fn new(bytes: u64) -> Self {
        Self {
            bytes,
            phase_limit: defaults::PHASE_LIMIT,
            random_reads: defaults::RANDOM_READS,
            random_limit: defaults::RANDOM_LIMIT,
        }
    }
}

/// The upload to time: the user's command, the file's size, its time limit.
#[derive(Debug, Clone)]
pub struct UploadPlan {
    pub command: String,
    pub bytes: u64,
    pub limit: Duration,
}

/// The drill to run: its timing and the commands that cut and restore the
/// path.
#[derive(Debug, Clone)]
pub struct DrillPlan {
    pub options: DrillOptions,
    pub cut: String,
    pub restore: String,
}

/// Everything one `accept storage` measures.
#[derive(Debug, Clone)]
pub struct Plan {
    pub host: Option<String>,
    /// Each location and what it is to the job, in the order named.
    pub locations: Vec<(PathBuf, Role)>,
    pub location: LocationOptions,
    pub upload: Option<UploadPlan>,
    pub drill: Option<DrillPlan>,
}

impl Plan {
    /// Whether the plan can run here: every location a directory, a data
    /// path for the drill to cut. Checked before anything is written.
    pub fn check(&self) -> Result<(), String> {
        for (path, _) in &self.locations {
            if !path.is_dir() {
                return Err(format!("{}: not a directory", path.display()));
            }
        }
        if self.drill.is_some() && !self.locations.iter().any(|(_, r)| *r == Role::Data) {
            return Err("the drill cuts the data path: name it with --path".into());
        }
        Ok(())
    }
}

/// What a session measured, and what it could not.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub records: Vec<StorageRecord>,
    /// One line each: a location that could not be written, a drill
    /// without a path to cut.
    pub problems: Vec<String>,
}

/// Measure each location, time the upload, run the drill — writing each
/// record to `out` as it comes. A location that cannot be measured is said
/// and the others are measured all the same.
pub fn run(
    plan: &Plan,
    out: &mut dyn Write,
    stop: &AtomicBool,
    say: &dyn Fn(&str),
) -> Result<Measured, String> {
    let io = |e: io::Error| format!("the storage log: {e}");
    writeln!(
        out,
        "{}",
        serde_json::to_string(&header(plan.host.clone())).map_err(|e| e.to_string())?
    )
    .map_err(io)?;
    let mut measured = Measured::default();
    let mut keep = |record: StorageRecord, measured: &mut Measured| -> Result<(), String> {
        write_line(out, &record).map_err(io)?;
        measured.records.push(record);
        Ok(())
    };
    for (path, role) in &plan.locations {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        say(&format!(
            "{}: writing a {} checkpoint and reading it back",
            path.display(),
            breakpoint_core::sizes::size_words(plan.location.bytes as f64)
        ));
        match measure_location(&Disk, path, *role, &plan.location, stop) {
            Ok(l) => keep(StorageRecord::Location(l), &mut measured)?,
            Err(e) => measured.problems.push(e),
        }
    }
    let local = plan
        .locations
        .iter()
        .find(|(_, role)| *role == Role::Local)
        .map(|(p, _)| p.as_path());
    let data = plan
        .locations
        .iter()
        .find(|(_, role)| *role == Role::Data)
        .map(|(p, _)| p.as_path());
    if let Some(u) = &plan.upload
        && !stop.load(Ordering::Relaxed)
    {
        // The file is made where writing is cheapest.
        let from = local
            .or(data)
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        say(&format!(
            "upload: {} through \"{}\"",
            breakpoint_core::sizes::size_words(u.bytes as f64),
            u.command
        ));
        match upload(&u.command, &from, u.bytes, u.limit, stop) {
            Ok(f) => keep(StorageRecord::Upload(f), &mut measured)?,
            Err(e) => measured.problems.push(e),
        }
    }
    if let Some(d) = &plan.drill
        && !stop.load(Ordering::Relaxed)
    {
        match data {
            None => measured
                .problems
                .push("the drill cuts the data path: name it with --path".into()),
            Some(path) => {
                say(&format!(
                    "drill: cutting {} for {:.0} s while a job checkpoints to it{}",
                    path.display(),
                    d.options.cut_for.as_secs_f64(),
                    local.map_or(String::new(), |l| format!(" through {}", l.display()))
                ));
                let cutter = ShellCutter {
                    cut: d.cut.clone(),
                    restore: d.restore.clone(),
                };
                match drill(
                    Place {
                        volume: &Disk,
                        path,
                    },
                    local.map(|l| Place {
                        volume: &Disk,
                        path: l,
                    }),
                    &cutter,
                    &d.options,
                    stop,
                ) {
                    Ok(figures) => keep(StorageRecord::Drill(figures), &mut measured)?,
                    Err(e) => measured.problems.push(e),
                }
            }
        }
    }
    Ok(measured)
}

/// Shared with the CLI's Ctrl-C handler.
pub type StopFlag = Arc<AtomicBool>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_buffers_start_on_a_page() {
        for len in [PAGE, BLOCK] {
            let a = Aligned::new(len);
            assert_eq!(a.slice().as_ptr() as usize % PAGE, 0);
            assert_eq!(a.slice().len(), len);
        }
    }

    #[test]
    fn noise_does_not_repeat_block_to_block() {
        let mut n = Noise(7);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        n.fill(&mut a);
        n.fill(&mut b);
        assert_ne!(a, b);
        assert!(a.iter().filter(|v| **v == 0).count() < 64);
    }

    #[test]
    fn the_scratch_directory_goes_with_everything_in_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = {
            let s = Scratch::new(dir.path()).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(s.path("x"), b"1").unwrap_or_else(|e| panic!("{e}"));
            s.dir.clone()
        };
        assert!(!path.exists());
        assert!(Scratch::new(&dir.path().join("absent")).is_err());
    }
}
