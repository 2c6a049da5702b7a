use breakpoint_core::domain::{EventKind, FaultKind, ImageState, LoadScenario, StartupOutcome};
use breakpoint_core::import::{Format, import_file};

use crate::util::*;

#[test]
fn startup_attempts_from_csv_and_json() {
    let (store, r) = import("tables/startup-attempts.csv", |_| {});
    assert_eq!(
        (r.format, r.kind.as_str(), r.records),
        (Format::StartupTable, "startup", 5)
    );
    let a = store.startup_attempts(r.run_id).unwrap();
    assert_eq!(a[0].latency_s(), Some(1.8));
    assert_eq!(
        (a[2].scenario, a[2].latency_s()),
        (LoadScenario::Peak, Some(22.0 * 60.0))
    );
    assert_eq!(
        (a[3].image, a[3].outcome, a[3].latency_s()),
        (ImageState::Cold, StartupOutcome::Timeout, None)
    );
    assert!(a[1].provisioned_at.is_none(), "an empty stage is absent");

    let (store, r) = import("tables/startup-attempts.json", |_| {});
    let a = store.startup_attempts(r.run_id).unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a[0].latency_s(), Some(4.2));
    assert_eq!(a[2].outcome, StartupOutcome::Failed);
}

#[test]
fn a_stage_out_of_order_names_line_and_column() {
    let (store, result) = try_import("tables/startup-bad-stage.csv", |_| {});
    let e = result.unwrap_err().to_string();
    assert!(e.ends_with("startup-bad-stage.csv:3:5: image_ready_at: 2024-06-01T09:00:03Z is before provisioned_at (2024-06-01T09:00:05Z)"), "{e}");
    assert!(store.runs(None).unwrap().is_empty(), "nothing stored");
}

#[test]
fn a_time_in_1970_is_a_missing_one_and_refused_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("startup-1970.csv");
    std::fs::write(
        &path,
        "scenario,image,submitted_at,provisioned_at,image_ready_at,first_compute_at,outcome\n\
         baseline,warm,2024-06-01T08:00:00Z,,,2024-06-01T08:00:02Z,ok\n\
         baseline,warm,0,,,0,ok\n",
    )
    .unwrap();
    let (store, result) = try_import(path.to_str().unwrap(), |_| {});
    let e = result.unwrap_err().to_string();
    assert!(
        e.contains("startup-1970.csv:3:") && e.contains("is before 2000"),
        "{e}"
    );
    assert!(store.runs(None).unwrap().is_empty(), "nothing stored");
}

#[test]
fn a_table_whose_times_span_decades_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("startup-decades.csv");
    std::fs::write(
        &path,
        "scenario,image,submitted_at,provisioned_at,image_ready_at,first_compute_at,outcome\n\
         baseline,warm,2001-06-01T08:00:00Z,,,2001-06-01T08:00:02Z,ok\n\
         baseline,warm,2024-06-01T08:00:00Z,,,2024-06-01T08:00:02Z,ok\n",
    )
    .unwrap();
    let (store, result) = try_import(path.to_str().unwrap(), |_| {});
    let e = result.unwrap_err().to_string();
    assert!(e.contains("its times span 23 years"), "{e}");
    assert!(store.runs(None).unwrap().is_empty(), "nothing stored");
}

#[test]
fn switch_attempts_fault_drills_and_billing() {
    let (store, r) = import("tables/switch-attempts.csv", |_| {});
    let s = store.switch_attempts(r.run_id).unwrap();
    assert_eq!(
        (s[0].manual_steps, s[0].rel_l2_error, s[0].ops_passed),
        (37, Some(5e-5), Some(127))
    );
    assert_eq!(s[2].to_env, "TensorFlow 2.15, XLA");
    assert!(!s[2].success && s[2].ops_total.is_none());

    let (store, r) = import("tables/fault-drills.csv", |_| {});
    let d = store.fault_drills(r.run_id).unwrap();
    assert_eq!(d.len(), 5);
    assert_eq!(
        (d[2].fault, d[2].recovered, d[2].recovery_s),
        (FaultKind::BadDataPath, false, None)
    );
    assert_eq!(d[3].recovery_s, Some(410.0));

    let (store, r) = import("tables/billing-lines.csv", |_| {});
    let l = store.billing_lines(r.run_id).unwrap();
    assert_eq!(
        (
            l[0].amount.to_string(),
            l[0].billed_seconds,
            l[0].compute_seconds
        ),
        ("38.40".to_string(), 10800.0, Some(6138.0)),
        "the amount as written, to the cent"
    );
    assert_eq!(l[1].amount.to_string(), "21.82");
    assert_eq!(l[0].start.to_string(), "2024-06-01T02:00:00Z");

    let (store, r) = import("tables/billing-events.csv", |_| {});
    assert_eq!(r.format, Format::BillingEvents);
    let phases: Vec<(String, i64)> = store
        .events(r.run_id)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Phase)
        .map(|e| (e.detail.unwrap(), e.duration_ms.unwrap()))
        .collect();
    assert!(
        phases.contains(&("compute on job-7".into(), 6_138_000)),
        "{phases:?}"
    );
    assert!(phases.contains(&("queue on job-7".into(), 0)));
    let io_wait: i64 = phases
        .iter()
        .filter(|(p, _)| p.starts_with("io-wait"))
        .map(|(_, d)| d)
        .sum();
    assert_eq!(io_wait, (20 * 60 + 14 * 60 + 42) * 1000);
}

#[test]
fn a_drift_log_keeps_each_operator_and_a_cut_off_one_is_refused() {
    let (imported, r) = import("drift/torch-cpu-vs-numpy.json", |_| {});
    assert_eq!(
        (r.format, r.kind.as_str(), r.records),
        (Format::DriftLog, "switch", 14)
    );
    let run = imported.run(r.run_id).unwrap();
    let operators = run.metadata["operators"].as_array().unwrap();
    let conv = operators
        .iter()
        .find(|o| o["operator"] == "conv2d")
        .unwrap();
    assert_eq!(conv["rel_l2"].as_f64(), Some(1.4495756312126062e-7));
    assert_eq!(
        run.metadata["drift"]["reference"]["framework"],
        "numpy 2.4.6"
    );
    assert_eq!(run.metadata["drift"]["tolerance"], 1e-4);

    // Cut off mid-way (a copy interrupted): refused, nothing stored.
    let text = std::fs::read_to_string(fixture("drift/torch-cpu-vs-numpy.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("drift.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let (empty, platform) = store();
    let e = import_file(&empty, &cut, &utc_options(platform), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a drift log") && e.contains("line "), "{e}");
    assert!(empty.runs(None).unwrap().is_empty(), "nothing stored");
}
