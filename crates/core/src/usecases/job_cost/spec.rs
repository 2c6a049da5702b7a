//! A job as users describe it: "gpus=8,work=2000h,checkpoint=30m,…".

use serde::Serialize;

use crate::billing_sim;
use crate::error::ValidationError;

/// A job as a user describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSpec {
    pub gpus: u32,
    /// GPU-hours on GPUs delivering their datasheet's matrix throughput.
    pub work_gpu_hours: f64,
    /// Seconds between checkpoints.
    pub checkpoint_s: f64,
    /// Seconds to restart from a checkpoint, where the platform has not
    /// measured it.
    pub restart_s: f64,
    /// Hours a day the job may run (a job stopped at night takes longer).
    pub hours_per_day: f64,
    /// Calendar seconds it must be done in, where it has a deadline.
    pub deadline_s: Option<f64>,
}

impl JobSpec {
    /// "gpus=8,work=2000h[,checkpoint=30m][,restart=5m][,deadline=14d][,hours-per-day=24]".
    pub fn parse(spec: &str) -> std::result::Result<JobSpec, ValidationError> {
        let mut job = JobSpec {
            gpus: 0,
            work_gpu_hours: 0.0,
            checkpoint_s: 1800.0,
            restart_s: 300.0,
            hours_per_day: 24.0,
            deadline_s: None,
        };
        let refuse = |key: &str, why: String| ValidationError::new(format!("job.{key}"), why);
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                refuse(
                    "spec",
                    format!("\"{part}\" is not key=value (gpus=8,work=2000h,…)"),
                )
            })?;
            let (key, value) = (key.trim(), value.trim());
            let duration =
                || billing_sim::parse_duration(value).map_err(|e| refuse(key, e.reason.clone()));
            match key {
                "gpus" => {
                    job.gpus = value
                        .parse()
                        .ok()
                        .filter(|g| (1..=100_000).contains(g))
                        .ok_or_else(|| {
                            refuse(key, format!("\"{value}\" is not a GPU count (1–100000)"))
                        })?;
                }
                "work" => job.work_gpu_hours = duration()? / 3600.0,
                "checkpoint" => job.checkpoint_s = duration()?,
                "restart" => job.restart_s = duration()?,
                "deadline" => job.deadline_s = Some(duration()?),
                "hours-per-day" => {
                    job.hours_per_day = value
                        .trim_end_matches('h')
                        .parse()
                        .ok()
                        .filter(|h: &f64| *h > 0.0 && *h <= 24.0)
                        .ok_or_else(|| refuse(key, format!("\"{value}\" is not 1–24 hours")))?;
                }
                other => {
                    return Err(refuse(
                        other,
                        "not a job key (gpus, work, checkpoint, restart, deadline, hours-per-day)"
                            .to_string(),
                    ));
                }
            }
        }
        if job.gpus == 0 {
            return Err(refuse("gpus", "missing: gpus=8".into()));
        }
        if job.work_gpu_hours <= 0.0 {
            return Err(refuse(
                "work",
                "missing: the GPU-hours of work, work=2000h".into(),
            ));
        }
        if job.checkpoint_s <= 0.0 {
            return Err(refuse("checkpoint", "must be above 0".into()));
        }
        Ok(job)
    }
}
