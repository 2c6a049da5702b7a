//! Each bad input: exit code, the exact one-line message, nothing changed.

use crate::util::Workspace;

fn seeded() -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "--template", "AutoDL"]);
    ws.ok(&[
        "offering",
        "add",
        "--platform",
        "AutoDL",
        "--accelerator",
        "RTX 4090",
        "--price-on-demand",
        "1.98",
    ]);
    ws
}

#[test]
fn an_unknown_platform_is_named() {
    let ws = seeded();
    ws.fails(
        &["platform", "show", "Foo"],
        1,
        "error: platform \"Foo\" not found",
    );
    ws.fails(
        &[
            "offering",
            "add",
            "--platform",
            "Foo",
            "--accelerator",
            "A100",
        ],
        1,
        "error: platform \"Foo\" not found",
    );
    ws.fails(&["runs", "show", "99"], 1, "error: run 99 not found");
    ws.fails(&["offering", "rm", "42"], 1, "error: offering 42 not found");
}

#[test]
fn a_negative_price_is_refused() {
    let ws = seeded();
    ws.fails(
        &[
            "offering",
            "add",
            "--platform",
            "AutoDL",
            "--accelerator",
            "A100",
            "--price-on-demand",
            "-1",
        ],
        1,
        "error: price_on_demand: -1 is negative; it must be ≥ 0",
    );
}

#[test]
fn a_duplicate_name_is_refused() {
    let ws = seeded();
    ws.fails(
        &["platform", "add", "autodl"],
        1,
        "error: platform \"autodl\" reads the same as the existing platform \"AutoDL\"; choose another name",
    );
    ws.fails(
        &["platform", "add", "--template", "AutoDL"],
        1,
        "error: platform \"AutoDL\" already exists",
    );
}

#[test]
fn a_non_numeric_field_is_a_usage_error() {
    let ws = seeded();
    ws.fails(
        &[
            "offering",
            "add",
            "--platform",
            "AutoDL",
            "--accelerator",
            "A100",
            "--count",
            "abc",
        ],
        2,
        "error: invalid value 'abc' for '--count <COUNT>': invalid digit found in string",
    );
    ws.fails(
        &["platform", "add", "X", "--kind", "cloud"],
        2,
        "error: invalid value 'cloud' for '--kind <KIND>': kind: unknown value \"cloud\" (expected one of: hyperscaler, ai-native, chip-vendor, marketplace, other)",
    );
}

#[test]
fn invalid_values_name_their_field() {
    let ws = seeded();
    ws.fails(
        &[
            "offering",
            "add",
            "--platform",
            "AutoDL",
            "--accelerator",
            "A100",
            "--count",
            "0",
        ],
        1,
        "error: count: must be at least 1",
    );
    ws.fails(
        &["platform", "add", "  "],
        1,
        "error: name: must not be empty",
    );
    ws.fails(
        &[
            "billing",
            "set",
            "--platform",
            "AutoDL",
            "--granularity",
            "0",
        ],
        1,
        "error: granularity_s: must be at least 1 second",
    );
    ws.fails(
        &["platform", "add", "--template", "nowhere"],
        1,
        "error: no template named \"nowhere\" (see `breakpoint platform templates`)",
    );
}

#[test]
fn a_corrupt_database_file_is_refused_untouched() {
    let ws = Workspace::new();
    std::fs::write(
        &ws.db,
        "SQLite format 2? no: just some text that is long enough".repeat(20),
    )
    .unwrap();
    let before = std::fs::read(&ws.db).unwrap();
    let out = ws.cmd(&["platform", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot open database \"{}\": the file is not a database (corrupt or another format)\n",
            ws.db.display()
        )
    );
    assert_eq!(std::fs::read(&ws.db).unwrap(), before);
}

#[test]
fn an_unwritable_path_is_refused() {
    let ws = Workspace::new();
    let file = ws.dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let db = file.join("x.db");
    let mut cmd = assert_cmd::Command::cargo_bin("breakpoint").unwrap();
    let out = cmd
        .arg("--db")
        .arg(&db)
        .args(["platform", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot open database \"{}\": \"{}\" is a file, not a directory\n",
            db.display(),
            file.display()
        )
    );
}

#[test]
fn a_missing_command_is_a_usage_error() {
    let ws = Workspace::new();
    let out = ws.cmd(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ws.cmd(&["platform", "frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: unrecognized subcommand 'frobnicate'\n"
    );
}
