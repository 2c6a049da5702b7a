//! A GPU source that replays a recorded trace: per tick, what each GPU
//! answered (readings with only the fields it supports, or errors), the
//! events it raised and the processes on it. Tests drive the sampling loop,
//! the log and the wrapper with it.

use breakpoint_model::domain::GpuInfo;

use crate::source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};

#[derive(Debug, Clone, Default)]
pub struct Tick {
    /// One answer per GPU, by index.
    pub answers: Vec<Result<Reading, ReadError>>,
    pub events: Vec<GpuEvent>,
    /// (GPU, pid) of compute processes.
    pub pids: Vec<(u32, u32)>,
}

pub struct ScriptedSource {
    pub inventory: Result<Vec<GpuInfo>, SourceError>,
    pub ticks: Vec<Tick>,
    /// The tick being replayed; it advances when events are collected (the
    /// end of a sampling tick). After the last tick the last one repeats.
    pub position: usize,
}

impl ScriptedSource {
    pub fn new(inventory: Vec<GpuInfo>, ticks: Vec<Tick>) -> Self {
        Self {
            inventory: Ok(inventory),
            ticks,
            position: 0,
        }
    }

    fn tick(&self) -> Option<&Tick> {
        self.ticks
            .get(self.position.min(self.ticks.len().saturating_sub(1)))
    }
}

impl GpuSource for ScriptedSource {
    fn inventory(&mut self) -> Result<Vec<GpuInfo>, SourceError> {
        self.inventory.clone()
    }

    fn read(&mut self, gpu: u32) -> Result<Reading, ReadError> {
        self.tick()
            .and_then(|t| t.answers.get(gpu as usize).cloned())
            .unwrap_or_else(|| Err(ReadError::Other(format!("no GPU {gpu} in the trace"))))
    }

    fn events(&mut self, _timeout_ms: u32) -> Vec<GpuEvent> {
        let events = self.tick().map(|t| t.events.clone()).unwrap_or_default();
        self.position += 1;
        events
    }

    fn compute_pids(&mut self, gpu: u32) -> Option<Vec<u32>> {
        Some(
            self.tick()
                .map(|t| {
                    t.pids
                        .iter()
                        .filter(|(g, _)| *g == gpu)
                        .map(|(_, p)| *p)
                        .collect()
                })
                .unwrap_or_default(),
        )
    }
}

/// A recorded trace as JSON, for replaying a probe session without a GPU:
///
/// ```json
/// {"inventory": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "vram_mib": 81920}],
///  "ticks": [{"gpus": [{"power_mw": 250000, "util_gpu_pct": 97} , {"error": "lost"}],
///             "events": [{"gpu": 0, "xid": 79}], "pids": [[0, 4242]]}]}
/// ```
pub fn from_json(text: &str) -> Result<ScriptedSource, String> {
    use breakpoint_model::samples::Field;
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a trace: {e}"))?;
    let entries = doc
        .get("inventory")
        .and_then(|i| i.as_array())
        .cloned()
        .unwrap_or_default();
    let mut inventory = Vec::new();
    for entry in entries {
        // A plain "name" stands for the normalised accelerator.
        let name = entry
            .get("name")
            .and_then(|n| n.as_str())
            .map(breakpoint_model::accelerator::normalise);
        let mut info: GpuInfo =
            serde_json::from_value(entry).map_err(|e| format!("inventory: {e}"))?;
        info.accelerator = info.accelerator.or(name);
        inventory.push(info);
    }
    let mut ticks = Vec::new();
    for (i, t) in doc
        .get("ticks")
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut tick = Tick::default();
        for g in t
            .get("gpus")
            .and_then(|g| g.as_array())
            .into_iter()
            .flatten()
        {
            let answer = match g.get("error").and_then(|e| e.as_str()) {
                Some("lost") => Err(ReadError::Lost("GPU is lost".into())),
                Some("reset-required") => {
                    Err(ReadError::ResetRequired("the GPU needs a reset".into()))
                }
                Some("unreadable") => Err(ReadError::Unreadable("NVML answered no query".into())),
                Some(other) => Err(ReadError::Other(other.to_string())),
                None => {
                    let values = g
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter_map(|(k, v)| Some((Field::from_key(k)?, v.as_i64()?)))
                        .collect();
                    Ok(Reading { values })
                }
            };
            tick.answers.push(answer);
        }
        for e in t
            .get("events")
            .and_then(|e| e.as_array())
            .into_iter()
            .flatten()
        {
            let (Some(gpu), Some(code)) = (
                e.get("gpu").and_then(|g| g.as_u64()),
                e.get("xid").and_then(|x| x.as_i64()),
            ) else {
                return Err(format!("tick {i}: an event needs gpu and xid"));
            };
            tick.events.push(GpuEvent::Xid {
                gpu: gpu as u32,
                code,
            });
        }
        for p in t
            .get("pids")
            .and_then(|p| p.as_array())
            .into_iter()
            .flatten()
        {
            if let (Some(gpu), Some(pid)) = (
                p.get(0).and_then(|g| g.as_u64()),
                p.get(1).and_then(|x| x.as_u64()),
            ) {
                tick.pids.push((gpu as u32, pid as u32));
            }
        }
        ticks.push(tick);
    }
    if ticks.is_empty() {
        return Err("the trace has no ticks".into());
    }
    let mut source = ScriptedSource::new(inventory, ticks);
    if source.inventory.as_ref().is_ok_and(Vec::is_empty) {
        // A recorded machine whose driver listed no GPU: what the probe
        // says there, whatever machine replays it.
        source.inventory = Err(SourceError::NoGpus);
    }
    Ok(source)
}
