//! The `dcgmi diag` table as the terminal shows it:
//!
//! ```text
//! +---------------------------+------------------------------------------------+
//! | Diagnostic                | Result                                         |
//! +===========================+================================================+
//! |-----  Metadata  ----------+------------------------------------------------|
//! | DCGM Version              | 3.3.5                                          |
//! |-----  Deployment  --------+------------------------------------------------|
//! | Denylist                  | Pass                                           |
//! +-----  Hardware  ----------+------------------------------------------------+
//! | GPU Memory                | Pass - GPUs: 1, 2, 3                           |
//! |                           | Fail - GPU: 0                                  |
//! | Warning                   | GPU 0 Error using CUDA API cuCtxCreate Check   |
//! |                           | DCGM and system logs for errors. Reset GPU. R  |
//! |                           | estart DCGM. Rerun diagnostics.                |
//! ```
//!
//! DCGM 2.x and 3.x name tests for people ("GPU Memory") and give each a
//! status with the GPUs it applies to ("Pass - All", "Fail - GPU: 0");
//! DCGM 4.x names them as plugins ("memory") with a line per GPU
//! ("GPU0: Fail") and messages as "Warning: GPU0". Messages are cut into
//! pieces of one width, mid-word, so a piece of that width is joined to
//! the next as they stand, and a shorter one — it ended at a space the
//! padding swallowed — with a space.
//!
//! A result cell that cannot be read is never dropped: it is kept as the
//! test's result for every GPU — a failure or a warning when its status
//! word says so ("Fail - GPU: 0 (ECC)", "FAIL"), `unknown` otherwise — with
//! the line it stands on, so that the run's warnings name it and a failure
//! still counts.

use super::DiagResult;

#[derive(Debug, Default)]
pub(super) struct Table {
    pub results: Vec<DiagResult>,
    pub dcgm_version: Option<String>,
    pub driver_version: Option<String>,
    /// What could not be read and is not a result either, by line.
    pub warnings: Vec<String>,
}

/// What the left cell of a row says.
enum Left<'a> {
    Section(&'a str),
    Empty,
    /// "Warning", "Info", "Error", "Warning: GPU0": a message, maybe about
    /// one GPU; `error` for an Error row.
    Message {
        gpu: Option<String>,
        error: bool,
    },
    Label(&'a str),
}

fn left_cell(cell: &str) -> Left<'_> {
    let cell = cell.trim();
    if cell.starts_with("---") {
        let name = cell.trim_matches(|c: char| c == '-' || c.is_whitespace());
        return Left::Section(name);
    }
    if cell.is_empty() {
        return Left::Empty;
    }
    for word in ["Warning", "Info", "Error"] {
        if let Some(rest) = cell.strip_prefix(word) {
            let error = word == "Error";
            if rest.is_empty() {
                return Left::Message { gpu: None, error };
            }
            if let Some(target) = rest.strip_prefix(':') {
                return Left::Message {
                    gpu: gpu_of(target.trim()),
                    error,
                };
            }
        }
    }
    Left::Label(cell)
}

/// "GPU0", "GPU 3" → "0", "3".
fn gpu_of(text: &str) -> Option<String> {
    let digits = text.trim().strip_prefix("GPU")?.trim();
    (!digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())).then(|| digits.to_string())
}

/// A status and the GPUs it is for: "Pass", "Pass - All", "Fail - GPU: 0",
/// "Pass - GPUs: 1, 2, 3", "GPU0: Fail". `None` when the text is not one
/// (a wrapped message).
fn status_spec(text: &str) -> Option<(String, Vec<Option<String>>)> {
    const STATUSES: [&str; 6] = ["Pass", "Fail", "Warn", "Skip", "Not Run", "Running"];
    let text = text.trim();
    if let Some((gpu, status)) = text.split_once(':')
        && let Some(gpu) = gpu_of(gpu)
        && STATUSES.contains(&status.trim())
    {
        return Some((status.trim().to_string(), vec![Some(gpu)]));
    }
    let (status, target) = match text.split_once(" - ") {
        Some((s, t)) => (s.trim(), Some(t.trim())),
        None => (text, None),
    };
    if !STATUSES.contains(&status) {
        return None;
    }
    let gpus = match target {
        None | Some("All") => vec![None],
        Some(t) => {
            let list = t.strip_prefix("GPUs:").or_else(|| t.strip_prefix("GPU:"))?;
            let gpus: Vec<Option<String>> = list
                .split(',')
                .map(|g| g.trim())
                .filter(|g| !g.is_empty())
                .map(|g| {
                    g.bytes()
                        .all(|c| c.is_ascii_digit())
                        .then(|| Some(g.to_string()))
                })
                .collect::<Option<_>>()?;
            if gpus.is_empty() {
                return None;
            }
            gpus
        }
    };
    Some((status.to_string(), gpus))
}

/// Whether lines look like rows of the `dcgmi diag` table, headers or not:
/// a stage's separator ("|-----  Deployment  ---…"), or at least two rows
/// of a test's results — a row whose right cell is a diagnostic status
/// ("| Denylist | Pass |"), under a test's name or under the row before
/// ("|  | Fail - GPU: 0 |"), or a message about one ("| Warning | … |") —
/// one of them naming a test and its status.
pub(crate) fn looks_like_rows(lines: &[&str]) -> bool {
    const STAGES: [&str; 6] = [
        "Metadata",
        "Deployment",
        "Hardware",
        "Integration",
        "Stress",
        "Performance",
    ];
    let (mut tests, mut rows) = (0, 0);
    for line in lines {
        let Some(body) = line.trim().strip_prefix('|') else {
            continue;
        };
        let Some((left, right)) = body.split_once(['|', '+']) else {
            continue;
        };
        let status = status_spec(right.trim_end_matches(['|', '+'])).is_some();
        match left_cell(left) {
            Left::Section(name) if STAGES.contains(&name) => return true,
            Left::Label(_) if status => {
                tests += 1;
                rows += 1;
            }
            Left::Empty if status => rows += 1,
            Left::Message { .. } => rows += 1,
            _ => {}
        }
    }
    tests >= 1 && rows >= 2
}

pub(super) fn read(text: &str) -> Table {
    let mut table = Table::default();
    let mut category: Option<String> = None;
    let mut test: Option<String> = None;
    // The results of the current test, and the message being assembled
    // (which GPU it is about, and its text so far).
    let mut first_of_test = 0usize;
    let mut message: Option<Message> = None;
    let flush = |table: &mut Table, first: usize, message: &mut Option<Message>| {
        if let Some(Message { gpu, text, .. }) = message.take() {
            attach(&mut table.results[first..], gpu, text.trim());
        }
    };
    // A test whose own row gave no result (an empty cell): the line, so
    // that a test left without any result is named.
    let mut empty_row: Option<(String, usize)> = None;
    let no_result = |table: &mut Table, first: usize, empty_row: &mut Option<(String, usize)>| {
        if let Some((test, line)) = empty_row.take()
            && table.results.len() == first
        {
            table.warnings.push(format!(
                "line {line}: dcgmi diag: {test} has an empty result cell and no result \
                 after it; it was left out"
            ));
        }
    };
    let wrap = message_width(text);
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let Some((left, right)) = row_cells(line) else {
            continue;
        };
        let cell = right.strip_prefix(' ').unwrap_or(right);
        let right_text = piece(right);
        // A piece as long as dcgmi cuts them, or one that fills its cell,
        // was cut at that width, mid-word or not: the next piece goes on
        // from its last character. A shorter one ended at a space the
        // padding swallowed.
        let length = right_text.chars().count();
        let fills_cell = wrap.is_some_and(|w| length >= w) || length + 1 >= cell.chars().count();
        match left_cell(left) {
            Left::Section(name) => {
                flush(&mut table, first_of_test, &mut message);
                no_result(&mut table, first_of_test, &mut empty_row);
                category = Some(name.to_string()).filter(|n| !n.is_empty());
                test = None;
            }
            // The border under the header ("+=====+=====+").
            Left::Label(label) if label.bytes().all(|c| c == b'=') => {
                flush(&mut table, first_of_test, &mut message);
                no_result(&mut table, first_of_test, &mut empty_row);
                test = None;
            }
            Left::Label(label)
                if category.as_deref() == Some("Metadata") || is_metadata_label(label) =>
            {
                let value = right_text.trim().to_string();
                match label {
                    "DCGM Version" => table.dcgm_version = Some(value),
                    "Driver Version Detected" => table.driver_version = Some(value),
                    _ => {}
                }
            }
            // The header ("| Diagnostic | Result |"), not DCGM 3's
            // Hardware test of the same name.
            Left::Label("Diagnostic") if right_text.trim() == "Result" => {}
            Left::Label(label) => {
                flush(&mut table, first_of_test, &mut message);
                no_result(&mut table, first_of_test, &mut empty_row);
                // The test stands whatever its cell says, so that its
                // messages and further rows are read with it.
                first_of_test = table.results.len();
                test = Some(label.to_string());
                match status_spec(right_text) {
                    Some((status, gpus)) => push(&mut table, &category, label, &status, gpus),
                    // Its statuses may follow on rows of their own.
                    None if right_text.trim().is_empty() => {
                        empty_row = Some((label.to_string(), number));
                    }
                    None => unreadable(&mut table, &category, label, right_text, number),
                }
            }
            Left::Message { gpu, error } => {
                flush(&mut table, first_of_test, &mut message);
                let (gpu, text) = split_gpu_prefix(gpu, right_text);
                if test.is_none() && error {
                    // An error outside any test: the run stopped at this
                    // stage (a Deployment check found the GPU unfit). It
                    // is the stage's failed result.
                    let stage = category.clone().unwrap_or_else(|| "Diagnostic".into());
                    first_of_test = table.results.len();
                    push(&mut table, &category, &stage, "Fail", vec![gpu.clone()]);
                    test = Some(stage);
                }
                if test.is_some() {
                    message = Some(Message {
                        gpu,
                        text,
                        cut: fills_cell,
                    });
                }
            }
            Left::Empty => {
                if let Some(m) = &mut message {
                    if !m.cut && !right_text.starts_with(' ') {
                        m.text.push(' ');
                    }
                    m.text.push_str(right_text);
                    m.cut = fills_cell;
                } else if right_text.trim().is_empty() {
                    // A blank row.
                } else if let Some(name) = test.clone() {
                    let Some((status, gpus)) = status_spec(right_text) else {
                        unreadable(&mut table, &category, &name, right_text, number);
                        continue;
                    };
                    // More statuses of the same test, for other GPUs: they
                    // replace the test's blanket result where one was given
                    // — but a failure or warning only by rows that carry
                    // it, and a result that could not be read never, so
                    // that no trouble is replaced by a pass.
                    let blanket = table.results[first_of_test..].iter().position(|r| {
                        r.gpu.is_none()
                            && r.test == name
                            && !r.unread
                            && (!trouble(r) || r.status == status)
                    });
                    if let Some(at) = blanket
                        && gpus.iter().all(Option::is_some)
                    {
                        table.results.remove(first_of_test + at);
                    }
                    push(&mut table, &category, &name, &status, gpus);
                } else if status_spec(right_text).is_some() || status_word(right_text).is_some() {
                    table.warnings.push(format!(
                        "line {number}: dcgmi diag: the result \"{}\" follows no test; it was \
                         left out",
                        crate::text::printable_excerpt(right_text.trim(), 60)
                    ));
                }
            }
        }
    }
    flush(&mut table, first_of_test, &mut message);
    no_result(&mut table, first_of_test, &mut empty_row);
    table
}

/// A row's left and right cells, without its outer borders; `None` for a
/// line that is no row of the table. A row pasted without its right
/// border (trailing blanks trimmed by an editor) is a row all the same.
fn row_cells(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_end();
    let body = line.strip_prefix('|').or_else(|| line.strip_prefix('+'))?;
    let body = body
        .strip_suffix('|')
        .or_else(|| body.strip_suffix('+'))
        .unwrap_or(body);
    body.split_once(['|', '+'])
}

/// A right cell's text: after the one space that follows the border, and
/// without the padding that fills the cell.
fn piece(right: &str) -> &str {
    right.strip_prefix(' ').unwrap_or(right).trim_end()
}

/// The width dcgmi cut the table's messages at, where the table shows it:
/// the longest piece of any message, when more than one piece is that
/// long. Every piece but a message's last is cut at one width, mid-word or
/// not, and that width is not always the cell's (DCGM 3.x cuts at 45
/// characters in a cell of 46), so it is measured rather than assumed; a
/// single long piece could be one whose last character was a space the
/// padding swallowed, and measures nothing.
fn message_width(text: &str) -> Option<usize> {
    let (mut width, mut pieces) = (0, 0);
    let mut in_message = false;
    for line in text.lines() {
        let Some((left, right)) = row_cells(line) else {
            continue;
        };
        in_message = match left_cell(left) {
            Left::Message { .. } => true,
            Left::Empty => in_message,
            _ => false,
        };
        if !in_message {
            continue;
        }
        let length = piece(right).chars().count();
        if length > width {
            (width, pieces) = (length, 1);
        } else if length == width {
            pieces += 1;
        }
    }
    (pieces > 1).then_some(width)
}

/// The status of a result whose cell could not be read and names no
/// failure or warning.
const UNKNOWN: &str = "unknown";

/// Rows of the Metadata stage that also appear without its separator (a
/// paste of part of the table): "DCGM Version", "Driver Version Detected",
/// "GPU Device IDs Detected".
fn is_metadata_label(label: &str) -> bool {
    label.ends_with(" Version") || label.ends_with(" Detected")
}

/// "Fail", "FAILED", "Warning": the status word a cell opens with, when it
/// names trouble, whatever the case and whatever follows.
fn status_word(cell: &str) -> Option<&'static str> {
    let word = cell
        .trim()
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match word.as_str() {
        "fail" | "failed" | "failure" => Some("Fail"),
        "warn" | "warning" => Some("Warn"),
        _ => None,
    }
}

/// A result cell that cannot be read ("Fail - GPU: 0 (ECC)", "FAIL - All",
/// "Pass - GPUs: 1, x"): kept as the test's result for every GPU — the
/// only result the data can hold without naming GPUs — with its status
/// when the cell names a failure or warning, `unknown` otherwise; the
/// message quotes the cell and names the line.
fn unreadable(table: &mut Table, category: &Option<String>, test: &str, cell: &str, line: usize) {
    let quoted = crate::text::printable_excerpt(cell.trim(), 60);
    let (status, message) = match status_word(cell) {
        Some(status) => (
            status,
            format!(
                "line {line}: the result \"{quoted}\" cannot be read; kept as {} on every GPU",
                if status == "Fail" {
                    "a failure"
                } else {
                    "a warning"
                }
            ),
        ),
        None => (
            UNKNOWN,
            format!("line {line}: the result \"{quoted}\" cannot be read"),
        ),
    };
    table.results.push(DiagResult {
        category: category.clone(),
        test: test.to_string(),
        gpu: None,
        status: status.to_string(),
        message: Some(message),
        unread: true,
    });
}

/// A result other than a pass or a skip: a failure, a warning, one that
/// could not be read.
fn trouble(r: &DiagResult) -> bool {
    !matches!(r.status.as_str(), "Pass" | "Skip")
}

/// A message being read, piece by piece.
struct Message {
    gpu: Option<String>,
    text: String,
    /// The last piece filled its cell: the next continues the same word.
    cut: bool,
}

fn push(
    table: &mut Table,
    category: &Option<String>,
    test: &str,
    status: &str,
    gpus: Vec<Option<String>>,
) {
    for gpu in gpus {
        table.results.push(DiagResult {
            category: category.clone(),
            test: test.to_string(),
            gpu,
            status: status.to_string(),
            message: None,
            unread: false,
        });
    }
}

/// "GPU 0 Error using CUDA API …": the GPU a message opens with, when the
/// left cell did not name one.
fn split_gpu_prefix(gpu: Option<String>, text: &str) -> (Option<String>, String) {
    if gpu.is_some() {
        return (gpu, text.to_string());
    }
    let mut words = text.splitn(3, ' ');
    match (words.next(), words.next()) {
        (Some("GPU"), Some(n)) if n.bytes().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
            (Some(n.to_string()), text.to_string())
        }
        _ => (None, text.to_string()),
    }
}

/// A message goes to the test's result for its GPU — the failing or
/// warning one first — or to the whole test's.
fn attach(results: &mut [DiagResult], gpu: Option<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    let target = results
        .iter()
        .position(|r| gpu.is_some() && r.gpu == gpu)
        .or_else(|| results.iter().position(|r| r.gpu.is_none()))
        .or_else(|| results.iter().position(trouble))
        .or(if results.is_empty() { None } else { Some(0) });
    if let Some(i) = target {
        let r = &mut results[i];
        r.message = Some(match r.message.take() {
            Some(m) => format!("{m}; {text}"),
            None => text.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diagnostic_test_is_a_result_and_the_header_is_not() {
        let t = read(
            "| Diagnostic                | Result                                         |\n\
             +===========================+================================================+\n\
             +-----  Hardware  ----------+------------------------------------------------+\n\
             | GPU Memory                | Pass - All                                     |\n\
             | Diagnostic                | Fail - GPU: 1                                  |\n",
        );
        let kept: Vec<_> = t
            .results
            .iter()
            .map(|r| (r.test.as_str(), r.gpu.as_deref(), r.status.as_str()))
            .collect();
        assert_eq!(
            kept,
            vec![
                ("GPU Memory", None, "Pass"),
                ("Diagnostic", Some("1"), "Fail")
            ]
        );
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn status_specs_of_every_generation() {
        assert_eq!(status_spec("Pass"), Some(("Pass".into(), vec![None])));
        assert_eq!(status_spec("Warn - All"), Some(("Warn".into(), vec![None])));
        assert_eq!(
            status_spec("Fail - GPU: 0"),
            Some(("Fail".into(), vec![Some("0".into())]))
        );
        assert_eq!(
            status_spec("Pass - GPUs: 1, 2, 3"),
            Some((
                "Pass".into(),
                vec![Some("1".into()), Some("2".into()), Some("3".into())]
            ))
        );
        assert_eq!(
            status_spec("GPU3: Skip"),
            Some(("Skip".into(), vec![Some("3".into())]))
        );
        assert_eq!(
            status_spec("DCGM and system logs for errors. Reset GPU. R"),
            None
        );
        assert_eq!(status_spec("Passed the time"), None);
    }
}
