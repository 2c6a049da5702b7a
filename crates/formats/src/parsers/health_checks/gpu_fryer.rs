//! gpu-fryer (huggingface/gpu-fryer): matrix products on every GPU for a
//! while, each GPU's throughput held against the best GPU's (a GPU more
//! than `--tflops-tolerance`, 10 % by default, below it fails) and its
//! throttling watched through NVML.
//!
//! ```text
//! Detected GPU #0: "NVIDIA H100 80GB HBM3" (3e6a1f0c-…)
//! Using precision(s):  BF16
//! GPU #0:  712345 Gflops/s (min: 700123.00, max: 720456.00, dev: 712345.00)
//!          Temperature: 48.83°C (min: 47.00, max: 50.00)
//!          Throttling HW: false, Thermal SW: false, Thermal HW: false
//! Some GPUs are not healthy. Reasons:
//!   - GPU 3 - GPU is not performing as expected. Check the flops values and temperatures
//! ```
//!
//! Kept: each GPU's mean throughput with its extremes (the straggler rule
//! reads them as the tool's own rule does), and hardware throttling during
//! the burn as a finding on the GPU; thermal software throttling alone is a
//! warning (the tool itself tolerates it on request).

use std::io::BufRead;

use super::{Checked, number_in, read_lines};
use crate::ParseContext;
use crate::builder::{ParseResult, RunBuilder};

pub(crate) fn parse<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let lines = read_lines(input, "the gpu-fryer output")?;
    let mut checked = Checked::new("gpu-fryer");
    // Versions before the precision line ran FP32 products.
    let mut dtype: Option<&str> = Some("fp32");
    let mut current: Option<u32> = None;
    let mut reasons: Vec<String> = Vec::new();
    for line in &lines {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Detected GPU #") {
            let (index, rest) = rest.split_once(':').unwrap_or((rest, ""));
            let Ok(index) = index.trim().parse::<u32>() else {
                continue;
            };
            let (name, uuid) = rest.rsplit_once('(').unwrap_or((rest, ""));
            let gpu = checked.gpu(index, name.trim().trim_matches('"'));
            let uuid = uuid.trim().trim_end_matches(')').trim();
            if !uuid.is_empty() {
                gpu.uuid = Some(if uuid.starts_with("GPU-") {
                    uuid.to_string()
                } else {
                    format!("GPU-{uuid}")
                });
            }
        } else if let Some(rest) = t.strip_prefix("Using precision(s):") {
            let named: Vec<&str> = rest.split_whitespace().collect();
            dtype = match named.as_slice() {
                // FP32 products run with TF32 tensor-core maths.
                ["FP32"] => Some("tf32"),
                ["BF16"] => Some("bf16"),
                ["FP8"] => Some("fp8"),
                _ => {
                    b.warn(format!(
                        "gpu-fryer ran {} at once and adds their rates: its throughput is not \
                         held against a datasheet figure",
                        named.join(" and ")
                    ));
                    None
                }
            };
        } else if let Some(rest) = t.strip_prefix("GPU #")
            && let Some((index, rest)) = rest.split_once(':')
            && rest.contains("Gflops/s")
        {
            let Ok(index) = index.trim().parse::<u32>() else {
                continue;
            };
            current = Some(index);
            checked.gpu(index, "");
            let mean = number_in(rest);
            // A GPU that computed nothing was not checked, whatever the
            // tool concludes.
            if mean.is_none_or(|m| m <= 0.0) {
                b.warn(format!(
                    "GPU {index}: gpu-fryer measured no throughput on it (0 Gflops/s): its \
                     verdict is not taken as a check"
                ));
                continue;
            }
            checked.judged(index);
            let spread = |key: &str| rest.split_once(key).and_then(|(_, after)| number_in(after));
            if let (Some(mean), Some(dtype)) = (mean.filter(|m| *m > 0.0), dtype) {
                let min = spread("min:").unwrap_or(mean).min(mean);
                let max = spread("max:").unwrap_or(mean).max(mean);
                if let Some(f) = checked.figure(
                    "gemm",
                    "TFLOP/s",
                    &[min / 1000.0, mean / 1000.0, max / 1000.0],
                ) {
                    // The tool prints a mean over the burn, not its samples.
                    f.median = mean / 1000.0;
                    f.repeats = 1;
                    f.gpu = Some(index);
                    f.dtype = Some(dtype.into());
                }
            }
        } else if let Some(rest) = t.strip_prefix("Throttling HW:")
            && let Some(gpu) = current
        {
            let hw = rest.trim_start().starts_with("true");
            let thermal_hw = rest.contains("Thermal HW: true");
            let thermal_sw = rest.contains("Thermal SW: true");
            if hw || thermal_hw {
                let which = match (hw, thermal_hw) {
                    (true, true) => "HW Slowdown, HW Thermal Slowdown",
                    (true, false) => "HW Slowdown",
                    _ => "HW Thermal Slowdown",
                };
                checked.findings.push((
                    Some(gpu),
                    format!("gpu-fryer: hardware slowdown during the burn ({which})"),
                ));
            } else if thermal_sw {
                b.warn(format!(
                    "GPU {gpu}: gpu-fryer saw thermal software throttling during the burn"
                ));
            }
        } else if let Some(reason) = t.strip_prefix("- GPU ") {
            reasons.push(reason.to_string());
        }
    }
    for reason in reasons {
        b.warn(format!("gpu-fryer: GPU {reason}"));
    }
    checked.finish(ctx, b)
}
