//! Money under attack through the binary: rates files quoted, shifted,
//! made up, endless or at odds with their inverse; catalog quotes in two
//! currencies; job specs past what a job can be. Each crafted input is in
//! `tests/fixtures/hostile/` and is refused with the file, line or field
//! named — nothing stored — or read for what it is.

use crate::util::Workspace;

fn hostile(name: &str) -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hostile")
        .join(name)
        .display()
        .to_string()
}

/// `rates list FROM TO --json`: each rate as (day, rate, source).
fn rates_of(ws: &Workspace, from: &str, to: &str) -> Vec<(String, String, Option<String>)> {
    let held = ws.json(&["rates", "list", from, to]);
    held["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["on"].as_str().unwrap().to_string(),
                r["rate"].to_string().trim_matches('"').to_string(),
                r["source"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// A workspace that exists, with nothing in it.
fn fresh() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    ws
}

fn rates_held(ws: &Workspace) -> serde_json::Value {
    ws.json(&["rates", "list"])
}

/// A refusal of `rates import FILE` that says `said`; nothing stored.
fn import_refused(ws: &Workspace, file: &str, said: &str) {
    let before = rates_held(ws);
    let out = ws.cmd(&["rates", "import", file]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
    assert!(stderr.contains(said), "{file}: {stderr}");
    assert_eq!(rates_held(ws), before, "{file} stored something");
}

/// Quoted cells are cells: a decimal comma inside quotes is read as one,
/// a quoted source keeps its comma, and an unquoted decimal comma is
/// refused at its line — never shifted into the next column.
#[test]
fn rates_files_are_read_with_csv_quoting_and_nothing_shifts() {
    let ws = fresh();
    ws.ok(&["rates", "import", &hostile("rates-ecb-decimal-comma.csv")]);
    assert_eq!(
        rates_of(&ws, "EUR", "USD"),
        [(
            "2026-12-01".into(),
            "1.05".into(),
            Some("ECB euro reference rates".into())
        )]
    );
    assert_eq!(rates_of(&ws, "EUR", "JPY")[0].1, "160");
    ws.ok(&[
        "rates",
        "import",
        &hostile("rates-quoted-comma-and-source.csv"),
    ]);
    assert_eq!(
        rates_of(&ws, "USD", "CNY"),
        [("2026-12-01".into(), "7.10".into(), Some("Bank, Inc".into()))]
    );
    let file = hostile("rates-unquoted-decimal-comma.csv");
    import_refused(
        &ws,
        &file,
        &format!(
            "{file}:2: the row has 6 cells but the header names 5: a decimal comma must be quoted"
        ),
    );
    // Typed in, a decimal comma reads as the file's does.
    ws.ok(&["rates", "add", "USD", "HKD", "7,8", "--on", "2026-12-01"]);
    assert_eq!(rates_of(&ws, "USD", "HKD")[0].1, "7.8");
}

/// Exponents, underscores, currencies that do not exist, a column twice,
/// a pair and day twice, rates past any two currencies: refused whole,
/// naming the line and column; `rates add` refuses the same.
#[test]
fn rates_past_what_currencies_are_are_refused() {
    let ws = fresh();
    for (file, said) in [
        ("rates-exponent.csv", ":2:4: \"7e2\" is not a rate"),
        ("rates-underscore.csv", ":2:4: \"7_000\" is not a rate"),
        (
            "rates-made-up-currencies.csv",
            ":1:3: \"AAA\" is not an ISO 4217 currency code",
        ),
        (
            "rates-repeated-column.csv",
            ":1:4: USD a second time (first in column 2)",
        ),
        (
            "rates-same-day-twice.csv",
            ":3:4: USD→CNY on 2026-12-01 a second time in the file",
        ),
        (
            "rates-product-overflows.csv",
            ":2:4: 1000000000000000 EUR per USD is beyond any two currencies",
        ),
    ] {
        import_refused(&ws, &hostile(file), said);
    }
    let not_a_rate = "is not a rate: digits and one decimal point, no exponent or sign (7.10)";
    for (rate, said) in [
        ("7e2", format!("\"7e2\" {not_a_rate}")),
        ("7_000", format!("\"7_000\" {not_a_rate}")),
        ("1e15", format!("\"1e15\" {not_a_rate}")),
        (
            "1,050",
            "\"1,050\" is either 1.050-style or 1050-style: write it with a decimal point".into(),
        ),
        (
            "1000000000000000",
            "1000000000000000 CNY per USD is beyond any two currencies (a rate lies between 10⁻⁹ and 10⁹)".into(),
        ),
    ] {
        ws.fails(
            &["rates", "add", "USD", "CNY", rate],
            1,
            &format!("error: rate: {said}"),
        );
    }
    assert_eq!(rates_held(&ws)["pairs"], serde_json::json!([]));
}

/// The read is bounded by what is read: /dev/zero says its size is 0.
#[cfg(unix)]
#[test]
fn an_endless_rates_file_is_stopped_at_its_bound() {
    let ws = fresh();
    import_refused(&ws, "/dev/zero", "/dev/zero: larger than 64 MiB");
}

/// A pair and its inverse of one day that do not undo each other are
/// said (the cheapest platform would flip with the reporting currency);
/// `rates rm` removes the wrong one, and says when there is nothing to
/// remove.
#[test]
fn a_rate_at_odds_with_its_inverse_is_said_and_can_be_removed() {
    let ws = fresh();
    let out = ws.ok(&["rates", "import", &hostile("rates-inverse-disagrees.csv")]);
    assert!(
        out.contains("warning: CNY→USD 1 and USD→CNY 7 on 2026-12-01 disagree by 600 %"),
        "{out}"
    );
    let out = ws.ok(&["rates", "add", "USD", "CNY", "7.2", "--on", "2026-12-01"]);
    assert!(out.contains("USD→CNY 7.2 and CNY→USD 1"), "{out}");
    assert_eq!(
        ws.ok(&["rates", "rm", "CNY", "USD", "--on", "2026-12-01"]),
        "1 rate(s) removed\n"
    );
    assert!(rates_of(&ws, "CNY", "USD").is_empty());
    assert_eq!(rates_of(&ws, "USD", "CNY").len(), 1);
    ws.fails(
        &["rates", "rm", "CNY", "USD"],
        1,
        "error: rate \"CNY→USD\" not found",
    );
    let out = ws.ok(&["rates", "add", "CNY", "USD", "0.1389", "--on", "2026-12-01"]);
    assert!(!out.contains("warning"), "{out}");
}

/// The same offering quoted at 40 USD and at 160 CNY an instance-hour:
/// through the rate (7.1 CNY a dollar) the yuan quote is the cheaper, and
/// it prices the offering, its rate said. Without a rate the yuan quote is
/// not compared, and said so — never 40 against 160 as bare numbers.
#[test]
fn catalog_quotes_in_two_currencies_are_compared_through_a_rate() {
    let ws = fresh();
    ws.ok(&["platform", "add", "AWS"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "AWS",
        "--accelerator",
        "A100-40GB",
        "--count",
        "8",
        "--currency",
        "USD",
    ]);
    let catalog = hostile("catalog-two-currencies.csv");
    let out = ws.ok(&["import", "--platform", "AWS", &catalog]);
    assert!(
        out.contains("1 quote(s) in CNY not compared: no rate joins CNY to USD"),
        "{out}"
    );
    assert!(out.contains("on-demand 5 USD/GPU-hour"), "{out}");
    ws.ok(&["runs", "rm", "1"]);
    ws.ok(&["rates", "add", "USD", "CNY", "7.1", "--on", "2026-11-01"]);
    let out = ws.ok(&["import", "--platform", "AWS", &catalog]);
    assert!(
        out.contains(
            "on-demand 20 CNY/GPU-hour (p4d.24xlarge, China (Beijing); 20.0000 CNY ≈ 2.8169 USD at"
        ),
        "{out}"
    );
    let offering = &ws.json(&["offering", "list"])[0];
    assert_eq!(offering["prices"]["currency"], "CNY", "{offering}");
    assert_eq!(offering["prices"]["on_demand"], 20.0, "{offering}");
}

/// A price past what an exact decimal holds (7.9 × 10²⁸) is refused at the
/// import, naming its line and column, and typed in it is refused as a
/// price: no command later multiplies it into a panic or a zero.
#[test]
fn prices_past_any_price_are_refused_where_they_come_in() {
    let ws = fresh();
    ws.ok(&["platform", "add", "AWS"]);
    let catalog = hostile("catalog-price-past-decimal.csv");
    let out = ws
        .cmd(&["import", "--platform", "AWS", &catalog])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{catalog}:7:10: price: 79000000000000000000000000000 is beyond any instance's price"
        )),
        "{stderr}"
    );
    ws.fails(
        &[
            "offering", "add", "--platform", "AWS", "--accelerator", "H100", "--count", "8",
            "--price-on-demand", "7.9e28", "--currency", "USD",
        ],
        1,
        "error: price_on_demand: 7.9e28 is beyond any price (at most 10⁷ an accelerator-hour or a GB, in any currency)",
    );
    for command in [
        &["rank"][..],
        &["explain", "AWS"],
        &["bill"],
        &["cost", "--job", "gpus=8,work=100h"],
    ] {
        ws.ok(command);
    }
}

/// Two platforms billed by the second, eight H200s at 20 CNY an hour.
fn priced_twins(ws: &Workspace) {
    for name in ["P", "Q"] {
        ws.ok(&["platform", "add", name]);
        ws.ok(&["billing", "set", "--platform", name, "--granularity", "1"]);
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            name,
            "--accelerator",
            "H200",
            "--count",
            "8",
            "--currency",
            "CNY",
            "--price-on-demand",
            "20",
        ]);
    }
}

/// A job long because of its data is long, not unfinished: hours of
/// upload before an hour of compute are a term of the wall time, and no
/// draw is called interrupted for them.
#[test]
fn a_job_long_for_its_data_is_not_called_unfinished() {
    let ws = fresh();
    priced_twins(&ws);
    for job in ["gpus=8,work=1h,data=5TB", "gpus=64,work=2h,data=20TB"] {
        let costs = ws.json(&["cost", "--job", job]);
        for p in costs["platforms"].as_array().unwrap() {
            assert_eq!(p["unfinished"], 0.0, "{job}: {p}");
            let hours = &p["hours"];
            // Compute is minutes; the upload, hours.
            assert!(hours["p50"].as_f64().unwrap() > 2.0, "{job}: {p}");
        }
        let answer = costs["answer"].as_str().unwrap();
        assert!(!answer.contains("never finish"), "{job}: {answer}");
    }
}

/// Spec values past what a job can be are refused with their bound, and
/// a key given twice is refused rather than the last kept: no job costs
/// 0.00, and none is cheapest at 0.00.
#[test]
fn job_specs_past_what_a_job_can_be_are_refused() {
    let ws = fresh();
    priced_twins(&ws);
    for (job, said) in [
        (
            "gpus=8,work=1e308",
            "error: job.work: \"1e308\" is past what a job can be (at most 10⁹ GPU-hours: 100 000 GPUs for over a year)",
        ),
        (
            "gpus=8,requests=1e15M,per-gpu=1e-300",
            "error: job.requests: \"1e15M\" is past what a job can be (at most 10¹⁵ requests)",
        ),
        (
            "gpus=8,requests=1e12,per-gpu=1e-3",
            "error: job.work: requests ÷ per-gpu is 2.778e11 GPU-hours, past what a job can be (at most 10⁹ GPU-hours)",
        ),
        (
            "gpus=8,work=10h,data=5000000PB",
            "error: job.data: \"5000000PB\" is past what a job can be (at most an exabyte, 1000PB)",
        ),
        (
            "gpus=8,work=10h,deadline=1000000d",
            "error: job.deadline: \"1000000d\" is past what a job can be (at most 30 years)",
        ),
        (
            "gpus=8,gpus=16,work=10h",
            "error: job.gpus: given twice (\"gpus=8,gpus=16,work=10h\"): give each key once",
        ),
    ] {
        ws.fails(&["cost", "--job", job], 1, said);
    }
    let costs = ws.json(&["cost", "--job", "gpus=8,work=1000000000h"]);
    for p in costs["platforms"].as_array().unwrap() {
        let p50: f64 = p["cost"]["p50"].as_str().unwrap().parse().unwrap();
        assert!(p50 > 1e9, "{p}");
    }
}
