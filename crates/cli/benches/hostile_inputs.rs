//! Inputs a hostile pass sized to exhaust memory, each imported through the
//! binary at two sizes with its peak memory: a rates file (the ECB's shape,
//! millions of rates, and one of 63 MB that passes the bound), a Prometheus
//! summary answer of 60 MB from a server on loopback, and bills of 1 M and
//! 2 M lines. Memory must not grow with the input: each is streamed, and
//! bounded where it passes what such a file can be.
//!
//! Run: `cargo bench -p breakpoint-cli --bench hostile_inputs`
//! (`BENCH_HOSTILE_SCALE` divides every size; `--quick` runs use 5).
//! Targets: peak ≤ 128 MiB for each, and flat (≤ 1.2× for 2× the input).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

#[path = "support/measure.rs"]
mod measure;

use measure::{measure, measure_outcome};

/// The ECB's currencies, in its file's order.
const ECB: &[&str] = &[
    "USD", "JPY", "BGN", "CZK", "DKK", "GBP", "HUF", "PLN", "RON", "SEK", "CHF", "ISK", "NOK",
    "TRY", "AUD", "BRL", "CAD", "CNY", "HKD", "IDR", "ILS", "INR", "KRW", "MXN", "MYR", "NZD",
    "PHP", "SGD", "THB", "ZAR",
];

fn breakpoint(db: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_breakpoint"));
    cmd.env_remove("BREAKPOINT_DB")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// An ECB-shaped rates file of `days` rows, one day apart from 1900.
fn write_rates(path: &Path, days: u64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(out, "Date,{},", ECB.join(","))?;
    let first: jiff::civil::Date = jiff::civil::date(1900, 1, 1);
    for d in 0..days {
        let day = first
            .checked_add(jiff::Span::new().days(d as i64))
            .map_err(std::io::Error::other)?;
        write!(out, "{day}")?;
        for (k, _) in ECB.iter().enumerate() {
            write!(out, ",{}.{:04}", 1 + k, (d * 7 + k as u64) % 10_000)?;
        }
        writeln!(out, ",")?;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// A rates file of `bytes` that passes every bound: made-up currencies and
/// far too many rates (what stored 32.7 M rates before).
fn write_hostile_rates(path: &Path, bytes: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    write!(out, "Date")?;
    for c in ECB {
        write!(out, ",{c}")?;
    }
    writeln!(out)?;
    let mut written = 0u64;
    let mut d = 0u64;
    while written < bytes {
        let line = format!("{}-01-01{}\n", 1000 + d % 8000, ",1".repeat(ECB.len()));
        out.write_all(line.as_bytes())?;
        written += line.len() as u64;
        d += 1;
    }
    out.flush()
}

/// A bill of `lines` lines.
fn write_bill(path: &Path, lines: u64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(
        out,
        "line_id,instance,host,start,end,billed_seconds,amount,currency,unit_price,product"
    )?;
    let base = jiff::Timestamp::from_second(1_735_660_800).map_err(std::io::Error::other)?;
    for i in 0..lines {
        let start = base
            .checked_add(jiff::SignedDuration::from_secs(30 * i as i64))
            .map_err(std::io::Error::other)?;
        let end = start
            .checked_add(jiff::SignedDuration::from_secs(30))
            .map_err(std::io::Error::other)?;
        writeln!(
            out,
            "L-{i},node-{},gpu-node-{},{start},{end},30,0.27,CNY,32.50,GPU instance",
            i % 64,
            i % 64
        )?;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// A day of summaries for one node: every figure of `gpus` GPUs, each
/// series padded to reach about `bytes` in all.
fn summary_answer(bytes: usize, start: i64) -> String {
    const FIGURES: &[&str] = &[
        "points",
        "busy",
        "busy_power",
        "mean_power",
        "working",
        "temp_points",
        "hot",
        "max_temp",
        "xid_max",
        "xid_changes",
        "reasoned",
        "masked",
        "throttled",
    ];
    let gpus = 1000usize;
    let series = gpus * FIGURES.len();
    let per_series = bytes / series;
    let values: Vec<String> = (0..24)
        .map(|h| format!("[{},\"{}\"]", start + h * 3600 + 3600 - 15, 240))
        .collect();
    let values = values.join(",");
    let pad = "x".repeat(per_series.saturating_sub(values.len() + 120));
    let mut out = String::with_capacity(bytes + 1024);
    out.push_str("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
    for s in 0..series {
        if s > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"metric\":{{\"bp_figure\":\"{}\",\"gpu\":\"{}\",\"Hostname\":\"node-0\",\"pad\":\"{pad}\"}},\"values\":[{values}]}}",
            FIGURES[s % FIGURES.len()],
            s / FIGURES.len()
        ));
    }
    out.push_str("]}}");
    out
}

/// A server on loopback answering discovery with one node, the first
/// summary query with `answer`, and every other query with nothing.
fn serve(answer: Arc<String>) -> std::io::Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        let mut summaries = 0usize;
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The rest of the head.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let body: &str = if request.contains("/api/v1/series") {
                r#"{"status":"success","data":[{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"node-0"}]}"#
            } else if request.contains("bp_figure") && summaries == 0 {
                summaries += 1;
                answer.as_str()
            } else {
                r#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#
            };
            let mut out = &stream;
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = out.write_all(body.as_bytes());
            let _ = out.flush();
        }
    });
    Ok(port)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale: u64 = std::env::var("BENCH_HOSTILE_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|s| *s >= 1)
        .unwrap_or(1);
    let dir = tempfile::tempdir()?;
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!("hostile inputs: peak memory of each import at two sizes (sizes ÷ {scale})");
    println!(
        "  {:<44} {:>9} {:>8} {:>9}   {:>9} {:>8} {:>9}   peak ratio",
        "input", "size MiB", "s", "peak MiB", "size MiB", "s", "peak MiB"
    );
    let row = |name: &str, a: (f64, f64, f64), b: (f64, f64, f64)| {
        println!(
            "  {name:<44} {:>9.1} {:>8.2} {:>9.0}   {:>9.1} {:>8.2} {:>9.0}   {:.2}×",
            a.0,
            a.1,
            a.2,
            b.0,
            b.1,
            b.2,
            b.2 / a.2.max(1.0)
        );
    };

    // Rates: 1 M and 2 M stored (the bound), then `rank` on the larger;
    // and a file of 63 MB past every bound, refused.
    let mut rates = Vec::new();
    for million in [1u64, 2] {
        let days = million * 1_000_000 / ECB.len() as u64 / scale;
        let file = dir.path().join(format!("rates-{million}.csv"));
        let size = write_rates(&file, days)?;
        let db = dir.path().join(format!("rates-{million}.db"));
        measure(&mut breakpoint(&db, &["db", "init"]))?;
        let (s, peak) = measure(&mut breakpoint(
            &db,
            &["rates", "import", &file.to_string_lossy()],
        ))?;
        rates.push((mib(size), s, peak, db));
    }
    row(
        &format!(
            "rates import, {} / {} rates",
            1_000_000 / scale,
            2_000_000 / scale
        ),
        (rates[0].0, rates[0].1, rates[0].2),
        (rates[1].0, rates[1].1, rates[1].2),
    );
    let db = &rates[1].3;
    measure(&mut breakpoint(db, &["platform", "add", "P"]))?;
    let (s, peak) = measure(&mut breakpoint(db, &["rank", "--currency", "USD"]))?;
    println!(
        "  rank --currency USD on a workspace of {} rates: {s:.2} s, peak {peak:.0} MiB (rates looked up one pair and day at a time)",
        2_000_000 / scale
    );
    let hostile = dir.path().join("rates-hostile.csv");
    write_hostile_rates(&hostile, 63_000_000 / scale)?;
    let db = dir.path().join("rates-hostile.db");
    measure(&mut breakpoint(&db, &["db", "init"]))?;
    let (s, peak, ok) = measure_outcome(&mut breakpoint(
        &db,
        &["rates", "import", &hostile.to_string_lossy()],
    ))?;
    println!(
        "  a rates file of {:.0} MB past the bounds: {} in {s:.2} s, peak {peak:.0} MiB",
        63.0 / scale as f64,
        if ok {
            "STORED (it must be refused)"
        } else {
            "refused"
        }
    );

    // A summary answer of 60 MB (and 30 MB) from a server on loopback.
    let mut pulls = Vec::new();
    let start = (jiff::Timestamp::now().as_second() / 86_400 - 2) * 86_400;
    for bytes in [
        30_000_000usize / scale as usize,
        60_000_000 / scale as usize,
    ] {
        let answer = Arc::new(summary_answer(bytes, start));
        let size = answer.len() as u64;
        let port = serve(answer)?;
        let db = dir.path().join(format!("pull-{bytes}.db"));
        measure(&mut breakpoint(&db, &["platform", "add", "Fleet"]))?;
        let from = jiff::Timestamp::from_second(start)?.to_string();
        let to = jiff::Timestamp::from_second(start + 86_400 - 15)?.to_string();
        let (s, peak, _) = measure_outcome(&mut breakpoint(
            &db,
            &[
                "import",
                "--platform",
                "Fleet",
                "--prometheus",
                &format!("http://127.0.0.1:{port}"),
                "--from",
                &from,
                "--to",
                &to,
                "--summaries",
            ],
        ))?;
        pulls.push((mib(size), s, peak));
    }
    row("a summary answer (one node's day)", pulls[0], pulls[1]);

    // Bills of 1 M and 2 M lines.
    let mut bills = Vec::new();
    for million in [1u64, 2] {
        let lines = million * 1_000_000 / scale;
        let file = dir.path().join(format!("bill-{million}.csv"));
        let size = write_bill(&file, lines)?;
        let db = dir.path().join(format!("bill-{million}.db"));
        measure(&mut breakpoint(&db, &["platform", "add", "Cloud"]))?;
        let (s, peak) = measure(&mut breakpoint(
            &db,
            &["import", "--platform", "Cloud", &file.to_string_lossy()],
        ))?;
        std::fs::remove_file(&file)?;
        bills.push((mib(size), s, peak));
    }
    row(
        &format!(
            "bill import, {} / {} lines",
            1_000_000 / scale,
            2_000_000 / scale
        ),
        bills[0],
        bills[1],
    );
    println!("  targets: peak ≤ 128 MiB for each, and flat (≤ 1.2× for 2× the input)");
    Ok(())
}
