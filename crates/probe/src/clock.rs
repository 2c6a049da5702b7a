//! Time as the probe sees it: the real clock, or a manual one that tests
//! advance, so a 48 h sampling run can be tested in milliseconds.

use std::cell::Cell;
use std::time::{Duration, Instant};

pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Wait until `deadline_ms` (or return at once if it has passed).
    fn sleep_until(&self, deadline_ms: i64);
}

/// Wall-clock time for timestamps, a monotonic clock for the waiting.
pub struct SystemClock {
    start_wall_ms: i64,
    start: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        Self {
            start_wall_ms: jiff::Timestamp::now().as_millisecond(),
            start: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        self.start_wall_ms + self.start.elapsed().as_millis() as i64
    }

    fn sleep_until(&self, deadline_ms: i64) {
        let wait = deadline_ms - self.now_ms();
        if wait > 0 {
            std::thread::sleep(Duration::from_millis(wait as u64));
        }
    }
}

/// A clock that only moves when told to (sleeping moves it).
pub struct ManualClock {
    now: Cell<i64>,
}

impl ManualClock {
    pub fn new(start_ms: i64) -> Self {
        Self {
            now: Cell::new(start_ms),
        }
    }

    pub fn advance(&self, ms: i64) {
        self.now.set(self.now.get() + ms);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.get()
    }

    fn sleep_until(&self, deadline_ms: i64) {
        if deadline_ms > self.now.get() {
            self.now.set(deadline_ms);
        }
    }
}
