//! The test workspace: a temporary database and a way to run the binary on it.

use std::path::PathBuf;

use assert_cmd::Command;

/// A log under tests/fixtures/logs, as a path string.
/// The metric `key` among a platform's breakpoints, as `explain --json`
/// and `rank --json` write them.
pub fn metric_in<'a>(platform: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    platform["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .iter()
        .flat_map(|b| b["metrics"].as_array().expect("metrics"))
        .find(|m| m["key"] == key)
        .unwrap_or_else(|| panic!("{key} missing"))
}

pub fn fixture(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/logs")
        .join(path)
        .display()
        .to_string()
}

pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
}

impl Workspace {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let db = dir.path().join("breakpoint.db");
        Self { dir, db }
    }

    /// `breakpoint --db <workspace db> --wide ARGS…`, isolated from the
    /// user's environment. Tests read what a command says, line by line,
    /// so its lines come whole; [`Workspace::piped`] reads the layout a
    /// pipe gets.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::cargo_bin("breakpoint").expect("binary");
        cmd.env_remove("BREAKPOINT_DB")
            .arg("--db")
            .arg(&self.db)
            .arg("--wide")
            .args(args);
        cmd
    }

    /// A command that must succeed, its output laid out as for a pipe
    /// (100 columns).
    pub fn piped(&self, args: &[&str]) -> String {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("breakpoint"))
            .env_remove("BREAKPOINT_DB")
            .arg("--db")
            .arg(&self.db)
            .args(args)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "breakpoint {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    /// The same as a plain process, for tests that manage it themselves.
    pub fn process(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("breakpoint"));
        cmd.env_remove("BREAKPOINT_DB")
            .arg("--db")
            .arg(&self.db)
            .args(args);
        cmd
    }

    /// Run a command that must succeed; returns its standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd(args).output().expect("run");
        assert!(
            out.status.success(),
            "breakpoint {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    /// The metric `key` of `platform` as `explain --json` gives it.
    pub fn metric(&self, platform: &str, key: &str) -> serde_json::Value {
        metric_in(&self.json(&["explain", platform]), key).clone()
    }

    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&self.ok(&all)).expect("JSON output")
    }

    /// Run a command that must fail with `code`, printing exactly `message`
    /// (one line) and leaving the database as it was.
    pub fn fails(&self, args: &[&str], code: i32, message: &str) {
        let before = self.snapshot();
        let out = self.cmd(args).output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(code),
            "breakpoint {args:?}: {stderr}"
        );
        assert_eq!(stderr, format!("{message}\n"), "breakpoint {args:?}");
        assert!(out.stdout.is_empty(), "nothing on stdout for {args:?}");
        assert_eq!(
            self.snapshot(),
            before,
            "breakpoint {args:?} changed the database"
        );
    }

    /// Everything a user can see of the database, to prove nothing changed.
    pub fn snapshot(&self) -> String {
        if !self.db.exists() {
            return String::new();
        }
        ["platform list", "offering list", "claim list", "runs list"]
            .iter()
            .map(|c| {
                let args: Vec<&str> = c.split(' ').collect();
                self.json(&args).to_string()
            })
            .chain(self.db_rule_snapshot())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn db_rule_snapshot(&self) -> Vec<String> {
        let platforms = self.json(&["platform", "list"]);
        platforms
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| {
                        let name = p["name"].as_str().unwrap_or_default();
                        self.json(&["billing", "show", "--platform", name])
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Pages `first`–`last` of a PDF as one line of text (poppler's
/// pdftotext, lines joined by spaces): what a reader sees there.
pub fn pdf_pages_text(pdf: &std::path::Path, first: u32, last: u32) -> String {
    let out = std::process::Command::new("pdftotext")
        .args(["-f", &first.to_string(), "-l", &last.to_string()])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils)");
    assert!(
        out.status.success(),
        "pdftotext failed on {}",
        pdf.display()
    );
    String::from_utf8_lossy(&out.stdout).replace('\n', " ")
}
