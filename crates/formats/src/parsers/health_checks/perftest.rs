//! perftest (linux-rdma/perftest): `ib_write_bw`, `ib_read_bw`,
//! `ib_send_bw` and their `_lat` twins, between two hosts over the fabric.
//!
//! ```text
//!                     RDMA_Write BW Test
//!  Device         : mlx5_0
//!  Link type       : IB
//!  #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
//!  65536      5000             390.12             389.98             0.743826
//! ```
//!
//! Kept: the average bandwidth at the largest message (GB/s, whatever unit
//! the run printed: MB/sec and MiB/sec are 2²⁰ bytes in perftest, Gb/sec
//! 10⁹ bits), or the latency table's typical figure with its extremes and
//! percentiles (µs), with the device. A port's rate (`Rate: 400` of an
//! `ibstat` pasted beside it) is kept to hold the bandwidth against.

use std::io::BufRead;

use super::{Checked, number_in, read_lines};
use crate::ParseContext;
use crate::builder::{ParseFailure, ParseResult, RunBuilder};

/// "RDMA_Write BW Test", "RDMA_Read Latency Test", "Send BW Test".
pub(super) fn is_title(line: &str) -> bool {
    let t = line.trim();
    (t.starts_with("RDMA_") || t.starts_with("Send ") || t.starts_with("Atomic"))
        && (t.ends_with("BW Test") || t.ends_with("Latency Test"))
}

/// The results table's header.
pub(super) fn is_table_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("#bytes")
        && t.contains("#iterations")
        && (t.contains("BW average") || t.contains("t_typical") || t.contains("t_avg"))
}

pub(crate) fn parse<R: BufRead>(
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let lines = read_lines(input, "the perftest output")?;
    let mut checked = Checked::new("perftest");
    let mut title: Option<String> = None;
    let mut device: Option<String> = None;
    let mut rate_gbps: Option<f64> = None;
    let mut header: Option<Vec<String>> = None;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if is_title(t) {
            title = Some(t.to_string());
        } else if is_table_header(t) {
            header = Some(columns(t));
        } else if let Some(rest) = t.strip_prefix("Device") {
            if let Some((_, name)) = rest.split_once(':') {
                let name = name.split_whitespace().next().unwrap_or("");
                if !name.is_empty() && device.is_none() {
                    device = Some(name.to_string());
                }
            }
        } else if let Some(rest) = t.strip_prefix("Rate:") {
            rate_gbps = number_in(rest).filter(|r| *r > 0.0);
        } else if let Some(h) = &header
            && t.starts_with(|c: char| c.is_ascii_digit())
        {
            let cells: Vec<f64> = t
                .split_whitespace()
                .map(|c| c.parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    ParseFailure::Whole(format!(
                        "line {}: a perftest result row holds a cell that is not a number: {t}",
                        i + 1
                    ))
                })?;
            if cells.len() >= h.len().min(4) {
                rows.push(cells);
            }
        }
    }
    let header =
        header.ok_or_else(|| ParseFailure::Whole("no perftest results table found".into()))?;
    let Some(row) = rows.iter().max_by(|a, b| a[0].total_cmp(&b[0])).cloned() else {
        return Err(ParseFailure::Whole(
            "the perftest table has no result row (the run stopped before its first size)".into(),
        ));
    };
    let column = |name: &str| header.iter().position(|c| c.starts_with(name));
    let at = |name: &str| column(name).and_then(|i| row.get(i).copied());
    let operation = title
        .as_deref()
        .map(|t| t.split_whitespace().next().unwrap_or("RDMA_Write"))
        .unwrap_or("RDMA_Write")
        .to_ascii_lowercase();
    let test = match operation.as_str() {
        "rdma_read" => "rdma_read",
        "send" => "rdma_send",
        _ => "rdma_write",
    };
    let bytes = row[0];
    if let Some(avg) = at("BW average") {
        let unit = column("BW average").map_or("", |i| header[i].as_str());
        let gbs = if unit.contains("Gb/sec") {
            avg / 8.0
        } else if unit.contains("MB/sec") || unit.contains("MiB/sec") {
            avg * 1_048_576.0 / 1e9
        } else {
            return Err(ParseFailure::Whole(format!(
                "the perftest bandwidth column {unit:?} is in a unit this version does not read"
            )));
        };
        // A timed run (-D) measures no peak and prints 0.00.
        let peak = at("BW peak")
            .filter(|p| *p > 0.0)
            .map(|p| gbs * p / avg.max(f64::MIN_POSITIVE));
        let values: Vec<f64> = [Some(gbs), peak].into_iter().flatten().collect();
        let figure = checked
            .figure(test, "GB/s", &values)
            .ok_or_else(|| ParseFailure::Whole("no bandwidth in the perftest table".into()))?;
        figure.median = gbs;
        figure.min = gbs.min(figure.min);
        figure.repeats = at("#iterations").map_or(1, |n| n.max(1.0) as u32);
        figure
            .settings
            .insert("bytes".into(), serde_json::json!(bytes));
        if let Some(rate) = rate_gbps {
            figure
                .settings
                .insert("link_gbps".into(), serde_json::json!(rate));
        }
        if let Some(d) = &device {
            figure
                .settings
                .insert("device".into(), serde_json::json!(d));
        }
    } else {
        let typical = at("t_typical").or_else(|| at("t_avg")).ok_or_else(|| {
            ParseFailure::Whole("the perftest latency table has no typical or average time".into())
        })?;
        let min = at("t_min").unwrap_or(typical).min(typical);
        let max = at("t_max").unwrap_or(typical).max(typical);
        let figure = checked
            .figure(&format!("{test}_lat"), "µs", &[min, typical, max])
            .ok_or_else(|| ParseFailure::Whole("no latency in the perftest table".into()))?;
        figure.median = typical;
        figure.repeats = at("#iterations").map_or(1, |n| n.max(1.0) as u32);
        figure
            .settings
            .insert("bytes".into(), serde_json::json!(bytes));
        for (name, key) in [
            ("99%", "p99_us"),
            ("99.9%", "p999_us"),
            ("t_stdev", "stdev_us"),
        ] {
            if let Some(v) = at(name) {
                figure.settings.insert(key.into(), serde_json::json!(v));
            }
        }
        if let Some(d) = &device {
            figure
                .settings
                .insert("device".into(), serde_json::json!(d));
        }
    }
    checked.finish(ctx, b)
}

/// The header's column names: `BW peak[Gb/sec]`, `99% percentile[usec]`
/// are one column each.
fn columns(header: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in header.split_whitespace() {
        if !pending.is_empty() {
            pending.push(' ');
        }
        pending.push_str(word);
        // A name ends with its unit in brackets, or is one of the bare ones.
        if pending.ends_with(']') || matches!(pending.as_str(), "#bytes" | "#iterations") {
            out.push(std::mem::take(&mut pending));
        }
    }
    if !pending.is_empty() {
        out.push(pending);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_splits_into_its_named_columns() {
        assert_eq!(
            columns(
                " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
            ),
            vec![
                "#bytes",
                "#iterations",
                "BW peak[Gb/sec]",
                "BW average[Gb/sec]",
                "MsgRate[Mpps]"
            ]
        );
        let lat = columns(
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ",
        );
        assert_eq!(lat.len(), 9, "{lat:?}");
        assert_eq!(lat[7], "99% percentile[usec]");
    }
}
