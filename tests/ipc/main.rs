//! The IPC commands as the UI calls them: through Tauri's invoke path on the
//! mock runtime (no window, no web view), against a fresh database.

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod campaigns;
mod fleet;
mod harness;
mod one_answer;
mod platforms;
mod probe;
mod ranking;
mod responsiveness;
mod runs;

#[test]
fn every_command_is_on_the_allowlist_and_nothing_else() {
    let root = env!("CARGO_MANIFEST_DIR");
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let start = lib.find("generate_handler![").unwrap();
    let end = start + lib[start..].find(']').unwrap();
    let mut handled: Vec<&str> = lib[start + "generate_handler![".len()..end]
        .split(',')
        .filter_map(|c| c.trim().rsplit("::").next())
        .filter(|c| !c.is_empty())
        .collect();
    let toml = std::fs::read_to_string(format!("{root}/permissions/app.toml")).unwrap();
    let start = toml.find("commands.allow").unwrap();
    let end = start + toml[start..].find(']').unwrap();
    let mut allowed: Vec<&str> = toml[start..end].split('"').skip(1).step_by(2).collect();
    handled.sort_unstable();
    allowed.sort_unstable();
    assert_eq!(handled, allowed);
}
