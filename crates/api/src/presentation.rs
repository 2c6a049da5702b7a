//! One way to say a figure: its number, its unit and, where its evidence
//! leaves one, its spread — the string the command line, the PDF and the
//! app all print for it, in English or Chinese.
//!
//! Numbers keep the digits that carry meaning (three significant ones below
//! a hundred, whole numbers above), never an exponent; a unit follows its
//! number after a space, "%" included ("88.5 %"); a spread is "(p10–p90
//! 85.1–91.0)".

use crate::text::unit_in;

/// A number as a reader needs it: whole above a hundred, three significant
/// digits below, no exponent, no "-0".
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    let text = if a == 0.0 {
        "0".to_string()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let digits = (2 - a.log10().floor() as i32).clamp(0, 12) as usize;
        let text = format!("{v:.digits$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    };
    if text == "-0" { "0".into() } else { text }
}

/// "88.5 %", "141 h", "0.0213 /100 GPU-h": a number and its unit, in the
/// reader's language.
pub fn figure(v: f64, unit: &str, zh: bool) -> String {
    let unit = unit_in(unit, zh);
    if unit.is_empty() {
        number(v)
    } else {
        format!("{} {unit}", number(v))
    }
}

/// "(p10–p90 85.1–91.0)" where the two differ, else nothing.
pub fn spread(p10: f64, p90: f64) -> String {
    if p10 < p90 {
        format!("(p10–p90 {}–{})", number(p10), number(p90))
    } else {
        String::new()
    }
}

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
    fn numbers_keep_their_meaningful_digits_and_no_exponent() {
        for (v, said) in [
            (0.0, "0"),
            (26751.0, "26751"),
            (141.31, "141"),
            (88.46, "88.5"),
            (6.88, "6.88"),
            (6.8800, "6.88"),
            (1.279963, "1.28"),
            (0.004_21, "0.00421"),
            (3.07e-7, "0.000000307"),
            (-0.000_000_000_000_1, "0"),
            (f64::NAN, "–"),
        ] {
            assert_eq!(number(v), said, "{v}");
        }
        assert_eq!(figure(88.46, "%", false), "88.5 %");
        assert_eq!(figure(141.3, "h", true), "141 小时");
        assert_eq!(spread(85.12, 91.0), "(p10–p90 85.1–91)");
        assert_eq!(spread(3.0, 3.0), "");
    }

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
