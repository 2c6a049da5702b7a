//! What `sky launch` prints, and its `provision.log`
//! (`~/sky_logs/sky-…/provision.log`): SkyPilot's log lines, `I 10-18
//! 15:56:42 cloud_vm_ray_backend.py:1807] message` (level, month-day and
//! local time without a year, source file and line).
//!
//! Each `Launching on GCP us-west1 (us-west1-a)` is a try in one cloud and
//! region; a try followed by another before anything was provisioned
//! failed (SkyPilot failing over: no capacity, a quota), a failed start in
//! that region. A try is provisioned at `Successfully provisioned …`, set
//! up at `Setup completed.`, and running at `Job submitted …`. The year
//! comes from `--start` or the file's time, as for syslog.

use std::io::BufRead;

use jiff::Timestamp;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::{Launch, store_launches};
use crate::lines::LineReader;
use crate::transcript::strip_terminal_escapes;

/// The run's metadata key for each try's cloud, region and outcome.
const TRIES: &str = "launch_tries";

/// A SkyPilot log line: its month and day, local time, and message.
struct LogLine<'a> {
    month: i8,
    day: i8,
    time: jiff::civil::Time,
    message: &'a str,
}

fn log_line(line: &str) -> Option<LogLine<'_>> {
    let line = line.trim_start();
    let mut parts = line.splitn(4, ' ');
    let level = parts.next()?;
    if !matches!(level, "I" | "W" | "E" | "D" | "C") {
        return None;
    }
    let (month, day) = parts.next()?.split_once('-')?;
    let time = parts.next()?;
    let rest = parts.next()?;
    let (source, message) = rest
        .split_once("] ")
        .or_else(|| rest.strip_suffix(']').map(|s| (s, "")))?;
    if !source.contains(".py:") {
        return None;
    }
    let (month, day): (i8, i8) = (month.parse().ok()?, day.parse().ok()?);
    let mut hms = time.split(':').map(|p| p.parse::<i8>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if !((1..=12).contains(&month) && (1..=31).contains(&day)) {
        return None;
    }
    Some(LogLine {
        month,
        day,
        time: jiff::civil::Time::new(h, m, s, 0).ok()?,
        message,
    })
}

/// Whether `line` is SkyPilot's "Launching on …" log line (for detection).
pub fn is_sky_launch_line(line: &str) -> bool {
    let line = strip_terminal_escapes(line);
    log_line(&line).is_some_and(|l| l.message.trim_start().starts_with("Launching on "))
}

/// One try: its cloud and region (and zones), and what became of it.
#[derive(Debug, Clone)]
struct Try {
    place: String,
    launch: Launch,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let year_from = match (ctx.start, ctx.file_time) {
        (Some(t), _) => t,
        (None, Some(t)) => {
            b.warn(format!(
                "SkyPilot's log lines carry no year; {} was taken from the file's time (give --start to set it)",
                ctx.times.zone().to_datetime(t).year()
            ));
            t
        }
        (None, None) => {
            return Err(ParseFailure::Whole(
                "SkyPilot's log lines carry no year and nothing else gives it; give --start".into(),
            ));
        }
    };
    let mut year = ctx.times.zone().to_datetime(year_from).year();
    let mut last_month = 0i8;
    let mut lines = LineReader::new(input);
    let mut tries: Vec<Try> = Vec::new();
    let mut open: Option<Try> = None;
    while let Some(line) = lines.next_line()? {
        let text = strip_terminal_escapes(line.text);
        let Some(LogLine {
            month,
            day,
            time,
            message,
        }) = log_line(&text)
        else {
            continue;
        };
        if month < last_month {
            year += 1;
        }
        last_month = month;
        let at = jiff::civil::Date::new(year, month, day)
            .ok()
            .and_then(|d| ctx.times.zone().to_timestamp(d.to_datetime(time)).ok())
            .ok_or_else(|| {
                ParseFailure::Line(LineError::new(
                    line.number,
                    None,
                    format!("{year}-{month:02}-{day:02} does not exist (the year from --start or the file's time)"),
                ))
            })?;
        let message = message.trim();
        if let Some(place) = message.strip_prefix("Launching on ") {
            // The try before it, unprovisioned, failed over to this one.
            if let Some(mut previous) = open.take() {
                if previous.launch.provisioned.is_none() {
                    previous.launch.failed = Some(format!(
                        "{}: nothing provisioned, SkyPilot failed over",
                        previous.place
                    ));
                }
                tries.push(previous);
            }
            open = Some(Try {
                place: crate::text::printable_excerpt(place.trim_end_matches('.'), 120),
                launch: Launch {
                    submitted: Some(at),
                    ..Launch::default()
                },
            });
            continue;
        }
        let Some(current) = open.as_mut() else {
            continue;
        };
        let stage = |slot: &mut Option<Timestamp>| {
            slot.get_or_insert(at);
        };
        if message.starts_with("Successfully provisioned") {
            stage(&mut current.launch.provisioned);
        } else if message.starts_with("Setup completed") {
            stage(&mut current.launch.ready);
        } else if message.starts_with("Job submitted") {
            stage(&mut current.launch.running);
            tries.extend(open.take());
        }
    }
    tries.extend(open);
    if tries.is_empty() {
        return Err(ParseFailure::Whole(
            "no \"Launching on …\" line: not the output of `sky launch` or its provision.log"
                .into(),
        ));
    }
    let said: Vec<serde_json::Value> = tries
        .iter()
        .map(|t| {
            let outcome = match (&t.launch.running, &t.launch.failed) {
                (Some(_), _) => "started",
                (None, Some(_)) => "failed",
                (None, None) => "no outcome in the log",
            };
            serde_json::json!({ "place": t.place, "outcome": outcome })
        })
        .collect();
    b.metadata
        .insert(TRIES.into(), serde_json::Value::Array(said));
    let launches: Vec<Launch> = tries.into_iter().map(|t| t.launch).collect();
    store_launches(
        b,
        &launches,
        ["provisioned", "setup", "job submitted"],
        "sky launch log",
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skypilots_log_lines_are_read() {
        let l = log_line(
            "I 10-18 15:56:42 cloud_vm_ray_backend.py:1807] Launching on GCP us-west1 (us-west1-a)",
        )
        .unwrap_or_else(|| panic!("a line"));
        assert_eq!(
            (l.month, l.day, l.time),
            (10, 18, jiff::civil::time(15, 56, 42, 0))
        );
        assert_eq!(l.message, "Launching on GCP us-west1 (us-west1-a)");
        assert!(is_sky_launch_line(
            "  I 02-23 16:42:26 cloud_vm_ray_backend.py:668] Launching on AWS us-west-2 (us-west-2a,us-west-2b)"
        ));
        assert!(log_line("I 13-18 15:56:42 x.py:1] month 13").is_none());
        assert!(log_line("Jun  1 10:00:00 node kernel: x").is_none());
    }
}
