use breakpoint_core::domain::spot::{SPOT_TRACE, SpotTrace};
use breakpoint_core::import::Format;

use crate::util::*;

#[test]
fn a_skypilot_spot_trace_gives_its_reclaims_and_how_long_an_instance_lives() {
    let (store, r) = import("spot/us-east-1a_v100_1.json", |_| {});
    assert_eq!(r.format, Format::SpotTrace);
    assert_eq!(r.samples, 0);
    let run = store.run(r.run_id).unwrap();
    let trace: SpotTrace = serde_json::from_value(run.metadata[SPOT_TRACE].clone()).unwrap();
    assert_eq!(trace.reclaims, 5);
    assert!((trace.held_hours - 64.5).abs() < 1e-9);
    // The place and instance come from the file's name, as SkyPilot names it.
    assert_eq!(trace.of_what(), "1 × v100, us-east-1a");
    assert!((trace.survival(8.0) - 0.5).abs() < 1e-9);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("5 reclaim(s) in 64.5 instance-hours"))
    );
}

#[test]
fn a_trace_point_that_is_no_count_is_refused_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"metadata": {"gap_seconds": 60}, "data": [0, 0, "x", 1]}"#,
    )
    .unwrap();
    let (store, platform) = store();
    let result = breakpoint_core::import::import_file(&store, &path, &utc_options(platform), None);
    let e = result.unwrap_err().to_string();
    assert!(e.contains("\"x\"") && e.contains("line 1 column 52"), "{e}");
    assert!(store.runs(None).unwrap().is_empty());
}

#[test]
fn the_aws_spot_advisor_keeps_the_bands_of_accelerator_instances_on_linux() {
    use breakpoint_core::domain::spot::{SPOT_ADVISOR, SpotAdvisor};
    let (store, r) = import("spot/aws-spot-advisor.json", |_| {});
    assert_eq!(r.format, Format::SpotAdvisor);
    let run = store.run(r.run_id).unwrap();
    let advisor: SpotAdvisor = serde_json::from_value(run.metadata[SPOT_ADVISOR].clone()).unwrap();
    assert_eq!(advisor.entries.len(), 6);
    assert!(
        advisor
            .entries
            .iter()
            .all(|e| e.instance_type != "m5.large")
    );
    let band = advisor.band_of("us-east-1", "p4de.24xlarge").unwrap();
    assert_eq!(
        (band.label.as_str(), band.low_pct, band.high_pct),
        ("10-15%", 11.0, 16.0)
    );
    assert!(advisor.band_of("eu-west-1", "p4de.24xlarge").is_none());
}
