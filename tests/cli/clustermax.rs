//! The decision matrix in ClusterMAX's categories through the binary: every
//! category listed with its measured metrics and its unmeasured expected
//! checks (with the command for each), a cmax audit's results with its date,
//! the same view as JSON and on the PDF's page, and output that fits 100
//! columns when piped.

use unicode_width::UnicodeWidthStr;

use crate::util::{Workspace, fixture, pdf_pages_text};

const AUDIT: &str = "health/cmax/audit.values.json";
const BURN: &str = "health/gpu-burn/a100-8gpu-ok-cr-progress.log";
const NCCL: &str = "health/nccl/h100-8gpu-1node-v2.17.8-allcollectives.log";
const SAMPLES: &str = "smi-csv/driver-610.csv";

/// Audited: the cmax audit and a burn-in. Tested: a collective in a node
/// and a sampled log.
fn workspace() -> Workspace {
    let ws = Workspace::new();
    for p in ["Audited", "Tested"] {
        ws.ok(&["platform", "add", p]);
    }
    let out = ws.ok(&["import", &fixture(AUDIT), "--platform", "Audited"]);
    assert!(
        out.contains("cmax-audit") && out.contains("22 results (6 to look at)"),
        "{out}"
    );
    ws.ok(&["import", &fixture(BURN), "--platform", "Audited"]);
    ws.ok(&["import", &fixture(NCCL), "--platform", "Tested"]);
    ws.ok(&["import", &fixture(SAMPLES), "--platform", "Tested"]);
    ws
}

fn category<'a>(view: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    view["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == name)
        .unwrap_or_else(|| panic!("no category {name}"))
}

fn check<'a>(category: &'a serde_json::Value, starts: &str) -> &'a serde_json::Value {
    category["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with(starts))
        .unwrap_or_else(|| panic!("no check {starts} in {}", category["category"]))
}

#[test]
fn every_category_lists_its_measured_metrics_its_unmeasured_checks_and_the_audit() {
    let ws = workspace();
    let view = ws.json(&["report", "--categories", "clustermax"]);
    let platforms: Vec<&str> = view["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let at = |name: &str| platforms.iter().position(|p| *p == name).unwrap();
    let (audited, tested) = (at("Audited"), at("Tested"));
    let names: Vec<&str> = view["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["category"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "security",
            "lifecycle",
            "orchestration",
            "storage",
            "networking",
            "reliability",
            "monitoring",
            "pricing",
            "partnerships",
            "availability"
        ]
    );

    // Security: the audit's own results, dated, failures first.
    let security = category(&view, "security");
    assert!(security["metrics"].as_array().unwrap().is_empty());
    let audit = &security["audits"][0];
    assert_eq!(audit["platform"], "Audited");
    assert_eq!(
        audit["said"],
        "cmax audit of example-b300 (login-0), 2026-06-03: 2 fail, 1 host patch required, 1 manual, 1 unknown, 2 pass, 9 not applicable"
    );
    assert_eq!(
        audit["results"][1],
        "fail — securityVersions.nvidiaDriver: 580.126.09, minimum 580.159.03 — Below the minimum version"
    );
    let audited_check = check(security, "Versions, isolation");
    assert_eq!(audited_check["measured"][audited], "1 run");
    assert!(audited_check["measured"][tested].is_null());
    assert!(
        audited_check["command"]
            .as_str()
            .unwrap()
            .starts_with("cmax audit security")
    );

    // Networking: the collective inside a node measured on Tested, its
    // figure placed here; the fabric test and RDMA not, with their commands.
    let networking = category(&view, "networking");
    let fabric = &networking["metrics"][0];
    assert_eq!(fabric["key"], "sustain.fabric_nominal_pct");
    assert!(fabric["figures"][tested].as_str().unwrap().ends_with('%'));
    assert_eq!(fabric["figures"][audited], "–");
    assert_eq!(
        check(networking, "NCCL all-reduce inside a node")["measured"][tested],
        "1 run"
    );
    let across = check(networking, "NCCL all-reduce across nodes");
    assert!(
        across["measured"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.is_null())
    );
    assert!(
        across["command"]
            .as_str()
            .unwrap()
            .contains("NCCL_P2P_DISABLE=1")
    );

    // Reliability: the burn-in on Audited; ECC counts watched nowhere.
    let reliability = category(&view, "reliability");
    assert_eq!(check(reliability, "Burn-in")["measured"][audited], "1 run");
    assert!(check(reliability, "Burn-in")["measured"][tested].is_null());
    let ecc = check(reliability, "ECC");
    assert!(
        ecc["measured"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.is_null())
    );
    // Link flaps are the one expectation Breakpoint does not read yet.
    assert_eq!(check(networking, "InfiniBand")["not_read"], true);

    // Monitoring: the sampled log could have shown a stalled collective.
    let monitoring = category(&view, "monitoring");
    assert_eq!(
        check(monitoring, "Stalled collective")["measured"][tested],
        "1 run"
    );

    // Partnerships: neither measures it, and the view says so.
    let partnerships = category(&view, "partnerships");
    assert!(partnerships["checks"].as_array().unwrap().is_empty());
    assert!(
        partnerships["evidenced_by"]
            .as_str()
            .unwrap()
            .contains("neither Breakpoint nor a cmax audit")
    );

    // The audit is never scored: no metric of Audited comes from it.
    let explained = ws.json(&["explain", "Audited"]);
    let runs_behind: Vec<i64> = explained["breakpoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["metrics"].as_array().unwrap())
        .flat_map(|m| m["runs"].as_array().cloned().unwrap_or_default())
        .filter_map(|r| r["run_id"].as_i64())
        .collect();
    let audit_run = ws
        .json(&["runs", "list"])
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provenance"]["format"] == "cmax-audit")
        .and_then(|r| r["id"].as_i64())
        .unwrap();
    assert!(
        !runs_behind.is_empty() && !runs_behind.contains(&audit_run),
        "{runs_behind:?}"
    );
}

#[test]
fn the_view_fits_a_hundred_columns_when_piped_and_the_pdf_carries_its_page() {
    let ws = workspace();
    let text = ws.piped(&["report", "--categories", "clustermax"]);
    for line in text.lines() {
        assert!(line.width() <= 100, "{} columns: {line}", line.width());
    }
    for heading in [
        "Security — a cmax audit's results (Breakpoint measures none of it)",
        "Networking — measured by Breakpoint; a cmax audit's results beside",
        "Partnerships — measured by neither Breakpoint nor a cmax audit",
    ] {
        assert!(text.contains(heading), "{heading}\n{text}");
    }
    assert!(text.contains("To measure — DCGM diagnostics (dcgmi diag -r 3): dcgmi diag -r 3"));
    assert!(text.contains("fail — securityVersions.nvidiaDriver"));

    let pdf = ws.dir.path().join("matrix.pdf");
    let out = ws.ok(&[
        "report",
        "--categories",
        "clustermax",
        "-o",
        pdf.to_str().unwrap(),
        "--date",
        "2026-12-08",
    ]);
    assert!(
        out.contains("Security —") && out.contains("wrote "),
        "{out}"
    );
    let all = pdf_pages_text(&pdf, 1, 200);
    let page = all
        .split("The matrix in ClusterMAX's categories")
        .nth(1)
        .expect("the ClusterMAX page");
    for said in [
        "Security — a cmax audit's results",
        "cmax audit of example-b300 (login-0), 2026-06-03",
        "Burn-in (gpu-burn or gpu-fryer)",
        "not read by Breakpoint yet; shown by perfquery",
        "Partnerships — measured by neither",
    ] {
        assert!(page.contains(said), "{said}");
    }
}

#[test]
fn an_audit_of_another_schema_or_runner_is_refused_with_its_reason() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    let mut audit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(AUDIT)).unwrap()).unwrap();
    audit["schema_version"] = 2.into();
    let v2 = ws.dir.path().join("v2.json");
    std::fs::write(&v2, audit.to_string()).unwrap();
    ws.fails(
        &["import", v2.to_str().unwrap(), "--platform", "P"],
        1,
        &format!(
            "error: {}: schema_version 2: this reader knows cmax's version 1",
            v2.display()
        ),
    );
    audit["schema_version"] = 1.into();
    audit["runner"] = "benchmark".into();
    let bench = ws.dir.path().join("bench.json");
    std::fs::write(&bench, audit.to_string()).unwrap();
    ws.fails(
        &["import", bench.to_str().unwrap(), "--platform", "P"],
        1,
        &format!(
            "error: {}: runner \"benchmark\": only an audit's values are read (runner \"audit\")",
            bench.display()
        ),
    );
}
