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
    refused(
        &ws,
        &file,
        "must not contain control characters (found U+001B)",
    );
    // A CR inside a quoted cell: the row is refused, never stored to reach
    // the dispute sheet as a row break followed by a live formula.
    refused(
        &ws,
        &hostile("bill-cr-formula.csv"),
        "bill-cr-formula.csv:2",
    );
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
    let lines =
        |ws: &Workspace| ws.json(&["bill", "--disputes"])[0]["reconciliation"]["lines"].clone();
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

/// The Xid events of run `id`, as (code, GPU).
fn xids(ws: &Workspace, id: &str) -> Vec<(i64, i64)> {
    ws.json(&["runs", "show", id])["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| Some((e["code"].as_i64()?, e["gpu"].as_i64()?)))
        .collect()
}

#[test]
fn kernel_transcripts_are_read_whole() {
    // `dmesg | grep --color` in a `script` transcript: the coloured Xid 79
    // is there.
    let ws = lab();
    ws.ok(&[
        "import",
        "--platform",
        "Lab",
        &hostile("dmesg-color-transcript.log"),
    ]);
    let found = xids(&ws, "1");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().any(|(code, _)| *code == 79), "{found:?}");
    // Lines ended by CR alone: three Xids on two GPUs, not one event.
    let ws = lab();
    ws.ok(&["import", "--platform", "Lab", &hostile("dmesg-cr-only.log")]);
    let found = xids(&ws, "1");
    assert_eq!(found.len(), 3, "{found:?}");
    let gpus: std::collections::BTreeSet<i64> = found.iter().map(|(_, g)| *g).collect();
    assert_eq!(gpus.len(), 2, "{found:?}");
}

#[test]
fn a_stamp_no_clock_holds_is_a_bad_line_not_an_overflow() {
    let ws = lab();
    refused(
        &ws,
        &hostile("dmesg-huge-stamp.log"),
        "dmesg-huge-stamp.log:4: [99999999999999999999.000000] is not seconds since boot",
    );
    let out = ws.ok(&[
        "import",
        "--platform",
        "Lab",
        "--skip-bad-lines",
        &hostile("dmesg-huge-stamp.log"),
    ]);
    assert!(out.contains("1 line(s) skipped"), "{out}");
    assert_eq!(xids(&ws, "1").len(), 2);
}

#[test]
fn a_dcgmi_result_that_cannot_be_read_is_a_warning_never_silence() {
    let ws = lab();
    let out = ws.ok(&[
        "import",
        "--platform",
        "Lab",
        &hostile("dcgmi-unreadable-fail.txt"),
    ]);
    for said in [
        "line 15: the result \"Fail - GPU: 0 (ECC)\" cannot be read; kept as a failure on every GPU",
        "line 20: the result \"FAIL - All\" cannot be read",
        "line 21: the result \"Pass - GPUs: 0, 1, 2, x\" cannot be read",
    ] {
        assert!(out.contains(said), "{said}: {out}");
    }
}

/// Dates that do not exist and offsets no clock has, in the reader every
/// format shares: refused with line, column and why.
#[test]
fn times_that_are_not_times_are_refused_with_why() {
    let ws = lab();
    let file = ws.dir.path().join("times.csv");
    for (start, why) in [
        (
            "2026-02-30 16:00:00",
            "2026-02-30 does not exist: February 2026 has 28 days",
        ),
        (
            "2026-11-20T16:00:00+99:99",
            "the zone offset +99:99 does not exist",
        ),
        (
            "2026-11-20T16:00:00+08:00junk",
            "\"junk\" follows the zone offset",
        ),
    ] {
        std::fs::write(
            &file,
            format!(
                "line_id,instance,start,end,billed_seconds,amount,currency,unit_price\n\
                 L-1,i-1,{start},2026-11-20T17:00:00+08:00,3600,1,CNY,1\n"
            ),
        )
        .unwrap();
        refused(
            &ws,
            file.to_str().unwrap(),
            &format!("times.csv:2:3: \"{start}\" is not a time for start: {why}"),
        );
    }
    // A usage of 10^300 hours with no end: refused, not an overflow.
    let usage = ws.dir.path().join("usage.csv");
    std::fs::write(
        &usage,
        "交易ID,资源ID,实例名称,使用开始时间,使用量,使用量单位,总费用\ntx-1,i-1,n1,2026-11-20 16:00:00,1e300,小时,1.00\n",
    )
    .unwrap();
    refused(
        &ws,
        usage.to_str().unwrap(),
        "usage.csv:2:5: 使用量: a usage of 3.600e303 s is longer than a year",
    );
}

/// A bill longer than a sheet shows: the CSV has every row, written as
/// found; JSON, the table and the report keep the rows with the most in
/// question and count the rest.
#[test]
fn a_long_bill_is_written_whole_and_summarised_where_it_is_read() {
    let ws = lab();
    let bill = ws.dir.path().join("long.csv");
    let mut text =
        String::from("line_id,instance,start,end,billed_seconds,amount,currency,unit_price\n");
    for i in 0..1200 {
        text.push_str(&format!(
            "L-{i},i-{i},2026-11-20T{:02}:00:00Z,2026-11-20T{:02}:00:00Z,3600,1.00,CNY,1.00\n",
            i % 23,
            i % 23 + 1
        ));
    }
    std::fs::write(&bill, text).unwrap();
    ws.ok(&["import", "--platform", "Lab", bill.to_str().unwrap()]);
    let sheet = ws.dir.path().join("sheet.csv");
    let out = ws.ok(&["bill", "--disputes", "-o", sheet.to_str().unwrap()]);
    assert!(
        out.contains("200 more row(s) not shown (1200 in all: 1200 unmatched)"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&sheet).unwrap().lines().count(),
        1201
    );
    let r = &ws.json(&["bill", "--disputes"])[0]["reconciliation"];
    assert_eq!(r["disputes"].as_array().unwrap().len(), 1000);
    assert_eq!(
        (r["unlisted"].as_u64(), r["lines"].as_u64()),
        (Some(200), Some(1200))
    );
}

/// Single `-q` dumps are snapshots: no sampled time to weigh nodes by. No
/// "NaN" reaches a reader: explain prints numbers and says why.
#[test]
fn snapshots_give_readable_figures_not_nan() {
    let ws = lab();
    for f in ["a100-535.txt", "d-power-temperature.txt", "h200-610.txt"] {
        ws.ok(&[
            "import",
            "--platform",
            "Lab",
            &fixture(&format!("smi-q/{f}")),
        ]);
    }
    let explained = ws.ok(&["explain", "Lab", "sustain"]);
    assert!(!explained.contains("NaN"), "{explained}");
    assert!(explained.contains("snapshots only"), "{explained}");
    let throttle = ws.metric("Lab", "sustain.throttle_pct");
    assert!(
        throttle["value"].as_f64().is_some_and(f64::is_finite),
        "{throttle}"
    );
}
