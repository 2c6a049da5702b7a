//! Running a workload means running a program as the user. The web view may
//! ask for one; only a yes given outside it — in a native dialog that shows
//! the exact command and folder — starts it. A script that found its way
//! into the web view can therefore ask, but never run anything by itself.

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
        use tauri::Manager;
        use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
        let app = app.clone();
        Self::new(move |request| {
            let (title, text) = request.question();
            let (run, cancel) = if request.language == "zh" {
                ("运行", "取消")
            } else {
                ("Run", "Cancel")
            };
            let mut dialog = app
                .dialog()
                .message(text)
                .title(title)
                .kind(MessageDialogKind::Warning)
                .buttons(MessageDialogButtons::OkCancelCustom(
                    run.into(),
                    cancel.into(),
                ));
            if let Some(window) = app.get_webview_window("main") {
                dialog = dialog.parent(&window);
            }
            dialog.blocking_show()
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
