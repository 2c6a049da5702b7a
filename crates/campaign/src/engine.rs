//! Making the attempts: each launches an instance, waits for it to be
//! provisioned, for its image to answer and for a first computation, then
//! tears it down — whatever happened, Ctrl-C included. Every attempt runs on
//! its own thread so that a peak is really at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::Serialize;

use crate::ledger::{Entry, Ledger};
use crate::plan::PlannedAttempt;
use crate::recipe::{Recipe, fill};
use crate::shell::{CommandResult, Shell};

/// The stages of a start, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    Launch,
    Provision,
    Ready,
    FirstCompute,
    Teardown,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Launch => "launch",
            Stage::Provision => "provision",
            Stage::Ready => "ready",
            Stage::FirstCompute => "first-compute",
            Stage::Teardown => "teardown",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Ok,
    Failed,
    Timeout,
    /// Stopped by the user before it finished.
    Cancelled,
    /// Never launched: cancelled while waiting its turn.
    NotStarted,
}

/// One command as it ran, for the run's provenance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandLog {
    pub stage: Stage,
    pub command: String,
    pub exit: Option<i32>,
    pub elapsed_ms: u64,
    pub timed_out: bool,
    /// The last lines of its output, where it failed.
    pub output_tail: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptRecord {
    pub plan: PlannedAttempt,
    pub id: Option<String>,
    pub submitted_at: Option<Timestamp>,
    pub provisioned_at: Option<Timestamp>,
    pub image_ready_at: Option<Timestamp>,
    pub first_compute_at: Option<Timestamp>,
    pub ending: Ending,
    /// Each polled stage's time bracket: it happened after the start of the
    /// last poll that found it not yet done and by the start of the first
    /// that found it done, where it is stamped.
    pub brackets: Vec<StageBracket>,
    /// The stage that failed or timed out, and why.
    pub failure: Option<(Stage, String)>,
    /// Whether the instance was torn down; `None` when there was none to
    /// tear down by id.
    pub torn_down: Option<bool>,
    /// When the platform confirmed the teardown: the end of the instance's
    /// life as measured, held against its bill.
    pub torn_down_at: Option<Timestamp>,
    pub commands: Vec<CommandLog>,
}

/// When a polled stage happened, as far as polling can tell: after `since`
/// (the start of the last poll that found it not yet done, or the moment the
/// stage began) and by `at` (the start of the first poll that found it
/// done). A stage is stamped at `at`: never before it happened, at most
/// `width_ms` after, and never counting the poll's own run time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageBracket {
    pub stage: Stage,
    pub since: Timestamp,
    pub at: Timestamp,
    pub width_ms: i64,
    /// The bracket's middle, the likeliest single time.
    pub midpoint: Timestamp,
}

impl StageBracket {
    fn new(stage: Stage, since: Timestamp, at: Timestamp) -> StageBracket {
        let width = at.duration_since(since);
        StageBracket {
            stage,
            since,
            at,
            width_ms: width.as_millis() as i64,
            midpoint: since + width / 2,
        }
    }
}

/// What a campaign reports as it goes (a live status line, the app).
pub trait Observer: Send + Sync {
    /// A round of a repeated campaign begins (0-based, of `rounds`).
    fn round(&self, _round: u32, _rounds: u32) {}
    fn stage(&self, _attempt: usize, _stage: Stage) {}
    fn finished(&self, _record: &AttemptRecord) {}
    /// A teardown that failed even after retries: the instance may still
    /// run (and cost money). Said loudly, never silently.
    fn teardown_failed(&self, _name: &str, _id: &str, _why: &str) {}
}

pub struct Quiet;
impl Observer for Quiet {}

/// Teardown is retried this many times, a poll interval apart.
const TEARDOWN_TRIES: u32 = 3;

/// Make every planned attempt, each on its own thread; returns when all
/// have ended and every instance they launched has been torn down (or its
/// teardown has failed and been reported).
pub fn run_all(
    recipe: &Recipe,
    attempts: &[PlannedAttempt],
    shell: &dyn Shell,
    ledger: &Ledger,
    cancel: &AtomicBool,
    observer: &dyn Observer,
) -> Vec<AttemptRecord> {
    let start = Instant::now();
    let mut records: Vec<AttemptRecord> = std::thread::scope(|scope| {
        let handles: Vec<_> = attempts
            .iter()
            .map(|plan| {
                scope.spawn(move || {
                    let record = attempt(recipe, plan, start, shell, ledger, cancel, observer);
                    observer.finished(&record);
                    record
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(attempts)
            .map(|(h, plan)| {
                h.join().unwrap_or_else(|_| AttemptRecord {
                    failure: Some((Stage::Launch, "the attempt's thread failed".into())),
                    ..AttemptRecord::new(plan.clone(), Ending::Failed)
                })
            })
            .collect()
    });
    records.sort_by_key(|r| r.plan.index);
    records
}

impl AttemptRecord {
    fn new(plan: PlannedAttempt, ending: Ending) -> Self {
        Self {
            plan,
            id: None,
            submitted_at: None,
            provisioned_at: None,
            image_ready_at: None,
            first_compute_at: None,
            ending,
            brackets: Vec::new(),
            failure: None,
            torn_down: None,
            torn_down_at: None,
            commands: Vec::new(),
        }
    }
}

/// Sleep until `deadline` in short steps; false when cancelled first.
fn wait_until(deadline: Instant, cancel: &AtomicBool) -> bool {
    while Instant::now() < deadline {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep((deadline - Instant::now()).min(Duration::from_millis(50)));
    }
    !cancel.load(Ordering::Relaxed)
}

struct Run<'a> {
    shell: &'a dyn Shell,
    cancel: &'a AtomicBool,
    record: AttemptRecord,
}

impl Run<'_> {
    /// The earliest a stage after the one stamped `at` can have happened:
    /// that stage's own earliest, where it was polled.
    fn earliest_since(&self, at: Timestamp) -> Timestamp {
        self.record
            .brackets
            .iter()
            .rev()
            .find(|b| b.at == at)
            .map_or(at, |b| b.since)
    }

    fn log(&mut self, stage: Stage, command: &str, r: &CommandResult) {
        self.record.commands.push(CommandLog {
            stage,
            command: command.to_string(),
            exit: r.exit,
            elapsed_ms: r.elapsed_ms,
            timed_out: r.timed_out,
            output_tail: (!r.ok()).then(|| r.tail(5)).filter(|t| !t.is_empty()),
        });
    }

    fn fail(&mut self, stage: Stage, r: &CommandResult, what: &str) {
        self.record.ending = if r.cancelled {
            Ending::Cancelled
        } else if r.timed_out {
            Ending::Timeout
        } else {
            Ending::Failed
        };
        let tail = r.tail(5);
        let why = if r.cancelled {
            format!("{what}: cancelled")
        } else if r.timed_out {
            format!("{what}: no answer within the timeout")
        } else if tail.is_empty() {
            format!(
                "{what}: exit {}",
                r.exit.map_or("–".into(), |c| c.to_string())
            )
        } else {
            format!(
                "{what}: exit {}: {tail}",
                r.exit.map_or("–".into(), |c| c.to_string())
            )
        };
        self.record.failure = Some((stage, why));
    }

    /// Run `command` every poll interval until `done` says so, the stage's
    /// timeout passes or the user cancels. Done: the stage's bracket (kept
    /// in the record) and the answer; each poll is timed from its start, so
    /// the poll's own run time is never counted as the platform's. A stage
    /// the first poll finds done happened at the earliest when the stage
    /// before it could have (`earliest`).
    fn poll(
        &mut self,
        stage: Stage,
        command: &str,
        (timeout, poll): (Duration, Duration),
        earliest: Timestamp,
        done: impl Fn(&CommandResult) -> bool,
    ) -> Result<(Timestamp, CommandResult), CommandResult> {
        let deadline = Instant::now() + timeout;
        let mut since = earliest;
        // The last poll that answered (exited), for a stage that keeps
        // answering "no" until a last poll is cut short by the deadline.
        let mut answered: Option<CommandResult> = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let started = Timestamp::now();
            let r = self
                .shell
                .run(command, left.max(Duration::from_millis(1)), self.cancel);
            if done(&r) {
                self.log(stage, command, &r);
                self.record
                    .brackets
                    .push(StageBracket::new(stage, since, started));
                return Ok((started, r));
            }
            since = started;
            if r.cancelled || Instant::now() + poll >= deadline {
                self.log(stage, command, &r);
                let last = match answered {
                    Some(a) if r.exit.is_none() && !r.cancelled => a,
                    _ => r,
                };
                let timed_out = !last.cancelled;
                return Err(CommandResult { timed_out, ..last });
            }
            if r.exit.is_some() {
                answered = Some(r.clone());
            }
            if !wait_until(Instant::now() + poll, self.cancel) {
                self.log(stage, command, &r);
                return Err(CommandResult {
                    cancelled: true,
                    ..r
                });
            }
        }
    }
}

fn attempt(
    recipe: &Recipe,
    plan: &PlannedAttempt,
    start: Instant,
    shell: &dyn Shell,
    ledger: &Ledger,
    cancel: &AtomicBool,
    observer: &dyn Observer,
) -> AttemptRecord {
    let mut run = Run {
        shell,
        cancel,
        record: AttemptRecord::new(plan.clone(), Ending::Ok),
    };
    if !wait_until(start + Duration::from_millis(plan.start_after_ms), cancel) {
        run.record.ending = Ending::NotStarted;
        return run.record;
    }
    let mut values: Vec<(&'static str, String)> = vec![
        ("image", plan.image_name.clone()),
        ("offering", plan.offering.clone()),
        ("name", plan.name.clone()),
    ];
    let Some(launched) = launch(&mut run, recipe, plan, &mut values, ledger, observer) else {
        return run.record;
    };
    if let Some(e) = &launched.ledger_error {
        run.record.failure = Some((
            Stage::Launch,
            format!("the ledger cannot be written ({e}); tearing down at once"),
        ));
        run.record.ending = Ending::Failed;
    } else if !launched.result.ok() {
        run.fail(
            Stage::Launch,
            &launched.result,
            "the launch failed after printing an id",
        );
    } else if cancel.load(Ordering::Relaxed) {
        run.record.ending = Ending::Cancelled;
        run.record.failure = Some((Stage::Launch, "stopped after the launch".into()));
    } else {
        stages(&mut run, recipe, &mut values, observer);
    }
    // Whatever happened: tear down, never cancelled by the user's stop.
    tear_down(&mut run, recipe, plan, launched, ledger, observer);
    run.record
}

/// An instance that printed its id: what tears it down, how its launch
/// ended, and whether the ledger could record it.
struct Launched {
    id: String,
    teardown: String,
    result: CommandResult,
    ledger_error: Option<std::io::Error>,
}

fn filled(values: &[(&str, String)], command: &str) -> String {
    let pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    fill(command, &pairs)
}

/// Launch the instance, the ledger hearing of it before it exists and of
/// its id as soon as it is printed. `None` when nothing was launched that
/// could need a teardown (the record says why).
fn launch(
    run: &mut Run<'_>,
    recipe: &Recipe,
    plan: &PlannedAttempt,
    values: &mut Vec<(&'static str, String)>,
    ledger: &Ledger,
    observer: &dyn Observer,
) -> Option<Launched> {
    let c = &recipe.commands;
    if let Err(e) = ledger.append(&Entry::Launching {
        name: plan.name.clone(),
        campaign: plan
            .name
            .rsplit_once('-')
            .map_or("", |(c, _)| c)
            .to_string(),
        at: Timestamp::now(),
    }) {
        // Nothing was launched: no evidence about the platform either way.
        run.record.ending = Ending::NotStarted;
        run.record.failure = Some((
            Stage::Launch,
            format!("not launched: the ledger cannot be written ({e})"),
        ));
        return None;
    }
    observer.stage(plan.index, Stage::Launch);
    run.record.submitted_at = Some(Timestamp::now());
    // A launch is never cut short by the user's stop: killed half-way it
    // could leave an instance that nobody knows the id of. It runs to its
    // end (within its timeout), and what it started is torn down.
    let never = AtomicBool::new(false);
    let command = filled(values, &c.launch);
    let result = run.shell.run(&command, recipe.timeouts.launch, &never);
    run.log(Stage::Launch, &command, &result);
    // An id printed is an instance, whatever the exit status: `cli launch
    // …; notify-send done` exits 127 after the cloud started the instance.
    let id = c.id.find(&result.stdout);
    // 126/127 with no id: the shell could not run the launch command at all
    // (not found, not executable): no instance can exist.
    if id.is_none() && matches!(result.exit, Some(126 | 127)) {
        let _ = ledger.append(&Entry::Forgotten {
            name: plan.name.clone(),
            at: Timestamp::now(),
        });
        run.fail(Stage::Launch, &result, "the launch command could not run");
        return None;
    }
    let Some(id) = id else {
        let what = format!("the launch printed no id ({})", c.id.describe());
        run.fail(Stage::Launch, &result, &what);
        if run.record.ending == Ending::Ok {
            run.record.ending = Ending::Failed;
        }
        return None;
    };
    values.push(("id", id.clone()));
    if let Some(address) = c.address.as_ref().and_then(|a| a.find(&result.stdout)) {
        values.push(("address", address));
    }
    let teardown = filled(values, &c.teardown);
    run.record.id = Some(id.clone());
    let ledger_error = ledger
        .append(&Entry::Launched {
            name: plan.name.clone(),
            id: id.clone(),
            teardown: teardown.clone(),
            gone: c.gone_pattern(),
            at: Timestamp::now(),
        })
        .err();
    Some(Launched {
        id,
        teardown,
        result,
        ledger_error,
    })
}

/// Tear the instance down, retrying, never cancelled by the user's stop.
/// The ledger is written before and after: a process killed while the
/// teardown runs leaves the ledger saying so, and `cleanup` asks the
/// platform again.
fn tear_down(
    run: &mut Run<'_>,
    recipe: &Recipe,
    plan: &PlannedAttempt,
    launched: Launched,
    ledger: &Ledger,
    observer: &dyn Observer,
) {
    let Launched { id, teardown, .. } = launched;
    let t = &recipe.timeouts;
    observer.stage(plan.index, Stage::Teardown);
    let _ = ledger.append(&Entry::TearingDown {
        name: plan.name.clone(),
        id: id.clone(),
        at: Timestamp::now(),
    });
    let never = AtomicBool::new(false);
    let mut last = CommandResult::default();
    for attempt in 0..TEARDOWN_TRIES {
        if attempt > 0 {
            std::thread::sleep(t.poll.min(Duration::from_secs(10)));
        }
        last = run.shell.run(&teardown, t.teardown, &never);
        run.log(Stage::Teardown, &teardown, &last);
        if last.ok() {
            break;
        }
    }
    if last.ok() {
        let at = Timestamp::now();
        run.record.torn_down = Some(true);
        run.record.torn_down_at = Some(at);
        let _ = ledger.append(&Entry::TornDown {
            name: plan.name.clone(),
            id,
            at,
        });
    } else {
        run.record.torn_down = Some(false);
        let why = if last.timed_out {
            "no answer within the timeout".to_string()
        } else {
            last.tail(3)
        };
        observer.teardown_failed(&plan.name, &id, &why);
    }
}

/// Provisioned → image ready → first computation.
fn stages(
    run: &mut Run<'_>,
    recipe: &Recipe,
    values: &mut Vec<(&'static str, String)>,
    observer: &dyn Observer,
) {
    let c = &recipe.commands;
    let t = &recipe.timeouts;
    let index = run.record.plan.index;

    observer.stage(index, Stage::Provision);
    let provisioned = match (&c.status, &c.provisioned) {
        (Some(status), Some(pattern)) => {
            let pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let command = fill(status, &pairs);
            let earliest = run.record.submitted_at.unwrap_or_else(Timestamp::now);
            match run.poll(
                Stage::Provision,
                &command,
                (t.provision, t.poll),
                earliest,
                |r| pattern.find(&r.stdout).is_some(),
            ) {
                Ok((at, answer)) => {
                    // Clouds give the address once the instance runs.
                    if !values.iter().any(|(k, _)| *k == "address")
                        && let Some(address) =
                            c.address.as_ref().and_then(|a| a.find(&answer.stdout))
                    {
                        values.push(("address", address));
                    }
                    at
                }
                Err(r) => return run.fail(Stage::Provision, &r, "not provisioned"),
            }
        }
        _ => Timestamp::now(),
    };
    run.record.provisioned_at = Some(provisioned);
    let pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();

    observer.stage(index, Stage::Ready);
    let ready = match &c.ready {
        Some(ready) => {
            let command = fill(ready, &pairs);
            let earliest = run.earliest_since(provisioned);
            match run.poll(
                Stage::Ready,
                &command,
                (t.ready, t.poll),
                earliest,
                CommandResult::ok,
            ) {
                Ok((at, _)) => at,
                Err(r) => return run.fail(Stage::Ready, &r, "the image never answered"),
            }
        }
        None => provisioned,
    };
    run.record.image_ready_at = Some(ready);

    // Retried like readiness: on many clouds the first GPU call works a
    // moment after the image answers, and a start that needs a second try
    // is a slow start, not a failed one.
    observer.stage(index, Stage::FirstCompute);
    let command = fill(&c.first_compute, &pairs);
    let earliest = run.earliest_since(ready);
    match run.poll(
        Stage::FirstCompute,
        &command,
        (t.first_compute, t.poll),
        earliest,
        CommandResult::ok,
    ) {
        Ok((at, _)) => run.record.first_compute_at = Some(at),
        // It kept answering with an error until the timeout: a failure, with
        // the error quoted; no answer at all is a timeout.
        Err(r) if r.exit.is_some() && !r.cancelled => run.fail(
            Stage::FirstCompute,
            &CommandResult {
                timed_out: false,
                ..r
            },
            "the first computation failed until the timeout",
        ),
        Err(r) => run.fail(Stage::FirstCompute, &r, "the first computation failed"),
    }
}
