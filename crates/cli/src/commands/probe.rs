//! `breakpoint probe …`: the GPUs of this machine.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use breakpoint_api::conformity::Expectation;
use breakpoint_api::conformity::{self, Order};
use breakpoint_api::domain::{GpuInfo, SourceKind};
use breakpoint_api::importing::{self, ImportOptions, ImportOutcome};
use breakpoint_probe::{
    OpenError, ProbeSource, SessionOptions, Summary, SystemClock, Workload, rules,
};

use super::{Context, Failure, Outcome};
use crate::args::{CheckArgs, ProbeCommand, ProbeSourceArgs, SampleArgs, SessionArgs, WrapArgs};
use crate::output::{self, opt};

/// Exit status when there is no NVIDIA driver or GPU to probe.
pub const EXIT_NO_GPU: u8 = 3;

/// NVML, or the trace `--replay-trace` names.
pub(super) fn open_source(args: &ProbeSourceArgs) -> Result<ProbeSource, Failure> {
    ProbeSource::open(args.replay_trace.as_deref()).map_err(|e| match e {
        OpenError::NoGpu(e) => Failure::NoGpu(e.to_string()),
        other => Failure::Refused(other.to_string()),
    })
}

fn inventory(source: &mut ProbeSource) -> Result<Vec<GpuInfo>, Failure> {
    source
        .as_dyn()
        .inventory()
        .map_err(|e| Failure::NoGpu(e.to_string()))
}

pub fn run(ctx: &Context, command: ProbeCommand) -> Outcome {
    match command {
        ProbeCommand::Serve(args) => serve(&args),
        ProbeCommand::Inventory(args) => {
            let gpus = inventory(&mut open_source(&args)?)?;
            if ctx.json {
                return Ok(output::print_json(&gpus)?);
            }
            let mut t = output::table(&[
                "GPU",
                "name",
                "normalised",
                "UUID",
                "VRAM",
                "driver",
                "CUDA",
                "PCIe now",
                "PCIe max",
                "power limit",
                "max SM/mem",
                "NVLink",
                "ECC",
                "MIG",
            ]);
            let flag =
                |b: Option<bool>| b.map_or("–", |b| if b { "on" } else { "off" }).to_string();
            for g in &gpus {
                t.add_row(vec![
                    g.index.to_string(),
                    g.accelerator.as_ref().map_or("–".into(), |a| a.raw.clone()),
                    g.accelerator
                        .as_ref()
                        .map_or("–".into(), |a| a.canonical.clone()),
                    opt(g.uuid.as_deref()),
                    g.vram_mib.map_or("–".into(), |m| format!("{m} MiB")),
                    opt(g.driver_version.as_deref()),
                    opt(g.cuda_version.as_deref()),
                    breakpoint_api::domain::pcie_link(g.pcie_gen_current, g.pcie_width_current),
                    breakpoint_api::domain::pcie_link(g.pcie_gen_max, g.pcie_width_max),
                    g.power_limit_enforced_w
                        .map_or("–".into(), |w| format!("{w:.0} W")),
                    format!(
                        "{}/{} MHz",
                        opt(g.max_sm_clock_mhz),
                        opt(g.max_mem_clock_mhz)
                    ),
                    opt(g.nvlink_active),
                    flag(g.ecc_enabled),
                    flag(g.mig_enabled),
                ]);
            }
            let mut text = t.to_string();
            for g in &gpus {
                if let Some(why) = &g.unreadable {
                    text.push_str(&format!("\nGPU {}: cannot be read: {why}", g.index));
                }
                for m in &g.mig_instances {
                    text.push_str(&format!(
                        "\nGPU {}: MIG instance {} ({})",
                        g.index,
                        opt(m.name.as_deref()),
                        m.vram_mib.map_or("–".into(), |v| format!("{v} MiB"))
                    ));
                }
            }
            Ok(output::print(&text)?)
        }
        ProbeCommand::Check(args) => check(ctx, args),
        ProbeCommand::Sample(args) => sample(ctx, args),
        ProbeCommand::Run(args) => wrap(ctx, args),
    }
}

fn check(ctx: &Context, a: CheckArgs) -> Outcome {
    let order = match a.offering {
        Some(id) => Order::Offering(id),
        None => {
            let mut e = Expectation {
                count: a.expect_count,
                vram_gib: a.expect_vram_gib,
                pcie_gen: a.expect_pcie_gen,
                pcie_width: a.expect_pcie_width,
                min_driver: a.expect_driver.clone(),
                min_cuda: a.expect_cuda.clone(),
                nvlink: a.expect_nvlink,
                ..Expectation::default()
            };
            if let Some(gpu) = &a.expect_gpu {
                e = e.with_gpu(gpu);
                e.vram_gib = a.expect_vram_gib.or(e.vram_gib);
            }
            if e == Expectation::default() {
                return Err(Failure::Refused(
                    "say what was ordered: --offering ID or --expect-gpu/--expect-count/…".into(),
                ));
            }
            let platform = a
                .platform
                .as_deref()
                .map(|p| ctx.store.platform(p))
                .transpose()?;
            Order::Stated {
                expected: Box::new(e),
                platform_id: platform.map(|p| p.id),
            }
        }
    };
    if let Order::Offering(id) = order {
        // Refuse an unknown offering before the GPUs are asked.
        ctx.store.offering(id)?;
    }
    let gpus = inventory(&mut open_source(&a.source)?)?;
    let (expected, outcome) = conformity::check(&ctx.store, &order, &gpus)?;
    let found = outcome.mismatches;
    if ctx.json {
        output::print_json(
            &serde_json::json!({ "expected": expected, "gpus": gpus.len(), "mismatches": found }),
        )?;
    } else if found.is_empty() {
        output::print(&format!(
            "the hardware matches the order: {} GPU(s) checked",
            gpus.len()
        ))?;
    } else {
        let mut text = format!(
            "{} mismatch(es) between the order and this machine:\n",
            found.len()
        );
        for m in &found {
            text.push_str(&format!(
                "  {}: ordered {}, found {}\n",
                m.what, m.expected, m.found
            ));
        }
        output::print(&text)?;
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

/// The log path: as given (`%N` host, `%T` start time), or
/// `probe-HOST-TIME.jsonl` here.
fn log_path(given: Option<&PathBuf>, host: Option<&str>) -> PathBuf {
    rules::log_path(
        given.map(PathBuf::as_path),
        Path::new(""),
        "probe",
        host,
        jiff::Timestamp::now(),
    )
}

pub(super) fn status_line(s: &Summary) -> String {
    format!(
        "\rsampling {} GPU(s): {:.0} s, {} samples, {} events, mean {} W, max {} °C ",
        s.gpus,
        s.duration_s,
        s.samples,
        s.events,
        s.mean_power_w.map_or("–".into(), |w| format!("{w:.0}")),
        s.max_temp_c.map_or("–".into(), |t| t.to_string())
    )
}

pub(super) fn summary_text(s: &Summary, log: &std::path::Path) -> String {
    format!(
        "wrote {}: {:.0} s, {} GPU(s), {} samples, {} events{}; power mean {} W, max {} W; max {} °C; throttled {}",
        log.display(),
        s.duration_s,
        s.gpus,
        s.samples,
        s.events,
        if s.lost_gpus.is_empty() {
            String::new()
        } else {
            format!(" (lost GPU {:?})", s.lost_gpus)
        },
        s.mean_power_w.map_or("–".into(), |w| format!("{w:.1}")),
        s.max_power_w.map_or("–".into(), |w| format!("{w:.1}")),
        s.max_temp_c.map_or("–".into(), |t| t.to_string()),
        s.throttle_pct
            .map_or("–".into(), |p| format!("{p:.1} % of samples"))
    )
}

pub(super) fn import_log(
    ctx: &Context,
    platform: &str,
    offering: Option<i64>,
    log: &std::path::Path,
) -> Result<String, Failure> {
    let platform = ctx.store.platform(platform)?;
    let options = ImportOptions {
        offering_id: offering,
        source: SourceKind::Probe,
        ..ImportOptions::new(platform.id)
    };
    match importing::import_file(&ctx.store, log, &options, None)
        .map_err(|e| Failure::Refused(e.to_string()))?
    {
        ImportOutcome::Imported(r) => {
            Ok(format!("imported as run {} of {}", r.run_id, platform.name))
        }
        ImportOutcome::AlreadyImported { run_id, .. } => {
            Ok(format!("already imported as run {run_id}"))
        }
    }
}

fn session_options(
    interval: u32,
    host: Option<&str>,
    platform: Option<&str>,
    offering: Option<i64>,
) -> Result<SessionOptions, Failure> {
    rules::check_interval(interval).map_err(|e| Failure::Refused(format!("--interval: {e}")))?;
    Ok(SessionOptions {
        interval_ms: interval,
        host: host.map(String::from),
        platform: platform.map(String::from),
        offering: offering.map(|o| o.to_string()),
    })
}

/// A session's options, its GPU source and the log path it writes.
pub(super) fn prepare(
    ctx: &Context,
    a: &SessionArgs,
    interval: u32,
) -> Result<(SessionOptions, ProbeSource, PathBuf), Failure> {
    let options = session_options(
        interval,
        a.host.as_deref(),
        a.platform.as_deref(),
        a.offering,
    )?;
    let mut source = open_source(&a.source)?;
    let gpus = inventory(&mut source)?;
    let log = log_path(
        a.output.as_ref(),
        a.host
            .as_deref()
            .or_else(|| gpus.iter().find_map(|g| g.host.as_deref())),
    );
    // Checked before the GPUs are sampled; the log is then created new.
    ctx.destination(&log, false)?;
    Ok((options, source, log))
}

/// The import line of the summary, when `--import` asked for one.
pub(super) fn import_if_asked(
    ctx: &Context,
    a: &SessionArgs,
    log: &Path,
) -> Result<Option<String>, Failure> {
    match (&a.platform, a.import) {
        (Some(p), true) => Ok(Some(import_log(ctx, p, a.offering, log)?)),
        _ => Ok(None),
    }
}

fn sample(ctx: &Context, a: SampleArgs) -> Outcome {
    let (options, mut source, log) = prepare(ctx, &a.session, a.interval)?;
    let stop = super::stop_on_ctrl_c();
    let live = std::io::stderr().is_terminal();
    let summary = breakpoint_probe::sample(
        source.as_dyn(),
        &SystemClock::default(),
        &log,
        &options,
        a.duration.map(i64::from),
        &stop,
        |_, s| {
            if live {
                eprint!("{}", status_line(s));
            }
        },
    )
    .map_err(probe_failure)?;
    if live {
        eprintln!();
    }
    let mut text = summary_text(&summary, &log);
    if let Some(imported) = import_if_asked(ctx, &a.session, &log)? {
        text.push_str(&format!("\n{imported}"));
    }
    if ctx.json {
        return Ok(output::print_json(
            &serde_json::json!({ "log": log, "summary": summary }),
        )?);
    }
    Ok(output::print(&text)?)
}

fn wrap(ctx: &Context, a: WrapArgs) -> Outcome {
    let (options, mut source, log) = prepare(ctx, &a.session, a.interval)?;
    // Ctrl-C reaches the workload from the terminal: keep sampling until
    // it has exited, so the log ends with its exit. A second Ctrl-C stops
    // it for good (SIGTERM, then SIGKILL after the grace period).
    let stop = Arc::new(AtomicBool::new(false));
    let presses = AtomicU32::new(0);
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!("\nwaiting for the workload to exit (Ctrl-C again to stop it)");
        } else {
            flag.store(true, Ordering::Relaxed);
        }
    });
    let live = std::io::stderr().is_terminal();
    let workload = Workload {
        command: a.command.clone(),
        ..Workload::default()
    };
    let report = breakpoint_probe::wrap(
        source.as_dyn(),
        &SystemClock::default(),
        &log,
        &options,
        &workload,
        &stop,
        |_, s| {
            if live {
                eprint!("{}", status_line(s));
            }
        },
    )
    .map_err(probe_failure)?;
    if live {
        eprintln!();
    }
    let mut text = format!(
        "{}\nworkload: exit {}, wall {:.1} s, GPU busy {}, first GPU activity {}",
        summary_text(&report.summary, &log),
        report
            .exit_code
            .map_or("by signal".into(), |c| c.to_string()),
        report.wall_s,
        report
            .busy_s
            .map_or("unknown (no GPU reports utilisation)".into(), |s| format!(
                "{s:.1} s"
            )),
        match (report.first_activity_s, report.gpu_use_unknown) {
            (Some(s), _) => format!("{s:.1} s after launch"),
            (None, true) =>
                "unknown (the GPUs report neither utilisation nor processes; MIG?)".into(),
            (None, false) => "never (the workload did not use a GPU)".into(),
        }
    );
    if let Some(imported) = import_if_asked(ctx, &a.session, &log)? {
        text.push_str(&format!("\n{imported}"));
    }
    if ctx.json {
        output::print_json(&serde_json::json!({ "log": log, "report": report }))?;
    } else {
        eprintln!("{text}");
    }
    match report.exit_code {
        Some(0) => Ok(()),
        Some(code) => Err(Failure::Exit(code.clamp(1, 255) as u8)),
        None => Err(Failure::Exit(1)),
    }
}

pub(super) fn probe_failure(e: breakpoint_probe::ProbeError) -> Failure {
    match e {
        breakpoint_probe::ProbeError::Source(s) => Failure::NoGpu(s.to_string()),
        other => Failure::Refused(other.to_string()),
    }
}

/// `probe serve`: the readings under the DCGM exporter's names until Ctrl-C.
fn serve(args: &crate::args::ServeArgs) -> Outcome {
    let mut source = open_source(&args.source)?;
    let stop = super::stop_on_ctrl_c();
    let host = args.host.clone().unwrap_or_else(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "localhost".into())
    });
    let options = breakpoint_fleet::serve::ServeOptions {
        listen: args.listen,
        interval: std::time::Duration::from_millis(u64::from(args.interval)),
        host,
    };
    let scrapes = breakpoint_fleet::serve::serve(source.as_dyn(), &options, &stop, |addr| {
        // One line a script can read the port from.
        eprintln!("serving http://{addr}/metrics (Ctrl-C stops)");
    })
    .map_err(Failure::Refused)?;
    eprintln!("stopped after {scrapes} scrape(s)");
    Ok(())
}
