//! The metrics one run gives: startup from its attempts, delivery from its
//! inventory against the offering it was bought as, sustain from its
//! samples and events, switch from its attempts, recovery from its drills,
//! delivered performance from its perf log (`delivered`).

mod sustain;

use super::RunValue;
use super::stages::StageMedians;
use super::sustain::median;
use crate::conformity;
use crate::domain::{ImageState, LoadScenario, Run, StartupAttempt, StartupOutcome};
use crate::error::Result;
use crate::metrics::catalog::keys;
use crate::samples::Field;
use crate::stats::percentile;
use crate::store::Store;

pub(super) fn value(key: &str, value: f64, detail: Option<String>) -> RunValue {
    RunValue::new(key, value, detail)
}

pub fn compute_run(store: &Store, run: &Run) -> Result<Vec<RunValue>> {
    let mut out = Vec::new();
    // Evidence that measures no platform scores nothing.
    if not_evidence(run).is_some() {
        return Ok(out);
    }
    startup(
        &store.startup_attempts(run.id)?,
        &stage_names(run),
        &mut out,
    );
    delivery(run, &mut out);
    network(run, &mut out);
    storage(run, &mut out);
    sustain::sustain_metrics(store, run, &mut out)?;
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
    crate::figures::elapsed(v)
}

/// What the run's source calls the three stages of a start (SkyPilot's
/// provision, setup, execute; dstack's provisioning, pulling, running),
/// else the plain names.
fn stage_names(run: &Run) -> [String; 3] {
    let named = run
        .metadata
        .get(crate::domain::STARTUP_STAGES)
        .and_then(|v| serde_json::from_value::<[String; 3]>(v.clone()).ok());
    named.unwrap_or_else(|| ["provisioned", "image ready", "first compute"].map(String::from))
}

fn startup(attempts: &[StartupAttempt], stages: &[String; 3], out: &mut Vec<RunValue>) {
    if attempts.is_empty() {
        return;
    }
    for (scenario, keys) in [
        (
            LoadScenario::Baseline,
            [keys::STARTUP_BASELINE_P50_S, keys::STARTUP_BASELINE_P95_S],
        ),
        (
            LoadScenario::Peak,
            [keys::STARTUP_PEAK_P50_S, keys::STARTUP_PEAK_P95_S],
        ),
        (LoadScenario::Mixed, [keys::STARTUP_MIXED_P50_S, ""]),
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
        // The stages of the starts that came: a failed one's provisioning
        // (however long before it gave up) is no stage of a start.
        let came: Vec<&StartupAttempt> = ok
            .iter()
            .copied()
            .filter(|a| a.outcome == StartupOutcome::Ok)
            .collect();
        let stages = stage_breakdown(&came, stages);
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
            keys::STARTUP_COLD_IMAGE_PENALTY_S,
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
        keys::STARTUP_FAILURE_RATE_PCT,
        failed as f64,
        attempts.len() as f64,
        Some(format!(
            "{failed} of {} attempts failed or timed out",
            attempts.len()
        )),
    ));
}

/// "; median stages: provisioned 18 min, image ready 3 min 42 s, first compute 20 s"
fn stage_breakdown(attempts: &[&StartupAttempt], names: &[String; 3]) -> String {
    let medians = StageMedians::of(attempts);
    let parts: Vec<String> = [
        (names[0].as_str(), medians.provisioned_s),
        (names[1].as_str(), medians.image_ready_s),
        (names[2].as_str(), medians.first_compute_s),
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
        keys::STARTUP_DELIVERY_MISMATCHES,
        found.len() as f64,
        Some(detail),
    ));
}

/// A stress check's run: the worst GPU's share of loaded seconds at the
/// utilisation floor, and its swing.
pub(super) fn stress(store: &Store, run: &Run, out: &mut Vec<RunValue>) -> Result<()> {
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
            keys::SUSTAIN_STRESS_UTIL_FLOOR_PCT,
            f.at_floor_pct,
            Some(format!(
                "worst GPU {gpu}: {} loaded seconds; {verdict} the seed's check (≥ 95 %, swing ≤ 10 %)",
                f.samples
            )),
        ));
        out.push(value(
            keys::SUSTAIN_STRESS_UTIL_SWING_PCT,
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
        (keys::SUSTAIN_NET_CONNECT_P95_MS, "p95_ms"),
        (keys::SUSTAIN_NET_JITTER_MS, "jitter_ms"),
        (keys::SUSTAIN_NET_LOSS_PCT, "loss_pct"),
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
            keys::SUSTAIN_CHECKPOINT_WRITE_S,
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
            keys::SUSTAIN_DATA_READ_VS_LOCAL_PCT,
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
            keys::SUSTAIN_STORAGE_DRILL,
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
            keys::SWITCH_UPLOAD_MB_S,
            mb_s,
            Some(format!(
                "{} upload(s) through \"{}\"",
                uploads.len(),
                summary.uploads.first().map_or("", |u| u.via.as_str())
            )),
        ));
    }
}

fn switch(attempts: &[crate::domain::SwitchAttempt], out: &mut Vec<RunValue>) {
    if attempts.is_empty() {
        return;
    }
    let n = attempts.len() as f64;
    let ok = attempts.iter().filter(|a| a.success).count();
    out.push(RunValue::pooled(
        keys::SWITCH_SUCCESS_PCT,
        ok as f64,
        n,
        Some(format!("{ok} of {} switches", attempts.len())),
    ));
    let mut steps: Vec<f64> = attempts.iter().map(|a| f64::from(a.manual_steps)).collect();
    if let Some(m) = median(&mut steps) {
        out.push(value(keys::SWITCH_MANUAL_STEPS, m, None));
    }
    let mut durations: Vec<f64> = attempts.iter().map(|a| a.duration_s).collect();
    if let Some(m) = median(&mut durations) {
        out.push(value(keys::SWITCH_DURATION_S, m, None));
    }
    let mut drift: Vec<f64> = attempts.iter().filter_map(|a| a.rel_l2_error).collect();
    let worst = drift.iter().copied().fold(f64::NAN, f64::max);
    if let Some(m) = median(&mut drift) {
        let flagged = drift.iter().filter(|d| **d > 1e-4).count();
        out.push(value(
            keys::SWITCH_DRIFT_REL_L2,
            worst,
            Some(format!(
                "worst of {} switches; median {}{}",
                drift.len(),
                crate::figures::number(m),
                if flagged > 0 {
                    format!("; {flagged} above 0.0001 (flagged: accuracy at risk)")
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
            keys::SWITCH_OP_COVERAGE_PCT,
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
            keys::SWITCH_DRIFT_REL_L2,
            *worst_error,
            Some(format!(
                "worst {worst} of {} operators; median {}{}",
                compared.len(),
                crate::figures::number(m),
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
            keys::SWITCH_OP_COVERAGE_PCT,
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
        keys::SUSTAIN_RESUME_SUCCESS_PCT,
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
            keys::SUSTAIN_RECOVERY_S,
            m,
            Some(format!("median of {} recoveries", times.len())),
        ));
    }
}
