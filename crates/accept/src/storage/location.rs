//! One location measured: a checkpoint-sized file written and made
//! durable, read back, and random reads within it.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use breakpoint_formats::parsers::storage_log::{LocationFigures, Role};

use super::{BLOCK, Noise, Scratch, Volume, defaults, free_bytes, round3};

/// Bytes per random read, aligned as direct I/O needs.
const PAGE: usize = 4096;

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
}
