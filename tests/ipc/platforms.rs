//! Platforms, offerings, billing rules and claims: edits and the field
//! each refusal names.

use serde_json::json;

use crate::harness::*;

#[test]
fn platforms_are_added_listed_and_validated() {
    let h = Harness::new();
    let name = "<img src=x onerror=alert(1)> 阿里云";
    let id = h.ok(
        "add_platform",
        json!({ "platform": { "name": name, "kind": "hyperscaler", "notes": null } }),
    );
    let list = h.ok("list_platforms", json!({}));
    assert_eq!(list[0]["name"], name, "names are stored verbatim");
    assert_eq!(list[0]["id"], id);

    let err = h
        .call(
            "add_platform",
            json!({ "platform": { "name": name, "kind": "hyperscaler", "notes": null } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "conflict", "{err}");
    let err = h
        .call(
            "add_platform",
            json!({ "platform": { "name": "x", "kind": "spaceship", "notes": null } }),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "invalid", "{err}");
    let err = h.call("platform_detail", json!({ "id": 999 })).unwrap_err();
    assert_eq!(err["kind"], "not_found", "{err}");

    let templates = h.ok("templates", json!({}));
    let first = templates[0]["name"].as_str().unwrap().to_string();
    let tid = h.ok("add_template", json!({ "name": first }));
    let detail = h.ok("platform_detail", json!({ "id": tid }));
    assert!(!detail["claims"].as_array().unwrap().is_empty(), "{detail}");

    h.ok("delete_platform", json!({ "id": tid }));
    assert_eq!(
        h.ok("list_platforms", json!({})).as_array().unwrap().len(),
        1
    );
}

#[test]
fn offerings_and_billing_rules_are_edited_with_field_errors() {
    let h = Harness::new();
    let id = h.platform("p");
    let offering = |count: u32, price: f64| {
        json!({ "platformId": id, "offering": {
            "accelerator": "NVIDIA A100-SXM4-80GB", "count": count, "currency": "CNY",
            "price_on_demand": price, "price_spot": null, "region": null } })
    };
    let oid = h.ok("add_offering", offering(8, 12.8));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert_eq!(detail["offerings"][0]["count"], 8);
    assert!(
        detail["offerings"][0]["accelerator"]
            .as_str()
            .unwrap()
            .contains("A100")
    );

    let err = h.call("add_offering", offering(8, -1.0)).unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert_eq!(err["field"], "price_on_demand", "{err}");
    let err = h.call("add_offering", offering(0, 1.0)).unwrap_err();
    assert_eq!(err["field"], "count", "{err}");

    let rule = |granularity: u32, rounding: &str| {
        json!({ "platformId": id, "rule": {
            "mode": "on-demand", "granularity_s": granularity,
            "minimum_charge_s": 0, "rounding": rounding, "bills_io_wait": false, "bills_idle": true } })
    };
    h.ok("set_billing_rule", rule(3600, "ceil"));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert!(
        detail["billing"][0].as_str().unwrap().contains("3600 s"),
        "{detail}"
    );
    let err = h.call("set_billing_rule", rule(0, "ceil")).unwrap_err();
    assert_eq!(err["field"], "granularity_s", "{err}");
    let err = h
        .call("set_billing_rule", rule(60, "sometimes"))
        .unwrap_err();
    assert_eq!(err["field"], "rounding", "{err}");

    h.ok("delete_offering", json!({ "id": oid }));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert!(detail["offerings"].as_array().unwrap().is_empty());
}

#[test]
fn claims_are_recorded_with_their_source_and_validated() {
    let h = Harness::new();
    let id = h.platform("p");
    let claim = |subject: &str, source: &str| {
        json!({ "platformId": id, "claim": {
            "subject": subject, "value": 99.9, "unit": "%", "text": "SLA availability", "source": source } })
    };
    h.ok("add_claim", claim("availability", "contract §4.2"));
    let detail = h.ok("platform_detail", json!({ "id": id }));
    assert_eq!(detail["claims"][0]["subject"], "availability", "{detail}");
    assert_eq!(detail["claims"][0]["source"], "contract §4.2");

    let err = h
        .call("add_claim", claim("availability", "  "))
        .unwrap_err();
    assert_eq!(err["kind"], "invalid");
    assert_eq!(err["field"], "source", "{err}");
    let err = h.call("add_claim", claim("", "x")).unwrap_err();
    assert_eq!(err["field"], "subject", "{err}");
}
