//! The ranking screen: the side-by-side ranking under a profile and the
//! sliders' weights, one cell explained, weight profiles listed and saved;
//! and the history screen: a platform's metrics run by run.

use breakpoint_api::catalogue;
use breakpoint_api::domain::Breakpoint;
use breakpoint_api::presentation;
use breakpoint_api::ranking::{
    self, Explanation, PlatformRef, RobustnessOptions, Sources, TimeWindow,
};
use breakpoint_api::weights::presets;
use breakpoint_api::weights::{self, EditMode, ProfileEdit};
use tauri::State;

use super::off_thread;
use crate::dto::{
    AuditRow, CategoriesView, CategoryCheckRow, CategoryMetricRow, CategoryRow, CellView,
    ChanceView, HistoryPointView, HistoryView, MetricHistoryView, MetricRow, PlanStepView,
    ProfileRow, RankRequest, RankRow, RankView,
};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

/// The core's request for what the screen sends: the four slider weights
/// (any scale) and the robustness draws.
fn request(r: &RankRequest) -> AppResult<ranking::RankRequest> {
    let weights = match r.weights.as_deref() {
        None => Vec::new(),
        Some(w) if w.len() == 4 => Breakpoint::ALL
            .iter()
            .copied()
            .zip(w.iter().copied())
            .collect(),
        Some(_) => {
            return Err(AppError::new(
                ErrorKind::Invalid,
                "weights: give four (startup, sustain, switch, billing)",
            ));
        }
    };
    Ok(ranking::RankRequest {
        profile: r.profile.clone(),
        weights,
        coverage_threshold: None,
        robustness: RobustnessOptions {
            // The same draws as `rank` and the PDF unless the screen asks.
            samples: r.samples.map_or(ranking::SAMPLES, |s| s as usize),
            seed: r.seed.map_or(ranking::SEED, u64::from),
            ..RobustnessOptions::default()
        },
        window: window(r.since.as_deref(), r.until.as_deref())?,
        // The matrix shows scores; a cell's sources come from `explain`.
        sources: Sources::None,
        // The workspace's currency, else the one most prices are in.
        currency: None,
    })
}

/// The window the since/until fields name; empty fields are open ends.
fn window(since: Option<&str>, until: Option<&str>) -> AppResult<TimeWindow> {
    fn given(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|v| !v.is_empty())
    }
    Ok(TimeWindow::parse(given(since), given(until)).map_err(breakpoint_api::Error::from)?)
}

/// The matrix in ClusterMAX's categories under the screen's window (the
/// same view `report --categories clustermax` prints).
#[tauri::command]
pub async fn clustermax_view(
    state: State<'_, AppState>,
    request: RankRequest,
) -> AppResult<CategoriesView> {
    let request = self::request(&request)?;
    let zh = state.lang().is_zh();
    let view = off_thread(&state, move |store| {
        Ok(breakpoint_api::clustermax::view(store, &request, zh)?)
    })
    .await?;
    Ok(CategoriesView {
        platforms: view.platforms,
        categories: view
            .categories
            .into_iter()
            .map(|c| CategoryRow {
                key: c.category.to_string(),
                name: c.name,
                evidenced_by: c.evidenced_by,
                metrics: c
                    .metrics
                    .into_iter()
                    .map(|m| CategoryMetricRow {
                        key: m.key.to_string(),
                        name: m.name,
                        figures: m.figures,
                    })
                    .collect(),
                checks: c
                    .checks
                    .into_iter()
                    .map(|k| CategoryCheckRow {
                        name: k.name,
                        command: k.command,
                        measured: k.measured,
                        not_read: k.not_read,
                    })
                    .collect(),
                audits: c
                    .audits
                    .into_iter()
                    .map(|a| AuditRow {
                        platform: a.platform,
                        said: a.said,
                        results: a.results,
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// One platform's metrics run by run, with the degradation test's verdict
/// (the same history `explain --history` prints).
#[tauri::command]
pub async fn platform_history(
    state: State<'_, AppState>,
    platform_id: i64,
    since: Option<String>,
    until: Option<String>,
) -> AppResult<HistoryView> {
    let window = window(since.as_deref(), until.as_deref())?;
    let zh = state.lang().is_zh();
    let (platform, history) = off_thread(&state, move |store| {
        Ok(ranking::history(
            store,
            &window,
            PlatformRef::Id(platform_id),
        )?)
    })
    .await?;
    let metrics = history
        .into_iter()
        .map(|h| {
            let def = catalogue::metric(&h.key);
            let unit = def.map_or(String::new(), |m| m.unit.to_string());
            MetricHistoryView {
                name: def.map_or(h.key.clone(), |m| m.name_in(zh).to_string()),
                breakpoint: def.map_or(String::new(), |m| m.breakpoint.to_string()),
                degradation: h.degradation.as_ref().map(|d| d.describe(&unit)),
                runs_needed: catalogue::RUNS_NEEDED as u32,
                points: h
                    .points
                    .into_iter()
                    .map(|p| HistoryPointView {
                        run_id: p.run_id,
                        at: p.at.to_string(),
                        at_ms: p.at.as_millisecond(),
                        value: p.value,
                        file: p.file,
                    })
                    .collect(),
                key: h.key,
                unit,
            }
        })
        .collect();
    Ok(HistoryView {
        platform: platform.name,
        metrics,
    })
}

/// The side-by-side ranking under a profile (and slider weights), with
/// its robustness. Metrics are cached per run, so a weight change only
/// re-scores.
#[tauri::command]
pub async fn rank(state: State<'_, AppState>, request: RankRequest) -> AppResult<RankView> {
    let core_request = self::request(&request)?;
    let samples = core_request.robustness.samples as u32;
    let zh = state.lang().is_zh();
    let out = off_thread(&state, move |store| {
        Ok(ranking::rank(store, &core_request)?)
    })
    .await?;
    let p_firsts = out.p_firsts();
    Ok(RankView {
        profile: out.profile.profile.name.clone(),
        weights: out.ranking.weights.to_vec(),
        platforms: out
            .ranking
            .platforms
            .iter()
            .zip(p_firsts)
            .map(|(s, p_first)| RankRow {
                id: s.platform.id,
                name: s.platform.name.clone(),
                rank: s.rank,
                overall: s.overall,
                coverage: s.coverage,
                insufficient: s.insufficient_evidence,
                scores: s.breakpoints.iter().map(|b| b.score).collect(),
                coverages: s.breakpoints.iter().map(|b| b.coverage).collect(),
                evidence: s.evidence as u32,
                p_first,
            })
            .collect(),
        flips: out
            .robustness
            .flips
            .iter()
            .flatten()
            .map(|f| f.sentence_in(zh))
            .collect(),
        fragile: out.robustness.fragile_winner.clone(),
        samples,
        degradations: out.degradations.iter().map(|d| d.sentence()).collect(),
        stale_prices: out
            .prices
            .iter()
            .filter(|p| p.stale)
            .map(|p| p.line(false))
            .collect(),
        decision: out.decision.sentence_in(zh),
        decided: out.decision.kind == breakpoint_api::decision::DecisionKind::Pick,
        chances: if out.decision.kind == breakpoint_api::decision::DecisionKind::Pick {
            String::new()
        } else {
            out.decision.chances_said()
        },
        p_best: if out.decision.kind == breakpoint_api::decision::DecisionKind::Pick {
            Vec::new()
        } else {
            out.decision
                .chances()
                .into_iter()
                .map(|(platform, p)| ChanceView {
                    platform: platform.to_string(),
                    p,
                })
                .collect()
        },
        plan: out
            .decision
            .plan
            .iter()
            .map(|step| PlanStepView {
                command: step.command.clone(),
                metrics: step.measures_in(zh),
                measures: step.measures_said(zh),
                platforms: step.platforms.clone(),
                cost: step.cost_in(zh),
                p_change: step.p_change,
                chance: step.chance_said(),
                configuration: step.kind == breakpoint_api::decision::StepKind::Configuration,
            })
            .collect(),
    })
}

/// The metrics behind one cell of the matrix.
#[tauri::command]
pub async fn explain(
    state: State<'_, AppState>,
    platform_id: i64,
    breakpoint: String,
    request: RankRequest,
) -> AppResult<CellView> {
    let b: Breakpoint = breakpoint.parse()?;
    let core_request = self::request(&request)?;
    let zh = state.lang().is_zh();
    let Explanation { score, money, .. } = off_thread(&state, move |store| {
        Ok(ranking::explain(
            store,
            &core_request,
            PlatformRef::Id(platform_id),
        )?)
    })
    .await?;
    let bs = score.breakpoint(b).clone();
    let currency = money.currency.as_ref().map(|c| c.currency.clone());
    let currency = currency.as_deref();
    Ok(CellView {
        platform: score.platform.name,
        breakpoint: b.to_string(),
        score: bs.score,
        coverage: bs.coverage,
        metrics: bs
            .metrics
            .into_iter()
            .map(|m| MetricRow {
                name: catalogue::metric(m.key)
                    .map_or(m.name, |d| d.name_in(zh))
                    .into(),
                unit: breakpoint_api::text::unit_in(m.unit, zh).into(),
                key: m.key.into(),
                value: m.value,
                figure: m
                    .value
                    .map(|v| presentation::metric_value(v, m.unit, currency, zh)),
                range: match (m.min, m.max) {
                    (Some(lo), Some(hi)) if hi > lo => {
                        presentation::metric_range(lo, hi, m.unit, currency, zh)
                    }
                    _ => String::new(),
                },
                min: m.min,
                max: m.max,
                score: m.score,
                weight: m.weight,
                runs: m.runs.iter().map(|r| r.label()).collect(),
                details: m.details,
            })
            .collect(),
    })
}

#[tauri::command]
pub async fn weight_profiles(state: State<'_, AppState>) -> AppResult<Vec<ProfileRow>> {
    Ok(state
        .store()?
        .weight_profiles()?
        .iter()
        .map(|p| ProfileRow {
            name: p.profile.name.clone(),
            builtin: p.profile.builtin,
            weights: presets::breakpoint_shares(p).to_vec(),
        })
        .collect())
}

/// Save slider weights as a profile of the user's own.
#[tauri::command]
pub async fn save_weight_profile(
    state: State<'_, AppState>,
    name: String,
    weights: Vec<f64>,
) -> AppResult<ProfileRow> {
    if weights.len() != 4 {
        return Err(AppError::new(
            ErrorKind::Invalid,
            "weights: give four (startup, sustain, switch, billing)",
        ));
    }
    let mut e = ProfileEdit::new(&name, EditMode::Save);
    e.breakpoints = Breakpoint::ALL.iter().copied().zip(weights).collect();
    let saved = weights::edit(&*state.store()?, &e)?;
    Ok(ProfileRow {
        name: saved.profile.name.clone(),
        builtin: false,
        weights: presets::breakpoint_shares(&saved).to_vec(),
    })
}
