//! One kernel log line: when it was written and what it says, in every
//! shape the kernel's messages are saved in.
//!
//! ```text
//! [ 1234.567890] NVRM: Xid …                         dmesg (seconds since boot)
//! <4>[ 1234.567890] NVRM: …                          dmesg -r
//! kern  :warn  : [ 1234.567890] NVRM: …             dmesg -x
//! [Sat Jun  1 11:27:05 2024] NVRM: …                 dmesg -T (local time)
//! 2024-06-01T11:27:05,123456+00:00 NVRM: …           dmesg --time-format iso
//! Jun 01 11:27:05 node-3 kernel: NVRM: …             journalctl -k, syslog (no year)
//! 2024-06-01T11:27:05+0000 node-3 kernel: NVRM: …    journalctl -o short-iso, rsyslog
//! {"__REALTIME_TIMESTAMP":"1717241225123456","MESSAGE":"NVRM: …"}   journalctl -o json
//! kernel: NVRM: Xid …  /  NVRM: Xid …                 a grep or `journalctl -o cat` excerpt (no time)
//! ```
//!
//! Syslog-style lines may carry the kernel's own `[ 1234.5]` after the
//! `kernel:` tag; the wall-clock time before it wins.

/// When a line was written, as far as the line itself says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum When {
    /// Seconds since the machine booted: needs the boot time.
    Uptime(f64),
    /// UTC milliseconds, or civil milliseconds to be read in the user's
    /// zone (`local`).
    Wall { ms: i64, local: bool },
    /// Month, day and milliseconds into the day, without a year (syslog).
    NoYear { month: u8, day: u8, ms_of_day: i64 },
    /// No time at all: an excerpt of the driver's lines (`grep`, `cut`,
    /// `journalctl -o cat`).
    Untimed,
}

/// How the log was saved; kept in the run's metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Dmesg,
    DmesgReadable,
    DmesgIso,
    Syslog,
    JournalIso,
    JournalJson,
    Excerpt,
}

impl Style {
    pub(super) fn label(self) -> &'static str {
        match self {
            Style::Dmesg => "dmesg",
            Style::DmesgReadable => "dmesg -T",
            Style::DmesgIso => "dmesg --time-format iso",
            Style::Syslog => "journalctl -k / syslog",
            Style::JournalIso => "journalctl -o short-iso / rsyslog",
            Style::JournalJson => "journalctl -o json",
            Style::Excerpt => "an excerpt without times",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry<'a> {
    pub when: When,
    pub style: Style,
    pub host: Option<&'a str>,
    /// The message, borrowed from the line (owned for a JSON entry).
    pub message: std::borrow::Cow<'a, str>,
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The entry a line holds, or `None` for a line in no kernel log shape
/// (a journal marker, a continuation, noise) or one whose time cannot be
/// read (`parse` says why).
pub(super) fn read(line: &str) -> Option<Entry<'_>> {
    parse(line).ok().flatten()
}

/// The most seconds since boot a dmesg time is read as: a century. The
/// kernel prints `[%5lu.%06lu]`; more than that is a corrupt line, and as
/// milliseconds added to a boot time it could overflow.
const MAX_UPTIME_S: f64 = 100.0 * 365.25 * 86_400.0;

/// `read`, telling a line in no kernel log shape (`Ok(None)`) from one in
/// a kernel log's shape whose time cannot be read (`Err`, why: a date that
/// does not exist, an offset no clock has, `[1e300]`).
pub(super) fn parse(line: &str) -> Result<Option<Entry<'_>>, String> {
    let line = line.trim_end();
    if line.starts_with('{') {
        return json_entry(line);
    }
    let line = strip_decorations(line);
    if let Some(rest) = line.strip_prefix('[') {
        let Some((inside, message)) = rest.split_once(']') else {
            return Ok(None);
        };
        let message = message.strip_prefix(' ').unwrap_or(message);
        let Some((when, style)) = bracketed_time(inside.trim())? else {
            return Ok(None);
        };
        return Ok(Some(entry(when, style, None, message)));
    }
    if line.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        let Some((stamp, rest)) = line.split_once(' ') else {
            return Ok(None);
        };
        let Some(ms) = iso_ms(stamp)? else {
            return Ok(None);
        };
        let when = When::Wall {
            ms: ms.0,
            local: !ms.1,
        };
        return Ok(Some(match syslog_tail(rest) {
            Some((host, message)) => entry(when, Style::JournalIso, Some(host), message),
            None => entry(when, Style::DmesgIso, None, rest),
        }));
    }
    Ok(syslog_or_excerpt(line))
}

/// What `[…]` at the start of a line holds: dmesg's seconds since boot or
/// `dmesg -T`'s date; `None` when it is neither (`[drm] …`).
fn bracketed_time(inside: &str) -> Result<Option<(When, Style)>, String> {
    let quoted = || crate::text::printable_excerpt(inside, 40);
    if is_uptime(inside) {
        // Digits and a point: a float, finite and not negative.
        let secs: f64 = inside
            .parse()
            .map_err(|_| format!("[{}] is not seconds since boot", quoted()))?;
        if secs > MAX_UPTIME_S {
            return Err(format!(
                "[{}] is not seconds since boot: more than a century (a corrupt line)",
                quoted()
            ));
        }
        return Ok(Some((When::Uptime(secs), Style::Dmesg)));
    }
    // A number in another spelling ("1e300", "-5", "inf"): not what the
    // kernel prints, and not to be read as one.
    if inside.parse::<f64>().is_ok() {
        return Err(format!(
            "[{}] is not seconds since boot as dmesg writes them (digits, a point, digits)",
            quoted()
        ));
    }
    Ok(civil_ms_of_ctime(inside)?.map(|ms| (When::Wall { ms, local: true }, Style::DmesgReadable)))
}

/// dmesg's seconds since boot: digits, then a point and digits.
fn is_uptime(text: &str) -> bool {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    !whole.is_empty()
        && whole.bytes().all(|c| c.is_ascii_digit())
        && fraction.bytes().all(|c| c.is_ascii_digit())
}

/// The shapes without a leading time of their own: a `grep` excerpt of the
/// driver's words, or syslog's month and day.
fn syslog_or_excerpt(line: &str) -> Option<Entry<'_>> {
    // "kernel: NVRM: …" / "NVRM: …": the driver's words without a time.
    let driver_words = line.strip_prefix("kernel: ").unwrap_or(line);
    if driver_words.starts_with("NVRM: ") || driver_words.starts_with("nvidia-nvswitch") {
        return Some(entry(When::Untimed, Style::Excerpt, None, driver_words));
    }
    // "Jun 01 11:27:05 node-3 kernel: …" / "Jun  1 11:27:05 …"
    let month = MONTHS.iter().position(|m| Some(*m) == line.get(0..3))? as u8 + 1;
    let rest = line.get(3..)?.strip_prefix(' ')?.trim_start();
    let (day, rest) = rest.split_once(' ')?;
    let day: u8 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let (time, rest) = rest.split_once(' ')?;
    let ms_of_day = time_of_day_ms(time)?;
    let (host, message) = syslog_tail(rest)?;
    Some(entry(
        When::NoYear {
            month,
            day,
            ms_of_day,
        },
        Style::Syslog,
        Some(host),
        message,
    ))
}

fn entry<'a>(when: When, style: Style, host: Option<&'a str>, message: &'a str) -> Entry<'a> {
    Entry {
        when,
        style,
        host,
        message: std::borrow::Cow::Borrowed(strip_uptime(message)),
    }
}

/// `dmesg -r`'s "<4>" priority and `dmesg -x`'s "kern  :warn  : " prefix.
fn strip_decorations(line: &str) -> &str {
    let line = match line.strip_prefix('<') {
        Some(rest) => match rest.split_once('>') {
            Some((level, rest)) if level.bytes().all(|c| c.is_ascii_digit()) => rest,
            _ => line,
        },
        None => line,
    };
    // "kern  :warn  : [ …": facility and level, each padded, then colons.
    let mut parts = line.splitn(3, ':');
    if let (Some(facility), Some(level), Some(rest)) = (parts.next(), parts.next(), parts.next())
        && matches!(
            facility.trim(),
            "kern" | "user" | "daemon" | "syslog" | "auth"
        )
        && matches!(
            level.trim(),
            "emerg" | "alert" | "crit" | "err" | "warn" | "notice" | "info" | "debug"
        )
    {
        return rest.trim_start();
    }
    line
}

/// A kernel timestamp kept inside a syslog message: "[ 1234.567890] NVRM: …".
fn strip_uptime(message: &str) -> &str {
    if let Some(rest) = message.strip_prefix('[')
        && let Some((inside, after)) = rest.split_once(']')
        && is_uptime(inside.trim())
    {
        return after.trim_start();
    }
    message
}

/// "node-3 kernel: message" → (host, message). Other tags (a daemon's
/// lines in a whole-system syslog) are entries too: their messages are
/// simply not the driver's.
pub(super) fn syslog_tail(rest: &str) -> Option<(&str, &str)> {
    let (host, rest) = rest.split_once(' ')?;
    let (tag, message) = rest.split_once(": ")?;
    let tag_ok = !tag.is_empty()
        && !tag.contains(' ')
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '[' | ']' | '/' | '@'));
    (!host.is_empty() && tag_ok).then_some((host, message))
}

/// "Sat Jun  1 11:27:05 2024" → civil milliseconds (as if UTC); `None`
/// when the text is not in that shape, an error when it is but names a
/// time that does not exist ("Fri Feb 30 …").
fn civil_ms_of_ctime(text: &str) -> Result<Option<i64>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [_, month, day, time, year] = words.as_slice() else {
        return Ok(None);
    };
    let Some(m) = MONTHS.iter().position(|x| x == month) else {
        return Ok(None);
    };
    // Read as the time reader every format shares reads it, so that the
    // same dates are refused for the same reasons.
    let iso = format!("{year:0>4}-{:02}-{day:0>2} {time}", m + 1);
    match crate::timestamps::read_civil(&iso) {
        Ok((ms, _)) => Ok(Some(ms)),
        Err(e) => Err(format!(
            "[{}] is not a time: {e}",
            crate::text::printable_excerpt(text, 60)
        )),
    }
}

/// "2024-06-01T11:27:05,123456+00:00" → (milliseconds, whether the zone
/// was given): UTC when it was, civil otherwise. `None` for text in
/// another shape; an error for one in this shape that is no time (a date
/// that does not exist, an offset no clock has, text after the offset).
fn iso_ms(stamp: &str) -> Result<Option<(i64, bool)>, String> {
    let b = stamp.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return Ok(None);
    }
    let (naive_ms, offset_ms) = crate::timestamps::read_civil(stamp).map_err(|e| {
        format!(
            "\"{}\" is not a time: {e}",
            crate::text::printable_excerpt(stamp, 60)
        )
    })?;
    Ok(Some(match offset_ms {
        // Years 0000 to 9999 and offsets within ±18:00: no overflow.
        Some(offset) => (naive_ms - offset, true),
        None => (naive_ms, false),
    }))
}

/// "11:27:05" or "11:27:05.123456" → milliseconds into the day.
fn time_of_day_ms(text: &str) -> Option<i64> {
    let (hms, frac) = text.split_once('.').unwrap_or((text, ""));
    let mut parts = hms.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let s: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    if !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let ms: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
    Some(((h * 60 + m) * 60 + s) * 1000 + ms)
}

/// Civil midnight of a date, in milliseconds since the epoch as if UTC.
pub(super) fn civil_ms(y: i64, m: i64, d: i64) -> Option<i64> {
    let date = jiff::civil::Date::new(
        i16::try_from(y).ok()?,
        i8::try_from(m).ok()?,
        i8::try_from(d).ok()?,
    )
    .ok()?;
    let days = date.since(jiff::civil::date(1970, 1, 1)).ok()?.get_days();
    Some(i64::from(days) * 86_400_000)
}

/// `journalctl -o json`: one object per line; the message is a string, or
/// an array of bytes when it was not valid UTF-8. An entry whose time is
/// not microseconds since 1970 that a timestamp can hold is an error.
fn json_entry(line: &str) -> Result<Option<Entry<'static>>, String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
        return Ok(None);
    };
    let Some(stamp) = v.get("__REALTIME_TIMESTAMP") else {
        return Ok(None);
    };
    let micros = stamp
        .as_str()
        .and_then(|s| s.parse::<i64>().ok())
        .filter(|us| jiff::Timestamp::from_microsecond(*us).is_ok())
        .ok_or_else(|| {
            format!(
                "__REALTIME_TIMESTAMP {} is not microseconds since 1970 within the years \
                 -9999 to 9999",
                crate::text::printable_excerpt(&stamp.to_string(), 40)
            )
        })?;
    let Some(message) = v.get("MESSAGE") else {
        return Ok(None);
    };
    let message = match message {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(bytes) => {
            let bytes: Vec<u8> = bytes
                .iter()
                .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => return Ok(None),
    };
    Ok(Some(Entry {
        when: When::Wall {
            ms: micros.div_euclid(1000),
            local: false,
        },
        style: Style::JournalJson,
        host: None,
        message: std::borrow::Cow::Owned(message),
    }))
}

/// The host a JSON entry names (`_HOSTNAME`).
pub(super) fn json_host(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    v.get("_HOSTNAME")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> i64 {
        text.parse::<jiff::Timestamp>().unwrap().as_millisecond()
    }

    #[test]
    fn every_saved_shape_is_read() {
        let e = read(
            "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.",
        )
        .unwrap();
        assert_eq!((e.when, e.style), (When::Uptime(1234.56789), Style::Dmesg));
        assert!(e.message.starts_with("NVRM: Xid"));

        let e = read("<4>[   12.5] NVRM: loading").unwrap();
        assert_eq!(e.when, When::Uptime(12.5));
        let e = read("kern  :warn  : [ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 48, x").unwrap();
        assert_eq!(e.when, When::Uptime(1234.56789));
        assert!(e.message.starts_with("NVRM: Xid"));

        let e = read("[Sat Jun  1 11:27:05 2024] NVRM: Xid (PCI:0000:3b:00): 79").unwrap();
        assert_eq!(
            e.when,
            When::Wall {
                ms: utc("2024-06-01T11:27:05Z"),
                local: true
            }
        );

        let e = read("2024-06-01T11:27:05,123456+02:00 NVRM: x").unwrap();
        assert_eq!(
            (e.when, e.style),
            (
                When::Wall {
                    ms: utc("2024-06-01T09:27:05.123Z"),
                    local: false
                },
                Style::DmesgIso
            )
        );
        let e = read("2024-06-01T11:27:05+0000 gpu-node-7 kernel: NVRM: x").unwrap();
        assert_eq!((e.host, e.style), (Some("gpu-node-7"), Style::JournalIso));
        assert_eq!(e.message, "NVRM: x");
        let e = read("2024-06-01T11:27:05.123456+00:00 gpu-node-7 kernel: [ 9.1] NVRM: x").unwrap();
        assert_eq!(e.message, "NVRM: x");

        let e = read("Jun  1 11:27:05 node-3 kernel: [ 1234.5] NVRM: x").unwrap();
        assert_eq!(
            (e.when, e.host, &*e.message),
            (
                When::NoYear {
                    month: 6,
                    day: 1,
                    ms_of_day: 41_225_000
                },
                Some("node-3"),
                "NVRM: x"
            )
        );
        let e = read("Jun 01 11:27:05 node-3 kernel: NVRM: x").unwrap();
        assert_eq!(e.host, Some("node-3"));

        let e = read(
            r#"{"__REALTIME_TIMESTAMP":"1717241225123456","_HOSTNAME":"n","MESSAGE":"NVRM: x"}"#,
        )
        .unwrap();
        assert_eq!(
            (e.when, &*e.message),
            (
                When::Wall {
                    ms: 1_717_241_225_123,
                    local: false
                },
                "NVRM: x"
            )
        );
        let e = read(r#"{"__REALTIME_TIMESTAMP":"1","MESSAGE":[78,86,82,77,255]}"#).unwrap();
        assert!(e.message.starts_with("NVRM"));
    }

    #[test]
    fn a_kernel_shape_with_a_time_that_cannot_be_read_is_an_error_not_noise() {
        for line in [
            "[99999999999999999999.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=0",
            "[1e300] NVRM: x",
            "[-5] NVRM: x",
            "[NaN] NVRM: x",
            "[Mon Feb 30 10:00:00 2026] NVRM: x",
            "[Mon Jun  1 25:00:00 2026] NVRM: x",
            "2026-02-30T10:00:00,000000+00:00 NVRM: x",
            "2026-06-01T10:00:00+99:99 node kernel: NVRM: x",
            "2026-06-01T10:00:00+05:30junk NVRM: x",
            r#"{"__REALTIME_TIMESTAMP":"9223372036854775807","MESSAGE":"NVRM: x"}"#,
            r#"{"__REALTIME_TIMESTAMP":"soon","MESSAGE":"NVRM: x"}"#,
        ] {
            assert!(parse(line).is_err(), "{line}");
            assert_eq!(read(line), None, "{line}");
        }
        // Not a kernel time at all: not an entry, and no error.
        for line in [
            "[drm] Initialized nvidia-drm 0.0.0",
            "3b:00.0 VGA compatible",
            "[] x",
        ] {
            assert_eq!(parse(line), Ok(None), "{line}");
        }
        // The largest uptime read: a century; the kernel's own stamps.
        assert_eq!(
            read("[3155760000.000000] x").map(|e| e.when),
            Some(When::Uptime(3_155_760_000.0))
        );
        assert!(parse("[3155760000.000001] x").is_err());
        assert_eq!(read("[   12] x").map(|e| e.when), Some(When::Uptime(12.0)));
    }

    #[test]
    fn other_lines_are_not_entries() {
        for line in [
            "-- Logs begin at Sat 2024-06-01 10:00:00 UTC. --",
            "-- Boot 3f1a --",
            "    continuation of a stack dump",
            "[not a time] text",
            "2024-13-01T00:00:00 x",
            "Jun 99 11:27:05 node kernel: x",
            "",
        ] {
            assert_eq!(read(line), None, "{line:?}");
        }
    }
}
