//! The decision's history as the store keeps it: each entry's time, what
//! moved the answer, and the answer as it then stood (JSON written whole by
//! the use case that computes it).

use rusqlite::params;

use super::Store;
use crate::error::Result;

impl Store {
    /// Keep one entry of the decision's history (its JSON as the use case
    /// wrote it).
    pub fn add_decision_entry(&self, at_ms: i64, trigger: &str, entry: &str) -> Result<i64> {
        self.conn().execute(
            "INSERT INTO decision_log (at_ms, trigger, entry) VALUES (?1, ?2, ?3)",
            params![at_ms, trigger, entry],
        )?;
        Ok(self.conn().last_insert_rowid())
    }

    /// The last `limit` entries of the decision's history, newest first:
    /// (id, at_ms, trigger, entry JSON).
    pub fn decision_entries(&self, limit: usize) -> Result<Vec<(i64, i64, String, String)>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, at_ms, trigger, entry FROM decision_log ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
