//! Small checks shared by the domain constructors. Each returns a
//! `ValidationError` naming the field, so a message can point at the input.

use crate::error::ValidationError;

pub type Checked<T> = Result<T, ValidationError>;

/// A display name: trimmed, non-empty, at most 200 characters, no control
/// characters. Any script is welcome.
pub fn name(field: &str, value: &str) -> Checked<String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ValidationError::new(field, "must not be empty"));
    }
    if trimmed.chars().count() > 200 {
        return Err(ValidationError::new(field, "is longer than 200 characters"));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(ValidationError::new(
            field,
            "must not contain control characters",
        ));
    }
    Ok(trimmed.to_string())
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

/// An ISO 4217-like currency code: three ASCII letters, stored upper-case.
pub fn currency(field: &str, value: &str) -> Checked<String> {
    let code = value.trim().to_ascii_uppercase();
    if code.len() == 3 && code.chars().all(|c| c.is_ascii_alphabetic()) {
        Ok(code)
    } else {
        Err(ValidationError::new(
            field,
            format!("\"{value}\" is not a three-letter currency code such as CNY or USD"),
        ))
    }
}

/// Trim an optional free-text field, turning blank into `None`.
pub fn optional_text(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_accept_any_script_and_refuse_blank_or_control() {
        assert_eq!(name("name", "  阿里云 ").unwrap(), "阿里云");
        assert_eq!(name("name", "").unwrap_err().reason, "must not be empty");
        assert!(name("name", "a\u{7}b").is_err());
        assert!(name("name", &"x".repeat(201)).is_err());
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
