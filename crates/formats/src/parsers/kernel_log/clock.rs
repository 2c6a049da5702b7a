//! A kernel log's times into UTC: `dmesg`'s seconds since boot placed by
//! the boot time (the kernel's "setting system clock" line, or `--start`),
//! syslog dates given their year (the journal's "Logs begin at" line, the
//! log's start, `--start`), counting new years as the lines pass them, and
//! wall times read in the log's zone. A time no timestamp can hold is
//! refused with the line.

use std::collections::BTreeMap;

use super::entry::{self, When};
use super::{Reading, Seen};
use crate::ParseContext;
use crate::builder::{LineError, ParseFailure, ParseResult, RunBuilder};

/// "-- Logs begin at Sat 2024-06-01 10:00:00 UTC, end at … --" (older
/// systemd) or "-- Journal begins at Sat 2024-06-01 …" (newer): the year.
pub(super) fn journal_begins_year(line: &str) -> Option<i64> {
    let rest = line
        .strip_prefix("-- Logs begin at ")
        .or_else(|| line.strip_prefix("-- Journal begins at "))?;
    rest.split_whitespace()
        .find_map(|w| w.get(0..4).filter(|_| w.as_bytes().get(4) == Some(&b'-')))
        .and_then(|y| y.parse().ok())
}

/// "rtc_cmos 00:04: setting system clock to 2024-06-01T10:00:00 UTC
/// (1717236000)": the wall clock at that moment since boot. An error when
/// the line is the kernel's clock line but its seconds are no number.
pub(super) fn clock_set_to(message: &str) -> Option<Result<i64, String>> {
    let (_, rest) = message.split_once("setting system clock to ")?;
    let inside = rest.rsplit_once('(')?.1.split_once(')')?.0.trim();
    Some(inside.parse().map_err(|_| {
        format!(
            "the kernel's clock line gives ({}), which is not seconds since 1970",
            crate::text::printable_excerpt(inside, 40)
        )
    }))
}

/// "systemd-timesyncd[612]: Initial clock synchronization to Mon
/// 2024-06-03 10:00:05.123456 UTC." (or chrony's and ntpd's "… to
/// 2024-06-03 10:00:05 UTC"): the wall clock as a time server set it, in UTC
/// ms. Only a UTC (or GMT) time is taken: an abbreviated zone is ambiguous.
pub(super) fn synchronised_to(message: &str) -> Option<i64> {
    let (_, rest) = message.split_once("clock synchronization to ")?;
    let words: Vec<&str> = rest.trim_end_matches('.').split_whitespace().collect();
    let date_at = words
        .iter()
        .position(|w| w.len() == 10 && w.as_bytes()[4] == b'-')?;
    let (date, time, zone) = (
        words[date_at],
        words.get(date_at + 1)?,
        words.get(date_at + 2)?,
    );
    if !matches!(*zone, "UTC" | "GMT") {
        return None;
    }
    let at: jiff::Timestamp = format!("{date}T{time}Z").parse().ok()?;
    Some(at.as_millisecond())
}

/// When the machine booted (UTC ms), from the wall clock the kernel set
/// and the seconds since boot at which it did; refused when that is no
/// time a timestamp can hold (an epoch of 2⁶³−1 would overflow).
pub(super) fn boot_time_ms(epoch_s: i64, uptime_s: f64) -> Result<i64, String> {
    // The uptime is at most a century (entry::MAX_UPTIME_S): exact in ms.
    let uptime_ms = (uptime_s * 1000.0).round() as i64;
    epoch_s
        .checked_mul(1000)
        .and_then(|ms| ms.checked_sub(uptime_ms))
        .filter(|ms| jiff::Timestamp::from_millisecond(*ms).is_ok())
        .ok_or_else(|| {
            format!(
                "the kernel's clock line gives {epoch_s} s since 1970 at {uptime_s} s since \
                 boot, which is no time a timestamp can hold (years -9999 to 9999)"
            )
        })
}

/// Turns the times lines gave into UTC milliseconds.
pub(super) struct Clock {
    boot_at: BTreeMap<usize, i64>,
    /// Year of the first syslog line, or of the last one (`from_end`).
    year: Option<(i64, bool)>,
    total_new_years: i64,
}

impl Clock {
    pub(super) fn new(
        r: &Reading,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult<Self> {
        let mut boot_at = r.boot_at.clone();
        let mut unplaced = Vec::new();
        for (&boot, &line) in &r.boot_first_line {
            if boot_at.contains_key(&boot) {
                continue;
            }
            match (boot, ctx.start) {
                (0, Some(start)) => {
                    boot_at.insert(0, start.as_millisecond());
                }
                // No boot time: its lines are evidence without a time (a
                // fault still counts against the GPU), kept and said.
                _ => unplaced.push(line),
            }
        }
        if let Some(first) = unplaced.first() {
            let boots = match unplaced.len() {
                1 if *first == r.boot_first_line.get(&0).copied().unwrap_or(0) => {
                    "the log does not say when the machine booted".to_string()
                }
                n => format!("{n} boot(s) (from line {first}) do not say when the machine booted"),
            };
            b.warn(format!(
                "dmesg times count seconds since boot and {boots}: their messages are kept \
                 without a time; a boot time would place them (--start with `uptime -s` of \
                 that boot, or save the log with `dmesg -T`, `dmesg --time-format iso` or \
                 `journalctl -k -o short-iso`)"
            ));
        }
        let needs_year = matches!(r.first.map(|s| s.when), Some(When::NoYear { .. }));
        let year = if !needs_year {
            None
        } else if let Some(y) = r.journal_year {
            Some((y, false))
        } else if let Some(start) = ctx.start {
            Some((i64::from(ctx.times.zone().to_datetime(start).year()), false))
        } else if let Some(t) = ctx.file_time {
            let file = ctx.times.zone().to_datetime(t);
            let mut y = i64::from(file.year());
            // The last line was written before the file's time: a December
            // line in a file saved in January is last year's.
            if let Some(When::NoYear { month, day, .. }) = r.last.map(|s| s.when)
                && (
                    i8::try_from(month).unwrap_or(12),
                    i8::try_from(day).unwrap_or(31),
                ) > (file.month(), file.day())
            {
                y -= 1;
            }
            b.warn(format!(
                "syslog lines carry no year; {y} was taken from the file's modification time \
                 (give --start to set it)"
            ));
            Some((y, true))
        } else {
            return Err(ParseFailure::Whole(
                "syslog lines carry no year and nothing else in the file gives it; give \
                 --start (a time in the log's first year)"
                    .into(),
            ));
        };
        Ok(Self {
            boot_at,
            year,
            total_new_years: r.new_years,
        })
    }

    /// The line's time in UTC milliseconds; `None` for a line without a
    /// time when `--start` does not place it.
    pub(super) fn utc_ms(
        &self,
        seen: Seen,
        ctx: &mut ParseContext,
    ) -> Result<Option<i64>, LineError> {
        if seen.when == When::Untimed {
            return Ok(ctx.start.map(|t| t.as_millisecond()));
        }
        let fail = |reason: String| LineError::new(seen.line, None, reason);
        let local = |ctx: &mut ParseContext, civil_ms: i64| {
            let text = jiff::Timestamp::from_millisecond(civil_ms)
                .map_err(|_| fail(format!("the line's time ({civil_ms} ms) is out of range")))?
                .strftime("%Y-%m-%d %H:%M:%S%.3f")
                .to_string();
            ctx.times
                .read(&text)
                .map_err(|e| fail(format!("the line's time {text} cannot be placed: {e}")))
        };
        let ms = match seen.when {
            When::Uptime(secs) => {
                let Some(boot) = self.boot_at.get(&seen.boot) else {
                    // A boot the log does not place (said when the clock was made).
                    return Ok(None);
                };
                // At most a century since boot (entry::MAX_UPTIME_S), added
                // checked: the boot time came from the log too.
                boot.checked_add((secs * 1000.0).round() as i64)
                    .ok_or_else(|| fail(format!("{secs} s after boot is out of range")))?
            }
            When::Wall { ms, local: false } => ms,
            When::Wall { ms, local: true } => local(ctx, ms)?,
            When::NoYear {
                month,
                day,
                ms_of_day,
            } => {
                let (year, from_end) = self
                    .year
                    .ok_or_else(|| fail("the line's time cannot be placed".into()))?;
                let year = if from_end {
                    year - (self.total_new_years - seen.new_years)
                } else {
                    year + seen.new_years
                };
                let midnight =
                    entry::civil_ms(year, i64::from(month), i64::from(day)).ok_or_else(|| {
                        fail(format!(
                            "the line's date {year:04}-{month:02}-{day:02} does not exist (the \
                             year is {year}, as the log's start or --start gives it)"
                        ))
                    })?;
                local(ctx, midnight + ms_of_day)?
            }
            When::Untimed => return Ok(None),
        };
        // Every time becomes an instant: one a timestamp cannot hold is
        // refused here, before it is compared or subtracted.
        jiff::Timestamp::from_millisecond(ms)
            .map(|_| Some(ms))
            .map_err(|_| {
                fail(format!(
                    "the line's time ({ms} ms since 1970) is out of range"
                ))
            })
    }
}
