//! Sampling for a while (`probe sample`, the app's live chart): ticks into
//! a probe log until a duration has passed or someone says stop.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::clock::Clock;
use crate::session::{ProbeError, Session, SessionOptions, Summary, TickInfo};
use crate::source::GpuSource;

/// Sample until `duration_ms` has passed or `stop` is set (Ctrl-C).
/// `progress` is called after every tick with what it read and the running
/// figures (for a live status line or chart).
pub fn sample<S: GpuSource + ?Sized, C: Clock>(
    source: &mut S,
    clock: &C,
    path: &Path,
    options: &SessionOptions,
    duration_ms: Option<i64>,
    stop: &AtomicBool,
    mut progress: impl FnMut(&TickInfo, &Summary),
) -> Result<Summary, ProbeError> {
    let mut session = Session::start(source, clock, path, options)?;
    let end = duration_ms.map(|d| session.start_ms() + d);
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let tick = session.tick()?;
        progress(&tick, &session.summary());
        if end.is_some_and(|e| tick.now_ms >= e) {
            break;
        }
    }
    session.finish(serde_json::Map::new())
}
