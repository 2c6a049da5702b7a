//! AMD's tools: `amd-smi` (metric and monitor, as text, CSV or JSON) and the
//! older `rocm-smi` (`--json`, `--csv`), alone or in a loop.
//!
//! Their columns and keys changed between ROCm releases (`power_usage`,
//! `socket_power`, "Average Graphics Package Power (W)"; `gfx_util`,
//! `gfx_activity`, "GPU use (%)"), so each is read by what its name means,
//! with the unit its name or value states. None of them prints a time
//! except amd-smi's watch mode (`timestamp`); otherwise `date` lines, or
//! `--start` (and `--interval` for a loop) place the readings.

mod amd_smi;
mod documents;
mod rocm_smi;

pub use amd_smi::parse as parse_amd_smi;
pub use rocm_smi::parse as parse_rocm_smi;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseResult, RunBuilder};
use super::RoundClock;
use crate::samples::{Field, Sample};

/// Places readings that carry no time: a new round starts when a GPU
/// comes again; rounds start at the last `date` line, or at `--start` (or
/// the file's time, for a single round) one `--interval` apart.
pub(super) struct Placer {
    clock: Option<RoundClock>,
    warned: bool,
}

impl Placer {
    pub(super) fn new() -> Self {
        Self {
            clock: None,
            warned: false,
        }
    }

    /// A `date` line: the next readings are from then.
    pub(super) fn dated(&mut self, t_ms: i64, ctx: &ParseContext) {
        let interval = ctx.interval_ms.map_or(0, i64::from);
        self.clock = Some(RoundClock::new(t_ms, interval));
    }

    pub(super) fn time_for(
        &mut self,
        gpu: u32,
        line: u64,
        tool: &str,
        ctx: &ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> Result<i64, LineError> {
        if self.clock.is_none() {
            let start = match (ctx.start, ctx.file_time) {
                (Some(s), _) => s,
                (None, Some(t)) => {
                    if !self.warned {
                        b.warn(format!(
                            "the {tool} output carries no time: it was taken at the file's modification time (give --start to set it)"
                        ));
                        self.warned = true;
                    }
                    t
                }
                (None, None) => {
                    return Err(LineError::new(
                        line,
                        None,
                        format!("the {tool} output carries no time; give --start"),
                    ));
                }
            };
            self.clock = Some(RoundClock::new(
                start.as_millisecond(),
                ctx.interval_ms.map_or(0, i64::from),
            ));
        }
        let Some(clock) = self.clock.as_mut() else {
            return Err(LineError::new(line, None, "no time for the reading"));
        };
        let t = clock.time_for(gpu);
        if clock.round > 0 && ctx.interval_ms.is_none() {
            return Err(LineError::new(
                line,
                None,
                format!(
                    "the {tool} output repeats without times; give --interval (the loop's \
                     sleep) and --start, or put `date` lines between the outputs"
                ),
            ));
        }
        if let Some(i) = ctx.interval_ms {
            b.interval_ms = b.interval_ms.or(Some(i));
        }
        Ok(t)
    }
}

/// One GPU's readings as (key, value) pairs, into a sample: a hotspot
/// temperature wins over the board's edge.
pub(super) fn sample_of(
    b: &mut RunBuilder<'_>,
    gpu_index: u32,
    t_ms: i64,
    readings: &[(String, String)],
) -> Result<Sample, String> {
    let gpu = b.gpu(GpuKey::Index(gpu_index));
    let mut sample = Sample::new(t_ms, gpu);
    let mut edge = None;
    for (key, text) in readings {
        let Some((field, unit)) = field_for(key) else {
            continue;
        };
        // Status words ("ENABLED", "UNTHROTTLED") are not readings.
        if !text.bytes().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some(v) = value(field, text, unit).map_err(|r| format!("{r} ({key})"))? else {
            continue;
        };
        if field == Field::TempGpuC && is_edge_temperature(key) {
            edge = Some(v);
            continue;
        }
        sample.set(field, v);
    }
    if sample.get(Field::TempGpuC).is_none()
        && let Some(e) = edge
    {
        sample.set(Field::TempGpuC, e);
    }
    if let Some(total) = sample.get(Field::MemTotalMib) {
        b.inventory(gpu).vram_mib = Some(total as u64);
    }
    Ok(sample)
}

/// Store a sample built from a line, applying the bad-line policy.
pub(super) fn store(
    b: &mut RunBuilder<'_>,
    line: &super::super::lines::Line<'_>,
    sample: Result<Sample, String>,
) -> ParseResult {
    match sample {
        Ok(s) if !s.is_empty() => b.sample(&s),
        Ok(_) => Ok(()),
        Err(reason) => b.bad_line(line, LineError::new(line.number, None, reason)),
    }
}

/// The field a key names, and the unit its values are in when they carry
/// none. Keys are compared lower-cased, with `_`, `-` and spaces alike.
pub(super) fn field_for(key: &str) -> Option<(Field, &'static str)> {
    let k = key
        .to_ascii_lowercase()
        .replace(['_', '-'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let has = |w: &str| k.contains(w);
    let unit = if has("(w)") || has("power") {
        "W"
    } else if has("(c)") || has("temp") {
        "C"
    } else if has("(b)") {
        "B"
    } else if has("clock") || has("clk") || has("freq") {
        "MHz"
    } else if has("vram") || has("mem usage") {
        "MB"
    } else {
        "%"
    };
    let clock = has("clock") || has("clk") || has("freq");
    let field = if has("power cap") || has("power limit") || has("max graphics package power") {
        Field::PowerLimitMw
    } else if has("power") && !has("management") && !has("volt") && !has("status") {
        Field::PowerMw
    } else if has("temp") && (has("hotspot") || has("junction") || has("gpu")) {
        Field::TempGpuC
    } else if has("temp") && (has("mem") || has("hbm")) {
        Field::TempMemC
    } else if has("temp") && has("edge") {
        // The board's edge: a GPU temperature only where no hotspot is
        // read (the caller prefers hotspot).
        Field::TempGpuC
    } else if clock && (has("gfx") || has("sclk")) {
        Field::SmClockMhz
    } else if clock && (has("mem") || has("mclk")) {
        Field::MemClockMhz
    } else if has("gfx util") || has("gfx activity") || has("gpu use") || k == "gfx" {
        Field::UtilGpuPct
    } else if has("mem util") || has("umc activity") || has("gpu memory use") {
        Field::UtilMemPct
    } else if has("fan") {
        Field::FanPct
    } else if (has("vram") || has("mem usage")) && has("total") && !has("used") {
        Field::MemTotalMib
    } else if (has("vram") || has("mem usage")) && has("used") {
        Field::MemUsedMib
    } else {
        return None;
    };
    Some((field, unit))
}

/// Whether a temperature key is the board's edge (used only without a
/// hotspot reading).
pub(super) fn is_edge_temperature(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.contains("edge")
}

/// A value as AMD's tools write it — "140 W", "35 °C", "(1700Mhz)",
/// "17163091968" bytes — in the field's unit; `None` for N/A.
pub(super) fn value(field: Field, text: &str, unit: &str) -> Result<Option<i64>, String> {
    let t = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let t = t.replace("Mhz", " MHz").replace("°C", " C");
    if super::super::values::is_missing(&t) {
        return Ok(None);
    }
    if unit == "B" && matches!(field, Field::MemUsedMib | Field::MemTotalMib) {
        let bytes: f64 = t
            .parse()
            .map_err(|_| format!("\"{}\" is not a number of bytes", text.trim()))?;
        return Ok(Some((bytes / 1_048_576.0).round() as i64));
    }
    super::super::values::parse_field(field, &t, Some(unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_every_release() {
        for (key, want) in [
            ("power_usage", Field::PowerMw),
            ("socket_power", Field::PowerMw),
            ("Average Graphics Package Power (W)", Field::PowerMw),
            ("hotspot_temperature", Field::TempGpuC),
            ("Temperature (Sensor junction) (C)", Field::TempGpuC),
            ("memory_temperature", Field::TempMemC),
            ("gfx_util", Field::UtilGpuPct),
            ("gfx_activity", Field::UtilGpuPct),
            ("GPU use (%)", Field::UtilGpuPct),
            ("umc_activity", Field::UtilMemPct),
            ("gfx_clock", Field::SmClockMhz),
            ("clock gfx_0 clk", Field::SmClockMhz),
            ("clock mem_0 clk", Field::MemClockMhz),
            ("GPU_TEMP", Field::TempGpuC),
            ("Max Graphics Package Power (W)", Field::PowerLimitMw),
            ("GPU memory use (%)", Field::UtilMemPct),
            ("sclk clock speed:", Field::SmClockMhz),
            ("mclk clock speed:", Field::MemClockMhz),
            ("VRAM Total Memory (B)", Field::MemTotalMib),
            ("VRAM Total Used Memory (B)", Field::MemUsedMib),
            ("vram_used", Field::MemUsedMib),
        ] {
            assert_eq!(field_for(key).map(|f| f.0), Some(want), "{key}");
        }
        assert_eq!(field_for("gpu"), None);
        assert_eq!(field_for("power gfx_voltage"), None);
        assert_eq!(field_for("ENC_CLOCK"), None);
        assert_eq!(field_for("Card series"), None);
    }

    #[test]
    fn values_with_their_units() {
        assert_eq!(value(Field::SmClockMhz, "(1700Mhz)", "MHz"), Ok(Some(1700)));
        assert_eq!(value(Field::TempGpuC, "35 °C", "C"), Ok(Some(35)));
        assert_eq!(value(Field::PowerMw, "140", "W"), Ok(Some(140_000)));
        assert_eq!(
            value(Field::MemTotalMib, "68702699520", "B"),
            Ok(Some(65_520))
        );
        assert_eq!(value(Field::PowerMw, "N/A", "W"), Ok(None));
    }
}
