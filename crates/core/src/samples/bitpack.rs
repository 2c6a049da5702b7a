//! Integer primitives of the sample codec: zigzag, LEB128 varints and
//! block bit-packing (128 values per block, each block at the bit width of
//! its largest value). Steady series produce zero deltas, which pack to a
//! single width byte per block; a spike widens only its own block.
//!
//! Every reader is bounds-checked and returns `None` on malformed input:
//! stored chunks are decoded without trusting them.

pub const BLOCK: usize = 128;

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn width_of(values: &[u64]) -> u32 {
    let max = values.iter().fold(0u64, |acc, v| acc | v);
    64 - max.leading_zeros()
}

fn block_bytes(len: usize, width: u32) -> usize {
    (len * width as usize).div_ceil(8)
}

/// Append `values` packed in blocks of [`BLOCK`].
pub fn pack(values: &[u64], out: &mut Vec<u8>) {
    for block in values.chunks(BLOCK) {
        let width = width_of(block);
        out.push(width as u8);
        if width == 0 {
            continue;
        }
        out.reserve(block_bytes(block.len(), width));
        let mut acc = 0u64;
        let mut nbits = 0u32;
        for &v in block {
            acc |= v << nbits;
            let total = nbits + width;
            if total < 64 {
                nbits = total;
            } else {
                out.extend_from_slice(&acc.to_le_bytes());
                nbits = total - 64;
                // The bits of `v` that did not fit (none when total == 64).
                acc = if nbits == 0 { 0 } else { v >> (width - nbits) };
            }
        }
        let tail = (nbits as usize).div_ceil(8);
        out.extend_from_slice(&acc.to_le_bytes()[..tail]);
    }
}

/// Read `count` values written by [`pack`], appending them to `out`.
pub fn unpack(buf: &[u8], pos: &mut usize, count: usize, out: &mut Vec<u64>) -> Option<()> {
    out.reserve(count);
    let mut left = count;
    while left > 0 {
        let len = left.min(BLOCK);
        let width = u32::from(*buf.get(*pos)?);
        *pos += 1;
        if width > 64 {
            return None;
        }
        if width == 0 {
            out.extend(std::iter::repeat_n(0, len));
        } else {
            let bytes = block_bytes(len, width);
            let block = buf.get(*pos..*pos + bytes)?;
            *pos += bytes;
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            for i in 0..len {
                out.push(read_bits(block, i * width as usize) & mask);
            }
        }
        left -= len;
    }
    Some(())
}

/// The 64 bits starting at bit `bitpos` of `block` (little-endian; a value
/// may straddle nine bytes), zero past the end; the caller masks its width.
fn read_bits(block: &[u8], bitpos: usize) -> u64 {
    let start = bitpos / 8;
    let shift = (bitpos % 8) as u32;
    let mut window = [0u8; 16];
    let end = (start + 9).min(block.len());
    window[..end - start].copy_from_slice(&block[start..end]);
    let word = u128::from_le_bytes(window);
    (word >> shift) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn zigzag_maps_small_magnitudes_to_small_codes() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        for v in [i64::MIN, -5, 0, 7, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn constant_blocks_cost_one_byte() {
        let mut out = Vec::new();
        pack(&[0; 300], &mut out);
        assert_eq!(out, vec![0, 0, 0]);
    }

    #[test]
    fn truncated_input_is_refused_not_panicked_on() {
        let mut out = Vec::new();
        pack(&[1, 2, 3, u64::MAX], &mut out);
        for cut in 0..out.len() {
            let mut pos = 0;
            let mut values = Vec::new();
            assert!(unpack(&out[..cut], &mut pos, 4, &mut values).is_none());
        }
        assert!(get_varint(&[0x80, 0x80], &mut 0).is_none());
    }

    proptest! {
        #[test]
        fn pack_round_trips(values in proptest::collection::vec(any::<u64>(), 0..600), narrow in 0u32..64) {
            let values: Vec<u64> = values.into_iter().map(|v| v >> narrow).collect();
            let mut out = Vec::new();
            pack(&values, &mut out);
            let mut pos = 0;
            let mut back = Vec::new();
            unpack(&out, &mut pos, values.len(), &mut back).unwrap();
            prop_assert_eq!(pos, out.len());
            prop_assert_eq!(back, values);
        }

        #[test]
        fn varints_round_trip(v in any::<u64>()) {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut pos = 0;
            prop_assert_eq!(get_varint(&out, &mut pos), Some(v));
            prop_assert_eq!(pos, out.len());
        }
    }
}
