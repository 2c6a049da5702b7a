//! The providers' bill exports imported exactly, and reconciled with what
//! was measured: planted over-billing found and priced to the cent, and the
//! dispute sheet listing exactly the lines in question.

use crate::util::{Workspace, fixture};

/// The dispute sheet's rows for the workspace's one platform.
fn sheet(ws: &Workspace) -> serde_json::Value {
    let sheets = ws.json(&["bill", "--disputes"]);
    assert_eq!(sheets.as_array().unwrap().len(), 1, "{sheets}");
    sheets[0]["reconciliation"].clone()
}

/// Each row with money in question: (finding, instance, seconds, amount).
fn in_question(r: &serde_json::Value) -> Vec<(String, String, f64, String)> {
    r["disputes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["amount_in_question"].as_str() != Some("0.00"))
        .map(|d| {
            (
                d["finding"].as_str().unwrap().to_string(),
                d["instance"].as_str().unwrap().to_string(),
                d["seconds_in_question"].as_f64().unwrap(),
                d["amount_in_question"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn lab_with_evidence() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    // The platform promises per-second billing.
    ws.ok(&["billing", "set", "--platform", "Lab", "--granularity", "1s"]);
    ws.ok(&["import", "--platform", "Lab", &fixture("../bills/evidence")]);
    ws
}

#[test]
fn every_export_shape_imports_to_the_cent_and_gives_the_same_disputes() {
    for (file, provider, lines, billed, currency, host_matched) in [
        (
            "alibaba-instance-bill.csv",
            "Alibaba Cloud bill details",
            3,
            "163.58",
            "CNY",
            "i-bp1node7",
        ),
        // The same export saved again by a spreadsheet on Chinese Windows.
        (
            "alibaba-instance-bill-gbk.csv",
            "Alibaba Cloud bill details",
            3,
            "163.58",
            "CNY",
            "i-bp1node7",
        ),
        (
            "tencent-bill-detail.csv",
            "Tencent Cloud bill details",
            3,
            "163.58",
            "CNY",
            "ins-node7",
        ),
        (
            "huawei-expenditure-details.csv",
            "Huawei Cloud expenditure details",
            3,
            "163.58",
            "CNY",
            "5e7c0d1a-node7",
        ),
        (
            "aws-cur.csv",
            "AWS Cost and Usage Report",
            6,
            "163.5833333323",
            "USD",
            "i-0node7",
        ),
        (
            "autodl-charges.csv",
            "AutoDL-style charge list",
            3,
            "163.58",
            "CNY",
            "node7-6f2c",
        ),
        ("generic-bill.csv", "", 3, "163.58", "CNY", "node-7"),
    ] {
        let ws = lab_with_evidence();
        let path = fixture(&format!("../bills/{file}"));
        let out = ws.ok(&["import", "--platform", "Lab", &path]);
        let format = if provider.is_empty() {
            "billing-lines"
        } else {
            "bill-export"
        };
        assert!(out.contains(&format!("{format} → run 4")), "{file}: {out}");
        let run = ws.json(&["runs", "show", "4"]);
        if !provider.is_empty() {
            assert_eq!(
                run["metadata"]["bill_export"]["provider"], provider,
                "{file}"
            );
        }
        let r = sheet(&ws);
        assert_eq!(r["lines"], lines, "{file}");
        // Every amount kept exactly as written: the sum to the last digit.
        assert_eq!(
            r["amounts"][currency][0], billed,
            "{file}: {}",
            r["amounts"]
        );
        // The same planted over-billing whatever the shape: the idle hour of
        // gpu-node-7 (by its name and time), the probe job's 59 s rounding.
        let found = in_question(&r);
        let idle = found
            .iter()
            .find(|d| d.0 == "idle")
            .unwrap_or_else(|| panic!("{file}: {found:?}"));
        assert_eq!(
            (idle.1.as_str(), idle.2, idle.3.as_str()),
            (host_matched, 3600.0, "32.50"),
            "{file}"
        );
        let rounding = found.iter().find(|d| d.0 == "rounding").unwrap();
        assert_eq!(
            (rounding.1.as_str(), rounding.2, rounding.3.as_str()),
            ("i-probe1", 59.0, "0.53"),
            "{file}"
        );
        assert_eq!(
            found.len(),
            2,
            "{file}: exactly the planted lines: {found:?}"
        );
        // And the questions: a line nothing measured, a node no line bills.
        let findings: Vec<&str> = r["disputes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["finding"].as_str().unwrap())
            .collect();
        assert!(
            findings.contains(&"unmatched") && findings.contains(&"not-billed"),
            "{file}: {findings:?}"
        );
    }
}

#[test]
fn the_bill_moves_the_billing_metrics_and_the_sheet_writes_as_csv() {
    let ws = lab_with_evidence();
    ws.ok(&[
        "import",
        "--platform",
        "Lab",
        &fixture("../bills/alibaba-instance-bill.csv"),
    ]);
    let metric = |key: &str| ws.metric("Lab", key)["value"].as_f64().unwrap();
    // 3600 idle of 14400 sampled; 3659 of 18120 billed seconds in question.
    assert_eq!(metric("billing.billed_idle_pct"), 25.0);
    assert!((metric("billing.disputed_pct") - 100.0 * 3659.0 / 18120.0).abs() < 1e-9);
    // The probe's 61 s job billed 120 s: the bill rounds to the minute.
    assert_eq!(metric("billing.granularity_s"), 60.0);
    let csv = ws.dir.path().join("disputes.csv");
    ws.ok(&["bill", "--disputes", "-o", csv.to_str().unwrap()]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.starts_with("platform,finding,line_id,instance"),
        "{text}"
    );
    assert!(
        text.contains("Lab,billed while no GPU worked,,i-bp1node7,2026-11-20T08:00:00Z,2026-11-20T12:00:00Z,14400,130.00,CNY,3600,32.50,"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 5, "a header and four rows: {text}");
}

#[test]
fn an_instance_billed_after_its_measured_teardown_is_priced_exactly() {
    let cloud = crate::campaign::Cloud::new();
    let (code, _, err) = cloud.output(
        &[
            "campaign",
            "run",
            &crate::campaign::recipe(),
            "--count",
            "1",
            "--yes",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let run = cloud.ws.json(&["runs", "show", "1"]);
    let attempt = &run["metadata"]["campaign"]["attempts"][0];
    let (id, submitted, torn_down) = (
        attempt["id"].as_str().unwrap(),
        attempt["submitted_at"]
            .as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap(),
        attempt["torn_down_at"]
            .as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap(),
    );
    // Billed half an hour past the teardown the platform confirmed.
    let end = torn_down + jiff::SignedDuration::from_secs(1800);
    let billed = (end.as_millisecond() - submitted.as_millisecond()) as f64 / 1000.0;
    let bill = cloud.ws.dir.path().join("bill.csv");
    std::fs::write(
        &bill,
        format!(
            "line_id,instance,start,end,billed_seconds,amount,currency,unit_price\nL-9,{id},{submitted},{end},{billed},50.00,CNY,10\n"
        ),
    )
    .unwrap();
    cloud
        .ws
        .ok(&["import", "--platform", "Fake cloud", bill.to_str().unwrap()]);
    let sheets = cloud
        .ws
        .json(&["bill", "--disputes", "--platform", "Fake cloud"]);
    let found = in_question(&sheets[0]["reconciliation"]);
    assert_eq!(found.len(), 1, "{found:?}");
    let (finding, instance, seconds, amount) = &found[0];
    assert_eq!(
        (finding.as_str(), instance.as_str()),
        ("after-teardown", id)
    );
    assert!((seconds - 1800.0).abs() < 1e-6, "{seconds}");
    // 50.00 × 1800 / billed, to the cent.
    let expected = (50.0 * 1800.0 / billed * 100.0).round() / 100.0;
    assert_eq!(amount.parse::<f64>().unwrap(), expected);
    assert_eq!(sheets[0]["reconciliation"]["disputes"][0]["line_id"], "L-9");
}

#[test]
fn a_bill_row_that_cannot_be_read_is_refused_naming_its_line_and_column() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let text = std::fs::read_to_string(fixture("../bills/tencent-bill-detail.csv")).unwrap();
    let broken = ws.dir.path().join("tencent.csv");
    std::fs::write(&broken, text.replacen("1.08,1.08\n", "1.08,abc\n", 1)).unwrap();
    let path = broken.to_str().unwrap().to_string();
    ws.fails(
        &["import", "--platform", "Lab", &path],
        1,
        &format!("error: {path}:3:14: 总费用: \"abc\" is not an amount of money"),
    );
    // A header that names no amount is not a bill at all.
    let no_amount = ws.dir.path().join("no-amount.csv");
    std::fs::write(
        &no_amount,
        "实例ID,开始时间,结束时间\ni-1,2026-11-20 16:00:00,2026-11-20 17:00:00\n",
    )
    .unwrap();
    let out = ws
        .cmd(&[
            "import",
            "--platform",
            "Lab",
            "--format",
            "bill-export",
            no_amount.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the header names no instance, amount and billed period"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A 3-hour line over a log of its first 44 minutes: the rest is billed
/// time no measurement covers — counted and priced as unmeasured, never
/// read as borne out — and the CSV writes its seconds and money exactly.
#[test]
fn a_bill_beyond_the_logs_is_unmeasured_not_borne_out() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let mut log = vec![
        serde_json::json!({
            "format": "breakpoint-probe", "version": 1, "host": "gpu-a",
            "started_at": "2026-11-20T08:00:00Z", "interval_ms": 60000,
            "gpus": [{"index": 0}]
        })
        .to_string(),
    ];
    for minute in 0..44 {
        log.push(
            serde_json::json!({
                "t": 1_763_625_600_000i64 + minute * 60_000, "gpu": 0,
                "util_gpu_pct": 99, "power_mw": 300_000
            })
            .to_string(),
        );
    }
    let probe = ws.dir.path().join("gpu-a.jsonl");
    std::fs::write(&probe, log.join("\n") + "\n").unwrap();
    ws.ok(&["import", "--platform", "Lab", probe.to_str().unwrap()]);
    let bill = ws.dir.path().join("bill.csv");
    std::fs::write(
        &bill,
        "instance,start,end,billed_seconds,amount,currency,unit_price,host\n\
         i-9,2026-11-20T08:00:00Z,2026-11-20T11:00:00Z,10800,108.324,CNY,36.108,gpu-a\n",
    )
    .unwrap();
    ws.ok(&["import", "--platform", "Lab", bill.to_str().unwrap()]);
    let r = sheet(&ws);
    assert!(r["seconds_unmeasured"].as_f64().unwrap() >= 8000.0, "{r}");
    assert_eq!(r["seconds_in_question"].as_f64(), Some(0.0), "{r}");
    let text = ws.ok(&["bill", "--disputes"]);
    assert!(
        text.contains("billed seconds no measurement covers (") && text.contains("not borne out"),
        "{text}"
    );
    assert!(text.contains("billed beyond what was measured"), "{text}");
    // The PDF's page says the same sentence and cell, never "0 s" for
    // time that was not watched.
    let unmeasured = text
        .lines()
        .find(|l| l.contains("billed seconds no measurement covers"))
        .unwrap()
        .trim()
        .to_string();
    let cell = format!(
        "{:.0} s unmeasured, ",
        r["seconds_unmeasured"].as_f64().unwrap()
    );
    assert!(text.contains(&cell), "{text}");
    let pdf = ws.dir.path().join("report.pdf");
    ws.ok(&[
        "report",
        "-o",
        pdf.to_str().unwrap(),
        "--date",
        "2026-12-08",
    ]);
    let pages = crate::util::pdf_pages_text(&pdf, 1, 100);
    assert!(pages.contains(&unmeasured), "{unmeasured}");
    assert!(pages.contains(&cell), "{cell}");
    let csv = ws.dir.path().join("disputes.csv");
    ws.ok(&["bill", "--disputes", "-o", csv.to_str().unwrap()]);
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(written.contains(",10800,108.324,CNY,0,0.00,"), "{written}");
    assert!(!written.contains("0000000"), "float dust in {written}");
    let detail = ws.metric("Lab", "billing.disputed_pct").to_string();
    assert!(detail.contains("no measurement covers"), "{detail}");
}
