//! The four-breakpoint review's six platforms, A–F, as the simulator plays them. Figures the
//! seed states are quoted in the comments; the rest are plausible choices.

use crate::domain::{BillingMode, BillingRule, PlatformKind, Rounding};

/// How one demo platform behaves.
pub struct DemoPlatform {
    pub letter: char,
    pub name: &'static str,
    pub kind: PlatformKind,
    pub notes: &'static str,
    /// CNY per A100-80G hour (seed: 12.8 for A and D; C "15 % higher").
    pub price_per_hour: f64,
    /// Billing unit (s), and which phases are billed.
    pub granularity_s: u32,
    pub bills_io_wait: bool,
    pub bills_idle: bool,
    /// Start latency medians (s) by scenario, and the cold-image extra.
    pub baseline_s: f64,
    pub peak_s: f64,
    pub mixed_s: f64,
    pub cold_extra_s: f64,
    /// Share of peak-load starts that time out.
    pub peak_timeouts: f64,
    /// Delivered PCIe width on the ordered x16 offering.
    pub pcie_width: u32,
    /// Sustained power drop: (hour it starts, watts lost), SM clock after.
    pub power_sag: Option<(u32, i64, i64)>,
    /// GPUs running hot under full load (°C), with thermal slowdown.
    pub hot_edge: Option<(usize, i64)>,
    /// A gap in the sample log: (hour, minutes).
    pub gap: Option<(u32, u32)>,
    /// Compute seconds the bill adds beyond what the GPUs measurably did.
    pub billed_extra_s: f64,
    /// Switches: manual steps, median drift, worst drift, ops passed of 127.
    pub manual_steps: u32,
    pub drift: (f64, f64),
    pub ops_passed: u32,
    pub switch_failures: usize,
    /// Fault drills: recovery seconds, drills that did not recover.
    pub recovery_s: f64,
    pub unrecovered: usize,
}

impl DemoPlatform {
    pub fn rule(&self, platform_id: i64) -> BillingRule {
        BillingRule {
            granularity_s: self.granularity_s,
            rounding: Rounding::Ceil,
            bills_io_wait: self.bills_io_wait,
            bills_idle: self.bills_idle,
            ..BillingRule::per_second(platform_id, BillingMode::OnDemand)
        }
    }
}

pub const DEMO_PLATFORMS: &[DemoPlatform] = &[
    DemoPlatform {
        letter: 'A',
        name: "Platform A (demo)",
        kind: PlatformKind::Hyperscaler,
        notes: "platform A of the four-breakpoint review: leading public cloud, allocates on demand",
        price_per_hour: 12.8,
        // "usage 3 hours (rounded up)" for a 2 h 17 m job.
        granularity_s: 3600,
        bills_io_wait: true,
        bills_idle: true,
        // "1.8 s at baseline, 22 min at peak".
        baseline_s: 1.8,
        peak_s: 22.0 * 60.0,
        mixed_s: 35.0,
        cold_extra_s: 40.0,
        peak_timeouts: 0.2,
        // "A100 nodes set to PCIe x8 (not the nominal x16)".
        pcie_width: 8,
        power_sag: None,
        hot_edge: None,
        // "15 minutes of network jitter" — billed as compute, see below.
        gap: Some((12, 15)),
        billed_extra_s: 900.0,
        manual_steps: 9,
        // "platform A fluctuated between 1e-3 and 5e-2".
        drift: (4e-3, 5e-2),
        ops_passed: 127,
        switch_failures: 1,
        // "no migrate API: manual rsync, > 8 minutes".
        recovery_s: 510.0,
        unrecovered: 0,
    },
    DemoPlatform {
        letter: 'B',
        name: "Platform B (demo)",
        kind: PlatformKind::Hyperscaler,
        notes: "platform B of the four-breakpoint review: government-cloud mainstay, open to kernel tuning",
        price_per_hour: 11.9,
        // "charges whole hours even if you only slept 1 s".
        granularity_s: 3600,
        bills_io_wait: true,
        bills_idle: true,
        baseline_s: 3.1,
        peak_s: 6.5 * 60.0,
        mixed_s: 20.0,
        // "first start on a custom image needs an extra 4 minutes".
        cold_extra_s: 240.0,
        peak_timeouts: 0.1,
        pcie_width: 16,
        power_sag: None,
        hot_edge: None,
        gap: None,
        billed_extra_s: 0.0,
        // the 37 manual configuration traps of a "one-click" switch.
        manual_steps: 37,
        drift: (2e-5, 6e-5),
        ops_passed: 125,
        switch_failures: 1,
        recovery_s: 130.0,
        unrecovered: 0,
    },
    DemoPlatform {
        letter: 'C',
        name: "Platform C (demo)",
        kind: PlatformKind::AiNative,
        notes: "platform C of the four-breakpoint review: LLM-training cloud with tiered warm pools",
        // "unit price 15 % higher".
        price_per_hour: 14.7,
        granularity_s: 1,
        bills_io_wait: false,
        bills_idle: false,
        // "4.2 s at baseline, only 3.1 min at peak".
        baseline_s: 4.2,
        peak_s: 3.1 * 60.0,
        mixed_s: 9.0,
        cold_extra_s: 25.0,
        peak_timeouts: 0.0,
        pcie_width: 16,
        power_sag: None,
        hot_edge: None,
        gap: None,
        // "counts util > 5 % as compute: 127 s more than measured".
        billed_extra_s: 127.0,
        manual_steps: 6,
        // "interpolate precision error of 12 %" on one operator.
        drift: (2e-4, 0.12),
        ops_passed: 102,
        switch_failures: 0,
        // "average failover 47 s".
        recovery_s: 47.0,
        unrecovered: 0,
    },
    DemoPlatform {
        letter: 'D',
        name: "Platform D (demo)",
        kind: PlatformKind::AiNative,
        notes: "platform D of the four-breakpoint review: started as an inference service, predicts image heat",
        price_per_hour: 12.8,
        // "per second, compute_time only; IO wait not billed".
        granularity_s: 1,
        bills_io_wait: false,
        bills_idle: false,
        // "first start compressed to 1.2 s" with pre-warmed images.
        baseline_s: 1.2,
        peak_s: 50.0,
        mixed_s: 6.0,
        cold_extra_s: 8.0,
        peak_timeouts: 0.0,
        pcie_width: 16,
        power_sag: None,
        hot_edge: None,
        gap: None,
        billed_extra_s: 0.0,
        manual_steps: 5,
        drift: (1e-5, 3e-5),
        ops_passed: 127,
        switch_failures: 0,
        recovery_s: 47.0,
        unrecovered: 0,
    },
    DemoPlatform {
        letter: 'E',
        name: "Platform E (demo)",
        kind: PlatformKind::ChipVendor,
        notes: "platform E of the four-breakpoint review: Ascend ecosystem, also rents A100s",
        price_per_hour: 10.5,
        granularity_s: 60,
        bills_io_wait: true,
        bills_idle: true,
        baseline_s: 8.0,
        peak_s: 5.0 * 60.0,
        mixed_s: 25.0,
        cold_extra_s: 90.0,
        peak_timeouts: 0.1,
        pcie_width: 16,
        // "after hour 30 power settles at 225 W while the panel shows 95 %".
        power_sag: Some((30, 25, 1230)),
        hot_edge: None,
        gap: None,
        billed_extra_s: 0.0,
        manual_steps: 8,
        // "127/127 operators, error stable at 5e-5".
        drift: (5e-5, 7e-5),
        ops_passed: 127,
        switch_failures: 0,
        recovery_s: 90.0,
        unrecovered: 0,
    },
    DemoPlatform {
        letter: 'F',
        name: "Platform F (demo)",
        kind: PlatformKind::ChipVendor,
        notes: "platform F of the four-breakpoint review: bound to Cambricon, also rents A100s",
        price_per_hour: 10.9,
        granularity_s: 60,
        // "does not bill such waits at all".
        bills_io_wait: false,
        bills_idle: true,
        baseline_s: 6.0,
        peak_s: 8.0 * 60.0,
        mixed_s: 30.0,
        cold_extra_s: 120.0,
        peak_timeouts: 0.1,
        pcie_width: 16,
        power_sag: None,
        // "edge GPUs reached 87 °C under full load".
        hot_edge: Some((2, 87)),
        gap: None,
        billed_extra_s: 0.0,
        manual_steps: 15,
        drift: (8e-5, 1.5e-4),
        // "119/127, missing 8 RNN operators".
        ops_passed: 119,
        switch_failures: 1,
        recovery_s: 200.0,
        unrecovered: 1,
    },
];
