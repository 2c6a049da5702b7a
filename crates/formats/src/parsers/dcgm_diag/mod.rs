//! `dcgmi diag` results — the JSON document (`-j`) or the table people
//! save from the terminal — as health evidence for a delivery check. Every
//! result (category, test, GPU, status, message) is kept in the run's
//! metadata as `dcgm_diag`; anything but a pass or a skip is also a warning
//! on the run, and a failure counts as a conformity problem (not as ordered).

mod json;
mod table;

pub(crate) use table::looks_like_rows;

use std::io::BufRead;

use serde_json::Value;

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::read_document;

#[derive(Debug, Clone, PartialEq)]
struct DiagResult {
    category: Option<String>,
    test: String,
    /// `None`: every GPU the test ran on.
    gpu: Option<String>,
    status: String,
    message: Option<String>,
    /// Kept from a table cell that could not be read: never replaced by
    /// the test's other rows, so that what it says is not lost.
    unread: bool,
}

pub fn parse<R: BufRead>(
    mut input: R,
    _ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    let raw = read_document(&mut input, 64 << 20, "the dcgmi diag document")?;
    let (results, version, driver, unread) = if raw.trim_start().starts_with('{') {
        let doc: Value = serde_json::from_str(&raw).map_err(|e| {
            ParseFailure::Line(LineError::new(
                e.line() as u64,
                Some(e.column()),
                format!("not valid JSON: {e}"),
            ))
        })?;
        let mut results = Vec::new();
        json::walk(&doc, None, &mut results);
        let version = [
            "/version",
            "/DCGM GPU Diagnostic/version",
            "/metadata/version",
        ]
        .iter()
        .find_map(|p| doc.pointer(p).and_then(json::text));
        let driver = doc
            .pointer("/DCGM GPU Diagnostic/Driver Version Detected")
            .and_then(json::text);
        (results, version, driver, Vec::new())
    } else {
        let t = table::read(&raw);
        (t.results, t.dcgm_version, t.driver_version, t.warnings)
    };
    for warning in unread {
        b.warn(warning);
    }
    if results.is_empty() {
        return Err(ParseFailure::Whole(
            "no diagnostic test results found (neither the dcgmi diag table nor its --json document)"
                .into(),
        ));
    }
    for r in &results {
        let status = r.status.to_ascii_lowercase();
        if !matches!(
            status.as_str(),
            "pass" | "passed" | "skip" | "skipped" | "not run"
        ) {
            b.warn(format!(
                "dcgmi diag: {} {} on {}{}",
                r.test,
                r.status,
                r.gpu
                    .as_deref()
                    .map_or("every GPU".to_string(), |g| format!("GPU {g}")),
                r.message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ));
        }
    }
    let json: Vec<Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "category": r.category, "test": r.test, "gpu": r.gpu,
                "status": r.status, "message": r.message,
            })
        })
        .collect();
    b.metadata.insert("dcgm_diag".into(), Value::Array(json));
    if let Some(version) = version {
        b.metadata
            .insert("dcgm_version".into(), Value::String(version));
    }
    if let Some(driver) = driver {
        b.metadata
            .insert("driver_version".into(), Value::String(driver));
    }
    b.metadata_records += results.len() as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::blocks::testing::with_builder;

    /// A result as the run keeps it: test, GPU, status, message.
    type Kept = (String, Option<String>, String, Option<String>);

    /// Every result the run keeps, and its warnings.
    fn read(text: &str) -> (Vec<Kept>, Vec<String>) {
        with_builder(false, |ctx, mut b| {
            parse(text.as_bytes(), ctx, &mut b).unwrap();
            let built = b.finish();
            let field = |r: &Value, k: &str| r[k].as_str().map(String::from);
            let results = built.metadata["dcgm_diag"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        field(r, "test").unwrap(),
                        field(r, "gpu"),
                        field(r, "status").unwrap(),
                        field(r, "message"),
                    )
                })
                .collect();
            (results, built.warnings)
        })
        .0
    }

    fn of<'a>(results: &'a [Kept], test: &str) -> Vec<(Option<&'a str>, &'a str)> {
        results
            .iter()
            .filter(|r| r.0 == test)
            .map(|r| (r.1.as_deref(), r.2.as_str()))
            .collect()
    }

    #[test]
    fn a_result_cell_that_cannot_be_read_is_kept_and_its_line_named() {
        let (results, warnings) = read(include_str!(
            "../../../../../tests/fixtures/hostile/dcgmi-unreadable-fail.txt"
        ));
        // The passes beside it are kept, and so is the failure whose GPUs
        // cannot be read: for every GPU, with its line and its warning.
        assert_eq!(
            of(&results, "GPU Memory"),
            vec![
                (Some("1"), "Pass"),
                (Some("2"), "Pass"),
                (Some("3"), "Pass"),
                (None, "Fail")
            ]
        );
        let memory_fail = &results
            .iter()
            .find(|r| r.0 == "GPU Memory" && r.1.is_none())
            .unwrap()
            .3;
        assert_eq!(
            memory_fail.as_deref(),
            Some(
                "line 15: the result \"Fail - GPU: 0 (ECC)\" cannot be read; kept as a failure \
                 on every GPU; GPU 0 Error using CUDA API cuMemAlloc Check DCGM and system logs \
                 for errors. Reset GPU."
            )
        );
        assert_eq!(of(&results, "Targeted Power"), vec![(None, "Fail")]);
        assert_eq!(of(&results, "Memory Bandwidth"), vec![(None, "unknown")]);
        assert_eq!(of(&results, "Targeted Stress"), vec![(None, "Pass")]);
        for expected in [
            "dcgmi diag: GPU Memory Fail on every GPU: line 15: the result \"Fail - GPU: 0 (ECC)\" \
             cannot be read; kept as a failure on every GPU",
            "dcgmi diag: Targeted Power Fail on every GPU: line 20: the result \"FAIL - All\" \
             cannot be read; kept as a failure on every GPU",
            "dcgmi diag: Memory Bandwidth unknown on every GPU: line 21: the result \"Pass - \
             GPUs: 0, 1, 2, x\" cannot be read",
        ] {
            assert!(
                warnings.iter().any(|w| w.starts_with(expected)),
                "{expected}\n{warnings:#?}"
            );
        }
    }

    #[test]
    fn a_failure_is_replaced_only_by_rows_that_carry_it() {
        let table = |rows: &str| {
            format!(
                "|-----  Hardware  ----------+------------------------------------------------|\n{rows}"
            )
        };
        // DCGM 4's summary, then a line per GPU: the GPUs replace it.
        let (results, _) = read(&table(
            "| memory                    | Fail                                           |\n\
             |                           | GPU0: Pass                                     |\n\
             |                           | GPU1: Fail                                     |\n",
        ));
        assert_eq!(
            of(&results, "memory"),
            vec![(Some("0"), "Pass"), (Some("1"), "Fail")]
        );
        // A summary failure no GPU line carries stays.
        let (results, _) = read(&table(
            "| memory                    | Fail                                           |\n\
             |                           | GPU0: Pass                                     |\n",
        ));
        assert_eq!(
            of(&results, "memory"),
            vec![(None, "Fail"), (Some("0"), "Pass")]
        );
        // A result that could not be read is not replaced by a readable one.
        let (results, _) = read(&table(
            "| GPU Memory                | Fail - GPU: zero                               |\n\
             |                           | Fail - GPU: 3                                  |\n",
        ));
        assert_eq!(
            of(&results, "GPU Memory"),
            vec![(None, "Fail"), (Some("3"), "Fail")]
        );
    }

    #[test]
    fn a_result_without_a_test_or_a_test_without_a_result_is_named() {
        let (results, warnings) = read(
            "|                           | Fail - GPU: 1                                  |\n\
             | Denylist                  | Pass                                           |\n\
             | GPU Memory                |                                                |\n\
             | Inforom                   | Pass                                           |\n",
        );
        assert_eq!(results.len(), 2, "{results:?}");
        assert!(
            warnings.iter().any(|w| w
                == "line 1: dcgmi diag: the result \"Fail - GPU: 1\" follows no test; it was left out"),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().any(|w| w
                == "line 3: dcgmi diag: GPU Memory has an empty result cell and no result after \
                    it; it was left out"),
            "{warnings:?}"
        );
    }

    /// Rows pasted from the middle of a DCGM 3.x table — no header box, no
    /// stage row — whose warning dcgmi cut into 45-character pieces
    /// (in a cell of 46), mid-word, over seven rows; the last row lost its
    /// right border to the paste.
    const CUT_WARNING: &[&str] = &[
        "| Memory Bandwidth          | Pass - GPUs: 1, 2, 3                           |",
        "|                           | Fail - GPU: 0                                  |",
        "| Warning                   | GPU 0 Thermal violations totaling 13.3 second  |",
        "|                           | s started at 16.4 seconds into the test for G  |",
        "|                           | PU 0 Verify that the cooling on this machine   |",
        "|                           | is functional, including external, thermal ma  |",
        "|                           | terial interface, fans, and any other compone  |",
        "|                           | nts. Memory bandwidth fell to 98.1 GB/s while  |",
        "|                           |  it was held.",
    ];

    #[test]
    fn rows_without_their_header_are_detected_and_a_cut_warning_is_joined_whole() {
        let text = CUT_WARNING.join("\n") + "\n";
        assert_eq!(crate::detect(text.as_bytes()), Ok(crate::Format::DcgmDiag));
        let (results, warnings) = read(&text);
        assert_eq!(
            of(&results, "Memory Bandwidth"),
            vec![
                (Some("1"), "Pass"),
                (Some("2"), "Pass"),
                (Some("3"), "Pass"),
                (Some("0"), "Fail")
            ]
        );
        let message = results
            .iter()
            .find(|r| r.1.as_deref() == Some("0"))
            .unwrap();
        // Pieces of the full width go on mid-word ("second"+"s",
        // "G"+"PU"); one that ended in a space the padding swallowed
        // ("machine ") takes it back; one that starts with its space keeps it.
        assert_eq!(
            message.3.as_deref(),
            Some(
                "GPU 0 Thermal violations totaling 13.3 seconds started at 16.4 seconds into \
                 the test for GPU 0 Verify that the cooling on this machine is functional, \
                 including external, thermal material interface, fans, and any other \
                 components. Memory bandwidth fell to 98.1 GB/s while it was held."
            )
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("dcgmi diag: Memory Bandwidth Fail on GPU 0: GPU 0 Thermal")),
            "{warnings:?}"
        );
        // The cells' widths do not matter: narrower boxes read alike.
        let (results, _) = read(
            "| Memory Bandwidth    | Pass - GPUs: 1, 2, 3 |\n\
             |                     | Fail - GPU: 0        |\n\
             | Warning             | GPU 0 Bandwidth of 1 |\n\
             |                     | 213.7 GB/s is below  |\n\
             |                     | the minimum 1500.0 G |\n\
             |                     | B/s for GPU 0.       |\n",
        );
        assert_eq!(
            results[3].3.as_deref(),
            Some("GPU 0 Bandwidth of 1213.7 GB/s is below the minimum 1500.0 GB/s for GPU 0.")
        );
        // A table with one two-piece message shows no width: its first
        // piece, one short of the cell, ended in a space.
        let (results, _) = read(include_str!(
            "../../../../../tests/fixtures/logs/fragments/dcgmi-diag-deployment-stopped.txt"
        ));
        assert_eq!(
            results[0].3.as_deref(),
            Some("GPU 3 has uncorrectable memory errors and row remappings are pending")
        );
        // Fewer rows than that are not taken for a table: one status row
        // alone says too little.
        assert!(!table::looks_like_rows(&CUT_WARNING[..1]));
        assert!(table::looks_like_rows(&CUT_WARNING[..2]));
    }

    #[test]
    fn tables_that_read_whole_give_no_such_warning() {
        for text in [
            include_str!("../../../../../tests/fixtures/logs/dcgm-diag/r3-memory-fail-8gpu.txt"),
            include_str!("../../../../../tests/fixtures/logs/dcgm-diag/r3-thermal-warn-2gpu.txt"),
            include_str!("../../../../../tests/fixtures/logs/dcgm-diag/r1-row-remap-fail.txt"),
            include_str!("../../../../../tests/fixtures/logs/dcgm-diag/r2-dcgm4-memory-fail.txt"),
            include_str!(
                "../../../../../tests/fixtures/logs/fragments/dcgmi-diag-deployment-stopped.txt"
            ),
            include_str!("../../../../../tests/fixtures/logs/fragments/dcgmi-diag-rows-only.txt"),
        ] {
            let (results, warnings) = read(text);
            assert!(results.iter().all(|r| r.2 != "unknown"), "{results:?}");
            assert!(
                !warnings
                    .iter()
                    .any(|w| w.contains("cannot be read") || w.contains("left out")),
                "{warnings:?}"
            );
        }
    }
}
