//! Campaigns screen: a recipe, its plan and cost, progress and the instance ledger.

use super::*;

view! {
    /// What the Campaigns screen sends: a recipe and how to run it.
    pub struct CampaignForm {
        pub recipe_path: String,
        /// baseline | peak | mixed
        pub scenario: String,
        /// `None`: the recipe's.
        pub platform: Option<String>,
        pub count: Option<u32>,
        pub spacing_ms: u32,
        /// warm | cold | both
        pub image: String,
    }

    /// A campaign as it would run: shown before anything launches.
    pub struct CampaignPlanView {
        pub platform: String,
        pub scenario: String,
        pub instances: u32,
        pub worst_case_minutes_each: f64,
        /// "12.50 CNY" per currency.
        pub cost: Vec<String>,
        pub unpriced: Vec<String>,
        pub attempts: Vec<PlannedAttemptRow>,
    }

    pub struct PlannedAttemptRow {
        pub name: String,
        pub offering: String,
        pub image: String,
        pub start_after_s: f64,
        /// Its commands, placeholders filled ("launch: …").
        pub commands: Vec<String>,
    }

    pub struct CampaignStarted {
        #[ts(type = "number")]
        pub job: u64,
        pub name: String,
        pub instances: u32,
    }

    /// `campaign-progress` events: an attempt reached a stage, or ended.
    pub struct CampaignProgress {
        #[ts(type = "number")]
        pub job: u64,
        pub attempt: u32,
        /// launch | provision | ready | first-compute | teardown, or the
        /// ending: ok | failed | timeout | cancelled | not_started
        pub what: String,
        pub detail: Option<String>,
        /// The campaign is over (the last event of a job).
        pub done: bool,
        /// The run that records it, on the last event.
        #[ts(type = "number | null")]
        pub run_id: Option<i64>,
    }

    /// A past campaign, from its startup run.
    pub struct CampaignRow {
        #[ts(type = "number")]
        pub run_id: i64,
        pub platform: String,
        pub name: String,
        pub scenario: String,
        pub recipe: String,
        pub started_at: Option<String>,
        pub attempts: u32,
        pub ok: u32,
        pub p50_s: Option<f64>,
        pub p95_s: Option<f64>,
        pub failure_rate_pct: Option<f64>,
        /// Submit → provisioned → image ready → first compute of every
        /// attempt, as an SVG (shown as an image).
        pub stages_svg: Option<String>,
    }

    /// An instance the ledger says may still be running.
    pub struct OutstandingRow {
        pub name: String,
        pub id: Option<String>,
        pub since: String,
        pub teardown: Option<String>,
    }
}
