//! Money like for like through the binary: platforms priced in different
//! currencies are compared only through a dated rate, shown beside every
//! converted figure.

use crate::util::{Workspace, metric_in};

/// AWS at 10 USD and 阿里云 at 50 CNY per A100-hour, both billed per second.
fn two_currencies() -> Workspace {
    let ws = Workspace::new();
    for (name, currency, price) in [("AWS", "USD", "10"), ("阿里云", "CNY", "50")] {
        ws.ok(&["platform", "add", name]);
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            name,
            "--accelerator",
            "A100",
            "--count",
            "8",
            "--currency",
            currency,
            "--price-on-demand",
            price,
        ]);
        ws.ok(&["billing", "set", "--platform", name, "--granularity", "1"]);
    }
    ws
}

fn cost(ws: &Workspace, platform: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["explain", platform];
    args.extend_from_slice(extra);
    metric_in(&ws.json(&args), "billing.cost_per_useful_gpu_hour").clone()
}

#[test]
fn two_currencies_are_compared_only_through_a_rate() {
    let ws = two_currencies();
    // No rate: reported in CNY (the tie goes to the first code), the USD
    // platform's cost is not comparable — not a second "cheapest".
    let aws = cost(&ws, "AWS", &[]);
    assert!(aws["value"].is_null(), "{aws}");
    assert!(
        aws["details"][0]
            .as_str()
            .unwrap()
            .contains("no rate joins USD to CNY (breakpoint rates add USD CNY"),
        "{aws}"
    );
    assert!(
        ws.ok(&["explain", "AWS", "billing"])
            .contains("not comparable")
    );
    assert_eq!(cost(&ws, "阿里云", &[])["score"].as_f64(), Some(100.0));

    // With a rate, the one cheaper in CNY scores higher, and the converted
    // figure says its rate.
    let out = ws.ok(&[
        "rates",
        "add",
        "USD",
        "CNY",
        "7.1",
        "--on",
        "2026-12-01",
        "--source",
        "bank",
    ]);
    assert_eq!(out, "1 USD = 7.1 CNY on 2026-12-01 (bank)\n");
    let aws = cost(&ws, "AWS", &[]);
    let ali = cost(&ws, "阿里云", &[]);
    assert!(
        aws["score"].as_f64().unwrap() < ali["score"].as_f64().unwrap(),
        "{aws} {ali}"
    );
    assert!(
        aws["details"][0]
            .as_str()
            .unwrap()
            .contains("converted from USD at 7.1 CNY per USD on 2026-12-01 (bank)"),
        "{aws}"
    );
    // Reported in USD instead: the same order, the CNY figure converted.
    let ali_usd = cost(&ws, "阿里云", &["--currency", "USD"]);
    assert!(ali_usd["details"][0].as_str().unwrap().contains("in USD"));
    let rank = ws.ok(&["rank"]);
    assert!(rank.contains("money in CNY"), "{rank}");
    // A bill in USD is shown in CNY too, at its rate; without one, said.
    let bill = ws.json(&["bill", "--currency", "CNY"]);
    let aws_bill = bill["bills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["platform"] == "AWS")
        .unwrap()
        .clone();
    let usd: f64 = aws_bill["bill"]["amount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let cny: f64 = aws_bill["reported"]["amount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((cny - usd * 7.1).abs() < 0.01, "{aws_bill}");
    let fair_usd: f64 = aws_bill["bill"]["fair_amount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let fair_cny: f64 = aws_bill["reported"]["fair_amount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((fair_cny - fair_usd * 7.1).abs() < 0.01, "{aws_bill}");
    // The table's amounts are all in CNY; the USD bill is said beneath.
    let text = ws.ok(&["bill", "--currency", "CNY"]);
    let row = text
        .lines()
        .find(|l| l.starts_with("│ AWS "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains(&format!("{cny:.2} CNY")) && row.contains(&format!("{fair_cny:.2} CNY")),
        "{row}"
    );
    assert!(
        !row.contains(&format!("{usd:.2} USD")),
        "a USD amount among CNY ones: {row}"
    );
    assert!(
        text.contains(&format!("{usd:.2} USD in CNY: {cny:.2}")),
        "{text}"
    );
    let text = ws.ok(&["bill", "--currency", "EUR"]);
    assert!(
        text.contains("not comparable: in USD; no rate joins USD to EUR"),
        "{text}"
    );
    // The workspace's currency is kept.
    ws.ok(&["rates", "currency", "usd"]);
    assert_eq!(ws.ok(&["rates", "currency"]), "money is reported in USD\n");
    assert!(
        ws.ok(&["rank"])
            .contains("money in USD (the workspace's currency)")
    );
}

#[test]
fn the_ecbs_reference_rates_import_as_downloaded() {
    let ws = two_currencies();
    let path = ws.dir.path().join("eurofxref-hist.csv");
    std::fs::write(
        &path,
        "Date,USD,JPY,CNY,CYP,\n2026-12-01,1.0500,160.10,7.4550,N/A,\n2026-11-30,1.0480,159.90,7.4400,N/A,\n",
    )
    .unwrap();
    let out = ws.ok(&["rates", "import", path.to_str().unwrap()]);
    assert!(
        out.contains("6 rate(s) stored, 2026-11-30 to 2026-12-01"),
        "{out}"
    );
    // USD → CNY crossed through the euro.
    let aws = cost(&ws, "AWS", &[]);
    let detail = aws["details"][0].as_str().unwrap();
    assert!(detail.contains("CNY per USD on 2026-12-01"), "{detail}");
    assert!(detail.contains("via EUR"), "{detail}");
    // A bad cell is named by line and column; nothing is stored.
    std::fs::write(&path, "date,from,to,rate\n2026-12-01,USD,CNY,seven\n").unwrap();
    ws.fails(
        &["rates", "import", path.to_str().unwrap()],
        1,
        &format!(
            "error: {}:2:4: \"seven\" is not a rate: digits and one decimal point, no exponent or sign (7.10)",
            path.display()
        ),
    );
}

/// A platform measured on A100s is priced at its A100 offering, not at its
/// cheaper RTX 4090; with two offerings and nothing measured, it is not
/// priced at all.
#[test]
fn the_offering_measured_is_the_one_priced() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    for (card, price) in [("RTX 4090", "2"), ("A100-SXM4-80GB", "7")] {
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            "P",
            "--accelerator",
            card,
            "--count",
            "1",
            "--currency",
            "CNY",
            "--price-on-demand",
            price,
        ]);
    }
    ws.ok(&["billing", "set", "--platform", "P", "--granularity", "1"]);
    let bill = ws.json(&["bill"]);
    assert!(bill["bills"][0]["bill"].is_null(), "{bill}");
    assert!(
        bill["bills"][0]["missing"]
            .as_str()
            .unwrap()
            .contains("no run tells which was measured"),
        "{bill}"
    );
    ws.ok(&[
        "import",
        "--platform",
        "P",
        "--tz",
        "UTC",
        &crate::util::fixture("smi-csv/header-units.csv"),
    ]);
    let bill = ws.json(&["bill"]);
    assert_eq!(
        bill["bills"][0]["price_per_hour"].as_f64(),
        Some(7.0),
        "{bill}"
    );
    assert!(
        bill["bills"][0]["offering"]
            .as_str()
            .unwrap()
            .contains("the card its runs measured, NVIDIA A100"),
        "{bill}"
    );
    let cost = cost(&ws, "P", &[]);
    assert!(
        cost["details"][0].as_str().unwrap().contains("at 7 CNY/h"),
        "{cost}"
    );
}

/// A 90-day job on 8 GPUs: the monthly price where it is cheaper than the
/// hours, with the other modes shown; granularity in days is accepted and
/// said in words.
#[test]
fn a_long_job_is_priced_under_the_cheapest_mode_that_fits() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "P",
        "--accelerator",
        "A100",
        "--count",
        "8",
        "--currency",
        "CNY",
        "--price-on-demand",
        "8",
        "--price-monthly",
        "4",
        "--price-spot",
        "3",
    ]);
    ws.ok(&["billing", "set", "--platform", "P", "--granularity", "1h"]);
    let bill = ws.json(&["bill", "--workload", "compute=90d,gpus=8"]);
    let p = &bill["bills"][0];
    assert_eq!(p["cheapest"], "monthly", "{p}");
    let amount = |mode: &str| {
        p["modes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mode"] == mode)
            .unwrap()["amount"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // 3 months × 720 h × 8 GPUs at 4 an hour on the monthly plan.
    assert_eq!(amount("monthly"), "69120.00");
    assert_eq!(amount("on-demand"), "138240.00");
    // Spot is cheaper still, shown, and not chosen: it may be reclaimed.
    assert_eq!(amount("spot"), "51840.00");
    let text = ws.ok(&["bill", "--workload", "compute=90d,gpus=8"]);
    assert!(
        text.contains("cheapest: monthly 69120.00 CNY (3 month(s) × 8 GPU(s) × 720 h"),
        "{text}"
    );
    assert!(text.contains("1 hour units"), "{text}");
    ws.ok(&["billing", "set", "--platform", "P", "--granularity", "1d"]);
    assert!(ws.ok(&["bill"]).contains("1 day units"));
}

/// A SkyPilot catalog prices the offering it names, per accelerator-hour,
/// with its source and day; a quote that does not say the card's memory
/// prices no offering that does; the cards without an offering are named
/// with the command that adds one.
#[test]
fn a_catalog_prices_the_offerings_it_names() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "AWS"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "AWS",
        "--accelerator",
        "A100-80GB",
        "--count",
        "8",
        "--currency",
        "USD",
    ]);
    let out = ws.ok(&[
        "import",
        "--platform",
        "AWS",
        &crate::util::fixture("catalogs/skypilot-aws-vms.csv"),
    ]);
    assert!(out.contains("skypilot-catalog → run 1"), "{out}");
    assert!(
        out.contains("offering #1 (8 × NVIDIA A100 80GB) priced: on-demand 5.120713 USD/GPU-hour (p4de.24xlarge, us-east-1)"),
        "{out}"
    );
    assert!(
        out.contains("no offering of 8 × NVIDIA H100 80GB (from 6.8800 USD/GPU-hour on demand"),
        "{out}"
    );
    let offerings = ws.json(&["offering", "list"]);
    let prices = &offerings[0]["prices"];
    assert_eq!(prices["on_demand"].as_f64(), Some(5.120713));
    assert!(
        prices["source"]
            .as_str()
            .unwrap()
            .starts_with("skypilot-catalog"),
        "{prices}"
    );
    assert!(prices["priced_on"].is_string(), "{prices}");
    ws.ok(&["billing", "set", "--platform", "AWS", "--granularity", "1"]);
    let bill = ws.json(&["bill"]);
    assert!(
        bill["bills"][0]["offering"]
            .as_str()
            .unwrap()
            .contains("price from skypilot-catalog"),
        "{bill}"
    );
}

/// `--accelerator` compares each platform on one card: only the runs
/// measured on it count, its offering of that card prices it, and a
/// platform without one says so.
#[test]
fn one_class_of_card_is_compared_like_with_like() {
    let ws = Workspace::new();
    let a100 = std::fs::read_to_string(crate::util::fixture("smi-csv/header-units.csv")).unwrap();
    let rtx = a100.replace("NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090");
    let write = |name: &str, text: &str| {
        let path = ws.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (a100_log, rtx_log) = (write("a100.csv", &a100), write("rtx.csv", &rtx));
    for (platform, cards) in [
        ("P", vec![("A100-SXM4-80GB", "7"), ("RTX 4090", "2")]),
        ("Q", vec![("RTX 4090", "1.5")]),
    ] {
        ws.ok(&["platform", "add", platform]);
        ws.ok(&[
            "billing",
            "set",
            "--platform",
            platform,
            "--granularity",
            "1",
        ]);
        for (card, price) in cards {
            ws.ok(&[
                "offering",
                "add",
                "--platform",
                platform,
                "--accelerator",
                card,
                "--count",
                "1",
                "--currency",
                "CNY",
                "--price-on-demand",
                price,
            ]);
        }
    }
    ws.ok(&["import", "--platform", "P", "--tz", "UTC", &a100_log]);
    ws.ok(&["import", "--platform", "P", "--tz", "UTC", &rtx_log]);
    let text = ws.ok(&["rank", "--accelerator", "A100"]);
    assert!(
        text.contains(
            "compared on NVIDIA A100 only; not ranked, with neither an offering nor a run of it: Q"
        ),
        "{text}"
    );
    // Like for like: Q has no A100 to rank on, so it is not ranked at all.
    let ranked = ws.json(&["rank", "--accelerator", "A100"]);
    let names: Vec<&str> = ranked["ranking"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["P"], "{ranked}");
    // An A100 platform without a price is ranked, its cost said missing.
    ws.ok(&["platform", "add", "R"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "R",
        "--accelerator",
        "A100-SXM4-80GB",
        "--count",
        "1",
    ]);
    let text = ws.ok(&["rank", "--accelerator", "A100"]);
    assert!(
        text.contains("no priced offering of it (its cost not compared): R"),
        "{text}"
    );
    let explained = ws.json(&["explain", "P", "--accelerator", "A100"]);
    let cost = metric_in(&explained, "billing.cost_per_useful_gpu_hour");
    assert!(
        cost["details"][0].as_str().unwrap().contains("at 7 CNY/h"),
        "{cost}"
    );
    let bill = ws.json(&["bill", "--accelerator", "RTX 4090"]);
    let p = bill["bills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["platform"] == "P")
        .unwrap()
        .clone();
    assert_eq!(p["price_per_hour"].as_f64(), Some(2.0), "{p}");
}
