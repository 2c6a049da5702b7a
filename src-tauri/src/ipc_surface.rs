//! The IPC surface, written once: the `#[tauri::command]` functions under
//! `src/commands/`. From them `cargo test` writes `ui/src/bindings/commands.ts`
//! — every command's name, its arguments as the UI passes them (camelCase)
//! and what it answers, in the ts-rs types — and the names of the events the
//! commands emit. `ui/src/api.ts` calls commands and listens for events only
//! through these types, so a command or argument renamed in Rust, or an
//! event the views wait for in vain, fails the UI's type check; CI fails
//! when the file drifts from the code.
//!
//! The handler list in `lib.rs` and `permissions/app.toml` are held to the
//! same commands by the tests below.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// One command as the UI sees it.
#[derive(Debug, PartialEq)]
pub(crate) struct Command {
    pub name: String,
    /// (camelCase name, TypeScript type)
    pub args: Vec<(String, String)>,
    pub returns: String,
}

/// Parameters Tauri fills in itself; the UI never passes them.
const INJECTED: &[&str] = &["State<", "AppHandle", "Window", "Webview", "tauri::"];

/// The commands declared in one source file, in order.
pub(crate) fn commands_in(source: &str) -> Result<Vec<Command>, String> {
    let mut out = Vec::new();
    for piece in source.split("#[tauri::command").skip(1) {
        let at = piece
            .find("fn ")
            .ok_or("a #[tauri::command] without a function")?;
        let signature = &piece[at + 3..];
        let open = signature.find('(').ok_or("a command without parameters")?;
        let name = signature[..open]
            .split('<')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let close =
            matching(signature, open).ok_or_else(|| format!("{name}: unclosed parameters"))?;
        let params = &signature[open + 1..close];
        let rest = &signature[close + 1..];
        let returns = match rest.find('{') {
            Some(body) => rest[..body].trim(),
            None => return Err(format!("{name}: no body")),
        };
        let returns = returns.strip_prefix("->").map(str::trim).unwrap_or("()");
        let returns = generic(returns, "AppResult").unwrap_or(returns);
        let mut args = Vec::new();
        for param in split_top(params, ',') {
            let param = param.trim();
            if param.is_empty() {
                continue;
            }
            let (arg, ty) = param
                .split_once(':')
                .ok_or_else(|| format!("{name}: parameter {param:?} has no type"))?;
            if INJECTED.iter().any(|i| ty.trim().starts_with(i)) {
                continue;
            }
            args.push((camel(arg.trim()), ts_type(ty)?));
        }
        out.push(Command {
            returns: ts_type(returns)?,
            name,
            args,
        });
    }
    Ok(out)
}

/// Where the bracket opened at `open` closes.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => {
                // `->` is not a bracket.
                if c == '>' && text[..open + i].ends_with('-') {
                    continue;
                }
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` split at `sep` outside brackets.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The `T` of `Outer<T>`.
fn generic<'a>(ty: &'a str, outer: &str) -> Option<&'a str> {
    ty.strip_prefix(outer)?
        .trim()
        .strip_prefix('<')?
        .strip_suffix('>')
        .map(str::trim)
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A Rust type as serde hands it to the UI, in TypeScript.
pub(crate) fn ts_type(rust: &str) -> Result<String, String> {
    let t = rust.trim();
    if let Some(inner) = generic(t, "Option") {
        return Ok(format!("{} | null", ts_type(inner)?));
    }
    if let Some(inner) = generic(t, "Vec") {
        return Ok(format!("Array<{}>", ts_type(inner)?));
    }
    if let Some(inner) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')'))
        && !inner.trim().is_empty()
    {
        let items: Result<Vec<String>, String> = split_top(inner, ',')
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .map(ts_type)
            .collect();
        return Ok(format!("[{}]", items?.join(", ")));
    }
    Ok(match t {
        "()" => "null".into(),
        "String" | "&str" => "string".into(),
        "bool" => "boolean".into(),
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" | "f32" | "f64" => {
            "number".into()
        }
        // The timeline's columns travel as bytes.
        "tauri::ipc::Response" | "Response" => "ArrayBuffer".into(),
        dto if dto.chars().all(|c| c.is_ascii_alphanumeric())
            && dto.starts_with(char::is_uppercase) =>
        {
            dto.into()
        }
        other => return Err(format!("no TypeScript for the Rust type {other:?}")),
    })
}

/// The kebab-case event names a source file emits.
pub(crate) fn events_in(source: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = BTreeSet::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.contains(".emit(") {
            continue;
        }
        // The name is on the emit's line or, after rustfmt, just below.
        for l in &lines[i..(i + 3).min(lines.len())] {
            if let Some(name) = l.split('"').nth(1)
                && name.contains('-')
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            {
                found.insert(name.to_string());
                break;
            }
        }
    }
    found
}

/// The generated TypeScript.
pub(crate) fn typescript(
    commands: &[Command],
    events: &BTreeSet<String>,
    bindings: &Path,
) -> Result<String, String> {
    let mut types = BTreeSet::new();
    for c in commands {
        for ty in c.args.iter().map(|(_, t)| t).chain([&c.returns]) {
            for word in ty.split(|ch: char| !ch.is_ascii_alphanumeric()) {
                if bindings.join(format!("{word}.ts")).is_file() {
                    types.insert(word.to_string());
                } else if word.starts_with(char::is_uppercase)
                    && !["Array", "ArrayBuffer"].contains(&word)
                {
                    return Err(format!(
                        "{}: {word} has no binding in ui/src/bindings",
                        c.name
                    ));
                }
            }
        }
    }
    let mut out = String::from(
        "// The app's IPC commands and events, read from src-tauri/src/commands by\n\
         // `cargo test -p breakpoint-app`. Do not edit this file manually.\n\n",
    );
    for ty in &types {
        let _ = writeln!(out, "import type {{ {ty} }} from \"./{ty}\";");
    }
    out.push_str("\n/** Each command: the arguments the UI passes, and what it answers. */\nexport type Commands = {\n");
    for c in commands {
        let args = if c.args.is_empty() {
            "Record<string, never>".to_string()
        } else {
            let fields: Vec<String> = c.args.iter().map(|(n, t)| format!("{n}: {t}")).collect();
            format!("{{ {} }}", fields.join(", "))
        };
        let _ = writeln!(
            out,
            "  {}: {{ args: {args}; returns: {} }};",
            c.name, c.returns
        );
    }
    out.push_str("};\n\nexport type CommandName = keyof Commands;\n\n/** The events the commands emit. */\nexport type EventName =");
    for (i, e) in events.iter().enumerate() {
        let _ = write!(out, "{}\"{e}\"", if i == 0 { " " } else { " | " });
    }
    out.push_str(";\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_read_with_its_arguments_as_the_ui_passes_them() {
        let source = r#"
#[tauri::command]
pub async fn probe_run<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    command_line: String,
    dir: Option<String>,
    range: Option<(i64, i64)>,
    weights: Vec<f64>,
) -> AppResult<ProbeStarted> {
    app.emit(
        "probe-tick",
        1,
    );
}

#[tauri::command]
pub fn open_report(state: State<'_, AppState>) -> AppResult<()> { Ok(()) }
"#;
        let commands = commands_in(source).unwrap();
        assert_eq!(
            commands,
            [
                Command {
                    name: "probe_run".into(),
                    args: vec![
                        ("commandLine".into(), "string".into()),
                        ("dir".into(), "string | null".into()),
                        ("range".into(), "[number, number] | null".into()),
                        ("weights".into(), "Array<number>".into()),
                    ],
                    returns: "ProbeStarted".into(),
                },
                Command {
                    name: "open_report".into(),
                    args: vec![],
                    returns: "null".into(),
                },
            ]
        );
        assert_eq!(
            events_in(source),
            BTreeSet::from(["probe-tick".to_string()])
        );
    }

    #[test]
    fn a_type_without_typescript_is_refused_by_name() {
        assert!(
            ts_type("HashMap<String, u32>")
                .unwrap_err()
                .contains("HashMap")
        );
        let source = "#[tauri::command]\npub fn f(m: &mut Thing<'_>) -> u32 { 1 }";
        assert!(commands_in(source).is_err());
    }
}
