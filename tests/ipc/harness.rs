//! The test host: the app's real command handler on Tauri's mock runtime,
//! a fresh database, a recorded answer for the workload dialog, and the
//! fixtures the tests import.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use breakpoint_app::consent::{CampaignConsent, CampaignRequest, WorkloadConsent, WorkloadRequest};
use breakpoint_app::state::AppState;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

pub struct Harness {
    pub _app: App<MockRuntime>,
    pub webview: WebviewWindow<MockRuntime>,
    pub dir: tempfile::TempDir,
    /// What the native workload dialog would answer, and what it was asked.
    pub consent_answer: Arc<AtomicBool>,
    pub asked: Arc<Mutex<Vec<WorkloadRequest>>>,
    /// The same for the campaign dialog.
    pub campaign_answer: Arc<AtomicBool>,
    pub campaigns_asked: Arc<Mutex<Vec<CampaignRequest>>>,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_trace(None)
    }

    /// A harness whose probe replays a recorded trace instead of NVML.
    pub fn with_trace(trace: Option<&str>) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let mut state = AppState::open_at(dir.path().join("app.db"), "en").unwrap();
        state.probe_trace = trace.map(std::path::PathBuf::from);
        let consent_answer = Arc::new(AtomicBool::new(false));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let (answer, log) = (consent_answer.clone(), asked.clone());
        let consent = WorkloadConsent::new(move |request| {
            log.lock().unwrap().push(request.clone());
            answer.load(Ordering::SeqCst)
        });
        let campaign_answer = Arc::new(AtomicBool::new(false));
        let campaigns_asked = Arc::new(Mutex::new(Vec::new()));
        let (answer, log) = (campaign_answer.clone(), campaigns_asked.clone());
        let campaign_consent = CampaignConsent::new(move |request| {
            log.lock().unwrap().push(request.clone());
            answer.load(Ordering::SeqCst)
        });
        let app = mock_builder()
            .manage(state)
            .manage(consent)
            .manage(campaign_consent)
            .invoke_handler(breakpoint_app::handler())
            .build(mock_context(noop_assets()))
            .unwrap();
        let webview = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        Harness {
            _app: app,
            webview,
            dir,
            consent_answer,
            asked,
            campaign_answer,
            campaigns_asked,
        }
    }

    /// Invokes a command; Ok is its JSON result, Err the `{ kind, message }`.
    pub fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        call_on(&self.webview, cmd, args)
    }

    /// Invokes a command that answers with bytes.
    pub fn call_bytes(&self, cmd: &str, args: Value) -> Result<Vec<u8>, Value> {
        match get_ipc_response(&self.webview, request(cmd, args))? {
            InvokeResponseBody::Raw(bytes) => Ok(bytes),
            InvokeResponseBody::Json(json) => panic!("{cmd} answered JSON, not bytes: {json}"),
        }
    }

    /// A new platform of kind "other"; its id.
    pub fn platform(&self, name: &str) -> Value {
        self.ok(
            "add_platform",
            json!({ "platform": { "name": name, "kind": "other", "notes": null } }),
        )
    }

    pub fn ok(&self, cmd: &str, args: Value) -> Value {
        self.call(cmd, args)
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }
}

/// Invokes a command through a window (from any thread, as the web view
/// does when it sends several requests at once).
pub fn call_on(
    webview: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<Value, Value> {
    get_ipc_response(webview, request(cmd, args)).map(|body| body.deserialize::<Value>().unwrap())
}

fn request(cmd: &str, args: Value) -> InvokeRequest {
    InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    }
}

pub fn fixture(path: &str) -> String {
    format!(
        "{}/../tests/fixtures/logs/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

pub fn trace() -> String {
    format!(
        "{}/../tests/fixtures/probe/trace.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Collects one event's payloads as they arrive.
pub fn events(h: &Harness, name: &str) -> std::sync::mpsc::Receiver<Value> {
    use tauri::Listener;
    let (tx, rx) = std::sync::mpsc::channel();
    h.webview.listen_any(name, move |e| {
        let _ = tx.send(serde_json::from_str(e.payload()).unwrap());
    });
    rx
}

pub fn files_in(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}
