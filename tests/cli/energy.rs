//! Energy from power samples: per run, per job beside its cost, with the
//! platform's PUE and grid intensity.

use crate::util::Workspace;

/// One GPU at a constant 250 W and 100 % for two hours, every 15 s.
fn constant_load(ws: &Workspace) -> String {
    let mut csv = String::from("timestamp, index, power.draw [W], utilization.gpu [%]\n");
    let start: jiff::Timestamp = "2026-06-01T08:00:00Z".parse().unwrap();
    for i in 0..=480 {
        let t = start
            .checked_add(jiff::SignedDuration::from_secs(i * 15))
            .unwrap();
        csv.push_str(&format!(
            "{}, 0, 250.00 W, 100 %\n",
            t.strftime("%Y/%m/%d %H:%M:%S%.3f")
        ));
    }
    let path = ws.dir.path().join("constant.csv");
    std::fs::write(&path, csv).unwrap();
    path.display().to_string()
}

#[test]
fn a_constant_250_w_for_two_hours_is_half_a_kwh_and_a_job_is_priced_in_energy() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    ws.ok(&[
        "import",
        &constant_load(&ws),
        "--platform",
        "Lab",
        "--tz",
        "UTC",
    ]);
    let run = ws.json(&["runs", "show", "1"]);
    assert_eq!(run["energy"]["kwh"], 0.5);
    assert_eq!(run["energy"]["gpu_hours"], 2.0);
    assert_eq!(run["energy"]["gpus"][0]["working_w"], 250.0);
    assert!(
        ws.ok(&["runs", "show", "1"])
            .contains("energy    0.500 kWh over 2.00 GPU-hours sampled, mean 250 W per GPU")
    );

    // The defaults until the platform's factors are set.
    let bill = ws.json(&["bill", "--workload", "compute=1h"]);
    let energy = &bill["bills"][0]["energy"];
    assert_eq!(energy["gpu_kwh"], 0.25);
    assert_eq!(energy["factors"]["set"], false);
    assert_eq!(energy["factors"]["pue"], 1.58);
    ws.ok(&["platform", "energy", "Lab", "--pue", "1.2", "--grid", "500"]);
    let bill = ws.json(&["bill", "--workload", "compute=1h,io-wait=1h"]);
    let energy = &bill["bills"][0]["energy"];
    // No waiting power was measured: waiting costed at working power.
    assert_eq!(energy["waiting_at_working_power"], true);
    assert_eq!(energy["gpu_kwh"], 0.5);
    assert!((energy["facility_kwh"].as_f64().unwrap() - 0.6).abs() < 1e-12);
    assert!((energy["co2_kg"].as_f64().unwrap() - 0.3).abs() < 1e-12);
    let text = ws.ok(&["bill", "--workload", "compute=1h"]);
    assert!(
        text.contains("0.25 / 0.30 kWh") && text.contains("0.15 kg"),
        "{text}"
    );
    assert!(
        ws.ok(&["platform", "energy", "Lab"])
            .contains("PUE 1.2, grid 500 g CO₂/kWh (set for this platform)")
    );
    ws.fails(
        &["platform", "energy", "Lab", "--pue", "0.8", "--grid", "500"],
        1,
        "error: pue: 0.8: facility energy / IT energy is at least 1",
    );
    ws.ok(&["platform", "energy", "Lab", "--reset"]);
    assert!(
        ws.ok(&["platform", "energy", "Lab"])
            .contains("the defaults")
    );
}
