//! The decision-matrix PDF: cover, matrix, a page per breakpoint, the
//! charts as vectors, robustness, and an appendix of run provenance and
//! method. A4 landscape, page numbers, fonts embedded (subset). The same
//! database and date give the same bytes.

use breakpoint_core::domain::Breakpoint;
use breakpoint_core::metrics::catalog::{self, Anchors};
use breakpoint_core::text::unit_in;
use jiff::civil::Date;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::{Document, metadata::Metadata};
use krilla_svg::{SurfaceExt, SvgSettings};

use crate::charts::{self, ChartError};
use crate::error::ReportError;
use crate::fonts::{FontSet, needs_cjk};
use crate::layout::{Align, Column, INK, Layout, MARGIN, MUTED, Op, PAGE_H, PAGE_W, WARN};
use crate::model::ReportData;
use crate::text::{Lang, t};

mod clustermax;
mod disputes;
mod energy;
mod findings;
mod performance;
#[cfg(test)]
mod tests;
mod typeset;

use disputes::disputes;
use energy::energy;
use findings::{acceptance, campaigns_behind, hardware};
use performance::performance;
use typeset::{Typesetter, load};

pub struct ReportOptions {
    pub title: Option<String>,
    pub date: Date,
    pub lang: Lang,
    /// The evidence bundle written beside the report: its file name and
    /// SHA-256, printed so a reviewer can check and rebuild the ranking.
    pub evidence: Option<(String, String)>,
    /// A job to cost on every platform (`breakpoint cost`): its page shows
    /// the bands and the terms.
    pub job: Option<breakpoint_api::job_cost::JobSpec>,
}

fn score(s: Option<f64>) -> String {
    s.map_or("–".into(), |s| format!("{s:.1}"))
}

fn number(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.01 {
        format!("{v:.1e}")
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let t = format!("{v:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A metric's value as every face says it, in the report's currency.
fn value(v: f64, unit: &str, data: &ReportData, lang: Lang) -> String {
    let currency = data.money.currency.as_ref().map(|c| c.currency.as_str());
    breakpoint_api::presentation::metric_value(v, unit, currency, lang.is_zh())
}

/// A metric's name in the report's language, from the catalogue.
fn metric_name(key: &str, name: &'static str, lang: Lang) -> &'static str {
    catalog::metric(key).map_or(name, |m| m.name_in(lang.is_zh()))
}

/// Lay out every page of the report.
/// The report, page by page.
pub fn compose(data: &ReportData, options: &ReportOptions) -> Result<Layout, ChartError> {
    let mut l = Layout::new();
    cover(&mut l, data, options)?;
    matrix(&mut l, data, options)?;
    breakpoint_pages(&mut l, data, options)?;
    clustermax::categories(&mut l, data, options);
    evidence_charts(&mut l, data, options)?;
    performance(&mut l, data, options);
    hardware(&mut l, data, options);
    acceptance(&mut l, data, options);
    disputes(&mut l, data, options);
    robustness(&mut l, data, options)?;
    provenance(&mut l, data, options)?;
    method(&mut l, data, options)?;
    Ok(l)
}

/// The cover: title, date, what is compared, the winner and how sure.
fn cover(l: &mut Layout, data: &ReportData, options: &ReportOptions) -> Result<(), ChartError> {
    let lang = options.lang;
    let r = &data.ranking;
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| t(lang, "title").to_string());
    l.page();
    l.gap(60.0);
    l.text_at(MARGIN, l.y, 28.0, &title, true, INK);
    l.gap(30.0);
    l.text_at(
        MARGIN,
        l.y,
        13.0,
        &format!("{} {}", t(lang, "date"), options.date),
        false,
        MUTED,
    );
    l.gap(24.0);
    if data.demo {
        l.paragraph(t(lang, "demo_warning"), 12.0, WARN);
    }
    let ranked = r.platforms.iter().filter(|p| p.rank.is_some()).count();
    let mean_cov = if r.platforms.is_empty() {
        0.0
    } else {
        r.platforms.iter().map(|p| p.coverage).sum::<f64>() / r.platforms.len() as f64
    };
    l.paragraph(
        &format!(
            "{}: {} — {} {}, {} {}. {}: {:.0} %.",
            t(lang, "platforms_compared"),
            r.platforms
                .iter()
                .map(|p| p.platform.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            r.platforms.len(),
            t(lang, "platforms"),
            ranked,
            t(lang, "ranked"),
            t(lang, "mean_coverage"),
            100.0 * mean_cov
        ),
        11.0,
        INK,
    );
    l.subheading(&format!(
        "{}: {}",
        t(lang, "profile"),
        data.profile.profile.name
    ));
    let cols = [
        Column::new(t(lang, "breakpoint"), 160.0, Align::Left),
        Column::new(t(lang, "weight"), 90.0, Align::Right),
    ];
    let rows: Vec<Vec<String>> = Breakpoint::ALL
        .iter()
        .enumerate()
        .map(|(i, b)| {
            vec![
                t(lang, b.as_str()).to_string(),
                format!("{:.2}", r.weights[i]),
            ]
        })
        .collect();
    l.table(&cols, &rows, 10.0);
    decision(l, data, lang);
    if let Some(w) = &data.robustness.fragile_winner {
        l.paragraph(&format!("⚠ {w}"), 11.0, WARN);
    }
    for d in &data.degradations {
        l.paragraph(
            &format!("⚠ {}: {}", t(lang, "degradation"), d.sentence()),
            11.0,
            WARN,
        );
    }
    // A stale price is a warning of its own; the others are said once per
    // source, with the platforms priced from it.
    let said = |p: &breakpoint_api::ranking::PlatformPrice| {
        if lang.is_zh() {
            p.said_zh.clone()
        } else {
            p.said.clone()
        }
    };
    let mut sources: Vec<(String, Vec<&str>)> = Vec::new();
    for p in &data.prices {
        if p.stale {
            l.paragraph(&format!("⚠ {}", p.line(lang.is_zh())), 11.0, WARN);
            continue;
        }
        match sources.iter_mut().find(|(s, _)| *s == said(p)) {
            Some((_, platforms)) => platforms.push(&p.platform),
            None => sources.push((said(p), vec![&p.platform])),
        }
    }
    for (said, platforms) in sources {
        l.paragraph(&format!("{}: {said}", platforms.join(", ")), 9.5, MUTED);
    }
    l.paragraph(t(lang, "method_note"), 9.5, MUTED);
    if let Some((file, sha256)) = &options.evidence {
        l.paragraph(
            &crate::text::fill(t(lang, "evidence_bundle"), &[file, sha256]),
            9.5,
            INK,
        );
    }
    Ok(())
}

/// The decision matrix: every platform's scores side by side, with the ranking and heatmap charts.
fn matrix(l: &mut Layout, data: &ReportData, options: &ReportOptions) -> Result<(), ChartError> {
    let lang = options.lang;
    let r = &data.ranking;
    l.page();
    l.heading(t(lang, "matrix"));
    let cols = [
        Column::new(t(lang, "rank"), 40.0, Align::Right),
        Column::new(t(lang, "platform"), 210.0, Align::Left),
        Column::new(t(lang, "startup"), 68.0, Align::Right),
        Column::new(t(lang, "sustain"), 68.0, Align::Right),
        Column::new(t(lang, "switch"), 68.0, Align::Right),
        Column::new(t(lang, "billing"), 68.0, Align::Right),
        Column::new(t(lang, "overall"), 68.0, Align::Right),
        Column::new(t(lang, "coverage"), 72.0, Align::Right),
        Column::new(t(lang, "evidence"), 70.0, Align::Right),
    ];
    let rows: Vec<Vec<String>> = r
        .platforms
        .iter()
        .map(|p| {
            let mut row = vec![
                p.rank.map_or("–".into(), |r| r.to_string()),
                p.platform.name.clone(),
            ];
            row.extend(p.breakpoints.iter().map(|b| score(b.score)));
            row.push(score(p.overall));
            row.push(format!("{:.0} %", 100.0 * p.coverage));
            row.push(format!("{} {}", p.evidence, t(lang, "runs")));
            row
        })
        .collect();
    l.table(&cols, &rows, 10.0);
    l.paragraph(t(lang, "matrix_note"), 9.5, MUTED);
    let ranking_svg = charts::ranking_chart(r, lang)?;
    let h = svg_height(&ranking_svg);
    l.svg(ranking_svg, 900.0, h, 300.0);
    let heat = charts::heatmap_chart(r, lang)?;
    let h = svg_height(&heat);
    l.svg(heat, 850.0, h, 330.0);
    Ok(())
}

/// A page per breakpoint: values, scores, weights, runs.
fn breakpoint_pages(
    l: &mut Layout,
    data: &ReportData,
    options: &ReportOptions,
) -> Result<(), ChartError> {
    let lang = options.lang;
    let r = &data.ranking;
    for (bi, b) in Breakpoint::ALL.iter().enumerate() {
        l.page();
        l.heading(&format!("{} — {}", t(lang, b.as_str()), t(lang, "metrics")));
        let cols = [
            Column::new(t(lang, "platform"), 130.0, Align::Left),
            Column::new(t(lang, "metric"), 170.0, Align::Left),
            Column::new(t(lang, "value"), 95.0, Align::Right),
            Column::new(t(lang, "range"), 100.0, Align::Right),
            Column::new(t(lang, "score"), 45.0, Align::Right),
            Column::new(t(lang, "weight"), 42.0, Align::Right),
            Column::new(t(lang, "runs_col"), 188.0, Align::Left),
        ];
        let mut rows = Vec::new();
        for p in &r.platforms {
            let bs = &p.breakpoints[bi];
            rows.push(vec![
                p.platform.name.clone(),
                format!(
                    "{} ({} {:.0} %)",
                    t(lang, "breakpoint_score"),
                    t(lang, "coverage"),
                    100.0 * bs.coverage
                ),
                String::new(),
                String::new(),
                score(bs.score),
                String::new(),
                String::new(),
            ]);
            for m in bs
                .metrics
                .iter()
                .filter(|m| m.value.is_some() || m.weight > 0.0)
            {
                let range = match (m.min, m.max) {
                    (Some(lo), Some(hi)) if hi > lo => breakpoint_api::presentation::metric_range(
                        lo,
                        hi,
                        m.unit,
                        data.money.currency.as_ref().map(|c| c.currency.as_str()),
                        lang.is_zh(),
                    ),
                    _ => String::new(),
                };
                let runs = m
                    .runs
                    .iter()
                    .map(|s| {
                        format!(
                            "#{} {} {}",
                            s.run_id,
                            s.file.as_deref().unwrap_or(""),
                            s.sha256_prefix.as_deref().unwrap_or("")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                // A figure judged per unit names its worst unit first.
                rows.push(vec![
                    String::new(),
                    metric_name(m.key, m.name, lang).to_string(),
                    m.value.map_or(t(lang, "not_measured").to_string(), |v| {
                        value(v, m.unit, data, lang)
                    }),
                    range,
                    score(m.score),
                    number(m.weight),
                    if runs.is_empty() && m.value.is_some() {
                        t(lang, "from_rules").to_string()
                    } else {
                        runs
                    },
                ]);
            }
        }
        l.table(&cols, &rows, 8.0);
        units_behind(l, data, bi, lang);
        if *b == Breakpoint::Startup {
            campaigns_behind(l, data, options);
        }
    }
    Ok(())
}

/// The worst units behind each figure judged per unit, where the units
/// differ: which node and GPU, its figure and its share of the fleet.
fn units_behind(l: &mut Layout, data: &ReportData, breakpoint: usize, lang: crate::Lang) {
    let lines: Vec<String> = data
        .ranking
        .platforms
        .iter()
        .flat_map(|p| {
            p.breakpoints[breakpoint]
                .metrics
                .iter()
                .filter(|m| {
                    matches!((m.worst.first(), m.worst.last()), (Some(w), Some(b)) if w.value != b.value)
                })
                .map(move |m| {
                    let named: Vec<String> = m
                        .worst
                        .iter()
                        .take(3)
                        .map(|u| {
                            format!(
                                "{} {} ({:.0} %)",
                                u.label(),
                                value(u.value, m.unit, data, lang),
                                100.0 * u.share
                            )
                        })
                        .collect();
                    format!(
                        "{} — {}: {}",
                        p.platform.name,
                        metric_name(m.key, m.name, lang),
                        named.join("; ")
                    )
                })
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    l.gap(6.0);
    l.subheading(t(lang, "units_behind"));
    for line in lines {
        l.paragraph(&line, 8.5, INK);
    }
}

/// Charts of the evidence: start latencies, bills, sustain timelines.
fn evidence_charts(
    l: &mut Layout,
    data: &ReportData,
    options: &ReportOptions,
) -> Result<(), ChartError> {
    let lang = options.lang;
    if !data.startup.is_empty() {
        l.page();
        l.heading(t(lang, "startup_chart"));
        let svg = charts::startup_chart(&data.startup, lang)?;
        let h = svg_height(&svg);
        l.svg(svg, 900.0, h, 470.0);
    }
    if !data.bills.is_empty() {
        l.page();
        l.heading(t(lang, "billing_chart"));
        let svg = charts::billing_chart(t(lang, "billing_chart_title"), &data.bills, lang)?;
        let h = svg_height(&svg);
        l.svg(svg, 900.0, h, 470.0);
        for rate in &data.money.rates {
            l.paragraph(
                &crate::text::fill(t(lang, "converted_at"), &[&rate.to_string()]),
                9.0,
                MUTED,
            );
        }
    }
    if !data.bills_not_comparable.is_empty() {
        l.paragraph(
            &crate::text::fill(
                t(lang, "bills_not_comparable"),
                &[&data.bills_not_comparable.join(", ")],
            ),
            9.5,
            WARN,
        );
    }
    energy(l, data, options);
    job_cost(l, data, options);
    for tl in &data.timelines {
        l.page();
        l.heading(&format!("{} — {}", t(lang, "timeline"), tl.platform));
        l.svg(tl.svg.clone(), 1100.0, 760.0, 440.0);
    }
    if data.timelines_left_out > 0 {
        l.paragraph(
            &crate::text::fill(
                t(lang, "timelines_left_out"),
                &[&data.timelines.len(), &data.timelines_left_out],
            ),
            10.0,
            INK,
        );
    }
    Ok(())
}

/// Robustness: rank acceptability and the weight changes that flip the order.
fn robustness(
    l: &mut Layout,
    data: &ReportData,
    options: &ReportOptions,
) -> Result<(), ChartError> {
    let lang = options.lang;
    let r = &data.ranking;
    l.page();
    l.heading(t(lang, "robustness"));
    let rb = &data.robustness;
    if !rb.acceptability.is_empty() {
        let svg = charts::acceptability_chart(rb, lang)?;
        let h = svg_height(&svg);
        l.svg(svg, 900.0, h, 300.0);
    }
    l.subheading(t(lang, "flips"));
    let ranked: Vec<_> = r.platforms.iter().filter(|p| p.rank.is_some()).collect();
    for (i, f) in rb.flips.iter().enumerate() {
        let line = match f {
            Some(f) => f.sentence_in(lang.is_zh()),
            None => format!(
                "{} {} {}",
                ranked.get(i + 1).map_or("", |p| p.platform.name.as_str()),
                t(lang, "cannot_overtake"),
                ranked.get(i).map_or("", |p| p.platform.name.as_str())
            ),
        };
        l.paragraph(&line, 10.0, INK);
    }
    match &rb.fragile_winner {
        Some(w) => l.paragraph(&format!("⚠ {w}"), 11.0, WARN),
        // With fewer than two ranked there is no winner to test.
        None if ranked.len() >= 2 => l.paragraph(t(lang, "not_fragile"), 10.0, INK),
        None => l.paragraph(t(lang, "no_winner"), 10.0, WARN),
    }
    Ok(())
}

/// The answer in words, each platform's chance of being the best where
/// it is no decision yet, and the plan: what to measure or configure next,
/// its cost and its chance of changing the lead.
fn decision(l: &mut Layout, data: &ReportData, lang: Lang) {
    use breakpoint_api::decision::{DecisionKind, StepKind};
    let d = &data.decision;
    l.subheading(t(lang, "decision"));
    let colour = match d.kind {
        DecisionKind::Pick => INK,
        DecisionKind::Leaning | DecisionKind::None => WARN,
    };
    l.paragraph(&d.sentence_in(lang.is_zh()), 11.0, colour);
    if d.kind != DecisionKind::Pick && !d.p_best.is_empty() {
        l.paragraph(
            &crate::text::fill(t(lang, "p_best"), &[&d.draws, &d.chances_said()]),
            9.5,
            INK,
        );
    }
    // Its last moves before the plan: both on the first page.
    history(l, data, lang);
    if d.plan.is_empty() {
        return;
    }
    l.paragraph(
        &crate::text::fill(
            t(lang, "plan"),
            &[&format!("{:.0}", 100.0 * breakpoint_api::decision::ENOUGH)],
        ),
        10.0,
        INK,
    );
    for step in &d.plan {
        let kind = match step.kind {
            StepKind::Configuration => format!("{} ", t(lang, "configuration")),
            StepKind::Measurement => String::new(),
        };
        l.paragraph(
            &crate::text::fill(
                t(lang, "plan_step"),
                &[
                    &format!("{kind}{}", step.command),
                    &step.platforms.join(", "),
                    &step.cost_in(lang.is_zh()),
                    &step.chance_said(),
                    &step.measures_said(lang.is_zh()),
                ],
            ),
            9.5,
            MUTED,
        );
    }
    if d.enough {
        l.paragraph(t(lang, "plan_enough"), 9.5, INK);
    }
}

/// The last few moves of the answer: when, what moved it, and how.
fn history(l: &mut Layout, data: &ReportData, lang: Lang) {
    if data.history.is_empty() {
        return;
    }
    l.paragraph(t(lang, "history"), 10.0, INK);
    for e in &data.history {
        let (trigger, changed) = if lang.is_zh() {
            (&e.trigger_zh, e.changed_zh.join("；"))
        } else {
            (&e.trigger, e.changed.join("; "))
        };
        l.paragraph(
            &crate::text::fill(
                t(lang, "history_entry"),
                &[&breakpoint_api::text::time_words(e.at), trigger, &changed],
            ),
            9.0,
            MUTED,
        );
    }
}

/// What finishing the job costs on each platform: the bands, and each
/// platform's terms with what they rest on.
fn job_cost(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    let Some(answered) = &data.job_costs else {
        return;
    };
    let (job, costs) = (&answered.job, &answered.platforms);
    l.page();
    l.heading(t(lang, "job_cost"));
    l.paragraph(
        &crate::text::fill(
            t(lang, "job_cost_job"),
            &[
                if lang.is_zh() {
                    &answered.reading_zh
                } else {
                    &answered.reading
                },
                &job.gpus,
                &(job.checkpoint_s / 60.0),
                &answered.draws,
            ],
        ),
        10.0,
        INK,
    );
    if let Some(h) = job.horizon {
        l.paragraph(
            &crate::text::fill(
                t(lang, "job_cost_horizon"),
                &[
                    &format!("{:.0}", 100.0 * h.utilisation),
                    &job.gpus,
                    &format!("{:.0}", h.seconds / 86_400.0),
                ],
            ),
            10.0,
            INK,
        );
    }
    let cols = [
        Column::new(t(lang, "platform"), 140.0, Align::Left),
        Column::new(t(lang, "job_cost_money"), 210.0, Align::Right),
        Column::new(t(lang, "job_cost_mode"), 70.0, Align::Left),
        Column::new(t(lang, "job_cost_hours"), 130.0, Align::Right),
        Column::new(t(lang, "job_cost_deadline"), 90.0, Align::Right),
    ];
    let rows: Vec<Vec<String>> = costs
        .iter()
        .map(|c| {
            vec![
                c.platform.clone(),
                match &c.cost {
                    Some(m) => format!("{} / {} / {} {}", m.p10, m.p50, m.p90, m.currency),
                    None => c.missing.clone().unwrap_or_default(),
                },
                c.mode.map_or_else(
                    || "–".into(),
                    |m| breakpoint_api::job_cost::mode_words(m, lang.is_zh()).into(),
                ),
                c.hours.words(),
                c.deadline_probability
                    .map_or("–".into(), |p| format!("{:.0} %", 100.0 * p)),
            ]
        })
        .collect();
    l.table(&cols, &rows, 9.0);
    l.paragraph(
        if lang.is_zh() {
            &answered.answer_zh
        } else {
            &answered.answer
        },
        10.5,
        INK,
    );
    match charts::job_cost_chart(costs, lang) {
        Ok(svg) => {
            let h = svg_height(&svg);
            l.svg(svg, 900.0, h, 420.0);
        }
        Err(e) => l.paragraph(&e.to_string(), 9.0, MUTED),
    }
    for c in costs {
        let terms: Vec<String> = c
            .terms
            .iter()
            .map(|term| {
                let share = term
                    .share
                    .map(|s| format!(", {:.0} %", 100.0 * s))
                    .unwrap_or_default();
                format!(
                    "{} {}{share} ({})",
                    term.key.name_in(lang.is_zh()),
                    term.figure(lang.is_zh()),
                    term.source
                )
            })
            .collect();
        let mut line = format!("{}: {}", c.platform, terms.join("; "));
        if let Some(pace) = &c.pace {
            line.push_str(&format!("; {}", pace.words(lang.is_zh())));
        }
        for part in &c.unpriced {
            line.push_str(&format!("; {} {part}", t(lang, "left_out")));
        }
        if let Some(why) = &c.not_comparable {
            line.push_str(&format!("; {why}"));
        }
        if let Some(rate) = &c.rate {
            line.push_str(&format!(
                "; {}",
                crate::text::fill(t(lang, "converted_at"), &[rate])
            ));
        }
        l.paragraph(&line, 8.0, MUTED);
    }
    l.paragraph(t(lang, "job_cost_note"), 9.0, MUTED);
}

/// Appendix A: run provenance.
fn provenance(
    l: &mut Layout,
    data: &ReportData,
    options: &ReportOptions,
) -> Result<(), ChartError> {
    let lang = options.lang;
    l.page();
    l.heading(t(lang, "provenance"));
    let cols = [
        Column::new("#", 30.0, Align::Right),
        Column::new(t(lang, "platform"), 100.0, Align::Left),
        Column::new(t(lang, "file"), 130.0, Align::Left),
        Column::new("SHA-256", 282.0, Align::Left),
        Column::new(t(lang, "format"), 88.0, Align::Left),
        Column::new(t(lang, "period"), 104.0, Align::Left),
        Column::new("GPUs", 36.0, Align::Right),
    ];
    let rows: Vec<Vec<String>> = data
        .runs
        .iter()
        .map(|(platform, run)| {
            let period = match (run.started_at, run.ended_at) {
                (Some(a), Some(b)) => format!(
                    "{} +{:.1} {}",
                    breakpoint_core::text::minute_words(a),
                    b.duration_since(a).as_secs_f64() / 3600.0,
                    unit_in("h", lang.is_zh())
                ),
                _ => "–".into(),
            };
            vec![
                run.id.to_string(),
                platform.clone(),
                run.provenance.file_name.clone().unwrap_or_default(),
                run.provenance.sha256.clone().unwrap_or_default(),
                run.provenance.format.clone().unwrap_or_default(),
                period,
                run.inventory.len().to_string(),
            ]
        })
        .collect();
    l.table(&cols, &rows, 6.0);
    Ok(())
}

/// Appendix B: method, from the same catalogue as docs/metrics.md.
fn method(l: &mut Layout, data: &ReportData, options: &ReportOptions) -> Result<(), ChartError> {
    let lang = options.lang;
    l.page();
    l.heading(t(lang, "method"));
    l.paragraph(t(lang, "method_note"), 9.5, INK);
    for b in Breakpoint::ALL {
        l.subheading(t(lang, b.as_str()));
        for m in catalog::of(*b) {
            let anchors = match data.profile.curves.get(m.key).copied().unwrap_or(m.anchors) {
                Anchors::Fixed { best, worst, log } => format!(
                    "{}{}",
                    crate::text::fill(t(lang, "anchors_fixed"), &[&number(best), &number(worst)]),
                    if log { t(lang, "anchors_log") } else { "" }
                ),
                Anchors::RelativeToBest { factor } => {
                    crate::text::fill(t(lang, "anchors_relative"), &[&number(factor)])
                }
            };
            l.paragraph(
                &format!(
                    "{} ({}, {}) — {} {} {}",
                    m.name_in(lang.is_zh()),
                    m.key,
                    unit_in(m.unit, lang.is_zh()),
                    m.definition,
                    crate::text::fill(t(lang, "anchors_clause"), &[&anchors]),
                    m.why
                ),
                8.5,
                INK,
            );
        }
    }
    Ok(())
}

/// The height an SVG chart declares.
pub(super) fn svg_height(svg: &str) -> f32 {
    svg.split("height=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.trim_end_matches("px").parse().ok())
        .unwrap_or(600.0)
}

/// Write the composed pages as a PDF.
pub fn render(
    layout: &Layout,
    options: &ReportOptions,
    fonts: &FontSet,
) -> Result<Vec<u8>, ReportError> {
    if let Some(sample) = layout.texts().find(|t| needs_cjk(t))
        && fonts.cjk.is_none()
    {
        let sample: String = sample
            .chars()
            .filter(|c| needs_cjk(&c.to_string()))
            .take(6)
            .collect();
        return Err(ReportError::NoCjkFont { sample });
    }
    let fonts = load(fonts)?;
    let mut typesetter = Typesetter::new(&fonts);
    if !typesetter.has_font() {
        return Err(ReportError::NoFont);
    }
    let svg_options = usvg::Options {
        fontdb: fonts.svg_db.clone(),
        ..Default::default()
    };

    let mut document = Document::new();
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| t(options.lang, "title").to_string());
    document.set_metadata(
        Metadata::new()
            .title(title.clone())
            .creator("Breakpoint".into())
            .language(match options.lang {
                Lang::En => "en".into(),
                Lang::Zh => "zh-CN".into(),
            })
            .creation_date(
                krilla::metadata::DateTime::new(options.date.year().max(0) as u16)
                    .month(options.date.month() as u8)
                    .day(options.date.day() as u8),
            ),
    );
    let total = layout.pages.len();
    let settings = PageSettings::from_wh(PAGE_W, PAGE_H)
        .ok_or_else(|| ReportError::Pdf("bad page size".into()))?;
    for (i, ops) in layout.pages.iter().enumerate() {
        let mut page = document.start_page_with(settings.clone());
        let mut surface = page.surface();
        for op in ops {
            draw(&mut surface, &mut typesetter, &svg_options, op)?;
        }
        // Footer: title, date, page n of N.
        surface.set_fill(Some(fill(MUTED)));
        let footer = format!(
            "{title} — {} — {} {} / {}",
            options.date,
            t(options.lang, "page"),
            i + 1,
            total
        );
        typesetter.draw(
            &mut surface,
            Point::from_xy(MARGIN, PAGE_H - 18.0),
            8.0,
            &footer,
            false,
        );
        surface.finish();
        page.finish();
    }
    document
        .finish()
        .map_err(|e| ReportError::Pdf(format!("{e:?}")))
}

/// One drawing operation of a page.
fn draw(
    surface: &mut krilla::surface::Surface<'_>,
    typesetter: &mut Typesetter<'_>,
    svg_options: &usvg::Options<'_>,
    op: &Op,
) -> Result<(), ReportError> {
    match op {
        Op::Text {
            x,
            y,
            size,
            text,
            bold,
            colour,
        } => {
            surface.set_fill(Some(fill(*colour)));
            typesetter.draw(surface, Point::from_xy(*x, *y), *size, text, *bold);
        }
        Op::Line {
            from,
            to,
            width,
            colour,
        } => {
            let mut pb = PathBuilder::new();
            pb.move_to(from.0, from.1);
            pb.line_to(to.0, to.1);
            if let Some(path) = pb.finish() {
                surface.set_fill(None);
                surface.set_stroke(Some(Stroke {
                    paint: rgb::Color::new(colour.0, colour.1, colour.2).into(),
                    width: *width,
                    ..Default::default()
                }));
                surface.draw_path(&path);
                surface.set_stroke(None);
            }
        }
        Op::Rect { x, y, w, h, colour } => {
            let mut pb = PathBuilder::new();
            if let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) {
                pb.push_rect(rect);
            }
            if let Some(path) = pb.finish() {
                surface.set_fill(Some(fill(*colour)));
                surface.draw_path(&path);
            }
        }
        Op::Svg { svg, x, y, w, h } => {
            let tree = usvg::Tree::from_str(svg, svg_options)
                .map_err(|e| ReportError::Pdf(format!("chart: {e}")))?;
            if let Some(size) = Size::from_wh(*w, *h) {
                surface.push_transform(&Transform::from_translate(*x, *y));
                surface.draw_svg(&tree, size, SvgSettings::default());
                surface.pop();
            }
        }
    }
    Ok(())
}

fn fill(c: (u8, u8, u8)) -> Fill {
    Fill {
        paint: rgb::Color::new(c.0, c.1, c.2).into(),
        opacity: NormalizedF32::ONE,
        rule: Default::default(),
    }
}
