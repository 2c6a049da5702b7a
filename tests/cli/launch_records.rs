//! The launch history buyers already have — a SkyPilot timeline, a `sky
//! jobs queue -a` table, dstack's events — gives a platform a measured
//! start, its stages named as the tool names them, and its no-capacity
//! failures as failed starts.

use crate::util::{Workspace, fixture, metric_in};

#[test]
fn each_tools_launch_record_gives_a_platform_its_start_with_named_stages() {
    let ws = Workspace::new();
    for (platform, file, stages) in [
        (
            "Sky",
            "launch/skypilot-timeline.json",
            "median stages: provision 3 min 34 s, setup 1 min 41 s, execute 0.2 s",
        ),
        ("Jobs", "launch/sky-jobs-queue-a.txt", "4 successful"),
        (
            "Dstack",
            "launch/dstack-events.json",
            "median stages: provisioning",
        ),
    ] {
        ws.ok(&["platform", "add", platform]);
        ws.ok(&[
            "import",
            &fixture(file),
            "--platform",
            platform,
            "--start",
            "2026-12-01T12:00:00Z",
        ]);
        let explained = ws.json(&["explain", platform]);
        let p50 = metric_in(&explained, "startup.baseline_p50_s");
        assert!(p50["value"].as_f64().is_some(), "{platform}: {p50}");
        assert!(
            metric_in(&explained, "startup.baseline_p95_s")["value"]
                .as_f64()
                .is_some()
        );
        let text = ws.ok(&["explain", platform]);
        assert!(text.contains(stages), "{platform}: {text}");
        // Each record holds a start that never came for want of capacity.
        let failures = metric_in(&explained, "startup.failure_rate_pct")["value"]
            .as_f64()
            .unwrap();
        assert!(failures > 0.0, "{platform}: {failures}");
    }
    // SkyPilot's one successful launch: handed over 316 s after submission.
    let sky = ws.json(&["explain", "Sky"]);
    assert_eq!(
        metric_in(&sky, "startup.baseline_p50_s")["value"].as_f64(),
        Some(316.0)
    );
}
