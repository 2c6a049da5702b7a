//! Money as exact decimals: 12.8 an hour for 6138 s is 21.824, billed
//! 21.82 — never 21.823999999999998 — and a thousand bill lines add up to
//! the cent. Amounts are `rust_decimal::Decimal`; they leave the program as
//! JSON numbers printed in their shortest form (38.4, not
//! 38.400000000000006).

pub use rust_decimal::Decimal;
use rust_decimal::RoundingStrategy;
use rust_decimal::prelude::ToPrimitive;

use super::validate::Checked;
use crate::error::ValidationError;

/// The decimal a stored or typed number stands for: its shortest decimal
/// form (the price 12.8 as stored in a float is 12.8, exactly).
pub fn exact(value: f64) -> Decimal {
    if !value.is_finite() {
        return Decimal::ZERO;
    }
    format!("{value}")
        .parse::<Decimal>()
        .or_else(|_| Decimal::try_from(value))
        .unwrap_or(Decimal::ZERO)
}

/// [`exact`], or `None` where `value` is no amount an exact decimal holds
/// (infinite, NaN, past 7.9 × 10²⁸): never a silent zero.
pub fn checked_exact(value: f64) -> Option<Decimal> {
    if !value.is_finite() {
        return None;
    }
    format!("{value}")
        .parse::<Decimal>()
        .ok()
        .or_else(|| Decimal::try_from(value).ok())
}

/// `amount × rate` to the cent, or `None` past what a decimal holds.
pub fn converted(amount: f64, rate: Decimal) -> Option<Decimal> {
    checked_exact(amount)?.checked_mul(rate).map(to_cents)
}

/// An amount as written ("38.40", "1e3" is refused: money is written out).
pub fn parse(field: &str, text: &str) -> Checked<Decimal> {
    text.trim().parse::<Decimal>().map_err(|_| {
        ValidationError::new(
            field,
            format!("\"{}\" is not an amount of money", text.trim()),
        )
    })
}

/// Rounded to the cent (the minor unit of CNY, USD, EUR), half away from
/// zero as bills round.
pub fn to_cents(amount: Decimal) -> Decimal {
    let mut cents = amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    // Always two places: 38.40, not 38.4.
    cents.rescale(2);
    cents
}

/// For scoring and charts, where a float is fine.
pub fn to_f64(amount: Decimal) -> f64 {
    amount.to_f64().unwrap_or(f64::NAN)
}

pub fn non_negative(field: &str, amount: Decimal) -> Checked<Decimal> {
    if amount.is_sign_negative() && !amount.is_zero() {
        return Err(ValidationError::new(
            field,
            format!("{amount} is negative; it must be ≥ 0"),
        ));
    }
    Ok(amount)
}

/// The most one currency is worth in another, and the least: the widest
/// real pair (the Iranian rial or the Vietnamese dong against the Kuwaiti
/// dinar) is under 10⁶, so a rate past 10⁹ is a typing error or a planted
/// one — and two rates within these bounds, multiplied, stay far inside
/// what an exact decimal holds.
pub const RATE_BOUNDS: (Decimal, Decimal) = (
    Decimal::from_parts(1, 0, 0, false, 9),
    Decimal::from_parts(1_000_000_000, 0, 0, false, 0),
);

/// A rate as written: digits with one decimal point, or one decimal comma
/// where it cannot be a thousands separator ("7,1", "1,05", not "1,050");
/// no exponent, sign, underscore or grouping. `rates add` and `rates
/// import` read rates through this one rule.
pub fn parse_rate(field: &str, text: &str) -> Checked<Decimal> {
    let t = text.trim();
    let refuse = |why: &str| {
        ValidationError::new(
            field,
            format!("\"{}\" {why}", crate::text::printable_excerpt(t, 40)),
        )
    };
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = match (t.matches('.').count(), t.matches(',').count()) {
        (0, 0) => (t, None),
        (1, 0) => t
            .split_once('.')
            .map(|(w, f)| (w, Some(f)))
            .unwrap_or((t, None)),
        (0, 1) => {
            let (w, f) = t.split_once(',').unwrap_or((t, ""));
            // "1,050" reads as 1.050 in Frankfurt and 1050 in New York.
            if f.len() == 3 && plain(w) && plain(f) {
                return Err(refuse(
                    "is either 1.050-style or 1050-style: write it with a decimal point",
                ));
            }
            (w, Some(f))
        }
        _ => {
            return Err(refuse(
                "is not a rate: one decimal point or comma, no grouping (7.10)",
            ));
        }
    };
    if !plain(whole) || fraction.is_some_and(|f| !plain(f)) {
        return Err(refuse(
            "is not a rate: digits and one decimal point, no exponent or sign (7.10)",
        ));
    }
    let written = match fraction {
        Some(f) => format!("{whole}.{f}"),
        None => whole.to_string(),
    };
    written
        .parse::<Decimal>()
        .map_err(|_| refuse("has more digits than a rate can hold"))
}

/// A rate as the user states it: `to` units for one `from`, on a day.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExchangeRate {
    pub from: String,
    pub to: String,
    /// Written as exact decimal text.
    pub rate: Decimal,
    pub on: jiff::civil::Date,
    pub source: Option<String>,
}

impl ExchangeRate {
    pub fn new(
        from: &str,
        to: &str,
        rate: Decimal,
        on: jiff::civil::Date,
        source: Option<String>,
    ) -> Checked<Self> {
        let from = super::validate::currency("from", from)?;
        let to = super::validate::currency("to", to)?;
        if from == to {
            return Err(ValidationError::new(
                "to",
                format!("a rate from {from} to itself is 1"),
            ));
        }
        if rate <= Decimal::ZERO {
            return Err(ValidationError::new(
                "rate",
                format!("{rate} is not a rate: it must be above 0"),
            ));
        }
        let (least, most) = RATE_BOUNDS;
        if rate < least || rate > most {
            return Err(ValidationError::new(
                "rate",
                format!(
                    "{} {to} per {from} is beyond any two currencies (a rate lies between 10⁻⁹ and 10⁹)",
                    crate::text::printable_excerpt(&rate.normalize().to_string(), 40)
                ),
            ));
        }
        Ok(ExchangeRate {
            from,
            to,
            rate,
            on,
            source: super::validate::optional_cell("source", source)?,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn floats_become_the_decimals_they_were_written_as() {
        assert_eq!(exact(12.8).to_string(), "12.8");
        assert_eq!(exact(0.1) + exact(0.2), exact(0.3));
        assert_eq!(exact(f64::NAN), Decimal::ZERO);
    }

    #[test]
    fn many_lines_add_up_to_the_cent() {
        let line = parse("amount", "0.10").unwrap();
        let total: Decimal = std::iter::repeat_n(line, 1000).sum();
        assert_eq!(total.to_string(), "100.00");
        let float_total: f64 = std::iter::repeat_n(0.1f64, 1000).sum();
        assert_ne!(float_total, 100.0, "the float sum drifts");
        assert!(parse("amount", "12,5").is_err());
    }

    #[test]
    fn rates_are_read_one_way_and_bounded() {
        let r = |t: &str| parse_rate("rate", t).map(|d| d.to_string());
        assert_eq!(r("7.10").unwrap(), "7.10");
        assert_eq!(r(" 7,1 ").unwrap(), "7.1");
        assert_eq!(r("1,05").unwrap(), "1.05");
        assert_eq!(r("160").unwrap(), "160");
        for bad in [
            "7e2",
            "7E2",
            "7_000",
            "1,050",
            "1.050,5",
            "1,000,000",
            "-7",
            "+7",
            "",
            ".5.",
            "7.",
            "0x10",
            "٧",
        ] {
            assert!(r(bad).is_err(), "{bad:?} was read as {:?}", r(bad));
        }
        assert!(r("1,050").unwrap_err().reason.contains("decimal point"));
        let day: jiff::civil::Date = "2026-12-01".parse().unwrap();
        let rate = |x: &str| ExchangeRate::new("USD", "EUR", x.parse().unwrap(), day, None);
        assert!(rate("1000000000000000").is_err());
        assert!(rate("0.0000000000001").is_err());
        assert!(rate("25000").is_ok());
        let e = ExchangeRate::new("USD", "CNY", Decimal::ONE, day, Some("a\u{1b}[31m".into()))
            .unwrap_err();
        assert_eq!(e.field, "source");
    }

    #[test]
    fn cents_round_half_away_from_zero() {
        assert_eq!(to_cents(parse("a", "21.824").unwrap()).to_string(), "21.82");
        assert_eq!(to_cents(parse("a", "0.125").unwrap()).to_string(), "0.13");
        assert_eq!(to_cents(parse("a", "38.4").unwrap()).to_string(), "38.40");
    }
}
