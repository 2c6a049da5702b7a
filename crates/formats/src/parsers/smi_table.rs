//! Plain `nvidia-smi` — the boxed table people read — appended to a file by
//! a loop (`while :; do nvidia-smi; sleep 5; done >> gpu.log`). Each
//! snapshot starts with the local date ("Sat Jun  1 11:27:05 2024"), then
//! the banner with the driver and CUDA versions, then two rows per GPU:
//!
//! ```text
//! |   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
//! | N/A   33C    P0              61W / 400W |      4MiB / 81920MiB |      0%      Default |
//! ```
//!
//! Column widths, spacing and the header words moved with every driver
//! generation (470's narrow boxes, 535's wide ones, 550+'s wider bus-id
//! column), so cells are split on `|` and values are read by their units:
//! `C` temperature, `P<n>` performance state, `W` power usage and cap,
//! `MiB` memory used and total, `%` fan and utilisation. "N/A" and "ERR!"
//! are absent values. The processes table and MIG rows are not samples.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::smi_messages;
use super::super::values::parse_field;
use crate::accelerator;
use crate::samples::{Field, Sample};

#[derive(Default)]
struct Snapshot {
    t_ms: Option<i64>,
    driver: Option<String>,
    cuda: Option<String>,
    /// The GPU whose identity row came last: its readings are on the next row.
    gpu: Option<u32>,
    in_processes: bool,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut snap = Snapshot::default();
    let mut tables = 0u64;
    let mut untimed_warned = false;

    while let Some(line) = lines.next_line()? {
        let text = line.text.trim_end();
        if text.trim().is_empty() {
            continue;
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            continue;
        }
        if !text.starts_with('|') {
            // The date line opens a snapshot; borders and blanks say nothing.
            if !text.starts_with('+')
                && let Some(t) = ctx.times.parse_ctime(text.trim())
            {
                snap = Snapshot {
                    t_ms: Some(t),
                    ..Snapshot::default()
                };
            }
            continue;
        }
        let body = text.trim_start_matches('|').trim_end_matches('|');
        if let Some(versions) = banner(body) {
            tables += 1;
            (snap.driver, snap.cuda) = versions;
            snap.in_processes = false;
            continue;
        }
        if body.trim_start().starts_with("Processes:") {
            snap.in_processes = true;
            continue;
        }
        if snap.in_processes {
            continue;
        }
        let cells: Vec<&str> = body.split('|').collect();
        if let Some((index, name, bus)) = identity(&cells) {
            let gpu = b.gpu(GpuKey::Index(index));
            b.alias(GpuKey::BusId(bus), gpu);
            let info = b.inventory(gpu);
            if info.accelerator.is_none() && !name.is_empty() {
                info.accelerator = Some(accelerator::normalise(name));
            }
            if let Some(d) = &snap.driver {
                info.driver_version = Some(d.clone());
            }
            if let Some(c) = &snap.cuda {
                info.cuda_version = Some(c.clone());
            }
            snap.gpu = Some(gpu);
            continue;
        }
        let Some(gpu) = snap.gpu.take() else {
            continue;
        };
        let Some(t_ms) = snap.t_ms else {
            if !untimed_warned {
                b.warn(format!(
                    "line {}: readings before any date line were skipped (each nvidia-smi table starts with one)",
                    line.number
                ));
                untimed_warned = true;
            }
            continue;
        };
        let sample = match readings(&cells, t_ms, gpu) {
            Ok(sample) => sample,
            Err(reason) => {
                b.bad_line(&line, LineError::new(line.number, None, reason))?;
                continue;
            }
        };
        if let Some(total) = sample.get(Field::MemTotalMib) {
            b.inventory(gpu).vram_mib = Some(total as u64);
        }
        if let Some(cap) = sample.get(Field::PowerLimitMw) {
            b.inventory(gpu).power_limit_enforced_w = Some(cap as f64 / 1000.0);
        }
        b.sample(&sample)?;
    }
    if tables == 0 {
        return Err(ParseFailure::Whole(
            "no nvidia-smi table in the file (no \"| NVIDIA-SMI <version> …\" banner line)".into(),
        ));
    }
    Ok(())
}

/// The banner: "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA
/// Version: 12.2" — or, from newer drivers, "KMD Version: …   CUDA UMD
/// Version: …". It is recognised by its place (a box line opening with the
/// tool's name and version) and its `Label: value` pairs are read by what
/// the label means, so a relabelled banner still yields the driver and CUDA
/// versions.
fn banner(body: &str) -> Option<(Option<String>, Option<String>)> {
    let rest = body.trim().strip_prefix("NVIDIA-SMI")?;
    let version = rest.split_whitespace().next()?;
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut driver = None;
    let mut cuda = None;
    for (label, value) in banner_pairs(rest) {
        let label = label.to_ascii_lowercase();
        let value = (value != "N/A").then(|| value.to_string());
        if label.contains("cuda") {
            cuda = cuda.or(value);
        } else if label.contains("driver") || label.contains("kmd") {
            driver = driver.or(value);
        }
    }
    // The tool's own version is the driver's when the banner names none.
    Some((driver.or_else(|| Some(version.to_string())), cuda))
}

/// "Driver Version: 535.104.05   CUDA Version: 12.2" → the label before each
/// colon (the words since the previous value) and the word after it.
fn banner_pairs(text: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    let mut rest = text;
    while let Some(colon) = rest.find(':') {
        let before = rest[..colon].trim_end();
        // The label starts after the last run of two or more spaces (values
        // and labels are separated by wide gaps; a label's words by one).
        let label = before
            .rfind("  ")
            .map_or(before, |gap| before[gap..].trim_start());
        let after = rest[colon + 1..].trim_start();
        let value = after.split_whitespace().next().unwrap_or("");
        pairs.push((label, value));
        rest = &after[value.len()..];
    }
    pairs
}

/// "   0  NVIDIA A100-SXM4-80GB          On  ", " 00000000:07:00.0 Off ":
/// the index, name and bus id of a GPU's first row.
fn identity<'a>(cells: &[&'a str]) -> Option<(u32, &'a str, &'a str)> {
    let [first, second, ..] = cells else {
        return None;
    };
    let mut words = first.split_whitespace();
    let index: u32 = words.next()?.parse().ok()?;
    let bus = second.split_whitespace().next()?;
    if !(bus.contains(':') && bus.contains('.')) {
        return None;
    }
    // The name runs from after the index to before Persistence-M (On, Off,
    // N/A) — or, on Windows, the driver model (WDDM, TCC, MCDM) that
    // column shows there instead; truncated names end in "...".
    let rest = first.trim_start();
    let rest = rest[rest.find(char::is_whitespace)?..].trim();
    let name = match rest.rsplit_once(char::is_whitespace) {
        Some((name, "On" | "Off" | "N/A")) => name.trim(),
        _ => rest,
    };
    let name = without_driver_model(name)
        .trim_end_matches("...")
        .trim_end();
    Some((index, name, bus))
}

/// "NVIDIA GeForce RTX 4090      WDDM" → "NVIDIA GeForce RTX 4090": the
/// Windows driver model the table prints after a card's name is not part
/// of it.
fn without_driver_model(name: &str) -> &str {
    match name.trim().rsplit_once(char::is_whitespace) {
        Some((name, "WDDM" | "TCC" | "MCDM")) => name.trim_end(),
        _ => name.trim(),
    }
}

/// The second row of a GPU: fan, temperature, performance state, power
/// usage and cap | memory used and total | utilisation and compute mode.
fn readings(cells: &[&str], t_ms: i64, gpu: u32) -> Result<Sample, String> {
    let mut sample = Sample::new(t_ms, gpu);
    let mut set = |field: Field, text: &str| -> Result<(), String> {
        let text = text.trim();
        if text.is_empty() || text == "N/A" || text.contains("ERR") {
            return Ok(());
        }
        match parse_field(field, text, None) {
            Ok(Some(v)) => {
                sample.set(field, v);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(reason) => Err(format!(
                "{reason} (\"{text}\" in the {} column)",
                field.key()
            )),
        }
    };
    let first = cells.first().copied().unwrap_or_default();
    // "N/A   33C    P0              61W / 400W": fan, temperature and state
    // are single words; power is "usage / cap" after them (the spaced
    // slash: a fan of "N/A" has one too).
    let (left, power) = match first.find(" / ") {
        Some(slash) => {
            let before = first[..slash].trim_end();
            let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            (
                &before[..start],
                Some((&before[start..], &first[slash + 3..])),
            )
        }
        None => (first, None),
    };
    for word in left.split_whitespace() {
        if word.ends_with('%') {
            set(Field::FanPct, word)?;
        } else if let Some(temp) = word.strip_suffix('C')
            && temp.chars().all(|c| c.is_ascii_digit())
        {
            set(Field::TempGpuC, temp)?;
        } else if word.len() > 1
            && word.starts_with('P')
            && word[1..].chars().all(|c| c.is_ascii_digit())
        {
            set(Field::Pstate, word)?;
        }
    }
    if let Some((usage, cap)) = power {
        set(Field::PowerMw, usage)?;
        set(Field::PowerLimitMw, cap)?;
    }
    if let Some((used, total)) = cells.get(1).and_then(|c| c.split_once('/')) {
        set(Field::MemUsedMib, used)?;
        set(Field::MemTotalMib, total)?;
    }
    if let Some(util) = cells
        .get(2)
        .and_then(|c| c.split_whitespace().next())
        .filter(|w| w.ends_with('%'))
    {
        set(Field::UtilGpuPct, util)?;
    }
    Ok(sample)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn cells(row: &str) -> Vec<&str> {
        row.trim_start_matches('|')
            .trim_end_matches('|')
            .split('|')
            .collect()
    }

    #[test]
    fn identity_rows_of_three_driver_generations() {
        for (row, index, name, bus) in [
            (
                "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |",
                0,
                "Tesla V100-SXM2",
                "00000000:00:1E.0",
            ),
            (
                "|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |",
                1,
                "NVIDIA A100-SXM4-80GB",
                "00000000:0F:00.0",
            ),
            (
                "|   7  NVIDIA H100 80GB HBM3          On  |   00000000:DB:00.0 Off |                    0 |",
                7,
                "NVIDIA H100 80GB HBM3",
                "00000000:DB:00.0",
            ),
            (
                "|   0  NVIDIA GeForce RTX 4090      Off |   00000000:01:00.0  On |                  Off |",
                0,
                "NVIDIA GeForce RTX 4090",
                "00000000:01:00.0",
            ),
            // Windows: the driver model stands where Persistence-M does.
            (
                "|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |                  Off |",
                0,
                "NVIDIA GeForce RTX 4090",
                "00000000:01:00.0",
            ),
            (
                "|   1  NVIDIA RTX A6000            TCC   |   00000000:65:00.0 Off |                  Off |",
                1,
                "NVIDIA RTX A6000",
                "00000000:65:00.0",
            ),
            (
                "|   0  NVIDIA GeForce RTX 3080 ... WDDM  | 00000000:01:00.0  On |                  N/A |",
                0,
                "NVIDIA GeForce RTX 3080",
                "00000000:01:00.0",
            ),
            (
                "|   2  NVIDIA RTX PRO 6000 Blac...  MCDM  |   00000000:C1:00.0 Off |                  Off |",
                2,
                "NVIDIA RTX PRO 6000 Blac",
                "00000000:C1:00.0",
            ),
        ] {
            assert_eq!(identity(&cells(row)), Some((index, name, bus)), "{row}");
        }
        let header = "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |";
        assert_eq!(identity(&cells(header)), None);
        let header = "| GPU  Name                     TCC/WDDM  | Bus-Id          Disp.A | Volatile Uncorr. ECC |";
        assert_eq!(identity(&cells(header)), None);
    }

    #[test]
    fn a_windows_table_names_the_card_without_its_driver_model() {
        let text = "Thu Oct 17 21:03:44 2024\n\
+-----------------------------------------------------------------------------------------+\n\
| NVIDIA-SMI 560.94                 Driver Version: 560.94         CUDA Version: 12.6     |\n\
|-----------------------------------------+------------------------+----------------------+\n\
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n\
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n\
|                                         |                        |               MIG M. |\n\
|=========================================+========================+======================|\n\
|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |                  Off |\n\
|  0%   38C    P8             22W /  450W |    1651MiB /  24564MiB |      4%      Default |\n\
|                                         |                        |                  N/A |\n\
+-----------------------------------------+------------------------+----------------------+\n";
        let (built, samples) = crate::blocks::testing::with_builder(false, |ctx, mut b| {
            parse(text.as_bytes(), ctx, &mut b).unwrap();
            b.finish()
        });
        assert_eq!(
            built.inventory[0].accelerator,
            Some(accelerator::normalise("NVIDIA GeForce RTX 4090"))
        );
        assert_eq!(samples.len(), 1);
        assert_eq!(samples[0].get(Field::PowerMw), Some(22_000));
    }

    #[test]
    fn readings_are_found_by_their_units() {
        let s = readings(
            &cells("| N/A   33C    P0              61W / 400W |      4MiB / 81920MiB |      0%      Default |"),
            0,
            0,
        )
        .unwrap();
        let v = |f| s.get(f);
        assert_eq!(
            (
                v(Field::FanPct),
                v(Field::TempGpuC),
                v(Field::Pstate),
                v(Field::PowerMw)
            ),
            (None, Some(33), Some(0), Some(61_000))
        );
        assert_eq!(
            (
                v(Field::PowerLimitMw),
                v(Field::MemUsedMib),
                v(Field::MemTotalMib),
                v(Field::UtilGpuPct)
            ),
            (Some(400_000), Some(4), Some(81_920), Some(0))
        );
        let s = readings(
            &cells("| 30%   45C    P2             ERR! / 450W |   2201MiB / 24564MiB |     97%      Default |"),
            0,
            0,
        )
        .unwrap();
        assert_eq!(
            (
                s.get(Field::FanPct),
                s.get(Field::PowerMw),
                s.get(Field::Pstate)
            ),
            (Some(30), None, Some(2))
        );
        let s = readings(&cells("| N/A   29C    P0             69W /  700W |       1MiB /  81559MiB |      0%      Default |"), 0, 0).unwrap();
        assert_eq!(
            (s.get(Field::PowerMw), s.get(Field::PowerLimitMw)),
            (Some(69_000), Some(700_000))
        );
    }

    #[test]
    fn the_banner_gives_driver_and_cuda() {
        assert_eq!(
            banner(
                " NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     "
            ),
            Some((Some("535.104.05".into()), Some("12.2".into())))
        );
        assert_eq!(
            banner(" NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: N/A      "),
            Some((Some("470.82.01".into()), None))
        );
        assert_eq!(banner(" Processes:  "), None);
    }

    #[test]
    fn a_relabelled_banner_is_read_by_meaning() {
        assert_eq!(
            banner(
                " NVIDIA-SMI 590.48.01            KMD Version: 590.48.01        CUDA UMD Version: 13.1     "
            ),
            Some((Some("590.48.01".into()), Some("13.1".into())))
        );
        // A banner with labels not seen yet still opens a table; the tool's
        // version stands in for the driver's.
        assert_eq!(
            banner(" NVIDIA-SMI 612.10    Kernel Module: 612.10    Runtime: 14.0 "),
            Some((Some("612.10".into()), None))
        );
        assert_eq!(
            banner(" NVIDIA-SMI has failed because it couldn't communicate "),
            None
        );
    }
}
