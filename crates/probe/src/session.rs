//! A sampling session: the loop shared by `probe sample` and `probe run`.
//! It reads every GPU each tick, writes what it read to the probe log,
//! records XIDs and lost GPUs as events (the other GPUs keep sampling), and
//! keeps the running figures for the summary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use breakpoint_formats::parsers::{PROBE_FORMAT, PROBE_VERSION, ProbeHeader, ProbeRecord};
use breakpoint_model::domain::{EventKind, GpuInfo};
use breakpoint_model::samples::{Field, Sample};
use serde::Serialize;

use crate::clock::Clock;
use crate::log::ProbeLogWriter;
use crate::source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("cannot write the probe log \"{path}\": {error}")]
    Log {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot write the workload's output \"{path}\": {error}")]
    Output {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot start \"{command}\": {error}")]
    Spawn {
        command: String,
        error: std::io::Error,
    },
}

#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    pub interval_ms: u32,
    pub host: Option<String>,
    pub platform: Option<String>,
    pub offering: Option<String>,
}

/// Running figures, for the live status line and the summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub duration_s: f64,
    pub gpus: usize,
    pub samples: u64,
    pub events: u64,
    pub lost_gpus: Vec<u32>,
    pub mean_power_w: Option<f64>,
    pub max_power_w: Option<f64>,
    pub max_temp_c: Option<i64>,
    /// Share of samples with a counted throttle reason (hardware slowdown,
    /// thermal, power brake), where the GPU reports reasons.
    pub throttle_pct: Option<f64>,
}

#[derive(Default)]
struct Stats {
    samples: u64,
    events: u64,
    power_sum_w: f64,
    power_n: u64,
    max_power_w: Option<f64>,
    max_temp_c: Option<i64>,
    masked: u64,
    throttled: u64,
}

/// A lost GPU (or one that needs a reset) is tried again this often: a
/// reset or a driver reload can bring it back.
pub const RETRY_LOST_TICKS: i64 = 10;

/// What one tick saw.
pub struct TickInfo {
    pub now_ms: i64,
    /// Real time since the previous tick (longer than the interval after a
    /// stall: missed ticks are skipped, not fired back to back).
    pub elapsed_ms: i64,
    /// Some GPU's utilisation was above 10 %; `None` when no GPU reported
    /// utilisation (a GPU in MIG mode does not).
    pub busy: Option<bool>,
    /// What each GPU that answered reported, for a live view.
    pub readings: Vec<(u32, Reading)>,
}

pub struct Session<'a, S: GpuSource + ?Sized, C: Clock> {
    source: &'a mut S,
    clock: &'a C,
    log: ProbeLogWriter,
    path: PathBuf,
    gpus: u32,
    /// GPUs not read every tick (lost, or waiting for a reset), and why.
    down: BTreeMap<u32, EventKind>,
    /// GPUs whose last reading failed as a whole (one event per incident).
    unreadable: BTreeSet<u32>,
    /// Every GPU lost at some point, for the summary.
    ever_lost: Vec<u32>,
    /// Each GPU's UUID, to put on its events.
    uuids: BTreeMap<u32, String>,
    start_ms: i64,
    now_ms: i64,
    ticks: i64,
    interval_ms: i64,
    stats: Stats,
}

fn sample_of(gpu: u32, t_ms: i64, reading: &Reading) -> Sample {
    let mut s = Sample::new(t_ms, gpu);
    for (f, v) in &reading.values {
        s.set(*f, *v);
    }
    s
}

impl<'a, S: GpuSource + ?Sized, C: Clock> Session<'a, S, C> {
    /// Take the inventory, find what each GPU can report, write the header
    /// and the first readings.
    pub fn start(
        source: &'a mut S,
        clock: &'a C,
        path: &Path,
        options: &SessionOptions,
    ) -> Result<Self, ProbeError> {
        let inventory: Vec<GpuInfo> = source.inventory()?;
        if inventory.is_empty() {
            return Err(SourceError::NoGpus.into());
        }
        let now = clock.now_ms();
        let first: Vec<(u32, Result<Reading, ReadError>)> = inventory
            .iter()
            .map(|g| (g.index, source.read(g.index)))
            .collect();
        let capabilities: BTreeMap<u32, Vec<String>> = first
            .iter()
            .filter_map(|(gpu, r)| {
                r.as_ref().ok().map(|r| {
                    (
                        *gpu,
                        r.values.iter().map(|(f, _)| f.key().to_string()).collect(),
                    )
                })
            })
            .collect();
        let header = ProbeHeader {
            format: PROBE_FORMAT.into(),
            version: PROBE_VERSION,
            host: options
                .host
                .clone()
                .or_else(|| inventory.iter().find_map(|g| g.host.clone())),
            started_at: jiff::Timestamp::from_millisecond(now).ok(),
            interval_ms: Some(options.interval_ms),
            gpus: inventory.clone(),
            platform: options.platform.clone(),
            offering: options.offering.clone(),
            capabilities,
            tool: Some(format!("breakpoint {}", env!("CARGO_PKG_VERSION"))),
        };
        let log = ProbeLogWriter::create(path, &header, now).map_err(|error| ProbeError::Log {
            path: path.to_path_buf(),
            error,
        })?;
        let mut session = Session {
            source,
            clock,
            log,
            path: path.to_path_buf(),
            gpus: inventory.iter().map(|g| g.index + 1).max().unwrap_or(0),
            down: BTreeMap::new(),
            unreadable: BTreeSet::new(),
            ever_lost: Vec::new(),
            uuids: inventory
                .iter()
                .filter_map(|g| Some((g.index, g.uuid.clone()?)))
                .collect(),
            start_ms: now,
            now_ms: now,
            ticks: 0,
            interval_ms: i64::from(options.interval_ms.max(1)),
            stats: Stats::default(),
        };
        for g in inventory.iter().filter(|g| g.unreadable.is_some()) {
            // Listed, so that it counts; lost from the start, so that it is
            // on record; tried again like any lost GPU.
            let detail = format!(
                "could not be read when sampling began: {}",
                g.unreadable.as_deref().unwrap_or_default()
            );
            session.mark_down(g.index, now, EventKind::GpuLost, detail)?;
        }
        for (gpu, reading) in first {
            if !session.down.contains_key(&gpu) {
                session.take(gpu, now, reading)?;
            }
        }
        session.write_notes(now)?;
        Ok(session)
    }

    fn io(&self, error: std::io::Error) -> ProbeError {
        ProbeError::Log {
            path: self.path.clone(),
            error,
        }
    }

    pub fn write(&mut self, record: &ProbeRecord) -> Result<(), ProbeError> {
        self.log.record(record).map_err(|e| self.io(e))
    }

    fn event(
        &mut self,
        t_ms: i64,
        event: EventKind,
        gpu: Option<u32>,
        code: Option<i64>,
        detail: Option<String>,
    ) -> Result<(), ProbeError> {
        self.stats.events += 1;
        let uuid = gpu.and_then(|g| self.uuids.get(&g).cloned());
        self.write(&ProbeRecord::Event {
            t: t_ms,
            event,
            gpu,
            code,
            duration_ms: None,
            detail,
            uuid,
        })
    }

    /// What the source had to say, as notes in the log.
    fn write_notes(&mut self, t_ms: i64) -> Result<(), ProbeError> {
        for (gpu, text) in self.source.notes() {
            self.event(t_ms, EventKind::Note, gpu, None, Some(text))?;
        }
        Ok(())
    }

    /// Stop reading a GPU every tick (it is lost, or needs a reset).
    fn mark_down(
        &mut self,
        gpu: u32,
        t_ms: i64,
        kind: EventKind,
        detail: String,
    ) -> Result<(), ProbeError> {
        if kind == EventKind::GpuLost && !self.ever_lost.contains(&gpu) {
            self.ever_lost.push(gpu);
        }
        self.down.insert(gpu, kind);
        self.unreadable.remove(&gpu);
        self.event(t_ms, kind, Some(gpu), None, Some(detail))
    }

    /// Record one GPU's answer; whether it was busy, when it says.
    fn take(
        &mut self,
        gpu: u32,
        t_ms: i64,
        answer: Result<Reading, ReadError>,
    ) -> Result<Option<bool>, ProbeError> {
        match answer {
            Ok(reading) => {
                if self.down.remove(&gpu).is_some() || self.unreadable.remove(&gpu) {
                    self.event(
                        t_ms,
                        EventKind::Recovered,
                        Some(gpu),
                        None,
                        Some(format!("GPU {gpu} answers again")),
                    )?;
                }
                let sample = sample_of(gpu, t_ms, &reading);
                self.write(&ProbeRecord::Sample((&sample).into()))?;
                let st = &mut self.stats;
                st.samples += 1;
                if let Some(p) = reading.get(Field::PowerMw) {
                    let w = p as f64 / 1000.0;
                    st.power_sum_w += w;
                    st.power_n += 1;
                    st.max_power_w = Some(st.max_power_w.map_or(w, |m| m.max(w)));
                }
                if let Some(t) = reading.get(Field::TempGpuC) {
                    st.max_temp_c = Some(st.max_temp_c.map_or(t, |m| m.max(t)));
                }
                if let Some(m) = reading.get(Field::ThrottleMask) {
                    st.masked += 1;
                    if m & breakpoint_model::samples::COUNTED_THROTTLE != 0 {
                        st.throttled += 1;
                    }
                }
                Ok(reading
                    .get(Field::UtilGpuPct)
                    .map(|u| u > breakpoint_model::samples::WORKING_UTIL))
            }
            Err(ReadError::Lost(detail)) => {
                if self.down.get(&gpu) != Some(&EventKind::GpuLost) {
                    self.mark_down(gpu, t_ms, EventKind::GpuLost, detail)?;
                }
                Ok(None)
            }
            Err(ReadError::ResetRequired(detail)) => {
                if self.down.get(&gpu) != Some(&EventKind::ResetRequired) {
                    self.mark_down(gpu, t_ms, EventKind::ResetRequired, detail)?;
                }
                Ok(None)
            }
            Err(ReadError::Unreadable(detail)) => {
                if self.unreadable.insert(gpu) {
                    self.event(t_ms, EventKind::Unreadable, Some(gpu), None, Some(detail))?;
                }
                Ok(None)
            }
            // A transient failure: the sample is missing (a gap), not zero.
            Err(ReadError::Other(_)) => Ok(None),
        }
    }

    /// When the next tick is due.
    pub fn next_tick_ms(&self) -> i64 {
        self.start_ms + (self.ticks + 1) * self.interval_ms
    }

    /// Wait for the next tick, read every GPU still there (and, every
    /// `RETRY_LOST_TICKS`, the ones that are not), log it. After a stall
    /// (a slow driver, a suspended machine) the ticks that were missed are
    /// skipped: the next one is the next on the grid after now.
    pub fn tick(&mut self) -> Result<TickInfo, ProbeError> {
        self.ticks += 1;
        self.clock
            .sleep_until(self.start_ms + self.ticks * self.interval_ms);
        let now = self.clock.now_ms();
        let behind = (now - self.start_ms) / self.interval_ms;
        if behind > self.ticks {
            self.ticks = behind;
        }
        let elapsed_ms = now - self.now_ms;
        self.now_ms = now;
        let mut busy: Option<bool> = None;
        let mut readings = Vec::with_capacity(self.gpus as usize);
        let retry = self.ticks % RETRY_LOST_TICKS == 0;
        for gpu in 0..self.gpus {
            if self.down.contains_key(&gpu) && !retry {
                continue;
            }
            let answer = self.source.read(gpu);
            if let Ok(reading) = &answer {
                readings.push((gpu, reading.clone()));
            }
            if let Some(b) = self.take(gpu, now, answer)? {
                busy = Some(busy.unwrap_or(false) | b);
            }
        }
        for e in self.source.events(0) {
            match e {
                GpuEvent::Xid { gpu, code } => self.event(
                    now,
                    EventKind::Xid,
                    Some(gpu),
                    Some(code),
                    Some(format!("XID {code}")),
                )?,
            }
        }
        self.write_notes(now)?;
        self.log.tick(now).map_err(|e| self.io(e))?;
        Ok(TickInfo {
            now_ms: now,
            elapsed_ms,
            busy,
            readings,
        })
    }

    /// Compute processes on the GPUs still there; `None` when no GPU could
    /// tell.
    pub fn compute_pids(&mut self) -> Option<Vec<u32>> {
        let mut known = false;
        let mut pids = Vec::new();
        for gpu in 0..self.gpus {
            if self.down.contains_key(&gpu) {
                continue;
            }
            if let Some(p) = self.source.compute_pids(gpu) {
                known = true;
                pids.extend(p);
            }
        }
        known.then_some(pids)
    }

    pub fn summary(&self) -> Summary {
        let st = &self.stats;
        Summary {
            duration_s: (self.now_ms - self.start_ms) as f64 / 1000.0,
            gpus: self.gpus as usize,
            samples: st.samples,
            events: st.events,
            lost_gpus: self.ever_lost.clone(),
            mean_power_w: (st.power_n > 0).then(|| st.power_sum_w / st.power_n as f64),
            max_power_w: st.max_power_w,
            max_temp_c: st.max_temp_c,
            throttle_pct: (st.masked > 0).then(|| 100.0 * st.throttled as f64 / st.masked as f64),
        }
    }

    pub fn start_ms(&self) -> i64 {
        self.start_ms
    }

    /// Write the summary record and close the log (flushed and synced).
    pub fn finish(
        mut self,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Summary, ProbeError> {
        let summary = self.summary();
        let mut map = match serde_json::to_value(&summary) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        map.extend(extra);
        let record = ProbeRecord::Summary {
            t: self.now_ms,
            summary: map,
        };
        self.write(&record)?;
        let path = self.path.clone();
        self.log
            .finish()
            .map_err(|error| ProbeError::Log { path, error })?;
        Ok(summary)
    }
}
