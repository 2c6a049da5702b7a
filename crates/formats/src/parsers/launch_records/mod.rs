//! The launch history of the tools buyers already run — SkyPilot's
//! timeline, launch log and managed-jobs table, dstack's events — read as startup
//! attempts (submitted → provisioned → ready → running, each stage named as
//! the tool names it), failed starts (no capacity) kept as failed attempts,
//! and the interruptions a managed job recovered from.
//!
//! What each stage is called is kept with the run (`STARTUP_STAGES`) so
//! that `explain` names them as the tool did.

mod dstack;
mod sky_jobs;
mod sky_launch_log;
mod sky_timeline;

use jiff::Timestamp;

pub use dstack::{is_dstack_events_json, is_dstack_events_text, parse as parse_dstack};
pub use sky_jobs::{is_jobs_table, parse as parse_sky_jobs};
pub use sky_launch_log::{is_sky_launch_line, parse as parse_sky_launch_log};
pub use sky_timeline::{is_sky_timeline, parse as parse_sky_timeline};

use super::super::builder::RunBuilder;
use crate::domain::{ImageState, LoadScenario, STARTUP_STAGES, StartupAttempt, StartupOutcome};

/// One start as a tool recorded it.
#[derive(Debug, Clone, Default)]
pub(super) struct Launch {
    pub submitted: Option<Timestamp>,
    pub provisioned: Option<Timestamp>,
    pub ready: Option<Timestamp>,
    pub running: Option<Timestamp>,
    /// Why it never ran (no capacity, a failed setup), where it did not.
    pub failed: Option<String>,
}

impl Launch {
    /// The attempt it is; `None` where it was not submitted, or is still
    /// starting (neither running nor failed: no outcome yet).
    fn attempt(&self) -> Option<StartupAttempt> {
        let submitted_at = self.submitted?;
        let outcome = match (&self.running, &self.failed) {
            (Some(_), _) => StartupOutcome::Ok,
            (None, Some(_)) => StartupOutcome::Failed,
            (None, None) => return None,
        };
        // Stages out of order (clocks of two machines) are dropped, never
        // invented: an attempt keeps what it can.
        let mut at = submitted_at;
        let mut keep = |t: Option<Timestamp>| match t {
            Some(t) if t >= at => {
                at = t;
                Some(t)
            }
            _ => None,
        };
        let provisioned_at = keep(self.provisioned);
        let image_ready_at = keep(self.ready);
        let first_compute_at = keep(self.running);
        StartupAttempt {
            // The tools do not say what load the platform was under, nor
            // whether the image was cached: the plain case.
            scenario: LoadScenario::Baseline,
            image: ImageState::Warm,
            submitted_at,
            provisioned_at,
            image_ready_at,
            first_compute_at,
            outcome,
        }
        .validate()
        .ok()
    }
}

/// Store `launches` as attempts, with the tool's names for the stages;
/// says how many were kept, failed, and still starting.
pub(super) fn store_launches(
    b: &mut RunBuilder<'_>,
    launches: &[Launch],
    stages: [&str; 3],
    tool: &str,
) -> usize {
    let mut kept = 0;
    let mut failed: Vec<&str> = Vec::new();
    let mut starting = 0;
    for launch in launches {
        match launch.attempt() {
            Some(a) => {
                b.saw_time(a.submitted_at.as_millisecond());
                if let Some(t) = a.first_compute_at {
                    b.saw_time(t.as_millisecond());
                }
                if a.outcome != StartupOutcome::Ok {
                    failed.push(launch.failed.as_deref().unwrap_or("failed"));
                }
                b.startup_attempts.push(a);
                kept += 1;
            }
            None if launch.submitted.is_some() => starting += 1,
            None => {}
        }
    }
    b.metadata
        .insert(STARTUP_STAGES.into(), serde_json::json!(stages));
    let mut said = format!("{tool}: {kept} start(s)");
    if !failed.is_empty() {
        let count = failed.len();
        failed.sort_unstable();
        failed.dedup();
        said.push_str(&format!(
            ", {count} of them failed ({}) — counted as failed starts",
            failed.join("; ")
        ));
    }
    if starting > 0 {
        said.push_str(&format!(
            "; {starting} still starting when recorded (no outcome yet, left out)"
        ));
    }
    b.warn(said);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Option<Timestamp> {
        Some(s.parse().unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn a_launch_keeps_its_stages_in_order_and_fails_without_running() {
        let ok = Launch {
            submitted: t("2025-01-01T00:00:00Z"),
            provisioned: t("2025-01-01T00:02:00Z"),
            ready: t("2025-01-01T00:01:00Z"), // before provisioned: dropped
            running: t("2025-01-01T00:03:00Z"),
            failed: None,
        }
        .attempt()
        .unwrap_or_else(|| panic!("an attempt"));
        assert_eq!(ok.outcome, StartupOutcome::Ok);
        assert_eq!(ok.image_ready_at, None);
        assert_eq!(ok.latency_s(), Some(180.0));
        let no_capacity = Launch {
            submitted: t("2025-01-01T00:00:00Z"),
            failed: Some("no capacity".into()),
            ..Launch::default()
        }
        .attempt()
        .unwrap_or_else(|| panic!("an attempt"));
        assert_eq!(no_capacity.outcome, StartupOutcome::Failed);
        let starting = Launch {
            submitted: t("2025-01-01T00:00:00Z"),
            ..Launch::default()
        };
        assert!(starting.attempt().is_none());
    }
}
