//! `breakpoint rates …`: dated exchange rates and the reporting currency.

use breakpoint_api::exchange_rates::{self as rates, RatesHeld, RatesStored};

use super::{Context, Outcome};
use crate::args::RatesCommand;
use crate::output::{self, opt};

pub fn run(ctx: &Context, command: RatesCommand) -> Outcome {
    match command {
        RatesCommand::Add {
            from,
            to,
            rate,
            on,
            source,
        } => {
            let (rate, stored) = rates::add(&ctx.store, &from, &to, &rate, on.as_deref(), source)?;
            if ctx.json {
                return Ok(output::print_json(&serde_json::json!({
                    "rate": rate,
                    "disagreements": stored.disagreements,
                }))?);
            }
            Ok(output::print(&format!(
                "1 {} = {} {} on {}{}{}",
                rate.from,
                rate.rate,
                rate.to,
                rate.on,
                rate.source
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default(),
                disagreements(&stored)
            ))?)
        }
        RatesCommand::Import { file } => {
            let stored = rates::import_file(&ctx.store, &file)?;
            if ctx.json {
                return Ok(output::print_json(&stored)?);
            }
            let shown = file.display().to_string();
            let mut said = format!(
                "{}: {} rate(s) stored, {} to {}",
                breakpoint_api::text::printable(&shown),
                stored.new + stored.replaced,
                opt(stored.first.map(|d| d.to_string()).as_deref()),
                opt(stored.last.map(|d| d.to_string()).as_deref())
            );
            let mut also = Vec::new();
            if stored.replaced > 0 {
                also.push(format!(
                    "{} replaced a rate of the same pair and day",
                    stored.replaced
                ));
            }
            if stored.unchanged > 0 {
                also.push(format!("{} held already", stored.unchanged));
            }
            if !also.is_empty() {
                said.push_str(&format!(" ({})", also.join("; ")));
            }
            said.push_str(&disagreements(&stored));
            Ok(output::print(&said)?)
        }
        RatesCommand::List { from, to } => {
            let pair = from.as_deref().zip(to.as_deref());
            let held = rates::list(&ctx.store, pair)?;
            if ctx.json {
                return Ok(output::print_json(&held)?);
            }
            match held {
                RatesHeld::Pairs { pairs } if pairs.is_empty() => Ok(output::print(
                    "no exchange rates: breakpoint rates add USD CNY 7.10 --on 2026-12-01, or rates import FILE",
                )?),
                RatesHeld::Pairs { pairs } => {
                    let mut t =
                        output::table(&["from", "to", "days", "first", "latest", "rate", "source"]);
                    for p in &pairs {
                        t.add_row(vec![
                            p.from.clone(),
                            p.to.clone(),
                            p.days.to_string(),
                            p.first.to_string(),
                            p.latest.on.to_string(),
                            p.latest.rate.to_string(),
                            opt(p.latest.source.as_deref()),
                        ]);
                    }
                    Ok(output::print(&format!(
                        "{t}\nbreakpoint rates list FROM TO shows a pair's every day"
                    ))?)
                }
                RatesHeld::Pair { rates } => {
                    if rates.is_empty() {
                        return Ok(output::print(
                            "no rates of that pair as stated (its inverse may be held: rates list)",
                        )?);
                    }
                    let mut t = output::table(&["from", "to", "rate", "on", "source"]);
                    for r in &rates {
                        t.add_row(vec![
                            r.from.clone(),
                            r.to.clone(),
                            r.rate.to_string(),
                            r.on.to_string(),
                            opt(r.source.as_deref()),
                        ]);
                    }
                    Ok(output::print(&t.to_string())?)
                }
            }
        }
        RatesCommand::Rm { from, to, on } => {
            let removed = rates::remove(&ctx.store, &from, &to, on.as_deref())?;
            if ctx.json {
                return Ok(output::print_json(
                    &serde_json::json!({ "removed": removed }),
                )?);
            }
            Ok(output::print(&format!("{removed} rate(s) removed"))?)
        }
        RatesCommand::Currency { code } => {
            let current = match code {
                Some(code) => Some(rates::set_workspace_currency(&ctx.store, &code)?),
                None => rates::workspace_currency(&ctx.store)?,
            };
            if ctx.json {
                return Ok(output::print_json(
                    &serde_json::json!({ "currency": current }),
                )?);
            }
            Ok(output::print(&match current {
                Some(c) => format!("money is reported in {c}"),
                None => "no reporting currency set: money is reported in the currency most platforms' prices are in (breakpoint rates currency CODE sets one)".to_string(),
            })?)
        }
    }
}

/// A pair and its inverse of one day that do not undo each other, as
/// warning lines: the rates are stored (either may be the right one), and
/// the cheapest platform may flip with the reporting currency until one
/// goes.
fn disagreements(stored: &RatesStored) -> String {
    let mut out = String::new();
    for d in &stored.disagreements {
        out.push_str(&format!("\n  warning: {d}"));
    }
    let more = stored.disagreeing - stored.disagreements.len() as u64;
    if more > 0 {
        out.push_str(&format!(
            "\n  warning: {more} more pair(s) disagree with their inverse of the same day"
        ));
    }
    out
}
