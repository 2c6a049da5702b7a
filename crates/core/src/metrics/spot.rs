//! What a spot instance of a platform meets: its reclaim rate with the
//! doubt its evidence leaves, and how long an instance lives. From the spot
//! traces imported for the platform (`domain::spot`), pooled; without one,
//! from the AWS Spot Instance Advisor's band for the instance type and
//! region the platform's price lists quote for its offering. Read where a
//! spot job is costed and shown by `explain`, nowhere else: either is
//! evidence about the instance type and place it names, and never changes
//! what the platform's own runs measured.

use statrs::distribution::{ContinuousCDF, Gamma};

use crate::domain::Offering;
use crate::domain::spot::{AdvisorBand, SPOT_ADVISOR, SPOT_TRACE, SpotAdvisor, SpotTrace};
use crate::error::Result;
use crate::store::Store;

/// What says how a platform's spot instances live.
#[derive(Debug, Clone, PartialEq)]
pub enum SpotSource {
    /// Its spot traces, pooled.
    Traces(SpotTrace),
    /// The advisor's band for one instance type in one region.
    Advisor {
        instance_type: String,
        region: String,
        band: AdvisorBand,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpotEvidence {
    pub source: SpotSource,
    /// The runs it was imported as.
    pub runs: Vec<i64>,
}

impl SpotEvidence {
    /// The platform's spot evidence: its traces, else the advisor's band of
    /// the instance its price lists quote for `offering` (the worst band
    /// where they quote it in several regions, and said); none where
    /// neither says anything.
    pub fn of(
        store: &Store,
        platform_id: i64,
        offering: Option<&Offering>,
    ) -> Result<Option<SpotEvidence>> {
        let mut traces = Vec::new();
        let mut trace_runs = Vec::new();
        let mut advisors = Vec::new();
        for run in store.runs(Some(platform_id))? {
            if let Some(trace) = run
                .metadata
                .get(SPOT_TRACE)
                .and_then(|v| serde_json::from_value::<SpotTrace>(v.clone()).ok())
            {
                traces.push(trace);
                trace_runs.push(run.id);
            }
            if let Some(advisor) = run
                .metadata
                .get(SPOT_ADVISOR)
                .and_then(|v| serde_json::from_value::<SpotAdvisor>(v.clone()).ok())
            {
                advisors.push((run.id, advisor));
            }
        }
        if let Some(trace) = SpotTrace::pooled(&traces) {
            return Ok(Some(SpotEvidence {
                source: SpotSource::Traces(trace),
                runs: trace_runs,
            }));
        }
        let Some(offering) = offering else {
            return Ok(None);
        };
        if advisors.is_empty() {
            return Ok(None);
        }
        // The instance types the platform's price lists quote for this
        // offering: its card, its count, its region where it names one.
        let mut worst: Option<SpotEvidence> = None;
        for quoted in store.quoted_instances(platform_id)? {
            let Some(card) = quoted
                .accelerator
                .as_deref()
                .map(crate::accelerator::normalise)
            else {
                continue;
            };
            // A quote that does not say the card's memory names no offering
            // that does ("A100" may be the 40 GB card), as in pricing.
            let memory_known = offering.accelerator.memory_gb.is_none() || card.memory_gb.is_some();
            let same_card = memory_known
                && (offering.accelerator.same_product(&card)
                    || card.same_product(&offering.accelerator));
            let same_place = offering.region.is_none() || quoted.region == offering.region;
            if !same_card || quoted.accelerator_count != Some(offering.count) || !same_place {
                continue;
            }
            let Some(region) = quoted.region.as_deref() else {
                continue;
            };
            for (run, advisor) in &advisors {
                let Some(band) = advisor.band_of(region, &quoted.instance_type) else {
                    continue;
                };
                if worst.as_ref().is_none_or(|w| match &w.source {
                    SpotSource::Advisor { band: b, .. } => band.high_pct > b.high_pct,
                    SpotSource::Traces(_) => false,
                }) {
                    worst = Some(SpotEvidence {
                        source: SpotSource::Advisor {
                            instance_type: quoted.instance_type.clone(),
                            region: region.to_string(),
                            band: band.clone(),
                        },
                        runs: vec![*run],
                    });
                }
            }
        }
        Ok(worst)
    }

    /// The reclaim rate per instance-hour at quantile `q`: a trace's
    /// posterior under Jeffreys' prior, Gamma(k + ½, hours held); the
    /// advisor's band read as a monthly share, uniform over the band.
    pub fn quantile_per_hour(&self, q: f64) -> f64 {
        match &self.source {
            SpotSource::Traces(trace) => {
                let shape = trace.reclaims as f64 + 0.5;
                let rate = trace.held_hours.max(1e-9);
                Gamma::new(shape, rate)
                    .map_or(f64::NAN, |g| g.inverse_cdf(q.clamp(1e-9, 1.0 - 1e-9)))
            }
            SpotSource::Advisor { band, .. } => band.per_hour_at(q),
        }
    }

    /// What it rests on, and the rate a job meets (p10–p90).
    pub fn words(&self) -> String {
        let runs = self
            .runs
            .iter()
            .map(|r| format!("#{r}"))
            .collect::<Vec<_>>()
            .join(", ");
        let (p10, p90) = (self.quantile_per_hour(0.1), self.quantile_per_hour(0.9));
        match &self.source {
            SpotSource::Traces(trace) => format!(
                "{}; the rate a job meets is {p10:.3}–{p90:.3} per instance-hour (p10–p90) — evidence about the instance and place the trace names (runs {runs})",
                trace.words()
            ),
            SpotSource::Advisor {
                instance_type,
                region,
                band,
            } => {
                let day = (-self.quantile_per_hour(0.5) * 24.0).exp();
                format!(
                    "AWS Spot Instance Advisor: {instance_type} in {region} is in the \"{}\" band of interruptions in the trailing month ({:.0}–{:.0} % of instances): {p10:.5}–{p90:.5} per instance-hour (p10–p90); an instance lives 24 h with probability {:.1} % — a band for the instance type and region, not a measurement (run {runs}); a spot trace says more",
                    band.label,
                    band.low_pct,
                    band.high_pct,
                    100.0 * day
                )
            }
        }
    }
}
