//! Properties of the importers on generated input.

use breakpoint_core::import::{Format, ImportOutcome, import_reader};
use breakpoint_core::samples::{FIELD_COUNT, Field, Sample};
use breakpoint_formats::parsers::{PROBE_FORMAT, PROBE_VERSION, ProbeHeader, ProbeRecord};
use proptest::prelude::*;

use crate::util::*;

fn import_bytes(
    bytes: &[u8],
    format: Option<Format>,
) -> Option<(breakpoint_core::store::Store, i64)> {
    let (store, platform) = store();
    let format = match format {
        Some(f) => f,
        None => breakpoint_core::import::detect(bytes).ok()?,
    };
    match import_reader(
        &store,
        bytes,
        "generated",
        format,
        &utc_options(platform),
        None,
    ) {
        Ok(ImportOutcome::Imported(r)) => Some((store, r.run_id)),
        _ => None,
    }
}

fn any_sample() -> impl Strategy<Value = Sample> {
    (
        // A day of 2020: times a real run can have (jumps of years, times in
        // the future and one time for every row are refused on import).
        1_600_000_000_000i64..1_600_086_400_000,
        0u32..4,
        proptest::collection::vec(
            proptest::option::of(-1_000_000_000i64..1_000_000_000_000),
            FIELD_COUNT,
        ),
    )
        .prop_map(|(t, gpu, values)| {
            let mut s = Sample::new(t, gpu);
            for (f, v) in Field::ALL.into_iter().zip(values) {
                if let Some(v) = v {
                    s.set(f, v);
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// What the probe writes, the importer reads back exactly.
    #[test]
    fn probe_logs_round_trip(mut samples in proptest::collection::vec(any_sample(), 1..200)) {
        let header = ProbeHeader {
            format: PROBE_FORMAT.into(),
            version: PROBE_VERSION,
            host: Some("node".into()),
            started_at: None,
            interval_ms: Some(1000),
            gpus: Vec::new(),
            platform: None,
            offering: None,
            capabilities: Default::default(),
            tool: None,
        };
        let mut text = serde_json::to_string(&header).unwrap();
        text.push('\n');
        for s in &samples {
            text.push_str(&serde_json::to_string(&ProbeRecord::Sample(s.into())).unwrap());
            text.push('\n');
        }
        let (store, run) = import_bytes(text.as_bytes(), None).unwrap();
        for gpu in 0..4 {
            let mut want: Vec<Sample> = samples.iter().filter(|s| s.gpu == gpu).copied().collect();
            want.sort_by_key(|s| s.t_ms);
            let mut got = all_samples(&store, run, gpu);
            got.sort_by_key(|s| (s.t_ms, format!("{s:?}")));
            want.sort_by_key(|s| (s.t_ms, format!("{s:?}")));
            prop_assert_eq!(got, want);
        }
        samples.clear();
    }

    /// Any order of the columns of an nvidia-smi CSV gives the same samples.
    #[test]
    fn csv_column_order_does_not_matter(order in Just((0..7usize).collect::<Vec<_>>()).prop_shuffle(), rows in proptest::collection::vec((0u32..3, 0u32..100_000, 0u32..101, 20u32..95), 1..40)) {
        let names = ["timestamp", "index", "power.draw [W]", "utilization.gpu [%]", "temperature.gpu", "memory.used [MiB]", "clocks_throttle_reasons.active"];
        let render = |cols: &[usize]| {
            let mut text = cols.iter().map(|c| names[*c]).collect::<Vec<_>>().join(", ");
            text.push('\n');
            for (i, (gpu, centiwatts, util, temp)) in rows.iter().enumerate() {
                let cells = [
                    format!("2024/06/01 00:{:02}:{:02}.{:03}", i / 60 % 60, i % 60, gpu),
                    gpu.to_string(),
                    format!("{}.{:02} W", centiwatts / 100, centiwatts % 100),
                    format!("{util} %"),
                    temp.to_string(),
                    format!("{} MiB", centiwatts / 3),
                    format!("0x{:016X}", util % 3),
                ];
                text.push_str(&cols.iter().map(|c| cells[*c].clone()).collect::<Vec<_>>().join(", "));
                text.push('\n');
            }
            text
        };
        let (a, run_a) = import_bytes(render(&[0, 1, 2, 3, 4, 5, 6]).as_bytes(), None).unwrap();
        let (b, run_b) = import_bytes(render(&order).as_bytes(), None).unwrap();
        for gpu in 0..3 {
            prop_assert_eq!(all_samples(&a, run_a, gpu), all_samples(&b, run_b, gpu));
        }
    }

    /// No input makes a parser panic; each either imports or refuses.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), which in 0usize..Format::ALL.len()) {
        let format = Format::ALL[which];
        let _ = import_bytes(&bytes, Some(format));
        let _ = import_bytes(&bytes, None);
    }

    /// Whatever a line holds, a message quoting it is short and printable:
    /// a 20 000-character line with terminal escapes in any fixture, read
    /// strictly or skipping bad lines.
    #[test]
    fn echoes_of_input_are_bounded_and_printable(which in 0usize..7, at in 1usize..40, skip in any::<bool>(), junk in "[a-z0-9,. \u{1b}\u{202e}\t]{1,40}") {
        let files = [
            "smi-csv/header-units.csv", "dmon/select.txt", "prometheus/dcgm-exporter-multi.prom",
            "tables/startup-attempts.csv", "smi-table/a100-535.log", "gpustat/watch-power.log",
            "kernel/journal-short-iso-nvlink.log",
        ];
        let text = std::fs::read_to_string(fixture(files[which])).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let long = junk.repeat(20_000 / junk.len() + 1);
        let at = at.min(lines.len());
        lines.insert(at, long);
        let bytes = (lines.join("\n") + "\n").into_bytes();
        let (store, platform) = store();
        let options = breakpoint_core::import::ImportOptions {
            skip_bad_lines: skip,
            ..utc_options(platform)
        };
        let format = breakpoint_core::import::detect(&bytes).unwrap_or(Format::SmiCsv);
        let messages = match import_reader(&store, &bytes[..], "mangled", format, &options, None) {
            Err(e) => vec![e.to_string()],
            Ok(ImportOutcome::Imported(r)) => r.warnings,
            Ok(_) => Vec::new(),
        };
        for m in messages {
            prop_assert!(m.chars().count() < 1200, "{} characters: {}", m.len(), &m[..200]);
            prop_assert!(!m.chars().any(breakpoint_core::text::is_steering), "{:?}", m);
        }
    }

    /// Nor does text that looks almost right: fixture lines shuffled and cut.
    #[test]
    fn mangled_fixtures_never_panic(which in 0usize..26, seed in any::<u64>(), cut in 0usize..4000) {
        let files = [
            "smi-csv/header-units.csv", "dmon/select.txt", "smi-q/a100-535.txt",
            "prometheus/dcgm-exporter-multi.prom", "prometheus/query-range.json",
            "dcgm/dcgmi-dmon.txt", "probe/probe-v1.jsonl", "tables/startup-attempts.csv",
            "smi-table/a100-535.log", "smi-csv/gpu-fell-off.csv", "gpustat/watch-power.log",
            "kernel/dmesg-fell-off.log", "kernel/journal-k-new-year.log",
            "smi-xml/a100-535.xml", "lspci/h100-8gpu-one-x8.txt", "dcgm-diag/r3-memory-fail-8gpu.txt",
            "npu-smi/info-910b-loop.txt", "cnmon/cnmon-loop.txt", "amd/amd-smi-metric.json",
            "amd/rocm-smi-loop.json",
            // Pasted fragments: transcripts, wrapped messages, untimed
            // excerpts, diag tables without their header.
            "fragments/transcript-smi-then-dmesg.txt", "fragments/open-module-fell-off.txt",
            "fragments/grep-untimed-xids.txt", "fragments/dcgmi-diag-deployment-stopped.txt",
            "fragments/dcgmi-diag-rows-only.txt", "fragments/transcript-smi-csv.txt",
        ];
        let text = std::fs::read_to_string(fixture(files[which])).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        let n = lines.len();
        if n > 2 {
            lines.swap((seed % n as u64) as usize, ((seed >> 16) % n as u64) as usize);
        }
        let mut mangled = lines.join("\n");
        mangled.truncate(mangled.char_indices().nth(cut).map_or(mangled.len(), |(i, _)| i));
        let _ = import_bytes(mangled.as_bytes(), None);
    }
}
