//! One GPU's samples as the writer gathers them for a chunk, column by
//! column (`ChunkColumns`), before `encode_columns` packs them.

use super::super::{FIELD_COUNT, Field, Sample};

/// One GPU's samples as a chunk holds them, column by column: what the
/// store's writer fills as samples arrive, so that a sample is never
/// copied whole (184 bytes, most of them fields the log does not have) and
/// encoding reads each column in one sequential pass.
#[derive(Debug, Clone, Default)]
pub struct ChunkColumns {
    pub(super) t_ms: Vec<i64>,
    /// Each sample's present fields.
    pub(super) present: Vec<u32>,
    /// By field id: a slot per sample from the first sample that reported
    /// the field on (zero where a sample did not).
    pub(super) values: [Vec<i64>; FIELD_COUNT],
    /// Fields any sample reported, and fields every sample reported.
    pub(super) seen: u32,
    pub(super) every: u32,
}

impl ChunkColumns {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            t_ms: Vec::with_capacity(n),
            present: Vec::with_capacity(n),
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.t_ms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ms.is_empty()
    }

    pub fn times(&self) -> &[i64] {
        &self.t_ms
    }

    /// Every sample's value of `field`, where every sample reported it.
    #[inline]
    pub fn complete(&self, field: Field) -> Option<&[i64]> {
        let id = usize::from(field.id());
        (!self.is_empty() && self.every & (1 << id) != 0).then(|| &self.values[id][..])
    }

    /// Sample `i`'s value of `field`, if it reported one.
    #[inline]
    pub fn value(&self, field: Field, i: usize) -> Option<i64> {
        let id = usize::from(field.id());
        (self.present.get(i)? & (1 << id) != 0).then(|| self.values[id][i])
    }

    /// Empty, keeping the memory for the next chunk.
    pub fn clear(&mut self) {
        self.t_ms.clear();
        self.present.clear();
        for column in &mut self.values {
            column.clear();
        }
        self.seen = 0;
        self.every = 0;
    }

    #[inline]
    pub fn push(&mut self, sample: &Sample) {
        let mask = sample.present_mask();
        let n = self.t_ms.len();
        let new = mask & !self.seen;
        if new != 0 {
            self.start_columns(new, n);
        }
        self.every = if n == 0 { mask } else { self.every & mask };
        let raw = sample.raw_values();
        if mask == self.seen {
            // A sample with every field seen so far: nearly every one.
            for field in bits(mask) {
                self.values[field].push(raw[field]);
            }
        } else {
            for field in bits(self.seen) {
                let value = if mask & (1 << field) != 0 {
                    raw[field]
                } else {
                    0
                };
                self.values[field].push(value);
            }
        }
        self.t_ms.push(sample.t_ms);
        self.present.push(mask);
    }

    /// Columns for fields first reported by sample `n`: a zero slot for
    /// each sample before it.
    #[cold]
    fn start_columns(&mut self, new: u32, n: usize) {
        for field in bits(new) {
            let column = &mut self.values[field];
            column.reserve(self.t_ms.capacity().saturating_sub(column.len()));
            column.resize(n, 0);
        }
        self.seen |= new;
    }

    /// Into time order, samples of one time in the order they came.
    pub fn sort_by_time(&mut self) {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by_key(|&i| self.t_ms[i]);
        fn permuted<T: Copy>(column: &[T], order: &[usize]) -> Vec<T> {
            order.iter().map(|&i| column[i]).collect()
        }
        self.t_ms = permuted(&self.t_ms, &order);
        self.present = permuted(&self.present, &order);
        for field in bits(self.seen) {
            self.values[field] = permuted(&self.values[field], &order);
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
