//! Report benchmark: the decision-matrix PDF for 10 platforms with every
//! chart (target < 2 s), and the sustain timeline of a 48 h × 8-GPU run at
//! 1 Hz — 1.4 M samples — reduced from the store to a window's columns as
//! the app asks for it (target < 300 ms, against reading every sample), to
//! an hour zoomed in, and to the report's columns and drawn.
//!
//! Run: `cargo bench -p breakpoint-report --bench report`

use std::time::Instant;

use breakpoint_api::demo::{self, DEMO_PLATFORMS};
use breakpoint_api::ranking::RankRequest;
use breakpoint_api::timeline::{self, TimelineRequest};
use breakpoint_core::domain::{
    BillingRule, NewRun, OfferingSpec, Platform, PlatformKind, RunKind, SourceKind,
};
use breakpoint_core::import::{ImportOptions, import_reader};
use breakpoint_core::samples::{Field, Sample};
use breakpoint_core::store::Store;
use breakpoint_report::charts::{TIMELINE_COLUMNS, TimelineInput, timeline_chart};
use breakpoint_report::fonts::FontSet;
use breakpoint_report::{Lang, ReportOptions, compose, gather, render};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn ten_platforms(store: &Store) -> Result<(), Box<dyn std::error::Error>> {
    demo::build(store, 7)?;
    // Four more, played by the simulator with other seeds.
    for (k, p) in DEMO_PLATFORMS.iter().take(4).enumerate() {
        let platform = store.create_platform(&Platform::new(
            &format!("Extra {} (demo)", k + 1),
            p.kind,
            Some("bench".into()),
        )?)?;
        let offering = store.create_offering(
            &OfferingSpec {
                accelerator: "A100 80GB SXM".into(),
                count: 8,
                currency: "CNY".into(),
                price_on_demand: Some(p.price_per_hour),
                ..OfferingSpec::default()
            }
            .build(platform.id)?,
        )?;
        store.set_billing_rule(&BillingRule {
            ..p.rule(platform.id)
        })?;
        for file in demo::generate_logs(p, 100 + k as u64) {
            let options = ImportOptions {
                offering_id: Some(offering.id),
                tz: jiff::tz::TimeZone::UTC,
                source: SourceKind::Demo,
                ..ImportOptions::new(platform.id)
            };
            import_reader(
                store,
                file.bytes.as_slice(),
                &file.name,
                file.format,
                &options,
                None,
            )?;
        }
    }
    Ok(())
}

fn big_run(store: &Store) -> Result<(i64, u64), Box<dyn std::error::Error>> {
    let mut rng = StdRng::seed_from_u64(9);
    let platform = store.create_platform(&Platform::new("Big run", PlatformKind::Other, None)?)?;
    let run = store.create_run(NewRun {
        interval_ms: Some(1000),
        ..NewRun::new(platform.id, RunKind::Sustain, SourceKind::Import)
    })?;
    let mut samples = 0;
    store.atomically(|s| -> breakpoint_core::Result<()> {
        let mut w = s.sample_writer(run.id)?;
        for gpu in 0..8u32 {
            for t in 0..48 * 3600i64 {
                w.push(
                    &Sample::new(1_717_200_000_000 + t * 1000, gpu)
                        .with(Field::PowerMw, rng.random_range(240_000..252_000))
                        .with(Field::TempGpuC, 70 + rng.random_range(0..3))
                        .with(Field::SmClockMhz, 1410)
                        .with(
                            Field::ThrottleMask,
                            if rng.random_ratio(1, 400) { 0x20 } else { 0 },
                        ),
                )?;
                samples += 1;
            }
        }
        w.finish()?;
        Ok(())
    })?;
    Ok((run.id, samples))
}

type Outcome<T> = Result<T, Box<dyn std::error::Error>>;

/// The median of five timings of `f`, in milliseconds, and its last result.
fn median_ms<T>(mut f: impl FnMut() -> Outcome<T>) -> Outcome<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let start = Instant::now();
        last = Some(f()?);
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[2], last.ok_or("no timing")?))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("bench.db"))?;
    ten_platforms(&store)?;
    let fonts = FontSet::discover();
    let options = ReportOptions {
        title: None,
        date: jiff::civil::date(2026, 11, 30),
        lang: Lang::En,
        evidence: None,
        job: None,
    };
    let mut times = Vec::new();
    let mut pages = 0;
    let mut bytes = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let data = gather(&store, &RankRequest::default(), Lang::En, None)?;
        let layout = compose(&data, &options)?;
        let pdf = render(&layout, &options, &fonts)?;
        times.push(start.elapsed().as_secs_f64());
        pages = layout.pages.len();
        bytes = pdf.len();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "report: 10 platforms, every chart, {pages} pages, {:.0} KB: median {:.2} s, max {:.2} s (target < 2 s)",
        bytes as f64 / 1024.0,
        times[2],
        times[4]
    );

    let (run, samples) = big_run(&store)?;
    let whole = |columns| TimelineRequest {
        run_id: run,
        range: None,
        columns,
    };
    // The reference: every sample read and decoded, as a drawing that
    // holds the whole series would need.
    let fields = [
        Field::PowerMw,
        Field::TempGpuC,
        Field::SmClockMhz,
        Field::ThrottleMask,
    ];
    let (read_all, _) = median_ms(|| {
        Ok((0..8)
            .map(|g| store.read_samples(run, g, None, Some(&fields)))
            .collect::<Result<Vec<_>, _>>()?)
    })?;
    // The app: the whole run at a window's width, then an hour zoomed in.
    let (app, reduced) = median_ms(|| Ok(timeline::timeline(&store, &whole(1280))?))?;
    let hour = 1_717_200_000_000 + 20 * 3_600_000;
    let (zoom, zoomed) = median_ms(|| {
        Ok(timeline::timeline(
            &store,
            &TimelineRequest {
                range: Some(hour..hour + 3_600_000),
                ..whole(1280)
            },
        )?)
    })?;
    // The report: reduced to its columns and drawn.
    let (report, drawn) = median_ms(|| {
        let reduced = timeline::timeline(&store, &whole(TIMELINE_COLUMNS))?;
        Ok(timeline_chart(&TimelineInput {
            title: "bench".into(),
            timeline: &reduced,
            lang: Lang::En,
        })?)
    })?;
    println!(
        "sustain timeline, {samples} samples (8 GPUs × 48 h at 1 Hz), median of 5:\n  \
         reduced to 1280 columns from the store (the app): {app:.0} ms (target < 300 ms; \
         {:.1}× the speed of reading every sample, {read_all:.0} ms), {} KB were it JSON \
         (the app gets the values as 32-bit integers)\n  \
         one hour zoomed in, 1280 columns: {zoom:.0} ms, {} samples read\n  \
         reduced to {TIMELINE_COLUMNS} columns and drawn (the report): {report:.0} ms",
        read_all / app,
        serde_json::to_vec(&reduced)?.len() / 1024,
        zoomed.samples,
    );
    // What the PDF is handed: the drawing's size and its elements, by kind.
    let svg = drawn;
    let kinds: Vec<String> = ["<path", "<polyline", "<line", "<rect", "<circle", "<text"]
        .iter()
        .map(|k| format!("{} {}", svg.matches(k).count(), k.trim_start_matches('<')))
        .collect();
    println!(
        "  its SVG: {:.0} KB, elements: {}",
        svg.len() as f64 / 1024.0,
        kinds.join(", ")
    );
    Ok(())
}
