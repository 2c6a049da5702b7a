//! `breakpoint platform …`

use breakpoint_api::domain::Platform;
use breakpoint_api::platforms::TEMPLATES;
use breakpoint_api::platforms::{self, FactorsChange};
use serde::Serialize;

use super::{Context, Failure, Outcome, billing, offering};
use crate::args::PlatformCommand;
use crate::output::{self, opt};

pub fn run(ctx: &Context, command: PlatformCommand) -> Outcome {
    match command {
        PlatformCommand::Add {
            name,
            template,
            kind,
            notes,
        } => add(ctx, name, template, kind, notes),
        PlatformCommand::List => list(ctx),
        PlatformCommand::Show { name } => show(ctx, &name),
        PlatformCommand::Edit {
            name,
            new_name,
            kind,
            notes,
        } => edit(ctx, &name, new_name, kind, notes),
        PlatformCommand::Rm { name, yes } => remove(ctx, &name, yes),
        PlatformCommand::Templates => list_templates(ctx),
        PlatformCommand::Energy {
            name,
            pue,
            grid,
            reset,
        } => energy_factors(ctx, &name, pue.zip(grid), reset),
    }
}

fn energy_factors(ctx: &Context, name: &str, set: Option<(f64, f64)>, reset: bool) -> Outcome {
    let change = match (set, reset) {
        (Some((pue, grid_g_per_kwh)), _) => FactorsChange::Set {
            pue,
            grid_g_per_kwh,
        },
        (None, true) => FactorsChange::Reset,
        (None, false) => FactorsChange::Keep,
    };
    let (platform, f) = platforms::energy_factors(&ctx.store, name, change)?;
    if ctx.json {
        return Ok(output::print_json(&f)?);
    }
    Ok(output::print(&format!(
        "{}: PUE {}, grid {} g CO₂/kWh ({})\n",
        platform.name,
        f.pue,
        f.grid_g_per_kwh,
        if f.set {
            "set for this platform"
        } else {
            "the defaults, docs/energy.md"
        }
    ))?)
}

fn add(
    ctx: &Context,
    name: Option<String>,
    template: Option<String>,
    kind: breakpoint_api::domain::PlatformKind,
    notes: Option<String>,
) -> Outcome {
    let platform = match template {
        Some(wanted) => platforms::add_from_template(&ctx.store, &wanted, name.as_deref(), notes)
            .map_err(|e| match e {
            breakpoint_api::Error::NotFound {
                what: "template", ..
            } => Failure::Refused(format!(
                "no template named \"{wanted}\" (see `breakpoint platform templates`)"
            )),
            other => other.into(),
        })?,
        None => platforms::add(&ctx.store, &name.unwrap_or_default(), kind, notes)?,
    };
    if ctx.json {
        return Ok(output::print_json(&platform)?);
    }
    let claims = ctx.store.claims(Some(platform.id))?.len();
    let from = platform
        .template
        .as_ref()
        .map(|t| format!(" from template {t}, with {claims} claims"))
        .unwrap_or_default();
    Ok(output::print(&format!(
        "added platform {} (id {}, {}){from}",
        platform.name, platform.id, platform.kind
    ))?)
}

fn list(ctx: &Context) -> Outcome {
    let platforms = ctx.store.platform_summaries()?;
    if ctx.json {
        return Ok(output::print_json(&platforms)?);
    }
    if platforms.is_empty() {
        return Ok(output::print(
            "no platforms yet; add one with `breakpoint platform add NAME` or `--template NAME`",
        )?);
    }
    let mut t = output::table(&[
        "platform",
        "kind",
        "offerings",
        "claims",
        "runs",
        "price & spot data",
        "samples",
    ]);
    for p in &platforms {
        t.add_row(vec![
            p.platform.name.clone(),
            p.platform.kind.to_string(),
            p.offerings.to_string(),
            p.claims.to_string(),
            p.runs.to_string(),
            p.offering_evidence.to_string(),
            p.samples.to_string(),
        ]);
    }
    Ok(output::print(&t.to_string())?)
}

#[derive(Serialize)]
struct PlatformDetail {
    #[serde(flatten)]
    platform: Platform,
    offerings: Vec<breakpoint_api::domain::Offering>,
    billing_rules: Vec<breakpoint_api::domain::BillingRule>,
    claims: Vec<breakpoint_api::domain::Claim>,
    runs: usize,
}

fn show(ctx: &Context, name: &str) -> Outcome {
    let platform = ctx.store.platform(name)?;
    let detail = PlatformDetail {
        offerings: ctx.store.offerings(Some(platform.id))?,
        billing_rules: ctx.store.billing_rules(platform.id)?,
        claims: ctx.store.claims(Some(platform.id))?,
        runs: ctx.store.runs(Some(platform.id))?.len(),
        platform,
    };
    if ctx.json {
        return Ok(output::print_json(&detail)?);
    }
    let p = &detail.platform;
    let mut text = format!("{} (id {}, {})\n", p.name, p.id, p.kind);
    if let Some(notes) = &p.notes {
        text.push_str(&format!("notes: {notes}\n"));
    }
    if let Some(template) = &p.template {
        text.push_str(&format!("template: {template}\n"));
    }
    text.push_str(&format!("runs: {}\n", detail.runs));
    text.push_str("\nofferings:\n");
    text.push_str(&offering::table_of(&detail.offerings, |_| p.name.clone()));
    text.push_str("\nbilling rules:\n");
    text.push_str(&billing::table_of(&detail.billing_rules));
    text.push_str("\nclaims:\n");
    if detail.claims.is_empty() {
        text.push_str("  none\n");
    }
    for c in &detail.claims {
        let value = c
            .value
            .map(|v| format!(" {}{}", output::number(v), opt_unit(c.unit.as_deref())))
            .unwrap_or_default();
        text.push_str(&format!(
            "  {}{}: {} [{}]\n",
            c.subject,
            value,
            opt(c.text.as_deref()),
            c.source
        ));
    }
    Ok(output::print(&text)?)
}

fn opt_unit(unit: Option<&str>) -> String {
    match unit {
        Some("%") => " %".into(),
        Some(u) => format!(" {u}"),
        None => String::new(),
    }
}

fn edit(
    ctx: &Context,
    name: &str,
    new_name: Option<String>,
    kind: Option<breakpoint_api::domain::PlatformKind>,
    notes: Option<String>,
) -> Outcome {
    let current = ctx.store.platform(name)?;
    let edited = Platform::new(
        new_name.as_deref().unwrap_or(&current.name),
        kind.unwrap_or(current.kind),
        notes.or(current.notes.clone()),
    )?;
    let edited = Platform {
        id: current.id,
        template: current.template.clone(),
        ..edited
    };
    ctx.store.update_platform(&edited)?;
    if ctx.json {
        return Ok(output::print_json(&edited)?);
    }
    Ok(output::print(&format!("updated platform {}", edited.name))?)
}

fn remove(ctx: &Context, name: &str, yes: bool) -> Outcome {
    let platform = ctx.store.platform(name)?;
    let offerings = ctx.store.offerings(Some(platform.id))?.len();
    let runs = ctx.store.runs(Some(platform.id))?.len();
    if (offerings > 0 || runs > 0) && !yes {
        return Err(Failure::Refused(format!(
            "platform \"{}\" has {offerings} offering(s) and {runs} run(s); add --yes to delete them too",
            platform.name
        )));
    }
    ctx.store.delete_platform(platform.id)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "deleted": platform.name, "offerings": offerings, "runs": runs
        }))?);
    }
    Ok(output::print(&format!(
        "deleted platform {} with {offerings} offering(s) and {runs} run(s)",
        platform.name
    ))?)
}

#[derive(Serialize)]
struct TemplateView {
    name: &'static str,
    aliases: &'static [&'static str],
    kind: breakpoint_api::domain::PlatformKind,
    notes: &'static str,
    claims: usize,
}

fn list_templates(ctx: &Context) -> Outcome {
    let views: Vec<TemplateView> = TEMPLATES
        .iter()
        .map(|t| TemplateView {
            name: t.name,
            aliases: t.aliases,
            kind: t.kind,
            notes: t.notes,
            claims: t.claims.len(),
        })
        .collect();
    if ctx.json {
        return Ok(output::print_json(&views)?);
    }
    let mut t = output::table(&["template", "aliases", "kind", "claims"]);
    for v in &views {
        t.add_row(vec![
            v.name.to_string(),
            v.aliases.join(", "),
            v.kind.to_string(),
            v.claims.to_string(),
        ]);
    }
    Ok(output::print(&t.to_string())?)
}
