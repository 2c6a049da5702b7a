//! Timestamps as logs write them, to UTC milliseconds.
//!
//! nvidia-smi writes local wall-clock time without a zone
//! (`2024/06/01 11:27:05.177`); other tools write RFC 3339, dates without
//! separators (dmon `20240601 11:27:05`) or epoch seconds. Zone-less times
//! are read in the zone the user gives (default: the machine's). Converting
//! a civil time through the zone database is the costly part, so the offset
//! is cached per civil minute — a 48 h log at 1 Hz needs 2 880 look-ups, not
//! 1.4 million.

use std::fmt;

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// Why a text is not a time, in words for the user. Callers put the file,
/// line and column in front, as they do for every bad cell
/// (`"2026-02-30 10:00:00" is not a time for timestamp: 2026-02-30 does not
/// exist: February 2026 has 28 days`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeError {
    /// In none of the shapes read.
    Shape,
    Month(i64),
    Day {
        year: i64,
        month: i64,
        day: i64,
    },
    Hour(i64),
    Minute(i64),
    Second(i64),
    /// A zone offset that is not `±HH`, `±HHMM` or `±HH:MM`.
    OffsetShape(String),
    /// A zone offset no clock is set to (hours past 18, minutes past 59).
    OffsetRange(String),
    /// Text after the time, or after its zone offset.
    Trailing {
        after: &'static str,
        text: String,
    },
    /// A time outside what a timestamp can hold (about the years -9999 to
    /// 9999): the instant the text gives, in milliseconds, or none when it
    /// is too large even for that.
    OutOfRange(Option<i64>),
    /// An epoch that is not a non-negative number.
    Epoch(String),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MONTHS: [&str; 12] = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        let quoted = |t: &str| crate::text::printable_excerpt(t, 40);
        match self {
            TimeError::Shape => f.write_str(
                "not a date and time (2024-06-01 11:27:05, 2024/06/01 11:27:05.177 or \
                 20240601 11:27:05, optionally with Z or ±HH:MM)",
            ),
            TimeError::Month(m) => write!(f, "there is no month {m:02}"),
            TimeError::Day { year, month, day } => {
                let name = usize::try_from(*month - 1)
                    .ok()
                    .and_then(|i| MONTHS.get(i))
                    .copied()
                    .unwrap_or("the month");
                write!(
                    f,
                    "{year:04}-{month:02}-{day:02} does not exist: {name} {year} has {} days",
                    days_in_month(*year, *month)
                )
            }
            TimeError::Hour(h) => write!(f, "there is no hour {h:02} (00 to 23)"),
            TimeError::Minute(m) => write!(f, "there is no minute {m:02} (00 to 59)"),
            TimeError::Second(s) => write!(f, "there is no second {s:02} (00 to 60)"),
            TimeError::OffsetShape(o) => write!(
                f,
                "the zone offset \"{}\" is not ±HH:MM, ±HHMM or ±HH",
                quoted(o)
            ),
            TimeError::OffsetRange(o) => write!(
                f,
                "the zone offset {o} does not exist (offsets run from -18:00 to +18:00, \
                 minutes 00 to 59)"
            ),
            TimeError::Trailing { after, text } => {
                write!(f, "\"{}\" follows the {after}", quoted(text))
            }
            TimeError::OutOfRange(Some(ms)) => write!(
                f,
                "{ms} ms since 1970 is outside the times that can be stored (years -9999 to 9999)"
            ),
            TimeError::OutOfRange(None) => {
                f.write_str("it is outside the times that can be stored (years -9999 to 9999)")
            }
            TimeError::Epoch(text) => write!(
                f,
                "\"{}\" is not seconds or milliseconds since 1970",
                quoted(text)
            ),
        }
    }
}

impl std::error::Error for TimeError {}

/// Milliseconds since 1970 a timestamp can hold; a time outside them would
/// wrap or panic wherever it is turned into an instant or a duration.
fn storable(ms: i64) -> Result<i64, TimeError> {
    if (Timestamp::MIN.as_millisecond()..=Timestamp::MAX.as_millisecond()).contains(&ms) {
        Ok(ms)
    } else {
        Err(TimeError::OutOfRange(Some(ms)))
    }
}

/// The widest zone offset accepted, in minutes: real zones run from -12:00
/// to +14:00; ±18:00 is the bound ISO 8601 tools such as java.time accept
/// (jiff's own, ±25:59:59, is wider still), so no clock a real machine is
/// set to is refused, and `+99:99` — no offset at all — is.
const MAX_OFFSET_MINUTES: i64 = 18 * 60;

pub struct TimeReader {
    tz: TimeZone,
    /// (civil minute since the epoch, offset in ms) of the last conversion.
    cached: Option<(i64, i64)>,
    /// The last zone-less time's text up to its seconds and the UTC
    /// milliseconds of that second: the rows of one sampling round share it
    /// (eight GPUs, one second), so for them only the fraction is read.
    second: Option<([u8; SECOND_PREFIX], i64)>,
    /// The last text read, whole, and its time: rows of one round without
    /// a fraction share it (dmon's eight GPUs, one second).
    last: Option<([u8; LAST_TEXT], usize, i64)>,
    /// Whether a time was read in `tz` (it was written without a zone): an
    /// import says then which zone it took.
    zoneless: bool,
}

/// The longest text kept as the last one read.
const LAST_TEXT: usize = 32;

/// `YYYY/MM/DD HH:MM:SS`.
const SECOND_PREFIX: usize = 19;

/// Milliseconds of what follows the seconds, when that is nothing or a
/// fraction and nothing else — read as `parse_civil` reads it.
fn fraction_ms(rest: &[u8]) -> Option<i64> {
    // nvidia-smi's own: a point and three digits.
    if let [b'.' | b',', a, b, c] = *rest
        && [a, b, c].iter().all(u8::is_ascii_digit)
    {
        return Some(i64::from(a - b'0') * 100 + i64::from(b - b'0') * 10 + i64::from(c - b'0'));
    }
    let Some((separator, digits)) = rest.split_first() else {
        return Some(0);
    };
    if !matches!(separator, b'.' | b',') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .take(3)
            .zip([100, 10, 1])
            .map(|(d, scale)| i64::from(d - b'0') * scale)
            .sum(),
    )
}

fn two(b: &[u8], i: usize) -> Option<i64> {
    let d = |c: u8| c.is_ascii_digit().then(|| i64::from(c - b'0'));
    Some(d(*b.get(i)?)? * 10 + d(*b.get(i + 1)?)?)
}

fn four(b: &[u8], i: usize) -> Option<i64> {
    Some(two(b, i)? * 100 + two(b, i + 2)?)
}

/// Days in a month of the proleptic Gregorian calendar.
fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm), so that the hot path avoids the zone database entirely.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A civil date-time read from text: its milliseconds as if it were UTC,
/// and the zone offset it carried, if any.
struct Civil {
    naive_ms: i64,
    offset_ms: Option<i64>,
}

/// `YYYY?MM?DD[ T]HH:MM:SS[.fff][Z|±HH:MM]` where `?` is `/` or `-`, or
/// dmon's `YYYYMMDD HH:MM:SS`; after an offset, RFC 9557's bracketed
/// annotations (`+08:00[Asia/Shanghai]`, as jiff and java.time write
/// them). Dates that do not exist (2026-02-30) are refused, not rolled
/// over into the next month.
fn parse_civil(text: &str) -> Result<Civil, TimeError> {
    use TimeError::Shape;
    let b = text.trim_ascii().as_bytes();
    let (y, mo, d, rest) = if b.len() >= 10 && matches!(b[4], b'/' | b'-') && b[7] == b[4] {
        (
            four(b, 0).ok_or(Shape)?,
            two(b, 5).ok_or(Shape)?,
            two(b, 8).ok_or(Shape)?,
            10,
        )
    } else if b.len() >= 8 && b[..8].iter().all(u8::is_ascii_digit) {
        (
            four(b, 0).ok_or(Shape)?,
            two(b, 4).ok_or(Shape)?,
            two(b, 6).ok_or(Shape)?,
            8,
        )
    } else {
        return Err(Shape);
    };
    if !(1..=12).contains(&mo) {
        return Err(TimeError::Month(mo));
    }
    if !(1..=days_in_month(y, mo)).contains(&d) {
        return Err(TimeError::Day {
            year: y,
            month: mo,
            day: d,
        });
    }
    let mut i = rest;
    let (mut h, mut mi, mut s, mut ms) = (0, 0, 0, 0);
    if i < b.len() {
        if !matches!(b[i], b' ' | b'T' | b't' | b'_') {
            return Err(Shape);
        }
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i < b.len() && matches!(b[i], b'T' | b't' | b'_') {
            i += 1;
        }
        h = two(b, i).ok_or(Shape)?;
        if b.get(i + 2) != Some(&b':') {
            return Err(Shape);
        }
        mi = two(b, i + 3).ok_or(Shape)?;
        i += 5;
        if b.get(i) == Some(&b':') {
            s = two(b, i + 1).ok_or(Shape)?;
            i += 3;
        }
        if matches!(b.get(i), Some(b'.' | b',')) {
            i += 1;
            let mut scale = 100;
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                ms += i64::from(c - b'0') * scale;
                scale /= 10;
                i += 1;
            }
        }
    }
    if h > 23 {
        return Err(TimeError::Hour(h));
    }
    if mi > 59 {
        return Err(TimeError::Minute(mi));
    }
    // 60: a leap second, as `date` prints it.
    if s > 60 {
        return Err(TimeError::Second(s));
    }
    let (offset_ms, end) = match b.get(i) {
        None => (None, i),
        Some(b'Z' | b'z') => (Some(0), i + 1),
        Some(&sign @ (b'+' | b'-')) => {
            let (minutes, end) = offset_minutes(b, i)?;
            let o = minutes * 60_000;
            (Some(if sign == b'-' { -o } else { o }), end)
        }
        Some(_) => {
            return Err(TimeError::Trailing {
                after: "time",
                text: String::from_utf8_lossy(&b[i..]).into_owned(),
            });
        }
    };
    // Only RFC 9557 annotations may follow an offset; without an offset a
    // zone name in brackets would be read in the wrong zone, so it is
    // refused like any other trailing text.
    if end < b.len() && !(offset_ms.is_some() && is_annotation(&b[end..])) {
        return Err(TimeError::Trailing {
            after: if offset_ms.is_some() {
                "zone offset"
            } else {
                "time"
            },
            text: String::from_utf8_lossy(&b[end..]).into_owned(),
        });
    }
    let days = days_from_civil(y, mo, d);
    let naive_ms = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms;
    Ok(Civil {
        naive_ms,
        offset_ms,
    })
}

/// The zone offset at `b[i]` (its sign): its size in minutes and where it
/// ends. `±HH`, `±HHMM` or `±HH:MM`, within ±18:00.
fn offset_minutes(b: &[u8], i: usize) -> Result<(i64, usize), TimeError> {
    // What is quoted when the offset is refused: up to where it should end.
    let quoted = |end: usize| String::from_utf8_lossy(&b[i..end.min(b.len())]).into_owned();
    let Some(oh) = two(b, i + 1) else {
        return Err(TimeError::OffsetShape(quoted(i + 6)));
    };
    let (om, end) = match b.get(i + 3) {
        Some(b':') => match two(b, i + 4) {
            Some(om) => (om, i + 6),
            None => return Err(TimeError::OffsetShape(quoted(i + 6))),
        },
        Some(c) if c.is_ascii_digit() => match two(b, i + 3) {
            Some(om) => (om, i + 5),
            None => return Err(TimeError::OffsetShape(quoted(i + 5))),
        },
        _ => (0, i + 3),
    };
    let minutes = oh * 60 + om;
    if om > 59 || minutes > MAX_OFFSET_MINUTES {
        return Err(TimeError::OffsetRange(quoted(end)));
    }
    Ok((minutes, end))
}

/// `[Asia/Shanghai]`, `[u-ca=iso8601]`, `[!Europe/Berlin]`, one or more:
/// RFC 9557's suffixes, read past (the offset before them says the
/// instant).
fn is_annotation(mut b: &[u8]) -> bool {
    while let Some(rest) = b.strip_prefix(b"[") {
        let Some(close) = rest.iter().position(|c| *c == b']') else {
            return false;
        };
        let inside = &rest[..close];
        let fine = !inside.is_empty()
            && inside.iter().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'+' | b'=' | b'!')
            });
        if !fine {
            return false;
        }
        b = &rest[close + 1..];
    }
    b.is_empty()
}

/// A date-time as a log writes it, read as `TimeReader` reads it but
/// without a zone: its milliseconds as if it were UTC, and the offset it
/// carried, if any (for parsers with their own shapes, as the kernel log's
/// ISO times, so that they refuse what this reader refuses).
pub(crate) fn read_civil(text: &str) -> Result<(i64, Option<i64>), TimeError> {
    parse_civil(text).map(|c| (c.naive_ms, c.offset_ms))
}

impl TimeReader {
    pub fn new(tz: TimeZone) -> Self {
        Self {
            tz,
            cached: None,
            second: None,
            last: None,
            zoneless: false,
        }
    }

    /// The zone zone-less times are read in.
    pub fn zone(&self) -> &TimeZone {
        &self.tz
    }

    /// Whether any time read was written without a zone (and so read in
    /// `zone`). Parsers that read ahead on workers read their first rows
    /// here, in order, and a log writes its times one way throughout.
    pub fn read_zoneless(&self) -> bool {
        self.zoneless
    }

    /// A date-time as text; `None` when it is not one (`read` says why).
    pub fn parse(&mut self, text: &str) -> Option<i64> {
        self.read(text).ok()
    }

    /// The common cell of a log's rows read in one pass over its bytes:
    /// spaces, a time within the minute read last (`YYYY/MM/DD HH:MM:SS`
    /// as before, then a point and three digits), spaces, then `sep` or the
    /// end. Gives the time and how many bytes the cell spans, as `read`
    /// gives the time of the cell's text; `None` for any other cell, which
    /// `read` then reads.
    #[inline]
    pub fn read_plain(&mut self, bytes: &[u8], sep: u8) -> Option<(i64, usize)> {
        let lead = bytes.iter().take_while(|b| **b == b' ').count();
        let (prefix, rest) = bytes[lead..].split_first_chunk::<SECOND_PREFIX>()?;
        // A comma that separates cells does not start a fraction.
        let (fraction, rest) = rest.split_first_chunk::<4>()?;
        if fraction[0] == sep {
            return None;
        }
        let trail = rest.iter().take_while(|b| **b == b' ').count();
        if rest.get(trail).is_some_and(|b| *b != sep) {
            return None;
        }
        let ms = fraction_ms(fraction)?;
        let second_ms = self.second_of(prefix)?;
        let t_ms = storable(second_ms + ms).ok()?;
        Some((t_ms, bytes.len() - rest.len() + trail))
    }

    /// The UTC milliseconds of the second a time written as `prefix`
    /// (`YYYY/MM/DD HH:MM:SS` or another shape of that length) begins,
    /// where it is the second read last, or another second of the same
    /// minute: the zone's offset is taken once a minute (`offset_at`), so
    /// the seconds of a minute are its first one's plus their count. The
    /// second becomes the one read last. `None` for any other prefix.
    #[inline]
    fn second_of(&mut self, prefix: &[u8; SECOND_PREFIX]) -> Option<i64> {
        let (seen, second_ms) = self.second.as_mut()?;
        if prefix == seen {
            return Some(*second_ms);
        }
        const MINUTE: usize = SECOND_PREFIX - 2;
        let seconds = |p: &[u8; SECOND_PREFIX]| match p[MINUTE - 1..] {
            [b':', s1 @ b'0'..=b'5', s2 @ b'0'..=b'9'] => {
                Some(i64::from(s1 - b'0') * 10 + i64::from(s2 - b'0'))
            }
            _ => None,
        };
        if prefix[..MINUTE] != seen[..MINUTE] {
            return None;
        }
        let utc_ms = *second_ms + (seconds(prefix)? - seconds(seen)?) * 1000;
        (*seen, *second_ms) = (*prefix, utc_ms);
        Some(utc_ms)
    }

    /// A date-time as text, in UTC milliseconds, or why it is not one.
    pub fn read(&mut self, text: &str) -> Result<i64, TimeError> {
        let b = text.trim_ascii().as_bytes();
        // The last byte first: where texts differ, it is mostly there
        // (the milliseconds of nvidia-smi's rows), and a compare is spared.
        if let Some((seen, len, t_ms)) = &self.last
            && *len == b.len()
            && b.last() == seen.get(len.wrapping_sub(1))
            && seen[..*len] == *b
        {
            return Ok(*t_ms);
        }
        // As arrays, the prefixes compare in a few loads, not a call.
        let split = b.split_first_chunk::<SECOND_PREFIX>();
        if let Some((prefix, rest)) = split
            && let Some(ms) = fraction_ms(rest)
            && let Some(second_ms) = self.second_of(prefix)
        {
            return storable(second_ms + ms);
        }
        let civil = parse_civil(text)?;
        let utc_ms = match civil.offset_ms {
            // Years 0000 to 9999 and offsets within ±18:00: no overflow,
            // though the edges fall outside what a timestamp holds.
            Some(offset) => storable(civil.naive_ms - offset)?,
            None => {
                let utc_ms = storable(civil.naive_ms - self.offset_at(civil.naive_ms)?)?;
                if let Some((prefix, rest)) = split
                    && let Some(ms) = fraction_ms(rest)
                {
                    self.second = Some((*prefix, utc_ms - ms));
                }
                utc_ms
            }
        };
        // Kept only from here, the slow way: the rows the cache of seconds
        // serves would write it for nothing.
        if b.len() <= LAST_TEXT {
            let mut seen = [0; LAST_TEXT];
            seen[..b.len()].copy_from_slice(b);
            self.last = Some((seen, b.len(), utc_ms));
        }
        Ok(utc_ms)
    }

    /// The zone's offset for a civil time given as naive milliseconds.
    fn offset_at(&mut self, naive_ms: i64) -> Result<i64, TimeError> {
        self.zoneless = true;
        let minute = naive_ms.div_euclid(60_000);
        if let Some((m, offset)) = self.cached
            && m == minute
        {
            return Ok(offset);
        }
        let out_of_range = |_| TimeError::OutOfRange(Some(naive_ms));
        let naive = Timestamp::from_millisecond(minute * 60_000).map_err(out_of_range)?;
        let civil: DateTime = TimeZone::UTC.to_datetime(naive);
        // Ambiguous times (the repeated hour in autumn) take the earlier
        // instant, as `date` does; skipped times move forward.
        let zoned = self
            .tz
            .to_ambiguous_zoned_datetime(civil)
            .compatible()
            .map_err(out_of_range)?;
        let offset = i64::from(zoned.offset().seconds()) * 1000;
        self.cached = Some((minute, offset));
        Ok(offset)
    }

    /// nvidia-smi's C-library date, "Mon Jun  3 10:00:00 2024" (local
    /// time), as `-q` and the default table print it; other date-times as
    /// `parse` reads them.
    pub fn parse_ctime(&mut self, value: &str) -> Option<i64> {
        self.read_ctime(value).ok()
    }

    /// `parse_ctime`, or why the text is not a time ("Fri Feb 30 …" is
    /// refused with the date that does not exist).
    pub fn read_ctime(&mut self, value: &str) -> Result<i64, TimeError> {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let words: Vec<&str> = value.split_whitespace().collect();
        match words.as_slice() {
            [_, month, day, time, year] => {
                let m = MONTHS
                    .iter()
                    .position(|x| x == month)
                    .ok_or(TimeError::Shape)?
                    + 1;
                let d: u32 = day.parse().map_err(|_| TimeError::Shape)?;
                self.read(&format!("{year}-{m:02}-{d:02} {time}"))
            }
            _ => self.read(value),
        }
    }

    /// A line that is nothing but a date, as `date` writes it between the
    /// outputs of a monitoring loop (`while :; do date; nvidia-smi …; done`):
    /// the C locale's "Sat Jun  1 11:27:05 UTC 2024", zh_CN's "2024年 06月
    /// 01日 星期六 11:27:05 CST", `date -R`'s "Sat, 01 Jun 2024 11:27:05
    /// +0000", `date -Is` and `date '+%F %T'`. Zone abbreviations other than
    /// UTC/GMT are ambiguous (CST is China's and America's), so those times
    /// are read in the given zone.
    pub fn parse_date_line(&mut self, line: &str) -> Option<i64> {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let month = |m: &str| MONTHS.iter().position(|x| *x == m).map(|i| i + 1);
        let is_time = |t: &str| t.len() >= 8 && t.as_bytes()[2] == b':' && t.as_bytes()[5] == b':';
        let utc = |zone: &str| matches!(zone, "UTC" | "GMT" | "Z");
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            // date (C locale): weekday month day time zone year
            [_, mon, day, time, zone, year] if is_time(time) => {
                let m = month(mon)?;
                let d: u32 = day.parse().ok()?;
                let z = if utc(zone) { "Z" } else { "" };
                self.parse(&format!("{year}-{m:02}-{d:02} {time}{z}"))
            }
            // date -R: "Sat, 01 Jun 2024 11:27:05 +0000"
            [wd, day, mon, year, time, offset] if wd.ends_with(',') && is_time(time) => {
                let m = month(mon)?;
                let d: u32 = day.parse().ok()?;
                let (sign, hhmm) = offset.split_at_checked(1)?;
                if !matches!(sign, "+" | "-") || hhmm.len() != 4 {
                    return None;
                }
                let (h, mm) = hhmm.split_at(2);
                self.parse(&format!("{year}-{m:02}-{d:02} {time}{sign}{h}:{mm}"))
            }
            // zh_CN: "2024年 06月 01日 星期六 11:27:05 CST"
            [y, mo, d, ..] if y.ends_with('年') && mo.ends_with('月') && d.ends_with('日') => {
                let num = |w: &str, suffix: char| w.trim_end_matches(suffix).parse::<u32>().ok();
                let (y, mo, d) = (num(y, '年')?, num(mo, '月')?, num(d, '日')?);
                let time = words.iter().find(|w| is_time(w))?;
                let z = if words.last().is_some_and(|z| utc(z)) {
                    "Z"
                } else {
                    ""
                };
                self.parse(&format!("{y:04}-{mo:02}-{d:02} {time}{z}"))
            }
            [_, _, _, _, _] => self.parse_ctime(line),
            // date -Is, date '+%F %T'
            [one] => self.parse(one),
            [date, time] if date.len() == 10 && is_time(time) => self.parse(line),
            _ => None,
        }
    }

    /// A time of day ("11:27:05") on a given date, for dmon's `-o T`.
    pub fn parse_on(&mut self, date: Date, time_of_day: &str) -> Option<i64> {
        let text = format!(
            "{:04}-{:02}-{:02} {}",
            date.year(),
            date.month(),
            date.day(),
            time_of_day.trim()
        );
        self.parse(&text)
    }
}

/// Epoch seconds or milliseconds as a number ("1717200000", "1717200000.5",
/// "1717200000000"): values above 10¹¹ are taken as milliseconds.
pub fn parse_epoch(text: &str) -> Option<i64> {
    read_epoch(text).ok()
}

/// `parse_epoch`, or why the text is not an epoch. An epoch past what a
/// timestamp holds (2⁶³−1, `1e300`) is refused here: cast to an integer it
/// would saturate, and the arithmetic on it downstream overflow.
pub fn read_epoch(text: &str) -> Result<i64, TimeError> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| TimeError::Epoch(text.trim().to_string()))?;
    if !v.is_finite() || v < 0.0 {
        return Err(TimeError::Epoch(text.trim().to_string()));
    }
    let ms = if v >= 1e11 { v } else { v * 1000.0 }.round();
    // Compared as floats, so that nothing is cast before it is known to fit.
    let (min, max) = (
        Timestamp::MIN.as_millisecond(),
        Timestamp::MAX.as_millisecond(),
    );
    if ms < min as f64 || ms > max as f64 {
        return Err(TimeError::OutOfRange(None));
    }
    Ok(ms as i64)
}

/// Today's date in the machine's zone: the day rates are looked up for and
/// prices' ages are counted to.
pub fn today() -> jiff::civil::Date {
    local_zone().to_datetime(Timestamp::now()).date()
}

/// The machine's own zone, or UTC where it cannot be found.
pub fn local_zone() -> TimeZone {
    TimeZone::try_system().unwrap_or(TimeZone::UTC)
}

/// A zone by IANA name ("Asia/Shanghai"), "UTC", "local" or a fixed offset ("+08:00").
pub fn zone_named(name: &str) -> Result<TimeZone, String> {
    let n = name.trim();
    if n.eq_ignore_ascii_case("local") {
        return Ok(local_zone());
    }
    if n.eq_ignore_ascii_case("utc") || n == "Z" {
        return Ok(TimeZone::UTC);
    }
    // A name that starts with a sign is an offset (no IANA name does): it
    // is refused with what is wrong with it, not as an unknown zone.
    if n.starts_with(['+', '-']) {
        let civil = parse_civil(&format!("2000-01-01T00:00:00{n}"))
            .map_err(|e| format!("\"{n}\" is not a zone offset: {e}"))?;
        let seconds = civil.offset_ms.unwrap_or(0) / 1000;
        let offset = i32::try_from(seconds)
            .map_err(|e| e.to_string())
            .and_then(|s| jiff::tz::Offset::from_seconds(s).map_err(|e| e.to_string()))?;
        return Ok(TimeZone::fixed(offset));
    }
    TimeZone::get(n).map_err(|_| {
        format!("unknown time zone \"{n}\" (use an IANA name such as Asia/Shanghai, UTC or +08:00)")
    })
}

#[cfg(test)]
mod tests;
