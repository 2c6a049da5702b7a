use super::*;
use proptest::prelude::*;

const PARSE: blocks::testing::Parse = |i, c, b, s| parse_in(i, c, b, s);

#[test]
fn commas_are_found_where_a_byte_loop_finds_them() {
    // A comma (and a byte one off a comma either way) at every place of
    // texts that end within a word and past one, after every byte value.
    for len in 0..24 {
        for at in 0..len {
            for other in [b'+', b'-', 0, 0xFF, b'a'] {
                for (place, byte) in [(at, b','), (at, other)] {
                    let mut text = vec![b'x'; len];
                    text[place] = byte;
                    if place > 0 {
                        text[place - 1] = other;
                    }
                    let expected = text.iter().position(|b| *b == b',');
                    assert_eq!(find_comma(&text), expected, "{text:?}");
                }
            }
        }
    }
    assert_eq!(
        find_comma(b"2024/06/01 00:00:00.177, 0, 245.05 W"),
        Some(23)
    );
}

fn parsed(input: &[u8], block_bytes: Option<usize>, skip_bad_lines: bool) -> String {
    blocks::testing::parsed(PARSE, input, block_bytes, skip_bad_lines)
}

/// Lines of every kind the reader meets, for files made of them.
const LINES: &[&str] = &[
    "2024/06/01 00:00:01.100, 0, 240.12 W, 97 %, 61227 MiB, 0x0000000000000004",
    "2024/06/01 00:00:01.102, 1, 241.5 W, 98 %, 61227 MiB, 0x0000000000000000",
    "2024/06/01 00:00:02.100, 0, [N/A], 96 %, 61000 MiB, 0x0000000000000000",
    "2024/06/01 00:00:02.102, 1, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]",
    "2024/06/01 00:00:03.100, 0, \"250.00 W\", 99 %, 61227 MiB, 0x0",
    "2024/06/01 00:00:03.102, 1, 2.5e2 W, 99 %, 61227 MiB, 0x0000000000000000\r",
    "2024/06/01 00:00:04.100, 0, 12.5.3 W, 99 %, 61227 MiB, 0x0000000000000000",
    "2024/06/01 00:00:04.102, 1, 240 W, 99 %",
    "timestamp, index, power.draw [W], utilization.gpu [%], memory.used [MiB], clocks_throttle_reasons.active",
    "timestamp, index, uuid, power.draw [W]",
    "2024/06/01 00:00:05.100, 0, GPU-aaaa, 201.00 W",
    "2024/06/01 00:00:05.102, 1, GPU-bbbb, 202.00 W",
    "index, power.draw [W]",
    "0, 99.00 W",
    "Sat Jun  1 00:00:09 UTC 2024",
    "Unable to determine the device handle for GPU0000:0F:00.0: Unknown Error",
    "",
    "   ",
];

/// A file of `picks` from `LINES` after a first header and row.
fn file(picks: &[usize], last_cut: bool) -> Vec<u8> {
    blocks::testing::file_of(&[LINES[8], LINES[0]], LINES, picks, last_cut)
}

#[test]
fn blocks_read_what_lines_read() {
    let all: Vec<usize> = (0..LINES.len()).chain(0..LINES.len()).collect();
    let mut input = file(&all, true);
    blocks::testing::assert_blocks_read_like_lines(PARSE, &input, &[1, 2, 7, 64, 300, 1 << 20]);
    // A line that is not UTF-8 stops the import where it is, however read.
    input.extend_from_slice(b"\n2024/06/01 00:00:09.100, 0, 2\xff W, 1 %, 1 MiB, 0x0\n");
    blocks::testing::assert_not_utf8_stops_alike(PARSE, &input);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any mix of rows, headers, messages and bad lines reads the same
    /// in blocks of any size as line by line.
    #[test]
    fn any_file_reads_the_same_in_blocks(
        picks in proptest::collection::vec(0..LINES.len(), 0..40),
        last_cut: bool,
        skip: bool,
        size in 1usize..400,
    ) {
        let input = file(&picks, last_cut);
        prop_assert_eq!(parsed(&input, Some(size), skip), parsed(&input, None, skip));
    }
}

#[test]
fn a_cell_written_as_before_reads_anew_under_a_new_header() {
    // The same cells, in MiB and then, after a new header, in GiB: a
    // cell is taken as read before only under the columns it was read
    // under, in blocks as line by line.
    let rows = "2024/06/01 00:00:01.100, 0, 61, 97, 1410, 1593\n\
                2024/06/01 00:00:02.100, 0, 61, 97, 1410, 1593\n";
    let input = format!(
        "timestamp, index, memory.used [MiB], utilization.gpu [%], clocks.sm [MHz], clocks.mem [MHz]\n{rows}\
         timestamp, index, memory.used [GiB], utilization.gpu [%], clocks.sm [MHz], clocks.mem [MHz]\n{rows}"
    );
    assert_eq!(
        memory_used_every_way(&input),
        [Some(61), Some(61), Some(61 * 1024), Some(61 * 1024)]
    );
}

/// Each sample's memory in use, read line by line and in blocks of
/// several sizes, which must agree.
fn memory_used_every_way(input: &str) -> Vec<Option<i64>> {
    let read = |block_bytes| {
        let (_, samples) = blocks::testing::with_builder(false, |ctx, mut b| {
            parse_in(input.as_bytes(), ctx, &mut b, block_bytes).unwrap();
        });
        samples
            .iter()
            .map(|s| s.get(Field::MemUsedMib))
            .collect::<Vec<_>>()
    };
    let by_lines = read(None);
    for block_bytes in [48, 64, 1 << 20] {
        assert_eq!(read(Some(block_bytes)), by_lines, "blocks of {block_bytes}");
    }
    by_lines
}

#[test]
fn memory_in_use_is_the_total_less_what_is_free() {
    // The rows after the first are read in one pass and, where written
    // as before, at a compare; `[N/A]` and a value in another unit go
    // to the general reader: all read alike, in blocks as line by line.
    let input = "timestamp, index, memory.total [MiB], memory.free [MiB], utilization.gpu [%]\n\
                 2024/06/01 00:00:01.100, 0, 81920 MiB, 20693 MiB, 97 %\n\
                 2024/06/01 00:00:02.100, 0, 81920 MiB, 20693 MiB, 97 %\n\
                 2024/06/01 00:00:03.100, 0, 81920 MiB, 20693, 97 %\n\
                 2024/06/01 00:00:04.100, 0, 81920 MiB, [N/A], 97 %\n\
                 2024/06/01 00:00:05.100, 0, 81920 MiB, 1 GiB, 97 %\n";
    assert_eq!(
        memory_used_every_way(input),
        [
            Some(61_227),
            Some(61_227),
            Some(61_227),
            None,
            Some(81_920 - 1024)
        ]
    );
}

/// A 1 Hz query loop on two A100s: GPU 1's row remap is pending from
/// the start, and fails from the third second on.
const REMAPS: &str = "\
timestamp, index, pci.bus_id, retired_pages.pending, remapped_rows.pending, remapped_rows.failure, memory.used [MiB]
2026/11/30 08:12:44.117, 0, 00000000:07:00.0, [N/A], No, No, 61227 MiB
2026/11/30 08:12:44.120, 1, 00000000:0F:00.0, [N/A], Yes, No, 4 MiB
2026/11/30 08:12:45.118, 0, 00000000:07:00.0, [N/A], No, No, 61227 MiB
2026/11/30 08:12:45.121, 1, 00000000:0F:00.0, [N/A], Yes, No, 4 MiB
2026/11/30 08:12:46.119, 0, 00000000:07:00.0, [N/A], No, No, 61229 MiB
2026/11/30 08:12:46.123, 1, 00000000:0F:00.0, [N/A], Yes, Yes, 4 MiB
2026/11/30 08:12:47.118, 0, 00000000:07:00.0, [N/A], No, No, 61229 MiB
2026/11/30 08:12:47.122, 1, 00000000:0F:00.0, [N/A], Yes, Yes, 4 MiB
";

/// A health fault's GPU, time and detail.
type Fault = (Option<u32>, i64, String);

fn health_faults(text: &str) -> (Vec<Fault>, Vec<String>) {
    blocks::testing::with_builder(false, |ctx, mut b| {
        parse(text.as_bytes(), ctx, &mut b).unwrap();
        let built = b.finish();
        let faults = built
            .events
            .iter()
            .filter(|e| e.kind == crate::domain::EventKind::HealthFault)
            .map(|e| (e.gpu, e.at.as_millisecond(), e.detail.clone().unwrap()))
            .collect();
        (faults, built.warnings)
    })
    .0
}

#[test]
fn a_finding_repeated_every_second_is_one_health_fault_at_its_first_time() {
    let (faults, _) = health_faults(REMAPS);
    assert_eq!(
        faults,
        vec![
            (
                Some(1),
                1_796_026_364_120,
                "row remap pending a reset".to_string()
            ),
            (
                Some(1),
                1_796_026_366_123,
                "row remapping failed".to_string()
            ),
        ]
    );
    blocks::testing::assert_blocks_read_like_lines(PARSE, REMAPS.as_bytes(), &[1, 64, 300]);
    // Rows without a time (the query had no `timestamp`): a warning, not
    // an event at a made-up time.
    let untimed: String = REMAPS
        .lines()
        .map(|l| format!("{}\n", l.split_once(", ").unwrap().1))
        .collect();
    let (faults, warnings) = health_faults(&untimed);
    assert!(faults.is_empty(), "{faults:?}");
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.starts_with("GPU 1: "))
            .collect::<Vec<_>>(),
        vec![
            "GPU 1: row remap pending a reset (no time in the output: counted as a faulty GPU, without a time)",
            "GPU 1: row remapping failed (no time in the output: counted as a faulty GPU, without a time)",
        ]
    );
}

#[test]
fn unquoted_rows_split_like_str_split() {
    for text in [
        "",
        ",",
        ",,",
        "a",
        "a,",
        ",a",
        "1234567,9",
        "12345678,0",
        "1234567890123456,x,",
        "温度,功率 W, 33.09 W,,",
        "2024/06/01 00:00:00.177, 0, 240.12 W, 71, 97 %, 48 %, 61227 MiB, 1410 MHz, 1593 MHz, 0x0000000000000000",
    ] {
        let ours: Vec<String> = cells(text).map(|c| c.into_owned()).collect();
        let expected: Vec<&str> = text.split(',').collect();
        assert_eq!(ours, expected, "{text:?}");
    }
}

proptest! {
    #[test]
    fn any_text_splits_like_str_split(text in "[a-c,é 0-9]{0,80}") {
        let ours: Vec<String> = cells(&text).map(|c| c.into_owned()).collect();
        let expected: Vec<&str> = text.split(',').collect();
        prop_assert_eq!(ours, expected);
    }
}

#[test]
fn gpu_numbers_are_read_as_scripts_write_them() {
    for (cell, n) in [
        ("3", Some(3)),
        (" gpu3", Some(3)),
        ("GPU 3", Some(3)),
        ("cuda:1", Some(1)),
    ] {
        assert_eq!(super::gpu_number(cell), n, "{cell}");
    }
    for cell in ["", "GPU-3f9c", "3.5", "node3"] {
        assert_eq!(super::gpu_number(cell), None, "{cell}");
    }
}
