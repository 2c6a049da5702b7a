//! Exchange rates and the workspace's settings.

use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::domain::money::ExchangeRate;
use crate::error::{Error, Result};

/// What storing one rate did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateStored {
    /// A pair and day not held before.
    New,
    /// A pair and day held before, at another rate or source: corrected.
    Replaced,
    /// Held already, as it is.
    Same,
}

/// A pair's rates, summed up: what `rates list` shows of a table that may
/// hold years of days.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RatePair {
    pub from: String,
    pub to: String,
    pub days: u64,
    pub first: jiff::civil::Date,
    /// The newest rate of the pair.
    pub latest: ExchangeRate,
}

const RATE_COLUMNS: &str = "from_currency, to_currency, rate, on_date, source";

fn rate_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<ExchangeRate> {
    let text = |i: usize| r.get::<_, String>(i);
    let unreadable = |i: usize, e: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    };
    Ok(ExchangeRate {
        from: text(0)?,
        to: text(1)?,
        rate: text(2)?
            .parse()
            .map_err(|e: rust_decimal::Error| unreadable(2, e.to_string()))?,
        on: text(3)?
            .parse()
            .map_err(|e: jiff::Error| unreadable(3, e.to_string()))?,
        source: r.get(4)?,
    })
}

impl Store {
    /// Store one rate; a rate of the same pair and day replaces the
    /// earlier one (a corrected figure), under a new id. Returns what it
    /// did and the id the pair and day were held under before, so that an
    /// import can tell a day it gave twice (held under an id of its own)
    /// from one held before it began. Call inside a transaction when
    /// storing many (`atomically`): one statement each, nothing held in
    /// memory.
    pub fn put_exchange_rate(&self, r: &ExchangeRate) -> Result<(RateStored, Option<i64>)> {
        let (rate, on) = (r.rate.to_string(), r.on.to_string());
        let held: Option<(i64, String, Option<String>)> = self
            .conn()
            .prepare_cached(
                "SELECT id, rate, source FROM exchange_rates
                 WHERE from_currency = ?1 AND to_currency = ?2 AND on_date = ?3",
            )?
            .query_row(params![r.from, r.to, on], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .optional()?;
        let stored = match &held {
            None => RateStored::New,
            Some((_, held_rate, held_source)) if *held_rate == rate && *held_source == r.source => {
                RateStored::Same
            }
            Some(_) => RateStored::Replaced,
        };
        self.conn()
            .prepare_cached(
                "INSERT OR REPLACE INTO exchange_rates
                 (from_currency, to_currency, rate, on_date, source)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![r.from, r.to, rate, on, r.source])?;
        Ok((stored, held.map(|(id, _, _)| id)))
    }

    /// The highest id a rate is held under (0 for none): rates stored
    /// after this moment are held above it.
    pub fn last_exchange_rate_id(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("SELECT COALESCE(MAX(id), 0) FROM exchange_rates", [], |r| {
                r.get(0)
            })?)
    }

    /// Add rates in one transaction. Returns how many were new or changed.
    pub fn add_exchange_rates(&self, rates: &[ExchangeRate]) -> Result<usize> {
        self.atomically(|store| {
            let mut changed = 0;
            for r in rates {
                if store.put_exchange_rate(r)?.0 != RateStored::Same {
                    changed += 1;
                }
            }
            Ok::<_, Error>(changed)
        })
    }

    /// The rate of `from` in `to` stated on `day` or the latest before it;
    /// with `after`, the earliest stated after it instead.
    pub fn exchange_rate_near(
        &self,
        from: &str,
        to: &str,
        day: jiff::civil::Date,
        after: bool,
    ) -> Result<Option<ExchangeRate>> {
        let sql = if after {
            format!(
                "SELECT {RATE_COLUMNS} FROM exchange_rates
                 WHERE from_currency = ?1 AND to_currency = ?2 AND on_date > ?3
                 ORDER BY on_date LIMIT 1"
            )
        } else {
            format!(
                "SELECT {RATE_COLUMNS} FROM exchange_rates
                 WHERE from_currency = ?1 AND to_currency = ?2 AND on_date <= ?3
                 ORDER BY on_date DESC LIMIT 1"
            )
        };
        Ok(self
            .conn()
            .prepare_cached(&sql)?
            .query_row(params![from, to, day.to_string()], rate_of)
            .optional()?)
    }

    /// The currencies `code` is quoted against, in either direction.
    pub fn exchange_partners(&self, code: &str) -> Result<Vec<String>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT DISTINCT to_currency FROM exchange_rates WHERE from_currency = ?1
             UNION
             SELECT DISTINCT from_currency FROM exchange_rates WHERE to_currency = ?1",
        )?;
        let out = stmt
            .query_map([code], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(out)
    }

    /// Every pair held, summed up.
    pub fn exchange_rate_pairs(&self) -> Result<Vec<RatePair>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {RATE_COLUMNS}, days, first FROM (
                 SELECT *, COUNT(*) OVER pair AS days, MIN(on_date) OVER pair AS first,
                        ROW_NUMBER() OVER (PARTITION BY from_currency, to_currency
                                           ORDER BY on_date DESC) AS newest
                 FROM exchange_rates
                 WINDOW pair AS (PARTITION BY from_currency, to_currency))
             WHERE newest = 1 ORDER BY from_currency, to_currency"
        ))?;
        let rows = stmt.query_map([], |r| {
            let first: String = r.get(6)?;
            Ok(RatePair {
                from: r.get(0)?,
                to: r.get(1)?,
                days: r.get::<_, i64>(5)?.unsigned_abs(),
                first: first.parse().map_err(|e: jiff::Error| {
                    rusqlite::Error::FromSqlConversionFailure(
                        6,
                        rusqlite::types::Type::Text,
                        e.to_string().into(),
                    )
                })?,
                latest: rate_of(r)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// One pair's rates, by day (as stated, not inverted).
    pub fn exchange_rates_of(&self, from: &str, to: &str) -> Result<Vec<ExchangeRate>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {RATE_COLUMNS} FROM exchange_rates
             WHERE from_currency = ?1 AND to_currency = ?2 ORDER BY on_date"
        ))?;
        let out = stmt
            .query_map([from, to], rate_of)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(out)
    }

    /// Remove a pair's rates (as stated, not its inverse): the one of `on`,
    /// or all of them. Returns how many went.
    pub fn remove_exchange_rates(
        &self,
        from: &str,
        to: &str,
        on: Option<jiff::civil::Date>,
    ) -> Result<usize> {
        Ok(match on {
            Some(day) => self.conn().execute(
                "DELETE FROM exchange_rates
                 WHERE from_currency = ?1 AND to_currency = ?2 AND on_date = ?3",
                params![from, to, day.to_string()],
            )?,
            None => self.conn().execute(
                "DELETE FROM exchange_rates WHERE from_currency = ?1 AND to_currency = ?2",
                params![from, to],
            )?,
        })
    }

    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    pub fn set_setting(&self, key: &str, value: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }
}
