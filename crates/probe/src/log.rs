//! Writing the probe log as it goes: the header once, first, never
//! rewritten; then one JSON object per line. Flushed every second and
//! synced to disk every ten, so after kill -9 or a power loss the log is
//! valid up to its last whole line (the importer drops a cut-off one).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use breakpoint_destination::{Destination, Protected};
use breakpoint_formats::parsers::{ProbeHeader, ProbeRecord};

pub struct ProbeLogWriter {
    out: BufWriter<File>,
    last_flush_ms: i64,
    last_sync_ms: i64,
    pub flush_every_ms: i64,
    pub sync_every_ms: i64,
    pub lines: u64,
}

impl ProbeLogWriter {
    /// Create the log (refusing to overwrite one) and write its header.
    pub fn create(path: &Path, header: &ProbeHeader, now_ms: i64) -> io::Result<Self> {
        let file = Destination::check(path, &Protected::default(), false)
            .map_err(|e| io::Error::other(e.to_string()))?
            .create_new()
            .map_err(|e| e.source)?;
        let mut w = ProbeLogWriter {
            out: BufWriter::with_capacity(64 * 1024, file),
            last_flush_ms: now_ms,
            last_sync_ms: now_ms,
            flush_every_ms: 1000,
            sync_every_ms: 10_000,
            lines: 0,
        };
        serde_json::to_writer(&mut w.out, header).map_err(io::Error::other)?;
        w.out.write_all(b"\n")?;
        w.lines += 1;
        w.out.flush()?;
        w.out.get_ref().sync_data()?;
        Ok(w)
    }

    pub fn record(&mut self, record: &ProbeRecord) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, record).map_err(io::Error::other)?;
        self.out.write_all(b"\n")?;
        self.lines += 1;
        Ok(())
    }

    /// Apply the flush and sync policy at time `now_ms`.
    pub fn tick(&mut self, now_ms: i64) -> io::Result<()> {
        if now_ms - self.last_flush_ms >= self.flush_every_ms {
            self.out.flush()?;
            self.last_flush_ms = now_ms;
        }
        if now_ms - self.last_sync_ms >= self.sync_every_ms {
            self.out.flush()?;
            self.out.get_ref().sync_data()?;
            self.last_sync_ms = now_ms;
        }
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_all()
    }
}

/// The records of a probe log after its header, for tests that check what
/// a session wrote.
#[cfg(test)]
pub(crate) fn read_records(
    path: &std::path::Path,
) -> Vec<breakpoint_formats::parsers::ProbeRecord> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
