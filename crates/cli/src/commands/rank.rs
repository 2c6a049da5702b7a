//! `breakpoint rank`: the side-by-side table and the robustness summary.

use breakpoint_core::domain::Breakpoint;
use breakpoint_core::metrics;
use breakpoint_core::scoring::{self, Ranking, Robustness, RobustnessOptions, presets};
use breakpoint_core::store::{Store, StoredProfile};
use serde::Serialize;

use super::{Context, Failure, Outcome};
use crate::args::RankArgs;
use crate::output;

#[derive(Serialize)]
pub struct RankOutput {
    pub ranking: Ranking,
    pub robustness: Robustness,
}

/// The profile named (or the default), with `--weight` overrides applied.
pub fn profile(
    store: &Store,
    name: Option<&str>,
    overrides: &[String],
) -> Result<StoredProfile, Failure> {
    let mut profile = store.weight_profile(name.unwrap_or(presets::DEFAULT_PROFILE))?;
    for o in overrides {
        let (key, value) = o.split_once('=').ok_or_else(|| {
            Failure::Refused(format!(
                "--weight \"{o}\": write it as breakpoint=weight, e.g. startup=0.4"
            ))
        })?;
        let b: Breakpoint = key.parse()?;
        let w: f64 = value.trim().parse().map_err(|_| {
            Failure::Refused(format!("--weight \"{o}\": \"{value}\" is not a number"))
        })?;
        profile.profile.breakpoints.set(b, w);
    }
    profile.profile.breakpoints = profile.profile.breakpoints.validate()?;
    if !overrides.is_empty() {
        profile.profile.name = format!("{} (adjusted)", profile.profile.name);
    }
    Ok(profile)
}

pub fn compute(store: &Store, args: &RankArgs) -> Result<RankOutput, Failure> {
    let profile = profile(store, args.profile.as_deref(), &args.weights)?;
    if !(args.concentration > 0.0 && args.concentration.is_finite()) {
        return Err(Failure::Refused(
            "--concentration must be a number above 0".into(),
        ));
    }
    let evidence = metrics::platform_evidence(store)?;
    let ranking = scoring::rank(&evidence, &profile);
    let robustness = scoring::robustness(
        &ranking,
        &RobustnessOptions {
            samples: args.samples,
            seed: args.seed,
            concentration: args.concentration,
            spread: args.spread,
        },
    );
    Ok(RankOutput {
        ranking,
        robustness,
    })
}

pub fn run(ctx: &Context, args: RankArgs) -> Outcome {
    let out = compute(&ctx.store, &args)?;
    if ctx.json {
        return Ok(output::print_json(&out)?);
    }
    Ok(output::print(&render(&out))?)
}

fn cell(score: Option<f64>) -> String {
    score.map_or("–".to_string(), |s| format!("{s:.1}"))
}

pub fn render(out: &RankOutput) -> String {
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
    text.push_str("Scores 0–100; – not measured (never counted as 0).\n");
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
    let rb = &out.robustness;
    if rb.acceptability.is_empty() {
        return text;
    }
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
    for (i, flip) in rb.flips.iter().enumerate() {
        match flip {
            Some(f) => text.push_str(&format!("  {}\n", f.sentence())),
            None => {
                let ranked: Vec<_> = r.platforms.iter().filter(|p| p.rank.is_some()).collect();
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
