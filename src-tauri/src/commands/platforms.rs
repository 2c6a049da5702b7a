//! The platforms screen: platforms, offerings, billing rules and claims,
//! added by hand or from a built-in template, and the acceptance checklists
//! of the bundles imported for each.

use breakpoint_api::acceptance::checklists;
use breakpoint_api::domain::{BillingRule, Claim, OfferingSpec, Platform, PlatformKind};
use breakpoint_api::performance;
use breakpoint_api::platforms;
use breakpoint_api::platforms::TEMPLATES;
use breakpoint_api::workspace::PlatformSummary;
use tauri::State;

use crate::dto::{
    AcceptanceSheetView, ChecklistRow, ClaimRow, NewBillingRule, NewClaim, NewOffering,
    NewPlatform, OfferingRow, PerfFigureRow, PerfGpuRow, PerfModelView, PlatformDetail,
    PlatformRow, TemplateRow,
};
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
pub async fn list_platforms(state: State<'_, AppState>) -> AppResult<Vec<PlatformRow>> {
    Ok(state
        .store()?
        .platform_summaries()?
        .into_iter()
        .map(row)
        .collect())
}

#[tauri::command]
pub async fn platform_detail(state: State<'_, AppState>, id: i64) -> AppResult<PlatformDetail> {
    let store = state.store()?;
    let summary = store
        .platform_summaries()?
        .into_iter()
        .find(|p| p.platform.id == id)
        .ok_or_else(|| breakpoint_api::Error::NotFound {
            what: "platform",
            name: id.to_string(),
        })?;
    let offerings = store
        .offerings(Some(id))?
        .into_iter()
        .map(|o| OfferingRow {
            id: o.id,
            count: o.count,
            pcie: breakpoint_api::domain::pcie_link(o.pcie_gen, o.pcie_width),
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
    let acceptance = checklists(&store, id)?
        .into_iter()
        .map(|sheet| AcceptanceSheetView {
            title: sheet.title(),
            failed: sheet.failed() as u32,
            runs: sheet.runs,
            items: sheet
                .checklist
                .into_iter()
                .map(|c| ChecklistRow {
                    check: c.check,
                    measured: c.measured,
                    threshold: c.threshold,
                    passed: c.passed,
                })
                .collect(),
        })
        .collect();
    Ok(PlatformDetail {
        platform: row(summary),
        offerings,
        billing,
        claims,
        acceptance,
        performance: performance_of(&store, id)?,
    })
}

/// The platform's delivered performance on each model it was measured on.
fn performance_of(store: &breakpoint_api::Store, id: i64) -> AppResult<Vec<PerfModelView>> {
    let mut views = Vec::new();
    for model in performance::compare(store)? {
        let Some(p) = model.platforms.into_iter().find(|p| p.platform_id == id) else {
            continue;
        };
        views.push(PerfModelView {
            model: model.model,
            figures: p
                .figures
                .into_iter()
                .map(|f| PerfFigureRow {
                    test: f.test,
                    unit: f.unit,
                    value: f.value,
                    share_pct: f.share_pct,
                    percentile: f.percentile,
                    others: f.peers.saturating_sub(1) as u32,
                })
                .collect(),
            latest_run: p.latest.first().map(|g| g.run_id),
            host: p.latest.first().and_then(|g| g.host.clone()),
            gpus: p
                .latest
                .into_iter()
                .map(|g| PerfGpuRow {
                    gpu: g.gpu,
                    gemm_dtype: g
                        .gemm
                        .as_ref()
                        .map(|(t, _, _)| t.trim_start_matches("gemm ").to_string()),
                    gemm: g.gemm.as_ref().map(|(_, v, _)| *v),
                    gemm_share_pct: g.gemm.as_ref().and_then(|(_, _, s)| *s),
                    copy_gbps: g.copy.map(|(v, _)| v),
                    copy_share_pct: g.copy.and_then(|(_, s)| s),
                    link_gbps: g.host_link.map(|(v, _)| v),
                    link_share_pct: g.host_link.and_then(|(_, s)| s),
                    decay_pct: g.decay_pct,
                    straggler_test: g.straggler.as_ref().map(|(t, _)| t.clone()),
                    straggler_pct: g.straggler.as_ref().map(|(_, d)| *d),
                })
                .collect(),
        });
    }
    Ok(views)
}

#[tauri::command]
pub async fn add_platform(state: State<'_, AppState>, platform: NewPlatform) -> AppResult<i64> {
    let kind: PlatformKind = platform.kind.parse()?;
    let p = Platform::new(&platform.name, kind, platform.notes)?;
    Ok(state.store()?.create_platform(&p)?.id)
}

#[tauri::command]
pub fn templates() -> Vec<TemplateRow> {
    TEMPLATES
        .iter()
        .map(|t| TemplateRow {
            name: t.name.into(),
            kind: t.kind.to_string(),
            claims: t.claims.len() as u32,
        })
        .collect()
}

#[tauri::command]
pub async fn add_template(state: State<'_, AppState>, name: String) -> AppResult<i64> {
    Ok(platforms::add_from_template(&*state.store()?, &name, None, None)?.id)
}

#[tauri::command]
pub async fn delete_platform(state: State<'_, AppState>, id: i64) -> AppResult<()> {
    Ok(state.store()?.delete_platform(id)?)
}

/// Add an offering (accelerator, count, prices) to a platform.
#[tauri::command]
pub async fn add_offering(
    state: State<'_, AppState>,
    platform_id: i64,
    offering: NewOffering,
) -> AppResult<i64> {
    let store = state.store()?;
    store.platform_by_id(platform_id)?;
    let spec = OfferingSpec {
        accelerator: offering.accelerator,
        vendor: None,
        count: offering.count,
        vram_gib: None,
        form_factor: None,
        interconnect: None,
        pcie_gen: None,
        pcie_width: None,
        cpu_cores: None,
        ram_gib: None,
        region: offering.region,
        min_driver: None,
        min_cuda: None,
        currency: offering.currency,
        price_on_demand: offering.price_on_demand,
        price_spot: offering.price_spot,
        price_monthly: None,
        price_storage: None,
        price_transfer: None,
    };
    Ok(store.create_offering(&spec.build(platform_id)?)?.id)
}

/// Remove an offering; runs keep their snapshot of it.
#[tauri::command]
pub async fn delete_offering(state: State<'_, AppState>, id: i64) -> AppResult<()> {
    Ok(state.store()?.delete_offering(id)?)
}

/// Set the platform's billing rule for a mode (replacing the previous one).
#[tauri::command]
pub async fn set_billing_rule(
    state: State<'_, AppState>,
    platform_id: i64,
    rule: NewBillingRule,
) -> AppResult<()> {
    let store = state.store()?;
    store.platform_by_id(platform_id)?;
    let rule = BillingRule {
        granularity_s: rule.granularity_s,
        minimum_charge_s: rule.minimum_charge_s,
        rounding: rule.rounding.parse()?,
        bills_io_wait: rule.bills_io_wait,
        bills_idle: rule.bills_idle,
        ..BillingRule::per_second(platform_id, rule.mode.parse()?)
    }
    .validate()?;
    store.set_billing_rule(&rule)?;
    Ok(())
}

/// Record what a platform claims (a figure with its source); claims are
/// shown beside measurements, never scored as if measured.
#[tauri::command]
pub async fn add_claim(
    state: State<'_, AppState>,
    platform_id: i64,
    claim: NewClaim,
) -> AppResult<i64> {
    let store = state.store()?;
    store.platform_by_id(platform_id)?;
    let claim = Claim::new(
        platform_id,
        &claim.subject,
        claim.value,
        claim.unit,
        claim.text,
        &claim.source,
    )?;
    Ok(store.add_claim(&claim)?.id)
}
