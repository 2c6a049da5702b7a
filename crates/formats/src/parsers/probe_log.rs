//! Breakpoint's own probe log (JSON Lines), version 1 — see docs/formats.md.
//!
//! ```text
//! {"format":"breakpoint-probe","version":1,"host":…,"started_at":…,"interval_ms":…,"gpus":[…],…}
//! {"t":1717200000000,"gpu":0,"power_mw":250123,"temp_gpu_c":65,…}        a sample
//! {"t":1717200000000,"event":"xid","gpu":0,"code":79,"detail":"…"}       an event
//! {"t":1717200000000,"startup":{…}}                                     a startup attempt
//! ```
//!
//! Samples carry the store's integer fields under their keys, so the round
//! trip is lossless. The header is written once, first, and never rewritten:
//! a log cut off by kill -9 is valid up to its last whole line.

use std::io::BufRead;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::super::ParseContext;
use super::super::blocks::{self, ReadsAhead};
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::Line;
use crate::domain::{EventKind, GpuInfo, StartupAttempt};
use crate::samples::{FIELD_COUNT, Field, Sample};

pub const PROBE_FORMAT: &str = "breakpoint-probe";
pub const PROBE_VERSION: u32 = 1;

/// The first line of a probe log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeHeader {
    pub format: String,
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u32>,
    #[serde(default)]
    pub gpus: Vec<GpuInfo>,
    /// Platform and offering, where the user named them when probing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offering: Option<String>,
    /// Per GPU index, the sample fields it can report (what it cannot is
    /// absent from every sample, never 0).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub capabilities: std::collections::BTreeMap<u32, Vec<String>>,
    /// The program that wrote the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProbeRecord {
    Event {
        t: i64,
        event: EventKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gpu: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        /// The GPU's UUID: NVML numbers GPUs anew after one goes missing, so
        /// the index alone may name another board in another log.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        uuid: Option<String>,
    },
    Startup {
        t: i64,
        startup: StartupAttempt,
    },
    /// Facts about a wrapped workload or the end of sampling, kept in the
    /// run's metadata under their keys.
    Summary {
        t: i64,
        summary: serde_json::Map<String, serde_json::Value>,
    },
    Sample(SampleRecord),
}

/// A sample as a JSON object: `t`, `gpu` and any field keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub t: i64,
    pub gpu: u32,
    #[serde(flatten)]
    pub fields: std::collections::BTreeMap<String, i64>,
}

impl From<&Sample> for SampleRecord {
    fn from(s: &Sample) -> Self {
        SampleRecord {
            t: s.t_ms,
            gpu: s.gpu,
            fields: s
                .fields()
                .filter_map(|f| Some((f.key().to_string(), s.get(f)?)))
                .collect(),
        }
    }
}

/// Keys of a sample line, decoded without a map for speed.
#[derive(Deserialize)]
struct FastSample {
    t: i64,
    gpu: u32,
    power_mw: Option<i64>,
    energy_mj: Option<i64>,
    temp_gpu_c: Option<i64>,
    temp_mem_c: Option<i64>,
    sm_clock_mhz: Option<i64>,
    mem_clock_mhz: Option<i64>,
    util_gpu_pct: Option<i64>,
    util_mem_pct: Option<i64>,
    mem_used_mib: Option<i64>,
    mem_total_mib: Option<i64>,
    throttle_mask: Option<i64>,
    pcie_tx_kbps: Option<i64>,
    pcie_rx_kbps: Option<i64>,
    fan_pct: Option<i64>,
    pstate: Option<i64>,
    power_limit_mw: Option<i64>,
    util_enc_pct: Option<i64>,
    util_dec_pct: Option<i64>,
    power_violation_us: Option<i64>,
    thermal_violation_us: Option<i64>,
    pcie_replays: Option<i64>,
    ecc_sbe_volatile: Option<i64>,
    ecc_dbe_volatile: Option<i64>,
    ecc_sbe_aggregate: Option<i64>,
    ecc_dbe_aggregate: Option<i64>,
    nvlink_crc_errors: Option<i64>,
    nvlink_replays: Option<i64>,
    nvlink_recoveries: Option<i64>,
}

impl FastSample {
    fn into_sample(self) -> Sample {
        let values: [Option<i64>; FIELD_COUNT] = [
            self.power_mw,
            self.energy_mj,
            self.temp_gpu_c,
            self.temp_mem_c,
            self.sm_clock_mhz,
            self.mem_clock_mhz,
            self.util_gpu_pct,
            self.util_mem_pct,
            self.mem_used_mib,
            self.mem_total_mib,
            self.throttle_mask,
            self.pcie_tx_kbps,
            self.pcie_rx_kbps,
            self.fan_pct,
            self.pstate,
            self.power_limit_mw,
            self.util_enc_pct,
            self.util_dec_pct,
            self.power_violation_us,
            self.thermal_violation_us,
            self.pcie_replays,
            self.ecc_sbe_volatile,
            self.ecc_dbe_volatile,
            self.ecc_sbe_aggregate,
            self.ecc_dbe_aggregate,
            self.nvlink_crc_errors,
            self.nvlink_replays,
            self.nvlink_recoveries,
        ];
        let mut s = Sample::new(self.t, self.gpu);
        for (field, value) in Field::ALL.into_iter().zip(values) {
            if let Some(v) = value {
                s.set(field, v);
            }
        }
        s
    }
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    parse_in(input, ctx, b, Some(blocks::BLOCK_BYTES))
}

/// Read the log; after its header, in blocks of about `block_bytes` on
/// every core, or line by line (`None`, the reference the blocks are held
/// to in tests).
fn parse_in<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    block_bytes: Option<usize>,
) -> ParseResult {
    let mut reading = Reading { header: None };
    blocks::read_lines(input, &mut reading, ctx, b, block_bytes)?;
    if reading.header.is_none() {
        return Err(ParseFailure::Whole(
            "the probe log has no header line".into(),
        ));
    }
    Ok(())
}

/// Where the reading stands: the header, once read.
struct Reading {
    header: Option<ProbeHeader>,
}

/// A sample line in the probe's own fixed shape, read without the general
/// record; anything else is `None`, for the general reading.
fn fast_sample(text: &str) -> Option<Sample> {
    // The scan takes only lines with a "gpu" key and no "event" one, as
    // the gate below does.
    if let Some(sample) = scan_sample(text) {
        return Some(sample);
    }
    if text.contains("\"gpu\"") && !text.contains("\"event\"") {
        return serde_json::from_str::<FastSample>(text)
            .ok()
            .map(FastSample::into_sample);
    }
    None
}

/// A sample line as the probe writes it — `{"t": …, "gpu": …, "power_mw":
/// …}`, integers or `null` — read by one scan of its bytes (serde's reading
/// of each line was most of a probe log's import). `None` for anything
/// else, and for whatever serde might read differently: escapes, fractions,
/// leading zeros, a key given twice, an unknown key whose value is not a
/// plain number; `FastSample` then decides, as before.
fn scan_sample(text: &str) -> Option<Sample> {
    const T: u32 = 1 << 30;
    const GPU: u32 = 1 << 31;
    let b = text.as_bytes();
    let mut at = json_space(b, 0);
    if b.get(at) != Some(&b'{') {
        return None;
    }
    at = json_space(b, at + 1);
    let (mut seen, mut t, mut gpu) = (0u32, 0i64, 0u32);
    let mut sample = Sample::new(0, 0);
    loop {
        // A key, without escapes.
        if b.get(at) != Some(&b'"') {
            return None;
        }
        let len = memchr::memchr(b'"', &b[at + 1..])?;
        let key = text.get(at + 1..at + 1 + len)?;
        if key.contains('\\') {
            return None;
        }
        at = json_space(b, at + len + 2);
        if b.get(at) != Some(&b':') {
            return None;
        }
        at = json_space(b, at + 1);
        let value = if b[at..].starts_with(b"null") {
            at += 4;
            None
        } else {
            let (v, end) = json_integer(b, at)?;
            at = end;
            Some(v)
        };
        let bit = match key {
            "t" => {
                t = value?;
                T
            }
            "gpu" => {
                gpu = u32::try_from(value?).ok()?;
                GPU
            }
            "event" => return None,
            key => match Field::from_key(key) {
                Some(field) => {
                    if let Some(v) = value {
                        sample.set(field, v);
                    }
                    1 << field.id()
                }
                None => 0,
            },
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        at = json_space(b, at);
        match b.get(at) {
            Some(b',') => at = json_space(b, at + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    if json_space(b, at + 1) != b.len() || seen & (T | GPU) != T | GPU {
        return None;
    }
    sample.t_ms = t;
    sample.gpu = gpu;
    Some(sample)
}

fn json_space(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// A JSON integer that fits an `i64` at `b[at..]`, and where it ends;
/// `None` for a fraction, an exponent, a leading zero or anything else.
fn json_integer(b: &[u8], at: usize) -> Option<(i64, usize)> {
    let negative = b.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let mut end = start;
    // Eighteen digits cannot overflow; more are read with care below.
    let mut v = 0u64;
    while let Some(d) = b.get(end).map(|c| c.wrapping_sub(b'0')).filter(|d| *d < 10) {
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        end += 1;
    }
    let digits = end - start;
    // serde_json reads "-0" as a float, which no integer field takes.
    if digits == 0
        || (digits > 1 && b[start] == b'0')
        || (negative && digits == 1 && b[start] == b'0')
        || matches!(b.get(end), Some(b'.' | b'e' | b'E'))
    {
        return None;
    }
    if digits <= 18 {
        let v = v as i64;
        return Some((if negative { -v } else { v }, end));
    }
    let mut v: i64 = 0;
    for &d in &b[start..end] {
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if negative {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some((v, end))
}

/// After the header, a line's reading needs nothing from the lines before
/// it: a sample is read ahead, anything else in order.
impl ReadsAhead for Reading {
    type Plan = ();
    type Worker = ();
    type Ahead = Option<Sample>;

    fn ready(&self) -> bool {
        self.header.is_some()
    }

    fn plan(&self) -> ParseResult<()> {
        Ok(())
    }

    fn worker(&self, _ctx: &ParseContext) {}

    fn read_ahead(_plan: &(), _worker: &mut (), line: &Line<'_>, ahead: &mut Option<Sample>) {
        *ahead = fast_sample(line.text);
    }

    fn finish(
        &mut self,
        _plan: &(),
        line: &Line<'_>,
        ahead: &mut Option<Sample>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        match ahead.take() {
            Some(sample) => b.sample(&sample),
            None => self.line(line, ctx, b),
        }
    }

    fn line(
        &mut self,
        line: &Line<'_>,
        _ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        if line.text.trim().is_empty() {
            return Ok(());
        }
        if self.header.is_none() {
            let h: ProbeHeader = serde_json::from_str(line.text).map_err(|e| {
                LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a probe log header: {e}"),
                )
            })?;
            if h.format != PROBE_FORMAT {
                return Err(ParseFailure::Whole(format!(
                    "the first line names format \"{}\", not \"{PROBE_FORMAT}\"",
                    h.format
                )));
            }
            if h.version > PROBE_VERSION {
                return Err(ParseFailure::Whole(format!(
                    "probe log version {} is newer than this build reads ({PROBE_VERSION}); upgrade Breakpoint",
                    h.version
                )));
            }
            b.host = h.host.clone();
            b.interval_ms = b.interval_ms.or(h.interval_ms);
            for gpu in &h.gpus {
                *b.inventory(gpu.index) = gpu.clone();
            }
            if let Some(started) = h.started_at {
                b.saw_time(started.as_millisecond());
            }
            for (key, value) in [
                ("platform", &h.platform),
                ("offering", &h.offering),
                ("tool", &h.tool),
            ] {
                if let Some(v) = value {
                    b.metadata
                        .insert(format!("probe_{key}"), serde_json::json!(v));
                }
            }
            if !h.capabilities.is_empty() {
                b.metadata
                    .insert("capabilities".into(), serde_json::json!(h.capabilities));
            }
            self.header = Some(h);
            return Ok(());
        }
        // Samples are the bulk: try the fixed shape first.
        if let Some(sample) = fast_sample(line.text) {
            return b.sample(&sample);
        }
        match serde_json::from_str::<ProbeRecord>(line.text) {
            Ok(ProbeRecord::Sample(record)) => {
                let mut s = Sample::new(record.t, record.gpu);
                for (key, value) in record.fields {
                    if let Some(field) = Field::from_key(&key) {
                        s.set(field, value);
                    }
                }
                b.sample(&s)?;
            }
            Ok(ProbeRecord::Event {
                t,
                event,
                gpu,
                code,
                duration_ms,
                detail,
                uuid,
            }) => {
                // The UUID, where the inventory knows it, says which GPU.
                let gpu = uuid
                    .as_deref()
                    .and_then(|u| b.known_gpu(GpuKey::Uuid(u)))
                    .or(gpu);
                let Ok(at) = Timestamp::from_millisecond(t) else {
                    b.bad_line(
                        line,
                        LineError::new(line.number, None, format!("{t} is not a time")),
                    )?;
                    return Ok(());
                };
                b.event(crate::domain::Event {
                    at,
                    gpu,
                    kind: event,
                    code,
                    duration_ms,
                    detail,
                });
            }
            Ok(ProbeRecord::Startup { startup, .. }) => {
                b.saw_time(startup.submitted_at.as_millisecond());
                b.startup_attempts.push(startup);
            }
            Ok(ProbeRecord::Summary { summary, .. }) => {
                for (k, v) in summary {
                    b.metadata.insert(k, v);
                }
            }
            Err(e) => {
                let error = LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a probe log record: {e}"),
                );
                b.bad_line(line, error)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PARSE: blocks::testing::Parse = |i, c, b, s| parse_in(i, c, b, s);

    fn parsed(input: &[u8], block_bytes: Option<usize>, skip_bad_lines: bool) -> String {
        blocks::testing::parsed(PARSE, input, block_bytes, skip_bad_lines)
    }

    const HEADER: &str = r#"{"format": "breakpoint-probe", "version": 1, "host": "h", "interval_ms": 1000, "gpus": [{"index": 0, "uuid": "GPU-a"}]}"#;

    /// Lines of every kind a probe log holds, for files made of them.
    const LINES: &[&str] = &[
        r#"{"t": 1717200000000, "gpu": 0, "power_mw": 250000, "temp_gpu_c": 71, "util_gpu_pct": 97}"#,
        r#"{"t": 1717200000001, "gpu": 1, "power_mw": 251000, "sm_clock_mhz": 1410, "throttle_mask": 4}"#,
        r#"{"t": 1717200001000, "gpu": 0, "power_mw": 240000, "fan_pct": 40, "made_up_field": 3}"#,
        r#"{"t": 1717200002000, "gpu": 0, "event": "gpu-lost", "detail": "fell off the bus"}"#,
        r#"{"t": 1717200003000, "event": "xid", "gpu": 1, "code": 79}"#,
        r#"{"t": 1717200003000, "uuid": "GPU-a", "event": "recovered"}"#,
        r#"{"t": 1717200004000, "summary": {"exit_code": 0, "wall_s": 10.0}}"#,
        r#"{"t": 1717200000000, "startup": {"scenario": "baseline", "image": "warm", "submitted_at": "2024-06-01T00:00:00Z", "provisioned_at": null, "image_ready_at": null, "first_compute_at": "2024-06-01T00:00:03Z", "outcome": "ok"}}"#,
        r#"{"t": 1717200005000, "gpu": 0, "power_mw": "lots"}"#,
        r#"{"t": 1717200005000, "gpu": 0, "power_mw": 2500"#,
        r#"not json at all"#,
        "{\"t\": 1717200006000, \"gpu\": 1, \"power_mw\": 1}\r",
        "",
        "   ",
    ];

    fn file(picks: &[usize], last_cut: bool) -> Vec<u8> {
        blocks::testing::file_of(&[HEADER], LINES, picks, last_cut)
    }

    #[test]
    fn every_fixture_and_line_reads_the_same_in_blocks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/logs/probe");
        let all: Vec<usize> = (0..LINES.len()).chain(0..LINES.len()).collect();
        let mut inputs = vec![file(&all, true)];
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                inputs.push(std::fs::read(path).unwrap());
            }
        }
        assert!(inputs.len() >= 3);
        for input in &inputs {
            blocks::testing::assert_blocks_read_like_lines(PARSE, input, &[1, 2, 64, 300, 1 << 20]);
        }
        // A line that is not UTF-8 stops the import where it is, however read.
        let mut input = file(&all, false);
        input.extend_from_slice(b"{\"t\": 1717200009000, \"gpu\": 0, \"power_mw\": \xff1}\n");
        input.extend_from_slice(LINES[0].as_bytes());
        blocks::testing::assert_not_utf8_stops_alike(PARSE, &input);
    }

    #[test]
    fn the_probes_own_sample_lines_are_scanned() {
        let line = r#"{"t": 1717200000000, "gpu": 3, "power_mw": 240123, "temp_gpu_c": 71, "util_gpu_pct": 97, "util_mem_pct": 48, "mem_used_mib": 61227, "sm_clock_mhz": 1410, "mem_clock_mhz": 1593, "throttle_mask": 0}"#;
        let sample = scan_sample(line).unwrap();
        assert_eq!((sample.t_ms, sample.gpu), (1_717_200_000_000, 3));
        assert_eq!(sample.get(Field::PowerMw), Some(240_123));
        assert_eq!(sample.get(Field::ThrottleMask), Some(0));
        assert_eq!(
            Some(sample),
            serde_json::from_str::<FastSample>(line)
                .ok()
                .map(FastSample::into_sample)
        );
        for not_scanned in [
            r#"{"t": 1, "gpu": 0, "power_mw": 1.5}"#,
            r#"{"t": 1, "gpu": 0, "power_mw": 007}"#,
            r#"{"t": 1, "gpu": 0, "power\u005fmw": 7}"#,
            r#"{"t": 1, "gpu": 0, "power_mw": 7, "power_mw": 8}"#,
            r#"{"t": 1, "gpu": 0, "note": "x"}"#,
            r#"{"t": 1, "gpu": -1}"#,
            r#"{"gpu": 0, "power_mw": 7}"#,
            r#"{"t": 1, "gpu": 0} x"#,
        ] {
            assert_eq!(scan_sample(not_scanned), None, "{not_scanned}");
        }
    }

    fn key() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "t",
            "gpu",
            "power_mw",
            "temp_gpu_c",
            "fan_pct",
            "pstate",
            "made_up",
            "power\\u005fmw",
            "T",
            "",
            "event",
        ])
    }

    fn value() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "0",
            "-0",
            "12",
            "-5",
            "007",
            "1.5",
            "1e3",
            "2E2",
            "null",
            "nul",
            "\"x\"",
            "true",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "4294967295",
            "4294967296",
            "-",
            "{}",
            "[1]",
        ])
    }

    proptest! {
        /// Whatever the scan reads, serde reads the same; where serde
        /// refuses a line, the scan does too.
        #[test]
        fn the_scan_reads_what_serde_reads(
            pairs in proptest::collection::vec((key(), value(), 0usize..3), 0..8),
            close in prop::sample::select(vec!["}", " } ", "}x", "", ",}"]),
        ) {
            let spaces = ["", " ", " \t "];
            let body: Vec<String> = pairs
                .iter()
                .map(|(k, v, s)| format!("\"{k}\"{}:{}{v}", spaces[*s], spaces[*s]))
                .collect();
            let line = format!("{{{}{close}", body.join(","));
            let serde = serde_json::from_str::<FastSample>(&line).ok().map(FastSample::into_sample);
            if let Some(scanned) = scan_sample(&line) {
                prop_assert_eq!(Some(scanned), serde, "{}", line);
                // And only where the general reading's gate would let
                // the line through to serde.
                prop_assert!(line.contains("\"gpu\"") && !line.contains("\"event\""));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any mix of samples, events, records and bad lines reads the same
        /// in blocks of any size as line by line.
        #[test]
        fn any_log_reads_the_same_in_blocks(
            picks in proptest::collection::vec(0..LINES.len(), 0..40),
            last_cut: bool,
            skip: bool,
            size in 1usize..400,
        ) {
            let input = file(&picks, last_cut);
            prop_assert_eq!(parsed(&input, Some(size), skip), parsed(&input, None, skip));
        }
    }
}
