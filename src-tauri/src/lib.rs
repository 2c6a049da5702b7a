//! The Breakpoint desktop app: a thin Tauri shell. Windows, the dialog
//! plugin, the managed state and the command adapters live here; everything
//! that would matter without a window lives in the core.

pub mod commands;
pub mod consent;
pub mod dto;
pub mod error;
#[cfg(test)]
mod ipc_surface;
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
        ranking::clustermax_view,
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

/// The IPC surface is written once, in the commands; the handler list
/// above, the permissions the window is granted and the UI's generated
/// `commands.ts` are held to it here.
#[cfg(test)]
mod surface {
    use std::collections::BTreeSet;
    use std::path::Path;

    use crate::ipc_surface::{Command, commands_in, events_in, typescript};

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    fn read(path: &str) -> String {
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Every command and event under src/commands, files in name order.
    fn surface() -> (Vec<Command>, BTreeSet<String>) {
        let mut files: Vec<_> = std::fs::read_dir(root().join("src/commands"))
            .expect("src/commands")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        let (mut commands, mut events) = (Vec::new(), BTreeSet::new());
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            commands
                .extend(commands_in(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
            events.extend(events_in(&text));
        }
        (commands, events)
    }

    /// Like ts-rs's bindings: written when they differ, and CI fails when
    /// the committed file is not the one the code gives.
    #[test]
    fn commands_ts_is_written_from_the_commands() {
        let (commands, events) = surface();
        let bindings = root().join("../ui/src/bindings");
        let text = typescript(&commands, &events, &bindings).expect("every type has a binding");
        let path = bindings.join("commands.ts");
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text).expect("ui/src/bindings/commands.ts written");
        }
        assert!(commands.len() > 30, "too few commands read: {commands:?}");
        assert!(events.len() >= 5, "too few events read: {events:?}");
    }

    #[test]
    fn every_command_is_handled_and_allowed_by_the_same_name() {
        let declared: BTreeSet<String> = surface().0.into_iter().map(|c| c.name).collect();
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
        assert_eq!(handled, declared, "the handler list against the commands");
        assert_eq!(
            allowed, declared,
            "permissions/app.toml against the commands"
        );
    }
}
