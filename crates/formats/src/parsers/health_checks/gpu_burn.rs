//! gpu-burn (wilicc/gpu-burn): matrix products on every GPU at once, each
//! result compared with the first, for as long as asked.
//!
//! ```text
//! GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0f3c…)
//! Initialized device 0 with 81051 MB of memory (80630 MB available, using 72567 MB of it), using FLOATS
//! 10.0%  proc'd: 1340 (18234 Gflop/s) - 1072 (18010 Gflop/s)   errors: 0 - 0   temps: 55 C - 54 C
//!         Summary at:   Mon Dec  7 10:00:10 UTC 2026
//! Tested 2 GPUs:
//!         GPU 0: OK
//!         GPU 1: FAULTY
//! ```
//!
//! The progress line rewrites itself with carriage returns, so a saved log
//! holds hundreds of updates on one line. Kept: each GPU's throughput over
//! the updates (its median, the first tenth of the run left out while the
//! clocks ramp), the verdict on every GPU (FAULTY: its products disagreed;
//! DIED, NO RESULTS), and the dates of the summaries.

use std::io::BufRead;

use super::{Checked, number_in, read_lines};
use crate::ParseContext;
use crate::builder::{ParseResult, RunBuilder};

pub(crate) fn parse<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let lines = read_lines(input, "the gpu-burn output")?;
    let mut checked = Checked::new("gpu-burn");
    let mut dtype = "fp32";
    // Per GPU (by position on the progress line): its updates' Gflop/s
    // and the most errors any update showed.
    let mut rates: Vec<Vec<f64>> = Vec::new();
    let mut errors: Vec<u64> = Vec::new();
    let mut verdicts: Vec<(u32, String)> = Vec::new();
    let mut in_verdicts = false;
    let mut summary_next = false;
    for line in &lines {
        let t = line.trim();
        if summary_next {
            summary_next = false;
            if let Some(at) = ctx.times.parse_date_line(t) {
                checked.times.push(at);
                continue;
            }
        }
        if let Some(rest) = t.strip_prefix("Summary at:") {
            match ctx.times.parse_date_line(rest.trim()) {
                Some(at) => checked.times.push(at),
                // `date` printed on the next line.
                None => summary_next = true,
            }
        } else if let Some((index, name, uuid)) = smi_list_line(t) {
            let gpu = checked.gpu(index, &name);
            gpu.uuid = Some(uuid);
        } else if let Some((_, rest)) = t.split_once("Initialized device") {
            if rest.contains("DOUBLES") {
                dtype = "fp64";
            } else if rest.contains("Tensor Cores") {
                dtype = "tf32";
            }
            if let Some(index) = number_in(rest) {
                checked.gpu(index as u32, "");
            }
        } else if let Some(progress) = progress_line(t) {
            for (i, (rate, errs)) in progress.into_iter().enumerate() {
                if rates.len() <= i {
                    rates.resize(i + 1, Vec::new());
                    errors.resize(i + 1, 0);
                }
                if let Some(rate) = rate.filter(|r| *r > 0.0) {
                    rates[i].push(rate);
                }
                errors[i] = errors[i].max(errs);
            }
        } else if t.starts_with("Tested") && t.ends_with("GPUs:") {
            in_verdicts = true;
        } else if in_verdicts && let Some((gpu, verdict)) = verdict_line(t) {
            verdicts.push((gpu, verdict));
        }
    }
    let gpu_count = rates.len().max(verdicts.len());
    for (i, updates) in rates.iter().enumerate() {
        // The first tenth of the updates ramps up: left out where there
        // are enough to spare it.
        let settled = if updates.len() >= 10 {
            &updates[updates.len() / 10..]
        } else {
            &updates[..]
        };
        let tflops: Vec<f64> = settled.iter().map(|g| g / 1000.0).collect();
        let gpu = i as u32;
        checked.gpu(gpu, "");
        if let Some(f) = checked.figure("gemm", "TFLOP/s", &tflops) {
            f.gpu = Some(gpu);
            f.dtype = Some(dtype.into());
        }
    }
    for (gpu, verdict) in &verdicts {
        // An OK over a burn that computed nothing (its test failed to
        // start) checked nothing.
        let computed = rates.get(*gpu as usize).is_some_and(|r| !r.is_empty());
        if verdict == "OK" && !computed {
            b.warn(format!(
                "GPU {gpu}: gpu-burn computed nothing on it (0 Gflop/s throughout): its OK is not \
                 taken as a check"
            ));
            continue;
        }
        checked.judged(*gpu);
        let errs = errors.get(*gpu as usize).copied().unwrap_or(0);
        let what = match verdict.as_str() {
            "OK" => continue,
            "FAULTY" if errs > 0 => {
                format!("gpu-burn: FAULTY ({errs} of its matrix products disagreed with the first)")
            }
            "FAULTY" => "gpu-burn: FAULTY (its matrix products disagreed with the first)".into(),
            "DIED" => "gpu-burn: its process died during the burn".into(),
            other => format!("gpu-burn: {other}"),
        };
        checked.findings.push((Some(*gpu), what));
    }
    if verdicts.is_empty() {
        // Cut off before the verdict: errors seen on the way still count.
        for (gpu, errs) in errors.iter().enumerate().filter(|(_, e)| **e > 0) {
            checked.findings.push((
                Some(gpu as u32),
                format!("gpu-burn: {errs} computation errors before the output stops"),
            ));
        }
        if gpu_count > 0 {
            b.warn(
                "the output stops before gpu-burn's verdict (\"Tested N GPUs\"): its throughput \
                 is kept, no GPU is judged healthy",
            );
        }
    }
    // nvidia-smi -L lists GPUs a burn on one device (-i) did not use.
    if !verdicts.is_empty() || gpu_count > 0 {
        let used: Vec<u32> = (0..gpu_count as u32).collect();
        checked.gpus.retain(|g| used.contains(&g.index));
    }
    checked.finish(ctx, b)
}

/// `GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0f3c…)`, the listing gpu-burn
/// prints first.
fn smi_list_line(line: &str) -> Option<(u32, String, String)> {
    let rest = line.strip_prefix("GPU ")?;
    let (index, rest) = rest.split_once(':')?;
    let index: u32 = index.trim().parse().ok()?;
    let (name, uuid) = rest.split_once("(UUID:")?;
    let uuid = uuid.trim().trim_end_matches(')').trim().to_string();
    Some((index, name.trim().to_string(), uuid))
}

/// `GPU 1: FAULTY` under "Tested N GPUs:".
fn verdict_line(line: &str) -> Option<(u32, String)> {
    let (gpu, verdict) = line.strip_prefix("GPU ")?.split_once(':')?;
    let verdict = verdict.trim();
    matches!(verdict, "OK" | "FAULTY" | "DIED" | "NO RESULTS")
        .then(|| Some((gpu.trim().parse().ok()?, verdict.to_string())))
        .flatten()
}

/// One progress update: per GPU, its Gflop/s (none while it starts) and
/// its errors.
fn progress_line(line: &str) -> Option<Vec<(Option<f64>, u64)>> {
    let (_, rest) = line.split_once("proc'd:")?;
    let (procd, rest) = rest.split_once("errors:").unwrap_or((rest, ""));
    let errs = rest.split("temps:").next().unwrap_or("");
    let rates: Vec<Option<f64>> = procd
        .split(" - ")
        .map(|part| {
            let (_, after) = part.split_once('(')?;
            number_in(after.split("Gflop").next()?)
        })
        .collect();
    let errors: Vec<u64> = errs
        .split(" - ")
        .map(|part| number_in(part).map_or(0, |v| v as u64))
        .collect();
    Some(
        rates
            .into_iter()
            .enumerate()
            .map(|(i, r)| (r, errors.get(i).copied().unwrap_or(0)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_update_gives_each_gpu_its_rate_and_errors() {
        let p = progress_line(
            "10.0%  proc'd: 1340 (18234 Gflop/s) - 1072 (18010 Gflop/s)   errors: 0 - 3  (WARNING!)  temps: 55 C - 54 C ",
        )
        .unwrap();
        assert_eq!(p, vec![(Some(18234.0), 0), (Some(18010.0), 3)]);
        assert_eq!(
            verdict_line("GPU 3: NO RESULTS"),
            Some((3, "NO RESULTS".into()))
        );
        assert_eq!(verdict_line("GPU 0: NVIDIA A100 (UUID: GPU-1)"), None);
    }
}
