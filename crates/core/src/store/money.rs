//! Exchange rates and the workspace's settings.

use rusqlite::{OptionalExtension, params};

use super::Store;
use crate::domain::money::ExchangeRate;
use crate::error::{Error, Result};

impl Store {
    /// Add rates; a rate of the same pair and day replaces the earlier
    /// one (a corrected figure). Returns how many were stored.
    pub fn add_exchange_rates(&self, rates: &[ExchangeRate]) -> Result<usize> {
        self.atomically(|store| {
            let mut stmt = store.conn().prepare_cached(
                "INSERT INTO exchange_rates (from_currency, to_currency, rate, on_date, source)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (from_currency, to_currency, on_date)
                 DO UPDATE SET rate = excluded.rate, source = excluded.source",
            )?;
            for r in rates {
                stmt.execute(params![
                    r.from,
                    r.to,
                    r.rate.to_string(),
                    r.on.to_string(),
                    r.source
                ])?;
            }
            Ok::<_, Error>(rates.len())
        })
    }

    pub fn exchange_rates(&self) -> Result<Vec<ExchangeRate>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT from_currency, to_currency, rate, on_date, source FROM exchange_rates
             ORDER BY from_currency, to_currency, on_date",
        )?;
        let text = |r: &rusqlite::Row<'_>, i: usize| r.get::<_, String>(i);
        let unreadable = |i: usize, e: String| {
            rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
        };
        let rows = stmt.query_map([], |r| {
            Ok(ExchangeRate {
                from: text(r, 0)?,
                to: text(r, 1)?,
                rate: text(r, 2)?
                    .parse()
                    .map_err(|e: rust_decimal::Error| unreadable(2, e.to_string()))?,
                on: text(r, 3)?
                    .parse()
                    .map_err(|e: jiff::Error| unreadable(3, e.to_string()))?,
                source: r.get(4)?,
            })
        })?;
        let out = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(out)
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
