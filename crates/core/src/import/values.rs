//! Reading values as monitoring tools write them: numbers with or without
//! units ("33.09 W", "40960 MiB", "45 %"), hex masks, and the many ways of
//! saying "not reported" ([N/A], [Not Supported], -). Values become integers
//! in the store's unit for their field, exactly where the text allows.

use crate::samples::Field;

/// Cells that mean "not reported". The caller turns them into absence,
/// never into 0.
pub fn is_missing(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || matches!(
            t,
            "-" | "N/A" | "n/a" | "NA" | "nan" | "NaN" | "None" | "null"
        )
        || (t.starts_with('[') && t.ends_with(']'))
}

/// A cell reporting that the GPU fell off the bus.
pub fn is_gpu_lost(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case("[GPU is lost]")
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
        ThrottleMask | Pstate | PcieReplays => "",
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

/// The cells the one-pass reader takes (`ValueReader::read_plain`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Plain {
    /// A decimal, then the column's unit (up to eight bytes) or none.
    Decimal { unit: [u8; 8], unit_len: u8 },
    /// nvidia-smi's `0x` throttle mask.
    Hex,
    /// Nothing: every cell goes to the general reader (a pstate, a unit
    /// this build cannot scale, one longer than eight bytes).
    None,
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
        match self.factor {
            1 => v,
            f if f > 0 => v.saturating_mul(f),
            f => v / -f,
        }
    }

    /// The common cell in one pass over its bytes: spaces, a plain decimal
    /// (a `0x` mask for the throttle mask), spaces, the column's own unit or
    /// none, spaces, then `sep` or the end. Gives the value and how many
    /// bytes the cell spans (up to the separator). `None` for anything else
    /// — a missing value, another unit, an exponent, tabs — which `read`
    /// then reads with the same result it always had, or names what is
    /// wrong. Whatever this accepts, `read` reads to the same value.
    #[inline]
    pub fn read_plain(&self, bytes: &[u8], sep: u8) -> Option<(i64, usize)> {
        let cell = skip_spaces(bytes);
        let (value, rest) = match self.plain {
            Plain::Decimal { unit, unit_len } => {
                let (v, rest) = plain_decimal(cell, self.exp)?;
                let rest = skip_spaces(rest);
                // Byte by byte: a slice compare calls memcmp, which costs
                // more than the one to three bytes of a unit (measured).
                let unit = &unit[..usize::from(unit_len)];
                let rest = match rest.get(..unit.len()) {
                    Some(written)
                        if !unit.is_empty() && written.iter().zip(unit).all(|(a, b)| a == b) =>
                    {
                        skip_spaces(&rest[unit.len()..])
                    }
                    _ => rest,
                };
                (self.scale(v), rest)
            }
            Plain::Hex => plain_hex(cell)?,
            Plain::None => return None,
        };
        match rest.first() {
            Some(b) if *b != sep => None,
            _ => Some((value, bytes.len() - rest.len())),
        }
    }
}

/// `bytes` after its leading spaces.
#[inline]
fn skip_spaces(mut bytes: &[u8]) -> &[u8] {
    while let [b' ', rest @ ..] = bytes {
        bytes = rest;
    }
    bytes
}

/// The value of each byte as a hex digit, or `NOT_HEX`.
const NOT_HEX: u8 = 0xFF;
const HEX_DIGITS: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// `0x` and one to sixteen hex digits at the start of `bytes` (nvidia-smi's
/// throttle mask), and what follows them.
#[inline]
fn plain_hex(bytes: &[u8]) -> Option<(i64, &[u8])> {
    let [b'0', b'x' | b'X', digits @ ..] = bytes else {
        return None;
    };
    // nvidia-smi writes all sixteen digits: read them without a branch
    // each, then check that they were sixteen hex digits and no more.
    if let Some((sixteen, rest)) = digits.split_first_chunk::<16>()
        && rest
            .first()
            .is_none_or(|b| HEX_DIGITS[usize::from(*b)] == NOT_HEX)
    {
        let (mut v, mut bad) = (0u64, 0u8);
        for &b in sixteen {
            let d = HEX_DIGITS[usize::from(b)];
            bad |= d;
            v = (v << 4) | u64::from(d & 0xF);
        }
        if bad & 0xF0 == 0 {
            return Some((v as i64, rest));
        }
    }
    let mut v = 0u64;
    let mut n = 0;
    for &b in digits.iter().take(17) {
        let d = HEX_DIGITS[usize::from(b)];
        if d == NOT_HEX {
            break;
        }
        v = (v << 4) | u64::from(d);
        n += 1;
    }
    (1..=16).contains(&n).then_some((v as i64, &digits[n..]))
}

/// A GPU index as nvidia-smi writes it — spaces, one to nine digits,
/// spaces — then `sep` or the end: the index and how many bytes the cell
/// spans. `None` for anything else, which `str::parse` then judges.
#[inline]
pub fn read_plain_index(bytes: &[u8], sep: u8) -> Option<(u32, usize)> {
    let mut rest = skip_spaces(bytes);
    let (mut v, mut n) = (0u32, 0);
    while let [b, after @ ..] = rest {
        let d = b.wrapping_sub(b'0');
        if d >= 10 || n == 9 {
            break;
        }
        v = v * 10 + u32::from(d);
        n += 1;
        rest = after;
    }
    let rest = skip_spaces(rest);
    match rest.first() {
        _ if n == 0 => None,
        Some(b) if *b != sep => None,
        _ => Some((v, bytes.len() - rest.len())),
    }
}

/// A leading `-` or `+`: whether the number is negative, and its digits on.
#[inline]
fn sign(bytes: &[u8]) -> (bool, &[u8]) {
    match bytes {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, bytes),
    }
}

/// Digits an `u64` accumulates without overflow, whatever they are.
const SAFE_DIGITS: usize = 18;

/// 10^n for every scale a unit asks for (and more).
const POW10: [i64; SAFE_DIGITS + 1] = {
    let mut table = [1i64; SAFE_DIGITS + 1];
    let mut i = 1;
    while i <= SAFE_DIGITS {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// `0x01` in every byte of a word.
const BYTES: u64 = 0x0101_0101_0101_0101;

/// How many of the eight bytes of `word` (the first byte in its lowest) are
/// ASCII digits before the first that is not, and — for one to seven of
/// them — their value. Branch-free, eight bytes at a time.
#[inline]
fn leading_digits(word: u64) -> (u32, u64) {
    // A digit's high nibble is 3, and still 3 once 6 is added. Adding 6
    // can carry out of a byte only from 0xFA and above, which are not
    // digits: whatever the carry does to the bytes after one, they come
    // after the first byte that is not a digit.
    let high = |w: u64| w & (0xF0 * BYTES);
    let not_digit =
        (high(word) ^ (0x30 * BYTES)) | (high(word.wrapping_add(6 * BYTES)) ^ (0x30 * BYTES));
    // The top bit of every byte that is not zero (no carry between bytes).
    let flags = (((not_digit & (0x7F * BYTES)) + 0x7F * BYTES) | not_digit) & (0x80 * BYTES);
    let n = flags.trailing_zeros() / 8;
    if n == 0 || n == 8 {
        return (n, 0);
    }
    // The n digits' values moved to the top bytes, zeros (leading zeros of
    // the number) below them; then pairs, fours and eights are summed.
    let v = word.wrapping_sub(0x30 * BYTES) << (64 - 8 * n);
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    let v = (v & pairs)
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add(((v >> 16) & pairs).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    (n, v)
}

/// `plain_decimal`'s common case read eight bytes at a time: one to seven
/// digits, and after a point up to seven more, with eight bytes to read at
/// each. `None` where it cannot tell (the line ends within eight bytes,
/// eight digits or more, an exponent): the byte loop then reads the
/// number, to the same result wherever this gives one.
#[inline]
fn decimal_by_words(bytes: &[u8], exp: u32) -> Option<(i64, &[u8])> {
    let (n, int) = leading_digits(u64::from_le_bytes(*bytes.first_chunk::<8>()?));
    if !(1..8).contains(&n) {
        return None;
    }
    let mut value = i64::try_from(int)
        .ok()?
        .checked_mul(*POW10.get(exp as usize)?)?;
    let mut rest = &bytes[n as usize..];
    if let [b'.', after @ ..] = rest {
        let (f, frac) = leading_digits(u64::from_le_bytes(*after.first_chunk::<8>()?));
        if f == 8 {
            return None;
        }
        let frac = frac as i64;
        value += if f <= exp {
            frac * POW10[(exp - f) as usize]
        } else {
            // The first dropped digit decides the rounding.
            let dropped = POW10[(f - exp) as usize];
            frac / dropped + i64::from((frac % dropped) * 10 / dropped >= 5)
        };
        rest = &after[f as usize..];
    }
    if matches!(rest.first(), Some(b'e' | b'E' | b'.')) {
        return None;
    }
    Some((value, rest))
}

/// The common decimal at the start of `bytes` — an optional sign, digits,
/// an optional point and more digits — scaled by 10^`exp`, rounded half
/// away from zero, and what follows it. `None` for anything the general
/// reader must judge (an exponent, no digit, more digits than are safe), so
/// whatever this reads, `scaled_prefix` reads the same.
#[inline]
fn plain_decimal(bytes: &[u8], exp: u32) -> Option<(i64, &[u8])> {
    let (negative, mut rest) = sign(bytes);
    if let Some((value, after)) = decimal_by_words(rest, exp) {
        return Some((if negative { -value } else { value }, after));
    }
    let mut int = 0u64;
    let mut kept = 0;
    while let [b, after @ ..] = rest {
        let d = b.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        int = int.wrapping_mul(10).wrapping_add(u64::from(d));
        kept += 1;
        rest = after;
    }
    let mut any = kept > 0;
    let mut frac = 0u32;
    let mut round_up = false;
    if let [b'.', after @ ..] = rest {
        rest = after;
        while let [b, after @ ..] = rest {
            let d = b.wrapping_sub(b'0');
            if d >= 10 {
                break;
            }
            if frac < exp {
                int = int.wrapping_mul(10).wrapping_add(u64::from(d));
                frac += 1;
                kept += 1;
            } else if frac == exp {
                // The first dropped digit decides the rounding.
                round_up = d >= 5;
                frac += 1;
            }
            any = true;
            rest = after;
        }
    }
    if !any || kept > SAFE_DIGITS || matches!(rest.first(), Some(b'e' | b'E' | b'.')) {
        return None;
    }
    let scale = *POW10.get((exp - frac.min(exp)) as usize)?;
    let value = i64::try_from(int)
        .ok()?
        .checked_mul(scale)?
        .checked_add(i64::from(round_up))?;
    Some((if negative { -value } else { value }, rest))
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
    fn eight_bytes_at_a_time_count_and_read_digits_as_a_byte_loop_does() {
        // Every byte value (as valid UTF-8 holds them) at every place.
        for at in 0..8 {
            for byte in 0u8..0xF5 {
                let mut word = *b"12345678";
                word[at] = byte;
                let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
                let (n, value) = leading_digits(u64::from_le_bytes(word));
                assert_eq!(n as usize, digits, "{word:?}");
                if (1..8).contains(&digits) {
                    let text = std::str::from_utf8(&word[..digits]).unwrap();
                    assert_eq!(value, text.parse::<u64>().unwrap(), "{word:?}");
                }
            }
        }
        assert_eq!(leading_digits(u64::from_le_bytes(*b"0000009 ")), (7, 9));
        assert_eq!(
            leading_digits(u64::from_le_bytes(*b"9999999W")),
            (7, 9_999_999)
        );
    }

    #[test]
    fn decimals_read_by_words_round_as_the_general_reader_does() {
        // Every count of digits either side of the point, the first digit
        // dropped 4, 5 or 9, in a row that goes on (eight bytes to read) and
        // at the end of one; for W (three decimals kept), mW (none), kW (six).
        for unit in ["W", "mW", "kW"] {
            let reader = ValueReader::new(Field::PowerMw, Some(unit));
            for int in 1..=9 {
                for frac in 0..=8 {
                    for dropped in ['4', '5', '9'] {
                        let int_part: String =
                            (0..int).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
                        let frac_part: String = (0..frac)
                            .map(|i| {
                                if i == 3.min(frac - 1) {
                                    dropped
                                } else {
                                    char::from(b'0' + (i % 10) as u8)
                                }
                            })
                            .collect();
                        let cell = if frac == 0 {
                            format!(" {int_part}")
                        } else {
                            format!(" {int_part}.{frac_part}")
                        };
                        let expected = reader.read(&cell).unwrap();
                        for row in [format!("{cell}, 1, 2, 3"), cell.clone()] {
                            let read = reader.read_plain(row.as_bytes(), b',');
                            assert_eq!(
                                read.map(|(v, _)| Some(v)),
                                Some(expected),
                                "{row:?} in {unit}"
                            );
                            assert_eq!(read.map(|(_, len)| len), Some(cell.len()), "{row:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_one_pass_reader_reads_the_common_cells() {
        let power = ValueReader::new(Field::PowerMw, None);
        assert_eq!(power.read_plain(b" 240.12 W, 71", b','), Some((240_120, 9)));
        assert_eq!(power.read_plain(b"240.1256W", b','), Some((240_126, 9)));
        assert_eq!(power.read_plain(b" [N/A]", b','), None);
        assert_eq!(power.read_plain(b" 240 mW", b','), None);
        assert_eq!(power.read_plain(b" 2.4e2 W", b','), None);
        let mask = ValueReader::new(Field::ThrottleMask, None);
        assert_eq!(mask.read_plain(b" 0x0000000000000004", b','), Some((4, 19)));
        assert_eq!(mask.read_plain(b" 0x00000000000000004", b','), None);
        assert_eq!(mask.read_plain(b" 4", b','), None);
    }

    proptest::proptest! {
        /// Whatever the one-pass index reader accepts, `str::parse` reads to
        /// the same index.
        #[test]
        fn the_one_pass_index_reader_agrees_with_parse(cell in "[ \t]{0,2}[-+]?[0-9]{0,11}[ x]{0,2}") {
            if let Some((v, len)) = read_plain_index(cell.as_bytes(), b',') {
                proptest::prop_assert_eq!(len, cell.len());
                proptest::prop_assert_eq!(cell.trim_ascii().parse::<u32>(), Ok(v));
            }
            let row = format!("{cell},1");
            if let Some((_, len)) = read_plain_index(row.as_bytes(), b',') {
                proptest::prop_assert_eq!(len, cell.len());
            }
        }

        /// Whatever the one-pass reader accepts, the general one reads to
        /// the same value, and it never reads past the cell.
        #[test]
        fn the_one_pass_reader_agrees_with_the_general_one(
            cell in "[ \t]{0,2}[-+]?[0-9]{0,20}(\\.[0-9]{0,8})?[eE.]?[0-9]{0,2}[ ]{0,2}(W|mW|MHz|%|MiB|GiB|C|0x[0-9a-fA-F]{0,18})?[ \t]{0,2}",
            field in proptest::sample::select(vec![
                Field::PowerMw, Field::TempGpuC, Field::UtilGpuPct, Field::MemUsedMib,
                Field::SmClockMhz, Field::ThrottleMask, Field::Pstate, Field::PcieReplays,
            ]),
            header_unit in proptest::option::of(proptest::sample::select(vec!["W", "MiB", "GiB", "KiB", "%", "furlong"])),
        ) {
            let reader = ValueReader::new(field, header_unit);
            if let Some((v, len)) = reader.read_plain(cell.as_bytes(), b',') {
                proptest::prop_assert_eq!(len, cell.len());
                proptest::prop_assert_eq!(reader.read(&cell), Ok(Some(v)));
            }
            // Followed by a row's other cells: eight bytes are there to read.
            let row = format!("{cell},1, 2, 3, 4");
            if let Some((v, len)) = reader.read_plain(row.as_bytes(), b',') {
                proptest::prop_assert_eq!(len, cell.len());
                proptest::prop_assert_eq!(reader.read(&cell), Ok(Some(v)));
            }
        }
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
