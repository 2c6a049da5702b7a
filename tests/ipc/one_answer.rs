//! One answer everywhere: the job's cost and the ranking's robustness as
//! the app's IPC commands give them, as the API gives them to the command
//! line, and as the report gathers them for the PDF — the same figures to
//! the cent and to the draw, since every face asks with the same draws and
//! seed.

use breakpoint_api::job_cost::{self, CostRequest, JobSpec};
use breakpoint_api::ranking::{self, RankRequest};
use serde_json::json;

use crate::harness::*;

#[test]
fn the_app_the_command_line_and_the_pdf_cost_a_job_the_same() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let spec = "gpus=8,work=2000h@A100-80GB,checkpoint=30m,deadline=14d";
    let app = h.ok(
        "job_cost",
        json!({ "job": spec, "mode": null, "currency": null }),
    );
    let store = breakpoint_api::Store::open(&h.dir.path().join("app.db")).unwrap();
    let job = JobSpec::parse(spec).unwrap();
    let cli = job_cost::cost(&store, &job, &CostRequest::default()).unwrap();
    let report = breakpoint_report::gather(
        &store,
        &RankRequest::default(),
        breakpoint_report::Lang::En,
        Some(&job),
    )
    .unwrap();
    let pdf = report.job_costs.expect("the report's cost page");
    assert_eq!(pdf, cli, "the PDF's costs differ from the command line's");
    assert_eq!(app["answer"], cli.answer);
    assert_eq!(app["reading"], cli.reading);
    let rows = app["rows"].as_array().unwrap();
    assert_eq!(rows.len(), cli.platforms.len());
    let mut priced = 0;
    for (row, p) in rows.iter().zip(&cli.platforms) {
        assert_eq!(row["platform"], p.platform);
        if let Some(m) = &p.cost {
            let band = format!("{} / {} / {} {}", m.p10, m.p50, m.p90, m.currency);
            assert_eq!(row["cost"], band, "{}", p.platform);
            // An honest band: finite evidence is never a point.
            assert!(m.p10 < m.p90, "{}: {band}", p.platform);
            priced += 1;
        }
    }
    assert_eq!(priced, 6, "every demo platform is priced");
}

#[test]
fn the_app_the_command_line_and_the_pdf_rank_with_the_same_draws() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let app = h.ok("rank", json!({ "request": {} }));
    let store = breakpoint_api::Store::open(&h.dir.path().join("app.db")).unwrap();
    let cli = ranking::rank(&store, &RankRequest::default()).unwrap();
    assert_eq!(cli.robustness.samples, ranking::SAMPLES);
    let report = breakpoint_report::gather(
        &store,
        &RankRequest::default(),
        breakpoint_report::Lang::En,
        None,
    )
    .unwrap();
    assert_eq!(report.robustness, cli.robustness);
    assert_eq!(app["samples"], ranking::SAMPLES, "{}", app["samples"]);
}

/// With partial evidence the app leans, gives each platform's chance and
/// the priced plan exactly as the API gives them to the command line and
/// the report, in the same order and the same strings; and its imports
/// keep the decision's history like the command line's.
#[test]
fn the_app_the_command_line_and_the_pdf_lean_and_plan_the_same() {
    let h = Harness::new();
    let p = h.platform("P");
    h.platform("Q");
    let rows = h.ok(
        "import_files",
        json!({ "platformId": p, "paths": [fixture("smi-csv/driver-610.csv")] }),
    );
    assert_eq!(rows[0]["status"], "imported", "{rows}");
    let app = h.ok("rank", json!({ "request": {} }));
    let store = breakpoint_api::Store::open(&h.dir.path().join("app.db")).unwrap();
    let cli = ranking::rank(&store, &RankRequest::default()).unwrap();
    let report = breakpoint_report::gather(
        &store,
        &RankRequest::default(),
        breakpoint_report::Lang::En,
        None,
    )
    .unwrap();
    let d = &cli.decision;
    assert_eq!(d.kind, breakpoint_api::decision::DecisionKind::Leaning);
    assert_eq!(&report.decision, d, "the PDF's decision differs");
    assert_eq!(app["decision"], d.sentence());
    assert_eq!(app["decided"], false);
    let chances: Vec<(String, f64)> = app["p_best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["platform"].as_str().unwrap().to_string(),
                c["p"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, f64)> = d
        .chances()
        .into_iter()
        .map(|(p, c)| (p.to_string(), c))
        .collect();
    assert_eq!(chances, expected);
    assert_eq!(app["chances"], d.chances_said());
    let plan = app["plan"].as_array().unwrap();
    assert_eq!(plan.len(), d.plan.len());
    for (shown, step) in plan.iter().zip(&d.plan) {
        assert_eq!(shown["command"], step.command);
        assert_eq!(shown["cost"], step.cost_in(false));
        assert_eq!(shown["measures"], step.measures_said(false));
        assert_eq!(shown["p_change"], step.p_change);
    }
    // The app's import moved the answer: the history has its entry.
    let log = breakpoint_api::decision_log::entries(&store, 5).unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0]
            .trigger
            .starts_with("import of driver-610.csv (run #1) into P"),
        "{}",
        log[0].trigger
    );
    assert_eq!(report.history, log);
}

#[test]
fn a_stale_price_is_said_by_the_app_as_by_the_command_line_and_the_pdf() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    // A catalog last written 120 days ago: its quotes are dated so.
    let catalog = h.dir.path().join("vms.csv");
    std::fs::write(
        &catalog,
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n\
         p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,,40.9657,12.8813,us-east-1,us-east-1c\n",
    )
    .unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(120 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&catalog)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let rows = h.ok(
        "import_files",
        json!({ "platformId": 1, "paths": [catalog.to_str().unwrap()] }),
    );
    assert_eq!(rows[0]["status"], "imported", "{rows}");
    let store = breakpoint_api::Store::open(&h.dir.path().join("app.db")).unwrap();
    breakpoint_api::exchange_rates::add(&store, "USD", "CNY", "7.1", None, None).unwrap();
    let app = h.ok("rank", json!({ "request": {} }));
    let cli = ranking::rank(&store, &RankRequest::default()).unwrap();
    let stale: Vec<String> = cli
        .prices
        .iter()
        .filter(|p| p.stale)
        .map(|p| p.line(false))
        .collect();
    assert_eq!(stale.len(), 1, "{:?}", cli.prices);
    assert!(stale[0].contains("STALE: 120 days old"), "{stale:?}");
    assert_eq!(app["stale_prices"], json!(stale));
    let report = breakpoint_report::gather(
        &store,
        &RankRequest::default(),
        breakpoint_report::Lang::En,
        None,
    )
    .unwrap();
    assert_eq!(report.prices.len(), cli.prices.len());
    assert!(
        report
            .prices
            .iter()
            .any(|p| p.stale && p.line(false) == stale[0])
    );
}

/// One way to say a figure: every measured metric of a demo platform, as
/// the app's explained cell says it, is the API's string for its value
/// (the one the command line's `explain` prints) and stands in the PDF's
/// breakpoint pages word for word, money in the currency compared.
#[test]
fn the_app_and_the_pdf_say_each_metric_in_the_same_words() {
    let h = Harness::new();
    h.ok("load_demo", json!({}));
    let platforms = h.ok("list_platforms", json!({}));
    let id = platforms
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Platform E (demo)")
        .and_then(|p| p["id"].as_i64())
        .unwrap();
    let store = breakpoint_api::Store::open(&h.dir.path().join("app.db")).unwrap();
    let data = breakpoint_report::gather(
        &store,
        &RankRequest::default(),
        breakpoint_report::Lang::En,
        None,
    )
    .unwrap();
    let options = breakpoint_report::ReportOptions {
        title: None,
        date: jiff::civil::date(2026, 12, 8),
        lang: breakpoint_report::Lang::En,
        evidence: None,
        job: None,
    };
    let layout = breakpoint_report::compose(&data, &options).unwrap();
    let pdf: Vec<&str> = layout.texts().collect();
    let currency = data.money.currency.as_ref().map(|c| c.currency.clone());
    let mut compared = 0;
    for b in ["startup", "sustain", "switch", "billing"] {
        let cell = h.ok(
            "explain",
            json!({ "platformId": id, "breakpoint": b, "request": {} }),
        );
        for m in cell["metrics"].as_array().unwrap() {
            let Some(v) = m["value"].as_f64() else {
                assert!(m["figure"].is_null(), "{m}");
                continue;
            };
            let key = m["key"].as_str().unwrap();
            let unit = breakpoint_api::catalogue::metric(key).unwrap().unit;
            let said =
                breakpoint_api::presentation::metric_value(v, unit, currency.as_deref(), false);
            assert_eq!(m["figure"], said, "{key}");
            assert!(
                pdf.contains(&said.as_str()),
                "{key}: the PDF does not say {said}"
            );
            compared += 1;
        }
    }
    assert!(compared > 30, "{compared} figures compared");
    // Money is said in the currency the platforms are compared in.
    assert!(currency.is_some());
    let billing = h.ok(
        "explain",
        json!({ "platformId": id, "breakpoint": "billing", "request": {} }),
    );
    let cost = billing["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == breakpoint_api::catalogue::keys::BILLING_REFERENCE_COST)
        .unwrap();
    let said = cost["figure"].as_str().unwrap();
    assert!(
        said.ends_with(&format!(" {}", currency.unwrap())) && !said.contains("currency"),
        "{said}"
    );
}
