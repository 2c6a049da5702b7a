//! Exchange rates and the reporting currency: prices and bills keep their
//! own currency, and figures in different currencies are compared only
//! through a dated rate with its source, shown beside every converted
//! figure. Without a rate the figures are "not comparable", never
//! compared as if a yuan were a dollar.
//!
//! A rate is looked up for the currency pair as given, else inverted, else
//! crossed through a third currency both are quoted against (the ECB's
//! reference rates quote every currency per euro), taking the latest date
//! on or before the day asked for — or the earliest after it where none
//! is older, said in the rate's words.

use std::collections::BTreeMap;

use jiff::civil::Date;
use serde::Serialize;

pub use crate::domain::money::ExchangeRate;
use crate::domain::money::{self, Decimal};
use crate::domain::validate;
use crate::error::Result;
use crate::store::Store;

/// The rate a conversion used: how many `to` for one `from`, and what it
/// rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateUsed {
    pub from: String,
    pub to: String,
    /// Written as exact decimal text.
    pub rate: Decimal,
    /// The rate's day (the older of the two legs of a crossed rate).
    pub on: Date,
    /// Where the rate came from, as given.
    pub source: Option<String>,
    /// The currency a crossed rate went through ("EUR").
    pub via: Option<String>,
}

impl RateUsed {
    pub fn convert(&self, amount: f64) -> f64 {
        amount * money::to_f64(self.rate)
    }
}

impl std::fmt::Display for RateUsed {
    /// "7.1 CNY per USD on 2026-12-01 (ECB reference rates, via EUR)"
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} per {} on {}",
            self.rate.normalize(),
            self.to,
            self.from,
            self.on
        )?;
        match (&self.source, &self.via) {
            (Some(s), Some(v)) => write!(f, " ({s}, via {v})"),
            (Some(s), None) => write!(f, " ({s})"),
            (None, Some(v)) => write!(f, " (via {v})"),
            (None, None) => Ok(()),
        }
    }
}

/// Digits kept in a crossed or inverted rate.
const RATE_DIGITS: u32 = 10;

/// Every rate the store holds, by pair, for lookups in one read.
#[derive(Debug, Clone, Default)]
pub struct RateBook {
    /// (from, to) → rates by day.
    pairs: BTreeMap<(String, String), Vec<ExchangeRate>>,
}

impl RateBook {
    pub fn of(store: &Store) -> Result<RateBook> {
        Ok(RateBook::from_rates(store.exchange_rates()?))
    }

    pub fn from_rates(rates: Vec<ExchangeRate>) -> RateBook {
        let mut pairs: BTreeMap<(String, String), Vec<ExchangeRate>> = BTreeMap::new();
        for r in rates {
            pairs
                .entry((r.from.clone(), r.to.clone()))
                .or_default()
                .push(r);
        }
        for list in pairs.values_mut() {
            list.sort_by_key(|r| r.on);
        }
        RateBook { pairs }
    }

    /// The rate of `from` in `to` for `day`: direct, inverted, or crossed
    /// through one currency; `None` where no rate joins them.
    pub fn rate(&self, from: &str, to: &str, day: Date) -> Option<RateUsed> {
        if from == to {
            return Some(RateUsed {
                from: from.into(),
                to: to.into(),
                rate: Decimal::ONE,
                on: day,
                source: None,
                via: None,
            });
        }
        if let Some(direct) = self.leg(from, to, day) {
            return Some(direct);
        }
        // Through a third currency: the legs closest to the day.
        let via: Vec<&String> = self
            .pairs
            .keys()
            .flat_map(|(a, b)| [a, b])
            .filter(|c| c.as_str() != from && c.as_str() != to)
            .collect();
        let mut best: Option<RateUsed> = None;
        for v in via {
            let (Some(a), Some(b)) = (self.leg(from, v, day), self.leg(v, to, day)) else {
                continue;
            };
            let on = a.on.min(b.on);
            if best.as_ref().is_some_and(|x| x.on >= on) {
                continue;
            }
            let source = match (&a.source, &b.source) {
                (Some(x), Some(y)) if x == y => Some(x.clone()),
                (Some(x), Some(y)) => Some(format!("{x}; {y}")),
                (x, y) => x.clone().or_else(|| y.clone()),
            };
            best = Some(RateUsed {
                from: from.into(),
                to: to.into(),
                rate: (a.rate * b.rate).round_dp(RATE_DIGITS),
                on,
                source,
                via: Some(v.clone()),
            });
        }
        best
    }

    /// One pair, as stored or inverted: the latest rate on or before `day`,
    /// else the earliest after it.
    fn leg(&self, from: &str, to: &str, day: Date) -> Option<RateUsed> {
        let pick = |list: &Vec<ExchangeRate>| -> Option<ExchangeRate> {
            list.iter()
                .rev()
                .find(|r| r.on <= day)
                .or_else(|| list.first())
                .cloned()
        };
        let direct = self
            .pairs
            .get(&(from.to_string(), to.to_string()))
            .and_then(pick);
        let inverse = self
            .pairs
            .get(&(to.to_string(), from.to_string()))
            .and_then(pick);
        // The one nearer the day wins; the stated direction on a tie.
        let chosen = match (direct, inverse) {
            (Some(d), Some(i)) => {
                if distance(i.on, day) < distance(d.on, day) {
                    (i, true)
                } else {
                    (d, false)
                }
            }
            (Some(d), None) => (d, false),
            (None, Some(i)) => (i, true),
            (None, None) => return None,
        };
        let (r, inverted) = chosen;
        Some(RateUsed {
            from: from.into(),
            to: to.into(),
            rate: if inverted {
                (Decimal::ONE / r.rate).round_dp(RATE_DIGITS)
            } else {
                r.rate
            },
            on: r.on,
            source: r.source,
            via: None,
        })
    }
}

fn distance(a: Date, b: Date) -> i64 {
    a.since(b)
        .map_or(i64::MAX, |span| i64::from(span.get_days()).abs())
}

/// Read a rates file: the ECB's reference-rate CSV as downloaded (`Date,
/// USD, JPY, …` with every currency per euro, "N/A" where none), or a
/// table of `date,from,to,rate[,source]`. `name` is the file's name for
/// messages; every refusal names its line and column.
pub fn read_rates_csv(name: &str, text: &str) -> std::result::Result<Vec<ExchangeRate>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(format!("{name}: empty: no rates"));
    };
    let columns: Vec<String> = header
        .trim_start_matches('\u{feff}')
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_ascii_lowercase())
        .collect();
    let at = |line: usize, column: usize, reason: String| {
        format!("{name}:{}:{}: {reason}", line + 1, column + 1)
    };
    let day = |line: usize, column: usize, text: &str| -> std::result::Result<Date, String> {
        text.trim().trim_matches('"').parse::<Date>().map_err(|_| {
            at(
                line,
                column,
                format!("\"{}\" is not a date (2026-12-01)", text.trim()),
            )
        })
    };
    let mut out = Vec::new();
    if columns.first().map(String::as_str) == Some("date")
        && columns.len() > 1
        && columns[1..]
            .iter()
            .all(|c| c.is_empty() || validate::currency("c", c).is_ok())
        && !columns.iter().any(|c| c == "from")
    {
        // The ECB's table: one row per day, one column per currency.
        let source = Some("ECB euro reference rates".to_string());
        for (i, line) in lines {
            let cells: Vec<&str> = line.split(',').collect();
            let on = day(i, 0, cells[0])?;
            for (k, cell) in cells.iter().enumerate().skip(1) {
                let code = columns.get(k).map(String::as_str).unwrap_or("");
                let cell = cell.trim().trim_matches('"');
                if code.is_empty() || cell.is_empty() || cell.eq_ignore_ascii_case("n/a") {
                    continue;
                }
                let rate = money::parse("rate", cell).map_err(|e| at(i, k, e.reason))?;
                out.push(
                    ExchangeRate::new("EUR", code, rate, on, source.clone())
                        .map_err(|e| at(i, k, e.reason))?,
                );
            }
        }
    } else {
        let find = |name: &str| columns.iter().position(|c| c == name);
        let (Some(d), Some(f), Some(t), Some(r)) =
            (find("date"), find("from"), find("to"), find("rate"))
        else {
            return Err(format!(
                "{name}:1: neither the ECB's reference-rate CSV (Date,USD,JPY,…) nor a table of date,from,to,rate[,source]"
            ));
        };
        let s = find("source");
        for (i, line) in lines {
            let cells: Vec<&str> = line
                .split(',')
                .map(|c| c.trim().trim_matches('"'))
                .collect();
            let cell = |k: usize| -> std::result::Result<&str, String> {
                cells
                    .get(k)
                    .copied()
                    .ok_or_else(|| at(i, k, "missing cell".into()))
            };
            let rate = money::parse("rate", cell(r)?).map_err(|e| at(i, r, e.reason))?;
            let rate = ExchangeRate::new(
                cell(f)?,
                cell(t)?,
                rate,
                day(i, d, cell(d)?)?,
                s.and_then(|k| cells.get(k)).map(|s| s.to_string()),
            )
            .map_err(|e| {
                let column = match e.field.as_str() {
                    "from" => f,
                    "to" => t,
                    _ => r,
                };
                at(i, column, e.reason)
            })?;
            out.push(rate);
        }
    }
    if out.is_empty() {
        return Err(format!("{name}: no rates in it"));
    }
    Ok(out)
}

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

pub use crate::import::timestamps::today;

/// Why two currencies are not compared: "no rate joins USD to CNY
/// (breakpoint rates add USD CNY RATE --on DATE)".
pub fn missing_rate(from: &str, to: &str) -> String {
    format!("no rate joins {from} to {to} (breakpoint rates add {from} {to} RATE --on DATE)")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn d(text: &str) -> Date {
        text.parse().unwrap()
    }

    fn rate(from: &str, to: &str, r: &str, on: &str) -> ExchangeRate {
        ExchangeRate::new(from, to, r.parse().unwrap(), d(on), None).unwrap()
    }

    #[test]
    fn a_rate_is_found_direct_inverted_or_crossed_at_its_day() {
        let book = RateBook::from_rates(vec![
            rate("USD", "CNY", "7.10", "2026-12-01"),
            rate("USD", "CNY", "7.20", "2026-11-01"),
            rate("EUR", "USD", "1.05", "2026-12-01"),
            rate("EUR", "JPY", "160", "2026-12-01"),
        ]);
        let r = book.rate("USD", "CNY", d("2026-12-04")).unwrap();
        assert_eq!((r.rate.to_string(), r.on), ("7.10".into(), d("2026-12-01")));
        // The day asked for picks the rate of its time.
        let r = book.rate("USD", "CNY", d("2026-11-15")).unwrap();
        assert_eq!(r.rate.to_string(), "7.20");
        // Inverted.
        let r = book.rate("CNY", "USD", d("2026-12-04")).unwrap();
        assert_eq!(r.rate.round_dp(4).to_string(), "0.1408");
        // Crossed through EUR: JPY per USD = 160 / 1.05.
        let r = book.rate("USD", "JPY", d("2026-12-04")).unwrap();
        assert_eq!(r.rate.round_dp(2).to_string(), "152.38");
        assert_eq!(r.via.as_deref(), Some("EUR"));
        assert!(r.to_string().contains("via EUR"), "{r}");
        assert!(book.rate("USD", "GBP", d("2026-12-04")).is_none());
    }

    #[test]
    fn the_ecb_table_and_a_plain_table_are_read() {
        let ecb = "Date,USD,JPY,BGN,CYP,\n2026-12-01,1.0512,160.12,N/A,N/A,\n2026-11-30,1.0498,159.8,N/A,N/A,\n";
        let rates = read_rates_csv("eurofxref-hist.csv", ecb).unwrap();
        assert_eq!(rates.len(), 4);
        assert_eq!(
            (rates[0].from.as_str(), rates[0].to.as_str()),
            ("EUR", "USD")
        );
        assert_eq!(rates[0].rate.to_string(), "1.0512");
        let plain = "date,from,to,rate,source\n2026-12-01,USD,CNY,7.10,bank\n";
        let rates = read_rates_csv("r.csv", plain).unwrap();
        assert_eq!(rates[0].source.as_deref(), Some("bank"));
        let bad = "date,from,to,rate\n2026-12-01,USD,CNY,seven\n";
        let e = read_rates_csv("r.csv", bad).unwrap_err();
        assert!(e.starts_with("r.csv:2:4:"), "{e}");
        let e = read_rates_csv("r.csv", "date,from,to,rate\n2026-13-01,USD,CNY,7\n").unwrap_err();
        assert!(e.starts_with("r.csv:2:1:"), "{e}");
        assert!(read_rates_csv("r.csv", "a,b\n1,2\n").is_err());
    }
}
