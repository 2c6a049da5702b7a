//! `lspci -vv` (also `-D`, `-nn`, plain `lspci`): the machine's
//! accelerators and the PCIe link each one trained to — the four-breakpoint review's own check
//! for a card running x8 where it can run x16.
//!
//! ```text
//! 3b:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)
//!     Subsystem: NVIDIA Corporation Device 16c1
//!         LnkCap:    Port #0, Speed 32GT/s, Width x16, ASPM not supported
//!         LnkSta:    Speed 32GT/s, Width x8 (downgraded)
//!     Kernel driver in use: nvidia
//! ```
//!
//! A function is an accelerator when its class is a display, 3D or
//! processing-accelerator controller of a known accelerator vendor, or when
//! an accelerator driver is bound to it; bridges and NICs are passed over.
//! GPUs are numbered in PCI order, as nvidia-smi numbers them. The link's
//! width counts (a narrower link is half the bandwidth for good); its speed
//! is recorded but not judged, since GPUs lower it at idle to save power.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::kernel_log::pci_address;
use crate::accelerator;

#[derive(Debug, Default, Clone, PartialEq)]
struct Function {
    bus: String,
    class: String,
    description: String,
    driver: Option<String>,
    cap: Link,
    sta: Link,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Link {
    gen_: Option<u32>,
    width: Option<u32>,
}

/// "3b:00.0 3D controller: NVIDIA …" / "0000:3b:00.0 3D controller [0302]:
/// …": the address, the class and the description.
pub(crate) fn device_header(line: &str) -> Option<(String, &str, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (address, rest) = line.split_once(' ')?;
    let address = if address.matches(':').count() == 1 {
        format!("0000:{address}")
    } else {
        address.to_string()
    };
    let bus = pci_address(&address)?;
    let (class, description) = rest.split_once(": ")?;
    Some((bus, class.trim(), description.trim()))
}

const ACCELERATOR_VENDORS: [&str; 5] = [
    "NVIDIA",
    "Advanced Micro Devices",
    "Huawei",
    "Cambricon",
    "Habana Labs",
];

/// Drivers that only ever bind accelerators.
const ACCELERATOR_DRIVERS: [&str; 4] =
    ["nvidia", "devdrv_device_driver", "cambricon", "habanalabs"];

impl Function {
    fn is_accelerator(&self) -> bool {
        if self
            .driver
            .as_deref()
            .is_some_and(|d| ACCELERATOR_DRIVERS.iter().any(|a| d.starts_with(a)))
        {
            return true;
        }
        let class = self.class.to_ascii_lowercase();
        let vendor = ACCELERATOR_VENDORS
            .iter()
            .any(|v| self.description.contains(v));
        if class.starts_with("3d controller")
            || class.starts_with("display controller")
            || class.starts_with("processing accelerators")
        {
            return vendor;
        }
        // NVIDIA's GeForce and workstation cards are VGA controllers; AMD's
        // and Intel's are mostly the board's own graphics, not accelerators.
        class.starts_with("vga compatible controller") && self.description.contains("NVIDIA")
    }

    /// The model as lspci's database names it: the bracketed marketing
    /// name where there is one ("GH100 [H100 SXM5 80GB]"), or what the
    /// device id stands for where the database has no name (Ascend and
    /// Cambricon parts often show as "Device d802").
    fn model(&self) -> &str {
        let d = self
            .description
            .split(" (rev ")
            .next()
            .unwrap_or(&self.description);
        if let Some(name) = unnamed_device_id(d).and_then(|id| known_device(d, id)) {
            return name;
        }
        // "-nn" appends "[10de:2330]": not a name.
        let named = d
            .match_indices('[')
            .filter_map(|(i, _)| d[i + 1..].split_once(']').map(|(inside, _)| inside))
            .rfind(|inside| !is_vendor_device_id(inside));
        named.unwrap_or(d).trim()
    }
}

/// "… Device d802" → "d802": a device lspci's database does not name.
fn unnamed_device_id(description: &str) -> Option<&str> {
    let (_, id) = description.rsplit_once(" Device ")?;
    let id = id.split_whitespace().next()?;
    (id.len() == 4 && id.bytes().all(|c| c.is_ascii_hexdigit())).then_some(id)
}

/// Device ids lspci's database may not name, by vendor.
fn known_device(description: &str, id: &str) -> Option<&'static str> {
    let id = id.to_ascii_lowercase();
    if description.contains("Huawei") {
        return match id.as_str() {
            "d100" => Some("Ascend 310"),
            "d500" => Some("Ascend 310P"),
            "d801" => Some("Ascend 910"),
            "d802" => Some("Ascend 910B"),
            "d803" => Some("Ascend 910C"),
            _ => None,
        };
    }
    if description.contains("Cambricon") {
        return match id.as_str() {
            "0270" => Some("MLU270"),
            "0290" => Some("MLU290"),
            "0370" => Some("MLU370"),
            "0590" => Some("MLU590"),
            _ => None,
        };
    }
    None
}

fn is_vendor_device_id(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 9
        && b[4] == b':'
        && text
            .bytes()
            .filter(|c| *c != b':')
            .all(|c| c.is_ascii_hexdigit())
}

/// "Port #0, Speed 32GT/s, Width x16, ASPM …" / "Speed 8GT/s (ok), Width
/// x8 (downgraded)": generation and width.
fn link(text: &str) -> Link {
    let mut l = Link::default();
    for part in text.split(',') {
        let part = part.trim();
        if let Some(speed) = part.strip_prefix("Speed ") {
            let gts = speed.split("GT/s").next().unwrap_or("").trim();
            l.gen_ = match gts {
                "2.5" => Some(1),
                "5" => Some(2),
                "8" => Some(3),
                "16" => Some(4),
                "32" => Some(5),
                "64" => Some(6),
                _ => None,
            };
        } else if let Some(width) = part.strip_prefix("Width x") {
            l.width = width
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|w| w.parse().ok());
        }
    }
    l
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut functions: Vec<Function> = Vec::new();
    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if let Some((bus, class, description)) = device_header(text) {
            functions.push(Function {
                bus,
                class: class.to_string(),
                description: description.to_string(),
                ..Function::default()
            });
            continue;
        }
        let Some(f) = functions.last_mut() else {
            continue;
        };
        let detail = text.trim_start();
        if let Some(rest) = detail.strip_prefix("LnkCap:") {
            f.cap = link(rest);
        } else if let Some(rest) = detail.strip_prefix("LnkSta:") {
            f.sta = link(rest);
        } else if let Some(rest) = detail.strip_prefix("Kernel driver in use:") {
            f.driver = Some(rest.trim().to_string());
        }
    }
    if functions.is_empty() {
        return Err(ParseFailure::Whole(
            "no PCI devices found (lines like \"3b:00.0 3D controller: NVIDIA …\" from lspci)"
                .into(),
        ));
    }
    let mut accelerators: Vec<&Function> =
        functions.iter().filter(|f| f.is_accelerator()).collect();
    if accelerators.is_empty() {
        return Err(ParseFailure::Whole(format!(
            "lspci lists {} devices and none is an accelerator (an NVIDIA, AMD, Huawei or \
             Cambricon display, 3D or processing-accelerator controller)",
            functions.len()
        )));
    }
    accelerators.sort_by(|a, b| a.bus.cmp(&b.bus));
    let mut listed = Vec::new();
    for f in &accelerators {
        let gpu = b.gpu(GpuKey::BusId(&f.bus));
        let info = b.inventory(gpu);
        info.accelerator = Some(accelerator::normalise(f.model()));
        info.pcie_gen_max = f.cap.gen_;
        info.pcie_width_max = f.cap.width;
        info.pcie_gen_current = f.sta.gen_;
        info.pcie_width_current = f.sta.width;
        if let (Some(now), Some(max)) = (f.sta.width, f.cap.width)
            && now < max
        {
            b.warn(format!(
                "{} ({}) runs its PCIe link at x{now} of the x{max} it can: half the bandwidth \
                 to the host or less",
                f.bus,
                f.model()
            ));
        }
        listed.push(serde_json::json!({
            "bus": f.bus,
            "model": f.model(),
            "driver": f.driver,
            "link_capable": {"gen": f.cap.gen_, "width": f.cap.width},
            "link_status": {"gen": f.sta.gen_, "width": f.sta.width},
        }));
    }
    if accelerators.iter().all(|f| f.sta.width.is_none()) {
        b.warn("no link status in the listing (saved without -vv, or not as root): the GPUs are counted, their links not checked");
    }
    b.metadata.insert("lspci".into(), listed.into());
    // lspci prints no time: the listing was taken when it was saved.
    match (ctx.start, ctx.file_time) {
        (Some(t), _) | (None, Some(t)) => b.saw_time(t.as_millisecond()),
        (None, None) => {}
    }
    b.metadata_records += accelerators.len() as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_every_lspci_option() {
        assert_eq!(
            device_header(
                "3b:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)"
            ),
            Some((
                "00000000:3B:00.0".into(),
                "3D controller",
                "NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)"
            ))
        );
        assert_eq!(
            device_header("0000:c1:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)")
                .map(|h| h.0),
            Some("00000000:C1:00.0".into())
        );
        assert_eq!(device_header("\tLnkSta:\tSpeed 16GT/s, Width x16"), None);
        assert_eq!(device_header("random words: here"), None);
    }

    #[test]
    fn links_of_old_and_new_lspci() {
        assert_eq!(
            link(" Port #0, Speed 32GT/s, Width x16, ASPM not supported"),
            Link {
                gen_: Some(5),
                width: Some(16)
            }
        );
        assert_eq!(
            link("\tSpeed 8GT/s (ok), Width x8 (downgraded)"),
            Link {
                gen_: Some(3),
                width: Some(8)
            }
        );
        assert_eq!(
            link(" Speed 2.5GT/s (downgraded), Width x16 (ok)"),
            Link {
                gen_: Some(1),
                width: Some(16)
            }
        );
    }

    #[test]
    fn marketing_names_are_taken_from_brackets() {
        let f = |d: &str| Function {
            description: d.into(),
            ..Function::default()
        };
        assert_eq!(
            f("NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)").model(),
            "H100 SXM5 80GB"
        );
        assert_eq!(
            f("NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)").model(),
            "A100 SXM4 80GB"
        );
        assert_eq!(
            f("Huawei Technologies Co., Ltd. Device d802 (rev 20)").model(),
            "Ascend 910B"
        );
        assert_eq!(
            f("Cambricon Technologies Corporation Device 0370").model(),
            "MLU370"
        );
    }
}
