//! Rows between this database and a workspace bundle's — another Breakpoint
//! database of the same schema, attached under the name `bundle`. Runs
//! travel with every row that hangs off them (sample chunks as stored,
//! events, attempts, drills, bill lines), column by column as the schema
//! lists them, so a column added by a later migration travels too.

use std::path::Path;

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// Tables whose rows belong to one run.
const RUN_TABLES: &[&str] = &[
    "sample_chunks",
    "events",
    "startup_attempts",
    "switch_attempts",
    "fault_drills",
    "billing_lines",
    "gpu_windows",
];

/// Tables whose rows belong to one platform, besides offerings and runs.
const PLATFORM_TABLES: &[&str] = &["billing_rules", "claims", "energy_factors"];

impl Store {
    /// Attach the bundle database at `path` (outside any transaction:
    /// SQLite refuses to attach inside one).
    pub(crate) fn attach_bundle(&self, path: &Path) -> Result<()> {
        self.conn().execute(
            "ATTACH DATABASE ?1 AS bundle",
            [path.to_string_lossy().as_ref()],
        )?;
        Ok(())
    }

    pub(crate) fn detach_bundle(&self) -> Result<()> {
        self.conn().execute_batch("DETACH DATABASE bundle")?;
        Ok(())
    }

    /// The columns of `table` in `schema`, in order.
    fn columns_of(&self, schema: &str, table: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT name FROM pragma_table_info(?1, ?2)")?;
        let names = stmt
            .query_map(params![table, schema], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(names)
    }

    /// Copy the rows of `table` that `filter` picks from one schema to the
    /// other, every column kept (ids too).
    fn copy_rows(&self, from: &str, to: &str, table: &str, filter: &str, ids: &str) -> Result<()> {
        let columns = self.columns_of(to, table)?.join(", ");
        self.conn().execute(
            &format!(
                "INSERT INTO {to}.{table} ({columns}) SELECT {columns} FROM {from}.{table} WHERE {filter}"
            ),
            [ids],
        )?;
        Ok(())
    }

    /// Export: the chosen platforms (with their offerings, billing rules,
    /// claims and energy factors), the chosen runs with all their rows, and
    /// every custom weight profile, into the attached bundle, ids kept.
    pub(crate) fn copy_into_bundle(&self, platforms: &[i64], runs: &[i64]) -> Result<()> {
        let platforms = serde_json::to_string(platforms).unwrap_or_default();
        let runs = serde_json::to_string(runs).unwrap_or_default();
        let in_ids = |column: &str| format!("{column} IN (SELECT value FROM json_each(?1))");
        self.copy_rows("main", "bundle", "platforms", &in_ids("id"), &platforms)?;
        self.copy_rows(
            "main",
            "bundle",
            "offerings",
            &in_ids("platform_id"),
            &platforms,
        )?;
        for table in PLATFORM_TABLES {
            self.copy_rows("main", "bundle", table, &in_ids("platform_id"), &platforms)?;
        }
        self.copy_rows("main", "bundle", "runs", &in_ids("id"), &runs)?;
        for table in RUN_TABLES {
            self.copy_rows("main", "bundle", table, &in_ids("run_id"), &runs)?;
        }
        // Custom profiles only: the bundle has the built-in ones already;
        // ids are the bundle's own.
        let columns: Vec<String> = self
            .columns_of("bundle", "weight_profiles")?
            .into_iter()
            .filter(|c| c != "id")
            .collect();
        let columns = columns.join(", ");
        self.conn().execute(
            &format!(
                "INSERT INTO bundle.weight_profiles ({columns})
                 SELECT {columns} FROM main.weight_profiles WHERE builtin = 0"
            ),
            [],
        )?;
        Ok(())
    }

    /// Merge one run of the attached bundle under `platform_id` (and
    /// `offering_id`), with every row that hangs off it; its new id.
    pub(crate) fn copy_run_from_bundle(
        &self,
        bundle_run: i64,
        platform_id: i64,
        offering_id: Option<i64>,
    ) -> Result<i64> {
        let columns: Vec<String> = self
            .columns_of("main", "runs")?
            .into_iter()
            .filter(|c| !matches!(c.as_str(), "id" | "platform_id" | "offering_id"))
            .collect();
        let columns = columns.join(", ");
        self.conn().execute(
            &format!(
                "INSERT INTO main.runs (platform_id, offering_id, {columns})
                 SELECT ?1, ?2, {columns} FROM bundle.runs WHERE id = ?3"
            ),
            params![platform_id, offering_id, bundle_run],
        )?;
        let run_id = self.conn().last_insert_rowid();
        for table in RUN_TABLES {
            let columns: Vec<String> = self
                .columns_of("main", table)?
                .into_iter()
                .filter(|c| !matches!(c.as_str(), "id" | "run_id"))
                .collect();
            let columns = columns.join(", ");
            self.conn().execute(
                &format!(
                    "INSERT INTO main.{table} (run_id, {columns})
                     SELECT ?1, {columns} FROM bundle.{table} WHERE run_id = ?2"
                ),
                params![run_id, bundle_run],
            )?;
        }
        Ok(run_id)
    }

    /// The id of a run of ours with the same content hash as a bundle run,
    /// or, for runs recorded without a file (campaigns), the same kind,
    /// source, times and sample count.
    pub(crate) fn run_like_bundle_run(&self, bundle_run: i64) -> Result<Option<i64>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn()
            .query_row(
                "SELECT m.id FROM main.runs m JOIN bundle.runs b ON b.id = ?1
                 WHERE (b.sha256 IS NOT NULL AND m.sha256 = b.sha256)
                    OR (b.sha256 IS NULL AND m.sha256 IS NULL AND m.kind = b.kind
                        AND m.source = b.source AND m.created_at_ms = b.created_at_ms
                        AND m.started_at_ms IS b.started_at_ms
                        AND m.sample_count = b.sample_count)
                 LIMIT 1",
                [bundle_run],
                |r| r.get(0),
            )
            .optional()?)
    }
}
