//! `breakpoint explain PLATFORM [BREAKPOINT]`: every metric behind the
//! scores, with the runs it came from.

use breakpoint_api::catalogue;
use breakpoint_api::hardware::HardwareEvidence;
use breakpoint_api::presentation::{metric_range, metric_value};
use breakpoint_api::ranking::{self, Explanation, PlatformRef, TimeWindow};

use super::{Context, Outcome};
use crate::args::ExplainArgs;
use crate::output;

pub fn run(ctx: &Context, args: ExplainArgs) -> Outcome {
    if args.metrics {
        return Ok(output::print(&catalogue::markdown())?);
    }
    let name = args.platform.clone().unwrap_or_default();
    let request = super::rank::request(args.profile.as_deref(), &[], &args.window, &args.money)?;
    if args.history {
        return history(ctx, &args, &request.window, &name);
    }
    let Explanation {
        profile,
        score,
        hardware,
        money,
        spot,
    } = ranking::explain(&ctx.store, &request, PlatformRef::Name(&name))?;
    let breakpoints: Vec<_> = score
        .breakpoints
        .iter()
        .filter(|b| args.breakpoint.is_none_or(|wanted| wanted == b.breakpoint))
        .collect();
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "platform": score.platform,
            "profile": profile.profile.name,
            "overall": score.overall,
            "coverage": score.coverage,
            "rank": score.rank,
            "breakpoints": breakpoints,
            "claims": score.claims,
            "hardware": hardware,
            "money": money,
            "spot": spot,
        }))?);
    }
    let mut text = format!(
        "{} — overall {} (coverage {:.0} %, {}), profile {}\n",
        score.platform.name,
        score
            .overall
            .map_or("not measured".into(), |s| format!("{s:.1}")),
        100.0 * score.coverage,
        score
            .rank
            .map_or("not ranked".into(), |r| format!("rank {r}")),
        profile.profile.name
    );
    text.push_str(&super::rank::money_note(&money));
    let currency = money.currency.as_ref().map(|c| c.currency.as_str());
    for b in breakpoints {
        text.push_str(&format!(
            "\n{} — {} (coverage {:.0} %)\n",
            catalogue::title(b.breakpoint),
            b.score.map_or("not measured".into(), |s| format!("{s:.1}")),
            100.0 * b.coverage
        ));
        let mut t = output::table(&[
            "metric",
            "value",
            "range (runs, units)",
            "score",
            "weight",
            "runs (id file hash)",
        ]);
        for m in &b.metrics {
            let range = match (m.min, m.max) {
                (Some(lo), Some(hi)) if hi > lo => metric_range(lo, hi, m.unit, currency, false),
                _ => String::new(),
            };
            let runs = m
                .runs
                .iter()
                .map(|r| r.label())
                .collect::<Vec<_>>()
                .join("\n");
            t.add_row(vec![
                format!("{}\n{}", m.name, m.key),
                m.value.map_or_else(
                    || {
                        if m.details.iter().any(|d| d.starts_with("not comparable")) {
                            "not comparable".into()
                        } else {
                            "not measured".into()
                        }
                    },
                    |v| metric_value(v, m.unit, currency, false),
                ),
                range,
                m.score.map_or("–".into(), |s| format!("{s:.1}")),
                output::number(m.weight),
                if runs.is_empty() && m.value.is_some() {
                    "platform rules".into()
                } else {
                    runs
                },
            ]);
        }
        text.push_str(&format!("{t}\n"));
        for m in &b.metrics {
            for d in &m.details {
                text.push_str(&format!("  {}: {d}\n", m.key));
            }
        }
    }
    if args.breakpoint.is_none() && !hardware.is_empty() {
        text.push_str(&hardware_text(&hardware));
    }
    if let Some(spot) = spot.filter(|_| args.breakpoint.is_none()) {
        text.push_str(&format!(
            "\nSpot instances (used by `cost --mode spot`, never scored):\n  {spot}\n"
        ));
    }
    if !score.claims.is_empty() {
        text.push_str("\nClaims (shown, never scored):\n");
        for c in &score.claims {
            text.push_str(&format!(
                "  {}{}: {} [{}]\n",
                c.subject,
                c.value
                    .map(|v| format!(
                        " {}{}",
                        output::number(v),
                        c.unit
                            .as_deref()
                            .map(|u| format!(" {u}"))
                            .unwrap_or_default()
                    ))
                    .unwrap_or_default(),
                c.text.as_deref().unwrap_or(""),
                c.source
            ));
        }
    }
    Ok(output::print(&text)?)
}

/// Each metric run by run, oldest first, with the degradation test's
/// verdict.
fn history(ctx: &Context, args: &ExplainArgs, window: &TimeWindow, name: &str) -> Outcome {
    let (platform, history) = ranking::history(&ctx.store, window, PlatformRef::Name(name))?;
    let history: Vec<_> = history
        .into_iter()
        .filter(|h| {
            args.breakpoint
                .is_none_or(|b| catalogue::metric(&h.key).is_some_and(|m| m.breakpoint == b))
        })
        .collect();
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "platform": platform.name,
            "window": window,
            "metrics": history,
        }))?);
    }
    let mut text = format!(
        "{} — history, one point per run ({}):\n{}",
        platform.name,
        if history.is_empty() {
            "no run measured any metric".to_string()
        } else {
            format!("{} metrics", history.len())
        },
        super::rank::window_note(window)
    );
    for h in &history {
        let def = catalogue::metric(&h.key);
        let unit = def.map_or("", |m| m.unit);
        text.push_str(&format!(
            "\n{} ({})\n",
            def.map_or(h.key.as_str(), |m| m.name),
            h.key
        ));
        let mut t = output::table(&["measured", "run", "value"]);
        for p in &h.points {
            t.add_row(vec![
                breakpoint_api::text::minute_words(p.at),
                format!("#{} {}", p.run_id, p.file.as_deref().unwrap_or("–")),
                metric_value(p.value, unit, None, false),
            ]);
        }
        text.push_str(&format!("{t}\n"));
        match &h.degradation {
            Some(d) => text.push_str(&format!("  DEGRADED: {}\n", d.describe(unit))),
            None if h.points.len() < catalogue::RUNS_NEEDED => text.push_str(&format!(
                "  too few runs to test for degradation ({} of {})\n",
                h.points.len(),
                catalogue::RUNS_NEEDED
            )),
            None => text.push_str("  no degradation (docs/history.md)\n"),
        }
    }
    Ok(output::print(&text)?)
}

/// Xid errors by code, lost GPUs, failed health checks, narrowed links.
fn hardware_text(h: &HardwareEvidence) -> String {
    let mut text = String::from("\nHardware evidence from the logs\n");
    if !h.xids.is_empty() {
        let mut t = output::table(&[
            "Xid", "meaning", "severity", "fault", "count", "counted", "runs",
        ]);
        for x in &h.xids {
            t.add_row(vec![
                x.code.to_string(),
                x.meaning.unwrap_or("not in the catalogue").to_string(),
                x.severity.map_or("–".into(), |s| s.to_string()),
                x.blame.map_or("unknown".into(), |b| b.to_string()),
                x.count.to_string(),
                if x.counted { "yes" } else { "no" }.to_string(),
                x.runs
                    .iter()
                    .map(|r| format!("#{r}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ]);
        }
        text.push_str(&format!("{t}\n"));
    }
    if h.gpus_lost > 0 {
        text.push_str(&format!(
            "  {} GPU(s) lost (fell off the bus, failed to start or stopped answering)\n",
            h.gpus_lost
        ));
    }
    for f in &h.health {
        text.push_str(&format!(
            "  health check {} {} on {} (run #{}){}\n",
            f.test,
            f.status,
            f.gpu
                .as_deref()
                .map_or("every GPU".into(), |g| format!("GPU {g}")),
            f.run_id,
            f.message
                .as_deref()
                .map(|m| format!(": {}", breakpoint_api::text::excerpt(m, 120)))
                .unwrap_or_default()
        ));
    }
    for l in &h.links {
        text.push_str(&format!(
            "  {} runs its PCIe link at x{} of x{} (run #{})\n",
            l.gpu, l.width, l.max_width, l.run_id
        ));
    }
    text
}
