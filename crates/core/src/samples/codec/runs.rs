//! Runs: a column that holds each value for a long stretch — a clock pinned
//! at its maximum, memory in use, a temperature moving a degree a minute —
//! as the number of runs, then each run's value (the step from the last
//! run's, zigzagged) and length, as varints.

use super::super::bitpack::{get_varint, put_varint, unzigzag, zigzag};
use super::CodecError;

/// How many runs of equal values `values` holds, counted in one pass the
/// compiler vectorises.
pub(super) fn count_runs(values: &[i64]) -> usize {
    values.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!values.is_empty())
}

pub(super) fn encode_runs(values: &[i64], runs: usize, out: &mut Vec<u8>) {
    put_varint(out, runs as u64);
    let mut previous = 0i64;
    for run in values.chunk_by(|a, b| a == b) {
        put_varint(out, zigzag(run[0].wrapping_sub(previous)));
        put_varint(out, run.len() as u64);
        previous = run[0];
    }
}

pub(super) fn decode_runs(buf: &[u8], count: usize, out: &mut Vec<i64>) -> Result<(), CodecError> {
    const DAMAGED: CodecError = CodecError("sample chunk has damaged runs");
    let mut pos = 0;
    let runs = get_varint(buf, &mut pos).ok_or(DAMAGED)?;
    if runs > count as u64 {
        return Err(DAMAGED);
    }
    out.reserve(count);
    let mut value = 0i64;
    for _ in 0..runs {
        value = value.wrapping_add(unzigzag(get_varint(buf, &mut pos).ok_or(DAMAGED)?));
        let len = get_varint(buf, &mut pos).ok_or(DAMAGED)?;
        let len = usize::try_from(len)
            .ok()
            .filter(|len| *len >= 1 && out.len() + len <= count)
            .ok_or(DAMAGED)?;
        out.extend(std::iter::repeat_n(value, len));
    }
    if out.len() != count {
        return Err(DAMAGED);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_do_not_add_up_are_errors() {
        let mut out = Vec::new();
        assert!(decode_runs(&[2, 2, 3, 0, 1], 4, &mut out).is_ok());
        assert_eq!(out, [1, 1, 1, 1]);
        for (damaged, count) in [
            (&[2u8, 2, 3, 0, 2][..], 4), // five values, not four
            (&[2, 2, 3, 0, 0], 4),       // an empty run
            (&[5, 2, 3, 0, 1], 4),       // more runs than written
            (&[9, 2, 1], 4),             // more runs than values
        ] {
            out.clear();
            assert!(
                decode_runs(damaged, count, &mut out).is_err(),
                "{damaged:?}"
            );
        }
    }
}
