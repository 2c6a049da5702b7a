//! The provisional answer from partial evidence, its priced plan and the
//! decision's history, as a buyer meets them: four platforms, each known in
//! a different way, and the evidence that moves the answer.

use crate::util::{Workspace, fixture};

/// An nvidia-smi CSV log of two H200s, one row per GPU a minute, from
/// midnight of 2026-06-`day`; `temp(minute, gpu)` is the temperature, none
/// where the GPU wrote nothing that minute.
fn smi_log(
    ws: &Workspace,
    name: &str,
    day: u32,
    minutes: u32,
    temp: impl Fn(u32, u32) -> Option<u32>,
) -> String {
    let mut csv = String::from(
        "timestamp, index, name, utilization.gpu [%], power.draw [W], temperature.gpu\n",
    );
    for m in 0..minutes {
        for gpu in 0..2 {
            if let Some(t) = temp(m, gpu) {
                csv.push_str(&format!(
                    "2026/06/{:02} {:02}:{:02}:00.000, {gpu}, NVIDIA H200, 99 %, 650.00 W, {t}\n",
                    day + m / 1440,
                    (m % 1440) / 60,
                    m % 60
                ));
            }
        }
    }
    let path = ws.dir.path().join(name);
    std::fs::write(&path, csv).unwrap();
    path.to_str().unwrap().to_string()
}

/// A provider's bill of one instance over the two days the logs cover.
fn bill(ws: &Workspace, name: &str, amount: &str, unit_price: &str) -> String {
    let path = ws.dir.path().join(name);
    std::fs::write(
        &path,
        format!(
            "instance,start,end,billed_seconds,amount,currency,unit_price\n\
             i-{name},2026-06-01T00:00:00Z,2026-06-03T00:00:00Z,172800,{amount},CNY,{unit_price}\n"
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

/// Four platforms: A and B with two days of logs (B runs hotter and has no
/// billing rule), C with a DCGM diagnostic only, D with a price only.
fn four_platforms() -> Workspace {
    let ws = Workspace::new();
    for p in ["A", "B", "C", "D"] {
        ws.ok(&["platform", "add", p]);
    }
    for (p, price) in [("A", "20"), ("B", "18"), ("D", "15")] {
        ws.ok(&[
            "offering",
            "add",
            "--platform",
            p,
            "--accelerator",
            "H200 141GB",
            "--count",
            "8",
            "--price-on-demand",
            price,
            "--currency",
            "CNY",
        ]);
    }
    for p in ["A", "D"] {
        ws.ok(&["billing", "set", "--platform", p, "--granularity", "1"]);
    }
    let a = smi_log(&ws, "a.csv", 1, 2880, |_, _| Some(70));
    let b = smi_log(&ws, "b.csv", 1, 2880, |_, _| Some(78));
    ws.ok(&["import", "--platform", "A", "--tz", "UTC", &a]);
    ws.ok(&["import", "--platform", "B", "--tz", "UTC", &b]);
    ws.ok(&[
        "import",
        "--platform",
        "C",
        &fixture("dcgm-diag/r1-pass.json"),
    ]);
    ws
}

fn chance(decision: &serde_json::Value, platform: &str) -> f64 {
    decision["p_best"][platform].as_f64().unwrap()
}

/// With partial evidence `rank` leans, says how sure, and never picks;
/// its plan is at most seven priced steps, configuration first (a missing
/// billing rule named as such, not as a price to add), then measurements
/// by their chance of changing the lead per unit of cost.
#[test]
fn partial_evidence_gives_a_leaning_with_odds_and_a_priced_plan() {
    let ws = four_platforms();
    let decision = ws.json(&["rank"])["decision"].clone();
    assert_eq!(decision["kind"], "leaning", "{decision}");
    let p_best = decision["p_best"].as_object().unwrap();
    assert_eq!(p_best.len(), 4, "{decision}");
    let total: f64 = p_best.values().map(|p| p.as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "P(best) sums to {total}");
    let leader = decision["verdict"]["platform"].as_str().unwrap();
    assert!(
        p_best
            .values()
            .all(|p| p.as_f64().unwrap() <= chance(&decision, leader))
    );

    let plan = decision["plan"].as_array().unwrap();
    assert!(!plan.is_empty() && plan.len() <= 7, "{plan:?}");
    for step in plan {
        let p = step["p_change"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{step}");
        assert!(
            step["cost"].is_null() || step["cost"]["currency"] == "CNY",
            "{step}"
        );
        assert!(!step["measures"].as_array().unwrap().is_empty(), "{step}");
    }
    // Configuration first; then measurements, priced ones by chance per
    // yuan, those of unknown cost last.
    let kinds: Vec<&str> = plan.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    let first_measurement = kinds.iter().position(|k| *k == "measurement").unwrap();
    assert!(
        kinds[first_measurement..]
            .iter()
            .all(|k| *k == "measurement"),
        "{kinds:?}"
    );
    let per_yuan = |s: &serde_json::Value| -> Option<f64> {
        let cost: f64 = s["cost"]["amount"].as_str()?.parse().unwrap();
        let p = s["p_change"].as_f64().unwrap();
        Some(match (cost == 0.0, p > 0.0) {
            (true, true) => f64::INFINITY,
            (true, false) => 0.0,
            (false, _) => p / cost,
        })
    };
    let measured: Vec<Option<f64>> = plan[first_measurement..].iter().map(per_yuan).collect();
    let priced: Vec<f64> = measured.iter().map_while(|m| *m).collect();
    assert!(priced.windows(2).all(|w| w[0] >= w[1]), "{measured:?}");
    assert!(
        measured[priced.len()..].iter().all(Option::is_none),
        "{measured:?}"
    );
    // B's price is there; its billing rule is not.
    let rule_b = plan
        .iter()
        .find(|s| {
            s["command"]
                .as_str()
                .unwrap()
                .starts_with("breakpoint billing set --platform \"B\"")
        })
        .unwrap_or_else(|| panic!("no billing rule for B in {plan:?}"));
    assert_eq!(rule_b["kind"], "configuration");
    assert_eq!(rule_b["cost"]["amount"], "0");
    assert!(
        !plan.iter().any(|s| s["command"]
            .as_str()
            .unwrap()
            .contains("offering add --platform \"B\"")),
        "B has a price: {plan:?}"
    );
    // A measurement is priced as hours × the offering's price: the probe
    // check (0.1 h) on B, D and A costs 0.1 × 8 × (18 + 15 + 20) yuan.
    if let Some(check) = plan.iter().find(|s| {
        s["command"]
            .as_str()
            .unwrap()
            .starts_with("breakpoint probe check")
    }) {
        assert_eq!(check["cost"]["amount"], "42.40", "{check}");
    }

    let text = ws.ok(&["rank"]);
    assert!(
        text.contains(&format!("Leaning {leader} (")) && text.contains("not a decision"),
        "{text}"
    );
    assert!(!text.contains("Pick "), "{text}");
    assert!(
        text.contains("configuration: breakpoint billing set --platform \"B\""),
        "{text}"
    );
    assert!(text.contains("% chance of changing the lead"), "{text}");
    // The chances as printed add up to 100 %.
    let line = text
        .lines()
        .find(|l| l.starts_with("chance of being the best"))
        .unwrap();
    let printed: u32 = line
        .split("): ")
        .nth(1)
        .unwrap()
        .split(", ")
        .map(|c| {
            c.trim_end_matches(" %")
                .rsplit(' ')
                .next()
                .unwrap()
                .parse::<u32>()
                .unwrap()
        })
        .sum();
    assert_eq!(printed, 100, "{line}");
}

/// Doing the plan's first measurement — importing the bill of the
/// platform within reach, clean — moves the chances the way the plan said
/// they could move, and the history keeps what moved and why.
#[test]
fn the_plans_first_measurement_moves_the_chances_and_is_logged() {
    let ws = four_platforms();
    let before = ws.json(&["rank"])["decision"].clone();
    let leader = before["verdict"]["platform"].as_str().unwrap().to_string();
    let plan = before["plan"].as_array().unwrap();
    let first = plan.iter().find(|s| s["kind"] == "measurement").unwrap();
    assert!(
        first["command"]
            .as_str()
            .unwrap()
            .starts_with("import the provider's bill export"),
        "{first}"
    );
    assert!(first["p_change"].as_f64().unwrap() > 0.0, "{first}");
    let (rival, _) = before["verdict"]["within_reach"]
        .as_array()
        .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_f64().unwrap()))
        .unwrap();
    assert!(
        first["platforms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| *p == rival.as_str()),
        "{first}"
    );
    let entries = ws.json(&["decision", "log"]).as_array().unwrap().len();

    // The rival's bill, every second of it borne out.
    let out = ws.ok(&[
        "import",
        "--platform",
        &rival,
        &bill(&ws, "rival.csv", "5760.00", "120"),
    ]);
    assert!(out.contains("the answer moved:"), "{out}");
    let after = ws.json(&["rank"])["decision"].clone();
    assert!(
        chance(&after, &rival) > chance(&before, &rival),
        "{rival}: {before} → {after}"
    );
    assert!(
        chance(&after, &leader) < chance(&before, &leader),
        "{leader}: {before} → {after}"
    );
    let log = ws.json(&["decision", "log"]);
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), entries + 1, "{log:?}");
    let newest = &log[0];
    assert!(
        newest["trigger"]
            .as_str()
            .unwrap()
            .contains(&format!("rival.csv (run #4) into {rival}")),
        "{newest}"
    );
    let changed = newest["changed"].to_string();
    assert!(changed.contains("chance of being the best:"), "{changed}");
    assert!(
        changed.contains(&format!(
            "because {rival}: Billed time in question measured"
        )),
        "{changed}"
    );
    let text = ws.ok(&["decision", "log", "--limit", "1"]);
    assert!(
        text.contains("rival.csv") && text.contains("now: Leaning"),
        "{text}"
    );
}

/// A platform that leads on an hour of clean logs loses the lead when a
/// fault turns up in its next log — a GPU lost for forty minutes, another
/// running hot — and the history says so, naming what moved.
#[test]
fn a_lead_on_thin_evidence_is_lost_to_a_planted_fault_and_the_log_says_why() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Steady"]);
    ws.ok(&["platform", "add", "Thin"]);
    let steady = smi_log(&ws, "steady.csv", 1, 2880, |_, _| Some(86));
    let thin = smi_log(&ws, "thin.csv", 1, 60, |_, _| Some(60));
    ws.ok(&["import", "--platform", "Steady", "--tz", "UTC", &steady]);
    ws.ok(&["import", "--platform", "Thin", "--tz", "UTC", &thin]);
    let before = ws.json(&["rank"])["decision"].clone();
    assert_eq!(before["kind"], "leaning");
    assert_eq!(before["verdict"]["platform"], "Thin", "{before}");

    let fault = smi_log(&ws, "fault.csv", 2, 120, |m, gpu| match gpu {
        0 => Some(60),
        _ if (40..80).contains(&m) => None,
        _ => Some(93),
    });
    let out = ws.ok(&["import", "--platform", "Thin", "--tz", "UTC", &fault]);
    assert!(
        out.contains("the answer moved: leaning Thin (") && out.contains("→ leaning Steady ("),
        "{out}"
    );
    let after = ws.json(&["rank"])["decision"].clone();
    assert_eq!(after["verdict"]["platform"], "Steady", "{after}");
    assert!(chance(&after, "Thin") < chance(&before, "Thin"));
    let newest = &ws.json(&["decision", "log"])[0];
    assert!(
        newest["trigger"]
            .as_str()
            .unwrap()
            .ends_with("fault.csv (run #3) into Thin"),
        "{newest}"
    );
    let changed = newest["changed"].to_string();
    assert!(changed.contains("leaning Thin ("), "{changed}");
    assert!(changed.contains("→ leaning Steady ("), "{changed}");
    assert!(
        changed.contains("because Thin: Interruptions per 100 GPU-hours 100 → 0")
            && changed.contains("Thin: Measured availability 100 → 0"),
        "{changed}"
    );
    assert_eq!(newest["standing"]["leader"], "Steady");

    // The PDF's first page: the leaning, and the moves that led to it.
    for (lang, heading, moved) in [
        (
            "en",
            "How the answer moved",
            "import of fault.csv (run #3) into Thin",
        ),
        ("zh", "结论的变化", "导入 fault.csv (run #3) 到 Thin"),
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
        let first_page = crate::util::pdf_pages_text(&pdf, 1, 1);
        assert!(first_page.contains(heading), "{lang}: {first_page}");
        assert!(first_page.contains(moved), "{lang}: {first_page}");
    }
}

/// Nothing moves, nothing is kept: importing a log that changes no score
/// leaves the history as it was, and an empty history says what starts it.
#[test]
fn the_history_keeps_only_what_moved_the_answer() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P"]);
    ws.ok(&["platform", "add", "Q"]);
    let text = ws.ok(&["decision", "log"]);
    assert!(text.contains("no entry yet"), "{text}");
    let p = smi_log(&ws, "p.csv", 1, 120, |_, _| Some(65));
    ws.ok(&["import", "--platform", "P", "--tz", "UTC", &p]);
    let log = ws.json(&["decision", "log"]);
    assert_eq!(log.as_array().unwrap().len(), 1, "{log}");
    assert!(
        log[0]["changed"][0]
            .as_str()
            .unwrap()
            .starts_with("first answer: leaning "),
        "{log}"
    );
    // The same log again is recognised: nothing stored, nothing kept.
    let again = ws
        .cmd(&["import", "--platform", "P", "--tz", "UTC", &p])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&again.stdout) + String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("already imported"), "{said}");
    assert!(!said.contains("the answer moved"), "{said}");
    assert_eq!(ws.json(&["decision", "log"]).as_array().unwrap().len(), 1);
}
