//! The one-pass reader of the bulk path: a cell as nvidia-smi writes it
//! nearly every time — spaces, a plain decimal (or a `0x` mask, or a GPU
//! index), the column's unit, spaces, then the separator — read as its
//! bytes are found, digits eight at a time. Anything else is left to the
//! general reader (`ValueReader::read`), which reads it as it always did
//! or names what is wrong; whatever this reads, that reads to the same
//! value (tests below).

use super::{ValueReader, scale};
use crate::samples::Field;

/// The cells the one-pass reader takes (`ValueReader::read_plain`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Plain {
    /// A decimal, then the column's unit (up to eight bytes) or none.
    Decimal {
        unit: [u8; 8],
        unit_len: u8,
        tail: Option<Tail>,
    },
    /// nvidia-smi's `0x` throttle mask.
    Hex,
    /// Nothing: every cell goes to the general reader (a pstate, a unit
    /// this build cannot scale, one longer than eight bytes).
    None,
}

/// The part of a column's reader the one-pass loop needs, small enough to
/// sit beside the other columns' (`ValueReader::plain_reader`): the bulk
/// path reads it for every cell, and a `ValueReader` (its unit texts, the
/// general reader's state) spread the columns over many cache lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlainReader {
    pub field: Field,
    exp: u32,
    factor: i64,
    plain: Plain,
}

impl ValueReader {
    /// The one-pass reader of this column's cells; `None` where every cell
    /// goes to the general reader (`read`).
    pub fn plain_reader(&self) -> Option<PlainReader> {
        (self.plain != Plain::None).then_some(PlainReader {
            field: self.field,
            exp: self.exp,
            factor: self.factor,
            plain: self.plain,
        })
    }

    /// `PlainReader::read_plain` for this column; `None` for every cell
    /// where it has no one-pass reader.
    #[inline]
    pub fn read_plain(&self, bytes: &[u8], sep: u8) -> Option<(i64, usize)> {
        self.plain_reader()?.read_plain(bytes, sep)
    }
}

impl PlainReader {
    /// The common cell in one pass over its bytes: spaces, a plain decimal
    /// (a `0x` mask for the throttle mask), spaces, the column's own unit or
    /// none, spaces, then `sep` or the end. Gives the value and how many
    /// bytes the cell spans (up to the separator). `None` for anything else
    /// — a missing value, another unit, an exponent, tabs — which
    /// `ValueReader::read` then reads with the same result it always had,
    /// or names what is wrong. Whatever this accepts, `read` reads to the
    /// same value.
    #[inline]
    pub fn read_plain(&self, bytes: &[u8], sep: u8) -> Option<(i64, usize)> {
        let cell = skip_spaces(bytes);
        // Matched by reference: copying the unit and the tail out of it
        // for every cell took 95 instructions of a ten-cell row.
        let (value, rest) = match &self.plain {
            Plain::Decimal {
                unit,
                unit_len,
                tail,
            } => {
                let (v, rest) = plain_decimal(cell, self.exp)?;
                // As nvidia-smi writes it, nearly always. Not where spaces
                // separate cells: there the tail would be one.
                if sep != b' '
                    && let Some(len) = tail.as_ref().and_then(|t| t.matches(rest, sep))
                {
                    return Some((scale(self.factor, v), bytes.len() - rest.len() + len));
                }
                let rest = skip_spaces(rest);
                // Byte by byte: a slice compare calls memcmp, which costs
                // more than the one to three bytes of a unit (measured).
                let unit = &unit[..usize::from(*unit_len)];
                let rest = match rest.get(..unit.len()) {
                    Some(written)
                        if !unit.is_empty() && written.iter().zip(unit).all(|(a, b)| a == b) =>
                    {
                        skip_spaces(&rest[unit.len()..])
                    }
                    _ => rest,
                };
                (scale(self.factor, v), rest)
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

/// What nvidia-smi writes after a column's number: a space and the unit
/// (nothing for a column without one), then the separator. Matched as one
/// word rather than a byte at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Tail {
    /// The space and the unit, first byte lowest.
    bytes: u64,
    len: u32,
    /// The bytes of a word the tail and a separator take.
    mask: u64,
}

impl Tail {
    /// `None` where the tail and a separator would not fit in a word.
    pub(super) fn of(unit: &str) -> Option<Self> {
        let written = if unit.is_empty() {
            String::new()
        } else {
            format!(" {unit}")
        };
        if written.len() >= 8 {
            return None;
        }
        let mut bytes = [0; 8];
        bytes[..written.len()].copy_from_slice(written.as_bytes());
        let len = written.len() as u32;
        Some(Self {
            bytes: u64::from_le_bytes(bytes),
            len,
            mask: u64::MAX >> (56 - 8 * len),
        })
    }

    /// The length of the tail when `rest` starts with it and `sep`.
    #[inline]
    fn matches(&self, rest: &[u8], sep: u8) -> Option<usize> {
        let word = u64::from_le_bytes(*rest.first_chunk::<8>()?);
        (word & self.mask == self.bytes | u64::from(sep) << (8 * self.len))
            .then_some(self.len as usize)
    }
}

/// `bytes` after its leading spaces: counted in a word where the cell has
/// eight bytes (a cell's one or two, without a loop), else one by one.
#[inline]
fn skip_spaces(mut bytes: &[u8]) -> &[u8] {
    if let Some(word) = bytes.first_chunk::<8>() {
        let spaces = (u64::from_le_bytes(*word) ^ (u64::from(b' ') * BYTES)).trailing_zeros() / 8;
        if spaces < 8 {
            return &bytes[spaces as usize..];
        }
    }
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
    // nvidia-smi writes all sixteen digits: read eight at a time, then
    // check that they were sixteen and no more.
    if let Some((sixteen, rest)) = digits.split_first_chunk::<16>()
        && rest
            .first()
            .is_none_or(|b| HEX_DIGITS[usize::from(*b)] == NOT_HEX)
        && let Some(v) = hex_sixteen(sixteen)
    {
        return Some((v as i64, rest));
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

/// Sixteen hex digits, the first the most significant; `None` if any byte
/// is not one.
#[inline]
fn hex_sixteen(digits: &[u8; 16]) -> Option<u64> {
    // No reason active: nearly every row of a log, read in one compare.
    if digits == b"0000000000000000" {
        return Some(0);
    }
    let (high, low) = digits.split_at(8);
    let word = |half: &[u8]| half.first_chunk::<8>().map(|w| u64::from_le_bytes(*w));
    let (high, low) = (hex_eight(word(high)?)?, hex_eight(word(low)?)?);
    Some(u64::from(high) << 32 | u64::from(low))
}

/// Eight hex digits in a word (the first in its lowest byte), branch-free;
/// `None` if any byte is not one.
#[inline]
fn hex_eight(word: u64) -> Option<u32> {
    const HIGH: u64 = 0x80 * BYTES;
    // The top bit of each byte that is at least `low`: no byte carries into
    // the next, as long as every byte is ASCII (checked with the result).
    let at_least = |w: u64, low: u64| w.wrapping_add((0x80 - low) * BYTES);
    let digit = at_least(word, 0x30) & !at_least(word, 0x3A);
    // Letters in lower case: only `A`–`F` and `a`–`f` land on `a`–`f`.
    let lower = word | (0x20 * BYTES);
    let letter = at_least(lower, 0x61) & !at_least(lower, 0x67);
    if (digit | letter) & HIGH != HIGH || word & HIGH != 0 {
        return None;
    }
    // Each digit's value in its byte, then pairs, fours and eights joined.
    let nibbles = (word & (0x0F * BYTES)) + ((letter & HIGH) >> 7) * 9;
    let pairs = (nibbles & 0x000F_000F_000F_000F) << 4 | (nibbles >> 8) & 0x000F_000F_000F_000F;
    let fours = (pairs & 0x0000_00FF_0000_00FF) << 8 | (pairs >> 16) & 0x0000_00FF_0000_00FF;
    Some(((fours & 0xFFFF) << 16 | (fours >> 32) & 0xFFFF) as u32)
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
    if n == 0 {
        return None;
    }
    let rest = skip_spaces(rest);
    match rest.first() {
        Some(b) if *b != sep => None,
        _ => Some((v, bytes.len() - rest.len())),
    }
}

/// A leading `-` or `+`: whether the number is negative, and its digits on.
#[inline]
pub(super) fn sign(bytes: &[u8]) -> (bool, &[u8]) {
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
#[inline(always)]
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
    // Nearly every cell: digits, no sign.
    if let Some(read) = decimal_by_words(bytes, exp) {
        return Some(read);
    }
    // A line's last cell, too short to read in words: read as if zeros
    // (no digit, point or exponent) followed. The byte loop below took a
    // hundred instructions more.
    if bytes.len() < 16 {
        let mut padded = [0; 24];
        padded[..bytes.len()].copy_from_slice(bytes);
        if let Some((value, rest)) = decimal_by_words(&padded, exp) {
            let used = padded.len() - rest.len();
            return Some((value, bytes.get(used..)?));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Field;

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
    fn sixteen_hex_digits_read_by_words_as_a_byte_loop_reads_them() {
        // Every byte value at every place, and every digit in every case.
        let by_bytes = |digits: &[u8; 16]| {
            digits.iter().try_fold(0u64, |v, b| {
                let d = HEX_DIGITS[usize::from(*b)];
                (d != NOT_HEX).then_some(v << 4 | u64::from(d))
            })
        };
        for at in 0..16 {
            for byte in 0..=u8::MAX {
                let mut digits = *b"0123456789abcDEF";
                digits[at] = byte;
                assert_eq!(hex_sixteen(&digits), by_bytes(&digits), "{digits:?}");
            }
        }
        assert_eq!(hex_sixteen(b"FFFFFFFFFFFFFFFF"), Some(u64::MAX));
        assert_eq!(hex_sixteen(b"0000000000000004"), Some(4));
        assert_eq!(hex_sixteen(b"8000000000000000"), Some(1 << 63));
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
        // In a row, where a word of the tail is there to match at once.
        let row = b" 240.12 W, 71, 99 %, 49 %";
        assert_eq!(power.read_plain(row, b','), Some((240_120, 9)));
        assert_eq!(
            power.read_plain(b" 240.12  W , 71, 99 %", b','),
            Some((240_120, 11))
        );
        assert_eq!(
            power.read_plain(b" 240.12, 71, 99 %", b','),
            Some((240_120, 7))
        );
        assert_eq!(power.read_plain(b" 240.12 Wh, 71, 99 %", b','), None);
        let temp = ValueReader::new(Field::TempGpuC, None);
        assert_eq!(temp.read_plain(b" 71, 99 %, 49 %", b','), Some((71, 3)));
        assert_eq!(temp.read_plain(b" 71 , 99 %, 49 %", b','), Some((71, 4)));
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

        /// Cells as nvidia-smi writes them, in the column's own unit, in a
        /// row that goes on (the tail's word is there to match): read, to
        /// the general reader's value, and to the separator.
        #[test]
        fn nvidia_smi_cells_are_read_whole(
            number in "[0-9]{1,9}(\\.[0-9]{1,4})?",
            (field, unit) in proptest::sample::select(vec![
                (Field::PowerMw, "W"), (Field::TempGpuC, ""), (Field::UtilGpuPct, "%"),
                (Field::MemUsedMib, "MiB"), (Field::SmClockMhz, "MHz"),
            ]),
            spaces in "[ ]{0,2}",
        ) {
            let reader = ValueReader::new(field, (!unit.is_empty()).then_some(unit));
            let cell = if unit.is_empty() {
                format!(" {number}{spaces}")
            } else {
                format!(" {number} {unit}{spaces}")
            };
            let row = format!("{cell}, 1, 2, 3");
            let read = reader.read_plain(row.as_bytes(), b',');
            proptest::prop_assert_eq!(read.map(|(_, len)| len), Some(cell.len()));
            proptest::prop_assert_eq!(read.map(|(v, _)| Some(v)), Some(reader.read(&cell).unwrap()));
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
}
