//! What the probe makes of NVML's answers, on a scripted NVML that gives
//! the errors (and, in the benchmark, the latencies) the driver gives.

use breakpoint_core::domain::EventKind;
use breakpoint_core::samples::Field;
use breakpoint_formats::parsers::ProbeRecord;

use super::api::{FIELD_PCIE_RX_BYTES, FIELD_PCIE_TX_BYTES, MigFacts, Scalar, Xid};
use super::fake::{Code, FakeGpu, FakeNvml};
use super::*;
use crate::clock::ManualClock;
use crate::session::{RETRY_LOST_TICKS, Session, SessionOptions};

fn fake(n: u32) -> FakeNvml {
    FakeNvml::new((0..n).map(FakeGpu::a100).collect())
}

fn source(nvml: &FakeNvml) -> NvmlSource<FakeNvml> {
    NvmlSource::with_api(nvml.clone()).unwrap()
}

fn notes(source: &mut NvmlSource<FakeNvml>) -> Vec<String> {
    source.notes().into_iter().map(|(_, n)| n).collect()
}

#[test]
fn a_gpu_that_cannot_be_watched_leaves_the_others_watched_and_is_named() {
    let nvml = fake(3);
    nvml.gpu(1, |g| g.watch = Err(Code::NotSupported));
    nvml.gpu(0, |g| g.xids.push_back(Xid::Code(48)));
    nvml.gpu(2, |g| g.xids.push_back(Xid::Code(63)));
    let mut s = source(&nvml);
    assert_eq!(
        notes(&mut s),
        ["XIDs of GPU 1 are not watched: not supported on this GPU"]
    );
    assert_eq!(
        s.events(0),
        [
            GpuEvent::Xid { gpu: 0, code: 48 },
            GpuEvent::Xid { gpu: 2, code: 63 }
        ]
    );
}

#[test]
fn the_xid_of_a_gpu_that_fell_off_the_bus_is_kept_and_unknown_ones_are_999() {
    let nvml = fake(2);
    let mut s = source(&nvml);
    // Xid 79: the GPU answers nothing any more, but its event arrives.
    nvml.gpu(1, |g| {
        g.every_call = Some(Code::GpuLost);
        g.xids.extend([Xid::Code(79), Xid::Unknown]);
    });
    // A wait that fails for another reason than a timeout on GPU 0 does
    // not stop GPU 1's events from being collected.
    nvml.gpu(0, |g| g.idle_wait = Code::Unknown);
    assert_eq!(
        s.events(0),
        [
            GpuEvent::Xid { gpu: 1, code: 79 },
            GpuEvent::Xid {
                gpu: 1,
                code: UNKNOWN_XID
            }
        ]
    );
    let said = notes(&mut s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("waiting for XIDs of GPU 0 failed"),
        "{said:?}"
    );
}

#[test]
fn a_gpu_that_cannot_be_opened_stays_in_the_inventory_as_unreadable() {
    let nvml = fake(3);
    nvml.gpu(2, |g| g.facts = Err(Code::InsufficientPower));
    let mut s = source(&nvml);
    let inventory = s.inventory().unwrap();
    assert_eq!(inventory.len(), 3);
    assert_eq!(inventory[0].unreadable, None);
    assert!(inventory[0].uuid.is_some());
    assert_eq!(
        inventory[2].unreadable.as_deref(),
        Some("insufficient power (check the GPU's power cables)")
    );
    assert_eq!(inventory[2].index, 2);
}

#[test]
fn a_session_records_the_loss_of_a_gpu_unreadable_at_start_and_samples_the_rest() {
    let nvml = fake(3);
    nvml.gpu(1, |g| {
        g.facts = Err(Code::GpuLost);
        g.every_call = Some(Code::GpuLost);
    });
    let mut s = source(&nvml);
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.jsonl");
    let options = SessionOptions {
        interval_ms: 1000,
        ..SessionOptions::default()
    };
    let mut session = Session::start(&mut s, &clock, &path, &options).unwrap();
    session.tick().unwrap();
    let summary = session.finish(serde_json::Map::new()).unwrap();
    assert_eq!(summary.lost_gpus, [1]);
    assert_eq!(summary.samples, 4, "GPUs 0 and 2, twice");
    let records = records(&path);
    let lost: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            ProbeRecord::Event {
                event: EventKind::GpuLost,
                gpu,
                detail,
                ..
            } => Some((*gpu, detail.clone().unwrap_or_default())),
            _ => None,
        })
        .collect();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].0, Some(1));
    assert!(
        lost[0].1.contains("could not be read when sampling began"),
        "{lost:?}"
    );
}

use crate::log::read_records as records;

#[test]
fn pcie_throughput_comes_from_the_byte_counters_differenced_per_reading() {
    let nvml = fake(1);
    let set = |tx: i64, rx: i64, at_us: i64| {
        nvml.gpu(0, |g| {
            g.fields.insert(FIELD_PCIE_TX_BYTES, Ok((tx, at_us)));
            g.fields.insert(FIELD_PCIE_RX_BYTES, Ok((rx, at_us)));
        })
    };
    let mut s = source(&nvml);
    set(1_000, 5_000, 10_000_000);
    let first = s.read(0).unwrap();
    assert_eq!(
        first.get(Field::PcieTxKbps),
        None,
        "no rate from one reading"
    );
    // 2 MB sent and 500 kB received in half a second.
    set(2_001_000, 505_000, 10_500_000);
    let second = s.read(0).unwrap();
    assert_eq!(second.get(Field::PcieTxKbps), Some(4_000));
    assert_eq!(second.get(Field::PcieRxKbps), Some(1_000));
    // A counter that went back (a reset) gives no rate, not a negative one.
    set(0, 0, 11_000_000);
    assert_eq!(s.read(0).unwrap().get(Field::PcieTxKbps), None);
}

#[test]
fn without_pcie_counters_throughput_is_absent_and_said_once() {
    let nvml = fake(1);
    nvml.gpu(0, |g| {
        g.fields.remove(&FIELD_PCIE_TX_BYTES);
        g.fields.remove(&FIELD_PCIE_RX_BYTES);
    });
    let mut s = source(&nvml);
    for _ in 0..3 {
        let r = s.read(0).unwrap();
        assert_eq!(r.get(Field::PcieTxKbps), None);
        assert_eq!(r.get(Field::TempMemC), Some(72));
    }
    let said = notes(&mut s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("no PCIe byte counters"), "{said:?}");
}

#[test]
fn fields_the_schema_has_are_filled() {
    let nvml = fake(1);
    let r = source(&nvml).read(0).unwrap();
    assert_eq!(r.get(Field::TempMemC), Some(72));
    assert_eq!(r.get(Field::PowerViolationUs), Some(1_500), "ns → µs");
    assert_eq!(r.get(Field::ThermalViolationUs), Some(0));
    assert_eq!(r.get(Field::PcieReplays), Some(0));
    assert_eq!(r.get(Field::UtilGpuPct), Some(97));
    assert_eq!(r.get(Field::MemUsedMib), Some(60 * 1024));
    assert_eq!(r.get(Field::FanPct), None, "NotSupported is absent");
}

#[test]
fn a_gpu_that_answers_no_query_is_an_error_not_an_empty_sample() {
    let nvml = fake(1);
    nvml.gpu(0, |g| {
        for v in g.scalars.values_mut() {
            *v = Err(Code::Unknown);
        }
        g.utilization = Err(Code::Unknown);
        g.memory = Err(Code::Unknown);
        for v in g.fields.values_mut() {
            *v = Err(Code::Unknown);
        }
    });
    let mut s = source(&nvml);
    match s.read(0) {
        Err(ReadError::Unreadable(why)) => assert!(why.contains("no query"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Some fields unsupported and the rest failing is the same.
    nvml.gpu(0, |g| {
        g.scalars.insert(Scalar::FanPct, Err(Code::NotSupported));
    });
    assert!(matches!(s.read(0), Err(ReadError::Unreadable(_))));
}

#[test]
fn a_gpu_that_needs_a_reset_says_so() {
    let nvml = fake(1);
    nvml.gpu(0, |g| g.every_call = Some(Code::ResetRequired));
    assert!(matches!(
        source(&nvml).read(0),
        Err(ReadError::ResetRequired(_))
    ));
}

#[test]
fn nvlink_state_that_cannot_be_read_stays_unknown() {
    let nvml = fake(3);
    nvml.gpu(0, |g| g.nvlinks = vec![Err(Code::NotSupported); 18]);
    nvml.gpu(1, |g| g.nvlinks = vec![Ok(true), Ok(false), Ok(true)]);
    nvml.gpu(2, |g| g.nvlinks = vec![Err(Code::Unknown); 18]);
    let inventory = source(&nvml).inventory().unwrap();
    assert_eq!(inventory[0].nvlink_active, None);
    assert_eq!(inventory[1].nvlink_active, Some(2));
    assert_eq!(inventory[2].nvlink_active, None);
}

#[test]
fn mig_instances_are_listed_and_hidden_processes_are_unknown_not_none() {
    let nvml = fake(1);
    nvml.gpu(0, |g| {
        if let Ok(f) = g.facts.as_mut() {
            f.mig_enabled = Some(true);
        }
        g.mig = Ok(vec![MigFacts {
            uuid: Some("MIG-1".into()),
            name: Some("NVIDIA A100-SXM4-80GB MIG 1g.10gb".into()),
            memory_total_bytes: Some(9_728 * 1024 * 1024),
        }]);
        g.utilization = Err(Code::NotSupported);
    });
    let mut s = source(&nvml);
    let inventory = s.inventory().unwrap();
    assert_eq!(inventory[0].mig_instances.len(), 1);
    assert_eq!(inventory[0].mig_instances[0].vram_mib, Some(9_728));
    assert_eq!(s.read(0).unwrap().get(Field::UtilGpuPct), None);
    assert_eq!(s.compute_pids(0), None);
    // Without MIG, an empty list means no process.
    let plain = fake(1);
    let mut p = source(&plain);
    p.inventory().unwrap();
    assert_eq!(p.compute_pids(0), Some(Vec::new()));
}

#[test]
fn an_old_driver_without_the_v2_memory_call_is_said_once() {
    let nvml = fake(1);
    nvml.gpu(0, |g| g.memory = Err(Code::MissingCall));
    let mut s = source(&nvml);
    for _ in 0..2 {
        let r = s.read(0).unwrap();
        assert_eq!(r.get(Field::MemUsedMib), None);
        assert_eq!(r.get(Field::PowerMw), Some(250_000));
    }
    let said = notes(&mut s);
    assert_eq!(said.len(), 1);
    assert!(said[0].contains("before R510"), "{said:?}");
}

#[test]
fn no_gpu_at_all_is_the_no_gpu_message() {
    let none = FakeNvml::new(Vec::new());
    assert!(matches!(
        NvmlSource::with_api(none),
        Err(SourceError::NoGpus)
    ));
    let not_found = fake(1);
    not_found.state.borrow_mut().count = Some(Code::NotFound);
    assert!(matches!(
        NvmlSource::with_api(not_found),
        Err(SourceError::NoGpus)
    ));
}

#[test]
fn a_lost_gpu_is_tried_again_and_its_return_recorded_with_its_uuid() {
    let nvml = fake(2);
    let mut s = source(&nvml);
    let clock = ManualClock::new(1_717_200_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.jsonl");
    let options = SessionOptions {
        interval_ms: 1000,
        ..SessionOptions::default()
    };
    let handle = nvml.clone();
    let mut session = Session::start(&mut s, &clock, &path, &options).unwrap();
    session.tick().unwrap();
    handle.gpu(1, |g| g.every_call = Some(Code::GpuLost));
    session.tick().unwrap();
    handle.gpu(1, |g| g.every_call = None);
    let mut back_at = None;
    for _ in 0..2 * RETRY_LOST_TICKS {
        let t = session.tick().unwrap();
        if back_at.is_none() && t.readings.iter().any(|(g, _)| *g == 1) {
            back_at = Some(t.now_ms);
        }
    }
    session.finish(serde_json::Map::new()).unwrap();
    assert!(back_at.is_some(), "GPU 1 was never read again");
    let events: Vec<(EventKind, Option<String>)> = records(&path)
        .into_iter()
        .filter_map(|r| match r {
            ProbeRecord::Event {
                event,
                gpu: Some(1),
                uuid,
                ..
            } => Some((event, uuid)),
            _ => None,
        })
        .collect();
    let kinds: Vec<EventKind> = events.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [EventKind::GpuLost, EventKind::Recovered]);
    let uuid = events[0].1.as_deref().unwrap();
    assert!(uuid.starts_with("GPU-00000001"), "{uuid}");
}
