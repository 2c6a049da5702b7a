//! A fleet the size of a cloud, judged two ways: a real Prometheus loaded
//! (promtool) with 32 nodes × 8 GPUs over 7 days at 60 s — power,
//! utilisation, temperature, the clock-event mask and XIDs — with faults
//! planted in a few GPUs (a power sag, a GPU lost after an XID 79, half an
//! hour of thermal slowdown, a node silent for two hours), pulled by
//! `breakpoint import --prometheus` as summaries with drill-down and as
//! every sample. For each: time to verdict, bytes the server sent (counted
//! by a relay in front of it), queries, peak memory, samples stored, and
//! the sustain score both verdicts give. Then the same figures
//! extrapolated from the query plan to 10 000 GPUs over 90 days.
//!
//! Run: `cargo bench -p breakpoint-cli --bench summaries` (needs Debian's
//! `prometheus` package: scripts/setup installs it).
//! Goals: the 256-GPU week summarised in under a minute at under 256 MiB;
//! the 10 000-GPU quarter in under an hour of server time.
//! `BENCH_SUMMARY_NODES`, `BENCH_SUMMARY_DAYS` scale it.

use std::io::{BufWriter, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[path = "support/measure.rs"]
mod measure;
#[path = "support/prometheus.rs"]
mod prometheus;

use measure::measure;

const GPUS: u32 = 8;
const STEP_S: i64 = 60;
const DAY_S: i64 = 86_400;

fn env_or(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The planted faults, by node and GPU, at fractions of the range.
struct Faults {
    nodes: u32,
    points: i64,
}

impl Faults {
    /// Node 3's GPU 2 sags from 600 W to 450 W from three sevenths on.
    fn power_mw(&self, n: u32, g: u32, i: i64, noise: i64) -> i64 {
        let base = if n == 3 % self.nodes && g == 2 && i >= self.points * 3 / 7 {
            450_000
        } else {
            600_000
        };
        base + noise
    }

    /// Node 7's GPU 5 falls off the bus at five sevenths.
    fn lost_at(&self, n: u32, g: u32) -> Option<i64> {
        (n == 7 % self.nodes && g == 5).then_some(self.points * 5 / 7)
    }

    /// Node 11 is silent for two hours from four sevenths.
    fn silent(&self, n: u32, i: i64) -> bool {
        let from = self.points * 4 / 7;
        n == 11 % self.nodes && (from..from + 2 * 3600 / STEP_S).contains(&i)
    }

    /// Node 19's GPU 0: half an hour of software thermal slowdown from two
    /// sevenths.
    fn throttled(&self, n: u32, g: u32, i: i64) -> bool {
        let from = self.points * 2 / 7;
        n == 19 % self.nodes && g == 0 && (from..from + 1800 / STEP_S).contains(&i)
    }
}

/// The history as OpenMetrics, one family after another, each series in
/// time order. Returns the points written.
fn write_history(path: &Path, faults: &Faults, start_s: i64) -> std::io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let families = [
        "DCGM_FI_DEV_POWER_USAGE",
        "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_GPU_TEMP",
        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
        "DCGM_FI_DEV_XID_ERRORS",
    ];
    let mut written = 0;
    for family in families {
        writeln!(out, "# TYPE {family} gauge")?;
        for n in 0..faults.nodes {
            for g in 0..GPUS {
                let end = faults.lost_at(n, g).unwrap_or(faults.points);
                for i in 0..end {
                    if faults.silent(n, i) {
                        continue;
                    }
                    let mut x = (u64::from(n) << 40) ^ (u64::from(g) << 32) ^ i as u64;
                    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let noise = (x >> 40) as i64 % 20_001 - 10_000;
                    let value = match family {
                        "DCGM_FI_DEV_POWER_USAGE" => {
                            let mw = faults.power_mw(n, g, i, noise);
                            format!("{}.{:03}", mw / 1000, mw % 1000)
                        }
                        "DCGM_FI_DEV_GPU_UTIL" => {
                            if x.is_multiple_of(40) { "96" } else { "100" }.into()
                        }
                        "DCGM_FI_DEV_GPU_TEMP" => (60 + (x >> 50) % 8).to_string(),
                        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS" => {
                            if faults.throttled(n, g, i) {
                                "32".into()
                            } else {
                                "0".into()
                            }
                        }
                        _ => match faults.lost_at(n, g) {
                            Some(l) if i + 4 >= l => "79".into(),
                            _ => "0".into(),
                        },
                    };
                    writeln!(
                        out,
                        "{family}{{gpu=\"{g}\",UUID=\"GPU-{n:04}-{g:04}\",Hostname=\"node-{n:03}\"}} {value} {}",
                        start_s + i * STEP_S
                    )?;
                    written += 1;
                }
            }
        }
    }
    writeln!(out, "# EOF")?;
    out.flush()?;
    Ok(written)
}

/// A relay on loopback in front of `upstream`, counting the bytes the
/// server sends back; its URL.
fn counting_relay(upstream: u16, sent: Arc<AtomicU64>) -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            let (Ok(mut client_in), Ok(mut server_out)) = (client.try_clone(), server.try_clone())
            else {
                continue;
            };
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut client_in, &mut server_out);
                let _ = server_out.shutdown(std::net::Shutdown::Write);
            });
            let sent = sent.clone();
            std::thread::spawn(move || {
                let (mut from, mut to) = (server, client);
                let mut buffer = vec![0u8; 64 << 10];
                while let Ok(n) = from.read(&mut buffer) {
                    if n == 0 || to.write_all(&buffer[..n]).is_err() {
                        break;
                    }
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                }
                let _ = to.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    Ok(url)
}

/// What one way of pulling cost and concluded.
struct Outcome {
    seconds: f64,
    peak_mib: f64,
    bytes: u64,
    requests: u64,
    samples: u64,
    sustain: f64,
}

fn pull(
    bin: &str,
    db: &Path,
    url: &str,
    range: (&str, &str),
    how: &str,
    sent: &AtomicU64,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let status = Command::new(bin)
        .arg("--db")
        .arg(db)
        .args(["platform", "add", "fleet"])
        .stdout(Stdio::null())
        .status()?;
    assert!(status.success());
    let report = db.with_extension("json");
    sent.store(0, Ordering::Relaxed);
    let (seconds, peak_mib) = measure(Command::new("sh").arg("-c").arg(format!(
        "exec '{bin}' --db '{}' --json import --platform fleet --prometheus {url} \
             --from {} --to {} --step {STEP_S}s {how} > '{}'",
        db.display(),
        range.0,
        range.1,
        report.display()
    )))?;
    let bytes = sent.load(Ordering::Relaxed);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report)?)?;
    let runs: serde_json::Value = serde_json::from_slice(
        &Command::new(bin)
            .arg("--db")
            .arg(db)
            .args(["--json", "runs", "list"])
            .output()?
            .stdout,
    )?;
    let samples = runs
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["sample_count"].as_u64())
        .sum();
    let ranked: serde_json::Value = serde_json::from_slice(
        &Command::new(bin)
            .arg("--db")
            .arg(db)
            .args(["--json", "rank", "--samples", "200"])
            .output()?
            .stdout,
    )?;
    let sustain = ranked["ranking"]["platforms"][0]["breakpoints"][1]["score"]
        .as_f64()
        .unwrap_or(f64::NAN);
    Ok(Outcome {
        seconds,
        peak_mib,
        bytes,
        requests: report["requests"].as_u64().unwrap_or(0),
        samples,
        sustain,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bin = env!("CARGO_BIN_EXE_breakpoint");
    if !prometheus::installed() {
        println!(
            "summaries: Prometheus is not installed (scripts/setup installs Debian's package); skipped"
        );
        return Ok(());
    }
    let nodes = env_or("BENCH_SUMMARY_NODES", 32);
    let days = env_or("BENCH_SUMMARY_DAYS", 7);
    let dir = tempfile::tempdir()?;
    let points = i64::from(days) * DAY_S / STEP_S;
    // Whole days, ending before today began: recent enough to be kept.
    let start_s = (jiff::Timestamp::now().as_second() / DAY_S - i64::from(days) - 1) * DAY_S;
    let end_s = start_s + (points - 1) * STEP_S;
    let faults = Faults { nodes, points };
    let history = dir.path().join("history.om");
    let t = Instant::now();
    let written = write_history(&history, &faults, start_s)?;
    let size = std::fs::metadata(&history)?.len();
    println!(
        "summaries: {nodes} nodes × {GPUS} GPUs × {days} days at {STEP_S} s, 5 series a GPU = {:.1} M points \
         ({:.0} MB of OpenMetrics, written in {:.1} s); planted: a power sag, a GPU lost after an XID 79, \
         a node silent for 2 h, 30 min of thermal slowdown",
        written as f64 / 1e6,
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let data = dir.path().join("data");
    println!(
        "  promtool loaded it in {:.1} s",
        prometheus::create_blocks(&history, &data)?
    );
    std::fs::remove_file(&history)?;
    let server = prometheus::Prometheus::start(dir.path(), &data)?;
    let sent = Arc::new(AtomicU64::new(0));
    let url = counting_relay(server.port, sent.clone())?;
    let ts = |s: i64| {
        jiff::Timestamp::from_second(s)
            .map(|t| t.to_string())
            .unwrap_or_default()
    };
    let range = (ts(start_s), ts(end_s));
    let range = (range.0.as_str(), range.1.as_str());
    let summary = pull(
        bin,
        &dir.path().join("summaries.db"),
        &url,
        range,
        "--summaries --window 1h",
        &sent,
    )?;
    let whole = pull(
        bin,
        &dir.path().join("samples.db"),
        &url,
        range,
        "--samples",
        &sent,
    )?;
    drop(server);

    let gpus = f64::from(nodes * GPUS);
    let row = |what: &str, o: &Outcome| {
        println!(
            "  {what:<22} {:>7.1} s  {:>8.1} MB sent  {:>6} queries  peak {:>4.0} MiB  {:>10} samples stored  sustain {:.1}",
            o.seconds,
            o.bytes as f64 / 1e6,
            o.requests,
            o.peak_mib,
            o.samples,
            o.sustain
        )
    };
    row("summaries, drill-down", &summary);
    row("every sample", &whole);
    println!(
        "  ratio: summaries take {:.2}× the time, {:.3}× the bytes and store {:.3}× the samples; \
         the sustain scores differ by {:.1} points (goal: under a minute at under 256 MiB, within 2 points)",
        summary.seconds / whole.seconds,
        summary.bytes as f64 / whole.bytes as f64,
        summary.samples as f64 / whole.samples.max(1) as f64,
        (summary.sustain - whole.sustain).abs()
    );

    // The query plan at 10 000 GPUs over 90 days: summaries cost one query
    // per node and day whatever the fleet's health (their server time
    // scales with the points they read), drill-downs one per flagged
    // stretch (here as many per GPU-day as planted); every sample is the
    // points themselves.
    let (far_gpus, far_days) = (10_000.0, 90.0);
    let scale = far_gpus / gpus * far_days / f64::from(days);
    let node_days = f64::from(nodes * days);
    println!(
        "extrapolated to {far_gpus:.0} GPUs over {far_days:.0} days (×{scale:.0} the GPU-days, one server answering one query at a time):"
    );
    let far = |what: &str, o: &Outcome, queries: f64| {
        println!(
            "  {what:<22} {:>7.1} h of server time  {:>9.1} GB sent  {:>9.0} queries  {:>14.0} samples stored",
            o.seconds * scale / 3600.0,
            o.bytes as f64 * scale / 1e9,
            queries,
            o.samples as f64 * scale
        )
    };
    far(
        "summaries, drill-down",
        &summary,
        node_days * scale + (summary.requests as f64 - node_days) * scale,
    );
    far("every sample", &whole, whole.requests as f64 * scale);
    println!(
        "  goal: the summaries under an hour of server time — {}",
        if summary.seconds * scale <= 3600.0 {
            "met"
        } else {
            "NOT met on this machine"
        }
    );
    Ok(())
}
