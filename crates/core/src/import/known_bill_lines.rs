//! Bill lines the workspace holds already. The same bill imported again in
//! other bytes (its GBK copy, one more newline) passes the file-identity
//! check and would count every line twice; an export that overlaps an
//! earlier one (November, then 15 November to 15 December) repeats the
//! lines of the days both cover. A line already held is left out, and the
//! summary says how many and where they are; a bill whose every line is
//! held is refused, naming the run that holds it.

use super::ParseFailure;
use crate::domain::BillingLine;
use crate::store::Store;

/// Leave out of `lines` (the bill being imported as run `run_id`) those the
/// platform's other runs hold; a warning saying so, if any was.
pub(super) fn leave_out(
    store: &Store,
    run_id: i64,
    lines: &mut Vec<BillingLine>,
) -> Result<Option<String>, ParseFailure> {
    if lines.is_empty() {
        return Ok(None);
    }
    let mut earlier_runs: Vec<i64> = Vec::new();
    let total = lines.len();
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
    if lines.is_empty() {
        return Err(ParseFailure::Whole(format!(
            "every line of this bill is in the workspace already (run {runs}): the same bill imported before, perhaps in other bytes (another encoding or line ending); nothing imported"
        )));
    }
    Ok(Some(format!(
        "{} of {total} line(s) are in the workspace already (run {runs}: an export overlapping an earlier one) and were left out",
        total - lines.len()
    )))
}
