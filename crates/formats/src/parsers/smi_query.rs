//! `nvidia-smi -q` text: the inventory of every GPU (what was delivered) and
//! one sample of each. Sections nest by indentation; keys and section names
//! changed across driver generations ("Clocks Throttle Reasons" → "Clocks
//! Event Reasons", "Power Readings" → "GPU Power Readings", "PCIe
//! Generation/Current" → "Device Current"; 610+ adds "KMD Version" and
//! "CUDA UMD Version" and marks some keys "[Deprecated]"), so keys are
//! matched by meaning and bracketed suffixes are dropped.
//!
//! Several outputs appended to one file (a script calling `nvidia-smi -q`
//! in a loop) give one sample per GPU per `Timestamp`.
//!
//! A GPU in MIG mode lists its MIG devices ("MIG Devices" → "MIG Device",
//! each with its own "FB Memory Usage"): they become the GPU's MIG
//! instances, and their memory is never taken for the GPU's. Retired pages
//! or row remaps waiting for a reset, and a failed remap, are health
//! faults (`memory_health`).
//!
//! People paste part of the report: a section or two copied from under a
//! GPU, without the "GPU 00000000:17:00.0" line above them. Lines that are
//! clearly a GPU's sections (indented `key : value` lines under the
//! section names `-q` prints) are read as one GPU, index 0, with a warning.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::values::{is_missing, parse_field, split_unit};
use super::memory_health::{Finding, Findings, Reported, is_found};
use crate::accelerator;
use crate::domain::MigInstance;
use crate::samples::{Field, Sample};

/// Drop "[Deprecated…]"-style suffixes of keys and values: "610.43.02
/// [Deprecated; … Use KMD Version instead]" → "610.43.02". A value that is
/// wholly bracketed ("[N/A]") is kept.
pub(super) fn clean(name: &str) -> &str {
    match name.find(" [") {
        Some(i) => name[..i].trim(),
        None => name.trim(),
    }
}

/// One GPU section being read.
#[derive(Default)]
pub(super) struct GpuSection {
    pub(super) gpu: u32,
    sample: Option<Sample>,
    /// The power reading by preference: Power Draw, then instantaneous, then average.
    power: [Option<i64>; 3],
    mask: Option<i64>,
    /// The MIG devices listed under the GPU, in order.
    mig: Vec<MigInstance>,
    found: Findings,
}

impl GpuSection {
    pub(super) fn new(gpu: u32) -> Self {
        Self {
            gpu,
            ..Self::default()
        }
    }

    /// A section header was read; `path` ends with it. Each "MIG Device"
    /// opens the next MIG instance, so that a device none of whose values
    /// can be read still counts.
    pub(super) fn section_opened(&mut self, path: &[&str]) {
        if mig_device_path(path).is_some_and(<[&str]>::is_empty) {
            self.mig.push(MigInstance::default());
        }
    }
}

/// The sections of a GPU as `-q` names them (and its XML, once
/// translated), in every driver generation: a line under one of them is a
/// GPU's, whether or not the GPU's header line came with it.
pub(crate) const GPU_SECTIONS: &[&str] = &[
    "MIG Mode",
    "MIG Devices",
    "MIG Device",
    "Driver Model",
    "GPU Operation Mode",
    "GPU Virtualization Mode",
    "GPU Reset Status",
    "Inforom Version",
    "Inforom BBX Object Flush",
    "PCI",
    "Clocks Event Reasons",
    "Clocks Throttle Reasons",
    "Clocks Reasons",
    "Clocks Event Reasons Counters",
    "FB Memory Usage",
    "BAR1 Memory Usage",
    "Conf Compute Protected Memory Usage",
    "Utilization",
    "Encoder Stats",
    "FBC Stats",
    "DRAM Encryption Mode",
    "ECC Mode",
    "ECC Errors",
    "Retired Pages",
    "Remapped Rows",
    "Temperature",
    "Supported GPU Target Temp",
    "Power Readings",
    "GPU Power Readings",
    "GPU Memory Power Readings",
    "Module Power Readings",
    "Power Smoothing",
    "Workload Power Profiles",
    "Power Samples",
    "Clocks",
    "Applications Clocks",
    "Default Applications Clocks",
    "Deferred Clocks",
    "Max Clocks",
    "Max Customer Boost Clocks",
    "Clock Policy",
    "Voltage",
    "Fabric",
    "Processes",
    "Accounted Processes",
    "Capabilities",
];

/// Keys a GPU's section opens with, outside any sub-section: an excerpt of
/// these alone is a GPU's too.
const GPU_KEYS: &[&str] = &[
    "Product Name",
    "Product Brand",
    "Product Architecture",
    "Serial Number",
    "GPU UUID",
    "VBIOS Version",
    "Persistence Mode",
    "Performance State",
    "Fan Speed",
    "Compute Mode",
];

/// Whether a `key : value` line under `path` is a GPU's, by the names `-q`
/// gives its sections and keys.
fn is_gpu_line(path: &[&str], key: &str) -> bool {
    match path.first() {
        Some(section) => GPU_SECTIONS.contains(section),
        None => GPU_KEYS.contains(&key),
    }
}

/// What follows "MIG Device" in a path under a MIG device, with or without
/// the "MIG Devices" list around it; `None` outside one.
fn mig_device_path<'p, 'a>(path: &'p [&'a str]) -> Option<&'p [&'a str]> {
    match path {
        ["MIG Devices", "MIG Device", rest @ ..] | ["MIG Device", rest @ ..] => Some(rest),
        _ => None,
    }
}

/// Whether `lines` (as detection sees them) are part of a `-q` report cut
/// from under a GPU: a section name `-q` prints on a line of its own, with
/// padded `key  : value` lines indented under it — two of them at least.
pub(crate) fn looks_like_excerpt(lines: &[&str]) -> bool {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let padded = |l: &str| {
        split_key_value(l.trim()).is_some() && l.contains("  :") && !l.trim_start().starts_with('|')
    };
    let mut under_section = false;
    for pair in lines.windows(2) {
        let (head, next) = (pair[0], pair[1]);
        if GPU_SECTIONS.contains(&clean(head.trim())) && indent(next) > indent(head) && padded(next)
        {
            under_section = true;
            break;
        }
    }
    under_section && lines.iter().filter(|l| padded(l)).count() >= 2
}

pub(super) struct Snapshot {
    pub(super) t_ms: Option<i64>,
    pub(super) driver: Option<String>,
    pub(super) cuda: Option<String>,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut snapshot = Snapshot {
        t_ms: None,
        driver: None,
        cuda: None,
    };
    let mut current: Option<GpuSection> = None;
    let mut gpus_seen = 0usize;
    let mut untimed_warned = false;
    let mut reported = Reported::default();
    // Lines read as a GPU's with no GPU header line above them.
    let mut excerpt = false;

    while let Some(line) = lines.next_line()? {
        let raw = line.text;
        if raw.trim().is_empty() || raw.trim_start().starts_with("====") {
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        while stack.last().is_some_and(|(d, _)| *d >= indent) {
            stack.pop();
        }
        let content = raw.trim();
        let Some((key, value)) = split_key_value(content) else {
            // A section header. "GPU 00000000:07:00.0" at the top opens a GPU.
            if indent == 0 && content.starts_with("GPU ") {
                finish_gpu(
                    b,
                    current.take(),
                    &snapshot,
                    &mut untimed_warned,
                    &mut reported,
                )?;
                let bus = content[4..].trim();
                let gpu = b.gpu(GpuKey::BusId(bus));
                b.inventory(gpu).pci_bus_id = Some(bus.to_string());
                if let Some(d) = &snapshot.driver {
                    b.inventory(gpu).driver_version = Some(d.clone());
                }
                if let Some(c) = &snapshot.cuda {
                    b.inventory(gpu).cuda_version = Some(c.clone());
                }
                current = Some(GpuSection {
                    gpu,
                    ..GpuSection::default()
                });
                gpus_seen += 1;
                stack.clear();
            } else {
                stack.push((indent, clean(content).to_string()));
                if let Some(section) = current.as_mut() {
                    let path: Vec<&str> = stack.iter().map(|(_, n)| n.as_str()).collect();
                    section.section_opened(&path);
                }
            }
            continue;
        };
        let key = clean(key);
        let value = clean(value);
        if indent == 0 {
            // The top block, before any GPU.
            match key {
                "Timestamp" => {
                    finish_gpu(
                        b,
                        current.take(),
                        &snapshot,
                        &mut untimed_warned,
                        &mut reported,
                    )?;
                    snapshot.t_ms = ctx.times.parse_ctime(value);
                    if snapshot.t_ms.is_none() {
                        let error = LineError::new(
                            line.number,
                            None,
                            format!("\"{value}\" is not a time for Timestamp"),
                        );
                        b.bad_line(&line, error)?;
                    }
                }
                "Driver Version" | "KMD Version" if !is_missing(value) => {
                    snapshot.driver.get_or_insert_with(|| value.to_string());
                }
                "CUDA Version" | "CUDA UMD Version" if !is_missing(value) => {
                    snapshot.cuda.get_or_insert_with(|| value.to_string());
                }
                _ => {}
            }
            continue;
        }
        let path: Vec<&str> = stack.iter().map(|(_, n)| n.as_str()).collect();
        if current.is_none() && gpus_seen == 0 && is_gpu_line(&path, key) {
            // Part of a GPU's section, pasted without the GPU's header.
            if !excerpt {
                b.warn(format!(
                    "line {}: the excerpt names no GPU (no \"GPU 0000…:…\" line above it); \
                     it was read as one GPU, index 0",
                    line.number
                ));
                excerpt = true;
            }
            current = Some(excerpt_gpu(b, &snapshot));
        }
        let Some(section) = current.as_mut() else {
            continue;
        };
        if let Err(reason) = apply(b, section, &path, key, value) {
            let column = indent + 1;
            b.bad_line(&line, LineError::new(line.number, Some(column), reason))?;
        }
    }
    finish_gpu(
        b,
        current.take(),
        &snapshot,
        &mut untimed_warned,
        &mut reported,
    )?;
    if gpus_seen == 0 && !excerpt {
        return Err(ParseFailure::Whole(
            "no GPU section (GPU 0000…:…) found in the nvidia-smi -q output".into(),
        ));
    }
    Ok(())
}

/// The one GPU an excerpt without a GPU header line is read as.
fn excerpt_gpu(b: &mut RunBuilder<'_>, snapshot: &Snapshot) -> GpuSection {
    let gpu = b.gpu(GpuKey::Index(0));
    let info = b.inventory(gpu);
    if let Some(d) = &snapshot.driver {
        info.driver_version.get_or_insert_with(|| d.clone());
    }
    if let Some(c) = &snapshot.cuda {
        info.cuda_version.get_or_insert_with(|| c.clone());
    }
    GpuSection::new(gpu)
}

/// "Product Name      : NVIDIA A100" → ("Product Name", "NVIDIA A100"). A
/// colon inside a value (times, bus ids) is kept.
fn split_key_value(content: &str) -> Option<(&str, &str)> {
    let i = content.find(" :").or_else(|| {
        // "Key: value" without padding, as some wrappers print.
        content.find(": ").filter(|i| {
            !content[..*i].contains(' ') || content[..*i].ends_with(|c: char| c.is_alphabetic())
        })
    })?;
    let key = content[..i].trim();
    let value = content[i..].trim_start_matches([' ', ':']).trim();
    Some((key, value))
}

fn reason_bit(name: &str) -> Option<i64> {
    Some(match name {
        "Idle" => 0x1,
        "Applications Clocks Setting" => 0x2,
        "SW Power Cap" => 0x4,
        "HW Slowdown" => 0x8,
        "Sync Boost" => 0x10,
        "SW Thermal Slowdown" => 0x20,
        "HW Thermal Slowdown" => 0x40,
        "HW Power Brake Slowdown" => 0x80,
        "Display Clock Setting" => 0x100,
        _ => return None,
    })
}

/// One `key : value` of a GPU section, under its section path ("PCI",
/// "GPU Link Info", "Link Width"), as `-q` names them.
pub(super) fn apply(
    b: &mut RunBuilder<'_>,
    s: &mut GpuSection,
    path: &[&str],
    key: &str,
    value: &str,
) -> Result<(), String> {
    let gpu = s.gpu;
    let sample = s.sample.get_or_insert_with(|| Sample::new(0, gpu));
    let enabled = |v: &str| match v {
        "Enabled" | "Enable" => Some(true),
        "Disabled" | "Disable" => Some(false),
        _ => None,
    };
    let whole = |v: &str| split_unit(v).0.trim_end_matches('x').parse::<u32>().ok();
    let watts = |v: &str| -> Result<Option<f64>, String> {
        Ok(parse_field(Field::PowerMw, v, None)?.map(|mw| mw as f64 / 1000.0))
    };
    let mut set = |field: Field, v: &str| -> Result<(), String> {
        if let Some(x) = parse_field(field, v, None)? {
            sample.set(field, x);
        }
        Ok(())
    };
    if let Some(within) = mig_device_path(path) {
        return mig_device_key(s, within, key, value);
    }
    let section = path.first().copied().unwrap_or("");
    let sub = path.get(1).copied().unwrap_or("");
    match (section, sub, key) {
        ("", _, "Product Name") if !is_missing(value) => {
            b.inventory(gpu).accelerator = Some(accelerator::normalise(value));
        }
        ("", _, "Serial Number") if !is_missing(value) => {
            b.inventory(gpu).serial = Some(value.into())
        }
        ("", _, "GPU UUID") if !is_missing(value) => {
            b.inventory(gpu).uuid = Some(value.into());
            b.alias(GpuKey::Uuid(value), gpu);
        }
        ("", _, "VBIOS Version") if !is_missing(value) => {
            b.inventory(gpu).vbios_version = Some(value.into())
        }
        ("", _, "Persistence Mode") => b.inventory(gpu).persistence_enabled = enabled(value),
        ("MIG Mode", _, "Current") => b.inventory(gpu).mig_enabled = enabled(value),
        ("ECC Mode", _, "Current") => b.inventory(gpu).ecc_enabled = enabled(value),
        ("", _, "Performance State") => set(Field::Pstate, value)?,
        // The GPU's own bus id, for an excerpt whose GPU header was not
        // copied: the GPU header gives it otherwise.
        ("PCI", "", "Bus Id") if !is_missing(value) && b.inventory(gpu).pci_bus_id.is_none() => {
            b.alias(GpuKey::BusId(value), gpu)
        }
        ("Retired Pages", "", "Pending Page Blacklist" | "Pending Page Retirement" | "Pending")
            if is_found(value) =>
        {
            s.found.insert(Finding::RetiredPagesPending)
        }
        ("Remapped Rows", "", "Pending") if is_found(value) => {
            s.found.insert(Finding::RowRemapPending)
        }
        ("Remapped Rows", "", "Remapping Failure Occurred") if is_found(value) => {
            s.found.insert(Finding::RowRemapFailed)
        }
        ("", _, "Fan Speed") => set(Field::FanPct, value)?,
        ("PCI", "GPU Link Info", k) => {
            let generation = path.get(2).copied() == Some("PCIe Generation");
            let width = path.get(2).copied() == Some("Link Width");
            let info = b.inventory(gpu);
            match k {
                "Max" | "Device Max" if generation => info.pcie_gen_max = whole(value),
                "Current" | "Device Current" if generation => info.pcie_gen_current = whole(value),
                "Max" if width => info.pcie_width_max = whole(value),
                "Current" if width => info.pcie_width_current = whole(value),
                _ => {}
            }
        }
        ("FB Memory Usage", _, "Total") => {
            set(Field::MemTotalMib, value)?;
            if let Some(m) = parse_field(Field::MemTotalMib, value, None)? {
                b.inventory(gpu).vram_mib = Some(m as u64);
            }
        }
        ("FB Memory Usage", _, "Used") => set(Field::MemUsedMib, value)?,
        ("Utilization", _, "Gpu" | "GPU") => set(Field::UtilGpuPct, value)?,
        ("Utilization", _, "Memory") => set(Field::UtilMemPct, value)?,
        ("Utilization", _, "Encoder") => set(Field::UtilEncPct, value)?,
        ("Utilization", _, "Decoder") => set(Field::UtilDecPct, value)?,
        ("Temperature", _, "GPU Current Temp") => set(Field::TempGpuC, value)?,
        ("Temperature", _, "Memory Current Temp") => set(Field::TempMemC, value)?,
        ("Power Readings" | "GPU Power Readings", _, k) => match k {
            "Power Draw" => s.power[0] = parse_field(Field::PowerMw, value, None)?,
            "Instantaneous Power Draw" => s.power[1] = parse_field(Field::PowerMw, value, None)?,
            "Average Power Draw" => s.power[2] = parse_field(Field::PowerMw, value, None)?,
            "Enforced Power Limit" | "Current Power Limit" => {
                if let Some(w) = watts(value)? {
                    b.inventory(gpu).power_limit_enforced_w = Some(w);
                    sample.set(Field::PowerLimitMw, (w * 1000.0).round() as i64);
                }
            }
            "Power Limit" => {
                if let Some(w) = watts(value)? {
                    let info = b.inventory(gpu);
                    info.power_limit_enforced_w.get_or_insert(w);
                }
            }
            "Default Power Limit" => b.inventory(gpu).power_limit_default_w = watts(value)?,
            "Min Power Limit" => b.inventory(gpu).power_limit_min_w = watts(value)?,
            "Max Power Limit" => b.inventory(gpu).power_limit_max_w = watts(value)?,
            _ => {}
        },
        ("Clocks", _, "SM") => set(Field::SmClockMhz, value)?,
        ("Clocks", _, "Memory") => set(Field::MemClockMhz, value)?,
        ("Max Clocks", _, "SM") => b.inventory(gpu).max_sm_clock_mhz = whole(value),
        ("Max Clocks", _, "Memory") => b.inventory(gpu).max_mem_clock_mhz = whole(value),
        ("Clocks Throttle Reasons" | "Clocks Event Reasons" | "Clocks Reasons", _, k) => {
            if let Some(bit) = reason_bit(k) {
                match value {
                    "Active" => s.mask = Some(s.mask.unwrap_or(0) | bit),
                    "Not Active" => s.mask = Some(s.mask.unwrap_or(0)),
                    v if is_missing(v) => {}
                    v => return Err(format!("\"{v}\" is neither Active nor Not Active for {k}")),
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// One `key : value` of a MIG device; `path`: the sections below "MIG
/// Device". Its memory is the instance's, never the GPU's.
fn mig_device_key(s: &mut GpuSection, path: &[&str], key: &str, value: &str) -> Result<(), String> {
    if s.mig.is_empty() {
        // An excerpt that starts inside the first device's block.
        s.mig.push(MigInstance::default());
    }
    let Some(device) = s.mig.last_mut() else {
        return Ok(());
    };
    match (path.first().copied().unwrap_or(""), key) {
        ("", "Name" | "Product Name") if !is_missing(value) => device.name = Some(value.into()),
        ("", "UUID" | "MIG UUID" | "Device UUID") if !is_missing(value) => {
            device.uuid = Some(value.into())
        }
        ("FB Memory Usage", "Total") => {
            device.vram_mib = parse_field(Field::MemTotalMib, value, None)?.map(|m| m as u64)
        }
        _ => {}
    }
    Ok(())
}

pub(super) fn finish_gpu(
    b: &mut RunBuilder<'_>,
    section: Option<GpuSection>,
    snapshot: &Snapshot,
    untimed_warned: &mut bool,
    reported: &mut Reported,
) -> ParseResult {
    let Some(section) = section else {
        return Ok(());
    };
    // A later report of the same GPU lists its devices as they are now.
    if !section.mig.is_empty() {
        b.inventory(section.gpu).mig_instances = section.mig;
    }
    reported.report(b, section.gpu, section.found, snapshot.t_ms);
    let Some(mut sample) = section.sample else {
        return Ok(());
    };
    if let Some(p) = section.power.iter().flatten().next() {
        sample.set(Field::PowerMw, *p);
    }
    if let Some(mask) = section.mask {
        sample.set(Field::ThrottleMask, mask);
    }
    let Some(t) = snapshot.t_ms else {
        if let Some(finding) = hardware_slowdown(&sample, b.inventory(section.gpu).max_sm_clock_mhz)
        {
            // A GPU held down by its hardware when the report was taken is
            // a finding about that GPU, time or no time.
            b.warn(format!(
                "GPU {}: {finding} (a report without a time: kept as a finding about the GPU)",
                section.gpu
            ));
            let kept = b
                .metadata
                .entry(crate::domain::UNTIMED_HEALTH)
                .or_insert_with(|| serde_json::Value::Array(Vec::new()));
            if let serde_json::Value::Array(list) = kept {
                list.push(serde_json::json!({"gpu": section.gpu, "what": finding}));
            }
        }
        if !*untimed_warned {
            b.warn(
                "the output has no Timestamp line: the inventory was kept, the readings were not \
                 (no time to place them)",
            );
            *untimed_warned = true;
        }
        return Ok(());
    };
    sample.t_ms = t;
    b.sample(&sample)?;
    Ok(())
}

/// The hardware's own slowdowns (not the software's power cap or thermal
/// target, which a busy GPU meets in its stride): their names, with the
/// clock and power the report shows beside them.
fn hardware_slowdown(sample: &Sample, max_sm_mhz: Option<u32>) -> Option<String> {
    // Named as the report names them, their bits as `reason_bit` reads them.
    const HARDWARE: [&str; 3] = [
        "HW Slowdown",
        "HW Thermal Slowdown",
        "HW Power Brake Slowdown",
    ];
    let mask = sample.get(Field::ThrottleMask)?;
    let active: Vec<&str> = HARDWARE
        .into_iter()
        .filter(|name| reason_bit(name).is_some_and(|bit| mask & bit != 0))
        .collect();
    if active.is_empty() {
        return None;
    }
    let mut said = format!("hardware slowdown active ({})", active.join(", "));
    match (sample.get(Field::SmClockMhz), max_sm_mhz) {
        (Some(sm), Some(max)) => said.push_str(&format!("; SM clock {sm} of {max} MHz")),
        (Some(sm), None) => said.push_str(&format!("; SM clock {sm} MHz")),
        _ => {}
    }
    if let Some(mw) = sample.get(Field::PowerMw) {
        said.push_str(&format!("; {:.1} W", mw as f64 / 1000.0));
    }
    Some(said)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::BuiltRun;
    use crate::blocks::testing::with_builder;
    use crate::domain::EventKind;

    /// The parse's outcome, what the run holds, and its samples.
    fn read(text: &str) -> (Result<(), String>, BuiltRun, Vec<Sample>) {
        let ((outcome, built), samples) = with_builder(false, |ctx, mut b| {
            let outcome = parse(text.as_bytes(), ctx, &mut b).map_err(|e| format!("{e:?}"));
            (outcome, b.finish())
        });
        (outcome, built, samples)
    }

    /// The `Clocks Event Reasons` and `Clocks` blocks of a GPU braking on
    /// power, copied from `nvidia-smi -q` without the GPU's header line —
    /// after the report's Timestamp line.
    const BRAKING: &str = "\
Timestamp                                 : Mon Nov 30 08:12:44 2026
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    Clocks
        Graphics                          : 382 MHz
        SM                                : 382 MHz
        Memory                            : 1593 MHz
        Video                             : 555 MHz
";

    #[test]
    fn an_excerpt_without_its_gpu_header_is_read_as_one_gpu() {
        assert_eq!(
            crate::detect(BRAKING.as_bytes()),
            Ok(crate::Format::SmiQuery)
        );
        let (outcome, built, samples) = read(BRAKING);
        assert_eq!(outcome, Ok(()));
        assert_eq!(built.inventory.len(), 1);
        assert_eq!(samples.len(), 1);
        let s = &samples[0];
        assert_eq!((s.gpu, s.t_ms), (0, 1_796_026_364_000));
        // HW Slowdown (0x8) and HW Power Brake Slowdown (0x80).
        assert_eq!(s.get(Field::ThrottleMask), Some(0x88));
        assert_eq!(s.get(Field::SmClockMhz), Some(382));
        assert_eq!(
            built
                .warnings
                .iter()
                .filter(|w| w.contains("names no GPU"))
                .count(),
            1,
            "{:?}",
            built.warnings
        );
    }

    #[test]
    fn an_excerpt_without_a_time_keeps_the_inventory_and_says_so() {
        // The PCI block of a GPU trained at x8 of x16, pasted with its
        // indentation taken off and under the throttle block's R470 name.
        let text = "\
PCI
    Bus                                   : 0x17
    Device                                : 0x00
    Domain                                : 0x0000
    Device Id                             : 0x20B010DE
    Bus Id                                : 00000000:17:00.0
    Sub System Id                         : 0x134F10DE
    GPU Link Info
        PCIe Generation
            Max                           : 4
            Current                       : 4
        Link Width
            Max                           : 16x
            Current                       : 8x
Clocks Throttle Reasons
    HW Power Brake Slowdown               : Active
";
        assert_eq!(crate::detect(text.as_bytes()), Ok(crate::Format::SmiQuery));
        let (outcome, built, samples) = read(text);
        assert_eq!(outcome, Ok(()));
        assert!(samples.is_empty());
        let gpu = &built.inventory[0];
        assert_eq!(
            (gpu.index, gpu.pcie_width_current, gpu.pcie_width_max),
            (0, Some(8), Some(16))
        );
        assert_eq!((gpu.pcie_gen_current, gpu.pcie_gen_max), (Some(4), Some(4)));
        assert_eq!(gpu.pci_bus_id.as_deref(), Some("00000000:17:00.0"));
        assert!(
            built.warnings.iter().any(|w| w.contains("names no GPU"))
                && built
                    .warnings
                    .iter()
                    .any(|w| w.contains("no Timestamp line")),
            "{:?}",
            built.warnings
        );
    }

    #[test]
    fn text_that_is_not_a_gpus_report_is_still_refused() {
        for text in [
            "hello world\n",
            "Settings\n    Colour                                : blue\n    Size      : 3\n",
            "Driver Version                            : 535.104.05\n",
        ] {
            let (outcome, built, _) = read(text);
            assert!(outcome.unwrap_err().contains("no GPU section"), "{text:?}");
            assert!(built.inventory.is_empty(), "{text:?}");
        }
        assert!(
            crate::detect(b"Settings\n    Colour                                : blue\n").is_err()
        );
    }

    #[test]
    fn mig_devices_are_the_gpus_instances_and_their_memory_is_not_the_gpus() {
        let (outcome, built, samples) = read(include_str!(
            "../../../../tests/fixtures/logs/smi-q/a100-mig-535.txt"
        ));
        assert_eq!(outcome, Ok(()));
        let gpu = &built.inventory[0];
        assert_eq!(gpu.mig_enabled, Some(true));
        assert_eq!(gpu.vram_mib, Some(81_920));
        let memory: Vec<Option<u64>> = gpu.mig_instances.iter().map(|m| m.vram_mib).collect();
        assert_eq!(
            memory,
            vec![
                Some(19_968),
                Some(19_968),
                Some(9_984),
                Some(9_984),
                Some(9_984)
            ]
        );
        assert_eq!(samples.len(), 1);
        assert_eq!(
            (
                samples[0].get(Field::MemTotalMib),
                samples[0].get(Field::MemUsedMib)
            ),
            (Some(81_920), Some(25_444))
        );
    }

    /// Two reports of a loop (`nvidia-smi -q -d ECC,PAGE_RETIREMENT`-like
    /// sections only): GPU 0 has a remap pending, then a failed one; GPU 1
    /// pages waiting to be retired.
    const MEMORY_FAULTS: &str = "\
==============NVSMI LOG==============

Timestamp                                 : Mon Nov 30 08:12:44 2026
Driver Version                            : 535.104.05
CUDA Version                              : 12.2

Attached GPUs                             : 2
GPU 00000000:07:00.0
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 2
        Pending                           : Yes
        Remapping Failure Occurred        : No
        Bank Remap Availability Histogram
            Max                           : 638 bank(s)
            High                          : 0 bank(s)
            Partial                       : 2 bank(s)
            Low                           : 0 bank(s)
            None                          : 0 bank(s)

GPU 00000000:0F:00.0
    Retired Pages
        Single Bit ECC                    : 0
        Double Bit ECC                    : 3
        Pending Page Blacklist            : Yes
    Remapped Rows                         : N/A

==============NVSMI LOG==============

Timestamp                                 : Mon Nov 30 08:12:49 2026
Driver Version                            : 535.104.05
CUDA Version                              : 12.2

Attached GPUs                             : 2
GPU 00000000:07:00.0
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 3
        Pending                           : Yes
        Remapping Failure Occurred        : Yes

GPU 00000000:0F:00.0
    Retired Pages
        Pending Page Blacklist            : Yes
";

    #[test]
    fn pending_retirements_and_remaps_are_health_faults_once_each() {
        let (outcome, built, _) = read(MEMORY_FAULTS);
        assert_eq!(outcome, Ok(()));
        let faults: Vec<(Option<u32>, i64, &str)> = built
            .events
            .iter()
            .filter(|e| e.kind == EventKind::HealthFault)
            .map(|e| {
                (
                    e.gpu,
                    e.at.as_millisecond(),
                    e.detail.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            faults,
            vec![
                (Some(0), 1_796_026_364_000, "row remap pending a reset"),
                (Some(1), 1_796_026_364_000, "retired pages pending a reset"),
                (Some(0), 1_796_026_369_000, "row remapping failed"),
            ]
        );
        assert_eq!(built.events.len(), 3);
        // Without a Timestamp line no time is made up: a warning names it.
        let untimed = MEMORY_FAULTS.replace("Timestamp", "Generated");
        let (_, built, _) = read(&untimed);
        assert!(built.events.is_empty());
        assert!(
            built
                .warnings
                .iter()
                .any(|w| w
                    == "GPU 0: row remapping failed (no time in the output: counted as a faulty GPU, without a time)"),
            "{:?}",
            built.warnings
        );
    }

    #[test]
    fn keys_and_values_split_at_the_padded_colon() {
        assert_eq!(
            split_key_value("Product Name                          : NVIDIA A100-SXM4-80GB"),
            Some(("Product Name", "NVIDIA A100-SXM4-80GB"))
        );
        assert_eq!(
            split_key_value("Timestamp                                 : Mon Jun  3 10:00:00 2024"),
            Some(("Timestamp", "Mon Jun  3 10:00:00 2024"))
        );
        assert_eq!(
            split_key_value("Bus Id                            : 00000000:07:00.0"),
            Some(("Bus Id", "00000000:07:00.0"))
        );
        assert_eq!(split_key_value("GPU 00000000:07:00.0"), None);
        assert_eq!(split_key_value("GPU Link Info"), None);
        assert_eq!(
            clean("Clocks Event Reasons [Deprecated]"),
            "Clocks Event Reasons"
        );
    }
}
