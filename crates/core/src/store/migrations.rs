//! Forward-only schema migrations, compiled into the binary. The schema
//! version is SQLite's `user_version`; an older binary refuses a newer file
//! (checked in `Store::open` before anything is touched).

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

/// The SQL of every version, oldest first. Never edit a shipped file: add one.
const STEPS: &[&str] = &[
    include_str!("../../migrations/0001_initial.sql"),
    include_str!("../../migrations/0002_scoring.sql"),
    include_str!("../../migrations/0003_run_identity.sql"),
    include_str!("../../migrations/0004_exact_money.sql"),
    include_str!("../../migrations/0005_energy_factors.sql"),
    include_str!("../../migrations/0006_evidence_cache.sql"),
    include_str!("../../migrations/0007_evidence_summaries.sql"),
    include_str!("../../migrations/0008_sample_runs.sql"),
    include_str!("../../migrations/0009_bill_line_identity.sql"),
    include_str!("../../migrations/0010_bill_line_lookup.sql"),
    include_str!("../../migrations/0011_money_like_for_like.sql"),
    include_str!("../../migrations/0012_data_prices.sql"),
    include_str!("../../migrations/0013_gpu_windows.sql"),
    include_str!("../../migrations/0014_gpu_energy.sql"),
    include_str!("../../migrations/0015_bill_line_source.sql"),
    include_str!("../../migrations/0016_decision_log.sql"),
];

pub const LATEST_VERSION: i64 = STEPS.len() as i64;

pub(super) fn apply(conn: &mut Connection) -> Result<(), String> {
    let migrations = Migrations::new(STEPS.iter().map(|sql| M::up(sql)).collect());
    // rusqlite_migration applies all pending steps in one transaction.
    migrations
        .to_latest(conn)
        .map_err(|e| format!("cannot bring the schema up to date: {e}"))
}

/// Bring a database to exactly `version`, for tests of upgrades from every
/// earlier schema.
#[cfg(test)]
pub(super) fn apply_up_to(conn: &mut Connection, version: usize) -> Result<(), String> {
    let migrations = Migrations::new(STEPS.iter().map(|sql| M::up(sql)).collect());
    migrations
        .to_version(conn, version)
        .map_err(|e| e.to_string())
}
