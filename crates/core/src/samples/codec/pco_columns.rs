//! A column as pco writes it: pco is a codec made for columns of numbers
//! (delta orders, common multipliers, entropy coding).

use super::{ValueCodec, is_constant};

/// Columns with fewer present values than this keep `seq`: pco's headers
/// cost more than they save on a handful of numbers (as on a constant
/// column).
pub(super) const PCO_MIN_VALUES: usize = 64;
/// pco's compression level: 4 is within 2 % of its best size on the demo
/// workspace at 1.7× the encoding speed of the default (8).
pub(super) const PCO_LEVEL: usize = 4;

/// The values as pco writes them, when there are enough for it to pay.
pub(super) fn encode_pco(values: &[i64], codec: ValueCodec) -> Option<Vec<u8>> {
    if codec == ValueCodec::Seq || values.len() < PCO_MIN_VALUES {
        return None;
    }
    // A constant column is a few bytes of `seq`, less than pco's headers.
    if is_constant(values) {
        return None;
    }
    let config = pco::ChunkConfig::default()
        .with_compression_level(PCO_LEVEL)
        .with_delta_spec(delta_spec(values));
    pco::standalone::simple_compress(values, &config).ok()
}

/// Whether pco may look for a delta encoding. Its search (sampling, trial
/// encodings, lookbacks) was a quarter of the encoder's instructions, and
/// on readings — power, temperature, utilisation: noisy around a level —
/// it settles on none: the demo workspace's chunks come out byte for byte
/// the same without it, 1.4 M synthetic samples 0.5 % larger. Where the
/// steps are far narrower than the values (a cumulative counter: energy,
/// violation time), deltas can pay, and pco is left to choose.
pub(super) fn delta_spec(values: &[i64]) -> pco::DeltaSpec {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    let (mut step_lo, mut step_hi) = (i64::MAX, i64::MIN);
    let mut previous = values[0];
    for &v in values {
        lo = lo.min(v);
        hi = hi.max(v);
        let step = v.wrapping_sub(previous);
        step_lo = step_lo.min(step);
        step_hi = step_hi.max(step);
        previous = v;
    }
    let bits = |lo: i64, hi: i64| 64 - (hi.wrapping_sub(lo) as u64).leading_zeros();
    // Three bits: steps at least eight times narrower than the values.
    if bits(step_lo, step_hi) + 3 < bits(lo, hi) {
        pco::DeltaSpec::Auto
    } else {
        pco::DeltaSpec::NoOp
    }
}
