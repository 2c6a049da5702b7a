//! `breakpoint weights …`: weight profiles, built-in and the user's own.

use breakpoint_api::catalogue::{self, Anchors};
use breakpoint_api::domain::Breakpoint;
use breakpoint_api::weights::presets;
use breakpoint_api::weights::{self, EditMode, ProfileEdit};

use super::{Context, Failure, Outcome};
use crate::args::{WeightArgs, WeightsCommand};
use crate::output;

pub fn run(ctx: &Context, command: WeightsCommand) -> Outcome {
    match command {
        WeightsCommand::List => {
            let profiles = ctx.store.weight_profiles()?;
            if ctx.json {
                return Ok(output::print_json(&profiles)?);
            }
            let mut t = output::table(&[
                "profile",
                "built-in",
                "startup",
                "sustain",
                "switch",
                "billing",
                "metric weights",
                "threshold",
            ]);
            for p in &profiles {
                let w = presets::breakpoint_shares(p);
                t.add_row(vec![
                    p.profile.name.clone(),
                    if p.profile.builtin { "yes" } else { "" }.into(),
                    format!("{:.2}", w[0]),
                    format!("{:.2}", w[1]),
                    format!("{:.2}", w[2]),
                    format!("{:.2}", w[3]),
                    p.profile.metrics.len().to_string(),
                    format!("{:.0} %", 100.0 * p.coverage_threshold),
                ]);
            }
            Ok(output::print(&t.to_string())?)
        }
        WeightsCommand::Show { name } => {
            let p = ctx.store.weight_profile(&name)?;
            if ctx.json {
                return Ok(output::print_json(&p)?);
            }
            let mut t = output::table(&["breakpoint", "share", "metric", "weight", "anchors"]);
            let shares = presets::breakpoint_shares(&p);
            for (i, b) in Breakpoint::ALL.iter().enumerate() {
                for (k, m) in catalogue::of(*b).enumerate() {
                    let anchors = match presets::anchors(&p, m) {
                        Anchors::Fixed { best, worst, log } => format!(
                            "100 at {}, 0 at {}{}",
                            output::number(best),
                            output::number(worst),
                            if log { " (log)" } else { "" }
                        ),
                        Anchors::RelativeToBest { factor } => {
                            format!("cheapest 100, {}× 0", output::number(factor))
                        }
                    };
                    t.add_row(vec![
                        if k == 0 { b.to_string() } else { String::new() },
                        if k == 0 {
                            format!("{:.2}", shares[i])
                        } else {
                            String::new()
                        },
                        m.key.to_string(),
                        output::number(presets::metric_weight(&p, m)),
                        anchors,
                    ]);
                }
            }
            Ok(output::print(&format!(
                "{}{} — insufficient evidence under {:.0} % coverage\n{t}",
                p.profile.name,
                if p.profile.builtin { " (built-in)" } else { "" },
                100.0 * p.coverage_threshold
            ))?)
        }
        WeightsCommand::Add(args) => save(ctx, args, true),
        WeightsCommand::Set(args) => save(ctx, args, false),
        WeightsCommand::Rm { name } => {
            ctx.store.delete_weight_profile(&name)?;
            Ok(output::print(&format!("deleted weight profile {name}"))?)
        }
    }
}

fn save(ctx: &Context, a: WeightArgs, new: bool) -> Outcome {
    let mode = if new {
        EditMode::Add { from: a.from }
    } else {
        EditMode::Set
    };
    let mut e = ProfileEdit::new(&a.name, mode);
    e.breakpoints = [
        (Breakpoint::Startup, a.startup),
        (Breakpoint::Sustain, a.sustain),
        (Breakpoint::Switch, a.switch),
        (Breakpoint::Billing, a.billing),
    ]
    .into_iter()
    .filter_map(|(b, w)| Some((b, w?)))
    .collect();
    for m in &a.metrics {
        e.metrics.push(
            weights::parse_metric_weight(m)
                .map_err(|err| Failure::Refused(format!("--metric {m}: {}", err.reason)))?,
        );
    }
    for c in &a.curves {
        e.curves.push(
            weights::parse_curve(c)
                .map_err(|err| Failure::Refused(format!("--curve {c}: {}", err.reason)))?,
        );
    }
    e.coverage_threshold = a.threshold;
    let saved = weights::edit(&ctx.store, &e)?;
    if ctx.json {
        return Ok(output::print_json(&saved)?);
    }
    let s = presets::breakpoint_shares(&saved);
    Ok(output::print(&format!(
        "{} weight profile {}: startup {:.2}, sustain {:.2}, switch {:.2}, billing {:.2}",
        if new { "added" } else { "updated" },
        saved.profile.name,
        s[0],
        s[1],
        s[2],
        s[3]
    ))?)
}
