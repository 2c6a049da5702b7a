//! `breakpoint report`: the decision-matrix PDF.

use breakpoint_core::scoring::RobustnessOptions;
use breakpoint_core::usecases::ranking::RankRequest;
use breakpoint_report::{ReportOptions, export};

use super::{Context, Outcome};
use crate::args::ReportArgs;
use crate::output;

pub fn run(ctx: &Context, args: ReportArgs) -> Outcome {
    let request = RankRequest {
        robustness: RobustnessOptions {
            samples: args.samples,
            seed: args.seed,
            ..RobustnessOptions::default()
        },
        ..super::rank::request(args.profile.as_deref(), &[], &args.window)?
    };
    let options = ReportOptions {
        title: args.title,
        date: args
            .date
            .unwrap_or_else(|| jiff::ZonedDateTime::now().date()),
        lang: args.lang,
    };
    let written = export(&ctx.store, &request, &options, &args.output)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "file": args.output.display().to_string(),
            "pages": written.pages,
            "bytes": written.bytes,
        }))?);
    }
    Ok(output::print(&format!(
        "wrote {} ({} pages, {:.0} KB)",
        args.output.display(),
        written.pages,
        written.bytes as f64 / 1024.0
    ))?)
}
