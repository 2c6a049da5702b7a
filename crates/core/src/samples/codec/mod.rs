//! The stored form of a chunk of samples: one GPU, up to a few thousand
//! consecutive samples, column by column.
//!
//! ```text
//! chunk   := version:u8  n:varint  time  ncols:varint  column*
//! time    := t0:zigzag-varint  seq(deltas of t)        -- n ≥ 2: delta-of-delta
//! column  := field:u8  flags:u8  len:varint  body      -- len lets readers skip
//! body    := [presence bitmap, ⌈n/8⌉ bytes, if flags & 1]  values
//! values  := pco(present values)   if flags & 2         -- version 2 on
//!          | runs(present values)  if flags & 4         -- version 3
//!          | seq(present values)   otherwise
//! seq(xs) := x0:zigzag-varint  g:varint  packed(zigzag((xᵢ − xᵢ₋₁) / g))
//! runs(xs):= k:varint  (zigzag-varint(vⱼ − vⱼ₋₁)  len:varint)×k   -- v₀ − 0
//! ```
//!
//! Readings (power, temperature, utilisation) go through `pco`, a codec
//! made for columns of numbers: it picks delta orders, finds common
//! multipliers and entropy-codes what is left, which halves the demo
//! workspace's size against the hand-written `seq` alone (4.56 → 2.3 bytes
//! per sample, `cargo bench -p breakpoint-core --bench sample_store`) and
//! decodes faster. A column that holds each value for a long run of
//! samples — clocks pinned at their maximum, memory in use, a temperature
//! that moves a degree a minute, a throttle mask that is mostly zero — is
//! written as its runs: smaller than pco's output for it, and a single pass
//! to write rather than pco's sort, binning and entropy coding (its
//! largest cost on an import). Times, and columns too short for pco's own
//! headers to pay, keep `seq`: `g` is the greatest common divisor of the
//! deltas (nvidia-smi reports power in 10 mW steps), `g = 0` means every
//! delta is zero, arithmetic wraps so any i64 series round-trips exactly.
//! A field that no sample of the chunk reported is not written at all.
//! Chunks of versions 1 (every column `seq`) and 2 (no runs) are still
//! read; a build that predates a version refuses its chunks rather than
//! misreading them.
//!
//! Each way of packing a column has a module of its own (`seq`, `runs`,
//! `pco_columns`); this one frames the chunk and chooses, per column, which
//! packing it gets (`pack_values`).

mod columns;
mod pco_columns;
mod runs;
mod seq;

use super::bitpack::{get_varint, put_varint, unzigzag, zigzag};
use super::{Column, FIELD_COUNT, Field, Sample};
pub use columns::ChunkColumns;
use pco_columns::{PCO_MIN_VALUES, encode_pco};
use runs::{count_runs, decode_runs, encode_runs};
use seq::{decode_seq, encode_seq};

const VERSION: u8 = 3;
/// Chunks written before runs; still read.
const VERSION_NO_RUNS: u8 = 2;
/// Chunks written before pco; still read.
const VERSION_SEQ_ONLY: u8 = 1;
const FLAG_BITMAP: u8 = 1;
const FLAG_PCO: u8 = 2;
const FLAG_RUNS: u8 = 4;
/// Runs are tried on a column whose values last this many samples on
/// average, or longer; below it, pco's output was the smaller on every
/// column measured (`long_runs_are_written_as_runs_…` below).
const MIN_AVERAGE_RUN: usize = 16;
/// From this average run on, runs are written without asking pco: a chunk
/// then holds few enough runs (64 in 4096 samples) that they take at most
/// a few dozen bytes more than pco's smallest output, and pco's cost is
/// spared. Between the two, both are written and the smaller kept. At 64
/// rather than 128, a throttle mask with a flag every few hundred samples
/// is no longer also given to pco: 3 % fewer instructions for a 1.4 M-row
/// import, 0.2 % more bytes.
const SURE_AVERAGE_RUN: usize = 64;
/// No chunk the store writes is larger; a bigger count means a corrupt blob.
pub const MAX_CHUNK_SAMPLES: usize = 1 << 16;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CodecError(&'static str);

/// How a chunk's readings are packed: the store writes [`ValueCodec::Pco`]
/// (pco, and runs where a column holds its values long); the others are
/// kept for reading old chunks and for comparing: [`ValueCodec::Seq`] is
/// the hand-written packing alone, [`ValueCodec::PcoAlone`] pco without
/// runs, as version 2 wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueCodec {
    Seq,
    PcoAlone,
    Pco,
}

/// Whether every value is the first.
fn is_constant(values: &[i64]) -> bool {
    values.iter().all(|v| *v == values[0])
}

/// A column's present values, packed the smallest way of those `codec`
/// allows (as far as can be told without trying every one); the flag that
/// says which.
fn pack_values(values: &[i64], codec: ValueCodec, out: &mut Vec<u8>, scratch: &mut Vec<u64>) -> u8 {
    if codec == ValueCodec::Pco && values.len() >= PCO_MIN_VALUES && !is_constant(values) {
        let runs = count_runs(values);
        if runs * MIN_AVERAGE_RUN <= values.len() {
            let start = out.len();
            encode_runs(values, runs, out);
            if runs * SURE_AVERAGE_RUN <= values.len() {
                return FLAG_RUNS;
            }
            match encode_pco(values, codec) {
                Some(packed) if packed.len() < out.len() - start => {
                    out.truncate(start);
                    out.extend_from_slice(&packed);
                    return FLAG_PCO;
                }
                _ => return FLAG_RUNS,
            }
        }
    }
    match encode_pco(values, codec) {
        Some(packed) => {
            out.extend_from_slice(&packed);
            FLAG_PCO
        }
        None => {
            encode_seq(values, out, scratch);
            0
        }
    }
}

/// Encode samples of one GPU, already in time order, as the store does.
pub fn encode_chunk(samples: &[Sample]) -> Vec<u8> {
    encode_chunk_as(samples, ValueCodec::Pco)
}

/// Encode samples of one GPU with the readings packed by `codec`.
pub fn encode_chunk_as(samples: &[Sample], codec: ValueCodec) -> Vec<u8> {
    encode_columns(&samples.iter().collect(), codec)
}

/// Encode one GPU's columns, already in time order.
pub fn encode_columns(columns: &ChunkColumns, codec: ValueCodec) -> Vec<u8> {
    let n = columns.len();
    let mut out = Vec::with_capacity(64 + n * 4);
    let mut scratch = Vec::with_capacity(n);
    out.push(VERSION);
    put_varint(&mut out, n as u64);

    let times = columns.times();
    if let Some(&t0) = times.first() {
        put_varint(&mut out, zigzag(t0));
        let deltas: Vec<i64> = times.windows(2).map(|w| w[1].wrapping_sub(w[0])).collect();
        encode_seq(&deltas, &mut out, &mut scratch);
    }

    let fields: Vec<(Field, &[i64])> = Field::ALL
        .into_iter()
        .filter_map(|f| Some((f, columns.column(f)?)))
        .collect();
    put_varint(&mut out, fields.len() as u64);

    let mut body = Vec::new();
    let mut gathered = Vec::new();
    for (field, column) in fields {
        let bit = 1u32 << field.id();
        body.clear();
        let complete = columns.every() & bit != 0;
        let values = if complete {
            column
        } else {
            let mut bitmap = vec![0u8; n.div_ceil(8)];
            gathered.clear();
            for (i, value) in column.iter().enumerate() {
                if columns.present(i) & bit != 0 {
                    bitmap[i / 8] |= 1 << (i % 8);
                    gathered.push(*value);
                }
            }
            body.extend_from_slice(&bitmap);
            &gathered
        };
        let flags = if complete { 0 } else { FLAG_BITMAP };
        let flags = flags | pack_values(values, codec, &mut body, &mut scratch);
        out.push(field.id());
        out.push(flags);
        put_varint(&mut out, body.len() as u64);
        out.extend_from_slice(&body);
    }
    out
}

/// A decoded chunk: timestamps and the requested columns that it holds.
#[derive(Debug, Default)]
pub struct DecodedChunk {
    pub t_ms: Vec<i64>,
    pub columns: Vec<(Field, Column)>,
}

/// Decode a chunk; `wanted` limits the columns decoded (others are skipped
/// without being read). Malformed input gives an error, never a panic.
pub fn decode_chunk(blob: &[u8], wanted: Option<&[Field]>) -> Result<DecodedChunk, CodecError> {
    const TRUNCATED: CodecError = CodecError("sample chunk is truncated");
    let mut pos = 0;
    let mut scratch = Vec::new();
    let version = match blob.first() {
        Some(&v @ (VERSION | VERSION_NO_RUNS | VERSION_SEQ_ONLY)) => v,
        Some(_) => return Err(CodecError("sample chunk has an unknown version")),
        None => return Err(TRUNCATED),
    };
    pos += 1;
    let n = get_varint(blob, &mut pos).ok_or(TRUNCATED)?;
    let n = usize::try_from(n)
        .ok()
        .filter(|n| *n <= MAX_CHUNK_SAMPLES)
        .ok_or(CodecError("sample chunk claims too many samples"))?;

    let mut t_ms = Vec::with_capacity(n);
    if n > 0 {
        let t0 = unzigzag(get_varint(blob, &mut pos).ok_or(TRUNCATED)?);
        let mut deltas = Vec::with_capacity(n - 1);
        decode_seq(blob, &mut pos, n - 1, &mut deltas, &mut scratch)?;
        let mut t = t0;
        t_ms.push(t);
        for d in deltas {
            t = t.wrapping_add(d);
            t_ms.push(t);
        }
    }

    let ncols = get_varint(blob, &mut pos).ok_or(TRUNCATED)?;
    if ncols > FIELD_COUNT as u64 * 4 {
        return Err(CodecError("sample chunk claims too many columns"));
    }
    let mut columns = Vec::new();
    for _ in 0..ncols {
        let id = *blob.get(pos).ok_or(TRUNCATED)?;
        let flags = *blob.get(pos + 1).ok_or(TRUNCATED)?;
        pos += 2;
        let len = get_varint(blob, &mut pos).ok_or(TRUNCATED)?;
        let len = usize::try_from(len).map_err(|_| TRUNCATED)?;
        let end = pos.checked_add(len).ok_or(TRUNCATED)?;
        let body = blob.get(pos..end).ok_or(TRUNCATED)?;
        pos = end;
        // A field from a newer build is skipped rather than refused.
        let Some(field) = Field::from_id(id) else {
            continue;
        };
        if wanted.is_some_and(|w| !w.contains(&field)) {
            continue;
        }
        let holds = match version {
            VERSION_SEQ_ONLY => 0,
            VERSION_NO_RUNS => FLAG_PCO,
            _ => FLAG_PCO | FLAG_RUNS,
        };
        let packing = flags & (FLAG_PCO | FLAG_RUNS);
        if packing & !holds != 0 || packing == FLAG_PCO | FLAG_RUNS {
            return Err(CodecError(
                "sample chunk has a column its version cannot hold",
            ));
        }
        columns.push((field, decode_column(body, flags, n, &mut scratch)?));
    }
    Ok(DecodedChunk { t_ms, columns })
}

fn decode_column(
    body: &[u8],
    flags: u8,
    n: usize,
    scratch: &mut Vec<u64>,
) -> Result<Column, CodecError> {
    if flags & FLAG_BITMAP == 0 {
        let values = decode_values(body, flags, n, scratch)?;
        return Ok(Column::from_parts(values, None));
    }
    let bitmap = body
        .get(..n.div_ceil(8))
        .ok_or(CodecError("sample chunk presence map is truncated"))?;
    let present: Vec<bool> = (0..n)
        .map(|i| bitmap[i / 8] & (1 << (i % 8)) != 0)
        .collect();
    let count = present.iter().filter(|p| **p).count();
    let packed = decode_values(&body[bitmap.len()..], flags, count, scratch)?;
    let mut values = Vec::with_capacity(n);
    let mut next = packed.into_iter();
    for p in &present {
        values.push(if *p { next.next().unwrap_or(0) } else { 0 });
    }
    Ok(Column::from_parts(values, Some(present)))
}

/// `count` values written by pco, as runs or by `seq`, as `flags` says.
fn decode_values(
    body: &[u8],
    flags: u8,
    count: usize,
    scratch: &mut Vec<u64>,
) -> Result<Vec<i64>, CodecError> {
    if flags & FLAG_RUNS != 0 {
        let mut values = Vec::new();
        decode_runs(body, count, &mut values)?;
        return Ok(values);
    }
    if flags & FLAG_PCO == 0 {
        let mut values = Vec::with_capacity(count);
        decode_seq(body, &mut 0, count, &mut values, scratch)?;
        return Ok(values);
    }
    let values = pco::standalone::simple_decompress::<i64>(body)
        .map_err(|_| CodecError("sample chunk column is damaged"))?;
    if values.len() != count {
        return Err(CodecError(
            "sample chunk column holds the wrong number of values",
        ));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::pco_columns::{PCO_LEVEL, delta_spec};
    use super::*;
    use proptest::prelude::*;

    /// Readings as a busy GPU reports them: power and utilisation noisy
    /// around a level (from a seeded generator: arithmetic sequences would
    /// be a codec's best case, not a GPU's), temperature in slow steps.
    fn busy_gpu(n: usize) -> Vec<Sample> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        (0..n)
            .map(|i| {
                let i = i as i64;
                Sample::new(1_717_200_000_000 + i * 1000, 0)
                    .with(Field::PowerMw, 250_000 + rng.random_range(0..600) * 10)
                    .with(Field::TempGpuC, 70 + (i / 97) % 3)
                    .with(Field::SmClockMhz, 1410)
                    .with(Field::UtilGpuPct, rng.random_range(95..101))
                    .with(Field::MemUsedMib, 40_960)
                    .with(Field::ThrottleMask, 0)
            })
            .collect()
    }

    fn round_trip(samples: &[Sample]) -> Vec<Sample> {
        let chunk = decode_chunk(&encode_chunk(samples), None).unwrap();
        (0..chunk.t_ms.len())
            .map(|i| {
                let mut s = Sample::new(chunk.t_ms[i], samples[0].gpu);
                for (f, c) in &chunk.columns {
                    if let Some(v) = c.get(i) {
                        s.set(*f, v);
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn deltas_are_searched_for_counters_and_not_for_readings() {
        // An energy counter: 4096 steps of 250–270 J at 1 Hz.
        let energy: Vec<i64> = (0..4096i64)
            .scan(9_000_000_000, |e, i| {
                *e += 250_000 + (i * 7919 % 20_000);
                Some(*e)
            })
            .collect();
        assert!(matches!(delta_spec(&energy), pco::DeltaSpec::Auto));
        let power: Vec<i64> = busy_gpu(4096)
            .iter()
            .map(|s| s.get(Field::PowerMw).unwrap())
            .collect();
        assert!(matches!(delta_spec(&power), pco::DeltaSpec::NoOp));
        // The counter's deltas are what make it small: ~2 bytes a value
        // with them, against ~3 for the counter taken as it is.
        let samples: Vec<Sample> = energy
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Sample::new(1_717_200_000_000 + i as i64 * 1000, 0).with(Field::EnergyMj, *e)
            })
            .collect();
        let as_is = pco::standalone::simple_compress(
            &energy,
            &pco::ChunkConfig::default()
                .with_compression_level(PCO_LEVEL)
                .with_delta_spec(pco::DeltaSpec::NoOp),
        )
        .unwrap();
        let chunk = encode_chunk(&samples);
        assert!(
            chunk.len() < as_is.len() * 3 / 4,
            "{} against {}",
            chunk.len(),
            as_is.len()
        );
        assert_eq!(round_trip(&samples), samples);
    }

    #[test]
    fn a_steady_busy_gpu_packs_small() {
        let samples = busy_gpu(4096);
        let blob = encode_chunk(&samples);
        assert_eq!(round_trip(&samples), samples);
        // Noisy power dominates; everything else is nearly free.
        assert!(blob.len() < 4096 * 2, "{} bytes", blob.len());
    }

    #[test]
    fn missing_values_stay_missing_and_zero_stays_zero() {
        let samples = vec![
            Sample::new(0, 3).with(Field::PowerMw, 0),
            Sample::new(1000, 3),
            Sample::new(2000, 3)
                .with(Field::PowerMw, 5)
                .with(Field::FanPct, 0),
        ];
        let back = round_trip(&samples);
        assert_eq!(back, samples);
        assert_eq!(back[1].get(Field::PowerMw), None);
        assert_eq!(back[0].get(Field::PowerMw), Some(0));
    }

    #[test]
    fn columns_filled_out_of_order_and_sparsely_sort_and_keep_each_value_where_it_was() {
        // A field first reported by the third sample, one the second
        // alone lacks, and times that arrive out of order.
        let samples = [
            Sample::new(3_000, 0).with(Field::PowerMw, 3),
            Sample::new(1_000, 0),
            Sample::new(2_000, 0)
                .with(Field::PowerMw, 2)
                .with(Field::TempGpuC, 50),
            Sample::new(2_000, 0)
                .with(Field::PowerMw, 4)
                .with(Field::TempGpuC, 0),
        ];
        let mut columns: ChunkColumns = samples.iter().collect();
        assert_eq!(columns.len(), 4);
        columns.sort_by_time();
        assert_eq!(columns.times(), [1_000, 2_000, 2_000, 3_000]);
        let mut sorted = samples.to_vec();
        sorted.sort_by_key(|s| s.t_ms);
        // The same bytes as the samples sorted first, and each value back
        // at its time, a zero as a zero and an absence as an absence.
        let blob = encode_columns(&columns, ValueCodec::Pco);
        assert_eq!(blob, encode_chunk(&sorted));
        let chunk = decode_chunk(&blob, None).unwrap();
        let column = |f: Field| {
            let (_, c) = chunk.columns.iter().find(|(g, _)| *g == f).unwrap();
            (0..4).map(|i| c.get(i)).collect::<Vec<_>>()
        };
        assert_eq!(column(Field::PowerMw), [None, Some(2), Some(4), Some(3)]);
        assert_eq!(column(Field::TempGpuC), [None, Some(50), Some(0), None]);
        columns.clear();
        assert!(columns.is_empty());
        assert_eq!(encode_columns(&columns, ValueCodec::Pco), encode_chunk(&[]));
    }

    #[test]
    fn only_wanted_columns_are_decoded() {
        let chunk = decode_chunk(&encode_chunk(&busy_gpu(10)), Some(&[Field::TempGpuC])).unwrap();
        assert_eq!(chunk.columns.len(), 1);
        assert_eq!(chunk.columns[0].0, Field::TempGpuC);
        assert_eq!(chunk.t_ms.len(), 10);
    }

    #[test]
    fn damaged_chunks_are_errors() {
        let blob = encode_chunk(&busy_gpu(300));
        for cut in [0, 1, 2, 5, blob.len() / 2, blob.len() - 1] {
            assert!(decode_chunk(&blob[..cut], None).is_err(), "cut at {cut}");
        }
        let mut wrong_version = blob.clone();
        wrong_version[0] = 9;
        assert!(decode_chunk(&wrong_version, None).is_err());
    }

    #[test]
    fn chunks_written_before_pco_are_still_read() {
        // Every column `seq`: exactly what version 1 wrote.
        let samples = busy_gpu(300);
        let mut v1 = encode_chunk_as(&samples, ValueCodec::Seq);
        v1[0] = VERSION_SEQ_ONLY;
        let chunk = decode_chunk(&v1, None).unwrap();
        assert_eq!(chunk.t_ms.len(), 300);
        assert_eq!(chunk.columns.len(), 6);
        assert!(encode_chunk(&samples).len() < v1.len());
        // A version 1 chunk cannot hold a pco column.
        let mut v1_with_pco = encode_chunk(&busy_gpu(300));
        v1_with_pco[0] = VERSION_SEQ_ONLY;
        assert!(decode_chunk(&v1_with_pco, None).is_err());
    }

    #[test]
    fn a_damaged_byte_anywhere_is_an_error_or_a_value_never_a_panic() {
        let blob = encode_chunk(&busy_gpu(300));
        for i in 0..blob.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = blob.clone();
                damaged[i] ^= flip;
                let _ = decode_chunk(&damaged, None);
            }
        }
    }

    fn any_sample() -> impl Strategy<Value = Sample> {
        (
            any::<i64>(),
            proptest::collection::vec(proptest::option::of(any::<i64>()), FIELD_COUNT),
        )
            .prop_map(|(t, values)| {
                let mut s = Sample::new(t, 1);
                for (f, v) in Field::ALL.into_iter().zip(values) {
                    if let Some(v) = v {
                        s.set(f, v);
                    }
                }
                s
            })
    }

    /// A column of `n` values that moves by a step of -1, 0 or +1 (a
    /// temperature, a clock) on average every `every` samples.
    fn steps(n: usize, every: u32, seed: u64) -> Vec<i64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut v = 70i64;
        (0..n)
            .map(|_| {
                if rng.random_ratio(1, every) {
                    v += if rng.random_bool(0.5) { 1 } else { -1 };
                }
                v
            })
            .collect()
    }

    fn column_of(values: &[i64], field: Field) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Sample::new(i as i64 * 1000, 0).with(field, *v))
            .collect()
    }

    /// A column of `n` values that are zero but for spikes to 4 (a
    /// throttle mask), one every `every` samples on average.
    fn spikes(n: usize, every: u32, seed: u64) -> Vec<i64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| if rng.random_ratio(1, every) { 4 } else { 0 })
            .collect()
    }

    /// The column's size as runs and as pco writes it.
    fn sizes(values: &[i64]) -> (usize, usize) {
        let mut runs = Vec::new();
        encode_runs(values, count_runs(values), &mut runs);
        (
            runs.len(),
            encode_pco(values, ValueCodec::Pco).unwrap().len(),
        )
    }

    /// The column as `pack_values` writes it: its flag and size.
    fn packed(values: &[i64]) -> (u8, usize) {
        let mut out = Vec::new();
        let flag = pack_values(values, ValueCodec::Pco, &mut out, &mut Vec::new());
        (flag, out.len())
    }

    #[test]
    fn long_runs_are_written_as_runs_and_short_ones_by_pco() {
        // Below the shortest average run tried, pco's output is smaller
        // for steps and spikes alike.
        for values in [steps(4096, 8, 11), spikes(4096, 8, 12)] {
            let runs = count_runs(&values);
            assert!(runs * MIN_AVERAGE_RUN > 4096, "{runs} runs");
            let (as_runs, by_pco) = sizes(&values);
            assert!(by_pco < as_runs, "{by_pco} bytes by pco, {as_runs} as runs");
            assert_eq!(packed(&values).0, FLAG_PCO);
        }
        // Between the two thresholds, the smaller is kept: runs for a
        // temperature's steps (pco takes ~2 KB), pco for spikes.
        let values = steps(4096, 32, 11);
        let (as_runs, by_pco) = sizes(&values);
        assert!(
            as_runs * 4 < by_pco,
            "{as_runs} bytes as runs, {by_pco} by pco"
        );
        assert_eq!(packed(&values), (FLAG_RUNS, as_runs));
        let values = spikes(4096, 32, 12);
        let (as_runs, by_pco) = sizes(&values);
        assert!(by_pco < as_runs, "{by_pco} bytes by pco, {as_runs} as runs");
        assert_eq!(packed(&values), (FLAG_PCO, by_pco));
        // From the sure threshold on, runs without asking pco: at most a few
        // dozen bytes more than pco's output, where that is smaller at all.
        for values in [
            steps(4096, 400, 11),
            spikes(4096, 400, 12),
            spikes(4096, 1000, 13),
        ] {
            let runs = count_runs(&values);
            assert!(runs * SURE_AVERAGE_RUN <= 4096, "{runs} runs");
            let (as_runs, by_pco) = sizes(&values);
            assert!(
                as_runs < by_pco + 40,
                "{as_runs} bytes as runs, {by_pco} by pco"
            );
            assert_eq!(packed(&values), (FLAG_RUNS, as_runs));
            let samples = column_of(&values, Field::TempGpuC);
            assert_eq!(round_trip(&samples), samples);
        }
        // A pinned clock with a few dips: nine runs, a few bytes each.
        let clock: Vec<i64> = (0..4096)
            .map(|i| if i % 1000 < 990 { 1410 } else { 210 })
            .collect();
        assert_eq!(packed(&clock).0, FLAG_RUNS);
        assert!(packed(&clock).1 < 40, "{:?}", packed(&clock));
    }

    #[test]
    fn runs_are_not_read_from_a_chunk_whose_version_predates_them() {
        let clock: Vec<i64> = (0..4096).map(|i| 1410 - (i / 512)).collect();
        let mut chunk = encode_chunk(&column_of(&clock, Field::SmClockMhz));
        assert!(decode_chunk(&chunk, None).is_ok());
        chunk[0] = VERSION_NO_RUNS;
        assert!(decode_chunk(&chunk, None).is_err());
    }

    /// Samples whose readings hold each value for a while: the columns
    /// that are written as runs, extremes included.
    fn run_heavy_samples() -> impl Strategy<Value = Vec<Sample>> {
        let value = prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX), -3i64..3];
        proptest::collection::vec((value, 1usize..200, any::<bool>()), 1..20).prop_map(|runs| {
            runs.into_iter()
                .flat_map(|(v, len, present)| std::iter::repeat_n((v, present), len))
                .enumerate()
                .map(|(i, (v, present))| {
                    let s = Sample::new(i as i64 * 1000, 2).with(Field::MemUsedMib, v);
                    if present {
                        s.with(Field::TempGpuC, v)
                    } else {
                        s
                    }
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn any_samples_round_trip(samples in proptest::collection::vec(any_sample(), 1..300)) {
            prop_assert_eq!(round_trip(&samples), samples);
        }

        #[test]
        fn samples_in_runs_round_trip(samples in run_heavy_samples()) {
            prop_assert_eq!(round_trip(&samples), samples);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode_chunk(&bytes, None);
        }
    }
}
