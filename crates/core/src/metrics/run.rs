//! The metrics one run gives: startup from its attempts, delivery from its
//! inventory against the offering it was bought as, sustain from its
//! samples and events, switch from its attempts, recovery from its drills,
//! delivered performance from its perf log (`delivered`).

use super::RunValue;
use super::stages::StageMedians;
use super::sustain::{self, GpuSustain, median};
use crate::conformity;
use crate::domain::{EventKind, ImageState, LoadScenario, Run, StartupAttempt, StartupOutcome};
use crate::error::Result;
use crate::samples::Field;
use crate::samples::windows::GpuWindow;
use crate::stats::percentile;
use crate::store::Store;

fn value(key: &str, value: f64, detail: Option<String>) -> RunValue {
    RunValue::new(key, value, detail)
}

pub fn compute_run(store: &Store, run: &Run) -> Result<Vec<RunValue>> {
    let mut out = Vec::new();
    // Evidence that measures no platform scores nothing.
    if not_evidence(run).is_some() {
        return Ok(out);
    }
    startup(&store.startup_attempts(run.id)?, &mut out);
    delivery(run, &mut out);
    network(run, &mut out);
    storage(run, &mut out);
    sustain_metrics(store, run, &mut out)?;
    switch(&store.switch_attempts(run.id)?, &mut out);
    operator_suite(run, &mut out);
    super::delivered::values(run, &mut out);
    drills(&store.fault_drills(run.id)?, &mut out);
    Ok(out)
}

/// Why a run's evidence measures no platform, if it does not: marked so at
/// import, or a perf log that tests the analysis (runs imported before the
/// mark existed).
pub fn not_evidence(run: &Run) -> Option<String> {
    if let Some(why) = run.measures_nothing() {
        return Some(why.to_string());
    }
    run.metadata
        .get("perf")
        .and_then(crate::perf::Marks::of)
        .and_then(|marks| marks.measures_nothing())
}

fn fmt_s(v: f64) -> String {
    if v >= 120.0 {
        format!("{:.1} min", v / 60.0)
    } else {
        format!("{v:.1} s")
    }
}

fn startup(attempts: &[StartupAttempt], out: &mut Vec<RunValue>) {
    if attempts.is_empty() {
        return;
    }
    for (scenario, keys) in [
        (
            LoadScenario::Baseline,
            ["startup.baseline_p50_s", "startup.baseline_p95_s"],
        ),
        (
            LoadScenario::Peak,
            ["startup.peak_p50_s", "startup.peak_p95_s"],
        ),
        (LoadScenario::Mixed, ["startup.mixed_p50_s", ""]),
    ] {
        // Warm images only: the cold-image penalty is its own metric.
        let ok: Vec<&StartupAttempt> = attempts
            .iter()
            .filter(|a| a.scenario == scenario && a.image == ImageState::Warm)
            .collect();
        let mut latencies: Vec<f64> = ok.iter().filter_map(|a| a.latency_s()).collect();
        latencies.sort_by(f64::total_cmp);
        let Some(p50) = percentile(&latencies, 0.5) else {
            continue;
        };
        let stages = stage_breakdown(&ok);
        out.push(value(
            keys[0],
            p50,
            Some(format!(
                "{} successful warm-image attempts{stages}",
                latencies.len()
            )),
        ));
        if !keys[1].is_empty()
            && let Some(p95) = percentile(&latencies, 0.95)
        {
            out.push(value(
                keys[1],
                p95,
                Some(format!(
                    "{} successful warm-image attempts",
                    latencies.len()
                )),
            ));
        }
    }
    let latency_of = |image: ImageState| {
        let mut v: Vec<f64> = attempts
            .iter()
            .filter(|a| a.image == image)
            .filter_map(|a| a.latency_s())
            .collect();
        median(&mut v)
    };
    if let (Some(cold), Some(warm)) = (latency_of(ImageState::Cold), latency_of(ImageState::Warm)) {
        out.push(value(
            "startup.cold_image_penalty_s",
            (cold - warm).max(0.0),
            Some(format!(
                "cold median {} vs warm {}",
                fmt_s(cold),
                fmt_s(warm)
            )),
        ));
    }
    let failed = attempts
        .iter()
        .filter(|a| a.outcome != StartupOutcome::Ok)
        .count();
    out.push(RunValue::pooled(
        "startup.failure_rate_pct",
        failed as f64,
        attempts.len() as f64,
        Some(format!(
            "{failed} of {} attempts failed or timed out",
            attempts.len()
        )),
    ));
}

/// "; median stages: provisioned 18.0 min, image ready 3.7 min, first compute 20.0 s"
fn stage_breakdown(attempts: &[&StartupAttempt]) -> String {
    let medians = StageMedians::of(attempts);
    let parts: Vec<String> = [
        ("provisioned", medians.provisioned_s),
        ("image ready", medians.image_ready_s),
        ("first compute", medians.first_compute_s),
    ]
    .into_iter()
    .filter_map(|(stage, s)| Some(format!("{stage} {}", fmt_s(s?))))
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; median stages: {}", parts.join(", "))
    }
}

fn delivery(run: &Run, out: &mut Vec<RunValue>) {
    let Some(found) = conformity::problems(run) else {
        return;
    };
    let detail = if found.is_empty() {
        match &run.offering_snapshot {
            Some(offering) if !run.inventory.is_empty() => format!(
                "{} GPUs as ordered ({})",
                run.inventory.len(),
                offering.accelerator.canonical
            ),
            _ => "setup checks passed (dcgmi diag)".to_string(),
        }
    } else {
        found
            .iter()
            .map(|m| match m.what {
                "setup" => m.found.clone(),
                _ => format!("{} for {}", m.found, m.expected),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    out.push(value(
        "startup.delivery_mismatches",
        found.len() as f64,
        Some(detail),
    ));
}

/// A stress check's run: the worst GPU's share of loaded seconds at the
/// utilisation floor, and its swing.
fn stress(store: &Store, run: &Run, out: &mut Vec<RunValue>) -> Result<()> {
    let mut worst: Option<(u32, super::stress::StressFigures)> = None;
    for gpu in store.sample_gpus(run.id)? {
        let frame = store.read_samples(run.id, gpu, None, Some(&[Field::UtilGpuPct]))?;
        if let Some(f) = super::stress::judge(&frame) {
            let worse = worst.is_none_or(|(_, w)| {
                (f.at_floor_pct, -f.swing_pct) < (w.at_floor_pct, -w.swing_pct)
            });
            if worse {
                worst = Some((gpu, f));
            }
        }
    }
    if let Some((gpu, f)) = worst {
        let verdict = if f.passed() { "passes" } else { "fails" };
        out.push(value(
            "sustain.stress_util_floor_pct",
            f.at_floor_pct,
            Some(format!(
                "worst GPU {gpu}: {} loaded seconds; {verdict} the seed's check (≥ 95 %, swing ≤ 10 %)",
                f.samples
            )),
        ));
        out.push(value(
            "sustain.stress_util_swing_pct",
            f.swing_pct,
            Some(format!(
                "worst GPU {gpu}: p95 − p5 of SM utilisation under load"
            )),
        ));
    }
    Ok(())
}

/// Connect time, jitter and loss of the worst endpoint a network log
/// measured (`metadata.network`, per target).
fn network(run: &Run, out: &mut Vec<RunValue>) {
    let Some(targets) = run.metadata.get("network").and_then(|v| v.as_array()) else {
        return;
    };
    let figure = |t: &serde_json::Value, key: &str| t.get(key).and_then(serde_json::Value::as_f64);
    let name = |t: &serde_json::Value| {
        t.get("target")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string()
    };
    for (key, field) in [
        ("sustain.net_connect_p95_ms", "p95_ms"),
        ("sustain.net_jitter_ms", "jitter_ms"),
        ("sustain.net_loss_pct", "loss_pct"),
    ] {
        if let Some((target, worst)) = targets
            .iter()
            .filter_map(|t| figure(t, field).map(|v| (name(t), v)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        {
            out.push(value(key, worst, Some(format!("worst endpoint {target}"))));
        }
    }
}

/// The data path from a storage log (`metadata.storage`): the slowest data
/// location's checkpoint time and its reads against the local SSD, the
/// escape-hatch drill, the upload rate.
fn storage(run: &Run, out: &mut Vec<RunValue>) {
    use crate::import::formats::storage_log::{Role, StorageSummary};
    let Some(summary) = run
        .metadata
        .get("storage")
        .and_then(|v| serde_json::from_value::<StorageSummary>(v.clone()).ok())
    else {
        return;
    };
    let of = |role: Role| summary.locations.iter().filter(move |l| l.role == role);
    let slowest =
        |figure: &dyn Fn(&crate::import::formats::storage_log::LocationFigures) -> Option<f64>| {
            let data = of(Role::Data)
                .filter_map(|l| figure(l).map(|v| (l, v)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            data.or_else(|| {
                of(Role::Local)
                    .filter_map(|l| figure(l).map(|v| (l, v)))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
            })
        };
    if let Some((l, mb_s)) = slowest(&|l| l.write_mb_s()) {
        out.push(value(
            "sustain.checkpoint_write_s",
            20e9 / 1e6 / mb_s,
            Some(format!(
                "{}: {} written and synced in {:.1} s ({mb_s:.0} MB/s{})",
                l.path,
                crate::sizes::size_words(l.bytes as f64),
                l.write_s,
                if l.direct { ", direct I/O" } else { "" }
            )),
        ));
    }
    let data_read = of(Role::Data)
        .filter_map(|l| l.read_mb_s().map(|v| (l, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let local_read = of(Role::Local)
        .filter_map(|l| l.read_mb_s().map(|v| (l, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some((d, data)), Some((l, local))) = (data_read, local_read) {
        out.push(value(
            "sustain.data_read_vs_local_pct",
            100.0 * data / local,
            Some(format!(
                "{} reads {data:.0} MB/s, {} {local:.0} MB/s",
                d.path, l.path
            )),
        ));
    }
    // The worst drill that ran: one failure is what a buyer meets.
    if let Some((drill, score)) = summary
        .drills
        .iter()
        .filter_map(|d| d.outcome.score().map(|s| (d, s)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
    {
        out.push(value(
            "sustain.storage_drill",
            score,
            Some(format!(
                "{} cut for {:.0} s: {} ({})",
                drill.path,
                drill.cut_s,
                drill.outcome.as_str(),
                drill.detail
            )),
        ));
    }
    let mut uploads: Vec<f64> = summary.uploads.iter().filter_map(|u| u.mb_s()).collect();
    uploads.sort_by(f64::total_cmp);
    if let Some(mb_s) = percentile(&uploads, 0.5) {
        out.push(value(
            "switch.upload_mb_s",
            mb_s,
            Some(format!(
                "{} upload(s) through \"{}\"",
                uploads.len(),
                summary.uploads.first().map_or("", |u| u.via.as_str())
            )),
        ));
    }
}

fn sustain_metrics(store: &Store, run: &Run, out: &mut Vec<RunValue>) -> Result<()> {
    let fields = sustain::FIELDS;
    if run.metadata.get("acceptance").and_then(|v| v.as_str()) == Some("stress") {
        stress(store, run, out)?;
    }
    // One read of each GPU's series serves the sustain figures and the
    // energy the run drew.
    let mut energy: Vec<super::energy::GpuEnergy> = Vec::new();
    let windows = store.windows(run.id)?;
    let gpus: Vec<GpuSustain> = if windows.is_empty() {
        store
            .sample_gpus(run.id)?
            .into_iter()
            .map(|gpu| {
                store
                    .read_samples(run.id, gpu, None, Some(&fields))
                    .map(|f| {
                        energy.extend(super::energy::gpu_energy(&f));
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
    super::energy::push_run_values(&energy, out);
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
        out.push(value("sustain.power_drop_pct", drop, detail));
    }
    if let Some((gpu, pct)) = worst(|g| g.phantom_pct()) {
        out.push(value(
            "sustain.phantom_util_pct",
            pct,
            Some(format!("worst GPU {gpu}")),
        ));
    }
    throttle_time(&gpus, out);
    heat(&gpus, out);
    if let Some(plateau) = gpus.iter().filter_map(|g| g.longest_plateau_ms).max() {
        out.push(value(
            "sustain.memory_plateau_h",
            plateau as f64 / 3.6e6,
            None,
        ));
    }
    // Each GPU's own figures, for the platform to judge per GPU and node.
    for v in &mut out[per_gpu_from..] {
        v.gpus = gpus
            .iter()
            .filter_map(|g| {
                Some(super::GpuValue {
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
            "sustain.throttle_pct",
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
            "sustain.hot_time_pct",
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
                "sustain.max_temp_c",
                max as f64,
                Some(format!("on GPU {}", hottest.join(", "))),
            ));
        }
    }
}

/// GPU-milliseconds a sample-less run watched: its period times the GPUs
/// its log showed the driver taking charge of (`kernel_log.observed_gpus`).
fn event_log_exposure_ms(run: &Run) -> Option<i64> {
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
        "sustain.interruptions_per_100h",
        interrupting as f64,
        gpu_hours,
        Some(format!("{interrupting} in {gpu_hours:.1} GPU-hours{aside}")),
    ));
    let Some(lost_ms) = lost_ms else {
        return;
    };
    out.push(RunValue::pooled(
        "sustain.availability_pct",
        (expected_ms - lost_ms) as f64,
        expected_ms as f64,
        Some(format!(
            "{:.1} GPU-minutes lost of {gpu_hours:.1} GPU-hours expected",
            lost_ms as f64 / 60_000.0
        )),
    ));
}

fn switch(attempts: &[crate::domain::SwitchAttempt], out: &mut Vec<RunValue>) {
    if attempts.is_empty() {
        return;
    }
    let n = attempts.len() as f64;
    let ok = attempts.iter().filter(|a| a.success).count();
    out.push(RunValue::pooled(
        "switch.success_pct",
        ok as f64,
        n,
        Some(format!("{ok} of {} switches", attempts.len())),
    ));
    let mut steps: Vec<f64> = attempts.iter().map(|a| f64::from(a.manual_steps)).collect();
    if let Some(m) = median(&mut steps) {
        out.push(value("switch.manual_steps", m, None));
    }
    let mut durations: Vec<f64> = attempts.iter().map(|a| a.duration_s).collect();
    if let Some(m) = median(&mut durations) {
        out.push(value("switch.duration_s", m, None));
    }
    let mut drift: Vec<f64> = attempts.iter().filter_map(|a| a.rel_l2_error).collect();
    let worst = drift.iter().copied().fold(f64::NAN, f64::max);
    if let Some(m) = median(&mut drift) {
        let flagged = drift.iter().filter(|d| **d > 1e-4).count();
        out.push(value(
            "switch.drift_rel_l2",
            worst,
            Some(format!(
                "worst of {} switches; median {m:.1e}{}",
                drift.len(),
                if flagged > 0 {
                    format!("; {flagged} above 1e-4 (flagged: accuracy at risk)")
                } else {
                    String::new()
                }
            )),
        ));
    }
    let (passed, total) = attempts
        .iter()
        .filter_map(|a| Some((a.ops_passed?, a.ops_total?)))
        .fold((0u64, 0u64), |(p, t), (a, b)| {
            (p + u64::from(a), t + u64::from(b))
        });
    if total > 0 {
        out.push(RunValue::pooled(
            "switch.op_coverage_pct",
            passed as f64,
            total as f64,
            Some(format!("{passed} of {total} operators")),
        ));
    }
}

/// Numeric drift and operator coverage of a drift log (`metadata.operators`,
/// one entry per operator of the reference suite): the median relative L2
/// error over the operators compared, and the share that passed.
fn operator_suite(run: &Run, out: &mut Vec<RunValue>) {
    let Some(operators) = run.metadata.get("operators").and_then(|v| v.as_array()) else {
        return;
    };
    fn name(o: &serde_json::Value) -> &str {
        o.get("operator").and_then(|v| v.as_str()).unwrap_or("?")
    }
    let tolerance = run
        .metadata
        .get("drift")
        .and_then(|d| d.get("tolerance"))
        .and_then(serde_json::Value::as_f64);
    let compared: Vec<(&str, f64)> = operators
        .iter()
        .filter_map(|o| Some((name(o), o.get("rel_l2")?.as_f64()?)))
        .collect();
    // Judged by the worst operator: a model that uses it meets its error,
    // however well the others match. The median stays as a detail, and the
    // share failing is the operator coverage.
    let mut errors: Vec<f64> = compared.iter().map(|(_, e)| *e).collect();
    if let (Some(m), Some((worst, worst_error))) = (
        median(&mut errors),
        compared.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
    ) {
        let above = tolerance.map_or(0, |t| compared.iter().filter(|(_, e)| *e > t).count());
        out.push(value(
            "switch.drift_rel_l2",
            *worst_error,
            Some(format!(
                "worst {worst} of {} operators; median {m:.1e}{}",
                compared.len(),
                if above > 0 {
                    format!("; {above} above the tolerance")
                } else {
                    String::new()
                }
            )),
        ));
    }
    let passed = operators
        .iter()
        .filter(|o| o.get("passed").and_then(|v| v.as_bool()) == Some(true))
        .count();
    if !operators.is_empty() {
        let failed: Vec<&str> = operators
            .iter()
            .filter(|o| o.get("passed").and_then(|v| v.as_bool()) != Some(true))
            .map(name)
            .collect();
        out.push(RunValue::pooled(
            "switch.op_coverage_pct",
            passed as f64,
            operators.len() as f64,
            Some(format!(
                "{passed} of {} operators{}",
                operators.len(),
                if failed.is_empty() {
                    String::new()
                } else {
                    format!("; failed: {}", failed.join(", "))
                }
            )),
        ));
    }
}

fn drills(drills: &[crate::domain::FaultDrill], out: &mut Vec<RunValue>) {
    if drills.is_empty() {
        return;
    }
    let recovered = drills.iter().filter(|d| d.recovered).count();
    out.push(RunValue::pooled(
        "sustain.resume_success_pct",
        recovered as f64,
        drills.len() as f64,
        Some(format!("{recovered} of {} drills recovered", drills.len())),
    ));
    let mut times: Vec<f64> = drills
        .iter()
        .filter(|d| d.recovered)
        .filter_map(|d| d.recovery_s)
        .collect();
    if let Some(m) = median(&mut times) {
        out.push(value(
            "sustain.recovery_s",
            m,
            Some(format!("median of {} recoveries", times.len())),
        ));
    }
}
