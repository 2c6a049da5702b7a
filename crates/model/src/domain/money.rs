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
        Ok(ExchangeRate {
            from,
            to,
            rate,
            on,
            source: super::validate::optional_text(source),
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
    fn cents_round_half_away_from_zero() {
        assert_eq!(to_cents(parse("a", "21.824").unwrap()).to_string(), "21.82");
        assert_eq!(to_cents(parse("a", "0.125").unwrap()).to_string(), "0.13");
        assert_eq!(to_cents(parse("a", "38.4").unwrap()).to_string(), "38.40");
    }
}
