//! The NVML calls the probe makes, one trait method per call, each answering
//! with NVML's own errors. [`RealNvml`] forwards to the driver through
//! nvml-wrapper; [`super::fake::FakeNvml`] answers as scripted (the same
//! errors, and the same latencies when asked), so everything the probe does
//! with NVML's answers — which GPU an XID belongs to, what a lost or
//! unreadable GPU means, how PCIe counters become throughput — is tested
//! without a GPU.
//!
//! GPUs are named by their NVML index, which is fixed for the life of the
//! process (NVML numbers devices once, at initialisation).

use std::sync::Mutex;

use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, MemoryError, PerformancePolicy, TemperatureSensor,
};
pub use nvml_wrapper::error::NvmlError;
use nvml_wrapper::event::EventSet;
use nvml_wrapper::structs::device::FieldId;
use nvml_wrapper::structs::device::UtilizationInfo;

/// NVML field ids read through `nvmlDeviceGetFieldValues` (nvml.h).
pub const FIELD_MEMORY_TEMP: u32 = 82;
/// Cumulative PCIe bytes sent and received (R535 and later). Reading them
/// costs microseconds, where `nvmlDeviceGetPcieThroughput` samples the link
/// for 20 ms per call.
pub const FIELD_PCIE_TX_BYTES: u32 = 197;
pub const FIELD_PCIE_RX_BYTES: u32 = 198;

/// What does not change while the probe runs, read once for the inventory.
/// Each fact may be unknown on its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceFacts {
    pub name: Option<String>,
    pub uuid: Option<String>,
    pub serial: Option<String>,
    pub pci_bus_id: Option<String>,
    pub memory_total_bytes: Option<u64>,
    pub vbios: Option<String>,
    pub pcie_gen_current: Option<u32>,
    pub pcie_gen_max: Option<u32>,
    pub pcie_width_current: Option<u32>,
    pub pcie_width_max: Option<u32>,
    pub power_limit_default_mw: Option<u32>,
    pub power_limit_enforced_mw: Option<u32>,
    pub power_limit_min_mw: Option<u32>,
    pub power_limit_max_mw: Option<u32>,
    pub max_sm_clock_mhz: Option<u32>,
    pub max_mem_clock_mhz: Option<u32>,
    pub ecc_enabled: Option<bool>,
    pub mig_enabled: Option<bool>,
    pub persistence_enabled: Option<bool>,
}

/// One MIG instance of a GPU in MIG mode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MigFacts {
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub memory_total_bytes: Option<u64>,
}

/// A reading that is one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    PowerMw,
    EnergyMj,
    TempGpuC,
    SmClockMhz,
    MemClockMhz,
    ThrottleMask,
    FanPct,
    Pstate,
    PowerLimitMw,
    UtilEncPct,
    UtilDecPct,
    /// Cumulative time held back by the power cap, in nanoseconds.
    PowerViolationNs,
    /// Cumulative time held back for temperature, in nanoseconds.
    ThermalViolationNs,
    PcieReplays,
    /// ECC errors since the driver loaded: corrected, then uncorrected.
    EccCorrectedVolatile,
    EccUncorrectedVolatile,
    /// ECC errors over the GPU's life.
    EccCorrectedAggregate,
    EccUncorrectedAggregate,
}

impl Scalar {
    pub const ALL: [Scalar; 18] = [
        Scalar::PowerMw,
        Scalar::EnergyMj,
        Scalar::TempGpuC,
        Scalar::SmClockMhz,
        Scalar::MemClockMhz,
        Scalar::ThrottleMask,
        Scalar::FanPct,
        Scalar::Pstate,
        Scalar::PowerLimitMw,
        Scalar::UtilEncPct,
        Scalar::UtilDecPct,
        Scalar::PowerViolationNs,
        Scalar::ThermalViolationNs,
        Scalar::PcieReplays,
        Scalar::EccCorrectedVolatile,
        Scalar::EccUncorrectedVolatile,
        Scalar::EccCorrectedAggregate,
        Scalar::EccUncorrectedAggregate,
    ];
}

/// Field values as NVML answers them: per field, the value and NVML's
/// timestamp (µs), or that field's error.
pub type FieldAnswers = Vec<Result<(i64, i64), NvmlError>>;

/// An XID as NVML reports it: a code, or "unknown" (999 in nvidia-smi).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Xid {
    Code(u64),
    Unknown,
}

pub trait NvmlApi {
    fn device_count(&self) -> Result<u32, NvmlError>;
    fn driver_version(&self) -> Option<String>;
    /// CUDA driver version as NVML encodes it (12020 for 12.2).
    fn cuda_version(&self) -> Option<i32>;
    /// Fails as a whole when the GPU cannot even be opened (`GpuLost`,
    /// `InsufficientPower`, `NoPermission` …).
    fn facts(&self, gpu: u32) -> Result<DeviceFacts, NvmlError>;
    /// `InvalidArg` past the last link.
    fn nvlink_active(&self, gpu: u32, link: u32) -> Result<bool, NvmlError>;
    /// The MIG instances of a GPU in MIG mode (empty when it is not).
    fn mig_instances(&self, gpu: u32) -> Result<Vec<MigFacts>, NvmlError>;
    fn scalar(&self, gpu: u32, what: Scalar) -> Result<i64, NvmlError>;
    /// GPU and memory utilisation, %.
    fn utilization(&self, gpu: u32) -> Result<(u32, u32), NvmlError>;
    /// Used and total memory, bytes.
    fn memory(&self, gpu: u32) -> Result<(u64, u64), NvmlError>;
    /// Field values with NVML's timestamp of each (µs); the outer error is
    /// the call's, the inner ones each field's.
    fn fields(&self, gpu: u32, ids: &[u32]) -> Result<FieldAnswers, NvmlError>;
    /// Start watching a GPU's critical XIDs, on an event set of its own (so
    /// that one GPU that cannot be watched leaves the others watched, and
    /// every event is known to be this GPU's even when it can no longer
    /// answer anything).
    fn watch_xids(&mut self, gpu: u32) -> Result<(), NvmlError>;
    /// The next XID of a watched GPU, waiting at most `timeout_ms`;
    /// `Timeout` when there is none.
    fn next_xid(&self, gpu: u32, timeout_ms: u32) -> Result<Xid, NvmlError>;
    /// Process ids running compute work on the GPU.
    fn compute_pids(&self, gpu: u32) -> Result<Vec<u32>, NvmlError>;
}

/// NVML, loaded once per process and kept: the app opens the probe for
/// every inventory, check and run, and an event set must not outlive it.
static LOADED: Mutex<Option<&'static Nvml>> = Mutex::new(None);

fn loaded() -> Result<&'static Nvml, NvmlError> {
    let mut slot = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(nvml) = *slot {
        return Ok(nvml);
    }
    // Leaked on purpose, once: it lives as long as the process.
    let nvml: &'static Nvml = Box::leak(Box::new(Nvml::init()?));
    *slot = Some(nvml);
    Ok(nvml)
}

/// The driver, through nvml-wrapper.
pub struct RealNvml {
    nvml: &'static Nvml,
    xids: Vec<Option<EventSet<'static>>>,
}

impl RealNvml {
    pub fn load() -> Result<Self, NvmlError> {
        Ok(Self {
            nvml: loaded()?,
            xids: Vec::new(),
        })
    }

    fn device(&self, gpu: u32) -> Result<nvml_wrapper::Device<'static>, NvmlError> {
        self.nvml.device_by_index(gpu)
    }
}

fn util(u: Result<UtilizationInfo, NvmlError>) -> Result<i64, NvmlError> {
    u.map(|u| i64::from(u.utilization))
}

/// An ECC count; beyond an i64 (never in practice) it is no reading.
fn ecc(
    d: &nvml_wrapper::Device<'_>,
    error: MemoryError,
    counter: EccCounter,
) -> Result<i64, NvmlError> {
    d.total_ecc_errors(error, counter)
        .and_then(|n| i64::try_from(n).map_err(|_| NvmlError::Unknown))
}

impl NvmlApi for RealNvml {
    fn device_count(&self) -> Result<u32, NvmlError> {
        self.nvml.device_count()
    }

    fn driver_version(&self) -> Option<String> {
        self.nvml.sys_driver_version().ok()
    }

    fn cuda_version(&self) -> Option<i32> {
        self.nvml.sys_cuda_driver_version().ok()
    }

    fn facts(&self, gpu: u32) -> Result<DeviceFacts, NvmlError> {
        let d = self.device(gpu)?;
        let constraints = d.power_management_limit_constraints().ok();
        Ok(DeviceFacts {
            name: d.name().ok(),
            uuid: d.uuid().ok(),
            serial: d.serial().ok(),
            pci_bus_id: d.pci_info().ok().map(|p| p.bus_id),
            memory_total_bytes: d.memory_info().ok().map(|m| m.total),
            vbios: d.vbios_version().ok(),
            pcie_gen_current: d.current_pcie_link_gen().ok(),
            pcie_gen_max: d.max_pcie_link_gen().ok(),
            pcie_width_current: d.current_pcie_link_width().ok(),
            pcie_width_max: d.max_pcie_link_width().ok(),
            power_limit_default_mw: d.power_management_limit_default().ok(),
            power_limit_enforced_mw: d.enforced_power_limit().ok(),
            power_limit_min_mw: constraints.as_ref().map(|c| c.min_limit),
            power_limit_max_mw: constraints.as_ref().map(|c| c.max_limit),
            max_sm_clock_mhz: d.max_clock_info(Clock::SM).ok(),
            max_mem_clock_mhz: d.max_clock_info(Clock::Memory).ok(),
            ecc_enabled: d.is_ecc_enabled().ok().map(|e| e.currently_enabled),
            mig_enabled: d.mig_mode().ok().map(|m| m.current == 1),
            persistence_enabled: d.is_in_persistent_mode().ok(),
        })
    }

    fn nvlink_active(&self, gpu: u32, link: u32) -> Result<bool, NvmlError> {
        self.device(gpu)?.link_wrapper_for(link).is_active()
    }

    fn mig_instances(&self, gpu: u32) -> Result<Vec<MigFacts>, NvmlError> {
        let d = self.device(gpu)?;
        if d.mig_mode()?.current != 1 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for i in 0..d.mig_device_count()? {
            // Slots without an instance answer NotFound.
            match d.mig_device_by_index(i) {
                Ok(m) => out.push(MigFacts {
                    uuid: m.uuid().ok(),
                    name: m.name().ok(),
                    memory_total_bytes: m.memory_info().ok().map(|m| m.total),
                }),
                Err(NvmlError::NotFound | NvmlError::InvalidArg) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    fn scalar(&self, gpu: u32, what: Scalar) -> Result<i64, NvmlError> {
        let d = self.device(gpu)?;
        match what {
            Scalar::PowerMw => d.power_usage().map(i64::from),
            Scalar::EnergyMj => d.total_energy_consumption().map(|v| v as i64),
            Scalar::TempGpuC => d.temperature(TemperatureSensor::Gpu).map(i64::from),
            Scalar::SmClockMhz => d.clock_info(Clock::SM).map(i64::from),
            Scalar::MemClockMhz => d.clock_info(Clock::Memory).map(i64::from),
            Scalar::ThrottleMask => d.current_throttle_reasons().map(|r| r.bits() as i64),
            Scalar::FanPct => d.fan_speed(0).map(i64::from),
            Scalar::Pstate => d.performance_state().map(|p| i64::from(p.as_c())),
            Scalar::PowerLimitMw => d.enforced_power_limit().map(i64::from),
            Scalar::UtilEncPct => util(d.encoder_utilization()),
            Scalar::UtilDecPct => util(d.decoder_utilization()),
            Scalar::PowerViolationNs => d
                .violation_status(PerformancePolicy::Power)
                .map(|v| v.violation_time as i64),
            Scalar::ThermalViolationNs => d
                .violation_status(PerformancePolicy::Thermal)
                .map(|v| v.violation_time as i64),
            Scalar::PcieReplays => d.pcie_replay_counter().map(i64::from),
            Scalar::EccCorrectedVolatile => ecc(&d, MemoryError::Corrected, EccCounter::Volatile),
            Scalar::EccUncorrectedVolatile => {
                ecc(&d, MemoryError::Uncorrected, EccCounter::Volatile)
            }
            Scalar::EccCorrectedAggregate => ecc(&d, MemoryError::Corrected, EccCounter::Aggregate),
            Scalar::EccUncorrectedAggregate => {
                ecc(&d, MemoryError::Uncorrected, EccCounter::Aggregate)
            }
        }
    }

    fn utilization(&self, gpu: u32) -> Result<(u32, u32), NvmlError> {
        let u = self.device(gpu)?.utilization_rates()?;
        Ok((u.gpu, u.memory))
    }

    fn memory(&self, gpu: u32) -> Result<(u64, u64), NvmlError> {
        let m = self.device(gpu)?.memory_info()?;
        Ok((m.used, m.total))
    }

    fn fields(&self, gpu: u32, ids: &[u32]) -> Result<FieldAnswers, NvmlError> {
        use nvml_wrapper::enums::device::SampleValue;
        let ids: Vec<FieldId> = ids.iter().map(|id| FieldId(*id)).collect();
        let values = self.device(gpu)?.field_values_for(&ids)?;
        Ok(values
            .into_iter()
            .map(|v| {
                v.and_then(|s| {
                    let at = s.timestamp;
                    s.value.map(|value| {
                        let value = match value {
                            SampleValue::F64(f) => f as i64,
                            SampleValue::U32(u) => i64::from(u),
                            SampleValue::U64(u) => u as i64,
                            SampleValue::I64(i) => i,
                        };
                        (value, at)
                    })
                })
            })
            .collect())
    }

    fn watch_xids(&mut self, gpu: u32) -> Result<(), NvmlError> {
        let d = self.device(gpu)?;
        if !d
            .supported_event_types()?
            .contains(EventTypes::CRITICAL_XID_ERROR)
        {
            return Err(NvmlError::NotSupported);
        }
        let set = self.nvml.create_event_set()?;
        let set = d
            .register_events(EventTypes::CRITICAL_XID_ERROR, set)
            .map_err(|e| e.error)?;
        let slot = gpu as usize;
        if self.xids.len() <= slot {
            self.xids.resize_with(slot + 1, || None);
        }
        self.xids[slot] = Some(set);
        Ok(())
    }

    fn next_xid(&self, gpu: u32, timeout_ms: u32) -> Result<Xid, NvmlError> {
        use nvml_wrapper::enums::event::XidError;
        let set = self
            .xids
            .get(gpu as usize)
            .and_then(Option::as_ref)
            .ok_or(NvmlError::Uninitialized)?;
        loop {
            let event = set.wait(timeout_ms)?;
            match event.event_data {
                Some(XidError::Value(code)) => return Ok(Xid::Code(code)),
                Some(XidError::Unknown) => return Ok(Xid::Unknown),
                // Not an XID (only XIDs are registered, but be sure).
                None => continue,
            }
        }
    }

    fn compute_pids(&self, gpu: u32) -> Result<Vec<u32>, NvmlError> {
        let d = self.device(gpu)?;
        let processes = match d.running_compute_processes() {
            // Drivers before R510 have no _v3 call; _v2 answers the same.
            Err(NvmlError::FailedToLoadSymbol(_)) => d.running_compute_processes_v2(),
            other => other,
        }?;
        Ok(processes.into_iter().map(|p| p.pid).collect())
    }
}
