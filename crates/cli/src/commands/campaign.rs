//! `breakpoint campaign …`: startup campaigns through a platform's own
//! tools. The plan and its cost are shown and confirmed before anything
//! launches; every instance is in the ledger before anything happens with
//! it; Ctrl-C tears down what was launched.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use breakpoint_api::domain::LoadScenario;
use breakpoint_campaign::engine::{AttemptRecord, Ending, Observer, Stage};
use breakpoint_campaign::history::history;
use breakpoint_campaign::ledger::Ledger;
use breakpoint_campaign::plan::{self, Images, Plan, Request};
use breakpoint_campaign::recipe::Recipe;
use breakpoint_campaign::shell::SystemShell;
use breakpoint_campaign::{Options, Prepared, Target, cleanup, forget, prepare};

use super::{Context, Failure, Outcome};
use crate::args::{CampaignCommand, CampaignRunArgs};
use crate::output;

pub fn run(ctx: &Context, command: CampaignCommand) -> Outcome {
    match command {
        CampaignCommand::Check { recipe } => check(ctx, &recipe),
        CampaignCommand::Run(args) => run_campaign(ctx, args),
        CampaignCommand::List => list(ctx),
        CampaignCommand::Status => status(ctx),
        CampaignCommand::Cleanup => clean(ctx),
        CampaignCommand::Forget { name } => {
            let ledger = ledger(ctx)?;
            if forget(&ledger, &name).map_err(|e| Failure::Refused(e.to_string()))? {
                Ok(output::print(&format!("{name} dropped from the ledger"))?)
            } else {
                Err(Failure::Refused(format!(
                    "the ledger holds no instance \"{name}\" without an id (instances with an id are torn down by `campaign cleanup`)"
                )))
            }
        }
    }
}

fn ledger(ctx: &Context) -> Result<Ledger, Failure> {
    let db = ctx
        .db
        .as_deref()
        .ok_or_else(|| Failure::Refused("campaigns need a database file (--db)".into()))?;
    Ok(Ledger::beside(db))
}

fn read_recipe(path: &Path) -> Result<Recipe, Failure> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Refused(format!("{shown}: cannot read: {e}")))?;
    Recipe::parse(&text, &shown).map_err(|e| Failure::Refused(e.to_string()))
}

fn check(ctx: &Context, path: &Path) -> Outcome {
    let recipe = read_recipe(path)?;
    let request = Request {
        count: Some(1),
        ..Request::new(LoadScenario::Peak, "check")
    };
    let plan = plan::plan(&recipe, &request).map_err(Failure::Refused)?;
    if ctx.json {
        return Ok(output::print_json(&serde_json::json!({
            "platform": recipe.platform,
            "offerings": recipe.offerings.iter().map(|o| &o.name).collect::<Vec<_>>(),
            "sha256": recipe.sha256,
            "worst_case_minutes": recipe.timeouts.worst_case().as_secs_f64() / 60.0,
        }))?);
    }
    let mut text = format!(
        "{}: a good recipe{} with {} offering(s): {}\nworst case per instance: {:.1} min (every stage's timeout)\n",
        path.display(),
        recipe
            .platform
            .as_deref()
            .map(|p| format!(" for {p}"))
            .unwrap_or_default(),
        recipe.offerings.len(),
        recipe
            .offerings
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        recipe.timeouts.worst_case().as_secs_f64() / 60.0
    );
    let prepared = Prepared {
        target: Target {
            platform_id: 0,
            offering_id: None,
            recipe_file: String::new(),
        },
        platform: String::new(),
        recipe,
        request,
        plan,
    };
    for (stage, command) in prepared.commands(0) {
        text.push_str(&format!("  {stage:<14} {command}\n"));
    }
    Ok(output::print(&text)?)
}

fn estimate_text(plan: &Plan) -> String {
    let e = &plan.estimate;
    let mut cost = e
        .cost
        .iter()
        .map(|(currency, amount)| format!("{amount:.2} {currency}"))
        .collect::<Vec<_>>()
        .join(" + ");
    if cost.is_empty() {
        cost = "unknown".into();
    }
    let unpriced = if e.unpriced.is_empty() {
        String::new()
    } else {
        format!(
            " (no price in the recipe for {}: their cost is not included)",
            e.unpriced.join(", ")
        )
    };
    format!(
        "{} instance(s), each up for at most {}: at most {cost}{unpriced}",
        e.instances,
        breakpoint_api::presentation::elapsed(60.0 * e.worst_case_minutes_each)
    )
}

/// A live status line per event on stderr; teardown failures loudly.
struct Live {
    total: usize,
    done: AtomicUsize,
    quiet: bool,
}

impl Observer for Live {
    /// Each round counts its own attempts done.
    fn round(&self, _round: u32, _rounds: u32) {
        self.done.store(0, Ordering::Relaxed);
    }

    fn stage(&self, attempt: usize, stage: Stage) {
        if !self.quiet {
            eprintln!("[{}/{}] {stage}", attempt + 1, self.total);
        }
    }

    fn finished(&self, r: &AttemptRecord) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.quiet || r.ending == Ending::NotStarted {
            return;
        }
        let latency = match (r.submitted_at, r.first_compute_at) {
            (Some(a), Some(b)) => format!(" in {:.1} s", b.duration_since(a).as_secs_f64()),
            _ => String::new(),
        };
        let why = r
            .failure
            .as_ref()
            .map(|(stage, why)| format!(" at {stage}: {why}"))
            .unwrap_or_default();
        let ending = match r.ending {
            Ending::Ok => "ok",
            Ending::Failed => "failed",
            Ending::Timeout => "timed out",
            Ending::Cancelled => "stopped",
            Ending::NotStarted => "not started",
        };
        eprintln!(
            "[{}/{}] {} {ending}{latency}{why} ({n} of {} done)",
            r.plan.index + 1,
            self.total,
            r.plan.name,
            self.total
        );
    }

    fn teardown_failed(&self, name: &str, id: &str, why: &str) {
        eprintln!(
            "TEARDOWN FAILED: {name} ({id}) may still be running and costing money: {why}\n  run `breakpoint campaign cleanup` to retry, or stop it in the platform's console"
        );
    }
}

fn run_campaign(ctx: &Context, args: CampaignRunArgs) -> Outcome {
    let options = options_of(&args)?;
    let scenario = options.scenario;
    let name = breakpoint_campaign::new_name();
    let first = prepare(
        &ctx.store,
        &args.recipe,
        &options,
        &breakpoint_campaign::round_name(&name, 0, args.repeat),
    )
    .map_err(Failure::Refused)?;
    let ledger = ledger(ctx)?;
    let instances = first.plan.attempts.len();
    let repeats = if args.repeat > 1 {
        format!(
            ", {} times {} apart",
            args.repeat,
            output::duration_ms(args.every.as_millis() as i64)
        )
    } else {
        String::new()
    };
    eprintln!(
        "campaign on {}: {scenario} scenario, {}{repeats}",
        first.platform,
        estimate_text(&first.plan)
    );
    if args.dry_run {
        return Ok(output::print(&dry_run_text(&first))?);
    }
    if !args.yes
        && !super::confirm(
            "a campaign launches paid instances: confirm it on a terminal, or pass --yes",
            &format!(
                "Launch {instances} instance(s) on {}{repeats}?",
                first.platform
            ),
        )?
    {
        return Err(Failure::Refused(
            "not confirmed: nothing was launched".into(),
        ));
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if !flag.swap(true, Ordering::Relaxed) {
            eprintln!(
                "stopping: launches under way finish, then everything launched is torn down…"
            );
        }
    });
    let live = Live {
        total: first.plan.attempts.len(),
        done: AtomicUsize::new(0),
        quiet: ctx.json,
    };
    let outcomes = breakpoint_campaign::run_rounds(
        &ctx.store,
        &first,
        &name,
        args.repeat,
        args.every,
        &SystemShell,
        &ledger,
        &cancel,
        &live,
    )
    .map_err(|e| Failure::Refused(e.to_string()))?;
    let left = ledger.outstanding().map(|o| o.len()).unwrap_or(0);
    if ctx.json {
        output::print_json(&outcomes)?;
    } else {
        output::print(&outcomes_text(&outcomes, &first.platform, left))?;
    }
    exit_of(&outcomes, left, &cancel)
}

/// What the command line asks of the campaign.
fn options_of(args: &CampaignRunArgs) -> Result<Options, Failure> {
    let refused = |e: breakpoint_api::ValidationError| Failure::Refused(e.to_string());
    Ok(Options {
        scenario: args.scenario.parse().map_err(refused)?,
        platform: args.platform.clone(),
        offerings: args.offerings.clone(),
        count: args.count,
        spacing: args.spacing,
        images: args.image.parse::<Images>().map_err(refused)?,
        max_instances: args.max_instances,
    })
}

/// Every attempt and the commands it would run, placeholders filled.
fn dry_run_text(first: &Prepared) -> String {
    let mut text = String::new();
    for (i, a) in first.plan.attempts.iter().enumerate() {
        text.push_str(&format!(
            "{} ({} {} image, after {:.1} s)\n",
            a.name,
            a.offering,
            a.image,
            a.start_after_ms as f64 / 1000.0
        ));
        for (stage, command) in first.commands(i) {
            text.push_str(&format!("  {stage:<14} {command}\n"));
        }
    }
    text
}

/// Each round's summary and what became of it, and what the ledger holds.
fn outcomes_text(outcomes: &[breakpoint_campaign::Outcome], platform: &str, left: usize) -> String {
    let mut text = String::new();
    for o in outcomes {
        let s = &o.summary;
        let fmt = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.1} s"));
        text.push_str(&format!(
            "{}: {} attempts — {} ok, {} failed, {} timed out, {} stopped; p50 {}, p95 {}; failure rate {}\n",
            s.scenario,
            s.attempts,
            s.ok,
            s.failed,
            s.timeouts,
            s.cancelled,
            fmt(s.p50_s),
            fmt(s.p95_s),
            s.failure_rate_pct.map_or("–".into(), |p| format!("{p:.0} %"))
        ));
        match o.run_id {
            Some(id) => text.push_str(&format!(
                "recorded as run {id} ({} on {platform})\n",
                breakpoint_campaign::FORMAT,
            )),
            None => text.push_str("nothing recorded: no attempt ran to an end\n"),
        }
    }
    if left > 0 {
        text.push_str(&format!(
            "the ledger still holds {left} instance(s): see `breakpoint campaign status`\n"
        ));
    }
    text
}

/// How the command ends: a teardown that failed or an instance left in
/// the ledger is an error; a stop by the user is 130; a campaign that
/// launched nothing measured nothing.
fn exit_of(outcomes: &[breakpoint_campaign::Outcome], left: usize, cancel: &AtomicBool) -> Outcome {
    if outcomes
        .iter()
        .any(|o| !o.summary.teardown_failures.is_empty())
        || left > 0
    {
        return Err(Failure::Reported);
    }
    // Stopped by the user: what was launched is torn down, and a script
    // hears that the campaign did not run to its end (128 + SIGINT).
    if cancel.load(Ordering::Relaxed) {
        return Err(Failure::Exit(130));
    }
    // Not one attempt got to launch (the ledger refused every one, say):
    // nothing was measured.
    let records = || outcomes.iter().flat_map(|o| &o.records);
    if records().all(|r| r.ending == Ending::NotStarted) {
        let why = records()
            .find_map(|r| r.failure.as_ref().map(|(_, why)| why.clone()))
            .unwrap_or_else(|| "no attempt started".into());
        return Err(Failure::Refused(format!("nothing was launched: {why}")));
    }
    Ok(())
}

fn list(ctx: &Context) -> Outcome {
    let past = history(&ctx.store)?;
    if ctx.json {
        return Ok(output::print_json(&past)?);
    }
    if past.is_empty() {
        return Ok(output::print(
            "no campaign yet: `breakpoint campaign run RECIPE` runs one",
        )?);
    }
    let mut t = output::table(&[
        "run",
        "platform",
        "campaign",
        "scenario",
        "recipe",
        "started (UTC)",
        "attempts",
        "ok",
        "p50",
        "p95",
        "failure rate",
    ]);
    let seconds = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.1} s"));
    for c in &past {
        t.add_row(vec![
            format!("#{}", c.run_id),
            c.platform.clone(),
            c.name.clone(),
            c.scenario.clone(),
            c.recipe.clone(),
            c.started_at
                .map_or("–".into(), breakpoint_api::text::minute_words),
            c.attempts.len().to_string(),
            c.ok.to_string(),
            seconds(c.p50_s),
            seconds(c.p95_s),
            c.failure_rate_pct
                .map_or("–".into(), |r| format!("{r:.0} %")),
        ]);
    }
    Ok(output::print(&t.to_string())?)
}

/// Ledger lines that could not be read, said on stderr: never passed over
/// in silence (an instance may be named there).
fn warn_unreadable(ledger: &Ledger, lines: &[usize]) {
    if !lines.is_empty() {
        let shown: Vec<String> = lines.iter().map(usize::to_string).collect();
        eprintln!(
            "warning: {}: line(s) {} cannot be read (cut off by a crash, or changed by hand); an instance named there is not listed — check the platform's console",
            ledger.path().display(),
            shown.join(", ")
        );
    }
}

fn status(ctx: &Context) -> Outcome {
    let ledger = ledger(ctx)?;
    let replay = ledger
        .replay()
        .map_err(|e| Failure::Refused(format!("{}: {e}", ledger.path().display())))?;
    warn_unreadable(&ledger, &replay.unreadable);
    let open = replay.outstanding;
    if ctx.json {
        return Ok(output::print_json(&open)?);
    }
    if open.is_empty() {
        return Ok(output::print(
            "no instance outstanding: every launched instance was torn down",
        )?);
    }
    let mut t = output::table(&["name", "id", "since (UTC)", "teardown"]);
    for o in &open {
        t.add_row(vec![
            o.name.clone(),
            o.id.clone()
                .unwrap_or_else(|| "none recorded: check the platform's console".into()),
            breakpoint_api::text::time_words(o.since),
            o.teardown.clone().unwrap_or_default(),
        ]);
    }
    Ok(output::print(&format!(
        "{} instance(s) may still be running (ledger {}):\n{t}\n`breakpoint campaign cleanup` tears down those with an id",
        open.len(),
        ledger.path().display()
    ))?)
}

fn clean(ctx: &Context) -> Outcome {
    let ledger = ledger(ctx)?;
    let done = cleanup(&ledger, &SystemShell, Duration::from_secs(300))
        .map_err(|e| Failure::Refused(e.to_string()))?;
    warn_unreadable(&ledger, &done.unreadable_lines);
    let cleaned = done.instances;
    if ctx.json {
        output::print_json(&cleaned)?;
    } else if cleaned.is_empty() {
        output::print("nothing to clean up: the ledger holds no instance")?;
    } else {
        let mut text = String::new();
        for c in &cleaned {
            let what = match c.torn_down {
                Some(true) => "torn down".to_string(),
                Some(false) => format!("TEARDOWN FAILED: {}", c.message.as_deref().unwrap_or("")),
                None => c.message.clone().unwrap_or_default(),
            };
            text.push_str(&format!(
                "{} ({}): {what}\n",
                c.instance.name,
                c.instance.id.as_deref().unwrap_or("no id")
            ));
        }
        output::print(&text)?;
    }
    if cleaned.iter().any(|c| c.torn_down != Some(true)) {
        return Err(Failure::Reported);
    }
    Ok(())
}
