//! The billing screen: a workload priced on every platform's rule, and the
//! imported bills against what was measured (the dispute sheet).

use breakpoint_api::domain::money;
use breakpoint_api::pricing::{self, WorkloadSource};
use tauri::State;

use super::off_thread;
use breakpoint_api::disputes;

use crate::dto::{BillRow, DisputeRow, DisputeSheetView};
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
        let mut bills = pricing::price_everywhere(store, &w, None)?;
        pricing::in_currency(store, &mut bills, None)?;
        Ok(bills)
    })
    .await?;
    Ok(bills
        .into_iter()
        .map(|b| BillRow {
            notes: bill_notes(&b),
            platform: b.platform,
            rule: b.rule,
            price: b.price_per_hour,
            currency: b.currency,
            billed_seconds: b.bill.as_ref().map(|b| b.billed_seconds),
            amount: b.bill.as_ref().map(|b| money::to_f64(b.amount)),
            fair_amount: b.bill.as_ref().map(|b| money::to_f64(b.fair_amount)),
            overcharge_pct: b.bill.as_ref().and_then(|b| b.overcharge_pct()),
            missing: b.missing.clone(),
            gpu_kwh: b.energy.as_ref().map(|e| e.gpu_kwh),
            facility_kwh: b.energy.as_ref().map(|e| e.facility_kwh),
            co2_kg: b.energy.as_ref().map(|e| e.co2_kg),
            default_factors: b.energy.as_ref().is_some_and(|e| !e.factors.set),
        })
        .collect())
}

/// The lines a bill rests on (`BillRow::notes`).
fn bill_notes(b: &pricing::PlatformBill) -> Vec<String> {
    let currency = b.currency.as_deref().unwrap_or("");
    let mut notes = Vec::new();
    if let Some(o) = &b.offering {
        notes.push(format!("priced at {o}"));
    }
    if let Some(m) = b
        .cheapest
        .filter(|c| *c != breakpoint_api::domain::BillingMode::OnDemand)
        .and_then(|c| b.modes.iter().find(|m| m.mode == c))
    {
        notes.push(format!(
            "cheapest: {} {:.2} {currency} ({})",
            m.mode, m.amount, m.how
        ));
    }
    if let Some(r) = &b.reported {
        notes.push(format!("{:.2} {} at {}", r.amount, r.currency, r.rate));
    }
    if let Some(why) = &b.not_comparable {
        notes.push(format!("not comparable: {why}"));
    }
    notes
}

/// Every platform's bills against its measurements.
#[tauri::command]
pub async fn bill_disputes(state: State<'_, AppState>) -> AppResult<Vec<DisputeSheetView>> {
    let zh = state.lang().is_zh();
    let sheets = off_thread(&state, move |store| Ok(disputes::sheet(store, None)?)).await?;
    let time = |t: Option<jiff::Timestamp>| t.map(|t| t.to_string());
    Ok(sheets
        .into_iter()
        .map(|s| {
            let r = s.reconciliation;
            DisputeSheetView {
                platform: s.platform,
                lines: r.lines as u32,
                billed_seconds: r.billed_seconds,
                seconds_in_question: r.seconds_in_question,
                amounts: r
                    .amounts
                    .iter()
                    .map(|(c, (billed, question))| format!("{question} of {billed} {c}"))
                    .collect(),
                unlisted: u32::try_from(r.unlisted).unwrap_or(u32::MAX),
                unmeasured: disputes::unmeasured_words(&r, zh),
                rows: r
                    .disputes
                    .into_iter()
                    .map(|d| DisputeRow {
                        finding: d.finding.key().to_string(),
                        finding_words: d.finding.label_in(zh).to_string(),
                        billed_words: disputes::billed_words(&d),
                        in_question_words: disputes::in_question_words(&d, zh),
                        line_id: d.line_id,
                        instance: d.instance,
                        billed_from: time(d.billed_from),
                        billed_to: time(d.billed_to),
                        billed_seconds: d.billed_seconds,
                        amount: d.amount.map(|a| a.to_string()),
                        currency: d.currency,
                        seconds_in_question: d.seconds_in_question,
                        amount_in_question: d.amount_in_question.to_string(),
                        evidence: d.evidence,
                    })
                    .collect(),
            }
        })
        .collect())
}
