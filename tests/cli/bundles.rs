//! Workspace bundles: two colleagues merge their evidence, a reviewer
//! rebuilds a report's ranking, and a damaged or hostile bundle changes
//! nothing.

use crate::util::Workspace;

fn demo(seed: &str) -> Workspace {
    let ws = Workspace::new();
    ws.ok(&["demo", "--demo-seed", seed, "--samples", "100"]);
    ws
}

fn count(ws: &Workspace, what: &str) -> u64 {
    ws.json(&["db", "info"])[what].as_u64().unwrap()
}

#[test]
fn two_demo_workspaces_exchange_bundles_both_ways() {
    // Seeds far apart: the simulator seeds each platform from the demo's
    // seed, and nearby seeds would write the same log for two platforms.
    let (a, b) = (demo("7"), demo("40"));
    let (runs_a, runs_b) = (count(&a, "runs"), count(&b, "runs"));
    let (samples_a, samples_b) = (count(&a, "samples"), count(&b, "samples"));
    let to_b = a.dir.path().join("a.tar");
    let to_a = b.dir.path().join("b.tar");
    a.ok(&["bundle", "export", "-o", to_b.to_str().unwrap()]);
    b.ok(&["bundle", "export", "-o", to_a.to_str().unwrap()]);

    let merged = a.json(&["bundle", "import", to_a.to_str().unwrap()]);
    let added = merged["merged"]["runs_added"].as_array().unwrap().len() as u64;
    let already = merged["merged"]["runs_already_here"].as_u64().unwrap();
    // Logs that do not depend on the simulator's seed are the same files.
    assert_eq!(added + already, runs_b);
    assert!(added > 0 && already > 0, "{merged}");
    assert_eq!(count(&a, "runs"), runs_a + added);
    b.json(&["bundle", "import", to_b.to_str().unwrap()]);
    assert_eq!(count(&b, "runs"), runs_b + added);
    // Both now hold the same evidence.
    assert_eq!(count(&a, "runs"), count(&b, "runs"));
    assert_eq!(count(&a, "samples"), count(&b, "samples"));
    assert!(count(&a, "samples") > samples_a.max(samples_b));
    assert_eq!(count(&a, "platforms"), 6);

    // Again: nothing added.
    let again = a.json(&["bundle", "import", to_a.to_str().unwrap()]);
    assert!(again["merged"]["runs_added"].as_array().unwrap().is_empty());
    assert_eq!(count(&a, "runs"), runs_a + added);

    // The same ranking from the same evidence.
    let rank = |ws: &Workspace| {
        let r = ws.json(&["rank", "--samples", "200"]);
        r["ranking"]["platforms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].clone(), p["overall"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(rank(&a), rank(&b));
}

#[test]
fn a_conflicting_platform_is_shown_and_resolved_by_flags() {
    let theirs = Workspace::new();
    theirs.ok(&["platform", "add", "Lab", "--kind", "marketplace"]);
    theirs.ok(&["billing", "set", "--platform", "Lab", "--granularity", "60"]);
    let file = theirs.dir.path().join("theirs.tar");
    theirs.ok(&["bundle", "export", "-o", file.to_str().unwrap()]);

    let ours = Workspace::new();
    ours.ok(&["platform", "add", "Lab", "--kind", "hyperscaler"]);
    let before = ours.snapshot();
    let out = ours
        .cmd(&["bundle", "import", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 conflict(s)")
            && stderr
                .contains("platform \"Lab\": kind hyperscaler here, marketplace in the bundle")
            && stderr.contains("--keep-ours or --rename-theirs"),
        "{stderr}"
    );
    assert_eq!(ours.snapshot(), before, "nothing merged");

    let renamed = ours.json(&[
        "bundle",
        "import",
        file.to_str().unwrap(),
        "--rename-theirs",
    ]);
    assert_eq!(renamed["merged"]["platforms_added"][0], "Lab (2)");
    let shown = ours.json(&["platform", "show", "Lab (2)"]);
    assert_eq!(shown["kind"], "marketplace");
    assert_eq!(
        ours.json(&["platform", "show", "Lab"])["kind"],
        "hyperscaler"
    );

    let kept = Workspace::new();
    kept.ok(&["platform", "add", "Lab", "--kind", "hyperscaler"]);
    let merged = kept.json(&["bundle", "import", file.to_str().unwrap(), "--keep-ours"]);
    assert!(
        merged["merged"]["platforms_added"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        kept.json(&["platform", "show", "Lab"])["kind"],
        "hyperscaler"
    );
    // Ours had no billing rule: theirs fills the gap, nothing is replaced.
    assert_eq!(merged["merged"]["billing_rules_added"], 1);
}

#[test]
fn damaged_hostile_and_newer_bundles_are_refused_and_change_nothing() {
    let source = demo("7");
    let file = source.dir.path().join("good.tar");
    source.ok(&[
        "bundle",
        "export",
        "-o",
        file.to_str().unwrap(),
        "--platform",
        "Platform A (demo)",
    ]);
    let bytes = std::fs::read(&file).unwrap();
    let ws = Workspace::new();
    ws.ok(&["platform", "add", "Other"]);
    let dir = ws.dir.path();
    let refused = |name: &str, content: &[u8], expected: &str| {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        ws.fails(
            &["bundle", "import", path.to_str().unwrap()],
            1,
            &format!("error: {}: {expected}", path.display()),
        );
    };
    // Cut off: said before anything is inflated.
    let path = dir.join("cut.tar");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let out = ws
        .cmd(&["bundle", "import", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("workspace.sqlite.gz is cut off:") && stderr.contains(" bytes"),
        "{stderr}"
    );
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let path = dir.join("flipped.tar");
    std::fs::write(&path, &flipped).unwrap();
    let out = ws
        .cmd(&["bundle", "import", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("workspace.sqlite.gz"),
        "the entry is named: {stderr}"
    );

    // An entry that would climb out of any folder it were unpacked into.
    let mut archive = tar::Archive::new(&bytes[..]);
    let mut entries = archive.entries().unwrap();
    let mut manifest = Vec::new();
    std::io::Read::read_to_end(&mut entries.next().unwrap().unwrap(), &mut manifest).unwrap();
    let mut database = Vec::new();
    std::io::Read::read_to_end(&mut entries.next().unwrap().unwrap(), &mut database).unwrap();
    let mut hostile = tar::Builder::new(Vec::new());
    for (name, data) in [
        (&b"manifest.json"[..], &manifest),
        (&b"../escape.sqlite.gz"[..], &database),
    ] {
        let mut header = tar::Header::new_old();
        header.as_old_mut().name[..name.len()].copy_from_slice(name);
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        hostile.append(&header, &data[..]).unwrap();
    }
    refused(
        "hostile.tar",
        &hostile.into_inner().unwrap(),
        "found an entry named ../escape.sqlite.gz where the manifest lists workspace.sqlite.gz: refused",
    );
    assert!(!dir.parent().unwrap().join("escape.sqlite.gz").exists());

    // A bundle from a newer Breakpoint.
    let mut newer: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    newer["version"] = 2.into();
    newer["created_by"] = "breakpoint 9.0.0".into();
    let newer = serde_json::to_vec(&newer).unwrap();
    let mut future = tar::Builder::new(Vec::new());
    for (name, data) in [
        ("manifest.json", &newer),
        ("workspace.sqlite.gz", &database),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        future.append_data(&mut header, name, &data[..]).unwrap();
    }
    let path = dir.join("future.tar");
    std::fs::write(&path, future.into_inner().unwrap()).unwrap();
    let out = ws
        .cmd(&["bundle", "import", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("made by a newer Breakpoint (breakpoint 9.0.0")
            && stderr.contains("update Breakpoint"),
        "{stderr}"
    );
    assert_eq!(count(&ws, "runs"), 0);
}

#[test]
fn a_reviewer_rebuilds_the_reports_ranking_from_its_bundle() {
    let ws = demo("7");
    let pdf = ws.dir.path().join("matrix.pdf");
    let out = ws.json(&[
        "report",
        "-o",
        pdf.to_str().unwrap(),
        "--samples",
        "200",
        "--bundle",
    ]);
    let bundle = out["bundle"]["file"].as_str().unwrap().to_string();
    let sha256 = out["bundle"]["sha256"].as_str().unwrap().to_string();
    assert!(bundle.ends_with("matrix.bundle.tar"));
    let text = std::process::Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).replace('\n', " ");
    assert!(
        text.contains("matrix.bundle.tar") && text.contains(&sha256[..16]),
        "the PDF names the bundle and its hash"
    );

    let reviewer = Workspace::new();
    reviewer.ok(&["bundle", "import", &bundle]);
    let ranks = |w: &Workspace| {
        w.json(&["rank", "--samples", "200"])["ranking"]["platforms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let scores: Vec<_> = p["breakpoints"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["score"].clone())
                    .collect();
                (
                    p["name"].clone(),
                    p["rank"].clone(),
                    p["overall"].clone(),
                    scores,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(ranks(&reviewer), ranks(&ws));
}

#[test]
fn a_scratch_folder_left_by_a_killed_import_is_swept_by_the_next() {
    let ws = Workspace::new();
    ws.ok(&["db", "init"]);
    let temp = tempfile::tempdir().unwrap();
    // What a bundle import killed mid-way (Ctrl-C, kill -9) leaves: its
    // folder, named for a process that no longer runs.
    let left = temp.path().join("breakpoint-bundle-4194399-x1y2z3");
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("workspace.sqlite"), vec![0u8; 4096]).unwrap();
    let missing = ws.dir.path().join("no-such-bundle.tar");
    let out = ws
        .cmd(&["bundle", "import", missing.to_str().unwrap()])
        .env("TMPDIR", temp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!left.exists(), "the dead process's scratch folder is gone");
    // And this import's own folder did not outlive it.
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
}
