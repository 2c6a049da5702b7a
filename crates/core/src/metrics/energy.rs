//! Energy from power samples (the four-breakpoint review, §6.3: energy and carbon per job are
//! what buyers will be asked for next): the energy each run's GPUs drew,
//! and a platform's power while working and while waiting, from which the
//! energy of a workload (the reference job) is estimated.
//!
//! How a GPU's power is integrated (gaps left out, working and waiting
//! told apart) is the model's rule (`samples::energy`): the same whether
//! the samples are read back here or tallied as an import wrote them. Only
//! GPU board power is measured; the facility's share comes from a PUE and
//! the carbon from a grid intensity, both estimates (`EnergyFactors`),
//! never measurements.

use serde::Serialize;

use crate::billing_sim::{Phase, Workload};
use crate::domain::Run;
use crate::error::Result;
use crate::samples::energy::{GAP_STEPS, PowerTally, integrate, tallied_energy};
use crate::samples::steps::StepTally;
use crate::samples::{Field, SeriesFrame};
use crate::store::Store;

pub use crate::samples::energy::GpuEnergy;

/// What a run's GPUs drew.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunEnergy {
    pub gpus: Vec<GpuEnergy>,
    pub kwh: f64,
    /// GPU-hours covered.
    pub gpu_hours: f64,
}

impl RunEnergy {
    /// "0.500 kWh over 2.00 GPU-hours sampled, mean 250 W per GPU": the same
    /// words in every face.
    pub fn summary(&self) -> String {
        let mean_w = if self.gpu_hours > 0.0 {
            self.kwh * 1000.0 / self.gpu_hours
        } else {
            0.0
        };
        format!(
            "{:.3} kWh over {:.2} GPU-hours sampled, mean {mean_w:.0} W per GPU",
            self.kwh, self.gpu_hours
        )
    }
}

/// A GPU's energy from its frame; `None` without two power samples.
pub fn gpu_energy(frame: &SeriesFrame) -> Option<GpuEnergy> {
    let power = frame.column(Field::PowerMw)?;
    let util = frame.column(Field::UtilGpuPct);
    let longest = frame.median_step_ms()?.saturating_mul(GAP_STEPS);
    integrate(
        &frame.t_ms,
        |i| power.get(i),
        |i| util.and_then(|c| c.get(i)),
        longest,
    )
    .energy(frame.gpu)
}

/// The energy of a run's GPUs; `None` when no GPU sampled power.
///
/// Each GPU's figure is kept beside its samples: the import that wrote
/// them tallied it as it went (`SampleWriter`), so opening a run of
/// millions of samples reads none of them. A GPU without one (a run from
/// before figures were kept, one that arrived in a workspace bundle, samples
/// added later) is integrated from its samples once, and kept.
pub fn run_energy(store: &Store, run: &Run) -> Result<Option<RunEnergy>> {
    let mut kept = store.kept_energy(run.id)?;
    let missing: Vec<u32> = store
        .sample_gpus(run.id)?
        .into_iter()
        .filter(|gpu| !kept.contains_key(gpu))
        .collect();
    if !missing.is_empty() {
        let computed = integrate_stored(store, run.id, &missing)?;
        keep_integrated(store, run.id, &computed);
        kept.extend(computed);
    }
    let gpus: Vec<GpuEnergy> = kept.into_values().flatten().collect();
    if gpus.is_empty() {
        return Ok(None);
    }
    Ok(Some(RunEnergy {
        kwh: gpus.iter().map(|g| g.kwh).sum(),
        gpu_hours: gpus.iter().map(|g| g.hours).sum(),
        gpus,
    }))
}

/// `gpus`' energy from their stored samples, streamed piece by piece
/// through the tallies an import keeps as it writes (`tallied_energy`): no
/// GPU's whole series is held, and the GPUs are folded side by side on the
/// machine's cores. A GPU whose tallies cannot tell (its samples stored out
/// of order) is read whole and integrated.
fn integrate_stored(
    store: &Store,
    run_id: i64,
    gpus: &[u32],
) -> Result<Vec<(u32, Option<GpuEnergy>)>> {
    const FIELDS: [Field; 2] = [Field::PowerMw, Field::UtilGpuPct];
    let tallied = store.fold_samples(
        run_id,
        Some(gpus),
        i64::MIN..i64::MAX,
        Some(&FIELDS),
        |_| (StepTally::default(), PowerTally::default()),
        |(steps, power), piece| {
            steps.extend(piece.t_ms.iter().copied());
            let (mw, util) = (
                piece.column(Field::PowerMw),
                piece.column(Field::UtilGpuPct),
            );
            for (i, t) in piece.t_ms.iter().enumerate() {
                power.push(*t, mw.and_then(|c| c.get(i)), util.and_then(|c| c.get(i)));
            }
        },
    )?;
    let mut energies = Vec::with_capacity(gpus.len());
    let mut untold = Vec::new();
    for (gpu, (steps, power)) in tallied {
        match tallied_energy(&steps, &power, gpu) {
            Some(energy) => energies.push((gpu, energy)),
            None => untold.push(gpu),
        }
    }
    if !untold.is_empty() {
        let read = store.per_gpu(run_id, &untold, Some(&FIELDS), |frame| gpu_energy(&frame))?;
        energies.extend(untold.into_iter().zip(read));
        energies.sort_by_key(|(gpu, _)| *gpu);
    }
    Ok(energies)
}

/// Keep what was integrated from a run's samples, where the workspace can
/// be written to at once: it only saves the next reader the work, and must
/// never make this one wait for another process's import.
pub(crate) fn keep_integrated(store: &Store, run_id: i64, integrated: &[(u32, Option<GpuEnergy>)]) {
    store.write_if_free(|store| {
        for (gpu, energy) in integrated {
            store.keep_energy(run_id, *gpu, energy.as_ref())?;
        }
        Ok(())
    });
}

/// Keys of the energy figures kept with a run's cached metrics (not
/// metrics themselves: nothing scores them).
pub const RUN_KWH: &str = "energy.kwh";
pub const RUN_GPU_HOURS: &str = "energy.gpu_hours";
pub const RUN_WORKING_W: &str = "energy.working_w";
pub const RUN_WAITING_W: &str = "energy.waiting_w";

/// A run's energy figures among its cached values: what a platform's power
/// profile is made of, so that pricing a workload never reads samples again.
/// Each figure carries every GPU's own (in `gpus`).
pub(crate) fn push_run_values(gpus: &[GpuEnergy], out: &mut Vec<super::RunValue>) {
    if gpus.is_empty() {
        return;
    }
    let value = |key: &str, value: f64, each: &dyn Fn(&GpuEnergy) -> Option<f64>| {
        let mut v = super::RunValue::new(key, value, None);
        v.gpus = gpus
            .iter()
            .filter_map(|g| {
                each(g).map(|value| super::GpuValue {
                    gpu: g.gpu,
                    value,
                    from_ms: 0,
                    to_ms: 0,
                })
            })
            .collect();
        v
    };
    out.push(value(RUN_KWH, gpus.iter().map(|g| g.kwh).sum(), &|g| {
        Some(g.kwh)
    }));
    out.push(value(
        RUN_GPU_HOURS,
        gpus.iter().map(|g| g.hours).sum(),
        &|g| Some(g.hours),
    ));
    let mut working: Vec<f64> = gpus.iter().filter_map(|g| g.working_w).collect();
    if let Some(w) = super::sustain::median(&mut working) {
        out.push(value(RUN_WORKING_W, w, &|g| g.working_w));
    }
    let mut waiting: Vec<f64> = gpus.iter().filter_map(|g| g.waiting_w).collect();
    if let Some(w) = super::sustain::median(&mut waiting) {
        out.push(value(RUN_WAITING_W, w, &|g| g.waiting_w));
    }
}

/// A platform's measured power per GPU: the median over its runs of each
/// run's median GPU power while working and while waiting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerProfile {
    pub working_w: f64,
    /// Absent when no run saw its GPUs wait; a workload's waiting time is
    /// then costed at the working power (an upper bound, said as such).
    pub waiting_w: Option<f64>,
    pub runs: Vec<i64>,
}

/// Read from the runs' cached figures (computed once per run, with its
/// metrics): the cost grows with the runs, not with their samples.
pub fn power_profile(store: &Store, runs: &[Run]) -> Result<Option<PowerProfile>> {
    let (mut working, mut waiting, mut used) = (Vec::new(), Vec::new(), Vec::new());
    for (run, values) in super::cached_values(store, runs)? {
        let get = |key: &str| values.iter().find(|v| v.key == key).map(|v| v.value);
        if let Some(w) = get(RUN_WORKING_W) {
            working.push(w);
            used.push(run);
        }
        waiting.extend(get(RUN_WAITING_W));
    }
    let Some(working_w) = super::sustain::median(&mut working) else {
        return Ok(None);
    };
    Ok(Some(PowerProfile {
        working_w,
        waiting_w: super::sustain::median(&mut waiting),
        runs: used,
    }))
}

/// The facility's overhead and the grid's carbon: estimates the user sets
/// per platform, with documented defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergyFactors {
    /// Power usage effectiveness: facility energy / IT energy.
    pub pue: f64,
    /// Grid carbon intensity, grams of CO₂ per kWh.
    pub grid_g_per_kwh: f64,
    /// Set for this platform, or the defaults.
    pub set: bool,
}

/// The Uptime Institute's Global Data Center Survey 2023: average annual
/// PUE 1.58 over the data centres it surveyed.
pub const DEFAULT_PUE: f64 = 1.58;
/// China's national grid average emission factor, 0.5703 tCO₂/MWh, as the
/// Ministry of Ecology and Environment published it for 2022 (the platforms
/// in the seeds are Chinese clouds).
pub const DEFAULT_GRID_G_PER_KWH: f64 = 570.3;

impl EnergyFactors {
    /// The platform's, or the defaults.
    pub fn of_platform(store: &Store, platform_id: i64) -> Result<Self> {
        Ok(match store.energy_factors(platform_id)? {
            Some((pue, grid_g_per_kwh)) => EnergyFactors {
                pue,
                grid_g_per_kwh,
                set: true,
            },
            None => EnergyFactors::default(),
        })
    }
}

impl Default for EnergyFactors {
    fn default() -> Self {
        EnergyFactors {
            pue: DEFAULT_PUE,
            grid_g_per_kwh: DEFAULT_GRID_G_PER_KWH,
            set: false,
        }
    }
}

/// A workload's energy on a platform: GPU energy from the measured power,
/// facility energy and carbon from the factors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadEnergy {
    pub gpu_kwh: f64,
    pub facility_kwh: f64,
    pub co2_kg: f64,
    pub factors: EnergyFactors,
    /// Waiting time costed at working power (no waiting power measured).
    pub waiting_at_working_power: bool,
}

/// Computing at working power, loading and idling at waiting power; queued
/// time holds no GPU.
pub fn workload_energy(
    workload: &Workload,
    power: &PowerProfile,
    factors: EnergyFactors,
) -> WorkloadEnergy {
    let waiting_w = power.waiting_w.unwrap_or(power.working_w);
    let joules: f64 = workload
        .sessions
        .iter()
        .flat_map(|s| &s.segments)
        .map(|seg| {
            seg.seconds
                * match seg.phase {
                    Phase::Compute => power.working_w,
                    Phase::IoWait | Phase::Idle => waiting_w,
                    Phase::Queue => 0.0,
                }
        })
        .sum::<f64>()
        * f64::from(workload.gpus);
    let gpu_kwh = joules / 3.6e6;
    let facility_kwh = gpu_kwh * factors.pue;
    WorkloadEnergy {
        gpu_kwh,
        facility_kwh,
        co2_kg: facility_kwh * factors.grid_g_per_kwh / 1000.0,
        factors,
        waiting_at_working_power: power.waiting_w.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Sample;

    fn frame(points: &[(i64, i64, i64)]) -> SeriesFrame {
        let samples: Vec<Sample> = points
            .iter()
            .map(|(t, mw, util)| {
                Sample::new(*t, 0)
                    .with(Field::PowerMw, *mw)
                    .with(Field::UtilGpuPct, *util)
            })
            .collect();
        SeriesFrame::from_samples(0, &samples)
    }

    #[test]
    fn a_constant_250_w_over_two_hours_is_half_a_kilowatt_hour() {
        // Every 15 s for 2 h: 481 samples, 480 steps.
        let points: Vec<(i64, i64, i64)> = (0..=480).map(|i| (i * 15_000, 250_000, 100)).collect();
        let e = gpu_energy(&frame(&points)).unwrap();
        assert_eq!(e.kwh, 0.5);
        assert_eq!(e.hours, 2.0);
        assert_eq!(e.working_w, Some(250.0));
        assert_eq!(e.waiting_w, None);
    }

    #[test]
    fn gaps_are_left_out_and_states_are_split() {
        // 1 s steps; 10 s at 300 W working, a 60 s gap, 10 s at 100 W idle.
        let mut points: Vec<(i64, i64, i64)> = (0..=10).map(|i| (i * 1000, 300_000, 90)).collect();
        points.extend((0..=10).map(|i| (70_000 + i * 1000, 100_000, 0)));
        let e = gpu_energy(&frame(&points)).unwrap();
        assert_eq!(e.hours, 20.0 / 3600.0);
        assert_eq!(e.kwh, (300.0 * 10.0 + 100.0 * 10.0) / 3.6e6);
        assert_eq!((e.working_w, e.waiting_w), (Some(300.0), Some(100.0)));
    }

    #[test]
    fn the_reference_job_at_measured_power_with_factors() {
        let power = PowerProfile {
            working_w: 400.0,
            waiting_w: Some(100.0),
            runs: vec![1],
        };
        let e = workload_energy(&Workload::reference(), &power, EnergyFactors::default());
        // 6138 s computing at 400 W, 2082 s loading and saving at 100 W.
        let expected = (6138.0 * 400.0 + 2082.0 * 100.0) / 3.6e6;
        assert!((e.gpu_kwh - expected).abs() < 1e-12, "{e:?}");
        assert!((e.facility_kwh - expected * 1.58).abs() < 1e-12);
        assert!((e.co2_kg - expected * 1.58 * 0.5703).abs() < 1e-12);
    }
}
