//! `breakpoint campaign …`: startup campaigns through a platform's own tools.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand, Clone)]
pub enum CampaignCommand {
    /// Check a recipe and print the commands a campaign would run, with
    /// the placeholders filled (nothing runs).
    Check { recipe: PathBuf },
    /// Run a campaign: launches instances (after showing the cost estimate
    /// and asking), records a startup run, tears every instance down.
    Run(CampaignRunArgs),
    /// The campaigns already run: attempts, p50/p95 to first compute,
    /// failure rate, newest first.
    List,
    /// Instances the ledger says may still be running.
    Status,
    /// Retry teardown for every instance the ledger still holds (after a
    /// crash or kill -9).
    Cleanup,
    /// Drop an instance the ledger cannot tear down (its launch printed no
    /// id) once you have checked it is gone.
    Forget { name: String },
}

#[derive(Debug, Args, Clone)]
pub struct CampaignRunArgs {
    /// The recipe (TOML; docs/campaigns.md).
    pub recipe: PathBuf,
    /// baseline: launches a few seconds apart; peak: all at once; mixed:
    /// several offerings at once.
    #[arg(long, default_value = "baseline")]
    pub scenario: String,
    /// The platform the run is filed under (default: the recipe's).
    #[arg(long)]
    pub platform: Option<String>,
    /// The recipe's offering(s) to launch (repeatable; default: its first,
    /// or all of them for mixed).
    #[arg(long = "offering")]
    pub offerings: Vec<String>,
    /// Attempts (per offering for mixed); default 10 (baseline, peak), 2
    /// (mixed).
    #[arg(long)]
    pub count: Option<u32>,
    /// Time between baseline launches.
    #[arg(long, default_value = "5s", value_parser = super::parse_duration_arg)]
    pub spacing: std::time::Duration,
    /// warm, cold or both (alternating).
    #[arg(long, default_value = "warm")]
    pub image: String,
    /// Run the campaign this many times (for time-of-day coverage).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Between repeats.
    #[arg(long, default_value = "1h", value_parser = super::parse_duration_arg)]
    pub every: std::time::Duration,
    /// Print every command with its placeholders filled; launch nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask: for scripts (the estimate is still printed).
    #[arg(long)]
    pub yes: bool,
    /// Refuse a campaign that would launch more instances than this.
    #[arg(long, default_value_t = 10)]
    pub max_instances: u32,
}
