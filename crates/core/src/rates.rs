//! The reporting currency, and every platform's money brought into it:
//! prices and bills keep their own currency, and figures in different
//! currencies are compared only through a dated rate with its source
//! (`exchange`), shown beside every converted figure. Without a rate the
//! figures are "not comparable", never compared as if a yuan were a
//! dollar.

use std::collections::BTreeMap;

use jiff::civil::Date;
use serde::Serialize;

use crate::domain::money;
use crate::domain::validate;
use crate::error::Result;
pub use crate::exchange::{
    DISAGREEMENT, Disagreement, ExchangeRate, RateBook, RateUsed, RatesStored, add_rates,
    import_rates, missing_rate, today,
};
use crate::store::Store;

/// The settings key of the workspace's reporting currency.
const CURRENCY_SETTING: &str = "currency";

/// The currency figures are reported in, and why that one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reporting {
    pub currency: String,
    /// "--currency", "the workspace's currency", "the platforms' prices".
    pub chosen_by: &'static str,
}

/// The workspace's reporting currency, where one is set.
pub fn workspace_currency(store: &Store) -> Result<Option<String>> {
    store.setting(CURRENCY_SETTING)
}

pub fn set_workspace_currency(store: &Store, code: &str) -> Result<String> {
    let code = validate::currency("currency", code)?;
    store.set_setting(CURRENCY_SETTING, &code)?;
    Ok(code)
}

/// The reporting currency: as asked, else the workspace's, else the one
/// most of the platforms' prices are in (alphabetical on a tie); `None`
/// where nothing is priced.
pub fn reporting(
    store: &Store,
    asked: Option<&str>,
    price_currencies: &[Option<String>],
) -> Result<Option<Reporting>> {
    if let Some(code) = asked {
        return Ok(Some(Reporting {
            currency: validate::currency("currency", code)?,
            chosen_by: "--currency",
        }));
    }
    if let Some(code) = workspace_currency(store)? {
        return Ok(Some(Reporting {
            currency: code,
            chosen_by: "the workspace's currency",
        }));
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in price_currencies.iter().flatten() {
        *counts.entry(c.as_str()).or_default() += 1;
    }
    let most = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(c, _)| c.to_string());
    Ok(most.map(|currency| Reporting {
        currency,
        chosen_by: "the currency of most platforms' prices",
    }))
}

/// Whether a metric is an amount of money (its unit names the currency).
pub fn is_money(def: &crate::metrics::catalog::MetricDef) -> bool {
    def.unit.starts_with("currency")
}

/// Bring every platform's money metrics into the reporting currency at the
/// rate of `day`, saying the rate in each converted figure's details; a
/// platform whose prices no rate joins to it loses those figures (scored
/// as not measured, the reason kept). Returns the rates used.
pub fn make_comparable(
    evidence: &mut [crate::metrics::PlatformEvidence],
    reporting: &Reporting,
    book: &RateBook,
    day: Date,
) -> Vec<RateUsed> {
    let to = reporting.currency.as_str();
    let mut used: Vec<RateUsed> = Vec::new();
    for e in evidence.iter_mut() {
        let Some(from) = e.currency.clone() else {
            continue;
        };
        if from == to {
            continue;
        }
        let money_keys: Vec<String> = e
            .metrics
            .keys()
            .filter(|k| crate::metrics::catalog::metric(k).is_some_and(is_money))
            .map(str::to_string)
            .collect();
        match book.rate(&from, to, day) {
            Some(rate) => {
                let factor = money::to_f64(rate.rate);
                for key in &money_keys {
                    let Some(ev) = e.metrics.get_mut(key) else {
                        continue;
                    };
                    ev.value *= factor;
                    ev.min *= factor;
                    ev.max *= factor;
                    for s in &mut ev.spread {
                        s.value *= factor;
                    }
                    for w in &mut ev.worst {
                        w.value *= factor;
                    }
                    for r in &mut ev.runs {
                        r.value *= factor;
                    }
                    ev.details
                        .insert(0, format!("in {to}: converted from {from} at {rate}"));
                }
                e.currency = Some(to.to_string());
                if !used.contains(&rate) {
                    used.push(rate);
                }
            }
            None => {
                for key in money_keys {
                    e.metrics.remove(&key);
                    e.not_comparable.push(crate::metrics::NotComparable {
                        reason: format!(
                            "not comparable: its prices are in {from}; {}",
                            missing_rate(&from, to)
                        ),
                        key,
                    });
                }
                // Its other figures still rank; its money is left out.
                e.currency = Some(to.to_string());
            }
        }
    }
    used
}
