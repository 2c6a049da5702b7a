//! What goes wrong: the message names file, line and column; nothing is stored.

use breakpoint_core::import::{Duplicate, ImportOutcome, import_file};

use crate::util::*;

#[test]
fn a_bad_number_names_file_line_and_field_and_stores_nothing() {
    let (store, result) = try_import("smi-csv/bad-number.csv", |_| {});
    let e = result.unwrap_err().to_string();
    assert!(
        e.ends_with("bad-number.csv:5:5: \"12.5.3 W\" is not a number for power.draw [W]"),
        "{e}"
    );
    let info = store.info().unwrap();
    assert_eq!((info.runs, info.samples), (0, 0));
}

#[test]
fn skip_bad_lines_stores_the_rest_and_records_the_skips() {
    let (_, r) = import("smi-csv/bad-number.csv", |o| o.skip_bad_lines = true);
    assert_eq!((r.samples, r.skipped_lines), (11, 1));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("line 5:5:") && w.contains("skipped")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn the_same_file_twice_is_recognised() {
    let (store, platform) = store();
    let options = utc_options(platform);
    let path = fixture("smi-csv/header-units.csv");
    let first = import_file(&store, &path, &options, None).unwrap();
    let ImportOutcome::Imported(report) = first else {
        panic!("{first:?}")
    };
    let second = import_file(&store, &path, &options, None).unwrap();
    assert_eq!(
        second,
        ImportOutcome::AlreadyImported {
            file: path.display().to_string(),
            run_id: report.run_id,
            earlier_file: Some("header-units.csv".to_string()),
            platform: "P".to_string(),
            matched: Duplicate::Bytes,
        }
    );
    // Both outcomes name the file the same way: as it was given.
    assert_eq!(report.file, path.display().to_string());
    assert_eq!(store.info().unwrap().runs, 1);
}

#[test]
fn gaps_become_interruption_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gappy.csv");
    // Seconds 0–9, then 60–69: a 51 s hole in a 1 Hz log.
    let mut text = String::from("timestamp, index, power.draw [W]\n");
    for s in (0..10).chain(60..70) {
        text.push_str(&format!(
            "2024/06/01 00:{:02}:{:02}.000, 0, 250.00 W\n",
            s / 60,
            s % 60
        ));
    }
    std::fs::write(&path, text).unwrap();
    let (store, platform) = store();
    let outcome = import_file(&store, &path, &utc_options(platform), None).unwrap();
    let ImportOutcome::Imported(r) = outcome else {
        panic!()
    };
    assert_eq!((r.samples, r.gaps, r.interval_ms), (20, 1, Some(1000)));
    let gap = &store.events(r.run_id).unwrap()[0];
    assert_eq!(gap.duration_ms, Some(51_000));
}

#[test]
fn gaps_are_the_same_whichever_order_the_rows_came_in() {
    // 10 000 s at 1 Hz with a 51 s hole: three chunks of samples. Newest
    // first, the chunks overlap in time and the times are read back sorted;
    // oldest first, they are tallied as they are written. Same gap.
    let mut rows = Vec::new();
    for s in (0..5000).chain(5050..10_050) {
        rows.push(format!(
            "2024/06/01 {:02}:{:02}:{:02}.000, 0, 250.00 W",
            s / 3600,
            s / 60 % 60,
            s % 60
        ));
    }
    let header = "timestamp, index, power.draw [W]\n";
    let dir = tempfile::tempdir().unwrap();
    let mut found = Vec::new();
    for newest_first in [false, true] {
        if newest_first {
            rows.reverse();
        }
        let path = dir.path().join(format!("gappy-{newest_first}.csv"));
        std::fs::write(&path, format!("{header}{}\n", rows.join("\n"))).unwrap();
        let (store, platform) = store();
        let ImportOutcome::Imported(r) =
            import_file(&store, &path, &utc_options(platform), None).unwrap()
        else {
            panic!("not imported")
        };
        let events = store.events(r.run_id).unwrap();
        found.push((
            r.samples,
            r.gaps,
            r.interval_ms,
            events[0].at,
            events[0].duration_ms,
        ));
    }
    assert_eq!(found[0], found[1]);
    assert_eq!(found[0].1, 1);
    assert_eq!(found[0].4, Some(51_000));
}

#[test]
fn content_decides_the_format_not_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metrics.txt");
    std::fs::copy(fixture("smi-csv/header-units.csv"), &path).unwrap();
    let (store, platform) = store();
    let ImportOutcome::Imported(r) =
        import_file(&store, &path, &utc_options(platform), None).unwrap()
    else {
        panic!()
    };
    assert_eq!(r.format.as_str(), "nvidia-smi-csv");
    std::fs::write(&path, "hello\n").unwrap();
    let e = import_file(&store, &path, &utc_options(platform), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot tell the format") && e.contains("--format"),
        "{e}"
    );
}
