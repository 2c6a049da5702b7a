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
fn dates_that_do_not_exist_are_refused_not_rolled_over() {
    let mut r = TimeReader::new(TimeZone::UTC);
    for (text, why) in [
        (
            "2026-02-30 10:00:00",
            "2026-02-30 does not exist: February 2026 has 28 days",
        ),
        (
            "2026/02/29 10:00:00.177",
            "2026-02-29 does not exist: February 2026 has 28 days",
        ),
        (
            "20260230 10:00:00",
            "2026-02-30 does not exist: February 2026 has 28 days",
        ),
        (
            "2100-02-29T00:00:00Z",
            "2100-02-29 does not exist: February 2100 has 28 days",
        ),
        (
            "2024-04-31T00:00:00+08:00",
            "2024-04-31 does not exist: April 2024 has 30 days",
        ),
        (
            "2024-06-00 10:00:00",
            "2024-06-00 does not exist: June 2024 has 30 days",
        ),
        ("2024-13-01 10:00:00", "there is no month 13"),
        ("2024-06-01 24:00:00", "there is no hour 24 (00 to 23)"),
        ("2024-06-01 10:60:00", "there is no minute 60 (00 to 59)"),
        ("2024-06-01 10:00:61", "there is no second 61 (00 to 60)"),
    ] {
        assert_eq!(r.read(text).map_err(|e| e.to_string()), Err(why.into()));
        assert_eq!(r.parse(text), None, "{text}");
    }
    // Leap days that exist, and a leap second, still read.
    assert_eq!(
        r.parse("2024-02-29 10:00:00"),
        Some(utc("2024-02-29T10:00:00Z"))
    );
    assert_eq!(
        r.parse("2000-02-29 10:00:00"),
        Some(utc("2000-02-29T10:00:00Z"))
    );
    assert!(r.parse("2016-12-31 23:59:60").is_some());
    // nvidia-smi's C-library date and `date` lines go through the same check.
    assert_eq!(
        r.read_ctime("Mon Feb 30 10:00:00 2026")
            .map_err(|e| e.to_string()),
        Err("2026-02-30 does not exist: February 2026 has 28 days".into())
    );
    assert_eq!(r.parse_date_line("Mon, 30 Feb 2026 10:00:00 +0000"), None);
    assert_eq!(r.parse_date_line("Mon Feb 30 10:00:00 UTC 2026"), None);
}

#[test]
fn offsets_no_clock_has_and_text_after_them_are_refused() {
    let mut r = TimeReader::new(TimeZone::get("Asia/Shanghai").unwrap());
    for (text, why) in [
        (
            "2024-06-01T10:00:00+99:99",
            "the zone offset +99:99 does not exist (offsets run from -18:00 to +18:00, \
             minutes 00 to 59)",
        ),
        (
            "2024-06-01T10:00:00+18:01",
            "the zone offset +18:01 does not exist (offsets run from -18:00 to +18:00, \
             minutes 00 to 59)",
        ),
        (
            "2024-06-01T10:00:00-0560",
            "the zone offset -0560 does not exist (offsets run from -18:00 to +18:00, \
             minutes 00 to 59)",
        ),
        (
            "2024-06-01T10:00:00+8",
            "the zone offset \"+8\" is not ±HH:MM, ±HHMM or ±HH",
        ),
        (
            "2024-06-01T10:00:00+08:0",
            "the zone offset \"+08:0\" is not ±HH:MM, ±HHMM or ±HH",
        ),
        (
            "2024-06-01T10:00:00+08:00junk",
            "\"junk\" follows the zone offset",
        ),
        (
            "2024-06-01T10:00:00Zjunk",
            "\"junk\" follows the zone offset",
        ),
        (
            "2024-06-01T10:00:00+08:00 x",
            "\" x\" follows the zone offset",
        ),
        (
            "2024-06-01T10:00:00+08:00[",
            "\"[\" follows the zone offset",
        ),
        // A zone name alone would be read in the wrong zone.
        (
            "2024-06-01T10:00:00[Asia/Tokyo]",
            "\"[Asia/Tokyo]\" follows the time",
        ),
        ("2024-06-01 10:00:00 junk", "\" junk\" follows the time"),
    ] {
        assert_eq!(
            r.read(text).map_err(|e| e.to_string()),
            Err(why.into()),
            "{text}"
        );
    }
    // The offsets clocks are set to, and RFC 9557's annotations after one.
    for (text, expected) in [
        ("2024-06-01T10:00:00+18:00", "2024-05-31T16:00:00Z"),
        ("2024-06-01T10:00:00-18:00", "2024-06-02T04:00:00Z"),
        ("2024-06-01T10:00:00+14:00", "2024-05-31T20:00:00Z"),
        ("2024-06-01T10:00:00-12:00", "2024-06-01T22:00:00Z"),
        ("2024-06-01T10:00:00+0530", "2024-06-01T04:30:00Z"),
        ("2024-06-01T10:00:00+05", "2024-06-01T05:00:00Z"),
        (
            "2024-06-01T10:00:00.5+08:00[Asia/Shanghai]",
            "2024-06-01T02:00:00.5Z",
        ),
        (
            "2024-06-01T10:00:00Z[UTC][u-ca=iso8601]",
            "2024-06-01T10:00:00Z",
        ),
    ] {
        assert_eq!(r.read(text), Ok(utc(expected)), "{text}");
    }
    // The reader's caches of the last second and the last text refuse
    // the same as a fresh reader.
    let mut cached = TimeReader::new(TimeZone::UTC);
    for text in [
        "2024/06/01 00:00:00.177",
        "2024/06/01 00:00:00.178+99:99",
        "2024/06/01 00:00:00.177",
        "2024/06/01 00:00:00.177junk",
        "2026/02/28 00:00:00.100",
        "2026/02/30 00:00:00.100",
    ] {
        let fresh = TimeReader::new(TimeZone::UTC).read(text);
        assert_eq!(cached.read(text), fresh, "{text}");
    }
}

#[test]
fn times_past_what_a_timestamp_holds_are_refused_without_overflow() {
    let mut r = TimeReader::new(TimeZone::UTC);
    assert!(matches!(
        r.read("9999-12-31T23:59:59-18:00"),
        Err(TimeError::OutOfRange(_))
    ));
    assert!(matches!(
        r.read("9999-12-31 23:59:59.999"),
        Err(TimeError::OutOfRange(_))
    ));
    assert!(r.read("9999-01-01 00:00:00").is_ok());
    assert!(r.read("0000-01-01T00:00:00+18:00").is_ok());
    // Epochs: 2⁶³−1 and 1e300 would saturate when cast and overflow
    // after; they are refused, as are non-numbers.
    for text in [
        "9223372036854775807",
        "9223372036854775807000",
        "1e300",
        "99999999999999999999.000000",
    ] {
        assert_eq!(read_epoch(text), Err(TimeError::OutOfRange(None)), "{text}");
        assert_eq!(parse_epoch(text), None);
    }
    assert_eq!(
        read_epoch("inf").map_err(|e| e.to_string()),
        Err("\"inf\" is not seconds or milliseconds since 1970".into())
    );
    assert_eq!(read_epoch("-1").ok(), None);
    assert_eq!(
        read_epoch("253402207200000"),
        Ok(253_402_207_200_000),
        "the last storable hour"
    );
}

#[test]
fn zone_offsets_given_by_the_user_are_checked_too() {
    assert!(
        zone_named("+99:99")
            .unwrap_err()
            .starts_with("\"+99:99\" is not a zone offset: the zone offset +99:99 does not exist")
    );
    assert!(
        zone_named("+8")
            .unwrap_err()
            .contains("is not ±HH:MM, ±HHMM or ±HH")
    );
    assert!(
        zone_named("+08:00junk")
            .unwrap_err()
            .contains("\"junk\" follows the zone offset")
    );
    let at: Timestamp = "2024-07-01T00:00:00Z".parse().unwrap();
    assert_eq!(
        zone_named("+14:00").unwrap().to_offset(at).seconds(),
        14 * 3600
    );
    assert_eq!(
        zone_named("-0930").unwrap().to_offset(at).seconds(),
        -(9 * 3600 + 1800)
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

mod one_pass {
    use super::*;
    use proptest::prelude::*;

    /// A cell as a row might carry it: spaces, a time near the one read
    /// first (its second, another, or something else), spaces, then more
    /// of the row.
    fn cell() -> impl Strategy<Value = String> {
        let second = prop_oneof![
            "2024/06/01 00:0[0-1]:[0-6][0-9]",
            "2024-06-01 00:00:0[5-6]",
            "2024/03/10 0[1-3]:[0-5]9:5[0-9]",
            "2024/11/03 01:59:[0-5][0-9]",
            Just("2024/06/01 00:00:0".to_string()),
        ];
        let fraction = prop_oneof![
            Just(String::new()),
            "[.,][0-9]{0,4}",
            "[.][0-9]{2}[a-z ]",
            Just("+08:00".to_string()),
        ];
        (
            " {0,2}",
            second,
            fraction,
            " {0,2}",
            prop_oneof![Just(""), Just(", 3, 4 W"), Just("x")],
        )
            .prop_map(|(lead, second, fraction, trail, after)| {
                format!("{lead}{second}{fraction}{trail}{after}")
            })
    }

    proptest! {
        #[test]
        fn a_cell_read_in_one_pass_reads_as_its_text_does(
            cells in proptest::collection::vec(cell(), 1..12),
            zone in prop_oneof![Just("Asia/Shanghai"), Just("UTC"), Just("America/New_York")],
        ) {
            // Each cell read by a reader that has read the ones before it,
            // in one pass and as text, against a reader that has read none.
            let tz = TimeZone::get(zone).unwrap();
            let mut times = TimeReader::new(tz.clone());
            for cell in &cells {
                let text = cell.split(',').next().unwrap();
                let alone = TimeReader::new(tz.clone()).read(text.trim());
                if let Some((t_ms, len)) = times.read_plain(cell.as_bytes(), b',') {
                    prop_assert_eq!(len, text.len(), "{:?}", cell);
                    prop_assert_eq!(Ok(t_ms), alone.clone(), "{:?}", cell);
                }
                prop_assert_eq!(times.read(text.trim()), alone, "{:?}", cell);
            }
        }
    }

    #[test]
    fn the_minute_read_last_is_what_a_row_is_read_against() {
        let mut times = TimeReader::new(TimeZone::UTC);
        assert_eq!(times.read_plain(b"2024/06/01 00:00:05.250, 0", b','), None);
        let first = times.read("2024/06/01 00:00:05.100").unwrap();
        assert_eq!(
            times.read_plain(b" 2024/06/01 00:00:05.250 , 0", b','),
            Some((first + 150, 25))
        );
        // Another second of the same minute is counted on from it; another
        // minute is left to `read`.
        assert_eq!(
            times.read_plain(b"2024/06/01 00:00:06.250, 0", b','),
            Some((first + 1150, 23))
        );
        assert_eq!(times.read_plain(b"2024/06/01 00:01:06.250, 0", b','), None);
    }
}
