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
}
