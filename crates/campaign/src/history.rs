//! The campaigns already run, read back from the startup runs they
//! recorded: what the app's Campaigns screen and `campaign list` show.

use breakpoint_core::domain::{SourceKind, StartupAttempt, StartupOutcome};
use breakpoint_core::stats::percentile;
use breakpoint_core::store::Store;
use jiff::Timestamp;
use serde::Serialize;

/// One campaign: its run, what it was, and what its attempts add up to.
#[derive(Debug, Clone, Serialize)]
pub struct PastCampaign {
    pub run_id: i64,
    pub platform: String,
    /// The campaign's name and scenario, from the run's metadata.
    pub name: String,
    pub scenario: String,
    /// The recipe file's name and the hash of its text when it ran.
    pub recipe: String,
    pub recipe_sha256: Option<String>,
    pub started_at: Option<Timestamp>,
    pub ok: usize,
    pub p50_s: Option<f64>,
    pub p95_s: Option<f64>,
    /// Attempts that did not reach compute, of those that ended.
    pub failure_rate_pct: Option<f64>,
    /// Every attempt, for the stage chart.
    pub attempts: Vec<StartupAttempt>,
}

/// Every campaign in the store, newest first.
pub fn history(store: &Store) -> breakpoint_core::Result<Vec<PastCampaign>> {
    let mut out = Vec::new();
    for platform in store.platforms()? {
        for run in store.runs(Some(platform.id))? {
            if run.source != SourceKind::Campaign {
                continue;
            }
            let attempts = store.startup_attempts(run.id)?;
            let meta = run.metadata.get("campaign");
            let text = |key: &str| {
                meta.and_then(|c| c.get(key))
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            let mut latencies: Vec<f64> = attempts
                .iter()
                .filter(|a| a.outcome == StartupOutcome::Ok)
                .filter_map(StartupAttempt::latency_s)
                .collect();
            latencies.sort_by(f64::total_cmp);
            let ok = attempts
                .iter()
                .filter(|a| a.outcome == StartupOutcome::Ok)
                .count();
            out.push(PastCampaign {
                run_id: run.id,
                platform: platform.name.clone(),
                name: text("name").unwrap_or_default(),
                scenario: text("scenario").unwrap_or_default(),
                recipe: run.provenance.file_name.clone().unwrap_or_default(),
                recipe_sha256: text("recipe_sha256"),
                started_at: run.started_at,
                ok,
                p50_s: percentile(&latencies, 0.5),
                p95_s: percentile(&latencies, 0.95),
                failure_rate_pct: (!attempts.is_empty())
                    .then(|| 100.0 * (attempts.len() - ok) as f64 / attempts.len() as f64),
                attempts,
            });
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.run_id));
    Ok(out)
}
