//! Data sizes as people write them: "500GB", "2 TB", "1.5TiB", "20G".

use crate::ValidationError;

/// Bytes in `text`: a number and a unit, decimal (kB, MB, GB, TB, PB: 1000)
/// or binary (KiB, MiB, GiB, TiB, PiB: 1024); a bare letter (K, M, G, T, P)
/// is decimal, as disk and cloud prices count; a bare number is bytes.
pub fn parse_bytes(field: &str, text: &str) -> Result<f64, ValidationError> {
    let t = text.trim();
    let fail = || {
        ValidationError::new(
            field,
            format!("\"{t}\" is not a size (e.g. 500GB, 2TB, 1.5TiB)"),
        )
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| fail())?;
    let unit = unit.trim();
    let binary = unit.len() >= 2 && unit[1..].to_ascii_lowercase().starts_with('i');
    let power = match unit.chars().next().map(|c| c.to_ascii_uppercase()) {
        None | Some('B') if unit.len() <= 1 => 0,
        Some('K') => 1,
        Some('M') => 2,
        Some('G') => 3,
        Some('T') => 4,
        Some('P') => 5,
        _ => return Err(fail()),
    };
    let rest = unit.get(if binary { 2 } else { 1 }..).unwrap_or("");
    if power > 0 && !(rest.is_empty() || rest.eq_ignore_ascii_case("b")) {
        return Err(fail());
    }
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let bytes = value * base.powi(power);
    if !bytes.is_finite() || bytes < 0.0 {
        return Err(fail());
    }
    Ok(bytes)
}

/// A size in words: "512 MB", "2.0 TB" (decimal units, as prices count).
pub fn size_words(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if value >= 100.0 || unit == 0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decimal_binary_and_bare_sizes() {
        assert_eq!(parse_bytes("data", "500GB").unwrap(), 500e9);
        assert_eq!(parse_bytes("data", "2 TB").unwrap(), 2e12);
        assert_eq!(parse_bytes("data", "20G").unwrap(), 20e9);
        assert_eq!(
            parse_bytes("data", "1.5TiB").unwrap(),
            1.5 * 1024f64.powi(4)
        );
        assert_eq!(parse_bytes("data", "4096").unwrap(), 4096.0);
        assert_eq!(parse_bytes("data", "64kb").unwrap(), 64e3);
        assert_eq!(parse_bytes("data", "1 MiB").unwrap(), 1_048_576.0);
    }

    #[test]
    fn refuses_what_is_not_a_size_naming_the_field() {
        for bad in ["", "GB", "5 apples", "1.2.3GB", "5GBs", "-5GB", "3X"] {
            let e = parse_bytes("checkpoint", bad).unwrap_err();
            assert_eq!(e.field, "checkpoint", "{bad}");
        }
    }

    #[test]
    fn says_sizes_in_words() {
        assert_eq!(size_words(512e6), "512 MB");
        assert_eq!(size_words(2e12), "2.0 TB");
        assert_eq!(size_words(999.0), "999 B");
    }
}
