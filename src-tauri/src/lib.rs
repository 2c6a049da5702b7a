//! The Breakpoint desktop app: a thin Tauri shell. Windows, the dialog
//! plugin, the managed state and the command adapters live here; everything
//! that would matter without a window lives in the core.

pub mod commands;
pub mod consent;
pub mod dto;
pub mod error;
pub mod state;

use commands::{
    app, billing, bundles, campaigns, decision, fleet, platforms, probe, ranking, report, runs,
};
use tauri::Runtime;
use tauri::ipc::Invoke;

/// Every IPC command the UI may call (the same list is allowed in
/// `permissions/app.toml`); shared by the app and the IPC tests.
pub fn handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        app::app_info,
        app::set_language,
        app::load_demo,
        platforms::list_platforms,
        platforms::platform_detail,
        platforms::add_platform,
        platforms::add_template,
        platforms::templates,
        platforms::delete_platform,
        platforms::add_offering,
        platforms::delete_offering,
        platforms::set_billing_rule,
        platforms::add_claim,
        runs::list_runs,
        runs::run_detail,
        runs::run_timeline,
        runs::delete_run,
        runs::import_files,
        runs::cancel_job,
        ranking::rank,
        ranking::explain,
        ranking::weight_profiles,
        ranking::save_weight_profile,
        ranking::platform_history,
        billing::bill,
        billing::bill_disputes,
        decision::job_cost,
        report::export_report,
        bundles::bundle_export,
        bundles::bundle_import,
        fleet::pull_prometheus,
        report::open_report,
        probe::probe_inventory,
        probe::probe_start,
        probe::probe_check,
        probe::probe_run,
        campaigns::campaign_plan,
        campaigns::campaign_run,
        campaigns::list_campaigns,
        campaigns::campaign_outstanding,
        campaigns::campaign_cleanup,
    ]
}

pub fn run() {
    let state = match state::AppState::open() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}", e.message);
            std::process::exit(1);
        }
    };
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(state)
        .invoke_handler(handler())
        .setup(|app| {
            use tauri::Manager;
            app.manage(consent::WorkloadConsent::native(app.handle()));
            app.manage(consent::CampaignConsent::native(app.handle()));
            software_rendering(app);
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("error: the app failed to start: {e}");
        std::process::exit(1);
    }
}

/// Tables and small charts gain nothing from GPU compositing, and WebKitGTK's
/// accelerated path costs ~80 MB more in the web process and shows blank
/// windows with some NVIDIA drivers — the machines this app is made for.
#[cfg(target_os = "linux")]
pub fn software_rendering(app: &tauri::App) {
    use tauri::Manager;
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
    for window in app.webview_windows().values() {
        let _ = window.with_webview(|webview| {
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub fn software_rendering(_app: &tauri::App) {}

/// The IPC surface is written in three places — the handler list here, the
/// permissions the window is granted, and the UI's `api.ts` — and its
/// events in two (where the commands emit them and where the views listen).
/// A name in one and not the others is a command the UI cannot call, or
/// calls in vain: these tests hold them to one another.
#[cfg(test)]
mod surface {
    use std::collections::BTreeSet;

    fn read(path: &str) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Every `"name"` that follows `marker` in `text`, up to `end`.
    fn quoted_after(text: &str, marker: &str) -> BTreeSet<String> {
        text.split(marker)
            .skip(1)
            .filter_map(|rest| {
                let rest = rest.trim_start().strip_prefix('"')?;
                Some(rest.split('"').next()?.to_string())
            })
            .collect()
    }

    #[test]
    fn every_command_is_handled_allowed_and_called_by_the_same_name() {
        let lib = read("src/lib.rs");
        let list = lib
            .split("generate_handler![")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .unwrap_or_default();
        let handled: BTreeSet<String> = list
            .split(',')
            .filter_map(|item| item.trim().rsplit("::").next())
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        let permissions = read("permissions/app.toml");
        let allowed: BTreeSet<String> = permissions
            .split("commands.allow = [")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .unwrap_or_default()
            .split(',')
            .map(|name| name.trim().trim_matches('"').to_string())
            .filter(|name| !name.is_empty())
            .collect();
        let called = quoted_after(&read("../ui/src/api.ts"), ">(");
        assert!(
            handled.len() > 30,
            "the handler list was not found: {handled:?}"
        );
        assert_eq!(
            allowed, handled,
            "permissions/app.toml against the handler list"
        );
        assert_eq!(called, handled, "ui/src/api.ts against the handler list");
    }

    #[test]
    fn every_event_the_views_listen_for_is_emitted() {
        let mut emitted = BTreeSet::new();
        for file in ["campaigns", "fleet", "probe", "runs"] {
            let text = read(&format!("src/commands/{file}.rs"));
            // An emitted name: a quoted kebab-case literal on an emit's line
            // or the line after it.
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if line.contains(".emit(") {
                    for l in &lines[i..(i + 3).min(lines.len())] {
                        if let Some(name) = l.split('"').nth(1)
                            && name.contains('-')
                            && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                        {
                            emitted.insert(name.to_string());
                        }
                    }
                }
            }
        }
        let mut heard = BTreeSet::new();
        for view in ["campaigns", "probe", "runs"] {
            let text = read(&format!("../ui/src/views/{view}.ts"));
            for rest in text.split("listen<").skip(1) {
                if let Some(name) = rest.split('"').nth(1) {
                    heard.insert(name.to_string());
                }
            }
        }
        assert!(
            heard.len() >= 5,
            "the views' listeners were not found: {heard:?}"
        );
        let unheard: Vec<&String> = heard.difference(&emitted).collect();
        assert!(
            unheard.is_empty(),
            "listened for, never emitted: {unheard:?} (emitted: {emitted:?})"
        );
    }
}
