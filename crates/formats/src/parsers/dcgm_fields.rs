//! What DCGM's fields (and nvidia_gpu_exporter's series) become in a
//! sample: one map for dcgm-exporter's text, Prometheus answers and
//! `dcgmi dmon`.

use crate::samples::Field;

/// What a DCGM field becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Target {
    Value(Field, &'static str),
    /// A value in base units (ratios, hertz, bytes) times a factor gives
    /// the field's unit: nvidia_gpu_exporter's names.
    Scaled(Field, f64, &'static str),
    /// The last XID seen; a change to a non-zero value is an XID event.
    Xid,
}

pub(super) fn dcgm_field(name: &str) -> Option<Target> {
    use Field::*;
    if let Some(name) = name.strip_prefix("nvidia_smi_") {
        return nvidia_gpu_exporter_field(name);
    }
    let name = name.strip_prefix("DCGM_FI_DEV_").unwrap_or(name);
    Some(match name {
        "GPU_UTIL" => Target::Value(UtilGpuPct, "%"),
        "MEM_COPY_UTIL" => Target::Value(UtilMemPct, "%"),
        "ENC_UTIL" => Target::Value(UtilEncPct, "%"),
        "DEC_UTIL" => Target::Value(UtilDecPct, "%"),
        "POWER_USAGE" | "POWER_USAGE_INSTANT" => Target::Value(PowerMw, "W"),
        "POWER_MGMT_LIMIT" | "ENFORCED_POWER_LIMIT" => Target::Value(PowerLimitMw, "W"),
        "GPU_TEMP" => Target::Value(TempGpuC, "C"),
        "MEMORY_TEMP" => Target::Value(TempMemC, "C"),
        "SM_CLOCK" => Target::Value(SmClockMhz, "MHz"),
        "MEM_CLOCK" => Target::Value(MemClockMhz, "MHz"),
        "FB_USED" => Target::Value(MemUsedMib, "MiB"),
        "FB_TOTAL" => Target::Value(MemTotalMib, "MiB"),
        "TOTAL_ENERGY_CONSUMPTION" => Target::Value(EnergyMj, "mJ"),
        "PCIE_REPLAY_COUNTER" => Target::Value(PcieReplays, ""),
        "ECC_SBE_VOL_TOTAL" => Target::Value(EccSbeVolatile, ""),
        "ECC_DBE_VOL_TOTAL" => Target::Value(EccDbeVolatile, ""),
        "ECC_SBE_AGG_TOTAL" => Target::Value(EccSbeAggregate, ""),
        "ECC_DBE_AGG_TOTAL" => Target::Value(EccDbeAggregate, ""),
        "NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL" => Target::Value(NvlinkCrcErrors, ""),
        "NVLINK_REPLAY_ERROR_COUNT_TOTAL" => Target::Value(NvlinkReplays, ""),
        "NVLINK_RECOVERY_ERROR_COUNT_TOTAL" => Target::Value(NvlinkRecoveries, ""),
        "CLOCK_THROTTLE_REASONS" | "CLOCKS_EVENT_REASONS" | "CLOCK_EVENT_REASONS" => {
            Target::Value(ThrottleMask, "")
        }
        // Cumulative nanoseconds, whatever the exporter's help text says.
        "POWER_VIOLATION" => Target::Value(PowerViolationUs, "ns"),
        "THERMAL_VIOLATION" => Target::Value(ThermalViolationUs, "ns"),
        "PCIE_TX_THROUGHPUT" => Target::Value(PcieTxKbps, "KB/s"),
        "PCIE_RX_THROUGHPUT" => Target::Value(PcieRxKbps, "KB/s"),
        "FAN_SPEED" => Target::Value(FanPct, "%"),
        "XID_ERRORS" => Target::Xid,
        _ => return None,
    })
}

/// The common nvidia_gpu_exporter's series (nvidia-smi's query fields, in
/// base units), for fleets that run it instead of DCGM.
fn nvidia_gpu_exporter_field(name: &str) -> Option<Target> {
    use Field::*;
    Some(match name {
        "power_draw_watts" => Target::Value(PowerMw, "W"),
        "enforced_power_limit_watts" => Target::Value(PowerLimitMw, "W"),
        "temperature_gpu" => Target::Value(TempGpuC, "C"),
        "temperature_memory" => Target::Value(TempMemC, "C"),
        "utilization_gpu_ratio" => Target::Scaled(UtilGpuPct, 100.0, "%"),
        "utilization_memory_ratio" => Target::Scaled(UtilMemPct, 100.0, "%"),
        "fan_speed_ratio" => Target::Scaled(FanPct, 100.0, "%"),
        "clocks_current_sm_clock_hz" => Target::Scaled(SmClockMhz, 1e-6, "MHz"),
        "clocks_current_memory_clock_hz" => Target::Scaled(MemClockMhz, 1e-6, "MHz"),
        "memory_used_bytes" => Target::Scaled(MemUsedMib, 1.0 / 1_048_576.0, "MiB"),
        "memory_total_bytes" => Target::Scaled(MemTotalMib, 1.0 / 1_048_576.0, "MiB"),
        "ecc_errors_corrected_volatile_total" => Target::Value(EccSbeVolatile, ""),
        "ecc_errors_uncorrected_volatile_total" => Target::Value(EccDbeVolatile, ""),
        "ecc_errors_corrected_aggregate_total" => Target::Value(EccSbeAggregate, ""),
        "ecc_errors_uncorrected_aggregate_total" => Target::Value(EccDbeAggregate, ""),
        _ => return None,
    })
}

/// DCGM's "blank" sentinels (not supported, not found …) that older
/// exporters print as numbers: integers from 0x7ffffffffffffff0 up, and
/// 2⁴⁷ for floating-point fields.
pub(super) fn is_dcgm_blank(value: &str) -> bool {
    let v = value.trim();
    v.parse::<i128>().is_ok_and(|n| n >= 0x7fff_ffff_ffff_fff0)
        // An infinity (1e400, +Inf) is no blank DCGM writes: it is refused
        // as a reading, not passed over.
        || v.parse::<f64>().is_ok_and(|f| {
            f.is_finite() && (f >= 9.223_372_036_854_775e18 || f == 140_737_488_355_328.0)
        })
}

/// `dcgmi dmon` column tags and the DCGM field each stands for.
pub(super) fn dmon_tag(tag: &str) -> Option<Target> {
    let field = match tag {
        "SMCLK" => "SM_CLOCK",
        "MMCLK" => "MEM_CLOCK",
        "MMTMP" => "MEMORY_TEMP",
        "TMPTR" => "GPU_TEMP",
        "POWER" => "POWER_USAGE",
        "TOTEC" => "TOTAL_ENERGY_CONSUMPTION",
        "GPUTL" => "GPU_UTIL",
        "MCUTL" => "MEM_COPY_UTIL",
        "ECUTL" | "ENCUT" => "ENC_UTIL",
        "DCUTL" | "DECUT" => "DEC_UTIL",
        "FBTTL" => "FB_TOTAL",
        "FBUSD" => "FB_USED",
        "PVIOL" => "POWER_VIOLATION",
        "TVIOL" => "THERMAL_VIOLATION",
        "XIDER" => "XID_ERRORS",
        "RPCTR" => "PCIE_REPLAY_COUNTER",
        "TXTPT" => "PCIE_TX_THROUGHPUT",
        "RXTPT" => "PCIE_RX_THROUGHPUT",
        "DVCCTR" => "CLOCK_THROTTLE_REASONS",
        _ => return None,
    };
    dcgm_field(field)
}
