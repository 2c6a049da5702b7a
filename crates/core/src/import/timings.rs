//! Where one file's import spent its time, when asked (`import --timings`):
//! the wall clock by stage, and the processor time of each thread by what
//! it does. Measuring costs a few system calls per block of lines, so it
//! is done only on request.

use std::time::{Duration, Instant};

use breakpoint_formats::timings::{ReadTimings, thread_cpu};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// One file's import, timed.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportTimings {
    /// Opening the file, detecting its format, looking for an earlier
    /// import of it, and its first lines.
    pub setting_up: Duration,
    /// Reading the lines, each finished in file order.
    pub reading: Duration,
    /// After the last line: the last samples encoded and written, gaps
    /// found, the run's records stored.
    pub storing: Duration,
    pub committing: Duration,
    /// The importing thread's processor time, from start to commit;
    /// `None` where the system keeps no thread clocks (as for the others).
    pub this_thread_cpu: Option<Duration>,
    /// The row workers' and the importing thread's time on the lines.
    pub rows: ReadTimings,
    /// The thread that takes the file's SHA-256 as it is read.
    pub hashing_cpu: Option<Duration>,
    /// The thread that encodes full chunks of samples; `None` where no
    /// chunk filled (the last ones are encoded on the importing thread).
    pub encoding_cpu: Option<Duration>,
}

impl ImportTimings {
    pub fn wall(&self) -> Duration {
        self.setting_up + self.reading + self.storing + self.committing
    }

    /// The processor time of every thread together; `None` where the
    /// system keeps no thread clocks.
    pub fn cpu(&self) -> Option<Duration> {
        Some(
            self.this_thread_cpu?
                + self.rows.workers_cpu
                + self.hashing_cpu.unwrap_or_default()
                + self.encoding_cpu.unwrap_or_default(),
        )
    }
}

/// The clocks of an import under way: when it began, and when each stage
/// ended so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stopwatch {
    began_cpu: Option<Duration>,
    laps: [Duration; 3],
    lapped: usize,
    last: Instant,
}

impl Stopwatch {
    pub(crate) fn start() -> Self {
        let now = Instant::now();
        Self {
            began_cpu: thread_cpu(),
            laps: [Duration::ZERO; 3],
            lapped: 0,
            last: now,
        }
    }

    /// The stage under way has ended: setting up, reading, then storing;
    /// what follows the third is committing.
    pub(crate) fn lap(&mut self) {
        let now = Instant::now();
        if let Some(lap) = self.laps.get_mut(self.lapped) {
            *lap = now - self.last;
            self.lapped += 1;
            self.last = now;
        }
    }

    /// The import has committed: its timings, with what the threads said.
    pub(crate) fn committed(
        self,
        rows: ReadTimings,
        hashing_cpu: Option<Duration>,
        encoding_cpu: Option<Duration>,
    ) -> ImportTimings {
        let [setting_up, reading, storing] = self.laps;
        let committing = self.last.elapsed();
        let this_thread_cpu = match (self.began_cpu, thread_cpu()) {
            (Some(began), Some(now)) => Some(now.saturating_sub(began)),
            _ => None,
        };
        ImportTimings {
            setting_up,
            reading,
            storing,
            committing,
            this_thread_cpu,
            rows,
            hashing_cpu,
            encoding_cpu,
        }
    }
}

/// Seconds, as numbers: what a script reading `--json` wants.
impl Serialize for ImportTimings {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let secs = |d: Duration| d.as_secs_f64();
        let mut s = serializer.serialize_struct("ImportTimings", 13)?;
        s.serialize_field("wall_s", &secs(self.wall()))?;
        s.serialize_field("setting_up_s", &secs(self.setting_up))?;
        s.serialize_field("reading_s", &secs(self.reading))?;
        s.serialize_field("storing_s", &secs(self.storing))?;
        s.serialize_field("committing_s", &secs(self.committing))?;
        s.serialize_field("cpu_s", &self.cpu().map(secs))?;
        s.serialize_field("this_thread_cpu_s", &self.this_thread_cpu.map(secs))?;
        s.serialize_field("row_workers", &self.rows.workers)?;
        s.serialize_field("row_workers_cpu_s", &secs(self.rows.workers_cpu))?;
        s.serialize_field("cutting_cpu_s", &secs(self.rows.cutting_cpu))?;
        s.serialize_field("rows_read_here_cpu_s", &secs(self.rows.reading_here_cpu))?;
        s.serialize_field("finishing_cpu_s", &secs(self.rows.finishing_cpu))?;
        s.serialize_field("hashing_cpu_s", &self.hashing_cpu.map(secs))?;
        s.serialize_field("encoding_cpu_s", &self.encoding_cpu.map(secs))?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_add_up_to_the_wall_time() {
        let mut watch = Stopwatch::start();
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(2));
            watch.lap();
        }
        std::thread::sleep(Duration::from_millis(2));
        let t = watch.committed(ReadTimings::default(), None, None);
        for stage in [t.setting_up, t.reading, t.storing, t.committing] {
            assert!(stage >= Duration::from_millis(2), "{t:?}");
        }
        assert!(t.wall() >= Duration::from_millis(8));
        if cfg!(unix) {
            // No chunk filled and nothing hashed yet: those threads add
            // nothing, and the total is still known.
            assert_eq!(t.cpu(), t.this_thread_cpu);
            assert!(t.cpu().is_some());
        }
    }

    #[test]
    fn laps_past_the_third_are_committing() {
        let mut watch = Stopwatch::start();
        for _ in 0..3 {
            watch.lap();
        }
        std::thread::sleep(Duration::from_millis(2));
        watch.lap();
        std::thread::sleep(Duration::from_millis(2));
        let t = watch.committed(ReadTimings::default(), None, None);
        assert!(t.committing >= Duration::from_millis(4), "{t:?}");
    }
}
