use breakpoint_core::domain::{EventKind, StartupOutcome};
use breakpoint_core::import::Format;

use crate::util::*;

fn latencies(store: &breakpoint_core::store::Store, run: i64) -> Vec<Option<f64>> {
    store
        .startup_attempts(run)
        .unwrap()
        .iter()
        .map(|a| a.latency_s())
        .collect()
}

#[test]
fn a_skypilot_timeline_gives_each_launch_its_stages_and_a_launch_that_never_ran_fails() {
    let (store, r) = import("launch/skypilot-timeline.json", |_| {});
    assert_eq!(r.format, Format::SkyTimeline);
    let attempts = store.startup_attempts(r.run_id).unwrap();
    assert_eq!(attempts.len(), 2);
    let ok = &attempts[0];
    assert_eq!(ok.outcome, StartupOutcome::Ok);
    assert_eq!(ok.submitted_at.as_millisecond(), ms("2024-12-02T09:00:00Z"));
    // Provisioned when Backend.provision ended, ready when setup ended,
    // running when the job was handed over.
    assert_eq!(
        ok.provisioned_at.unwrap().as_millisecond(),
        ms("2024-12-02T09:03:34.400Z")
    );
    assert_eq!(
        ok.image_ready_at.unwrap().as_millisecond(),
        ms("2024-12-02T09:05:15.800Z")
    );
    assert!((ok.latency_s().unwrap() - 316.0).abs() < 1e-6);
    assert_eq!(attempts[1].outcome, StartupOutcome::Failed);
    let run = store.run(r.run_id).unwrap();
    assert_eq!(
        run.metadata["startup_stages"],
        serde_json::json!(["provision", "setup", "execute"])
    );
}

#[test]
fn a_managed_jobs_table_times_starts_counts_no_resource_as_failed_and_recoveries_as_interruptions()
{
    let (store, r) = import("launch/sky-jobs-queue-a.txt", |o| {
        o.start = Some("2026-12-01T12:00:00Z".parse().unwrap());
    });
    assert_eq!(r.format, Format::SkyJobs);
    // Total less job duration, exact to the second: jobs 9, 7, 6 (no
    // resource), 5 and 3; job 8's recoveries and job 4's cancellation are
    // not timed.
    assert_eq!(
        latencies(&store, r.run_id),
        vec![Some(242.0), Some(248.0), None, Some(274.0), Some(152.0)]
    );
    let failed: Vec<_> = store
        .startup_attempts(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|a| a.outcome == StartupOutcome::Failed)
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(
        r.warnings.iter().any(|w| w.contains(
            "job 8 (its 2 recoveries are inside its total); job 4 CANCELLED before it ran"
        )),
        "{:?}",
        r.warnings
    );
    let events = store.events(r.run_id).unwrap();
    assert_eq!(
        events
            .iter()
            .filter(|e| e.kind == EventKind::InstanceLost)
            .count(),
        2
    );
    // The GPU jobs' run time × 8 GPUs (the CPU job watches no GPU).
    let run = store.run(r.run_id).unwrap();
    let job_s =
        (8 * 60 + 1) + (3 * 3600 + 58 * 60 + 2) + (2 * 3600 + 60 + 1) + (3600 + 42 * 60 + 59);
    assert_eq!(
        run.metadata["watched_gpu_ms"],
        serde_json::json!(job_s * 8 * 1000)
    );
}

#[test]
fn dstack_events_as_json_or_as_printed_give_the_same_starts() {
    let (store, r) = import("launch/dstack-events.json", |_| {});
    assert_eq!(r.format, Format::DstackEvents);
    let attempts = store.startup_attempts(r.run_id).unwrap();
    assert_eq!(attempts.len(), 3);
    // eval ran out of capacity before it ran; serve and train started.
    let outcomes: Vec<_> = attempts.iter().map(|a| a.outcome).collect();
    assert_eq!(
        outcomes,
        [
            StartupOutcome::Failed,
            StartupOutcome::Ok,
            StartupOutcome::Ok
        ]
    );
    let train = &attempts[2];
    assert!((train.latency_s().unwrap() - 233.064).abs() < 1e-6);
    assert_eq!(
        train.provisioned_at.unwrap().as_millisecond(),
        ms("2026-01-21T13:12:41.877Z")
    );
    let lost: Vec<_> = store
        .events(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::InstanceLost)
        .collect();
    assert_eq!(lost.len(), 1);
    assert!(
        lost[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("interrupted_by_no_capacity")
    );

    let (store, r) = import("launch/dstack-event.txt", |_| {});
    assert_eq!(r.format, Format::DstackEvents);
    let attempts = store.startup_attempts(r.run_id).unwrap();
    let outcomes: Vec<_> = attempts.iter().map(|a| a.outcome).collect();
    assert_eq!(outcomes, [StartupOutcome::Failed, StartupOutcome::Ok]);
    assert!((attempts[1].latency_s().unwrap() - 233.0).abs() < 1e-6);
}

#[test]
fn a_sky_launch_log_gives_each_region_tried_its_start_or_its_failure() {
    let (store, r) = import("launch/sky-launch.log", |o| {
        o.start = Some("2025-03-01T00:00:00Z".parse().unwrap());
    });
    assert_eq!(r.format, Format::SkyLaunchLog);
    let attempts = store.startup_attempts(r.run_id).unwrap();
    let outcomes: Vec<_> = attempts.iter().map(|a| a.outcome).collect();
    assert_eq!(
        outcomes,
        [
            StartupOutcome::Failed,
            StartupOutcome::Ok,
            StartupOutcome::Ok
        ]
    );
    // us-west-2 from its "Launching on" to "Job submitted": 16:42:26 → 16:50:02.
    assert_eq!(
        latencies(&store, r.run_id),
        vec![None, Some(456.0), Some(181.0)]
    );
    assert_eq!(
        attempts[1].image_ready_at.unwrap().as_millisecond(),
        ms("2025-02-23T16:49:51Z")
    );
    let run = store.run(r.run_id).unwrap();
    let tries = run.metadata["launch_tries"].as_array().unwrap();
    assert_eq!(
        tries[0]["place"],
        "AWS us-east-2 (us-east-2a,us-east-2b,us-east-2c)"
    );
    assert_eq!(tries[0]["outcome"], "failed");
    assert_eq!(tries[2]["place"], "GCP us-central1 (us-central1-a)");
}

#[test]
fn a_jobs_table_claiming_endless_recoveries_is_refused_before_they_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("queue.txt");
    std::fs::write(
        &path,
        "ID  NAME  RESOURCES   SUBMITTED   TOT. DURATION  JOB DURATION  #RECOVERIES  STATUS\n\
         1   x     1x[A100:8]  2 hrs ago   1h 10m 5s      1h 2m 3s       99999999     SUCCEEDED\n",
    )
    .unwrap();
    let (store, platform) = store();
    let mut options = utc_options(platform);
    options.start = Some("2026-12-01T12:00:00Z".parse().unwrap());
    let e = breakpoint_core::import::import_file(&store, &path, &options, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains(":2") && e.contains("#RECOVERIES"), "{e}");
    assert!(store.runs(None).unwrap().is_empty());
}
