//! The pages of what the logs found beside the scores: the startup
//! campaigns behind the startup figures, hardware evidence (Xid errors,
//! health checks, narrowed links) and the acceptance checklists.

use breakpoint_core::accelerator::xid;

use crate::layout::{Align, Column, INK, Layout, MUTED};
use crate::model::ReportData;
use crate::text::t;

use super::{ReportOptions, svg_height};

/// The startup campaigns behind the startup figures: which recipe, which
/// scenario, how many attempts.
pub(super) fn campaigns_behind(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    let lines: Vec<String> = data
        .runs
        .iter()
        .filter(|(_, run)| run.source == breakpoint_core::domain::SourceKind::Campaign)
        .map(|(platform, run)| {
            let c = run.metadata.get("campaign");
            let text = |key: &str| {
                c.and_then(|c| c.get(key))
                    .and_then(|v| v.as_str())
                    .unwrap_or("?")
                    .to_string()
            };
            let attempts = c
                .and_then(|c| c.get("attempts"))
                .and_then(|a| a.as_array())
                .map_or(0, Vec::len);
            format!(
                "#{} {platform}: {} {} ({}), {} {attempts}, {} {} ({} {})",
                run.id,
                t(lang, "campaign"),
                text("name"),
                text("scenario"),
                t(lang, "attempts"),
                t(lang, "recipe"),
                run.provenance.file_name.as_deref().unwrap_or("?"),
                t(lang, "sha256_short"),
                text("recipe_sha256").chars().take(12).collect::<String>()
            )
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    l.gap(6.0);
    l.subheading(t(lang, "campaigns_behind"));
    for line in lines {
        l.paragraph(&line, 8.5, INK);
    }
    for (label, attempts) in &data.campaign_stages {
        if let Ok(svg) = crate::charts::stages_chart(attempts, label, lang) {
            let h = svg_height(&svg);
            l.svg(svg, 900.0, h, 260.0);
        }
    }
}

/// What the logs say about each platform's hardware: Xid errors by code and
/// meaning (whose fault, whether counted), failed health checks by test and
/// GPU, PCIe links narrower than the card's own.
pub(super) fn hardware(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    if data.hardware.is_empty() {
        return;
    }
    let lang = options.lang;
    l.page();
    l.heading(t(lang, "hardware"));
    l.paragraph(t(lang, "hardware_note"), 9.0, MUTED);
    for (platform, h) in &data.hardware {
        l.need(60.0);
        l.subheading(platform);
        if !h.xids.is_empty() {
            let cols = [
                Column::new("Xid", 36.0, Align::Right),
                Column::new(t(lang, "xid_meaning"), 330.0, Align::Left),
                Column::new(t(lang, "xid_severity"), 60.0, Align::Left),
                Column::new(t(lang, "xid_blame"), 80.0, Align::Left),
                Column::new(t(lang, "xid_count"), 44.0, Align::Right),
                Column::new(t(lang, "xid_counted"), 60.0, Align::Left),
                Column::new(t(lang, "xid_runs"), 100.0, Align::Left),
            ];
            let rows: Vec<Vec<String>> = h
                .xids
                .iter()
                .map(|x| {
                    vec![
                        x.code.to_string(),
                        u32::try_from(x.code)
                            .ok()
                            .and_then(|code| xid::meaning_in(code, lang.is_zh()))
                            .or(x.meaning)
                            .unwrap_or("?")
                            .to_string(),
                        x.severity
                            .map_or("–".into(), |s| t(lang, s.as_str()).to_string()),
                        x.blame.map_or("?".into(), |b| {
                            t(lang, &format!("blame_{}", b.as_str())).to_string()
                        }),
                        x.count.to_string(),
                        t(lang, if x.counted { "yes" } else { "no" }).to_string(),
                        x.runs
                            .iter()
                            .map(|r| format!("#{r}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                    ]
                })
                .collect();
            l.table(&cols, &rows, 7.5);
        }
        if h.gpus_lost > 0 {
            l.paragraph(
                &format!("{}: {}", t(lang, "gpus_lost"), h.gpus_lost),
                8.5,
                INK,
            );
        }
        if !h.health.is_empty() {
            let cols = [
                Column::new(t(lang, "health_test"), 150.0, Align::Left),
                Column::new("GPU", 50.0, Align::Left),
                Column::new(t(lang, "health_status"), 50.0, Align::Left),
                Column::new(t(lang, "health_message"), 410.0, Align::Left),
                Column::new(t(lang, "xid_runs"), 50.0, Align::Left),
            ];
            let rows: Vec<Vec<String>> = h
                .health
                .iter()
                .map(|f| {
                    vec![
                        f.test.clone(),
                        f.gpu.clone().unwrap_or_else(|| t(lang, "all_gpus").into()),
                        f.status.clone(),
                        f.message.clone().unwrap_or_default(),
                        format!("#{}", f.run_id),
                    ]
                })
                .collect();
            l.table(&cols, &rows, 7.5);
        }
        if !h.links.is_empty() {
            let cols = [
                Column::new("GPU", 220.0, Align::Left),
                Column::new(t(lang, "link_width"), 120.0, Align::Left),
                Column::new(t(lang, "xid_runs"), 60.0, Align::Left),
            ];
            let rows: Vec<Vec<String>> = h
                .links
                .iter()
                .map(|k| {
                    vec![
                        k.gpu.clone(),
                        format!("x{} / x{}", k.width, k.max_width),
                        format!("#{}", k.run_id),
                    ]
                })
                .collect();
            l.table(&cols, &rows, 7.5);
        }
        l.gap(8.0);
    }
}

/// The acceptance checklists the instances printed, bundle by bundle.
pub(super) fn acceptance(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    if data.acceptance.is_empty() {
        return;
    }
    let lang = options.lang;
    l.page();
    l.heading(t(lang, "acceptance"));
    l.paragraph(t(lang, "acceptance_note"), 9.0, MUTED);
    for sheet in &data.acceptance {
        l.need(60.0);
        l.subheading(&format!("{} — {}", sheet.platform, sheet.title));
        let cols = [
            Column::new(t(lang, "acceptance_check"), 130.0, Align::Left),
            Column::new(t(lang, "acceptance_measured"), 330.0, Align::Left),
            Column::new(t(lang, "acceptance_threshold"), 220.0, Align::Left),
            Column::new(t(lang, "acceptance_verdict"), 50.0, Align::Left),
        ];
        let rows: Vec<Vec<String>> = sheet
            .checklist
            .iter()
            .map(|c| {
                vec![
                    c.check.clone(),
                    c.measured.clone(),
                    c.threshold.clone(),
                    match c.passed {
                        Some(true) => t(lang, "pass").to_string(),
                        Some(false) => t(lang, "fail").to_string(),
                        None => "–".into(),
                    },
                ]
            })
            .collect();
        l.table(&cols, &rows, 7.5);
        l.gap(8.0);
    }
}
