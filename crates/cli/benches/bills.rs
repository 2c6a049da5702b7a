//! Bills of a million lines: a workspace holding one (an hourly export of a
//! thousand instances over six weeks, none of them measured, so every line
//! is a row of the dispute sheet) and the commands that read it — the
//! dispute sheet written whole as CSV, the sheet as JSON (a thousand rows
//! kept, the rest counted), the ranking and the PDF — each timed with its
//! peak memory. The same commands on half the bill show whether memory
//! grows with it: a streamed reconciliation holds a few lines, not the bill.
//!
//! Run: `cargo bench -p breakpoint-cli --bench bills`
//! (`BENCH_BILL_LINES` sets the size; default 1 000 000).
//! Targets: every command's peak memory ≤ 128 MiB and flat (≤ 1.2× for 2×
//! the lines); the PDF within a minute.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;

#[path = "support/measure.rs"]
mod measure;

use measure::measure;

const INSTANCES: u64 = 1000;

/// An hourly bill of `lines` lines over `INSTANCES` instances.
fn write_bill(path: &Path, lines: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(
        out,
        "line_id,instance,start,end,billed_seconds,amount,currency,unit_price"
    )?;
    let base = jiff::Timestamp::from_second(1_767_225_600).map_err(std::io::Error::other)?;
    for i in 0..lines {
        let hour = i64::try_from(i / INSTANCES).map_err(std::io::Error::other)?;
        let start = base
            .checked_add(jiff::SignedDuration::from_hours(hour))
            .map_err(std::io::Error::other)?;
        let end = start
            .checked_add(jiff::SignedDuration::from_hours(1))
            .map_err(std::io::Error::other)?;
        writeln!(
            out,
            "L-{i},i-{},{start},{end},3600,12.50,CNY,12.50",
            i % INSTANCES
        )?;
    }
    out.flush()
}

fn breakpoint(db: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_breakpoint"));
    cmd.env_remove("BREAKPOINT_DB")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    cmd
}

/// (command, seconds, peak MiB) for a workspace holding a bill of `lines`.
fn run(dir: &Path, lines: u64) -> std::io::Result<Vec<(&'static str, f64, f64)>> {
    let bill = dir.join(format!("bill-{lines}.csv"));
    write_bill(&bill, lines)?;
    let db = dir.join(format!("bills-{lines}.db"));
    measure(&mut breakpoint(&db, &["platform", "add", "Cloud"]))?;
    let bill_arg = bill.to_string_lossy().to_string();
    let sheet = dir
        .join(format!("sheet-{lines}.csv"))
        .to_string_lossy()
        .to_string();
    let pdf = dir
        .join(format!("report-{lines}.pdf"))
        .to_string_lossy()
        .to_string();
    let steps: [(&'static str, Vec<&str>); 5] = [
        (
            "import the bill",
            vec!["import", "--platform", "Cloud", &bill_arg],
        ),
        (
            "bill --disputes -o sheet.csv",
            vec!["bill", "--disputes", "-o", &sheet],
        ),
        (
            "bill --disputes --json",
            vec!["bill", "--disputes", "--json"],
        ),
        ("rank", vec!["rank"]),
        ("report -o report.pdf", vec!["report", "-o", &pdf]),
    ];
    let mut out = Vec::new();
    for (name, args) in steps {
        let (s, mib) = measure(&mut breakpoint(&db, &args))?;
        out.push((name, s, mib));
    }
    let rows = std::fs::read_to_string(&sheet)?.lines().count() - 1;
    if rows as u64 != lines {
        return Err(std::io::Error::other(format!(
            "the sheet has {rows} rows for {lines} lines"
        )));
    }
    Ok(out)
}

fn main() -> std::io::Result<()> {
    let lines: u64 = std::env::var("BENCH_BILL_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir()?;
    let whole = run(dir.path(), lines)?;
    let half = run(dir.path(), lines / 2)?;
    println!(
        "bills: an hourly bill of {lines} lines over {INSTANCES} instances, none measured (every line a row of the sheet)"
    );
    println!(
        "  {:<30} {:>8} {:>10}   {:>8} {:>10}   peak ratio",
        "command", "s", "peak MiB", "half: s", "peak MiB"
    );
    for ((name, s, mib), (_, hs, hmib)) in whole.iter().zip(&half) {
        println!(
            "  {name:<30} {s:>8.2} {mib:>10.0}   {hs:>8.2} {hmib:>10.0}   {:.2}×",
            mib / hmib.max(1.0)
        );
    }
    println!(
        "  targets: peak ≤ 128 MiB and flat (≤ 1.2× for 2× the lines) for every command that reads the bill; the PDF within a minute"
    );
    Ok(())
}
