//! Bills against measurements: each platform's bill lines the evidence does
//! not bear out, priced — the dispute sheet as a page.

use breakpoint_api::disputes;

use crate::layout::{Align, Column, Layout, MUTED};
use crate::model::ReportData;
use crate::text::{fill, t};

use super::ReportOptions;

/// Rows a platform's sheet shows on the page: the most in question; the
/// CSV has them all.
const PAGE_ROWS: usize = 40;

pub(super) fn disputes(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    if data.disputes.is_empty() {
        return;
    }
    l.page();
    l.heading(t(lang, "disputes"));
    l.paragraph(t(lang, "disputes_note"), 9.0, MUTED);
    for s in &data.disputes {
        let r = &s.reconciliation;
        l.need(60.0);
        let amounts: Vec<String> = r
            .amounts
            .iter()
            .map(|(currency, (billed, question))| format!("{question} / {billed} {currency}"))
            .collect();
        let unmeasured = disputes::unmeasured_words(r, lang.is_zh());
        l.subheading(&fill(
            t(lang, "disputes_platform"),
            &[
                &s.platform,
                &r.lines,
                &format!("{:.0}", r.seconds_in_question),
                &format!("{:.0}", r.billed_seconds),
                &amounts.join(", "),
            ],
        ));
        if let Some(unmeasured) = unmeasured {
            l.paragraph(&unmeasured, 8.5, MUTED);
        }
        let cols = [
            Column::new(t(lang, "dispute_finding"), 175.0, Align::Left),
            Column::new(t(lang, "dispute_line"), 110.0, Align::Left),
            Column::new(t(lang, "dispute_billed"), 110.0, Align::Right),
            Column::new(t(lang, "dispute_question"), 135.0, Align::Right),
            Column::new(t(lang, "dispute_evidence"), 240.0, Align::Left),
        ];
        // The rows with the most in question, in the sheet's order.
        let mut shown: Vec<usize> = (0..r.disputes.len()).collect();
        shown.sort_by(|&a, &b| {
            let (x, y) = (&r.disputes[a], &r.disputes[b]);
            y.amount_in_question
                .cmp(&x.amount_in_question)
                .then(y.seconds_in_question.total_cmp(&x.seconds_in_question))
                .then(a.cmp(&b))
        });
        shown.truncate(PAGE_ROWS);
        shown.sort_unstable();
        let rows: Vec<Vec<String>> = shown
            .iter()
            .map(|&i| &r.disputes[i])
            .map(|d| {
                vec![
                    d.finding.label_in(lang.is_zh()).to_string(),
                    match &d.line_id {
                        Some(id) => format!("{id} · {}", d.instance),
                        None => d.instance.clone(),
                    },
                    disputes::billed_words(d),
                    disputes::in_question_words(d, lang.is_zh()),
                    d.evidence.clone(),
                ]
            })
            .collect();
        l.table(&cols, &rows, 8.5);
        let total: usize = r.rows.values().sum();
        if total > rows.len() {
            l.paragraph(
                &fill(t(lang, "disputes_more"), &[&(total - rows.len()), &total]),
                8.5,
                MUTED,
            );
        }
    }
}
