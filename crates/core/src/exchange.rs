//! Exchange rates between currencies: the rates held, looked up for a
//! day — as stated, inverted, or crossed through a third currency both are
//! quoted against (the ECB's reference rates quote every currency per
//! euro), taking the latest on or before the day asked for, or the
//! earliest after it where none is older, said in the rate's words — and
//! rates stored, typed in or streamed from a file.
//!
//! Below the import, so that a price catalog's quotes in two currencies
//! are compared through a rate, never as bare numbers.

use std::cell::RefCell;
use std::collections::BTreeMap;

use jiff::civil::Date;
use serde::Serialize;

pub use crate::domain::money::ExchangeRate;
use crate::domain::money::{self, Decimal};
use crate::error::Result;
use crate::store::{RateStored, Store};

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

/// Where a book looks rates up.
enum Held<'s> {
    /// The workspace: each lookup one indexed query, so that a table of
    /// years of days is never loaded whole.
    Store(&'s Store),
    /// Rates in hand, by pair and day (tests, and what-ifs).
    Memory(BTreeMap<(String, String), Vec<ExchangeRate>>),
}

/// Exchange rates for lookups: direct, inverted or crossed, at a day. Each
/// answer is kept, so a ranking asks the store once per currency.
pub struct RateBook<'s> {
    held: Held<'s>,
    answers: RefCell<BTreeMap<(String, String, Date), Option<RateUsed>>>,
}

impl<'s> RateBook<'s> {
    pub fn of(store: &'s Store) -> Result<RateBook<'s>> {
        Ok(RateBook {
            held: Held::Store(store),
            answers: RefCell::default(),
        })
    }

    pub fn from_rates(rates: Vec<ExchangeRate>) -> RateBook<'static> {
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
        RateBook {
            held: Held::Memory(pairs),
            answers: RefCell::default(),
        }
    }

    /// The rate of `from` in `to` for `day`: direct, inverted, or crossed
    /// through one currency; `None` where no rate joins them (or where the
    /// store cannot be read: a rate not found is said as missing).
    pub fn rate(&self, from: &str, to: &str, day: Date) -> Option<RateUsed> {
        let key = (from.to_string(), to.to_string(), day);
        if let Some(known) = self.answers.borrow().get(&key) {
            return known.clone();
        }
        let found = self.look_up(from, to, day);
        self.answers.borrow_mut().insert(key, found.clone());
        found
    }

    fn look_up(&self, from: &str, to: &str, day: Date) -> Option<RateUsed> {
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
        // Through a third currency both are quoted against: the legs
        // closest to the day.
        let of_to = self.partners(to);
        let via: Vec<String> = self
            .partners(from)
            .into_iter()
            .filter(|c| c != from && c != to && of_to.contains(c))
            .collect();
        let mut best: Option<RateUsed> = None;
        for v in &via {
            let (Some(a), Some(b)) = (self.leg(from, v, day), self.leg(v, to, day)) else {
                continue;
            };
            let on = a.on.min(b.on);
            if best.as_ref().is_some_and(|x| x.on >= on) {
                continue;
            }
            // Both legs lie within the rates' bounds, so their product is
            // far inside what a decimal holds; checked all the same.
            let Some(rate) = a.rate.checked_mul(b.rate) else {
                continue;
            };
            let source = match (&a.source, &b.source) {
                (Some(x), Some(y)) if x == y => Some(x.clone()),
                (Some(x), Some(y)) => Some(format!("{x}; {y}")),
                (x, y) => x.clone().or_else(|| y.clone()),
            };
            best = Some(RateUsed {
                from: from.into(),
                to: to.into(),
                rate: rate.round_dp(RATE_DIGITS),
                on,
                source,
                via: Some(v.clone()),
            });
        }
        best
    }

    /// The currencies `code` is quoted against.
    fn partners(&self, code: &str) -> Vec<String> {
        let mut out: Vec<String> = match &self.held {
            Held::Store(store) => store.exchange_partners(code).unwrap_or_default(),
            Held::Memory(pairs) => pairs
                .keys()
                .filter_map(|(a, b)| {
                    if a == code {
                        Some(b.clone())
                    } else if b == code {
                        Some(a.clone())
                    } else {
                        None
                    }
                })
                .collect(),
        };
        out.sort();
        out.dedup();
        out
    }

    /// One pair's rate as stated: the latest on or before `day`, else the
    /// earliest after it.
    fn stated(&self, from: &str, to: &str, day: Date) -> Option<ExchangeRate> {
        match &self.held {
            Held::Store(store) => store
                .exchange_rate_near(from, to, day, false)
                .ok()
                .flatten()
                .or_else(|| store.exchange_rate_near(from, to, day, true).ok().flatten()),
            Held::Memory(pairs) => {
                let list = pairs.get(&(from.to_string(), to.to_string()))?;
                list.iter()
                    .rev()
                    .find(|r| r.on <= day)
                    .or_else(|| list.first())
                    .cloned()
            }
        }
    }

    /// One pair, as stored or inverted: the one nearer the day.
    fn leg(&self, from: &str, to: &str, day: Date) -> Option<RateUsed> {
        let direct = self.stated(from, to, day);
        let inverse = self.stated(to, from, day);
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
                Decimal::ONE.checked_div(r.rate)?.round_dp(RATE_DIGITS)
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

/// Today, in the machine's zone: the day a rate is looked up for unless
/// another is asked.
pub use breakpoint_formats::timestamps::today;

/// Why two currencies are not compared: "no rate joins USD to CNY
/// (breakpoint rates add USD CNY RATE --on DATE)".
pub fn missing_rate(from: &str, to: &str) -> String {
    format!("no rate joins {from} to {to} (breakpoint rates add {from} {to} RATE --on DATE)")
}

/// A pair and its inverse stated on one day that do not undo each other:
/// USD→CNY 7 beside CNY→USD 1 would rank platforms one way in yuan and
/// the other in dollars.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub rate: ExchangeRate,
    pub inverse: ExchangeRate,
    /// rate × inverse − 1: 0 where they agree.
    pub off_by: f64,
}

impl std::fmt::Display for Disagreement {
    /// "USD→CNY 7 and CNY→USD 1 on 2026-12-01 disagree by 600 % (…)"
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}→{} {} and {}→{} {} on {} disagree by {:.0} % (one of them is wrong: breakpoint rates rm FROM TO --on DAY removes it)",
            self.rate.from,
            self.rate.to,
            self.rate.rate.normalize(),
            self.inverse.from,
            self.inverse.to,
            self.inverse.rate.normalize(),
            self.rate.on,
            100.0 * self.off_by.abs()
        )
    }
}

/// A pair and its inverse further apart than this are said.
pub const DISAGREEMENT: f64 = 0.01;

/// What storing rates did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatesStored {
    /// Pairs and days not held before.
    pub new: u64,
    /// Pairs and days held before at another rate or source.
    pub replaced: u64,
    /// Held already, as given.
    pub unchanged: u64,
    pub first: Option<Date>,
    pub last: Option<Date>,
    /// The first few disagreements with an inverse of the same day.
    pub disagreements: Vec<Disagreement>,
    /// All of them, counted.
    pub disagreeing: u64,
}

/// Disagreements kept in full; the rest are counted.
const DISAGREEMENTS_SHOWN: usize = 5;

impl RatesStored {
    fn empty() -> RatesStored {
        RatesStored {
            new: 0,
            replaced: 0,
            unchanged: 0,
            first: None,
            last: None,
            disagreements: Vec::new(),
            disagreeing: 0,
        }
    }

    /// Store one rate as part of these, checking it against its inverse
    /// of the same day. Returns the id its pair and day were held under
    /// before.
    fn put(&mut self, store: &Store, rate: &ExchangeRate) -> Result<Option<i64>> {
        let (stored, held) = store.put_exchange_rate(rate)?;
        match stored {
            RateStored::New => self.new += 1,
            RateStored::Replaced => self.replaced += 1,
            RateStored::Same => self.unchanged += 1,
        }
        self.first = Some(self.first.map_or(rate.on, |d| d.min(rate.on)));
        self.last = Some(self.last.map_or(rate.on, |d| d.max(rate.on)));
        let inverse = store
            .exchange_rate_near(&rate.to, &rate.from, rate.on, false)?
            .filter(|i| i.on == rate.on);
        if let Some(inverse) = inverse {
            let off_by = rate
                .rate
                .checked_mul(inverse.rate)
                .map_or(f64::INFINITY, money::to_f64)
                - 1.0;
            if off_by.abs() > DISAGREEMENT {
                self.disagreeing += 1;
                if self.disagreements.len() < DISAGREEMENTS_SHOWN {
                    self.disagreements.push(Disagreement {
                        rate: rate.clone(),
                        inverse,
                        off_by,
                    });
                }
            }
        }
        Ok(held)
    }
}

/// Store rates typed in, in one transaction.
pub fn add_rates(store: &Store, rates: &[ExchangeRate]) -> Result<RatesStored> {
    store.atomically(|store| {
        let mut stored = RatesStored::empty();
        for rate in rates {
            stored.put(store, rate)?;
        }
        Ok(stored)
    })
}

/// A rates file (see `formats::rates`) streamed into the store in one
/// transaction: all of it or, at the first refusal, none of it. A pair and
/// day given twice in the file is refused at its second line.
pub fn import_rates(store: &Store, name: &str, input: impl std::io::Read) -> Result<RatesStored> {
    use breakpoint_formats::rates::read_rates;
    store.atomically(|store| {
        let mut stored = RatesStored::empty();
        // Every rate this file stores is held above this id: a pair and day
        // found held above it was given earlier in the file. Nothing is
        // kept in memory per rate.
        let before = store.last_exchange_rate_id()?;
        let mut failure: Option<crate::error::Error> = None;
        let read = read_rates(name, input, |rate| match stored.put(store, &rate) {
            Ok(Some(held)) if held > before => Err(format!(
                "{}→{} on {} a second time in the file",
                rate.from, rate.to, rate.on
            )),
            Ok(_) => Ok(()),
            Err(e) => {
                let said = e.to_string();
                failure = Some(e);
                Err(said)
            }
        });
        match (read, failure) {
            (Ok(_), _) => Ok(stored),
            // The store failed, not the file: its own error.
            (Err(_), Some(e)) => Err(e),
            (Err(refused), None) => Err(crate::error::Error::Refused(refused)),
        }
    })
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

    fn rates() -> Vec<ExchangeRate> {
        vec![
            rate("USD", "CNY", "7.10", "2026-12-01"),
            rate("USD", "CNY", "7.20", "2026-11-01"),
            rate("EUR", "USD", "1.05", "2026-12-01"),
            rate("EUR", "JPY", "160", "2026-12-01"),
        ]
    }

    /// The same answers from rates in hand and from the store, which is
    /// asked one pair and day at a time.
    #[test]
    fn a_rate_is_found_direct_inverted_or_crossed_at_its_day() {
        let store = Store::open_in_memory().unwrap();
        add_rates(&store, &rates()).unwrap();
        for book in [RateBook::from_rates(rates()), RateBook::of(&store).unwrap()] {
            let r = book.rate("USD", "CNY", d("2026-12-04")).unwrap();
            assert_eq!((r.rate.to_string(), r.on), ("7.10".into(), d("2026-12-01")));
            // The day asked for picks the rate of its time; before any, the
            // earliest.
            let r = book.rate("USD", "CNY", d("2026-11-15")).unwrap();
            assert_eq!(r.rate.to_string(), "7.20");
            let r = book.rate("USD", "CNY", d("2020-01-01")).unwrap();
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
    }

    #[test]
    fn a_pair_at_odds_with_its_inverse_of_the_day_is_said() {
        let store = Store::open_in_memory().unwrap();
        let stored = add_rates(
            &store,
            &[
                rate("USD", "CNY", "7", "2026-12-01"),
                rate("CNY", "USD", "0.1429", "2026-12-01"),
                rate("CNY", "USD", "1", "2026-11-30"),
            ],
        )
        .unwrap();
        // 7 × 0.1429 is within 1 %; a rate of another day is not its inverse.
        assert_eq!(stored.disagreeing, 0);
        let stored = add_rates(&store, &[rate("USD", "CNY", "1", "2026-11-30")]).unwrap();
        assert_eq!(stored.disagreeing, 0);
        let stored = add_rates(&store, &[rate("CNY", "USD", "1", "2026-12-01")]).unwrap();
        assert_eq!((stored.replaced, stored.disagreeing), (1, 1));
        assert!(
            stored.disagreements[0]
                .to_string()
                .starts_with("CNY→USD 1 and USD→CNY 7 on 2026-12-01 disagree by 600 %")
        );
    }
}
