//! One GPU's samples as the writer gathers them for a chunk, column by
//! column (`ChunkColumns`), before `encode_columns` packs them.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::super::{FIELD_COUNT, Field, Sample};

/// Values in a cache line.
const LINE: usize = 8;

/// The times and the columns of a dozen fields: what nvidia-smi's usual
/// queries and the probe write.
const COMMON_COLUMNS: usize = 13;

/// Lines in the sets of a level-1 data cache (32 KiB, 8 ways): where a
/// column begins is chosen among as many.
const SETS: usize = 64;

/// One GPU's samples as a chunk holds them, column by column: what the
/// store's writer fills as samples arrive, so that a sample is never
/// copied whole (184 bytes, most of them fields the log does not have) and
/// encoding reads each column in one sequential pass.
///
/// The times and the fields' columns share one allocation, each column a
/// cache line further along the cache's sets than the one before, and each
/// chunk's first column at a set of its own. Separate vectors of 4096
/// values each began on a page boundary: the same sample's place in every
/// column of every GPU's chunk fell in the same set, ninety lines written
/// in turn into eight ways, and nearly every value written missed the
/// cache (two thirds of the writer's time in `push`).
#[derive(Debug, Clone)]
pub struct ChunkColumns {
    len: usize,
    /// Values each column has room for.
    room: usize,
    /// The times, then each field's column (in the order fields were first
    /// seen), `room + LINE` values apart from `first` on.
    arena: Vec<i64>,
    first: usize,
    /// Where each seen field's column begins in `arena`.
    starts: [usize; FIELD_COUNT],
    /// Columns placed, the times included.
    placed: usize,
    /// Each sample's present fields, kept only once two samples differ in
    /// them (`mixed`): until then every sample reported exactly `seen`.
    present: Vec<u32>,
    mixed: bool,
    /// Fields any sample reported, and fields every sample reported.
    seen: u32,
    every: u32,
}

impl Default for ChunkColumns {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl ChunkColumns {
    pub fn with_capacity(n: usize) -> Self {
        // Chunks made one after another begin eleven lines apart: the
        // columns of a chunk of ten fields and its times.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let first = NEXT.fetch_add(1, Ordering::Relaxed) * 11 % SETS * LINE;
        let room = n.next_multiple_of(LINE);
        // Room for the columns a log commonly has, so that they are placed
        // without moving those before them.
        let mut arena = Vec::with_capacity(first + COMMON_COLUMNS * (room + LINE));
        arena.resize(first + room, 0);
        Self {
            len: 0,
            room,
            arena,
            first,
            starts: [0; FIELD_COUNT],
            placed: 1,
            present: Vec::new(),
            mixed: false,
            seen: 0,
            every: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn stride(&self) -> usize {
        self.room + LINE
    }

    pub fn times(&self) -> &[i64] {
        &self.arena[self.first..self.first + self.len]
    }

    /// The fields every sample reported.
    pub(super) fn every(&self) -> u32 {
        self.every
    }

    /// Each sample's value of a field some sample reported (zero where it
    /// did not): `None` for a field none reported.
    pub(super) fn column(&self, field: Field) -> Option<&[i64]> {
        let id = usize::from(field.id());
        (self.seen & (1 << id) != 0).then(|| {
            let start = self.starts[id];
            &self.arena[start..start + self.len]
        })
    }

    /// Sample `i`'s present fields.
    #[inline]
    pub(super) fn present(&self, i: usize) -> u32 {
        if self.mixed {
            self.present[i]
        } else {
            self.seen
        }
    }

    /// Every sample's value of `field`, where every sample reported it.
    #[inline]
    pub fn complete(&self, field: Field) -> Option<&[i64]> {
        let id = usize::from(field.id());
        if self.is_empty() || self.every & (1 << id) == 0 {
            return None;
        }
        self.column(field)
    }

    /// Sample `i`'s value of `field`, if it reported one.
    #[inline]
    pub fn value(&self, field: Field, i: usize) -> Option<i64> {
        let id = usize::from(field.id());
        if i >= self.len || self.present(i) & (1 << id) == 0 {
            return None;
        }
        Some(self.arena[self.starts[id] + i])
    }

    /// Empty, keeping the memory (and the place of the columns) for the
    /// next chunk.
    pub fn clear(&mut self) {
        self.len = 0;
        self.placed = 1;
        self.present.clear();
        self.mixed = false;
        self.seen = 0;
        self.every = 0;
    }

    #[inline]
    pub fn push(&mut self, sample: &Sample) {
        let mask = sample.present_mask();
        let n = self.len;
        if n == self.room {
            self.grow();
        }
        if mask != self.seen || self.mixed {
            self.differs(mask, n);
        }
        self.every = if n == 0 { mask } else { self.every & mask };
        let raw = sample.raw_values();
        self.arena[self.first + n] = sample.t_ms;
        // The columns of fields seen before and not reported now were
        // given a zero by `differs`.
        for field in bits(mask) {
            self.arena[self.starts[field] + n] = raw[field];
        }
        self.len = n + 1;
    }

    /// Sample `n` reports other fields than the samples before it: columns
    /// for the fields new to this chunk, the fields it lacks written as
    /// zero, and from now on each sample's fields kept.
    #[cold]
    fn differs(&mut self, mask: u32, n: usize) {
        if !self.mixed && n > 0 {
            self.present.reserve(self.room);
            self.present.resize(n, self.seen);
        }
        self.mixed = n > 0;
        if self.mixed {
            self.present.push(mask);
        }
        for field in bits(mask & !self.seen) {
            let start = self.first + self.placed * self.stride();
            if self.arena.len() < start + self.stride() {
                self.arena.resize(start + self.stride(), 0);
            }
            self.arena[start..start + n].fill(0);
            self.starts[field] = start;
            self.placed += 1;
        }
        for field in bits(self.seen & !mask) {
            self.arena[self.starts[field] + n] = 0;
        }
        self.seen |= mask;
    }

    /// Room for twice the samples: every column moved to its new place.
    #[cold]
    fn grow(&mut self) {
        let room = (2 * self.room).max(64);
        let stride = room + LINE;
        let mut arena = vec![0; self.first + self.placed * stride];
        let columns = std::iter::once(self.first).chain(bits(self.seen).map(|f| self.starts[f]));
        for (place, start) in columns.enumerate() {
            let to = self.first + place * stride;
            arena[to..to + self.len].copy_from_slice(&self.arena[start..start + self.len]);
        }
        for (place, field) in bits(self.seen).enumerate() {
            self.starts[field] = self.first + (place + 1) * stride;
        }
        self.arena = arena;
        self.room = room;
    }

    /// Into time order, samples of one time in the order they came.
    pub fn sort_by_time(&mut self) {
        let mut order: Vec<usize> = (0..self.len).collect();
        order.sort_by_key(|&i| self.arena[self.first + i]);
        let mut moved = Vec::with_capacity(self.len);
        let columns = std::iter::once(self.first).chain(bits(self.seen).map(|f| self.starts[f]));
        for start in columns.collect::<Vec<_>>() {
            let column = &mut self.arena[start..start + self.len];
            moved.clear();
            moved.extend(order.iter().map(|&i| column[i]));
            column.copy_from_slice(&moved);
        }
        if self.mixed {
            self.present = order.iter().map(|&i| self.present[i]).collect();
        }
    }
}

impl<'a> FromIterator<&'a Sample> for ChunkColumns {
    fn from_iter<I: IntoIterator<Item = &'a Sample>>(samples: I) -> Self {
        let mut columns = ChunkColumns::default();
        for s in samples {
            columns.push(s);
        }
        columns
    }
}

/// The positions of the set bits of `mask`, lowest first.
#[inline]
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A sample at `t_ms` reporting the fields of `mask` (among the first
    /// twelve), each with a value of its own.
    fn sample(t_ms: i64, mask: u16, seed: i64) -> Sample {
        let mut s = Sample::new(t_ms, 0);
        for field in Field::ALL.into_iter().take(12) {
            if mask & (1 << field.id()) != 0 {
                s.set(field, seed * 31 + i64::from(field.id()));
            }
        }
        s
    }

    /// What the columns must say of the samples, read back one by one.
    fn holds(columns: &ChunkColumns, samples: &[Sample]) -> Result<(), TestCaseError> {
        prop_assert_eq!(columns.len(), samples.len());
        let times: Vec<i64> = samples.iter().map(|s| s.t_ms).collect();
        prop_assert_eq!(columns.times(), &times[..]);
        for field in Field::ALL {
            for (i, s) in samples.iter().enumerate() {
                prop_assert_eq!(
                    columns.value(field, i),
                    s.get(field),
                    "{:?} of sample {}",
                    field,
                    i
                );
            }
            let every = !samples.is_empty() && samples.iter().all(|s| s.get(field).is_some());
            let whole: Option<Vec<i64>> =
                every.then(|| samples.iter().filter_map(|s| s.get(field)).collect());
            prop_assert_eq!(columns.complete(field).map(<[i64]>::to_vec), whole);
            if let Some(column) = columns.column(field) {
                for (i, s) in samples.iter().enumerate() {
                    prop_assert_eq!(column[i], s.get(field).unwrap_or(0));
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn columns_hold_what_was_pushed(
            rows in proptest::collection::vec((0i64..50, 0u16..4096), 0..300),
            reused in proptest::collection::vec((0i64..50, 0u16..4096), 0..100),
            room in 0usize..150,
        ) {
            let samples: Vec<Sample> = rows
                .iter()
                .enumerate()
                .map(|(i, (t, mask))| sample(*t, *mask, i as i64))
                .collect();
            let mut columns = ChunkColumns::with_capacity(room);
            for s in &samples {
                columns.push(s);
            }
            holds(&columns, &samples)?;

            let mut sorted = samples.clone();
            sorted.sort_by_key(|s| s.t_ms);
            columns.sort_by_time();
            holds(&columns, &sorted)?;

            // Emptied and filled again, as the writer reuses a chunk's room.
            columns.clear();
            let again: Vec<Sample> = reused
                .iter()
                .enumerate()
                .map(|(i, (t, mask))| sample(*t, *mask, 1000 + i as i64))
                .collect();
            for s in &again {
                columns.push(s);
            }
            holds(&columns, &again)?;
        }
    }

    #[test]
    fn columns_begin_on_different_cache_sets() {
        let mut columns = ChunkColumns::with_capacity(4096);
        columns.push(&sample(0, 0b111, 1));
        let starts: Vec<usize> = std::iter::once(columns.first)
            .chain((0..3).map(|f| columns.starts[f]))
            .collect();
        let sets: std::collections::BTreeSet<usize> =
            starts.iter().map(|s| s / LINE % SETS).collect();
        assert_eq!(sets.len(), starts.len(), "{starts:?}");
    }
}
