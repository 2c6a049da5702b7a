//! Ranking, explaining a cell, billing and the PDF report over IPC.

use serde_json::{Value, json};

use crate::harness::*;

#[test]
fn an_empty_database_then_the_demo_ranks_six_platforms() {
    let h = Harness::new();
    let info = h.ok("app_info", json!({}));
    assert_eq!(info["platforms"], 0);
    assert_eq!(info["demo"], false);

    h.ok("load_demo", json!({}));
    let view = h.ok("rank", json!({ "request": { "samples": 200, "seed": 1 } }));
    let platforms = view["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), 6);
    let ranks: Vec<_> = platforms
        .iter()
        .map(|p| p["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5, 6]);
    assert!(h.ok("app_info", json!({}))["demo"].as_bool().unwrap());
}

#[test]
fn slider_weights_re_rank_and_bad_weights_are_refused_with_a_kind() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let order = |weights: Value| -> Vec<String> {
        h.ok(
            "rank",
            json!({ "request": { "weights": weights, "samples": 10 } }),
        )["platforms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_ne!(order(json!([1, 1, 1, 1])), order(json!([0, 0, 0, 1])));

    let err = h
        .call("rank", json!({ "request": { "weights": [1, 1, 1] } }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert!(err["message"].as_str().unwrap().contains("four"));
    let err = h
        .call("rank", json!({ "request": { "weights": [1, -1, 1, 1] } }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
}

#[test]
fn a_cell_explains_its_metrics_and_runs() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let top = h.ok("rank", json!({ "request": { "samples": 10 } }))["platforms"][0].clone();
    let cell = h.ok(
        "explain",
        json!({ "platformId": top["id"], "breakpoint": "sustain", "request": { "samples": 0 } }),
    );
    let metrics = cell["metrics"].as_array().unwrap();
    assert!(metrics.len() >= 5, "{cell}");
    assert!(
        metrics
            .iter()
            .any(|m| !m["runs"].as_array().unwrap().is_empty())
    );
}

#[test]
fn the_report_is_written_where_asked_and_a_bad_date_is_refused() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let err = h.call("open_report", json!({})).unwrap_err();
    assert_eq!(err["kind"], "not_found", "nothing exported yet: {err}");
    let path = h.dir.path().join("decision.pdf");
    let result = h.ok(
        "export_report",
        json!({ "request": { "path": path, "lang": "en", "title": null, "date": "2026-11-30" } }),
    );
    assert!(result["pages"].as_u64().unwrap() >= 3, "{result}");
    assert!(std::fs::read(&path).unwrap().starts_with(b"%PDF"));

    let err = h
        .call(
            "export_report",
            json!({ "request": { "path": h.dir.path().join("x.pdf"), "lang": "en", "title": null, "date": "30/11/2026" } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert!(!h.dir.path().join("x.pdf").exists());
}

#[test]
fn billing_prices_a_workload_on_every_platform() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let bills = h.ok(
        "bill",
        json!({ "workload": "compute=1h42m18s,io-wait=34m42s" }),
    );
    assert_eq!(bills.as_array().unwrap().len(), 6);
    let err = h
        .call("bill", json!({ "workload": "compute=soon" }))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    // The demo's bills against its samples: platform C billed 127 s more
    // than its GPUs worked, platform D exactly its compute.
    let sheets = h.ok("bill_disputes", json!({}));
    let of = |letter: &str| {
        sheets
            .as_array()
            .unwrap()
            .iter()
            .find(|s| {
                s["platform"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("Platform {letter}"))
            })
            .unwrap()
            .clone()
    };
    assert_eq!(of("C")["seconds_in_question"], 127.0, "{}", of("C"));
    assert_eq!(of("C")["rows"][0]["finding"], "idle");
    assert_eq!(of("D")["seconds_in_question"], 0.0);
}
