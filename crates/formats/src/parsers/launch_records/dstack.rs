//! dstack's events: the events API's JSON (`POST /api/events/list`: a list
//! of `{"id", "message", "recorded_at", "actor_user", "targets": [{"type",
//! "name", …}]}`) or `dstack event` as the terminal prints it
//! (`[2026-01-21 13:09:57] [job cursor-0-0] Job status changed SUBMITTED ->
//! PROVISIONING`, local times).
//!
//! A job's start is read from its status changes: submitted, provisioning
//! done when it moves on to `PULLING` (its image), ready and running at
//! `RUNNING`. A job that ends before it runs because there was no capacity
//! (`failed_to_start_due_to_no_capacity`) is a failed start; one stopped by
//! the platform after it ran (`interrupted_by_no_capacity`,
//! `instance_unreachable`) is an interruption. The events name no GPU
//! count, so their interruptions are kept without a rate of their own.

use std::collections::BTreeMap;
use std::io::BufRead;

use jiff::Timestamp;
use serde::Deserialize;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::{Launch, store_launches};
use crate::domain::{Event, EventKind};
use crate::lines::read_document;

const LIMIT: u64 = 64 << 20;

#[derive(Deserialize)]
struct ApiEvent {
    message: String,
    recorded_at: String,
    #[serde(default)]
    targets: Vec<Target>,
}

#[derive(Deserialize)]
struct Target {
    #[serde(rename = "type")]
    kind: String,
    name: String,
}

/// Whether `text` is the events API's answer (for detection).
pub fn is_dstack_events_json(text: &str) -> bool {
    text.contains("\"recorded_at\"") && text.contains("\"targets\"")
}

/// Whether `line` is a `dstack event` line (for detection).
pub fn is_dstack_events_text(line: &str) -> bool {
    text_line(line).is_some_and(|(_, targets, message)| {
        !targets.is_empty() && (message.contains("status changed") || message.contains("Status: "))
    })
}

/// One event: when, about which job (by name), and what it says.
struct Said {
    at: Timestamp,
    job: String,
    message: String,
    line: u64,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let text = read_document(input, LIMIT, "the dstack events")?;
    let mut said = Vec::new();
    if text.trim_start().starts_with(['[', '{']) && is_dstack_events_json(&text) {
        let events: Vec<ApiEvent> = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(mut o)) if o.contains_key("events") => {
                serde_json::from_value(o.remove("events").unwrap_or_default())
            }
            Ok(v) => serde_json::from_value(v),
            Err(e) => Err(e),
        }
        .map_err(|e| ParseFailure::Whole(format!("not dstack's events: {e}")))?;
        for (i, e) in events.into_iter().enumerate() {
            let Some(job) = e.targets.iter().find(|t| t.kind == "job") else {
                continue;
            };
            let at: Timestamp = read_time(&e.recorded_at, ctx).ok_or_else(|| {
                ParseFailure::Whole(format!(
                    "event {i}: recorded_at \"{}\" is not a time",
                    crate::text::printable_excerpt(&e.recorded_at, 40)
                ))
            })?;
            said.push(Said {
                at,
                job: job.name.clone(),
                message: e.message,
                line: 0,
            });
        }
    } else {
        for (n, line) in text.lines().enumerate() {
            let Some((time, targets, message)) = text_line(line) else {
                continue;
            };
            let Some(job) = targets
                .split(", ")
                .find_map(|t| t.strip_prefix("job ").map(str::to_string))
            else {
                continue;
            };
            let at = read_time(time, ctx).ok_or_else(|| {
                ParseFailure::Line(LineError::new(
                    n as u64 + 1,
                    None,
                    format!("\"{time}\" is not a time"),
                ))
            })?;
            said.push(Said {
                at,
                job,
                message: message.to_string(),
                line: n as u64 + 1,
            });
        }
    }
    if said.is_empty() {
        return Err(ParseFailure::Whole(
            "no job events found (dstack's events name jobs in their targets)".into(),
        ));
    }
    said.sort_by_key(|s| (s.at, s.line));
    let mut jobs: BTreeMap<String, Launch> = BTreeMap::new();
    let mut interrupted = 0;
    for s in &said {
        let launch = jobs.entry(s.job.clone()).or_default();
        let (from, to) = transition(&s.message);
        let status = to.or(created_status(&s.message));
        if status.as_deref() == Some("SUBMITTED") || from.as_deref() == Some("SUBMITTED") {
            launch.submitted.get_or_insert(s.at);
        }
        match status.as_deref() {
            Some("PULLING") => {
                launch.provisioned.get_or_insert(s.at);
            }
            Some("RUNNING") => {
                launch.provisioned.get_or_insert(s.at);
                launch.ready.get_or_insert(s.at);
                launch.running.get_or_insert(s.at);
            }
            _ => {}
        }
        let Some(reason) = termination_reason(&s.message) else {
            continue;
        };
        match (reason.as_str(), launch.running) {
            ("failed_to_start_due_to_no_capacity", None) => {
                launch.failed = Some("no capacity (failed_to_start_due_to_no_capacity)".into());
            }
            (
                "interrupted_by_no_capacity" | "instance_unreachable" | "instance_access_revoked",
                Some(_),
            ) => {
                interrupted += 1;
                b.event(Event {
                    detail: Some(format!("dstack job {}: {reason}", s.job)),
                    ..Event::new(s.at, EventKind::InstanceLost)
                });
            }
            _ => {}
        }
    }
    if interrupted > 0 {
        b.warn(format!(
            "{interrupted} job(s) interrupted by the platform: kept as interruptions; the events name no GPU count, so they give no rate of their own"
        ));
    }
    let launches: Vec<Launch> = jobs.into_values().collect();
    store_launches(
        b,
        &launches,
        ["provisioning", "pulling", "running"],
        "dstack events",
    );
    Ok(())
}

/// "[2026-01-21 13:09:57] [👤admin] [job a-0-0, instance f-0] message":
/// the time, the targets and the message.
fn text_line(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.trim().strip_prefix('[')?;
    let (time, rest) = rest.split_once(']')?;
    let bytes = time.as_bytes();
    if time.len() < 19 || bytes[4] != b'-' || bytes[10] != b' ' {
        return None;
    }
    let mut rest = rest.trim_start();
    // The actor ("[👤admin] "), where one acted.
    if let Some(after) = rest.strip_prefix("[👤") {
        rest = after.split_once(']')?.1.trim_start();
    }
    let (targets, message) = rest.strip_prefix('[')?.split_once(']')?;
    Some((time, targets, message.trim()))
}

/// "Job status changed SUBMITTED -> PROVISIONING": from and to.
fn transition(message: &str) -> (Option<String>, Option<String>) {
    let Some((_, rest)) = message.split_once("status changed ") else {
        return (None, None);
    };
    let Some((from, to)) = rest.split_once("->") else {
        return (None, None);
    };
    let word = |s: &str| {
        s.trim()
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .next()
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_uppercase)
    };
    (word(from), word(to))
}

/// "Job created on run submission. Status: SUBMITTED".
fn created_status(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("Status: ")?;
    rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
}

/// "… Termination reason: FAILED_TO_START_DUE_TO_NO_CAPACITY", lower-cased.
fn termination_reason(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    let (_, rest) = lower.split_once("termination reason: ")?;
    rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .filter(|w| !w.is_empty())
        .map(str::to_string)
}

/// An RFC 3339 time, or a local one ("2026-01-21 13:09:57") in the log's zone.
fn read_time(text: &str, ctx: &mut ParseContext) -> Option<Timestamp> {
    if let Ok(t) = text.trim().parse::<Timestamp>() {
        return Some(t);
    }
    ctx.times
        .read(text.trim())
        .ok()
        .and_then(|ms| Timestamp::from_millisecond(ms).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dstacks_lines_and_messages_are_read() {
        let line = "[2026-01-21 13:09:58] [job cursor-0-0, instance some-fleet-0] Instance created for job. Instance status: PROVISIONING";
        let (time, targets, message) = text_line(line).unwrap_or_else(|| panic!("a line"));
        assert_eq!(time, "2026-01-21 13:09:58");
        assert_eq!(targets, "job cursor-0-0, instance some-fleet-0");
        assert!(message.starts_with("Instance created"));
        let actor = "[2026-01-21 13:18:41] [👤admin] [run cursor] Run status changed RUNNING -> TERMINATING. Termination reason: STOPPED_BY_USER";
        assert_eq!(text_line(actor).map(|t| t.1), Some("run cursor"));
        assert_eq!(
            transition("Job status changed PROVISIONING -> PULLING"),
            (Some("PROVISIONING".into()), Some("PULLING".into()))
        );
        assert_eq!(
            termination_reason(
                "Job status changed PROVISIONING -> TERMINATING. Termination reason: FAILED_TO_START_DUE_TO_NO_CAPACITY"
            ),
            Some("failed_to_start_due_to_no_capacity".into())
        );
        assert_eq!(
            created_status("Job created on run submission. Status: SUBMITTED"),
            Some("SUBMITTED".into())
        );
        // dmesg -T's time is no dstack line.
        assert!(text_line("[Tue Oct 14 03:12:40 2025] NVRM: Xid").is_none());
    }
}
