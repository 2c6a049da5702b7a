//! The columns of an nvidia-smi CSV: what each header name holds (a sample
//! field with its unit, an inventory fact, a throttle-reason flag, the time
//! or the GPU's id), how a header line is told from a row, and what a
//! header-less file's columns must be, judged from the shape of its values.

use std::sync::atomic::{AtomicU64, Ordering};

use super::super::super::values::{PlainReader, ValueReader};
use super::super::memory_health::Finding;
use crate::samples::Field;

/// What a column holds and how it is read.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Column {
    Timestamp,
    Index,
    /// A column a wrapping script added to number the GPUs (`gpu`,
    /// `gpu_id`, `device` …). It names the GPU a row is about even where
    /// nvidia-smi's own `index` cannot (0 on every row when each GPU is
    /// queried from a container that sees only it), so it is read in
    /// place of `index` (see `Layout::from_names`).
    GpuNumber,
    Uuid,
    BusId,
    Value(Field),
    /// `memory.free`: gives `memory.used` when only total and free are queried.
    MemFree,
    /// One throttle/event reason as `Active` / `Not Active`.
    Reason(i64),
    Inventory(Inv),
    /// A memory health finding as `Yes` / `No` (`remapped_rows.failure`).
    Health(Finding),
    /// Known but not stored (e.g. `count`, `pci.domain`).
    Ignored,
    /// Not a field this build knows: kept in the run's metadata.
    Unknown,
}

/// How the one-pass loop reads a column's cells: each column's in a few
/// bytes, side by side, rather than through its `Column` and its reader.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum PlainCell {
    Time,
    Index,
    Value(PlainReader),
    /// `memory.free`, read as memory in use is.
    MemFree(PlainReader),
    /// Cut at its comma and read by the general path.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Inv {
    Name,
    Serial,
    Driver,
    Vbios,
    PcieGenCurrent,
    PcieGenMax,
    PcieWidthCurrent,
    PcieWidthMax,
    PowerDefault,
    PowerMin,
    PowerMax,
    MaxSm,
    MaxMem,
    Persistence,
    Mig,
    Ecc,
}

/// Throttle / clock-event reason bits, by the suffix both naming
/// generations share (`clocks_throttle_reasons.X`, `clocks_event_reasons.X`).
const REASONS: &[(&str, i64)] = &[
    ("gpu_idle", 0x1),
    ("applications_clocks_setting", 0x2),
    ("sw_power_cap", 0x4),
    ("hw_slowdown", 0x8),
    ("sync_boost", 0x10),
    ("sw_thermal_slowdown", 0x20),
    ("hw_thermal_slowdown", 0x40),
    ("hw_power_brake_slowdown", 0x80),
    ("display_clock_setting", 0x100),
];

pub(super) fn classify(name: &str) -> Column {
    use Column::*;
    use Field::*;
    if let Some(reason) = name
        .strip_prefix("clocks_throttle_reasons.")
        .or_else(|| name.strip_prefix("clocks_event_reasons."))
    {
        return match reason {
            "active" => Value(ThrottleMask),
            "supported" => Ignored,
            r => REASONS
                .iter()
                .find(|(n, _)| *n == r)
                .map_or(Unknown, |(_, bit)| Reason(*bit)),
        };
    }
    match name {
        // nvidia-smi's own, or the one a wrapping script put first.
        "timestamp" | "time" | "datetime" | "date_time" => Timestamp,
        "index" => Index,
        "gpu" | "gpu_id" | "gpu_index" | "gpu_idx" | "gpu_num" | "device" | "device_id" => {
            GpuNumber
        }
        "uuid" | "gpu_uuid" => Uuid,
        "pci.bus_id" | "gpu_bus_id" => BusId,
        "power.draw" => Value(PowerMw),
        // Newer drivers split power.draw; either stands in when it is absent.
        "power.draw.instant" | "power.draw.average" => Value(PowerMw),
        "power.limit" | "enforced.power.limit" => Value(PowerLimitMw),
        "temperature.gpu" => Value(TempGpuC),
        "temperature.memory" => Value(TempMemC),
        "utilization.gpu" => Value(UtilGpuPct),
        "utilization.memory" => Value(UtilMemPct),
        "utilization.encoder" => Value(UtilEncPct),
        "utilization.decoder" => Value(UtilDecPct),
        "memory.used" => Value(MemUsedMib),
        "memory.total" => Value(MemTotalMib),
        "memory.free" => MemFree,
        "clocks.sm" | "clocks.current.sm" => Value(SmClockMhz),
        "clocks.mem" | "clocks.current.memory" => Value(MemClockMhz),
        "fan.speed" => Value(FanPct),
        "pstate" => Value(Pstate),
        "name" | "gpu_name" => Inventory(Inv::Name),
        "serial" | "gpu_serial" => Inventory(Inv::Serial),
        "driver_version" => Inventory(Inv::Driver),
        "vbios_version" => Inventory(Inv::Vbios),
        "pcie.link.gen.current" | "pcie.link.gen.gpucurrent" => Inventory(Inv::PcieGenCurrent),
        "pcie.link.gen.max" | "pcie.link.gen.gpumax" => Inventory(Inv::PcieGenMax),
        "pcie.link.width.current" => Inventory(Inv::PcieWidthCurrent),
        "pcie.link.width.max" => Inventory(Inv::PcieWidthMax),
        "power.default_limit" => Inventory(Inv::PowerDefault),
        "power.min_limit" => Inventory(Inv::PowerMin),
        "power.max_limit" => Inventory(Inv::PowerMax),
        "clocks.max.sm" | "clocks.max.sm_clock" => Inventory(Inv::MaxSm),
        "clocks.max.memory" | "clocks.max.mem" => Inventory(Inv::MaxMem),
        "persistence_mode" => Inventory(Inv::Persistence),
        "mig.mode.current" => Inventory(Inv::Mig),
        "ecc.mode.current" => Inventory(Inv::Ecc),
        "ecc.errors.corrected.volatile.total" => Value(EccSbeVolatile),
        "ecc.errors.uncorrected.volatile.total" => Value(EccDbeVolatile),
        "ecc.errors.corrected.aggregate.total" => Value(EccSbeAggregate),
        "ecc.errors.uncorrected.aggregate.total" => Value(EccDbeAggregate),
        "retired_pages.pending" => Health(Finding::RetiredPagesPending),
        "remapped_rows.pending" => Health(Finding::RowRemapPending),
        "remapped_rows.failure" => Health(Finding::RowRemapFailed),
        n if n.starts_with("clocks_event_reasons_counters.")
            || n.starts_with("clocks.")
            || n.starts_with("pci.")
            || n.starts_with("pcie.")
            || n.starts_with("power.")
            || n.starts_with("temperature.")
            || n.starts_with("ecc.")
            || n.starts_with("retired_pages.")
            || n.starts_with("remapped_rows.")
            || n.starts_with("mig.")
            || n.starts_with("encoder.")
            || n.starts_with("fbc.")
            || n.starts_with("inforom.")
            || n.starts_with("reset_status.")
            || n.starts_with("protected_memory.")
            || n.starts_with("memory.")
            || n.starts_with("utilization.")
            || matches!(
                n,
                "count"
                    | "display_mode"
                    | "display_active"
                    | "accounting.mode"
                    | "accounting.buffer_size"
                    | "driver_model.current"
                    | "driver_model.pending"
                    | "compute_mode"
                    | "compute_cap"
                    | "gom.current"
                    | "gom.pending"
                    | "vbios_version.oem"
                    | "addressing_mode"
                    | "platform.chassis_serial_number"
            ) =>
        {
            Ignored
        }
        _ => Unknown,
    }
}

/// The columns of a file, from its header (or from `--fields`).
#[derive(Debug, Clone)]
pub(super) struct Layout {
    /// This layout among all made: what the workers' `LastCells` are of.
    pub(super) id: u64,
    /// The header line as written, to recognise it when it repeats.
    pub(super) header_text: Option<String>,
    pub(super) columns: Vec<(Column, Option<String>, String)>,
    /// For each column holding a sample field, its reader.
    pub(super) readers: Vec<Option<ValueReader>>,
    /// How the one-pass loop reads each column's cells (`read_cells`).
    pub(super) plain: Vec<PlainCell>,
    pub(super) has_time: bool,
    pub(super) has_mask: bool,
}

impl Layout {
    pub(super) fn from_names(
        names: &[String],
        header_text: Option<String>,
    ) -> Result<Layout, String> {
        let mut columns = Vec::with_capacity(names.len());
        for raw in names {
            let raw = raw.trim();
            let (name, unit) = match raw.split_once('[') {
                Some((n, u)) => (n.trim(), Some(u.trim_end_matches(']').trim().to_string())),
                None => (raw, None),
            };
            let name = name.to_ascii_lowercase();
            columns.push((classify(&name), unit, name));
        }
        // Where two columns give one field (power.draw and its .instant or
        // .average forms; power.limit and enforced.power.limit) the plainer
        // one is read and the other kept aside.
        let rank = |name: &str| match name {
            "power.draw.instant" | "enforced.power.limit" => 1,
            "power.draw.average" => 2,
            _ => 0,
        };
        for i in 0..columns.len() {
            let Column::Value(field) = columns[i].0 else {
                continue;
            };
            let beaten = columns.iter().enumerate().any(|(j, (c, _, name))| {
                *c == Column::Value(field) && j != i && (rank(name), j) < (rank(&columns[i].2), i)
            });
            if beaten {
                columns[i].0 = Column::Ignored;
            }
        }
        // A script's GPU number names the row's GPU; nvidia-smi's index
        // beside it is then only what that GPU was called where it was
        // queried, and is kept aside.
        if columns.iter().any(|(c, _, _)| *c == Column::GpuNumber) {
            for (c, _, _) in &mut columns {
                *c = match c {
                    Column::Index => Column::Ignored,
                    Column::GpuNumber => Column::Index,
                    _ => continue,
                };
            }
        }
        let known = columns
            .iter()
            .filter(|(c, _, _)| !matches!(c, Column::Unknown))
            .count();
        if known == 0 {
            return Err("no column is a known nvidia-smi --query-gpu field".into());
        }
        let readers: Vec<Option<ValueReader>> = columns
            .iter()
            .map(|(c, unit, _)| match c {
                Column::Value(f) => Some(ValueReader::new(*f, unit.as_deref())),
                _ => None,
            })
            .collect();
        // Numbered from one: a worker's `LastCells` starts at none.
        static MADE: AtomicU64 = AtomicU64::new(1);
        Ok(Layout {
            id: MADE.fetch_add(1, Ordering::Relaxed),
            plain: columns
                .iter()
                .zip(&readers)
                .map(|((c, unit, _), reader)| match (c, reader) {
                    (Column::Timestamp, _) => PlainCell::Time,
                    (Column::Index, _) => PlainCell::Index,
                    // Read as memory in use is: the general reader's
                    // `parse_field(MemUsedMib, …)` is that reader's too.
                    (Column::MemFree, _) => ValueReader::new(Field::MemUsedMib, unit.as_deref())
                        .plain_reader()
                        .map_or(PlainCell::Other, PlainCell::MemFree),
                    (_, Some(reader)) => reader
                        .plain_reader()
                        .map_or(PlainCell::Other, PlainCell::Value),
                    _ => PlainCell::Other,
                })
                .collect(),
            readers,
            has_time: columns.iter().any(|(c, _, _)| *c == Column::Timestamp),
            has_mask: columns
                .iter()
                .any(|(c, _, _)| *c == Column::Value(Field::ThrottleMask)),
            header_text,
            columns,
        })
    }
}

/// A header line: every cell is a lower-case field name (with an optional
/// `[unit]`), and at least one is known.
pub(super) fn is_header(text: &str) -> bool {
    // Rows start with a time, a number or a value; headers with a name.
    if !text
        .trim_ascii_start()
        .starts_with(|c: char| c.is_ascii_lowercase())
    {
        return false;
    }
    let mut any_known = false;
    for cell in text.split(',') {
        let name = cell.trim().split(" [").next().unwrap_or("").trim();
        // Field names are identifiers with dots; a few are camelCase
        // (`pci.baseClass`), none starts upper-case (values such as
        // "Enabled" or "NVIDIA A100" do).
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
            && name.starts_with(|c: char| c.is_ascii_lowercase());
        if !plain {
            return false;
        }
        any_known |= !matches!(classify(name), Column::Unknown);
    }
    any_known
}

/// Guess the columns of a header-less file from the shape of its values:
/// each column whose values can be only one field is read, the others
/// (a "45 %" may be the GPU's or the memory's utilisation) are left out and
/// named, so that a log reads on the first try and `--fields` reads the
/// rest. Refused, naming the first column that could not be told, where
/// no time or no reading could be told: that is no nvidia-smi row.
pub(super) fn infer_layout(text: &str) -> Result<(Layout, Vec<String>), String> {
    let mut names = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    let mut watts = 0;
    for (i, cell) in text.split(',').enumerate() {
        let c = cell.trim();
        let b = c.as_bytes();
        let name = if b.len() >= 19 && b[4] == b'/' && b[7] == b'/' && b[13] == b':' {
            "timestamp"
        } else if c.starts_with("GPU-") {
            "uuid"
        } else if c.len() >= 12 && c.matches(':').count() == 2 && c.contains('.') {
            "pci.bus_id"
        } else if c.starts_with("0x") {
            "clocks_throttle_reasons.active"
        } else if c.ends_with(" W") && watts == 0 {
            watts += 1;
            "power.draw"
        } else if i == 1
            && names.first() == Some(&"timestamp")
            && c.parse::<u32>().is_ok_and(|n| n < 64)
        {
            "index"
        } else if c.starts_with("NVIDIA ") || c.starts_with("Tesla ") {
            "name"
        } else if c.len() >= 2 && c.starts_with('P') && c[1..].parse::<u8>().is_ok_and(|p| p <= 15)
        {
            "pstate"
        } else {
            left_out.push(format!("column {} (\"{c}\")", i + 1));
            "unread"
        };
        names.push(name);
    }
    let read_something = names.iter().any(|n| {
        matches!(
            *n,
            "power.draw" | "clocks_throttle_reasons.active" | "pstate"
        )
    });
    if !names.contains(&"timestamp") || !read_something {
        let first = left_out
            .first()
            .map_or("a column".to_string(), String::clone);
        return Err(format!(
            "this nvidia-smi CSV has no header, and {first} could be several fields; give the --query-gpu field list with --fields"
        ));
    }
    let layout = Layout::from_names(
        &names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        None,
    )?;
    let warnings = if left_out.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "this nvidia-smi CSV has no header: {} could be several fields and {} left out; give the --query-gpu field list with --fields and import it again to read {}",
            left_out.join(", "),
            if left_out.len() == 1 { "was" } else { "were" },
            if left_out.len() == 1 { "it" } else { "them" },
        )]
    };
    Ok((layout, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_told_from_rows() {
        assert!(is_header(
            "timestamp, index, power.draw [W], utilization.gpu [%]"
        ));
        assert!(is_header("index,clocks_event_reasons.hw_slowdown"));
        assert!(!is_header("2024/06/01 11:27:05.177, 0, 33.09 W"));
        assert!(!is_header("0, NVIDIA A100-SXM4-80GB"));
        assert!(!is_header("foo, bar"));
    }

    #[test]
    fn both_reason_generations_map_to_the_same_bits() {
        assert_eq!(
            classify("clocks_throttle_reasons.hw_slowdown"),
            Column::Reason(0x8)
        );
        assert_eq!(
            classify("clocks_event_reasons.hw_slowdown"),
            Column::Reason(0x8)
        );
        assert_eq!(
            classify("clocks_event_reasons.active"),
            Column::Value(Field::ThrottleMask)
        );
        assert_eq!(classify("kmd_version"), Column::Unknown);
        assert_eq!(
            classify("remapped_rows.failure"),
            Column::Health(Finding::RowRemapFailed)
        );
        assert_eq!(classify("remapped_rows.correctable"), Column::Ignored);
    }

    #[test]
    fn header_less_files_are_inferred_only_when_unambiguous() {
        let (l, warnings) = infer_layout("2024/06/01 11:27:05.177, 0, 33.09 W, GPU-1234").unwrap();
        assert_eq!(l.columns[2].0, Column::Value(Field::PowerMw));
        assert!(warnings.is_empty());
        // No reading that can be told: refused, naming the column.
        let e = infer_layout("2024/06/01 11:27:05.177, 0, 45 %, 30 %").unwrap_err();
        assert!(e.contains("column 3") && e.contains("--fields"), "{e}");
        // The power and the state are read; the two shares are named.
        let (l, warnings) =
            infer_layout("2024/06/01 11:27:05.177, 0, P0, 312.40 W, 45 %, 30 %").unwrap();
        assert_eq!(l.columns[3].0, Column::Value(Field::PowerMw));
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .contains("column 5 (\"45 %\"), column 6 (\"30 %\") could be several fields"),
            "{warnings:?}"
        );
    }
}
