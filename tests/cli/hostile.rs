//! Figures that cannot be wrong, through the binary: names that only look
//! different, absurd weights, read-only and mistyped databases, file names
//! with control characters, folders that loop, pipes given as files, and
//! run ids that never come back.

use std::path::Path;
use std::process::Command;

use crate::util::{Workspace, fixture};

fn with_platform() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P", "--kind", "other"]);
    ws
}

#[test]
fn names_that_read_the_same_are_one_platform() {
    let ws = with_platform();
    ws.ok(&["platform", "add", "Café", "--kind", "other"]);
    let existing = "error: platform \"Café\" already exists";
    // The decomposed form macOS writes is the same name.
    ws.fails(
        &["platform", "add", "Cafe\u{301}", "--kind", "other"],
        1,
        existing,
    );
    ws.fails(
        &["platform", "add", "CAFÉ", "--kind", "other"],
        1,
        "error: platform \"CAFÉ\" reads the same as the existing platform \"Café\"; choose another name",
    );
    // Cyrillic "а" for the Latin "a".
    ws.fails(
        &["platform", "add", "C\u{430}fé", "--kind", "other"],
        1,
        "error: platform \"C\u{430}fé\" reads the same as the existing platform \"Café\"; choose another name",
    );
    let out = ws
        .cmd(&["platform", "add", "Caf\u{200B}é", "--kind", "other"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("invisible or text-direction characters (found U+200B)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ws
        .cmd(&["platform", "add", "\u{202E}lpmaxe", "--kind", "other"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(ws.json(&["platform", "list"]).as_array().unwrap().len(), 2);
    // Any spelling finds it.
    assert_eq!(
        ws.json(&["platform", "show", "CAFE\u{301}"])["name"],
        "Café"
    );
}

#[test]
fn weights_that_overflow_are_refused_not_stored_as_zero() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "P", "--kind", "other"]);
    let out = ws
        .cmd(&[
            "weights",
            "add",
            "w",
            "--startup",
            "1e308",
            "--sustain",
            "1e308",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("weights") && stderr.contains("add up"),
        "{stderr}"
    );
    let names: Vec<String> = ws
        .json(&["weights", "list"])
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!names.contains(&"w".to_string()), "{names:?}");
    // Look-alike profile names are one profile too.
    ws.ok(&["weights", "add", "Fast", "--startup", "2"]);
    let out = ws
        .cmd(&["weights", "add", "FAST", "--startup", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("reads the same as the existing weight profile \"Fast\"")
    );
}

#[test]
fn a_mistyped_database_path_is_refused_by_reading_commands_and_not_created() {
    let ws = Workspace::new();
    for args in [
        &["rank"][..],
        &["platform", "list"],
        &["runs", "list"],
        &["db", "info"],
        &["report", "-o", "x.pdf"],
    ] {
        let out = ws.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("there is no database here"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(&ws.db.display().to_string()), "{stderr}");
        assert!(!ws.db.exists(), "{args:?} created the database");
    }
    // A command that stores something creates it.
    ws.ok(&["platform", "add", "P", "--kind", "other"]);
    assert!(ws.db.exists());
}

#[test]
fn run_ids_are_not_handed_out_again() {
    let ws = with_platform();
    let import = |name: &str| {
        let v = ws.json(&["import", &fixture(name), "--platform", "P", "--tz", "UTC"]);
        v[0]["run_id"].as_i64().unwrap()
    };
    import("smi-csv/header-units.csv");
    let second = import("smi-csv/nounits.csv");
    ws.ok(&["runs", "rm", &second.to_string(), "--yes"]);
    let third = import("smi-csv/nounits.csv");
    assert!(
        third > second,
        "run {second} was removed, then {third} was given out"
    );
}

#[test]
fn imported_and_already_imported_name_the_file_the_same_way() {
    let ws = with_platform();
    let path = fixture("smi-csv/header-units.csv");
    let first = ws.json(&["import", &path, "--platform", "P", "--tz", "UTC"]);
    let second = ws.json(&["import", &path, "--platform", "P", "--tz", "UTC"]);
    assert_eq!(first[0]["file"], path.as_str());
    assert_eq!(second[0]["status"], "already_imported");
    assert_eq!(second[0]["file"], path.as_str());
    assert_eq!(second[0]["matched"], "bytes");
    assert_eq!(second[0]["earlier_file"], "header-units.csv");
}

/// A log named with an ESC sequence and a newline: the terminal gets
/// escapes, JSON keeps the name exactly, the PDF is written.
#[test]
fn control_characters_in_a_file_name_are_shown_not_obeyed() {
    let ws = with_platform();
    let name = "gpu\u{1b}[31mred\nline.csv";
    let path = ws.dir.path().join(name);
    std::fs::copy(fixture("smi-csv/header-units.csv"), &path).unwrap();
    let out = ws.ok(&[
        "import",
        path.to_str().unwrap(),
        "--platform",
        "P",
        "--tz",
        "UTC",
    ]);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(out.contains("gpu\\u{1b}[31mred\\nline.csv"), "{out}");
    let list = ws.ok(&["runs", "list"]);
    assert!(!list.contains('\u{1b}'), "{list:?}");
    assert!(list.contains("\\u{1b}"), "{list}");
    let json = ws.json(&["runs", "list"]);
    assert_eq!(json[0]["provenance"]["file_name"], name, "{json}");
    let pdf = ws.dir.path().join("r.pdf");
    ws.ok(&["report", "-o", pdf.to_str().unwrap()]);
    assert!(pdf.metadata().unwrap().len() > 1000);
}

#[cfg(unix)]
#[test]
fn a_folder_whose_links_loop_imports_each_file_once_and_says_what_it_skipped() {
    use std::os::unix::fs::symlink;
    let ws = with_platform();
    let a = ws.dir.path().join("A");
    std::fs::create_dir(&a).unwrap();
    std::fs::copy(fixture("smi-csv/header-units.csv"), a.join("gpu.csv")).unwrap();
    symlink(".", a.join("s1")).unwrap();
    symlink(".", a.join("s2")).unwrap();
    symlink("..", a.join("up")).unwrap();
    let out = ws
        .cmd(&[
            "import",
            a.to_str().unwrap(),
            "--platform",
            "P",
            "--tz",
            "UTC",
            "--json",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results.as_array().unwrap().len(), 1, "{results}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for link in ["s1", "s2", "up"] {
        assert!(
            stderr.contains(&format!(
                "A/{link}: a link back to the folder being imported"
            )),
            "{stderr}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_given_as_a_file_is_named_for_what_it_is() {
    let ws = with_platform();
    let fifo = ws.dir.path().join("live.csv");
    mkfifo(&fifo);
    let message = format!(
        "error: {}: is a named pipe (FIFO), not a file; save the log to a file and import that",
        fifo.display()
    );
    ws.fails(
        &["import", fifo.to_str().unwrap(), "--platform", "P"],
        1,
        &message,
    );
}

/// Run `breakpoint ARGS` so that the folder holding the database cannot be
/// written: as an ordinary user, by taking the folder's write permission
/// away; as root (who ignores permissions), on a read-only bind mount in a
/// private mount namespace. `None` where neither is possible.
fn run_read_only(ws: &Workspace, args: &[&str]) -> Option<std::process::Output> {
    let bin = assert_cmd::cargo::cargo_bin("breakpoint");
    let dir = ws.dir.path();
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !is_root {
        set_mode(dir, 0o555);
        set_mode(&ws.db, 0o444);
        let out = Command::new(&bin)
            .arg("--db")
            .arg(&ws.db)
            .args(args)
            .output()
            .unwrap();
        set_mode(dir, 0o755);
        set_mode(&ws.db, 0o644);
        return Some(out);
    }
    let script = r#"mount --bind -o ro "$1" "$1" && shift && exec "$@""#;
    let out = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(dir)
        .arg(&bin)
        .arg("--db")
        .arg(&ws.db)
        .args(args)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && (stderr.contains("unshare") || stderr.contains("mount:")) {
        eprintln!("no read-only mount here ({stderr}); the read-only case is not exercised");
        return None;
    }
    Some(out)
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(unix)]
#[test]
fn a_database_that_cannot_be_written_is_still_read_ranked_and_reported() {
    let ws = with_platform();
    ws.ok(&[
        "import",
        &fixture("smi-csv/header-units.csv"),
        "--platform",
        "P",
        "--tz",
        "UTC",
    ]);
    // Nothing cached yet: rank must compute without being able to keep it.
    let Some(rank) = run_read_only(&ws, &["rank", "--json"]) else {
        return;
    };
    assert!(
        rank.status.success(),
        "{}",
        String::from_utf8_lossy(&rank.stderr)
    );
    let ranking: serde_json::Value = serde_json::from_slice(&rank.stdout).unwrap();
    assert_eq!(ranking["ranking"]["platforms"][0]["name"], "P", "{ranking}");
    let pdf = std::env::temp_dir().join(format!("bp-ro-{}.pdf", std::process::id()));
    let report = run_read_only(&ws, &["report", "-o", pdf.to_str().unwrap()]).unwrap();
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let _ = std::fs::remove_file(&pdf);
    let list = run_read_only(&ws, &["runs", "list", "--json"]).unwrap();
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    // Writing is refused with the reason, not "cannot be opened".
    let add = run_read_only(&ws, &["platform", "add", "Q", "--kind", "other"]).unwrap();
    assert_eq!(add.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&add.stderr);
    assert!(stderr.contains("it can only be read here"), "{stderr}");
    assert_eq!(ws.json(&["platform", "list"]).as_array().unwrap().len(), 1);
}

/// A named pipe at `path`.
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// No output — the report, a bundle, the dispute sheet, the suites written
/// out as scripts — is written over the workspace (its database under any
/// name, the files beside it, its campaign ledger), forced or not; the
/// workspace and its ledger are unchanged after each refusal.
#[test]
fn outputs_never_replace_the_workspace_or_its_ledger() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let dir = ws.dir.path();
    let ledger = dir.join("breakpoint.db.campaigns.jsonl");
    let ledger_text = "{\"event\":\"launching\",\"name\":\"c-1\",\"campaign\":\"c\",\"at\":\"2026-12-01T00:00:00Z\"}\n";
    std::fs::write(&ledger, ledger_text).unwrap();
    let db = ws.db.to_str().unwrap().to_string();
    let db_bytes = std::fs::read(&ws.db).unwrap();
    let beside = format!("{db}-wal");
    let again = dir.join(".").join("breakpoint.db");
    for target in [
        db.as_str(),
        beside.as_str(),
        again.to_str().unwrap(),
        ledger.to_str().unwrap(),
    ] {
        for args in [
            vec!["report", "-o", target, "--samples", "50"],
            vec!["report", "-o", target, "--samples", "50", "--force"],
            vec!["bundle", "export", "-o", target, "--force"],
            vec!["bill", "--disputes", "-o", target, "--force"],
            vec!["accept", "perf", "--write-script", target, "--force"],
            vec!["accept", "operators", "--write-script", target],
        ] {
            let before = ws.snapshot();
            let out = ws
                .cmd(&args)
                .timeout(std::time::Duration::from_secs(60))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains("is the workspace"), "{args:?}: {stderr}");
            assert_eq!(ws.snapshot(), before);
            assert_eq!(std::fs::read_to_string(&ledger).unwrap(), ledger_text);
        }
    }
    assert_eq!(std::fs::read(&ws.db).unwrap(), db_bytes);
    ws.ok(&["campaign", "status"]);
}

/// A folder is refused; a link or a named pipe is replaced only when
/// forced (the link itself, never what it points to); a plain file is
/// replaced whole, nothing left beside it.
#[test]
fn outputs_replace_only_plain_files_unless_forced() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let dir = ws.dir.path();
    let out = ws
        .cmd(&["report", "-o", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a folder"));

    let kept = dir.join("kept");
    std::fs::write(&kept, b"keep").unwrap();
    for (name, command) in [
        ("link.pdf", vec!["report", "--samples", "50", "-o"]),
        ("perf.py", vec!["accept", "perf", "--write-script"]),
    ] {
        let link = dir.join(name);
        std::os::unix::fs::symlink(&kept, &link).unwrap();
        let mut args = command.clone();
        args.push(link.to_str().unwrap());
        let out = ws.cmd(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
        args.push("--force");
        ws.ok(&args);
        assert_eq!(
            std::fs::read(&kept).unwrap(),
            b"keep",
            "the link's target is untouched"
        );
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
    }
    assert!(
        std::fs::read_to_string(dir.join("perf.py"))
            .unwrap()
            .contains("import")
    );

    // Named pipes: refused at once (a plain write would block on them).
    for (name, command) in [
        ("pipe.tar", vec!["bundle", "export", "-o"]),
        ("sheet.csv", vec!["bill", "--disputes", "-o"]),
    ] {
        let fifo = dir.join(name);
        mkfifo(&fifo);
        let mut args = command.clone();
        args.push(fifo.to_str().unwrap());
        let out = ws
            .cmd(&args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("named pipe"));
    }

    let sheet = dir.join("old.csv");
    std::fs::write(&sheet, b"old").unwrap();
    ws.ok(&["bill", "--disputes", "-o", sheet.to_str().unwrap()]);
    assert_ne!(std::fs::read(&sheet).unwrap(), b"old");
    assert!(!dir.join("old.csv.partial").exists());
}

/// Writing `X` never touches `X.partial`: not a user's file of that name,
/// not the workspace itself when it is called so (`--db x.partial report
/// -o x`). Every writer makes a scratch file of its own beside the target.
#[test]
fn a_file_named_like_a_scratch_file_is_never_removed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.partial");
    let ws = Workspace {
        db: db.clone(),
        dir,
    };
    ws.ok(&["platform", "add", "Lab"]);
    let x = ws.dir.path().join("x");
    let out = ws
        .cmd(&["report", "--samples", "50", "-o", x.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(db.exists(), "the workspace was deleted");
    assert!(ws.ok(&["platform", "list"]).contains("Lab"));
    let dir = ws.dir.path();
    for (name, command) in [
        ("report.pdf", vec!["report", "--samples", "50", "-o"]),
        ("bundle.tar", vec!["bundle", "export", "-o"]),
        ("sheet.csv", vec!["bill", "--disputes", "-o"]),
        ("perf.py", vec!["accept", "perf", "--write-script"]),
    ] {
        let users = dir.join(format!("{name}.partial"));
        std::fs::write(&users, b"the user's own").unwrap();
        let target = dir.join(name);
        let mut args = command.clone();
        args.push(target.to_str().unwrap());
        ws.ok(&args);
        assert!(target.exists(), "{name}");
        assert_eq!(std::fs::read(&users).unwrap(), b"the user's own", "{name}");
    }
    // Nothing of the writers' own is left beside the outputs.
    let scratch: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
}

/// Counts the user types are checked before anything of that size is made.
#[test]
fn counts_past_any_sense_are_refused_before_allocating() {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Lab"]);
    let out = ws
        .cmd(&["rank", "--samples", "1000000000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at most 1000000"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recipe =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/campaign/fake.toml");
    let out = ws
        .cmd(&[
            "campaign",
            "run",
            recipe.to_str().unwrap(),
            "--platform",
            "Lab",
            "--scenario",
            "peak",
            "--count",
            "1000000000",
            "--dry-run",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("at most 10000"), "{stderr}");
}
