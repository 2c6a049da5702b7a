//! Downsampling for drawing: per pixel column, the minimum and maximum of a
//! series, so that a 1.4 M-sample run draws as a few thousand vertical
//! strokes and no spike or dip is lost (an average would hide both).

/// One pixel column: its time and the extremes of the samples in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub t_ms: i64,
    pub min: f64,
    pub max: f64,
}

/// Min/max of `value(i)` over `columns` equal time slices of `[t0, t1]`.
/// Samples without a value are skipped; empty columns are left out, so a
/// gap stays a gap.
pub fn min_max(
    t: &[i64],
    value: impl Fn(usize) -> Option<f64>,
    t0: i64,
    t1: i64,
    columns: usize,
) -> Vec<Bucket> {
    let columns = columns.max(1);
    let span = (t1 - t0).max(1) as f64;
    let mut buckets: Vec<Option<(f64, f64)>> = vec![None; columns];
    for (i, &ti) in t.iter().enumerate() {
        let Some(v) = value(i) else { continue };
        if ti < t0 || ti > t1 || !v.is_finite() {
            continue;
        }
        let c = (((ti - t0) as f64 / span) * columns as f64) as usize;
        let c = c.min(columns - 1);
        buckets[c] = Some(match buckets[c] {
            Some((lo, hi)) => (lo.min(v), hi.max(v)),
            None => (v, v),
        });
    }
    buckets
        .into_iter()
        .enumerate()
        .filter_map(|(c, b)| {
            b.map(|(min, max)| Bucket {
                t_ms: t0 + ((c as f64 + 0.5) / columns as f64 * span) as i64,
                min,
                max,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_survive_and_gaps_stay_gaps() {
        let t: Vec<i64> = (0..1_000_000).collect();
        let v = |i: usize| match i {
            123_457 => Some(900.0),
            654_321 => Some(-50.0),
            400_000..=500_000 => None,
            _ => Some((i % 7) as f64),
        };
        let b = min_max(&t, v, 0, 999_999, 1000);
        assert_eq!(b.iter().map(|b| b.max).fold(f64::MIN, f64::max), 900.0);
        assert_eq!(b.iter().map(|b| b.min).fold(f64::MAX, f64::min), -50.0);
        assert!(b.len() < 1000, "the hole has no columns");
        assert!(b.len() >= 899);
    }
}
