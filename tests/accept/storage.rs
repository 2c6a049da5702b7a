//! `accept storage` on planted conditions: a path held to a known pace is
//! found at that pace, and a path cut under a checkpointing job gives each
//! of the drill's three outcomes.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use breakpoint_accept::storage::{
    Cutter, Disk, DrillOptions, LocationOptions, Place, Volume, drill, measure_location,
};
use breakpoint_formats::parsers::storage_log::{DrillOutcome, Role};

/// A disk held to `bytes_per_s`, as a slow network volume is: each
/// transfer waits until the bytes so far fit the pace.
struct Paced {
    bytes_per_s: f64,
    moved: Mutex<Option<(Instant, u64)>>,
}

impl Paced {
    fn new(mb_s: f64) -> Self {
        Self {
            bytes_per_s: mb_s * 1e6,
            moved: Mutex::new(None),
        }
    }

    fn pace(&self, n: usize) {
        let due = {
            let mut moved = self.moved.lock().unwrap();
            let (start, total) = moved.get_or_insert((Instant::now(), 0));
            *total += n as u64;
            *start + Duration::from_secs_f64(*total as f64 / self.bytes_per_s)
        };
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
    }

    /// A new phase starts its own clock (a pause between phases is not
    /// bandwidth saved up).
    fn restart(&self) {
        *self.moved.lock().unwrap() = None;
    }
}

impl Volume for Paced {
    fn create(&self, path: &Path, direct: bool) -> io::Result<File> {
        self.restart();
        Disk.create(path, direct)
    }

    fn open(&self, path: &Path, direct: bool) -> io::Result<File> {
        self.restart();
        Disk.open(path, direct)
    }

    fn write(&self, file: &mut File, block: &[u8]) -> io::Result<()> {
        Disk.write(file, block)?;
        self.pace(block.len());
        Ok(())
    }

    fn read(&self, file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
        let n = Disk.read(file, buf)?;
        self.pace(n);
        Ok(n)
    }
}

#[test]
fn a_path_held_to_a_pace_is_found_at_that_pace_beside_a_fast_one() {
    let (fast, slow) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = LocationOptions {
        bytes: 32 << 20,
        phase_limit: Duration::from_secs(60),
        random_reads: 200,
        random_limit: Duration::from_secs(2),
    };
    let stop = AtomicBool::new(false);
    let local = measure_location(&Disk, fast.path(), Role::Local, &options, &stop).unwrap();
    // Well below any disk a CI machine has, so the pace is the planted one.
    let planted = 25.0;
    let data = measure_location(
        &Paced::new(planted),
        slow.path(),
        Role::Data,
        &options,
        &stop,
    )
    .unwrap();
    for (what, found) in [("write", data.write_mb_s()), ("read", data.read_mb_s())] {
        let found = found.unwrap();
        assert!(
            (found - planted).abs() / planted <= 0.10,
            "{what}: {found:.1} MB/s for a path held to {planted} MB/s"
        );
    }
    // The other path is the machine's own, faster than the planted pace.
    assert!(local.write_mb_s().unwrap() > planted, "{local:?}");
    assert_eq!(data.bytes, 32 << 20);
    assert!(data.random_reads > 0 && data.random_p50_ms.is_some());
    // Nothing left behind in either place.
    for dir in [&fast, &slow] {
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// How a cut path behaves: a lost mount answers with errors, a hard
/// network mount hangs until it is back.
#[derive(Clone, Copy)]
enum Outage {
    Errors,
    Hangs,
}

/// A disk whose writes fail or hang while `cut` is set.
struct Cuttable {
    cut: Arc<AtomicBool>,
    outage: Outage,
}

impl Cuttable {
    fn check(&self) -> io::Result<()> {
        while self.cut.load(Ordering::SeqCst) {
            match self.outage {
                Outage::Errors => {
                    return Err(io::Error::new(
                        io::ErrorKind::NotConnected,
                        "transport endpoint is not connected",
                    ));
                }
                Outage::Hangs => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        Ok(())
    }
}

impl Volume for Cuttable {
    fn create(&self, path: &Path, direct: bool) -> io::Result<File> {
        self.check()?;
        Disk.create(path, direct)
    }

    fn write(&self, file: &mut File, block: &[u8]) -> io::Result<()> {
        self.check()?;
        Disk.write(file, block)
    }

    fn sync(&self, file: &File) -> io::Result<()> {
        self.check()?;
        Disk.sync(file)
    }
}

struct Switch(Arc<AtomicBool>);

impl Cutter for Switch {
    fn cut(&self) -> Result<(), String> {
        self.0.store(true, Ordering::SeqCst);
        Ok(())
    }

    fn restore(&self) -> Result<(), String> {
        self.0.store(false, Ordering::SeqCst);
        Ok(())
    }
}

fn run_drill(
    outage: Outage,
    with_local: bool,
) -> breakpoint_formats::parsers::storage_log::DrillFigures {
    let cut = Arc::new(AtomicBool::new(false));
    let network = Cuttable {
        cut: cut.clone(),
        outage,
    };
    let (net_dir, local_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = DrillOptions {
        checkpoint_bytes: 1 << 20,
        every: Duration::from_millis(100),
        cut_after: Duration::from_millis(250),
        cut_for: Duration::from_millis(700),
        settle: Duration::from_millis(500),
        stall_after: Duration::from_millis(300),
    };
    let figures = drill(
        Place {
            volume: &network,
            path: net_dir.path(),
        },
        with_local.then(|| Place {
            volume: &Disk,
            path: local_dir.path(),
        }),
        &Switch(cut),
        &options,
        &AtomicBool::new(false),
    )
    .unwrap();
    for dir in [&net_dir, &local_dir] {
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the drill cleans up"
        );
    }
    figures
}

#[test]
fn a_job_with_a_local_cache_carries_on_through_the_cut() {
    let f = run_drill(Outage::Errors, true);
    assert_eq!(f.outcome, DrillOutcome::Continues, "{f:?}");
    assert!(f.checkpoints >= 12, "{f:?}");
    // Checkpoints reach the network path again soon after it is back.
    let back = f.recovered_after_s.unwrap();
    assert!(back < 0.5, "{f:?}");
    assert!(f.detail.contains("kept on the local cache"), "{}", f.detail);
}

#[test]
fn a_job_writing_straight_to_a_hung_path_stalls() {
    let f = run_drill(Outage::Hangs, false);
    assert_eq!(f.outcome, DrillOutcome::Stalls, "{f:?}");
    assert!(f.longest_wait_s >= 0.3, "{f:?}");
    assert!(f.recovered_after_s.is_some(), "{f:?}");
}

#[test]
fn a_job_writing_straight_to_a_lost_path_fails() {
    let f = run_drill(Outage::Errors, false);
    assert_eq!(f.outcome, DrillOutcome::Fails, "{f:?}");
    assert!(
        f.detail
            .contains("could not be written to the network path"),
        "{}",
        f.detail
    );
}

#[test]
fn a_path_that_cannot_be_cut_is_said_not_run() {
    struct Refused;
    impl Cutter for Refused {
        fn cut(&self) -> Result<(), String> {
            Err("umount: must be superuser".into())
        }
        fn restore(&self) -> Result<(), String> {
            Ok(())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let f = drill(
        Place {
            volume: &Disk,
            path: dir.path(),
        },
        None,
        &Refused,
        &DrillOptions {
            checkpoint_bytes: 1 << 16,
            every: Duration::from_millis(50),
            cut_after: Duration::from_millis(60),
            cut_for: Duration::from_millis(100),
            settle: Duration::from_millis(50),
            stall_after: Duration::from_secs(1),
        },
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(f.outcome, DrillOutcome::NotRun, "{f:?}");
    assert!(f.detail.contains("must be superuser"), "{}", f.detail);
}
