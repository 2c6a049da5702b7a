use breakpoint_core::domain::{EventKind, FormFactor};
use breakpoint_core::import::{Format, ImportOutcome};
use breakpoint_core::samples::Field::*;

use crate::util::*;

#[test]
fn header_with_units() {
    let (store, r) = import("smi-csv/header-units.csv", |_| {});
    assert_eq!(r.format, Format::SmiCsv);
    assert_eq!((r.gpus, r.samples), (2, 12));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:06.180Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, UtilGpuPct),
            v(&s, UtilMemPct)
        ),
        (Some(248_530), Some(37), Some(100), Some(43))
    );
    assert_eq!(
        (v(&s, MemUsedMib), v(&s, MemTotalMib)),
        (Some(61_227), Some(81_920))
    );
    assert_eq!(
        (v(&s, SmClockMhz), v(&s, MemClockMhz), v(&s, ThrottleMask)),
        (Some(1410), Some(1593), Some(0))
    );
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:08.183Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, SmClockMhz), v(&s, ThrottleMask)),
        (Some(399_110), Some(1335), Some(4))
    );
    let run = store.run(r.run_id).unwrap();
    let gpu1 = &run.inventory[1];
    let acc = gpu1.accelerator.as_ref().unwrap();
    assert_eq!(
        (acc.family.as_str(), acc.memory_gb, acc.form_factor),
        ("A100", Some(80), Some(FormFactor::Sxm))
    );
    assert_eq!(gpu1.pci_bus_id.as_deref(), Some("00000000:0F:00.0"));
    assert_eq!(gpu1.vram_mib, Some(81_920));
    assert_eq!(run.provenance.sha256.as_ref().map(String::len), Some(64));
}

#[test]
fn nounits_and_header_units_give_the_same_samples() {
    let (a, ra) = import("smi-csv/header-units.csv", |_| {});
    let (b, rb) = import("smi-csv/nounits.csv", |_| {});
    for gpu in 0..2 {
        assert_eq!(
            all_samples(&a, ra.run_id, gpu),
            all_samples(&b, rb.run_id, gpu)
        );
    }
}

#[test]
fn header_less_files_need_or_infer_their_fields() {
    let fields = "timestamp,index,name,pci.bus_id,power.draw,temperature.gpu,utilization.gpu,utilization.memory,memory.used,memory.total,clocks.sm,clocks.mem,clocks_throttle_reasons.active";
    let list: Vec<String> = fields.split(',').map(String::from).collect();
    let (store, r) = import("smi-csv/noheader.csv", |o| o.fields = Some(list.clone()));
    assert_eq!(r.samples, 6);
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:10.190Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct), v(&s, ThrottleMask)),
        (Some(142_660), Some(27), Some(0))
    );
    let (store, r) = import("smi-csv/noheader-nounits.csv", |o| o.fields = Some(list));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:10.190Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, TempGpuC), v(&s, MemUsedMib)),
        (Some(142_660), Some(52), Some(77_481))
    );
    // Without the list: what can be only one field is read (the time, the
    // power, the throttle reasons), the ambiguous columns are named and
    // left out, and `--fields` is said.
    let (store, r) = import("smi-csv/noheader.csv", |_| {});
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:10.190Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct), v(&s, ThrottleMask)),
        (Some(142_660), None, Some(0))
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("could be several fields") && w.contains("--fields")),
        "{:?}",
        r.warnings
    );
    // Bare numbers: only the throttle reasons can be told.
    let (store, r) = import("smi-csv/noheader-nounits.csv", |_| {});
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:10.190Z");
    assert_eq!((v(&s, PowerMw), v(&s, ThrottleMask)), (None, Some(0)));
    assert!(
        r.warnings[0].contains("column 5 (\"61.25\"), column 6 (\"33\")"),
        "{:?}",
        r.warnings
    );
}

#[test]
fn not_reported_values_are_absent_not_zero() {
    let (store, r) = import("smi-csv/na-values.csv", |_| {});
    assert_eq!((r.gpus, r.samples), (3, 15));
    for s in all_samples(&store, r.run_id, 1) {
        assert_eq!(v(&s, PowerMw), None, "GT 1030 power is [Not Supported]");
    }
    for s in all_samples(&store, r.run_id, 2) {
        assert_eq!(v(&s, FanPct), None, "T4 fan is [N/A]");
        assert_eq!(v(&s, TempMemC), None);
    }
    let s = sample_at(&store, r.run_id, 0, "2023-11-14T09:02:12.419Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, Pstate), v(&s, UtilGpuPct)),
        (None, Some(2), Some(27))
    );
    let s = sample_at(&store, r.run_id, 2, "2023-11-14T09:02:13.437Z");
    assert_eq!(
        (v(&s, Pstate), v(&s, PowerMw), v(&s, MemTotalMib)),
        (Some(0), Some(68_050), Some(15_360))
    );
    let first = &all_samples(&store, r.run_id, 0)[0];
    assert_eq!(v(first, FanPct), Some(0), "a real 0 % fan stays 0");
}

#[test]
fn throttle_reasons_as_mask_or_columns_of_either_generation() {
    let (store, r) = import("smi-csv/event-reasons.csv", |_| {});
    let s = sample_at(&store, r.run_id, 1, "2024-09-17T14:03:24.583Z");
    assert_eq!(v(&s, ThrottleMask), Some(0x68));
    let s = sample_at(&store, r.run_id, 1, "2024-09-17T14:03:23.574Z");
    assert_eq!(
        (v(&s, ThrottleMask), v(&s, PowerMw)),
        (Some(0x24), Some(694_860))
    );

    let (store, r) = import("smi-csv/throttle-columns.csv", |_| {});
    let s = sample_at(&store, r.run_id, 0, "2022-03-08T16:45:02.114Z");
    assert_eq!(v(&s, ThrottleMask), Some(0x1));
    let s = sample_at(&store, r.run_id, 1, "2022-03-08T16:45:04.131Z");
    assert_eq!(
        (v(&s, ThrottleMask), v(&s, PowerMw)),
        (Some(0x8 | 0x80), Some(112_400))
    );
    let s = sample_at(&store, r.run_id, 1, "2022-03-08T16:45:03.124Z");
    assert_eq!(v(&s, ThrottleMask), Some(0x4));
}

#[test]
fn repeated_headers_uuids_and_backward_times() {
    let (store, r) = import("smi-csv/repeated-header.csv", |_| {});
    assert_eq!(r.samples, 10);
    let s = sample_at(&store, r.run_id, 0, "2024-02-20T08:15:10.418Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct), v(&s, MemUsedMib)),
        (Some(149_950), Some(100), Some(18_392))
    );

    let (store, r) = import("smi-csv/uuid-ids.csv", |_| {});
    assert_eq!((r.gpus, r.samples), (3, 15));
    let run = store.run(r.run_id).unwrap();
    let gpu = run
        .inventory
        .iter()
        .find(|g| g.uuid.as_deref() == Some("GPU-b27e61d4-0c93-5f1a-9e86-d4c0a3f7b215"))
        .unwrap();
    assert_eq!(gpu.pci_bus_id.as_deref(), Some("00000000:61:00.0"));
    let s = sample_at(&store, r.run_id, gpu.index, "2024-07-22T03:10:45.518Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct), v(&s, TempGpuC)),
        (Some(265_020), Some(81), Some(42))
    );
}

#[test]
fn rows_without_time_take_it_from_the_interval() {
    let (_, result) = try_import("smi-csv/no-timestamp.csv", |_| {});
    assert!(result.unwrap_err().to_string().contains("--interval"));
    let (store, r) = import("smi-csv/no-timestamp.csv", |o| {
        o.interval_ms = Some(2000);
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap());
    });
    assert_eq!(r.samples, 12);
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T00:00:04Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct)),
        (Some(315_330), Some(100))
    );
    assert_eq!(r.interval_ms, Some(2000));
}

#[test]
fn a_cut_off_last_line_is_dropped_with_a_warning() {
    let (_, r) = import("smi-csv/truncated.csv", |_| {});
    assert_eq!(r.samples, 10);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("line 12") && w.contains("cut off")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn newer_drivers_columns_are_kept_or_ignored_never_fatal() {
    let (store, r) = import("smi-csv/driver-610.csv", |_| {});
    assert_eq!(r.samples, 10);
    let s = sample_at(&store, r.run_id, 0, "2026-09-03T10:41:10.237Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, ThrottleMask), v(&s, SmClockMhz)),
        (Some(697_120), Some(4), Some(1875))
    );
    let run = store.run(r.run_id).unwrap();
    assert!(
        run.metadata["unknown_columns"]
            .to_string()
            .contains("kmd_version"),
        "{:?}",
        run.metadata
    );

    let (store, r) = import("smi-csv/full-dump.csv", |_| {});
    assert_eq!((r.gpus, r.samples), (2, 4));
    let s = sample_at(&store, r.run_id, 0, "2026-09-03T15:22:40.318Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, ThrottleMask)),
        (Some(612_370), Some(0))
    );
    let s = sample_at(&store, r.run_id, 1, "2026-09-03T15:22:41.335Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, ThrottleMask)),
        (Some(691_200), Some(4))
    );
}

#[test]
fn bom_and_crlf_are_tolerated() {
    let (store, r) = import("smi-csv/crlf.csv", |_| {});
    assert_eq!(r.samples, 3);
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:05.179Z");
    assert_eq!(v(&s, PowerMw), Some(58_710));
}

#[test]
fn powershell_utf16_output_reads_like_the_utf8_file() {
    let (store, r) = import("smi-csv/powershell-redirect.csv", |_| {});
    assert_eq!((r.format, r.samples), (Format::SmiCsv, 3));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:05.179Z");
    assert_eq!(v(&s, PowerMw), Some(58_710));
    assert!(
        r.warnings.iter().any(|w| w.contains("UTF-16LE")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn a_gzipped_log_reads_like_the_plain_one_and_keeps_the_files_own_hash() {
    let (store, r) = import("smi-csv/header-units.csv.gz", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiCsv, 2, 12));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:06.180Z");
    assert_eq!(v(&s, PowerMw), Some(248_530));
    assert!(r.warnings.iter().any(|w| w.contains("gzip")));
    // Provenance names the bytes on disk: `sha256sum file.gz` matches.
    use sha2::Digest;
    let bytes = std::fs::read(fixture("smi-csv/header-units.csv.gz")).unwrap();
    let on_disk: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(r.sha256, on_disk);
}

#[test]
fn a_gpu_falling_off_the_bus_is_one_loss_per_incident_with_its_duration() {
    let (store, r) = import("smi-csv/gpu-fell-off.csv", |_| {});
    assert_eq!((r.gpus, r.samples), (2, 11));
    let events = store.events(r.run_id).unwrap();
    let lost: Vec<_> = events
        .iter()
        .filter(|e| e.kind == EventKind::GpuLost)
        .map(|e| (e.gpu, e.at.to_string(), e.duration_ms))
        .collect();
    assert_eq!(
        lost,
        [
            // GPU 1: first complaint → its first reading after the reboot.
            (
                Some(1),
                "2024-08-12T10:00:02.123Z".to_string(),
                Some(387_886)
            ),
            // The driver: gone until any GPU reads again.
            (None, "2024-08-12T10:00:08.57Z".to_string(), Some(381_435)),
        ]
    );
    assert_eq!(r.gaps, 0, "the outage is the losses, not extra gaps");
    assert_eq!(events.len(), 2);
    let lines: Vec<&str> = r
        .warnings
        .iter()
        .filter_map(|w| w.split(':').next())
        .collect();
    assert_eq!(lines, ["line 7", "line 12"]);
}

#[test]
fn logs_captured_through_script_or_kubectl_read_like_the_plain_file() {
    for (fixture, says) in [
        ("smi-csv/script-transcript.log", "`script` transcript"),
        ("smi-csv/kubectl-timestamps.log", "timestamp was removed"),
    ] {
        let (store, r) = import(fixture, |_| {});
        assert_eq!(
            (r.format, r.gpus, r.samples),
            (Format::SmiCsv, 2, 12),
            "{fixture}"
        );
        let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:06.180Z");
        assert_eq!(v(&s, PowerMw), Some(248_530), "{fixture}");
        assert!(
            r.warnings.iter().any(|w| w.contains(says)),
            "{fixture}: {:?}",
            r.warnings
        );
    }
}

#[test]
fn a_bad_line_in_a_script_transcript_is_named_by_its_line_in_the_file() {
    let text = std::fs::read_to_string(fixture("smi-csv/script-transcript.log")).unwrap();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    // File line 6: the banner is line 1, the header line 2.
    lines[5] = lines[5].replacen("248.53 W", "24x.53 W", 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.log");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let (store, platform) = store();
    let err = breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None)
        .unwrap_err();
    assert!(err.to_string().contains("bad.log:6:"), "{err}");
}

#[test]
fn zone_less_times_are_read_in_the_given_zone() {
    let (store, r) = import("smi-csv/crlf.csv", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T03:27:05.177Z");
    assert_eq!(v(&s, PowerMw), Some(61_250));
}

/// `while :; do nvidia-smi --query-gpu=utilization.gpu --format=csv; sleep 1; done`:
/// one field, its header before every value. Detected from the header alone.
#[test]
fn a_one_field_query_loop_is_detected_and_read() {
    let (store, r) = import("smi-csv/one-field-loop.csv", |o| {
        o.interval_ms = Some(1000);
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap());
    });
    assert_eq!(r.format, Format::SmiCsv);
    assert_eq!((r.gpus, r.samples), (1, 4));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T00:00:03Z");
    assert_eq!(v(&s, UtilGpuPct), Some(100));
}

/// Bare numbers, one per line: what they are comes from `--fields`.
#[test]
fn bare_numbers_are_read_when_fields_say_what_they_are() {
    let (_, refused) = try_import("smi-csv/bare-numbers.txt", |_| {});
    assert!(
        refused
            .unwrap_err()
            .to_string()
            .contains("cannot tell the format"),
        "without --fields nothing says these are watts"
    );
    let (store, r) = import("smi-csv/bare-numbers.txt", |o| {
        o.fields = Some(vec!["power.draw".into()]);
        o.interval_ms = Some(1000);
        o.start = Some("2024-06-01T01:00:00Z".parse().unwrap());
    });
    assert_eq!((r.format, r.samples), (Format::SmiCsv, 4));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T01:00:02Z");
    assert_eq!(v(&s, PowerMw), Some(250_120));
}

/// `nvidia-smi --query-gpu=index,name,power.draw --format=csv > snap.csv`:
/// one row per GPU and no time. Read as one snapshot taken when the file
/// was written (said in a warning); the same shape with several rows per
/// GPU is a loop and still needs --interval.
#[test]
fn a_single_snapshot_takes_the_time_the_file_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.csv");
    let rows = "index, name, power.draw [W], utilization.gpu [%]\n0, NVIDIA A100-SXM4-80GB, 71.35 W, 0 %\n1, NVIDIA A100-SXM4-80GB, 70.90 W, 0 %\n";
    std::fs::write(&path, rows).unwrap();
    let written =
        jiff::Timestamp::try_from(std::fs::metadata(&path).unwrap().modified().unwrap()).unwrap();
    let (store, platform) = store();
    let options = utc_options(platform);
    let ImportOutcome::Imported(r) =
        breakpoint_core::import::import_file(&store, &path, &options, None).unwrap()
    else {
        panic!("not imported")
    };
    assert_eq!((r.gpus, r.samples), (2, 2));
    assert_eq!(r.started_at.unwrap().as_second(), written.as_second());
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("one snapshot taken when the file was written")),
        "{:?}",
        r.warnings
    );
    let looped = dir.path().join("loop.csv");
    std::fs::write(
        &looped,
        format!("{rows}{}", &rows[rows.find('\n').unwrap() + 1..]),
    )
    .unwrap();
    let e = breakpoint_core::import::import_file(&store, &looped, &options, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("give the sampling interval with --interval"),
        "{e}"
    );
}

#[test]
fn a_scripts_gpu_column_names_the_gpu_where_nvidia_smis_index_reads_zero() {
    // Eight H100s queried one by one from containers that each see one GPU:
    // nvidia-smi's `index` is 0 on every row, the script's `gpu` tells them apart.
    let (store, r) = import("smi-csv/script-gpu-column.csv", |_| {});
    assert_eq!((r.gpus, r.samples), (8, 32));
    let s = sample_at(&store, r.run_id, 7, "2025-03-14T09:00:30Z");
    assert_eq!(
        (v(&s, UtilGpuPct), v(&s, MemUsedMib), v(&s, PowerMw)),
        (Some(100), Some(71_283), Some(694_130))
    );
}

#[test]
fn rows_without_a_date_are_dated_by_the_files_name_or_imported_undated_never_1970() {
    // Nothing gives a date: the run is undated, with no start or end.
    let (undated_store, r) = import("smi-csv/no-timestamp.csv", |o| o.interval_ms = Some(2000));
    assert_eq!(r.samples, 12);
    assert_eq!((r.started_at, r.ended_at), (None, None));
    let run = undated_store.run(r.run_id).unwrap();
    assert_eq!(run.started_at, None);
    assert_eq!(run.metadata["undated"], true);
    assert!(
        r.warnings.iter().any(|w| w.contains("imported undated")),
        "{:?}",
        r.warnings
    );

    // The same rows in a file whose name carries the day.
    let dir = tempfile::tempdir().unwrap();
    let dated = dir.path().join("gpu-2024-06-01.csv");
    std::fs::copy(fixture("smi-csv/no-timestamp.csv"), &dated).unwrap();
    let (dated_store, platform) = store();
    let mut options = utc_options(platform);
    options.interval_ms = Some(2000);
    let Ok(ImportOutcome::Imported(r)) =
        breakpoint_core::import::import_file(&dated_store, &dated, &options, None)
    else {
        panic!("not imported")
    };
    assert_eq!(
        r.started_at.map(|t| t.as_millisecond()),
        Some(ms("2024-06-01T00:00:00Z"))
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2024-06-01 is taken from the file's name")),
        "{:?}",
        r.warnings
    );
    assert!(
        !dated_store
            .run(r.run_id)
            .unwrap()
            .metadata
            .contains_key("undated")
    );
}
