//! `breakpoint demo`: build the demo workspace and rank it.

use breakpoint_api::demo;
use breakpoint_api::ranking::{self, RankRequest, RobustnessOptions};

use super::{Context, Outcome, rank};
use crate::args::DemoArgs;
use crate::output;

pub fn run(ctx: &Context, args: DemoArgs) -> Outcome {
    let summary = demo::build(&ctx.store, args.demo_seed)?;
    let request = RankRequest {
        robustness: RobustnessOptions {
            samples: args.rank.samples,
            seed: args.rank.seed,
            concentration: args.rank.concentration,
            spread: args.rank.spread,
        },
        ..rank::request(
            args.rank.profile.as_deref(),
            &args.rank.weights,
            &args.rank.window,
            &args.rank.money,
        )?
    };
    let ranked = ranking::rank(&ctx.store, &request)?;
    if ctx.json {
        return Ok(output::print_json(
            &serde_json::json!({ "demo": summary, "ranking": ranked.ranking, "robustness": ranked.robustness }),
        )?);
    }
    let head = if summary.built {
        format!(
            "Built the demo workspace in {}: {} platforms, {} runs, {} samples — DEMO DATA simulated from the four-breakpoint review of domestic GPU clouds (platforms A–F), imported through the real importers.\n",
            ctx.store.path().display(),
            summary.platforms,
            summary.runs,
            summary.samples
        )
    } else {
        format!(
            "The demo workspace is already in {} (DEMO DATA).\n",
            ctx.store.path().display()
        )
    };
    Ok(output::print(&format!(
        "{head}\n{}\nMore: breakpoint --db {} explain \"Platform E (demo)\" sustain\n",
        rank::render(&ranked),
        ctx.store.path().display()
    ))?)
}
