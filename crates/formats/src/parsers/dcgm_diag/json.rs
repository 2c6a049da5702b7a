//! `dcgmi diag --json`: the document is walked for test objects — a `name`
//! with a `results` list — wherever they sit, because the layout differs
//! between DCGM generations (results per test with `gpu_ids` or `gpu_id`,
//! `info`/`warnings`/`error` details).

use serde_json::Value;

use super::DiagResult;

pub(super) fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(text).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(o) => o
            .get("message")
            .or_else(|| o.get("msg"))
            .or_else(|| o.get("warning"))
            .and_then(text),
        _ => None,
    }
}

pub(super) fn walk(v: &Value, category: Option<&str>, out: &mut Vec<DiagResult>) {
    match v {
        Value::Object(o) => {
            let category = o.get("category").and_then(Value::as_str).or(category);
            if let (Some(name), Some(Value::Array(results))) =
                (o.get("name").and_then(Value::as_str), o.get("results"))
            {
                for r in results {
                    let status = r
                        .get("status")
                        .and_then(text)
                        .unwrap_or_else(|| "unknown".into());
                    let gpu = r
                        .get("gpu_ids")
                        .or_else(|| r.get("gpu_id"))
                        .or_else(|| r.get("entity_id"))
                        .and_then(text);
                    let message = ["info", "warnings", "warning", "error", "errors"]
                        .iter()
                        .find_map(|k| r.get(*k).and_then(text))
                        .filter(|m| !m.is_empty());
                    out.push(DiagResult {
                        category: category.map(String::from),
                        test: name.to_string(),
                        gpu,
                        status,
                        message,
                        unread: false,
                    });
                }
                return;
            }
            for child in o.values() {
                walk(child, category, out);
            }
        }
        Value::Array(a) => {
            for child in a {
                walk(child, category, out);
            }
        }
        _ => {}
    }
}
