//! What a workload costs on every platform, under each one's billing rule
//! and on-demand price, beside what it would cost billed fairly (compute
//! only, per second).

use serde::Serialize;

use crate::billing_sim::{self, Bill, Workload};
use crate::domain::{BillingRule, Platform, Run};
use crate::error::{Result, ValidationError};
use crate::metrics::billing;
use crate::metrics::energy::{self, EnergyFactors, PowerProfile, WorkloadEnergy};
use crate::samples::Field;
use crate::store::Store;

/// Where the workload comes from.
#[derive(Debug, Clone)]
pub enum WorkloadSource {
    /// The source documents' reference job.
    Reference,
    /// Phases as written: "compute=1h42m18s,io-wait=35m".
    Spec(String),
    /// A workload file's JSON text, and its name for messages.
    Json { name: String, text: String },
    /// A run's own compute and idle, from its GPU utilisation.
    Run(i64),
}

impl WorkloadSource {
    /// What a face was given: "reference" or nothing, phases with `=`, or
    /// else the path of a workload file.
    pub fn from_text(text: Option<&str>) -> std::result::Result<Self, ValidationError> {
        match text.map(str::trim) {
            None | Some("") | Some("reference") => Ok(WorkloadSource::Reference),
            Some(spec) if spec.contains('=') => Ok(WorkloadSource::Spec(spec.to_string())),
            Some(path) => std::fs::read_to_string(path)
                .map(|text| WorkloadSource::Json {
                    name: path.to_string(),
                    text,
                })
                .map_err(|e| {
                    ValidationError::new(
                        "workload",
                        format!("cannot read workload file \"{path}\": {e}"),
                    )
                }),
        }
    }
}

/// The workload a source stands for.
pub fn workload(store: &Store, source: &WorkloadSource) -> Result<Workload> {
    let refuse = |reason: String| ValidationError::new("workload", reason).into();
    match source {
        WorkloadSource::Reference => Ok(Workload::reference()),
        WorkloadSource::Spec(spec) => Ok(Workload::parse_spec(spec)?),
        WorkloadSource::Json { name, text } => serde_json::from_str(text).map_err(|e| {
            refuse(format!(
                "{name}:{}:{}: not a workload ({{\"sessions\": [{{\"segments\": [{{\"phase\": \"compute\", \"seconds\": 6138}}]}}], \"gpus\": 1}}): {e}",
                e.line(),
                e.column()
            ))
        }),
        WorkloadSource::Run(run) => {
            store.run(*run)?;
            let gpu = store
                .sample_gpus(*run)?
                .into_iter()
                .next()
                .ok_or_else(|| refuse(format!("run {run} has no samples to derive a workload from")))?;
            let frame = store.read_samples(*run, gpu, None, Some(&[Field::UtilGpuPct]))?;
            Workload::from_frame(&frame).ok_or_else(|| {
                refuse(format!(
                    "run {run} has no GPU utilisation to tell compute from idle"
                ))
            })
        }
    }
}

/// One platform's bill, or why there is none.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformBill {
    pub platform: String,
    /// The rule in words ("60 s units, up, io-wait billed, idle free").
    pub rule: Option<String>,
    pub price_per_hour: Option<f64>,
    pub currency: Option<String>,
    pub bill: Option<Bill>,
    /// Why there is no bill.
    pub missing: Option<&'static str>,
    /// The workload's energy at the platform's measured power, where its
    /// runs sampled power.
    pub energy: Option<WorkloadEnergy>,
    /// The measured power it rests on.
    pub power: Option<PowerProfile>,
}

/// A billing rule in words, the same everywhere it is shown.
pub fn describe_rule(r: &BillingRule) -> String {
    format!(
        "{} s units, {}{}{}",
        r.granularity_s,
        r.rounding,
        if r.bills_io_wait {
            ", io-wait billed"
        } else {
            ", io-wait free"
        },
        if r.bills_idle {
            ", idle billed"
        } else {
            ", idle free"
        }
    )
}

/// The workload priced on every platform, in the store's platform order.
pub fn price_everywhere(store: &Store, workload: &Workload) -> Result<Vec<PlatformBill>> {
    store
        .platforms()?
        .into_iter()
        .map(|platform| {
            let runs = store.runs(Some(platform.id))?;
            price_on(store, workload, platform, &runs)
        })
        .collect()
}

/// The workload priced on one platform, whose runs (for their measured
/// power) are at hand.
pub fn price_on(
    store: &Store,
    workload: &Workload,
    platform: Platform,
    runs: &[Run],
) -> Result<PlatformBill> {
    let rule = billing::rule(store, &platform)?;
    let price = billing::price(store, &platform)?;
    let (bill, missing) = match (&rule, &price) {
        (Some(rule), Some((price, _))) => (Some(billing_sim::bill(workload, rule, *price)), None),
        (None, _) => (None, Some("no billing rule")),
        (_, None) => (None, Some("no on-demand price")),
    };
    let power = energy::power_profile(store, runs)?;
    let factors = EnergyFactors::of_platform(store, platform.id)?;
    Ok(PlatformBill {
        platform: platform.name,
        rule: rule.as_ref().map(describe_rule),
        price_per_hour: price.as_ref().map(|p| p.0),
        currency: price.map(|p| p.1),
        bill,
        missing,
        energy: power
            .as_ref()
            .map(|p| energy::workload_energy(workload, p, factors)),
        power,
    })
}
