//! Dated exchange rates and the workspace's reporting currency: typed in,
//! imported from a file, listed, removed. Prices and bills keep their own
//! currency; these are the rates that compare them.

use std::path::Path;

use serde::Serialize;

use crate::domain::money::{self, ExchangeRate};
use crate::error::{Error, Result, ValidationError};
use crate::store::Store;

pub use breakpoint_core::rates::{
    DISAGREEMENT, Disagreement, RatesStored, set_workspace_currency, today, workspace_currency,
};
pub use breakpoint_core::store::RatePair;

/// A day as typed (`2026-12-01`), for `field`'s messages.
pub fn day(field: &str, text: &str) -> std::result::Result<jiff::civil::Date, ValidationError> {
    text.trim().parse().map_err(|_| {
        ValidationError::new(
            field,
            format!(
                "\"{}\" is not a date (2026-12-01)",
                crate::text::printable_excerpt(text.trim(), 40)
            ),
        )
    })
}

/// One rate as typed: `rates add USD CNY 7.10 [--on DAY] [--source S]`,
/// read by the rule a file's rates are read by (`7,1` is 7.1; `7e2`,
/// `7_000` and `1,050` are refused).
pub fn add(
    store: &Store,
    from: &str,
    to: &str,
    rate: &str,
    on: Option<&str>,
    source: Option<String>,
) -> Result<(ExchangeRate, RatesStored)> {
    let on = match on {
        Some(text) => day("on", text)?,
        None => today(),
    };
    let rate = ExchangeRate::new(from, to, money::parse_rate("rate", rate)?, on, source)?;
    let stored = breakpoint_core::rates::add_rates(store, std::slice::from_ref(&rate))?;
    Ok((rate, stored))
}

/// A rates file, all of it or none (see `formats::rates` for what it may
/// be). The read is bounded by what is read, so a device or a pipe named
/// as the file is stopped at the bound, not read forever.
pub fn import_file(store: &Store, path: &Path) -> Result<RatesStored> {
    let shown = crate::text::printable(&path.display().to_string()).into_owned();
    if path.is_dir() {
        return Err(Error::Refused(format!(
            "{shown}: is a folder; name a rates file"
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::Refused(format!("{shown}: {e}")))?;
    breakpoint_core::rates::import_rates(store, &shown, file)
}

/// What `rates list` shows: every pair summed up, or one pair's rates.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "shown", rename_all = "kebab-case")]
pub enum RatesHeld {
    Pairs { pairs: Vec<RatePair> },
    Pair { rates: Vec<ExchangeRate> },
}

pub fn list(store: &Store, pair: Option<(&str, &str)>) -> Result<RatesHeld> {
    Ok(match pair {
        None => RatesHeld::Pairs {
            pairs: store.exchange_rate_pairs()?,
        },
        Some((from, to)) => {
            let (from, to) = codes(from, to)?;
            RatesHeld::Pair {
                rates: store.exchange_rates_of(&from, &to)?,
            }
        }
    })
}

/// Remove a pair's rates as stated (its inverse stays): the one of `on`,
/// or all of them. A pair with nothing to remove is said, not ignored.
pub fn remove(store: &Store, from: &str, to: &str, on: Option<&str>) -> Result<usize> {
    let (from, to) = codes(from, to)?;
    let on = on.map(|text| day("on", text)).transpose()?;
    let removed = store.atomically(|s| s.remove_exchange_rates(&from, &to, on))?;
    if removed == 0 {
        return Err(Error::not_found(
            "rate",
            match on {
                Some(d) => format!("{from}→{to} on {d}"),
                None => format!("{from}→{to}"),
            },
        ));
    }
    Ok(removed)
}

fn codes(from: &str, to: &str) -> std::result::Result<(String, String), ValidationError> {
    Ok((
        crate::domain::validate::currency("from", from)?,
        crate::domain::validate::currency("to", to)?,
    ))
}
