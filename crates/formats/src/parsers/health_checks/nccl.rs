//! nccl-tests (`all_reduce_perf`, `all_gather_perf`, …): the table of
//! message sizes with each one's time, algorithm and bus bandwidth and
//! `#wrong` (results that failed validation), out of place and in place.
//!
//! ```text
//! # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 …
//! #  Rank  0 Group  0 Pid  46321 on    node-1 device  0 [0x1b] NVIDIA H100 80GB HBM3
//! #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//!   8589934592    2147483648     float     sum      -1    35870  239.47  419.08      0    35840  239.67  419.42      0
//! # Avg bus bandwidth    : 150.123
//! ```
//!
//! Kept: the bus bandwidth at the largest size (the fabric's sustained
//! rate; small sizes measure latency), every rank's GPU and host, and any
//! wrong result — data a collective corrupted — as a finding. Versions
//! before 2.13 print no `root` column and no test name: the columns are
//! read by the header's names, the collective from its sizes and counts.

use std::io::BufRead;

use super::super::perf_log::COLLECTIVES;
use super::{Checked, number_in, read_lines};
use crate::ParseContext;
use crate::builder::{ParseFailure, ParseResult, RunBuilder};

/// Whether `line` (after its `#`) is the table's column header.
pub(super) fn is_column_header(line: &str) -> bool {
    let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
    words.first() == Some(&"size")
        && words.contains(&"busbw")
        && words.contains(&"algbw")
        && words.contains(&"time")
}

/// One measured size, out of place and in place.
struct Row {
    size: u64,
    count: u64,
    type_bytes: Option<u64>,
    redop: Option<String>,
    root: Option<i64>,
    busbw: Vec<f64>,
    wrong: u64,
    line: usize,
}

/// One collective's table (an output may hold several, one after another).
#[derive(Default)]
struct Table {
    named: Option<String>,
    columns: Vec<String>,
    rows: Vec<Row>,
}

pub(crate) fn parse<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let lines = read_lines(input, "the nccl-tests output")?;
    let mut checked = Checked::new("nccl-tests");
    let mut tables: Vec<Table> = vec![Table::default()];
    let mut ranks: Vec<(u32, String)> = Vec::new();
    let mut avg_busbw: Vec<f64> = Vec::new();
    let mut out_of_bounds = 0u64;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        let table = tables.last_mut().expect("one table at least");
        if let Some(rest) = t.strip_prefix("# nccl-tests version") {
            checked.version = rest.split_whitespace().next().map(str::to_string);
        } else if let Some(rest) = t.strip_prefix("# Collective test starting:") {
            let named = Some(rest.trim().trim_end_matches("_perf").to_string());
            if table.rows.is_empty() {
                table.named = named;
            } else {
                tables.push(Table {
                    named,
                    ..Table::default()
                });
            }
        } else if t.starts_with('#') && is_column_header(t) {
            // The header's first line names the columns; its unit line
            // ("(B) (elements) …") does not start with "size".
            let columns: Vec<String> = t
                .trim_start_matches('#')
                .split_whitespace()
                .map(str::to_string)
                .collect();
            if table.rows.is_empty() {
                table.columns = columns;
            } else {
                tables.push(Table {
                    columns,
                    ..Table::default()
                });
            }
        } else if let Some(rank) = rank_line(t) {
            if !ranks.iter().any(|(r, _)| *r == rank.rank) {
                ranks.push((rank.rank, rank.host.clone()));
                checked.gpu(rank.rank, &rank.name);
                checked.gpu_hosts.push((rank.rank, rank.host));
            }
        } else if let Some(rest) = t.strip_prefix("# Avg bus bandwidth") {
            avg_busbw.extend(number_in(rest));
        } else if let Some(rest) = t.strip_prefix("# Out of bounds values") {
            out_of_bounds += number_in(rest).map_or(0, |v| v as u64);
        } else if !t.starts_with('#')
            && !table.columns.is_empty()
            && let Some(row) = read_row(t, &table.columns, i + 1).map_err(ParseFailure::Whole)?
        {
            table.rows.push(row);
        }
    }
    tables.retain(|t| !t.rows.is_empty());
    if tables.is_empty() {
        return Err(ParseFailure::Whole(
            "no nccl-tests result row found under the size/count/type … busbw #wrong header".into(),
        ));
    }
    let hosts: Vec<&String> = {
        let mut h: Vec<&String> = ranks.iter().map(|(_, h)| h).collect();
        h.sort();
        h.dedup();
        h
    };
    if let [host] = hosts.as_slice() {
        checked.host = Some((*host).clone());
    }
    let rank_count = ranks.len().max(1) as u64;
    let gpus: Vec<u32> = ranks.iter().map(|(r, _)| *r).collect();
    let mut moved_nothing: Vec<String> = Vec::new();
    for (n, table) in tables.iter().enumerate() {
        let test = table
            .named
            .clone()
            .filter(|n| COLLECTIVES.contains(&n.as_str()))
            .unwrap_or_else(|| infer_collective(&table.rows, rank_count).to_string());
        let largest = table.rows.iter().map(|r| r.size).max().unwrap_or(0);
        let at_largest: Vec<f64> = table
            .rows
            .iter()
            .filter(|r| r.size == largest)
            .flat_map(|r| r.busbw.iter().copied())
            .collect();
        if at_largest.is_empty() {
            moved_nothing.push(test.clone());
        }
        if let Some(figure) = checked.figure(&test, "GB/s", &at_largest) {
            figure.gpus = gpus.clone();
            figure
                .settings
                .insert("size_bytes".into(), serde_json::json!(largest));
            figure
                .settings
                .insert("ranks".into(), serde_json::json!(rank_count));
            figure
                .settings
                .insert("nodes".into(), serde_json::json!(hosts.len().max(1)));
            // The summary line follows each table, in order.
            if let Some(avg) = avg_busbw.get(n) {
                figure
                    .settings
                    .insert("avg_busbw".into(), serde_json::json!(avg));
            }
        }
        let wrong: Vec<&Row> = table.rows.iter().filter(|r| r.wrong > 0).collect();
        if !wrong.is_empty() {
            let total: u64 = wrong.iter().map(|r| r.wrong).sum();
            let lines: Vec<String> = wrong.iter().map(|r| r.line.to_string()).collect();
            checked.findings.push((
                None,
                format!(
                    "{test}: {total} wrong results at {} message sizes (lines {}; data corrupted \
                     in the collective)",
                    wrong.len(),
                    lines.join(", ")
                ),
            ));
        }
    }
    if out_of_bounds > 0 && checked.findings.is_empty() {
        checked.findings.push((
            None,
            format!("{out_of_bounds} out-of-bounds values (data corrupted in the collective)"),
        ));
    }
    if checked.results.is_empty() && checked.findings.is_empty() {
        return Err(ParseFailure::Whole(format!(
            "{} on {rank_count} rank(s) moved nothing between GPUs (bus bandwidth 0 at every \
             size): no figure to keep",
            moved_nothing.join(", ")
        )));
    }
    // Validation checks every rank's result: each rank's GPU was judged,
    // unless validation was off (#wrong "N/A" throughout).
    if !validation_off(&lines) {
        for g in gpus {
            checked.judged(g);
        }
    }
    checked.finish(ctx, b)
}

fn validation_off(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|l| l.trim_start().starts_with("# nThread") && l.contains("validation: 0"))
}

struct Rank {
    rank: u32,
    host: String,
    name: String,
}

/// `#  Rank  0 Group  0 Pid  46321 on    node-1 device  0 [0x1b] NVIDIA H100 80GB HBM3`
/// (older versions without `Group`).
fn rank_line(line: &str) -> Option<Rank> {
    let rest = line.strip_prefix('#')?.trim_start().strip_prefix("Rank")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let rank: u32 = words.first()?.parse().ok()?;
    let on = words.iter().position(|w| *w == "on")?;
    let host = words.get(on + 1)?.to_string();
    let device = words.iter().position(|w| *w == "device")?;
    let mut name_from = device + 2;
    if words.get(name_from).is_some_and(|w| w.starts_with('[')) {
        name_from += 1;
    }
    let name = words.get(name_from..).unwrap_or_default().join(" ");
    Some(Rank { rank, host, name })
}

/// A data row by the header's columns; `None` for a line that is not one
/// (a warning nccl printed between rows); an error naming the line for a
/// row whose bandwidth cannot be read.
fn read_row(line: &str, columns: &[String], at: usize) -> Result<Option<Row>, String> {
    let cells: Vec<&str> = line.split_whitespace().collect();
    if cells.len() != columns.len() || cells[0].parse::<u64>().is_err() {
        return Ok(None);
    }
    let column = |name: &str| columns.iter().position(|c| c == name);
    let cell = |name: &str| column(name).map(|i| cells[i]);
    let size: u64 = cells[0].parse().unwrap_or(0);
    let count: u64 = cell("count").and_then(|c| c.parse().ok()).unwrap_or(0);
    let mut busbw = Vec::new();
    let mut wrong = 0u64;
    for (i, name) in columns.iter().enumerate() {
        match name.as_str() {
            "busbw" => match cells[i].parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => busbw.push(v),
                _ => {
                    return Err(format!(
                        "line {at}: the bus bandwidth {:?} is not a number",
                        cells[i]
                    ));
                }
            },
            "#wrong" => wrong += cells[i].parse::<u64>().unwrap_or(0),
            _ => {}
        }
    }
    busbw.retain(|v| *v > 0.0);
    Ok(Some(Row {
        size,
        count,
        type_bytes: cell("type").and_then(type_bytes),
        redop: cell("redop").map(str::to_string),
        root: cell("root").and_then(|r| r.parse().ok()),
        busbw,
        wrong,
        line: at,
    }))
}

fn type_bytes(name: &str) -> Option<u64> {
    Some(match name {
        "int8" | "uint8" | "char" | "f8e4m3" | "f8e5m2" | "fp8_e4m3" | "fp8_e5m2" => 1,
        "half" | "bfloat16" | "float16" => 2,
        "int32" | "uint32" | "float" | "int" => 4,
        "int64" | "uint64" | "double" => 8,
        _ => return None,
    })
}

/// The collective an output without its name ran, from how its counts
/// relate to its sizes: an all-reduce moves `count` elements on every rank,
/// an all-gather or a reduce-scatter a rank's share of them.
fn infer_collective(rows: &[Row], ranks: u64) -> &'static str {
    let Some(row) = rows.iter().max_by_key(|r| r.size) else {
        return "all_reduce";
    };
    let whole = row.type_bytes.is_some_and(|t| row.count * t == row.size);
    let reduces = row.redop.as_deref().is_some_and(|r| r != "none");
    match (reduces, whole, row.root) {
        (true, true, Some(r)) if r >= 0 => "reduce",
        (true, true, _) => "all_reduce",
        (true, false, _) => "reduce_scatter",
        (false, true, Some(r)) if r >= 0 => "broadcast",
        (false, _, _) if ranks > 1 => "all_gather",
        _ => "all_reduce",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_line_of_either_generation_names_its_host_and_card() {
        let r = rank_line(
            "#  Rank  3 Group  0 Pid  46321 on    node-1 device  3 [0x5d] NVIDIA H100 80GB HBM3",
        )
        .unwrap();
        assert_eq!(
            (r.rank, r.host.as_str(), r.name.as_str()),
            (3, "node-1", "NVIDIA H100 80GB HBM3")
        );
        let r = rank_line("#   Rank  1 Pid  12066 on dgx-02 device  1 [0x0f] Tesla V100-SXM2-32GB")
            .unwrap();
        assert_eq!(
            (r.rank, r.host.as_str(), r.name.as_str()),
            (1, "dgx-02", "Tesla V100-SXM2-32GB")
        );
    }

    #[test]
    fn a_collective_without_its_name_is_told_by_its_counts() {
        let row = |count: u64, redop: &str, root: Option<i64>| Row {
            size: 1024,
            count,
            type_bytes: Some(4),
            redop: Some(redop.into()),
            root,
            busbw: vec![1.0],
            wrong: 0,
            line: 1,
        };
        assert_eq!(
            infer_collective(&[row(256, "sum", Some(-1))], 8),
            "all_reduce"
        );
        assert_eq!(
            infer_collective(&[row(32, "sum", Some(-1))], 8),
            "reduce_scatter"
        );
        assert_eq!(
            infer_collective(&[row(32, "none", Some(-1))], 8),
            "all_gather"
        );
        assert_eq!(
            infer_collective(&[row(256, "none", Some(0))], 8),
            "broadcast"
        );
    }
}
