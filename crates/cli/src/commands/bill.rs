//! `breakpoint bill`: the bill of one workload on every platform.

use breakpoint_core::usecases::pricing::{self, WorkloadSource};

use super::{Context, Outcome};
use crate::args::BillArgs;
use crate::output;

pub fn run(ctx: &Context, args: BillArgs) -> Outcome {
    let source = match args.from_run {
        Some(run) => WorkloadSource::Run(run),
        None => WorkloadSource::from_text(args.workload.as_deref())?,
    };
    let workload = pricing::workload(&ctx.store, &source)?;
    let bills = pricing::price_everywhere(&ctx.store, &workload)?;
    if ctx.json {
        return Ok(output::print_json(
            &serde_json::json!({ "workload": workload, "bills": bills }),
        )?);
    }
    let mut text = format!(
        "Workload: {} session(s), {:.0} s wall, {:.0} s compute, {} GPU(s)\n",
        workload.sessions.len(),
        workload.wall_seconds(),
        workload.compute_seconds(),
        workload.gpus
    );
    let mut t = output::table(&[
        "platform",
        "rule",
        "price /h",
        "billed",
        "amount",
        "fair (compute, per second)",
        "overcharge",
    ]);
    for b in &bills {
        let currency = b.currency.clone().unwrap_or_default();
        match &b.bill {
            Some(bill) => t.add_row(vec![
                b.platform.clone(),
                b.rule.clone().unwrap_or_default(),
                format!("{} {currency}", output::opt_number(b.price_per_hour)),
                output::duration_ms((bill.billed_seconds * 1000.0) as i64),
                format!("{:.2} {currency}", bill.amount),
                format!("{:.2} {currency}", bill.fair_amount),
                bill.overcharge_pct()
                    .map_or("–".into(), |o| format!("{o:+.1} %")),
            ]),
            None => t.add_row(vec![
                b.platform.clone(),
                b.rule.clone().unwrap_or_else(|| "–".into()),
                "–".into(),
                "–".into(),
                b.missing.unwrap_or("").into(),
                "–".into(),
                "–".into(),
            ]),
        };
    }
    text.push_str(&t.to_string());
    Ok(output::print(&text)?)
}
