//! Bundles and the PDF report: what goes out and what comes back in.

use super::*;

view! {
    pub struct BundleExported {
        pub path: String,
        pub sha256: String,
        pub platforms: Vec<String>,
        pub runs: u32,
        #[ts(type = "number")]
        pub samples: u64,
    }

    pub struct BundleMerged {
        pub created_by: String,
        pub runs_added: u32,
        pub runs_already_here: u32,
        pub platforms_added: Vec<String>,
        /// "theirs → ours".
        pub platforms_matched: Vec<String>,
        /// Conflicts and how they were settled.
        pub conflicts: Vec<String>,
        /// Their runs already here under another of our platforms.
        pub filed_elsewhere: Vec<String>,
    }

    pub struct ReportRequest {
        pub path: String,
        pub lang: String,
        pub title: Option<String>,
        pub date: Option<String>,
    }

    pub struct ReportResult {
        pub path: String,
        pub pages: u32,
        #[ts(type = "number")]
        pub bytes: u64,
    }
}
