//! Startup campaigns: measure submit → first compute on real platforms by
//! driving their own tools (or the user's scripts), the way the source
//! documents measure the startup breakpoint — and never leave an instance
//! running without a ledger that says so.
//!
//! A campaign is one use case for both faces: [`plan::plan`] says what will
//! launch and what it may cost (shown and confirmed before anything runs),
//! [`run`] makes the attempts ([`engine`]), writes every instance to the
//! [`ledger`] before acting on it, tears everything down, and records the
//! attempts as a startup run with provenance. [`cleanup`] retries teardown
//! for whatever the ledger still holds after a crash.

pub mod engine;
pub mod gone;
pub mod history;
pub mod ledger;
pub mod plan;
pub mod recipe;
pub mod shell;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use breakpoint_core::domain::{
    LoadScenario, NewRun, Provenance, RunKind, SourceKind, StartupAttempt, StartupOutcome,
};
use breakpoint_core::stats::percentile;
use breakpoint_core::store::{RunCompletion, RunRecords, Store};
use jiff::Timestamp;
use serde::Serialize;

use engine::{AttemptRecord, Ending, Observer};
use ledger::{Entry, Ledger, Outstanding};
use plan::{Images, Plan, Request};
use recipe::Recipe;
use shell::Shell;

/// The format label campaign runs carry in their provenance.
pub const FORMAT: &str = "startup-campaign";

/// Figures of one campaign, as the summary prints them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: LoadScenario,
    pub attempts: usize,
    pub ok: usize,
    pub failed: usize,
    pub timeouts: usize,
    pub cancelled: usize,
    /// Submit → first compute of the successful attempts.
    pub p50_s: Option<f64>,
    pub p95_s: Option<f64>,
    /// Failed and timed-out among the attempts that ran to an end.
    pub failure_rate_pct: Option<f64>,
    /// Instances whose teardown failed: they may still be running.
    pub teardown_failures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The startup run that records the campaign; `None` when no attempt
    /// ran to an end (all cancelled before launching).
    pub run_id: Option<i64>,
    pub records: Vec<AttemptRecord>,
    pub summary: Summary,
}

/// Where the campaign's run is filed.
#[derive(Debug, Clone)]
pub struct Target {
    pub platform_id: i64,
    pub offering_id: Option<i64>,
    /// The recipe's file name, as provenance shows it.
    pub recipe_file: String,
}

#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error(transparent)]
    Store(#[from] breakpoint_core::Error),
    #[error("the ledger {path} cannot be read or written: {error}")]
    Ledger { path: String, error: std::io::Error },
    #[error(
        "a campaign is running on this workspace (it holds {lock}): it tears down its own instances; run cleanup after it ends, or stop it with Ctrl-C and it tears them down"
    )]
    CampaignRunning { lock: String },
    #[error("{0}")]
    Plan(String),
}

/// What a face asks for; each parses its own input into this.
#[derive(Debug, Clone)]
pub struct Options {
    pub scenario: LoadScenario,
    /// The platform the run is filed under; `None`: the recipe's.
    pub platform: Option<String>,
    pub offerings: Vec<String>,
    pub count: Option<u32>,
    pub spacing: Duration,
    pub images: Images,
    /// Refuse a plan with more instances than this.
    pub max_instances: u32,
}

/// A campaign ready to be shown, confirmed and run.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub recipe: Recipe,
    pub request: Request,
    pub plan: Plan,
    pub target: Target,
    pub platform: String,
}

/// A name for a new campaign: its instances are `bp-<name>-<n>`. The time
/// to the second and four random hex digits, so that campaigns started in
/// the same second apart (another process, another machine sharing the
/// cloud account) are told apart; `run` makes it unique in the ledger.
pub fn new_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    // A randomly keyed hasher: randomness without a dependency.
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!(
        "{}{:04x}",
        Timestamp::now().strftime("%m%d%H%M%S"),
        random & 0xffff
    )
}

/// Read the recipe, find the platform and plan the attempts — everything a
/// face shows before asking — or say, in one line, why not.
pub fn prepare(
    store: &Store,
    recipe_path: &Path,
    options: &Options,
    name: &str,
) -> Result<Prepared, String> {
    let shown = recipe_path.display().to_string();
    let text =
        std::fs::read_to_string(recipe_path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let recipe = Recipe::parse(&text, &shown).map_err(|e| e.to_string())?;
    let platform_name = options
        .platform
        .clone()
        .or_else(|| recipe.platform.clone())
        .ok_or("name the platform (the recipe names none)")?;
    let platform = store.platform(&platform_name).map_err(|e| e.to_string())?;
    let request = Request {
        offerings: options.offerings.clone(),
        count: options.count,
        spacing: options.spacing,
        images: options.images,
        ..Request::new(options.scenario, name)
    };
    let plan = plan::plan(&recipe, &request)?;
    let instances = plan.attempts.len();
    if instances > options.max_instances as usize {
        return Err(format!(
            "this campaign would launch {instances} instances, more than the limit of {} (--max-instances)",
            options.max_instances
        ));
    }
    let recipe_file = recipe_path
        .file_name()
        .map_or(shown, |n| n.to_string_lossy().into_owned());
    Ok(Prepared {
        target: Target {
            platform_id: platform.id,
            offering_id: None,
            recipe_file,
        },
        platform: platform.name,
        recipe,
        request,
        plan,
    })
}

impl Prepared {
    /// The same campaign again under another name (a repeat).
    pub fn renamed(&self, name: &str) -> Result<Prepared, String> {
        let request = Request {
            campaign: name.to_string(),
            ..self.request.clone()
        };
        let plan = plan::plan(&self.recipe, &request)?;
        Ok(Prepared {
            request,
            plan,
            ..self.clone()
        })
    }

    /// Every command of each attempt with its placeholders filled; `<id>`
    /// and `<address>` stand for what only the launch will tell.
    pub fn commands(&self, attempt: usize) -> Vec<(&'static str, String)> {
        let Some(a) = self.plan.attempts.get(attempt) else {
            return Vec::new();
        };
        let values = [
            ("image", a.image_name.as_str()),
            ("offering", a.offering.as_str()),
            ("name", a.name.as_str()),
            ("id", "<id>"),
            ("address", "<address>"),
        ];
        let fill = |command: &str| {
            recipe::fill(command, &values)
                .replace("'<id>'", "<id>")
                .replace("'<address>'", "<address>")
        };
        let c = &self.recipe.commands;
        let mut out = vec![("launch", fill(&c.launch))];
        if let Some(s) = &c.status {
            out.push(("status", fill(s)));
        }
        if let Some(r) = &c.ready {
            out.push(("ready", fill(r)));
        }
        out.push(("first compute", fill(&c.first_compute)));
        out.push(("teardown", fill(&c.teardown)));
        out
    }
}

/// Make the planned attempts and record them. The caller has shown the
/// plan and its estimate and had them confirmed.
#[allow(clippy::too_many_arguments)]
pub fn run(
    store: &Store,
    target: &Target,
    recipe: &Recipe,
    request: &Request,
    plan: &Plan,
    shell: &dyn Shell,
    ledger: &Ledger,
    cancel: &AtomicBool,
    observer: &dyn Observer,
) -> Result<Outcome, CampaignError> {
    let ledger_error = |error| CampaignError::Ledger {
        path: ledger.path().display().to_string(),
        error,
    };
    // Held until the campaign has recorded its outcome: cleanup leaves its
    // instances alone meanwhile.
    let _running = ledger.running().map_err(ledger_error)?;
    // The campaign's name is taken in the ledger before anything launches:
    // another campaign of the same second (this process or another) gets
    // another, so no two instances ever share a name there.
    let campaign = ledger
        .allocate_campaign(&request.campaign)
        .map_err(|error| CampaignError::Ledger {
            path: ledger.path().display().to_string(),
            error,
        })?;
    let renamed;
    let (request, plan) = if campaign == request.campaign {
        (request, plan)
    } else {
        let request = Request {
            campaign,
            ..request.clone()
        };
        let plan = plan::plan(recipe, &request).map_err(CampaignError::Plan)?;
        renamed = (request, plan);
        (&renamed.0, &renamed.1)
    };
    let records = engine::run_all(recipe, &plan.attempts, shell, ledger, cancel, observer);
    let summary = summarise(request.scenario, &records);
    let run_id = record(store, target, recipe, request, &records)?;
    Ok(Outcome {
        run_id,
        records,
        summary,
    })
}

/// The name of round `round` (0-based) of a campaign made `rounds` times:
/// `<name>r1`, `<name>r2`, … — the name itself when it runs once.
pub fn round_name(name: &str, round: u32, rounds: u32) -> String {
    if rounds > 1 {
        format!("{name}r{}", round + 1)
    } else {
        name.to_string()
    }
}

/// The campaign made `rounds` times, `every` apart, each round recorded as
/// a run of its own; `first` is round 0, prepared (and confirmed) under
/// `round_name(name, 0, rounds)`. No round starts once `cancel` is set, and
/// a round stopped part-way is the last.
#[allow(clippy::too_many_arguments)]
pub fn run_rounds(
    store: &Store,
    first: &Prepared,
    name: &str,
    rounds: u32,
    every: Duration,
    shell: &dyn Shell,
    ledger: &Ledger,
    cancel: &AtomicBool,
    observer: &dyn Observer,
) -> Result<Vec<Outcome>, CampaignError> {
    let mut outcomes = Vec::new();
    for round in 0..rounds {
        if round > 0 && !wait(every, cancel) {
            break;
        }
        let this = first
            .renamed(&round_name(name, round, rounds))
            .map_err(CampaignError::Plan)?;
        observer.round(round, rounds);
        outcomes.push(run(
            store,
            &this.target,
            &this.recipe,
            &this.request,
            &this.plan,
            shell,
            ledger,
            cancel,
            observer,
        )?);
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    Ok(outcomes)
}

/// Sleep between rounds; false when stopped first.
fn wait(d: Duration, cancel: &AtomicBool) -> bool {
    let end = std::time::Instant::now() + d;
    while std::time::Instant::now() < end {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100).min(end - std::time::Instant::now()));
    }
    true
}

fn outcome_of(ending: Ending) -> Option<StartupOutcome> {
    match ending {
        Ending::Ok => Some(StartupOutcome::Ok),
        Ending::Failed => Some(StartupOutcome::Failed),
        Ending::Timeout => Some(StartupOutcome::Timeout),
        // The user stopped it: no evidence about the platform either way.
        Ending::Cancelled | Ending::NotStarted => None,
    }
}

pub fn summarise(scenario: LoadScenario, records: &[AttemptRecord]) -> Summary {
    let count = |e: Ending| records.iter().filter(|r| r.ending == e).count();
    let mut latencies: Vec<f64> = records
        .iter()
        .filter(|r| r.ending == Ending::Ok)
        .filter_map(|r| {
            Some(
                r.first_compute_at?
                    .duration_since(r.submitted_at?)
                    .as_secs_f64(),
            )
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let (ok, failed, timeouts) = (
        count(Ending::Ok),
        count(Ending::Failed),
        count(Ending::Timeout),
    );
    let ended = ok + failed + timeouts;
    Summary {
        scenario,
        attempts: records.len(),
        ok,
        failed,
        timeouts,
        cancelled: count(Ending::Cancelled) + count(Ending::NotStarted),
        p50_s: percentile(&latencies, 0.5),
        p95_s: percentile(&latencies, 0.95),
        failure_rate_pct: (ended > 0).then(|| 100.0 * (failed + timeouts) as f64 / ended as f64),
        teardown_failures: records
            .iter()
            .filter(|r| r.torn_down == Some(false))
            .map(|r| r.plan.name.clone())
            .collect(),
    }
}

/// Store the attempts that ran to an end as a startup run, with the
/// recipe's hash and every command as run in its metadata.
fn record(
    store: &Store,
    target: &Target,
    recipe: &Recipe,
    request: &Request,
    records: &[AttemptRecord],
) -> Result<Option<i64>, CampaignError> {
    let attempts: Vec<StartupAttempt> = records
        .iter()
        .filter_map(|r| {
            Some(StartupAttempt {
                scenario: request.scenario,
                image: r.plan.image,
                submitted_at: r.submitted_at?,
                provisioned_at: r.provisioned_at,
                image_ready_at: r.image_ready_at,
                first_compute_at: r.first_compute_at,
                outcome: outcome_of(r.ending)?,
            })
        })
        .collect();
    if attempts.is_empty() {
        return Ok(None);
    }
    let times = records.iter().flat_map(|r| {
        [
            r.submitted_at,
            r.provisioned_at,
            r.image_ready_at,
            r.first_compute_at,
        ]
        .into_iter()
        .flatten()
    });
    let started_at = times.clone().min();
    let ended_at = times.max();
    let mut metadata = serde_json::Map::new();
    metadata.insert(
        "campaign".into(),
        serde_json::json!({
            "name": request.campaign,
            "scenario": request.scenario,
            "recipe_sha256": recipe.sha256,
            "attempts": records,
        }),
    );
    let warnings: Vec<String> = records
        .iter()
        .filter(|r| r.torn_down == Some(false))
        .map(|r| {
            format!(
                "{} ({}) could not be torn down: it may still be running; `breakpoint campaign cleanup` retries",
                r.plan.name,
                r.id.as_deref().unwrap_or("?")
            )
        })
        .chain(
            records
                .iter()
                .filter(|r| r.id.is_none() && r.submitted_at.is_some())
                .map(|r| {
                    format!(
                        "{}: the launch printed no id, so nothing could tear it down; check the platform for an instance of that name",
                        r.plan.name
                    )
                }),
        )
        .collect();
    // The run's identity is its record: a recipe runs many campaigns.
    let identity = breakpoint_core::archive::sha256_hex(
        serde_json::to_string(&metadata)
            .unwrap_or_default()
            .as_bytes(),
    );
    let mut new = NewRun::new(target.platform_id, RunKind::Startup, SourceKind::Campaign);
    new.offering_id = target.offering_id;
    new.provenance = Provenance {
        file_name: Some(target.recipe_file.clone()),
        sha256: Some(identity.clone()),
        format: Some(FORMAT.into()),
        host: None,
    };
    new.started_at = started_at;
    new.ended_at = ended_at;
    let records = RunRecords {
        startup_attempts: attempts,
        ..RunRecords::default()
    };
    let completion = RunCompletion {
        started_at,
        ended_at,
        sha256: Some(identity),
        metadata,
        warnings,
        ..RunCompletion::default()
    };
    let (id, ()) = store.record_run(new, |_, _| -> breakpoint_core::Result<_> {
        Ok((records, completion, ()))
    })?;
    Ok(Some(id))
}

/// One instance `cleanup` tried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cleaned {
    pub instance: Outstanding,
    /// `None`: nothing to run (no id known).
    pub torn_down: Option<bool>,
    pub message: Option<String>,
}

/// What `cleanup` did, and the ledger lines it could not read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cleanup {
    pub instances: Vec<Cleaned>,
    pub unreadable_lines: Vec<usize>,
}

/// Retry teardown for every instance the ledger still holds (after a crash
/// or kill -9); those without an id are listed for the user to check.
/// Refused while a campaign runs: its instances are its own to tear down.
pub fn cleanup(
    ledger: &Ledger,
    shell: &dyn Shell,
    timeout: std::time::Duration,
) -> Result<Cleanup, CampaignError> {
    let ledger_error = |error| CampaignError::Ledger {
        path: ledger.path().display().to_string(),
        error,
    };
    ledger
        .while_idle(|| cleanup_idle(ledger, shell, timeout))
        .map_err(ledger_error)?
        .unwrap_or_else(|| {
            Err(CampaignError::CampaignRunning {
                lock: ledger.lock_path().display().to_string(),
            })
        })
}

fn cleanup_idle(
    ledger: &Ledger,
    shell: &dyn Shell,
    timeout: std::time::Duration,
) -> Result<Cleanup, CampaignError> {
    let replay = ledger.replay().map_err(|error| CampaignError::Ledger {
        path: ledger.path().display().to_string(),
        error,
    })?;
    let outstanding = replay.outstanding;
    let never = AtomicBool::new(false);
    let mut out = Vec::new();
    for o in outstanding {
        let (Some(id), Some(teardown)) = (o.id.clone(), o.teardown.clone()) else {
            out.push(Cleaned {
                message: Some("no id was recorded (the launch printed none): check the platform for an instance of this name, then `campaign forget`".into()),
                instance: o,
                torn_down: None,
            });
            continue;
        };
        let _ = ledger.append(&Entry::TearingDown {
            name: o.name.clone(),
            id: id.clone(),
            at: Timestamp::now(),
        });
        let r = shell.run(&teardown, timeout, &never);
        if r.ok() {
            let _ = ledger.append(&Entry::TornDown {
                name: o.name.clone(),
                id,
                at: Timestamp::now(),
            });
            out.push(Cleaned {
                torn_down: Some(true),
                message: None,
                instance: o,
            });
            continue;
        }
        // The platform no longer knows it (its teardown ran before a crash,
        // or someone stopped it by hand): gone, and said so; the ledger
        // keeps what the platform answered.
        let pattern = o
            .gone
            .as_deref()
            .and_then(|p| regex_lite::Regex::new(p).ok());
        if gone::says_gone(&r, &id, pattern.as_ref()) {
            let said = r.tail(3);
            let _ = ledger.append(&Entry::Gone {
                name: o.name.clone(),
                id,
                said: said.clone(),
                at: Timestamp::now(),
            });
            out.push(Cleaned {
                torn_down: Some(true),
                message: Some(format!("already gone: the platform says \"{said}\"")),
                instance: o,
            });
            continue;
        }
        out.push(Cleaned {
            torn_down: Some(false),
            message: Some(if r.timed_out {
                "no answer within the timeout".into()
            } else {
                format!(
                    "exit {}: {}",
                    r.exit.map_or("–".into(), |c| c.to_string()),
                    r.tail(3)
                )
            }),
            instance: o,
        });
    }
    Ok(Cleanup {
        instances: out,
        unreadable_lines: replay.unreadable,
    })
}

/// Drop an instance the ledger cannot tear down (no id) once the user has
/// checked it is gone. Refused for an instance with an id: cleanup tears
/// those down.
pub fn forget(ledger: &Ledger, name: &str) -> Result<bool, CampaignError> {
    let io = |error| CampaignError::Ledger {
        path: ledger.path().display().to_string(),
        error,
    };
    let open = ledger.outstanding().map_err(io)?;
    match open.iter().find(|o| o.name == name) {
        Some(o) if o.id.is_none() => {
            ledger
                .append(&Entry::Forgotten {
                    name: name.into(),
                    at: Timestamp::now(),
                })
                .map_err(io)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}
