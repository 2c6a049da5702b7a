//! A series reduced to the columns it is drawn in: per column the first,
//! smallest, largest and last value (the M4 reduction). A line drawn
//! through those four points per pixel column covers the same pixels as
//! one drawn through every sample, so a 1.4 M-sample run draws from a few
//! thousand numbers, and no spike or dip is lost (an average would hide
//! both). The cost grows with the samples read once and the pixels drawn,
//! and each piece of a series can be reduced on its own and merged.

use std::ops::Range;

use serde::Serialize;

/// A time range cut into equal columns, one per pixel of the drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Columns {
    /// First millisecond of the range.
    pub start_ms: i64,
    /// First millisecond after it.
    pub end_ms: i64,
    pub count: usize,
}

impl Columns {
    /// `range` in `count` columns (at least one; an empty range is widened
    /// to one millisecond).
    pub fn new(range: Range<i64>, count: usize) -> Self {
        Self {
            start_ms: range.start,
            end_ms: range.end.max(range.start.saturating_add(1)),
            count: count.max(1),
        }
    }

    pub fn range(&self) -> Range<i64> {
        self.start_ms..self.end_ms
    }

    /// The column of time `t`, `None` outside the range.
    pub fn of(&self, t: i64) -> Option<usize> {
        if !self.range().contains(&t) {
            return None;
        }
        let span = i128::from(self.end_ms - self.start_ms);
        let c = i128::from(t - self.start_ms) * self.count as i128 / span;
        Some((c as usize).min(self.count - 1))
    }

    /// Where column `c` starts: the first millisecond that [`Columns::of`]
    /// puts in it (`c == count` gives the range's end).
    pub fn start_of(&self, c: usize) -> i64 {
        let span = i128::from(self.end_ms - self.start_ms);
        let n = self.count as i128;
        // The ceiling of span·c/n, so that start_of and of agree.
        self.start_ms + ((span * c.min(self.count) as i128 + n - 1) / n) as i64
    }

    /// The samples of sorted times `t` column by column: `each(column,
    /// indices)` for every column that has at least one, in time order;
    /// times outside the range are passed over. One binary search per
    /// column, not one division per sample.
    pub fn split(&self, t: &[i64], mut each: impl FnMut(usize, Range<usize>)) {
        let mut i = t.partition_point(|x| *x < self.start_ms);
        let end = t.partition_point(|x| *x < self.end_ms);
        while i < end {
            let Some(c) = self.of(t[i]) else { break };
            let next = self.start_of(c + 1);
            let to = i + t[i..end].partition_point(|x| *x < next);
            each(c, i..to);
            i = to;
        }
    }
}

/// One column of one series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub first: i64,
    pub min: i64,
    pub max: i64,
    pub last: i64,
}

impl Cell {
    /// The cell of the present values among `values` (`present[i]` false
    /// for an absent one; `None` when all are present), `None` when no
    /// value is present.
    pub fn of(values: &[i64], present: Option<&[bool]>) -> Option<Cell> {
        let mut cell: Option<Cell> = None;
        for (i, &v) in values.iter().enumerate() {
            if present.is_some_and(|p| !p[i]) {
                continue;
            }
            cell = Some(match cell {
                None => Cell {
                    first: v,
                    min: v,
                    max: v,
                    last: v,
                },
                Some(c) => Cell {
                    first: c.first,
                    min: c.min.min(v),
                    max: c.max.max(v),
                    last: v,
                },
            });
        }
        cell
    }

    /// This cell followed in time by `later`.
    pub fn then(self, later: Cell) -> Cell {
        Cell {
            first: self.first,
            min: self.min.min(later.min),
            max: self.max.max(later.max),
            last: later.last,
        }
    }
}

/// A series over [`Columns`]: a cell per column, `None` where it has no
/// sample (a gap stays a gap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Envelope {
    pub cells: Vec<Option<Cell>>,
}

impl Envelope {
    pub fn new(columns: &Columns) -> Self {
        Self {
            cells: vec![None; columns.count],
        }
    }

    /// Adds a cell to column `c`, after what the column already holds.
    pub fn add(&mut self, c: usize, cell: Cell) {
        if let Some(slot) = self.cells.get_mut(c) {
            *slot = Some(match *slot {
                Some(earlier) => earlier.then(cell),
                None => cell,
            });
        }
    }

    /// Reduces a piece of a series (times sorted, values alongside) into
    /// the envelope; pieces are added in time order.
    pub fn add_piece(
        &mut self,
        columns: &Columns,
        t: &[i64],
        values: &[i64],
        present: Option<&[bool]>,
    ) {
        columns.split(t, |c, at| {
            if let Some(cell) = Cell::of(&values[at.clone()], present.map(|p| &p[at])) {
                self.add(c, cell);
            }
        });
    }

    /// The smallest and largest value over all columns.
    pub fn extent(&self) -> Option<(i64, i64)> {
        self.cells.iter().flatten().fold(None, |acc, c| {
            Some(match acc {
                None => (c.min, c.max),
                Some((lo, hi)) => (lo.min(c.min), hi.max(c.max)),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_time_falls_in_one_column_and_the_columns_tile_the_range() {
        let columns = Columns::new(1_000..2_000, 7);
        assert_eq!(columns.of(999), None);
        assert_eq!(columns.of(1_000), Some(0));
        assert_eq!(columns.of(1_999), Some(6));
        assert_eq!(columns.of(2_000), None);
        for c in 0..7 {
            let (from, to) = (columns.start_of(c), columns.start_of(c + 1));
            assert!(from < to);
            assert_eq!(columns.of(from), Some(c));
            assert_eq!(columns.of(to - 1), Some(c));
        }
        assert_eq!(columns.start_of(7), 2_000);
        // More columns than milliseconds: every sample still lands once.
        let fine = Columns::new(0..3, 10);
        let mut seen = Vec::new();
        fine.split(&[0, 1, 2], |c, at| seen.push((c, at)));
        assert_eq!(seen.iter().map(|(_, at)| at.len()).sum::<usize>(), 3);
    }

    #[test]
    fn extremes_survive_and_gaps_stay_gaps() {
        let t: Vec<i64> = (0..1_000_000).collect();
        let values: Vec<i64> = (0..1_000_000)
            .map(|i| match i {
                123_457 => 900,
                654_321 => -50,
                _ => i % 7,
            })
            .collect();
        let present: Vec<bool> = (0..1_000_000)
            .map(|i| !(400_000..=500_000).contains(&i))
            .collect();
        let columns = Columns::new(0..1_000_000, 1000);
        // Fed in three pieces, as chunks come from the store.
        let mut envelope = Envelope::new(&columns);
        for piece in [0..250_000, 250_000..700_001, 700_001..1_000_000] {
            envelope.add_piece(
                &columns,
                &t[piece.clone()],
                &values[piece.clone()],
                Some(&present[piece]),
            );
        }
        assert_eq!(envelope.extent(), Some((-50, 900)));
        let filled = envelope.cells.iter().flatten().count();
        assert_eq!(filled, 900, "the hole has no columns, its edges do");
        // Pieces merge into what one pass gives.
        let mut whole = Envelope::new(&columns);
        whole.add_piece(&columns, &t, &values, Some(&present));
        assert_eq!(whole, envelope);
        // First and last are the first and last present values in time.
        assert_eq!(
            envelope.cells[0].map(|c| (c.first, c.last)),
            Some((0, 999 % 7))
        );
        assert_eq!(envelope.cells[400], None);
        assert_eq!(envelope.cells[500].map(|c| c.first), Some(500_001 % 7));
    }

    proptest::proptest! {
        /// Reduced piece by piece, any series gives the cells that looking
        /// at every sample with `of` gives.
        #[test]
        fn the_reduction_is_what_every_sample_says(
            steps in proptest::collection::vec((1i64..5_000, -1_000i64..1_000, 0u8..4), 1..400),
            count in 1usize..300,
            cut in 0usize..400,
            from in 0i64..50_000,
            width in 1i64..800_000,
        ) {
            let mut t = Vec::new();
            let mut values = Vec::new();
            let mut present = Vec::new();
            let mut now = 0;
            for (step, v, p) in steps {
                now += step;
                t.push(now);
                values.push(v);
                present.push(p != 0);
            }
            let columns = Columns::new(from..from + width, count);
            let cut = cut.min(t.len());
            let mut envelope = Envelope::new(&columns);
            envelope.add_piece(&columns, &t[..cut], &values[..cut], Some(&present[..cut]));
            envelope.add_piece(&columns, &t[cut..], &values[cut..], Some(&present[cut..]));
            let mut expected: Vec<Option<Cell>> = vec![None; columns.count];
            for i in (0..t.len()).filter(|i| present[*i]) {
                if let Some(c) = columns.of(t[i]) {
                    let v = values[i];
                    let one = Cell { first: v, min: v, max: v, last: v };
                    expected[c] = Some(expected[c].map_or(one, |e| e.then(one)));
                }
            }
            proptest::prop_assert_eq!(envelope.cells, expected);
        }
    }
}
