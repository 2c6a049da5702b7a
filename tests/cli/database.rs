use std::process::Stdio;

use crate::util::Workspace;

#[test]
fn db_info_reports_schema_and_counts() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "UCloud"]);
    let info = ws.json(&["db", "info"]);
    assert_eq!(info["schema_version"], 16);
    assert_eq!(info["platforms"], 1);
    assert_eq!(info["claims"], 1);
    assert_eq!(info["samples"], 0);
    assert_eq!(info["path"], ws.db.display().to_string());
    let text = ws.ok(&["db", "info"]);
    assert!(text.contains("schema version  16"), "{text}");
}

#[test]
fn the_database_option_goes_before_or_after_the_command_or_in_the_environment() {
    let ws = Workspace::new();
    let other = ws.dir.path().join("other.db");
    let mut before = assert_cmd::Command::cargo_bin("breakpoint").unwrap();
    before
        .arg("--db")
        .arg(&other)
        .args(["platform", "add", "A"])
        .assert()
        .success();
    let mut after = assert_cmd::Command::cargo_bin("breakpoint").unwrap();
    after
        .args(["platform", "add", "B", "--db"])
        .arg(&other)
        .assert()
        .success();
    let mut env = assert_cmd::Command::cargo_bin("breakpoint").unwrap();
    let out = env
        .env("BREAKPOINT_DB", &other)
        .args(["platform", "list", "--json"])
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert!(!ws.db.exists(), "the workspace database was not touched");
}

#[test]
fn two_processes_write_to_one_database_at_once() {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let db = ws.db.clone();
            std::thread::spawn(move || {
                for i in 0..15 {
                    let status =
                        std::process::Command::new(assert_cmd::cargo::cargo_bin("breakpoint"))
                            .arg("--db")
                            .arg(&db)
                            .args(["platform", "add", &format!("w{w}-{i}")])
                            .stdout(Stdio::null())
                            .status()
                            .unwrap();
                    assert!(status.success());
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(ws.json(&["platform", "list"]).as_array().unwrap().len(), 30);
}
