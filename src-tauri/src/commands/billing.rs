//! The billing screen: a workload priced on every platform's rule.

use breakpoint_core::domain::money;
use breakpoint_core::usecases::pricing::{self, WorkloadSource};
use tauri::State;

use super::off_thread;
use crate::dto::BillRow;
use crate::error::AppResult;
use crate::state::AppState;

/// A workload ("compute=1h42m18s,io-wait=35m" or "reference") priced on
/// every platform's rule.
#[tauri::command]
pub async fn bill(state: State<'_, AppState>, workload: String) -> AppResult<Vec<BillRow>> {
    let source = match workload.trim() {
        "" | "reference" => WorkloadSource::Reference,
        spec => WorkloadSource::Spec(spec.to_string()),
    };
    let bills = off_thread(&state, move |store| {
        let w = pricing::workload(store, &source)?;
        Ok(pricing::price_everywhere(store, &w)?)
    })
    .await?;
    Ok(bills
        .into_iter()
        .map(|b| BillRow {
            platform: b.platform,
            rule: b.rule,
            price: b.price_per_hour,
            currency: b.currency,
            billed_seconds: b.bill.as_ref().map(|b| b.billed_seconds),
            amount: b.bill.as_ref().map(|b| money::to_f64(b.amount)),
            fair_amount: b.bill.as_ref().map(|b| money::to_f64(b.fair_amount)),
            overcharge_pct: b.bill.as_ref().and_then(|b| b.overcharge_pct()),
            missing: b.missing.map(str::to_string),
            gpu_kwh: b.energy.as_ref().map(|e| e.gpu_kwh),
            facility_kwh: b.energy.as_ref().map(|e| e.facility_kwh),
            co2_kg: b.energy.as_ref().map(|e| e.co2_kg),
            default_factors: b.energy.as_ref().is_some_and(|e| !e.factors.set),
        })
        .collect())
}
