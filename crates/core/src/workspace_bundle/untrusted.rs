//! A colleague's bundle is untrusted input. Its database is inspected before
//! any `Store` opens it — read-only, with SQLite's defensive mode on and
//! `trusted_schema` off, every statement under a time limit — and may hold
//! Breakpoint's tables and its own triggers only: any other trigger, a view
//! or a virtual table is refused by name (each could run the bundle's own
//! SQL inside ours). Then every row the merge would copy is read through the
//! same typed reads and domain validation the importers use: enums known,
//! numbers finite and in range, names through the name rules, sample chunks
//! decoded. One bad row refuses the bundle, naming the entry, the table and
//! the row.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use crate::domain::{
    BillingLine, Claim, Event, FaultDrill, Platform, StartupAttempt, SwitchAttempt,
};
use crate::error::{Error, Result};
use crate::store::Store;

/// No statement over a bundle's database may run longer than this: a
/// query made to never end (a recursive view, a crafted index) is stopped.
pub(super) const STATEMENT_LIMIT: Duration = Duration::from_secs(60);

/// A time limit on a connection's statements, armed again before each step
/// of reading (SQLite's progress handler does not see where one statement
/// ends): no step — a table's rows, one GPU's chunks — may take longer than
/// [`STATEMENT_LIMIT`], however large the whole bundle is.
pub(super) struct Limit {
    deadline: Arc<Mutex<Instant>>,
    each: Duration,
}

impl Limit {
    pub(super) fn on(conn: &Connection) -> rusqlite::Result<Limit> {
        Limit::of(conn, STATEMENT_LIMIT)
    }

    fn of(conn: &Connection, each: Duration) -> rusqlite::Result<Limit> {
        let deadline = Arc::new(Mutex::new(Instant::now() + each));
        let seen = Arc::clone(&deadline);
        conn.progress_handler(
            10_000,
            Some(move || seen.lock().map_or(true, |d| Instant::now() > *d)),
        )?;
        Ok(Limit { deadline, each })
    }

    /// The next step may take the limit from now.
    pub(super) fn rearm(&self) {
        if let Ok(mut d) = self.deadline.lock() {
            *d = Instant::now() + self.each;
        }
    }
}

/// The database at `path` (a bundle's, unpacked to a scratch file) holds
/// tables only and passes SQLite's own quick check. `entry` names it in
/// messages.
pub(super) fn check_database(path: &Path, entry: &str) -> std::result::Result<(), String> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("{entry} is not a database: {e}"))?;
    let harden = || -> rusqlite::Result<()> {
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
        Limit::on(&conn).map(|_| ())
    };
    harden().map_err(|e| format!("{entry}: cannot be opened safely: {e}"))?;
    // Breakpoint's own schema keeps its caches fresh with triggers: those,
    // word for word, are the only code a bundle's database may hold.
    let own = Store::own_schema_code().map_err(|e| e.to_string())?;
    let mut stmt = conn
        .prepare(
            "SELECT type, name, coalesce(sql, '') FROM sqlite_schema
             WHERE type IN ('trigger', 'view')
                OR (type = 'table' AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%')
             ORDER BY type, name",
        )
        .map_err(|e| format!("{entry} is not a Breakpoint database: {e}"))?;
    let found: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| rows.collect())
        .map_err(|e| format!("{entry} is not a Breakpoint database: {e}"))?;
    let refused: Vec<String> = found
        .into_iter()
        .filter(|code| !own.contains(code))
        .map(|(kind, name, _)| {
            let kind = if kind == "table" {
                "virtual table"
            } else {
                kind.as_str()
            };
            format!("{kind} \"{}\"", crate::text::printable_excerpt(&name, 60))
        })
        .collect();
    if !refused.is_empty() {
        return Err(format!(
            "{entry} holds {}: a bundle holds Breakpoint's tables and triggers only, and nothing else in it may run: refused",
            refused.join(", ")
        ));
    }
    let verdict: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| format!("{entry} fails SQLite's check: {e}"))?;
    if verdict != "ok" {
        return Err(format!(
            "{entry} fails SQLite's check: {}",
            crate::text::printable_excerpt(&verdict, 200)
        ));
    }
    Ok(())
}

/// Every row the merge copies from `theirs`, read and validated: the
/// platforms with their offerings, rules, claims and energy factors, the
/// runs with everything stored for them, and the custom weight profiles.
pub(super) fn check_rows(theirs: &Store, limit: &Limit, entry: &str) -> Result<()> {
    let refuse = |table: &str, row: String, why: String| Error::Bundle {
        file: entry.to_string(),
        reason: format!("{table} {row}: {why}"),
    };
    let read = |table: &str, row: String, e: Error| refuse(table, row, e.to_string());
    let platforms = theirs
        .platforms()
        .map_err(|e| read("platforms", "rows".into(), e))?;
    for p in &platforms {
        limit.rearm();
        let row = format!("row {}", p.id);
        Platform::new(&p.name, p.kind, p.notes.clone())
            .map_err(|e| refuse("platforms", row.clone(), e.to_string()))?;
        for o in theirs
            .offerings(Some(p.id))
            .map_err(|e| read("offerings", format!("of platform {}", p.id), e))?
        {
            check_offering(&o)
                .map_err(|e| refuse("offerings", format!("row {}", o.id), e.to_string()))?;
        }
        for r in theirs
            .billing_rules(p.id)
            .map_err(|e| read("billing_rules", format!("of platform {}", p.id), e))?
        {
            let id = r.id;
            r.validate()
                .map_err(|e| refuse("billing_rules", format!("row {id}"), e.to_string()))?;
        }
        for c in theirs
            .claims(Some(p.id))
            .map_err(|e| read("claims", format!("of platform {}", p.id), e))?
        {
            Claim::new(
                p.id,
                &c.subject,
                c.value,
                c.unit.clone(),
                c.text.clone(),
                &c.source,
            )
            .map_err(|e| refuse("claims", format!("row {}", c.id), e.to_string()))?;
        }
        if let Some((pue, grid)) = theirs
            .energy_factors(p.id)
            .map_err(|e| read("energy_factors", format!("of platform {}", p.id), e))?
        {
            crate::domain::validate::energy_factors(pue, grid)
                .map_err(|e| refuse("energy_factors", row.clone(), e.to_string()))?;
        }
        for run in theirs
            .runs(Some(p.id))
            .map_err(|e| read("runs", format!("of platform {}", p.id), e))?
        {
            check_run(theirs, limit, &run)
                .map_err(|(table, why)| refuse(table, format!("of run {}", run.id), why))?;
        }
    }
    for profile in theirs
        .weight_profiles()
        .map_err(|e| read("weight_profiles", "rows".into(), e))?
        .into_iter()
        .filter(|p| !p.profile.builtin)
    {
        let p = &profile.profile;
        crate::domain::WeightProfile::new(&p.name, p.breakpoints, p.metrics.clone())
            .map_err(|e| refuse("weight_profiles", format!("row {}", p.id), e.to_string()))?;
        for (key, anchors) in &profile.curves {
            anchors
                .validate(key)
                .map_err(|e| refuse("weight_profiles", format!("row {}", p.id), e.to_string()))?;
        }
    }
    Ok(())
}

/// One table's rows of a run, read (a failed read names the table) and each
/// put through its domain type's validation (naming its place in the run).
fn rows<T>(
    table: &'static str,
    read: Result<Vec<T>>,
    validate: fn(T) -> crate::domain::validate::Checked<T>,
) -> std::result::Result<(), (&'static str, String)> {
    for (i, row) in read
        .map_err(|e| (table, e.to_string()))?
        .into_iter()
        .enumerate()
    {
        validate(row).map_err(|e| (table, format!("row {} of the run's: {e}", i + 1)))?;
    }
    Ok(())
}

/// An offering as `offering add` would take it: a named accelerator, at
/// least one of it, prices that are money.
fn check_offering(o: &crate::domain::Offering) -> crate::domain::validate::Checked<()> {
    use crate::domain::validate;
    validate::name("accelerator", &o.accelerator.raw)?;
    validate::at_least_one("count", o.count)?;
    crate::domain::Prices::new(
        &o.prices.currency,
        o.prices.on_demand,
        o.prices.spot,
        o.prices.monthly,
    )?
    .with_data_prices(o.prices.storage_gb_month, o.prices.transfer_gb)?;
    Ok(())
}

/// One run's rows, each through its domain type's validation; the table
/// and what is wrong (with the row's place among the run's) when not.
fn check_run(
    theirs: &Store,
    limit: &Limit,
    run: &crate::domain::Run,
) -> std::result::Result<(), (&'static str, String)> {
    let read = |table: &'static str| move |e: Error| (table, e.to_string());
    crate::domain::NewRun {
        platform_id: run.platform_id,
        offering_id: run.offering_id,
        kind: run.kind,
        source: run.source,
        provenance: run.provenance.clone(),
        started_at: run.started_at,
        ended_at: run.ended_at,
        interval_ms: run.interval_ms,
        inventory: run.inventory.clone(),
        metadata: run.metadata.clone(),
        warnings: run.warnings.clone(),
    }
    .validate()
    .map_err(|e| ("runs", e.to_string()))?;
    limit.rearm();
    rows("events", theirs.events(run.id), Event::validate)?;
    rows(
        "startup_attempts",
        theirs.startup_attempts(run.id),
        StartupAttempt::validate,
    )?;
    rows(
        "switch_attempts",
        theirs.switch_attempts(run.id),
        SwitchAttempt::validate,
    )?;
    rows(
        "fault_drills",
        theirs.fault_drills(run.id),
        FaultDrill::validate,
    )?;
    rows(
        "billing_lines",
        theirs.billing_lines(run.id),
        BillingLine::validate,
    )?;
    // Every chunk decoded, as a ranking or a report would read it.
    for gpu in theirs.sample_gpus(run.id).map_err(read("sample_chunks"))? {
        limit.rearm();
        theirs
            .read_samples(run.id, gpu, None, None)
            .map_err(read("sample_chunks"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_statement_that_never_ends_is_stopped_and_the_next_step_gets_its_own_time() {
        let conn = Connection::open_in_memory().unwrap();
        let limit = Limit::of(&conn, Duration::from_millis(50)).unwrap();
        let endless = conn.query_row(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            [],
            |r| r.get::<_, i64>(0),
        );
        assert!(endless.is_err(), "{endless:?}");
        std::thread::sleep(Duration::from_millis(60));
        limit.rearm();
        let one: i64 = conn.query_row("SELECT 1", [], |r| r.get(0)).unwrap();
        assert_eq!(one, 1);
    }
}
