//! How a number is said, for every crate that writes one into a sentence
//! or a cell: the engine's details and warnings, the use cases' answers,
//! the faces' tables. Numbers keep the digits that carry meaning (three
//! significant ones below a hundred, whole numbers above), never an
//! exponent; a unit follows its number after a space, "%" included
//! ("88.5 %"); a spread is "(p10–p90 85.1–91.0)"; a share of something
//! too small to round to a percent is "< 1 %", never "0 %".

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

/// An elapsed time as every face says it: "42.3 s" under a minute, "4 min
/// 5 s" under an hour, "2 h 17 min" under a day, "3 d 4 h" beyond; never
/// an exponent, never a fraction of an hour.
pub fn elapsed(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "–".into();
    }
    if seconds < 59.95 {
        return format!("{} s", number(seconds));
    }
    let s = seconds.round() as u64;
    match s {
        s if s < 3600 => match s % 60 {
            0 => format!("{} min", s / 60),
            r => format!("{} min {r} s", s / 60),
        },
        s if s < 86_400 => {
            let minutes = (s + 30) / 60;
            match minutes % 60 {
                0 => format!("{} h", minutes / 60),
                m => format!("{} h {m} min", minutes / 60),
            }
        }
        s => {
            let hours = (s + 1800) / 3600;
            match hours % 24 {
                0 => format!("{} d", hours / 24),
                h => format!("{} d {h} h", hours / 24),
            }
        }
    }
}

/// A share (0–1) as a percent: "25 %", "< 1 %" for a share too small to
/// round to one, "0 %" only for none.
pub fn share(p: f64) -> String {
    let pct = 100.0 * p;
    if pct > 0.0 && pct < 0.5 {
        "< 1 %".into()
    } else {
        format!("{} %", number(pct.round()))
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

    #[test]
    fn an_elapsed_time_reads_in_one_grammar() {
        for (s, said) in [
            (0.0, "0 s"),
            (0.84, "0.84 s"),
            (42.34, "42.3 s"),
            (59.99, "1 min"),
            (61.0, "1 min 1 s"),
            (245.0, "4 min 5 s"),
            (3600.0, "1 h"),
            (8220.0, "2 h 17 min"),
            (86_399.0, "24 h"),
            (90_000.0, "1 d 1 h"),
            (f64::NAN, "–"),
        ] {
            assert_eq!(elapsed(s), said, "{s}");
        }
    }

    #[test]
    fn a_small_share_is_never_said_as_none() {
        assert_eq!(share(0.25), "25 %");
        assert_eq!(share(0.001), "< 1 %");
        assert_eq!(share(0.0), "0 %");
        assert_eq!(share(0.996), "100 %");
    }
}
