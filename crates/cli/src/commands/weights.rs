//! `breakpoint weights …`: weight profiles, built-in and the user's own.

use breakpoint_core::domain::{Breakpoint, WeightProfile};
use breakpoint_core::metrics::catalog::{self, Anchors};
use breakpoint_core::scoring::presets;
use breakpoint_core::store::StoredProfile;
use breakpoint_core::usecases::weights;

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
                for (k, m) in catalog::of(*b).enumerate() {
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
    let existing = ctx.store.weight_profile(&a.name).ok();
    let mut p: StoredProfile = match (&existing, new) {
        (Some(p), true) if p.profile.name != a.name.trim() => {
            return Err(breakpoint_core::Error::LooksLike {
                what: "weight profile",
                name: a.name,
                existing: p.profile.name.clone(),
            }
            .into());
        }
        (Some(_), true) => {
            return Err(breakpoint_core::Error::AlreadyExists {
                what: "weight profile",
                name: a.name,
            }
            .into());
        }
        (None, false) => {
            return Err(breakpoint_core::Error::NotFound {
                what: "weight profile",
                name: a.name,
            }
            .into());
        }
        (Some(p), false) => p.clone(),
        (None, true) => {
            let mut base = ctx
                .store
                .weight_profile(a.from.as_deref().unwrap_or(presets::DEFAULT_PROFILE))?;
            base.profile =
                WeightProfile::new(&a.name, base.profile.breakpoints, base.profile.metrics)?;
            base
        }
    };
    let w = &mut p.profile.breakpoints;
    for (b, v) in [
        (Breakpoint::Startup, a.startup),
        (Breakpoint::Sustain, a.sustain),
        (Breakpoint::Switch, a.switch),
        (Breakpoint::Billing, a.billing),
    ] {
        if let Some(v) = v {
            w.set(b, v);
        }
    }
    for m in &a.metrics {
        let (key, weight) = weights::parse_metric_weight(m)
            .map_err(|e| Failure::Refused(format!("--metric {m}: {}", e.reason)))?;
        p.profile.metrics.insert(key, weight);
    }
    for c in &a.curves {
        let (key, anchors) = weights::parse_curve(c)
            .map_err(|e| Failure::Refused(format!("--curve {c}: {}", e.reason)))?;
        p.curves.insert(key, anchors);
    }
    if let Some(t) = a.threshold {
        p.coverage_threshold = t;
    }
    let saved = weights::save(&ctx.store, &p)?;
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
