//! Fuzzing throughput: how many small inputs per second a parser can be fed
//! alone (`breakpoint-formats`, samples kept in memory, as the fuzz targets
//! now run) against the whole import each input once needed (a migrated
//! in-memory store, a platform, one transaction), in the same run.
//!
//! The inputs are every fixture under `tests/fixtures/logs`, each cut at a
//! seeded random point and given a few seeded byte flips — what a fuzzer
//! feeds — 20 per fixture.
//!
//! Run: `cargo bench -p breakpoint-core --bench parse_inputs`

use std::path::{Path, PathBuf};
use std::time::Instant;

use breakpoint_core::domain::{Platform, PlatformKind};
use breakpoint_core::import::{
    Format, ImportOptions, ParseContext, RunBuilder, detect, import_reader,
};
use breakpoint_core::store::Store;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_none_or(|e| e != "md") {
            out.push(path);
        }
    }
}

/// Seeded mutations of every fixture whose format is detected.
fn inputs() -> Vec<(Format, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/logs");
    let mut files = Vec::new();
    fixtures(&root, &mut files);
    files.sort();
    let mut rng = StdRng::seed_from_u64(7);
    let mut out = Vec::new();
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        if bytes.len() > 256 << 10 {
            continue;
        }
        let Ok(format) = detect(&bytes) else {
            continue;
        };
        for _ in 0..20 {
            let mut input = bytes[..rng.random_range(0..=bytes.len())].to_vec();
            for _ in 0..rng.random_range(0..4) {
                if !input.is_empty() {
                    let at = rng.random_range(0..input.len());
                    input[at] = rng.random();
                }
            }
            out.push((format, input));
        }
    }
    out
}

fn parse_alone(format: Format, input: &[u8]) {
    let mut samples = Vec::new();
    let mut builder = RunBuilder::new(&mut samples, true, Some(1000));
    let mut ctx = ParseContext {
        interval_ms: Some(1000),
        ..ParseContext::new("bench", jiff::tz::TimeZone::UTC)
    };
    let _ = breakpoint_formats::parse(format, input, &mut ctx, &mut builder);
    std::hint::black_box((builder.finish(), samples));
}

fn import_whole(format: Format, input: &[u8]) {
    let store = Store::open_in_memory().expect("an in-memory store");
    let platform = store
        .create_platform(&Platform::new("bench", PlatformKind::Other, None).expect("a name"))
        .expect("a platform");
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        interval_ms: Some(1000),
        skip_bad_lines: true,
        ..ImportOptions::new(platform.id)
    };
    let _ = std::hint::black_box(import_reader(
        &store, input, "bench", format, &options, None,
    ));
}

fn rate(inputs: &[(Format, Vec<u8>)], f: fn(Format, &[u8])) -> f64 {
    let started = Instant::now();
    for (format, input) in inputs {
        f(*format, input);
    }
    inputs.len() as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let inputs = inputs();
    println!(
        "{} inputs (every fixture, cut and flipped, 20 each)",
        inputs.len()
    );
    // Rounds taking turns, so that a machine whose speed drifts slows both.
    let mut ratios = Vec::new();
    for round in 1..=3 {
        let whole = rate(&inputs, import_whole);
        let alone = rate(&inputs, parse_alone);
        ratios.push(alone / whole);
        println!(
            "round {round}: parser alone {alone:.0} inputs/s, whole import into a fresh store {whole:.0} inputs/s: {:.1}×",
            alone / whole
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!("median: {:.1}× the inputs per second", ratios[1]);
}
