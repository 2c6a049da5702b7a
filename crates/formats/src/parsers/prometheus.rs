//! The DCGM paths, for fleets that already run DCGM and Prometheus:
//! dcgm-exporter's text exposition (one scrape or many appended), Prometheus
//! `query_range` JSON of `DCGM_FI_DEV_*` series, and `dcgmi dmon` text.
//! All three name fields the same way, so they share one field map.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde_json::Value;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{LineReader, read_document};
use super::super::timestamps::parse_epoch;
use super::super::values::{is_missing, parse_field};
use super::RoundClock;
use super::dcgm_fields::{Target, dcgm_field, dmon_tag, is_dcgm_blank};
use crate::domain::{Event, EventKind};
use crate::samples::{Field, Sample};

/// Samples under construction, keyed by time and GPU; XIDs tracked per GPU.
#[derive(Default)]
struct Collector {
    samples: BTreeMap<(i64, u32), Sample>,
    last_xid: BTreeMap<u32, i64>,
    hosts: Vec<String>,
}

impl Collector {
    fn put(
        &mut self,
        b: &mut RunBuilder<'_>,
        t_ms: i64,
        gpu: u32,
        target: Target,
        value: &str,
    ) -> Result<(), String> {
        if is_dcgm_blank(value) {
            return Ok(());
        }
        match target {
            Target::Scaled(field, factor, unit) => {
                if is_missing(value) {
                    return Ok(());
                }
                let base: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("\"{value}\" is not a number"))?;
                if let Some(v) = parse_field(field, &format!("{}", base * factor), Some(unit))? {
                    self.samples
                        .entry((t_ms, gpu))
                        .or_insert_with(|| Sample::new(t_ms, gpu))
                        .set(field, v);
                }
            }
            Target::Value(field, unit) => {
                let unit = (!unit.is_empty()).then_some(unit);
                // DCGM writes masks and counters as plain (float) numbers.
                let value = if field == Field::ThrottleMask || field.is_error_count() {
                    value
                        .trim()
                        .parse::<f64>()
                        .map(|v| format!("{}", v as u64))
                        .unwrap_or_else(|_| value.to_string())
                } else {
                    value.to_string()
                };
                if let Some(v) = parse_field(field, &value, unit)? {
                    self.samples
                        .entry((t_ms, gpu))
                        .or_insert_with(|| Sample::new(t_ms, gpu))
                        .set(field, v);
                }
            }
            Target::Xid => {
                if is_missing(value) {
                    return Ok(());
                }
                let code = value
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| format!("\"{value}\" is not an XID"))?
                    as i64;
                let previous = self.last_xid.insert(gpu, code).unwrap_or(0);
                if code != 0
                    && code != previous
                    && let Ok(at) = jiff::Timestamp::from_millisecond(t_ms)
                {
                    b.event(Event {
                        gpu: Some(gpu),
                        code: Some(code),
                        detail: Some(format!("XID {code} reported by DCGM")),
                        ..Event::new(at, EventKind::Xid)
                    });
                }
            }
        }
        Ok(())
    }

    fn flush(&mut self, b: &mut RunBuilder<'_>) -> ParseResult {
        for (_, s) in std::mem::take(&mut self.samples) {
            b.sample(&s)?;
        }
        Ok(())
    }

    fn note_host(&mut self, b: &mut RunBuilder<'_>, host: &str) {
        if !self.hosts.iter().any(|h| h == host) {
            if self.hosts.len() == 1 {
                b.warn(format!(
                    "the file holds several hosts ({}, {host} …); their GPUs are numbered in order of appearance",
                    self.hosts[0]
                ));
            }
            self.hosts.push(host.to_string());
            b.host.get_or_insert_with(|| host.to_string());
        }
    }
}

/// The GPU a labelled series belongs to.
fn gpu_of(b: &mut RunBuilder<'_>, labels: &BTreeMap<String, String>, hosts: usize) -> Option<u32> {
    let uuid = labels.get("UUID").or_else(|| labels.get("uuid"));
    let index = labels
        .get("gpu")
        .and_then(|g| g.parse::<u32>().ok())
        .or_else(|| {
            labels
                .get("device")
                .and_then(|d| d.strip_prefix("nvidia")?.parse().ok())
        });
    let gpu = match (index, uuid) {
        // With several hosts, indices repeat: the UUID tells GPUs apart.
        (Some(i), Some(u)) if hosts <= 1 => {
            b.alias(GpuKey::Uuid(u), i);
            b.gpu(GpuKey::Index(i))
        }
        (_, Some(u)) => b.gpu(GpuKey::Uuid(u)),
        (Some(i), None) => b.gpu(GpuKey::Index(i)),
        (None, None) => return None,
    };
    let info = b.inventory(gpu);
    if info.accelerator.is_none()
        && let Some(model) = labels.get("modelName")
    {
        info.accelerator = Some(crate::accelerator::normalise(model));
    }
    if info.uuid.is_none() {
        info.uuid = uuid.cloned();
    }
    if info.pci_bus_id.is_none() {
        info.pci_bus_id = labels.get("pci_bus_id").cloned();
    }
    if info.driver_version.is_none() {
        info.driver_version = labels.get("DCGM_FI_DRIVER_VERSION").cloned();
    }
    if info.host.is_none() {
        info.host = labels
            .get("Hostname")
            .or_else(|| labels.get("hostname"))
            .cloned();
    }
    Some(gpu)
}

/// One exposition line: `name{a="x",b="y"} value [timestamp]`.
struct Series<'a> {
    name: &'a str,
    labels: BTreeMap<String, String>,
    value: &'a str,
    timestamp: Option<&'a str>,
}

fn parse_series(line: &str) -> Result<Series<'_>, String> {
    let name_end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .ok_or("a series without a value")?;
    let name = &line[..name_end];
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(body) = rest.strip_prefix('{') {
        let mut chars = body.char_indices().peekable();
        let mut end = None;
        let mut key = String::new();
        let mut value = String::new();
        let mut state = 0; // 0 key, 1 after '=', 2 in value
        while let Some((i, c)) = chars.next() {
            match (state, c) {
                (0, '}') => {
                    end = Some(i);
                    break;
                }
                (0, ',') | (0, ' ') => {}
                (0, '=') => state = 1,
                (0, c) => key.push(c),
                (1, '"') => state = 2,
                (1, c) if c.is_whitespace() => {}
                (1, _) => return Err("a label value must be quoted".into()),
                (2, '\\') => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c)) => value.push(c),
                    None => return Err("the labels end inside an escape".into()),
                },
                (2, '"') => {
                    labels.insert(
                        std::mem::take(&mut key).trim().to_string(),
                        std::mem::take(&mut value),
                    );
                    state = 0;
                }
                (2, c) => value.push(c),
                _ => {}
            }
        }
        let end = end.ok_or("the label set is not closed with }")?;
        rest = &body[end + 1..];
    }
    let mut parts = rest.split_whitespace();
    let value = parts.next().ok_or("a series without a value")?;
    let timestamp = parts.next();
    Ok(Series {
        name,
        labels,
        value,
        timestamp,
    })
}

/// When each sample of an exposition-text log was taken: the line's own
/// timestamp, else the last `date` line a loop wrote (one interval on per
/// scrape without its own), else a clock counting scrapes from `--start`.
/// A scrape ends at a blank line, a `date` line, or a series seen twice.
struct ScrapeTimes {
    interval: Option<u32>,
    /// Where scrapes without times count from (told if none had one).
    dateless: super::Dateless,
    start: i64,
    clock: Option<RoundClock>,
    /// The series of the scrape being read.
    seen: Vec<(String, u32)>,
    dated: Option<i64>,
    /// Some sample had a time of its own (or from a date line).
    timed: bool,
}

impl ScrapeTimes {
    fn new(ctx: &ParseContext) -> Self {
        Self {
            interval: ctx.interval_ms,
            dateless: super::Dateless::of(ctx),
            start: super::Dateless::of(ctx).origin_ms(ctx),
            clock: None,
            seen: Vec::new(),
            dated: None,
            timed: false,
        }
    }

    /// A new scrape begins.
    fn next_scrape(&mut self) {
        self.seen.clear();
        if let Some(c) = self.clock.as_mut() {
            // A round of the clock per scrape: "GPU 0 seen again".
            c.time_for(0);
        }
    }

    /// A `date` line: the time of the scrape that follows.
    fn dated(&mut self, t: i64) {
        self.seen.clear();
        self.dated = Some(t);
    }

    /// The time of a sample without a timestamp of its own; whether it
    /// began a new scrape (the caller flushes the last one then).
    fn time_of(&mut self, name: &str, gpu: u32, b: &mut RunBuilder<'_>) -> (i64, bool) {
        let key = (name.to_string(), gpu);
        let new_scrape = self.seen.contains(&key);
        if new_scrape {
            self.next_scrape();
            // A scrape with no date line of its own: one interval on.
            if let Some(t) = self.dated.as_mut() {
                *t += i64::from(self.interval.unwrap_or(30_000));
            }
        }
        self.seen.push(key);
        if let Some(t) = self.dated {
            self.timed = true;
            return (t, new_scrape);
        }
        let (interval, start) = (self.interval, self.start);
        let clock = self.clock.get_or_insert_with(|| {
            let step = interval.unwrap_or(30_000);
            if interval.is_none() {
                b.interval_ms = b.interval_ms.or(Some(step));
            }
            let mut c = RoundClock::new(start, i64::from(step));
            c.time_for(0);
            c
        });
        (clock.current(), new_scrape)
    }

    /// What the import should say when no sample had a time.
    fn warn_if_untimed(&self, b: &mut RunBuilder<'_>) {
        if self.timed {
            return;
        }
        self.dateless.tell(b, "the scrapes");
        if self.interval.is_none() {
            b.warn("the scrapes carry no time; assuming 30 s between them, dcgm-exporter's default (give --interval)");
        }
    }
}

pub fn parse_text<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut collector = Collector::default();
    let mut times = ScrapeTimes::new(ctx);
    let mut saw_data = false;
    let mut any = false;
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim();
        // A blank line or a `date` line (`while :; do date; curl …/metrics;
        // …`) ends a scrape.
        let date = (!text.is_empty() && !text.starts_with('#'))
            .then(|| ctx.times.parse_date_line(text))
            .flatten();
        if text.is_empty() || date.is_some() {
            if saw_data {
                times.next_scrape();
                collector.flush(b)?;
                saw_data = false;
            }
            if let Some(t) = date {
                times.dated(t);
            }
            continue;
        }
        if text.starts_with('#') {
            continue;
        }
        let Series {
            name,
            labels,
            value,
            timestamp,
        } = match parse_series(text) {
            Ok(series) => series,
            Err(reason) => {
                b.bad_line(&line, LineError::new(line.number, None, reason))?;
                continue;
            }
        };
        let Some(target) = dcgm_field(name) else {
            continue;
        };
        if let Some(host) = labels.get("Hostname").or_else(|| labels.get("hostname")) {
            collector.note_host(b, host);
        }
        let Some(gpu) = gpu_of(b, &labels, collector.hosts.len()) else {
            continue;
        };
        let t_ms = match timestamp {
            Some(ts) => {
                times.timed = true;
                match ts.parse::<i64>() {
                    Ok(ms) => ms,
                    Err(_) => {
                        b.bad_line(
                            &line,
                            LineError::new(
                                line.number,
                                None,
                                format!("\"{ts}\" is not a timestamp in milliseconds"),
                            ),
                        )?;
                        continue;
                    }
                }
            }
            None => {
                let (t, new_scrape) = times.time_of(name, gpu, b);
                if new_scrape {
                    collector.flush(b)?;
                }
                t
            }
        };
        if let Err(reason) = collector.put(b, t_ms, gpu, target, value) {
            b.bad_line(
                &line,
                LineError::new(line.number, None, format!("{reason} for {name}")),
            )?;
            continue;
        }
        saw_data = true;
        any = true;
    }
    collector.flush(b)?;
    if !any {
        return Err(ParseFailure::Whole("no DCGM_FI_DEV_* series found".into()));
    }
    times.warn_if_untimed(b);
    Ok(())
}

/// The largest `query_range` answer read: what a pull asks for a node is a
/// few megabytes; past this a file is no answer of one.
const RANGE_LIMIT: u64 = 256 << 20;

pub fn parse_range<R: BufRead>(
    mut input: R,
    _ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let raw = read_document(&mut input, RANGE_LIMIT, "the query_range answer")?;
    let doc: Value = serde_json::from_str(&raw).map_err(|e| {
        ParseFailure::Line(LineError::new(
            e.line() as u64,
            Some(e.column()),
            format!("not valid JSON: {e}"),
        ))
    })?;
    if doc.get("status").and_then(Value::as_str) == Some("error") {
        return Err(ParseFailure::Whole(format!(
            "Prometheus answered with an error: {}: {}",
            doc.get("errorType")
                .and_then(Value::as_str)
                .unwrap_or("error"),
            doc.get("error")
                .and_then(Value::as_str)
                .unwrap_or("no message")
        )));
    }
    let results = doc
        .pointer("/data/result")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            ParseFailure::Whole("no data.result list in the Prometheus response".into())
        })?;
    let mut collector = Collector::default();
    let mut any = false;
    // Points Prometheus wrote as NaN (no reading at that step): left out,
    // and said.
    let mut no_reading = 0u64;
    for (series_at, series) in results.iter().enumerate() {
        let labels: BTreeMap<String, String> = series
            .get("metric")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let Some(target) = labels.get("__name__").and_then(|n| dcgm_field(n)) else {
            continue;
        };
        if let Some(host) = labels.get("Hostname").or_else(|| labels.get("instance")) {
            collector.note_host(b, host);
        }
        let Some(gpu) = gpu_of(b, &labels, collector.hosts.len()) else {
            continue;
        };
        let points: Vec<&Value> = match (series.get("values"), series.get("value")) {
            (Some(Value::Array(v)), _) => v.iter().collect(),
            (_, Some(v)) => vec![v],
            _ => Vec::new(),
        };
        let name = labels.get("__name__").map_or("", |s| s);
        for (point_at, point) in points.into_iter().enumerate() {
            let at = || format!("series {} ({name}), point {}", series_at + 1, point_at + 1);
            let (Some(ts), Some(value)) = (point.get(0), point.get(1)) else {
                return Err(ParseFailure::Whole(format!(
                    "{}: a point is not [timestamp, \"value\"]",
                    at()
                )));
            };
            let t_ms = ts
                .as_f64()
                .and_then(|t| parse_epoch(&t.to_string()))
                .ok_or_else(|| ParseFailure::Whole(format!("{ts} is not a timestamp")))?;
            let value = value
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| value.to_string());
            if value.trim().eq_ignore_ascii_case("nan") {
                no_reading += 1;
                continue;
            }
            if value.trim().parse::<f64>().is_ok_and(|v| v.is_infinite()) {
                return Err(ParseFailure::Whole(format!(
                    "{}: {} is not a finite number",
                    at(),
                    crate::text::printable_excerpt(value.trim(), 40)
                )));
            }
            collector
                .put(b, t_ms, gpu, target, &value)
                .map_err(|reason| ParseFailure::Whole(format!("{}: {reason}", at())))?;
            any = true;
        }
    }
    if no_reading > 0 {
        b.warn(format!(
            "{no_reading} point(s) were NaN (no reading at that step) and are left out"
        ));
    }
    collector.flush(b)?;
    if !any && no_reading > 0 {
        return Err(ParseFailure::Empty(format!(
            "every one of its {no_reading} points is NaN: no reading to store"
        )));
    }
    if !any {
        return Err(ParseFailure::Empty(
            "the response holds no DCGM_FI_DEV_* or nvidia_smi_* series".into(),
        ));
    }
    Ok(())
}

pub fn parse_dcgmi_dmon<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut columns: Option<Vec<Option<Target>>> = None;
    let mut clock: Option<RoundClock> = None;
    let mut any = false;
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(rest) = text.strip_prefix('#') {
            let mut words = rest.split_whitespace();
            if words
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("entity"))
            {
                columns = Some(words.map(dmon_tag).collect());
            }
            continue;
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        // The units/"ID" line under the header, and anything that is not a GPU row.
        if words.first().is_none_or(|w| !w.eq_ignore_ascii_case("GPU")) {
            continue;
        }
        let Some(cols) = columns.as_ref() else {
            return Err(
                LineError::new(line.number, None, "a GPU row before the #Entity header").into(),
            );
        };
        let Some(index) = words.get(1).and_then(|w| w.parse::<u32>().ok()) else {
            b.bad_line(
                &line,
                LineError::new(line.number, Some(2), "the GPU id is not a number"),
            )?;
            continue;
        };
        let values = &words[2..];
        if values.len() != cols.len() {
            let error = LineError::new(
                line.number,
                None,
                format!(
                    "the row has {} values but the header names {}",
                    values.len(),
                    cols.len()
                ),
            );
            b.bad_line(&line, error)?;
            continue;
        }
        let gpu = b.gpu(GpuKey::Index(index));
        let c = clock.get_or_insert_with(|| {
            let step = ctx.interval_ms.unwrap_or(1000);
            b.interval_ms = b.interval_ms.or(Some(step));
            let origin = super::dateless_origin_ms(
                ctx,
                b,
                "dcgmi dmon rows carry no time (read at the interval) and",
            );
            RoundClock::new(origin, i64::from(step))
        });
        let t_ms = c.time_for(gpu);
        let mut collector = Collector::default();
        for (i, (target, value)) in cols.iter().zip(values).enumerate() {
            if let Some(target) = target
                && let Err(reason) = collector.put(b, t_ms, gpu, *target, value)
            {
                b.bad_line(&line, LineError::new(line.number, Some(i + 3), reason))?;
            }
        }
        collector.flush(b)?;
        any = true;
    }
    if !any {
        return Err(ParseFailure::Whole(
            "no GPU rows under a #Entity header".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_lines_split_into_name_labels_value_and_time() {
        let s = parse_series(
            r#"DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",modelName="NVIDIA A100-SXM4-80GB",x="a\"b"} 266.172000"#,
        )
        .unwrap();
        assert_eq!(s.name, "DCGM_FI_DEV_POWER_USAGE");
        assert_eq!(s.labels["gpu"], "0");
        assert_eq!(s.labels["x"], "a\"b");
        assert_eq!((s.value, s.timestamp), ("266.172000", None));
        let s = parse_series("DCGM_FI_DEV_GPU_UTIL 99 1717200000000").unwrap();
        assert!(s.labels.is_empty());
        assert_eq!((s.value, s.timestamp), ("99", Some("1717200000000")));
        assert!(parse_series("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 99").is_err());
    }
}
