//! The Campaigns screen's commands against the fake cloud: a plan shown
//! before anything runs, nothing launched without the native yes, a
//! campaign run in the background and listed with its stages.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::Harness;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/campaign")
}

/// The fake cloud's recipe with its commands pointed at the fake cloud and
/// its state in the harness's directory.
fn recipe(h: &Harness) -> String {
    let prefix = format!(
        "FAKECLOUD_DIR='{}' '{}' ",
        h.dir.path().join("cloud").display(),
        fixtures().join("fakecloud").display()
    );
    let text = std::fs::read_to_string(fixtures().join("fake.toml"))
        .unwrap()
        .replace("\"fakecloud ", &format!("\"{}", prefix));
    let path = h.dir.path().join("fake.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn form(recipe: &str, scenario: &str, count: u32) -> Value {
    json!({ "form": {
        "recipe_path": recipe, "scenario": scenario, "platform": null,
        "count": count, "spacing_ms": 100, "image": "warm"
    }})
}

fn running(h: &Harness) -> usize {
    std::fs::read_dir(h.dir.path().join("cloud"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("i-"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_plan_is_shown_and_nothing_launches_without_the_native_yes() {
    let h = Harness::new();
    h.platform("Fake cloud");
    let bad = h.dir.path().join("bad.toml");
    std::fs::write(&bad, "[[offering]]\nname = \"x\"\n[commands\n").unwrap();
    let e = h
        .call("campaign_plan", form(bad.to_str().unwrap(), "peak", 2))
        .unwrap_err();
    assert_eq!(e["field"], "recipe_path", "{e}");
    assert!(e["message"].as_str().unwrap().contains("bad.toml:3"), "{e}");

    let recipe = recipe(&h);
    let plan = h.ok("campaign_plan", form(&recipe, "peak", 3));
    assert_eq!(
        (plan["platform"].as_str(), plan["instances"].as_u64()),
        (Some("Fake cloud"), Some(3))
    );
    assert_eq!(plan["cost"][0], "0.26 CNY");
    assert!(
        plan["attempts"][0]["commands"][0]
            .as_str()
            .unwrap()
            .starts_with("launch: ")
    );

    // The dialog says no: nothing launched, nothing in the ledger.
    let e = h
        .call("campaign_run", form(&recipe, "peak", 3))
        .unwrap_err();
    assert_eq!(e["kind"], "cancelled");
    let asked = h.campaigns_asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    let (title, text) = asked[0].question();
    assert_eq!(title, "Launch instances?");
    assert!(
        text.contains("launch 3 instance(s) on Fake cloud") && text.contains("at most 0.26 CNY"),
        "{text}"
    );
    assert_eq!(running(&h), 0);
    assert!(
        h.ok("campaign_outstanding", json!({}))
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_confirmed_campaign_runs_in_the_background_and_is_listed() {
    let h = Harness::new();
    h.platform("Fake cloud");
    let recipe = recipe(&h);
    h.campaign_answer.store(true, Ordering::SeqCst);
    let started = h.ok("campaign_run", form(&recipe, "baseline", 2));
    assert_eq!(started["instances"], 2);
    let deadline = Instant::now() + Duration::from_secs(30);
    let rows = loop {
        let rows = h.ok("list_campaigns", json!({}));
        if !rows.as_array().unwrap().is_empty() {
            break rows;
        }
        assert!(Instant::now() < deadline, "the campaign never finished");
        std::thread::sleep(Duration::from_millis(100));
    };
    let row = &rows[0];
    assert_eq!(
        (row["attempts"].as_u64(), row["ok"].as_u64()),
        (Some(2), Some(2)),
        "{row}"
    );
    assert_eq!(row["scenario"], "baseline");
    assert_eq!(row["name"], started["name"]);
    assert!(row["stages_svg"].as_str().unwrap().starts_with("<svg"));
    assert_eq!(running(&h), 0);
    assert!(
        h.ok("campaign_outstanding", json!({}))
            .as_array()
            .unwrap()
            .is_empty()
    );
}
