//! `accept storage`: the data path measured here — each location's
//! checkpoint written and read back, an upload through the platform's own
//! tool, and with `--drill` the path cut under a checkpointing job.

use std::path::Path;

use breakpoint_accept::storage::{
    self, DrillOptions, DrillPlan, LocationOptions, Plan, UploadPlan,
};
use breakpoint_accept::verdicts;
use breakpoint_api::sizes::size_words;
use breakpoint_formats::parsers::storage_log::{Role, StorageRecord};
use breakpoint_probe::rules;

use super::{import_if_asked, verdict};
use crate::args::AcceptStorageArgs;
use crate::commands::{Context, Failure, Outcome};
use crate::output;

pub(super) fn storage(ctx: &Context, a: AcceptStorageArgs) -> Outcome {
    if a.paths.is_empty() && a.local.is_empty() {
        return Err(Failure::Refused(
            "name a location: --path DIR (where the data lives) or --local DIR (the local SSD)"
                .into(),
        ));
    }
    let drill = match (a.drill, &a.cut, &a.restore) {
        (true, Some(cut), Some(restore)) => {
            let Some(path) = a.paths.first() else {
                return Err(Failure::Refused(
                    "--drill cuts the data path: name it with --path".into(),
                ));
            };
            let question = format!(
                "The drill runs `{cut}`, waits {:.0} s, then runs `{restore}`: anything using {} meanwhile will see it gone. Go on?",
                a.cut_for.as_secs_f64(),
                path.display()
            );
            if !a.yes
                && !crate::commands::confirm(
                    "the drill cuts a path on this instance: confirm it on a terminal, or pass --yes",
                    &question,
                )?
            {
                return Err(Failure::Refused(
                    "not confirmed: nothing was measured".into(),
                ));
            }
            Some(DrillPlan {
                options: DrillOptions::new(a.drill_checkpoint, a.every, a.cut_for, a.stall_after),
                cut: cut.clone(),
                restore: restore.clone(),
            })
        }
        _ => None,
    };
    let plan = Plan {
        host: a.host.clone(),
        locations: a
            .paths
            .iter()
            .map(|p| (p.clone(), Role::Data))
            .chain(a.local.iter().map(|p| (p.clone(), Role::Local)))
            .collect(),
        location: LocationOptions::new(a.checkpoint),
        upload: a.upload.clone().map(|command| UploadPlan {
            command,
            bytes: a.upload_size,
            limit: storage::defaults::UPLOAD_LIMIT,
        }),
        drill,
    };
    plan.check().map_err(Failure::Refused)?;
    let path = rules::log_path(
        a.output.as_deref(),
        Path::new(""),
        "storage",
        a.host.as_deref(),
        jiff::Timestamp::now(),
    );
    let mut file = ctx.destination(&path, false)?.stream()?;
    let stop = crate::commands::stop_on_ctrl_c();
    let quiet = ctx.json;
    let measured = storage::run(&plan, &mut file, &stop, &|line| {
        if !quiet {
            eprintln!("{line}");
        }
    })
    .map_err(Failure::Refused)?;
    file.finish()?;
    if measured.records.is_empty() {
        return Err(Failure::Refused(format!(
            "nothing measured: {}",
            measured.problems.join("; ")
        )));
    }
    let imported = import_if_asked(ctx, &a.record, &path)?;
    let checklist = verdicts::storage(&measured.records);
    let drill_failed = checklist.iter().any(|c| c.passed == Some(false));
    if ctx.json {
        output::print_json(&serde_json::json!({
            "log": path.display().to_string(),
            "records": measured.records,
            "problems": measured.problems,
            "checklist": checklist,
            "imported": imported,
        }))?;
    } else {
        let mut text = locations_table(&measured.records);
        for c in &checklist {
            if !c.check.starts_with("storage /") {
                let mark = c
                    .passed
                    .map(|p| format!(" [{}]", verdict(Some(p))))
                    .unwrap_or_default();
                text.push_str(&format!("{}: {}{mark}\n", c.check, c.measured));
            }
        }
        for p in &measured.problems {
            text.push_str(&format!("not measured: {p}\n"));
        }
        text.push_str(&format!("wrote {}\n", path.display()));
        if let Some(i) = imported {
            text.push_str(&format!("{i}\n"));
        }
        output::print(&text)?;
    }
    if drill_failed {
        return Err(Failure::Reported);
    }
    Ok(())
}

/// One row per location measured.
fn locations_table(records: &[StorageRecord]) -> String {
    let mut t = output::table(&[
        "location",
        "role",
        "checkpoint",
        "write",
        "read",
        "20 GB checkpoint",
        "random 4 KiB p50 / p99",
        "I/O",
    ]);
    let rate = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.0} MB/s"));
    let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
    let mut any = false;
    for r in records {
        let StorageRecord::Location(l) = r else {
            continue;
        };
        any = true;
        t.add_row(vec![
            l.path.clone(),
            match l.role {
                Role::Data => "data".into(),
                Role::Local => "local".into(),
            },
            size_words(l.bytes as f64),
            rate(l.write_mb_s()),
            rate(l.read_mb_s()),
            l.reference_write_s()
                .map_or("–".into(), |s| format!("{s:.0} s")),
            format!("{} / {} ms", ms(l.random_p50_ms), ms(l.random_p99_ms)),
            if l.direct { "direct" } else { "buffered" }.into(),
        ]);
    }
    if any { format!("{t}\n") } else { String::new() }
}
