//! The command line's JSON on the demo workspace, against snapshots taken
//! before the use cases moved into the core: `rank`, `explain`, `bill`,
//! `runs list` and `db info` must not change for users. Times of creation
//! and the database path are masked; numbers compare to 1e-9 relative (so
//! money printed exactly, 38.40 for 38.400000000000006, is the same).
//!
//! After an intended change: `BLESS=1 cargo test -p breakpoint-cli --test cli
//! snapshots` rewrites the files; review the diff.

use std::path::PathBuf;

use serde_json::Value;

use crate::util::Workspace;

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/cli/snapshots")
        .join(format!("demo-{name}.json"))
}

/// Mask what differs from one build of the demo to the next.
fn normalise(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "created_at" | "path" => *value = Value::String("<masked>".into()),
                    _ => normalise(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise),
        _ => {}
    }
}

/// Equal up to float rounding; the first difference, by JSON path.
fn same(a: &Value, b: &Value, at: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let close = x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-12);
            close.then_some(()).ok_or(format!("{at}: {x} vs {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{at}: {} items vs {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(i, (x, y))| same(x, y, &format!("{at}[{i}]")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            if keys(x) != keys(y) {
                return Err(format!("{at}: keys {:?} vs {:?}", keys(x), keys(y)));
            }
            x.iter()
                .try_for_each(|(k, v)| same(v, &y[k], &format!("{at}.{k}")))
        }
        _ => (a == b).then_some(()).ok_or(format!("{at}: {a} vs {b}")),
    }
}

#[test]
fn json_outputs_on_the_demo_are_unchanged() {
    let ws = Workspace::new();
    ws.ok(&["demo"]);
    let outputs = [
        ("rank", vec!["rank"]),
        ("explain", vec!["explain", "Platform E (demo)", "sustain"]),
        ("bill", vec!["bill"]),
        ("runs", vec!["runs", "list"]),
        ("info", vec!["db", "info"]),
    ];
    let bless = std::env::var_os("BLESS").is_some();
    let mut differences = Vec::new();
    for (name, args) in outputs {
        let mut now = ws.json(&args);
        normalise(&mut now);
        let path = snapshot_path(name);
        if bless {
            let text = serde_json::to_string_pretty(&now).unwrap();
            std::fs::write(&path, text + "\n").unwrap();
            continue;
        }
        let then: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if let Err(d) = same(&then, &now, name) {
            differences.push(d);
        }
    }
    assert!(differences.is_empty(), "changed: {differences:#?}");
}
