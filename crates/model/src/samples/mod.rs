//! Sample series: the bulk of the evidence (a 48 h run on 8 GPUs at 1 Hz is
//! 1.4 M samples).
//!
//! A sample is one GPU at one instant with up to [`FIELD_COUNT`] optional
//! integer fields. Values are integers in a fixed unit per field (mW, °C,
//! MHz, %, MiB …), which keeps every source lossless at the precision it
//! reports and lets the codec compress deltas. "Not reported" is absent,
//! never 0.
//!
//! The store keeps samples in compressed columnar chunks (the core's `samples::codec`);
//! nothing above the store sees that layout: writers push [`Sample`]s, readers
//! get a [`SeriesFrame`] per GPU.

pub mod energy;
pub mod rhythm;
pub mod steps;
pub mod windows;

use serde::{Deserialize, Serialize};

/// The fields a sample may carry. The numeric id is written into the stored
/// chunks: never renumber, only append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Field {
    PowerMw = 0,
    EnergyMj = 1,
    TempGpuC = 2,
    TempMemC = 3,
    SmClockMhz = 4,
    MemClockMhz = 5,
    UtilGpuPct = 6,
    UtilMemPct = 7,
    MemUsedMib = 8,
    MemTotalMib = 9,
    /// NVML clock-event (throttle) reasons bit mask.
    ThrottleMask = 10,
    PcieTxKbps = 11,
    PcieRxKbps = 12,
    FanPct = 13,
    /// Performance state, P0 = 0 … P15 = 15.
    Pstate = 14,
    PowerLimitMw = 15,
    UtilEncPct = 16,
    UtilDecPct = 17,
    /// Cumulative time throttled by the power limit (DCGM), µs.
    PowerViolationUs = 18,
    /// Cumulative time throttled by temperature (DCGM), µs.
    ThermalViolationUs = 19,
    /// Cumulative PCIe replay count (link errors retried).
    PcieReplays = 20,
    /// Corrected (single-bit) ECC errors since the driver loaded.
    EccSbeVolatile = 21,
    /// Uncorrected (double-bit) ECC errors since the driver loaded.
    EccDbeVolatile = 22,
    /// Corrected ECC errors over the GPU's life (its InfoROM).
    EccSbeAggregate = 23,
    /// Uncorrected ECC errors over the GPU's life.
    EccDbeAggregate = 24,
    /// NVLink flow-control CRC errors, all links.
    NvlinkCrcErrors = 25,
    /// NVLink replays, all links.
    NvlinkReplays = 26,
    /// NVLink recoveries (a link retrained), all links.
    NvlinkRecoveries = 27,
}

pub const FIELD_COUNT: usize = 28;

impl Field {
    pub const ALL: [Field; FIELD_COUNT] = [
        Field::PowerMw,
        Field::EnergyMj,
        Field::TempGpuC,
        Field::TempMemC,
        Field::SmClockMhz,
        Field::MemClockMhz,
        Field::UtilGpuPct,
        Field::UtilMemPct,
        Field::MemUsedMib,
        Field::MemTotalMib,
        Field::ThrottleMask,
        Field::PcieTxKbps,
        Field::PcieRxKbps,
        Field::FanPct,
        Field::Pstate,
        Field::PowerLimitMw,
        Field::UtilEncPct,
        Field::UtilDecPct,
        Field::PowerViolationUs,
        Field::ThermalViolationUs,
        Field::PcieReplays,
        Field::EccSbeVolatile,
        Field::EccDbeVolatile,
        Field::EccSbeAggregate,
        Field::EccDbeAggregate,
        Field::NvlinkCrcErrors,
        Field::NvlinkReplays,
        Field::NvlinkRecoveries,
    ];

    pub fn id(self) -> u8 {
        self as u8
    }

    pub fn from_id(id: u8) -> Option<Field> {
        Field::ALL.get(usize::from(id)).copied()
    }

    /// Stable key used in JSON and in the probe log.
    pub fn key(self) -> &'static str {
        match self {
            Field::PowerMw => "power_mw",
            Field::EnergyMj => "energy_mj",
            Field::TempGpuC => "temp_gpu_c",
            Field::TempMemC => "temp_mem_c",
            Field::SmClockMhz => "sm_clock_mhz",
            Field::MemClockMhz => "mem_clock_mhz",
            Field::UtilGpuPct => "util_gpu_pct",
            Field::UtilMemPct => "util_mem_pct",
            Field::MemUsedMib => "mem_used_mib",
            Field::MemTotalMib => "mem_total_mib",
            Field::ThrottleMask => "throttle_mask",
            Field::PcieTxKbps => "pcie_tx_kbps",
            Field::PcieRxKbps => "pcie_rx_kbps",
            Field::FanPct => "fan_pct",
            Field::Pstate => "pstate",
            Field::PowerLimitMw => "power_limit_mw",
            Field::UtilEncPct => "util_enc_pct",
            Field::UtilDecPct => "util_dec_pct",
            Field::PowerViolationUs => "power_violation_us",
            Field::ThermalViolationUs => "thermal_violation_us",
            Field::PcieReplays => "pcie_replays",
            Field::EccSbeVolatile => "ecc_sbe_volatile",
            Field::EccDbeVolatile => "ecc_dbe_volatile",
            Field::EccSbeAggregate => "ecc_sbe_aggregate",
            Field::EccDbeAggregate => "ecc_dbe_aggregate",
            Field::NvlinkCrcErrors => "nvlink_crc_errors",
            Field::NvlinkReplays => "nvlink_replays",
            Field::NvlinkRecoveries => "nvlink_recoveries",
        }
    }

    /// A cumulative count of errors a device reports (PCIe replays, ECC
    /// and NVLink errors): what a passive check watches rise.
    pub fn is_error_count(self) -> bool {
        matches!(
            self,
            Field::PcieReplays
                | Field::EccSbeVolatile
                | Field::EccDbeVolatile
                | Field::EccSbeAggregate
                | Field::EccDbeAggregate
                | Field::NvlinkCrcErrors
                | Field::NvlinkReplays
                | Field::NvlinkRecoveries
        )
    }

    pub fn from_key(key: &str) -> Option<Field> {
        // By length first: one compare, not one per field (a probe log
        // names a field for every reading).
        Field::ALL
            .into_iter()
            .filter(|f| f.key().len() == key.len())
            .find(|f| f.key() == key)
    }

    /// The unit people read (W rather than mW) and the divisor to get there.
    pub fn display_unit(self) -> (&'static str, f64) {
        match self {
            Field::PowerMw | Field::PowerLimitMw => ("W", 1000.0),
            Field::EnergyMj => ("J", 1000.0),
            Field::TempGpuC | Field::TempMemC => ("°C", 1.0),
            Field::SmClockMhz | Field::MemClockMhz => ("MHz", 1.0),
            Field::UtilGpuPct
            | Field::UtilMemPct
            | Field::FanPct
            | Field::UtilEncPct
            | Field::UtilDecPct => ("%", 1.0),
            Field::MemUsedMib | Field::MemTotalMib => ("MiB", 1.0),
            Field::PcieTxKbps | Field::PcieRxKbps => ("KB/s", 1.0),
            Field::PowerViolationUs | Field::ThermalViolationUs => ("s", 1e6),
            Field::ThrottleMask
            | Field::Pstate
            | Field::PcieReplays
            | Field::EccSbeVolatile
            | Field::EccDbeVolatile
            | Field::EccSbeAggregate
            | Field::EccDbeAggregate
            | Field::NvlinkCrcErrors
            | Field::NvlinkReplays
            | Field::NvlinkRecoveries => ("", 1.0),
        }
    }
}

/// One GPU at one instant. Fields not set are "not reported".
#[derive(Clone, Copy)]
pub struct Sample {
    /// Milliseconds since the Unix epoch, UTC.
    pub t_ms: i64,
    pub gpu: u32,
    present: u32,
    /// A field's value where `present` has its bit; elsewhere whatever was
    /// there before (see `reset`), never read.
    values: [i64; FIELD_COUNT],
}

/// Samples are equal when they report the same fields with the same values.
impl PartialEq for Sample {
    fn eq(&self, other: &Self) -> bool {
        (self.t_ms, self.gpu, self.present) == (other.t_ms, other.gpu, other.present)
            && Field::ALL.into_iter().all(|f| self.get(f) == other.get(f))
    }
}

impl Eq for Sample {}

/// Only the fields reported, as equality sees them: a field's stale value
/// (see `reset`) is not part of the sample.
impl std::fmt::Debug for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Sample");
        s.field("t_ms", &self.t_ms).field("gpu", &self.gpu);
        for field in self.fields() {
            s.field(field.key(), &self.values[usize::from(field.id())]);
        }
        s.finish()
    }
}

impl Sample {
    pub fn new(t_ms: i64, gpu: u32) -> Self {
        Self {
            t_ms,
            gpu,
            present: 0,
            values: [0; FIELD_COUNT],
        }
    }

    pub fn set(&mut self, field: Field, value: i64) -> &mut Self {
        self.present |= 1 << field.id();
        self.values[usize::from(field.id())] = value;
        self
    }

    pub fn with(mut self, field: Field, value: i64) -> Self {
        self.set(field, value);
        self
    }

    pub fn get(&self, field: Field) -> Option<i64> {
        (self.present & (1 << field.id()) != 0).then(|| self.values[usize::from(field.id())])
    }

    pub fn clear(&mut self, field: Field) {
        self.present &= !(1 << field.id());
        self.values[usize::from(field.id())] = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.present == 0
    }

    /// Forget every field, to fill the sample again: the values stay, unread.
    /// An importer reads each row into the same sample; writing all 21
    /// values for each of its 1.4 M rows made every cache line of the
    /// sample travel to the core that stores it, not only those of the ten
    /// fields a row has.
    pub fn reset(&mut self, t_ms: i64, gpu: u32) {
        self.t_ms = t_ms;
        self.gpu = gpu;
        self.present = 0;
    }

    /// The fields this sample carries.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        Field::ALL.into_iter().filter(|f| self.get(*f).is_some())
    }

    pub fn present_mask(&self) -> u32 {
        self.present
    }

    pub fn raw_values(&self) -> &[i64; FIELD_COUNT] {
        &self.values
    }
}

/// One field of a series: values with a presence map (absent = not reported).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Column {
    values: Vec<i64>,
    /// `None` when every value is present (the common case, kept cheap).
    present: Option<Vec<bool>>,
}

impl Column {
    pub fn from_parts(values: Vec<i64>, present: Option<Vec<bool>>) -> Self {
        Self { values, present }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<i64> {
        let value = *self.values.get(i)?;
        match &self.present {
            Some(p) if !p[i] => None,
            _ => Some(value),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Option<i64>> + '_ {
        (0..self.values.len()).map(|i| self.get(i))
    }

    /// The values as stored, an absent one as 0; for loops over a slice
    /// that check [`Column::presence`] themselves.
    pub fn values(&self) -> &[i64] {
        &self.values
    }

    /// Which values are present; `None` when all are.
    pub fn presence(&self) -> Option<&[bool]> {
        self.present.as_deref()
    }

    pub fn present_count(&self) -> usize {
        match &self.present {
            Some(p) => p.iter().filter(|x| **x).count(),
            None => self.values.len(),
        }
    }
}

/// The samples of one GPU over a time range, column by column, in time order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeriesFrame {
    pub gpu: u32,
    pub t_ms: Vec<i64>,
    columns: Vec<(Field, Column)>,
}

impl SeriesFrame {
    pub fn new(gpu: u32, t_ms: Vec<i64>, columns: Vec<(Field, Column)>) -> Self {
        Self { gpu, t_ms, columns }
    }

    /// A frame from samples of one GPU (sorted by time here), for analysis
    /// of series that did not come from the store.
    pub fn from_samples(gpu: u32, samples: &[Sample]) -> Self {
        let mut sorted: Vec<&Sample> = samples.iter().filter(|s| s.gpu == gpu).collect();
        sorted.sort_by_key(|s| s.t_ms);
        let mask = sorted.iter().fold(0u32, |m, s| m | s.present_mask());
        let columns = Field::ALL
            .into_iter()
            .filter(|f| mask & (1 << f.id()) != 0)
            .map(|f| {
                let values = sorted.iter().map(|s| s.get(f).unwrap_or(0)).collect();
                let present: Vec<bool> = sorted.iter().map(|s| s.get(f).is_some()).collect();
                let all = present.iter().all(|p| *p);
                (f, Column::from_parts(values, (!all).then_some(present)))
            })
            .collect();
        SeriesFrame::new(gpu, sorted.iter().map(|s| s.t_ms).collect(), columns)
    }

    pub fn len(&self) -> usize {
        self.t_ms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ms.is_empty()
    }

    /// The typical spacing of the samples: the median of the positive time
    /// steps (`None` with fewer than two distinct times).
    pub fn median_step_ms(&self) -> Option<i64> {
        median_step(&self.t_ms)
    }

    /// The column of a field, if any sample in range reported it.
    pub fn column(&self, field: Field) -> Option<&Column> {
        self.columns
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, c)| c)
    }

    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.columns.iter().map(|(f, _)| *f)
    }

    /// Row view, for callers that think in samples.
    pub fn sample(&self, i: usize) -> Sample {
        let mut s = Sample::new(self.t_ms[i], self.gpu);
        for (field, column) in &self.columns {
            if let Some(v) = column.get(i) {
                s.set(*field, v);
            }
        }
        s
    }

    pub fn samples(&self) -> impl Iterator<Item = Sample> + '_ {
        (0..self.len()).map(|i| self.sample(i))
    }
}

/// Utilisation (%) above which a GPU counts as working: a sample of work,
/// not of idling (billing's compute, sustain's working samples, the probe's
/// busy time).
pub const WORKING_UTIL: i64 = 10;

/// Clock-event bits that count as throttling: HW slowdown, SW and HW
/// thermal slowdown, HW power brake.
pub const COUNTED_THROTTLE: i64 = THERMAL_THROTTLE | HARDWARE_THROTTLE;
/// The thermal ones: SW and HW thermal slowdown.
pub const THERMAL_THROTTLE: i64 = 0x20 | 0x40;
/// The power and hardware ones: HW slowdown, HW power brake.
pub const HARDWARE_THROTTLE: i64 = 0x8 | 0x80;

/// The typical time step of a series: the median of its positive steps
/// (the upper one of the two middle steps for an even count). The one
/// definition used for gaps, timelines, spans and workloads.
pub fn median_step(t: &[i64]) -> Option<i64> {
    let mut steps: Vec<i64> = t
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0)
        .collect();
    if steps.is_empty() {
        return None;
    }
    let mid = steps.len() / 2;
    Some(*steps.select_nth_unstable(mid).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_sample_is_a_new_one_whatever_values_it_held() {
        let mut reused = Sample::new(5, 1)
            .with(Field::PowerMw, 250_000)
            .with(Field::PcieReplays, 7);
        reused.reset(9, 2);
        assert!(reused.is_empty());
        assert_eq!(reused, Sample::new(9, 2));
        reused.set(Field::TempGpuC, 60);
        assert_eq!(reused, Sample::new(9, 2).with(Field::TempGpuC, 60));
        assert_eq!(reused.get(Field::PowerMw), None);
        assert_eq!(reused.fields().collect::<Vec<_>>(), [Field::TempGpuC]);
        assert_ne!(reused, Sample::new(9, 2).with(Field::TempGpuC, 61));
        assert_ne!(
            reused,
            Sample::new(9, 2)
                .with(Field::TempGpuC, 60)
                .with(Field::FanPct, 0)
        );
    }

    #[test]
    fn field_ids_and_keys_round_trip() {
        for (i, f) in Field::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(f.id()), i);
            assert_eq!(Field::from_id(f.id()), Some(f));
            assert_eq!(Field::from_key(f.key()), Some(f));
        }
        assert_eq!(Field::from_id(FIELD_COUNT as u8), None);
    }

    #[test]
    fn zero_is_not_absence() {
        let mut s = Sample::new(0, 0).with(Field::PowerMw, 0);
        assert_eq!(s.get(Field::PowerMw), Some(0));
        assert_eq!(s.get(Field::TempGpuC), None);
        s.clear(Field::PowerMw);
        assert!(s.is_empty());
    }
}
