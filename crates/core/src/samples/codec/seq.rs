//! `seq`, the hand-written packing: the first value, the greatest common
//! divisor of the steps, and the steps divided by it, zigzagged and
//! bit-packed. Times always go this way, and columns too short or too
//! constant for pco's headers to pay.

use super::super::bitpack::{get_varint, pack, put_varint, unpack, unzigzag, zigzag};
use super::CodecError;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

pub(super) fn encode_seq(values: &[i64], out: &mut Vec<u8>, scratch: &mut Vec<u64>) {
    let Some(&first) = values.first() else {
        return;
    };
    put_varint(out, zigzag(first));
    if values.len() == 1 {
        return;
    }
    // Noisy columns reach 1 within a few deltas; stop there rather than
    // divide through the whole chunk.
    let mut g = 0u64;
    for w in values.windows(2) {
        g = gcd(g, w[1].wrapping_sub(w[0]).unsigned_abs());
        if g == 1 {
            break;
        }
    }
    if g > i64::MAX as u64 {
        g = 1; // only i64::MIN deltas get here; keep them undivided
    }
    put_varint(out, g);
    if g == 0 {
        return;
    }
    let g = g as i64;
    scratch.clear();
    scratch.extend(
        values
            .windows(2)
            .map(|w| zigzag(w[1].wrapping_sub(w[0]) / g)),
    );
    pack(scratch, out);
}

pub(super) fn decode_seq(
    buf: &[u8],
    pos: &mut usize,
    count: usize,
    out: &mut Vec<i64>,
    scratch: &mut Vec<u64>,
) -> Result<(), CodecError> {
    const TRUNCATED: CodecError = CodecError("sample chunk is truncated");
    if count == 0 {
        return Ok(());
    }
    let first = unzigzag(get_varint(buf, pos).ok_or(TRUNCATED)?);
    out.reserve(count);
    out.push(first);
    if count == 1 {
        return Ok(());
    }
    let g = get_varint(buf, pos).ok_or(TRUNCATED)?;
    if g == 0 {
        out.extend(std::iter::repeat_n(first, count - 1));
        return Ok(());
    }
    if g > i64::MAX as u64 {
        return Err(CodecError("sample chunk has an impossible delta divisor"));
    }
    scratch.clear();
    unpack(buf, pos, count - 1, scratch).ok_or(TRUNCATED)?;
    let g = g as i64;
    let mut current = first;
    for &z in scratch.iter() {
        current = current.wrapping_add(unzigzag(z).wrapping_mul(g));
        out.push(current);
    }
    Ok(())
}
