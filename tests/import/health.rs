//! The field's health checks read from their real outputs
//! (tests/fixtures/logs/health/, provenance in each folder's README), and
//! the passive checks of a monitoring history.

use breakpoint_core::domain::{CHECKED_GPUS, EventKind, UNTIMED_HEALTH};
use breakpoint_core::import::Format;
use breakpoint_core::perf::PerfLog;
use breakpoint_core::store::Store;

use crate::util::*;

#[path = "../shared/planting.rs"]
mod planting;
use planting::plant_wrong;

fn perf_of(store: &Store, run: i64) -> PerfLog {
    serde_json::from_value(store.run(run).unwrap().metadata["perf"].clone()).unwrap()
}

fn checked(store: &Store, run: i64) -> Vec<u64> {
    store
        .run(run)
        .unwrap()
        .metadata
        .get(CHECKED_GPUS)
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|g| g.as_u64()).collect())
        .unwrap_or_default()
}

fn findings(store: &Store, run: i64) -> Vec<String> {
    store
        .run(run)
        .unwrap()
        .metadata
        .get(UNTIMED_HEALTH)
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{} {}", f["gpu"], f["what"].as_str().unwrap()))
        .collect()
}

#[test]
fn nccl_tests_keep_each_collective_at_its_largest_size_and_every_rank() {
    let (store, r) = import(
        "health/nccl/h100-8gpu-1node-v2.17.8-allcollectives.log",
        |_| {},
    );
    assert_eq!(r.format, Format::NcclTests);
    let log = perf_of(&store, r.run_id);
    let tests: Vec<&str> = log.results.iter().map(|f| f.test.as_str()).collect();
    assert_eq!(
        tests,
        [
            "all_reduce",
            "all_gather",
            "reduce_scatter",
            "alltoall",
            "sendrecv"
        ]
    );
    let all_reduce = &log.results[0];
    assert_eq!(all_reduce.gpus, (0..8).collect::<Vec<u32>>());
    assert_eq!(all_reduce.settings["nodes"], 1);
    assert!(all_reduce.median > 100.0, "{all_reduce:?}");
    assert_eq!(log.host.as_deref(), Some("cnode3-002"));
    // Validation ran on every rank: each GPU was judged, none found faulty.
    assert_eq!(checked(&store, r.run_id), (0..8).collect::<Vec<u64>>());
    assert!(findings(&store, r.run_id).is_empty());
}

#[test]
fn nccl_tests_read_alike_across_versions_tags_and_hosts() {
    // mpirun --tag-output cuts each row with rank tags; 16 ranks on 2 nodes.
    let (store, r) = import(
        "health/nccl/h100-16rank-2node-mpirun-tag-output-nccl2.22.3.log",
        |_| {},
    );
    let log = perf_of(&store, r.run_id);
    assert_eq!(log.results[0].test, "all_reduce");
    assert_eq!(log.results[0].settings["nodes"], 2);
    assert_eq!(log.results[0].gpus.len(), 16);
    // Before 2.13: no root column, no test name, an `error` column.
    let (store, r) = import(
        "health/nccl/a100-16rank-2node-old-format-abci-sharp.log",
        |_| {},
    );
    assert_eq!(perf_of(&store, r.run_id).results[0].test, "all_reduce");
    // Validation off (#wrong N/A): the figure is kept, no GPU judged.
    let (store, r) = import(
        "health/nccl/a100-8gpu-old-format-validation-off-allgather.log",
        |_| {},
    );
    assert_eq!(perf_of(&store, r.run_id).results[0].test, "all_gather");
    assert!(checked(&store, r.run_id).is_empty());
    // One rank moves nothing: refused, saying so.
    let (_, e) = try_import("health/nccl/v100-1gpu-1node-avg-busbw-zero.log", |_| {});
    let e = e.unwrap_err().to_string();
    assert!(e.contains("moved nothing between GPUs"), "{e}");
}

#[test]
fn a_wrong_result_in_a_collective_is_a_finding_naming_its_lines() {
    let text = std::fs::read_to_string(fixture(
        "health/nccl/h100-8gpu-1node-v2.17.8-allcollectives.log",
    ))
    .unwrap();
    let planted = plant_wrong(&text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nccl.log");
    std::fs::write(&path, planted).unwrap();
    let (store, platform) = store();
    let outcome =
        breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None).unwrap();
    let breakpoint_core::import::ImportOutcome::Imported(r) = outcome else {
        panic!("{outcome:?}")
    };
    let found = findings(&store, r.run_id);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("null all_reduce: 3 wrong results at 1 message sizes (lines"),
        "{found:?}"
    );
}

#[test]
fn gpu_burn_gives_each_gpu_its_throughput_and_its_verdict() {
    let (store, r) = import("health/gpu-burn/a100-8gpu-ok-cr-progress.log", |_| {});
    assert_eq!(r.format, Format::GpuBurn);
    let log = perf_of(&store, r.run_id);
    assert_eq!(log.results.len(), 8);
    // Doubles on the tensor cores: an A100 does 19.5 TFLOP/s FP64 at best.
    assert!(
        log.results
            .iter()
            .all(|f| f.test == "gemm" && f.dtype.as_deref() == Some("fp64"))
    );
    assert!(
        log.results
            .iter()
            .all(|f| f.median > 10.0 && f.median < 19.5),
        "{:?}",
        log.results
    );
    assert_eq!(checked(&store, r.run_id).len(), 8);
    assert!(findings(&store, r.run_id).is_empty());
    // The summaries' dates date the run.
    assert!(store.run(r.run_id).unwrap().started_at.is_some());

    let (store, r) = import("health/gpu-burn/16gpu-faulty-issue12.txt", |_| {});
    assert_eq!(findings(&store, r.run_id).len(), 16);

    // Cut off before the verdict: the error seen is a finding, no GPU judged.
    let (store, r) = import(
        "health/gpu-burn/3gpu-error-warning-fragment-issue67.txt",
        |_| {},
    );
    assert!(checked(&store, r.run_id).is_empty());
    assert_eq!(
        findings(&store, r.run_id),
        ["0 gpu-burn: 1 computation errors before the output stops"]
    );
    // OK over a burn that never computed is no check.
    let (_, e) = try_import(
        "health/gpu-burn/6gpu-init-error-still-ok-issue7.txt",
        |_| {},
    );
    assert!(
        e.unwrap_err()
            .to_string()
            .contains("no gpu-burn result found")
    );
}

#[test]
fn gpu_fryer_nvbandwidth_and_perftest_give_their_figures() {
    let (store, r) = import(
        "health/gpu-fryer/v100-2gpu-healthy-with-progress.txt",
        |_| {},
    );
    assert_eq!(r.format, Format::GpuFryer);
    assert_eq!(perf_of(&store, r.run_id).results.len(), 2);
    assert_eq!(checked(&store, r.run_id), [0, 1]);

    let (store, r) = import("health/nvbandwidth/t4x4-v0.8-host-to-device.txt", |_| {});
    assert_eq!(r.format, Format::Nvbandwidth);
    let log = perf_of(&store, r.run_id);
    assert_eq!(log.results.len(), 4);
    assert!(log.results.iter().all(|f| f.test == "h2d"));
    // A `-j` JSON run on the same machine: the same host → device copies
    // (the copy engines' figures) within a run's difference, its
    // bidirectional tests named and left out.
    let (store, r) = import("health/nvbandwidth/t4x4-v0.8-json.json", |_| {});
    assert_eq!(r.format, Format::Nvbandwidth);
    let json = perf_of(&store, r.run_id);
    let figures = |l: &PerfLog| {
        let mut f: Vec<(Option<u32>, f64)> = l
            .results
            .iter()
            .filter(|f| f.test == "h2d")
            .map(|f| (f.gpu, f.median))
            .collect();
        f.sort_by_key(|(g, _)| *g);
        f
    };
    // The text prints two decimals, the JSON four; the runs differ a little.
    let (from_json, from_text) = (figures(&json), figures(&log));
    assert_eq!(from_json.len(), from_text.len());
    for ((g, j), (h, t)) in from_json.iter().zip(&from_text) {
        assert!(g == h && (j - t).abs() < 0.006, "GPU {g:?}: {j} vs {t}");
    }
    assert_eq!(from_json[0], (Some(0), 12.3527));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("host_to_device_bidirectional_memcpy_ce")),
        "{:?}",
        r.warnings
    );
    assert!(
        json.gpus.iter().all(|g| g.name == "Tesla T4"),
        "{:?}",
        json.gpus
    );
    let (store, r) = import(
        "health/nvbandwidth/a6000x6-v0.8-d2d-read-issue50.txt",
        |_| {},
    );
    let log = perf_of(&store, r.run_id);
    assert_eq!(log.results.len(), 30);
    assert!(
        log.results
            .iter()
            .all(|f| f.test == "p2p" && f.peer.is_some())
    );

    let (store, r) = import("health/perftest/ib_write_bw-roce-mbsec-default.txt", |_| {});
    assert_eq!(r.format, Format::Perftest);
    let f = &perf_of(&store, r.run_id).results[0];
    assert_eq!((f.test.as_str(), f.unit.as_str()), ("rdma_write", "GB/s"));
    let (store, r) = import("health/perftest/ib_write_lat-roce.txt", |_| {});
    let f = &perf_of(&store, r.run_id).results[0];
    assert_eq!((f.test.as_str(), f.unit.as_str()), ("rdma_write_lat", "µs"));
    assert!(f.settings.contains_key("p99_us"));
}

/// A dcgm-exporter history of two nodes of two GPUs each, 30 min at 30 s:
/// GPU 1 of node-a with its PCIe replay counter climbing, node-b's GPUs
/// both busy at near-idle power from minute 10 to 15.
fn passive_history() -> String {
    let start = 1_717_200_000i64;
    let mut series = Vec::new();
    for (host, gpu) in [("node-a", 0), ("node-a", 1), ("node-b", 0), ("node-b", 1)] {
        let mut util = Vec::new();
        let mut power = Vec::new();
        let mut limit = Vec::new();
        let mut replays = Vec::new();
        for i in 0..60 {
            let t = start + 30 * i;
            let stalled = host == "node-b" && (20..31).contains(&i);
            util.push(format!("[{t},\"{}\"]", if stalled { 100 } else { 97 }));
            power.push(format!("[{t},\"{}\"]", if stalled { 92.5 } else { 610.0 }));
            limit.push(format!("[{t},\"700\"]"));
            let r = if host == "node-a" && gpu == 1 {
                40 * i
            } else {
                2
            };
            replays.push(format!("[{t},\"{r}\"]"));
        }
        for (name, values) in [
            ("DCGM_FI_DEV_GPU_UTIL", util),
            ("DCGM_FI_DEV_POWER_USAGE", power),
            ("DCGM_FI_DEV_POWER_MGMT_LIMIT", limit),
            ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", replays),
        ] {
            series.push(format!(
                r#"{{"metric":{{"__name__":"{name}","Hostname":"{host}","gpu":"{gpu}","UUID":"GPU-{host}-{gpu}","modelName":"NVIDIA H100 80GB HBM3"}},"values":[{}]}}"#,
                values.join(",")
            ));
        }
    }
    format!(
        r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
        series.join(",")
    )
}

#[test]
fn a_rising_replay_counter_and_a_stalled_collective_are_found_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dcgm-range.json");
    std::fs::write(&path, passive_history()).unwrap();
    let (store, platform) = store();
    let outcome =
        breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None).unwrap();
    let breakpoint_core::import::ImportOutcome::Imported(r) = outcome else {
        panic!("{outcome:?}")
    };
    let run = store.run(r.run_id).unwrap();
    let faults: Vec<_> = store
        .events(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::HealthFault)
        .collect();
    assert_eq!(faults.len(), 2, "{faults:#?}");
    let replay = faults.iter().find(|e| e.gpu.is_some()).unwrap();
    let gpu = replay.gpu.unwrap();
    let info = run.inventory.iter().find(|g| g.index == gpu).unwrap();
    assert_eq!(info.uuid.as_deref(), Some("GPU-node-a-1"));
    let said = replay.detail.as_deref().unwrap();
    assert!(
        said.starts_with("PCIe replay counter rose by 2360 (0 → 2360)"),
        "{said}"
    );
    let stall = faults.iter().find(|e| e.gpu.is_none()).unwrap();
    let said = stall.detail.as_deref().unwrap();
    assert!(
        said.starts_with("stalled collective on node-b: all 2 GPUs at ≥ 95 % utilisation"),
        "{said}"
    );
    assert_eq!(stall.duration_ms, Some(300_000));
    // The history allowed both watches: the ClusterMAX view counts them done.
    assert_eq!(
        breakpoint_core::metrics::checks_ran::ran_in(&run),
        [
            breakpoint_core::metrics::checks_ran::CheckRan::PcieReplays,
            breakpoint_core::metrics::checks_ran::CheckRan::StalledCollective
        ]
    );
}

/// Imports `text` as `name` into a fresh workspace: the run and its health
/// faults and notes.
fn passive_import(
    name: &str,
    text: &str,
) -> (
    breakpoint_core::domain::Run,
    Vec<breakpoint_core::domain::Event>,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let (store, platform) = store();
    let outcome =
        breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None).unwrap();
    let breakpoint_core::import::ImportOutcome::Imported(r) = outcome else {
        panic!("{outcome:?}")
    };
    let events = store
        .events(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e.kind, EventKind::HealthFault | EventKind::Note))
        .collect();
    (store.run(r.run_id).unwrap(), events)
}

#[test]
fn an_uncorrectable_ecc_error_is_a_fault_and_corrected_ones_a_note() {
    // nvidia-smi's query CSV, two GPUs a minute apart for an hour: GPU 0
    // corrects 5 errors, GPU 1 meets 2 it cannot correct at minute 40.
    let mut csv = String::from(
        "timestamp, index, utilization.gpu [%], ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total\n",
    );
    for minute in 0..60 {
        for gpu in 0..2 {
            let (corrected, uncorrected) = match gpu {
                0 => (minute / 12, 0),
                _ => (0, if minute >= 40 { 2 } else { 0 }),
            };
            csv.push_str(&format!(
                "2024/06/01 10:{minute:02}:00.000, {gpu}, 90 %, {corrected}, {uncorrected}\n"
            ));
        }
    }
    let (run, events) = passive_import("ecc.csv", &csv);
    let faults: Vec<_> = events
        .iter()
        .filter(|e| e.kind == EventKind::HealthFault)
        .collect();
    assert_eq!(faults.len(), 1, "{events:#?}");
    assert_eq!(faults[0].gpu, Some(1));
    assert!(
        faults[0]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("2 uncorrectable ECC errors over 1.0 h"),
        "{faults:?}"
    );
    let notes: Vec<_> = events
        .iter()
        .filter(|e| e.kind == EventKind::Note)
        .collect();
    assert_eq!(notes.len(), 1, "{events:#?}");
    assert_eq!(notes[0].gpu, Some(0));
    assert!(
        notes[0]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("4 corrected ECC errors")
    );
    assert_eq!(
        breakpoint_core::metrics::checks_ran::ran_in(&run),
        [breakpoint_core::metrics::checks_ran::CheckRan::EccCounters]
    );
}

#[test]
fn nvlink_errors_rising_past_a_hundred_are_a_fault_and_a_few_are_noise() {
    let start = 1_717_200_000i64;
    let mut series = Vec::new();
    for gpu in 0..2 {
        for (name, step) in [
            (
                "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                if gpu == 0 { 3 } else { 0 },
            ),
            (
                "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
                if gpu == 0 { 1 } else { 0 },
            ),
            // GPU 1: three recoveries in the hour, under the threshold.
            ("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", 0),
        ] {
            let values: Vec<String> = (0..60)
                .map(|i| {
                    let v = if gpu == 1 && name.contains("RECOVERY") {
                        i / 20
                    } else {
                        step * i
                    };
                    format!("[{},\"{v}\"]", start + 60 * i)
                })
                .collect();
            series.push(format!(
                r#"{{"metric":{{"__name__":"{name}","Hostname":"node-a","gpu":"{gpu}","UUID":"GPU-a-{gpu}"}},"values":[{}]}}"#,
                values.join(",")
            ));
        }
    }
    let answer = format!(
        r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
        series.join(",")
    );
    let (run, events) = passive_import("nvlink.json", &answer);
    assert_eq!(events.len(), 1, "{events:#?}");
    let said = events[0].detail.as_deref().unwrap();
    assert!(
        said.starts_with("NVLink errors rose by 236 (CRC errors +177, replays +59) over 1.0 h"),
        "{said}"
    );
    assert_eq!(
        breakpoint_core::metrics::checks_ran::ran_in(&run),
        [breakpoint_core::metrics::checks_ran::CheckRan::NvlinkCounters]
    );
}
