//! Files that change, repeat, lie about time or are not logs at all: each
//! is refused with its reason, or recognised, and nothing wrong is stored.

use std::io::Write;
use std::path::{Path, PathBuf};

use breakpoint_core::import::{Duplicate, ImportError, ImportOutcome, import_file};

use crate::util::*;

const HEADER: &str = "timestamp, index, power.draw [W], utilization.gpu [%]\n";

fn csv_rows(rows: usize, start_s: i64) -> String {
    format!("{HEADER}{}", csv_body(rows, start_s))
}

fn csv_body(rows: usize, start_s: i64) -> String {
    let mut text = String::new();
    for i in 0..rows as i64 {
        let t = jiff::Timestamp::from_second(start_s + i).unwrap();
        text.push_str(&format!(
            "{}, 0, {}.00 W, 97 %\n",
            t.strftime("%Y/%m/%d %H:%M:%S%.3f"),
            200 + i % 50
        ));
    }
    text
}

const JUNE_2024: i64 = 1_717_200_000;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn gzip(dir: &Path, name: &str, text: &str, level: u32) -> PathBuf {
    let path = dir.join(name);
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::new(level),
    );
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap();
    path
}

fn reason(result: Result<ImportOutcome, ImportError>) -> String {
    match result {
        Err(e) => e.to_string(),
        Ok(o) => panic!("imported: {o:?}"),
    }
}

/// A log truncated while it is read (a rotation, `truncate`, a copy still
/// running) is refused; the progress callback is the deterministic moment
/// "during the read".
#[test]
fn a_file_truncated_while_it_is_read_is_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let text = csv_rows(200_000, JUNE_2024);
    assert!(
        text.len() > 6 << 20,
        "needs a progress step well before the end: {}",
        text.len()
    );
    let path = write(dir.path(), "huge.csv", &text);
    let (store, platform) = store();
    let options = utc_options(platform);
    let mut truncated = false;
    let mut cut = |_: u64| {
        if !truncated {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(1000)
                .unwrap();
            truncated = true;
        }
    };
    let e = reason(import_file(&store, &path, &options, Some(&mut cut)));
    assert!(e.contains("the file changed while it was read"), "{e}");
    let info = store.info().unwrap();
    assert_eq!((info.runs, info.samples), (0, 0));
    // A file that grows while it is read is refused the same way.
    std::fs::write(&path, &text).unwrap();
    let mut grown = false;
    let mut grow = |_: u64| {
        if !grown {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(csv_body(10, JUNE_2024 + 300_000).as_bytes())
                .unwrap();
            grown = true;
        }
    };
    let e = reason(import_file(&store, &path, &options, Some(&mut grow)));
    assert!(e.contains("changed while it was read"), "{e}");
    assert_eq!(store.info().unwrap().runs, 0);
    // Left alone, the same file imports.
    std::fs::write(&path, &text).unwrap();
    assert!(matches!(
        import_file(&store, &path, &options, None).unwrap(),
        ImportOutcome::Imported(_)
    ));
}

#[test]
fn the_same_log_plain_and_gzipped_at_any_level_is_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = csv_rows(300, JUNE_2024);
    let plain = write(dir.path(), "gpu.csv", &text);
    let (store, platform) = store();
    let options = utc_options(platform);
    let ImportOutcome::Imported(first) = import_file(&store, &plain, &options, None).unwrap()
    else {
        panic!("not imported")
    };
    for level in [6, 9] {
        let gz = gzip(dir.path(), &format!("gpu-{level}.csv.gz"), &text, level);
        assert_eq!(
            import_file(&store, &gz, &options, None).unwrap(),
            ImportOutcome::AlreadyImported {
                file: gz.display().to_string(),
                run_id: first.run_id,
                earlier_file: Some("gpu.csv".to_string()),
                platform: "P".to_string(),
                matched: Duplicate::Content,
            }
        );
    }
    assert_eq!(store.info().unwrap().runs, 1);
}

/// Recognised before parsing: with a format forced that would not read
/// the file, a repeat is still "already imported", not a parse error.
#[test]
fn a_repeat_is_recognised_before_anything_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let text = csv_rows(50, JUNE_2024);
    let plain = write(dir.path(), "a.csv", &text);
    let (store, platform) = store();
    let mut options = utc_options(platform);
    import_file(&store, &plain, &options, None).unwrap();
    options.format = Some(breakpoint_core::import::Format::DcgmDiag);
    let gz = gzip(dir.path(), "a.csv.gz", &text, 1);
    for path in [&plain, &gz] {
        assert!(
            matches!(
                import_file(&store, path, &options, None),
                Ok(ImportOutcome::AlreadyImported { run_id: 1, .. })
            ),
            "{}",
            path.display()
        );
    }
}

/// A gigabyte of zeros (here 8 MiB, compressed to a few kilobytes) forced
/// to a line format: refused at the line bound, with a short message.
#[test]
fn a_line_of_zeros_is_refused_in_bounded_memory_with_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let zeros = String::from_utf8(vec![0u8; 8 << 20]).unwrap();
    let gz = gzip(dir.path(), "zeros.gz", &zeros, 9);
    let (store, platform) = store();
    let mut options = utc_options(platform);
    options.format = Some(breakpoint_core::import::Format::SmiCsv);
    options.skip_bad_lines = true;
    let e = reason(import_file(&store, &gz, &options, None));
    assert!(e.contains("line 1 is longer than 1 MiB"), "{e}");
    assert!(e.len() < 300, "{} bytes: {e}", e.len());
    assert_eq!(store.info().unwrap().runs, 0);
}

/// A long bad line (under the bound) skipped with --skip-bad-lines leaves
/// a warning that quotes an excerpt, not the line.
#[test]
fn a_long_bad_line_is_stored_as_a_short_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = csv_rows(20, JUNE_2024);
    text.push_str(&format!(
        "2024/06/01 01:00:00.000, 0, {} W, 97 %\n",
        "9".repeat(500_000)
    ));
    text.push_str(&csv_body(20, JUNE_2024 + 3600 + 1));
    let path = write(dir.path(), "long.csv", &text);
    let (store, platform) = store();
    let mut options = utc_options(platform);
    options.skip_bad_lines = true;
    let ImportOutcome::Imported(r) = import_file(&store, &path, &options, None).unwrap() else {
        panic!("not imported")
    };
    assert_eq!(r.skipped_lines, 1);
    let stored = store.run(r.run_id).unwrap().warnings;
    assert!(stored.iter().all(|w| w.len() < 600), "{stored:?}");
    assert!(
        stored.iter().any(|w| w.contains("more bytes")),
        "{stored:?}"
    );
    // Without skipping, the error quotes an excerpt too.
    let (store, platform) = crate::util::store();
    let e = reason(import_file(&store, &path, &utc_options(platform), None));
    assert!(e.len() < 600, "{} bytes", e.len());
}

#[test]
fn a_block_of_rows_fifty_years_ahead_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = csv_rows(60, JUNE_2024);
    text.push_str(&csv_body(60, JUNE_2024 + 50 * 365 * 86_400));
    let path = write(dir.path(), "jump.csv", &text);
    let (store, platform) = store();
    let e = reason(import_file(&store, &path, &utc_options(platform), None));
    assert!(e.contains("jump from 2024-06-01"), "{e}");
    assert!(e.contains("50 years later"), "{e}");
    assert_eq!(store.info().unwrap().runs, 0);
}

#[test]
fn rows_in_the_future_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let soon = jiff::Timestamp::now().as_second() + 10 * 86_400;
    let path = write(dir.path(), "future.csv", &csv_rows(30, soon));
    let (store, platform) = store();
    let e = reason(import_file(&store, &path, &utc_options(platform), None));
    assert!(e.contains("in the future"), "{e}");
}

#[test]
fn rows_newest_first_import_sorted_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let text = csv_rows(100, JUNE_2024);
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    let path = write(dir.path(), "tac.csv", &(lines.join("\n") + "\n"));
    let (store, platform) = store();
    let ImportOutcome::Imported(r) =
        import_file(&store, &path, &utc_options(platform), None).unwrap()
    else {
        panic!("not imported")
    };
    assert_eq!(r.samples, 100);
    assert!(
        r.warnings.iter().any(|w| w.contains("backwards in time")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn rows_that_all_share_one_time_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("timestamp, index, power.draw [W]\n");
    for _ in 0..500 {
        text.push_str("2024/06/01 00:00:00.000, 0, 250.00 W\n");
    }
    let path = write(dir.path(), "stuck.csv", &text);
    let (store, platform) = store();
    let e = reason(import_file(&store, &path, &utc_options(platform), None));
    assert!(e.contains("499 of the 500 samples of GPU 0 repeat"), "{e}");
}
