//! The core's layers, checked: a module may use the modules of the layers
//! below its own, never one above (nor a sibling in its own layer). The
//! layers are also written at the top of `src/lib.rs` and in
//! docs/architecture.md.

use std::path::{Path, PathBuf};

/// Lowest first.
const LAYERS: &[&[&str]] = &[
    // breakpoint-model's modules, re-exported: below everything here, and
    // a crate boundary keeps them from using anything above.
    &["text", "stats", "accelerator", "domain", "figures"],
    &["error"],
    &["archive"],
    // `perf` (the datasheet peaks and the reading of a perf log) uses only
    // the model's modules: low enough for the import to hold a perf log
    // against its card's datasheet.
    &["samples", "templates", "perf"],
    &["store"],
    // Rates between currencies: low enough for an import to compare a
    // catalog's quotes in two currencies through them.
    &["exchange"],
    &["import", "billing_sim", "conformity", "workspace_bundle"],
    &["metrics"],
    // `rates` brings platforms' evidence into one currency; scoring never
    // needs it.
    &["scoring", "rates"],
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its tests (a `tests` module, as `tests.rs`
/// or as a `tests/` folder of files, or an item marked `#[cfg(test)]`,
/// usually a `mod tests { … }`): tests may build on anything. Code after a
/// test module is still checked.
fn code(path: &Path) -> String {
    let in_tests = path
        .strip_prefix(src())
        .is_ok_and(|p| p.components().any(|c| c.as_os_str() == "tests"));
    if in_tests || path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).expect("readable source");
    without_test_items(&text)
}

fn without_test_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = item_end(item);
        // Keep the line count, so that lines named in messages stay right.
        out.extend(item[..end].chars().filter(|c| *c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Where the item that `text` starts with ends: after its block's closing
/// brace, or its `;` when it has no block. Strings, characters and comments
/// are skipped, so a brace inside them does not count.
fn item_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = "#[cfg(test)]".len();
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('{', '\'') but not a lifetime ('a).
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i += 2;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    text.len()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top-level module a file belongs to.
fn module_of(path: &Path) -> String {
    let relative = path.strip_prefix(src()).expect("under src");
    let first = relative.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// The modules a piece of code names as `crate::module`, with their line.
fn uses(code: &str) -> Vec<(usize, String)> {
    code.match_indices("crate::")
        .map(|(at, _)| {
            let used = code[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (code[..at].lines().count(), used)
        })
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    for entry in std::fs::read_dir(src()).expect("src") {
        let path = entry.expect("entry").path();
        let module = module_of(&path);
        if module == "lib" {
            continue;
        }
        assert!(
            layer_of(&module).is_some(),
            "module {module} has no layer: add it to LAYERS here and to lib.rs"
        );
    }
}

#[test]
fn no_module_uses_one_above_it() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(file);
        let Some(own) = layer_of(&module) else {
            continue;
        };
        for (line, used) in uses(&code(file)) {
            if used.is_empty() {
                wrong.push(format!(
                    "{}:{line}: name one module per `crate::` path, so its layer can be checked",
                    file.strip_prefix(src()).unwrap_or(file).display()
                ));
                continue;
            }
            if used == module {
                continue;
            }
            if let Some(layer) = layer_of(&used)
                && layer >= own
            {
                wrong.push(format!(
                    "{}:{line}: {module} (layer {own}) uses {used} (layer {layer})",
                    file.strip_prefix(src()).unwrap_or(file).display()
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn code_after_a_test_module_is_still_checked() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests {\n    fn f() { let c = '{'; let s = \"}}\"; }\n}\nuse crate::b;\n";
    let code = without_test_items(text);
    assert_eq!(
        uses(&code),
        [(1, "a".to_string()), (6, "b".to_string())],
        "{code}"
    );
    let lone = without_test_items("#[cfg(test)]\nuse crate::x;\nuse crate::y;");
    assert_eq!(uses(&lone), [(3, "y".to_string())]);
}

#[test]
fn an_upward_import_is_seen() {
    // What the store's scoring once did: layer 4 using layer 6.
    let found = uses("use crate::metrics::catalog::Anchors;\nuse crate::domain::X;");
    assert_eq!(
        found,
        [(1, "metrics".to_string()), (2, "domain".to_string())]
    );
    assert!(layer_of("metrics") > layer_of("store"));
}
