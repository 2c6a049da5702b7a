//! Bundles as an attacker writes them, made by this suite from a real
//! export: SQL that would run, rows that would poison the workspace, a
//! gzip bomb, a changed database. Each is refused with a message naming
//! what is wrong, and the workspace's `.dump` is byte for byte what it was;
//! a clean bundle merges and everything works on every platform.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::util::Workspace;

/// A workspace with the demo's platforms and runs, and its bundle.
fn exported() -> (Workspace, PathBuf) {
    let ws = Workspace::new();
    ws.ok(&["demo", "--samples", "300"]);
    let bundle = ws.dir.path().join("theirs.tar");
    ws.ok(&["bundle", "export", "-o", bundle.to_str().unwrap()]);
    (ws, bundle)
}

/// The manifest and the inflated database of a bundle.
fn open(bundle: &Path) -> (serde_json::Value, Vec<u8>) {
    let bytes = std::fs::read(bundle).unwrap();
    let mut archive = tar::Archive::new(&bytes[..]);
    let mut entries = archive.entries().unwrap();
    let mut manifest = Vec::new();
    entries
        .next()
        .unwrap()
        .unwrap()
        .read_to_end(&mut manifest)
        .unwrap();
    let mut gz = Vec::new();
    entries
        .next()
        .unwrap()
        .unwrap()
        .read_to_end(&mut gz)
        .unwrap();
    let mut db = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut db)
        .unwrap();
    (serde_json::from_slice(&manifest).unwrap(), db)
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A bundle whose manifest tells the truth about `gz` (unless `lie` edits
/// it afterwards).
fn write(path: &Path, mut manifest: serde_json::Value, gz: &[u8], inflated: Option<u64>) {
    let entry = &mut manifest["entries"][0];
    entry["bytes"] = gz.len().into();
    entry["sha256"] = sha256(gz).into();
    match inflated {
        Some(n) => entry["inflated_bytes"] = n.into(),
        None => {
            entry.as_object_mut().unwrap().remove("inflated_bytes");
        }
    }
    let mut tar = tar::Builder::new(Vec::new());
    for (name, bytes) in [
        ("manifest.json", serde_json::to_vec(&manifest).unwrap()),
        ("workspace.sqlite.gz", gz.to_vec()),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, name, &bytes[..]).unwrap();
    }
    std::fs::write(path, tar.into_inner().unwrap()).unwrap();
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    gzip_at(bytes, flate2::Compression::fast())
}

fn gzip_at(bytes: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), level);
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// The bundle with `sql` run on its database, its manifest made to match.
fn poisoned(bundle: &Path, dir: &Path, name: &str, sql: &str) -> PathBuf {
    let (manifest, db) = open(bundle);
    let file = dir.join(format!("{name}.sqlite"));
    std::fs::write(&file, db).unwrap();
    {
        let conn = rusqlite::Connection::open(&file).unwrap();
        conn.execute_batch(sql).unwrap();
    }
    let db = std::fs::read(&file).unwrap();
    let out = dir.join(format!("{name}.tar"));
    write(&out, manifest, &gzip(&db), Some(db.len() as u64));
    out
}

/// Everything in the workspace's database, as sqlite3 writes it.
fn dump(ws: &Workspace) -> Vec<u8> {
    let out = std::process::Command::new("sqlite3")
        .arg(&ws.db)
        .arg(".dump")
        .output()
        .expect("sqlite3 (scripts/setup installs it)");
    assert!(out.status.success());
    out.stdout
}

/// `bundle import` of `bundle` is refused with a message holding each of
/// `says`, and the workspace is byte for byte what it was.
fn refused(ws: &Workspace, bundle: &Path, says: &[&str]) {
    let before = dump(ws);
    let out = ws
        .cmd(&["bundle", "import", bundle.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for s in says {
        assert!(stderr.contains(s), "{s:?} not in: {stderr}");
    }
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(dump(ws) == before, "{bundle:?} changed the workspace");
}

#[test]
fn sql_in_a_bundle_never_runs() {
    let (_theirs, bundle) = exported();
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Ours"]);
    let dir = ws.dir.path();
    refused(
        &ws,
        &poisoned(
            &bundle,
            dir,
            "trigger",
            "CREATE TRIGGER evil BEFORE DELETE ON platforms BEGIN SELECT RAISE(FAIL, 'ATTACKER TRIGGER RAN'); END;",
        ),
        &["trigger \"evil\"", "refused"],
    );
    refused(
        &ws,
        &poisoned(
            &bundle,
            dir,
            "view",
            "ALTER TABLE platforms RENAME TO platforms_real;
             CREATE VIEW platforms AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
                 SELECT * FROM platforms_real, c;",
        ),
        &["view \"platforms\"", "refused"],
    );
}

#[test]
fn rows_that_would_poison_the_workspace_are_refused_by_table() {
    let (_theirs, bundle) = exported();
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Ours"]);
    let dir = ws.dir.path();
    for (name, sql, says) in [
        (
            "event-kind",
            "UPDATE events SET kind = 'evil' WHERE id = (SELECT min(id) FROM events);",
            "events",
        ),
        (
            "bill-nan",
            "UPDATE billing_lines SET amount = 'NaN', amount_exact = 'NaN' WHERE id = (SELECT min(id) FROM billing_lines);",
            "billing_lines",
        ),
        (
            "bill-huge",
            "UPDATE billing_lines SET amount = 1e308, amount_exact = '1e308' WHERE id = (SELECT min(id) FROM billing_lines);",
            "billing_lines",
        ),
        (
            "chunk",
            "UPDATE sample_chunks SET data = randomblob(200) WHERE rowid = (SELECT min(rowid) FROM sample_chunks);",
            "sample_chunks",
        ),
        (
            "chunk-cut",
            "UPDATE sample_chunks SET data = substr(data, 1, 9) WHERE rowid = (SELECT min(rowid) FROM sample_chunks);",
            "sample_chunks",
        ),
        (
            "name-escape",
            "UPDATE platforms SET name = 'Evil' || char(27) || '[2J' WHERE id = (SELECT min(id) FROM platforms);",
            "platforms",
        ),
        (
            "name-rlo",
            "UPDATE platforms SET name = 'Evil' || char(8238) || 'lave' WHERE id = (SELECT min(id) FROM platforms);",
            "platforms",
        ),
        (
            "name-empty",
            "UPDATE platforms SET name = '' WHERE id = (SELECT min(id) FROM platforms);",
            "platforms",
        ),
        (
            "name-long",
            "UPDATE platforms SET name = printf('%.5000c', 'x') WHERE id = (SELECT min(id) FROM platforms);",
            "platforms",
        ),
        (
            "negative-drill",
            "UPDATE fault_drills SET recovery_s = -5 WHERE id = (SELECT min(id) FROM fault_drills);",
            "fault_drills",
        ),
    ] {
        refused(
            &ws,
            &poisoned(&bundle, dir, name, sql),
            &["workspace.sqlite.gz", says],
        );
    }
}

#[test]
fn a_gzip_bomb_and_a_changed_database_cost_no_more_than_their_size() {
    let (_theirs, bundle) = exported();
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Ours"]);
    let dir = ws.dir.path();
    let (manifest, db) = open(&bundle);
    // 256 MiB of zeros in a few hundred kilobytes, with no size stated: the
    // limit is a hundred times the compressed size and 64 MiB.
    let zeros = vec![0u8; 256 << 20];
    let bomb = dir.join("bomb.tar");
    write(
        &bomb,
        manifest.clone(),
        &gzip_at(&zeros, flate2::Compression::best()),
        None,
    );
    drop(zeros);
    refused(&ws, &bomb, &["inflates past", "refused"]);
    // The size stated, and the database larger than it.
    let stated = dir.join("stated.tar");
    write(&stated, manifest.clone(), &gzip(&db), Some(1000));
    refused(&ws, &stated, &["inflates past 1000 bytes"]);
    // The database changed after the manifest was written: refused on the
    // compressed bytes' hash, before anything is inflated.
    let changed = dir.join("changed.tar");
    let mut gz = gzip(&db);
    write(&changed, manifest, &gz, Some(db.len() as u64));
    let text = std::fs::read(&changed).unwrap();
    let at = text.len() - 2048;
    gz.clear();
    let mut flipped = text;
    flipped[at] ^= 0xff;
    std::fs::write(&changed, flipped).unwrap();
    refused(&ws, &changed, &["SHA-256"]);
}

#[test]
fn a_clean_bundle_merges_and_everything_works_on_every_platform() {
    let (_theirs, bundle) = exported();
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Ours"]);
    // Rewritten by this suite as an earlier build wrote it (no inflated
    // size): still a good bundle.
    let (manifest, db) = open(&bundle);
    let older = ws.dir.path().join("older.tar");
    write(&older, manifest, &gzip(&db), None);
    ws.ok(&["bundle", "import", older.to_str().unwrap()]);
    ws.ok(&["rank", "--samples", "100"]);
    ws.ok(&["bill"]);
    let platforms = ws.json(&["platform", "list"]);
    for p in platforms.as_array().unwrap() {
        ws.ok(&["explain", p["name"].as_str().unwrap()]);
    }
    let pdf = ws.dir.path().join("report.pdf");
    ws.ok(&["report", "-o", pdf.to_str().unwrap(), "--samples", "100"]);
    assert!(std::fs::metadata(&pdf).unwrap().len() > 10_000);
}
