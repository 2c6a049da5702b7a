#![allow(clippy::unwrap_used)]

use std::io::Read;

use super::*;
use crate::Format;
use crate::blocks::testing::with_builder;

const COLOUR: &[u8] =
    include_bytes!("../../../../../tests/fixtures/hostile/dmesg-color-transcript.log");
const CR_ONLY: &[u8] = include_bytes!("../../../../../tests/fixtures/hostile/dmesg-cr-only.log");
const HUGE_STAMP: &[u8] =
    include_bytes!("../../../../../tests/fixtures/hostile/dmesg-huge-stamp.log");

/// The boot time the fixtures' clock line gives: 2026-03-02T08:00:03Z
/// at 1.734512 s since boot.
const BOOT_MS: i64 = 1_772_438_403_000 - 1_735;

/// A file's text as an import reads it (a `script` transcript's
/// banners taken off).
fn decoded(bytes: &[u8]) -> Vec<u8> {
    let (mut reader, _) = crate::decode::decode(bytes).unwrap();
    let mut text = Vec::new();
    reader.read_to_end(&mut text).unwrap();
    text
}

/// Xid events as (GPU, code, UTC ms), and the run's warnings; or the
/// error, as `line N: reason`.
type Xids = Vec<(Option<u32>, i64, i64)>;

fn read(
    bytes: &[u8],
    skip_bad_lines: bool,
    start: Option<&str>,
) -> Result<(Xids, Vec<String>), String> {
    let text = decoded(bytes);
    with_builder(skip_bad_lines, |ctx, mut b| {
        ctx.start = start.map(|s| s.parse().unwrap());
        let outcome = parse(&text[..], ctx, &mut b);
        let built = b.finish();
        match outcome {
            Ok(()) => Ok((
                built
                    .events
                    .iter()
                    .filter(|e| e.kind == EventKind::Xid)
                    .map(|e| (e.gpu, e.code.unwrap(), e.at.as_millisecond()))
                    .collect(),
                built.warnings,
            )),
            Err(ParseFailure::Line(e)) => Err(format!("line {}: {}", e.line, e.reason)),
            Err(e) => Err(format!("{e:?}")),
        }
    })
    .0
}

#[test]
fn a_coloured_grep_in_a_script_transcript_keeps_every_xid() {
    assert_eq!(crate::detect(&decoded(COLOUR)), Ok(Format::KernelLog));
    let (xids, _) = read(COLOUR, false, None).unwrap();
    assert_eq!(
        xids,
        vec![
            (Some(0), 48, BOOT_MS + 123_457),
            (Some(1), 79, BOOT_MS + 5_021_338)
        ]
    );
    // `grep --color NVRM` cuts "NVRM:" itself apart; the driver is
    // still recognised, by the detector too.
    let nvrm = "\x1b[01;31m\x1b[KNVRM\x1b[m\x1b[K: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n\
                \x1b[01;31m\x1b[KNVRM\x1b[m\x1b[K: Xid (PCI:0000:3b:00): 45, pid=77, Preemptive cleanup.\n";
    assert_eq!(crate::detect(nvrm.as_bytes()), Ok(Format::KernelLog));
    let (xids, _) = read(nvrm.as_bytes(), false, Some("2026-03-02T08:00:00Z")).unwrap();
    assert_eq!(xids.iter().map(|x| x.1).collect::<Vec<_>>(), vec![79, 45]);
}

#[test]
fn lone_carriage_returns_end_lines_and_every_xid_is_kept() {
    assert_eq!(crate::detect(CR_ONLY), Ok(Format::KernelLog));
    let (xids, _) = read(CR_ONLY, false, None).unwrap();
    assert_eq!(
        xids,
        vec![
            (Some(0), 48, BOOT_MS + 123_457),
            (Some(0), 63, BOOT_MS + 124_001),
            (Some(1), 79, BOOT_MS + 5_021_338)
        ]
    );
    // The same lines ended CRLF, or LF: the same events.
    let text = std::str::from_utf8(CR_ONLY).unwrap();
    for ending in ["\r\n", "\n"] {
        let other = text.replace('\r', ending);
        assert_eq!(read(other.as_bytes(), false, None).unwrap().0, xids);
    }
    // A terminal that ended lines with CR: the prompt first is not
    // taken for the whole file.
    let pasted = format!("root@gpu-node-07:~# dmesg\r{text}");
    assert_eq!(crate::detect(pasted.as_bytes()), Ok(Format::KernelLog));
    assert_eq!(read(pasted.as_bytes(), false, None).unwrap().0, xids);
}

#[test]
fn a_huge_dmesg_stamp_is_a_bad_line_not_an_overflow() {
    assert_eq!(
        read(HUGE_STAMP, false, None),
        Err(
            "line 4: [99999999999999999999.000000] is not seconds since boot: more than a \
             century (a corrupt line)"
                .into()
        )
    );
    let (xids, warnings) = read(HUGE_STAMP, true, None).unwrap();
    assert_eq!(
        xids.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>(),
        vec![(Some(0), 48), (Some(0), 63)]
    );
    assert!(
        warnings.iter().any(|w| w
            .starts_with("line 4: [99999999999999999999.000000] is not seconds")
            && w.ends_with("(skipped)")),
        "{warnings:?}"
    );
}

const CLOCK: &str =
    "[    1.734512] rtc_cmos 00:04: setting system clock to 2026-03-02T08:00:03 UTC (1772438403)\n";
const XID_79: &str = "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.";
const XID_48: &str = "NVRM: Xid (PCI:0000:18:00): 48, pid=1234, name=python, An uncorrectable \
                      double bit error (DBE) has been detected on GPU in the framebuffer at \
                      partition 0, subpartition 0.";

#[test]
fn numbers_no_clock_can_hold_are_refused_with_their_line() {
    for (log, error) in [
        // A float in another spelling, as large as floats go.
        (
            format!("{CLOCK}[1e300] {XID_79}\n"),
            "line 2: [1e300] is not seconds since boot as dmesg writes them (digits, a \
             point, digits)",
        ),
        (
            format!("{CLOCK}[inf] {XID_79}\n"),
            "line 2: [inf] is not seconds since boot as dmesg writes them (digits, a point, \
             digits)",
        ),
        // The kernel's clock at 2⁶³−1 seconds: × 1000 would overflow.
        (
            format!(
                "[    1.734512] rtc_cmos 00:04: setting system clock to 2026-03-02T08:00:03 \
                 UTC (9223372036854775807)\n[  123.456789] {XID_79}\n"
            ),
            "line 1: the kernel's clock line gives 9223372036854775807 s since 1970 at \
             1.734512 s since boot, which is no time a timestamp can hold (years -9999 to \
             9999)",
        ),
        (
            format!(
                "[    1.734512] rtc_cmos 00:04: setting system clock to 2026-03-02T08:00:03 \
                 UTC (99999999999999999999)\n[  123.456789] {XID_79}\n"
            ),
            "line 1: the kernel's clock line gives (99999999999999999999), which is not \
             seconds since 1970",
        ),
        // The journal's microseconds at 2⁶³−1.
        (
            format!(
                "{{\"__REALTIME_TIMESTAMP\":\"9223372036854775807\",\"MESSAGE\":\"{XID_79}\"}}\n"
            ),
            "line 1: __REALTIME_TIMESTAMP \"9223372036854775807\" is not microseconds since \
             1970 within the years -9999 to 9999",
        ),
    ] {
        assert_eq!(
            read(log.as_bytes(), false, None),
            Err(error.into()),
            "{log}"
        );
    }
    // Another daemon's line with a corrupt time is noise, as before.
    let log =
        format!("{CLOCK}[1e300] usb 1-1: new high-speed USB device\n[  123.456789] {XID_79}\n");
    let (xids, _) = read(log.as_bytes(), false, None).unwrap();
    assert_eq!(xids, vec![(Some(0), 79, BOOT_MS + 123_457)]);
}

#[test]
fn times_that_do_not_exist_are_bad_lines_not_dropped_or_rolled_over() {
    // `dmesg --time-format iso`, its fraction after a comma.
    let good = format!("2026-03-01T10:00:00,000000+00:00 {XID_48}\n");
    for (bad, error) in [
        (
            format!("2026-02-30T10:00:00,000000+00:00 {XID_79}\n"),
            "line 2: \"2026-02-30T10:00:00,000000+00:00\" is not a time: 2026-02-30 does \
             not exist: February 2026 has 28 days",
        ),
        (
            format!("2026-03-01T10:00:00,000000+99:99 {XID_79}\n"),
            "line 2: \"2026-03-01T10:00:00,000000+99:99\" is not a time: the zone offset \
             +99:99 does not exist (offsets run from -18:00 to +18:00, minutes 00 to 59)",
        ),
        (
            format!("2026-03-01T10:00:00,000000+05:30junk {XID_79}\n"),
            "line 2: \"2026-03-01T10:00:00,000000+05:30junk\" is not a time: \"junk\" \
             follows the zone offset",
        ),
        (
            format!("[Mon Feb 30 10:00:00 2026] {XID_79}\n"),
            "line 2: [Mon Feb 30 10:00:00 2026] is not a time: 2026-02-30 does not exist: \
             February 2026 has 28 days",
        ),
    ] {
        let log = format!("{good}{bad}");
        assert_eq!(
            read(log.as_bytes(), false, None),
            Err(error.into()),
            "{log}"
        );
        // Skipped on request, with the reason; the good line is kept.
        let (xids, warnings) = read(log.as_bytes(), true, None).unwrap();
        assert_eq!(xids.iter().map(|x| x.1).collect::<Vec<_>>(), vec![48]);
        assert!(
            warnings.iter().any(|w| w.ends_with("(skipped)")),
            "{warnings:?}"
        );
    }
    // Syslog's day without a year is checked once the year is known.
    let log = format!("Feb 30 10:00:00 gpu-node-7 kernel: {XID_79}\n");
    assert_eq!(
        read(log.as_bytes(), false, Some("2026-01-01T00:00:00Z")),
        Err(
            "line 1: the line's date 2026-02-30 does not exist (the year is 2026, as the \
             log's start or --start gives it)"
                .into()
        )
    );
}
