//! Delivered performance: each accelerator model's platforms side by side,
//! every figure against the datasheet and the other platforms on the same
//! model, then each platform's latest perf run GPU by GPU.

use breakpoint_api::performance::GpuPerf;
use breakpoint_core::perf::number;
use breakpoint_core::text::unit_in;

use crate::layout::{Align, Column, Layout, MUTED};
use crate::model::ReportData;
use crate::text::{fill, t};

use super::ReportOptions;

fn share(s: Option<f64>) -> String {
    s.map_or("–".into(), |s| format!("{s:.0} %"))
}

pub(super) fn performance(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    if data.performance.is_empty() {
        return;
    }
    l.page();
    l.heading(t(lang, "performance"));
    l.paragraph(t(lang, "performance_note"), 9.0, MUTED);
    for model in &data.performance {
        l.need(60.0);
        l.subheading(&model.model);
        let cols = [
            Column::new(t(lang, "platform"), 190.0, Align::Left),
            Column::new(t(lang, "perf_test"), 110.0, Align::Left),
            Column::new(t(lang, "perf_median"), 110.0, Align::Right),
            Column::new(t(lang, "of_nominal"), 90.0, Align::Right),
            Column::new(t(lang, "among_peers"), 200.0, Align::Left),
        ];
        let mut rows = Vec::new();
        for p in &model.platforms {
            for f in &p.figures {
                rows.push(vec![
                    p.platform.clone(),
                    f.test.clone(),
                    format!("{} {}", number(f.value), unit_in(&f.unit, lang.is_zh())),
                    share(f.share_pct),
                    match f.percentile {
                        Some(pct) => fill(
                            t(lang, "above_peers"),
                            &[&format!("{pct:.0}"), &(f.peers - 1)],
                        ),
                        None => t(lang, "alone").to_string(),
                    },
                ]);
            }
        }
        l.table(&cols, &rows, 9.0);
    }
    for model in &data.performance {
        for p in model.platforms.iter().filter(|p| !p.latest.is_empty()) {
            l.need(80.0);
            let first = &p.latest[0];
            l.subheading(&fill(
                t(lang, "per_gpu"),
                &[
                    &p.platform,
                    &first.host.as_deref().unwrap_or("?"),
                    &first.run_id,
                ],
            ));
            per_gpu(l, &p.latest, options);
        }
    }
}

fn per_gpu(l: &mut Layout, gpus: &[GpuPerf], options: &ReportOptions) {
    let lang = options.lang;
    let cols = [
        Column::new("GPU", 40.0, Align::Right),
        Column::new(t(lang, "perf_matrix"), 150.0, Align::Right),
        Column::new(t(lang, "perf_copy"), 120.0, Align::Right),
        Column::new(t(lang, "perf_link"), 110.0, Align::Right),
        Column::new(t(lang, "perf_decay"), 70.0, Align::Right),
        Column::new(t(lang, "perf_straggler"), 210.0, Align::Left),
    ];
    let rows: Vec<Vec<String>> = gpus
        .iter()
        .map(|g| {
            vec![
                g.gpu.to_string(),
                g.gemm.as_ref().map_or("–".into(), |(test, v, s)| {
                    format!(
                        "{} {} ({})",
                        test.trim_start_matches("gemm "),
                        number(*v),
                        share(*s)
                    )
                }),
                g.copy.map_or("–".into(), |(v, s)| {
                    format!("{} GB/s ({})", number(v), share(s))
                }),
                g.host_link.map_or("–".into(), |(v, s)| {
                    format!("{} GB/s ({})", number(v), share(s))
                }),
                g.decay_pct
                    .map_or("–".into(), |d| breakpoint_core::perf::change(-d)),
                g.straggler
                    .as_ref()
                    .map_or(String::new(), |(test, deficit)| {
                        fill(t(lang, "trails_by"), &[test, &format!("{deficit:.1}")])
                    }),
            ]
        })
        .collect();
    l.table(&cols, &rows, 9.0);
}
