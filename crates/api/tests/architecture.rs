//! The workspace's walls, read from the files that make them: each crate's
//! Cargo.toml (who may depend on whom) and docs/architecture.md (the names
//! it cites must exist, and every crate must be on it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every crate of the workspace: its short name (as architecture.md writes
/// it) and its folder.
fn crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| {
            let name = p
                .file_name()
                .expect("a folder name")
                .to_string_lossy()
                .into_owned();
            (name, p)
        })
        .collect();
    out.push(("app".into(), root().join("src-tauri")));
    out.sort();
    out
}

/// The workspace crates a manifest lists under `[dependencies]` (build and
/// dev dependencies aside: a test may build its fixtures with the engine).
fn normal_dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("a manifest");
    let mut section = String::new();
    let mut found = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section == "[dependencies]"
            && let Some(name) = line.strip_prefix("breakpoint-")
        {
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            found.insert(name);
        }
    }
    found
}

fn dependencies_of(name: &str) -> BTreeSet<String> {
    let (_, dir) = crates()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no crate {name}"));
    normal_dependencies(&dir.join("Cargo.toml"))
}

#[test]
fn the_faces_call_the_use_cases_and_never_the_engine() {
    for face in ["cli", "app"] {
        let deps = dependencies_of(face);
        assert!(
            deps.contains("api"),
            "{face} should depend on breakpoint-api: {deps:?}"
        );
        assert!(
            !deps.contains("core"),
            "{face} depends on breakpoint-core: {deps:?}"
        );
    }
}

#[test]
fn the_writers_need_no_store() {
    // The probe writes logs with formats' schemas; a rented node runs it
    // without SQLite.
    for writer in ["probe", "formats", "model", "destination"] {
        let deps = dependencies_of(writer);
        assert!(
            !deps.contains("core"),
            "{writer} depends on breakpoint-core: {deps:?}"
        );
        assert!(
            !deps.contains("api"),
            "{writer} depends on breakpoint-api: {deps:?}"
        );
    }
}

#[test]
fn a_manifest_is_read_by_section() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("Cargo.toml");
    std::fs::write(
        &manifest,
        "[dependencies]\nbreakpoint-api.workspace = true\nbreakpoint-model = { workspace = true }\n\
         [dev-dependencies]\nbreakpoint-core.workspace = true\n",
    )
    .unwrap();
    assert_eq!(
        normal_dependencies(&manifest),
        BTreeSet::from(["api".to_string(), "model".to_string()])
    );
}

/// The code names architecture.md cites in backticks: `core::import::source`,
/// `formats::parsers::*`, `core::import::{silences, plausibility}`,
/// `scoring::rank(` — each split into its paths, braces expanded.
fn cited_paths(doc: &str, crate_names: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (i, span) in doc.split('`').enumerate() {
        // Odd pieces are inside backticks; a fenced block's ``` splits into
        // empty pieces and keeps the parity.
        if i % 2 == 0 || !span.contains("::") || span.contains(' ') && !span.contains('{') {
            continue;
        }
        let span = span.trim_end_matches('(').trim_end_matches("::*");
        let (head, tail) = match (span.find('{'), span.rfind('}')) {
            (Some(open), Some(close)) => (&span[..open], Some(&span[open + 1..close])),
            _ => (span, None),
        };
        let head: Vec<String> = head
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if !head.first().is_some_and(|c| crate_names.contains(c)) {
            continue;
        }
        match tail {
            None => paths.push(head),
            Some(list) => {
                for last in list.split(',').map(str::trim) {
                    let mut path = head.clone();
                    path.push(last.to_string());
                    paths.push(path);
                }
            }
        }
    }
    paths
}

/// Where a module's code lives: `dir/name.rs` or `dir/name/mod.rs`, and the
/// folder its submodules are in.
fn module(dir: &Path, name: &str) -> Option<(PathBuf, PathBuf)> {
    let file = dir.join(format!("{name}.rs"));
    if file.is_file() {
        return Some((file, dir.join(name)));
    }
    let folder = dir.join(name);
    let file = folder.join("mod.rs");
    file.is_file().then_some((file, folder))
}

/// Whether `name` is declared or re-exported in `file`.
fn declares(file: &Path, name: &str) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let kinds = [
        "struct", "enum", "trait", "fn", "type", "const", "static", "mod",
    ];
    let declared = kinds.iter().any(|k| {
        text.contains(&format!("{k} {name}("))
            || text.contains(&format!("{k} {name} "))
            || text.contains(&format!("{k} {name}<"))
            || text.contains(&format!("{k} {name};"))
            || text.contains(&format!("{k} {name}:"))
    });
    // A re-export, over as many lines as rustfmt gave it.
    let reexported = text.split("pub use").skip(1).any(|rest| {
        let statement = &rest[..rest.find(';').unwrap_or(rest.len())];
        statement
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == name)
    });
    declared || reexported
}

/// Why a cited path does not resolve, if it does not.
fn unresolved(path: &[String], crate_dirs: &[(String, PathBuf)]) -> Option<String> {
    let (_, dir) = crate_dirs.iter().find(|(n, _)| *n == path[0])?;
    let src = dir.join("src");
    let mut file = src.join("lib.rs");
    let mut folder = src.clone();
    for (i, segment) in path.iter().enumerate().skip(1) {
        if let Some((f, d)) = module(&folder, segment) {
            file = f;
            folder = d;
            continue;
        }
        if declares(&file, segment) {
            // An item; what follows it (a method) must be a function of
            // the same file.
            return path[i + 1..]
                .iter()
                .find(|m| !declares(&file, m))
                .map(|m| format!("{} has no {m}", file.display()));
        }
        return Some(format!("no module or item {segment} in {}", file.display()));
    }
    None
}

#[test]
fn architecture_md_names_what_exists_and_every_crate() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("the page");
    let crate_dirs = crates();
    let names: BTreeSet<String> = crate_dirs.iter().map(|(n, _)| n.clone()).collect();
    for (name, dir) in &crate_dirs {
        let relative = dir.strip_prefix(root()).unwrap_or(dir);
        let cited = if name == "app" {
            "src-tauri/".to_string()
        } else {
            format!("crates/{name}")
        };
        assert!(
            doc.contains(&cited),
            "docs/architecture.md does not describe {} ({cited})",
            relative.display()
        );
    }
    for cited in doc
        .split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')')
        .filter(|w| w.starts_with("crates/"))
    {
        let cited = cited.trim_end_matches(['.', ',', ':']);
        assert!(
            root().join(cited).exists(),
            "docs/architecture.md cites {cited}, which is not there"
        );
    }
    let paths = cited_paths(&doc, &names);
    assert!(paths.len() > 20, "too few code names read: {paths:?}");
    let wrong: Vec<String> = paths
        .iter()
        .filter_map(|p| unresolved(p, &crate_dirs).map(|why| format!("`{}`: {why}", p.join("::"))))
        .collect();
    assert!(
        wrong.is_empty(),
        "docs/architecture.md names code that is not there:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_path_that_is_not_there_is_caught() {
    let crate_dirs = crates();
    let names: BTreeSet<String> = crate_dirs.iter().map(|(n, _)| n.clone()).collect();
    let doc = "`core::import::{silences, nowhere}` and `probe::nvml::api::NvmlApi`, \
               `core::usecases::timeline`, `fleet::api::PromApi::nothing`, `probe::NvmlApi`";
    let paths = cited_paths(doc, &names);
    assert_eq!(paths.len(), 6, "{paths:?}");
    let wrong: Vec<String> = paths
        .iter()
        .filter(|p| unresolved(p, &crate_dirs).is_some())
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        wrong,
        [
            "core::import::nowhere",
            "core::usecases::timeline",
            "fleet::api::PromApi::nothing",
            "probe::NvmlApi"
        ]
    );
}
