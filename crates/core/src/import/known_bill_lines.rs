//! Bill lines the workspace holds already. The same bill imported again in
//! other bytes (its GBK copy, one more newline) passes the file-identity
//! check and would count every line twice; an export that overlaps an
//! earlier one (November, then 15 November to 15 December) repeats the
//! lines of the days both cover. A line already held is left out, and the
//! summary says how many and where they are; a bill whose every line is
//! held is refused, naming the run that holds it.

use super::ParseFailure;
use crate::domain::BillingLine;
use crate::store::{BillLinesWritten, Store};

/// Leave out of `lines` (the bill being imported as run `run_id`, beside
/// the lines `streamed` as they were read) those the platform's other runs
/// hold; a warning saying so, if any was.
pub(super) fn leave_out(
    store: &Store,
    run_id: i64,
    lines: &mut Vec<BillingLine>,
    streamed: &BillLinesWritten,
) -> Result<Option<String>, ParseFailure> {
    let mut earlier_runs: Vec<i64> = streamed.earlier_runs.clone();
    let total = lines.len() + (streamed.stored + streamed.held_before) as usize;
    if total == 0 {
        return Ok(None);
    }
    // In place: a bill of a million lines is not held twice.
    let mut failed = None;
    lines.retain(|line| {
        if failed.is_some() {
            return true;
        }
        match store.bill_line_imported_before(run_id, line) {
            Ok(Some(run)) => {
                if !earlier_runs.contains(&run) {
                    earlier_runs.push(run);
                }
                false
            }
            Ok(None) => true,
            Err(e) => {
                failed = Some(e);
                true
            }
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    if earlier_runs.is_empty() {
        return Ok(None);
    }
    earlier_runs.sort_unstable();
    let runs = earlier_runs
        .iter()
        .map(|r| format!("#{r}"))
        .collect::<Vec<_>>()
        .join(", ");
    let kept = lines.len() + streamed.stored as usize;
    if kept == 0 {
        return Err(ParseFailure::Whole(format!(
            "every line of this bill is in the workspace already (run {runs}): the same bill imported before, perhaps in other bytes (another encoding or line ending); nothing imported"
        )));
    }
    Ok(Some(format!(
        "{} of {total} line(s) are in the workspace already (run {runs}: an export overlapping an earlier one) and were left out",
        total - kept
    )))
}
