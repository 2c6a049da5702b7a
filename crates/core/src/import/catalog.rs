//! A price catalog's quotes price the platform's offerings they name: an
//! offering of 8 × A100 80GB takes the price of an instance with 8 such
//! cards, per accelerator-hour, with the catalog's name, region and day as
//! its source. An offering is never made up from a catalog row: a catalog
//! lists every instance type of every region, and the user says which
//! they rent — the import names the cards it has prices for and no
//! offering, with the command that adds one.
//!
//! Where the offering names no region the cheapest region's price is
//! taken, and said; the offering's region is kept to otherwise. A catalog
//! in another currency replaces the offering's prices whole (one offering,
//! one currency); in the same currency it replaces the modes it prices.

use std::collections::BTreeMap;

use jiff::civil::Date;

use crate::accelerator;
use crate::domain::money::{self, Decimal};
use crate::domain::{PricePer, PriceQuote, Prices, QuoteMode};
use crate::error::Result;
use crate::exchange::{RateBook, today};
use crate::store::Store;

/// At most this many cards without an offering are named.
const NAMED: usize = 8;

/// Dates the quotes a catalog gives without a day of its own: `--as-of`,
/// else `--start`'s day, else the day the file was last written, else the
/// day of import — said, since a price is only as good as its day and a
/// stale one is flagged (`billing::STALE_AFTER_DAYS`).
pub(super) fn date_quotes(
    built: &mut breakpoint_formats::BuiltRun,
    options: &super::ImportOptions,
    file_time: Option<jiff::Timestamp>,
) {
    if built.price_quotes.iter().all(|q| q.observed_at.is_some()) {
        return;
    }
    let utc_day = |t: jiff::Timestamp| jiff::tz::TimeZone::UTC.to_datetime(t).date();
    let (day, from) = match (options.as_of, options.start, file_time) {
        (Some(day), _, _) => (day, "--as-of"),
        (None, Some(start), _) => (utc_day(start), "--start"),
        (None, None, Some(written)) => (
            utc_day(written),
            "the day the file was last written; --as-of sets it",
        ),
        (None, None, None) => (today(), "the day of import; --as-of sets it"),
    };
    let Ok(noon) = jiff::tz::TimeZone::UTC.to_timestamp(day.at(12, 0, 0, 0)) else {
        return;
    };
    let undated = built
        .price_quotes
        .iter_mut()
        .filter(|q| q.observed_at.is_none())
        .map(|q| q.observed_at = Some(noon))
        .count();
    built.warnings.push(format!(
        "{undated} quote(s) carry no day of their own: dated {day} ({from})"
    ));
}

/// Price the platform's offerings from `quotes`; what was done, in words.
pub(super) fn apply(
    store: &Store,
    platform_id: i64,
    source: &str,
    quotes: &[PriceQuote],
    file_day: Option<Date>,
) -> Result<Vec<String>> {
    let mut said = Vec::new();
    let usable: Vec<&PriceQuote> = quotes
        .iter()
        .filter(|q| q.accelerator.is_some() && q.accelerator_count.is_some())
        .collect();
    let unnamed = quotes.len() - usable.len();
    if unnamed > 0 {
        let mut types: Vec<&str> = quotes
            .iter()
            .filter(|q| q.accelerator.is_none() || q.accelerator_count.is_none())
            .map(|q| q.instance_type.as_str())
            .collect();
        types.sort_unstable();
        types.dedup();
        let shown: Vec<&str> = types.iter().take(NAMED).copied().collect();
        said.push(format!(
            "{unnamed} quote(s) name no accelerator and count ({}{}): kept as evidence, no offering is priced from them",
            shown.join(", "),
            if types.len() > NAMED { ", …" } else { "" }
        ));
    }
    let mut matched = vec![false; usable.len()];
    // Quotes in two currencies are compared through a dated rate, never as
    // bare numbers: 160 CNY is cheaper than 40 USD at 7.1 yuan a dollar.
    let book = RateBook::of(store)?;
    let day_of = |q: &PriceQuote| {
        q.observed_at
            .map(|t| jiff::tz::TimeZone::UTC.to_datetime(t).date())
            .or(file_day)
    };
    for offering in store.offerings(Some(platform_id))? {
        let mut candidates: Vec<(&'static str, f64, &PriceQuote)> = Vec::new();
        for (i, q) in usable.iter().enumerate() {
            let Some(card) = q.accelerator.as_deref().map(accelerator::normalise) else {
                continue;
            };
            // A quote that does not say the card's memory prices no
            // offering that does: "A100" may be the 40 GB card.
            let memory_known = offering.accelerator.memory_gb.is_none() || card.memory_gb.is_some();
            let same_card = memory_known
                && (offering.accelerator.same_product(&card)
                    || card.same_product(&offering.accelerator));
            let same_region = offering.region.is_none()
                || q.region.as_deref() == offering.region.as_deref()
                || q.zone.as_deref() == offering.region.as_deref();
            if !same_card || q.accelerator_count != Some(offering.count) || !same_region {
                continue;
            }
            matched[i] = true;
            if let Some((mode, per_gpu_hour)) = per_gpu_hour(q) {
                candidates.push((mode, per_gpu_hour, q));
            }
        }
        if candidates.is_empty() {
            continue;
        }
        let currencies: Vec<&str> = candidates
            .iter()
            .map(|(_, _, q)| q.currency.as_str())
            .collect();
        let compared = Compared::new(
            &offering.prices.currency,
            &currencies,
            &book,
            &candidates,
            &day_of,
        );
        said.extend(compared.set_aside.iter().cloned());
        let currency = compared.currency.clone();
        let mut prices = if offering.prices.currency == currency {
            offering.prices.clone()
        } else {
            Prices::new(&currency, None, None, None)?
        };
        let mut parts = Vec::new();
        let mut newest: Option<Date> = None;
        let mut zones: Vec<String> = Vec::new();
        for (mode, pick) in &compared.best {
            let q = pick.quote;
            let rounded = (pick.price * 1e6).round() / 1e6;
            match *mode {
                "on-demand" => prices.on_demand = Some(rounded),
                "spot" => prices.spot = Some(rounded),
                _ => prices.monthly = Some(rounded),
            }
            newest = newest.max(day_of(q));
            // A zone's own price (a spot price is an availability zone's; a
            // Local Zone's can be far from its region's) is named as such.
            let region = q.region.as_deref().unwrap_or_default();
            let zone = q
                .zone
                .as_deref()
                .filter(|z| *mode == "spot" || !z.starts_with(region))
                .map(|z| format!(", zone {z}"));
            if let Some(z) = &zone {
                zones.push(format!("{mode}{z}"));
            }
            parts.push(format!(
                "{mode} {rounded} {currency}/GPU-hour ({}{}{}{})",
                q.instance_type,
                q.region
                    .as_deref()
                    .map(|r| format!(", {r}"))
                    .unwrap_or_default(),
                zone.unwrap_or_default(),
                pick.note
                    .as_deref()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default()
            ));
        }
        prices.source = Some(if zones.is_empty() {
            source.to_string()
        } else {
            format!("{source} ({})", zones.join("; "))
        });
        prices.priced_on = newest;
        store.set_offering_prices(offering.id, &prices)?;
        said.push(format!(
            "offering #{} ({} × {}) priced: {}{}",
            offering.id,
            offering.count,
            offering.accelerator.canonical,
            parts.join("; "),
            if offering.region.is_none() {
                " — the cheapest region; give the offering a region to keep to one"
            } else {
                ""
            }
        ));
    }
    // Cards the catalog prices and the platform offers nothing of, each at
    // its cheapest on-demand quote (in the first quote's currency, others
    // through a rate; a quote no rate joins is not compared).
    let mut missing: BTreeMap<(String, u32), (f64, &PriceQuote)> = BTreeMap::new();
    for (i, q) in usable.iter().enumerate() {
        if matched[i] {
            continue;
        }
        let Some((mode, price)) = per_gpu_hour(q) else {
            continue;
        };
        if mode != "on-demand" {
            continue;
        }
        let card = accelerator::normalise(q.accelerator.as_deref().unwrap_or_default()).canonical;
        let key = (card, q.accelerator_count.unwrap_or(1));
        let entry = missing.entry(key).or_insert((price, q));
        let in_entry = |q: &PriceQuote, price: f64| {
            book.rate(
                &q.currency,
                &entry.1.currency,
                day_of(q).unwrap_or_else(today),
            )
            .map(|r| price * money::to_f64(r.rate))
        };
        if in_entry(q, price).is_some_and(|p| p < entry.0) {
            *entry = (price, q);
        }
    }
    for ((card, count), (price, q)) in missing.iter().take(NAMED) {
        said.push(format!(
            "no offering of {count} × {card} (from {:.4} {}/GPU-hour on demand, {}): breakpoint offering add --accelerator \"{}\" --count {count} --currency {} … then import the catalog again",
            price,
            q.currency,
            q.region.as_deref().unwrap_or("no region"),
            q.accelerator.as_deref().unwrap_or(card),
            q.currency
        ));
    }
    if missing.len() > NAMED {
        said.push(format!(
            "… and {} more card(s) without an offering",
            missing.len() - NAMED
        ));
    }
    Ok(said)
}

/// The cheapest quote of one mode, and what choosing it said.
struct Pick<'q> {
    /// Per accelerator-hour, in the quote's own currency.
    price: f64,
    quote: &'q PriceQuote,
    /// Where the choice went through a rate, or kept to one currency.
    note: Option<String>,
}

/// An offering's quotes compared mode by mode through exchange rates.
struct Compared<'q> {
    /// The currency the offering is priced in: that of its cheapest
    /// on-demand quote (one offering, one currency).
    currency: String,
    best: BTreeMap<&'static str, Pick<'q>>,
    /// Quotes left out of the comparison, said.
    set_aside: Vec<String>,
}

impl<'q> Compared<'q> {
    fn new(
        own: &str,
        currencies: &[&str],
        book: &RateBook<'_>,
        candidates: &[(&'static str, f64, &'q PriceQuote)],
        day_of: &dyn Fn(&PriceQuote) -> Option<Date>,
    ) -> Compared<'q> {
        // Compared in the offering's own currency where a quote is in it,
        // else in the one most quotes are in.
        let reference = if currencies.contains(&own) {
            own.to_string()
        } else {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for c in currencies {
                *counts.entry(c).or_default() += 1;
            }
            counts
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map_or(own.to_string(), |(c, _)| c.to_string())
        };
        let mut set_aside: BTreeMap<String, usize> = BTreeMap::new();
        // Each quote's price in the reference currency, at its day's rate,
        // with the rate said where one was used.
        let mut cheapest: BTreeMap<&'static str, (f64, &'q PriceQuote, Option<String>)> =
            BTreeMap::new();
        for (mode, price, q) in candidates {
            let (value, note) = if q.currency == reference {
                (*price, None)
            } else {
                match book.rate(&q.currency, &reference, day_of(q).unwrap_or_else(today)) {
                    Some(rate) => {
                        let value = price * money::to_f64(rate.rate);
                        let note = format!(
                            "{price:.4} {} ≈ {value:.4} {reference} at {rate}",
                            q.currency
                        );
                        (value, Some(note))
                    }
                    None => {
                        *set_aside.entry(q.currency.clone()).or_default() += 1;
                        continue;
                    }
                }
            };
            let entry = cheapest.entry(mode).or_insert((value, q, note.clone()));
            if value < entry.0 {
                *entry = (value, q, note);
            }
        }
        let compared_through_rates = candidates
            .iter()
            .any(|(_, _, q)| q.currency != reference && !set_aside.contains_key(&q.currency));
        // One offering, one currency: its cheapest on-demand quote's.
        let currency = cheapest
            .get("on-demand")
            .or_else(|| cheapest.values().next())
            .map_or(reference.clone(), |(_, q, _)| q.currency.clone());
        let mut best = BTreeMap::new();
        let mut said: Vec<String> = set_aside
            .into_iter()
            .map(|(c, n)| {
                format!(
                    "{n} quote(s) in {c} not compared: {}",
                    crate::exchange::missing_rate(&c, &reference)
                )
            })
            .collect();
        for (mode, (_, q, note)) in cheapest {
            let in_currency =
                |c: &&(&'static str, f64, &'q PriceQuote)| c.0 == mode && c.2.currency == currency;
            let own_cheapest = candidates
                .iter()
                .filter(in_currency)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let Some((_, price, chosen)) = own_cheapest else {
                said.push(format!(
                    "{mode}: quoted only in {}, not kept: the offering is priced in {currency}",
                    q.currency
                ));
                continue;
            };
            let note = if chosen.currency == q.currency {
                // The cheapest of all, through the rates where they decided.
                compared_through_rates.then(|| {
                    note.unwrap_or_else(|| {
                        "the cheapest, quotes in other currencies compared through exchange rates"
                            .into()
                    })
                })
            } else {
                Some(format!(
                    "the cheapest quoted in {currency}; {} is cheaper ({})",
                    q.currency,
                    note.unwrap_or_default()
                ))
            };
            best.insert(
                mode,
                Pick {
                    price: *price,
                    quote: chosen,
                    note,
                },
            );
        }
        Compared {
            currency,
            best,
            set_aside: said,
        }
    }
}

/// A quote's mode and price per accelerator-hour, where it is one an
/// offering keeps (on demand and spot by the hour, a monthly plan).
fn per_gpu_hour(q: &PriceQuote) -> Option<(&'static str, f64)> {
    let count = Decimal::from(q.accelerator_count?);
    let hourly = match (q.mode, q.per) {
        (QuoteMode::OnDemand, PricePer::Hour) => ("on-demand", q.price / count),
        (QuoteMode::Spot, PricePer::Hour) => ("spot", q.price / count),
        (QuoteMode::Monthly, PricePer::Month) => (
            "monthly",
            q.price / count / Decimal::from(crate::domain::MONTH_HOURS),
        ),
        _ => return None,
    };
    Some((hourly.0, money::to_f64(hourly.1)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn quote(mode: QuoteMode, per: PricePer, price: &str, count: u32) -> PriceQuote {
        PriceQuote {
            provider: None,
            region: Some("us-east-1".into()),
            zone: None,
            instance_type: "p4de.24xlarge".into(),
            accelerator: Some("A100-80GB".into()),
            accelerator_count: Some(count),
            vcpus: None,
            memory_gib: None,
            mode,
            price: price.parse().unwrap(),
            per,
            currency: "USD".into(),
            observed_at: None,
        }
    }

    #[test]
    fn quotes_become_prices_per_accelerator_hour() {
        let q = quote(QuoteMode::OnDemand, PricePer::Hour, "40.96", 8);
        assert_eq!(per_gpu_hour(&q), Some(("on-demand", 5.12)));
        let q = quote(QuoteMode::Monthly, PricePer::Month, "28800", 8);
        assert_eq!(per_gpu_hour(&q), Some(("monthly", 5.0)));
        let q = quote(QuoteMode::Yearly, PricePer::Year, "300000", 8);
        assert_eq!(per_gpu_hour(&q), None);
    }
}
