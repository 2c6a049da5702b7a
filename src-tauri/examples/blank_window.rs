//! The floor the app's memory is measured against (`scripts/bench-memory`):
//! the same Tauri, WebKitGTK and rendering policy, one window of the same
//! size showing an empty document — no UI, no database, no commands.

const EMPTY: &[u8] = b"<!doctype html><title>blank</title>";

fn main() {
    let mut context = tauri::generate_context!();
    context.config_mut().app.windows.clear();
    let result = tauri::Builder::default()
        // A real document from a scheme of its own, so WebKit starts its web
        // process as it does for the app.
        .register_uri_scheme_protocol("blank", |_, _| {
            tauri::http::Response::builder()
                .header("content-type", "text/html")
                .body(EMPTY.to_vec())
                .unwrap_or_else(|_| tauri::http::Response::new(EMPTY.to_vec()))
        })
        .setup(|app| {
            let blank = tauri::WebviewUrl::External("blank://localhost/".parse()?);
            tauri::WebviewWindowBuilder::new(app, "main", blank)
                .title("blank")
                .inner_size(1280.0, 800.0)
                .build()?;
            breakpoint_app::software_rendering(app);
            Ok(())
        })
        .run(context);
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
