//! The Campaigns screen: plan a campaign from a recipe, run it after a
//! native confirmation that shows the commands and the worst-case cost,
//! follow it live, stop it (everything launched is torn down), list past
//! campaigns and what the ledger still holds.

use std::path::PathBuf;
use std::time::Duration;

use breakpoint_api::domain::LoadScenario;
use breakpoint_campaign::engine::{AttemptRecord, Ending, Observer, Stage};
use breakpoint_campaign::history::history;
use breakpoint_campaign::ledger::Ledger;
use breakpoint_campaign::plan::Images;
use breakpoint_campaign::shell::SystemShell;
use breakpoint_campaign::{Options, Prepared, cleanup, new_name, prepare};
use breakpoint_report::charts::{AttemptStages, stages_chart};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::consent::{CampaignConsent, CampaignRequest};
use crate::dto::{
    CampaignForm, CampaignPlanView, CampaignProgress, CampaignRow, CampaignStarted, OutstandingRow,
    PlannedAttemptRow,
};
use crate::error::{AppError, AppResult, ErrorKind};
use crate::state::AppState;

/// The screen never launches more than this at once; bigger campaigns are
/// for the command line, where `--max-instances` says so explicitly.
const APP_MAX_INSTANCES: u32 = 20;

fn invalid(field: &str, message: String) -> AppError {
    AppError {
        field: Some(field.into()),
        ..AppError::new(ErrorKind::Invalid, message)
    }
}

fn options(form: &CampaignForm) -> AppResult<Options> {
    let scenario: LoadScenario = form
        .scenario
        .parse()
        .map_err(|e: breakpoint_api::ValidationError| invalid("scenario", e.to_string()))?;
    let images: Images = form
        .image
        .parse()
        .map_err(|e: breakpoint_api::ValidationError| invalid("image", e.to_string()))?;
    Ok(Options {
        scenario,
        platform: form.platform.clone().filter(|p| !p.trim().is_empty()),
        offerings: Vec::new(),
        count: form.count,
        spacing: Duration::from_millis(u64::from(form.spacing_ms.max(1))),
        images,
        max_instances: APP_MAX_INSTANCES,
    })
}

fn prepared(state: &AppState, form: &CampaignForm, name: &str) -> AppResult<Prepared> {
    let options = options(form)?;
    let store = state.store()?;
    prepare(
        &store,
        &PathBuf::from(form.recipe_path.trim()),
        &options,
        name,
    )
    .map_err(|m| invalid("recipe_path", m))
}

fn plan_view(p: &Prepared) -> CampaignPlanView {
    CampaignPlanView {
        platform: p.platform.clone(),
        scenario: p.request.scenario.to_string(),
        instances: p.plan.attempts.len() as u32,
        worst_case_minutes_each: p.plan.estimate.worst_case_minutes_each,
        cost: p
            .plan
            .estimate
            .cost
            .iter()
            .map(|(c, a)| format!("{a:.2} {c}"))
            .collect(),
        unpriced: p.plan.estimate.unpriced.clone(),
        attempts: p
            .plan
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| PlannedAttemptRow {
                name: a.name.clone(),
                offering: a.offering.clone(),
                image: a.image.to_string(),
                start_after_s: a.start_after_ms as f64 / 1000.0,
                commands: p
                    .commands(i)
                    .into_iter()
                    .map(|(stage, c)| format!("{stage}: {c}"))
                    .collect(),
            })
            .collect(),
    }
}

#[tauri::command]
pub async fn campaign_plan(
    state: State<'_, AppState>,
    form: CampaignForm,
) -> AppResult<CampaignPlanView> {
    let p = prepared(&state, &form, "plan")?;
    Ok(plan_view(&p))
}

/// Tells the window how a campaign goes, as `campaign-progress` events.
struct Live<R: Runtime> {
    app: AppHandle<R>,
    job: u64,
}

impl<R: Runtime> Live<R> {
    fn emit(&self, attempt: usize, what: &str, detail: Option<String>) {
        let _ = self.app.emit(
            "campaign-progress",
            CampaignProgress {
                job: self.job,
                attempt: attempt as u32,
                what: what.into(),
                detail,
                done: false,
                run_id: None,
            },
        );
    }
}

impl<R: Runtime> Observer for Live<R> {
    fn stage(&self, attempt: usize, stage: Stage) {
        self.emit(attempt, stage.as_str(), None);
    }

    fn finished(&self, r: &AttemptRecord) {
        let what = match r.ending {
            Ending::Ok => "ok",
            Ending::Failed => "failed",
            Ending::Timeout => "timeout",
            Ending::Cancelled => "cancelled",
            Ending::NotStarted => "not_started",
        };
        self.emit(
            r.plan.index,
            what,
            r.failure.as_ref().map(|(_, why)| why.clone()),
        );
    }

    fn teardown_failed(&self, name: &str, id: &str, why: &str) {
        self.emit(
            0,
            "teardown_failed",
            Some(format!("{name} ({id}) may still be running: {why}")),
        );
    }
}

/// Ask, then run the campaign in the background; its progress comes as
/// events, and `cancel_job` stops it (everything launched is torn down).
#[tauri::command]
pub async fn campaign_run<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    consent: State<'_, CampaignConsent>,
    form: CampaignForm,
) -> AppResult<CampaignStarted> {
    let name = new_name();
    let p = prepared(&state, &form, &name)?;
    let request = CampaignRequest {
        platform: p.platform.clone(),
        scenario: p.request.scenario.to_string(),
        instances: p.plan.attempts.len(),
        worst_case_minutes_each: p.plan.estimate.worst_case_minutes_each,
        cost: plan_view(&p).cost,
        unpriced: p.plan.estimate.unpriced.clone(),
        commands: p
            .commands(0)
            .into_iter()
            .map(|(stage, c)| format!("{stage}: {c}"))
            .collect(),
        language: state.language(),
    };
    let asker = consent.inner().clone();
    let allowed = tauri::async_runtime::spawn_blocking(move || asker.ask(&request))
        .await
        .unwrap_or(false);
    if !allowed {
        return Err(AppError::new(
            ErrorKind::Cancelled,
            "not confirmed: nothing was launched",
        ));
    }
    let (job, cancel) = state.start_job();
    let db_path = state.db_path.clone();
    let instances = p.plan.attempts.len() as u32;
    let started = CampaignStarted {
        job,
        name: name.clone(),
        instances,
    };
    std::thread::spawn(move || {
        use tauri::Manager;
        let ledger = Ledger::beside(&db_path);
        let live = Live {
            app: app.clone(),
            job,
        };
        // A connection of its own: the campaign may take hours.
        let result = breakpoint_api::Store::open(&db_path)
            .map_err(|e| e.to_string())
            .and_then(|store| {
                breakpoint_campaign::run(
                    &store,
                    &p.target,
                    &p.recipe,
                    &p.request,
                    &p.plan,
                    &SystemShell,
                    &ledger,
                    &cancel,
                    &live,
                )
                .map_err(|e| e.to_string())
            });
        let (run_id, detail) = match result {
            Ok(outcome) => (outcome.run_id, None),
            Err(e) => (None, Some(e)),
        };
        let _ = app.emit(
            "campaign-progress",
            CampaignProgress {
                job,
                attempt: 0,
                what: "done".into(),
                detail,
                done: true,
                run_id,
            },
        );
        app.state::<AppState>().end_job(job);
    });
    Ok(started)
}

#[tauri::command]
pub async fn list_campaigns(state: State<'_, AppState>) -> AppResult<Vec<CampaignRow>> {
    let lang = state.lang();
    super::off_thread(&state, move |store| {
        Ok(history(store)?
            .into_iter()
            .map(|c| CampaignRow {
                stages_svg: (!c.attempts.is_empty())
                    .then(|| {
                        stages_chart(
                            &AttemptStages::of(&c.attempts),
                            &format!("#{}", c.run_id),
                            lang,
                        )
                        .ok()
                    })
                    .flatten(),
                run_id: c.run_id,
                platform: c.platform,
                name: c.name,
                scenario: c.scenario,
                recipe: c.recipe,
                started_at: c.started_at.map(breakpoint_api::text::minute_words),
                attempts: c.attempts.len() as u32,
                ok: c.ok as u32,
                p50_s: c.p50_s,
                p95_s: c.p95_s,
                failure_rate_pct: c.failure_rate_pct,
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub fn campaign_outstanding(state: State<'_, AppState>) -> AppResult<Vec<OutstandingRow>> {
    let ledger = Ledger::beside(&state.db_path);
    let open = ledger.outstanding().map_err(|e| {
        AppError::new(
            ErrorKind::Ledger,
            format!("{}: {e}", ledger.path().display()),
        )
    })?;
    Ok(open
        .into_iter()
        .map(|o| OutstandingRow {
            name: o.name,
            id: o.id,
            since: breakpoint_api::text::time_words(o.since),
            teardown: o.teardown,
        })
        .collect())
}

/// Retry teardown for what the ledger holds; what is still outstanding.
#[tauri::command]
pub async fn campaign_cleanup(state: State<'_, AppState>) -> AppResult<Vec<OutstandingRow>> {
    let ledger = Ledger::beside(&state.db_path);
    let _ = tauri::async_runtime::spawn_blocking(move || {
        cleanup(&ledger, &SystemShell, Duration::from_secs(300))
    })
    .await
    .map_err(|e| AppError::new(ErrorKind::Internal, e.to_string()))?
    .map_err(|e| AppError::new(ErrorKind::Ledger, e.to_string()))?;
    campaign_outstanding(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_becomes_options_or_names_its_field() {
        let form = CampaignForm {
            recipe_path: "r.toml".into(),
            scenario: "peak".into(),
            platform: Some(" ".into()),
            count: Some(3),
            spacing_ms: 500,
            image: "both".into(),
        };
        let o = options(&form).unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!(
            (o.scenario, o.platform, o.images),
            (LoadScenario::Peak, None, Images::Both)
        );
        let bad = CampaignForm {
            image: "lukewarm".into(),
            ..form
        };
        assert_eq!(
            options(&bad).err().and_then(|e| e.field).as_deref(),
            Some("image")
        );
    }
}
