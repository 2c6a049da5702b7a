//! Scale benchmark: workspaces of many platforms, runs and samples, built
//! from seeded logs through `breakpoint import` (per platform a startup,
//! switch, drill and billing table, so that every platform is ranked, and
//! nvidia-smi logs holding the samples), then every command a user runs on
//! them, each as its own process with its wall time and peak memory. The
//! cost of an operation should grow with what it shows, not with the
//! samples stored.
//!
//! Run: `cargo bench -p breakpoint-cli --bench scale`
//! `BENCH_SCALES` picks the workspaces: `platforms×runs×samples` separated
//! by commas, e.g. `10x100x10M,100x10000x10M,1000x10000x10M` (the
//! default); `100x10000x100M` writes about 10 GB of logs on the way.
//! `BENCH_KEEP=/tmp/scale` keeps each workspace as `/tmp/scale-PxR.db`;
//! `BENCH_REUSE=/tmp/scale` measures those again without importing.
//! Targets: warm `rank` with 10 000 draws ≤ 50 ms at 1000 platforms;
//! `report` ≤ 3 s at 100 platforms; peak memory ≤ 256 MiB.

#[path = "support/measure.rs"]
mod measure;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use measure::measure;

/// The allocator the command line and the app use, so that the ranking in
/// process is timed as the app runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const GPUS: u64 = 8;
/// The tables each platform gets besides its nvidia-smi logs.
const TABLES: u64 = 4;

/// SplitMix64: the seeded generator the tables draw from.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn iso(epoch_s: f64) -> String {
    jiff::Timestamp::from_millisecond((epoch_s * 1000.0) as i64)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// One platform's startup, switch, drill and billing tables: each platform
/// draws its own character (fast or slow starts, easy or hard switches,
/// honest or padded bills), so the ranking has something to order.
fn write_tables(dir: &Path, platform: u64) -> std::io::Result<()> {
    let mut rng = Seeded(platform.wrapping_mul(0xA076_1D64_78BD_642F) ^ 0x5EED);
    let day = 1_717_200_000.0 + 86_400.0;
    let baseline = rng.between(1.0, 90.0);
    let peak = baseline * rng.between(1.5, 20.0);
    let mut startup = String::from("scenario,image,submitted_at,first_compute_at,outcome\n");
    for k in 0..24 {
        let (scenario, median) = if k < 12 {
            ("baseline", baseline)
        } else {
            ("peak", peak)
        };
        let submitted = day + f64::from(k) * 600.0;
        if scenario == "peak" && rng.between(0.0, 1.0) < 0.1 {
            startup.push_str(&format!("{scenario},warm,{},,timeout\n", iso(submitted)));
        } else {
            let latency = median * rng.between(0.8, 1.25);
            startup.push_str(&format!(
                "{scenario},warm,{},{},ok\n",
                iso(submitted),
                iso(submitted + latency)
            ));
        }
    }
    std::fs::write(dir.join("startup.csv"), startup)?;
    let steps = rng.between(2.0, 40.0);
    let mut switch = String::from(
        "from_env,to_env,success,manual_steps,duration_s,rel_l2_error,ops_passed,ops_total\n",
    );
    for to in [
        "PyTorch 2.1 + CANN 7.0",
        "MindSpore 2.3 + CANN 7.0",
        "PyTorch 2.3 + cu121",
    ] {
        let s = (steps * rng.between(0.8, 1.2)).round();
        switch.push_str(&format!(
            "PyTorch 2.1 + cu118,{to},{},{s},{:.0},{:.2e},{},127\n",
            rng.between(0.0, 1.0) < 0.85,
            600.0 + s * 240.0,
            rng.between(1e-6, 1e-3),
            (127.0 * rng.between(0.8, 1.0)) as u32
        ));
    }
    std::fs::write(dir.join("switch.csv"), switch)?;
    let recovery = rng.between(20.0, 600.0);
    let mut drills = String::from("fault,detected,recovered,recovery_s,progress_lost_s\n");
    for fault in [
        "process-kill",
        "out-of-memory",
        "bad-data-path",
        "instance-recreate",
    ] {
        let r = recovery * rng.between(0.85, 1.15);
        drills.push_str(&format!("{fault},yes,yes,{r:.0},{:.0}\n", r * 2.0));
    }
    std::fs::write(dir.join("drills.csv"), drills)?;
    let price = rng.between(6.0, 20.0);
    let padded = rng.between(0.0, 0.4);
    let mut billing = String::from(
        "instance,start,end,billed_seconds,compute_seconds,queue_seconds,io_wait_seconds,amount,currency,unit_price\n",
    );
    for job in 0..3 {
        let start = day + f64::from(job) * 86_400.0;
        let compute = rng.between(3000.0, 9000.0);
        let billed = (compute * (1.0 + padded)).round();
        billing.push_str(&format!(
            "job-{job},{},{},{billed:.0},{compute:.0},0,{:.0},{:.2},CNY,{price:.2}\n",
            iso(start),
            iso(start + billed),
            billed - compute,
            billed / 3600.0 * price
        ));
    }
    std::fs::write(dir.join("billing.csv"), billing)
}

struct Scale {
    platforms: u64,
    runs: u64,
    samples: u64,
}

fn parse_scale(text: &str) -> Option<Scale> {
    let mut parts = text.trim().split('x');
    let number = |s: &str| -> Option<u64> {
        let s = s.trim();
        let (digits, factor) = match s.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => match s.strip_suffix('k') {
                Some(d) => (d, 1_000),
                None => (s, 1),
            },
        };
        digits.parse::<u64>().ok().map(|n| n * factor)
    };
    Some(Scale {
        platforms: number(parts.next()?)?,
        runs: number(parts.next()?)?,
        samples: number(parts.next()?)?,
    })
}

/// One run's log: `rows` rounds of 8 GPUs at 1 s, starting `day` days in.
fn write_run(path: &Path, run: u64, rows: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(
        out,
        "timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, clocks.sm [MHz]"
    )?;
    // Runs one after the other, ten minutes apart.
    let base = 1_717_200_000 + run as i64 * (rows as i64 + 600);
    for r in 0..rows {
        let t = jiff::Timestamp::from_second(base + r as i64).unwrap_or_default();
        let stamp = t.strftime("%Y/%m/%d %H:%M:%S");
        for g in 0..GPUS {
            let mut x = (run << 32) ^ (r << 4) ^ g;
            x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let busy = r % 2700 < 2400;
            let power = if busy {
                24_000 + (x >> 52) % 1200
            } else {
                6_000 + (x >> 56)
            };
            writeln!(
                out,
                "{stamp}.{:03}, {g}, {}.{:02} W, {} %, {}, {} MHz",
                100 + g,
                power / 100,
                power % 100,
                if busy { 94 + (x >> 60) % 7 } else { 0 },
                if busy { 70 } else { 44 },
                if busy { 1410 } else { 210 }
            )?;
        }
    }
    out.flush()
}

/// The warm ranking as the app's IPC command runs it: the use case alone,
/// in this process, median of five (seconds).
fn rank_in_process(db: &Path) -> Result<f64, Box<dyn std::error::Error>> {
    use breakpoint_api::ranking;
    let store = breakpoint_api::Store::open_existing(db)?;
    let request = ranking::RankRequest {
        sources: ranking::Sources::None,
        ..ranking::RankRequest::default()
    };
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            ranking::rank(&store, &request).map(|_| started.elapsed().as_secs_f64())
        })
        .collect::<Result<_, _>>()?;
    times.sort_by(f64::total_cmp);
    Ok(times[2])
}

fn cli(bin: &str, db: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("--db").arg(db).args(args).stdout(Stdio::null());
    cmd
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bin = env!("CARGO_BIN_EXE_breakpoint");
    let scales: Vec<Scale> = std::env::var("BENCH_SCALES")
        .unwrap_or_else(|_| "10x100x10M,100x10000x10M,1000x10000x10M".into())
        .split(',')
        .filter_map(parse_scale)
        .collect();
    println!(
        "scale: {:>9} {:>6} {:>7} {:>9} {:>8} {:>11} {:>11} {:>9} {:>14} {:>8} {:>9}",
        "platforms",
        "runs",
        "samples",
        "db MB",
        "import s",
        "rank cold",
        "rank warm",
        "explain",
        "report",
        "db info",
        "peak MiB"
    );
    for s in scales {
        let dir = tempfile::tempdir()?;
        let db = dir.path().join("scale.db");
        let per_platform = s.runs.div_ceil(s.platforms);
        // Every platform's tables are runs too: the samples go to the rest.
        let logs_per_platform = per_platform.saturating_sub(TABLES).max(1);
        let rows = (s.samples / (logs_per_platform * s.platforms) / GPUS).max(1);
        let mut import_s = 0.0;
        let mut import_peak: f64 = 0.0;
        let mut run = 0;
        let mut sampled_runs = 0;
        // A workspace kept by an earlier run (BENCH_KEEP) skips the import.
        let kept = std::env::var("BENCH_REUSE")
            .ok()
            .map(|prefix| format!("{prefix}-{}x{}.db", s.platforms, s.runs))
            .filter(|path| Path::new(path).exists());
        if let Some(path) = &kept {
            std::fs::copy(path, &db)?;
            run = s.runs;
            sampled_runs = s.platforms * logs_per_platform;
        }
        for p in 0..if kept.is_some() { 0 } else { s.platforms } {
            let name = format!("P{p:04}");
            // An offering with its price and a billing rule: what the
            // billing breakpoint scores besides the bills.
            let mut rng = Seeded(p ^ 0xB111);
            let price = format!("{:.2}", rng.between(6.0, 20.0));
            let granularity = ["1s", "1m", "1h"][(rng.next() % 3) as usize];
            let io_wait = if rng.next().is_multiple_of(2) {
                "true"
            } else {
                "false"
            };
            for args in [
                &["platform", "add", &name][..],
                &[
                    "offering",
                    "add",
                    "--platform",
                    &name,
                    "--accelerator",
                    "A100 80GB SXM",
                    "--count",
                    "8",
                    "--currency",
                    "CNY",
                    "--price-on-demand",
                    &price,
                ][..],
                &[
                    "billing",
                    "set",
                    "--platform",
                    &name,
                    "--granularity",
                    granularity,
                    "--bills-io-wait",
                    io_wait,
                ][..],
            ] {
                let status = cli(bin, &db, args).status()?;
                assert!(status.success(), "breakpoint {args:?} failed");
            }
            let logs = dir.path().join(&name);
            std::fs::create_dir_all(&logs)?;
            write_tables(&logs, p)?;
            run += TABLES;
            for _ in 0..logs_per_platform {
                write_run(&logs.join(format!("run-{run}.csv")), run, rows)?;
                run += 1;
                sampled_runs += 1;
            }
            let (t, m) = measure(&mut cli(
                bin,
                &db,
                &[
                    "import",
                    logs.to_str().unwrap_or(""),
                    "--platform",
                    &name,
                    "--tz",
                    "UTC",
                ],
            ))?;
            import_s += t;
            import_peak = import_peak.max(m);
            std::fs::remove_dir_all(&logs)?;
        }
        let size = std::fs::metadata(&db)?.len() as f64 / 1e6;
        let (cold, m1) = measure(&mut cli(bin, &db, &["rank", "--samples", "10000"]))?;
        let (warm, m2) = measure(&mut cli(bin, &db, &["rank", "--samples", "10000"]))?;
        let in_process = rank_in_process(&db)?;
        let (explain, m3) = measure(&mut cli(bin, &db, &["explain", "P0000"]))?;
        let pdf = dir.path().join("report.pdf");
        let (report, m4) = measure(&mut cli(
            bin,
            &db,
            &[
                "report",
                "-o",
                pdf.to_str().unwrap_or(""),
                "--samples",
                "10000",
            ],
        ))?;
        let pages = Command::new("pdfinfo")
            .arg(&pdf)
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .find_map(|l| l.strip_prefix("Pages:").map(|p| p.trim().to_string()))
            })
            .unwrap_or_else(|| "?".into());
        let (info, m5) = measure(&mut cli(bin, &db, &["db", "info"]))?;
        // For a closer look (a profiler): keep the workspace.
        if let Ok(keep) = std::env::var("BENCH_KEEP") {
            std::fs::copy(&db, format!("{keep}-{}x{}.db", s.platforms, s.runs))?;
        }
        let peak = import_peak.max(m1).max(m2).max(m3).max(m4).max(m5);
        println!(
            "       {:>9} {:>6} {:>7} {size:>9.0} {import_s:>8.1} {:>9.0}ms {:>9.0}ms {:>7.0}ms {:>6.2}s/{pages:>3}pp {:>6.0}ms {peak:>9.0}",
            s.platforms,
            run,
            format!("{:.1}M", (sampled_runs * rows * GPUS) as f64 / 1e6),
            cold * 1000.0,
            warm * 1000.0,
            explain * 1000.0,
            report,
            info * 1000.0,
        );
        println!(
            "       warm rank in process (the use case the app calls): {:.0} ms",
            in_process * 1000.0
        );
        println!(
            "       peak MiB by command: import {import_peak:.0}, rank cold {m1:.0}, warm {m2:.0}, explain {m3:.0}, report {m4:.0}, db info {m5:.0}"
        );
    }
    println!(
        "times are whole processes (start-up included); a peak of 0 is a command too short to sample; targets: warm rank ≤ 50 ms at 1000 platforms, report ≤ 3 s at 100, peak ≤ 256 MiB"
    );
    Ok(())
}
