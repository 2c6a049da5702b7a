//! The dispute sheet: each platform's bill lines the measurements do not
//! bear out, with the evidence, the seconds and the amount in question and
//! the provider's line id — what a user sends to the provider's support
//! (as CSV, or as the report's page).

use serde::Serialize;

use crate::error::Result;
use crate::metrics::reconcile::{self, Dispute, Reconciliation};
use crate::store::Store;

/// One platform's bills read against its measurements.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformDisputes {
    pub platform_id: i64,
    pub platform: String,
    pub reconciliation: Reconciliation,
}

/// What a row bills, as every face says it: "10800 s, 38.40 CNY"; "–"
/// where the line states no amount.
pub fn billed_words(d: &Dispute) -> String {
    match (&d.amount, &d.currency) {
        (Some(a), Some(c)) => format!("{:.0} s, {a} {c}", d.billed_seconds),
        _ => "–".into(),
    }
}

/// What a row holds in question, as every face says it: "2580 s, 9.17
/// CNY"; for billed time no measurement covers, "8173 s unmeasured, 42.91
/// CNY" (未测量) — never "0 s" for time that simply was not watched.
pub fn in_question_words(d: &Dispute, zh: bool) -> String {
    let currency = d.currency.as_deref().unwrap_or("");
    if d.seconds_unmeasured > 0.0 {
        let unmeasured = if zh { "秒未测量" } else { "s unmeasured" };
        format!(
            "{:.0} {unmeasured}, {} {currency}",
            d.seconds_unmeasured, d.amount_unmeasured
        )
    } else {
        format!(
            "{:.0} s, {} {currency}",
            d.seconds_in_question, d.amount_in_question
        )
    }
    .trim_end()
    .to_string()
}

/// "8173 billed seconds no measurement covers (42.91 CNY): not borne out,
/// not disputed — measure them to settle"; `None` where every billed
/// second was measured.
pub fn unmeasured_words(r: &Reconciliation, zh: bool) -> Option<String> {
    if r.seconds_unmeasured <= 0.0 {
        return None;
    }
    let amounts: Vec<String> = r
        .unmeasured_amounts
        .iter()
        .map(|(currency, amount)| format!("{amount} {currency}"))
        .collect();
    Some(if zh {
        format!(
            "{:.0} 秒计费时间没有测量覆盖（{}）：未被证实，也未提出争议——测量后方可定论",
            r.seconds_unmeasured,
            amounts.join("，")
        )
    } else {
        format!(
            "{:.0} billed seconds no measurement covers ({}): not borne out, not disputed — measure them to settle",
            r.seconds_unmeasured,
            amounts.join(", ")
        )
    })
}

/// The platforms with bill lines (only `platform`, where named), each
/// reconciled with its runs; each sheet keeps its rows with the most money
/// in question (`reconcile::LISTED`) and counts the rest.
pub fn sheet(store: &Store, platform: Option<&str>) -> Result<Vec<PlatformDisputes>> {
    sheet_each(store, platform, &mut |_, _| Ok(()))
}

/// [`sheet`], handing every row of every platform's sheet to `each` as it
/// is found.
fn sheet_each(
    store: &Store,
    platform: Option<&str>,
    each: &mut dyn FnMut(&str, &Dispute) -> Result<()>,
) -> Result<Vec<PlatformDisputes>> {
    let platforms = match platform {
        Some(name) => vec![store.platform(name)?],
        None => store.platforms()?,
    };
    let mut out = Vec::new();
    for p in platforms {
        let runs = store.runs(Some(p.id))?;
        let reconciliation = reconcile::reconcile_each(store, &runs, &mut |d| each(&p.name, d))?;
        if reconciliation.lines > 0 {
            out.push(PlatformDisputes {
                platform_id: p.id,
                platform: p.name,
                reconciliation,
            });
        }
    }
    Ok(out)
}

const CSV_HEADER: &str = "platform,finding,line_id,instance,billed_from,billed_to,billed_seconds,amount,currency,seconds_in_question,amount_in_question,seconds_unmeasured,amount_unmeasured,evidence,evidence_runs,bill_run\n";

/// Seconds as exact text to the millisecond: "108.324", "3600", never
/// 108.32399999999961.
fn seconds(s: f64) -> String {
    let text = format!("{s:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The sheet as CSV into `out`, every row (also those a sheet does not
/// keep), amounts exactly as priced, each row written as it is found; the
/// sheets as [`sheet`] gives them.
pub fn write_csv(
    store: &Store,
    platform: Option<&str>,
    out: &mut dyn std::io::Write,
) -> Result<Vec<PlatformDisputes>> {
    out.write_all(CSV_HEADER.as_bytes())?;
    sheet_each(store, platform, &mut |platform, d| {
        let line = row(platform, d)
            .iter()
            .map(|c| crate::text::csv_cell(c))
            .collect::<Vec<_>>()
            .join(",");
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    })
}

fn row(platform: &str, d: &Dispute) -> Vec<String> {
    let time = |t: Option<jiff::Timestamp>| t.map(|t| t.to_string()).unwrap_or_default();
    vec![
        platform.to_string(),
        d.finding.label().to_string(),
        d.line_id.clone().unwrap_or_default(),
        d.instance.clone(),
        time(d.billed_from),
        time(d.billed_to),
        seconds(d.billed_seconds),
        d.amount.map(|a| a.to_string()).unwrap_or_default(),
        d.currency.clone().unwrap_or_default(),
        seconds(d.seconds_in_question),
        d.amount_in_question.to_string(),
        seconds(d.seconds_unmeasured),
        d.amount_unmeasured.to_string(),
        d.evidence.clone(),
        d.evidence_runs
            .iter()
            .map(|r| format!("#{r}"))
            .collect::<Vec<_>>()
            .join(" "),
        d.bill_run.map(|r| format!("#{r}")).unwrap_or_default(),
    ]
}

#[cfg(test)]
mod tests {
    use crate::text::csv_cell as quoted;

    #[test]
    fn seconds_are_written_without_float_dust() {
        assert_eq!(super::seconds(108.32399999999961), "108.324");
        assert_eq!(super::seconds(3600.0), "3600");
        assert_eq!(super::seconds(0.5), "0.5");
    }

    #[test]
    fn cells_are_quoted_and_never_formulas() {
        assert_eq!(quoted("i-1"), "i-1");
        assert_eq!(quoted("a, b"), "\"a, b\"");
        assert_eq!(quoted("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quoted("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        // A CR would end the row in a spreadsheet and start the next one
        // with a live formula; escapes never reach the file raw.
        assert_eq!(
            quoted("node\r=HYPERLINK(\"x\")"),
            "\"node\\r=HYPERLINK(\"\"x\"\")\""
        );
        assert_eq!(quoted("a\u{1b}[31mb\u{7}"), "a\\u{1b}[31mb\\u{7}");
        assert_eq!(quoted("  =1+1"), "'  =1+1");
        assert!(!quoted("x\ny").contains('\n'));
    }
}
