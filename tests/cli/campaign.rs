//! `breakpoint campaign` against the fake cloud on PATH: refusals before
//! anything runs, a recorded campaign, and kill -9 / Ctrl-C leaving no
//! instance the ledger does not know of.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::Workspace;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/campaign")
}

/// The workspace with the fake cloud on PATH and its state in the workspace.
pub(crate) struct Cloud {
    pub(crate) ws: Workspace,
    path: String,
    state: PathBuf,
}

impl Cloud {
    pub(crate) fn new() -> Cloud {
        let ws = Workspace::new();
        ws.ok(&["platform", "add", "Fake cloud"]);
        let path = format!(
            "{}:{}",
            fixtures().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let state = ws.dir.path().join("cloud");
        Cloud { ws, path, state }
    }

    fn cmd(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Command {
        let mut c = self.ws.process(args);
        c.env("PATH", &self.path).env("FAKECLOUD_DIR", &self.state);
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }

    pub(crate) fn output(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let out = self.cmd(args, env).stdin(Stdio::null()).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn running(&self) -> usize {
        std::fs::read_dir(&self.state)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("i-"))
                    .count()
            })
            .unwrap_or(0)
    }

    fn ledger(&self) -> PathBuf {
        self.ws.dir.path().join("breakpoint.db.campaigns.jsonl")
    }
}

pub(crate) fn recipe() -> String {
    fixtures().join("fake.toml").display().to_string()
}

#[test]
fn bad_recipes_and_unconfirmed_campaigns_launch_nothing() {
    let cloud = Cloud::new();
    let dir = cloud.ws.dir.path();
    let broken = dir.join("broken.toml");
    let text = std::fs::read_to_string(fixtures().join("fake.toml")).unwrap();
    std::fs::write(&broken, text.replace("--name {name}", "--name {nmae}")).unwrap();
    let (code, _, err) = cloud.output(&["campaign", "run", broken.to_str().unwrap(), "--yes"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("broken.toml:18: launch: unknown placeholder {nmae}"),
        "{err}"
    );
    let syntax = dir.join("syntax.toml");
    std::fs::write(&syntax, text.replace("[commands]", "[commands")).unwrap();
    let (code, _, err) = cloud.output(&["campaign", "check", syntax.to_str().unwrap()], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("syntax.toml:17:"), "{err}");

    // No terminal and no --yes: refused after showing the estimate.
    let (code, _, err) = cloud.output(
        &[
            "campaign",
            "run",
            &recipe(),
            "--count",
            "2",
            "--spacing",
            "100ms",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("2 instance(s), each up for at most 25 s: at most 0.17 CNY"),
        "{err}"
    );
    assert!(
        err.contains("confirm it on a terminal, or pass --yes"),
        "{err}"
    );

    let (code, _, err) = cloud.output(
        &[
            "campaign",
            "run",
            &recipe(),
            "--scenario",
            "peak",
            "--count",
            "50",
            "--yes",
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("would launch 50 instances, more than the limit of 10 (--max-instances)"),
        "{err}"
    );

    assert_eq!(cloud.running(), 0);
    assert!(!cloud.ledger().exists(), "nothing was launched");
}

#[test]
fn a_confirmed_campaign_is_recorded_and_ranks_like_any_evidence() {
    let cloud = Cloud::new();
    let (code, out, err) = cloud.output(
        &[
            "campaign",
            "run",
            &recipe(),
            "--scenario",
            "mixed",
            "--count",
            "1",
            "--yes",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("mixed: 2 attempts — 2 ok"), "{out}");
    assert!(out.contains("recorded as run 1"), "{out}");
    assert_eq!(cloud.running(), 0);
    let run = cloud.ws.json(&["runs", "show", "1"]);
    assert_eq!(run["source"], "campaign");
    assert_eq!(run["startup_attempts"], 2);
    let explain = cloud.ws.ok(&["explain", "Fake cloud", "startup"]);
    assert!(
        explain.contains("Start latency p50, mixed load") && explain.contains("fake.toml"),
        "{explain}"
    );
    let (_, status, _) = cloud.output(&["campaign", "status"], &[]);
    assert!(status.contains("no instance outstanding"), "{status}");

    // The campaign is listed with what its attempts add up to.
    let listed = cloud.ws.ok(&["campaign", "list"]);
    assert!(
        listed.contains("#1") && listed.contains("Fake cloud") && listed.contains("fake.toml"),
        "{listed}"
    );
    let past = cloud.ws.json(&["campaign", "list"]);
    assert_eq!(past[0]["run_id"], 1);
    assert_eq!(past[0]["scenario"], "mixed");
    assert_eq!(past[0]["ok"], 2);
    assert_eq!(past[0]["attempts"].as_array().unwrap().len(), 2);
    assert_eq!(past[0]["failure_rate_pct"], 0.0);
    assert!(past[0]["p95_s"].as_f64().unwrap() >= past[0]["p50_s"].as_f64().unwrap());

    // The report's startup page names the campaign behind the figures.
    let pdf = cloud.ws.dir.path().join("r.pdf");
    cloud
        .ws
        .ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "100"]);
    let text = std::process::Command::new("pdftotext")
        .args(["-layout", pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("Startup campaigns behind these figures"),
        "{text}"
    );
    assert!(
        text.contains("(mixed), attempts 2, recipe fake.toml"),
        "{text}"
    );
}

/// Wait until the ledger holds `n` launched instances.
fn wait_for_launches(ledger: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let launched = std::fs::read_to_string(ledger)
            .map(|t| t.matches("\"launched\"").count())
            .unwrap_or(0);
        if launched >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the campaign never launched {n} instances");
}

#[test]
fn kill_9_leaves_the_ledger_holding_what_cleanup_tears_down() {
    let cloud = Cloud::new();
    let mut child = cloud
        .cmd(
            &[
                "campaign",
                "run",
                &recipe(),
                "--scenario",
                "peak",
                "--count",
                "3",
                "--yes",
            ],
            &[("FAKECLOUD_SLOW", "20000")],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_launches(&cloud.ledger(), 3);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(cloud.running(), 3);
    let (_, status, _) = cloud.output(&["campaign", "status"], &[]);
    assert!(
        status.contains("3 instance(s) may still be running"),
        "{status}"
    );
    let (code, out, err) = cloud.output(&["campaign", "cleanup"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("torn down").count(), 3, "{out}");
    assert_eq!(cloud.running(), 0);
    let (_, status, _) = cloud.output(&["campaign", "status"], &[]);
    assert!(status.contains("no instance outstanding"), "{status}");
}

#[test]
fn ctrl_c_tears_down_every_launched_instance() {
    let cloud = Cloud::new();
    let child = cloud
        .cmd(
            &[
                "campaign",
                "run",
                &recipe(),
                "--count",
                "6",
                "--spacing",
                "300ms",
                "--yes",
            ],
            &[("FAKECLOUD_SLOW", "20000")],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_launches(&cloud.ledger(), 2);
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopping"), "{stderr}");
    // A script hears that the campaign was stopped (128 + SIGINT).
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(cloud.running(), 0, "{stderr}");
    let (_, status, _) = cloud.output(&["campaign", "status"], &[]);
    assert!(status.contains("no instance outstanding"), "{status}");
}

#[test]
fn a_ledger_that_cannot_be_written_launches_nothing_and_says_so() {
    let cloud = Cloud::new();
    // A folder where the ledger file belongs.
    std::fs::create_dir_all(cloud.ledger()).unwrap();
    let (code, _, stderr) = cloud.output(
        &["campaign", "run", &recipe(), "--count", "2", "--yes"],
        &[],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("ledger"), "{stderr}");
    assert_eq!(cloud.running(), 0);
    // Nothing was recorded as a failed start of the platform.
    let runs = cloud.ws.json(&["runs", "list"]);
    assert!(runs.as_array().unwrap().is_empty(), "{runs}");
}

/// `--repeat 2`: two rounds a second apart, each recorded as a run of its
/// own under its round's name, every instance torn down.
#[test]
fn a_repeated_campaign_records_each_round() {
    let cloud = Cloud::new();
    let (code, out, err) = cloud.output(
        &[
            "campaign",
            "run",
            &recipe(),
            "--count",
            "1",
            "--repeat",
            "2",
            "--every",
            "1s",
            "--yes",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("recorded as run 1") && out.contains("recorded as run 2"),
        "{out}"
    );
    assert_eq!(cloud.running(), 0);
    let past = cloud.ws.json(&["campaign", "list"]);
    let names: Vec<String> = past
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(past.as_array().unwrap().len(), 2, "{past}");
    assert!(
        names.iter().any(|n| n.ends_with("r1")) && names.iter().any(|n| n.ends_with("r2")),
        "{names:?}"
    );
}
