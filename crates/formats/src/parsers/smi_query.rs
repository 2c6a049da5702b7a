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

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::values::{is_missing, parse_field, split_unit};
use crate::accelerator;
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
}

impl GpuSection {
    pub(super) fn new(gpu: u32) -> Self {
        Self {
            gpu,
            ..Self::default()
        }
    }
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
                finish_gpu(b, current.take(), &snapshot, &mut untimed_warned)?;
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
            }
            continue;
        };
        let key = clean(key);
        let value = clean(value);
        if indent == 0 {
            // The top block, before any GPU.
            match key {
                "Timestamp" => {
                    finish_gpu(b, current.take(), &snapshot, &mut untimed_warned)?;
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
        let Some(section) = current.as_mut() else {
            continue;
        };
        let path: Vec<&str> = stack.iter().map(|(_, n)| n.as_str()).collect();
        if let Err(reason) = apply(b, section, &path, key, value) {
            let column = indent + 1;
            b.bad_line(&line, LineError::new(line.number, Some(column), reason))?;
        }
    }
    finish_gpu(b, current.take(), &snapshot, &mut untimed_warned)?;
    if gpus_seen == 0 {
        return Err(ParseFailure::Whole(
            "no GPU section (GPU 0000…:…) found in the nvidia-smi -q output".into(),
        ));
    }
    Ok(())
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

pub(super) fn finish_gpu(
    b: &mut RunBuilder<'_>,
    section: Option<GpuSection>,
    snapshot: &Snapshot,
    untimed_warned: &mut bool,
) -> ParseResult {
    let Some(section) = section else {
        return Ok(());
    };
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
        if !*untimed_warned {
            b.warn(
                "the output has no Timestamp line: the inventory was kept, the readings were not",
            );
            *untimed_warned = true;
        }
        return Ok(());
    };
    sample.t_ms = t;
    b.sample(&sample)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
