//! Charts drawn from fixed data: the structure of each SVG (elements and
//! their text, with coordinates left out) is snapshot-tested, output is
//! deterministic, and a 1.4 M-sample timeline keeps its extremes.

use breakpoint_api::catalogue::keys;
use breakpoint_api::timeline::{self, RunTimeline, TimelineRequest};
use breakpoint_core::domain::{
    Breakpoint, BreakpointWeights, Event, EventKind, NewRun, Platform, PlatformKind, RunKind,
    SourceKind, WeightProfile,
};
use breakpoint_core::metrics::{Evidence, PlatformEvidence};
use breakpoint_core::samples::{Field, Sample};
use breakpoint_core::scoring::{self, RobustnessOptions};
use breakpoint_core::store::{Store, StoredProfile};

use super::*;
use crate::text::Lang;

/// Elements and text of an SVG, without coordinates: what the chart shows,
/// not where each pixel went.
fn structure(svg: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for part in svg.split('<').skip(1) {
        let tag: String = part
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '/')
            .collect();
        if tag.starts_with('/') || tag.is_empty() {
            continue;
        }
        let line = if tag == "text" {
            format!("text {}", part.split('>').nth(1).unwrap_or("").trim())
        } else {
            tag
        };
        match out.last_mut() {
            Some(last) if last.split(" ×").next() == Some(line.as_str()) => {
                let n: usize = last
                    .split(" ×")
                    .nth(1)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
                *last = format!("{line} ×{}", n + 1);
            }
            _ => out.push(line),
        }
    }
    out.join("\n")
}

fn evidence(id: i64, name: &str, values: &[(&str, f64)]) -> PlatformEvidence {
    PlatformEvidence {
        platform: Platform {
            id,
            name: name.into(),
            kind: PlatformKind::Other,
            notes: None,
            template: None,
        },
        metrics: values
            .iter()
            .map(|(k, v)| Evidence::without_sources(*k, *v, *v, *v))
            .collect(),
        claims: Vec::new(),
        runs: 2,
        currency: Some("CNY".into()),
        price_source: None,
        not_comparable: Vec::new(),
        degradations: Vec::new(),
    }
}

fn ranking() -> scoring::Ranking {
    let profile = StoredProfile {
        profile: WeightProfile {
            id: 0,
            name: "balanced".into(),
            builtin: true,
            breakpoints: BreakpointWeights {
                startup: 0.25,
                sustain: 0.25,
                switch: 0.25,
                billing: 0.25,
            },
            metrics: Default::default(),
        },
        curves: Default::default(),
        coverage_threshold: 0.3,
    };
    let platforms = vec![
        evidence(
            1,
            "阿里云",
            &[
                (keys::STARTUP_BASELINE_P50_S, 3.0),
                (keys::SUSTAIN_POWER_DROP_PCT, 4.0),
                (keys::SWITCH_SUCCESS_PCT, 90.0),
                (keys::BILLING_GRANULARITY_S, 1.0),
            ],
        ),
        evidence(
            2,
            "AutoDL",
            &[
                (keys::STARTUP_BASELINE_P50_S, 40.0),
                (keys::SUSTAIN_POWER_DROP_PCT, 1.0),
                (keys::BILLING_GRANULARITY_S, 60.0),
            ],
        ),
        evidence(3, "Thin evidence", &[]),
    ];
    scoring::rank(&platforms, &profile)
}

#[test]
fn score_charts_show_every_platform_and_mark_the_unmeasured() {
    let r = ranking();
    let bars = ranking_chart(&r, Lang::En).unwrap();
    let heat = heatmap_chart(&r, Lang::En).unwrap();
    let robust = scoring::robustness(
        &r,
        &RobustnessOptions {
            samples: 500,
            ..RobustnessOptions::default()
        },
    );
    let acceptability = acceptability_chart(&robust, Lang::En).unwrap();
    for svg in [&bars, &heat] {
        assert!(svg.contains("阿里云") && svg.contains("AutoDL") && svg.contains("Thin evidence"));
    }
    assert!(
        heat.contains("not measured"),
        "AutoDL's switch and the thin platform are not measured"
    );
    assert_eq!(bars, ranking_chart(&r, Lang::En).unwrap(), "deterministic");
    insta::assert_snapshot!("ranking", structure(&bars));
    insta::assert_snapshot!("heatmap", structure(&heat));
    insta::assert_snapshot!("acceptability", structure(&acceptability));
}

#[test]
fn startup_and_billing_charts() {
    let rows = vec![
        StartupRow {
            platform: "Platform A".into(),
            attempts: vec![
                ("baseline".into(), false, Some(1.8)),
                ("peak".into(), false, Some(1320.0)),
                ("peak".into(), false, None),
            ],
            stages: Some([0.9, 0.5, 0.4]),
        },
        StartupRow {
            platform: "腾讯云".into(),
            attempts: vec![("baseline".into(), true, Some(240.0))],
            stages: None,
        },
    ];
    let svg = startup_chart(&rows, Lang::En).unwrap();
    assert!(svg.contains("腾讯云") && svg.contains("1 min") && svg.contains("10 min"));
    insta::assert_snapshot!("startup", structure(&svg));
    let bills = vec![
        BillBar {
            platform: "A".into(),
            billed: 38.40,
            fair: 21.82,
            currency: "CNY".into(),
        },
        BillBar {
            platform: "D".into(),
            billed: 21.82,
            fair: 21.82,
            currency: "CNY".into(),
        },
    ];
    let svg = billing_chart("reference job", &bills, Lang::En).unwrap();
    assert!(svg.contains("38.40 CNY") && svg.contains("+76 %"));
    insta::assert_snapshot!("billing", structure(&svg));
}

/// A store holding one run of `samples` (with `events`), reduced as the
/// report reduces it.
fn reduced(samples: impl Iterator<Item = Sample>, events: &[Event]) -> RunTimeline {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db")).unwrap();
    let platform = store
        .create_platform(&Platform::new("P", PlatformKind::Hyperscaler, None).unwrap())
        .unwrap();
    let run = store
        .create_run(NewRun::new(
            platform.id,
            RunKind::Sustain,
            SourceKind::Import,
        ))
        .unwrap()
        .id;
    let mut writer = store.sample_writer(run).unwrap();
    for sample in samples {
        writer.push(&sample).unwrap();
    }
    writer.finish().unwrap();
    store.add_events(run, events).unwrap();
    let request = TimelineRequest {
        run_id: run,
        range: None,
        columns: TIMELINE_COLUMNS,
    };
    timeline::timeline(&store, &request).unwrap()
}

fn busy_run(gpus: u32, seconds: i64, spike_gpu: u32) -> impl Iterator<Item = Sample> {
    (0..seconds).flat_map(move |s| {
        (0..gpus).map(move |gpu| {
            let mut power = 250_000 + (s * 7919 % 4000);
            let mut temp = 70;
            if gpu == spike_gpu && s == seconds / 3 {
                power = 912_000; // one second's spike
            }
            if gpu == spike_gpu && s == 2 * seconds / 3 {
                temp = 21; // and one second's dip
            }
            Sample::new(s * 1000, gpu)
                .with(Field::PowerMw, power)
                .with(Field::TempGpuC, temp)
                .with(Field::SmClockMhz, 1410)
                .with(Field::ThrottleMask, if s % 5000 == 0 { 0x20 } else { 0 })
        })
    })
}

#[test]
fn a_timeline_of_1_4_million_samples_keeps_its_spike_and_dip() {
    let timeline = reduced(busy_run(8, 48 * 3600, 5), &[]);
    assert_eq!(timeline.samples, 1_382_400);
    let svg = timeline_chart(&TimelineInput {
        title: "48 h × 8 GPUs".into(),
        timeline: &timeline,
        lang: Lang::En,
    })
    .unwrap();
    // The power axis reaches the spike and the temperature axis the dip.
    let labels: Vec<&str> = svg
        .split("<text")
        .filter_map(|t| t.split('>').nth(1))
        .map(|t| t.split('<').next().unwrap_or("").trim())
        .collect();
    assert!(
        labels.contains(&"800.0"),
        "power axis reaches the 912 W spike: {labels:?}"
    );
    assert!(
        labels.contains(&"20.0") || labels.contains(&"10.0"),
        "temperature axis reaches the 21 °C dip: {labels:?}"
    );
    assert!(svg.len() < 3_000_000, "reduced: {} bytes", svg.len());
    insta::assert_snapshot!("timeline", structure(&svg));
    let _ = Breakpoint::ALL;
}

/// One GPU's power only, a sample every 3 s, with an optional silence.
fn power_run(outage: Option<(i64, i64)>) -> impl Iterator<Item = Sample> {
    (0..200)
        .map(|i| i64::from(i) * 3_000)
        .filter(move |t| outage.is_none_or(|(from, to)| *t < from || *t > to))
        .map(|t| Sample::new(1_717_200_000_000 + t, 0).with(Field::PowerMw, 250_000 + t % 7_000))
}

#[test]
fn a_timeline_breaks_its_line_at_an_outage_shades_the_loss_and_drops_empty_panels() {
    let draw = |timeline: RunTimeline| {
        timeline_chart(&TimelineInput {
            title: "t".into(),
            timeline: &timeline,
            lang: Lang::En,
        })
        .unwrap()
    };
    let steady = draw(reduced(power_run(None), &[]));
    let lost_at = jiff::Timestamp::from_millisecond(1_717_200_000_000 + 150_000).unwrap();
    let loss = Event {
        duration_ms: Some(240_000),
        gpu: Some(0),
        ..Event::new(lost_at, EventKind::GpuLost)
    };
    let broken = draw(reduced(
        power_run(Some((150_000, 390_000))),
        std::slice::from_ref(&loss),
    ));
    let count = |svg: &str, what: &str| svg.matches(what).count();
    assert_eq!(
        count(&broken, "<polyline"),
        count(&steady, "<polyline") + 2,
        "the power line in two pieces, and the loss's marker"
    );
    // The same loss marked on an unbroken series adds only its marker.
    let marked = draw(reduced(power_run(None), std::slice::from_ref(&loss)));
    assert_eq!(count(&marked, "<polyline"), count(&steady, "<polyline") + 1);
    assert!(
        count(&broken, "<rect") > count(&steady, "<rect"),
        "the loss is shaded"
    );
    // Only power was recorded: no temperature or clock panels.
    assert!(steady.contains("power (W)"));
    assert!(!steady.contains("SM clock") && !steady.contains("temperature"));
}

#[test]
fn charts_speak_the_report_language() {
    let r = ranking();
    let zh = heatmap_chart(&r, Lang::Zh).unwrap();
    assert!(zh.contains("各断点得分") && zh.contains("未测量"), "{zh}");
    assert!(!zh.contains("not measured") && !zh.contains("Scores by breakpoint"));
    let en = heatmap_chart(&r, Lang::En).unwrap();
    assert!(en.contains("not measured") && !en.contains("未测量"));
    let bars = ranking_chart(&r, Lang::Zh).unwrap();
    assert!(bars.contains("综合得分") && bars.contains("启动"), "{bars}");
}
