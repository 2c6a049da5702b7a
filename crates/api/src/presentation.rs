//! One way to say a figure: its number, its unit and, where its evidence
//! leaves one, its spread — the string the command line, the PDF and the
//! app all print for it, in English or Chinese. Numbers, units, spreads and
//! shares are the model's (`breakpoint_model::figures`, so that the
//! engine's sentences say them alike); money and a metric's value are
//! said here.

pub use breakpoint_model::figures::{elapsed, figure, number, share, spread};

use crate::text::unit_in;

/// The catalogue's word for "the money the platforms are compared in".
const CURRENCY: &str = "currency";

/// A metric's value as every face prints it — the command line's
/// `explain`, the PDF's breakpoint pages, the app's explained cell: "88.5
/// %", "1403 s", "37 steps", "21.85 CNY" (money to the cent, in `currency`
/// where the platforms are compared in one; the catalogue's "currency"
/// where not).
pub fn metric_value(v: f64, unit: &str, currency: Option<&str>, zh: bool) -> String {
    if unit.contains(CURRENCY) {
        let unit = match currency {
            Some(code) => unit.replace(CURRENCY, code),
            None => unit_in(unit, zh).to_string(),
        };
        return format!("{} {unit}", money(v));
    }
    figure(v, unit, zh)
}

/// "85.1 % – 91 %": a metric's run-to-run range, said as its values are.
pub fn metric_range(lo: f64, hi: f64, unit: &str, currency: Option<&str>, zh: bool) -> String {
    format!(
        "{} – {}",
        metric_value(lo, unit, currency, zh),
        metric_value(hi, unit, currency, zh)
    )
}

/// An amount of money to the cent: "21.85", "-0.40", "26751.20".
pub fn money(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let text = format!("{v:.2}");
    if text == "-0.00" { "0.00".into() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_says_its_money_to_the_cent_in_the_currency_compared() {
        assert_eq!(
            metric_value(21.8456, "currency", Some("CNY"), false),
            "21.85 CNY"
        );
        assert_eq!(
            metric_value(12.8, "currency/GPU-h", Some("USD"), false),
            "12.80 USD/GPU-h"
        );
        assert_eq!(
            metric_value(12.8, "currency/GPU-h", None, true),
            "12.80 货币单位/GPU 小时"
        );
        assert_eq!(metric_value(0.0, "mismatches", None, false), "0 mismatches");
        assert_eq!(metric_value(1403.2, "s", None, false), "1403 s");
        assert_eq!(metric_range(85.12, 91.0, "%", None, false), "85.1 % – 91 %");
    }
}
