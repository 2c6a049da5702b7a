//! SkyPilot's timeline (`SKYPILOT_TIMELINE_FILE_PATH=… sky launch …`): Chrome
//! trace events, each a begin (`"ph": "B"`) and an end (`"E"`) of a function
//! SkyPilot marks, `ts` in microseconds (a string with a leading space, as
//! it writes them, or a number). A `sky launch` is the span of
//! `sky.execution.launch`; within it the cluster is provisioned
//! (`Backend.provision`), set up (`Backend.setup`, after the workdir and file
//! mounts are synced) and the job handed over (`Backend.execute`). Older
//! releases marked `CloudVmRayBackend._provision`, `_setup` and `_execute`
//! instead; both are read. A launch that ended before its job was handed
//! over failed to start.

use std::collections::HashMap;
use std::io::BufRead;

use jiff::Timestamp;
use serde::Deserialize;

use super::super::super::ParseContext;
use super::super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use super::{Launch, store_launches};

const LIMIT: u64 = 64 << 20;

const LAUNCH: &[&str] = &["sky.execution.launch"];
const PROVISION: &[&str] = &[
    "sky.backends.backend.Backend.provision",
    "sky.backends.cloud_vm_ray_backend.CloudVmRayBackend._provision",
    "sky.backends.cloud_vm_ray_backend.RetryingVmProvisioner.provision_with_retries",
];
const SETUP: &[&str] = &[
    "sky.backends.backend.Backend.setup",
    "sky.backends.cloud_vm_ray_backend.CloudVmRayBackend._setup",
];
const EXECUTE: &[&str] = &[
    "sky.backends.backend.Backend.execute",
    "sky.backends.cloud_vm_ray_backend.CloudVmRayBackend._execute",
];

#[derive(Deserialize)]
struct Trace {
    #[serde(rename = "traceEvents")]
    events: Vec<TraceEvent>,
}

#[derive(Deserialize)]
struct TraceEvent {
    name: String,
    ph: String,
    ts: serde_json::Value,
    #[serde(default)]
    pid: serde_json::Value,
    #[serde(default)]
    tid: serde_json::Value,
}

/// Whether `text` is a SkyPilot timeline (for detection).
pub fn is_sky_timeline(text: &str) -> bool {
    text.contains("\"traceEvents\"") && text.contains("\"sky.")
}

/// A span of one marked function: its begin and, where it ended, its end.
#[derive(Debug, Clone, Copy)]
struct Span {
    begin: Timestamp,
    end: Option<Timestamp>,
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let trace: Trace = super::super::read_json(input, LIMIT, "the SkyPilot timeline")?;
    let mut spans: HashMap<&str, Vec<Span>> = HashMap::new();
    let mut open: HashMap<(String, String, &str), Vec<usize>> = HashMap::new();
    for (i, e) in trace.events.iter().enumerate() {
        let ts = micros(&e.ts).ok_or_else(|| {
            ParseFailure::Whole(format!(
                "traceEvents[{i}] ({}): ts {} is not microseconds since 1970",
                crate::text::printable_excerpt(&e.name, 80),
                e.ts
            ))
        })?;
        let thread = (e.pid.to_string(), e.tid.to_string(), e.name.as_str());
        match e.ph.as_str() {
            "B" => {
                let list = spans.entry(e.name.as_str()).or_default();
                list.push(Span {
                    begin: ts,
                    end: None,
                });
                open.entry(thread).or_default().push(list.len() - 1);
            }
            "E" => {
                if let Some(at) = open.get_mut(&thread).and_then(Vec::pop)
                    && let Some(span) = spans.get_mut(e.name.as_str()).and_then(|l| l.get_mut(at))
                {
                    span.end = Some(ts);
                }
            }
            // Complete events ("X", with a duration) and marks are not
            // what SkyPilot writes; left alone.
            _ => {}
        }
    }
    let of = |names: &[&str]| -> Vec<Span> {
        let mut v: Vec<Span> = names
            .iter()
            .flat_map(|n| spans.get(n).cloned().unwrap_or_default())
            .collect();
        v.sort_by_key(|s| s.begin);
        v
    };
    let (launches, provisions, setups, executes) =
        (of(LAUNCH), of(PROVISION), of(SETUP), of(EXECUTE));
    if launches.is_empty() && provisions.is_empty() {
        return Err(ParseFailure::Whole(
            "the timeline holds no launch (no sky.execution.launch or Backend.provision span): \
             record it with SKYPILOT_TIMELINE_FILE_PATH set while `sky launch` runs"
                .into(),
        ));
    }
    // Without the launch's own span (a timeline of `sky exec`, or an old
    // release), each provisioning stands for a launch.
    let windows: Vec<Span> = if launches.is_empty() {
        provisions.clone()
    } else {
        launches
    };
    let within = |list: &[Span], w: &Span| -> Option<Span> {
        list.iter()
            .find(|s| s.begin >= w.begin && w.end.is_none_or(|end| s.begin <= end))
            .copied()
    };
    let records: Vec<Launch> = windows
        .iter()
        .map(|w| {
            let provision = within(&provisions, w);
            let setup = within(&setups, w);
            let execute = within(&executes, w);
            let running = execute.map(|s| s.begin);
            Launch {
                submitted: Some(w.begin),
                provisioned: provision.and_then(|s| s.end),
                ready: setup.and_then(|s| s.end),
                running,
                failed: (running.is_none() && w.end.is_some())
                    .then(|| "the launch ended before its job was handed over".to_string()),
            }
        })
        .collect();
    store_launches(
        b,
        &records,
        ["provision", "setup", "execute"],
        "SkyPilot timeline",
    );
    Ok(())
}

/// `ts` as SkyPilot writes it (`" 1697580000123456.789"`) or as a number.
fn micros(ts: &serde_json::Value) -> Option<Timestamp> {
    let us = match ts {
        serde_json::Value::Number(n) => n.as_f64()?,
        serde_json::Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    if !us.is_finite() || us < 0.0 {
        return None;
    }
    Timestamp::from_microsecond(us.round() as i64).ok()
}
