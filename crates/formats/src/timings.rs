//! Where a parse's processor time went, taken only when asked for
//! (`ParseContext::timings`, `import --timings`): the row workers' time, and
//! the importing thread's by part of its work. A thread's own CPU clock is
//! read, not the wall clock, so that time a thread spent waiting, or that
//! the machine gave to another, is not counted as work.

use std::time::Duration;

/// The CPU time the calling thread has used so far; `None` where the
/// system keeps no such clock.
pub fn thread_cpu() -> Option<Duration> {
    #[cfg(unix)]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        let secs = u64::try_from(t.tv_sec).ok()?;
        let nanos = u32::try_from(t.tv_nsec).ok()?;
        Some(Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The CPU time of reading a file's lines in blocks (`blocks::read_lines`).
/// All zero where the file was read line by line (too short for blocks, or
/// no thread to be had) or the system keeps no thread clocks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ReadTimings {
    /// Row workers started.
    pub workers: usize,
    /// Their CPU time, together.
    pub workers_cpu: Duration,
    /// The importing thread's: reading the file and cutting it into blocks
    /// of whole lines.
    pub cutting_cpu: Duration,
    /// The importing thread's: blocks it read itself rather than wait for a
    /// worker.
    pub reading_here_cpu: Duration,
    /// The importing thread's: each line finished in file order (which GPU,
    /// the checks that need the lines before, the sample handed to the
    /// store).
    pub finishing_cpu: Duration,
}

/// Adds the calling thread's CPU time between its start and its end to a
/// total; does nothing where it was not asked for, or no clock is kept.
pub(crate) struct CpuSpan(Option<Duration>);

impl CpuSpan {
    pub(crate) fn start(wanted: bool) -> Self {
        Self(if wanted { thread_cpu() } else { None })
    }

    pub(crate) fn add_to(self, total: &mut Duration) {
        if let Some(start) = self.0
            && let Some(now) = thread_cpu()
        {
            *total += now.saturating_sub(start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_thread_clock_counts_work_and_not_sleep() {
        let before = thread_cpu().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_cpu().unwrap() - before;
        assert!(
            slept < Duration::from_millis(10),
            "{slept:?} counted asleep"
        );
        // Work until the clock has counted 20 ms of it: a thread's clock
        // moves with its work, and never faster than the wall clock (the
        // two are kept apart, so within a millisecond).
        let wall = std::time::Instant::now();
        let start = thread_cpu().unwrap();
        let mut x = 0u64;
        let worked = loop {
            for i in 0..10_000u64 {
                x = std::hint::black_box(x ^ i);
            }
            let worked = thread_cpu().unwrap() - start;
            if worked >= Duration::from_millis(20) || wall.elapsed() > Duration::from_secs(5) {
                break worked;
            }
        };
        assert!(
            worked >= Duration::from_millis(20),
            "{worked:?} in 5 s of work"
        );
        assert!(
            worked <= wall.elapsed() + Duration::from_millis(1),
            "{worked:?} in {:?}",
            wall.elapsed()
        );
    }

    #[test]
    fn a_span_not_asked_for_adds_nothing() {
        let mut total = Duration::ZERO;
        let span = CpuSpan::start(false);
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x ^ i);
        }
        span.add_to(&mut total);
        assert_eq!(total, Duration::ZERO);
    }
}
