//! What the report shows, gathered from the store in one place: the ranking
//! and its robustness, the runs behind them, and the series the charts draw.

use breakpoint_api::acceptance::checklists_in;
use breakpoint_api::disputes::{self, PlatformDisputes};
use breakpoint_api::hardware::{self, HardwareEvidence};
use breakpoint_api::performance::{self, ModelPeers};
use breakpoint_api::pricing;
use breakpoint_api::ranking::{self, DegradationWarning, RankOutcome, RankRequest};
use breakpoint_api::timeline::{self, TimelineRequest};
use breakpoint_core::billing_sim::Workload;
use breakpoint_core::domain::money;
use breakpoint_core::domain::{Platform, Run};
use breakpoint_core::import::bundle::ChecklistItem;
use breakpoint_core::metrics::energy::WorkloadEnergy;
use breakpoint_core::scoring::{Ranking, Robustness};
use breakpoint_core::store::{Store, StoredProfile};

use crate::charts::{BillBar, StartupRow, TIMELINE_COLUMNS, TimelineInput, timeline_chart};
use crate::error::ReportError;
use crate::text::{Lang, t};

/// One acceptance bundle's checklist, as the instance printed it.
pub struct AcceptanceSheet {
    pub platform: String,
    pub title: String,
    pub checklist: Vec<ChecklistItem>,
}

/// A platform's sustain timeline: its longest sampled run, drawn when it
/// is read, so that the report holds one run's samples at a time however
/// many platforms and samples the workspace has.
pub struct Timeline {
    pub platform: String,
    pub run: Run,
    pub svg: String,
}

/// How many platforms get a timeline page: the best-ranked ones. A report
/// of hundreds of platforms is read for its matrix and tables; a page per
/// platform's run would make it a book (the app shows every run's).
pub const TIMELINES_SHOWN: usize = 20;

pub struct ReportData {
    pub ranking: Ranking,
    pub robustness: Robustness,
    /// Platforms whose latest runs are worse than their baseline.
    pub degradations: Vec<DegradationWarning>,
    /// Where each platform's price comes from and how old it is.
    pub prices: Vec<breakpoint_api::ranking::PlatformPrice>,
    pub profile: StoredProfile,
    pub runs: Vec<(String, Run)>,
    pub startup: Vec<StartupRow>,
    pub bills: Vec<BillBar>,
    /// Bills in another currency that no rate brings into the report's:
    /// "Platform A (USD)", left out of the chart and named under it.
    pub bills_not_comparable: Vec<String>,
    /// The currency money is shown in, and the rates that brought other
    /// currencies into it.
    pub money: ranking::Money,
    /// The reference job's energy per platform, where power was sampled.
    pub energy: Vec<(String, WorkloadEnergy)>,
    pub timelines: Vec<Timeline>,
    /// Platforms with samples whose timeline is left out (past
    /// `TIMELINES_SHOWN`).
    pub timelines_left_out: usize,
    /// What each platform's logs say about its hardware (only platforms
    /// with something to say).
    pub hardware: Vec<(String, HardwareEvidence)>,
    /// Acceptance runs imported from bundles: (platform, the bundle's name
    /// and host and when it was made, its checklist).
    pub acceptance: Vec<AcceptanceSheet>,
    /// Each startup campaign's attempts, stage by stage: (its run's label,
    /// the attempts).
    pub campaign_stages: Vec<(String, Vec<crate::charts::AttemptStages>)>,
    /// Delivered performance per accelerator model: the report's
    /// platforms side by side.
    pub performance: Vec<ModelPeers>,
    /// Each platform's bills against its measurements (the dispute sheet).
    pub disputes: Vec<PlatformDisputes>,
    /// Any platform in the report is demo data.
    pub demo: bool,
    /// "Pick X because …", "Leaning X (62 %)" or "no decision yet", and
    /// the plan of what to measure next.
    pub decision: breakpoint_api::decision::Decision,
    /// The last few moves of the answer, newest first.
    pub history: Vec<breakpoint_api::decision_log::LogEntry>,
    /// The job asked for, costed on every platform.
    pub job_costs: Option<breakpoint_api::job_cost::JobCost>,
    /// The same evidence in ClusterMAX's categories, in the report's
    /// language.
    pub clustermax: breakpoint_api::clustermax::ClusterMaxView,
}

/// How many of the decision's last moves the first page shows.
const HISTORY_SHOWN: usize = 3;

/// Gather everything the report shows, ranked as the request asks; the
/// timelines are drawn here, in `lang`.
pub fn gather(
    store: &Store,
    request: &RankRequest,
    lang: Lang,
    job: Option<&breakpoint_api::job_cost::JobSpec>,
) -> Result<ReportData, ReportError> {
    let RankOutcome {
        ranking,
        robustness: robust,
        decision,
        degradations,
        prices,
        money: ranked_money,
        profile,
        ..
    } = ranking::rank(store, request)?;
    let book = breakpoint_core::rates::RateBook::of(store)?;
    let today = breakpoint_core::rates::today();
    let mut money_used = ranked_money;
    let mut bills_not_comparable = Vec::new();
    let platforms: Vec<Platform> = ranking
        .platforms
        .iter()
        .map(|p| p.platform.clone())
        .collect();
    let mut runs = Vec::new();
    let mut startup = Vec::new();
    let mut bills = Vec::new();
    let mut timelines = Vec::new();
    let mut timelines_left_out = 0;
    let mut hardware_evidence = Vec::new();
    let mut campaign_stages = Vec::new();
    let mut acceptance: Vec<AcceptanceSheet> = Vec::new();
    let mut energy = Vec::new();
    let reference = Workload::reference();
    for platform in &platforms {
        let platform_runs = store.runs(Some(platform.id))?;
        if let Some(row) = startup_of(store, platform, &platform_runs, &mut campaign_stages)? {
            startup.push(row);
        }
        let priced = pricing::price_on(
            store,
            &reference,
            platform.clone(),
            &platform_runs,
            request.window.class.as_ref(),
        )?;
        if let (Some(b), Some(currency)) = (priced.bill, priced.currency) {
            // One axis, one currency: each bar in the report's, at its rate.
            let to = money_used
                .currency
                .as_ref()
                .map_or(currency.clone(), |r| r.currency.clone());
            match book.rate(&currency, &to, today) {
                Some(rate) => {
                    if rate.from != rate.to && !money_used.rates.contains(&rate) {
                        money_used.rates.push(rate.clone());
                    }
                    bills.push(BillBar {
                        platform: platform.name.clone(),
                        billed: rate.convert(money::to_f64(b.amount)),
                        fair: rate.convert(money::to_f64(b.fair_amount)),
                        currency: to,
                    });
                }
                None => bills_not_comparable.push(format!("{} ({currency})", platform.name)),
            }
        }
        if let Some(e) = priced.energy {
            energy.push((platform.id, (platform.name.clone(), e)));
        }
        if let Some(run) = platform_runs
            .iter()
            .filter(|r| r.sample_count > 0)
            .max_by_key(|r| r.sample_count)
        {
            if timelines.len() < TIMELINES_SHOWN {
                timelines.push(timeline(store, platform, run, lang)?);
            } else {
                timelines_left_out += 1;
            }
        }
        for sheet in checklists_in(&platform_runs) {
            acceptance.push(AcceptanceSheet {
                platform: platform.name.clone(),
                title: sheet.title(),
                checklist: sheet.checklist,
            });
        }
        let evidence = hardware::of_runs(store, &platform_runs)?;
        if !evidence.is_empty() {
            hardware_evidence.push((platform.name.clone(), evidence));
        }
        runs.extend(
            platform_runs
                .into_iter()
                .map(|r| (platform.name.clone(), r)),
        );
    }
    // In the store's order of platforms, as `breakpoint bill` lists them.
    let order: Vec<i64> = store.platforms()?.iter().map(|p| p.id).collect();
    energy.sort_by_key(|(id, _)| order.iter().position(|o| o == id));
    let energy = energy.into_iter().map(|(_, e)| e).collect();
    let demo = platforms.iter().any(|p| {
        p.notes
            .as_deref()
            .is_some_and(|n| n.starts_with(breakpoint_api::demo::DEMO_LABEL))
    });
    Ok(ReportData {
        ranking,
        robustness: robust,
        degradations,
        prices,
        profile,
        runs,
        startup,
        bills,
        bills_not_comparable,
        money: money_used,
        energy,
        timelines,
        timelines_left_out,
        hardware: hardware_evidence,
        campaign_stages,
        acceptance,
        performance: performance_of(store, &platforms)?,
        disputes: disputes::sheet(store, None)?
            .into_iter()
            .filter(|d| platforms.iter().any(|p| p.id == d.platform_id))
            .collect(),
        demo,
        decision,
        history: breakpoint_api::decision_log::entries(store, HISTORY_SHOWN)?,
        clustermax: breakpoint_api::clustermax::view(store, request, lang.is_zh())?,
        job_costs: match job {
            Some(job) => {
                // The same draws and seed as `cost` and the app.
                let request = breakpoint_api::job_cost::CostRequest {
                    currency: request.currency.clone(),
                    accelerator: request.window.class.as_ref().map(|c| c.raw.clone()),
                    ..Default::default()
                };
                Some(breakpoint_api::job_cost::cost(store, job, &request)?)
            }
            None => None,
        },
    })
}

/// The perf comparison, kept to the report's platforms (a model none of
/// them was measured on is left out; percentiles stay among all measured).
fn performance_of(store: &Store, platforms: &[Platform]) -> Result<Vec<ModelPeers>, ReportError> {
    let mut models = performance::compare(store)?;
    for m in &mut models {
        m.platforms
            .retain(|p| platforms.iter().any(|q| q.id == p.platform_id));
    }
    models.retain(|m| !m.platforms.is_empty());
    Ok(models)
}

/// A platform's startup attempts for the latency chart, with the median
/// stages of its successful starts; each campaign's attempts go to
/// `campaign_stages` for a chart of their own.
fn startup_of(
    store: &Store,
    platform: &Platform,
    platform_runs: &[Run],
    campaign_stages: &mut Vec<(String, Vec<crate::charts::AttemptStages>)>,
) -> Result<Option<StartupRow>, ReportError> {
    let mut attempts = Vec::new();
    for run in platform_runs {
        let run_attempts = store.startup_attempts(run.id)?;
        if run.source == breakpoint_core::domain::SourceKind::Campaign && !run_attempts.is_empty() {
            campaign_stages.push((
                format!("#{} {}", run.id, platform.name),
                crate::charts::AttemptStages::of(&run_attempts),
            ));
        }
        attempts.extend(run_attempts);
    }
    if attempts.is_empty() {
        return Ok(None);
    }
    Ok(Some(StartupRow::of(&platform.name, &attempts, true)))
}

/// One run's timeline, reduced to the drawing's columns as the app's run
/// detail reduces it, drawn and let go.
fn timeline(
    store: &Store,
    platform: &Platform,
    run: &Run,
    lang: Lang,
) -> Result<Timeline, ReportError> {
    let reduced = timeline::timeline(
        store,
        &TimelineRequest {
            run_id: run.id,
            range: None,
            columns: TIMELINE_COLUMNS,
        },
    )?;
    let title = crate::text::fill(
        t(lang, "chart_timeline_run"),
        &[
            &run.id,
            &run.provenance.file_name.as_deref().unwrap_or(""),
            &reduced.gpus.len(),
            &run.sample_count,
        ],
    );
    let svg = timeline_chart(&TimelineInput {
        title,
        timeline: &reduced,
        lang,
    })?;
    Ok(Timeline {
        platform: platform.name.clone(),
        run: run.clone(),
        svg,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use breakpoint_core::domain::{Platform, PlatformKind};
    use breakpoint_core::import::{Format, ImportOptions, import_reader};

    use super::*;

    #[test]
    fn timelines_stop_at_the_best_ranked_few_and_say_how_many_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let shown = TIMELINES_SHOWN + 2;
        for p in 0..shown {
            let platform = store
                .create_platform(
                    &Platform::new(&format!("P{p:02}"), PlatformKind::Other, None).unwrap(),
                )
                .unwrap();
            let mut csv = String::from("timestamp, index, power.draw [W]\n");
            for s in 0..30 {
                csv.push_str(&format!(
                    "2024/06/01 00:00:{s:02}.000, 0, {}.00 W\n",
                    200 + p
                ));
            }
            let options = ImportOptions {
                tz: jiff::tz::TimeZone::UTC,
                ..ImportOptions::new(platform.id)
            };
            import_reader(
                &store,
                csv.as_bytes(),
                "gpu.csv",
                Format::SmiCsv,
                &options,
                None,
            )
            .unwrap();
        }
        let data = gather(&store, &RankRequest::default(), Lang::En, None).unwrap();
        assert_eq!(data.timelines.len(), TIMELINES_SHOWN);
        assert_eq!(data.timelines_left_out, 2);
        // In ranking order: the platforms first in the matrix get theirs.
        let first: Vec<&str> = data
            .ranking
            .platforms
            .iter()
            .take(TIMELINES_SHOWN)
            .map(|p| p.platform.name.as_str())
            .collect();
        let drawn: Vec<&str> = data.timelines.iter().map(|t| t.platform.as_str()).collect();
        assert_eq!(drawn, first);
        assert!(data.timelines.iter().all(|t| t.svg.starts_with("<svg")));
    }
}
