//! `breakpoint report`: the decision-matrix PDF.

use breakpoint_api::ranking::{RankRequest, RobustnessOptions};
use breakpoint_api::workspace_bundle::{self, ExportRequest};
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
        ..super::rank::request(args.profile.as_deref(), &[], &args.window, &args.money)?
    };
    // The evidence first: the PDF names its hash.
    let bundle = if args.bundle {
        let path = args.output.with_extension("bundle.tar");
        Some(workspace_bundle::export(
            &ctx.store,
            &ExportRequest {
                force: args.force,
                ..ExportRequest::default()
            },
            &path,
        )?)
    } else {
        None
    };
    let job = args
        .job
        .as_deref()
        .map(breakpoint_api::job_cost::JobSpec::parse)
        .transpose()?;
    let options = ReportOptions {
        job,
        title: args.title,
        date: args
            .date
            .unwrap_or_else(|| jiff::ZonedDateTime::now().date()),
        lang: args.lang,
        evidence: bundle.as_ref().map(|b| {
            (
                b.path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                b.sha256.clone(),
            )
        }),
    };
    let written = export(&ctx.store, &request, &options, &args.output, args.force)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "file": args.output.display().to_string(),
            "pages": written.pages,
            "bytes": written.bytes,
            "bundle": bundle.as_ref().map(|b| serde_json::json!({
                "file": b.path.display().to_string(),
                "sha256": b.sha256,
            })),
        }))?);
    }
    let mut text = format!(
        "wrote {} ({} pages, {:.0} KB)",
        args.output.display(),
        written.pages,
        written.bytes as f64 / 1024.0
    );
    if let Some(b) = &bundle {
        text.push_str(&format!(
            "\nwrote {}: the evidence behind it (SHA-256 {})",
            b.path.display(),
            b.sha256
        ));
    }
    Ok(output::print(&text)?)
}
