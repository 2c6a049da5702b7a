//! Bills against measurements: each platform's bill lines the evidence does
//! not bear out, priced — the dispute sheet as a page.

use crate::layout::{Align, Column, Layout, MUTED};
use crate::model::ReportData;
use crate::text::{fill, t};

use super::ReportOptions;

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
        let cols = [
            Column::new(t(lang, "dispute_finding"), 175.0, Align::Left),
            Column::new(t(lang, "dispute_line"), 110.0, Align::Left),
            Column::new(t(lang, "dispute_billed"), 110.0, Align::Right),
            Column::new(t(lang, "dispute_question"), 95.0, Align::Right),
            Column::new(t(lang, "dispute_evidence"), 280.0, Align::Left),
        ];
        let rows: Vec<Vec<String>> = r
            .disputes
            .iter()
            .map(|d| {
                let currency = d.currency.as_deref().unwrap_or("");
                vec![
                    t(lang, d.finding.label()).to_string(),
                    match &d.line_id {
                        Some(id) => format!("{id} · {}", d.instance),
                        None => d.instance.clone(),
                    },
                    d.amount.map_or("–".into(), |a| {
                        format!("{:.0} s · {a} {currency}", d.billed_seconds)
                    }),
                    format!(
                        "{:.0} s · {} {currency}",
                        d.seconds_in_question, d.amount_in_question
                    ),
                    d.evidence.clone(),
                ]
            })
            .collect();
        l.table(&cols, &rows, 8.5);
    }
}
