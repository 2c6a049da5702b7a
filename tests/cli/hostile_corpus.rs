//! The hostile corpus (`tests/fixtures/hostile/`) through the binary: each
//! file plants one thing a real export, log or transcript let through
//! before — a figure beyond physics, a usage longer than its period, a cell
//! that splits a spreadsheet row, data transfer read as instance hours, a
//! bill counted twice — and each is refused with the file, line or field
//! named, or read for what it is.

use crate::util::{Workspace, fixture};

fn hostile(name: &str) -> String {
    fixture(&format!("../hostile/{name}"))
}

fn lab() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    ws
}

/// Import `file` into Lab, expecting a refusal that says `said`; nothing
/// may change.
fn refused(ws: &Workspace, file: &str, said: &str) -> String {
    let before = ws.snapshot();
    let out = ws
        .cmd(&["import", "--platform", "Lab", file])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
    assert!(stderr.contains(said), "{file}: {stderr}");
    assert_eq!(ws.snapshot(), before, "{file} changed the workspace");
    stderr
}

#[test]
fn perf_figures_beyond_physics_or_the_datasheet_are_refused() {
    let ws = lab();
    let e = refused(
        &ws,
        &hostile("perf-beyond-physics.json"),
        "results[2] (gemm bf16): median 1.000e300 TFLOP/s is beyond what any device delivers",
    );
    assert!(e.len() < 400, "a 300-digit number printed: {e}");
    refused(
        &ws,
        &hostile("perf-beyond-datasheet.json"),
        "results[2] (gemm bf16): median 2400 TFLOP/s is 2.4× the H200 datasheet's 989.5 TFLOP/s",
    );
    refused(
        &ws,
        &hostile("perf-zero-rate.json"),
        "results[2] (gemm bf16): median must be a rate above zero",
    );
    // The real log next to them still reads.
    ws.ok(&["import", "--platform", "Lab", &fixture("perf/h200.json")]);
}

#[test]
fn a_usage_longer_than_its_period_is_refused() {
    let ws = lab();
    refused(
        &ws,
        &hostile("bill-usage-beyond-period.csv"),
        "billed_seconds: 1000000000000000000 s billed for a period of 3600 s",
    );
}

#[test]
fn cells_that_would_split_a_sheet_or_steer_a_terminal_are_refused() {
    let ws = lab();
    let file = hostile("bill-escape-in-cell.csv");
    refused(&ws, &file, "must not contain control characters (found U+001B)");
    // A CR inside a quoted cell: the row is refused, never stored to reach
    // the dispute sheet as a row break followed by a live formula.
    refused(&ws, &hostile("bill-cr-formula.csv"), "bill-cr-formula.csv:2");
}

#[test]
fn a_provider_line_id_names_one_line() {
    let ws = lab();
    refused(
        &ws,
        &hostile("bill-repeated-line-id.csv"),
        "bill-repeated-line-id.csv:4:1: the line id \"L-1\" was already on line 2",
    );
}

#[test]
fn data_transfer_and_disks_are_not_instance_time() {
    let ws = lab();
    let out = ws.ok(&[
        "import",
        "--platform",
        "Lab",
        &hostile("aws-cur-data-transfer.csv"),
    ]);
    assert!(out.contains("2 billed in other units than time"), "{out}");
    let sheets = ws.json(&["bill", "--disputes"]);
    let r = &sheets[0]["reconciliation"];
    // Only the instance's hour is a bill line; 5000 GB are not 5000 h.
    assert_eq!(r["lines"], 1, "{r}");
    assert_eq!(r["billed_seconds"], 3600.0, "{r}");
    for d in r["disputes"].as_array().unwrap() {
        assert_eq!(d["instance"], "i-0node7", "{d}");
        assert_ne!(d["finding"], "rounding", "{d}");
    }
}

/// The same bill in other bytes — its GBK copy, one more newline — is the
/// same lines: refused, naming the run that holds them. An export that
/// overlaps an earlier one adds only its new lines, and says so.
#[test]
fn a_bill_imported_twice_in_other_bytes_is_not_counted_twice() {
    let ws = lab();
    let utf8 = fixture("../bills/alibaba-instance-bill.csv");
    ws.ok(&["import", "--platform", "Lab", &utf8]);
    let lines = |ws: &Workspace| ws.json(&["bill", "--disputes"])[0]["reconciliation"]["lines"].clone();
    assert_eq!(lines(&ws), 3);
    refused(
        &ws,
        &fixture("../bills/alibaba-instance-bill-gbk.csv"),
        "every line of this bill is in the workspace already (run #1)",
    );
    let again = ws.dir.path().join("again.csv");
    let mut text = std::fs::read(&utf8).unwrap();
    text.extend_from_slice(b"\n");
    std::fs::write(&again, &text).unwrap();
    refused(&ws, again.to_str().unwrap(), "already (run #1)");
    assert_eq!(lines(&ws), 3);

    // Overlapping: one line already held, one new.
    let generic = ws.dir.path().join("generic.csv");
    std::fs::write(
        &generic,
        "line_id,instance,host,start,end,billed_seconds,amount,currency,unit_price\n\
         G-1,i-new,,2026-11-21T16:00:00+08:00,2026-11-21T17:00:00+08:00,3600,32.50,CNY,32.50\n\
         G-2,i-newer,,2026-11-21T17:00:00+08:00,2026-11-21T18:00:00+08:00,3600,32.50,CNY,32.50\n",
    )
    .unwrap();
    ws.ok(&["import", "--platform", "Lab", generic.to_str().unwrap()]);
    let overlap = ws.dir.path().join("overlap.csv");
    std::fs::write(
        &overlap,
        "line_id,instance,host,start,end,billed_seconds,amount,currency,unit_price\n\
         G-2,i-newer,,2026-11-21T17:00:00+08:00,2026-11-21T18:00:00+08:00,3600,32.50,CNY,32.50\n\
         G-3,i-newest,,2026-11-21T18:00:00+08:00,2026-11-21T19:00:00+08:00,3600,32.50,CNY,32.50\n",
    )
    .unwrap();
    let out = ws.ok(&["import", "--platform", "Lab", overlap.to_str().unwrap()]);
    assert!(
        out.contains("1 of 2 line(s) are in the workspace already (run #2"),
        "{out}"
    );
    assert_eq!(lines(&ws), 6);
}
