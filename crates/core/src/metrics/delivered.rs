//! Delivered performance of a run that holds a perf log (`accept perf`):
//! each GPU's figures against the card's nominal peaks and its link, the
//! node's stragglers, and each GPU's decay over the timeline (the reading
//! itself is `crate::perf`). A node's value is its worst GPU's, with every
//! GPU's figure kept for the units behind the platform's value.

use super::{GpuValue, RunValue};
use crate::domain::Run;
use crate::metrics::catalog::keys;

/// Delivered performance of a perf log (`metadata.perf`): each GPU's
/// figures against the card's nominal peaks and its link, the node's
/// stragglers, and each GPU's decay over the timeline. A node's value is
/// its worst GPU's, with every GPU's kept.
pub(super) fn values(run: &Run, out: &mut Vec<RunValue>) {
    use crate::perf;
    let Some(log) = run
        .metadata
        .get("perf")
        .and_then(|v| serde_json::from_value::<perf::PerfLog>(v.clone()).ok())
    else {
        return;
    };
    let reading = perf::read(&log, perf::DEFAULT_STRAGGLER_SHARE);
    let span = (
        run.started_at.map_or(0, |t| t.as_millisecond()),
        run.ended_at.map_or(0, |t| t.as_millisecond()),
    );
    let share_of = |test: &dyn Fn(&perf::Figure) -> bool| -> Vec<(u32, f64, String)> {
        reading
            .figures
            .iter()
            .filter(|f| test(f))
            .filter_map(|f| {
                let text = format!(
                    "{} {} {} = {:.0} % of {}",
                    f.test,
                    perf::number(f.median),
                    f.unit,
                    f.share_pct?,
                    f.nominal.as_deref()?
                );
                Some((f.gpu?, f.share_pct?, text))
            })
            .collect()
    };
    let headline: Vec<String> = log
        .gpus
        .iter()
        .filter_map(|g| perf::headline_gemm(&log, g.index).map(|r| r.label()))
        .collect();
    let gemm = share_of(&|f| headline.contains(&f.test));
    worst_gpu(keys::SUSTAIN_GEMM_NOMINAL_PCT, &gemm, false, span, out);
    let copy = share_of(&|f| f.test == "device_copy");
    worst_gpu(keys::SUSTAIN_MEMBW_NOMINAL_PCT, &copy, false, span, out);
    // The slower direction of each GPU's host link.
    let mut link: Vec<(u32, f64, String)> = Vec::new();
    for f in share_of(&|f| f.test == "h2d" || f.test == "d2h") {
        match link.iter_mut().find(|l| l.0 == f.0) {
            Some(l) if f.1 < l.1 => *l = f,
            Some(_) => {}
            None => link.push(f),
        }
    }
    worst_gpu(keys::SUSTAIN_HOST_LINK_PCT, &link, false, span, out);
    let compared = perf::compared_gpus(&log);
    if compared >= 2 {
        let slow = perf::straggler_gpus(&reading.stragglers);
        let detail = match reading.stragglers.first() {
            Some(s) => format!(
                "{} of {compared} GPUs; worst GPU {} on {}: {:.1} % below GPU {}",
                slow.len(),
                s.gpu,
                s.test,
                s.deficit_pct,
                s.best_gpu
            ),
            None => format!("none of {compared} GPUs more than 10 % below the node's best"),
        };
        out.push(RunValue::pooled(
            keys::SUSTAIN_STRAGGLER_PCT,
            slow.len() as f64,
            compared as f64,
            Some(detail),
        ));
    }
    // The fabric: a collective inside the node against NVLink, an RDMA
    // test against its port; the node counts as its worst.
    // All-reduce stands for the collectives where it ran (all-to-all runs
    // below it on healthy fabrics).
    let all_reduce = reading.figures.iter().any(|f| f.test == "all_reduce");
    let fabric = reading
        .figures
        .iter()
        .filter(|f| f.gpu.is_none())
        .filter(|f| {
            !all_reduce
                || f.test == "all_reduce"
                || !crate::perf::COLLECTIVES.contains(&f.test.as_str())
        })
        .filter_map(|f| {
            let share = f.share_pct?;
            let text = format!(
                "{} {} {} = {:.0} % of {}",
                f.test,
                perf::number(f.median),
                f.unit,
                share,
                f.nominal.as_deref()?
            );
            Some((share, text))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((share, text)) = fabric {
        out.push(RunValue::new(
            keys::SUSTAIN_FABRIC_NOMINAL_PCT,
            share,
            Some(text),
        ));
    }
    let decays: Vec<(u32, f64, String)> = reading
        .decays
        .iter()
        .map(|d| {
            let power = match (d.power_early_w, d.power_late_w) {
                (Some(a), Some(b)) => format!(", power {a:.0} → {b:.0} W"),
                _ => String::new(),
            };
            let text = format!(
                "{} {} → {} TFLOP/s ({}{}){power}",
                log.timeline.as_ref().map_or("", |t| t.dtype.as_str()),
                perf::number(d.early),
                perf::number(d.late),
                perf::change(-d.decay_pct),
                d.onset_s
                    .map(|s| format!(", {}", perf::when(s)))
                    .unwrap_or_default()
            );
            (d.gpu, d.decay_pct.max(0.0), text)
        })
        .collect();
    worst_gpu(keys::SUSTAIN_THROUGHPUT_DECAY_PCT, &decays, true, span, out);
}

/// A node's value as its worst GPU's, every GPU's figure kept.
fn worst_gpu(
    key: &str,
    figures: &[(u32, f64, String)],
    higher_is_worse: bool,
    (from_ms, to_ms): (i64, i64),
    out: &mut Vec<RunValue>,
) {
    let worst = figures.iter().max_by(|a, b| {
        let order = a.1.total_cmp(&b.1);
        if higher_is_worse {
            order
        } else {
            order.reverse()
        }
    });
    let Some((gpu, value, text)) = worst else {
        return;
    };
    let detail = if figures.len() > 1 {
        format!("worst of {} GPUs: GPU {gpu}: {text}", figures.len())
    } else {
        format!("GPU {gpu}: {text}")
    };
    let mut v = RunValue::new(key, *value, Some(detail));
    v.gpus = figures
        .iter()
        .map(|(gpu, value, _)| GpuValue {
            gpu: *gpu,
            value: *value,
            from_ms,
            to_ms,
        })
        .collect();
    out.push(v);
}
