//! The page of the matrix in ClusterMAX's categories: what the API's view
//! says, laid out; nothing is computed here.

use crate::layout::{Align, Column, INK, Layout, MUTED};
use crate::model::ReportData;
use crate::text::t;

use super::ReportOptions;

/// Platforms side by side in one table; more continue in another.
const PLATFORMS_PER_TABLE: usize = 6;
const NAME_W: f32 = 190.0;
const PLATFORM_W: f32 = 96.0;

pub(super) fn categories(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    let view = &data.clustermax;
    if view.platforms.is_empty() {
        return;
    }
    l.page();
    l.heading(t(lang, "clustermax"));
    l.paragraph(t(lang, "clustermax_note"), 9.0, MUTED);
    for c in &view.categories {
        l.need(70.0);
        l.subheading(&format!("{} — {}", c.name, c.evidenced_by));
        let checks: Vec<_> = c.checks.iter().filter(|k| !k.not_read).collect();
        for (chunk, names) in view.platforms.chunks(PLATFORMS_PER_TABLE).enumerate() {
            let from = chunk * PLATFORMS_PER_TABLE;
            let columns = |first: &str| {
                let mut cols = vec![Column::new(first, NAME_W, Align::Left)];
                cols.extend(
                    names
                        .iter()
                        .map(|n| Column::new(n.as_str(), PLATFORM_W, Align::Right)),
                );
                cols
            };
            let cells = |values: &[String]| values[from..from + names.len()].to_vec();
            if !c.metrics.is_empty() {
                let rows: Vec<Vec<String>> = c
                    .metrics
                    .iter()
                    .map(|m| {
                        let mut row = vec![m.name.clone()];
                        row.extend(cells(&m.figures));
                        row
                    })
                    .collect();
                l.table(&columns(t(lang, "clustermax_metric")), &rows, 7.5);
            }
            if !checks.is_empty() {
                let rows: Vec<Vec<String>> = checks
                    .iter()
                    .map(|k| {
                        let said: Vec<String> = k
                            .measured
                            .iter()
                            .map(|m| m.clone().unwrap_or_else(|| "–".into()))
                            .collect();
                        let mut row = vec![k.name.clone()];
                        row.extend(cells(&said));
                        row
                    })
                    .collect();
                l.table(&columns(t(lang, "clustermax_check")), &rows, 7.5);
            }
        }
        for k in &c.checks {
            if k.not_read {
                l.paragraph(
                    &format!(
                        "{}: {} {}",
                        k.name,
                        t(lang, "clustermax_not_read"),
                        k.command
                    ),
                    7.5,
                    MUTED,
                );
            } else if k.measured.iter().any(Option::is_none) {
                l.paragraph(
                    &format!(
                        "{} — {}: {}",
                        t(lang, "clustermax_to_measure"),
                        k.name,
                        k.command
                    ),
                    7.5,
                    MUTED,
                );
            }
        }
        for a in &c.audits {
            l.paragraph(&format!("{}: {}", a.platform, a.said), 8.0, INK);
            for r in &a.results {
                l.paragraph(&format!("    {r}"), 7.5, INK);
            }
        }
        l.gap(6.0);
    }
}
