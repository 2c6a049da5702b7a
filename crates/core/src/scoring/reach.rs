//! Which contenders can take one of the first ranks under a set of weight
//! draws: those that do not trail enough others under every weight the
//! draws span. The rest need not be scored in any draw.

/// The contenders (by index, in ranking order) that can take one of the
/// first `kept` ranks in one of the draws. A contender measured at every
/// breakpoint is out of reach when `kept` contenders before it, also
/// measured everywhere, each score more than it in every draw: because
/// they score at least as much at every breakpoint (rounding is monotone,
/// so the computed sums do too, and a tie goes to the earlier one), or
/// because they lead it under every weights within the draws' range (a
/// margin far above rounding keeps that true of the computed sums). Of the
/// scale bench's thousand platforms 138 are left, and a few dozen for a
/// block of neighbouring draws, which is what makes ten thousand draws
/// cheap.
pub(super) fn contenders_in_reach(
    columns: &[Vec<f64>; 4],
    masks: &[usize],
    kept: usize,
    draws: &[[f64; 4]],
    among: impl ExactSizeIterator<Item = usize>,
) -> Vec<usize> {
    const EVERY_BREAKPOINT: usize = 0b1111;
    if among.len() <= kept {
        return among.collect();
    }
    let range = ShareRange::of(draws);
    let scores = |c: usize| -> [f64; 4] { std::array::from_fn(|b| columns[b][c]) };
    let leads_always = |t: &[f64; 4], s: &[f64; 4]| {
        (0..4).all(|b| t[b] >= s[b])
            || range
                .as_ref()
                .is_some_and(|r| r.least_lead(std::array::from_fn(|b| t[b] - s[b])) > SURE_LEAD)
    };
    // Only those in reach need be compared with: a contender below one out
    // of reach in every draw is below the `kept` above that one as well.
    let mut front: Vec<(usize, [f64; 4])> = Vec::new();
    let mut alive = Vec::with_capacity(among.len());
    for c in among {
        if masks[c] != EVERY_BREAKPOINT {
            alive.push(c);
            continue;
        }
        let s = scores(c);
        let led_by = front
            .iter()
            .filter(|(_, t)| leads_always(t, &s))
            .take(kept)
            .count();
        if led_by < kept {
            front.push((c, s));
            alive.push(c);
        }
    }
    alive
}

/// A lead (score points) that no rounding in an overall score can undo:
/// scores are at most 100 and weights shares of 1, so rounding moves an
/// overall score by about 1e-13.
const SURE_LEAD: f64 = 1e-9;

/// The range of each breakpoint's share over a set of draws: every draw
/// lies within it, and its shares sum to 1.
struct ShareRange {
    low: [f64; 4],
    high: [f64; 4],
}

impl ShareRange {
    fn of(draws: &[[f64; 4]]) -> Option<ShareRange> {
        let first = draws.first()?;
        let mut range = ShareRange {
            low: *first,
            high: *first,
        };
        for w in draws {
            for ((low, high), x) in range.low.iter_mut().zip(&mut range.high).zip(w) {
                *low = low.min(*x);
                *high = high.max(*x);
            }
        }
        Some(range)
    }

    /// The least of `w · gap` over the shares `w` within the range that
    /// sum to 1 (a bound below that of any draw): each share at its low,
    /// what is left of 1 going to the smallest gaps first.
    fn least_lead(&self, gap: [f64; 4]) -> f64 {
        let mut order = [0, 1, 2, 3];
        order.sort_unstable_by(|a, b| gap[*a].total_cmp(&gap[*b]));
        let mut lead: f64 = (0..4).map(|b| self.low[b] * gap[b]).sum();
        let mut left = (1.0 - self.low.iter().sum::<f64>()).max(0.0);
        for b in order {
            let more = (self.high[b] - self.low[b]).min(left);
            lead += more * gap[b];
            left -= more;
        }
        lead
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::scoring::tests::any_draws;

    proptest! {
        /// No draw within the range puts a gap's weighted sum below the
        /// range's least lead, and the least lead is reached by shares
        /// within the range that sum to 1.
        #[test]
        fn the_least_lead_bounds_every_draw(
            draws in any_draws(),
            gap in proptest::array::uniform4(-100.0f64..100.0),
        ) {
            // Every drawn weight may be zero: then there is no draw to bound.
            prop_assume!(!draws.is_empty());
            let range = ShareRange::of(&draws).unwrap();
            let least = range.least_lead(gap);
            for w in &draws {
                let lead: f64 = (0..4).map(|b| w[b] * gap[b]).sum();
                prop_assert!(least <= lead + 1e-9, "{least} above {lead} at {w:?}");
            }
        }
    }

    #[test]
    fn a_contender_behind_under_every_drawn_weight_is_left_out() {
        // The third beats the first two at billing alone, by less than
        // they lead it elsewhere; with billing's share never above a
        // quarter in the draws it is behind both in every one, though
        // neither is ahead of it at every breakpoint.
        let columns = [
            vec![90.0, 80.0, 60.0],
            vec![90.0, 85.0, 60.0],
            vec![90.0, 80.0, 60.0],
            vec![40.0, 50.0, 60.0],
        ];
        let masks = [0b1111; 3];
        let draws = [[0.3, 0.3, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25]];
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &[], 0..masks.len()),
            vec![0, 1, 2]
        );
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &draws, 0..masks.len()),
            vec![0, 1]
        );
        // Where billing may take almost all the weight, it stays in reach.
        let wide = [[0.3, 0.3, 0.2, 0.2], [0.01, 0.01, 0.01, 0.97]];
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &wide, 0..masks.len()),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn a_contender_below_enough_others_everywhere_is_left_out() {
        // Three contenders measured everywhere, the last below both others
        // at every breakpoint; one more measured at startup alone.
        let columns = [
            vec![90.0, 80.0, 70.0, 10.0],
            vec![90.0, 85.0, 60.0, 0.0],
            vec![50.0, 60.0, 40.0, 0.0],
            vec![50.0, 40.0, 40.0, 0.0],
        ];
        let masks = [0b1111, 0b1111, 0b1111, 0b0001];
        assert_eq!(
            contenders_in_reach(&columns, &masks, 2, &[], 0..masks.len()),
            vec![0, 1, 3]
        );
        assert_eq!(
            contenders_in_reach(&columns, &masks, 3, &[], 0..masks.len()),
            vec![0, 1, 2, 3]
        );
    }
}
