use crate::util::Workspace;

fn with_platform() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "阿里云"]);
    ws
}

#[test]
fn an_offering_is_normalised_and_priced() {
    let ws = with_platform();
    let o = ws.json(&[
        "offering",
        "add",
        "--platform",
        "阿里云",
        "--accelerator",
        "NVIDIA A100-SXM4-80GB",
        "--count",
        "8",
        "--interconnect",
        "nvswitch",
        "--pcie-gen",
        "4",
        "--pcie-width",
        "16",
        "--price-on-demand",
        "34.5",
        "--price-spot",
        "12",
        "--currency",
        "cny",
    ]);
    assert_eq!(o["accelerator"]["canonical"], "NVIDIA A100 80GB SXM");
    assert_eq!(o["accelerator"]["raw"], "NVIDIA A100-SXM4-80GB");
    assert_eq!(o["vram_gib"], 80);
    assert_eq!(o["prices"]["currency"], "CNY");
    let list = ws.json(&["offering", "list", "--platform", "阿里云"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert!(ws.ok(&["offering", "list"]).contains("34.5 CNY"));
    let id = o["id"].to_string();
    ws.ok(&["offering", "rm", &id]);
    assert_eq!(ws.json(&["offering", "list"]), serde_json::json!([]));
}

#[test]
fn billing_rules_are_set_replaced_and_shown() {
    let ws = with_platform();
    let out = ws.ok(&[
        "billing",
        "set",
        "--platform",
        "阿里云",
        "--granularity",
        "1h",
    ]);
    assert_eq!(
        out,
        "billing rule for 阿里云 (on-demand): per hour, rounding ceil; bills compute, io-wait, idle\n"
    );
    ws.ok(&[
        "billing",
        "set",
        "--platform",
        "阿里云",
        "--granularity",
        "1",
        "--bills-io-wait",
        "false",
        "--bills-idle",
        "false",
    ]);
    let rules = ws.json(&["billing", "show", "--platform", "阿里云"]);
    assert_eq!(rules.as_array().unwrap().len(), 1, "replaced, not added");
    assert_eq!(rules[0]["granularity_s"], 1);
    assert_eq!(rules[0]["bills_io_wait"], false);
    ws.ok(&[
        "billing",
        "set",
        "--platform",
        "阿里云",
        "--mode",
        "spot",
        "--granularity",
        "60",
    ]);
    assert_eq!(
        ws.json(&["billing", "show", "--platform", "阿里云"])
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// A run or a billing rule of one platform never takes another's
/// offering: refused by name, before any file is read, nothing changed.
#[test]
fn another_platforms_offering_is_refused_everywhere() {
    let ws = Workspace::new();
    for name in ["P", "Q"] {
        ws.ok(&["platform", "add", name]);
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            name,
            "--accelerator",
            "H100",
            "--count",
            "8",
        ]);
    }
    ws.fails(
        &[
            "billing",
            "set",
            "--platform",
            "P",
            "--offering",
            "2",
            "--granularity",
            "60",
        ],
        1,
        "error: offering: offering 2 does not belong to platform \"P\"",
    );
    ws.fails(
        &[
            "import",
            "--platform",
            "P",
            "--offering",
            "2",
            &crate::util::fixture("smi-csv/crlf.csv"),
        ],
        1,
        "error: offering: offering 2 does not belong to platform \"P\"",
    );
}
