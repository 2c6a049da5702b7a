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
