//! Ascend, Cambricon and AMD tools: samples and inventories like any log.

use breakpoint_core::domain::EventKind;
use breakpoint_core::import::Format;
use breakpoint_core::samples::Field::*;

use crate::util::*;

#[test]
fn npu_smi_info_in_a_date_loop() {
    let (store, r) = import("npu-smi/info-910b-loop.txt", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::NpuSmi, 4, 8));
    assert_eq!(r.interval_ms, Some(5000));
    let s = sample_at(&store, r.run_id, 1, "2024-04-15T02:00:05Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, UtilGpuPct),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib)
        ),
        (
            Some(353_400),
            Some(62),
            Some(100),
            Some(61_210),
            Some(65_536)
        )
    );
    let run = store.run(r.run_id).unwrap();
    let g = &run.inventory[1];
    assert_eq!(g.pci_bus_id.as_deref(), Some("0000:01:00.0"));
    assert_eq!(
        g.accelerator
            .as_ref()
            .map(|a| (a.family.as_str(), a.model.as_str())),
        Some(("Ascend 910B", "Ascend 910B3"))
    );
    assert_eq!(g.driver_version.as_deref(), Some("23.0.rc3"));
    // NPU 2's health turned to Warning in the second snapshot.
    let events = store.events(r.run_id).unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!((events[0].kind, events[0].gpu), (EventKind::Note, Some(2)));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("NPU 2 (0000:C2:00.0) reports its health as Warning"))
    );
}

#[test]
fn npu_smi_info_of_a_310p_duo_without_a_date() {
    let (store, r) = import("npu-smi/info-310p-duo.txt", |o| {
        o.start = Some("2024-05-06T09:00:00Z".parse().unwrap())
    });
    assert_eq!((r.gpus, r.samples), (2, 2));
    let s = sample_at(&store, r.run_id, 1, "2024-05-06T09:00:00Z");
    // No HBM on the 310P: its Memory-Usage is the device memory; no power.
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, UtilGpuPct),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib)
        ),
        (None, Some(45), Some(12), Some(3020), Some(21_527))
    );
}

#[test]
fn npu_smi_watch_needs_a_start() {
    let (_, result) = try_import("npu-smi/watch.txt", |_| {});
    let e = result.unwrap_err().to_string();
    assert!(e.contains("watch.txt:2:"), "{e}");
    assert!(e.contains("--start"), "{e}");

    let (store, r) = import("npu-smi/watch.txt", |o| {
        o.start = Some("2024-04-15T02:00:00Z".parse().unwrap());
        o.interval_ms = Some(2000);
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::NpuSmi, 2, 6));
    let s = sample_at(&store, r.run_id, 0, "2024-04-15T02:00:04Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, UtilGpuPct),
            v(&s, UtilMemPct)
        ),
        (Some(355_100), Some(55), Some(99), Some(63))
    );
    let s = sample_at(&store, r.run_id, 1, "2024-04-15T02:00:04Z");
    assert_eq!(v(&s, PowerMw), None);
}

#[test]
fn cnmon_tables_in_a_date_loop() {
    let (store, r) = import("cnmon/cnmon-loop.txt", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::Cnmon, 2, 4));
    let s = sample_at(&store, r.run_id, 1, "2024-03-12T10:22:36Z");
    assert_eq!(
        (
            v(&s, UtilGpuPct),
            v(&s, TempGpuC),
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib)
        ),
        (
            Some(97),
            Some(63),
            Some(238_000),
            Some(250_000),
            Some(20_480),
            Some(23_374)
        )
    );
    let run = store.run(r.run_id).unwrap();
    let g = &run.inventory[1];
    assert_eq!(g.pci_bus_id.as_deref(), Some("0000:53:00.0"));
    assert_eq!(g.driver_version.as_deref(), Some("5.10.22"));
    assert_eq!(
        g.accelerator.as_ref().map(|a| a.family.as_str()),
        Some("MLU370")
    );
}

#[test]
fn cnmon_info_reports() {
    let (store, r) = import("cnmon/cnmon-info.txt", |o| {
        o.start = Some("2024-03-12T10:30:00Z".parse().unwrap())
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::Cnmon, 2, 2));
    let s = sample_at(&store, r.run_id, 0, "2024-03-12T10:30:00Z");
    assert_eq!(
        (
            v(&s, UtilGpuPct),
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, TempGpuC),
            v(&s, TempMemC),
            v(&s, MemUsedMib)
        ),
        (
            Some(87),
            Some(352_000),
            Some(450_000),
            Some(63),
            Some(58),
            Some(65_536)
        )
    );
    let s = sample_at(&store, r.run_id, 1, "2024-03-12T10:30:00Z");
    assert_eq!((v(&s, PowerMw), v(&s, TempGpuC)), (None, Some(39)));
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[0]
            .accelerator
            .as_ref()
            .map(|a| a.family.as_str()),
        Some("MLU590")
    );
    assert_eq!(run.inventory[0].vram_mib, Some(81_920));
}

#[test]
fn amd_smi_monitor_text_csv_and_metric_json() {
    let (store, r) = import("amd/amd-smi-monitor.txt", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::AmdSmi, 2, 2));
    let s = sample_at(&store, r.run_id, 1, "2024-07-22T03:10:00Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, TempGpuC),
            v(&s, TempMemC),
            v(&s, UtilGpuPct),
            v(&s, SmClockMhz),
            v(&s, UtilMemPct),
            v(&s, MemClockMhz),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib)
        ),
        (
            Some(725_000),
            Some(78),
            Some(66),
            Some(100),
            Some(2100),
            Some(62),
            Some(1300),
            Some(180_224),
            Some(196_592)
        )
    );

    // A loop of `amd-smi monitor --csv` without times needs --interval.
    let (_, result) = try_import("amd/amd-smi-monitor-loop.csv", |o| {
        o.start = Some("2024-07-22T03:10:00Z".parse().unwrap())
    });
    let e = result.unwrap_err().to_string();
    assert!(e.contains("amd-smi-monitor-loop.csv:4:"), "{e}");
    assert!(e.contains("--interval"), "{e}");
    let (store, r) = import("amd/amd-smi-monitor-loop.csv", |o| {
        o.start = Some("2024-07-22T03:10:00Z".parse().unwrap());
        o.interval_ms = Some(1000);
    });
    assert_eq!((r.format, r.samples), (Format::AmdSmi, 4));
    let s = sample_at(&store, r.run_id, 0, "2024-07-22T03:10:01Z");
    assert_eq!((v(&s, PowerMw), v(&s, TempGpuC)), (Some(722_000), Some(77)));

    let (store, r) = import("amd/amd-smi-metric.json", |o| {
        o.start = Some("2024-07-22T03:10:00Z".parse().unwrap())
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::AmdSmi, 2, 2));
    let s = sample_at(&store, r.run_id, 0, "2024-07-22T03:10:00Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, UtilGpuPct),
            v(&s, UtilMemPct),
            v(&s, SmClockMhz),
            v(&s, MemClockMhz),
            v(&s, TempGpuC),
            v(&s, TempMemC),
            v(&s, MemUsedMib)
        ),
        (
            Some(712_000),
            Some(99),
            Some(57),
            Some(2095),
            Some(1300),
            Some(76),
            Some(64),
            Some(175_104)
        )
    );
}

#[test]
fn rocm_smi_json_loop_and_csv() {
    let (store, r) = import("amd/rocm-smi-loop.json", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::RocmSmi, 2, 4));
    let s = sample_at(&store, r.run_id, 0, "2024-07-22T03:10:05Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, TempGpuC),
            v(&s, TempMemC),
            v(&s, UtilGpuPct),
            v(&s, UtilMemPct),
            v(&s, SmClockMhz),
            v(&s, MemTotalMib),
            v(&s, MemUsedMib)
        ),
        (
            Some(299_000),
            Some(300_000),
            Some(44),
            Some(52),
            Some(100),
            Some(38),
            Some(1700),
            Some(65_520),
            Some(46_590)
        )
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[0]
            .accelerator
            .as_ref()
            .map(|a| a.family.as_str()),
        Some("MI210")
    );

    let (store, r) = import("amd/rocm-smi.csv", |o| {
        o.start = Some("2024-07-22T03:10:00Z".parse().unwrap())
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::RocmSmi, 2, 2));
    let s = sample_at(&store, r.run_id, 1, "2024-07-22T03:10:00Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, TempGpuC), v(&s, MemUsedMib)),
        (Some(42_000), Some(35), Some(11))
    );
}
