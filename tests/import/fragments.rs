//! Evidence as people paste it (tests/fixtures/logs/fragments): terminal
//! transcripts, messages the driver wrote over several lines, excerpts
//! without times, `dcgmi diag` tables without their header. Each imports
//! without `--format` and gives exactly the events or health records it
//! carries.

use breakpoint_core::domain::{Event, EventKind};
use breakpoint_core::import::Format;
use breakpoint_core::store::Store;

use crate::util::*;

/// (GPU, kind, code) of every event, in time order.
fn events(store: &Store, run: i64) -> Vec<(Option<u32>, EventKind, Option<i64>)> {
    store
        .events(run)
        .unwrap()
        .iter()
        .map(|e: &Event| (e.gpu, e.kind, e.code))
        .collect()
}

fn bus(store: &Store, run: i64, gpu: u32) -> String {
    let run = store.run(run).unwrap();
    run.inventory
        .iter()
        .find(|g| g.index == gpu)
        .and_then(|g| g.pci_bus_id.clone())
        .unwrap()
}

#[test]
fn a_terminal_transcript_imports_with_the_gpu_nvidia_smi_cannot_reach() {
    let (store, r) = import("fragments/transcript-smi-then-dmesg.txt", |_| {});
    assert_eq!((r.format, r.gpus), (Format::KernelLog, 2));
    // The GPU at 3B:00.0 is GPU 1 in PCI order (1A:00.0 is GPU 0).
    assert_eq!(bus(&store, r.run_id, 1), "00000000:3B:00.0");
    assert_eq!(
        events(&store, r.run_id),
        vec![
            (Some(1), EventKind::Xid, Some(48)),
            (Some(1), EventKind::Xid, Some(63)),
            (Some(1), EventKind::GpuLost, None),
        ]
    );
    let lost = &store.events(r.run_id).unwrap()[2];
    // Printed when nvidia-smi ran: no earlier than the last kernel line.
    assert_eq!(lost.at.as_millisecond(), ms("2025-11-04T03:12:46Z"));
    assert!(
        lost.detail
            .as_deref()
            .unwrap()
            .starts_with("nvidia-smi cannot reach the GPU: Unable to determine the device handle"),
        "{:?}",
        lost.detail
    );
}

#[test]
fn a_csv_loop_pasted_with_its_prompt_reads_as_the_csv() {
    let (store, r) = import("fragments/transcript-smi-csv.txt", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiCsv, 2, 4));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("a terminal transcript: 3 line(s)")),
        "{:?}",
        r.warnings
    );
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:06.180Z");
    assert_eq!(
        s.get(breakpoint_core::samples::Field::PowerMw),
        Some(248_530)
    );
}

#[test]
fn a_message_over_several_lines_is_read_whole() {
    let (store, r) = import("fragments/open-module-fell-off.txt", |_| {});
    assert_eq!((r.format, r.gpus), (Format::KernelLog, 2));
    // Wrapped under its first line's time, and with a time on every line.
    assert_eq!(
        events(&store, r.run_id),
        vec![
            (Some(0), EventKind::GpuLost, None),
            (Some(1), EventKind::GpuLost, None),
        ]
    );
    assert_eq!(bus(&store, r.run_id, 0), "00000000:B3:00.0");
    assert_eq!(bus(&store, r.run_id, 1), "00000000:DB:00.0");
    let at: Vec<i64> = store
        .events(r.run_id)
        .unwrap()
        .iter()
        .map(|e| e.at.as_millisecond())
        .collect();
    assert_eq!(
        at,
        vec![ms("2025-11-10T14:02:11Z"), ms("2025-11-10T14:02:31Z")]
    );
}

#[test]
fn an_excerpt_without_times_is_kept_and_tallied_or_placed_at_start() {
    // Without --start: no events (no time to place them at), every message
    // kept with the run, counted as its records and in the Xid tally. The
    // Xid 45 "caused by previous Xid 149" is that Xid 149 again: one incident.
    let (store, r) = import("fragments/grep-untimed-xids.txt", |_| {});
    assert_eq!(
        (r.format, r.gpus, r.events, r.records),
        (Format::KernelLog, 1, 0, 2)
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2 kernel message(s) carry no time")),
        "{:?}",
        r.warnings
    );
    let run = store.run(r.run_id).unwrap();
    let kernel = &run.metadata["kernel_log"];
    assert_eq!(kernel["xid_counts"], serde_json::json!({"149": 1}));
    let untimed = kernel["untimed"].as_array().unwrap();
    let kinds: Vec<(&str, Option<i64>)> = untimed
        .iter()
        .map(|u| (u["kind"].as_str().unwrap(), u["code"].as_i64()))
        .collect();
    assert_eq!(kinds, vec![("xid", Some(149)), ("gpu-lost", None)]);
    assert_eq!(bus(&store, r.run_id, 0), "00000000:DC:00.0");
    // A GPU that failed is a faulty GPU, time or not; the application's
    // Xid 45 is not.
    let faulty = breakpoint_api::runs::detail(&store, r.run_id)
        .unwrap()
        .faulty_gpus;
    assert_eq!(faulty.len(), 2, "{faulty:?}");
    assert!(faulty[0].starts_with("GPU 0: Xid 149"), "{faulty:?}");
    assert_eq!(faulty[1], "GPU 0: lost (the log gives no time)");

    // With --start: events at that time.
    let start = "2025-11-04T00:00:00Z";
    let (store, r) = import("fragments/grep-untimed-xids.txt", |o| {
        o.start = Some(start.parse().unwrap());
    });
    assert_eq!(
        events(&store, r.run_id),
        vec![
            (Some(0), EventKind::Xid, Some(149)),
            (Some(0), EventKind::GpuLost, None),
        ]
    );
    assert!(
        store
            .events(r.run_id)
            .unwrap()
            .iter()
            .all(|e| e.at.as_millisecond() == ms(start))
    );
}

/// (category, test, GPU, status) of each `dcgmi diag` result.
fn diag(store: &Store, run: i64) -> Vec<(String, String, String, String)> {
    let run = store.run(run).unwrap();
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    run.metadata["dcgm_diag"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                text(&r["category"]),
                text(&r["test"]),
                text(&r["gpu"]),
                text(&r["status"]),
            )
        })
        .collect()
}

#[test]
fn a_diag_that_stopped_at_deployment_is_a_failed_health_check() {
    let (store, r) = import("fragments/dcgmi-diag-deployment-stopped.txt", |_| {});
    assert_eq!(r.format, Format::DcgmDiag);
    assert_eq!(
        diag(&store, r.run_id),
        vec![(
            "Deployment".to_string(),
            "Deployment".to_string(),
            "3".to_string(),
            "Fail".to_string()
        )]
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.metadata["dcgm_diag"][0]["message"],
        "GPU 3 has uncorrectable memory errors and row remappings are pending"
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("Deployment Fail on GPU 3")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn diag_rows_without_their_header_are_read_by_their_labels() {
    let (store, r) = import("fragments/dcgmi-diag-rows-only.txt", |_| {});
    assert_eq!((r.format, r.records), (Format::DcgmDiag, 9));
    let failed: Vec<_> = diag(&store, r.run_id)
        .into_iter()
        .filter(|d| d.3 != "Pass")
        .collect();
    assert_eq!(
        failed,
        vec![(
            String::new(),
            "Page Retirement/Row Remap".to_string(),
            "5".to_string(),
            "Fail".to_string()
        )]
    );
}
