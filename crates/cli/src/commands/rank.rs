//! `breakpoint rank`: the side-by-side table and the robustness summary.

use breakpoint_api::ranking::{
    self, RankOutcome, RankRequest, RobustnessOptions, Sources, TimeWindow,
};

use super::{Context, Outcome};
use crate::args::{MoneyArgs, RankArgs, WindowArgs};
use crate::output;

/// The request `--profile`, `--weight`, `--since`, `--until` and
/// `--currency` make.
pub fn request(
    profile: Option<&str>,
    weights: &[String],
    window: &WindowArgs,
    money: &MoneyArgs,
) -> Result<RankRequest, breakpoint_api::Error> {
    Ok(RankRequest {
        profile: profile.map(str::to_string),
        weights: weights
            .iter()
            .map(|w| ranking::parse_weight(w))
            .collect::<Result<_, _>>()?,
        window: TimeWindow::parse(window.since.as_deref(), window.until.as_deref())?
            .of_class(money.accelerator.as_deref()),
        currency: money.currency.clone(),
        ..RankRequest::default()
    })
}

/// "runs measured from 2026-06-01 until 2026-07-01 only", or nothing.
pub fn window_note(window: &TimeWindow) -> String {
    let day = |t: jiff::Timestamp| breakpoint_api::text::minute_words(t);
    match (window.since, window.until) {
        (None, None) => String::new(),
        (Some(s), None) => format!("runs measured since {} only\n", day(s)),
        (None, Some(u)) => format!("runs measured before {} only\n", day(u)),
        (Some(s), Some(u)) => format!("runs measured from {} to {} only\n", day(s), day(u)),
    }
}

pub fn run(ctx: &Context, args: RankArgs) -> Outcome {
    let request = RankRequest {
        robustness: RobustnessOptions {
            samples: args.samples,
            seed: args.seed,
            concentration: args.concentration,
            spread: args.spread,
        },
        // The table shows no sources; the JSON keeps every metric's runs.
        sources: if ctx.json {
            Sources::All
        } else {
            Sources::None
        },
        ..request(
            args.profile.as_deref(),
            &args.weights,
            &args.window,
            &args.money,
        )?
    };
    let out = ranking::rank(&ctx.store, &request)?;
    if ctx.json {
        return Ok(output::print_json(&out)?);
    }
    Ok(output::print(&format!(
        "{}{}{}{}",
        render(&out),
        window_note(&request.window),
        class_note(&out),
        money_note(&out.money)
    ))?)
}

/// "compared on NVIDIA A100 80GB; no offering of it: Platform X", where a
/// class was asked for.
pub fn class_note(out: &RankOutcome) -> String {
    let Some(c) = &out.class else {
        return String::new();
    };
    let mut said = format!("compared on {} only", c.name);
    if !c.without_card.is_empty() {
        said.push_str(&format!(
            "; not ranked, with neither an offering nor a run of it: {}",
            c.without_card.join(", ")
        ));
    }
    if !c.without_offering.is_empty() {
        said.push_str(&format!(
            "; no priced offering of it (its cost not compared): {}",
            c.without_offering.join(", ")
        ));
    }
    said.push('\n');
    said
}

/// "money in CNY (the workspace's currency); converted at 7.1 CNY per USD
/// on 2026-12-01 (bank)", where another currency was converted.
pub fn money_note(money: &ranking::Money) -> String {
    match &money.currency {
        Some(c) if !money.rates.is_empty() => {
            let rates: Vec<String> = money.rates.iter().map(ToString::to_string).collect();
            format!(
                "money in {} ({}); converted at {}\n",
                c.currency,
                c.chosen_by,
                rates.join("; ")
            )
        }
        _ => String::new(),
    }
}

fn cell(score: Option<f64>) -> String {
    score.map_or("–".to_string(), |s| format!("{s:.1}"))
}

pub fn render(out: &RankOutcome) -> String {
    let r = &out.ranking;
    let w = r.weights;
    let mut text = format!(
        "Ranking — profile {} (startup {:.2}, sustain {:.2}, switch {:.2}, billing {:.2})\n",
        r.profile, w[0], w[1], w[2], w[3]
    );
    if r.platforms.is_empty() {
        text.push_str(
            "no platforms yet: add one with `breakpoint platform add`, then import evidence\n",
        );
        return text;
    }
    let mut t = output::table(&[
        "rank", "platform", "startup", "sustain", "switch", "billing", "overall", "coverage",
        "runs",
    ]);
    for p in &r.platforms {
        t.add_row(vec![
            p.rank.map_or("–".into(), |r| r.to_string()),
            p.platform.name.clone(),
            cell(p.breakpoints[0].score),
            cell(p.breakpoints[1].score),
            cell(p.breakpoints[2].score),
            cell(p.breakpoints[3].score),
            cell(p.overall),
            format!("{:.0} %", 100.0 * p.coverage),
            p.evidence.to_string(),
        ]);
    }
    text.push_str(&format!("{t}\n"));
    text.push_str(
        "Scores 0–100; – not measured (never counted as 0). Runs: the measured ones (price lists and spot traces apart).\n",
    );
    let insufficient: Vec<&str> = r
        .platforms
        .iter()
        .filter(|p| p.insufficient_evidence)
        .map(|p| p.platform.name.as_str())
        .collect();
    if !insufficient.is_empty() {
        text.push_str(&format!(
            "Insufficient evidence (coverage under {:.0} %), not ranked: {}\n",
            100.0 * r.coverage_threshold,
            insufficient.join(", ")
        ));
    }
    for d in &out.degradations {
        text.push_str(&format!("degradation: {}\n", d.sentence()));
    }
    // Every price's source is in the JSON, the costs and the bills; a
    // stale one is said here too, where the choice is made.
    for p in out.prices.iter().filter(|p| p.stale) {
        text.push_str(&format!("{}\n", p.line(false)));
    }
    let rb = &out.robustness;
    if !rb.acceptability.is_empty() {
        text.push_str(&robustness(out));
    }
    text.push_str(&decision(&out.decision));
    text
}

/// The robustness of the order: who ranks first how often, the nearest
/// flips, a fragile winner.
fn robustness(out: &RankOutcome) -> String {
    let rb = &out.robustness;
    let r = &out.ranking;
    let mut text = String::new();
    text.push_str(&format!(
        "\nRobustness ({} weight draws, concentration {}, seed {}):\n  P(rank 1): {}\n",
        rb.samples,
        rb.concentration,
        rb.seed,
        rb.acceptability
            .iter()
            .map(|a| format!(
                "{} {:.0} %",
                a.platform,
                100.0 * a.ranks.first().copied().unwrap_or(0.0)
            ))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let ranked: Vec<_> = r.platforms.iter().filter(|p| p.rank.is_some()).collect();
    for (i, flip) in rb.flips.iter().enumerate() {
        match flip {
            Some(f) => text.push_str(&format!("  {}\n", f.sentence())),
            None => {
                if let (Some(a), Some(b)) = (ranked.get(i), ranked.get(i + 1)) {
                    text.push_str(&format!(
                        "  no single weight change lets {} overtake {}\n",
                        b.platform.name, a.platform.name
                    ));
                }
            }
        }
    }
    if let Some(warning) = &rb.fragile_winner {
        text.push_str(&format!("  warning: {warning}\n"));
    }
    text
}

/// The answer in words, each platform's chance of being the best, and the
/// plan: what to measure or configure next, with its cost and its chance
/// of changing the lead.
fn decision(d: &breakpoint_api::decision::Decision) -> String {
    let mut text = format!("\n{}\n", d.sentence());
    if d.kind != breakpoint_api::decision::DecisionKind::Pick && !d.p_best.is_empty() {
        text.push_str(&format!(
            "chance of being the best once the missing metrics are known ({} draws): {}\n",
            d.draws,
            d.chances_said()
        ));
    }
    if d.plan.is_empty() {
        return text;
    }
    text.push_str(&format!(
        "the plan (configuration first, then the cheapest chance of changing the lead; stop once none has more than {:.0} %):\n",
        100.0 * breakpoint_api::decision::ENOUGH
    ));
    for (i, step) in d.plan.iter().enumerate() {
        let kind = match step.kind {
            breakpoint_api::decision::StepKind::Configuration => "configuration: ",
            breakpoint_api::decision::StepKind::Measurement => "",
        };
        text.push_str(&format!(
            "  {}. {kind}{}\n     on {}: {}; {} chance of changing the lead; gives {}\n",
            i + 1,
            step.command,
            step.platforms.join(", "),
            step.cost_in(false),
            step.chance_said(),
            step.measures_said(false)
        ));
    }
    if d.enough {
        text.push_str(&format!(
            "  enough: no step has more than a {:.0} % chance of changing the lead\n",
            100.0 * breakpoint_api::decision::ENOUGH
        ));
    }
    text
}
