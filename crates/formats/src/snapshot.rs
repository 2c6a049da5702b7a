//! One reading of a vendor tool's output, parsed by the same readers that
//! import its logs: how the probe samples accelerators NVML does not see
//! (Ascend through `npu-smi`, AMD through `amd-smi`/`rocm-smi`, Cambricon
//! through `cnmon`). One parser per format, whether the text comes from a
//! file or from the tool a second ago.

use jiff::Timestamp;

use crate::domain::GpuInfo;
use crate::samples::Sample;
use crate::{Format, ParseContext, ParseFailure, RunBuilder};

/// What one output of a tool showed: the accelerators and a sample of each.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSnapshot {
    pub inventory: Vec<GpuInfo>,
    pub samples: Vec<Sample>,
}

/// Read `text`, the output of the tool behind `format`, taken at `at`. The
/// samples stay in memory: a snapshot is read, not stored.
pub fn read_snapshot(format: Format, text: &str, at: Timestamp) -> Result<ToolSnapshot, String> {
    let mut samples = Vec::new();
    let mut builder = RunBuilder::new(&mut samples, false, None);
    let mut ctx = ParseContext {
        start: Some(at),
        ..ParseContext::new(format.as_str(), jiff::tz::TimeZone::UTC)
    };
    crate::parse(format, text.as_bytes(), &mut ctx, &mut builder)
        .map_err(|e| failure(format.as_str(), e))?;
    let built = builder.finish();
    Ok(ToolSnapshot {
        inventory: built.inventory,
        samples,
    })
}

/// A reading that failed, in the words an import of the same text gives.
fn failure(tool: &str, failure: ParseFailure) -> String {
    let tool = crate::text::printable(tool);
    match failure {
        ParseFailure::Line(e) => format!(
            "{tool}:{}{}: {}",
            e.line,
            e.column.map(|c| format!(":{c}")).unwrap_or_default(),
            e.reason
        ),
        ParseFailure::Whole(reason) | ParseFailure::Empty(reason) => format!("{tool}: {reason}"),
        ParseFailure::Io(e) => format!("{tool}: {e}"),
        ParseFailure::Sink(e) => format!("{tool}: {e}"),
        // Found only against a store; a reading alone never says it.
        ParseFailure::AlreadyImported { run_id, .. } => {
            format!("{tool}: already imported as run {run_id}")
        }
    }
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
