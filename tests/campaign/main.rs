//! Campaigns against the fake cloud (tests/fixtures/campaign/fakecloud):
//! full scenarios, a stop in the middle, misbehaving launches, statuses and
//! teardowns — and never an instance left running without the ledger
//! saying so.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use breakpoint_campaign::engine::{Ending, Quiet, Stage};
use breakpoint_campaign::ledger::Ledger;
use breakpoint_campaign::plan::{self, Images, Request};
use breakpoint_campaign::recipe::Recipe;
use breakpoint_campaign::shell::SystemShell;
use breakpoint_campaign::{Target, cleanup, run};
use breakpoint_core::domain::{LoadScenario, Platform, PlatformKind, StartupOutcome};
use breakpoint_core::store::Store;

mod cleanup;

fn fakecloud() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/campaign/fakecloud")
}

/// The fake cloud's state, its recipe (commands pointed at it with the
/// misbehaviour asked for), a store with its platform and a ledger.
struct Cloud {
    dir: tempfile::TempDir,
    recipe: Recipe,
    store: Store,
    platform: i64,
    ledger: Ledger,
}

impl Cloud {
    fn new(env: &[(&str, &str)]) -> Cloud {
        let dir = tempfile::tempdir().unwrap();
        let mut prefix = format!("FAKECLOUD_DIR='{}' ", dir.path().join("cloud").display());
        for (k, v) in env {
            prefix.push_str(&format!("{k}='{v}' "));
        }
        prefix.push_str(&format!("'{}' ", fakecloud().display()));
        let text = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/campaign/fake.toml"),
        )
        .unwrap()
        .replace(
            "\"fakecloud ",
            &format!("\"{}", prefix.replace('"', "\\\"")),
        );
        let recipe = Recipe::parse(&text, "fake.toml").unwrap();
        let store = Store::open_in_memory().unwrap();
        let platform = store
            .create_platform(&Platform::new("Fake cloud", PlatformKind::Other, None).unwrap())
            .unwrap()
            .id;
        let ledger = Ledger::beside(&dir.path().join("b.db"));
        Cloud {
            dir,
            recipe,
            store,
            platform,
            ledger,
        }
    }

    /// Names of the instances the fake cloud still has.
    fn running_names(&self) -> Vec<String> {
        self.running()
            .iter()
            .filter_map(|id| {
                let text = std::fs::read_to_string(self.dir.path().join("cloud").join(id)).ok()?;
                text.lines()
                    .find_map(|l| l.strip_prefix("name=").map(str::to_string))
            })
            .collect()
    }

    /// Instances the fake cloud still has.
    fn running(&self) -> Vec<String> {
        let dir = self.dir.path().join("cloud");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut ids: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("i-"))
            .collect();
        ids.sort();
        ids
    }

    fn campaign(&self, request: &Request, cancel: &AtomicBool) -> breakpoint_campaign::Outcome {
        let plan = plan::plan(&self.recipe, request).unwrap();
        let target = Target {
            platform_id: self.platform,
            offering_id: None,
            recipe_file: "fake.toml".into(),
        };
        run(
            &self.store,
            &target,
            &self.recipe,
            request,
            &plan,
            &SystemShell,
            &self.ledger,
            cancel,
            &Quiet,
        )
        .unwrap()
    }
}

fn request(scenario: LoadScenario, count: u32) -> Request {
    Request {
        count: Some(count),
        spacing: Duration::from_millis(100),
        ..Request::new(scenario, "t")
    }
}

/// The true stage times (ms) the fake cloud kept for an instance.
fn truth(cloud: &Cloud, id: &str) -> [i64; 3] {
    let text = std::fs::read_to_string(cloud.dir.path().join("cloud").join(format!(".truth-{id}")))
        .unwrap();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    [
        field("provisioned_at"),
        field("ready_at"),
        field("compute_at"),
    ]
}

#[test]
fn a_first_computation_that_works_a_moment_after_ssh_is_a_slow_start_not_a_failure() {
    // The first GPU call works half a second after the image answers, and
    // every poll takes 150 ms to answer after looking.
    let cloud = Cloud::new(&[
        ("FAKECLOUD_COMPUTE_LAG", "500"),
        ("FAKECLOUD_POLL_MS", "150"),
    ]);
    let never = AtomicBool::new(false);
    let outcome = cloud.campaign(&request(LoadScenario::Baseline, 6), &never);
    assert_eq!(
        (outcome.summary.ok, outcome.summary.attempts),
        (6, 6),
        "{:?}",
        outcome.records
    );
    assert_eq!(outcome.summary.failure_rate_pct, Some(0.0));
    let poll = cloud.recipe.timeouts.poll.as_millis() as i64;
    // A command takes a moment to start before it looks at the clock.
    let start_slack = 100;
    for r in &outcome.records {
        let truth = truth(&cloud, r.id.as_deref().unwrap());
        let stamped = [r.provisioned_at, r.image_ready_at, r.first_compute_at]
            .map(|t| t.unwrap().as_millisecond());
        for (i, stage) in [Stage::Provision, Stage::Ready, Stage::FirstCompute]
            .into_iter()
            .enumerate()
        {
            let bracket = r.brackets.iter().find(|b| b.stage == stage).unwrap();
            assert_eq!(bracket.at.as_millisecond(), stamped[i]);
            // Never before the truth, at most one bracket after it, and a
            // bracket no wider than a poll and the poll's own answer.
            assert!(
                stamped[i] >= truth[i] - start_slack,
                "{stage}: stamped {} ms before the truth",
                truth[i] - stamped[i]
            );
            assert!(
                stamped[i] - truth[i] <= bracket.width_ms,
                "{stage}: {} ms late, bracket {} ms",
                stamped[i] - truth[i],
                bracket.width_ms
            );
            assert!(
                bracket.width_ms <= poll + 150 + 1000,
                "{stage}: bracket {} ms",
                bracket.width_ms
            );
            assert!(bracket.since.as_millisecond() <= truth[i] + start_slack);
        }
    }
}

#[test]
fn baseline_and_peak_campaigns_record_every_stage_and_leave_nothing_running() {
    let cloud = Cloud::new(&[]);
    let never = AtomicBool::new(false);
    let outcome = cloud.campaign(&request(LoadScenario::Baseline, 4), &never);
    assert_eq!(
        (outcome.summary.ok, outcome.summary.attempts),
        (4, 4),
        "{:?}",
        outcome.records
    );
    let p50 = outcome.summary.p50_s.unwrap();
    assert!(p50 > 0.1 && p50 < 5.0, "{p50}");
    assert_eq!(outcome.summary.failure_rate_pct, Some(0.0));
    let run_id = outcome.run_id.unwrap();
    let attempts = cloud.store.startup_attempts(run_id).unwrap();
    assert_eq!(attempts.len(), 4);
    for a in &attempts {
        assert_eq!(a.outcome, StartupOutcome::Ok);
        let (p, i, f) = (
            a.provisioned_at.unwrap(),
            a.image_ready_at.unwrap(),
            a.first_compute_at.unwrap(),
        );
        assert!(a.submitted_at <= p && p <= i && i <= f);
    }
    // Baseline launches are spaced.
    let gap = attempts[3]
        .submitted_at
        .duration_since(attempts[0].submitted_at);
    assert!(gap.as_secs_f64() >= 0.29, "{gap:?}");
    let run = cloud.store.run(run_id).unwrap();
    assert_eq!(run.source.as_str(), "campaign");
    assert_eq!(
        run.metadata["campaign"]["recipe_sha256"],
        cloud.recipe.sha256.as_str()
    );
    let logged = &run.metadata["campaign"]["attempts"][0]["commands"];
    assert!(
        logged[0]["command"]
            .as_str()
            .unwrap()
            .contains("launch --image torch-2.4-warm --type a100 --name bp-t-1")
    );
    assert!(
        cloud.running().is_empty(),
        "left running: {:?}",
        cloud.running()
    );
    assert!(cloud.ledger.outstanding().unwrap().is_empty());

    let peak = Request {
        images: Images::Both,
        ..request(LoadScenario::Peak, 6)
    };
    let outcome = cloud.campaign(&peak, &never);
    assert_eq!(outcome.summary.ok, 6);
    let attempts = cloud
        .store
        .startup_attempts(outcome.run_id.unwrap())
        .unwrap();
    let first = attempts.iter().map(|a| a.submitted_at).min().unwrap();
    let last = attempts.iter().map(|a| a.submitted_at).max().unwrap();
    assert!(
        last.duration_since(first).as_secs_f64() < 1.0,
        "a peak is at once"
    );
    assert_eq!(
        attempts
            .iter()
            .filter(|a| a.image.as_str() == "cold")
            .count(),
        3
    );
    assert!(cloud.running().is_empty());

    // A cloud that gives the address only once the instance runs.
    let late = Cloud::new(&[("FAKECLOUD_LATE_ADDRESS", "1")]);
    let late_outcome = late.campaign(&request(LoadScenario::Peak, 2), &never);
    assert_eq!(late_outcome.summary.ok, 2, "{:?}", late_outcome.records);
    let ready = &late_outcome.records[0]
        .commands
        .iter()
        .find(|c| c.stage == Stage::Ready)
        .unwrap()
        .command;
    assert!(ready.contains(" 10.0.0."), "{ready}");

    // The startup metrics read the campaign's runs like any other.
    let run = cloud.store.run(outcome.run_id.unwrap()).unwrap();
    let values = breakpoint_core::metrics::compute_run(&cloud.store, &run).unwrap();
    assert!(
        values.iter().any(|v| v.key == "startup.peak_p50_s"),
        "{values:?}"
    );
}

#[test]
fn a_stop_in_the_middle_tears_down_every_launched_instance() {
    let cloud = Cloud::new(&[("FAKECLOUD_SLOW", "3000")]);
    let cancel = Arc::new(AtomicBool::new(false));
    let stopper = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            cancel.store(true, Ordering::Relaxed);
        })
    };
    let outcome = cloud.campaign(&request(LoadScenario::Baseline, 10), &cancel);
    stopper.join().unwrap();
    let endings: Vec<Ending> = outcome.records.iter().map(|r| r.ending).collect();
    assert!(endings.contains(&Ending::Cancelled), "{endings:?}");
    assert!(endings.contains(&Ending::NotStarted), "{endings:?}");
    assert!(
        outcome
            .records
            .iter()
            .filter(|r| r.id.is_some())
            .all(|r| r.torn_down == Some(true))
    );
    assert!(
        cloud.running().is_empty(),
        "left running: {:?}",
        cloud.running()
    );
    assert!(
        cloud.ledger.outstanding().unwrap().is_empty(),
        "{:?}\n{:?}",
        cloud.ledger.outstanding().unwrap(),
        outcome.records
    );
    // A stop is no evidence against the platform: nothing recorded.
    assert_eq!(outcome.run_id, None);
}

#[test]
fn misbehaving_launches_statuses_and_teardowns() {
    let cloud = Cloud::new(&[
        ("FAKECLOUD_NO_ID", "bp-t-1"),
        ("FAKECLOUD_FAIL_AFTER_ID", "bp-t-2"),
        ("FAKECLOUD_HANG_STATUS", "bp-t-3"),
        ("FAKECLOUD_COMPUTE_FAILS", "bp-t-4"),
        ("FAKECLOUD_TEARDOWN_FAILS_ONCE", "1"),
    ]);
    let never = AtomicBool::new(false);
    let mut recipe_timeouts = cloud.recipe.timeouts;
    recipe_timeouts.provision = Duration::from_millis(1500);
    // A first computation that keeps failing is retried until this.
    recipe_timeouts.first_compute = Duration::from_millis(600);
    let cloud = Cloud {
        recipe: Recipe {
            timeouts: recipe_timeouts,
            ..cloud.recipe.clone()
        },
        ..cloud
    };
    let outcome = cloud.campaign(&request(LoadScenario::Peak, 5), &never);
    let r = &outcome.records;
    // 1: no id: failed with the output quoted; nothing torn down by a made-up id.
    assert_eq!((r[0].ending, r[0].torn_down), (Ending::Failed, None));
    let (stage, why) = r[0].failure.clone().unwrap();
    assert_eq!(stage, Stage::Launch);
    assert!(
        why.contains("printed no id") && why.contains("request accepted"),
        "{why}"
    );
    assert!(!r[0].commands.iter().any(|c| c.stage == Stage::Teardown));
    // 2: an id, then a failure: torn down.
    assert_eq!((r[1].ending, r[1].torn_down), (Ending::Failed, Some(true)));
    assert!(r[1].failure.clone().unwrap().1.contains("quota exceeded"));
    // 3: a status that hangs: a timeout, torn down.
    assert_eq!((r[2].ending, r[2].torn_down), (Ending::Timeout, Some(true)));
    assert_eq!(r[2].failure.clone().unwrap().0, Stage::Provision);
    // 4: the first computation fails: its error quoted.
    assert_eq!(r[3].ending, Ending::Failed);
    assert!(r[3].failure.clone().unwrap().1.contains("no kernel image"));
    // 5: fine; every teardown failed once and was retried.
    assert_eq!(r[4].ending, Ending::Ok);
    assert_eq!(
        r[4].commands
            .iter()
            .filter(|c| c.stage == Stage::Teardown)
            .count(),
        2
    );

    // Only the instance without an id is left, and the ledger says so.
    assert_eq!(cloud.running_names(), vec!["bp-t-1".to_string()]);
    let open = cloud.ledger.outstanding().unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(
        (open[0].name.as_str(), open[0].id.as_deref()),
        ("bp-t-1", None)
    );
    assert_eq!(outcome.summary.failure_rate_pct, Some(80.0));
    let run = cloud.store.run(outcome.run_id.unwrap()).unwrap();
    assert!(
        run.warnings
            .iter()
            .any(|w| w.contains("bp-t-1: the launch printed no id"))
    );
    let cleaned = cleanup(&cloud.ledger, &SystemShell, Duration::from_secs(5))
        .unwrap()
        .instances;
    assert_eq!(cleaned.len(), 1);
    assert_eq!(cleaned[0].torn_down, None);
    assert!(breakpoint_campaign::forget(&cloud.ledger, "bp-t-1").unwrap());
    assert!(cloud.ledger.outstanding().unwrap().is_empty());
}

#[test]
fn a_launch_command_that_cannot_run_leaves_nothing_in_the_ledger() {
    let cloud = Cloud::new(&[]);
    let mut recipe = cloud.recipe.clone();
    recipe.commands.launch = "no-such-cloud-cli launch {name}".into();
    let cloud = Cloud { recipe, ..cloud };
    let outcome = cloud.campaign(&request(LoadScenario::Peak, 2), &AtomicBool::new(false));
    assert!(outcome.records.iter().all(|r| r.ending == Ending::Failed));
    let why = outcome.records[0].failure.clone().unwrap().1;
    assert!(
        why.contains("could not run") && why.contains("exit 127"),
        "{why}"
    );
    assert!(cloud.ledger.outstanding().unwrap().is_empty());
}

#[test]
fn two_campaigns_of_the_same_second_never_share_an_instance_name() {
    let cloud = Cloud::new(&[]);
    let never = AtomicBool::new(false);
    // Both asked for the same name, at once, on one ledger file (each with
    // a ledger and a database of its own, as two processes have).
    let (recipe, ledger_path) = (&cloud.recipe, cloud.ledger.path());
    let campaign = || {
        let store = Store::open_in_memory().unwrap();
        let platform = store
            .create_platform(&Platform::new("Fake cloud", PlatformKind::Other, None).unwrap())
            .unwrap()
            .id;
        let request = request(LoadScenario::Peak, 4);
        let plan = plan::plan(recipe, &request).unwrap();
        let target = Target {
            platform_id: platform,
            offering_id: None,
            recipe_file: "fake.toml".into(),
        };
        let ledger = Ledger::at(ledger_path.to_path_buf());
        run(
            &store,
            &target,
            recipe,
            &request,
            &plan,
            &SystemShell,
            &ledger,
            &never,
            &Quiet,
        )
        .unwrap()
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(campaign);
        let b = scope.spawn(campaign);
        (a.join().unwrap(), b.join().unwrap())
    });
    let mut names: Vec<&str> = a
        .records
        .iter()
        .chain(&b.records)
        .map(|r| r.plan.name.as_str())
        .collect();
    names.sort_unstable();
    let all = names.len();
    names.dedup();
    assert_eq!(names.len(), all, "{names:?}");
    assert_eq!((a.summary.ok, b.summary.ok), (4, 4));
    assert!(cloud.running().is_empty());
    assert!(cloud.ledger.outstanding().unwrap().is_empty());
    // Names for new campaigns differ even within one second.
    assert_ne!(
        breakpoint_campaign::new_name(),
        breakpoint_campaign::new_name()
    );
}

/// `cli launch …; notify-send done`: the cloud started the instance and
/// printed its id, then the shell could not run the notifier (exit 127).
/// The instance is an instance: torn down, nothing left running.
#[test]
fn a_launch_that_printed_an_id_is_an_instance_whatever_its_exit() {
    let cloud = Cloud::new(&[]);
    let mut recipe = cloud.recipe.clone();
    recipe.commands.launch = format!("{}; no-such-notifier done", recipe.commands.launch);
    let cloud = Cloud { recipe, ..cloud };
    let outcome = cloud.campaign(&request(LoadScenario::Peak, 2), &AtomicBool::new(false));
    for r in &outcome.records {
        assert!(r.id.is_some(), "{r:?}");
        assert_eq!(r.torn_down, Some(true), "{r:?}");
    }
    assert!(cloud.running().is_empty(), "{:?}", cloud.running());
    assert!(cloud.ledger.outstanding().unwrap().is_empty());
}
