use breakpoint_core::billing_sim::{self, Workload};
use breakpoint_core::metrics::billing;
use tauri::State;

use crate::dto::BillRow;
use crate::error::AppResult;
use crate::state::AppState;

/// A workload ("compute=1h42m18s,io-wait=35m" or "reference") priced on
/// every platform's rule.
#[tauri::command]
pub fn bill(state: State<'_, AppState>, workload: String) -> AppResult<Vec<BillRow>> {
    let w = match workload.trim() {
        "" | "reference" => Workload::reference(),
        spec => Workload::parse_spec(spec)?,
    };
    let store = state.store()?;
    let mut rows = Vec::new();
    for p in store.platforms()? {
        let rule = billing::rule(&store, &p)?;
        let price = billing::price(&store, &p)?;
        let b = match (&rule, &price) {
            (Some(r), Some((price, _))) => Some(billing_sim::bill(&w, r, *price)),
            _ => None,
        };
        rows.push(BillRow {
            platform: p.name,
            rule: rule.as_ref().map(|r| {
                format!(
                    "{} s units, {}{}",
                    r.granularity_s,
                    r.rounding,
                    if r.bills_io_wait {
                        ", io-wait billed"
                    } else {
                        ", io-wait free"
                    }
                )
            }),
            price: price.as_ref().map(|p| p.0),
            currency: price.map(|p| p.1),
            billed_seconds: b.as_ref().map(|b| b.billed_seconds),
            amount: b.as_ref().map(|b| b.amount),
            fair_amount: b.as_ref().map(|b| b.fair_amount),
            overcharge_pct: b.as_ref().and_then(|b| b.overcharge_pct()),
            missing: match (&rule, b.is_some()) {
                (None, _) => Some("no billing rule".into()),
                (_, false) => Some("no on-demand price".into()),
                _ => None,
            },
        });
    }
    Ok(rows)
}
