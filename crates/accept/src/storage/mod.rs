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

mod drill;
mod location;
mod upload;

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use breakpoint_formats::parsers::storage_log::{
    Role, STORAGE_FORMAT, STORAGE_VERSION, StorageHeader, StorageRecord,
};

pub use drill::{Cutter, DrillOptions, Place, ShellCutter, drill};
pub use location::{LocationOptions, measure_location};
pub use upload::upload;

/// Bytes per sequential read or write: large enough that the device, not
/// the system call, sets the pace; a multiple of every sector size.
pub const BLOCK: usize = 1 << 20;

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

    /// Remove the folder now; where it cannot be (its path was cut and did
    /// not come back), the sentence that names it for the user to remove.
    pub fn remove(mut self) -> Option<String> {
        // Tried once, here: dropping it afterwards tries nothing more.
        let dir = std::mem::take(&mut self.dir);
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => None,
            Err(_) if !dir.exists() => None,
            Err(e) => Some(format!(
                "the drill's scratch folder {} is left ({e}): remove it once the path is back",
                breakpoint_core::text::printable(&dir.display().to_string())
            )),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.dir.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Bytes free to an unprivileged writer at `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A scratch folder that cannot be removed (its path still cut) is
    /// named for the user, not left unmentioned.
    #[test]
    fn a_scratch_folder_left_behind_is_named() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let s = Scratch::new(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let path = s.dir.clone();
        assert_eq!(s.remove(), None);
        assert!(!path.exists());
        // A path that cannot be removed as a folder stands in for one whose
        // mount is gone: the removal fails and the path is still there.
        let s = Scratch::new(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let path = s.dir.clone();
        std::fs::remove_dir(&path).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, b"not a folder").unwrap_or_else(|e| panic!("{e}"));
        let said = s.remove().unwrap_or_else(|| panic!("nothing said"));
        assert!(
            said.contains(".breakpoint-storage-") && said.contains("is left"),
            "{said}"
        );
    }
}
