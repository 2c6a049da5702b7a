use breakpoint_core::domain::{Breakpoint, BreakpointWeights};
use breakpoint_core::metrics;
use breakpoint_core::scoring::{self, RobustnessOptions, presets};
use breakpoint_core::store::StoredProfile;
use tauri::State;

use crate::dto::{CellView, MetricRow, ProfileRow, RankRequest, RankRow, RankView};
use crate::error::{AppError, AppResult};
use crate::state::AppState;

fn profile(
    state: &AppState,
    name: Option<&str>,
    weights: Option<&[f64]>,
) -> AppResult<StoredProfile> {
    let mut p = state
        .store()?
        .weight_profile(name.unwrap_or(presets::DEFAULT_PROFILE))?;
    if let Some(w) = weights {
        if w.len() != 4 {
            return Err(AppError::new(
                "invalid",
                "weights: give four (startup, sustain, switch, billing)",
            ));
        }
        p.profile.breakpoints = BreakpointWeights {
            startup: w[0],
            sustain: w[1],
            switch: w[2],
            billing: w[3],
        }
        .validate()?;
    }
    Ok(p)
}

/// The side-by-side ranking under a profile (and slider weights), with
/// its robustness. Metrics are cached per run, so a weight change only
/// re-scores.
#[tauri::command]
pub fn rank(state: State<'_, AppState>, request: RankRequest) -> AppResult<RankView> {
    let p = profile(
        &state,
        request.profile.as_deref(),
        request.weights.as_deref(),
    )?;
    let evidence = metrics::platform_evidence(&*state.store()?)?;
    let ranking = scoring::rank(&evidence, &p);
    let samples = request.samples.unwrap_or(2000);
    let robust = scoring::robustness(
        &ranking,
        &RobustnessOptions {
            samples: samples as usize,
            seed: u64::from(request.seed.unwrap_or(1)),
            ..RobustnessOptions::default()
        },
    );
    let p_first = |name: &str| {
        robust
            .acceptability
            .iter()
            .find(|a| a.platform == name)
            .and_then(|a| a.ranks.first().copied())
            .unwrap_or(0.0)
    };
    Ok(RankView {
        profile: p.profile.name.clone(),
        weights: ranking.weights.to_vec(),
        platforms: ranking
            .platforms
            .iter()
            .map(|s| RankRow {
                id: s.platform.id,
                name: s.platform.name.clone(),
                rank: s.rank,
                overall: s.overall,
                coverage: s.coverage,
                insufficient: s.insufficient_evidence,
                scores: s.breakpoints.iter().map(|b| b.score).collect(),
                coverages: s.breakpoints.iter().map(|b| b.coverage).collect(),
                evidence: s.evidence as u32,
                p_first: p_first(&s.platform.name),
            })
            .collect(),
        flips: robust
            .flips
            .iter()
            .flatten()
            .map(|f| f.sentence())
            .collect(),
        fragile: robust.fragile_winner,
        samples,
    })
}

/// The metrics behind one cell of the matrix.
#[tauri::command]
pub fn explain(
    state: State<'_, AppState>,
    platform_id: i64,
    breakpoint: String,
    request: RankRequest,
) -> AppResult<CellView> {
    let b: Breakpoint = breakpoint.parse()?;
    let p = profile(
        &state,
        request.profile.as_deref(),
        request.weights.as_deref(),
    )?;
    let evidence = metrics::platform_evidence(&*state.store()?)?;
    let ranking = scoring::rank(&evidence, &p);
    let score = ranking
        .platforms
        .into_iter()
        .find(|s| s.platform.id == platform_id)
        .ok_or_else(|| breakpoint_core::Error::NotFound {
            what: "platform",
            name: platform_id.to_string(),
        })?;
    let bs = score.breakpoint(b).clone();
    Ok(CellView {
        platform: score.platform.name,
        breakpoint: b.to_string(),
        score: bs.score,
        coverage: bs.coverage,
        metrics: bs
            .metrics
            .into_iter()
            .map(|m| MetricRow {
                key: m.key.into(),
                name: m.name.into(),
                unit: m.unit.into(),
                value: m.value,
                min: m.min,
                max: m.max,
                score: m.score,
                weight: m.weight,
                runs: m
                    .runs
                    .iter()
                    .map(|r| {
                        format!(
                            "#{} {} {}",
                            r.run_id,
                            r.file.as_deref().unwrap_or(""),
                            r.sha256_prefix.as_deref().unwrap_or("")
                        )
                    })
                    .collect(),
                details: m.details,
            })
            .collect(),
    })
}

#[tauri::command]
pub fn weight_profiles(state: State<'_, AppState>) -> AppResult<Vec<ProfileRow>> {
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
pub fn save_weight_profile(
    state: State<'_, AppState>,
    name: String,
    weights: Vec<f64>,
) -> AppResult<ProfileRow> {
    let base = profile(&state, None, Some(&weights))?;
    let p = breakpoint_core::domain::WeightProfile::new(
        &name,
        base.profile.breakpoints,
        base.profile.metrics,
    )?;
    let saved = state
        .store()?
        .save_weight_profile(&StoredProfile { profile: p, ..base })?;
    Ok(ProfileRow {
        name: saved.profile.name.clone(),
        builtin: false,
        weights: presets::breakpoint_shares(&saved).to_vec(),
    })
}
