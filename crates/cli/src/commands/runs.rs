//! `breakpoint runs …`

use breakpoint_api::domain::{EventKind, Run};
use breakpoint_api::runs;
use breakpoint_api::text;
use serde::Serialize;

use super::{Context, Failure, Outcome};
use crate::args::RunsCommand;
use crate::output::{self, opt};

pub fn run(ctx: &Context, command: RunsCommand) -> Outcome {
    match command {
        RunsCommand::List { platform } => list(ctx, platform.as_deref()),
        RunsCommand::Show { id } => show(ctx, id),
        RunsCommand::Rm { id, yes } => {
            let run = ctx.store.run(id)?;
            let records = ctx.store.record_counts()?.get(&id).copied().unwrap_or(0);
            // As `platform rm`: evidence is not deleted on a typo.
            if (run.sample_count > 0 || records > 0) && !yes {
                return Err(Failure::Refused(format!(
                    "run {id} holds {} sample(s) and {records} record(s) (from {}); add --yes to delete them",
                    run.sample_count,
                    run.provenance
                        .file_name
                        .as_deref()
                        .map_or("no file".into(), text::printable)
                )));
            }
            ctx.store.delete_run(id)?;
            if ctx.json {
                return Ok(output::print_json(&serde_json::json!({
                    "deleted": id, "samples": run.sample_count
                }))?);
            }
            Ok(output::print(&format!(
                "deleted run {id} with {} samples",
                run.sample_count
            ))?)
        }
    }
}

fn span(run: &Run) -> String {
    match (run.started_at, run.ended_at) {
        (Some(start), Some(end)) => format!(
            "{} ({})",
            output::time(start),
            output::duration_ms(end.as_millisecond() - start.as_millisecond())
        ),
        (Some(start), None) => output::time(start),
        _ => "–".into(),
    }
}

/// A run as `runs list --json` shows it: the run, and how many records
/// (events, attempts, drills, bill lines) it holds besides samples.
#[derive(Serialize)]
struct ListedRun<'a> {
    #[serde(flatten)]
    run: &'a Run,
    records: u64,
}

fn list(ctx: &Context, platform: Option<&str>) -> Outcome {
    let platform_id = platform
        .map(|name| ctx.store.platform(name).map(|p| p.id))
        .transpose()?;
    let runs = runs::list(&ctx.store, platform_id)?;
    if ctx.json {
        let listed: Vec<ListedRun> = runs
            .iter()
            .map(|r| ListedRun {
                run: &r.run,
                records: r.records,
            })
            .collect();
        return Ok(output::print_json(&listed)?);
    }
    if runs.is_empty() {
        return Ok(output::print("no runs yet")?);
    }
    // Two lines a run, what it is over where it came from, so that a
    // listing fits a terminal without cutting a file's name.
    let mut t = output::table(&[
        "id",
        "platform",
        "kind, source\nformat",
        "file\nperiod",
        "GPUs",
        "samples",
        "records",
    ]);
    for listed in &runs {
        let r = &listed.run;
        let kind = if listed.not_scored {
            format!("{} (not scored)", r.kind)
        } else {
            r.kind.to_string()
        };
        t.add_row(vec![
            r.id.to_string(),
            listed.platform.clone(),
            format!(
                "{kind}, {}\n{}",
                r.source,
                opt(r.provenance.format.as_deref())
            ),
            format!(
                "{}\n{}",
                opt(r.provenance.file_name.as_deref().map(text::printable)),
                span(r)
            ),
            r.inventory.len().to_string(),
            r.sample_count.to_string(),
            listed.records.to_string(),
        ]);
    }
    Ok(output::print(&t.to_string())?)
}

/// Events listed word for word; the count says how many there are.
const EVENTS_SHOWN: usize = 50;

fn show(ctx: &Context, id: i64) -> Outcome {
    let detail = runs::detail(&ctx.store, id)?;
    if ctx.json {
        return Ok(output::print_json(&detail)?);
    }
    let r = &detail.run;
    let p = &r.provenance;
    let mut text = format!(
        "run {} — {} ({} run, {})\n\
         file      {}\n\
         sha256    {}\n\
         format    {}\n\
         host      {}\n\
         period    {}\n\
         interval  {}\n\
         evidence  {} samples on {} GPU(s), {} events, {} startup attempts, {} switch attempts, {} fault drills, {} billing lines{}\n",
        r.id,
        detail.platform,
        r.kind,
        r.source,
        opt(p.file_name.as_deref().map(text::printable)),
        opt(p.sha256.as_deref()),
        opt(p.format.as_deref()),
        opt(p.host.as_deref()),
        span(r),
        r.interval_ms.map_or("–".into(), |ms| format!("{ms} ms")),
        r.sample_count,
        detail.sample_gpus.len(),
        detail.events.len(),
        detail.startup_attempts,
        detail.switch_attempts,
        detail.fault_drills,
        detail.billing_lines,
        match detail.kept_records {
            0 => String::new(),
            n => format!(", {n} records in its metadata"),
        },
    );
    if let Some(o) = &r.offering_snapshot {
        text.push_str(&format!(
            "offering  {} × {} at the time of the run: on-demand {} {}/h\n",
            o.count,
            o.accelerator.canonical,
            output::opt_number(o.prices.on_demand),
            o.prices.currency
        ));
    }
    if !r.inventory.is_empty() {
        text.push_str(&format!("inventory\n{}\n", inventory_table(r)));
    }
    if let Some(e) = &detail.energy {
        text.push_str(&format!("energy    {}\n", e.summary()));
    }
    if let Some(problems) = &detail.conformity_problems {
        if problems.is_empty() {
            text.push_str(if r.offering_snapshot.is_some() {
                "hardware  as ordered\n"
            } else {
                "hardware  setup checks passed\n"
            });
        }
        for m in problems {
            text.push_str(&format!("not as ordered: {m}\n"));
        }
    }
    for faulty in &detail.faulty_gpus {
        text.push_str(&format!("faulty GPU: {faulty}\n"));
    }
    if !detail.health.is_empty() {
        text.push_str(&format!("health checks\n{}\n", health_table(&detail)));
    }
    if !detail.events.is_empty() {
        text.push_str(&events_text(&detail));
    }
    if let Some(summary) = &detail.summary {
        for line in summary.lines() {
            text.push_str(&format!("summary   {line}\n"));
        }
    }
    if let Some(why) = &detail.not_scored {
        text.push_str(&format!("NOT SCORED: {why}\n"));
    }
    for w in &r.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    Ok(output::print(&text)?)
}

/// A run's GPUs as it saw them.
fn inventory_table(r: &Run) -> String {
    let mut t = output::table(&[
        "GPU", "bus", "name", "VRAM", "driver", "CUDA", "PCIe now", "PCIe max",
    ]);
    for g in &r.inventory {
        t.add_row(vec![
            g.index.to_string(),
            opt(g.pci_bus_id.as_deref()),
            g.accelerator.as_ref().map_or("–".into(), |a| a.raw.clone()),
            g.vram_mib.map_or("–".into(), |m| format!("{m} MiB")),
            opt(g.driver_version.as_deref()),
            opt(g.cuda_version.as_deref()),
            breakpoint_api::domain::pcie_link(g.pcie_gen_current, g.pcie_width_current),
            breakpoint_api::domain::pcie_link(g.pcie_gen_max, g.pcie_width_max),
        ]);
    }
    t.to_string()
}

/// `dcgmi diag` results the run holds.
fn health_table(detail: &runs::RunDetail) -> String {
    let mut t = output::table(&["category", "test", "GPU", "status", "message"]);
    for c in &detail.health {
        t.add_row(vec![
            opt(c.category.as_deref()),
            c.test.clone(),
            c.gpu.clone().unwrap_or_else(|| "all".into()),
            c.status.clone(),
            c.message
                .as_deref()
                .map(|m| text::excerpt(m, 120).into_owned())
                .unwrap_or_default(),
        ]);
    }
    t.to_string()
}

/// The first events word for word, then how many more.
fn events_text(detail: &runs::RunDetail) -> String {
    let mut t = output::table(&["time (UTC)", "GPU", "event", "what", "counted"]);
    for e in detail.events.iter().take(EVENTS_SHOWN) {
        t.add_row(vec![
            breakpoint_api::text::time_words(e.event.at),
            e.gpu_label.clone().unwrap_or_else(|| "all".into()),
            match e.event.code {
                Some(code) if e.event.kind == EventKind::Xid => format!("xid {code}"),
                _ => e.event.kind.to_string(),
            },
            match (e.meaning, e.event.detail.as_deref()) {
                (Some(meaning), _) => meaning.to_string(),
                (None, Some(d)) => text::printable(&text::excerpt(d, 80)).into_owned(),
                (None, None) => String::new(),
            },
            if e.counted {
                "yes".into()
            } else if e.interrupts {
                "no (application)".into()
            } else {
                "–".into()
            },
        ]);
    }
    let mut text = format!("events\n{t}\n");
    if detail.events.len() > EVENTS_SHOWN {
        text.push_str(&format!(
            "… and {} more events (--json lists them all)\n",
            detail.events.len() - EVENTS_SHOWN
        ));
    }
    text
}
