//! Reading values as monitoring tools write them: numbers with or without
//! units ("33.09 W", "40960 MiB", "45 %"), hex masks, and the many ways of
//! saying "not reported" ([N/A], [Not Supported], -). Values become integers
//! in the store's unit for their field, exactly where the text allows.
//! The bulk path's one-pass reader of the common cells is `one_pass`.

mod one_pass;

use crate::samples::Field;
use one_pass::{Plain, Tail, sign};
pub use one_pass::{PlainReader, read_plain_index};

/// `text.trim()`, by bytes where the text's ends are ASCII: Unicode's other
/// spaces are never ASCII, so where the bytes stop, `trim` stops too. The
/// bulk path trims identity cells (a UUID, a bus id) on every row.
#[inline]
pub fn trim_cell(text: &str) -> &str {
    let t = text.trim_ascii();
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(a), Some(z)) if !a.is_ascii() || !z.is_ascii() => text.trim(),
        _ => t,
    }
}

/// Cells that mean "not reported". The caller turns them into absence,
/// never into 0.
pub fn is_missing(text: &str) -> bool {
    let t = trim_cell(text);
    t.is_empty()
        || matches!(
            t,
            "-" | "N/A" | "n/a" | "NA" | "nan" | "NaN" | "None" | "null"
        )
        || (t.starts_with('[') && t.ends_with(']'))
}

/// A cell reporting that the GPU fell off the bus.
pub fn is_gpu_lost(text: &str) -> bool {
    trim_cell(text).eq_ignore_ascii_case("[GPU is lost]")
}

/// Split "33.09 W" into ("33.09", Some("W")); "45" into ("45", None). The
/// unit is whatever follows the last digit.
pub fn split_unit(text: &str) -> (&str, Option<&str>) {
    let t = text.trim();
    match t.rfind(|c: char| c.is_ascii_digit() || c == '.') {
        Some(i) => {
            let (number, unit) = t.split_at(i + 1);
            let unit = unit.trim();
            (number.trim(), (!unit.is_empty()).then_some(unit))
        }
        None => (t, None),
    }
}

/// Parse a decimal number into an integer scaled by 10^`exp`, rounding
/// half away from zero. Fast path for plain decimals; scientific notation
/// goes through `f64`.
pub fn parse_scaled(text: &str, exp: u32) -> Option<i64> {
    match scaled_prefix(text.as_bytes(), 0, exp) {
        Ok((value, end)) => (end == text.len()).then_some(value),
        Err(NotPlain::Exponent) => parse_scientific(text, exp),
        Err(NotPlain::Invalid) => None,
    }
}

fn parse_scientific(text: &str, exp: u32) -> Option<i64> {
    let v: f64 = text.parse().ok()?;
    let scaled = v * 10f64.powi(exp as i32);
    (scaled.is_finite() && scaled.abs() < 9.0e18).then(|| scaled.round() as i64)
}

/// Parse "0x0000000000000004" (or plain decimal) as a bit mask.
pub fn parse_mask(text: &str) -> Option<i64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok().map(|v| v as i64),
        None => t.parse::<u64>().ok().map(|v| v as i64),
    }
}

/// "P0" … "P15" (or a bare number) as the performance state number.
pub fn parse_pstate(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['P', 'p']).unwrap_or(t);
    digits.parse::<i64>().ok().filter(|p| (0..=15).contains(p))
}

/// How a unit written in a log converts to a field's stored unit: the
/// power of ten to scale by (positive) or a divisor, as an exact pair.
fn unit_scale(field: Field, unit: &str) -> Option<(u32, i64)> {
    let u = unit.trim().trim_start_matches('°');
    use Field::*;
    Some(match (field, u) {
        (PowerMw | PowerLimitMw, "W") => (3, 1),
        (PowerMw | PowerLimitMw, "mW") => (0, 1),
        (PowerMw | PowerLimitMw, "kW") => (6, 1),
        (EnergyMj, "mJ") => (0, 1),
        (EnergyMj, "J") => (3, 1),
        (EnergyMj, "kJ") => (6, 1),
        (TempGpuC | TempMemC, "C") => (0, 1),
        (SmClockMhz | MemClockMhz, "MHz" | "MHZ" | "mhz") => (0, 1),
        (SmClockMhz | MemClockMhz, "GHz") => (3, 1),
        (UtilGpuPct | UtilMemPct | UtilEncPct | UtilDecPct | FanPct, "%") => (0, 1),
        (MemUsedMib | MemTotalMib, "MiB" | "MB") => (0, 1),
        (MemUsedMib | MemTotalMib, "GiB" | "GB") => (0, 1024),
        (MemUsedMib | MemTotalMib, "KiB" | "KB") => (0, -1024),
        (PcieTxKbps | PcieRxKbps, "KB/s" | "KiB/s") => (0, 1),
        (PcieTxKbps | PcieRxKbps, "MB/s" | "MiB/s") => (0, 1000),
        (PowerViolationUs | ThermalViolationUs, "us") => (0, 1),
        (PowerViolationUs | ThermalViolationUs, "ns") => (0, -1000),
        (PowerViolationUs | ThermalViolationUs, "ms") => (3, 1),
        (PowerViolationUs | ThermalViolationUs, "s") => (6, 1),
        _ => return None,
    })
}

/// The unit a field is written in when a log gives none (nvidia-smi's
/// `nounits`, dmon's numbers): the tools' own conventions.
pub fn default_unit(field: Field) -> &'static str {
    use Field::*;
    match field {
        PowerMw | PowerLimitMw => "W",
        EnergyMj => "mJ",
        TempGpuC | TempMemC => "C",
        SmClockMhz | MemClockMhz => "MHz",
        UtilGpuPct | UtilMemPct | UtilEncPct | UtilDecPct | FanPct => "%",
        MemUsedMib | MemTotalMib => "MiB",
        PcieTxKbps | PcieRxKbps => "KB/s",
        PowerViolationUs | ThermalViolationUs => "us",
        ThrottleMask | Pstate | PcieReplays | EccSbeVolatile | EccDbeVolatile | EccSbeAggregate
        | EccDbeAggregate | NvlinkCrcErrors | NvlinkReplays | NvlinkRecoveries => "",
    }
}

/// A column's unit worked out once, so that each cell is read with a
/// suffix check and an integer parse (the bulk path of a 1.4 M-row import).
#[derive(Debug, Clone, PartialEq)]
pub struct ValueReader {
    pub field: Field,
    /// The unit the header states, if any.
    header_unit: Option<String>,
    /// The unit text values carry when they carry one ("W").
    unit: String,
    exp: u32,
    factor: i64,
    /// What the one-pass reader looks for, decided once for the column.
    plain: Plain,
}

impl ValueReader {
    pub fn new(field: Field, header_unit: Option<&str>) -> Self {
        let unit = header_unit.unwrap_or(default_unit(field)).to_string();
        let (exp, factor) = if unit.is_empty() {
            (0, 1)
        } else {
            // An unknown header unit takes the slow path, which names it.
            unit_scale(field, &unit).unwrap_or((0, 0))
        };
        let plain = match field {
            Field::ThrottleMask => Plain::Hex,
            Field::Pstate => Plain::None,
            _ if factor == 0 || unit.len() > 8 => Plain::None,
            _ => {
                let mut bytes = [0; 8];
                bytes[..unit.len()].copy_from_slice(unit.as_bytes());
                Plain::Decimal {
                    unit: bytes,
                    unit_len: unit.len() as u8,
                    tail: Tail::of(&unit),
                }
            }
        };
        Self {
            field,
            header_unit: header_unit.map(str::to_string),
            unit,
            exp,
            factor,
            plain,
        }
    }

    pub fn read(&self, cell: &str) -> Result<Option<i64>, String> {
        let c = cell.trim_ascii();
        if self.factor != 0 && !matches!(self.field, Field::ThrottleMask | Field::Pstate) {
            // A byte compare: units are one to three characters.
            let (cb, ub) = (c.as_bytes(), self.unit.as_bytes());
            let number = if !ub.is_empty()
                && cb.len() > ub.len()
                && cb[cb.len() - ub.len()..]
                    .iter()
                    .zip(ub)
                    .all(|(a, b)| a == b)
            {
                c[..c.len() - ub.len()].trim_ascii_end()
            } else {
                c
            };
            if let Some(v) = parse_scaled(number, self.exp) {
                return Ok(Some(self.scale(v)));
            }
        } else if self.field == Field::ThrottleMask
            && let Some(v) = parse_mask(c)
        {
            return Ok(Some(v));
        }
        parse_field(self.field, c, self.header_unit.as_deref())
    }

    /// A value read in the written unit, in the store's.
    #[inline]
    fn scale(&self, v: i64) -> i64 {
        scale(self.factor, v)
    }
}

/// A value read in the written unit, in the store's: multiplied by
/// `factor`, or divided by its negation.
#[inline]
fn scale(factor: i64, v: i64) -> i64 {
    match factor {
        1 => v,
        f if f > 0 => v.saturating_mul(f),
        f => v / -f,
    }
}

/// Why `scaled_prefix` found no plain decimal.
enum NotPlain {
    /// Digits then an exponent (`2.66e+02`): `f64`'s parser reads it.
    Exponent,
    /// No digit, a second point, or more digits than an `i64` holds.
    Invalid,
}

/// The decimal at `bytes[at..]` scaled by 10^`exp` and rounded half away
/// from zero, and where it ends (at the first byte that is neither digit
/// nor point).
fn scaled_prefix(bytes: &[u8], at: usize, exp: u32) -> Result<(i64, usize), NotPlain> {
    let (negative, digits) = sign(bytes.get(at..).unwrap_or_default());
    let mut at = bytes.len() - digits.len();
    let start = at;
    let (mut int, mut frac_digits, mut seen_digit, mut seen_dot, mut round_up) =
        (0i64, 0u32, false, false, false);
    while let Some(&b) = bytes.get(at) {
        match b {
            b'0'..=b'9' => {
                seen_digit = true;
                if seen_dot && frac_digits >= exp {
                    // The first dropped digit decides the rounding.
                    if frac_digits == exp {
                        round_up = b >= b'5';
                    }
                    frac_digits += 1;
                } else {
                    int = int
                        .checked_mul(10)
                        .and_then(|i| i.checked_add(i64::from(b - b'0')))
                        .ok_or(NotPlain::Invalid)?;
                    frac_digits += u32::from(seen_dot);
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            b'.' => return Err(NotPlain::Invalid),
            b'e' | b'E' if at > start => return Err(NotPlain::Exponent),
            _ => break,
        }
        at += 1;
    }
    if !seen_digit {
        return Err(NotPlain::Invalid);
    }
    let value = 10i64
        .checked_pow(exp - frac_digits.min(exp))
        .and_then(|scale| int.checked_mul(scale))
        .and_then(|v| v.checked_add(i64::from(round_up)))
        .ok_or(NotPlain::Invalid)?;
    Ok((if negative { -value } else { value }, at))
}

/// A value for `field` from text such as "33.09 W" or "33.09" (then in
/// `unit`, or the field's default unit). `Ok(None)` for "not reported".
pub fn parse_field(field: Field, text: &str, unit: Option<&str>) -> Result<Option<i64>, String> {
    if is_missing(text) {
        return Ok(None);
    }
    match field {
        Field::ThrottleMask => {
            return parse_mask(text)
                .map(Some)
                .ok_or_else(|| format!("\"{}\" is not a bit mask", text.trim()));
        }
        Field::Pstate => {
            return parse_pstate(text)
                .map(Some)
                .ok_or_else(|| format!("\"{}\" is not a performance state", text.trim()));
        }
        _ => {}
    }
    let (number, written_unit) = split_unit(text);
    let unit = written_unit.or(unit).unwrap_or(default_unit(field));
    let (exp, factor) = if unit.is_empty() {
        (0, 1)
    } else {
        unit_scale(field, unit).ok_or_else(|| {
            format!(
                "unit \"{unit}\" does not fit {} ({})",
                field.key(),
                text.trim()
            )
        })?
    };
    let value =
        parse_scaled(number, exp).ok_or_else(|| format!("\"{}\" is not a number", text.trim()))?;
    Ok(Some(match factor {
        1 => value,
        f if f > 0 => value.saturating_mul(f),
        f => value / -f,
    }))
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        /// Trimmed by bytes where it can be, a cell reads as `trim` reads
        /// it, whatever spaces (Unicode's too) surround it.
        #[test]
        fn a_cell_trims_as_trim_does(
            text in "[ \t\u{a0}\u{3000}\u{2003}]{0,3}[a-zA-Z0-9:é\u{a0} -]{0,12}[ \t\u{a0}\u{3000}]{0,3}",
        ) {
            proptest::prop_assert_eq!(trim_cell(&text), text.trim());
        }
    }
    use super::*;

    #[test]
    fn decimals_scale_exactly_and_round_half_away() {
        assert_eq!(parse_scaled("33.09", 3), Some(33_090));
        assert_eq!(parse_scaled("266.172000", 3), Some(266_172));
        assert_eq!(parse_scaled("0.0005", 3), Some(1));
        assert_eq!(parse_scaled("-1.2344", 3), Some(-1_234));
        assert_eq!(parse_scaled("45", 0), Some(45));
        assert_eq!(parse_scaled(".5", 1), Some(5));
        assert_eq!(parse_scaled("2.66e+02", 3), Some(266_000));
        assert_eq!(parse_scaled("12.5.3", 3), None);
        assert_eq!(parse_scaled("", 3), None);
        assert_eq!(parse_scaled("-", 3), None);
        assert_eq!(parse_scaled("99999999999999999999", 0), None);
    }

    #[test]
    fn units_are_read_from_the_value_or_the_header() {
        assert_eq!(
            parse_field(Field::PowerMw, "33.09 W", None),
            Ok(Some(33_090))
        );
        assert_eq!(
            parse_field(Field::PowerMw, "2.5e+02 W", None),
            Ok(Some(250_000))
        );
        assert_eq!(
            parse_field(Field::PowerMw, "33.09", Some("W")),
            Ok(Some(33_090))
        );
        assert_eq!(
            parse_field(Field::MemUsedMib, "40960 MiB", None),
            Ok(Some(40_960))
        );
        assert_eq!(
            parse_field(Field::MemUsedMib, "80 GiB", None),
            Ok(Some(81_920))
        );
        assert_eq!(parse_field(Field::UtilGpuPct, "45 %", None), Ok(Some(45)));
        assert_eq!(parse_field(Field::TempGpuC, "33 C", None), Ok(Some(33)));
        assert_eq!(
            parse_field(Field::SmClockMhz, "1410 MHz", None),
            Ok(Some(1410))
        );
        assert_eq!(
            parse_field(Field::ThrottleMask, "0x0000000000000004", None),
            Ok(Some(4))
        );
        assert_eq!(parse_field(Field::Pstate, "P0", None), Ok(Some(0)));
        assert!(parse_field(Field::PowerMw, "33 MHz", None).is_err());
        assert_eq!(
            parse_field(Field::PowerMw, "12.5.3 W", None),
            Err("\"12.5.3 W\" is not a number".into())
        );
    }

    #[test]
    fn every_spelling_of_not_reported_is_absent() {
        for t in [
            "[N/A]",
            "N/A",
            "[Not Supported]",
            "[Unknown Error]",
            "-",
            "",
            "  ",
        ] {
            assert_eq!(parse_field(Field::PowerMw, t, None), Ok(None), "{t:?}");
        }
        assert!(is_gpu_lost("[GPU is lost]"));
    }
}
