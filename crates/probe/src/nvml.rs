//! The real GPU source: NVML through nvml-wrapper. The library is loaded at
//! run time, so this builds and runs everywhere; without the driver it says
//! so in one line.

use breakpoint_core::accelerator;
use breakpoint_core::domain::GpuInfo;
use breakpoint_core::samples::Field;
use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enum_wrappers::device::{Clock, PcieUtilCounter, TemperatureSensor};
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::event::EventSet;
use nvml_wrapper::structs::device::UtilizationInfo;

use crate::source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};

pub struct NvmlSource {
    // NVML lives as long as the process; leaking it lets the event set
    // (which borrows it) live in the same struct.
    nvml: &'static Nvml,
    events: Option<EventSet<'static>>,
    count: u32,
}

impl NvmlSource {
    pub fn open() -> Result<NvmlSource, SourceError> {
        let nvml = Nvml::init().map_err(|e| match e {
            NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => {
                SourceError::NoDriver("libnvidia-ml.so.1 could not be loaded".into())
            }
            NvmlError::DriverNotLoaded => {
                SourceError::NoDriver("the NVIDIA kernel driver is not loaded".into())
            }
            other => SourceError::Failed(other.to_string()),
        })?;
        let nvml: &'static Nvml = Box::leak(Box::new(nvml));
        let count = nvml
            .device_count()
            .map_err(|e| SourceError::Failed(e.to_string()))?;
        if count == 0 {
            return Err(SourceError::NoGpus);
        }
        // XID events where the GPUs support them; sampling goes on without.
        let mut set = nvml.create_event_set().ok();
        for i in 0..count {
            if let (Some(s), Ok(device)) = (set.take(), nvml.device_by_index(i)) {
                set = device
                    .register_events(EventTypes::CRITICAL_XID_ERROR, s)
                    .ok();
            }
        }
        Ok(NvmlSource {
            nvml,
            events: set,
            count,
        })
    }
}

/// A value, or absent when the GPU cannot report it (NotSupported,
/// NoPermission and the like); a lost GPU stops the reading.
fn field<T>(r: Result<T, NvmlError>) -> Result<Option<T>, ReadError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(NvmlError::GpuLost) => Err(ReadError::Lost("NVML: GPU is lost".into())),
        Err(_) => Ok(None),
    }
}

fn version(cuda: i32) -> String {
    format!("{}.{}", cuda / 1000, (cuda % 1000) / 10)
}

impl GpuSource for NvmlSource {
    fn inventory(&mut self) -> Result<Vec<GpuInfo>, SourceError> {
        let driver = self.nvml.sys_driver_version().ok();
        let cuda = self.nvml.sys_cuda_driver_version().ok().map(version);
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string());
        let mut out = Vec::new();
        for i in 0..self.count {
            let d = self
                .nvml
                .device_by_index(i)
                .map_err(|e| SourceError::Failed(e.to_string()))?;
            let nvlink_active = (0..18u32)
                .map(|l| d.link_wrapper_for(l).is_active())
                .take_while(|r| !matches!(r, Err(NvmlError::InvalidArg)))
                .filter(|r| matches!(r, Ok(true)))
                .count() as u32;
            let constraints = d.power_management_limit_constraints().ok();
            out.push(GpuInfo {
                index: i,
                host: host.clone(),
                accelerator: d.name().ok().map(|n| accelerator::normalise(&n)),
                uuid: d.uuid().ok(),
                serial: d.serial().ok(),
                pci_bus_id: d.pci_info().ok().map(|p| p.bus_id),
                vram_mib: d.memory_info().ok().map(|m| m.total / (1024 * 1024)),
                driver_version: driver.clone(),
                cuda_version: cuda.clone(),
                vbios_version: d.vbios_version().ok(),
                pcie_gen_current: d.current_pcie_link_gen().ok(),
                pcie_gen_max: d.max_pcie_link_gen().ok(),
                pcie_width_current: d.current_pcie_link_width().ok(),
                pcie_width_max: d.max_pcie_link_width().ok(),
                power_limit_default_w: d
                    .power_management_limit_default()
                    .ok()
                    .map(|mw| f64::from(mw) / 1000.0),
                power_limit_enforced_w: d
                    .enforced_power_limit()
                    .ok()
                    .map(|mw| f64::from(mw) / 1000.0),
                power_limit_min_w: constraints
                    .as_ref()
                    .map(|c| f64::from(c.min_limit) / 1000.0),
                power_limit_max_w: constraints
                    .as_ref()
                    .map(|c| f64::from(c.max_limit) / 1000.0),
                max_sm_clock_mhz: d.max_clock_info(Clock::SM).ok(),
                max_mem_clock_mhz: d.max_clock_info(Clock::Memory).ok(),
                nvlink_active: Some(nvlink_active),
                ecc_enabled: d.is_ecc_enabled().ok().map(|e| e.currently_enabled),
                mig_enabled: d.mig_mode().ok().map(|m| m.current == 1),
                persistence_enabled: d.is_in_persistent_mode().ok(),
            });
        }
        Ok(out)
    }

    fn read(&mut self, gpu: u32) -> Result<Reading, ReadError> {
        let d = self.nvml.device_by_index(gpu).map_err(|e| match e {
            NvmlError::GpuLost => ReadError::Lost("NVML: GPU is lost".into()),
            other => ReadError::Other(other.to_string()),
        })?;
        let mut values = Vec::with_capacity(16);
        let mut put = |f: Field, v: Option<i64>| {
            if let Some(v) = v {
                values.push((f, v));
            }
        };
        put(Field::PowerMw, field(d.power_usage())?.map(i64::from));
        put(
            Field::EnergyMj,
            field(d.total_energy_consumption())?.map(|v| v as i64),
        );
        put(
            Field::TempGpuC,
            field(d.temperature(TemperatureSensor::Gpu))?.map(i64::from),
        );
        put(
            Field::SmClockMhz,
            field(d.clock_info(Clock::SM))?.map(i64::from),
        );
        put(
            Field::MemClockMhz,
            field(d.clock_info(Clock::Memory))?.map(i64::from),
        );
        if let Some(u) = field(d.utilization_rates())? {
            put(Field::UtilGpuPct, Some(i64::from(u.gpu)));
            put(Field::UtilMemPct, Some(i64::from(u.memory)));
        }
        if let Some(m) = field(d.memory_info())? {
            put(Field::MemUsedMib, Some((m.used / (1024 * 1024)) as i64));
            put(Field::MemTotalMib, Some((m.total / (1024 * 1024)) as i64));
        }
        put(
            Field::ThrottleMask,
            field(d.current_throttle_reasons())?.map(|r| r.bits() as i64),
        );
        put(
            Field::PcieTxKbps,
            field(d.pcie_throughput(PcieUtilCounter::Send))?.map(i64::from),
        );
        put(
            Field::PcieRxKbps,
            field(d.pcie_throughput(PcieUtilCounter::Receive))?.map(i64::from),
        );
        put(Field::FanPct, field(d.fan_speed(0))?.map(i64::from));
        put(
            Field::Pstate,
            field(d.performance_state())?
                .map(|p| i64::from(p.as_c()))
                .filter(|p| (0..=15).contains(p)),
        );
        put(
            Field::PowerLimitMw,
            field(d.enforced_power_limit())?.map(i64::from),
        );
        let util = |u: Result<UtilizationInfo, NvmlError>| {
            field(u).map(|u| u.map(|u| i64::from(u.utilization)))
        };
        put(Field::UtilEncPct, util(d.encoder_utilization())?);
        put(Field::UtilDecPct, util(d.decoder_utilization())?);
        Ok(Reading { values })
    }

    fn events(&mut self, timeout_ms: u32) -> Vec<GpuEvent> {
        let Some(set) = &self.events else {
            std::thread::sleep(std::time::Duration::from_millis(u64::from(timeout_ms)));
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut wait = timeout_ms;
        while let Ok(e) = set.wait(wait) {
            if let (Ok(gpu), Some(nvml_wrapper::enums::event::XidError::Value(code))) =
                (e.device.index(), e.event_data)
            {
                out.push(GpuEvent::Xid {
                    gpu,
                    code: code as i64,
                });
            }
            wait = 0;
        }
        out
    }

    fn compute_pids(&mut self, gpu: u32) -> Vec<u32> {
        self.nvml
            .device_by_index(gpu)
            .and_then(|d| d.running_compute_processes())
            .map(|ps| ps.into_iter().map(|p| p.pid).collect())
            .unwrap_or_default()
    }
}
