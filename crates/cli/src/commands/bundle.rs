//! `breakpoint bundle export|import`: evidence between people.

use breakpoint_api::workspace_bundle::{self, ExportRequest, Resolution};

use super::{Context, Outcome};
use crate::args::BundleCommand;
use crate::output;

pub fn run(ctx: &Context, command: BundleCommand) -> Outcome {
    match command {
        BundleCommand::Export {
            output: path,
            platforms,
            runs,
            force,
        } => {
            let exported = workspace_bundle::export(
                &ctx.store,
                &ExportRequest {
                    platforms,
                    runs,
                    force,
                },
                &path,
            )?;
            if ctx.json {
                return Ok(output::print_json(&exported)?);
            }
            let m = &exported.manifest;
            Ok(output::print(&format!(
                "wrote {}: {} platform(s) ({}), {} run(s), {} samples\nSHA-256 {}\n",
                path.display(),
                m.platforms.len(),
                m.platforms.join(", "),
                m.runs,
                m.samples,
                exported.sha256
            ))?)
        }
        BundleCommand::Import {
            file,
            keep_ours,
            rename_theirs,
        } => {
            let resolution = match (keep_ours, rename_theirs) {
                (true, _) => Some(Resolution::KeepOurs),
                (_, true) => Some(Resolution::RenameTheirs),
                _ => None,
            };
            let (manifest, report) = workspace_bundle::import(&ctx.store, &file, resolution)
                .map_err(|e| match e {
                    breakpoint_api::Error::BundleConflicts { .. } => {
                        super::Failure::Refused(format!("{e}: --keep-ours or --rename-theirs"))
                    }
                    other => other.into(),
                })?;
            if ctx.json {
                return Ok(output::print_json(
                    &serde_json::json!({ "manifest": manifest, "merged": report }),
                )?);
            }
            let mut text = format!(
                "merged {} ({}, {}): {} run(s) added, {} already here\n",
                file.display(),
                manifest.created_by,
                breakpoint_api::text::minute_words(manifest.created_at),
                report.runs_added.len(),
                report.runs_already_here
            );
            if !report.platforms_added.is_empty() {
                text.push_str(&format!(
                    "platforms added: {}\n",
                    report.platforms_added.join(", ")
                ));
            }
            for (theirs, ours) in &report.platforms_matched {
                text.push_str(&format!("platform {theirs} → ours, {ours}\n"));
            }
            text.push_str(&format!(
                "offerings added: {}, billing rules: {}, claims: {}, weight profiles: {}\n",
                report.offerings_added,
                report.billing_rules_added,
                report.claims_added,
                report.profiles_added.len()
            ));
            for r in &report.runs_filed_elsewhere {
                text.push_str(&format!("already here under another platform: {r}\n"));
            }
            for c in &report.conflicts {
                text.push_str(&format!("conflict: {c}\n"));
            }
            Ok(output::print(&text)?)
        }
    }
}
