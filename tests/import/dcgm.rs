use breakpoint_core::domain::EventKind;
use breakpoint_core::import::Format;
use breakpoint_core::samples::Field::*;

use crate::util::*;

#[test]
fn dcgmi_dmon_both_generations() {
    let (store, r) = import("dcgm/dcgmi-dmon.txt", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::DcgmiDmon, 2, 32));
    let g0 = all_samples(&store, r.run_id, 0);
    assert_eq!(
        (
            v(&g0[0], UtilGpuPct),
            v(&g0[0], UtilMemPct),
            v(&g0[0], PowerMw),
            v(&g0[0], TempGpuC),
            v(&g0[0], TempMemC),
            v(&g0[0], MemUsedMib)
        ),
        (
            Some(99),
            Some(41),
            Some(266_172),
            Some(61),
            Some(69),
            Some(61_447)
        )
    );
    assert_eq!(v(&g0[15], PowerMw), Some(267_012));
    for s in all_samples(&store, r.run_id, 1) {
        assert_eq!(v(&s, UtilGpuPct), None, "MIG: N/A");
    }

    let (store, r) = import("dcgm/dcgmi-dmon-default.txt", |_| {});
    assert_eq!(r.samples, 12);
    let g0 = all_samples(&store, r.run_id, 0);
    assert_eq!(
        (v(&g0[0], PowerMw), v(&g0[0], EnergyMj), v(&g0[0], TempMemC)),
        (Some(64_128), Some(1_843_270_112), None)
    );
}

#[test]
fn exporter_scrapes_one_or_many() {
    let (store, r) = import("prometheus/dcgm-exporter.prom", |o| {
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap())
    });
    assert_eq!((r.format, r.gpus, r.samples), (Format::PromText, 2, 2));
    let g1 = &all_samples(&store, r.run_id, 1)[0];
    assert_eq!(
        (
            v(g1, UtilGpuPct),
            v(g1, PowerMw),
            v(g1, MemUsedMib),
            v(g1, EnergyMj),
            v(g1, PowerViolationUs)
        ),
        (
            Some(97),
            Some(248_391),
            Some(58_102),
            Some(71_950_402_276),
            Some(734_516)
        )
    );
    let run = store.run(r.run_id).unwrap();
    assert!(run.inventory[0].accelerator.is_some() && run.inventory[0].uuid.is_some());

    let (store, r) = import("prometheus/dcgm-exporter-multi.prom", |o| {
        o.start = Some("2024-06-01T00:00:00Z".parse().unwrap());
        o.interval_ms = Some(30_000);
    });
    assert_eq!(r.samples, 6);
    let g1 = all_samples(&store, r.run_id, 1);
    assert_eq!(
        g1.iter()
            .map(|s| v(s, PowerMw).unwrap())
            .collect::<Vec<_>>(),
        vec![59_877, 251_317, 254_902]
    );
    assert_eq!(g1[2].t_ms, ms("2024-06-01T00:01:00Z"));
    assert_eq!(v(&g1[2], ThrottleMask), Some(4));
    // XID 31 persists across scrapes: one event, not three.
    let xids: Vec<_> = store
        .events(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Xid)
        .collect();
    assert_eq!(xids.len(), 1);
    assert_eq!((xids[0].gpu, xids[0].code), (Some(0), Some(31)));
}

#[test]
fn exporter_lines_with_timestamps() {
    let (store, r) = import("prometheus/with-timestamps.prom", |_| {});
    assert_eq!(r.samples, 2);
    let g0 = &all_samples(&store, r.run_id, 0)[0];
    assert_eq!(g0.t_ms, 1_717_200_027_418);
    assert_eq!(
        (v(g0, PowerMw), v(g0, EnergyMj)),
        (Some(266_172), Some(73_402_118_534))
    );
}

#[test]
fn query_range_json() {
    let (store, r) = import("prometheus/query-range.json", |_| {});
    assert_eq!((r.format, r.gpus, r.samples), (Format::PromRange, 2, 12));
    let g1 = all_samples(&store, r.run_id, 1);
    assert_eq!(
        g1.iter()
            .map(|s| v(s, TempGpuC).unwrap())
            .collect::<Vec<_>>(),
        vec![58, 58, 58, 59, 59, 58]
    );
    assert_eq!(
        g1.iter()
            .map(|s| v(s, UtilGpuPct).unwrap())
            .collect::<Vec<_>>(),
        vec![96, 97, 97, 96, 98, 97]
    );
    assert_eq!(g1[0].t_ms, 1_717_200_000_000);

    // nvidia_gpu_exporter's names and base units: ratios, hertz, bytes.
    let (store, r) = import("prometheus/nvidia-gpu-exporter-range.json", |_| {});
    assert_eq!((r.gpus, r.samples), (1, 3));
    let g = all_samples(&store, r.run_id, 0);
    assert_eq!(
        (
            v(&g[0], PowerMw),
            v(&g[0], UtilGpuPct),
            v(&g[0], SmClockMhz)
        ),
        (Some(312_450), Some(97), Some(2520))
    );
    assert_eq!(
        (v(&g[2], MemUsedMib), v(&g[1], UtilGpuPct)),
        (Some(20_496), Some(100))
    );
    assert_eq!(v(&g[1], TempGpuC), Some(67));

    let (_, r) = import("prometheus/query-range-ms.json", |_| {});
    assert!(r.samples > 0);
    let (_, result) = try_import("prometheus/query-range-error.json", |_| {});
    let e = result.unwrap_err().to_string();
    assert!(
        e.contains("Prometheus answered with an error: bad_data"),
        "{e}"
    );
}

#[test]
fn dcgm_diag_results_are_kept_as_health_evidence() {
    let (store, r) = import("dcgm-diag/r1-pass.json", |_| {});
    assert_eq!((r.format, r.kind.as_str()), (Format::DcgmDiag, "delivery"));
    let run = store.run(r.run_id).unwrap();
    let results = run.metadata["dcgm_diag"].as_array().unwrap();
    assert_eq!(results.len(), 9);
    assert!(results.iter().all(|t| t["status"] == "Pass"));
    assert!(r.warnings.is_empty());

    let (store, r) = import("dcgm-diag/r3-fail.json", |_| {});
    let run = store.run(r.run_id).unwrap();
    let failed: Vec<_> = run.metadata["dcgm_diag"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "Fail")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["test"], "PCIe");
    assert_eq!(failed[0]["gpu"], "1");
    assert!(r.warnings.iter().any(|w| w.contains("PCIe Fail on GPU 1")));
}

/// (test, GPU, status) of every result, and the message of the one asked.
fn diag(run: &breakpoint_core::domain::Run) -> Vec<(String, Option<String>, String)> {
    run.metadata["dcgm_diag"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["test"].as_str().unwrap().to_string(),
                t["gpu"].as_str().map(str::to_string),
                t["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn message_of(run: &breakpoint_core::domain::Run, test: &str, gpu: Option<&str>) -> String {
    run.metadata["dcgm_diag"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == test && t["gpu"].as_str() == gpu)
        .and_then(|t| t["message"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn dcgm_diag_tables_of_three_generations() {
    // DCGM 3.3: the memory test fails on GPU 0 of 8.
    let (store, r) = import("dcgm-diag/r3-memory-fail-8gpu.txt", |_| {});
    assert_eq!((r.format, r.kind.as_str()), (Format::DcgmDiag, "delivery"));
    let run = store.run(r.run_id).unwrap();
    let results = diag(&run);
    // 9 deployment tests, PCIe, 8 memory results, 4 stress tests.
    assert_eq!(results.len(), 22, "{results:?}");
    let memory: Vec<_> = results.iter().filter(|t| t.0 == "GPU Memory").collect();
    assert_eq!(memory.len(), 8);
    assert!(memory.contains(&&("GPU Memory".into(), Some("0".into()), "Fail".into())));
    assert_eq!(results.iter().filter(|t| t.2 == "Fail").count(), 1);
    assert_eq!(
        message_of(&run, "GPU Memory", Some("0")),
        "GPU 0 Error using CUDA API cuMemAlloc Check DCGM and system logs for errors. \
         Reset GPU. Restart DCGM. Rerun diagnostics. Unable to allocate 77803 MB of memory: \
         'out of memory'."
    );
    assert_eq!(run.metadata["dcgm_version"], "3.3.5");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("dcgmi diag: GPU Memory Fail on GPU 0"))
    );

    // DCGM 2.4: thermal warnings wrapped over several lines, for every GPU.
    let (store, r) = import("dcgm-diag/r3-thermal-warn-2gpu.txt", |_| {});
    let run = store.run(r.run_id).unwrap();
    let warned: Vec<_> = diag(&run).into_iter().filter(|t| t.2 == "Warn").collect();
    assert_eq!(warned, vec![("Targeted Power".into(), None, "Warn".into())]);
    let m = message_of(&run, "Targeted Power", None);
    assert!(
        m.starts_with("GPU 0 Thermal violations totaling 14.2 seconds"),
        "{m}"
    );
    assert!(
        m.contains("; GPU 1 Thermal violations totaling 8.7 seconds"),
        "{m}"
    );
    assert!(m.contains("thermal material interface, fans"), "{m}");

    // DCGM 3.1: a row-remapping failure in the deployment checks.
    let (store, r) = import("dcgm-diag/r1-row-remap-fail.txt", |_| {});
    let run = store.run(r.run_id).unwrap();
    let failed: Vec<_> = diag(&run).into_iter().filter(|t| t.2 == "Fail").collect();
    assert_eq!(
        failed,
        vec![("Page Retirement/Row Remap".into(), None, "Fail".into())]
    );
    assert!(message_of(&run, "Page Retirement/Row Remap", None).contains("row remapping failed"));

    // DCGM 4.2: plugin names, a line per GPU, "Warning: GPU1".
    let (store, r) = import("dcgm-diag/r2-dcgm4-memory-fail.txt", |_| {});
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        diag(&run),
        vec![
            ("software".into(), Some("0".into()), "Pass".into()),
            ("software".into(), Some("1".into()), "Pass".into()),
            ("pcie".into(), Some("0".into()), "Pass".into()),
            ("pcie".into(), Some("1".into()), "Pass".into()),
            ("memory".into(), Some("0".into()), "Pass".into()),
            ("memory".into(), Some("1".into()), "Fail".into()),
            ("targeted_stress".into(), Some("0".into()), "Skip".into()),
            ("targeted_stress".into(), Some("1".into()), "Skip".into()),
        ]
    );
    assert!(message_of(&run, "memory", Some("1")).starts_with("A DBE error was detected on GPU 1"));
    assert_eq!(run.metadata["driver_version"], "570.148.08");
}

/// A failed hardware test is a faulty GPU (counted in the platform's share
/// of GPUs found faulty); a failed test of the machine's setup is a
/// difference from what was ordered. One finding per GPU and test.
#[test]
fn a_failed_hardware_test_is_a_faulty_gpu_and_a_failed_setup_test_a_delivery_problem() {
    let read = |path: &str| {
        let (store, r) = import(path, |_| {});
        let run = store.run(r.run_id).unwrap();
        let delivery = breakpoint_core::metrics::compute_run(&store, &run)
            .unwrap()
            .into_iter()
            .find(|v| v.key == "startup.delivery_mismatches")
            .map(|v| (v.value, v.detail.unwrap_or_default()));
        let faulty = breakpoint_api::runs::detail(&store, r.run_id)
            .unwrap()
            .faulty_gpus;
        (delivery, faulty)
    };
    assert_eq!(
        read("dcgm-diag/r1-pass.json"),
        (
            Some((0.0, "setup checks passed (dcgmi diag)".into())),
            vec![]
        )
    );
    assert_eq!(
        read("dcgm-diag/r3-memory-fail-8gpu.txt"),
        (
            Some((0.0, "setup checks passed (dcgmi diag)".into())),
            vec!["GPU 0: dcgmi diag GPU Memory failed".to_string()]
        )
    );
    assert_eq!(
        read("dcgm-diag/r2-dcgm4-memory-fail.txt").1,
        vec!["GPU 1: dcgmi diag memory failed".to_string()]
    );
    // A row remap that failed, found by the deployment checks: the GPU the
    // result does not name is still one found faulty.
    assert_eq!(
        read("dcgm-diag/r1-row-remap-fail.txt").1,
        vec!["a GPU: dcgmi diag Page Retirement/Row Remap failed".to_string()]
    );
}

/// A `query_range` file is read with the CSV importer's rules: an infinity
/// is refused where it is, NaN (no reading at that step) is left out and
/// said, and a file of NaN alone stores nothing.
#[test]
fn query_range_values_that_are_no_readings() {
    let text =
        std::fs::read_to_string(crate::util::fixture("prometheus/query-range.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let infinite = write(
        "inf.json",
        text.replacen("[1717200090,\"59\"]", "[1717200090,\"1e400\"]", 1),
    );
    let (_, result) = try_import(&infinite, |_| {});
    let e = result.unwrap_err().to_string();
    assert!(
        e.contains("series 1 (DCGM_FI_DEV_GPU_TEMP), point 4: 1e400 is not a finite number"),
        "{e}"
    );
    let nan = write(
        "nan.json",
        text.replacen("[1717200090,\"59\"]", "[1717200090,\"NaN\"]", 1),
    );
    let (_, r) = import(&nan, |_| {});
    assert!(
        r.warnings.iter().any(|w| w.contains("1 point(s) were NaN")),
        "{:?}",
        r.warnings
    );
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for series in doc["data"]["result"].as_array_mut().unwrap() {
        for point in series["values"].as_array_mut().unwrap() {
            point[1] = "NaN".into();
        }
    }
    let all_nan = write("all-nan.json", doc.to_string());
    let (_, result) = try_import(&all_nan, |_| {});
    let e = result.unwrap_err().to_string();
    assert!(e.contains("is NaN: no reading to store"), "{e}");
}
