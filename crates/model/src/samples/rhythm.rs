//! Which silences of a sampled series are outages, and which the logger's
//! own rhythm.
//!
//! Real loggers pause by themselves: an `nvidia-smi -l 1` loop stalls ~4 s
//! after every few dozen rows while the driver refreshes, a shell loop
//! sleeps between bursts, a cron job restarts the logger every few
//! minutes, a busy host delays a write. Read as outages, a healthy node's
//! 48 minutes of such a log became 83 interruptions. A silence is an
//! outage only when it is
//!
//! - longer than three sampling steps (a sample or two late is not one);
//! - longer than [`FLOOR_MS`], whatever the step (no instance is lost and
//!   back within seconds: a GPU that falls off the bus stays off); and
//! - half as long again as the logger's own recurring pause: where a log
//!   falls silent again and again for about as long ([`RECURRING`] times
//!   or more) and for no more than [`RHYTHM_MAX_MS`], that length is its
//!   rhythm, and only silences well beyond it stand out. Longer silences
//!   that recur are a platform's repeated outages, not a logger's habit.

/// The shortest silence read as an outage.
pub const FLOOR_MS: i64 = 30_000;

/// A pause that comes back this many times is the logger's rhythm.
pub const RECURRING: usize = 5;

/// The longest pause taken for a logger's own rhythm.
pub const RHYTHM_MAX_MS: i64 = 5 * 60_000;

/// A silence must last this much longer than the rhythm's longest pause
/// to stand out (as a fraction: half as long again).
const BEYOND_RHYTHM: (i64, i64) = (3, 2);

/// The silences longer than three steps (`(from, length)`, as a tally
/// keeps them) that are outages, in order; `step_ms` is the series' typical
/// step.
pub fn outages(step_ms: i64, silences: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let threshold = threshold_ms(step_ms, silences);
    silences
        .iter()
        .copied()
        .filter(|(_, length)| *length > threshold)
        .collect()
}

/// The length a silence must pass to be an outage (see the module).
pub fn threshold_ms(step_ms: i64, silences: &[(i64, i64)]) -> i64 {
    let mut threshold = (3 * step_ms).max(FLOOR_MS);
    if let Some(pause) = recurring_pause(silences) {
        threshold = threshold.max(pause.saturating_mul(BEYOND_RHYTHM.0) / BEYOND_RHYTHM.1);
    }
    threshold
}

/// The logger's recurring pause: the length most silences cluster around
/// (within a factor of two of each other), where at least [`RECURRING`]
/// do — the cluster's longest, so that its spread is inside the rhythm.
fn recurring_pause(silences: &[(i64, i64)]) -> Option<i64> {
    if silences.len() < RECURRING {
        return None;
    }
    let mut lengths: Vec<i64> = silences
        .iter()
        .map(|(_, l)| *l)
        .filter(|l| *l <= RHYTHM_MAX_MS)
        .collect();
    lengths.sort_unstable();
    // The widest run of lengths within a factor of two: found by sliding
    // its upper end over the sorted lengths.
    let mut best: Option<(usize, i64)> = None;
    let mut low = 0;
    for high in 0..lengths.len() {
        while lengths[high] > 2 * lengths[low] {
            low += 1;
        }
        let count = high - low + 1;
        if best.is_none_or(|(n, _)| count > n) {
            best = Some((count, lengths[high]));
        }
    }
    best.filter(|(n, _)| *n >= RECURRING)
        .map(|(_, longest)| longest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logger_that_pauses_every_few_dozen_rows_has_no_outage() {
        // 1 Hz with a 3.9 s pause after every 32 rows, for 48 minutes.
        let pauses: Vec<(i64, i64)> = (0..83).map(|k| (k * 36_000, 3_900)).collect();
        assert!(outages(1000, &pauses).is_empty());
    }

    #[test]
    fn an_outage_stands_out_of_the_rhythm_and_of_the_floor() {
        // Bursts every 5 minutes with a 60 s sleep, and one 20-minute outage.
        let mut silences: Vec<(i64, i64)> = (0..12).map(|k| (k * 300_000, 60_000)).collect();
        silences.push((4_000_000, 1_200_000));
        assert_eq!(outages(1000, &silences), [(4_000_000, 1_200_000)]);
        // A steady logger: a 10 s hiccup is not an outage, a minute is.
        assert_eq!(
            outages(1000, &[(0, 10_000), (100_000, 60_000)]),
            [(100_000, 60_000)]
        );
        // A slow logger: three of its steps first.
        assert!(outages(60_000, &[(0, 150_000)]).is_empty());
        assert_eq!(outages(60_000, &[(0, 200_000)]).len(), 1);
    }

    #[test]
    fn outages_that_recur_are_outages_not_a_rhythm() {
        let silences: Vec<(i64, i64)> = (0..8).map(|k| (k * 3_600_000, 600_000)).collect();
        assert_eq!(outages(1000, &silences).len(), 8);
    }

    #[test]
    fn a_few_long_silences_are_not_a_rhythm() {
        // Four outages of about the same length: too few to be the
        // logger's habit, each an outage.
        let silences: Vec<(i64, i64)> = (0..4).map(|k| (k * 3_600_000, 600_000)).collect();
        assert_eq!(outages(1000, &silences).len(), 4);
        assert_eq!(recurring_pause(&silences), None);
    }
}
