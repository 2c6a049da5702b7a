use breakpoint_core::domain::{EventKind, StartupOutcome};
use breakpoint_core::import::Format;
use breakpoint_core::samples::Field::*;

use crate::util::*;

#[test]
fn dmon_default_and_older_layouts() {
    let (store, r) = import("dmon/default.txt", |o| {
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap())
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiDmon, 2, 16));
    let s = &all_samples(&store, r.run_id, 0)[0];
    assert_eq!(
        (
            v(s, PowerMw),
            v(s, TempGpuC),
            v(s, TempMemC),
            v(s, UtilGpuPct),
            v(s, MemClockMhz),
            v(s, SmClockMhz)
        ),
        (
            Some(62_000),
            Some(33),
            Some(41),
            Some(0),
            Some(1593),
            Some(210)
        )
    );
    let s = &all_samples(&store, r.run_id, 0)[1];
    assert_eq!(
        (
            v(s, PowerMw),
            v(s, UtilGpuPct),
            v(s, UtilMemPct),
            v(s, SmClockMhz)
        ),
        (Some(248_000), Some(100), Some(41), Some(1410))
    );
    assert_eq!(s.t_ms, ms("2024-06-01T00:00:01Z"));

    let (store, r) = import("dmon/older-driver.txt", |_| {});
    assert_eq!(r.samples, 12);
    assert!(
        all_samples(&store, r.run_id, 1)
            .iter()
            .any(|s| v(s, PowerMw) == Some(182_000) && v(s, SmClockMhz) == Some(1530))
    );
    assert!(r.warnings.iter().any(|w| w.contains("--start")));
}

#[test]
fn dmon_dates_and_times_cross_midnight() {
    let (store, r) = import("dmon/date-time.txt", |_| {});
    assert_eq!(r.samples, 10);
    let s = sample_at(&store, r.run_id, 0, "2024-06-02T00:00:00Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, UtilGpuPct),
            v(&s, MemClockMhz),
            v(&s, SmClockMhz)
        ),
        (Some(350_000), Some(100), Some(9001), Some(2475))
    );
    assert_eq!(v(&s, TempMemC), None);

    let (store, r) = import("dmon/time-only.txt", |o| {
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap())
    });
    let s = sample_at(&store, r.run_id, 1, "2024-06-02T00:00:00Z");
    assert_eq!(v(&s, PowerMw), Some(301_000));
    assert_eq!(r.started_at.unwrap().to_string(), "2024-06-01T23:59:58Z");
}

#[test]
fn dmon_across_a_driver_mismatch_records_one_outage() {
    let (store, r) = import("dmon/nvml-mismatch.txt", |_| {});
    assert_eq!(r.samples, 8);
    let events = store.events(r.run_id).unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(
        (e.kind, e.gpu, e.at.to_string(), e.duration_ms),
        (
            EventKind::GpuLost,
            None,
            "2024-06-01T23:59:59Z".to_string(),
            Some(721_000)
        )
    );
    assert_eq!(r.gaps, 0);
    assert!(r.warnings[0].starts_with("line 7: "), "{:?}", r.warnings);
}

#[test]
fn dmon_wide_selection_mig_and_ragged_whitespace() {
    let (store, r) = import("dmon/select.txt", |_| {});
    // File line 10: GPU 1's fourth sample.
    let last = all_samples(&store, r.run_id, 1)[3];
    assert_eq!(
        (
            v(&last, PowerMw),
            v(&last, SmClockMhz),
            v(&last, MemUsedMib),
            v(&last, PcieRxKbps),
            v(&last, PcieTxKbps)
        ),
        (
            Some(401_000),
            Some(1290),
            Some(77_483),
            Some(3_012_000),
            Some(401_000)
        )
    );
    assert_eq!(
        v(&last, ThrottleMask),
        Some(0x4),
        "pviol 55 % is the power cap, tviol 0"
    );

    let (store, r) = import("dmon/mig.txt", |_| {});
    for s in all_samples(&store, r.run_id, 0) {
        assert_eq!(v(&s, UtilGpuPct), None, "MIG hides utilisation");
        assert!(v(&s, PowerMw).is_some());
    }
    let (_, r) = import("dmon/trailing-spaces.txt", |_| {});
    assert_eq!(r.samples, 8);
}

#[test]
fn smi_q_inventory_across_driver_generations() {
    let (store, r) = import("smi-q/a100-535.txt", |_| {});
    assert_eq!(
        (r.format, r.kind.as_str(), r.gpus, r.samples),
        (Format::SmiQuery, "delivery", 2, 2)
    );
    let run = store.run(r.run_id).unwrap();
    let g1 = &run.inventory[1];
    assert_eq!(
        (g1.pcie_width_current, g1.pcie_width_max, g1.pcie_gen_max),
        (Some(8), Some(16), Some(4))
    );
    assert_eq!(g1.driver_version.as_deref(), Some("535.104.05"));
    assert_eq!(g1.cuda_version.as_deref(), Some("12.2"));
    assert_eq!(g1.vram_mib, Some(81_920));
    assert_eq!(
        g1.accelerator.as_ref().unwrap().canonical,
        "NVIDIA A100 80GB SXM"
    );
    assert!(g1.uuid.as_deref().unwrap().starts_with("GPU-"));
    let s = &all_samples(&store, r.run_id, 1)[0];
    assert_eq!(
        v(s, ThrottleMask).map(|m| m & 0x4),
        Some(0x4),
        "SW power cap active"
    );

    let (store, r) = import("smi-q/v100-470.txt", |_| {});
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[0].accelerator.as_ref().unwrap().family,
        "V100"
    );
    assert!(run.inventory[0].power_limit_enforced_w.is_some());

    for file in [
        "smi-q/h100-550.txt",
        "smi-q/rtx4090-570.txt",
        "smi-q/h200-610.txt",
    ] {
        let (store, r) = import(file, |_| {});
        let run = store.run(r.run_id).unwrap();
        let g = &run.inventory[0];
        assert!(
            g.accelerator.is_some() && g.driver_version.is_some() && g.cuda_version.is_some(),
            "{file}: {g:?}"
        );
        assert!(
            !g.driver_version.as_deref().unwrap().contains("Deprecated"),
            "{file}"
        );
        assert!(
            v(&all_samples(&store, r.run_id, 0)[0], PowerMw).is_some(),
            "{file}"
        );
    }
    let (_, r) = import("smi-q/truncated.txt", |_| {});
    assert_eq!(r.gpus, 1);
}

#[test]
fn seed_script_log_keeps_real_zeros_and_drops_failed_reads() {
    let (store, r) = import("seed-script/script-log.jsonl", |_| {});
    assert_eq!((r.format, r.samples), (Format::ScriptLog, 19));
    assert!(r.warnings.iter().any(|w| w.contains("only zeros")));
    let samples = all_samples(&store, r.run_id, 0);
    let early: Vec<i64> = samples[..8].iter().filter_map(|s| v(s, PowerMw)).collect();
    assert!(
        early.iter().all(|p| (248_500..=251_030).contains(p)),
        "{early:?}"
    );
    assert!(
        samples[9..]
            .iter()
            .all(|s| (227_650..=228_730).contains(&v(s, PowerMw).unwrap()))
    );
    assert_eq!(r.interval_ms, Some(30_000));

    let (_, r) = import("seed-script/script-log-truncated.jsonl", |_| {});
    assert_eq!(r.samples, 12);
    assert!(r.warnings.iter().any(|w| w.contains("cut off")));
}

#[test]
fn probe_logs_keep_inventory_events_and_startups() {
    let (store, r) = import("probe/probe-v1.jsonl", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::ProbeLog, 2, 16));
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.provenance.host.as_deref(), Some("gpu-node-3"));
    assert_eq!(run.inventory[1].pcie_width_current, Some(8));
    assert_eq!(run.metadata["exit_code"], 0);
    let events = store.events(r.run_id).unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.kind == EventKind::Xid && e.code == Some(79) && e.gpu == Some(1))
    );
    assert!(events.iter().any(|e| e.kind == EventKind::GpuLost));
    let attempts = store.startup_attempts(r.run_id).unwrap();
    assert_eq!(attempts[0].outcome, StartupOutcome::Ok);
    assert_eq!(attempts[0].latency_s(), Some(3.0));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T00:00:07Z");
    assert_eq!(
        (v(&s, ThrottleMask), v(&s, PowerMw)),
        (Some(4), Some(250_074))
    );

    let (_, r) = import("probe/probe-killed.jsonl", |_| {});
    assert!(r.samples >= 5);
    assert!(r.warnings.iter().any(|w| w.contains("cut off")));
}

#[test]
fn plain_nvidia_smi_tables_of_three_driver_generations() {
    let (store, r) = import("smi-table/a100-535.log", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiTable, 2, 6));
    assert_eq!(r.interval_ms, Some(5000));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:10Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, TempGpuC),
            v(&s, Pstate),
            v(&s, UtilGpuPct),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib),
            v(&s, FanPct)
        ),
        (
            Some(398_000),
            Some(400_000),
            Some(54),
            Some(0),
            Some(100),
            Some(61_227),
            Some(81_920),
            None
        )
    );
    // "ERR!" is a reading nvidia-smi could not take: absent, never 0.
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:15Z");
    assert_eq!((v(&s, PowerMw), v(&s, TempGpuC)), (None, Some(58)));
    let run = store.run(r.run_id).unwrap();
    let gpu1 = &run.inventory[1];
    assert_eq!(gpu1.pci_bus_id.as_deref(), Some("00000000:0F:00.0"));
    assert_eq!(gpu1.driver_version.as_deref(), Some("535.104.05"));
    assert_eq!(gpu1.cuda_version.as_deref(), Some("12.2"));
    assert_eq!(
        gpu1.accelerator.as_ref().map(|a| a.canonical.as_str()),
        Some("NVIDIA A100 80GB SXM")
    );
    assert_eq!(gpu1.power_limit_enforced_w, Some(400.0));

    // R470's narrow boxes and a name cut to "Tesla V100-SXM2...".
    let (store, r) = import("smi-table/v100-470.log", |_| {});
    assert_eq!((r.gpus, r.samples), (1, 2));
    let s = sample_at(&store, r.run_id, 0, "2022-03-08T16:45:07Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, MemUsedMib), v(&s, UtilGpuPct)),
        (Some(298_000), Some(30_871), Some(100))
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[0]
            .accelerator
            .as_ref()
            .map(|a| a.family.as_str()),
        Some("V100")
    );

    // R550's wider bus-id column, a GeForce with a fan, local times.
    let (store, r) = import("smi-table/rtx4090-550.log", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    let s = sample_at(&store, r.run_id, 0, "2024-10-17T13:03:44Z");
    assert_eq!(
        (
            v(&s, FanPct),
            v(&s, TempGpuC),
            v(&s, Pstate),
            v(&s, PowerMw)
        ),
        (Some(30), Some(45), Some(2), Some(287_000))
    );
}

#[test]
fn a_plain_table_whose_banner_says_kmd_version_is_read_by_structure() {
    let (store, r) = import("smi-table/h200-590-kmd.log", |o| {
        o.tz = jiff::tz::TimeZone::UTC
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiTable, 2, 4));
    let s = sample_at(&store, r.run_id, 1, "2026-11-18T09:14:07Z");
    assert_eq!(
        (
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, TempGpuC),
            v(&s, MemUsedMib)
        ),
        (Some(691_000), Some(700_000), Some(61), Some(131_072))
    );
    let run = store.run(r.run_id).unwrap();
    let gpu = &run.inventory[1];
    assert_eq!(gpu.driver_version.as_deref(), Some("590.48.01"));
    assert_eq!(gpu.cuda_version.as_deref(), Some("13.1"));
    assert_eq!(gpu.pci_bus_id.as_deref(), Some("00000000:3B:00.0"));
}

#[test]
fn date_lines_from_monitoring_loops_time_the_output_that_follows() {
    let (store, r) = import("smi-csv/date-loop.csv", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::SmiCsv, 2, 6));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:10Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct)),
        (Some(248_530), Some(100))
    );

    let (store, r) = import("dmon/date-loop.txt", |o| o.interval_ms = Some(1000));
    assert_eq!(r.samples, 10);
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:05Z");
    assert_eq!(v(&s, PowerMw), Some(62_000));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:15Z");
    assert_eq!(v(&s, PowerMw), Some(372_000));

    let (store, r) = import("prometheus/date-scrapes.prom", |o| {
        o.tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap()
    });
    assert_eq!(r.samples, 4);
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:35Z");
    assert_eq!(v(&s, PowerMw), Some(301_500));
    assert!(
        !r.warnings.iter().any(|w| w.contains("carry no time")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn gpustat_text_with_power_or_fan_and_its_json_loop() {
    let (store, r) = import("gpustat/watch-power.log", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::Gpustat, 2, 6));
    let s = sample_at(&store, r.run_id, 1, "2024-06-01T11:27:10Z");
    assert_eq!(
        (
            v(&s, TempGpuC),
            v(&s, UtilGpuPct),
            v(&s, PowerMw),
            v(&s, PowerLimitMw),
            v(&s, MemUsedMib),
            v(&s, MemTotalMib)
        ),
        (
            Some(54),
            Some(100),
            Some(398_000),
            Some(400_000),
            Some(61_227),
            Some(81_920)
        )
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(run.provenance.host.as_deref(), Some("gpu-node-3"));
    assert_eq!(
        run.inventory[0].driver_version.as_deref(),
        Some("535.104.05")
    );

    let (store, r) = import("gpustat/fan-ascii.log", |_| {});
    let s = sample_at(&store, r.run_id, 0, "2024-10-17T21:03:49Z");
    assert_eq!(
        (
            v(&s, TempGpuC),
            v(&s, FanPct),
            v(&s, UtilGpuPct),
            v(&s, PowerMw)
        ),
        (Some(71), Some(41), Some(99), None)
    );

    let (store, r) = import("gpustat/json-loop.log", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::Gpustat, 2, 4));
    let s = sample_at(&store, r.run_id, 0, "2024-06-01T11:27:10.118Z");
    assert_eq!(
        (v(&s, PowerMw), v(&s, UtilGpuPct)),
        (Some(372_000), Some(100))
    );
    assert!(
        r.warnings.iter().any(|w| w.contains("cut off")),
        "{:?}",
        r.warnings
    );
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.inventory[1].uuid.as_deref(),
        Some("GPU-3a81d0c7-e29f-b64a-0c5d-82f17e6a9b40")
    );
}

#[test]
fn an_untimed_query_excerpt_keeps_a_hardware_slowdown_as_a_finding() {
    // A pasted `-q` section of a V100 held down by HW Slowdown and the
    // power brake, with no Timestamp line: no sample is invented, but the
    // slowdown is a finding about that GPU, counted as a faulty one.
    let (store, r) = import("smi-q/v100-throttled-excerpt.txt", |_| {});
    assert_eq!((r.gpus, r.samples), (1, 0));
    let run = store.run(r.run_id).unwrap();
    let found = breakpoint_core::metrics::faulty_gpus::health_findings(&run, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].1.contains("HW Slowdown, HW Power Brake Slowdown")
            && found[0].1.contains("SM clock 765 of 1530 MHz")
            && found[0].1.contains("112.4 W"),
        "{found:?}"
    );
    // The same report of a healthy GPU finds nothing.
    let (store, r) = import("smi-q/v100-470.txt", |_| {});
    let run = store.run(r.run_id).unwrap();
    assert!(breakpoint_core::metrics::faulty_gpus::health_findings(&run, &[]).is_empty());
}
