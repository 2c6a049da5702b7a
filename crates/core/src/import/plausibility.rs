//! Times a log cannot have meant. A machine whose clock jumped (a block of
//! rows fifty years ahead), a loop that wrote one timestamp for every row,
//! or rows newest first would otherwise turn into millions of GPU-hours,
//! an availability of 0.001 % or one sample standing for a day.
//!
//! What cannot be evidence of one run is refused with the times that give
//! it away; what can be read but is unusual is stored with a warning.

use jiff::Timestamp;

use super::ParseFailure;
use crate::samples::steps::StepTally;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// A silence longer than this inside one GPU's samples is a clock jump or
/// two logs joined together, not an interruption of one run.
pub const MAX_JUMP_MS: i64 = 30 * DAY_MS;
/// A silence longer than this is kept (as an interruption) with a warning.
pub const WARN_JUMP_MS: i64 = DAY_MS;
/// Clocks disagree; a day ahead of this machine is still believable.
const FUTURE_SLACK_MS: i64 = DAY_MS;

fn time(ms: i64) -> String {
    Timestamp::from_millisecond(ms)
        .map(crate::text::time_words)
        .unwrap_or_else(|_| format!("{ms} ms after 1970"))
}

fn span(ms: i64) -> String {
    let days = ms as f64 / DAY_MS as f64;
    if days >= 730.0 {
        format!("{:.0} years", days / 365.25)
    } else if days >= 2.0 {
        format!("{days:.0} days")
    } else {
        format!("{:.1} hours", ms as f64 / HOUR_MS as f64)
    }
}

/// Refuse times after `now` (plus a day for clocks that disagree).
pub fn refuse_future(last_ms: i64, now_ms: i64) -> Result<(), ParseFailure> {
    if last_ms > now_ms + FUTURE_SLACK_MS {
        return Err(ParseFailure::Whole(format!(
            "its times reach {}, which is in the future; the clock of the machine that \
             wrote it was wrong (set --start if its rows carry times of day only)",
            time(last_ms)
        )));
    }
    Ok(())
}

/// No one run covers this long: a table whose times span decades holds a
/// date column read wrong or a zero time among real ones.
const MAX_SPAN_MS: i64 = 3653 * DAY_MS;

/// Refuse a run whose times span more than ten years.
pub fn refuse_span(first_ms: i64, last_ms: i64) -> Result<(), ParseFailure> {
    if last_ms - first_ms > MAX_SPAN_MS {
        return Err(ParseFailure::Whole(format!(
            "its times span {} ({} → {}): no one run covers that long; a date column was read wrong or holds a zero time",
            span(last_ms - first_ms),
            time(first_ms),
            time(last_ms)
        )));
    }
    Ok(())
}

/// A warning when samples came earlier than the one before them (of the
/// same GPU); "newest first" when most did.
pub fn order_warning(backward_steps: u64, samples: u64) -> Option<String> {
    if backward_steps == 0 {
        return None;
    }
    Some(if backward_steps * 2 >= samples {
        format!(
            "the rows run backwards in time (newest first: {backward_steps} of {samples} \
             samples went back); they were put in time order"
        )
    } else {
        format!("{backward_steps} samples were out of time order and have been sorted")
    })
}

/// Check one GPU's sample times (tallied in time order): refuse a jump no run can have,
/// refuse a log whose times do not tell samples apart, and warn about long
/// silences and repeated times.
pub fn check_times(gpu: u32, steps: &StepTally) -> Result<Vec<String>, ParseFailure> {
    let mut warnings = Vec::new();
    let duplicates = steps.repeats();
    if let Some((from, to)) = steps.longest() {
        let delta = to - from;
        if delta > MAX_JUMP_MS {
            return Err(ParseFailure::Whole(format!(
                "the samples of GPU {gpu} jump from {} to {} ({} later); one log \
                 cannot cover that — the machine's clock jumped, or two logs were joined \
                 (split the file there and import each part)",
                time(from),
                time(to),
                span(delta)
            )));
        }
        if delta > WARN_JUMP_MS {
            warnings.push(format!(
                "GPU {gpu} has no samples from {} to {} ({}); that silence counts as an \
                 interruption",
                time(from),
                time(to),
                span(delta)
            ));
        }
    }
    let n = steps.count();
    if duplicates > 0 {
        if duplicates * 2 >= n {
            return Err(ParseFailure::Whole(format!(
                "{} of the {n} samples of GPU {gpu} repeat the time of the sample before \
                 them; the log's times do not tell its samples apart: several GPUs logged \
                 under one index (name the column that numbers them `gpu` in the header), a \
                 clock that did not advance, or rows without times (--interval)",
                duplicates
            )));
        }
        warnings.push(format!(
            "{duplicates} samples of GPU {gpu} repeat the time of the sample before them"
        ));
    }
    Ok(warnings)
}

/// A measured figure may pass its card's datasheet peak by this much (boost
/// clocks above the rated ones, a datasheet rounded down); a figure beyond
/// it was not measured on that card.
pub const DATASHEET_MULTIPLE: f64 = 1.5;

/// Refuse a perf log claiming more than [`DATASHEET_MULTIPLE`] times its
/// card's datasheet peak (matrix rates, memory bandwidth), or a host copy
/// more than that multiple of what the card's own link carries.
pub fn refuse_beyond_datasheet(log: &crate::perf::PerfLog) -> Result<(), ParseFailure> {
    use crate::perf::reference;
    // A CPU split into devices to test the suite has no datasheet.
    if log.backend == "numpy" || log.backend == "cpu" {
        return Ok(());
    }
    for (i, r) in log.results.iter().enumerate() {
        let Some(name) = r.gpu.and_then(|g| log.gpu_name(g)) else {
            continue;
        };
        let card = crate::accelerator::normalise(name);
        let bound = match r.test.as_str() {
            "h2d" | "d2h" => r
                .link
                .and_then(|l| l.capacity_gbps())
                .map(|c| (c, format!("its PCIe link's {c:.1} GB/s"))),
            _ => reference::figure_of(&r.test, r.dtype.as_deref())
                .and_then(|figure| reference::nominal(&card, figure))
                .map(|peak| {
                    (
                        peak.value,
                        format!("the {} datasheet's {}", card.model, peak.cited()),
                    )
                }),
        };
        if let Some((peak, what)) = bound
            && r.median > DATASHEET_MULTIPLE * peak
        {
            return Err(ParseFailure::Whole(format!(
                "results[{i}] ({}): median {} {} is {:.1}× {what}; more than {DATASHEET_MULTIPLE}× was not measured on that card",
                r.label(),
                crate::perf::number(r.median),
                r.unit,
                r.median / peak
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const T0: i64 = 1_717_200_000_000; // 2024-06-01

    fn refused(r: Result<Vec<String>, ParseFailure>) -> String {
        match r {
            Err(ParseFailure::Whole(reason)) => reason,
            other => panic!("not refused: {:?}", other.ok()),
        }
    }

    #[test]
    fn a_block_fifty_years_ahead_is_refused_with_the_times() {
        let mut t: Vec<i64> = (0..100).map(|i| T0 + i * 1000).collect();
        t.extend((0..100).map(|i| T0 + 50 * 365 * DAY_MS + i * 1000));
        let reason = refused(check_times(0, &StepTally::of(&t)));
        assert!(
            reason.contains("jump from 2024-06-01 00:01:39 UTC to 2074-"),
            "{reason}"
        );
        assert!(reason.contains("(50 years later)"), "{reason}");
    }

    #[test]
    fn a_long_silence_is_kept_with_a_warning_and_short_ones_say_nothing() {
        let t = [T0, T0 + 1000, T0 + 3 * DAY_MS, T0 + 3 * DAY_MS + 1000];
        let w = check_times(1, &StepTally::of(&t)).unwrap();
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("GPU 1 has no samples from"), "{w:?}");
        assert!(w[0].contains("(3 days)"), "{w:?}");
        assert!(
            check_times(0, &StepTally::of(&[T0, T0 + 1000, T0 + 5000]))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn one_time_for_every_sample_is_refused_and_a_few_repeats_are_warned() {
        let same = vec![T0; 1000];
        assert!(refused(check_times(0, &StepTally::of(&same))).contains("999 of the 1000 samples"));
        let mut t: Vec<i64> = (0..100).map(|i| T0 + i * 1000).collect();
        t.insert(10, t[10]);
        let w = check_times(0, &StepTally::of(&t)).unwrap();
        assert_eq!(
            w,
            ["1 samples of GPU 0 repeat the time of the sample before them"]
        );
    }

    #[test]
    fn a_run_spanning_decades_is_refused_with_its_times() {
        let year = 365 * DAY_MS;
        let e = match refuse_span(0, 50 * year) {
            Err(ParseFailure::Whole(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(
            e.contains("span 50 years") && e.contains("1970-01-01"),
            "{e}"
        );
        assert!(refuse_span(year * 40, year * 42).is_ok());
    }

    #[test]
    fn future_times_are_refused_and_a_day_of_clock_skew_is_not() {
        let now = T0;
        assert!(refuse_future(now + DAY_MS / 2, now).is_ok());
        let Err(ParseFailure::Whole(reason)) = refuse_future(now + 50 * 365 * DAY_MS, now) else {
            panic!("accepted")
        };
        assert!(reason.contains("in the future"), "{reason}");
    }

    #[test]
    fn rows_newest_first_are_said_so() {
        assert!(
            order_warning(999, 1000)
                .unwrap()
                .contains("backwards in time")
        );
        assert!(
            order_warning(3, 1000)
                .unwrap()
                .starts_with("3 samples were out of")
        );
        assert_eq!(order_warning(0, 1000), None);
    }
}
