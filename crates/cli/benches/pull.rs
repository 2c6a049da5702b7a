//! Fleet pull benchmark: 64 nodes × 8 GPUs × 48 h at 15 s (≈ 5.9 M
//! samples of DCGM power) loaded into a local Prometheus with promtool,
//! pulled by `breakpoint import --prometheus`, beside importing the same
//! history from its OpenMetrics file in the same run. The pull is measured
//! for 16 nodes and for 64, to show its memory does not grow with the
//! fleet.
//!
//! Run: `cargo bench -p breakpoint-cli --bench pull` (needs Debian's
//! `prometheus` package: scripts/setup installs it).
//! Targets: within 2× of the file import; memory flat in the nodes.
//! `BENCH_NODES`, `BENCH_HOURS` scale it down for a quick look.
//!
//! Then a hostile server (a local thread, no Prometheus needed) answers the
//! same pull with a gzip bomb, a matrix of more series than a node has and
//! an oversized matrix: each pull's peak memory is printed against the
//! 256 MiB target, with how it ended.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "support/measure.rs"]
mod measure;
#[path = "support/prometheus.rs"]
mod prometheus;

use measure::{measure, measure_outcome};

const GPUS: u32 = 8;
const STEP_S: i64 = 15;

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The history as OpenMetrics: one gauge family, power in watts with a
/// seeded spread, every series in time order.
fn write_history(path: &Path, nodes: u32, start_s: i64, points: i64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(out, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge")?;
    let mut samples = 0;
    for n in 0..nodes {
        for g in 0..GPUS {
            for i in 0..points {
                let mut x = (u64::from(n) << 40) ^ (u64::from(g) << 32) ^ i as u64;
                x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mw = 600_000 + (x >> 40) as i64 % 20_001 - 10_000;
                writeln!(
                    out,
                    "DCGM_FI_DEV_POWER_USAGE{{gpu=\"{g}\",UUID=\"GPU-{n:04}-{g:04}\",Hostname=\"node-{n:02}\"}} {}.{:03} {}",
                    mw / 1000,
                    mw % 1000,
                    start_s + i * STEP_S
                )?;
                samples += 1;
            }
        }
    }
    writeln!(out, "# EOF")?;
    out.flush()?;
    Ok(samples)
}

fn fresh_db(bin: &str, db: &Path) -> std::io::Result<()> {
    let status = Command::new(bin)
        .arg("--db")
        .arg(db)
        .args(["platform", "add", "fleet"])
        .stdout(Stdio::null())
        .status()?;
    assert!(status.success());
    Ok(())
}

fn ts(s: i64) -> String {
    jiff::Timestamp::from_second(s)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// What the hostile server answers `query_range` with.
#[derive(Clone, Copy)]
enum Hostile {
    /// 1 GiB of zeros, gzip-compressed to about a megabyte.
    GzipBomb,
    /// 5000 series for one node.
    TooManySeries,
    /// One series of 3 M points, 57 MB of JSON (under the 64 MiB answer
    /// limit), all outside the range.
    Oversized,
}

/// A server on loopback answering `/api/v1/series` with one node's GPU and
/// `query_range` as `mode` says; the URL.
fn hostile_server(mode: Hostile) -> std::io::Result<String> {
    use std::io::{BufRead, BufReader};
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}", listener.local_addr()?);
    let series = br#"{"status":"success","data":[{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-1","Hostname":"node-a"}]}"#.to_vec();
    let (body, gzip): (Vec<u8>, bool) = match mode {
        Hostile::GzipBomb => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..1024 {
                gz.write_all(&zeros)?;
            }
            (gz.finish()?, true)
        }
        Hostile::TooManySeries => {
            let mut b =
                String::from(r#"{"status":"success","data":{"resultType":"matrix","result":["#);
            for g in 0..5000 {
                if g > 0 {
                    b.push(',');
                }
                b.push_str(&format!(
                    r#"{{"metric":{{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"{g}","Hostname":"node-a"}},"values":[[1780300800,"650.5"]]}}"#
                ));
            }
            b.push_str("]}}");
            (b.into_bytes(), false)
        }
        Hostile::Oversized => {
            let mut b = String::from(
                r#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"node-a"},"values":["#,
            );
            for i in 0..3_000_000i64 {
                if i > 0 {
                    b.push(',');
                }
                b.push_str(&format!("[{},\"6.5\"]", 1_000_000_000 + i));
            }
            b.push_str("]}]}}");
            (b.into_bytes(), false)
        }
    };
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
                    break;
                }
            }
            let (answer, encoded) = if line.contains("/api/v1/series") {
                (&series, false)
            } else {
                (&body, gzip)
            };
            let mut stream = &stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n",
                if encoded {
                    "Content-Encoding: gzip\r\n"
                } else {
                    ""
                },
                answer.len()
            );
            let _ = stream.write_all(answer);
        }
    });
    Ok(url)
}

/// Each hostile answer pulled by the binary: how it ended and its peak
/// memory against the 256 MiB target.
fn hostile_pulls(bin: &str, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "hostile answers, each pulled by `breakpoint import --prometheus` (target: peak ≤ 256 MiB):"
    );
    for (mode, what) in [
        (Hostile::GzipBomb, "a gzip bomb (1 GiB of zeros in ~1 MB)"),
        (Hostile::TooManySeries, "5000 series for one node"),
        (Hostile::Oversized, "3 M points, 57 MB, outside the range"),
    ] {
        let url = hostile_server(mode)?;
        let db = dir.join("hostile.db");
        let _ = std::fs::remove_file(&db);
        fresh_db(bin, &db)?;
        let (secs, mib, ok) = measure_outcome(
            Command::new(bin)
                .arg("--db")
                .arg(&db)
                .args(["import", "--platform", "fleet", "--prometheus", &url])
                .args([
                    "--from",
                    "2026-06-01T08:00:00Z",
                    "--to",
                    "2026-06-01T09:00:00Z",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )?;
        println!(
            "  {what:<40} {}  in {secs:.2} s, peak {mib:.0} MiB ({})",
            if ok {
                "stored what was in range"
            } else {
                "refused, nothing stored"
            },
            if mib <= 256.0 {
                "within"
            } else {
                "OVER the target"
            }
        );
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bin = env!("CARGO_BIN_EXE_breakpoint");
    let nodes = env_or("BENCH_NODES", 64);
    let hours = env_or("BENCH_HOURS", 48);
    let scratch = tempfile::tempdir()?;
    hostile_pulls(bin, scratch.path())?;
    if !prometheus::installed() {
        println!(
            "pull: Prometheus is not installed (scripts/setup installs Debian's package); skipped"
        );
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let points = i64::from(hours) * 3600 / STEP_S;
    let now = jiff::Timestamp::now().as_second();
    let start_s = (now / 3600 - i64::from(hours) - 2) * 3600;
    let end_s = start_s + (points - 1) * STEP_S;
    let history = dir.path().join("history.om");
    let t = Instant::now();
    let samples = write_history(&history, nodes, start_s, points)?;
    let size = std::fs::metadata(&history)?.len();
    println!(
        "pull: {nodes} nodes × {GPUS} GPUs × {hours} h at {STEP_S} s = {samples} samples ({:.0} MB of OpenMetrics, written in {:.1} s)",
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let data = dir.path().join("data");
    println!(
        "  promtool loaded it in {:.1} s",
        prometheus::create_blocks(&history, &data)?
    );
    let server = prometheus::Prometheus::start(dir.path(), &data)?;
    let url = server.url();

    let pull = |db: &Path, selector: Option<&str>| -> std::io::Result<(f64, f64)> {
        fresh_db(bin, db)?;
        let mut cmd = Command::new(bin);
        cmd.arg("--db")
            .arg(db)
            .args(["import", "--platform", "fleet", "--prometheus", &url])
            .args(["--from", &ts(start_s), "--to", &ts(end_s)])
            // Every sample, as the file holds them, whatever the fleet's size.
            .arg("--samples")
            .stdout(Stdio::null());
        if let Some(s) = selector {
            cmd.args(["--selector", s]);
        }
        measure(&mut cmd)
    };
    let quarter = format!(
        "{{Hostname=~\"node-({})\"}}",
        (0..nodes.div_ceil(4))
            .map(|n| format!("{n:02}"))
            .collect::<Vec<_>>()
            .join("|")
    );
    let (small_s, small_mib) = pull(&dir.path().join("quarter.db"), Some(&quarter))?;
    let (pull_s, pull_mib) = pull(&dir.path().join("pull.db"), None)?;
    fresh_db(bin, &dir.path().join("file.db"))?;
    let (file_s, file_mib) = measure(
        Command::new(bin)
            .arg("--db")
            .arg(dir.path().join("file.db"))
            .args(["import", "--platform", "fleet", "--tz", "UTC"])
            .arg(&history)
            .stdout(Stdio::null()),
    )?;
    drop(server);

    println!(
        "  pull, {} nodes     {small_s:>7.2} s  {:>5.2} M samples/s  peak {small_mib:.0} MiB",
        nodes.div_ceil(4),
        samples as f64 / 4.0 / small_s / 1e6
    );
    println!(
        "  pull, {nodes} nodes     {pull_s:>7.2} s  {:>5.2} M samples/s  peak {pull_mib:.0} MiB   (memory flat: {:.2}× for 4× the nodes)",
        samples as f64 / pull_s / 1e6,
        pull_mib / small_mib
    );
    println!(
        "  the file, imported  {file_s:>7.2} s  {:>5.2} M samples/s  peak {file_mib:.0} MiB",
        samples as f64 / file_s / 1e6
    );
    println!(
        "  ratio: the pull takes {:.2}× the file import's time (target ≤ 2×)",
        pull_s / file_s
    );
    Ok(())
}
