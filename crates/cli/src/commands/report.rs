//! `breakpoint report`: the decision-matrix PDF.

use breakpoint_core::scoring::RobustnessOptions;
use breakpoint_report::fonts::FontSet;
use breakpoint_report::{ReportOptions, compose, gather, render};

use super::{Context, Failure, Outcome};
use crate::args::ReportArgs;
use crate::output;

pub fn run(ctx: &Context, args: ReportArgs) -> Outcome {
    let profile = super::rank::profile(&ctx.store, args.profile.as_deref(), &[])?;
    let data = gather(
        &ctx.store,
        profile,
        &RobustnessOptions {
            samples: args.samples,
            seed: args.seed,
            ..RobustnessOptions::default()
        },
    )?;
    let options = ReportOptions {
        title: args.title,
        date: args
            .date
            .unwrap_or_else(|| jiff::ZonedDateTime::now().date()),
        lang: args.lang,
    };
    let layout = compose(&data, &options).map_err(breakpoint_report::ReportError::from)?;
    let pdf = render(&layout, &options, &FontSet::discover())?;
    // Write beside the target and rename, so a failure never leaves half a PDF.
    let tmp = args.output.with_extension("pdf.partial");
    std::fs::write(&tmp, &pdf)
        .and_then(|()| std::fs::rename(&tmp, &args.output))
        .map_err(|e| {
            Failure::Refused(format!("cannot write \"{}\": {e}", args.output.display()))
        })?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "file": args.output.display().to_string(),
            "pages": layout.pages.len(),
            "bytes": pdf.len(),
        }))?);
    }
    Ok(output::print(&format!(
        "wrote {} ({} pages, {:.0} KB)",
        args.output.display(),
        layout.pages.len(),
        pdf.len() as f64 / 1024.0
    ))?)
}
