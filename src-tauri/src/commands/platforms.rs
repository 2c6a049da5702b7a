use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::store::PlatformSummary;
use breakpoint_core::templates;
use tauri::State;

use crate::dto::{ClaimRow, NewPlatform, OfferingRow, PlatformDetail, PlatformRow, TemplateRow};
use crate::error::AppResult;
use crate::state::AppState;

fn row(s: PlatformSummary) -> PlatformRow {
    PlatformRow {
        id: s.platform.id,
        name: s.platform.name,
        kind: s.platform.kind.to_string(),
        notes: s.platform.notes,
        template: s.platform.template,
        offerings: s.offerings,
        claims: s.claims,
        runs: s.runs,
        samples: s.samples,
    }
}

#[tauri::command]
pub fn list_platforms(state: State<'_, AppState>) -> AppResult<Vec<PlatformRow>> {
    Ok(state
        .store()?
        .platform_summaries()?
        .into_iter()
        .map(row)
        .collect())
}

#[tauri::command]
pub fn platform_detail(state: State<'_, AppState>, id: i64) -> AppResult<PlatformDetail> {
    let store = state.store()?;
    let summary = store
        .platform_summaries()?
        .into_iter()
        .find(|p| p.platform.id == id)
        .ok_or_else(|| breakpoint_core::Error::NotFound {
            what: "platform",
            name: id.to_string(),
        })?;
    let offerings = store
        .offerings(Some(id))?
        .into_iter()
        .map(|o| OfferingRow {
            id: o.id,
            count: o.count,
            pcie: match (o.pcie_gen, o.pcie_width) {
                (None, None) => "–".into(),
                (g, w) => format!(
                    "{}{}",
                    g.map(|g| format!("Gen{g} ")).unwrap_or_default(),
                    w.map(|w| format!("x{w}")).unwrap_or_default()
                ),
            },
            price: o
                .prices
                .on_demand
                .map_or("–".into(), |p| format!("{p} {}/h", o.prices.currency)),
            accelerator: o.accelerator.canonical,
        })
        .collect();
    let billing = store
        .billing_rules(id)?
        .into_iter()
        .map(|r| {
            format!(
                "{}: {} s units, rounding {}, io-wait {}, idle {}",
                r.mode,
                r.granularity_s,
                r.rounding,
                if r.bills_io_wait { "billed" } else { "free" },
                if r.bills_idle { "billed" } else { "free" }
            )
        })
        .collect();
    let claims = store
        .claims(Some(id))?
        .into_iter()
        .map(|c| ClaimRow {
            subject: c.subject,
            value: c
                .value
                .map(|v| {
                    format!("{v} {}", c.unit.unwrap_or_default())
                        .trim()
                        .to_string()
                })
                .unwrap_or_default(),
            text: c.text.unwrap_or_default(),
            source: c.source,
        })
        .collect();
    Ok(PlatformDetail {
        platform: row(summary),
        offerings,
        billing,
        claims,
    })
}

#[tauri::command]
pub fn add_platform(state: State<'_, AppState>, platform: NewPlatform) -> AppResult<i64> {
    let kind: PlatformKind = platform.kind.parse()?;
    let p = Platform::new(&platform.name, kind, platform.notes)?;
    Ok(state.store()?.create_platform(&p)?.id)
}

#[tauri::command]
pub fn templates() -> Vec<TemplateRow> {
    templates::TEMPLATES
        .iter()
        .map(|t| TemplateRow {
            name: t.name.into(),
            kind: t.kind.to_string(),
            claims: t.claims.len() as u32,
        })
        .collect()
}

#[tauri::command]
pub fn add_template(state: State<'_, AppState>, name: String) -> AppResult<i64> {
    let template = templates::find(&name).ok_or_else(|| breakpoint_core::Error::NotFound {
        what: "template",
        name: name.clone(),
    })?;
    Ok(templates::instantiate(&*state.store()?, template, None, None)?.id)
}

#[tauri::command]
pub fn delete_platform(state: State<'_, AppState>, id: i64) -> AppResult<()> {
    Ok(state.store()?.delete_platform(id)?)
}
