//! `accept operators` and `accept drift`: the reference operator suite,
//! and this platform's outputs compared with a reference platform's.

use std::path::Path;

use breakpoint_accept::{drift, verdicts};
use breakpoint_probe::rules;

use super::import_if_asked;
use crate::args::{AcceptDriftArgs, AcceptOperatorsArgs, SuiteArgs};
use crate::commands::{Context, Failure, Outcome};
use crate::output;

fn suite_run(a: &SuiteArgs, seed: u64) -> Result<drift::SuiteRun, Failure> {
    Ok(drift::SuiteRun {
        python: a.python.clone(),
        device: a.device.clone(),
        seed,
        timeout: a.suite_timeout,
    })
}

/// "14 of 14 operators ran on cuda:0 (NVIDIA H200) with torch 2.5.1".
fn ran(o: &drift::Outputs) -> String {
    let failed: Vec<&str> = o
        .operators
        .iter()
        .filter(|op| op.error.is_some())
        .map(|op| op.name.as_str())
        .collect();
    format!(
        "{} of {} operators ran on {} with {}{}",
        o.operators.len() - failed.len(),
        o.operators.len(),
        o.device,
        o.framework,
        if failed.is_empty() {
            String::new()
        } else {
            format!(" (failed: {})", failed.join(", "))
        }
    )
}

pub(super) fn operators(ctx: &Context, a: AcceptOperatorsArgs) -> Outcome {
    if let Some(path) = &a.write_script {
        ctx.destination(path, a.force)?
            .write(drift::SCRIPT.as_bytes())?;
        return Ok(output::print(&format!(
            "wrote {}: run it with `python3 {} -o outputs.json` (--device, --seed: see --help)\n",
            path.display(),
            path.display()
        ))?);
    }
    let run = suite_run(&a.suite, a.seed)?;
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "operators",
        None,
        jiff::Timestamp::now(),
    )
    .with_extension("json");
    let destination = ctx.destination(&path, a.force)?;
    let (outputs, sha256) = drift::run_suite(&run, &destination).map_err(Failure::Refused)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "outputs": path.display().to_string(),
            "sha256": sha256,
            "framework": outputs.framework,
            "device": outputs.device,
            "seed": outputs.seed,
            "failed": outputs.operators.iter().filter(|o| o.error.is_some()).map(|o| &o.name).collect::<Vec<_>>(),
        }))?);
    }
    Ok(output::print(&format!(
        "wrote {}: {}\nuse it as the reference of `accept drift --reference` on other platforms\n",
        path.display(),
        ran(&outputs)
    ))?)
}

pub(super) fn drift_check(ctx: &Context, a: AcceptDriftArgs) -> Outcome {
    let (reference, reference_sha) = drift::read_outputs(&a.reference).map_err(Failure::Refused)?;
    let now = jiff::Timestamp::now();
    let log_path = rules::log_path(a.output.as_deref(), Path::new(""), "drift", None, now)
        .with_extension("json");
    let log_destination = ctx.destination(&log_path, false)?;
    let (subject, subject_sha) = match &a.outputs {
        Some(path) => drift::read_outputs(path).map_err(Failure::Refused)?,
        None => {
            let run = suite_run(&a.suite, reference.seed)?;
            let path = log_path.with_extension("operators.json");
            let destination = ctx.destination(&path, false)?;
            if !ctx.json {
                eprintln!("running the operator suite ({}) …", run.device);
            }
            let done = drift::run_suite(&run, &destination).map_err(Failure::Refused)?;
            if !ctx.json {
                eprintln!("wrote {}: {}", path.display(), ran(&done.0));
            }
            done
        }
    };
    let log = drift::compare(
        (&reference, &reference_sha),
        (&subject, &subject_sha),
        a.tolerance,
        now,
    )
    .map_err(Failure::Refused)?;
    let mut bytes = serde_json::to_vec_pretty(&log).map_err(|e| Failure::Refused(e.to_string()))?;
    bytes.push(b'\n');
    log_destination.write(&bytes)?;
    let imported = import_if_asked(ctx, &a.record, &log_path)?;
    let (passed, total) = log.coverage();
    if ctx.json {
        output::print_json(&serde_json::json!({
            "log": log_path.display().to_string(),
            "comparison": log,
            "imported": imported,
        }))?;
    } else {
        let mut t = output::table(&["operator", "rel. L2", "max abs error", "verdict"]);
        for o in &log.operators {
            t.add_row(vec![
                o.operator.clone(),
                o.rel_l2.map_or("–".into(), |v| format!("{v:.2e}")),
                o.max_abs.map_or("–".into(), |v| format!("{v:.2e}")),
                match (o.passed, &o.note) {
                    (true, _) => "pass".into(),
                    (false, Some(note)) => format!("FAIL: {note}"),
                    (false, None) => "FAIL".into(),
                },
            ]);
        }
        let mut text = format!(
            "{} on {} against {} on {} (tolerance {:e})\n{t}\n",
            subject.framework, subject.device, reference.framework, reference.device, log.tolerance
        );
        for n in &log.not_compared {
            text.push_str(&format!("not compared: {}: {}\n", n.operator, n.reason));
        }
        text.push_str(&format!("numeric drift: {}\n", log.summary()));
        text.push_str(&format!(
            "operator coverage: {passed} of {total} within the tolerance\nwrote {}\n",
            log_path.display()
        ));
        if let Some(i) = imported {
            text.push_str(&format!("{i}\n"));
        }
        output::print(&text)?;
    }
    if verdicts::drift(&log, a.tolerance, &reference.device).passed == Some(false) {
        return Err(Failure::Reported);
    }
    Ok(())
}
