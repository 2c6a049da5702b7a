//! `breakpoint report`: the decision-matrix PDF, and the matrix in the
//! ClusterMAX categories.

use breakpoint_api::clustermax::{self, ClusterMaxView};
use breakpoint_api::ranking::{RankRequest, RobustnessOptions};
use breakpoint_api::workspace_bundle::{self, ExportRequest};
use breakpoint_report::text::t;
use breakpoint_report::{Lang, ReportOptions, export};

use super::{Context, Outcome};
use crate::args::{CategoryScheme, ReportArgs};
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
    let categories = match args.categories {
        Some(CategoryScheme::Clustermax) => Some(clustermax::view(
            &ctx.store,
            &request,
            args.lang == Lang::Zh,
        )?),
        None => None,
    };
    // With --categories the view is the answer; a PDF only where asked for.
    let output = match (&args.output, &categories) {
        (Some(path), _) => path.clone(),
        (None, Some(view)) => {
            if ctx.json {
                output::print_json(view)?;
            } else {
                output::print(&view_text(view, args.lang))?;
            }
            return Ok(());
        }
        (None, None) => std::path::PathBuf::from("decision-matrix.pdf"),
    };
    // The evidence first: the PDF names its hash.
    let bundle = if args.bundle {
        let path = output.with_extension("bundle.tar");
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
    let written = export(&ctx.store, &request, &options, &output, args.force)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "file": output.display().to_string(),
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
        output.display(),
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
    if let Some(view) = &categories {
        text = format!("{}\n\n{text}", view_text(view, args.lang));
    }
    Ok(output::print(&text)?)
}

/// The view for a person: each category, its metrics and expected checks
/// as tables (one column per platform), the commands for what is not
/// measured everywhere, and the audits' results below.
fn view_text(view: &ClusterMaxView, lang: Lang) -> String {
    let mut out = output::wrapped(t(lang, "clustermax_legend"), 0);
    out.push('\n');
    let header = |first: &str| {
        let mut h = vec![first];
        h.extend(view.platforms.iter().map(String::as_str));
        output::table(&h)
    };
    for c in &view.categories {
        out.push('\n');
        out.push_str(&output::wrapped(
            &format!("{} — {}", c.name, c.evidenced_by),
            2,
        ));
        out.push('\n');
        if !c.metrics.is_empty() {
            let mut table = header(t(lang, "clustermax_metric"));
            for m in &c.metrics {
                let mut row = vec![m.name.clone()];
                row.extend(m.figures.iter().cloned());
                table.add_row(row);
            }
            out.push_str(&format!("{}\n", table.fitted()));
        }
        let read: Vec<_> = c.checks.iter().filter(|k| !k.not_read).collect();
        if !read.is_empty() {
            let mut table = header(t(lang, "clustermax_check"));
            for k in &read {
                let mut row = vec![k.name.clone()];
                row.extend(
                    k.measured
                        .iter()
                        .map(|m| m.clone().unwrap_or_else(|| "–".into())),
                );
                table.add_row(row);
            }
            out.push_str(&format!("{}\n", table.fitted()));
        }
        for k in &c.checks {
            let line = if k.not_read {
                format!(
                    "  {}: {} {}",
                    k.name,
                    t(lang, "clustermax_not_read"),
                    k.command
                )
            } else if k.measured.iter().any(Option::is_none) {
                format!(
                    "  {} — {}: {}",
                    t(lang, "clustermax_to_measure"),
                    k.name,
                    k.command
                )
            } else {
                continue;
            };
            out.push_str(&output::wrapped(&line, 2));
            out.push('\n');
        }
        for a in &c.audits {
            out.push_str(&output::wrapped(
                &format!("  {}: {}", a.platform, a.said),
                2,
            ));
            out.push('\n');
            for r in &a.results {
                out.push_str(&output::wrapped(&format!("    {r}"), 2));
                out.push('\n');
            }
        }
    }
    out.trim_end().to_string()
}
