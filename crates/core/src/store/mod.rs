//! The SQLite store: one `open(path)` for the app, the CLI and the tests.
//!
//! Opening sets WAL (so the app and the CLI can share a file), foreign keys
//! (deleting a platform removes its offerings and runs) and a busy timeout,
//! refuses files that are not Breakpoint databases or were written by a newer
//! schema, then applies pending migrations in one transaction.

mod bundle;
mod decision_log;
mod energy;
mod migrations;
mod money;
pub use money::{RatePair, RateStored};
mod platforms;
mod runs;
mod samples;
mod scoring;
mod windows;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};
use serde::Serialize;

use crate::error::{Error, Result};
pub use migrations::LATEST_VERSION;

/// The WHERE clause of a "one platform's, or all" query, as two statements:
/// `?1 IS NULL OR platform_id = ?1` would keep SQLite from using the
/// platform index and scan the whole table for every platform.
fn platform_filter(platform_id: Option<i64>) -> &'static str {
    if platform_id.is_some() {
        "WHERE platform_id = ?1"
    } else {
        "WHERE ?1 IS NULL"
    }
}
pub use platforms::PlatformSummary;
pub use runs::{QuotedInstance, RunCompletion, RunRecords};
pub use samples::{BillLinesWritten, CHUNK_SAMPLES, SampleWriter, WriteSummary};
pub use scoring::StoredProfile;

/// Written into every Breakpoint database by the first migration (`PRAGMA
/// application_id`), so that another program's SQLite file is never migrated
/// by mistake ("BKPT").
const APPLICATION_ID: i64 = 0x424B_5054;
/// How long a statement waits for another process's write to end before
/// it fails with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a command that stores something waits when told to wait for
/// other writers (an import of a large file holds the write lock for as
/// long as it reads).
const LONG_WAIT: Duration = Duration::from_secs(30 * 60);
const WAIT_STEP: Duration = Duration::from_millis(25);
/// After this long waiting, and every `NOTICE_EVERY` after, the wait is
/// told to whoever listens (`on_wait`).
const NOTICE_AFTER: Duration = Duration::from_secs(1);
const NOTICE_EVERY: Duration = Duration::from_secs(10);

static WAIT_NOTICE: std::sync::OnceLock<fn(Duration)> = std::sync::OnceLock::new();

/// Be told, with how long it has been, when a write waits for another
/// process's write to finish (the command line prints "waiting…").
pub fn on_wait(notice: fn(Duration)) {
    let _ = WAIT_NOTICE.set(notice);
}

/// SQLite's busy handler for `Store::wait_for_other_writers`: sleep in
/// short steps, say so now and then, give up after `LONG_WAIT`.
fn wait_long(attempt: i32) -> bool {
    let waited = WAIT_STEP * attempt.max(0) as u32;
    if waited >= LONG_WAIT {
        return false;
    }
    if is_notice_time(waited)
        && let Some(notice) = WAIT_NOTICE.get()
    {
        notice(waited);
    }
    std::thread::sleep(WAIT_STEP);
    true
}

fn is_notice_time(waited: Duration) -> bool {
    waited >= NOTICE_AFTER
        && (waited - NOTICE_AFTER).as_millis() % NOTICE_EVERY.as_millis() < WAIT_STEP.as_millis()
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// How many `atomically` calls are open (0: no transaction).
    depth: std::cell::Cell<u32>,
    /// Whether a write waits long for another process's (`wait_for_other_writers`).
    waits_long: std::cell::Cell<bool>,
}

/// Where the database lives when neither `--db` nor `BREAKPOINT_DB` says:
/// the OS data directory (`~/.local/share/breakpoint/breakpoint.db` on Linux).
pub fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("breakpoint").join("breakpoint.db"))
}

impl Store {
    /// Open (creating if needed) the database at `path` and bring its schema
    /// up to date.
    pub fn open(path: &Path) -> Result<Store> {
        let fail = |reason: String| Error::Open {
            path: path.to_path_buf(),
            reason,
        };
        check_location(path).map_err(fail)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let opened = Connection::open_with_flags(path, flags)
            .map_err(|e| fail(describe(&e)))
            .and_then(|conn| Self::prepare(conn, path.to_path_buf()));
        match opened {
            Ok(store) if store.is_read_only() => Err(fail(READ_ONLY_HERE.into())),
            Err(e) if cannot_write(&e) && Self::open_read_only(path).is_ok() => {
                Err(fail(READ_ONLY_HERE.into()))
            }
            other => other,
        }
    }

    /// Open a database that must already exist, for work that only reads:
    /// a mistyped path is refused instead of becoming an empty database.
    /// Where the file, its folder or its mount cannot be written, it is
    /// opened read-only; everything that reads works, and derived values
    /// are computed without being cached.
    pub fn open_existing(path: &Path) -> Result<Store> {
        let fail = |reason: String| Error::Open {
            path: path.to_path_buf(),
            reason,
        };
        check_location(path).map_err(fail)?;
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(fail(
                    "there is no database here (commands that only read do not create one; \
                     check the path, or add a platform to start one)"
                        .into(),
                ));
            }
            Err(e) => return Err(fail(format!("cannot read it: {e}"))),
            Ok(meta) if meta.is_dir() => return Err(fail("it is a directory".into())),
            Ok(_) => {}
        }
        let base = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let read_write =
            Connection::open_with_flags(path, base | OpenFlags::SQLITE_OPEN_READ_WRITE)
                .map_err(|e| fail(describe(&e)))
                .and_then(|conn| Self::prepare(conn, path.to_path_buf()));
        match read_write {
            Ok(store) => Ok(store),
            Err(first) if cannot_write(&first) => Self::open_read_only(path).map_err(|e| {
                // Say why the writable attempt failed when read-only failed too.
                if cannot_write(&e) { first } else { e }
            }),
            Err(e) => Err(e),
        }
    }

    /// Open read-only. A database in write-ahead-log mode needs its shared
    /// memory file, which a read-only folder cannot hold; when no log is
    /// waiting beside it (the last writer closed cleanly) the file is read as
    /// immutable, which needs none.
    fn open_read_only(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fail = |e: rusqlite::Error| Error::Open {
            path: path.to_path_buf(),
            reason: describe(&e),
        };
        let plain = Connection::open_with_flags(path, flags)
            .map_err(fail)
            .and_then(|conn| Self::prepare(conn, path.to_path_buf()));
        let wal = path.with_file_name(format!(
            "{}-wal",
            path.file_name().unwrap_or_default().to_string_lossy()
        ));
        match plain {
            Err(e) if cannot_write(&e) && !wal.exists() => {
                let uri = immutable_uri(path);
                let conn = Connection::open_with_flags(&uri, flags | OpenFlags::SQLITE_OPEN_URI)
                    .map_err(fail)?;
                Self::prepare(conn, path.to_path_buf())
            }
            other => other,
        }
    }

    /// A private in-memory database, for tests and throwaway work.
    /// The triggers and views this build's schema creates, as
    /// `(type, name, sql)`: a bundle's database may hold these and no
    /// others.
    pub(crate) fn own_schema_code() -> Result<Vec<(String, String, String)>> {
        let store = Store::open_in_memory()?;
        let mut stmt = store.conn().prepare(
            "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('trigger', 'view')",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        Self::prepare(conn, PathBuf::from(":memory:"))
    }

    fn prepare(mut conn: Connection, path: PathBuf) -> Result<Store> {
        let fail = |e: rusqlite::Error| Error::Open {
            path: path.clone(),
            reason: describe(&e),
        };
        conn.busy_timeout(BUSY_TIMEOUT).map_err(fail)?;
        // The first statement that reads the file is where a corrupt or
        // foreign file shows itself.
        let (app_id, version, tables): (i64, i64, i64) = conn
            .query_row(
                "SELECT (SELECT application_id FROM pragma_application_id),
                        (SELECT user_version FROM pragma_user_version),
                        (SELECT count(*) FROM sqlite_schema)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(fail)?;
        if tables > 0 && app_id != APPLICATION_ID {
            return Err(Error::Open {
                path,
                reason: "it is an SQLite database of another program, not a Breakpoint database"
                    .into(),
            });
        }
        if version > LATEST_VERSION {
            return Err(Error::SchemaTooNew {
                path,
                found: version,
                supported: LATEST_VERSION,
            });
        }
        let read_only = conn.is_readonly(rusqlite::MAIN_DB).map_err(fail)?;
        if read_only {
            if version < LATEST_VERSION {
                return Err(Error::Open {
                    path,
                    reason: format!(
                        "it was written by an earlier version (schema {version}) and is \
                         read-only here, so it cannot be brought up to date; open it once \
                         where it can be written"
                    ),
                });
            }
        } else {
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(fail)?;
            conn.pragma_update(None, "synchronous", "NORMAL")
                .map_err(fail)?;
            // Foreign keys stay off while migrating: a migration that
            // rebuilds a table must not cascade the old table's deletion.
            conn.pragma_update(None, "foreign_keys", "OFF")
                .map_err(fail)?;
            migrations::apply(&mut conn).map_err(|reason| Error::Open {
                path: path.clone(),
                reason,
            })?;
        }
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(fail)?;
        Ok(Store {
            conn,
            path,
            depth: std::cell::Cell::new(0),
            waits_long: std::cell::Cell::new(false),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wait as long as another process writes (up to half an hour, saying
    /// so through `on_wait`) instead of failing after ten seconds: for
    /// commands run by a person who would rather wait for an import to end
    /// than see "database is locked".
    pub fn wait_for_other_writers(&self) -> Result<()> {
        self.conn.busy_handler(Some(wait_long))?;
        self.waits_long.set(true);
        Ok(())
    }

    /// `write`, in a transaction of its own, where the workspace can be
    /// written to at once; nothing where it cannot (read-only, or another
    /// process writing). For what is kept only to save a later reader some
    /// work: it must never make this reader wait, nor fail it.
    pub(crate) fn write_if_free(&self, write: impl FnOnce(&Store) -> Result<()>) {
        if self.is_read_only() || self.conn.busy_handler(None).is_err() {
            return;
        }
        let _ = self.atomically(write);
        // Waiting as before for the writes that matter.
        let _ = if self.waits_long.get() {
            self.conn.busy_handler(Some(wait_long))
        } else {
            self.conn.busy_timeout(BUSY_TIMEOUT)
        };
    }

    /// Whether nothing can be written (a read-only file, folder or mount).
    pub fn is_read_only(&self) -> bool {
        self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true)
    }

    /// Run `work` on one consistent view of the database: what another
    /// process commits meanwhile is not seen half-way (a run deleted during a
    /// ranking is either wholly there or wholly gone). Nothing is written.
    pub fn snapshot<T>(&self, work: impl FnOnce(&Store) -> Result<T>) -> Result<T> {
        if self.depth.get() > 0 {
            // Inside a transaction already: that is the view.
            return work(self);
        }
        self.conn.execute_batch("BEGIN DEFERRED")?;
        self.depth.set(1);
        let result = work(self);
        self.depth.set(0);
        // A read transaction has nothing to keep: ending it either way is the same.
        let end = self.conn.execute_batch("ROLLBACK");
        let value = result?;
        end?;
        Ok(value)
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Run `work` in one write transaction: everything it stores lands
    /// together or not at all (an error, a panic or a killed process leaves
    /// nothing behind). Calls nest: an inner call is a savepoint inside the
    /// outer transaction, so a whole demo build can hold many imports.
    ///
    /// Any error type that can carry a store error will do, so that callers
    /// keep their own (an import's parse failure, say); every `Err` rolls back.
    pub fn atomically<T, E: From<Error>>(
        &self,
        work: impl FnOnce(&Store) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let depth = self.depth.get();
        let (begin, commit, rollback) = if depth == 0 {
            // IMMEDIATE takes the write lock up front, so two writers queue
            // on the busy timeout instead of failing on lock upgrade.
            (
                "BEGIN IMMEDIATE".to_string(),
                "COMMIT".to_string(),
                "ROLLBACK".to_string(),
            )
        } else {
            (
                format!("SAVEPOINT nested_{depth}"),
                format!("RELEASE nested_{depth}"),
                format!("ROLLBACK TO nested_{depth}; RELEASE nested_{depth}"),
            )
        };
        self.conn.execute_batch(&begin).map_err(Error::from)?;
        self.depth.set(depth + 1);
        let mut guard = RollbackGuard {
            store: self,
            sql: Some(rollback),
            depth,
        };
        let value = work(self)?;
        guard.sql = None;
        drop(guard);
        self.depth.set(depth);
        self.conn.execute_batch(&commit).map_err(Error::from)?;
        Ok(value)
    }

    /// Fold the write-ahead log back into the main file (SQLite does this by
    /// itself from time to time; call it before measuring the file).
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// Counts and sizes, for `breakpoint db info`.
    pub fn info(&self) -> Result<DbInfo> {
        let count = |table: &str| -> Result<i64> {
            Ok(self
                .conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?)
        };
        let (samples, sample_bytes): (i64, i64) = self.conn.query_row(
            "SELECT ifnull(sum(n), 0), ifnull(sum(length(data)), 0) FROM sample_chunks",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (page_count, page_size, free_pages): (i64, i64, i64) = self.conn.query_row(
            "SELECT (SELECT page_count FROM pragma_page_count),
                    (SELECT page_size FROM pragma_page_size),
                    (SELECT freelist_count FROM pragma_freelist_count)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        Ok(DbInfo {
            path: self.path.display().to_string(),
            schema_version: self.schema_version()?,
            platforms: count("platforms")?,
            offerings: count("offerings")?,
            billing_rules: count("billing_rules")?,
            claims: count("claims")?,
            runs: count("runs")?,
            samples,
            events: count("events")?,
            database_bytes: (page_count - free_pages) * page_size,
            sample_bytes,
            bytes_per_sample: (samples > 0).then(|| sample_bytes as f64 / samples as f64),
        })
    }
}

/// Rolls back an open transaction (or savepoint) unless it was committed
/// (forgotten).
/// Rolls the transaction back when the work fails or panics; disarmed
/// (`sql` taken) when it succeeds.
struct RollbackGuard<'s> {
    store: &'s Store,
    sql: Option<String>,
    depth: u32,
}

impl Drop for RollbackGuard<'_> {
    fn drop(&mut self) {
        if let Some(sql) = self.sql.take() {
            let _ = self.store.conn.execute_batch(&sql);
            self.store.depth.set(self.depth);
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DbInfo {
    pub path: String,
    pub schema_version: i64,
    pub platforms: i64,
    pub offerings: i64,
    pub billing_rules: i64,
    pub claims: i64,
    pub runs: i64,
    pub samples: i64,
    pub events: i64,
    /// Bytes of the database in use (pages minus free pages).
    pub database_bytes: i64,
    /// Bytes of the compressed sample chunks alone.
    pub sample_bytes: i64,
    pub bytes_per_sample: Option<f64>,
}

/// A user-facing reason for an SQLite failure at open time.
fn describe(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => {
            "the file is not a database (corrupt or another format)".into()
        }
        Some(ErrorCode::CannotOpen) => CANNOT_OPEN_REASON.into(),
        Some(ErrorCode::ReadOnly) => READ_ONLY_REASON.into(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            "the database is locked by another program".into()
        }
        Some(ErrorCode::DatabaseCorrupt) => "the database file is corrupt".into(),
        _ => e.to_string(),
    }
}

/// Why a database cannot be at `path`: a folder in its place, or no
/// folder to hold it.
fn check_location(path: &Path) -> std::result::Result<(), String> {
    if path.is_dir() {
        return Err("it is a directory".into());
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if parent.is_file() {
            return Err(format!(
                "\"{}\" is a file, not a directory",
                parent.display()
            ));
        }
        if !parent.exists() {
            return Err(format!("directory \"{}\" does not exist", parent.display()));
        }
    }
    Ok(())
}

/// Whether opening failed for want of write access (to the file, its
/// folder for the journal files, or the mount).
fn cannot_write(e: &Error) -> bool {
    match e {
        Error::Open { reason, .. } => reason == READ_ONLY_REASON || reason == CANNOT_OPEN_REASON,
        _ => false,
    }
}

/// `file:` URI that opens `path` as immutable (no locks, no journal files).
fn immutable_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for b in absolute.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

const READ_ONLY_HERE: &str = "it can only be read here (a read-only file, folder or mount), \
     and this stores data; reading commands (list, show, rank, report) still work";
const READ_ONLY_REASON: &str = "the file is read-only";
const CANNOT_OPEN_REASON: &str = "the file cannot be opened (check the path and permissions)";

/// Milliseconds since the epoch for `jiff` timestamps, as stored.
pub(crate) fn to_ms(t: jiff::Timestamp) -> i64 {
    t.as_millisecond()
}

pub(crate) fn from_ms(ms: i64) -> rusqlite::Result<jiff::Timestamp> {
    jiff::Timestamp::from_millisecond(ms).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Integer, Box::new(e))
    })
}

pub(crate) fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

#[cfg(test)]
mod tests;
