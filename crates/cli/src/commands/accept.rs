//! `breakpoint accept …`: the acceptance checks on a rented instance. Each
//! writes a log; `--import` files it under a platform at once.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use breakpoint_accept::network::{self, Options, TcpConnector};
use breakpoint_campaign::recipe::parse_duration;
use breakpoint_core::import::formats::network_log::{NetworkRecord, target_stats};
use breakpoint_core::import::{self, ImportOptions, ImportOutcome};
use breakpoint_probe::rules;

use super::{Context, Failure, Outcome};
use crate::args::{AcceptCommand, AcceptNetworkArgs};
use crate::output;

pub fn run(ctx: &Context, command: AcceptCommand) -> Outcome {
    match command {
        AcceptCommand::Network(args) => network_check(ctx, args),
    }
}

fn network_check(ctx: &Context, a: AcceptNetworkArgs) -> Outcome {
    let duration = |flag: &str, text: &str| {
        parse_duration(text).ok_or_else(|| {
            Failure::Refused(format!("--{flag} {text}: not a duration (5s, 10m, 1h)"))
        })
    };
    let options = Options {
        every: duration("every", &a.every)?,
        duration: duration("duration", &a.duration)?,
        timeout: duration("timeout", &a.timeout)?,
        host: a.host.clone(),
    };
    if a.import && a.platform.is_none() {
        return Err(Failure::Refused("--import needs --platform".into()));
    }
    let targets = a
        .targets
        .iter()
        .map(|t| network::resolve(t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::Refused)?;
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "network",
        a.host.as_deref(),
        jiff::Timestamp::now(),
    );
    let mut file = std::fs::File::create(&path)
        .map_err(|e| Failure::Refused(format!("{}: cannot write: {e}", path.display())))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let mut records: Vec<NetworkRecord> = Vec::new();
    network::measure(&targets, &TcpConnector, &options, &mut file, &stop, |r| {
        if !ctx.json {
            eprint!(
                "\r{}: {}          ",
                r.target,
                r.ms.map_or_else(
                    || r.error.clone().unwrap_or_default(),
                    |ms| format!("{ms:.1} ms")
                )
            );
        }
        records.push(r.clone());
    })?;
    drop(file);
    if !ctx.json {
        eprintln!();
    }
    let stats: Vec<_> = a
        .targets
        .iter()
        .map(|t| {
            let mine: Vec<&NetworkRecord> = records.iter().filter(|r| &r.target == t).collect();
            target_stats(t, &mine)
        })
        .collect();
    let imported = match (&a.platform, a.import) {
        (Some(platform), true) => {
            let platform = ctx.store.platform(platform)?;
            let outcome =
                import::import_file(&ctx.store, &path, &ImportOptions::new(platform.id), None)
                    .map_err(|e| Failure::Refused(e.to_string()))?;
            Some(match outcome {
                ImportOutcome::Imported(r) => {
                    format!("imported as run {} of {}", r.run_id, platform.name)
                }
                ImportOutcome::AlreadyImported { run_id, .. } => {
                    format!("already imported as run {run_id}")
                }
            })
        }
        _ => None,
    };
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "log": path.display().to_string(), "targets": stats, "imported": imported,
        }))?);
    }
    let mut t = output::table(&["endpoint", "attempts", "p50", "p95", "jitter", "loss"]);
    let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.1} ms"));
    for s in &stats {
        t.add_row(vec![
            s.target.clone(),
            s.attempts.to_string(),
            ms(s.p50_ms),
            ms(s.p95_ms),
            ms(s.jitter_ms),
            format!("{:.1} %", s.loss_pct),
        ]);
    }
    let mut text = format!("wrote {}\n{t}\n", path.display());
    if let Some(i) = imported {
        text.push_str(&format!("{i}\n"));
    }
    Ok(output::print(&text)?)
}
