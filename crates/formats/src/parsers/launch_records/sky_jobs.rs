//! `sky jobs queue -a` (and the older `sky spot queue`): SkyPilot's managed
//! jobs as the terminal shows them — a table whose columns are told apart
//! by the header (`ID  TASK  NAME  RESOURCES  SUBMITTED  TOT. DURATION  JOB
//! DURATION  #RECOVERIES  STATUS …`, the set varying by release), its cells
//! aligned under their names.
//!
//! A job's start is its total duration less the time its job ran (both
//! exact to the second); where it was recovered that difference holds the
//! recoveries too, and its start is not timed (`STARTED`'s "5 hrs ago" is
//! too coarse to time one by), only said. `FAILED_NO_RESOURCE` and `FAILED_SETUP` are failed starts;
//! `FAILED_PRECHECKS` and `FAILED_CONTROLLER` are neither the platform's
//! start nor its fault, and are left out. Each recovery is an interruption
//! over the job's GPU-hours (its run time × the GPUs its resources name).
//!
//! SUBMITTED and STARTED are relative ("2 hrs ago"): placed back from when
//! the table was printed — `--start`, else the file's time — to the unit
//! they are written in.

use std::io::BufRead;

use jiff::{SignedDuration, Timestamp};

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::{Launch, store_launches};
use crate::domain::{Event, EventKind, WATCHED_GPU_MS};
use crate::lines::LineReader;
use crate::transcript::strip_terminal_escapes;

/// Whether `line` is the managed-jobs table's header (for detection).
pub fn is_jobs_table(line: &str) -> bool {
    let line = strip_terminal_escapes(line);
    let t = line.trim_start();
    t.starts_with("ID ")
        && t.contains("SUBMITTED")
        && t.contains("STATUS")
        && (t.contains("#RECOVER") || t.contains("JOB DURATION"))
}

/// A column: its name and the character it starts at.
struct Column {
    name: String,
    at: usize,
}

fn columns(header: &str) -> Vec<Column> {
    let chars: Vec<char> = header.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' {
            i += 1;
            continue;
        }
        let start = i;
        // A name ends at two spaces (names hold one: "TOT. DURATION").
        while i < chars.len() && !(chars[i] == ' ' && chars.get(i + 1).is_none_or(|c| *c == ' ')) {
            i += 1;
        }
        out.push(Column {
            name: chars[start..i].iter().collect::<String>(),
            at: start,
        });
    }
    out
}

/// A row's cell under each column.
fn cells(line: &str, columns: &[Column]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let end = columns
                .get(i + 1)
                .map_or(chars.len(), |n| n.at)
                .min(chars.len());
            chars
                .get(c.at.min(end)..end)
                .map(|s| s.iter().collect::<String>().trim().to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// Recoveries of one job, and of a whole table, at most (a job recovered
/// every minute for a week is ten thousand).
const MAX_RECOVERIES: u64 = 10_000;
const MAX_RECOVERIES_IN_ALL: u64 = 100_000;

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let printed = match (ctx.start, ctx.file_time) {
        (Some(t), _) => t,
        (None, Some(t)) => {
            b.warn(format!(
                "the table's times are relative (\"2 hrs ago\"); they count back from the file's time, {} (--start sets when the table was printed)",
                crate::text::time_words(t)
            ));
            t
        }
        (None, None) => {
            return Err(ParseFailure::Whole(
                "the table's times are relative (\"2 hrs ago\") and nothing says when it was printed; give --start".into(),
            ));
        }
    };
    let mut lines = LineReader::new(input);
    let mut header: Option<Vec<Column>> = None;
    let mut launches = Vec::new();
    let mut watched_ms = 0i64;
    let mut recoveries = 0u64;
    let mut left_out: Vec<String> = Vec::new();
    while let Some(line) = lines.next_line()? {
        let text = strip_terminal_escapes(line.text);
        if is_jobs_table(&text) {
            header = Some(columns(&text));
            continue;
        }
        let Some(cols) = &header else { continue };
        if text.trim().is_empty() {
            continue;
        }
        let row = cells(&text, cols);
        let cell = |names: &[&str]| {
            cols.iter()
                .position(|c| names.contains(&c.name.as_str()))
                .and_then(|i| row.get(i))
                .map(String::as_str)
                .filter(|v| !v.is_empty() && *v != "-")
        };
        // Jobs only: a pipeline's task rows (` ↳`) and stray lines are not.
        let Some(id) = cell(&["ID"]).filter(|id| id.bytes().all(|c| c.is_ascii_digit())) else {
            continue;
        };
        let fail = |what: &str, value: &str| {
            ParseFailure::Line(LineError::new(
                line.number,
                None,
                format!(
                    "job {id}: {what} \"{}\" cannot be read",
                    crate::text::printable_excerpt(value, 40)
                ),
            ))
        };
        let status = cell(&["STATUS"]).unwrap_or("").to_ascii_uppercase();
        let ago = |names: &[&str]| -> Result<Option<Timestamp>, ParseFailure> {
            match cell(names) {
                None => Ok(None),
                Some(v) => {
                    let back = relative_ago(v).ok_or_else(|| fail(names[0], v))?;
                    Ok(printed.checked_sub(back).ok())
                }
            }
        };
        let duration = |names: &[&str]| -> Result<Option<SignedDuration>, ParseFailure> {
            match cell(names) {
                None => Ok(None),
                Some(v) => duration_of(v).map(Some).ok_or_else(|| fail(names[0], v)),
            }
        };
        let submitted = ago(&["SUBMITTED"])?;
        let total = duration(&["TOT. DURATION"])?;
        let job = duration(&["JOB DURATION"])?;
        let recovered: u64 = match cell(&["#RECOVERIES", "#RECOVERS"]) {
            None => 0,
            Some(v) => v
                .parse()
                .ok()
                .filter(|n| *n <= MAX_RECOVERIES)
                .ok_or_else(|| fail("#RECOVERIES", v))?,
        };
        // Each recovery is an event: bounded before they are made.
        if recoveries + recovered > MAX_RECOVERIES_IN_ALL {
            return Err(ParseFailure::Line(LineError::new(
                line.number,
                None,
                format!(
                    "more than {MAX_RECOVERIES_IN_ALL} recoveries in one table: not a managed-jobs table this reads"
                ),
            )));
        }
        let gpus = cell(&["RESOURCES", "REQUESTED"]).map_or(0, gpus_of);
        let failed = match status.as_str() {
            "FAILED_NO_RESOURCE" => Some("no resource (FAILED_NO_RESOURCE)".to_string()),
            "FAILED_SETUP" => Some("setup failed (FAILED_SETUP)".to_string()),
            "FAILED_PRECHECKS" | "FAILED_CONTROLLER" => {
                left_out.push(format!(
                    "job {id} {status} (neither the platform's start nor its fault)"
                ));
                continue;
            }
            _ => None,
        };
        let running = match (job, total, recovered) {
            (Some(job), Some(total), 0) => submitted.and_then(|s| s.checked_add(total - job).ok()),
            _ => None,
        };
        let pending = matches!(status.as_str(), "PENDING" | "SUBMITTED" | "STARTING");
        let untimed = running.is_none() && failed.is_none() && !pending;
        if untimed {
            // Cancelled before it ran, or recovered: its total holds its
            // recoveries, and "STARTED 5 hrs ago" is too coarse to time a
            // start by.
            left_out.push(if job.is_none() {
                format!("job {id} {status} before it ran")
            } else {
                format!("job {id} (its {recovered} recoveries are inside its total)")
            });
        }
        if let (Some(job), true) = (job, gpus > 0) {
            watched_ms += job.as_millis() as i64 * i64::from(gpus);
        }
        if recovered > 0 {
            recoveries += recovered;
            if let Some(at) = ago(&["STARTED"])?.or(submitted) {
                for _ in 0..recovered {
                    b.event(Event {
                        detail: Some(format!(
                            "managed job {id} recovered (SkyPilot #RECOVERIES; the moment is not in the table)"
                        )),
                        ..Event::new(at, EventKind::InstanceLost)
                    });
                }
            }
        }
        if !untimed {
            launches.push(Launch {
                submitted,
                provisioned: None,
                ready: None,
                running,
                failed,
            });
        }
    }
    if header.is_none() {
        return Err(ParseFailure::Whole(
            "no managed-jobs table header (ID … SUBMITTED … STATUS) found".into(),
        ));
    }
    if !left_out.is_empty() {
        b.warn(format!("not timed as starts: {}", left_out.join("; ")));
    }
    if watched_ms > 0 {
        b.metadata
            .insert(WATCHED_GPU_MS.into(), serde_json::Value::from(watched_ms));
        b.warn(format!(
            "{recoveries} recovery(ies) over {:.1} GPU-hours of managed jobs: interruptions over what the jobs ran",
            watched_ms as f64 / 3.6e6
        ));
    }
    store_launches(
        b,
        &launches,
        ["provisioned", "set up", "running"],
        "sky jobs queue",
    );
    Ok(())
}

/// "1h 2m 3s", "5m 9s", "1d 21h 11m 4s", "< 1s", "2w 1d" (SkyPilot's
/// durations).
fn duration_of(text: &str) -> Option<SignedDuration> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('<') {
        // "< 1s": under its bound; half of it.
        return duration_of(rest).map(|d| d / 2);
    }
    let mut secs = 0i64;
    let mut any = false;
    for word in text.split_whitespace() {
        let digits = word.bytes().take_while(u8::is_ascii_digit).count();
        let n: i64 = word[..digits].parse().ok()?;
        let unit = match &word[digits..] {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            "w" => 7 * 86_400,
            "mo" => 30 * 86_400,
            "y" => 365 * 86_400,
            _ => return None,
        };
        secs = secs.checked_add(n.checked_mul(unit)?)?;
        any = true;
    }
    any.then(|| SignedDuration::from_secs(secs))
}

/// "10 mins ago", "2 hrs ago", "1 day ago", "a few secs ago", "just now".
fn relative_ago(text: &str) -> Option<SignedDuration> {
    let text = text.trim().to_ascii_lowercase();
    if text == "just now" || text.starts_with("a few sec") {
        return Some(SignedDuration::ZERO);
    }
    let rest = text.strip_suffix(" ago")?;
    let (n, unit) = rest.split_once(' ')?;
    let n: i64 = if n == "a" || n == "an" {
        1
    } else {
        n.parse().ok()?
    };
    let unit = unit.trim_end_matches('s');
    let secs = match unit {
        "sec" | "second" => 1,
        "min" | "minute" => 60,
        "hr" | "hour" => 3600,
        "day" => 86_400,
        "week" => 7 * 86_400,
        "month" => 30 * 86_400,
        "year" => 365 * 86_400,
        _ => return None,
    };
    Some(SignedDuration::from_secs(n.checked_mul(secs)?))
}

/// The GPUs a job's resources name: "1x[A100:8]" → 8, "2x [V100:8][Spot]"
/// → 16, "1x[CPU:2]" → 0; of several choices ("[A100-80GB:1, L4:1]"), the
/// first.
fn gpus_of(resources: &str) -> u32 {
    let (nodes, rest): (u32, &str) = match resources.split_once('x') {
        Some((n, rest)) if n.trim().parse::<u32>().is_ok() => (n.trim().parse().unwrap_or(1), rest),
        _ => (1, resources),
    };
    let inside = rest
        .trim()
        .trim_start_matches('[')
        .split([']', ','])
        .next()
        .unwrap_or("");
    let Some((name, count)) = inside.split_once(':') else {
        return 0;
    };
    if name.trim().eq_ignore_ascii_case("cpu") || name.trim().is_empty() {
        return 0;
    }
    let count: u32 = count.trim().trim_end_matches('+').parse().unwrap_or(0);
    nodes.saturating_mul(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skypilots_durations_relative_times_and_resources_are_read() {
        assert_eq!(
            duration_of("1h 2m 3s"),
            Some(SignedDuration::from_secs(3723))
        );
        assert_eq!(
            duration_of("1d 21h 11m 4s"),
            Some(SignedDuration::from_secs(162_664))
        );
        assert_eq!(duration_of("< 1s"), Some(SignedDuration::from_millis(500)));
        assert_eq!(duration_of("soon"), None);
        assert_eq!(
            relative_ago("2 hrs ago"),
            Some(SignedDuration::from_secs(7200))
        );
        assert_eq!(
            relative_ago("1 min ago"),
            Some(SignedDuration::from_secs(60))
        );
        assert_eq!(relative_ago("a few secs ago"), Some(SignedDuration::ZERO));
        assert_eq!(relative_ago("tomorrow"), None);
        assert_eq!(gpus_of("1x[A100:8]"), 8);
        assert_eq!(gpus_of("2x [V100:8][Spot|On-demand]"), 16);
        assert_eq!(gpus_of("1x[A100-80GB:1, L4:1][Spot]"), 1);
        assert_eq!(gpus_of("1x[CPU:2]"), 0);
    }

    #[test]
    fn columns_are_told_apart_by_two_spaces() {
        let header = "ID  TASK  NAME  RESOURCES   SUBMITTED   TOT. DURATION  JOB DURATION  #RECOVERIES  STATUS";
        let cols = columns(header);
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ID",
                "TASK",
                "NAME",
                "RESOURCES",
                "SUBMITTED",
                "TOT. DURATION",
                "JOB DURATION",
                "#RECOVERIES",
                "STATUS"
            ]
        );
        let row = "12  -     train 1x[A100:8]  2 hrs ago   1h 10m 5s      1h 2m 3s       0            SUCCEEDED";
        let c = cells(row, &cols);
        assert_eq!(c[4], "2 hrs ago");
        assert_eq!(c[6], "1h 2m 3s");
        assert_eq!(c[8], "SUCCEEDED");
    }
}
