//! `breakpoint accept …`: the acceptance checks on a rented instance. Each
//! writes a log; `--import` files it under a platform at once.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use breakpoint_accept::network::{self, Options, TcpConnector};
use breakpoint_accept::plan as accept_plan;
use breakpoint_accept::{billing, failover, ready, stress, verdicts};
use breakpoint_api::acceptance;
use breakpoint_formats::parsers::network_log::{NetworkRecord, stats_by_target};
use std::io::IsTerminal;

use breakpoint_probe::{SystemClock, rules};

use super::{Context, Failure, Outcome};
use crate::args::{
    AcceptAllArgs, AcceptBillingArgs, AcceptChecklistsArgs, AcceptCommand, AcceptFailoverArgs,
    AcceptNetworkArgs, AcceptReadyArgs, AcceptStressArgs,
};
use crate::output;

mod drift;
mod perf;
mod storage;

pub fn run(ctx: &Context, command: AcceptCommand) -> Outcome {
    match command {
        AcceptCommand::Network(args) => network_check(ctx, args),
        AcceptCommand::Storage(args) => storage::storage(ctx, args),
        AcceptCommand::Stress(args) => stress_check(ctx, args),
        AcceptCommand::BillingProbe(args) => billing_probe(ctx, args),
        AcceptCommand::Failover(args) => failover_drill(ctx, args),
        AcceptCommand::All(args) => all(ctx, args),
        AcceptCommand::Ready(args) => ready_check(ctx, args),
        AcceptCommand::Operators(args) => drift::operators(ctx, args),
        AcceptCommand::Drift(args) => drift::drift_check(ctx, args),
        AcceptCommand::Perf(args) => perf::perf(ctx, args),
        AcceptCommand::Checklists(args) => checklists(ctx, args),
    }
}

fn verdict(passed: Option<bool>) -> String {
    match passed {
        Some(true) => "pass".into(),
        Some(false) => "FAIL".into(),
        None => "–".into(),
    }
}

fn checklists(ctx: &Context, a: AcceptChecklistsArgs) -> Outcome {
    let platforms = match &a.platform {
        Some(name) => vec![ctx.store.platform(name)?],
        None => ctx.store.platforms()?,
    };
    let mut all = Vec::new();
    for p in platforms {
        let sheets = acceptance::checklists(&ctx.store, p.id)?;
        if !sheets.is_empty() {
            all.push((p.name, sheets));
        }
    }
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!(
            all.iter()
                .map(|(p, s)| serde_json::json!({ "platform": p, "bundles": s }))
                .collect::<Vec<_>>()
        ))?);
    }
    if all.is_empty() {
        return Ok(output::print(
            "no acceptance bundle imported yet: run `breakpoint accept all --plan …` on an instance and import the bundle it writes\n",
        )?);
    }
    let mut text = String::new();
    for (platform, sheets) in &all {
        for sheet in sheets {
            let mut t = output::table(&["check", "measured", "threshold", "verdict"]);
            for c in &sheet.checklist {
                t.add_row(vec![
                    c.check.clone(),
                    c.measured.clone(),
                    c.threshold.clone(),
                    verdict(c.passed),
                ]);
            }
            text.push_str(&format!(
                "{platform}: {} — runs {}{}\n{t}\n\n",
                sheet.title(),
                sheet
                    .runs
                    .iter()
                    .map(|r| format!("#{r}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                match sheet.failed() {
                    0 => String::new(),
                    n => format!(" — {n} failed"),
                }
            ));
        }
    }
    Ok(output::print(&text)?)
}

fn ready_check(ctx: &Context, a: AcceptReadyArgs) -> Outcome {
    let timeout = a.timeout;
    let boot_ms = ready::boot_time_now_ms().map_err(Failure::Refused)?;
    let options = ready::Options {
        boot_ms,
        submitted_ms: a.submitted_at.map(|t| t.as_millisecond()),
        timeout,
        poll: std::time::Duration::from_secs(1),
    };
    let mut system = ready::System {
        trace: a.source.replay_trace.clone(),
        first_compute: a.first_compute.clone(),
        compute_timeout: timeout,
    };
    let stages = ready::measure(&mut system, &options);
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "ready",
        None,
        jiff::Timestamp::now(),
    )
    .with_extension("csv");
    ctx.destination(&path, false)?
        .write(ready::table(&stages).as_bytes())?;
    let imported = import_if_asked(ctx, &a.record, &path)?;
    let since = |ms: Option<i64>| {
        ms.map_or("never".to_string(), |ms| {
            format!("{:.1} s", (ms - stages.submitted_ms) as f64 / 1000.0)
        })
    };
    let mut text = format!(
        "wrote {}\nsince submission: booted {}, driver answering {}, first compute {}{}\n",
        path.display(),
        since(Some(stages.booted_ms)),
        since(stages.driver_ms),
        since(stages.first_compute_ms),
        stages
            .failure
            .as_deref()
            .map(|f| format!(" — {f}"))
            .unwrap_or_default()
    );
    if let Some(i) = imported {
        text.push_str(&format!("{i}\n"));
    }
    output::print(&text)?;
    if verdicts::ready(&stages, a.submitted_at.is_some(), timeout).passed == Some(false) {
        return Err(Failure::Reported);
    }
    Ok(())
}

fn all(ctx: &Context, a: AcceptAllArgs) -> Outcome {
    let plan = accept_plan::read_file(&a.plan).map_err(Failure::Refused)?;
    let bundle_path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "acceptance",
        plan.host.as_deref(),
        jiff::Timestamp::now(),
    )
    .with_extension("tar");
    let mut source = if plan.stress.is_some() {
        Some(super::probe::open_source(&a.source)?)
    } else {
        None
    };
    let stop = Arc::new(AtomicBool::new(false));
    let quiet = ctx.json;
    let say = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let accept_plan::Bundled {
        manifest,
        operator_outputs,
        ..
    } = accept_plan::into_bundle(
        &plan,
        &bundle_path,
        &ctx.protected,
        a.source.replay_trace.as_deref(),
        source.as_mut().map(|s| s.as_dyn()),
        &stop,
        &say,
    )
    .map_err(Failure::Refused)?;
    let failed = manifest.checklist.iter().any(|c| c.passed == Some(false));
    if ctx.json {
        output::print_json(&serde_json::json!({
            "bundle": bundle_path,
            "manifest": manifest,
            "operator_outputs": operator_outputs,
        }))?;
    } else {
        let mut t = output::table(&["check", "measured", "threshold", "verdict"]);
        for c in &manifest.checklist {
            t.add_row(vec![
                c.check.clone(),
                c.measured.clone(),
                c.threshold.clone(),
                verdict(c.passed),
            ]);
        }
        output::print(&format!(
            "acceptance checklist{}\n{t}\n{}\nwrote {} ({} logs): `breakpoint import` it on the workstation\n",
            plan.host
                .as_deref()
                .map(|h| format!(" for {h}"))
                .unwrap_or_default(),
            breakpoint_api::importing::checklist_verdict(&manifest.checklist),
            bundle_path.display(),
            manifest.entries.len()
        ))?;
        if let Some(path) = &operator_outputs {
            output::print(&format!(
                "kept this platform's operator outputs in {}: a reference for `accept drift` elsewhere\n",
                path.display()
            ))?;
        }
    }
    if failed {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

fn failover_drill(ctx: &Context, a: AcceptFailoverArgs) -> Outcome {
    let progress = regex_lite::Regex::new(&a.progress)
        .map_err(|e| Failure::Refused(format!("--progress: not a regular expression: {e}")))?;
    if progress.captures_len() < 2 {
        return Err(Failure::Refused(
            "--progress needs a group for the step, e.g. 'step (\\d+)'".into(),
        ));
    }
    let window = a.window;
    let options = failover::Options {
        log: a.log.clone(),
        progress,
        pattern: a.job.clone(),
        after: a.after,
        window,
        resume: a.resume.clone(),
        poll: std::time::Duration::from_millis(200),
    };
    if !ctx.json {
        eprintln!(
            "failover drill: killing every process running {} in {}, then watching {} for its progress",
            a.job,
            output::duration_ms(a.after.as_millis() as i64),
            a.log.display()
        );
    }
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "failover",
        None,
        jiff::Timestamp::now(),
    )
    .with_extension("csv");
    let destination = ctx.destination(&path, false)?;
    let outcome = failover::drill(&options, &failover::System).map_err(Failure::Refused)?;
    destination.write(failover::table(&outcome).as_bytes())?;
    let imported = import_if_asked(ctx, &a.record, &path)?;
    let s = |v: Option<f64>| v.map_or("never".to_string(), |v| format!("{v:.1} s"));
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "table": path.display().to_string(),
            "killed": outcome.killed,
            "progress_at_kill": outcome.progress_at_kill,
            "detected_s": outcome.detected_s,
            "recovered_s": outcome.recovered_s,
            "first_progress_after": outcome.first_progress_after,
            "steps_lost": outcome.steps_lost,
            "progress_lost_s": outcome.progress_lost_s,
            "resumed_by_command": outcome.resumed_by_command,
            "imported": imported,
        }))?);
    }
    let mut text = format!(
        "wrote {}\nkilled {} process(es) at step {}; back after {}; progress resumed after {}{}; steps lost {} ({})\n",
        path.display(),
        outcome.killed.len(),
        outcome
            .progress_at_kill
            .map_or("?".into(), |p| p.to_string()),
        s(outcome.detected_s),
        s(outcome.recovered_s),
        if outcome.resumed_by_command {
            " (by your resume command)"
        } else {
            ""
        },
        outcome.steps_lost.map_or("?".into(), |p| p.to_string()),
        s(outcome.progress_lost_s),
    );
    if let Some(i) = imported {
        text.push_str(&format!("{i}\n"));
    }
    output::print(&text)?;
    if verdicts::failover(&outcome, window).passed == Some(false) {
        return Err(Failure::Reported);
    }
    Ok(())
}

fn billing_probe(ctx: &Context, a: AcceptBillingArgs) -> Outcome {
    let plan = billing::Plan {
        instance: a.instance.trim().to_string(),
        compute: a.seconds,
        sleep: a.sleep,
    };
    if plan.instance.is_empty() || plan.instance.contains([',', '"', '\n']) {
        return Err(Failure::Refused(
            "--instance: the id as the bill names it (no commas, quotes or line breaks)".into(),
        ));
    }
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "billing-probe",
        None,
        jiff::Timestamp::now(),
    )
    .with_extension("csv");
    let mut file = ctx.destination(&path, false)?.stream()?;
    if !ctx.json {
        eprintln!(
            "billing probe on {}: {:.0} s of work{} — keep the instance running until it ends, then release it at once",
            plan.instance,
            plan.compute.as_secs_f64(),
            plan.sleep
                .map(|s| format!(" with a {:.0} s wait inside", s.as_secs_f64()))
                .unwrap_or_default()
        );
    }
    let done = billing::run(&plan, &billing::SystemClock, &mut file)?;
    file.finish()?;
    let imported = import_if_asked(ctx, &a.record, &path)?;
    let wall = (done.ended_ms - done.started_ms) as f64 / 1000.0;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "log": path.display().to_string(), "instance": plan.instance, "wall_s": wall,
            "started_ms": done.started_ms, "ended_ms": done.ended_ms, "imported": imported,
        }))?);
    }
    let mut text = format!(
        "wrote {}: job on {} ran {wall:.3} s\nimport it with the platform's bill for {} to measure the billing unit\n",
        path.display(),
        plan.instance,
        plan.instance
    );
    if let Some(i) = imported {
        text.push_str(&format!("{i}\n"));
    }
    Ok(output::print(&text)?)
}

/// The load under the probe for `--duration`, then the verdict from the
/// log it wrote.
fn stress_check(ctx: &Context, a: AcceptStressArgs) -> Outcome {
    let (options, mut source, log) = super::probe::prepare(ctx, &a.session, a.interval)?;
    let stop = super::stop_on_ctrl_c();
    let live = std::io::stderr().is_terminal() && !ctx.json;
    let (report, figures) = stress::run(
        source.as_dyn(),
        &SystemClock::default(),
        &log,
        &options,
        &stress::Load {
            command: &a.command,
            duration: std::time::Duration::from_millis(u64::from(a.duration)),
        },
        &stop,
        |_, s| {
            if live {
                eprint!("{}", super::probe::status_line(s));
            }
        },
    )
    .map_err(Failure::Refused)?;
    if live {
        eprintln!();
    }
    let imported = super::probe::import_if_asked(ctx, &a.session, &log)?;
    let passed = verdicts::stress(&figures).passed == Some(true);
    if ctx.json {
        output::print_json(&serde_json::json!({
            "log": log,
            "gpus": figures.iter().map(|(g, f)| serde_json::json!({
                "gpu": g, "at_floor_pct": f.at_floor_pct, "swing_pct": f.swing_pct,
                "samples": f.samples, "passed": f.passed(),
            })).collect::<Vec<_>>(),
            "passed": passed,
            "imported": imported,
        }))?;
    } else {
        let mut t = output::table(&["GPU", "loaded samples", "at ≥ 95 %", "swing", "verdict"]);
        for (gpu, f) in &figures {
            t.add_row(vec![
                gpu.to_string(),
                f.samples.to_string(),
                format!("{:.1} %", f.at_floor_pct),
                format!("{:.1} %", f.swing_pct),
                if f.passed() { "pass" } else { "FAIL" }.into(),
            ]);
        }
        let mut text = format!(
            "{}
",
            super::probe::summary_text(&report.summary, &log)
        );
        if figures.is_empty() {
            text.push_str("no loaded window: the load never kept a GPU at least half busy (or no GPU reports utilisation)
");
        } else {
            text.push_str(&format!(
                "{t}
stress stability (the four-breakpoint review, §6.2: SM utilisation ≥ 95 %, swing ≤ 10 %): {}
",
                if passed { "pass" } else { "FAIL" }
            ));
        }
        if let Some(i) = imported {
            text.push_str(&format!(
                "{i}
"
            ));
        }
        output::print(&text)?;
    }
    if passed {
        Ok(())
    } else {
        Err(Failure::Reported)
    }
}

fn network_check(ctx: &Context, a: AcceptNetworkArgs) -> Outcome {
    let options = Options {
        every: a.every,
        duration: a.duration,
        timeout: a.timeout,
        host: a.host.clone(),
    };
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
    let mut file = ctx.destination(&path, false)?.stream()?;
    let stop = super::stop_on_ctrl_c();
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
    file.finish()?;
    if !ctx.json {
        eprintln!();
    }
    let stats = stats_by_target(&records);
    let imported = import_if_asked(ctx, &a.record, &path)?;
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

/// The import line of a check's summary, when `--import` asked for one.
/// Acceptance logs are the probe side's own measurements.
fn import_if_asked(
    ctx: &Context,
    record: &crate::args::RecordArgs,
    path: &Path,
) -> Result<Option<String>, Failure> {
    match (&record.platform, record.import) {
        (Some(p), true) => super::probe::import_log(ctx, p, None, path).map(Some),
        _ => Ok(None),
    }
}
