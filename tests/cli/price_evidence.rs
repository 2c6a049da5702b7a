//! Price lists as dated evidence: a catalog's day (`--as-of`, else the
//! file's), the zone a price is a zone's, the catalog counted apart from the
//! runs that measured the platform, and a stale price flagged wherever it
//! is used — rank, bill, cost and the PDF's first page.

use crate::util::Workspace;

/// A SkyPilot `vms.csv` whose cheapest spot price is a Local Zone's.
const LOCAL_ZONE_CATALOG: &str = "\
InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone
p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,,40.9657,16.2041,us-east-1,us-east-1c
p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,,40.9657,12.8813,us-east-1,use1-atl2-az1
";

fn days_ago(days: i64) -> String {
    let today = jiff::tz::TimeZone::UTC
        .to_datetime(jiff::Timestamp::now())
        .date();
    today
        .checked_sub(jiff::Span::new().days(days))
        .unwrap()
        .to_string()
}

#[test]
fn a_catalog_imported_as_of_an_old_day_is_flagged_stale_wherever_its_price_is_used() {
    let ws = Workspace::new();
    ws.ok(&["demo"]);
    ws.ok(&["rates", "add", "USD", "CNY", "7.1"]);
    let runs_before = ws.json(&["rank"])["ranking"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Platform A (demo)")
        .unwrap()["evidence"]
        .clone();
    let catalog = ws.dir.path().join("vms.csv");
    std::fs::write(&catalog, LOCAL_ZONE_CATALOG).unwrap();
    let as_of = days_ago(120);
    let out = ws.ok(&[
        "import",
        catalog.to_str().unwrap(),
        "--platform",
        "Platform A (demo)",
        "--as-of",
        &as_of,
    ]);
    assert!(out.contains(&format!("dated {as_of} (--as-of)")), "{out}");
    // The spot price is the Local Zone's, and says so.
    assert!(
        out.contains("spot 1.610163 USD/GPU-hour (p4de.24xlarge, us-east-1, zone use1-atl2-az1)"),
        "{out}"
    );
    assert!(
        !out.contains("on-demand 5.120713 USD/GPU-hour (p4de.24xlarge, us-east-1, zone"),
        "{out}"
    );

    // Counted apart: the ranking's runs are the measured ones.
    let rank = ws.json(&["rank"]);
    let a = rank["ranking"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Platform A (demo)")
        .unwrap()
        .clone();
    assert_eq!(a["evidence"], runs_before);
    let price = &rank["prices"][0];
    assert_eq!(price["platform"], "Platform A (demo)");
    assert_eq!(price["stale"], true);
    let listed = ws.json(&["platform", "list"]);
    let a = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Platform A (demo)")
        .unwrap();
    assert_eq!(
        (a["runs"].as_i64(), a["offering_evidence"].as_i64()),
        (runs_before.as_i64(), Some(1))
    );

    let stale = format!("on {as_of} — STALE: 120 days old (more than 90)");
    let rank = ws.ok(&["rank"]);
    assert!(
        rank.contains(&format!("Platform A (demo): price from skypilot-catalog vms.csv (spot, zone use1-atl2-az1) {stale}")),
        "{rank}"
    );
    assert!(ws.ok(&["bill"]).contains(&stale));
    let cost = ws.ok(&["cost", "--job", "gpus=8,work=200h", "--draws", "200"]);
    assert!(
        cost.contains("  priced at the offering its runs were made on"),
        "{cost}"
    );
    assert!(cost.contains(&stale), "{cost}");
    // Every price says where it comes from, the demo's own too.
    assert!(
        cost.contains("price from the four-breakpoint review's example prices (demo)"),
        "{cost}"
    );

    for (lang, flag) in [
        ("en", "STALE: 120 days old"),
        ("zh", "已过期（STALE）：120 天前"),
    ] {
        let pdf = ws.dir.path().join(format!("{lang}.pdf"));
        ws.ok(&[
            "report",
            "--lang",
            lang,
            "--samples",
            "100",
            "-o",
            pdf.to_str().unwrap(),
        ]);
        let text = crate::util::pdf_pages_text(&pdf, 1, 2);
        assert!(text.contains(flag), "{lang}: {text}");
    }
}

#[test]
fn a_catalog_without_a_day_takes_the_files_and_says_so() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "AWS"]);
    let catalog = ws.dir.path().join("vms.csv");
    std::fs::write(&catalog, LOCAL_ZONE_CATALOG).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(200 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&catalog)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let out = ws.ok(&["import", catalog.to_str().unwrap(), "--platform", "AWS"]);
    assert!(
        out.contains(&format!(
            "dated {} (the day the file was last written; --as-of sets it)",
            days_ago(200)
        )),
        "{out}"
    );
}
