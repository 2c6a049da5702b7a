//! `breakpoint claim …`

use std::collections::HashMap;

use breakpoint_api::domain::Claim;

use super::{Context, Outcome};
use crate::args::ClaimCommand;
use crate::output::{self, opt};

pub fn run(ctx: &Context, command: ClaimCommand) -> Outcome {
    match command {
        ClaimCommand::Add {
            platform,
            subject,
            value,
            unit,
            text,
            source,
        } => {
            let platform = ctx.store.platform(&platform)?;
            let claim = Claim::new(platform.id, &subject, value, unit, text, &source)?;
            let claim = ctx.store.add_claim(&claim)?;
            if ctx.json {
                return Ok(output::print_json(&claim)?);
            }
            Ok(output::print(&format!(
                "added claim {} to {}: {} (source: {})",
                claim.id, platform.name, claim.subject, claim.source
            ))?)
        }
        ClaimCommand::List { platform } => {
            let platform_id = platform
                .map(|name| ctx.store.platform(&name).map(|p| p.id))
                .transpose()?;
            let claims = ctx.store.claims(platform_id)?;
            if ctx.json {
                return Ok(output::print_json(&claims)?);
            }
            if claims.is_empty() {
                return Ok(output::print("no claims")?);
            }
            let names: HashMap<i64, String> = ctx
                .store
                .platforms()?
                .into_iter()
                .map(|p| (p.id, p.name))
                .collect();
            let mut t = output::table(&["id", "platform", "subject", "value", "claim", "source"]);
            for c in &claims {
                t.add_row(vec![
                    c.id.to_string(),
                    names.get(&c.platform_id).cloned().unwrap_or_default(),
                    c.subject.clone(),
                    c.value
                        .map(|v| {
                            format!("{} {}", output::number(v), c.unit.as_deref().unwrap_or(""))
                        })
                        .unwrap_or_else(|| "–".into())
                        .trim()
                        .to_string(),
                    opt(c.text.as_deref()),
                    c.source.clone(),
                ]);
            }
            Ok(output::print(&t.to_string())?)
        }
    }
}
