//! Running a workload means running a program as the user; a campaign
//! launches paid instances. The web view may ask for either; only a yes
//! given outside it — in a native dialog that shows the exact commands (and,
//! for a campaign, the worst-case cost) — starts it. A script that found its
//! way into the web view can therefore ask, but never run anything by itself.

use std::path::PathBuf;
use std::sync::Arc;

/// What the person at the machine is asked to allow.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadRequest {
    /// The program and its arguments, as they will be run (no shell).
    pub command: Vec<String>,
    pub dir: Option<PathBuf>,
    /// The app's language, for the question.
    pub language: String,
}

impl WorkloadRequest {
    /// The question, in the app's language. Arguments are quoted as a shell
    /// would need them, so what is shown is exactly what will run.
    pub fn question(&self) -> (String, String) {
        let command = breakpoint_probe::workload::shell_line(&self.command);
        let dir = self
            .dir
            .as_ref()
            .map_or_else(|| "–".to_string(), |d| d.display().to_string());
        if self.language == "zh" {
            (
                "运行工作负载？".into(),
                format!(
                    "Breakpoint 将以你的身份和权限运行以下命令，并在运行期间采样 GPU：\n\n{command}\n\n目录：{dir}\n\n只有在这是你自己输入的命令时才运行。"
                ),
            )
        } else {
            (
                "Run a workload?".into(),
                format!(
                    "Breakpoint will run this command as you, with your permissions, and sample the GPUs while it runs:\n\n{command}\n\nFolder: {dir}\n\nRun it only if you typed it yourself."
                ),
            )
        }
    }
}

/// The managed answerer: the native dialog in the app, a fixed answer in
/// the IPC tests (the mock runtime has no windows to ask in).
#[derive(Clone)]
pub struct WorkloadConsent(Arc<dyn Fn(&WorkloadRequest) -> bool + Send + Sync>);

impl WorkloadConsent {
    pub fn new(ask: impl Fn(&WorkloadRequest) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(ask))
    }

    /// Blocks until answered: call it off the main thread.
    pub fn ask(&self, request: &WorkloadRequest) -> bool {
        (self.0)(request)
    }

    /// A modal native dialog over the main window; Cancel is the safe
    /// answer and closing the dialog means no.
    pub fn native<R: tauri::Runtime>(app: &tauri::AppHandle<R>) -> Self {
        let app = app.clone();
        Self::new(move |request| {
            let (title, text) = request.question();
            let (run, cancel) = if request.language == "zh" {
                ("运行", "取消")
            } else {
                ("Run", "Cancel")
            };
            ask_natively(&app, &title, &text, run, cancel)
        })
    }
}

/// A modal warning dialog over the main window with a custom yes and a
/// Cancel; closing it means no. Blocks until answered.
fn ask_natively<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    title: &str,
    text: &str,
    yes: &str,
    no: &str,
) -> bool {
    use tauri::Manager;
    use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
    let mut dialog = app
        .dialog()
        .message(text)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(yes.into(), no.into()));
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.parent(&window);
    }
    dialog.blocking_show()
}

/// What the person at the machine is asked before a campaign launches
/// paid instances: where, how many, the worst-case cost, and the commands.
#[derive(Debug, Clone, PartialEq)]
pub struct CampaignRequest {
    pub platform: String,
    pub scenario: String,
    pub instances: usize,
    pub worst_case_minutes_each: f64,
    /// "12.50 CNY", one per currency; empty when no offering has a price.
    pub cost: Vec<String>,
    pub unpriced: Vec<String>,
    /// The first attempt's commands, placeholders filled.
    pub commands: Vec<String>,
    pub language: String,
}

impl CampaignRequest {
    pub fn question(&self) -> (String, String) {
        let commands = self.commands.join("\n");
        let cost = if self.cost.is_empty() {
            "?".to_string()
        } else {
            self.cost.join(" + ")
        };
        if self.language == "zh" {
            let unpriced = if self.unpriced.is_empty() {
                String::new()
            } else {
                format!("（{} 在配方中无价格，未计入）", self.unpriced.join("、"))
            };
            (
                "启动实例？".into(),
                format!(
                    "Breakpoint 将在 {} 上启动 {} 个实例（{} 场景），以你的身份运行以下命令，每个实例最多运行 {:.1} 分钟，最高费用 {cost}{unpriced}。\n\n{commands}\n\n所有实例结束后都会被销毁；中途停止也会销毁。",
                    self.platform, self.instances, self.scenario, self.worst_case_minutes_each
                ),
            )
        } else {
            let unpriced = if self.unpriced.is_empty() {
                String::new()
            } else {
                format!(
                    " (no price in the recipe for {}: not included)",
                    self.unpriced.join(", ")
                )
            };
            (
                "Launch instances?".into(),
                format!(
                    "Breakpoint will launch {} instance(s) on {} ({} scenario) by running these commands as you; each is up for at most {}: at most {cost}{unpriced}.\n\n{commands}\n\nEvery instance is torn down when its attempt ends, and when you stop the campaign.",
                    self.instances,
                    self.platform,
                    self.scenario,
                    breakpoint_api::presentation::elapsed(60.0 * self.worst_case_minutes_each)
                ),
            )
        }
    }
}

/// The managed answerer for campaigns: the native dialog in the app, a
/// recorded answer in the IPC tests.
#[derive(Clone)]
pub struct CampaignConsent(Arc<dyn Fn(&CampaignRequest) -> bool + Send + Sync>);

impl CampaignConsent {
    pub fn new(ask: impl Fn(&CampaignRequest) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(ask))
    }

    /// Blocks until answered: call it off the main thread.
    pub fn ask(&self, request: &CampaignRequest) -> bool {
        (self.0)(request)
    }

    pub fn native<R: tauri::Runtime>(app: &tauri::AppHandle<R>) -> Self {
        let app = app.clone();
        Self::new(move |request| {
            let (title, text) = request.question();
            let (launch, cancel) = if request.language == "zh" {
                ("启动", "取消")
            } else {
                ("Launch", "Cancel")
            };
            ask_natively(&app, &title, &text, launch, cancel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_shows_each_argument_as_it_will_run() {
        let request = WorkloadRequest {
            command: vec!["python3".into(), "train.py".into(), "my data".into()],
            dir: Some(PathBuf::from("/work")),
            language: "en".into(),
        };
        let (title, text) = request.question();
        assert_eq!(title, "Run a workload?");
        assert!(
            text.contains("\n\npython3 train.py 'my data'\n\nFolder: /work\n"),
            "{text}"
        );
        let zh = WorkloadRequest {
            language: "zh".into(),
            ..request
        };
        assert!(zh.question().1.contains("目录：/work"));
    }
}
