//! Small checks shared by the domain constructors. Each returns a
//! `ValidationError` naming the field, so a message can point at the input.

use crate::error::ValidationError;
use crate::text;

pub type Checked<T> = Result<T, ValidationError>;

/// A display name: trimmed, in Unicode's composed form (NFC: "Café" typed
/// on a Mac and on Windows is one name), non-empty, at most 200 characters,
/// with no control, bidirectional or invisible characters (each would let
/// two different names print identically). Any script is welcome.
pub fn name(field: &str, value: &str) -> Checked<String> {
    use unicode_normalization::UnicodeNormalization;
    let composed: String = value.trim().nfc().collect();
    let trimmed = composed.trim();
    if trimmed.is_empty() {
        return Err(ValidationError::new(field, "must not be empty"));
    }
    if trimmed.chars().count() > 200 {
        return Err(ValidationError::new(field, "is longer than 200 characters"));
    }
    refuse_control(field, trimmed)?;
    if let Some(c) = trimmed
        .chars()
        .find(|c| text::is_bidi_control(*c) || text::is_invisible(*c))
    {
        return Err(ValidationError::new(
            field,
            format!(
                "must not contain invisible or text-direction characters (found U+{:04X}); \
                 they make different names look the same",
                c as u32
            ),
        ));
    }
    Ok(trimmed.to_string())
}

/// What two names are compared by: white space runs read as one space,
/// lower-cased in Unicode ("CAFÉ" is "café") and reduced to Unicode's confusable skeleton (UTS #39), so that
/// names a reader cannot tell apart — Latin "a" and Cyrillic "а", "rn" and
/// "m" — count as the same name.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    // Runs of white space read as one space ("Auto  DL" is "Auto DL").
    let spaced = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower: String = spaced.nfc().collect::<String>().to_lowercase();
    unicode_security::confusable_detection::skeleton(&lower).collect()
}

pub fn finite(field: &str, value: f64) -> Checked<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ValidationError::new(
            field,
            format!("{value} is not a finite number"),
        ))
    }
}

pub fn non_negative(field: &str, value: f64) -> Checked<f64> {
    let value = finite(field, value)?;
    if value < 0.0 {
        return Err(ValidationError::new(
            field,
            format!("{value} is negative; it must be ≥ 0"),
        ));
    }
    Ok(value)
}

pub fn non_negative_opt(field: &str, value: Option<f64>) -> Checked<Option<f64>> {
    value.map(|v| non_negative(field, v)).transpose()
}

/// The most a price may be, per accelerator-hour or per GB, in any
/// currency: an H100 hour is under 10⁵ even in Vietnamese dong, so 10⁷ is a
/// typing error or a planted figure — and the most a job can be (10⁹
/// GPU-hours) at this price, converted at the widest rate, stays inside
/// what an exact decimal holds.
pub const MAX_PRICE: f64 = 1e7;

/// A price: money, at most [`MAX_PRICE`].
pub fn price_opt(field: &str, value: Option<f64>) -> Checked<Option<f64>> {
    let value = non_negative_opt(field, value)?;
    if let Some(v) = value.filter(|v| *v > MAX_PRICE) {
        return Err(ValidationError::new(
            field,
            format!(
                "{} is beyond any price (at most 10⁷ an accelerator-hour or a GB, in any currency)",
                crate::text::printable_excerpt(&format!("{v:e}"), 30)
            ),
        ));
    }
    Ok(value)
}

pub fn at_least_one(field: &str, value: u32) -> Checked<u32> {
    if value == 0 {
        return Err(ValidationError::new(field, "must be at least 1"));
    }
    Ok(value)
}

pub fn at_least_one_opt(field: &str, value: Option<u32>) -> Checked<Option<u32>> {
    value.map(|v| at_least_one(field, v)).transpose()
}

/// A fraction expressed in percent, 0 ≤ v ≤ 100.
pub fn percent(field: &str, value: f64) -> Checked<f64> {
    let value = non_negative(field, value)?;
    if value > 100.0 {
        return Err(ValidationError::new(
            field,
            format!("{value} is above 100 %"),
        ));
    }
    Ok(value)
}

/// The currencies money can be in: ISO 4217's codes in use, the ones the
/// ECB's reference-rate history still carries (CYP, EEK, LTL, LVL, MTL,
/// ROL, SIT, SKK, TRL), and the offshore yuan (CNH) providers quote in. A
/// code is a closed set: three letters that name no currency are a typing
/// error, or a rates file of 17 576 made-up columns.
const CURRENCIES: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
    "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNH", "CNY", "COP", "COU", "CRC", "CUC",
    "CUP", "CVE", "CYP", "CZK", "DJF", "DKK", "DOP", "DZD", "EEK", "EGP", "ERN", "ETB", "EUR",
    "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HRK",
    "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS",
    "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LTL",
    "LVL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MTL", "MUR", "MVR",
    "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB",
    "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "ROL", "RON", "RSD", "RUB", "RWF", "SAR",
    "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SIT", "SKK", "SLE", "SLL", "SOS", "SRD", "SSP",
    "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRL", "TRY", "TTD", "TWD",
    "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VES", "VND", "VUV",
    "WST", "XAF", "XCD", "XCG", "XDR", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
];

/// A currency code: one of [`CURRENCIES`], stored upper-case.
pub fn currency(field: &str, value: &str) -> Checked<String> {
    let code = value.trim().to_ascii_uppercase();
    if CURRENCIES.binary_search(&code.as_str()).is_ok() {
        return Ok(code);
    }
    let shown = crate::text::printable_excerpt(value.trim(), 20);
    let why = if code.len() == 3 && code.chars().all(|c| c.is_ascii_alphabetic()) {
        format!("\"{shown}\" is not an ISO 4217 currency code (CNY, USD, EUR, …)")
    } else {
        format!("\"{shown}\" is not a three-letter currency code such as CNY or USD")
    };
    Err(ValidationError::new(field, why))
}

/// An id or a cell of text read from a file (a bill's line id, a host, a
/// product): trimmed, blank is `None`, at most 500 characters, and no
/// control characters — a carriage return or an escape in a cell would
/// split a row or steer a terminal wherever the text is written again.
pub fn optional_cell(field: &str, value: Option<String>) -> Checked<Option<String>> {
    let Some(value) = optional_text(value) else {
        return Ok(None);
    };
    if value.chars().count() > 500 {
        return Err(ValidationError::new(field, "is longer than 500 characters"));
    }
    refuse_control(field, &value)?;
    Ok(Some(value))
}

/// No control character in `text`: a CR, an escape or a line or paragraph
/// separator (U+2028, U+2029) would break it over lines or steer a terminal
/// wherever it is written again.
fn refuse_control(field: &str, text: &str) -> Checked<()> {
    match text
        .chars()
        .find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        Some(c) => Err(ValidationError::new(
            field,
            format!(
                "must not contain control characters (found U+{:04X})",
                c as u32
            ),
        )),
        None => Ok(()),
    }
}

/// Trim an optional free-text field, turning blank into `None`.
pub fn optional_text(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// A platform's energy factors: PUE (facility ÷ IT energy) at least 1, grid
/// carbon intensity (g CO₂ per kWh) not negative.
pub fn energy_factors(pue: f64, grid_g_per_kwh: f64) -> Checked<(f64, f64)> {
    if !(pue.is_finite() && pue >= 1.0) {
        return Err(ValidationError::new(
            "pue",
            format!("{pue}: facility energy / IT energy is at least 1"),
        ));
    }
    Ok((pue, non_negative("grid", grid_g_per_kwh)?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_separators_and_spacing_do_not_make_names_differ() {
        assert!(super::name("name", "Auto\u{2028}DL").is_err());
        assert!(super::name("name", "Auto\u{2029}DL").is_err());
        assert_eq!(super::name_key("Auto  DL"), super::name_key("Auto DL"));
        assert_eq!(super::name_key("Auto\tDL"), super::name_key("auto dl"));
    }

    use super::*;

    #[test]
    fn names_accept_any_script_and_refuse_blank_or_control() {
        assert_eq!(name("name", "  阿里云 ").unwrap(), "阿里云");
        assert_eq!(name("name", "").unwrap_err().reason, "must not be empty");
        assert!(name("name", "a\u{7}b").is_err());
        assert!(name("name", &"x".repeat(201)).is_err());
    }

    #[test]
    fn names_are_composed_and_refuse_invisible_and_direction_characters() {
        // "Café" with a combining accent (as macOS writes it) is stored composed.
        assert_eq!(name("name", "Cafe\u{301}").unwrap(), "Caf\u{e9}");
        for bad in [
            "Ali\u{200B}yun",
            "\u{202E}nuyila",
            "A\u{2066}B",
            "x\u{FEFF}",
        ] {
            let e = name("name", bad).unwrap_err();
            assert!(
                e.reason.contains("invisible or text-direction"),
                "{bad:?}: {}",
                e.reason
            );
        }
    }

    #[test]
    fn name_keys_fold_case_composition_and_look_alikes() {
        assert_eq!(name_key("CAFÉ"), name_key("Cafe\u{301}"));
        assert_eq!(name_key("Café"), name_key("café"));
        // Cyrillic а and е in an otherwise Latin name.
        assert_eq!(name_key("Aliyun"), name_key("\u{410}liyun"));
        assert_eq!(name_key("Ceres"), name_key("C\u{435}res"));
        assert_ne!(name_key("Cafe"), name_key("Café"));
        assert_ne!(name_key("阿里云"), name_key("腾讯云"));
        assert_ne!(name_key("Platform A"), name_key("Platform B"));
    }

    #[test]
    fn numbers_must_be_finite_and_in_range() {
        assert!(non_negative("price", -0.01).is_err());
        assert!(non_negative("price", f64::NAN).is_err());
        assert!(non_negative("price", f64::INFINITY).is_err());
        assert_eq!(non_negative("price", 0.0).unwrap(), 0.0);
        assert!(percent("p", 100.5).is_err());
        assert!(at_least_one("count", 0).is_err());
    }

    #[test]
    fn currency_codes_are_three_letters() {
        assert_eq!(currency("currency", "cny").unwrap(), "CNY");
        assert!(currency("currency", "yuan").is_err());
        assert!(currency("currency", "C1Y").is_err());
    }
}
