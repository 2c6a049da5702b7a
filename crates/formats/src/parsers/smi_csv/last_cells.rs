//! The value cells each GPU's row had last, column by column, with what
//! each read as. nvidia-smi writes many cells as the GPU's row before
//! wrote them — a clock at its maximum, the memory in use, a temperature
//! that holds — and such a cell is read by comparing its bytes, two words,
//! rather than reading its number again.
//!
//! A cell's value depends on its bytes and its column's reader alone
//! (`PlainReader::read_plain` keeps no state), so a cell whose bytes match
//! reads as the one before it did; the cells are forgotten when the
//! columns change.

/// Bytes compared at most: the cell, its leading spaces and the separator
/// after it.
const WORDS: usize = 2;
const BYTES: usize = 8 * WORDS;

/// GPUs whose cells are kept apart, by index; higher indexes share their
/// places (whatever shares a place, a cell is only taken where its bytes
/// match). A node's eight GPUs each keep their own.
const GPUS: usize = 8;

/// Each GPU's last cell in each value column, for the layout `layout`.
#[derive(Default)]
pub(super) struct LastCells {
    layout: u64,
    columns: usize,
    cells: Vec<LastCell>,
}

#[derive(Clone, Copy)]
struct LastCell {
    /// The cell and its separator, the first byte lowest; bytes past them
    /// zero.
    words: [u64; WORDS],
    /// The bytes that count in each word.
    masks: [u64; WORDS],
    /// The cell's length, up to the separator.
    len: usize,
    value: i64,
}

/// Matches nothing: no masked word is 1.
const NONE: LastCell = LastCell {
    words: [1, 1],
    masks: [0, 0],
    len: 0,
    value: 0,
};

impl LastCells {
    /// Ready for the rows of layout `layout` with `columns` columns: what
    /// was kept of another layout's rows is forgotten.
    #[inline]
    pub(super) fn for_layout(&mut self, layout: u64, columns: usize) {
        if self.layout != layout || self.columns != columns {
            self.layout = layout;
            self.columns = columns;
            self.cells.clear();
            self.cells.resize(columns * GPUS, NONE);
        }
    }

    /// Where GPU `gpu`'s cells are kept (the GPU unknown: as GPU 0's):
    /// column `i`'s at this plus `i`.
    #[inline]
    pub(super) fn places_of(&self, gpu: Option<u32>) -> usize {
        gpu.map_or(0, |g| g as usize % GPUS) * self.columns
    }

    /// The cell at the start of `rest`, where it is written as the one
    /// kept at `place` was, followed by the same separator: its value and
    /// length.
    #[inline]
    pub(super) fn get(&self, place: usize, rest: &[u8]) -> Option<(i64, usize)> {
        let last = self.cells.get(place)?;
        let bytes = rest.first_chunk::<BYTES>()?;
        let word =
            |w: usize| u64::from_le_bytes(bytes[8 * w..8 * w + 8].try_into().unwrap_or([0; 8]));
        (word(0) & last.masks[0] == last.words[0] && word(1) & last.masks[1] == last.words[1])
            .then_some((last.value, last.len))
    }

    /// The cell `len` bytes at the start of `rest`, then the separator,
    /// read as `value`, kept at `place`. Kept only where it and its
    /// separator fit in the bytes compared, and a row's bytes to compare
    /// follow it.
    #[inline]
    pub(super) fn keep(&mut self, place: usize, rest: &[u8], len: usize, value: i64) {
        let (Some(last), Some(bytes)) = (self.cells.get_mut(place), rest.first_chunk::<BYTES>())
        else {
            return;
        };
        if len >= BYTES {
            *last = NONE;
            return;
        }
        // The cell and the separator after it.
        let counted = len + 1;
        let mut masks = [0u64; WORDS];
        let mut words = [0u64; WORDS];
        for (w, (mask, word)) in masks.iter_mut().zip(&mut words).enumerate() {
            let bytes_in = counted.saturating_sub(8 * w).min(8);
            *mask = if bytes_in == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * bytes_in)) - 1
            };
            let chunk: [u8; 8] = bytes[8 * w..8 * w + 8].try_into().unwrap_or([0; 8]);
            *word = u64::from_le_bytes(chunk) & *mask;
        }
        *last = LastCell {
            words,
            masks,
            len,
            value,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_written_as_the_one_above_reads_as_it_did() {
        let mut last = LastCells::default();
        last.for_layout(1, 3);
        let row = b" 1410 MHz, 1593 MHz, 0x0000000000000000";
        assert_eq!(last.get(0, row), None);
        last.keep(0, row, 9, 1410);
        assert_eq!(last.get(0, row), Some((1410, 9)));
        // Another column, another value, a longer cell: not this one.
        assert_eq!(last.get(1, row), None);
        assert_eq!(last.get(0, b" 1410 MHz , 1593 MHz, 0x00000000"), None);
        assert_eq!(last.get(0, b" 1411 MHz, 1593 MHz, 0x0000000000"), None);
        // The same cell followed by other cells: still this one.
        assert_eq!(
            last.get(0, b" 1410 MHz, 7, 8, 9, 10, 11, 12"),
            Some((1410, 9))
        );
    }

    #[test]
    fn a_cell_is_kept_only_where_it_and_its_separator_fit() {
        let mut last = LastCells::default();
        last.for_layout(1, 2);
        // Fifteen bytes and the separator: kept.
        let row = b" 123456789.1234, 5, 6, 7";
        last.keep(0, row, 15, 7);
        assert_eq!(last.get(0, row), Some((7, 15)));
        // Sixteen: not.
        let row = b" 1234567890.1234, 5, 6, 7";
        last.keep(1, row, 16, 7);
        assert_eq!(last.get(1, row), None);
        // Fewer than sixteen bytes left in the line (its last cell): not
        // kept, nor looked for.
        last.keep(1, b" 71", 3, 71);
        assert_eq!(last.get(1, b" 71"), None);
    }

    #[test]
    fn each_gpu_keeps_its_own_cells() {
        let mut last = LastCells::default();
        last.for_layout(1, 2);
        let (first, second) = (last.places_of(Some(0)) + 1, last.places_of(Some(1)) + 1);
        assert_ne!(first, second);
        let row = b" 61227 MiB, 1410 MHz, 1593 MHz";
        last.keep(first, row, 10, 61_227);
        last.keep(second, b" 40 MiB, 1410 MHz, 1593 MHz, 0x", 7, 40);
        assert_eq!(last.get(first, row), Some((61_227, 10)));
        assert_eq!(last.get(second, row), None);
        // GPU 8 shares GPU 0's places; a match is still a match of bytes.
        assert_eq!(last.places_of(Some(8)) + 1, first);
        assert_eq!(last.places_of(None) + 1, first);
    }

    #[test]
    fn another_layout_forgets_the_cells_kept() {
        let mut last = LastCells::default();
        last.for_layout(1, 1);
        let row = b" 71, 98 %, 1410 MHz, 1593 MHz";
        last.keep(0, row, 3, 71);
        last.for_layout(1, 1);
        assert_eq!(last.get(0, row), Some((71, 3)));
        last.for_layout(2, 1);
        assert_eq!(last.get(0, row), None);
    }
}
