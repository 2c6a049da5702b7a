//! Timestamps as logs write them, to UTC milliseconds.
//!
//! nvidia-smi writes local wall-clock time without a zone
//! (`2024/06/01 11:27:05.177`); other tools write RFC 3339, dates without
//! separators (dmon `20240601 11:27:05`) or epoch seconds. Zone-less times
//! are read in the zone the user gives (default: the machine's). Converting
//! a civil time through the zone database is the costly part, so the offset
//! is cached per civil minute — a 48 h log at 1 Hz needs 2 880 look-ups, not
//! 1.4 million.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

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
/// dmon's `YYYYMMDD HH:MM:SS`.
fn parse_civil(text: &str) -> Option<Civil> {
    let b = text.trim_ascii().as_bytes();
    let (y, mo, d, rest) = if b.len() >= 10 && matches!(b[4], b'/' | b'-') && b[7] == b[4] {
        (four(b, 0)?, two(b, 5)?, two(b, 8)?, 10)
    } else if b.len() >= 8 && b[..8].iter().all(u8::is_ascii_digit) {
        (four(b, 0)?, two(b, 4)?, two(b, 6)?, 8)
    } else {
        return None;
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let mut i = rest;
    let (mut h, mut mi, mut s, mut ms) = (0, 0, 0, 0);
    if i < b.len() {
        if !matches!(b[i], b' ' | b'T' | b't' | b'_') {
            return None;
        }
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i < b.len() && matches!(b[i], b'T' | b't' | b'_') {
            i += 1;
        }
        h = two(b, i)?;
        if b.get(i + 2) != Some(&b':') {
            return None;
        }
        mi = two(b, i + 3)?;
        i += 5;
        if b.get(i) == Some(&b':') {
            s = two(b, i + 1)?;
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
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let offset_ms = match b.get(i) {
        None => None,
        Some(b'Z' | b'z') if i + 1 == b.len() => Some(0),
        Some(&sign @ (b'+' | b'-')) => {
            let oh = two(b, i + 1)?;
            let om = match b.get(i + 3) {
                Some(b':') => two(b, i + 4)?,
                Some(_) => two(b, i + 3)?,
                None => 0,
            };
            let o = (oh * 60 + om) * 60_000;
            Some(if sign == b'-' { -o } else { o })
        }
        Some(b' ') if b[i..].iter().all(|c| *c == b' ') => None,
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    let naive_ms = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms;
    Some(Civil {
        naive_ms,
        offset_ms,
    })
}

impl TimeReader {
    pub fn new(tz: TimeZone) -> Self {
        Self {
            tz,
            cached: None,
            second: None,
            last: None,
        }
    }

    /// The zone zone-less times are read in.
    pub fn zone(&self) -> &TimeZone {
        &self.tz
    }

    /// A date-time as text; `None` when it is not one.
    pub fn parse(&mut self, text: &str) -> Option<i64> {
        let b = text.trim_ascii().as_bytes();
        // The last byte first: where texts differ, it is mostly there
        // (the milliseconds of nvidia-smi's rows), and a compare is spared.
        if let Some((seen, len, t_ms)) = &self.last
            && *len == b.len()
            && b.last() == seen.get(len.wrapping_sub(1))
            && seen[..*len] == *b
        {
            return Some(*t_ms);
        }
        // As arrays, the prefixes compare in a few loads, not a call.
        let split = b.split_first_chunk::<SECOND_PREFIX>();
        if let (Some((prefix, rest)), Some((seen, utc_ms))) = (split, &self.second)
            && prefix == seen
            && let Some(ms) = fraction_ms(rest)
        {
            return Some(utc_ms + ms);
        }
        let civil = parse_civil(text)?;
        let utc_ms = match civil.offset_ms {
            Some(offset) => civil.naive_ms - offset,
            None => {
                let utc_ms = civil.naive_ms - self.offset_at(civil.naive_ms)?;
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
        Some(utc_ms)
    }

    /// The zone's offset for a civil time given as naive milliseconds.
    fn offset_at(&mut self, naive_ms: i64) -> Option<i64> {
        let minute = naive_ms.div_euclid(60_000);
        if let Some((m, offset)) = self.cached
            && m == minute
        {
            return Some(offset);
        }
        let naive = Timestamp::from_millisecond(minute * 60_000).ok()?;
        let civil: DateTime = TimeZone::UTC.to_datetime(naive);
        // Ambiguous times (the repeated hour in autumn) take the earlier
        // instant, as `date` does; skipped times move forward.
        let zoned = self
            .tz
            .to_ambiguous_zoned_datetime(civil)
            .compatible()
            .ok()?;
        let offset = i64::from(zoned.offset().seconds()) * 1000;
        self.cached = Some((minute, offset));
        Some(offset)
    }

    /// nvidia-smi's C-library date, "Mon Jun  3 10:00:00 2024" (local
    /// time), as `-q` and the default table print it; other date-times as
    /// `parse` reads them.
    pub fn parse_ctime(&mut self, value: &str) -> Option<i64> {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let words: Vec<&str> = value.split_whitespace().collect();
        match words.as_slice() {
            [_, month, day, time, year] => {
                let m = MONTHS.iter().position(|x| x == month)? + 1;
                let d: u32 = day.parse().ok()?;
                self.parse(&format!("{year}-{m:02}-{d:02} {time}"))
            }
            _ => self.parse(value),
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
    let v: f64 = text.trim().parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some(if v >= 1e11 {
        v.round() as i64
    } else {
        (v * 1000.0).round() as i64
    })
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
    if let Some(civil) = parse_civil(&format!("2000-01-01T00:00:00{n}"))
        && let Some(offset) = civil.offset_ms
    {
        let offset =
            jiff::tz::Offset::from_seconds((offset / 1000) as i32).map_err(|e| e.to_string())?;
        return Ok(TimeZone::fixed(offset));
    }
    TimeZone::get(n).map_err(|_| {
        format!("unknown time zone \"{n}\" (use an IANA name such as Asia/Shanghai, UTC or +08:00)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_one_second_read_their_fraction_and_nothing_is_carried_across() {
        let tz = TimeZone::get("Asia/Shanghai").unwrap();
        let mut cached = TimeReader::new(tz.clone());
        for text in [
            "2024/06/01 00:00:00.177",
            "2024/06/01 00:00:00.179",
            "2024/06/01 00:00:00",
            "2024/06/01 00:00:00,5",
            "2024/06/01 00:00:00.1234",
            "2024/06/01 00:00:00.177+02:00",
            "2024/06/01 00:00:01.177",
            "2024/06/01 00:00:01.x",
            "2024-06-01T00:00:01.002",
            "20240601 00:00:01.5",
            "20240601 00:00:01.5",
            "2024/11/03 01:30:00.000",
            "20240601 23:59:58",
            "20240601 23:59:58",
            " 20240601 23:59:58 ",
            "20240601 23:59:59",
            "20240602 23:59:59",
            "20240602 23:59:5",
            "2024-06-01T23:59:59.000000000+08:00[Asia/Shanghai]",
            "2024-06-01T23:59:59.000000000+08:00[Asia/Shanghai]",
            "2024-06-01T23:59:59.000000001+08:00[Asia/Shanghai]",
        ] {
            let fresh = TimeReader::new(tz.clone()).parse(text);
            assert_eq!(cached.parse(text), fresh, "{text}");
        }
    }

    fn utc(s: &str) -> i64 {
        s.parse::<Timestamp>().unwrap().as_millisecond()
    }

    #[test]
    fn nvidia_smi_times_are_read_in_the_given_zone() {
        let mut r = TimeReader::new(TimeZone::get("Asia/Shanghai").unwrap());
        assert_eq!(
            r.parse("2024/06/01 11:27:05.177"),
            Some(utc("2024-06-01T03:27:05.177Z"))
        );
        let mut r = TimeReader::new(TimeZone::UTC);
        assert_eq!(
            r.parse("2024/06/01 11:27:05.177"),
            Some(utc("2024-06-01T11:27:05.177Z"))
        );
        assert_eq!(
            r.parse("2024/06/01 11:27:05"),
            Some(utc("2024-06-01T11:27:05Z"))
        );
    }

    #[test]
    fn explicit_offsets_win_and_other_shapes_parse() {
        let mut r = TimeReader::new(TimeZone::get("Asia/Shanghai").unwrap());
        assert_eq!(
            r.parse("2024-06-01T11:27:05Z"),
            Some(utc("2024-06-01T11:27:05Z"))
        );
        assert_eq!(
            r.parse("2024-06-01T11:27:05.5+02:00"),
            Some(utc("2024-06-01T09:27:05.5Z"))
        );
        assert_eq!(
            r.parse("2024-06-01 11:27:05.123456"),
            Some(utc("2024-06-01T03:27:05.123Z"))
        );
        assert_eq!(
            r.parse("20240601 11:27:05"),
            Some(utc("2024-06-01T03:27:05Z"))
        );
        assert_eq!(r.parse("not a time"), None);
        assert_eq!(r.parse("2024/13/01 11:27:05"), None);
        assert_eq!(r.parse("2024/06/01 25:27:05"), None);
    }

    #[test]
    fn daylight_saving_is_respected() {
        let mut r = TimeReader::new(TimeZone::get("Europe/Berlin").unwrap());
        assert_eq!(
            r.parse("2024-01-15 12:00:00"),
            Some(utc("2024-01-15T11:00:00Z"))
        );
        assert_eq!(
            r.parse("2024-07-15 12:00:00"),
            Some(utc("2024-07-15T10:00:00Z"))
        );
    }

    #[test]
    fn epochs_in_seconds_or_milliseconds() {
        assert_eq!(parse_epoch("1717200000"), Some(1_717_200_000_000));
        assert_eq!(parse_epoch("1717200000.5"), Some(1_717_200_000_500));
        assert_eq!(parse_epoch("1717200000000"), Some(1_717_200_000_000));
        assert_eq!(parse_epoch("x"), None);
    }

    #[test]
    fn zones_by_name_or_offset() {
        // The offset each gives on a summer and a winter day: a zone name
        // follows daylight saving, a written offset does not.
        let offset_h = |zone: &str, at: &str| {
            let at: Timestamp = at.parse().unwrap();
            zone_named(zone).unwrap().to_offset(at).seconds() / 3600
        };
        let (summer, winter) = ("2024-07-01T00:00:00Z", "2024-01-01T00:00:00Z");
        assert_eq!(offset_h("Asia/Shanghai", summer), 8);
        assert_eq!(offset_h("Asia/Shanghai", winter), 8);
        assert_eq!(offset_h("Europe/Berlin", summer), 2);
        assert_eq!(offset_h("Europe/Berlin", winter), 1);
        assert_eq!(offset_h("+08:00", summer), 8);
        assert_eq!(offset_h("-05:30", winter) * 3600, -5 * 3600);
        assert_eq!(offset_h("utc", summer), 0);
        assert_eq!(offset_h("Z", winter), 0);
        assert!(
            zone_named("Mars/Olympus")
                .unwrap_err()
                .contains("unknown time zone")
        );
    }

    #[test]
    fn date_lines_as_date_writes_them() {
        let shanghai = TimeZone::get("Asia/Shanghai").unwrap();
        let mut r = TimeReader::new(shanghai);
        let utc = |t: &str| t.parse::<Timestamp>().unwrap().as_millisecond();
        for (line, expected) in [
            ("Sat Jun  1 11:27:05 UTC 2024", "2024-06-01T11:27:05Z"),
            ("Sat Jun  1 11:27:05 CST 2024", "2024-06-01T03:27:05Z"),
            ("Sat Jun  1 11:27:05 2024", "2024-06-01T03:27:05Z"),
            ("Sat, 01 Jun 2024 11:27:05 +0000", "2024-06-01T11:27:05Z"),
            ("Sat, 01 Jun 2024 19:27:05 +0800", "2024-06-01T11:27:05Z"),
            (
                "2024年 06月 01日 星期六 11:27:05 CST",
                "2024-06-01T03:27:05Z",
            ),
            ("2024-06-01T11:27:05+00:00", "2024-06-01T11:27:05Z"),
            ("2024-06-01 11:27:05", "2024-06-01T03:27:05Z"),
        ] {
            assert_eq!(r.parse_date_line(line), Some(utc(expected)), "{line}");
        }
        for not_a_date in [
            "61.25 W",
            "0, 61.25 W",
            "# HELP x",
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 99",
            "",
        ] {
            assert_eq!(r.parse_date_line(not_a_date), None, "{not_a_date}");
        }
    }
}
