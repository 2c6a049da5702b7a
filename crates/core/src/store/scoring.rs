//! What scoring keeps in the store: weight profiles and the per-run metric
//! cache.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{OptionalExtension, Row, params};

use super::Store;
use crate::domain::{Anchors, BreakpointWeights, WeightProfile, validate};
use crate::error::{Error, Result};

/// A weight profile with its scoring curves and coverage threshold.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredProfile {
    #[serde(flatten)]
    pub profile: WeightProfile,
    /// Anchors replacing the catalogue's defaults, by metric key.
    pub curves: BTreeMap<String, Anchors>,
    /// A platform whose evidence covers less than this share of the weight
    /// is listed as "insufficient evidence".
    pub coverage_threshold: f64,
}

const COLUMNS: &str = "id, name, builtin, w_startup, w_sustain, w_switch, w_billing, \
     metric_weights_json, curves_json, coverage_threshold";

fn from_row(r: &Row<'_>) -> rusqlite::Result<StoredProfile> {
    let json_err = |i: usize| {
        move |e: serde_json::Error| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
        }
    };
    let metrics: String = r.get(7)?;
    let curves: String = r.get(8)?;
    Ok(StoredProfile {
        profile: WeightProfile {
            id: r.get(0)?,
            name: r.get(1)?,
            builtin: r.get(2)?,
            breakpoints: BreakpointWeights {
                startup: r.get(3)?,
                sustain: r.get(4)?,
                switch: r.get(5)?,
                billing: r.get(6)?,
            },
            metrics: serde_json::from_str(&metrics).map_err(json_err(7))?,
        },
        curves: serde_json::from_str(&curves).map_err(json_err(8))?,
        coverage_threshold: r.get(9)?,
    })
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Io(std::io::Error::other(e)))
}

impl Store {
    pub fn weight_profiles(&self) -> Result<Vec<StoredProfile>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {COLUMNS} FROM weight_profiles ORDER BY builtin DESC, id"
        ))?;
        let rows = stmt.query_map([], from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A profile by name, compared as `validate::name_key` compares names.
    pub fn weight_profile(&self, name: &str) -> Result<StoredProfile> {
        let exact = self
            .conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM weight_profiles WHERE name = ?1"),
                [name.trim()],
                from_row,
            )
            .optional()?;
        match exact {
            Some(p) => Ok(p),
            None => self
                .profile_named_alike(name)?
                .ok_or_else(|| Error::not_found("weight profile", name.trim())),
        }
    }

    fn profile_named_alike(&self, name: &str) -> Result<Option<StoredProfile>> {
        let key = validate::name_key(name);
        Ok(self
            .weight_profiles()?
            .into_iter()
            .find(|p| validate::name_key(&p.profile.name) == key))
    }

    /// Create a profile, or replace the weights of an existing one of the
    /// same name (built-in presets cannot be replaced).
    pub fn save_weight_profile(&self, p: &StoredProfile) -> Result<StoredProfile> {
        // The look-up, the checks and the write in one write transaction.
        self.atomically(|store| store.write_weight_profile(p))
    }

    fn write_weight_profile(&self, p: &StoredProfile) -> Result<StoredProfile> {
        let name = validate::name("name", &p.profile.name)?;
        let existing = self.profile_named_alike(&name)?;
        if let Some(existing) = &existing
            && existing.profile.name != name
            && !existing.profile.builtin
        {
            return Err(Error::LooksLike {
                what: "weight profile",
                name,
                existing: existing.profile.name.clone(),
            });
        }
        if let Some(existing) = existing
            && existing.profile.builtin
        {
            return Err(crate::error::ValidationError::new(
                "profile",
                format!(
                    "\"{}\" is a built-in preset; save your changes under another name",
                    existing.profile.name
                ),
            )
            .into());
        }
        // The same rules whichever face built the profile.
        let w = WeightProfile::new(&name, p.profile.breakpoints, p.profile.metrics.clone())?
            .breakpoints;
        if !(0.0..=1.0).contains(&p.coverage_threshold) {
            return Err(crate::error::ValidationError::new(
                "coverage_threshold",
                "must be between 0 and 1",
            )
            .into());
        }
        self.conn().execute(
            "INSERT INTO weight_profiles (name, builtin, w_startup, w_sustain, w_switch, w_billing,
                 metric_weights_json, curves_json, coverage_threshold)
             VALUES (?1, 0, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (name) DO UPDATE SET
                 w_startup = excluded.w_startup, w_sustain = excluded.w_sustain,
                 w_switch = excluded.w_switch, w_billing = excluded.w_billing,
                 metric_weights_json = excluded.metric_weights_json,
                 curves_json = excluded.curves_json,
                 coverage_threshold = excluded.coverage_threshold",
            params![
                name,
                w.startup,
                w.sustain,
                w.switch,
                w.billing,
                json(&p.profile.metrics)?,
                json(&p.curves)?,
                p.coverage_threshold
            ],
        )?;
        self.weight_profile(&name)
    }

    pub fn delete_weight_profile(&self, name: &str) -> Result<()> {
        let p = self.weight_profile(name)?;
        if p.profile.builtin {
            return Err(crate::error::ValidationError::new(
                "profile",
                format!(
                    "\"{}\" is a built-in preset and cannot be deleted",
                    p.profile.name
                ),
            )
            .into());
        }
        self.conn()
            .execute("DELETE FROM weight_profiles WHERE id = ?1", [p.profile.id])?;
        Ok(())
    }

    pub(crate) fn cached_metrics(&self, run_id: i64, engine: i64) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT values_json FROM metric_cache WHERE run_id = ?1 AND engine = ?2",
                params![run_id, engine],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Keep a run's computed metrics, only if the run they were computed from
    /// is still there (same id, same creation time): a run deleted while its
    /// figures were being computed must not have them filed under anything.
    /// Nothing is written, and no error raised, where the database is
    /// read-only: the figures were computed and are shown all the same.
    /// Returns whether they were kept.
    pub(crate) fn cache_metrics(
        &self,
        run_id: i64,
        run_created_at_ms: i64,
        engine: i64,
        values_json: &str,
    ) -> Result<bool> {
        if self.is_read_only() {
            return Ok(false);
        }
        let written = self.conn().execute(
            "INSERT INTO metric_cache (run_id, engine, values_json)
             SELECT ?1, ?2, ?3 WHERE EXISTS
                 (SELECT 1 FROM runs WHERE id = ?1 AND created_at_ms = ?4)
             ON CONFLICT (run_id) DO UPDATE SET engine = excluded.engine, values_json = excluded.values_json",
            params![run_id, engine, values_json, run_created_at_ms],
        );
        match written {
            Ok(n) => Ok(n > 0),
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// A platform's stamp: it moves on with every change to what its
    /// evidence is made of (schema 6's triggers); 0 before any.
    pub(crate) fn platform_stamp(&self, platform_id: i64) -> Result<i64> {
        // Cached statements: a ranking asks this once per platform.
        Ok(self
            .conn()
            .prepare_cached("SELECT stamp FROM platform_stamps WHERE platform_id = ?1")?
            .query_row([platform_id], |r| r.get(0))
            .optional()?
            .unwrap_or(0))
    }

    /// A platform's evidence as last gathered, if gathered by this engine at
    /// this stamp.
    pub(crate) fn cached_evidence(
        &self,
        platform_id: i64,
        engine: i64,
        stamp: i64,
    ) -> Result<Option<String>> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT json FROM evidence_cache WHERE platform_id = ?1 AND engine = ?2 AND stamp = ?3",
            )?
            .query_row(params![platform_id, engine, stamp], |r| r.get(0))
            .optional()?)
    }

    /// Every platform's evidence as last gathered by this engine, where it
    /// was gathered at the platform's current stamp: platform id → JSON.
    pub(crate) fn cached_evidence_all(&self, engine: i64) -> Result<HashMap<i64, String>> {
        self.current_per_platform(
            "SELECT e.platform_id, e.json FROM evidence_cache e",
            engine,
            |r| r.get(1).map(Some),
        )
    }

    /// `cached_evidence_all` for the summaries without sources, each decoded
    /// as it is read (straight from SQLite's page, never copied): platform
    /// id → what `decode` made of it, where it made something.
    pub(crate) fn cached_summaries_all<T>(
        &self,
        engine: i64,
        decode: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<HashMap<i64, T>> {
        self.current_per_platform(
            "SELECT e.platform_id, e.summary FROM evidence_summaries e",
            engine,
            |r| Ok(decode(r.get_ref(1)?.as_blob()?)),
        )
    }

    /// The rows `select` (platform id, value, from a cache table `e`)
    /// reads that this engine wrote at the platform's current stamp, with
    /// what `value` makes of each.
    fn current_per_platform<T>(
        &self,
        select: &str,
        engine: i64,
        value: impl Fn(&Row) -> rusqlite::Result<Option<T>>,
    ) -> Result<HashMap<i64, T>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "{select} LEFT JOIN platform_stamps s ON s.platform_id = e.platform_id
             WHERE e.engine = ?1 AND e.stamp = COALESCE(s.stamp, 0)"
        ))?;
        let mut rows = stmt.query([engine])?;
        let mut out = HashMap::new();
        while let Some(row) = rows.next()? {
            if let Some(v) = value(row)? {
                out.insert(row.get(0)?, v);
            }
        }
        Ok(out)
    }

    /// Keep a platform's gathered evidence whole, under the engine that
    /// gathered it, with the stamp it was read at (a platform deleted
    /// meanwhile gets nothing; read-only: nothing).
    pub(crate) fn cache_evidence(
        &self,
        platform_id: i64,
        engine: i64,
        stamp: i64,
        whole: &str,
    ) -> Result<()> {
        self.cache_per_platform(
            "INSERT INTO evidence_cache (platform_id, engine, stamp, json)
             SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM platforms WHERE id = ?1)
             ON CONFLICT (platform_id) DO UPDATE SET engine = excluded.engine,
                 stamp = excluded.stamp, json = excluded.json",
            params![platform_id, engine, stamp, whole],
        )
    }

    /// `cache_evidence` for the summary without sources, under `key` (the
    /// engine and the summary's form).
    pub(crate) fn cache_summary(
        &self,
        platform_id: i64,
        key: i64,
        stamp: i64,
        summary: &[u8],
    ) -> Result<()> {
        self.cache_per_platform(
            "INSERT INTO evidence_summaries (platform_id, engine, stamp, summary)
             SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM platforms WHERE id = ?1)
             ON CONFLICT (platform_id) DO UPDATE SET engine = excluded.engine,
                 stamp = excluded.stamp, summary = excluded.summary",
            params![platform_id, key, stamp, summary],
        )
    }

    /// Write one cache row; a file opened read-only keeps nothing.
    fn cache_per_platform(&self, sql: &str, params: impl rusqlite::Params) -> Result<()> {
        if self.is_read_only() {
            return Ok(());
        }
        match self.conn().prepare_cached(sql)?.execute(params) {
            Ok(_) => Ok(()),
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
