//! `breakpoint bill`: the bill of one workload on every platform.

use std::io::Write;

use breakpoint_api::disputes;
use breakpoint_api::pricing::{self, WorkloadSource};

use super::{Context, Outcome};
use crate::args::BillArgs;
use crate::output;

pub fn run(ctx: &Context, args: BillArgs) -> Outcome {
    if args.disputes {
        return disputes(ctx, &args);
    }
    let source = match args.from_run {
        Some(run) => WorkloadSource::Run(run),
        None => WorkloadSource::from_text(args.workload.as_deref())?,
    };
    let workload = pricing::workload(&ctx.store, &source)?;
    let mut bills =
        pricing::price_everywhere(&ctx.store, &workload, args.money.accelerator.as_deref())?;
    let reporting = pricing::in_currency(&ctx.store, &mut bills, args.money.currency.as_deref())?;
    if ctx.json {
        return Ok(output::print_json(
            &serde_json::json!({ "workload": workload, "bills": bills, "currency": reporting }),
        )?);
    }
    let mut text = format!(
        "Workload: {} session(s), {:.0} s wall, {:.0} s compute, {} GPU(s)\n",
        workload.sessions.len(),
        workload.wall_seconds(),
        workload.compute_seconds(),
        workload.gpus
    );
    // Each rule is said in words below the table: a sentence, not a cell.
    let mut t = output::table(&[
        "platform",
        "price /GPU-h",
        "billed",
        "amount",
        "fair (compute, per second)",
        "overcharge",
        "energy (GPU / facility)",
        "CO₂",
    ]);
    for b in &bills {
        let currency = b.currency.clone().unwrap_or_default();
        let (energy, co2) = match &b.energy {
            Some(e) => (
                format!("{:.2} / {:.2} kWh", e.gpu_kwh, e.facility_kwh),
                format!("{:.2} kg{}", e.co2_kg, if e.factors.set { "" } else { "*" }),
            ),
            None => ("no power sampled".into(), "–".into()),
        };
        // Amounts in the currency the bills are compared in, where a rate
        // brought them there (the price stays the offering's own).
        let (amount, fair) = match &b.reported {
            Some(r) => (
                format!("{:.2} {}", r.amount, r.currency),
                format!("{:.2} {}", r.fair_amount, r.currency),
            ),
            None => match &b.bill {
                Some(bill) => (
                    format!("{:.2} {currency}", bill.amount),
                    format!("{:.2} {currency}", bill.fair_amount),
                ),
                None => (String::new(), String::new()),
            },
        };
        match &b.bill {
            Some(bill) => t.add_row(vec![
                b.platform.clone(),
                format!("{} {currency}", output::opt_number(b.price_per_hour)),
                output::duration_ms((bill.billed_seconds * 1000.0) as i64),
                amount,
                fair,
                bill.overcharge_pct()
                    .map_or("–".into(), |o| format!("{o:+.1} %")),
                energy,
                co2,
            ]),
            None => t.add_row(vec![
                b.platform.clone(),
                "–".into(),
                "–".into(),
                b.missing.clone().unwrap_or_default(),
                "–".into(),
                "–".into(),
                energy,
                co2,
            ]),
        };
    }
    text.push_str(&t.to_string());
    for b in &bills {
        let currency = b.currency.clone().unwrap_or_default();
        let rule = b.rule.as_deref().unwrap_or("no billing rule");
        match &b.offering {
            Some(offering) => {
                text.push_str(&format!("\n{}: {rule}; priced at {offering}", b.platform))
            }
            None => text.push_str(&format!("\n{}: {rule}", b.platform)),
        }
        if let (Some(r), Some(bill)) = (&b.reported, &b.bill) {
            text.push_str(&format!(
                "\n  {:.2} {currency} in {}: {:.2}{} at {}",
                bill.amount,
                r.currency,
                r.amount,
                r.cheapest_amount
                    .filter(|c| *c != r.amount)
                    .map(|c| format!(" (cheapest mode {c:.2})"))
                    .unwrap_or_default(),
                r.rate
            ));
        }
        if let Some(why) = &b.not_comparable {
            text.push_str(&format!("\n  not comparable: {why}"));
        }
        if b.modes.len() > 1 {
            let modes: Vec<String> = b
                .modes
                .iter()
                .map(|m| {
                    format!(
                        "{}{} {:.2} {currency} ({})",
                        if Some(m.mode) == b.cheapest {
                            "cheapest: "
                        } else {
                            ""
                        },
                        m.mode,
                        m.amount,
                        m.how
                    )
                })
                .collect();
            text.push_str(&format!("\n  by price mode: {}", modes.join("; ")));
        }
    }
    text.push('\n');
    text.push_str(
        "\nEnergy: the workload at each platform's measured GPU power (working / waiting, from its runs' power samples); \
         facility energy × PUE, CO₂ × grid intensity — estimates, not measurements.",
    );
    if bills
        .iter()
        .any(|b| b.energy.as_ref().is_some_and(|e| !e.factors.set))
    {
        text.push_str(" * default factors (PUE 1.58, 570.3 g/kWh; docs/energy.md); set a platform's with `breakpoint platform energy`.");
    }
    if bills.iter().any(|b| {
        b.energy
            .as_ref()
            .is_some_and(|e| e.waiting_at_working_power)
    }) {
        text.push_str(" Where no waiting power was measured, waiting is costed at working power (an upper bound).");
    }
    text.push('\n');
    Ok(output::print(&text)?)
}

/// `bill --disputes`: each platform's bill lines against its measurements.
fn disputes(ctx: &Context, args: &BillArgs) -> Outcome {
    let destination = args
        .output
        .as_deref()
        .map(|path| ctx.destination(path, args.force))
        .transpose()?;
    let platform = args.platform.as_deref();
    let sheets = match destination {
        // Every row goes to the file as it is found: a bill of a million
        // lines is written without holding its sheet.
        Some(destination) => {
            let mut made = None;
            let written = destination.write_with(|file| {
                let mut out = std::io::BufWriter::new(file);
                match disputes::write_csv(&ctx.store, platform, &mut out) {
                    Ok(sheets) => {
                        made = Some(Ok(sheets));
                        out.flush()
                    }
                    Err(e) => {
                        made = Some(Err(e));
                        Err(std::io::Error::other("the sheet could not be made"))
                    }
                }
            });
            match made {
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(sheets)) => {
                    written?;
                    sheets
                }
                None => {
                    written?;
                    Vec::new()
                }
            }
        }
        None => disputes::sheet(&ctx.store, platform)?,
    };
    if ctx.json {
        return Ok(output::print_json(&sheets)?);
    }
    if sheets.is_empty() {
        return Ok(output::print(
            "no bill imported: import the provider's bill export (docs/billing.md says where to find it)\n",
        )?);
    }
    let mut text = String::new();
    for s in &sheets {
        let r = &s.reconciliation;
        let amounts: Vec<String> = r
            .amounts
            .iter()
            .map(|(currency, (billed, question))| format!("{question} of {billed} {currency}"))
            .collect();
        text.push_str(&format!(
            "{}: {} bill line(s), {:.0} of {:.0} billed seconds in question ({})\n",
            s.platform,
            r.lines,
            r.seconds_in_question,
            r.billed_seconds,
            amounts.join(", ")
        ));
        if let Some(unmeasured) = disputes::unmeasured_words(r, false) {
            text.push_str(&format!("  {unmeasured}\n"));
        }
        if !r.rows.is_empty() {
            let kinds: Vec<String> = r.rows.iter().map(|(f, n)| format!("{n} {f}")).collect();
            text.push_str(&format!("  rows: {}\n", kinds.join(", ")));
        }
        let mut t = output::table(&[
            "finding",
            "line",
            "instance",
            "billed",
            "in question",
            "evidence",
        ]);
        for d in &r.disputes {
            t.add_row(vec![
                d.finding.label().to_string(),
                d.line_id.clone().unwrap_or_else(|| "–".into()),
                d.instance.clone(),
                disputes::billed_words(d),
                disputes::in_question_words(d, false),
                d.evidence.clone(),
            ]);
        }
        text.push_str(&format!("{t}\n"));
        if r.unlisted > 0 {
            let rows: Vec<String> = r.rows.iter().map(|(f, n)| format!("{n} {f}")).collect();
            text.push_str(&format!(
                "{} more row(s) not shown ({} in all: {}); those with the most in question are above — `-o sheet.csv` writes every one\n",
                r.unlisted,
                r.rows.values().sum::<usize>(),
                rows.join(", ")
            ));
        }
    }
    if let Some(path) = &args.output {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(output::print(&text)?)
}
