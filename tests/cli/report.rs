//! The decision-matrix PDF through the binary, read back with poppler's
//! pdftotext, pdfinfo and pdftoppm (scripts/setup installs them).

use std::path::Path;
use std::process::Command;

use crate::util::{Workspace, fixture};

fn pdftotext(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-layout"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils)");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn pages(pdf: &Path) -> usize {
    let out = Command::new("pdfinfo")
        .arg(pdf)
        .output()
        .expect("pdfinfo (poppler-utils)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("page count")
}

/// 阿里云 and a Latin-named platform with real fixture logs: samples,
/// startup and switch tables, an offering and a billing rule.
fn workspace() -> Workspace {
    let mixed = Workspace::new();
    mixed.ok(&["platform", "add", "--template", "aliyun"]);
    mixed.ok(&[
        "offering",
        "add",
        "--platform",
        "aliyun",
        "--accelerator",
        "NVIDIA A100-SXM4-80GB",
        "--count",
        "2",
        "--price-on-demand",
        "13.5",
        "--pcie-width",
        "16",
    ]);
    mixed.ok(&[
        "billing",
        "set",
        "--platform",
        "aliyun",
        "--granularity",
        "1m",
    ]);
    mixed.ok(&[
        "import",
        &fixture("smi-csv/header-units.csv"),
        "--platform",
        "aliyun",
        "--offering",
        "1",
        "--tz",
        "UTC",
    ]);
    mixed.ok(&[
        "import",
        &fixture("tables/startup-attempts.csv"),
        "--platform",
        "aliyun",
    ]);
    mixed.ok(&[
        "import",
        &fixture("tables/switch-attempts.csv"),
        "--platform",
        "aliyun",
    ]);
    mixed.ok(&["platform", "add", "Lab", "--kind", "other"]);
    mixed.ok(&[
        "import",
        &fixture("smi-csv/event-reasons.csv"),
        "--platform",
        "Lab",
        "--tz",
        "UTC",
    ]);
    mixed
}

#[test]
fn the_pdf_names_every_platform_score_and_run() {
    let ws = workspace();
    let pdf = ws.dir.path().join("matrix.pdf");
    let out = ws.ok(&[
        "report",
        "-o",
        pdf.to_str().unwrap(),
        "--date",
        "2026-11-30",
        "--samples",
        "300",
    ]);
    assert!(out.starts_with("wrote "), "{out}");
    let text = pdftotext(&pdf);
    let ranked = ws.json(&["rank", "--samples", "300"]);
    for p in ranked["ranking"]["platforms"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        assert!(text.contains(name), "platform {name} missing");
        for b in p["breakpoints"].as_array().unwrap() {
            if let Some(s) = b["score"].as_f64() {
                assert!(
                    text.contains(&format!("{s:.1}")),
                    "score {s:.1} of {name} missing"
                );
            }
        }
    }
    assert!(text.contains("阿里云"));
    for run in ws.json(&["runs", "list"]).as_array().unwrap() {
        let hash = run["provenance"]["sha256"].as_str().unwrap();
        assert!(
            text.contains(&hash[..12]),
            "run hash {} missing",
            &hash[..12]
        );
    }
    assert!(text.contains("2026-11-30"));

    // Every page renders.
    let n = pages(&pdf);
    let prefix = ws.dir.path().join("page");
    let status = Command::new("pdftoppm")
        .args(["-r", "20", "-png"])
        .arg(&pdf)
        .arg(&prefix)
        .status()
        .unwrap();
    assert!(status.success());
    let rendered = std::fs::read_dir(ws.dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("page")
        })
        .count();
    assert_eq!(rendered, n);
}

#[test]
fn the_same_database_and_date_give_the_same_bytes_in_either_language() {
    let ws = workspace();
    let a = ws.dir.path().join("a.pdf");
    let b = ws.dir.path().join("b.pdf");
    for (path, lang) in [(&a, "zh"), (&b, "zh")] {
        ws.ok(&[
            "report",
            "-o",
            path.to_str().unwrap(),
            "--date",
            "2026-11-30",
            "--lang",
            lang,
            "--samples",
            "300",
        ]);
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let text = pdftotext(&a);
    assert!(
        text.contains("决策矩阵") && text.contains("附录 A"),
        "Chinese headings"
    );
}

#[test]
fn the_matrix_splits_across_pages_for_thirty_platforms() {
    let small = Workspace::new();
    let big = Workspace::new();
    for (ws, n) in [(&small, 3), (&big, 30)] {
        for i in 0..n {
            let name = format!("Cloud {i:02}");
            ws.ok(&["platform", "add", &name]);
            // A table of its own (distinct bytes) gives every platform a run and a score.
            let csv = ws.dir.path().join(format!("start-{i}.csv"));
            std::fs::write(
                &csv,
                format!(
                    "scenario,image,submitted_at,first_compute_at,outcome\nbaseline,warm,2024-06-01T00:00:00Z,2024-06-01T00:00:{:02}Z,ok\n",
                    1 + i
                ),
            )
            .unwrap();
            ws.ok(&["import", csv.to_str().unwrap(), "--platform", &name]);
        }
    }
    let mut counts = Vec::new();
    for ws in [&small, &big] {
        let pdf = ws.dir.path().join("m.pdf");
        ws.ok(&[
            "report",
            "-o",
            pdf.to_str().unwrap(),
            "--date",
            "2026-11-30",
            "--samples",
            "100",
        ]);
        counts.push(pages(&pdf));
        if ws.db == big.db {
            let text = pdftotext(&pdf);
            for i in 0..30 {
                assert!(text.contains(&format!("Cloud {i:02}")));
            }
        }
    }
    assert!(counts[1] > counts[0], "{counts:?}");
}

#[test]
fn a_report_needs_a_writable_place() {
    let ws = workspace();
    let out = ws
        .cmd(&[
            "report",
            "-o",
            "/no/such/dir/m.pdf",
            "--date",
            "2026-11-30",
            "--samples",
            "10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: cannot write \"/no/such/dir/m.pdf\"")
    );
}

#[test]
fn the_pdf_shows_hardware_evidence_by_meaning() {
    let ws = workspace();
    ws.ok(&[
        "import",
        &fixture("kernel/dmesg-fell-off.log"),
        &fixture("dcgm-diag/r2-dcgm4-memory-fail.txt"),
        &fixture("lspci/h100-8gpu-one-x8.txt"),
        "--platform",
        "Lab",
    ]);
    let pdf = ws.dir.path().join("hardware.pdf");
    ws.ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "200"]);
    let text = pdftotext(&pdf);
    assert!(
        text.contains("Hardware evidence from the logs"),
        "no hardware page"
    );
    // The Xid 79 counts; the program's Xid 13 does not.
    let row = |code: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(code))
            .unwrap_or_else(|| panic!("no Xid {code} row"))
            .to_string()
    };
    let fell = row("79 ");
    assert!(
        fell.contains("GPU has fallen off the bus")
            && fell.contains("platform")
            && fell.contains("yes"),
        "{fell}"
    );
    let app = row("13 ");
    assert!(app.contains("application") && app.contains(" no "), "{app}");
    assert!(
        text.contains("memory") && text.contains("Fail"),
        "health check missing"
    );
    assert!(text.contains("x8 / x16"), "narrowed link missing");
}

/// `report --job` adds the job's cost page: every platform's bands as
/// `cost --json` gives them (the same draws and seed unless told), and
/// what each term rests on.
#[test]
fn the_report_costs_a_job_on_every_platform() {
    let ws = workspace();
    let pdf = ws.dir.path().join("job.pdf");
    let job = "gpus=8,work=2000h,deadline=14d";
    ws.ok(&[
        "report",
        "-o",
        pdf.to_str().unwrap(),
        "--samples",
        "300",
        "--job",
        job,
    ]);
    let text = pdftotext(&pdf);
    assert!(text.contains("What finishing the job costs"), "{text}");
    let costs = ws.json(&["cost", "--job", job]);
    let mut priced = 0;
    for p in costs["platforms"].as_array().unwrap() {
        if let Some(p50) = p["cost"]["p50"].as_str() {
            assert!(text.contains(p50), "{} p50 {p50} missing", p["platform"]);
            priced += 1;
        }
        let hours = format!("{:.0}", p["hours"]["p50"].as_f64().unwrap());
        assert!(text.contains(&hours), "{hours} h missing");
    }
    assert!(priced > 0, "no platform priced: {costs}");
    assert!(text.contains("sustain.gemm_nominal_pct") || text.contains("not measured"));
}
