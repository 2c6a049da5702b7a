//! A run's sustain values: each GPU's series (or, for a summary run, its
//! windows) analysed, then the figures judged per GPU, the throttle and
//! heat shares, and the interruptions and availability over the GPU-hours
//! the run watched.

use super::{stress, value};
use crate::domain::{EventKind, Run};
use crate::error::Result;
use crate::metrics::RunValue;
use crate::metrics::catalog::keys;
use crate::metrics::energy::{self, GpuEnergy};
use crate::metrics::sustain::{self, GpuSustain};
use crate::samples::windows::GpuWindow;
use crate::store::Store;

pub(super) fn sustain_metrics(store: &Store, run: &Run, out: &mut Vec<RunValue>) -> Result<()> {
    let fields = sustain::FIELDS;
    if run.metadata.get("acceptance").and_then(|v| v.as_str()) == Some("stress") {
        stress(store, run, out)?;
    }
    // One read of each GPU's series serves the sustain figures and the
    // energy the run drew (kept for the GPUs that had none kept: a run
    // from before energy was kept opens at once once it has been ranked).
    let mut energy: Vec<(u32, Option<GpuEnergy>)> = Vec::new();
    let windows = store.windows(run.id)?;
    let gpus: Vec<GpuSustain> = if windows.is_empty() {
        store
            .sample_gpus(run.id)?
            .into_iter()
            .map(|gpu| {
                store
                    .read_samples(run.id, gpu, None, Some(&fields))
                    .map(|f| {
                        energy.push((gpu, energy::gpu_energy(&f)));
                        sustain::analyse(&f)
                    })
            })
            .collect::<Result<_>>()?
    } else {
        // A summary run: its windows stand for its samples.
        let step_ms = i64::from(run.interval_ms.unwrap_or(0));
        let mut by_gpu: std::collections::BTreeMap<u32, Vec<&GpuWindow>> = Default::default();
        for w in &windows {
            by_gpu.entry(w.gpu).or_default().push(w);
        }
        by_gpu
            .into_iter()
            .map(|(gpu, windows)| sustain::from_windows(gpu, &windows, step_ms))
            .collect()
    };
    let kept = store.kept_energy(run.id)?;
    let unkept: Vec<_> = energy
        .iter()
        .filter(|(gpu, _)| !kept.contains_key(gpu))
        .cloned()
        .collect();
    if !unkept.is_empty() {
        energy::keep_integrated(store, run.id, &unkept);
    }
    let energy: Vec<GpuEnergy> = energy.into_iter().filter_map(|(_, e)| e).collect();
    energy::push_run_values(&energy, out);
    if gpus.is_empty() {
        // A log of events alone (a kernel log) that saw the whole machine
        // for its whole period still gives a rate.
        if let Some(gpu_ms) = event_log_exposure_ms(run) {
            interruptions(&store.events(run.id)?, gpu_ms, None, out);
        }
        return Ok(());
    }
    let worst = |f: fn(&GpuSustain) -> Option<f64>| {
        gpus.iter()
            .filter_map(|g| f(g).map(|v| (g.gpu, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    let per_gpu_from = out.len();
    if let Some((gpu, drop)) = worst(|g| g.power_drop_pct) {
        let g = gpus.iter().find(|g| g.gpu == gpu);
        let detail = g.map(|g| {
            format!(
                "worst GPU {gpu}: {:.1} W settled → {:.1} W at the end",
                g.settled_power_w.unwrap_or(f64::NAN),
                g.final_power_w.unwrap_or(f64::NAN)
            )
        });
        out.push(value(keys::SUSTAIN_POWER_DROP_PCT, drop, detail));
    }
    if let Some((gpu, pct)) = worst(|g| g.phantom_pct()) {
        out.push(value(
            keys::SUSTAIN_PHANTOM_UTIL_PCT,
            pct,
            Some(format!("worst GPU {gpu}")),
        ));
    }
    throttle_time(&gpus, out);
    heat(&gpus, out);
    if let Some(plateau) = gpus.iter().filter_map(|g| g.longest_plateau_ms).max() {
        out.push(value(
            keys::SUSTAIN_MEMORY_PLATEAU_H,
            plateau as f64 / 3.6e6,
            None,
        ));
    }
    // Each GPU's own figures, for the platform to judge per GPU and node.
    for v in &mut out[per_gpu_from..] {
        v.gpus = gpus
            .iter()
            .filter_map(|g| {
                Some(crate::metrics::GpuValue {
                    gpu: g.gpu,
                    value: sustain::gpu_figure(g, &v.key)?,
                    from_ms: g.first_ms,
                    to_ms: g.last_ms,
                })
            })
            .collect();
    }
    let events = store.events(run.id)?;
    let (expected_ms, lost_ms) = availability_parts(&gpus, &events);
    interruptions(&events, expected_ms, Some(lost_ms), out);
    if !windows.is_empty() {
        // Where the figures come from, for `explain` and the report: the
        // server's summaries, and the stretches looked at sample by sample.
        let note = crate::samples::windows::WindowSummary::of(run).map_or_else(
            || format!("from {} windows summarised by the server", windows.len()),
            |s| s.note(),
        );
        for v in &mut out[per_gpu_from..] {
            v.detail = Some(match v.detail.take() {
                Some(d) => format!("{d}; {note}"),
                None => note.clone(),
            });
        }
    }
    Ok(())
}

/// Share of working samples with a counted throttle reason, and which
/// reasons were seen.
fn throttle_time(gpus: &[GpuSustain], out: &mut Vec<RunValue>) {
    let working: usize = gpus
        .iter()
        .filter(|g| g.mask_samples > 0)
        .map(|g| g.working_samples)
        .sum();
    if working > 0 {
        let throttled: usize = gpus.iter().map(|g| g.throttled_samples).sum();
        let masked: usize = gpus.iter().map(|g| g.mask_samples).sum();
        let names = [
            "idle",
            "app clocks",
            "SW power cap",
            "HW slowdown",
            "sync boost",
            "SW thermal",
            "HW thermal",
            "power brake",
            "display clock",
        ];
        let reasons: Vec<String> = (0..9)
            .filter_map(|bit| {
                let n: usize = gpus.iter().map(|g| g.reason_samples[bit]).sum();
                (n > 0).then(|| format!("{} {:.1} %", names[bit], 100.0 * n as f64 / masked as f64))
            })
            .collect();
        out.push(value(
            keys::SUSTAIN_THROTTLE_PCT,
            100.0 * throttled as f64 / working as f64,
            Some(if reasons.is_empty() {
                "no reason active".into()
            } else {
                format!("reasons seen: {}", reasons.join(", "))
            }),
        ));
    }
}

/// Time above the throttle temperature, and the hottest reading.
fn heat(gpus: &[GpuSustain], out: &mut Vec<RunValue>) {
    let temps: usize = gpus.iter().map(|g| g.temp_samples).sum();
    if temps > 0 {
        let hot: usize = gpus.iter().map(|g| g.hot_samples).sum();
        out.push(value(
            keys::SUSTAIN_HOT_TIME_PCT,
            100.0 * hot as f64 / temps as f64,
            None,
        ));
        if let Some(max) = gpus.iter().filter_map(|g| g.max_temp_c).max() {
            let hottest = gpus
                .iter()
                .filter(|g| g.max_temp_c == Some(max))
                .map(|g| g.gpu.to_string())
                .collect::<Vec<_>>();
            out.push(value(
                keys::SUSTAIN_MAX_TEMP_C,
                max as f64,
                Some(format!("on GPU {}", hottest.join(", "))),
            ));
        }
    }
}

/// GPU-milliseconds a sample-less run watched: what it says it watched
/// (`WATCHED_GPU_MS`), else its period times the GPUs its log showed the
/// driver taking charge of (`kernel_log.observed_gpus`).
fn event_log_exposure_ms(run: &Run) -> Option<i64> {
    // A record that says what it watched (a managed-jobs table: each job's
    // run time × its GPUs).
    if let Some(watched) = run
        .metadata
        .get(crate::domain::WATCHED_GPU_MS)
        .and_then(serde_json::Value::as_i64)
        .filter(|ms| *ms > 0)
    {
        return Some(watched);
    }
    let gpus = run
        .metadata
        .get("kernel_log")?
        .get("observed_gpus")?
        .as_i64()?;
    let span = run.ended_at?.as_millisecond() - run.started_at?.as_millisecond();
    // An excerpt of a few seconds around a fault is no exposure: one Xid
    // over it would read as thousands per 100 GPU-hours. Its faults count
    // where a sampled run of the node covers them (`faults`).
    (span >= MIN_EVENT_LOG_SPAN_MS && gpus > 0).then(|| span * gpus)
}

/// The shortest kernel log whose own span is taken as the time it watched.
const MIN_EVENT_LOG_SPAN_MS: i64 = 3_600_000;

/// GPU-milliseconds a sampled run's GPUs were expected to deliver, and
/// those they lost. Each GPU is expected from its first sample to the end of
/// the log: a GPU that stops reporting while the others go on was lost for
/// the rest of it (its tail, when longer than three of its steps). Lost time
/// is that tail, the gaps in its samples, and a loss it came back from.
fn availability_parts(gpus: &[GpuSustain], events: &[crate::domain::Event]) -> (i64, i64) {
    let step = |g: &GpuSustain| g.span_ms - (g.last_ms - g.first_ms);
    let end = gpus.iter().map(|g| g.last_ms + step(g)).max().unwrap_or(0);
    let (mut expected, mut lost) = (0i64, 0i64);
    for g in gpus {
        let tail = end - (g.last_ms + step(g));
        let tail = if tail > 3 * step(g) { tail } else { 0 };
        expected += g.span_ms + tail;
        lost += tail;
    }
    for e in events {
        let gpu_last = e
            .gpu
            .and_then(|i| gpus.iter().find(|g| g.gpu == i))
            .map(|g| g.last_ms);
        let duration = e.duration_ms.unwrap_or(0);
        lost += match e.kind {
            EventKind::Gap => duration,
            // A loss the GPU came back from (its samples go on after it);
            // one at its last sample is its tail, counted above.
            EventKind::GpuLost if gpu_last.is_some_and(|last| e.at.as_millisecond() < last) => {
                duration
            }
            _ => 0,
        };
    }
    (expected, lost.min(expected))
}

/// Interruptions per 100 GPU-hours over `expected_ms` GPU-milliseconds, and
/// availability where the run was sampled (`lost_ms` known): only samples
/// show gaps, so a log of events alone says nothing about availability.
/// Both are pooled: a platform adds up every run's counts and exposure.
fn interruptions(
    events: &[crate::domain::Event],
    expected_ms: i64,
    lost_ms: Option<i64>,
    out: &mut Vec<RunValue>,
) {
    if expected_ms <= 0 {
        return;
    }
    let interrupting = events
        .iter()
        .filter(|e| e.counts_against_platform())
        .count();
    let not_counted = events
        .iter()
        .filter(|e| e.interrupts() && !e.counts_against_platform())
        .count();
    let gpu_hours = expected_ms as f64 / 3.6e6;
    let aside = if not_counted > 0 {
        format!(" ({not_counted} application faults not counted)")
    } else {
        String::new()
    };
    // Counted per GPU-hour, pooled as per hundred.
    out.push(RunValue::pooled(
        keys::SUSTAIN_INTERRUPTIONS_PER_100H,
        interrupting as f64,
        gpu_hours,
        Some(format!("{interrupting} in {gpu_hours:.1} GPU-hours{aside}")),
    ));
    let Some(lost_ms) = lost_ms else {
        return;
    };
    out.push(RunValue::pooled(
        keys::SUSTAIN_AVAILABILITY_PCT,
        (expected_ms - lost_ms) as f64,
        expected_ms as f64,
        Some(format!(
            "{:.1} GPU-minutes lost of {gpu_hours:.1} GPU-hours expected",
            lost_ms as f64 / 60_000.0
        )),
    ));
}
