//! The real GPU source: NVML. What the probe does with NVML's answers lives
//! here, over the [`api::NvmlApi`] seam; [`api::RealNvml`] is the driver
//! and [`fake::FakeNvml`] a scripted stand-in with NVML's errors and
//! latencies, so that every rule below is tested without a GPU:
//!
//! - a GPU that cannot be opened at start stays in the inventory, marked
//!   unreadable, and its loss is recorded; the other GPUs are sampled;
//! - XIDs are watched per GPU on an event set of its own, so one GPU that
//!   cannot be watched leaves the others watched (and is named), and an
//!   event is known to be that GPU's even when the GPU answers nothing else
//!   (Xid 79); an XID NVML cannot decode is recorded as 999; only a timeout
//!   means "no event";
//! - a reading in which every query failed is an error, not an empty sample;
//!   `ResetRequired` is its own outcome;
//! - PCIe throughput comes from NVML's cumulative byte counters, differenced
//!   per tick (microseconds), never from the throughput query that samples
//!   the link for 20 ms per call;
//! - NVLink state that cannot be read stays unknown, not "0 active";
//! - MIG instances are listed, and where MIG hides utilisation or
//!   processes, they stay unknown.

pub mod api;
pub mod fake;

use std::collections::BTreeSet;

use breakpoint_model::accelerator;
use breakpoint_model::domain::{GpuInfo, MigInstance};
use breakpoint_model::samples::Field;

use self::api::{
    FIELD_MEMORY_TEMP, FIELD_PCIE_RX_BYTES, FIELD_PCIE_TX_BYTES, NvmlApi, NvmlError, RealNvml,
    Scalar, Xid,
};
use crate::source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};

/// nvidia-smi prints an XID NVML cannot decode as 999.
pub const UNKNOWN_XID: i64 = 999;
/// Links beyond this do not exist on any GPU (Hopper has 18).
const MAX_NVLINKS: u32 = 18;
const MIB: u64 = 1024 * 1024;

/// Where a GPU's PCIe byte counters were at the last reading.
#[derive(Debug, Clone, Copy)]
struct PcieMark {
    tx_bytes: i64,
    rx_bytes: i64,
    at_us: i64,
}

pub struct NvmlSource<A: NvmlApi = RealNvml> {
    api: A,
    count: u32,
    /// The last PCIe counters per GPU, to difference.
    pcie: Vec<Option<PcieMark>>,
    /// Things to say once (a GPU not watched, a call the driver lacks).
    notes: Vec<(Option<u32>, String)>,
    said: BTreeSet<String>,
    /// GPUs in MIG mode, learnt with the inventory.
    mig: Vec<bool>,
}

impl NvmlSource<RealNvml> {
    pub fn open() -> Result<Self, SourceError> {
        let api = RealNvml::load().map_err(|e| match e {
            NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => {
                SourceError::NoDriver("libnvidia-ml.so.1 could not be loaded".into())
            }
            NvmlError::DriverNotLoaded => {
                SourceError::NoDriver("the NVIDIA kernel driver is not loaded".into())
            }
            // What nvmlInit answers on a machine with the driver and no GPU.
            NvmlError::NotFound | NvmlError::NoData => SourceError::NoGpus,
            other => SourceError::Failed(other.to_string()),
        })?;
        Self::with_api(api)
    }
}

impl<A: NvmlApi> NvmlSource<A> {
    /// Count the GPUs and start watching each one's XIDs.
    pub fn with_api(mut api: A) -> Result<Self, SourceError> {
        let count = match api.device_count() {
            Ok(0) | Err(NvmlError::NotFound | NvmlError::NoData) => {
                return Err(SourceError::NoGpus);
            }
            Ok(n) => n,
            Err(e) => return Err(SourceError::Failed(e.to_string())),
        };
        let mut notes = Vec::new();
        for gpu in 0..count {
            if let Err(e) = api.watch_xids(gpu) {
                notes.push((
                    Some(gpu),
                    format!("XIDs of GPU {gpu} are not watched: {}", nvml_reason(&e)),
                ));
            }
        }
        Ok(Self {
            api,
            count,
            pcie: vec![None; count as usize],
            notes,
            said: BTreeSet::new(),
            mig: vec![false; count as usize],
        })
    }

    /// Say something once per session.
    fn note_once(&mut self, gpu: Option<u32>, text: String) {
        if self.said.insert(text.clone()) {
            self.notes.push((gpu, text));
        }
    }

    fn describe(&self, gpu: u32, driver: &Option<String>, cuda: &Option<String>) -> GpuInfo {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string());
        let base = GpuInfo {
            index: gpu,
            host,
            driver_version: driver.clone(),
            cuda_version: cuda.clone(),
            ..GpuInfo::default()
        };
        let facts = match self.api.facts(gpu) {
            Ok(f) => f,
            Err(e) => {
                return GpuInfo {
                    unreadable: Some(nvml_reason(&e)),
                    ..base
                };
            }
        };
        let mig_instances = match facts.mig_enabled {
            Some(true) => self
                .api
                .mig_instances(gpu)
                .unwrap_or_default()
                .into_iter()
                .map(|m| MigInstance {
                    uuid: m.uuid,
                    name: m.name,
                    vram_mib: m.memory_total_bytes.map(|b| b / MIB),
                })
                .collect(),
            _ => Vec::new(),
        };
        let watts = |mw: Option<u32>| mw.map(|mw| f64::from(mw) / 1000.0);
        GpuInfo {
            accelerator: facts.name.as_deref().map(accelerator::normalise),
            uuid: facts.uuid,
            serial: facts.serial,
            pci_bus_id: facts.pci_bus_id,
            vram_mib: facts.memory_total_bytes.map(|b| b / MIB),
            vbios_version: facts.vbios,
            pcie_gen_current: facts.pcie_gen_current,
            pcie_gen_max: facts.pcie_gen_max,
            pcie_width_current: facts.pcie_width_current,
            pcie_width_max: facts.pcie_width_max,
            power_limit_default_w: watts(facts.power_limit_default_mw),
            power_limit_enforced_w: watts(facts.power_limit_enforced_mw),
            power_limit_min_w: watts(facts.power_limit_min_mw),
            power_limit_max_w: watts(facts.power_limit_max_mw),
            max_sm_clock_mhz: facts.max_sm_clock_mhz,
            max_mem_clock_mhz: facts.max_mem_clock_mhz,
            nvlink_active: self.nvlinks(gpu),
            ecc_enabled: facts.ecc_enabled,
            mig_enabled: facts.mig_enabled,
            persistence_enabled: facts.persistence_enabled,
            mig_instances,
            ..base
        }
    }

    /// Active NVLinks, or unknown when no link's state could be read (a
    /// PCIe card, a virtualised GPU, a driver that will not say): unknown
    /// must not read as "no active NVLink".
    fn nvlinks(&self, gpu: u32) -> Option<u32> {
        let mut known = false;
        let mut active = 0;
        for link in 0..MAX_NVLINKS {
            match self.api.nvlink_active(gpu, link) {
                Ok(up) => {
                    known = true;
                    active += u32::from(up);
                }
                Err(NvmlError::InvalidArg) => break,
                Err(_) => {}
            }
        }
        known.then_some(active)
    }

    /// PCIe throughput since the last reading, from the byte counters.
    fn pcie_rates(
        &mut self,
        gpu: u32,
        tx: Option<(i64, i64)>,
        rx: Option<(i64, i64)>,
    ) -> [Option<i64>; 2] {
        let slot = &mut self.pcie[gpu as usize];
        let (Some((tx_bytes, at_us)), Some((rx_bytes, _))) = (tx, rx) else {
            *slot = None;
            return [None, None];
        };
        let now = PcieMark {
            tx_bytes,
            rx_bytes,
            at_us,
        };
        match slot.replace(now) {
            // Bytes per µs × 1e6 / 1000 = kB/s; a counter that went back
            // (reset, wrap) gives no rate this time.
            Some(last)
                if at_us > last.at_us && tx_bytes >= last.tx_bytes && rx_bytes >= last.rx_bytes =>
            {
                let dt_us = (at_us - last.at_us) as f64;
                let kbps = |bytes: i64| (bytes as f64 / dt_us * 1000.0).round() as i64;
                [
                    Some(kbps(tx_bytes - last.tx_bytes)),
                    Some(kbps(rx_bytes - last.rx_bytes)),
                ]
            }
            _ => [None, None],
        }
    }
}

/// NVML's reason in words a user can act on.
fn nvml_reason(e: &NvmlError) -> String {
    match e {
        NvmlError::GpuLost => "the GPU is lost (fallen off the bus)".into(),
        NvmlError::NotSupported => "not supported on this GPU".into(),
        NvmlError::NoPermission => "no permission (run as a user allowed to query the GPU)".into(),
        NvmlError::InsufficientPower => "insufficient power (check the GPU's power cables)".into(),
        NvmlError::ResetRequired => "the GPU needs a reset".into(),
        other => other.to_string(),
    }
}

/// How one query's failure counts.
enum Failure {
    /// The GPU cannot report this: the field is absent.
    Absent,
    Lost,
    ResetRequired,
    /// Anything else: if every query fails so, the reading fails.
    Error(String),
}

fn classify(e: &NvmlError) -> Failure {
    match e {
        NvmlError::GpuLost => Failure::Lost,
        NvmlError::ResetRequired => Failure::ResetRequired,
        NvmlError::NotSupported
        | NvmlError::NoPermission
        | NvmlError::InvalidArg
        | NvmlError::FunctionNotFound
        | NvmlError::FailedToLoadSymbol(_)
        | NvmlError::NoData => Failure::Absent,
        other => Failure::Error(other.to_string()),
    }
}

/// Collects one GPU's answers into a reading.
struct Collect {
    values: Vec<(Field, i64)>,
    answered: usize,
    errors: Vec<String>,
}

impl Collect {
    /// Keep a value, or learn from its failure; a lost GPU ends the reading.
    fn take<T>(&mut self, answer: Result<T, NvmlError>) -> Result<Option<T>, ReadError> {
        match answer {
            Ok(v) => {
                self.answered += 1;
                Ok(Some(v))
            }
            Err(e) => match classify(&e) {
                Failure::Absent => Ok(None),
                Failure::Lost => Err(ReadError::Lost(format!("NVML: {}", nvml_reason(&e)))),
                Failure::ResetRequired => Err(ReadError::ResetRequired(format!(
                    "NVML: {}",
                    nvml_reason(&e)
                ))),
                Failure::Error(text) => {
                    self.errors.push(text);
                    Ok(None)
                }
            },
        }
    }

    fn put(&mut self, field: Field, value: Option<i64>) {
        if let Some(v) = value {
            self.values.push((field, v));
        }
    }
}

fn field_of(s: Scalar) -> Field {
    match s {
        Scalar::PowerMw => Field::PowerMw,
        Scalar::EnergyMj => Field::EnergyMj,
        Scalar::TempGpuC => Field::TempGpuC,
        Scalar::SmClockMhz => Field::SmClockMhz,
        Scalar::MemClockMhz => Field::MemClockMhz,
        Scalar::ThrottleMask => Field::ThrottleMask,
        Scalar::FanPct => Field::FanPct,
        Scalar::Pstate => Field::Pstate,
        Scalar::PowerLimitMw => Field::PowerLimitMw,
        Scalar::UtilEncPct => Field::UtilEncPct,
        Scalar::UtilDecPct => Field::UtilDecPct,
        Scalar::PowerViolationNs => Field::PowerViolationUs,
        Scalar::ThermalViolationNs => Field::ThermalViolationUs,
        Scalar::PcieReplays => Field::PcieReplays,
        Scalar::EccCorrectedVolatile => Field::EccSbeVolatile,
        Scalar::EccUncorrectedVolatile => Field::EccDbeVolatile,
        Scalar::EccCorrectedAggregate => Field::EccSbeAggregate,
        Scalar::EccUncorrectedAggregate => Field::EccDbeAggregate,
    }
}

impl<A: NvmlApi> GpuSource for NvmlSource<A> {
    fn inventory(&mut self) -> Result<Vec<GpuInfo>, SourceError> {
        let driver = self.api.driver_version();
        let cuda = self
            .api
            .cuda_version()
            .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10));
        let gpus: Vec<GpuInfo> = (0..self.count)
            .map(|gpu| self.describe(gpu, &driver, &cuda))
            .collect();
        self.mig = gpus.iter().map(|g| g.mig_enabled == Some(true)).collect();
        Ok(gpus)
    }

    fn read(&mut self, gpu: u32) -> Result<Reading, ReadError> {
        let mut c = Collect {
            values: Vec::with_capacity(24),
            answered: 0,
            errors: Vec::new(),
        };
        for s in Scalar::ALL {
            let value = c.take(self.api.scalar(gpu, s))?;
            let value = match s {
                Scalar::PowerViolationNs | Scalar::ThermalViolationNs => value.map(|ns| ns / 1000),
                Scalar::Pstate => value.filter(|p| (0..=15).contains(p)),
                _ => value,
            };
            c.put(field_of(s), value);
        }
        if let Some((gpu_pct, mem_pct)) = c.take(self.api.utilization(gpu))? {
            c.put(Field::UtilGpuPct, Some(i64::from(gpu_pct)));
            c.put(Field::UtilMemPct, Some(i64::from(mem_pct)));
        }
        match self.api.memory(gpu) {
            Err(NvmlError::FailedToLoadSymbol(_)) => self.note_once(
                None,
                "memory use is not read: this driver has no nvmlDeviceGetMemoryInfo_v2 \
                 (drivers before R510)"
                    .into(),
            ),
            answer => {
                if let Some((used, total)) = c.take(answer)? {
                    c.put(Field::MemUsedMib, Some((used / MIB) as i64));
                    c.put(Field::MemTotalMib, Some((total / MIB) as i64));
                }
            }
        }
        let ids = [FIELD_MEMORY_TEMP, FIELD_PCIE_TX_BYTES, FIELD_PCIE_RX_BYTES];
        // The call itself answering is not an answer: its fields are.
        let fields = match self.api.fields(gpu, &ids) {
            Ok(fields) => fields,
            Err(e) => {
                c.take::<()>(Err(e))?;
                Vec::new()
            }
        };
        let mut got = fields.into_iter();
        let mut next = || -> Result<Option<(i64, i64)>, ReadError> {
            match got.next() {
                Some(answer) => c.take(answer),
                None => Ok(None),
            }
        };
        let temp_mem = next()?;
        let tx = next()?;
        let rx = next()?;
        c.put(Field::TempMemC, temp_mem.map(|(v, _)| v));
        if tx.is_none() && rx.is_none() {
            self.note_once(
                Some(gpu),
                format!(
                    "PCIe throughput of GPU {gpu} is not sampled: the driver has no PCIe byte \
                     counters (R535 and later have them)"
                ),
            );
        }
        let [tx_kbps, rx_kbps] = self.pcie_rates(gpu, tx, rx);
        c.put(Field::PcieTxKbps, tx_kbps);
        c.put(Field::PcieRxKbps, rx_kbps);
        if c.answered == 0 && !c.errors.is_empty() {
            return Err(ReadError::Unreadable(format!(
                "NVML answered no query: {}",
                c.errors[0]
            )));
        }
        Ok(Reading { values: c.values })
    }

    fn events(&mut self, timeout_ms: u32) -> Vec<GpuEvent> {
        let mut out = Vec::new();
        // Each GPU's own set; the first wait may block, the rest only drain.
        let mut wait = timeout_ms;
        for gpu in 0..self.count {
            loop {
                match self.api.next_xid(gpu, wait) {
                    Ok(xid) => out.push(GpuEvent::Xid {
                        gpu,
                        code: match xid {
                            Xid::Code(code) => code as i64,
                            Xid::Unknown => UNKNOWN_XID,
                        },
                    }),
                    Err(NvmlError::Timeout) => break,
                    // Not watched: said when watching failed.
                    Err(NvmlError::Uninitialized | NvmlError::NotSupported) => break,
                    Err(e) => {
                        self.note_once(
                            Some(gpu),
                            format!(
                                "waiting for XIDs of GPU {gpu} failed: {}; some may be missed",
                                nvml_reason(&e)
                            ),
                        );
                        break;
                    }
                }
                wait = 0;
            }
            wait = 0;
        }
        out
    }

    fn compute_pids(&mut self, gpu: u32) -> Option<Vec<u32>> {
        match self.api.compute_pids(gpu) {
            // A MIG parent lists nothing although its instances run work:
            // that is "cannot tell", not "no process".
            Ok(pids) if pids.is_empty() && self.mig_on(gpu) => None,
            Ok(pids) => Some(pids),
            Err(_) => None,
        }
    }

    fn notes(&mut self) -> Vec<(Option<u32>, String)> {
        std::mem::take(&mut self.notes)
    }
}

impl<A: NvmlApi> NvmlSource<A> {
    fn mig_on(&self, gpu: u32) -> bool {
        self.mig.get(gpu as usize).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests;
