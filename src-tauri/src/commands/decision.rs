//! The Decision screen: the user's job costed on every platform from what
//! was measured there, with its bands and the answer in words.

use breakpoint_api::domain::BillingMode;
use breakpoint_api::job_cost::{self, CostRequest, JobSpec, PlatformCost};
use breakpoint_report::Lang;
use tauri::State;

use super::off_thread;
use crate::dto::{JobCostRow, JobCostView, JobTermRow};
use crate::error::AppResult;
use crate::state::AppState;

/// A job ("gpus=8,work=2000h,deadline=14d", or with horizon=3y,
/// utilisation=60%) costed on every platform, in `mode` where one is asked
/// for and in `currency` where one is given.
#[tauri::command]
pub async fn job_cost(
    state: State<'_, AppState>,
    job: String,
    mode: Option<String>,
    currency: Option<String>,
) -> AppResult<JobCostView> {
    let job = JobSpec::parse(&job)?;
    let mode = match mode.as_deref().map(str::trim) {
        None | Some("") | Some("cheapest") => None,
        Some(m) => Some(m.parse::<BillingMode>()?),
    };
    let currency = currency.filter(|c| !c.trim().is_empty());
    let lang = state.lang();
    let costs = off_thread(&state, move |store| {
        // The same draws and seed as `cost` and the PDF: the same figures.
        let request = CostRequest {
            mode,
            currency,
            ..CostRequest::default()
        };
        Ok(job_cost::cost(store, &job, &request)?)
    })
    .await?;
    let chart_svg = breakpoint_report::charts::job_cost_chart(&costs.platforms, lang)?;
    Ok(JobCostView {
        answer: if lang == Lang::Zh {
            costs.answer_zh.clone()
        } else {
            costs.answer.clone()
        },
        reading: if lang == Lang::Zh {
            costs.reading_zh.clone()
        } else {
            costs.reading.clone()
        },
        rows: costs.platforms.into_iter().map(|c| row(c, lang)).collect(),
        chart_svg,
    })
}

fn row(c: PlatformCost, lang: Lang) -> JobCostRow {
    let zh = lang == Lang::Zh;
    let mut notes: Vec<String> = c
        .unpriced
        .iter()
        .map(|p| format!("left out of the cost: {p}"))
        .collect();
    notes.extend(
        c.not_comparable
            .iter()
            .map(|w| format!("not comparable: {w}")),
    );
    notes.extend(c.rate.iter().map(|r| format!("converted at {r}")));
    if c.unfinished > 0.0 {
        notes.push(format!(
            "does not finish in {:.0} % of draws (held at {}× its compute time)",
            100.0 * c.unfinished,
            job_cost::NEVER_FINISHES
        ));
    }
    JobCostRow {
        cost: match &c.cost {
            Some(m) => format!("{} / {} / {} {}", m.p10, m.p50, m.p90, m.currency),
            None => c.missing.clone().unwrap_or_default(),
        },
        mode: c.mode.map(|m| m.to_string()),
        hours: c.hours.words(),
        days: c.days.p50.is_finite().then_some(c.days.p50),
        deadline: c.deadline_probability,
        terms: c
            .terms
            .iter()
            .map(|t| JobTermRow {
                key: serde_json::to_value(t.key)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                name: t.key.name_in(zh).to_string(),
                value: t.value,
                unit: breakpoint_api::text::unit_in(t.unit, zh).to_string(),
                figure: t.figure(zh),
                measured: !t.source.starts_with("not measured"),
                source: t.source.clone(),
                share: t.share,
            })
            .collect(),
        notes,
        platform: c.platform,
    }
}
