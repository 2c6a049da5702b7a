//! `nvidia-smi -q -x`: the same report as `-q`, as XML (every DTD version,
//! `nvsmi_device_v10.dtd` to `v12`), one document per call; a loop
//! (`nvidia-smi -q -x -l 5 >> gpu.xml`) appends documents one after
//! another, each read on its own so that memory stays bounded.
//!
//! Elements are translated to the names `-q` prints ("fb_memory_usage" →
//! "FB Memory Usage", "clocks_event_reason_sw_power_cap" → "SW Power
//! Cap") and read by the same code as the text, so both give the same
//! inventory and samples. Elements this table does not know are passed
//! over, as unknown keys of the text are.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::values::is_missing;
use super::memory_health::Reported;
use super::smi_query::{GpuSection, Snapshot, apply, clean, finish_gpu};

/// One document may be this large (an 8-GPU report is about 400 KB).
const DOCUMENT_LIMIT: usize = 64 << 20;

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut document = String::new();
    let mut first_line = 0u64;
    let mut documents = 0u64;
    let mut gpus = 0usize;
    // Across documents: a finding repeated by every report of a loop is
    // one finding.
    let mut reported = Reported::default();
    while let Some(line) = lines.next_line()? {
        if document.is_empty() {
            if line.text.trim().is_empty() {
                continue;
            }
            first_line = line.number;
        }
        document.push_str(line.text);
        document.push('\n');
        if document.len() > DOCUMENT_LIMIT {
            return Err(ParseFailure::Line(LineError::new(
                first_line,
                None,
                "an XML document longer than 64 MiB: not nvidia-smi's",
            )));
        }
        if line.text.trim_end().ends_with("</nvidia_smi_log>") {
            gpus += read_document(&document, first_line, ctx, b, &mut reported)?;
            documents += 1;
            document.clear();
        } else if !line.terminated {
            // The last document was cut off mid-write.
            b.warn(format!(
                "line {}: the last XML document is cut off; it was ignored",
                line.number
            ));
            document.clear();
        }
    }
    if !document.trim().is_empty() {
        b.warn(format!(
            "line {first_line}: the last XML document has no closing </nvidia_smi_log>; it was ignored"
        ));
    }
    if documents == 0 || gpus == 0 {
        return Err(ParseFailure::Whole(
            "no <gpu> in an <nvidia_smi_log> document (nvidia-smi -q -x output)".into(),
        ));
    }
    Ok(())
}

/// One `<nvidia_smi_log>` document; the GPUs it held.
fn read_document(
    text: &str,
    first_line: u64,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
    reported: &mut Reported,
) -> ParseResult<usize> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        LineError::new(
            first_line + u64::from(pos.row) - 1,
            Some(pos.col as usize),
            // The position is already the message's location.
            format!(
                "not well-formed XML: {}",
                e.to_string()
                    .rsplit_once(" at ")
                    .map_or(e.to_string(), |(m, _)| m.to_string())
            ),
        )
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "nvidia_smi_log" {
        return Err(ParseFailure::Line(LineError::new(
            first_line,
            None,
            format!(
                "the document is <{}>, not <nvidia_smi_log>",
                root.tag_name().name()
            ),
        )));
    }
    let leaf = |name: &str| {
        root.children()
            .find(|n| n.has_tag_name(name))
            .and_then(|n| n.text())
            .map(|t| clean(t.trim()).to_string())
            .filter(|t| !is_missing(t))
    };
    let t_ms = match leaf("timestamp") {
        Some(t) => Some(ctx.times.parse_ctime(&t).ok_or_else(|| {
            LineError::new(
                first_line,
                None,
                format!("\"{t}\" is not a time for <timestamp>"),
            )
        })?),
        None => None,
    };
    let snapshot = Snapshot {
        t_ms,
        driver: leaf("driver_version").or_else(|| leaf("kmd_version")),
        cuda: leaf("cuda_version").or_else(|| leaf("cuda_umd_version")),
    };
    let mut untimed_warned = false;
    let mut gpus = 0;
    for node in root.children().filter(|n| n.has_tag_name("gpu")) {
        let Some(bus) = node.attribute("id") else {
            continue;
        };
        let gpu = b.gpu(GpuKey::BusId(bus));
        let info = b.inventory(gpu);
        info.pci_bus_id = Some(bus.to_string());
        if let Some(d) = &snapshot.driver {
            info.driver_version = Some(d.clone());
        }
        if let Some(c) = &snapshot.cuda {
            info.cuda_version = Some(c.clone());
        }
        let mut section = GpuSection::new(gpu);
        let mut path = Vec::new();
        walk(node, &mut path, &mut |path, leaf| {
            let Some((key, value)) = leaf else {
                section.section_opened(path);
                return Ok(());
            };
            apply(b, &mut section, path, key, value).map_err(|reason| {
                let pos = doc.text_pos_at(node.range().start);
                LineError::new(
                    first_line + u64::from(pos.row) - 1,
                    None,
                    format!("<gpu id=\"{bus}\">: {reason}"),
                )
            })
        })?;
        finish_gpu(b, Some(section), &snapshot, &mut untimed_warned, reported)?;
        gpus += 1;
    }
    Ok(gpus)
}

/// What is done with one leaf — its section path, key and value, named as
/// `-q` names them — or with a section as it opens (no key and value; the
/// path ends with the section).
type Visit<'v> = dyn FnMut(&[&str], Option<(&str, &str)>) -> Result<(), LineError> + 'v;

/// Every section and leaf under `node`, with the `-q` names of its
/// sections and key.
fn walk(
    node: roxmltree::Node<'_, '_>,
    path: &mut Vec<&'static str>,
    visit: &mut Visit<'_>,
) -> Result<(), LineError> {
    for child in node.children().filter(roxmltree::Node::is_element) {
        let tag = child.tag_name().name();
        let Some(name) = q_name(path, tag) else {
            continue;
        };
        if child.children().any(|c| c.is_element()) {
            path.push(name);
            visit(path, None)?;
            walk(child, path, visit)?;
            path.pop();
        } else {
            let value = clean(child.text().unwrap_or("").trim());
            visit(path, Some((name, value)))?;
        }
    }
    Ok(())
}

/// The `-q` text's name for an element, where the importer reads it.
fn q_name(path: &[&str], tag: &str) -> Option<&'static str> {
    let section = path.first().copied().unwrap_or("");
    if matches!(section, "Clocks Throttle Reasons" | "Clocks Event Reasons") {
        let reason = tag.split_once("reason_").map_or(tag, |(_, r)| r);
        return Some(match reason {
            "gpu_idle" => "Idle",
            "applications_clocks_setting" => "Applications Clocks Setting",
            "sw_power_cap" => "SW Power Cap",
            "hw_slowdown" => "HW Slowdown",
            "sync_boost" => "Sync Boost",
            "sw_thermal_slowdown" => "SW Thermal Slowdown",
            "hw_thermal_slowdown" => "HW Thermal Slowdown",
            "hw_power_brake_slowdown" => "HW Power Brake Slowdown",
            "display_clock_setting" => "Display Clock Setting",
            _ => return None,
        });
    }
    Some(match (section, tag) {
        ("", "product_name") => "Product Name",
        ("", "serial") => "Serial Number",
        ("", "uuid") => "GPU UUID",
        ("", "vbios_version") => "VBIOS Version",
        ("", "persistence_mode") => "Persistence Mode",
        ("", "performance_state") => "Performance State",
        ("", "fan_speed") => "Fan Speed",
        ("", "mig_mode") => "MIG Mode",
        ("", "ecc_mode") => "ECC Mode",
        ("", "pci") => "PCI",
        ("", "fb_memory_usage") => "FB Memory Usage",
        ("", "utilization") => "Utilization",
        ("", "temperature") => "Temperature",
        ("", "power_readings") => "Power Readings",
        ("", "gpu_power_readings") => "GPU Power Readings",
        ("", "clocks") => "Clocks",
        ("", "max_clocks") => "Max Clocks",
        ("", "clocks_throttle_reasons") => "Clocks Throttle Reasons",
        ("", "clocks_event_reasons") => "Clocks Event Reasons",
        ("", "mig_devices") => "MIG Devices",
        ("", "retired_pages") => "Retired Pages",
        ("", "remapped_rows") => "Remapped Rows",
        // Under a MIG device (the path keeps "MIG Devices" first): its
        // identity and its own memory; its other blocks are passed over.
        ("MIG Devices", "mig_device") => "MIG Device",
        ("MIG Devices", "index") => "Index",
        ("MIG Devices", "gpu_instance_id") => "GPU Instance ID",
        ("MIG Devices", "compute_instance_id") => "Compute Instance ID",
        ("MIG Devices", "name" | "product_name") => "Name",
        ("MIG Devices", "uuid") => "UUID",
        ("MIG Devices", "fb_memory_usage") => "FB Memory Usage",
        ("MIG Devices", "total") => "Total",
        ("Retired Pages", "pending_blacklist") => "Pending Page Blacklist",
        ("Retired Pages", "pending_retirement") => "Pending Page Retirement",
        ("Remapped Rows", "remapped_row_pending") => "Pending",
        ("Remapped Rows", "remapped_row_failure") => "Remapping Failure Occurred",
        ("MIG Mode", "current_mig") | ("ECC Mode", "current_ecc") => "Current",
        ("PCI", "pci_gpu_link_info") => "GPU Link Info",
        ("PCI", "pcie_gen") => "PCIe Generation",
        ("PCI", "link_widths") => "Link Width",
        ("PCI", "max_link_gen" | "max_link_width") => "Max",
        ("PCI", "current_link_gen" | "current_link_width") => "Current",
        ("PCI", "device_current_link_gen") => "Device Current",
        ("PCI", "max_device_link_gen") => "Device Max",
        ("FB Memory Usage", "total") => "Total",
        ("FB Memory Usage", "used") => "Used",
        ("Utilization", "gpu_util") => "Gpu",
        ("Utilization", "memory_util") => "Memory",
        ("Utilization", "encoder_util") => "Encoder",
        ("Utilization", "decoder_util") => "Decoder",
        ("Temperature", "gpu_temp") => "GPU Current Temp",
        ("Temperature", "memory_temp") => "Memory Current Temp",
        ("Power Readings" | "GPU Power Readings", tag) => match tag {
            "power_draw" => "Power Draw",
            "instant_power_draw" => "Instantaneous Power Draw",
            "average_power_draw" => "Average Power Draw",
            "current_power_limit" => "Current Power Limit",
            "enforced_power_limit" => "Enforced Power Limit",
            "power_limit" => "Power Limit",
            "default_power_limit" => "Default Power Limit",
            "min_power_limit" => "Min Power Limit",
            "max_power_limit" => "Max Power Limit",
            _ => return None,
        },
        ("Clocks" | "Max Clocks", "sm_clock") => "SM",
        ("Clocks" | "Max Clocks", "mem_clock") => "Memory",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::blocks::testing::with_builder;
    use crate::domain::EventKind;
    use crate::samples::Field;

    #[test]
    fn mig_devices_and_pending_remaps_of_a_loop_of_reports() {
        let ((outcome, built), samples) = with_builder(false, |ctx, mut b| {
            let text = include_str!("../../../../tests/fixtures/logs/smi-xml/a100-mig-loop.xml");
            (parse(text.as_bytes(), ctx, &mut b), b.finish())
        });
        outcome.unwrap();
        let gpu = &built.inventory[0];
        assert_eq!((gpu.mig_enabled, gpu.vram_mib), (Some(true), Some(81_920)));
        let memory: Vec<Option<u64>> = gpu.mig_instances.iter().map(|m| m.vram_mib).collect();
        assert_eq!(memory, vec![Some(19_968), Some(9_984), Some(9_984)]);
        // The devices' memory is theirs: the GPU's samples hold its own.
        assert_eq!(samples.len(), 2);
        assert!(
            samples
                .iter()
                .all(|s| s.get(Field::MemTotalMib) == Some(81_920))
        );
        // A remap pending in both reports is one fault; the failure the
        // second adds is another, at its own time.
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
                (Some(0), 1_796_117_412_000, "row remap pending a reset"),
                (Some(0), 1_796_117_417_000, "row remapping failed"),
            ]
        );
    }

    #[test]
    fn elements_take_the_text_reports_names() {
        assert_eq!(q_name(&[], "fb_memory_usage"), Some("FB Memory Usage"));
        assert_eq!(
            q_name(
                &["PCI", "GPU Link Info", "Link Width"],
                "current_link_width"
            ),
            Some("Current")
        );
        assert_eq!(
            q_name(
                &["Clocks Event Reasons"],
                "clocks_event_reason_sw_power_cap"
            ),
            Some("SW Power Cap")
        );
        assert_eq!(
            q_name(
                &["Clocks Throttle Reasons"],
                "clocks_throttle_reason_hw_slowdown"
            ),
            Some("HW Slowdown")
        );
        assert_eq!(q_name(&[], "accounted_processes"), None);
    }
}
