//! Runs and their discrete evidence (events, attempts, drills, bill lines).

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use super::{Store, from_ms, now_ms, to_ms};
use crate::domain::money;
use crate::domain::{
    BillingLine, BillingRule, Event, EventKind, FaultDrill, NewRun, Provenance, Run,
    StartupAttempt, SwitchAttempt,
};
use crate::error::{Error, Result};

const RUN_COLUMNS: &str = "id, platform_id, offering_id, kind, source, file_name, sha256, format, \
     host, started_at_ms, ended_at_ms, interval_ms, inventory_json, offering_snapshot_json, \
     billing_snapshot_json, metadata_json, warnings_json, sample_count, created_at_ms";

fn json<T: serde::de::DeserializeOwned>(r: &Row<'_>, i: usize) -> rusqlite::Result<T> {
    let text: String = r.get(i)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn opt_ms(r: &Row<'_>, i: usize) -> rusqlite::Result<Option<jiff::Timestamp>> {
    r.get::<_, Option<i64>>(i)?.map(from_ms).transpose()
}

fn event_from_row(r: &Row<'_>) -> rusqlite::Result<Event> {
    Ok(Event {
        at: from_ms(r.get(0)?)?,
        gpu: r.get(1)?,
        kind: r.get(2)?,
        code: r.get(3)?,
        duration_ms: r.get(4)?,
        detail: r.get(5)?,
    })
}

fn run_from_row(r: &Row<'_>) -> rusqlite::Result<Run> {
    let snapshot: Option<String> = r.get(13)?;
    Ok(Run {
        id: r.get(0)?,
        platform_id: r.get(1)?,
        offering_id: r.get(2)?,
        kind: r.get(3)?,
        source: r.get(4)?,
        provenance: Provenance {
            file_name: r.get(5)?,
            sha256: r.get(6)?,
            format: r.get(7)?,
            host: r.get(8)?,
        },
        started_at: opt_ms(r, 9)?,
        ended_at: opt_ms(r, 10)?,
        interval_ms: r.get(11)?,
        inventory: json(r, 12)?,
        offering_snapshot: snapshot
            .map(|s| serde_json::from_str(&s))
            .transpose()
            .map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    13,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?,
        billing_snapshot: json(r, 14)?,
        metadata: json(r, 15)?,
        warnings: json(r, 16)?,
        sample_count: r.get::<_, i64>(17)?.max(0) as u64,
        created_at: from_ms(r.get(18)?)?,
    })
}

/// An amount from its decimal text, or from the float column where a line
/// has no text.
fn exact_money(r: &Row<'_>, text: usize, float: usize) -> rusqlite::Result<money::Decimal> {
    match r.get::<_, Option<String>>(text)? {
        Some(t) => t.parse().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                text,
                rusqlite::types::Type::Text,
                Box::new(e),
            )
        }),
        None => Ok(money::exact(r.get(float)?)),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Io(std::io::Error::other(e)))
}

/// What an import or a probe learns only at the end of a run.
#[derive(Debug, Clone, Default)]
pub struct RunCompletion {
    pub started_at: Option<jiff::Timestamp>,
    pub ended_at: Option<jiff::Timestamp>,
    pub interval_ms: Option<u32>,
    pub sha256: Option<String>,
    /// SHA-256 of the text the file decoded to, and of its first 64 KiB.
    pub content_sha256: Option<String>,
    pub head_sha256: Option<String>,
    pub host: Option<String>,
    pub inventory: Vec<crate::domain::GpuInfo>,
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub warnings: Vec<String>,
}

/// A run's evidence other than samples: what every way of gathering
/// evidence (an import, a live delivery check, a campaign) hands over once
/// it is known.
#[derive(Debug, Clone, Default)]
pub struct RunRecords {
    pub events: Vec<Event>,
    pub startup_attempts: Vec<StartupAttempt>,
    pub switch_attempts: Vec<SwitchAttempt>,
    pub fault_drills: Vec<FaultDrill>,
    pub billing_lines: Vec<BillingLine>,
    /// Prices a catalog states.
    pub price_quotes: Vec<crate::domain::PriceQuote>,
}

impl RunRecords {
    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.events.len()
            + self.startup_attempts.len()
            + self.switch_attempts.len()
            + self.fault_drills.len()
            + self.billing_lines.len()
            + self.price_quotes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Store {
    /// The one way a run is recorded. The run is created (its offering and
    /// billing rules frozen into it), `fill` adds what streams in between
    /// (an import's samples; nothing for a campaign or a delivery check),
    /// then its records are stored and the run completed — all in one
    /// transaction, so a failure anywhere leaves no part of it.
    /// `fill` may hand back something of its own (an import's report).
    pub fn record_run<T, E: From<Error>>(
        &self,
        run: NewRun,
        fill: impl FnOnce(&Store, &Run) -> std::result::Result<(RunRecords, RunCompletion, T), E>,
    ) -> std::result::Result<(i64, T), E> {
        self.atomically(|store| {
            let created = store.create_run(run)?;
            let (records, completion, extra) = fill(store, &created)?;
            store.add_records(created.id, &records)?;
            store.complete_run(created.id, &completion)?;
            Ok((created.id, extra))
        })
    }

    /// Store a run's records.
    pub fn add_records(&self, run_id: i64, r: &RunRecords) -> Result<()> {
        self.add_events(run_id, &r.events)?;
        self.add_startup_attempts(run_id, &r.startup_attempts)?;
        self.add_switch_attempts(run_id, &r.switch_attempts)?;
        self.add_fault_drills(run_id, &r.fault_drills)?;
        self.add_price_quotes(run_id, &r.price_quotes)?;
        self.add_billing_lines(run_id, &r.billing_lines)
    }

    /// Fill in what was learnt while reading a run's evidence.
    pub fn complete_run(&self, run_id: i64, c: &RunCompletion) -> Result<()> {
        let changed = self.conn().execute(
            "UPDATE runs SET started_at_ms = ?2, ended_at_ms = ?3, interval_ms = ?4,
                 sha256 = ?5, host = ?6, inventory_json = ?7, metadata_json = ?8,
                 warnings_json = ?9, content_sha256 = ?10, head_sha256 = ?11
             WHERE id = ?1",
            params![
                run_id,
                c.started_at.map(to_ms),
                c.ended_at.map(to_ms),
                c.interval_ms,
                c.sha256,
                c.host,
                to_json(&c.inventory)?,
                to_json(&c.metadata)?,
                to_json(&c.warnings)?,
                c.content_sha256,
                c.head_sha256,
            ],
        )?;
        if changed == 0 {
            return Err(Error::not_found("run", run_id));
        }
        Ok(())
    }

    /// Record a run, freezing the offering and its billing rules as they are
    /// now into the run (prices change; old evidence must not).
    pub fn create_run(&self, run: NewRun) -> Result<Run> {
        let run = run.validate()?;
        self.platform_by_id(run.platform_id)?;
        let offering = match run.offering_id {
            Some(id) => Some(self.offering_of(run.platform_id, id)?),
            None => None,
        };
        let rules: Vec<BillingRule> = self
            .billing_rules(run.platform_id)?
            .into_iter()
            .filter(|r| r.offering_id.is_none() || r.offering_id == run.offering_id)
            .collect();
        self.conn().execute(
            "INSERT INTO runs (platform_id, offering_id, kind, source, file_name, sha256, format,
                 host, started_at_ms, ended_at_ms, interval_ms, inventory_json,
                 offering_snapshot_json, billing_snapshot_json, metadata_json, warnings_json,
                 created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                run.platform_id,
                run.offering_id,
                run.kind,
                run.source,
                run.provenance.file_name,
                run.provenance.sha256,
                run.provenance.format,
                run.provenance.host,
                run.started_at.map(to_ms),
                run.ended_at.map(to_ms),
                run.interval_ms,
                to_json(&run.inventory)?,
                offering.as_ref().map(to_json).transpose()?,
                to_json(&rules)?,
                to_json(&run.metadata)?,
                to_json(&run.warnings)?,
                now_ms(),
            ],
        )?;
        self.run(self.conn().last_insert_rowid())
    }

    pub fn run(&self, id: i64) -> Result<Run> {
        self.conn()
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                run_from_row,
            )
            .optional()?
            .ok_or_else(|| Error::not_found("run", id))
    }

    /// Runs of one platform, or all runs, oldest first.
    pub fn runs(&self, platform_id: Option<i64>) -> Result<Vec<Run>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {RUN_COLUMNS} FROM runs {} ORDER BY id",
            super::platform_filter(platform_id)
        ))?;
        let rows = stmt.query_map([platform_id], run_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Per run, how many records it holds besides samples (events, startup
    /// and switch attempts, fault drills, billing lines, and those an import
    /// kept in its metadata), counted as the import report counts them.
    /// Runs without any are absent.
    pub fn record_counts(&self) -> Result<HashMap<i64, u64>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT run_id, SUM(n) FROM (
                SELECT run_id, 1 AS n FROM events
                UNION ALL SELECT run_id, 1 FROM startup_attempts
                UNION ALL SELECT run_id, 1 FROM switch_attempts
                UNION ALL SELECT run_id, 1 FROM fault_drills
                UNION ALL SELECT run_id, 1 FROM billing_lines
                UNION ALL SELECT id, json_extract(metadata_json, '$.kept_records') FROM runs
                    WHERE json_type(metadata_json, '$.kept_records') = 'integer'
             ) GROUP BY run_id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
        rows.map(|r| Ok(r.map(|(run, n)| (run, n.max(0) as u64))?))
            .collect()
    }

    /// The run that holds a file with this SHA-256, if it was imported before.
    pub fn run_by_sha256(&self, sha256: &str) -> Result<Option<i64>> {
        Ok(self
            .conn()
            .query_row("SELECT id FROM runs WHERE sha256 = ?1", [sha256], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// The run whose log decoded to this text (the same log compressed or
    /// encoded another way), if there is one.
    pub fn run_by_content_sha256(&self, content_sha256: &str) -> Result<Option<i64>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM runs WHERE content_sha256 = ?1 ORDER BY id LIMIT 1",
                [content_sha256],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Whether some run's log begins with the same 64 KiB of text.
    pub fn has_run_with_head(&self, head_sha256: &str) -> Result<bool> {
        Ok(self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM runs WHERE head_sha256 = ?1)",
            [head_sha256],
            |r| r.get(0),
        )?)
    }

    /// Delete a run with its samples and evidence.
    pub fn delete_run(&self, id: i64) -> Result<()> {
        let changed = self
            .conn()
            .execute("DELETE FROM runs WHERE id = ?1", [id])?;
        if changed == 0 {
            return Err(Error::not_found("run", id));
        }
        Ok(())
    }

    /// Replace a run's metadata (what a pull learnt after creating it).
    pub fn set_run_metadata(
        &self,
        run_id: i64,
        metadata: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<()> {
        let changed = self.conn().execute(
            "UPDATE runs SET metadata_json = ?2 WHERE id = ?1",
            params![run_id, to_json(metadata)?],
        )?;
        if changed == 0 {
            return Err(Error::not_found("run", run_id));
        }
        Ok(())
    }

    pub fn add_run_warnings(&self, run_id: i64, warnings: &[String]) -> Result<()> {
        let mut run = self.run(run_id)?;
        run.warnings.extend_from_slice(warnings);
        self.conn().execute(
            "UPDATE runs SET warnings_json = ?2 WHERE id = ?1",
            params![run_id, to_json(&run.warnings)?],
        )?;
        Ok(())
    }

    pub fn add_events(&self, run_id: i64, events: &[Event]) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO events (run_id, at_ms, gpu, kind, code, duration_ms, detail)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for e in events {
            let e = e.clone().validate()?;
            stmt.execute(params![
                run_id,
                to_ms(e.at),
                e.gpu,
                e.kind,
                e.code,
                e.duration_ms,
                e.detail
            ])?;
        }
        Ok(())
    }

    pub fn events(&self, run_id: i64) -> Result<Vec<Event>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT at_ms, gpu, kind, code, duration_ms, detail FROM events
             WHERE run_id = ?1 ORDER BY at_ms, id",
        )?;
        let rows = stmt.query_map([run_id], event_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A run's events of one kind, without reading the others (a sustain
    /// run may hold thousands of kernel events that a billing measurement
    /// does not need).
    pub fn events_of_kind(&self, run_id: i64, kind: EventKind) -> Result<Vec<Event>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT at_ms, gpu, kind, code, duration_ms, detail FROM events
             WHERE run_id = ?1 AND kind = ?2 ORDER BY at_ms, id",
        )?;
        let rows = stmt.query_map(params![run_id, kind], event_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_startup_attempts(&self, run_id: i64, attempts: &[StartupAttempt]) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO startup_attempts (run_id, scenario, image, submitted_at_ms,
                 provisioned_at_ms, image_ready_at_ms, first_compute_at_ms, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for a in attempts {
            let a = a.clone().validate()?;
            stmt.execute(params![
                run_id,
                a.scenario,
                a.image,
                to_ms(a.submitted_at),
                a.provisioned_at.map(to_ms),
                a.image_ready_at.map(to_ms),
                a.first_compute_at.map(to_ms),
                a.outcome
            ])?;
        }
        Ok(())
    }

    pub fn startup_attempts(&self, run_id: i64) -> Result<Vec<StartupAttempt>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT scenario, image, submitted_at_ms, provisioned_at_ms, image_ready_at_ms,
                    first_compute_at_ms, outcome
             FROM startup_attempts WHERE run_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(StartupAttempt {
                scenario: r.get(0)?,
                image: r.get(1)?,
                submitted_at: from_ms(r.get(2)?)?,
                provisioned_at: opt_ms(r, 3)?,
                image_ready_at: opt_ms(r, 4)?,
                first_compute_at: opt_ms(r, 5)?,
                outcome: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_switch_attempts(&self, run_id: i64, attempts: &[SwitchAttempt]) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO switch_attempts (run_id, from_env, to_env, success, manual_steps,
                 duration_s, rel_l2_error, ops_passed, ops_total)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for a in attempts {
            let a = a.clone().validate()?;
            stmt.execute(params![
                run_id,
                a.from_env,
                a.to_env,
                a.success,
                a.manual_steps,
                a.duration_s,
                a.rel_l2_error,
                a.ops_passed,
                a.ops_total
            ])?;
        }
        Ok(())
    }

    pub fn switch_attempts(&self, run_id: i64) -> Result<Vec<SwitchAttempt>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT from_env, to_env, success, manual_steps, duration_s, rel_l2_error,
                    ops_passed, ops_total
             FROM switch_attempts WHERE run_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(SwitchAttempt {
                from_env: r.get(0)?,
                to_env: r.get(1)?,
                success: r.get(2)?,
                manual_steps: r.get(3)?,
                duration_s: r.get(4)?,
                rel_l2_error: r.get(5)?,
                ops_passed: r.get(6)?,
                ops_total: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_fault_drills(&self, run_id: i64, drills: &[FaultDrill]) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO fault_drills (run_id, fault, detected, recovered, recovery_s,
                 progress_lost_s)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for d in drills {
            let d = d.clone().validate()?;
            stmt.execute(params![
                run_id,
                d.fault,
                d.detected,
                d.recovered,
                d.recovery_s,
                d.progress_lost_s
            ])?;
        }
        Ok(())
    }

    pub fn fault_drills(&self, run_id: i64) -> Result<Vec<FaultDrill>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT fault, detected, recovered, recovery_s, progress_lost_s
             FROM fault_drills WHERE run_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(FaultDrill {
                fault: r.get(0)?,
                detected: r.get(1)?,
                recovered: r.get(2)?,
                recovery_s: r.get(3)?,
                progress_lost_s: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_price_quotes(
        &self,
        run_id: i64,
        quotes: &[crate::domain::PriceQuote],
    ) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO price_quotes (run_id, provider, region, zone, instance_type, accelerator,
                 accelerator_count, vcpus, memory_gib, mode, price, per, currency, observed_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        for q in quotes {
            stmt.execute(params![
                run_id,
                q.provider,
                q.region,
                q.zone,
                q.instance_type,
                q.accelerator,
                q.accelerator_count,
                q.vcpus,
                q.memory_gib,
                q.mode.to_string(),
                q.price.to_string(),
                q.per.to_string(),
                q.currency,
                q.observed_at.map(to_ms),
            ])?;
        }
        Ok(())
    }

    /// The instances a platform's price lists quoted (each once): the
    /// instance type, region, card and count — what names an offering in a
    /// provider's own terms.
    pub fn quoted_instances(&self, platform_id: i64) -> Result<Vec<QuotedInstance>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT DISTINCT q.instance_type, q.region, q.accelerator, q.accelerator_count
             FROM price_quotes q JOIN runs r ON r.id = q.run_id
             WHERE r.platform_id = ?1
             ORDER BY q.instance_type, q.region",
        )?;
        let rows = stmt.query_map([platform_id], |r| {
            Ok(QuotedInstance {
                instance_type: r.get(0)?,
                region: r.get(1)?,
                accelerator: r.get(2)?,
                accelerator_count: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_billing_lines(&self, run_id: i64, lines: &[BillingLine]) -> Result<()> {
        for l in lines {
            self.add_billing_line(run_id, l, None)?;
        }
        Ok(())
    }

    /// One bill line of run `run_id`, read at `source_line` of its file
    /// where it was read from one.
    pub fn add_billing_line(
        &self,
        run_id: i64,
        line: &BillingLine,
        source_line: Option<u64>,
    ) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO billing_lines (run_id, instance, start_ms, end_ms, billed_seconds,
                 compute_seconds, queue_seconds, io_wait_seconds, amount, currency, unit_price,
                 amount_exact, unit_price_exact, line_id, host, product, source_line)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        )?;
        {
            let l = line.clone().validate()?;
            stmt.execute(params![
                run_id,
                l.instance,
                to_ms(l.start),
                to_ms(l.end),
                l.billed_seconds,
                l.compute_seconds,
                l.queue_seconds,
                l.io_wait_seconds,
                money::to_f64(l.amount),
                l.currency,
                money::to_f64(l.unit_price),
                l.amount.to_string(),
                l.unit_price.to_string(),
                l.line_id,
                l.host,
                l.product,
                source_line.and_then(|n| i64::try_from(n).ok())
            ])?;
        }
        Ok(())
    }

    /// The line of its file run `run_id`'s bill line with provider id `id`
    /// was read from, where the run holds one (0 where it was not read
    /// from a file).
    pub fn bill_line_source(&self, run_id: i64, id: &str) -> Result<Option<u64>> {
        let found: Option<Option<i64>> = self
            .conn()
            .prepare_cached(
                "SELECT source_line FROM billing_lines WHERE run_id = ?1 AND line_id = ?2 LIMIT 1",
            )?
            .query_row(params![run_id, id], |r| r.get(0))
            .optional()?;
        Ok(found.map(|line| line.and_then(|n| u64::try_from(n).ok()).unwrap_or(0)))
    }

    /// The run (of the same platform as `run_id`, other than it) that holds
    /// `line` already: the same provider line id or, for a line without
    /// one, the same instance, period, amount and currency.
    pub fn bill_line_imported_before(
        &self,
        run_id: i64,
        line: &BillingLine,
    ) -> Result<Option<i64>> {
        let found = match &line.line_id {
            Some(id) => self
                .conn()
                .prepare_cached(
                    "SELECT b.run_id FROM billing_lines b JOIN runs r ON r.id = b.run_id
                     WHERE b.line_id = ?2 AND b.run_id != ?1
                       AND r.platform_id IS (SELECT platform_id FROM runs WHERE id = ?1)
                     LIMIT 1",
                )?
                .query_row(params![run_id, id], |r| r.get(0))
                .optional()?,
            None => self
                .conn()
                .prepare_cached(
                    "SELECT b.run_id FROM billing_lines b JOIN runs r ON r.id = b.run_id
                     WHERE b.instance = ?2 AND b.start_ms = ?3 AND b.end_ms = ?4
                       AND b.amount_exact = ?5 AND b.currency = ?6 AND b.line_id IS NULL
                       AND b.run_id != ?1
                       AND r.platform_id IS (SELECT platform_id FROM runs WHERE id = ?1)
                     LIMIT 1",
                )?
                .query_row(
                    params![
                        run_id,
                        line.instance,
                        to_ms(line.start),
                        to_ms(line.end),
                        line.amount.to_string(),
                        line.currency
                    ],
                    |r| r.get(0),
                )
                .optional()?,
        };
        Ok(found)
    }

    pub fn billing_lines(&self, run_id: i64) -> Result<Vec<BillingLine>> {
        let mut lines = Vec::new();
        self.visit_billing_lines(run_id, |line| {
            lines.push(line);
            Ok(())
        })?;
        Ok(lines)
    }

    /// Each bill line of the run in order, one at a time: a bill of a
    /// million lines is read without holding it.
    pub fn visit_billing_lines(
        &self,
        run_id: i64,
        mut visit: impl FnMut(BillingLine) -> Result<()>,
    ) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT instance, start_ms, end_ms, billed_seconds, compute_seconds, queue_seconds,
                    io_wait_seconds, amount, currency, unit_price, amount_exact, unit_price_exact,
                    line_id, host, product
             FROM billing_lines WHERE run_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(BillingLine {
                instance: r.get(0)?,
                start: from_ms(r.get(1)?)?,
                end: from_ms(r.get(2)?)?,
                billed_seconds: r.get(3)?,
                compute_seconds: r.get(4)?,
                queue_seconds: r.get(5)?,
                io_wait_seconds: r.get(6)?,
                amount: exact_money(r, 10, 7)?,
                currency: r.get(8)?,
                unit_price: exact_money(r, 11, 9)?,
                line_id: r.get(12)?,
                host: r.get(13)?,
                product: r.get(14)?,
            })
        })?;
        for row in rows {
            visit(row?)?;
        }
        Ok(())
    }

    /// How many events each run has, for listings.
    pub fn event_count(&self, run_id: i64) -> Result<i64> {
        Ok(self.conn().query_row(
            "SELECT count(*) FROM events WHERE run_id = ?1",
            [run_id],
            |r| r.get(0),
        )?)
    }
}

/// An instance a price list quoted (`Store::quoted_instances`).
#[derive(Debug, Clone, PartialEq)]
pub struct QuotedInstance {
    pub instance_type: String,
    pub region: Option<String>,
    pub accelerator: Option<String>,
    pub accelerator_count: Option<u32>,
}
