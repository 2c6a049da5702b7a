//! A provisional answer from partial evidence: which platform leads on
//! what was measured, the probability that each is the best once the
//! missing metrics are known, and, for each measurement a buyer could make
//! next, the probability that it changes the lead.
//!
//! Each draw takes the breakpoint weights from the Dirichlet draws the
//! robustness uses (the same seed: the same weights), and every metric a
//! platform has not measured a score drawn from its prior: uniformly over
//! 0–100, its value anywhere between the anchors that score 100 and 0
//! (docs/metrics.md, docs/decision.md); a metric measured by runs whose scores lie far apart
//! ([`WIDE_SPREAD`]), a score drawn between theirs — the evidence says
//! both. A platform is best in a draw where its overall score over every
//! metric — measured, or drawn — is the highest. A measurement changes the
//! lead in a draw where settling only its metrics (at the draw's values)
//! makes another platform lead on what is then known.

use rand::rngs::{SmallRng, StdRng};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};

use super::Ranking;

/// A measured metric whose runs' scores lie this far apart (of 100) is
/// still in doubt: measuring it again could settle it anywhere between.
pub const WIDE_SPREAD: f64 = 30.0;

/// Every platform's metric scores, by slot (a metric of weight above zero,
/// in catalogue order), measured or not.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub platforms: Vec<String>,
    /// `[platform][slot]`: the score, where measured.
    pub scores: Vec<Vec<Option<f64>>>,
    /// `[platform][slot]`: the lowest and highest of its runs' scores,
    /// where measured by runs at least [`WIDE_SPREAD`] apart.
    pub spread: Vec<Vec<Option<(f64, f64)>>>,
    /// Each slot's breakpoint (0–3) and weight within it.
    pub slots: Vec<(usize, f64)>,
    /// The profile's breakpoint weights, shares of 1.
    pub weights: [f64; 4],
}

impl Board {
    /// The board of a ranking: every platform, ranked or not.
    pub fn of(ranking: &Ranking) -> Board {
        let Some(first) = ranking.platforms.first() else {
            return Board {
                platforms: Vec::new(),
                scores: Vec::new(),
                spread: Vec::new(),
                slots: Vec::new(),
                weights: ranking.weights,
            };
        };
        let mut slots = Vec::new();
        for (b, bp) in first.breakpoints.iter().enumerate() {
            for m in &bp.metrics {
                if m.weight > 0.0 {
                    slots.push((b, m.weight));
                }
            }
        }
        let scores = ranking
            .platforms
            .iter()
            .map(|p| {
                p.breakpoints
                    .iter()
                    .flat_map(|bp| bp.metrics.iter().filter(|m| m.weight > 0.0))
                    .map(|m| m.score)
                    .collect()
            })
            .collect();
        let spread = ranking
            .platforms
            .iter()
            .map(|p| {
                p.breakpoints
                    .iter()
                    .flat_map(|bp| bp.metrics.iter().filter(|m| m.weight > 0.0))
                    .map(|m| {
                        let (lo, hi) = m.score_range?;
                        let (lo, hi) = (lo.min(hi), lo.max(hi));
                        (m.score.is_some() && hi - lo >= WIDE_SPREAD).then_some((lo, hi))
                    })
                    .collect()
            })
            .collect();
        Board {
            platforms: ranking
                .platforms
                .iter()
                .map(|p| p.platform.name.clone())
                .collect(),
            scores,
            spread,
            slots,
            weights: ranking.weights,
        }
    }

    /// Where `[platform][slot]`'s score is still in doubt: the range a
    /// draw spans (all of 0–100 where unmeasured).
    pub fn doubt(&self, p: usize, s: usize) -> Option<(f64, f64)> {
        match self.scores.get(p)?.get(s)? {
            None => Some((0.0, 100.0)),
            Some(_) => *self.spread.get(p)?.get(s)?,
        }
    }

    /// The slot of the metric `key` in a ranking's catalogue order, where
    /// it weighs.
    pub fn slot_of(ranking: &Ranking, key: &str) -> Option<usize> {
        let first = ranking.platforms.first()?;
        first
            .breakpoints
            .iter()
            .flat_map(|bp| bp.metrics.iter().filter(|m| m.weight > 0.0))
            .position(|m| m.key == key)
    }
}

/// A measurement: the (platform, slot) pairs it would fill.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub fills: Vec<(usize, usize)>,
}

/// What the draws say.
#[derive(Debug, Clone, PartialEq)]
pub struct Outlook {
    /// P(best) per platform, in the board's order; sums to 1 where any
    /// platform could be scored.
    pub p_best: Vec<f64>,
    /// Per candidate, the share of draws in which it changes the lead.
    pub p_change: Vec<f64>,
    /// The likeliest best, where any platform can be.
    pub leaning: Option<usize>,
    pub draws: usize,
}

/// One platform's expected scores: by breakpoint, the weighted sum and
/// weight of every slot at its expected score (measured, the runs' score;
/// unmeasured, the middle of its range), and the slots in doubt; a draw
/// settles in the sums only the slots it fills.
struct Known {
    num: [f64; 4],
    den: [f64; 4],
    /// Each slot's expected score.
    point: Vec<f64>,
    /// The slots in doubt, with the range a draw spans.
    doubt: Vec<(usize, f64, f64)>,
}

impl Known {
    fn of(board: &Board, p: usize) -> Known {
        let (mut num, mut den) = ([0.0; 4], [0.0; 4]);
        let (mut point, mut doubt) = (Vec::new(), Vec::new());
        for (s, (b, weight)) in board.slots.iter().enumerate() {
            let range = board.doubt(p, s);
            let expected = match (board.scores[p][s], range) {
                (Some(v), _) => v,
                (None, Some((lo, hi))) => (lo + hi) / 2.0,
                (None, None) => 50.0,
            };
            num[*b] += weight * expected;
            den[*b] += weight;
            point.push(expected);
            if let Some((lo, hi)) = range {
                doubt.push((s, lo, hi));
            }
        }
        Known {
            num,
            den,
            point,
            doubt,
        }
    }

    /// The overall score under `w` with the slots `settled` at
    /// `drawn[slot]` and every other at its expected score.
    fn overall(
        &self,
        board: &Board,
        w: &[f64; 4],
        drawn: &[f64],
        settled: &mut dyn Iterator<Item = usize>,
    ) -> f64 {
        let mut num = self.num;
        for s in settled {
            let (b, weight) = board.slots[s];
            num[b] += weight * (drawn[s] - self.point[s]);
        }
        let (mut total, mut weights) = (0.0, 0.0);
        for b in 0..4 {
            if self.den[b] > 0.0 {
                total += w[b] * num[b] / self.den[b];
                weights += w[b];
            }
        }
        if weights > 0.0 { total / weights } else { 0.0 }
    }
}

/// The draws, in a fixed order from a seed: breakpoint weights as the
/// robustness draws them (same generator, seed and order), and every slot
/// in doubt from a stream of its own.
struct Draws<'a> {
    known: &'a [Known],
    gammas: Vec<Option<Gamma<f64>>>,
    weights_rng: StdRng,
    /// A small generator: thousands of draws of every platform's every
    /// doubtful metric, each time the ranking is asked for.
    values_rng: SmallRng,
}

impl<'a> Draws<'a> {
    fn new(board: &Board, known: &'a [Known], seed: u64, concentration: f64) -> Draws<'a> {
        Draws {
            known,
            gammas: board
                .weights
                .iter()
                .map(|w| {
                    (*w > 0.0)
                        .then(|| Gamma::new(concentration.max(1e-3) * w, 1.0).ok())
                        .flatten()
                })
                .collect(),
            weights_rng: StdRng::seed_from_u64(seed),
            values_rng: SmallRng::seed_from_u64(seed ^ 0x5EED_0FD0_A1B5),
        }
    }

    /// The next draw's weights, with `drawn[platform][slot]` filled in for
    /// every slot in doubt; none where the weights drawn are all zero.
    fn next(&mut self, drawn: &mut [Vec<f64>]) -> Option<[f64; 4]> {
        let mut w = [0.0; 4];
        for (x, g) in w.iter_mut().zip(&self.gammas) {
            if let Some(g) = g {
                *x = g.sample(&mut self.weights_rng);
            }
        }
        let total: f64 = w.iter().sum();
        if total <= 0.0 {
            return None;
        }
        for (p, k) in self.known.iter().enumerate() {
            for &(s, lo, hi) in &k.doubt {
                drawn[p][s] = lo + self.values_rng.random::<f64>() * (hi - lo);
            }
        }
        Some(w.map(|x| x / total))
    }
}

/// The outlook of `board` over `draws` seeded draws (weights Dirichlet of
/// `concentration`, as the robustness draws them).
///
/// P(best) counts the draws in which each platform's overall score, every
/// slot in doubt settled, is the highest. The answer leans to the likeliest
/// best; a candidate changes it in a draw where settling only the
/// candidate's slots (the rest at their expected scores) puts another
/// platform ahead of where the same draw's weights put it before.
pub fn outlook(
    board: &Board,
    candidates: &[Candidate],
    draws: usize,
    seed: u64,
    concentration: f64,
) -> Outlook {
    let n = board.platforms.len();
    let known: Vec<Known> = (0..n).map(|p| Known::of(board, p)).collect();
    let mut p_best = vec![0.0; n];
    let mut p_change = vec![0.0; candidates.len()];
    if n == 0 || draws == 0 {
        return Outlook {
            p_best,
            p_change,
            leaning: None,
            draws: 0,
        };
    }
    // Each candidate's slots in doubt, by platform.
    let fills: Vec<Vec<(usize, Vec<usize>)>> = candidates
        .iter()
        .map(|c| {
            let mut by: Vec<(usize, Vec<usize>)> = Vec::new();
            for &(p, s) in &c.fills {
                if board.doubt(p, s).is_none() {
                    continue;
                }
                match by.iter_mut().find(|(q, _)| *q == p) {
                    Some((_, slots)) if !slots.contains(&s) => slots.push(s),
                    Some(_) => {}
                    None => by.push((p, vec![s])),
                }
            }
            by
        })
        .collect();
    let mut drawn = vec![vec![0.0; board.slots.len()]; n];
    let mut overall = vec![0.0; n];
    // First pass: who is best once everything is settled.
    let mut sampler = Draws::new(board, &known, seed, concentration);
    let mut taken = 0usize;
    for _ in 0..draws {
        let Some(w) = sampler.next(&mut drawn) else {
            continue;
        };
        taken += 1;
        for (p, k) in known.iter().enumerate() {
            overall[p] = k.overall(board, &w, &drawn[p], &mut k.doubt.iter().map(|d| d.0));
        }
        p_best[leader(&overall, None)] += 1.0;
    }
    let total = taken.max(1) as f64;
    for p in &mut p_best {
        *p /= total;
    }
    let leaning = leader(&p_best, None);
    // Second pass, over the same draws: what each candidate would change.
    if !candidates.is_empty() {
        // Which platforms each candidate touches.
        let masks: Vec<Vec<bool>> = fills
            .iter()
            .map(|by| {
                let mut mask = vec![false; n];
                for (p, _) in by {
                    mask[*p] = true;
                }
                mask
            })
            .collect();
        let mut sampler = Draws::new(board, &known, seed, concentration);
        for _ in 0..draws {
            let Some(w) = sampler.next(&mut drawn) else {
                continue;
            };
            for (p, k) in known.iter().enumerate() {
                overall[p] = k.overall(board, &w, &drawn[p], &mut std::iter::empty());
            }
            let before = leader(&overall, Some(leaning));
            // The two best rivals of the platform ahead: a candidate that
            // touches neither is judged against them alone, so a step on
            // one platform costs as much as that platform, not the field.
            let (mut first, mut second): (Option<usize>, Option<usize>) = (None, None);
            for (q, v) in overall.iter().enumerate() {
                if q == before {
                    continue;
                }
                if first.is_none_or(|f| *v > overall[f]) {
                    second = first;
                    first = Some(q);
                } else if second.is_none_or(|s| *v > overall[s]) {
                    second = Some(q);
                }
            }
            for (c, by) in fills.iter().enumerate() {
                if by.is_empty() {
                    continue;
                }
                let touched = &masks[c];
                let (mut ahead, mut rival) = (overall[before], f64::NEG_INFINITY);
                for (p, slots) in by {
                    let v = known[*p].overall(board, &w, &drawn[*p], &mut slots.iter().copied());
                    if *p == before {
                        ahead = v;
                    } else {
                        rival = rival.max(v);
                    }
                }
                match [first, second].into_iter().flatten().find(|q| !touched[*q]) {
                    Some(q) => rival = rival.max(overall[q]),
                    // Both best rivals touched: every untouched one counts.
                    None => {
                        for (q, v) in overall.iter().enumerate() {
                            if q != before && !touched[q] {
                                rival = rival.max(*v);
                            }
                        }
                    }
                }
                // As `leader` breaks ties: towards the platform ahead.
                if rival > ahead + TIE {
                    p_change[c] += 1.0;
                }
            }
        }
        for p in &mut p_change {
            *p /= total;
        }
    }
    let leaning = (p_best[leaning] > 0.0).then_some(leaning);
    Outlook {
        p_best,
        p_change,
        leaning,
        draws: taken,
    }
}

/// What a plan orders a step by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepTerms {
    /// Configuration (free, in the workspace) rather than a measurement.
    pub configuration: bool,
    /// Its chance of changing the lead.
    pub p_change: f64,
    /// What it costs, where known.
    pub cost: Option<f64>,
    /// Its metrics' share of the overall score.
    pub weight: f64,
}

/// The plan's order: configuration first, the likeliest to change the lead
/// first; then measurements by their chance of changing the lead per unit
/// of cost — a free one that could change it before any that costs, one
/// of unknown cost after every priced one — ties by that chance, then by
/// weight.
pub fn precedence(a: &StepTerms, b: &StepTerms) -> std::cmp::Ordering {
    let per_cost = |s: &StepTerms| -> f64 {
        match s.cost {
            Some(c) if c <= 0.0 && s.p_change > 0.0 => f64::INFINITY,
            Some(c) if c <= 0.0 => 0.0,
            Some(c) => s.p_change / c,
            None => f64::NEG_INFINITY,
        }
    };
    a.configuration
        .cmp(&b.configuration)
        .reverse()
        .then_with(|| {
            if a.configuration {
                std::cmp::Ordering::Equal
            } else {
                per_cost(b).total_cmp(&per_cost(a))
            }
        })
        .then(b.p_change.total_cmp(&a.p_change))
        .then(b.weight.total_cmp(&a.weight))
}

/// Scores this close are a tie.
const TIE: f64 = 1e-9;

/// The platform with the highest score; on a tie, `incumbent` where it is
/// among the highest, else the first.
fn leader(scores: &[f64], incumbent: Option<usize>) -> usize {
    let mut best = 0;
    for (i, v) in scores.iter().enumerate() {
        if *v > scores[best] {
            best = i;
        }
    }
    match incumbent {
        Some(i) if scores.get(i).is_some_and(|v| scores[best] - v <= TIE) => i,
        _ => best,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Two breakpoints of two metrics each, weighed equally.
    fn board(scores: Vec<Vec<Option<f64>>>) -> Board {
        Board {
            platforms: (0..scores.len()).map(|i| format!("P{i}")).collect(),
            spread: scores.iter().map(|r| vec![None; r.len()]).collect(),
            scores,
            slots: vec![(0, 1.0), (0, 1.0), (1, 1.0), (1, 1.0)],
            weights: [0.5, 0.5, 0.0, 0.0],
        }
    }

    #[test]
    fn a_lead_on_thin_evidence_is_a_probability_not_a_verdict() {
        // P0 measured everywhere and good; P1 measured on one metric, better
        // there; P2 measured nowhere.
        let b = board(vec![
            vec![Some(80.0), Some(80.0), Some(80.0), Some(80.0)],
            vec![Some(90.0), None, None, None],
            vec![None, None, None, None],
        ]);
        let fill_p1 = Candidate {
            fills: vec![(1, 1), (1, 2), (1, 3)],
        };
        let nothing_new = Candidate { fills: vec![] };
        let o = outlook(&b, &[fill_p1, nothing_new], 4000, 7, 30.0);
        assert_eq!(o.leaning, Some(0));
        let total: f64 = o.p_best.iter().sum();
        assert!((total - 1.0).abs() < 1e-9);
        // P1's missing metrics drawn over 0–100 rarely beat P0's 80s.
        assert!(o.p_best[0] > o.p_best[1], "{:?}", o.p_best);
        assert!(
            o.p_best[2] > 0.0 && o.p_best[2] < o.p_best[0],
            "{:?}",
            o.p_best
        );
        // P1's 90 could carry it past P0 only if its missing metrics all
        // turn out high: measuring them can change the lead, not often;
        // measuring nothing never changes anything.
        assert!(
            o.p_change[0] > 0.01 && o.p_change[0] < 0.3,
            "{:?}",
            o.p_change
        );
        assert_eq!(o.p_change[1], 0.0);
        // Seeded: the same answer again.
        let again = outlook(
            &b,
            &[Candidate {
                fills: vec![(1, 1), (1, 2), (1, 3)],
            }],
            4000,
            7,
            30.0,
        );
        assert_eq!(again.p_best, o.p_best);
    }

    #[test]
    fn the_plan_puts_configuration_first_then_chance_per_cost() {
        let step = |configuration, p_change, cost, weight| StepTerms {
            configuration,
            p_change,
            cost,
            weight,
        };
        let mut steps = [
            step(false, 0.30, None, 0.2),
            step(false, 0.20, Some(100.0), 0.1),
            step(false, 0.10, Some(10.0), 0.1),
            step(false, 0.00, Some(0.0), 0.3),
            step(true, 0.05, Some(0.0), 0.1),
            step(false, 0.04, Some(0.0), 0.1),
            step(true, 0.20, Some(0.0), 0.1),
        ];
        steps.sort_by(precedence);
        let order: Vec<(bool, f64)> = steps
            .iter()
            .map(|s| (s.configuration, s.p_change))
            .collect();
        assert_eq!(
            order,
            [
                (true, 0.20),
                (true, 0.05),
                // Free and able to change the lead.
                (false, 0.04),
                // 1 % per unit, then 0.2 %.
                (false, 0.10),
                (false, 0.20),
                // Free but unable to change anything.
                (false, 0.00),
                // Unknown cost: last, however likely.
                (false, 0.30),
            ]
        );
    }

    #[test]
    fn everything_measured_leaves_nothing_to_change() {
        let b = board(vec![
            vec![Some(90.0), Some(90.0), Some(90.0), Some(90.0)],
            vec![Some(40.0), Some(40.0), Some(40.0), Some(40.0)],
        ]);
        let o = outlook(&b, &[], 1000, 1, 30.0);
        assert_eq!(o.p_best, vec![1.0, 0.0]);
    }

    #[test]
    fn runs_far_apart_leave_doubt_that_measuring_again_settles() {
        // Both measured everywhere; P0 a little ahead, but its first
        // metric's runs scored 10 and 90.
        let mut b = board(vec![
            vec![Some(50.0), Some(70.0), Some(70.0), Some(70.0)],
            vec![Some(60.0), Some(60.0), Some(60.0), Some(60.0)],
        ]);
        let settled = outlook(&b, &[], 2000, 3, 30.0);
        assert_eq!(settled.p_best, vec![1.0, 0.0]);
        b.spread[0][0] = Some((10.0, 90.0));
        let again = Candidate {
            fills: vec![(0, 0)],
        };
        let elsewhere = Candidate {
            fills: vec![(1, 0)],
        };
        let o = outlook(&b, &[again, elsewhere], 2000, 3, 30.0);
        assert!(o.p_best[1] > 0.05 && o.p_best[0] > 0.5, "{:?}", o.p_best);
        assert!(o.p_change[0] > 0.05, "{:?}", o.p_change);
        assert_eq!(
            o.p_change[1], 0.0,
            "P1's settled metric has nothing to change"
        );
        assert_eq!(o.leaning, Some(0));
    }

    #[test]
    fn with_nothing_measured_each_is_a_coin_toss_and_so_is_each_measurement() {
        let b = board(vec![vec![None; 4], vec![None; 4]]);
        let all_of_p0 = Candidate {
            fills: (0..4).map(|s| (0, s)).collect(),
        };
        let o = outlook(&b, &[all_of_p0], 4000, 11, 30.0);
        assert!((o.p_best[0] - 0.5).abs() < 0.05, "{:?}", o.p_best);
        // Not "certain to change the lead": only where P0 comes out
        // above the middle, against an unmeasured rival.
        assert!((o.p_change[0] - 0.5).abs() < 0.05, "{:?}", o.p_change);
    }
}
