//! nvbandwidth (NVIDIA/nvbandwidth): copy bandwidth between the host and
//! each GPU and between every pair of GPUs, by the copy engines (`_ce`) or
//! by kernels (`_sm`), as one matrix per test.
//!
//! ```text
//! Device 0: NVIDIA H100 80GB HBM3 (00000000:19:00)
//! Running host_to_device_memcpy_ce.
//! memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
//!            0         1
//!  0     55.62     55.63
//! SUM host_to_device_memcpy_ce 111.25
//! ```
//!
//! Kept: each GPU's host → device and device → host copy (`h2d`, `d2h`:
//! the straggler rule compares them across the node) and each pair's
//! device → device copy (`p2p`), preferring the copy engines' figure where
//! both ran. Other tests (bidirectional, all-to-host, latency) are named in
//! a warning and left out.

use std::io::BufRead;

use super::{Checked, read_lines};
use crate::ParseContext;
use crate::builder::{ParseFailure, ParseResult, RunBuilder};

/// `memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)` and its kin.
pub(super) fn is_matrix_title(line: &str) -> bool {
    (line.starts_with("memcpy") || line.starts_with("memory latency"))
        && (line.contains("(row)") && line.contains("(column)"))
}

/// What a test's matrix holds, by its name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Matrix {
    /// One row (the CPU), a column per GPU.
    HostToDevice,
    DeviceToHost,
    /// A row per source GPU, a column per destination.
    DeviceToDevice,
}

/// What a matrix's title says it holds (`memcpy CE CPU(row) -> GPU(column)`),
/// whether the copy engines made it, and whether its rows are the
/// destinations (`GPU(row) <- GPU(column)`); `None` for a bidirectional or
/// latency matrix.
fn matrix_of_title(title: &str) -> Option<(Matrix, bool, bool)> {
    if title.contains("<->") || title.starts_with("memory latency") {
        return None;
    }
    let engine = title.contains(" CE ");
    let back = title.contains("(row) <-");
    let matrix = match (title.contains("CPU(row)"), title.contains("CPU(column)")) {
        (true, _) if back => Matrix::DeviceToHost,
        (true, _) => Matrix::HostToDevice,
        (false, true) => return None,
        (false, false) => Matrix::DeviceToDevice,
    };
    Some((matrix, engine, back))
}

fn matrix_of(test: &str) -> Option<Matrix> {
    let plain = |prefix: &str| {
        test.strip_prefix(prefix)
            .is_some_and(|rest| rest == "memcpy_ce" || rest == "memcpy_sm")
    };
    if plain("host_to_device_") {
        Some(Matrix::HostToDevice)
    } else if plain("device_to_host_") {
        Some(Matrix::DeviceToHost)
    } else if test.starts_with("device_to_device_memcpy_") && !test.contains("bidirectional") {
        Some(Matrix::DeviceToDevice)
    } else {
        None
    }
}

/// The copies kept from every matrix, a copy-engine figure winning over a
/// kernel's for the same copy.
#[derive(Default)]
struct Copies {
    /// (test, gpu, peer, value, by the copy engines)
    figures: Vec<(&'static str, u32, Option<u32>, f64, bool)>,
}

impl Copies {
    /// One cell of a matrix: row `row`, column `column`.
    fn take(
        &mut self,
        (kind, engine, back): (Matrix, bool, bool),
        row: u32,
        column: u32,
        value: f64,
    ) {
        // N/A (a GPU to itself), a zero or a nonsense figure is no copy.
        if !(value.is_finite() && value > 0.0) {
            return;
        }
        let (test, gpu, peer) = match kind {
            Matrix::HostToDevice => ("h2d", column, None),
            Matrix::DeviceToHost => ("d2h", column, None),
            Matrix::DeviceToDevice if back => ("p2p", column, Some(row)),
            Matrix::DeviceToDevice => ("p2p", row, Some(column)),
        };
        match self
            .figures
            .iter()
            .position(|k| k.0 == test && k.1 == gpu && k.2 == peer)
        {
            Some(at) if !self.figures[at].4 && engine => {
                self.figures[at] = (test, gpu, peer, value, engine);
            }
            Some(_) => {}
            None => self.figures.push((test, gpu, peer, value, engine)),
        }
    }

    /// The run: each copy a figure of its GPU (and peer).
    fn finish(
        self,
        mut checked: Checked,
        left_out: &[String],
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        for (test, gpu, peer, value, _) in self.figures {
            checked.gpu(gpu, "");
            if let Some(p) = peer {
                checked.gpu(p, "");
            }
            if let Some(f) = checked.figure(test, "GB/s", &[value]) {
                f.gpu = Some(gpu);
                f.peer = peer;
            }
        }
        if !left_out.is_empty() {
            b.warn(format!(
                "nvbandwidth: {} left out (only host↔device and device→device copies are read)",
                left_out.join(", ")
            ));
        }
        if checked.results.is_empty() {
            return Err(ParseFailure::Whole(
                "no nvbandwidth matrix of host↔device or device→device copies found".into(),
            ));
        }
        checked.finish(ctx, b)
    }
}

pub(crate) fn parse<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let lines = read_lines(input, "the nvbandwidth output")?;
    if lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with('{'))
    {
        return parse_json(&lines.join("\n"), ctx, b);
    }
    let mut checked = Checked::new("nvbandwidth");
    // The matrix being read: what it holds, by the copy engines, rows
    // being destinations; `None` outside one or in one left out.
    let mut matrix: Option<(Matrix, bool, bool)> = None;
    let mut skipping = false;
    let mut columns: Vec<u32> = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    let mut copies = Copies::default();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("nvbandwidth Version:") {
            checked.version = Some(v.trim().to_string());
        } else if let Some(rest) = t.strip_prefix("Device ")
            && let Some((index, name)) = rest.split_once(':')
            && let Ok(index) = index.trim().parse::<u32>()
        {
            // "NVIDIA H100 80GB HBM3 (00000000:19:00)": the bus in brackets.
            let name = match name.rsplit_once(" (") {
                Some((n, bus)) if bus.ends_with(')') && bus.contains(':') => n,
                _ => name,
            };
            checked.gpu(index, name.trim());
        } else if let Some(rest) = t.strip_prefix("Running ") {
            let name = rest.trim().trim_end_matches('.').to_string();
            skipping = matrix_of(&name).is_none();
            if skipping {
                left_out.push(name);
            }
            matrix = None;
        } else if is_matrix_title(t) {
            matrix = if skipping { None } else { matrix_of_title(t) };
            columns.clear();
        } else if matrix.is_some()
            && columns.is_empty()
            && t.split_whitespace().all(|w| w.parse::<u32>().is_ok())
        {
            columns = t
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
        } else if let Some(read) = matrix
            && !columns.is_empty()
        {
            let cells: Vec<&str> = t.split_whitespace().collect();
            let Some(row) = cells.first().and_then(|c| c.parse::<u32>().ok()) else {
                matrix = None;
                continue;
            };
            if cells.len() != columns.len() + 1 {
                return Err(ParseFailure::Whole(format!(
                    "line {}: a matrix row {row} has {} cells for {} columns",
                    i + 1,
                    cells.len() - 1,
                    columns.len()
                )));
            }
            for (cell, &column) in cells[1..].iter().zip(&columns) {
                if let Ok(value) = cell.parse::<f64>() {
                    copies.take(read, row, column, value);
                }
            }
        }
    }
    copies.finish(checked, &left_out, ctx, b)
}

/// `nvbandwidth -j`: `{"nvbandwidth": {"GPU Device list": ["0: Tesla T4
/// (00000000:3b:00): (…)"], "testcases": [{"name", "bandwidth_description",
/// "bandwidth_matrix": [["12.35", …]], "status"}]}}` — the same matrices
/// with the same titles, their cells as text ("N/A" on a diagonal).
fn parse_json(text: &str, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    use serde_json::Value;
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| ParseFailure::Whole(format!("the nvbandwidth JSON cannot be read: {e}")))?;
    let Some(root) = doc.get("nvbandwidth").and_then(Value::as_object) else {
        return Err(ParseFailure::Whole(
            "no \"nvbandwidth\" object: not nvbandwidth's JSON".into(),
        ));
    };
    let mut checked = Checked::new("nvbandwidth");
    checked.version = root
        .get("version")
        .or_else(|| root.get("git_version"))
        .and_then(Value::as_str)
        .map(|v| crate::text::printable_excerpt(v, 40));
    for device in root
        .get("GPU Device list")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        // "0: Tesla T4 (00000000:3b:00): (4329ebc474e0)"
        if let Some((index, rest)) = device.split_once(':')
            && let Ok(index) = index.trim().parse::<u32>()
        {
            let name = rest.split(" (").next().unwrap_or(rest).trim();
            checked.gpu(index, &crate::text::printable_excerpt(name, 80));
        }
    }
    let mut left_out = Vec::new();
    let mut copies = Copies::default();
    for case in root
        .get("testcases")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = case.get("name").and_then(Value::as_str).unwrap_or("?");
        let title = case
            .get("bandwidth_description")
            .and_then(Value::as_str)
            .unwrap_or("");
        let passed = case
            .get("status")
            .and_then(Value::as_str)
            .is_none_or(|s| s.eq_ignore_ascii_case("passed"));
        let read = matrix_of(name).and(matrix_of_title(title));
        let (Some(read), true) = (read, passed) else {
            left_out.push(crate::text::printable_excerpt(name, 60));
            continue;
        };
        let rows = case.get("bandwidth_matrix").and_then(Value::as_array);
        for (row, cells) in rows.into_iter().flatten().enumerate() {
            for (column, cell) in cells.as_array().into_iter().flatten().enumerate() {
                let value = match cell {
                    Value::String(s) => s.trim().parse::<f64>().ok(),
                    Value::Number(n) => n.as_f64(),
                    _ => None,
                };
                if let (Some(value), Ok(row), Ok(column)) =
                    (value, u32::try_from(row), u32::try_from(column))
                {
                    copies.take(read, row, column, value);
                }
            }
        }
    }
    copies.finish(checked, &left_out, ctx, b)
}
