//! `breakpoint billing …`

use breakpoint_api::domain::BillingRule;

use super::{Context, Outcome};
use crate::args::{BillingArgs, BillingCommand};
use crate::output::{self, opt_number};

pub fn run(ctx: &Context, command: BillingCommand) -> Outcome {
    match command {
        BillingCommand::Set(args) => set(ctx, args),
        BillingCommand::Show { platform } => {
            let platform = ctx.store.platform(&platform)?;
            let rules = ctx.store.billing_rules(platform.id)?;
            if ctx.json {
                return Ok(output::print_json(&rules)?);
            }
            Ok(output::print(&table_of(&rules))?)
        }
    }
}

fn set(ctx: &Context, a: BillingArgs) -> Outcome {
    let platform = ctx.store.platform(&a.platform)?;
    let rule = BillingRule {
        offering_id: a.offering,
        granularity_s: a.granularity,
        minimum_charge_s: a.minimum,
        rounding: a.rounding,
        bills_queue: a.bills_queue,
        bills_io_wait: a.bills_io_wait,
        bills_idle: a.bills_idle,
        bills_stopped_storage: a.bills_stopped_storage,
        idle_price_per_hour: a.idle_price,
        notes: a.notes,
        ..BillingRule::per_second(platform.id, a.mode)
    };
    let rule = ctx.store.set_billing_rule(&rule)?;
    if ctx.json {
        return Ok(output::print_json(&rule)?);
    }
    Ok(output::print(&format!(
        "billing rule for {} ({}{}): {}",
        platform.name,
        rule.mode,
        rule.offering_id
            .map(|o| format!(", offering {o}"))
            .unwrap_or_default(),
        describe(&rule)
    ))?)
}

/// "per hour, rounded up; bills io-wait, idle"
fn describe(rule: &BillingRule) -> String {
    let unit = match rule.granularity_s {
        1 => "per second".to_string(),
        60 => "per minute".to_string(),
        3600 => "per hour".to_string(),
        s => format!("per {s} s"),
    };
    let billed: Vec<&str> = [
        (rule.bills_queue, "queue"),
        (rule.bills_io_wait, "io-wait"),
        (rule.bills_idle, "idle"),
        (rule.bills_stopped_storage, "stopped storage"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, what)| *what)
    .collect();
    format!(
        "{unit}, rounding {}; bills {}",
        rule.rounding,
        if billed.is_empty() {
            "compute only".to_string()
        } else {
            format!("compute, {}", billed.join(", "))
        }
    )
}

/// The billing rules table, shared with `platform show`.
pub fn table_of(rules: &[BillingRule]) -> String {
    if rules.is_empty() {
        return "  none\n".into();
    }
    let mut t = output::table(&[
        "mode",
        "offering",
        "granularity",
        "minimum",
        "rounding",
        "queue",
        "io-wait",
        "idle",
        "stopped storage",
        "idle price /h",
    ]);
    let yes_no = |b: bool| if b { "billed" } else { "free" }.to_string();
    for r in rules {
        t.add_row(vec![
            r.mode.to_string(),
            r.offering_id.map_or("all".to_string(), |o| o.to_string()),
            format!("{} s", r.granularity_s),
            format!("{} s", r.minimum_charge_s),
            r.rounding.to_string(),
            yes_no(r.bills_queue),
            yes_no(r.bills_io_wait),
            yes_no(r.bills_idle),
            yes_no(r.bills_stopped_storage),
            opt_number(r.idle_price_per_hour),
        ]);
    }
    format!("{t}\n")
}
