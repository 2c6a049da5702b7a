//! The documented tables (docs/formats.md): startup attempts, switch
//! attempts, fault drills, billing lines and billing event streams, as CSV
//! with a header or as a JSON array of objects with the same keys.

use std::collections::HashMap;
use std::io::BufRead;

use jiff::Timestamp;

use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{LineReader, read_document};
use super::super::timestamps::TimeError;
use super::super::values::is_missing;
use super::super::{Format, ParseContext};
use super::split_cells;
use crate::domain::money::{self, Decimal};
use crate::domain::{BillingLine, Event, EventKind, FaultDrill, StartupAttempt, SwitchAttempt};

/// Columns each table needs, then those it may have.
/// 2000-01-01T00:00:00Z: no table of attempts, drills or bills is older; an
/// earlier time is a zero or a missing one (1970) read as a date.
const EARLIEST_MS: i64 = 946_684_800_000;

fn columns(format: Format) -> (&'static [&'static str], &'static [&'static str]) {
    match format {
        Format::StartupTable => (
            &["scenario", "image", "submitted_at", "outcome"],
            &["provisioned_at", "image_ready_at", "first_compute_at"],
        ),
        Format::SwitchTable => (
            &[
                "from_env",
                "to_env",
                "success",
                "manual_steps",
                "duration_s",
            ],
            &["rel_l2_error", "ops_passed", "ops_total"],
        ),
        Format::DrillTable => (
            &["fault", "detected", "recovered"],
            &["recovery_s", "progress_lost_s"],
        ),
        Format::BillingTable => (
            &[
                "instance",
                "start",
                "end",
                "billed_seconds",
                "amount",
                "currency",
                "unit_price",
            ],
            &[
                "compute_seconds",
                "queue_seconds",
                "io_wait_seconds",
                "line_id",
                "host",
                "product",
            ],
        ),
        _ => (&["timestamp", "event"], &["instance"]),
    }
}

/// One row, by column name, with where each cell came from.
struct Row {
    line: u64,
    cells: HashMap<String, (usize, String)>,
}

impl Row {
    fn get(&self, key: &str) -> Option<(usize, &str)> {
        self.cells
            .get(key)
            .filter(|(_, v)| !is_missing(v))
            .map(|(i, v)| (*i, v.trim()))
    }

    fn error(&self, key: &str, reason: String) -> LineError {
        LineError::new(self.line, self.cells.get(key).map(|(i, _)| i + 1), reason)
    }

    fn text(&self, key: &str) -> Result<String, LineError> {
        self.get(key)
            .map(|(_, v)| v.to_string())
            .ok_or_else(|| self.error(key, format!("{key} is empty")))
    }

    fn number(&self, key: &str) -> Result<Option<f64>, LineError> {
        self.get(key)
            .map(|(_, v)| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| self.error(key, format!("\"{v}\" is not a number for {key}")))
            })
            .transpose()
    }

    /// An amount of money, exactly as written.
    fn required_money(&self, key: &str) -> Result<Decimal, LineError> {
        let (_, v) = self
            .get(key)
            .ok_or_else(|| self.error(key, format!("{key} is empty")))?;
        money::parse(key, v).map_err(|e| self.error(key, e.reason))
    }

    fn required_number(&self, key: &str) -> Result<f64, LineError> {
        self.number(key)?
            .ok_or_else(|| self.error(key, format!("{key} is empty")))
    }

    fn count(&self, key: &str) -> Result<Option<u32>, LineError> {
        self.get(key)
            .map(|(_, v)| {
                v.parse::<u32>().map_err(|_| {
                    self.error(key, format!("\"{v}\" is not a whole number for {key}"))
                })
            })
            .transpose()
    }

    fn flag(&self, key: &str) -> Result<bool, LineError> {
        let (_, v) = self
            .get(key)
            .ok_or_else(|| self.error(key, format!("{key} is empty")))?;
        match v.to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" | "ok" | "pass" | "passed" => Ok(true),
            "false" | "no" | "n" | "0" | "fail" | "failed" => Ok(false),
            _ => Err(self.error(key, format!("\"{v}\" is not true or false for {key}"))),
        }
    }

    fn time(&self, ctx: &mut ParseContext, key: &str) -> Result<Option<Timestamp>, LineError> {
        let Some((_, v)) = self.get(key) else {
            return Ok(None);
        };
        // A time in a shape the reader knows says what is wrong with it (a
        // day February does not have, an offset no clock is set to); any
        // other text may still be seconds since 1970.
        let ms = match ctx.times.read(v) {
            Ok(ms) => ms,
            Err(TimeError::Shape) => super::super::timestamps::parse_epoch(v)
                .ok_or_else(|| self.error(key, format!("\"{v}\" is not a time for {key}")))?,
            Err(e) => return Err(self.error(key, format!("\"{v}\" is not a time for {key}: {e}"))),
        };
        if ms < EARLIEST_MS {
            return Err(self.error(
                key,
                format!(
                    "\"{v}\" is before 2000: a zero or missing timestamp, not a time a GPU was rented"
                ),
            ));
        }
        Timestamp::from_millisecond(ms)
            .map(Some)
            .map_err(|e| self.error(key, e.to_string()))
    }

    fn required_time(&self, ctx: &mut ParseContext, key: &str) -> Result<Timestamp, LineError> {
        self.time(ctx, key)?
            .ok_or_else(|| self.error(key, format!("{key} is empty")))
    }

    fn parsed<T: std::str::FromStr<Err = crate::error::ValidationError>>(
        &self,
        key: &str,
    ) -> Result<T, LineError> {
        let (_, v) = self
            .get(key)
            .ok_or_else(|| self.error(key, format!("{key} is empty")))?;
        v.parse()
            .map_err(|e: crate::error::ValidationError| self.error(key, e.reason))
    }
}

fn invalid(row: &Row, e: crate::error::ValidationError) -> LineError {
    let reason = e.to_string();
    row.error(&e.field, reason)
}

pub fn parse<R: BufRead>(
    format: Format,
    mut input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let (required, optional) = columns(format);
    // JSON arrays are read whole (tables are small); CSV streams.
    let first = {
        let buf = input.fill_buf()?;
        buf.iter()
            .find(|c| !c.is_ascii_whitespace() && **c != 0xEF && **c != 0xBB && **c != 0xBF)
            .copied()
    };
    let mut rows: Vec<(Row, bool)> = Vec::new();
    if first == Some(b'[') {
        let raw = read_document(&mut input, 256 << 20, "the JSON table")?;
        let items: Vec<serde_json::Map<String, serde_json::Value>> =
            serde_json::from_str(raw.trim_start_matches('\u{feff}')).map_err(|e| {
                LineError::new(
                    e.line() as u64,
                    Some(e.column()),
                    format!("not a JSON array of objects: {e}"),
                )
            })?;
        for (i, item) in items.into_iter().enumerate() {
            let cells = item
                .into_iter()
                .enumerate()
                .map(|(c, (k, v))| {
                    let text = match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Null => String::new(),
                        other => other.to_string(),
                    };
                    (k.to_ascii_lowercase(), (c, text))
                })
                .collect();
            rows.push((
                Row {
                    line: i as u64 + 1,
                    cells,
                },
                true,
            ));
        }
        check_columns(
            rows.first().map(|(r, _)| r.cells.keys().cloned().collect()),
            required,
            format,
        )?;
        for (row, _) in rows {
            if let Err(e) = read(format, &row, ctx, b) {
                return Err(
                    LineError::new(e.line, None, format!("item {}: {}", e.line, e.reason)).into(),
                );
            }
        }
    } else {
        let mut lines = LineReader::new(input);
        let mut header: Option<Vec<String>> = None;
        while let Some(line) = lines.next_line()? {
            if line.text.trim().is_empty() || line.text.starts_with('#') {
                continue;
            }
            let cells: Vec<String> = split_cells(line.text)
                .into_iter()
                .map(|c| c.trim().to_string())
                .collect();
            let Some(names) = &header else {
                let names: Vec<String> = cells.iter().map(|c| c.to_ascii_lowercase()).collect();
                check_columns(Some(names.clone()), required, format)?;
                let unknown: Vec<&String> = names
                    .iter()
                    .filter(|n| !required.contains(&n.as_str()) && !optional.contains(&n.as_str()))
                    .collect();
                if !unknown.is_empty() {
                    b.metadata
                        .insert("unknown_columns".into(), serde_json::json!(unknown));
                }
                header = Some(names);
                continue;
            };
            if let Err(error) = super::check_row_width(line.number, cells.len(), names.len()) {
                b.bad_line(&line, error)?;
                continue;
            }
            let row = Row {
                line: line.number,
                cells: names
                    .iter()
                    .cloned()
                    .zip(cells.into_iter().enumerate())
                    .collect(),
            };
            if let Err(e) = read(format, &row, ctx, b) {
                b.bad_line(&line, e)?;
            }
        }
        if header.is_none() {
            return Err(ParseFailure::Whole("the table is empty".into()));
        }
    }
    finish_phases(b);
    Ok(())
}

fn check_columns(names: Option<Vec<String>>, required: &[&str], format: Format) -> ParseResult {
    let names = names.unwrap_or_default();
    let missing: Vec<&&str> = required
        .iter()
        .filter(|r| !names.iter().any(|n| n == **r))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(ParseFailure::Whole(format!(
        "the {format} table lacks the column(s) {}; it needs {}",
        missing
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        required.join(", ")
    )))
}

fn read(
    format: Format,
    row: &Row,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> Result<(), LineError> {
    match format {
        Format::StartupTable => read_startup_attempt(row, ctx, b)?,
        Format::SwitchTable => read_switch_attempt(row, b)?,
        Format::DrillTable => read_fault_drill(row, b)?,
        Format::BillingTable => read_billing_line(row, ctx, b)?,
        _ => read_billing_event(row, ctx, b)?,
    }
    Ok(())
}

/// A startup attempt: its stages and outcome.
fn read_startup_attempt(
    row: &Row,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> Result<(), LineError> {
    let attempt = StartupAttempt {
        scenario: row.parsed("scenario")?,
        image: row.parsed("image")?,
        submitted_at: row.required_time(ctx, "submitted_at")?,
        provisioned_at: row.time(ctx, "provisioned_at")?,
        image_ready_at: row.time(ctx, "image_ready_at")?,
        first_compute_at: row.time(ctx, "first_compute_at")?,
        outcome: row.parsed("outcome")?,
    }
    .validate()
    .map_err(|e| invalid(row, e))?;
    b.saw_time(attempt.submitted_at.as_millisecond());
    if let Some(t) = attempt.first_compute_at {
        b.saw_time(t.as_millisecond());
    }
    b.startup_attempts.push(attempt);
    Ok(())
}

/// An environment switch: success, manual steps, drift, op coverage.
fn read_switch_attempt(row: &Row, b: &mut RunBuilder<'_>) -> Result<(), LineError> {
    let attempt = SwitchAttempt {
        from_env: row.text("from_env")?,
        to_env: row.text("to_env")?,
        success: row.flag("success")?,
        manual_steps: row
            .count("manual_steps")?
            .ok_or_else(|| row.error("manual_steps", "manual_steps is empty".into()))?,
        duration_s: row.required_number("duration_s")?,
        rel_l2_error: row.number("rel_l2_error")?,
        ops_passed: row.count("ops_passed")?,
        ops_total: row.count("ops_total")?,
    }
    .validate()
    .map_err(|e| invalid(row, e))?;
    b.switch_attempts.push(attempt);
    Ok(())
}

/// A fault drill: detected, recovered, how long, how much was lost.
fn read_fault_drill(row: &Row, b: &mut RunBuilder<'_>) -> Result<(), LineError> {
    let drill = FaultDrill {
        fault: row.parsed("fault")?,
        detected: row.flag("detected")?,
        recovered: row.flag("recovered")?,
        recovery_s: row.number("recovery_s")?,
        progress_lost_s: row.number("progress_lost_s")?,
    }
    .validate()
    .map_err(|e| invalid(row, e))?;
    b.fault_drills.push(drill);
    Ok(())
}

/// A line of a bill, its amount exactly as written.
fn read_billing_line(
    row: &Row,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> Result<(), LineError> {
    let line = BillingLine {
        instance: row.text("instance")?,
        start: row.required_time(ctx, "start")?,
        end: row.required_time(ctx, "end")?,
        billed_seconds: row.required_number("billed_seconds")?,
        compute_seconds: row.number("compute_seconds")?,
        queue_seconds: row.number("queue_seconds")?,
        io_wait_seconds: row.number("io_wait_seconds")?,
        amount: row.required_money("amount")?,
        currency: row.text("currency")?,
        unit_price: row.required_money("unit_price")?,
        line_id: row.get("line_id").map(|(_, v)| v.to_string()),
        host: row.get("host").map(|(_, v)| v.to_string()),
        product: row.get("product").map(|(_, v)| v.to_string()),
    }
    .validate()
    .map_err(|e| invalid(row, e))?;
    let column = row.cells.get("line_id").map(|(i, _)| i + 1);
    b.add_billing_line(line, row.line, column)
}

/// A billing event: a phase starting or ending on an instance; a start and its end become one `phase` event with its duration.
fn read_billing_event(
    row: &Row,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> Result<(), LineError> {
    let at = row.required_time(ctx, "timestamp")?;
    let event = row.text("event")?.to_ascii_lowercase();
    let (phase, edge) = event
            .rsplit_once('_')
            .filter(|(p, e)| matches!(*p, "compute" | "queue" | "io_wait" | "idle") && matches!(*e, "start" | "end"))
            .ok_or_else(|| {
                row.error(
                    "event",
                    format!("\"{event}\" is not a billing event (compute_start, compute_end, queue_start, queue_end, io_wait_start, io_wait_end, idle_start, idle_end)"),
                )
            })?;
    let instance = row
        .get("instance")
        .map(|(_, v)| v.to_string())
        .unwrap_or_default();
    b.saw_time(at.as_millisecond());
    let open = PHASES.with(|p| {
        p.borrow_mut()
            .remove(&(instance.clone(), phase.to_string()))
    });
    match (edge, open) {
        ("start", previous) => {
            if previous.is_some() {
                b.warn(format!(
                    "line {}: {phase} started again on {instance:?} before it ended",
                    row.line
                ));
            }
            PHASES.with(|p| p.borrow_mut().insert((instance, phase.to_string()), at));
        }
        ("end", Some(start)) => {
            let duration = at.as_millisecond() - start.as_millisecond();
            if duration < 0 {
                return Err(row.error("timestamp", format!("{phase} ends before it starts")));
            }
            b.event(Event {
                duration_ms: Some(duration),
                detail: Some(format!(
                    "{}{}",
                    phase.replace('_', "-"),
                    if instance.is_empty() {
                        String::new()
                    } else {
                        format!(" on {instance}")
                    }
                )),
                ..Event::new(start, EventKind::Phase)
            });
        }
        _ => b.warn(format!(
            "line {}: {phase} ended on {instance:?} without a start",
            row.line
        )),
    }
    Ok(())
}

thread_local! {
    /// Phases started and not yet ended, per (instance, phase), while one
    /// billing event stream is read.
    static PHASES: std::cell::RefCell<HashMap<(String, String), Timestamp>> = std::cell::RefCell::new(HashMap::new());
}

fn finish_phases(b: &mut RunBuilder<'_>) {
    let open: Vec<((String, String), Timestamp)> =
        PHASES.with(|p| p.borrow_mut().drain().collect());
    for ((instance, phase), at) in open {
        b.warn(format!(
            "{phase} started on {instance:?} at {at} never ended"
        ));
    }
}
