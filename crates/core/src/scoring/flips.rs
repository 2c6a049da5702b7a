//! Flip distances: for two adjacent platforms, the smallest change of one
//! breakpoint's weight share (the others keeping their proportions) that
//! lets the lower one catch up, found exactly from the affine lines the
//! scores follow along that change.

use serde::Serialize;

use super::rank::overall;
use crate::domain::Breakpoint;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    pub upper: String,
    pub lower: String,
    pub breakpoint: Breakpoint,
    /// The breakpoint's weight share now and where the lower platform
    /// catches up.
    pub from_share: f64,
    pub to_share: f64,
}

impl Flip {
    pub fn distance(&self) -> f64 {
        (self.to_share - self.from_share).abs()
    }

    /// "C overtakes A if startup weight goes from 0.25 to 0.41"
    pub fn sentence(&self) -> String {
        self.sentence_in(false)
    }

    /// The same, in Chinese where `zh`.
    pub fn sentence_in(&self, zh: bool) -> String {
        if zh {
            format!(
                "若{}权重从 {:.2} 变为 {:.2}，{} 将超过 {}",
                self.breakpoint.name_in(true),
                self.from_share,
                self.to_share,
                self.lower,
                self.upper
            )
        } else {
            format!(
                "{} overtakes {} if {} weight goes from {:.2} to {:.2}",
                self.lower, self.upper, self.breakpoint, self.from_share, self.to_share
            )
        }
    }
}

/// Weights with breakpoint `b` at share `x` and the others scaled to fill
/// the rest in their current proportions.
pub fn with_share(base: &[f64; 4], b: usize, x: f64) -> [f64; 4] {
    let rest: f64 = base
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != b)
        .map(|(_, w)| w)
        .sum();
    std::array::from_fn(|i| {
        if i == b {
            x
        } else if rest > 0.0 {
            base[i] / rest * (1.0 - x)
        } else {
            (1.0 - x) / 3.0
        }
    })
}

/// The lower platform must lead by more than this (score points) to count
/// as overtaking.
const OVERTAKE: f64 = 1e-9;

/// A contender's weighted score sum and measured weight along the line of
/// weights `with_share(base, b, x)`: both are affine in `x`, so two
/// evaluations (x = 0 and x = 1) give them everywhere.
#[derive(Clone, Copy)]
struct Line {
    num: (f64, f64),
    den: (f64, f64),
}

impl Line {
    fn of(scores: &[Option<f64>; 4], base: &[f64; 4], b: usize) -> Line {
        let sums = |w: &[f64; 4]| {
            scores
                .iter()
                .zip(w)
                .filter_map(|(s, w)| s.map(|s| (w * s, *w)))
                .fold((0.0, 0.0), |(n, d), (ws, w)| (n + ws, d + w))
        };
        let (n0, d0) = sums(&with_share(base, b, 0.0));
        let (n1, d1) = sums(&with_share(base, b, 1.0));
        Line {
            num: (n0, n1 - n0),
            den: (d0, d1 - d0),
        }
    }
}

/// Where, moving breakpoint `b`'s share from `from` towards `end`, the lower
/// platform first overtakes the upper one, as a bracket: at `.0` it does
/// not, at `.1` it does, and nowhere before `.0`. Between the roots of the
/// gap's numerator (a quadratic) and of either denominator the answer
/// cannot change, so a handful of tests find it; `refine` narrows it.
fn first_crossing(
    upper: &Line,
    lower: &Line,
    from: f64,
    end: f64,
    overtakes: impl Fn(f64) -> bool,
) -> Option<(f64, f64)> {
    // (N_l·D_u − N_u·D_l − OVERTAKE·D_l·D_u) as A x² + B x + C.
    let (nl, dl, nu, du) = (lower.num, lower.den, upper.num, upper.den);
    let a = nl.1 * du.1 - nu.1 * dl.1 - OVERTAKE * dl.1 * du.1;
    let b = nl.0 * du.1 + nl.1 * du.0
        - nu.0 * dl.1
        - nu.1 * dl.0
        - OVERTAKE * (dl.0 * du.1 + dl.1 * du.0);
    let c = nl.0 * du.0 - nu.0 * dl.0 - OVERTAKE * dl.0 * du.0;
    let mut points: Vec<f64> = roots(a, b, c);
    points.extend(roots(0.0, dl.1, dl.0));
    points.extend(roots(0.0, du.1, du.0));
    let (lo, hi) = if from <= end {
        (from, end)
    } else {
        (end, from)
    };
    points.retain(|x| *x > lo && *x < hi);
    points.push(end);
    points.sort_by(|p, q| (p - from).abs().total_cmp(&(q - from).abs()));
    let mut previous = from;
    for point in points {
        let mid = (previous + point) / 2.0;
        let found = if overtakes(mid) {
            Some(mid)
        } else if overtakes(point) {
            // The crossing is mostly at the root itself: a bracket a
            // billionth as wide just before it saves `refine` thirty steps.
            let near = point + (mid - point) * 1e-9;
            previous = if overtakes(near) { mid } else { near };
            Some(point)
        } else {
            None
        };
        if let Some(yes) = found {
            return Some((previous, yes));
        }
        previous = point;
    }
    None
}

/// The edge of a bracket from `first_crossing`, by bisection: `no` does
/// not overtake, `yes` does.
fn refine((mut no, mut yes): (f64, f64), overtakes: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..60 {
        let m = (no + yes) / 2.0;
        // Neighbouring numbers: no step would change either end.
        if m == no || m == yes {
            break;
        }
        if overtakes(m) { yes = m } else { no = m }
    }
    yes
}

/// The real roots of a x² + b x + c (of b x + c when a is nil).
fn roots(a: f64, b: f64, c: f64) -> Vec<f64> {
    let scale = a.abs().max(b.abs()).max(c.abs());
    if scale == 0.0 || !scale.is_finite() {
        return Vec::new();
    }
    if a.abs() <= scale * 1e-12 {
        return if b != 0.0 { vec![-c / b] } else { Vec::new() };
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return Vec::new();
    }
    // The numerically stable pair: no cancellation between b and the root.
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let mut out = vec![q / a];
    if q != 0.0 {
        out.push(c / q);
    }
    out
}

/// The nearest single-breakpoint weight change that lets `lower` (a name
/// and its breakpoint scores) overtake `upper`.
pub(super) fn nearest_flip(
    upper: (&str, &[Option<f64>; 4]),
    lower: (&str, &[Option<f64>; 4]),
    base: &[f64; 4],
) -> Option<Flip> {
    let ((upper_name, upper_scores), (lower_name, lower_scores)) = (upper, lower);
    // Each candidate is judged as the ranking would judge it, from the
    // weights themselves: the lines only say where to look (near a share
    // that leaves a platform nothing measured, their quotient is all
    // rounding). A platform left with no score is unranked, not overtaken.
    let overtakes = |b: usize, x: f64| {
        let w = with_share(base, b, x);
        match (overall(upper_scores, &w), overall(lower_scores, &w)) {
            (Some(u), Some(l)) => l - u > OVERTAKE,
            _ => false,
        }
    };
    // Every breakpoint, towards either end: a bracket each where the lower
    // platform catches up.
    let mut brackets: Vec<(usize, (f64, f64))> = Vec::new();
    for b in 0..4 {
        let (u, l) = (
            Line::of(upper_scores, base, b),
            Line::of(lower_scores, base, b),
        );
        for end in [1.0, 0.0] {
            if let Some(bracket) = first_crossing(&u, &l, base[b], end, |x| overtakes(b, x)) {
                brackets.push((b, bracket));
            }
        }
    }
    // A crossing lies beyond its bracket's near end, so brackets are
    // refined nearest first, and only while one could still be nearer than
    // the nearest crossing found; equal distances go to the first bracket.
    let near = |(b, (no, _)): &(usize, (f64, f64))| (no - base[*b]).abs();
    let mut order: Vec<usize> = (0..brackets.len()).collect();
    order.sort_by(|i, j| near(&brackets[*i]).total_cmp(&near(&brackets[*j])));
    let mut best: Option<(f64, usize, usize, f64)> = None;
    for i in order {
        let (b, bracket) = brackets[i];
        if best.is_some_and(|(d, ..)| near(&brackets[i]) >= d) {
            break;
        }
        let to = refine(bracket, |x| overtakes(b, x));
        let d = (to - base[b]).abs();
        if best.is_none_or(|(bd, bi, ..)| d < bd || (d == bd && i < bi)) {
            best = Some((d, i, b, to));
        }
    }
    best.map(|(_, _, b, to)| Flip {
        upper: upper_name.to_string(),
        lower: lower_name.to_string(),
        breakpoint: Breakpoint::ALL[b],
        from_share: base[b],
        to_share: to,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refining_stops_at_neighbouring_numbers_on_the_edge() {
        let edge = 0.3f64;
        let overtakes = |x: f64| x > edge;
        assert_eq!(refine((0.0, 1.0), overtakes), edge.next_up());
        // From a bracket a billionth as wide, the same edge.
        assert_eq!(
            refine((edge - 1e-10, edge + 1e-10), overtakes),
            edge.next_up()
        );
        // Backwards (moving a share down): the edge from the other side.
        assert_eq!(refine((1.0, 0.0), |x: f64| x < edge), edge.next_down());
    }
}
