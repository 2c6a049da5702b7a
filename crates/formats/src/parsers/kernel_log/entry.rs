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
/// (a journal marker, a continuation, noise).
pub(super) fn read(line: &str) -> Option<Entry<'_>> {
    let line = line.trim_end();
    if line.starts_with('{') {
        return json_entry(line);
    }
    let line = strip_decorations(line);
    if let Some(rest) = line.strip_prefix('[') {
        let (inside, message) = rest.split_once(']')?;
        let message = message.strip_prefix(' ').unwrap_or(message);
        if let Ok(secs) = inside.trim().parse::<f64>() {
            if !secs.is_finite() || secs < 0.0 {
                return None;
            }
            return Some(entry(When::Uptime(secs), Style::Dmesg, None, message));
        }
        let ms = civil_ms_of_ctime(inside.trim())?;
        return Some(entry(
            When::Wall { ms, local: true },
            Style::DmesgReadable,
            None,
            message,
        ));
    }
    if line.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        let (stamp, rest) = line.split_once(' ')?;
        let ms = iso_ms(stamp)?;
        let when = When::Wall {
            ms: ms.0,
            local: !ms.1,
        };
        return Some(match syslog_tail(rest) {
            Some((host, message)) => entry(when, Style::JournalIso, Some(host), message),
            None => entry(when, Style::DmesgIso, None, rest),
        });
    }
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
        && inside.trim().parse::<f64>().is_ok()
    {
        return after.trim_start();
    }
    message
}

/// "node-3 kernel: message" → (host, message). Other tags (a daemon's
/// lines in a whole-system syslog) are entries too: their messages are
/// simply not the driver's.
fn syslog_tail(rest: &str) -> Option<(&str, &str)> {
    let (host, rest) = rest.split_once(' ')?;
    let (tag, message) = rest.split_once(": ")?;
    let tag_ok = !tag.is_empty()
        && !tag.contains(' ')
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '[' | ']' | '/' | '@'));
    (!host.is_empty() && tag_ok).then_some((host, message))
}

/// "Sat Jun  1 11:27:05 2024" → civil milliseconds (as if UTC).
fn civil_ms_of_ctime(text: &str) -> Option<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [_, month, day, time, year] = words.as_slice() else {
        return None;
    };
    let m = MONTHS.iter().position(|x| x == month)? as i64 + 1;
    let d: i64 = day.parse().ok()?;
    let y: i64 = year.parse().ok()?;
    Some(civil_ms(y, m, d)? + time_of_day_ms(time)?)
}

/// "2024-06-01T11:27:05,123456+00:00" → (milliseconds, whether the zone
/// was given): UTC when it was, civil otherwise.
fn iso_ms(stamp: &str) -> Option<(i64, bool)> {
    let b = stamp.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let y: i64 = stamp.get(0..4)?.parse().ok()?;
    let m: i64 = stamp.get(5..7)?.parse().ok()?;
    let d: i64 = stamp.get(8..10)?.parse().ok()?;
    let rest = &stamp[11..];
    let zone_at = rest.find(['+', '-', 'Z']).unwrap_or(rest.len());
    let ms = civil_ms(y, m, d)? + time_of_day_ms(&rest[..zone_at].replace(',', "."))?;
    let zone = &rest[zone_at..];
    if zone.is_empty() {
        return Some((ms, false));
    }
    if zone == "Z" {
        return Some((ms, true));
    }
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let digits: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
    if digits.len() != 4 {
        return None;
    }
    let h: i64 = digits[..2].parse().ok()?;
    let mi: i64 = digits[2..].parse().ok()?;
    Some((ms - sign * (h * 60 + mi) * 60_000, true))
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
/// an array of bytes when it was not valid UTF-8.
fn json_entry(line: &str) -> Option<Entry<'static>> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let micros: i64 = v.get("__REALTIME_TIMESTAMP")?.as_str()?.parse().ok()?;
    let message = match v.get("MESSAGE")? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(bytes) => {
            let bytes: Vec<u8> = bytes
                .iter()
                .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        _ => return None,
    };
    Some(Entry {
        when: When::Wall {
            ms: micros.div_euclid(1000),
            local: false,
        },
        style: Style::JournalJson,
        host: None,
        message: std::borrow::Cow::Owned(message),
    })
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
