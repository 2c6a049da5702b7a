//! `breakpoint bill`: the bill of one workload on every platform.

use breakpoint_core::billing_sim::{self, Workload};
use breakpoint_core::metrics::billing;
use breakpoint_core::samples::Field;
use serde::Serialize;

use super::{Context, Failure, Outcome};
use crate::args::BillArgs;
use crate::output;

#[derive(Serialize)]
struct PlatformBill {
    platform: String,
    rule: Option<String>,
    price_per_hour: Option<f64>,
    currency: Option<String>,
    bill: Option<billing_sim::Bill>,
    /// Why there is no bill.
    missing: Option<&'static str>,
}

fn workload(ctx: &Context, args: &BillArgs) -> Result<Workload, Failure> {
    if let Some(run) = args.from_run {
        ctx.store.run(run)?;
        let gpu = ctx
            .store
            .sample_gpus(run)?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Failure::Refused(format!(
                    "run {run} has no samples to derive a workload from"
                ))
            })?;
        let frame = ctx
            .store
            .read_samples(run, gpu, None, Some(&[Field::UtilGpuPct]))?;
        return Workload::from_frame(&frame).ok_or_else(|| {
            Failure::Refused(format!(
                "run {run} has no GPU utilisation to tell compute from idle"
            ))
        });
    }
    match args.workload.as_deref().map(str::trim) {
        None | Some("reference") => Ok(Workload::reference()),
        Some(spec) if spec.contains('=') => Ok(Workload::parse_spec(spec)?),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Failure::Refused(format!("cannot read workload file \"{path}\": {e}"))
            })?;
            serde_json::from_str(&text).map_err(|e| {
                Failure::Refused(format!(
                    "{path}:{}:{}: not a workload ({{\"sessions\": [{{\"segments\": [{{\"phase\": \"compute\", \"seconds\": 6138}}]}}], \"gpus\": 1}}): {e}",
                    e.line(),
                    e.column()
                ))
            })
        }
    }
}

pub fn run(ctx: &Context, args: BillArgs) -> Outcome {
    let workload = workload(ctx, &args)?;
    let mut bills = Vec::new();
    for platform in ctx.store.platforms()? {
        let rule = billing::rule(&ctx.store, &platform)?;
        let price = billing::price(&ctx.store, &platform)?;
        let (bill, missing) = match (&rule, &price) {
            (Some(rule), Some((price, _))) => {
                (Some(billing_sim::bill(&workload, rule, *price)), None)
            }
            (None, _) => (None, Some("no billing rule")),
            (_, None) => (None, Some("no on-demand price")),
        };
        bills.push(PlatformBill {
            platform: platform.name,
            rule: rule.map(|r| {
                format!(
                    "{} s units, {}{}{}",
                    r.granularity_s,
                    r.rounding,
                    if r.bills_io_wait {
                        ", io-wait billed"
                    } else {
                        ", io-wait free"
                    },
                    if r.bills_idle {
                        ", idle billed"
                    } else {
                        ", idle free"
                    }
                )
            }),
            price_per_hour: price.as_ref().map(|p| p.0),
            currency: price.map(|p| p.1),
            bill,
            missing,
        });
    }
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
