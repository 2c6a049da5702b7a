//! Prometheus pulls: the form, progress and result.

use super::*;

view! {
    /// Import from Prometheus: the server, the range, the fleet.
    pub struct PullForm {
        #[ts(type = "number")]
        pub platform_id: i64,
        pub url: String,
        /// RFC 3339.
        pub from: String,
        pub to: String,
        pub step_s: Option<u32>,
        pub selector: Option<String>,
        /// The environment variable holding a bearer token (never the token).
        pub token_env: Option<String>,
        /// Summaries computed by the server, samples only where they flag
        /// something (docs/fleet.md), in windows of `window_s` (1 h).
        pub summaries: bool,
        pub window_s: Option<u32>,
    }

    pub struct PullProgressView {
        #[ts(type = "number")]
        pub job: u64,
        pub node: Option<String>,
        /// Nodes found (the first event).
        pub nodes: Option<u32>,
        pub done: u32,
        pub of: u32,
        /// Set when the node's run is stored.
        #[ts(type = "number | null")]
        pub stored_samples: Option<u64>,
    }

    pub struct PullNodeRow {
        pub node: String,
        #[ts(type = "Array<number>")]
        pub runs: Vec<i64>,
        pub gpus: u32,
        #[ts(type = "number")]
        pub samples: u64,
        pub already: bool,
        /// For summaries: why each stretch drilled into was looked at.
        pub drilled: Vec<String>,
    }

    pub struct PullResultView {
        pub nodes: Vec<PullNodeRow>,
        #[ts(type = "number")]
        pub requests: u64,
        #[ts(type = "number")]
        pub retries: u64,
    }
}
