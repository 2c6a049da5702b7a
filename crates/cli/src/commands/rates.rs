//! `breakpoint rates …`: dated exchange rates and the reporting currency.

use breakpoint_api::domain::money;
use breakpoint_api::pricing::{self, ExchangeRate};

use super::{Context, Failure, Outcome};
use crate::args::RatesCommand;
use crate::output::{self, opt};

/// The most bytes a rates file may hold (the ECB's whole history since
/// 1999 is about 1.5 MB).
const MAX_RATES_FILE: u64 = 64 << 20;

pub fn run(ctx: &Context, command: RatesCommand) -> Outcome {
    match command {
        RatesCommand::Add {
            from,
            to,
            rate,
            on,
            source,
        } => {
            let on = match on {
                Some(day) => day.trim().parse().map_err(|_| {
                    Failure::Refused(format!("--on: \"{day}\" is not a date (2026-12-01)"))
                })?,
                None => pricing::today(),
            };
            let rate = ExchangeRate::new(&from, &to, money::parse("rate", &rate)?, on, source)?;
            ctx.store.add_exchange_rates(std::slice::from_ref(&rate))?;
            if ctx.json {
                return Ok(output::print_json(&rate)?);
            }
            Ok(output::print(&format!(
                "1 {} = {} {} on {}{}",
                rate.from,
                rate.rate,
                rate.to,
                rate.on,
                rate.source
                    .as_deref()
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            ))?)
        }
        RatesCommand::Import { file } => {
            let shown = file.display().to_string();
            let size = std::fs::metadata(&file)
                .map_err(|e| Failure::Refused(format!("{shown}: {e}")))?
                .len();
            if size > MAX_RATES_FILE {
                return Err(Failure::Refused(format!(
                    "{shown}: {size} bytes; a rates file holds at most {MAX_RATES_FILE}"
                )));
            }
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Failure::Refused(format!("{shown}: {e}")))?;
            let read = pricing::read_rates_csv(&shown, &text).map_err(Failure::Refused)?;
            let stored = ctx.store.add_exchange_rates(&read)?;
            if ctx.json {
                return Ok(output::print_json(
                    &serde_json::json!({ "stored": stored }),
                )?);
            }
            let first = read.iter().map(|r| r.on).min();
            let last = read.iter().map(|r| r.on).max();
            Ok(output::print(&format!(
                "{shown}: {stored} rate(s) stored, {} to {}",
                opt(first.map(|d| d.to_string()).as_deref()),
                opt(last.map(|d| d.to_string()).as_deref())
            ))?)
        }
        RatesCommand::List => {
            let all = ctx.store.exchange_rates()?;
            if ctx.json {
                return Ok(output::print_json(&all)?);
            }
            if all.is_empty() {
                return Ok(output::print(
                    "no exchange rates: breakpoint rates add USD CNY 7.10 --on 2026-12-01, or rates import FILE",
                )?);
            }
            let mut t = output::table(&["from", "to", "rate", "on", "source"]);
            for r in &all {
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
        RatesCommand::Currency { code } => {
            let current = match code {
                Some(code) => Some(pricing::set_workspace_currency(&ctx.store, &code)?),
                None => pricing::workspace_currency(&ctx.store)?,
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
