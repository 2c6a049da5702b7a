//! What a spot instance of a platform meets, from the spot traces imported
//! for it (`domain::spot`): its reclaim rate with the doubt its hours leave,
//! and how long an instance lives. Read where a spot job is costed, and
//! nowhere else: a trace is evidence about the instance type and place it
//! names, and never changes what the platform's own runs measured.

use statrs::distribution::{ContinuousCDF, Gamma};

use crate::domain::spot::{SPOT_TRACE, SpotTrace};
use crate::error::Result;
use crate::store::Store;

/// A platform's spot traces, pooled.
#[derive(Debug, Clone, PartialEq)]
pub struct SpotEvidence {
    pub trace: SpotTrace,
    /// The runs the traces were imported as.
    pub runs: Vec<i64>,
}

impl SpotEvidence {
    /// The spot traces imported for `platform_id`; none where there are none.
    pub fn of(store: &Store, platform_id: i64) -> Result<Option<SpotEvidence>> {
        let mut traces = Vec::new();
        let mut runs = Vec::new();
        for run in store.runs(Some(platform_id))? {
            if let Some(trace) = run
                .metadata
                .get(SPOT_TRACE)
                .and_then(|v| serde_json::from_value::<SpotTrace>(v.clone()).ok())
            {
                traces.push(trace);
                runs.push(run.id);
            }
        }
        Ok(SpotTrace::pooled(&traces).map(|trace| SpotEvidence { trace, runs }))
    }

    /// The reclaim rate per instance-hour at quantile `q` of its posterior
    /// under Jeffreys' prior: Gamma(k + ½, hours held).
    pub fn quantile_per_hour(&self, q: f64) -> f64 {
        let shape = self.trace.reclaims as f64 + 0.5;
        let rate = self.trace.held_hours.max(1e-9);
        Gamma::new(shape, rate).map_or(f64::NAN, |g| g.inverse_cdf(q.clamp(1e-9, 1.0 - 1e-9)))
    }

    /// "spot trace t.json (p3.2xlarge, us-east-1a): 37 reclaim(s) in 412.0
    /// instance-hours held (…); the rate a job meets is 0.071–0.11 per
    /// instance-hour (p10–p90) — about the instance and place it names".
    pub fn words(&self) -> String {
        format!(
            "{}; the rate a job meets is {:.3}–{:.3} per instance-hour (p10–p90) — evidence about the instance and place the trace names (runs {})",
            self.trace.words(),
            self.quantile_per_hour(0.1),
            self.quantile_per_hour(0.9),
            self.runs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}
