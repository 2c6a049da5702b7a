//! `accept perf`: the delivered-performance suite run here, read against
//! the node's best GPU, the card's nominal peaks, and itself over time.

use std::path::Path;

use breakpoint_accept::{perf, verdicts};
use breakpoint_api::performance as analysis;
use breakpoint_probe::rules;

use super::import_if_asked;
use crate::args::AcceptPerfArgs;
use crate::commands::{Context, Failure, Outcome};
use crate::output;

pub(super) fn perf(ctx: &Context, a: AcceptPerfArgs) -> Outcome {
    if let Some(path) = &a.write_script {
        ctx.destination(path, a.force)?
            .write(perf::SCRIPT.as_bytes())?;
        return Ok(output::print(&format!(
            "wrote {}: run it with `python3 {} -o perf.json` (--device, --quick, --duration: see its --help), then `breakpoint import perf.json`\n",
            path.display(),
            path.display()
        ))?);
    }
    if !(a.straggler_pct > 0.0 && a.straggler_pct < 100.0) {
        return Err(Failure::Refused(format!(
            "--straggler-pct {}: a share between 0 and 100",
            a.straggler_pct
        )));
    }
    let share = a.straggler_pct / 100.0;
    let timeline = a.duration.map(|d| (d, a.interval));
    let run = perf::SuiteRun {
        python: a.suite.python.clone(),
        device: a.suite.device.clone(),
        quick: a.quick,
        timeline,
        cpu_devices: a.cpu_devices,
        plant: a.plant.clone(),
        // The timeline runs inside the suite's time.
        timeout: a.suite.suite_timeout + a.duration.unwrap_or_default(),
    };
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "perf",
        None,
        jiff::Timestamp::now(),
    )
    .with_extension("json");
    let destination = ctx.destination(&path, a.force)?;
    if !ctx.json {
        eprintln!(
            "running the perf suite ({}{}) …",
            run.device,
            a.duration
                .map(|d| format!(", then {:.0} s of throughput over time", d.as_secs_f64()))
                .unwrap_or_default()
        );
    }
    let log = perf::run_suite(&run, &destination).map_err(Failure::Refused)?;
    let imported = import_if_asked(ctx, &a.record, &path)?;
    let reading = analysis::read(&log, share);
    let verdict = verdicts::perf(&log, share);
    if ctx.json {
        output::print_json(&serde_json::json!({
            "log": path.display().to_string(),
            "framework": log.framework,
            "backend": log.backend,
            "gpus": log.gpus,
            "reading": reading,
            "verdict": verdict,
            "imported": imported,
        }))?;
    } else {
        let mut text = format!(
            "{} on {} {} device(s) of {}\n",
            log.framework,
            log.gpus.len(),
            log.backend,
            log.host.as_deref().unwrap_or("this host")
        );
        text.push_str(&describe(&reading));
        text.push_str(&format!(
            "{}: {}\nwrote {}\n",
            verdict.check,
            verdict.measured,
            path.display()
        ));
        if let Some(i) = imported {
            text.push_str(&format!("{i}\n"));
        }
        output::print(&text)?;
    }
    if verdict.passed == Some(false) {
        return Err(Failure::Reported);
    }
    Ok(())
}

/// The figures as a table, then stragglers, decays and what did not run.
fn describe(r: &analysis::Reading) -> String {
    let mut t = output::table(&["GPU", "test", "median", "min – max", "n", "of nominal"]);
    for f in &r.figures {
        t.add_row(vec![
            f.gpu.map_or("all".into(), |g| g.to_string()),
            match &f.topology {
                Some(topo) => format!("{} ({topo})", f.test),
                None => f.test.clone(),
            },
            format!("{} {}", analysis::number(f.median), f.unit),
            format!("{} – {}", analysis::number(f.min), analysis::number(f.max)),
            f.repeats.to_string(),
            f.share_pct.map_or("–".into(), |s| format!("{s:.0} %")),
        ]);
    }
    let mut text = format!("{t}\n");
    for s in &r.stragglers {
        text.push_str(&format!(
            "straggler: GPU {} on {}: {} {} is {:.1} % below GPU {}'s {}\n",
            s.gpu,
            s.test,
            analysis::number(s.value),
            s.unit,
            s.deficit_pct,
            s.best_gpu,
            analysis::number(s.best)
        ));
    }
    for d in &r.decays {
        let power = match (d.power_early_w, d.power_late_w) {
            (Some(a), Some(b)) => format!(", power {a:.0} → {b:.0} W"),
            _ => String::new(),
        };
        text.push_str(&format!(
            "over time: GPU {} {} → {} TFLOP/s ({}{}){power}\n",
            d.gpu,
            analysis::number(d.early),
            analysis::number(d.late),
            analysis::change(-d.decay_pct),
            d.onset_s
                .map(|s| format!(", {}", analysis::when(s)))
                .unwrap_or_default()
        ));
    }
    for s in &r.skipped {
        text.push_str(&format!("not measured: {s}\n"));
    }
    text
}
