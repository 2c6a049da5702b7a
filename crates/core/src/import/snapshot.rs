//! One reading of a vendor tool's output, parsed by the same readers that
//! import its logs: how the probe samples accelerators NVML does not see
//! (Ascend through `npu-smi`, AMD through `amd-smi`/`rocm-smi`, Cambricon
//! through `cnmon`). One parser per format, whether the text comes from a
//! file or from the tool a second ago.

use jiff::Timestamp;

use super::{Format, ImportError, ImportOptions, ImportOutcome, import_reader};
use crate::domain::{GpuInfo, Platform, PlatformKind};
use crate::samples::Sample;
use crate::store::Store;

/// What one output of a tool showed: the accelerators and a sample of each.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSnapshot {
    pub inventory: Vec<GpuInfo>,
    pub samples: Vec<Sample>,
}

/// Read `text`, the output of the tool behind `format`, taken at `at`.
pub fn read_snapshot(
    format: Format,
    text: &str,
    at: Timestamp,
) -> Result<ToolSnapshot, ImportError> {
    // The readers write into a run; a private in-memory store holds it for
    // the length of this call.
    let store = Store::open_in_memory()?;
    let platform = Platform::new("probe", PlatformKind::Other, None).map_err(crate::Error::from)?;
    let platform = store.create_platform(&platform)?;
    let options = ImportOptions {
        format: Some(format),
        start: Some(at),
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(platform.id)
    };
    let ImportOutcome::Imported(report) = import_reader(
        &store,
        text.as_bytes(),
        format.as_str(),
        format,
        &options,
        None,
    )?
    else {
        // A fresh store holds no earlier copy of anything.
        return Err(ImportError::file(
            format.as_str(),
            "read as an earlier import",
        ));
    };
    let run = store.run(report.run_id)?;
    let mut samples = Vec::new();
    for gpu in store.sample_gpus(run.id)? {
        samples.extend(store.read_samples(run.id, gpu, None, None)?.samples());
    }
    Ok(ToolSnapshot {
        inventory: run.inventory,
        samples,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::samples::Field;

    #[test]
    fn a_tool_output_becomes_an_inventory_and_samples() {
        let text = "\
GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL  GFX_CLOCK
  0  139 W     35 °C     28 °C       0 %    130 MHz
  1  725 W     78 °C     66 °C     100 %   2100 MHz
";
        let at: Timestamp = "2024-07-22T03:10:00Z".parse().unwrap();
        let s = read_snapshot(Format::AmdSmi, text, at).unwrap();
        assert_eq!(s.inventory.len(), 2);
        assert_eq!(s.samples.len(), 2);
        assert_eq!(s.samples[1].t_ms, at.as_millisecond());
        assert_eq!(s.samples[1].get(Field::PowerMw), Some(725_000));
        assert!(read_snapshot(Format::AmdSmi, "nothing here\n", at).is_err());
    }
}
