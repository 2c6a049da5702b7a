//! Kernel logs: Xid errors by meaning, GPUs by PCI address, times from
//! every shape the kernel's messages are saved in.

use breakpoint_core::domain::{Event, EventKind};
use breakpoint_core::import::{Format, ImportOutcome};
use breakpoint_core::store::Store;

use crate::util::*;

fn xids(events: &[Event]) -> Vec<(Option<u32>, i64)> {
    events
        .iter()
        .filter(|e| e.kind == EventKind::Xid)
        .map(|e| (e.gpu, e.code.unwrap()))
        .collect()
}

fn counted(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| e.counts_against_platform())
        .count()
}

fn bus_of(store: &Store, run: i64, gpu: u32) -> Option<String> {
    let run = store.run(run).unwrap();
    run.inventory
        .iter()
        .find(|g| g.index == gpu)
        .and_then(|g| g.pci_bus_id.clone())
}

#[test]
fn raw_dmesg_anchored_by_the_kernels_clock_line() {
    let (store, r) = import("kernel/dmesg-fell-off.log", |_| {});
    assert_eq!((r.format, r.gpus), (Format::KernelLog, 8));
    let events = store.events(r.run_id).unwrap();
    // Two Xid 13 lines and an Xid 43 from the program on GPU 0, an Xid 79
    // on GPU 6 (the "fallen off the bus" line beside it is the same
    // incident).
    assert_eq!(
        xids(&events),
        vec![(Some(0), 13), (Some(0), 13), (Some(0), 43), (Some(6), 79)]
    );
    assert_eq!(events.len(), 4);
    assert_eq!(counted(&events), 1);
    let fell = events.iter().find(|e| e.code == Some(79)).unwrap();
    // Boot = 1717236003 s − 1.734512 s; the Xid is 5021.338113 s after.
    assert_eq!(
        fell.at.as_millisecond(),
        1_717_236_003_000 - 1_735 + 5_021_338
    );
    assert!(
        fell.detail
            .as_deref()
            .unwrap()
            .starts_with("Xid 79: GPU has fallen off the bus (fatal, platform fault)"),
        "{:?}",
        fell.detail
    );
    assert_eq!(
        bus_of(&store, r.run_id, 6).as_deref(),
        Some("00000000:B7:00.0")
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[6].uuid.as_deref(),
        Some("GPU-8d2b4c31-6a7e-4f0d-92c5-1e3b7a9f0d42")
    );
    assert_eq!(
        run.metadata["kernel_log"]["observed_gpus"],
        serde_json::json!(8)
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("3 Xid errors are application faults")),
        "{:?}",
        r.warnings
    );
    // The driver enumerated every GPU: no warning about numbering.
    assert!(!r.warnings.iter().any(|w| w.contains("PCI order")));
}

#[test]
fn dmesg_with_readable_times_in_the_machines_zone() {
    let (store, r) = import("kernel/dmesg-T-ecc.log", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    assert_eq!((r.format, r.gpus), (Format::KernelLog, 2));
    let events = store.events(r.run_id).unwrap();
    assert_eq!(
        xids(&events),
        vec![(Some(0), 48), (Some(0), 63), (Some(0), 94), (Some(1), 31)]
    );
    // 48 and 94 stopped work; 63 is a recorded row remap; 31 the program's.
    assert_eq!(counted(&events), 2);
    assert_eq!(events[0].at.as_millisecond(), ms("2025-03-10T18:14:09Z"));
    assert!(r.warnings.iter().any(|w| w.contains("PCI order")));
    assert_eq!(
        bus_of(&store, r.run_id, 1).as_deref(),
        Some("00000000:C1:00.0")
    );
}

#[test]
fn journal_short_iso_with_nvlink_and_nvswitch_errors() {
    let (store, r) = import("kernel/journal-short-iso-nvlink.log", |_| {});
    assert_eq!(r.format, Format::KernelLog);
    let events = store.events(r.run_id).unwrap();
    assert_eq!(
        xids(&events),
        vec![(Some(0), 149), (Some(0), 74), (Some(1), 109), (Some(1), 44)]
    );
    // Xid 44 behind the context-switch timeout is recorded, not counted
    // (NVIDIA: no action).
    assert_eq!(counted(&events), 3);
    let notes: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == EventKind::Note)
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("NVSwitch SXid 20034")
    );
    assert!(
        notes[1]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("GSP firmware")
    );
    assert_eq!(events[0].at.as_millisecond(), ms("2025-02-03T00:15:02Z"));
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.provenance.host.as_deref(), Some("gpu-node-12"));
}

#[test]
fn journalctl_without_years_crosses_new_year_from_its_header() {
    let (store, r) = import("kernel/journal-k-new-year.log", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    let events = store.events(r.run_id).unwrap();
    let kinds: Vec<(EventKind, Option<i64>)> = events.iter().map(|e| (e.kind, e.code)).collect();
    // The three "failed to initialise" lines within a minute are one loss.
    assert_eq!(
        kinds,
        vec![
            (EventKind::Xid, Some(119)),
            (EventKind::Xid, Some(120)),
            (EventKind::GpuLost, None),
            (EventKind::Xid, Some(45)),
        ]
    );
    assert_eq!(events[0].at.as_millisecond(), ms("2024-12-31T15:58:01Z"));
    assert_eq!(events[2].at.as_millisecond(), ms("2024-12-31T16:03:12Z"));
    assert_eq!(events[3].at.as_millisecond(), ms("2024-12-31T16:09:55Z"));
    assert_eq!(counted(&events), 3);
}

#[test]
fn journalctl_json_with_a_gpu_that_fell_off() {
    let (store, r) = import("kernel/journal-json-fell-off.jsonl", |_| {});
    assert_eq!((r.format, r.gpus), (Format::KernelLog, 2));
    let events = store.events(r.run_id).unwrap();
    assert_eq!(xids(&events), vec![(Some(1), 79)]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].at.as_millisecond(), 1_733_738_400_000);
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.provenance.host.as_deref(), Some("gpu-a800-03"));
}

#[test]
fn syslog_without_a_year_takes_it_from_start_or_the_files_time() {
    let (store, r) = import("kernel/kern.log", |o| {
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap())
    });
    let events = store.events(r.run_id).unwrap();
    assert_eq!(xids(&events), vec![(Some(1), 48), (Some(1), 95)]);
    assert_eq!(events[0].at.as_millisecond(), ms("2024-06-01T13:41:27Z"));

    // Without --start the year is the file's, said in a warning.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("kern.log");
    std::fs::copy(fixture("kernel/kern.log"), &copy).unwrap();
    let june_2023 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_686_000_000);
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(june_2023)
        .unwrap();
    let (store, platform) = crate::util::store();
    let outcome =
        breakpoint_core::import::import_file(&store, &copy, &utc_options(platform), None).unwrap();
    let ImportOutcome::Imported(r) = outcome else {
        panic!("{outcome:?}")
    };
    let events = store.events(r.run_id).unwrap();
    assert_eq!(events[0].at.as_millisecond(), ms("2023-06-01T13:41:27Z"));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("2023 was taken from the file"))
    );
}

#[test]
fn raw_dmesg_without_its_boot_time_keeps_its_faults_untimed() {
    let (store, r) = import("kernel/dmesg-no-anchor.log", |_| {});
    // No invented time: no event, no span, the fault kept with the run.
    assert!(store.events(r.run_id).unwrap().is_empty());
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.started_at, None);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("does not say when the machine booted") && w.contains("--start")),
        "{:?}",
        r.warnings
    );
    let found = breakpoint_core::metrics::faulty_gpus::health_findings(&run, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("Xid 79"), "{found:?}");

    let (store, r) = import("kernel/dmesg-no-anchor.log", |o| {
        o.start = Some("2025-01-06T08:00:00Z".parse().unwrap())
    });
    let events = store.events(r.run_id).unwrap();
    assert_eq!(
        events[0].at.as_millisecond(),
        ms("2025-01-06T10:15:23.005Z")
    );
}

#[test]
fn a_time_servers_synchronisation_line_places_raw_dmesg() {
    // timesyncd set the clock to 08:00:11.204113 UTC at 11.204113 s since
    // boot: the machine booted at 08:00:00, the Xid 79 is 3723 s after.
    let (store, r) = import("kernel/dmesg-timesyncd.log", |_| {});
    let events = store.events(r.run_id).unwrap();
    let lost: Vec<_> = events.iter().filter(|e| e.code == Some(79)).collect();
    assert_eq!(lost.len(), 1, "{events:?}");
    assert_eq!(lost[0].at.as_millisecond(), ms("2024-09-02T09:02:03.005Z"));
}

#[test]
fn an_xid_that_names_its_cause_counts_as_that_cause_once_per_gpu() {
    let (store, r) = import("kernel/dmesg-xid45-cause.log", |_| {});
    let run = store.run(r.run_id).unwrap();
    let counts = &run.metadata["kernel_log"]["xid_counts"];
    assert_eq!(
        (
            counts["149"].as_u64(),
            counts["145"].as_u64(),
            counts["45"].as_u64()
        ),
        (Some(3), Some(1), Some(1)),
        "{counts}"
    );
    let events = store.events(r.run_id).unwrap();
    let mut faulty: Vec<_> = events
        .iter()
        .filter(|e| matches!(e.code, Some(145 | 149)))
        .map(|e| e.gpu)
        .collect();
    faulty.dedup();
    assert_eq!(faulty.len(), 4, "{events:?}");
    let nvlink = events.iter().find(|e| e.code == Some(145)).unwrap();
    assert!(
        nvlink
            .detail
            .as_deref()
            .unwrap()
            .contains("reported as Xid 45"),
        "{nvlink:?}"
    );
    // The lone Xid 45 is the program's: shown, not counted.
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("1 Xid error is an application fault"))
    );
}

#[test]
fn a_kernel_log_that_saw_the_whole_machine_gives_an_interruption_rate() {
    let (store, r) = import("kernel/dmesg-fell-off.log", |_| {});
    let run = store.run(r.run_id).unwrap();
    let values = breakpoint_core::metrics::compute_run(&store, &run).unwrap();
    let rate = values
        .iter()
        .find(|v| v.key == "sustain.interruptions_per_100h")
        .unwrap();
    // One platform fault (the Xid 79) in 8 GPUs × 5022.9 s since boot;
    // the program's three Xids are not counted.
    let gpu_hours = 8.0 * (5_022_904.0 - 0.0) / 3.6e6;
    assert!((rate.value - 100.0 / gpu_hours).abs() < 0.01, "{rate:?}");
    assert!(
        rate.detail
            .as_deref()
            .unwrap()
            .contains("3 application faults not counted")
    );
    // Events alone say nothing about availability.
    assert!(!values.iter().any(|v| v.key == "sustain.availability_pct"));

    // A log that did not see the driver find every GPU gives no rate.
    let (store, r) = import("kernel/dmesg-T-ecc.log", |_| {});
    let run = store.run(r.run_id).unwrap();
    let values = breakpoint_core::metrics::compute_run(&store, &run).unwrap();
    assert!(
        !values
            .iter()
            .any(|v| v.key == "sustain.interruptions_per_100h")
    );
}

#[test]
fn a_kernel_log_takes_gpu_numbers_from_an_inventory_of_the_same_platform() {
    let (store, platform) = crate::util::store();
    let options = utc_options(platform);
    // nvidia-smi -q of the host: 00000000:07:00.0 is GPU 0, 0F is GPU 1.
    breakpoint_core::import::import_file(&store, &fixture("smi-q/a100-535.txt"), &options, None)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dmesg.log");
    std::fs::write(
        &path,
        "[Tue Oct 10 15:02:11 2023] NVRM: Xid (PCI:0000:0f:00): 48, pid=0, DBE (0x1,0x8) GPU has a double bit error\n",
    )
    .unwrap();
    let ImportOutcome::Imported(r) =
        breakpoint_core::import::import_file(&store, &path, &options, None).unwrap()
    else {
        panic!("not imported")
    };
    let events = store.events(r.run_id).unwrap();
    // Alone, the log would call its only GPU 0; the -q log says it is GPU 1.
    assert_eq!(xids(&events), vec![(Some(1), 48)]);
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.inventory.len(), 1);
    assert_eq!(
        (run.inventory[0].index, run.inventory[0].uuid.as_deref()),
        (1, Some("GPU-c2d9e1b0-47a5-3f86-b1e2-90ad5c6f7e13"))
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("GPU numbers taken from run 1")),
        "{:?}",
        r.warnings
    );
    assert!(!r.warnings.iter().any(|w| w.contains("PCI order")));
}

/// Every node of a fleet has a GPU at 0000:0f:00.0: a log that names no
/// host takes no machine's numbers and UUIDs when two machines of the
/// platform have GPUs there, and says why; with one machine it does.
#[test]
fn a_log_without_a_host_borrows_no_machines_gpus() {
    let (store, platform) = crate::util::store();
    let options = utc_options(platform);
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let import = |path: &std::path::Path| {
        let ImportOutcome::Imported(r) =
            breakpoint_core::import::import_file(&store, path, &options, None).unwrap()
        else {
            panic!("not imported")
        };
        r
    };
    let line = |host: &str, second: u32| {
        format!(
            "2023-10-10T15:02:{second:02}+00:00 {host} kernel: NVRM: Xid (PCI:0000:0f:00): 48, pid=0, DBE (0x1,0x8) GPU has a double bit error\n"
        )
    };
    import(&write("a.log", &line("node-a", 1)));
    let one = import(&write(
        "hostless-1.log",
        "[Tue Oct 10 15:03:11 2023] NVRM: Xid (PCI:0000:0f:00): 48, pid=0, DBE (0x1,0x8) GPU has a double bit error\n",
    ));
    assert!(
        one.warnings
            .iter()
            .any(|w| w.contains("GPU numbers taken from run")),
        "one machine: {:?}",
        one.warnings
    );
    import(&write("b.log", &line("node-b", 2)));
    let two = import(&write(
        "hostless-2.log",
        "[Tue Oct 10 15:04:11 2023] NVRM: Xid (PCI:0000:0f:00): 48, pid=0, DBE (0x1,0x8) GPU has a double bit error\n",
    ));
    assert!(
        two.warnings
            .iter()
            .any(|w| w.contains("2 machines of the platform have GPUs at its PCI addresses")),
        "{:?}",
        two.warnings
    );
    assert!(
        !two.warnings
            .iter()
            .any(|w| w.contains("GPU numbers taken from run"))
    );
}
