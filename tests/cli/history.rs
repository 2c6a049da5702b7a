//! A platform over time: `explain --history`, the degradation warning in
//! `rank` and the report, and the ranking restricted to a time window.

use crate::util::Workspace;

/// A startup-attempts table measured on `day` (June 2026), three warm
/// baseline attempts taking about `seconds` each.
fn startup_table(ws: &Workspace, name: &str, day: u32, seconds: [f64; 3]) -> String {
    let mut csv = String::from("scenario,image,submitted_at,first_compute_at,outcome\n");
    for (i, s) in seconds.iter().enumerate() {
        let submitted = format!("2026-06-{day:02}T08:0{i}:00Z");
        let start: jiff::Timestamp = submitted.parse().unwrap();
        let done = start
            .checked_add(jiff::SignedDuration::from_secs_f64(*s))
            .unwrap();
        csv.push_str(&format!("baseline,warm,{submitted},{done},ok\n"));
    }
    let path = ws.dir.path().join(format!("{name}-{day:02}.csv"));
    std::fs::write(&path, csv).unwrap();
    path.display().to_string()
}

/// Eleven runs a day apart, noise of about ±3 s around 60 s; the latest
/// three `step` seconds slower.
fn platform_with_history(ws: &Workspace, name: &str, noise: [f64; 11], step: f64) {
    ws.ok(&["platform", "add", name]);
    for (i, e) in noise.iter().enumerate() {
        let base = 60.0 + e + if i >= 8 { step } else { 0.0 };
        let path = startup_table(ws, name, 1 + i as u32, [base - 0.5, base, base + 0.5]);
        ws.ok(&["import", &path, "--platform", name]);
    }
}

#[test]
fn a_planted_degradation_is_flagged_and_noise_is_not() {
    let ws = Workspace::new();
    let noise = [0.4, -2.1, 1.7, -0.6, 2.8, -1.3, 0.9, -2.6, 1.2, -0.2, 2.2];
    platform_with_history(&ws, "Slower", noise, 15.0);
    // Noise only, its largest values last: still not a degradation.
    let mut rising = noise;
    rising.sort_by(f64::total_cmp);
    platform_with_history(&ws, "Steady", rising, 0.0);

    let rank = ws.ok(&["rank", "--samples", "200"]);
    assert!(
        rank.contains(
            "degradation: Slower: Start latency p50, baseline load worse in its latest 3 runs (#9, #10, #11)"
        ),
        "{rank}"
    );
    assert!(!rank.contains("degradation: Steady"), "{rank}");
    let json = ws.json(&["rank", "--samples", "200"]);
    let warnings = json["degradations"].as_array().unwrap();
    // p50 and p95 of the same attempts both moved.
    let keys: Vec<&str> = warnings
        .iter()
        .map(|w| w["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["startup.baseline_p50_s", "startup.baseline_p95_s"]);
    assert!(warnings.iter().all(|w| w["platform"] == "Slower"));
    assert_eq!(warnings[0]["degradation"]["baseline_runs"], 8);

    let history = ws.ok(&["explain", "Slower", "startup", "--history"]);
    assert!(
        history.contains("2026-06-11 08:00 UTC   #11 Slower-11.csv"),
        "{history}"
    );
    assert!(history.contains("DEGRADED: the latest 3 runs"), "{history}");
    let steady = ws.ok(&["explain", "Steady", "startup", "--history"]);
    assert!(steady.contains("no degradation"), "{steady}");
    let points = ws.json(&["explain", "Slower", "--history"]);
    let p50 = points["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "startup.baseline_p50_s")
        .unwrap();
    assert_eq!(p50["points"].as_array().unwrap().len(), 11);
    assert_eq!(p50["points"][0]["value"], 60.4);

    // A window that leaves out the baseline leaves nothing to compare.
    let recent = ws.json(&["rank", "--samples", "200", "--since", "2026-06-07"]);
    assert!(recent["degradations"].as_array().unwrap().is_empty());
    // The window changes what is scored: the slower runs alone.
    let explain = ws.json(&["explain", "Slower", "startup", "--since", "2026-06-09"]);
    let value = explain["breakpoints"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "startup.baseline_p50_s")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(value > 70.0, "{value}");
    let until = ws.json(&["explain", "Slower", "startup", "--until", "2026-06-08"]);
    let runs = until["breakpoints"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "startup.baseline_p50_s")
        .unwrap()["runs"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(runs, 8, "--until a date takes in that whole day");

    // The report says it too.
    let pdf = ws.dir.path().join("report.pdf");
    ws.ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "100"]);
    let text = std::process::Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).replace('\n', " ");
    assert!(text.contains("degradation: Slower"), "{text}");

    ws.fails(
        &["rank", "--since", "June"],
        1,
        "error: since: \"June\" is neither a date (2026-06-01) nor a time (2026-06-01T08:00:00Z)",
    );
    ws.fails(
        &["rank", "--since", "2026-06-09", "--until", "2026-06-01"],
        1,
        "error: until: 2026-06-02T00:00:00Z is not after since (2026-06-09T00:00:00Z)",
    );
}
