//! rank, explain, bill, weights and demo through the binary.

use crate::util::{Workspace, fixture};

fn demo() -> Workspace {
    let ws = Workspace::new();
    let out = ws.ok(&["demo", "--samples", "500"]);
    assert!(out.starts_with("Built the demo workspace in"), "{out}");
    ws
}

fn order(ranking: &serde_json::Value) -> Vec<String> {
    ranking["ranking"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_demo_builds_once_and_ranks_all_six() {
    let ws = demo();
    let again = ws.ok(&["demo", "--samples", "500"]);
    assert!(
        again.starts_with("The demo workspace is already in"),
        "{again}"
    );
    let ranked = ws.json(&["rank", "--samples", "500"]);
    let platforms = ranked["ranking"]["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), 6);
    assert!(
        platforms
            .iter()
            .all(|p| p["rank"].is_u64() && p["coverage"].as_f64().unwrap() > 0.9)
    );
    assert!(
        platforms
            .iter()
            .all(|p| p["notes"].as_str().unwrap().starts_with("DEMO DATA"))
    );
    let p1: f64 = ranked["robustness"]["acceptability"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["ranks"][0].as_f64().unwrap())
        .sum();
    assert!((p1 - 1.0).abs() < 1e-9);
    let table = ws.ok(&["rank", "--samples", "500"]);
    assert!(
        table.contains("Platform D (demo)") && table.contains("P(rank 1)"),
        "{table}"
    );
}

#[test]
fn weights_change_the_order_as_rank_says() {
    let ws = demo();
    let balanced = ws.json(&["rank", "--samples", "200"]);
    let billing_only = ws.json(&[
        "rank",
        "--samples",
        "200",
        "--weight",
        "startup=0",
        "--weight",
        "sustain=0",
        "--weight",
        "switch=0",
        "--weight",
        "billing=1",
    ]);
    assert_ne!(order(&balanced), order(&billing_only));
    // Each flip sentence is borne out by ranking at the weight it names.
    let flips = balanced["robustness"]["flips"].as_array().unwrap();
    let flip = flips.iter().find(|f| !f.is_null()).unwrap();
    let (b, from, to) = (
        flip["breakpoint"].as_str().unwrap(),
        flip["from_share"].as_f64().unwrap(),
        flip["to_share"].as_f64().unwrap(),
    );
    // Just past the named share, in the direction the weight moves.
    let to = if to > from { to + 1e-6 } else { to - 1e-6 };
    let others = ["startup", "sustain", "switch", "billing"];
    let mut args: Vec<String> = vec!["rank".into(), "--samples".into(), "0".into()];
    let rest = 1.0 - to;
    for o in others {
        let w = if o == b { to } else { rest / 3.0 };
        args.push("--weight".into());
        args.push(format!("{o}={w}"));
    }
    // Equal shares elsewhere are only right when the profile had them: balanced does.
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let flipped = ws.json(&refs);
    let names = order(&flipped);
    let pos = |n: &str| names.iter().position(|x| x == n).unwrap();
    assert!(
        pos(flip["lower"].as_str().unwrap()) < pos(flip["upper"].as_str().unwrap()),
        "{flip}"
    );
}

#[test]
fn explain_names_values_scores_and_runs() {
    let ws = demo();
    let out = ws.ok(&["explain", "Platform E (demo)", "sustain"]);
    assert!(
        out.contains("sustain.power_drop_pct") && out.contains("demo-e-nvidia-smi.csv"),
        "{out}"
    );
    assert!(out.contains("worst GPU"), "{out}");
    let json = ws.json(&["explain", "Platform A (demo)"]);
    let startup = &json["breakpoints"][0];
    let mismatch = startup["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "startup.delivery_mismatches")
        .unwrap();
    assert_eq!(mismatch["value"], 1.0);
    assert!(
        mismatch["details"][0]
            .as_str()
            .unwrap()
            .contains("PCIe x8 for PCIe x16")
    );
    assert_eq!(
        mismatch["runs"][0]["sha256_prefix"].as_str().unwrap().len(),
        12
    );
    let metrics = ws.ok(&["explain", "--metrics"]);
    assert!(metrics.starts_with("# Metrics"));
    ws.fails(
        &["explain", "Nowhere"],
        1,
        "error: platform \"Nowhere\" not found",
    );
}

#[test]
fn the_metric_catalogue_needs_no_workspace() {
    let ws = Workspace::new();
    let metrics = ws.ok(&["explain", "--metrics"]);
    assert!(metrics.starts_with("# Metrics"), "{metrics}");
    assert!(metrics.contains("sustain.power_drop_pct"), "{metrics}");
    assert!(!ws.db.exists(), "reading the catalogue creates no database");
}

#[test]
fn bill_prices_the_reference_job_on_every_rule() {
    let ws = demo();
    let bills = ws.json(&["bill"]);
    let amount = |name: &str| {
        bills["bills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["platform"] == name)
            .unwrap()["bill"]["amount"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Money to the cent, written as exact decimal text ("38.40", never
    // 38.400000000000006).
    assert_eq!(amount("Platform A (demo)"), "38.40");
    assert_eq!(amount("Platform D (demo)"), "21.82");
    let raw = ws.ok(&["bill", "--json"]);
    assert!(!raw.contains("00000000"), "float dust in {raw}");
    let spec = ws.json(&["bill", "--workload", "compute=20s,sessions=288"]);
    assert_eq!(spec["workload"]["sessions"].as_array().unwrap().len(), 288);
    let table = ws.ok(&["bill", "--workload", "compute=1h42m18s,io-wait=34m42s"]);
    assert!(
        table.contains("38.40 CNY") && table.contains("21.82 CNY"),
        "{table}"
    );
    ws.fails(
        &["bill", "--workload", "nap=1h"],
        1,
        "error: phase: unknown value \"nap\" (expected one of: queue, compute, io-wait, idle)",
    );
    let runs = ws.json(&["runs", "list", "--platform", "Platform D (demo)"]);
    let from_run = ws.json(&["bill", "--from-run", &runs[0]["id"].to_string()]);
    assert!(
        from_run["workload"]["sessions"][0]["segments"][0]["seconds"]
            .as_f64()
            .unwrap()
            > 100_000.0
    );
}

#[test]
fn weight_profiles_are_listed_created_changed_and_protected() {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    let list = ws.json(&["weights", "list"]);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "balanced",
            "urgent-delivery",
            "long-running-inference",
            "domestic-accelerators",
            "training-at-scale"
        ]
    );
    ws.ok(&[
        "weights",
        "add",
        "ours",
        "--from",
        "urgent-delivery",
        "--billing",
        "0.6",
        "--metric",
        "sustain.memory_plateau_h=1",
        "--curve",
        "startup.peak_p50_s=10:600:log",
        "--threshold",
        "0.3",
    ]);
    let ours = ws.json(&["weights", "show", "ours"]);
    assert_eq!(ours["breakpoints"]["billing"], 0.6);
    assert_eq!(ours["breakpoints"]["startup"], 0.5);
    assert_eq!(ours["metrics"]["sustain.memory_plateau_h"], 1.0);
    assert_eq!(ours["curves"]["startup.peak_p50_s"]["worst"], 600.0);
    assert_eq!(ours["coverage_threshold"], 0.3);
    ws.ok(&["weights", "set", "ours", "--switch", "0"]);
    assert_eq!(
        ws.json(&["weights", "show", "ours"])["breakpoints"]["switch"],
        0.0
    );
    ws.fails(
        &["weights", "set", "balanced", "--switch", "0"],
        1,
        "error: profile: \"balanced\" is a built-in preset; save your changes under another name",
    );
    ws.fails(
        &["weights", "rm", "balanced"],
        1,
        "error: profile: \"balanced\" is a built-in preset and cannot be deleted",
    );
    ws.fails(
        &["weights", "add", "x", "--metric", "speed=2"],
        1,
        "error: --metric speed=2: \"speed\" is not a metric (see `breakpoint explain --metrics`)",
    );
    ws.fails(
        &["weights", "add", "x", "--startup", "-1"],
        1,
        "error: weight.startup: -1 is negative; it must be ≥ 0",
    );
    ws.fails(
        &["rank", "--profile", "nope"],
        1,
        "error: weight profile \"nope\" not found",
    );
    ws.fails(&["rank", "--weight", "speed=1"], 1, "error: breakpoint: unknown value \"speed\" (expected one of: startup, sustain, switch, billing)");
    ws.ok(&["weights", "rm", "ours"]);
}

#[test]
fn ranking_an_empty_workspace_says_what_to_do() {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    let out = ws.ok(&["rank"]);
    assert!(out.contains("no platforms yet"), "{out}");
    ws.ok(&["platform", "add", "--template", "autodl"]);
    let out = ws.ok(&["rank"]);
    assert!(
        out.contains("Insufficient evidence") && out.contains("AutoDL"),
        "{out}"
    );
}

/// The answer in words: "pick" only where the evidence and the ranking's
/// robustness support it, else a leaning that says it is not a decision,
/// and why, with the plan of what to measure next.
#[test]
fn rank_says_pick_or_not_yet_and_what_to_measure_next() {
    let ws = Workspace::new();
    ws.ok(&["demo"]);
    let decision = ws.json(&["rank"])["decision"].clone();
    assert_eq!(decision["verdict"]["kind"], "pick", "{decision}");
    assert_eq!(decision["verdict"]["platform"], "Platform D (demo)");
    let text = ws.ok(&["rank"]);
    assert!(
        text.contains("Pick Platform D (demo) because it ranks first under"),
        "{text}"
    );
    // The same answer for a Chinese reader, from the same rule.
    let pdf = ws.dir.path().join("zh.pdf");
    ws.ok(&[
        "report",
        "--lang",
        "zh",
        "-o",
        pdf.to_str().unwrap(),
        "--samples",
        "100",
    ]);
    let zh = std::process::Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let zh = String::from_utf8_lossy(&zh.stdout).replace(char::is_whitespace, "");
    assert!(
        zh.contains("选择PlatformD(demo)，因为在您的权重方案附近的"),
        "{}",
        &zh[..zh.len().min(2000)]
    );

    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    ws.ok(&["platform", "add", "Q"]);
    ws.ok(&["import", "--platform", "P", &fixture("smi-q/h200-610.txt")]);
    let decision = ws.json(&["rank"])["decision"].clone();
    assert_eq!(decision["kind"], "leaning", "{decision}");
    assert_eq!(decision["verdict"]["kind"], "leaning", "{decision}");
    let reasons = decision["verdict"]["reasons"].to_string();
    assert!(
        reasons.contains("not ranked for want of evidence: P ("),
        "{reasons}"
    );
    let plan = decision["plan"].as_array().unwrap();
    assert!(!plan.is_empty() && plan.len() <= 7);
    assert!(
        plan.iter().any(|n| n["command"]
            .as_str()
            .unwrap()
            .starts_with("breakpoint campaign run")),
        "{plan:?}"
    );
    let text = ws.ok(&["rank"]);
    assert!(text.contains("Leaning "), "{text}");
    assert!(text.contains("not a decision"), "{text}");
    assert!(!text.contains("Pick "), "{text}");
}

/// A metric measured everywhere whose runs lie far apart is worth
/// measuring again: one node ran at 60 °C, another at 90 °C.
#[test]
fn runs_that_disagree_are_named_among_what_to_measure_next() {
    let ws = Workspace::new();
    let log = |name: &str, temp: u32| {
        let mut csv = String::from("timestamp, index, temperature.gpu, power.draw [W]\n");
        for minute in 0..120 {
            csv.push_str(&format!(
                "2026/06/01 {:02}:{:02}:00.000, 0, {temp}, 300.00 W\n",
                8 + minute / 60,
                minute % 60
            ));
        }
        let path = ws.dir.path().join(name);
        std::fs::write(&path, csv).unwrap();
        path.to_str().unwrap().to_string()
    };
    ws.ok(&["platform", "add", "P"]);
    ws.ok(&["platform", "add", "Q"]);
    for (platform, name, temp) in [("P", "p1.csv", 60), ("P", "p2.csv", 90), ("Q", "q.csv", 61)] {
        ws.ok(&[
            "import",
            "--platform",
            platform,
            "--tz",
            "UTC",
            &log(name, temp),
        ]);
    }
    let sustain_only = [
        "rank",
        "--weight",
        "startup=0",
        "--weight",
        "switch=0",
        "--weight",
        "billing=0",
    ];
    let plan = ws.json(&sustain_only)["decision"]["plan"].clone();
    let spread: Vec<&str> = plan
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["spread"].as_array().unwrap().iter())
        .filter_map(|s| s.as_str())
        .collect();
    assert!(spread.contains(&"Maximum GPU temperature"), "{plan}");
    let text = ws.ok(&sustain_only);
    assert!(
        text.contains("Maximum GPU temperature (runs disagree)"),
        "{text}"
    );
}
