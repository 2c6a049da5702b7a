//! The AWS Price List's offer file for EC2, as CSV
//! (`…/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv`): five lines
//! of metadata (format version, disclaimer, publication date, version,
//! offer code), then a header of quoted columns, the terms' first
//! (`SKU`, `TermType`, `Unit`, `PricePerUnit`, …) and the product's after
//! (`Instance Type`, `Location`, `vCPU`, `Memory`, `GPU`, …).
//!
//! Only the prices of a plain instance are kept: by the hour, Linux, shared
//! tenancy, no pre-installed software, capacity used. An on-demand term is
//! an on-demand quote; a reserved term paid with no upfront is a reserved
//! quote (an hourly rate); reserved terms paid upfront are left out,
//! counted, as are other systems and tenancies and instances without GPUs.
//! The CSV counts GPUs but does not name them: the accelerator is left
//! unknown (the instance type says it) unless a processor column names a
//! GPU.

use std::io::BufRead;

use jiff::Timestamp;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseResult, RunBuilder};
use super::{Accelerators, Header, LeftOut, Row, finish, names_all, push, read_csv};
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "AWS Price List";

/// Metadata lines an offer file has before its header (five), with room
/// for one more.
pub(super) const PREAMBLE_LINES: usize = 6;

/// An offer file's header: its term and product columns.
pub(super) fn recognise(cells: &[String]) -> bool {
    names_all(
        cells,
        &["SKU", "TermType", "Unit", "PricePerUnit", "Instance Type"],
    )
}

struct Columns {
    term_type: usize,
    effective: Option<usize>,
    unit: usize,
    price: usize,
    currency: Option<usize>,
    purchase: Option<usize>,
    location: Option<usize>,
    instance_type: usize,
    vcpu: Option<usize>,
    memory: Option<usize>,
    gpu: Option<usize>,
    processor: Option<usize>,
    os: Option<usize>,
    tenancy: Option<usize>,
    software: Option<usize>,
    capacity: Option<usize>,
}

impl Columns {
    fn of(h: &Header) -> Result<Self, String> {
        Ok(Self {
            term_type: h.require("TermType", WHAT)?,
            effective: h.find("EffectiveDate"),
            unit: h.require("Unit", WHAT)?,
            price: h.require("PricePerUnit", WHAT)?,
            currency: h.find("Currency"),
            purchase: h.find("PurchaseOption"),
            location: h.find("Location"),
            instance_type: h.require("Instance Type", WHAT)?,
            vcpu: h.find("vCPU"),
            memory: h.find("Memory"),
            gpu: h.find("GPU"),
            processor: h.find("Physical Processor"),
            os: h.find("Operating System"),
            tenancy: h.find("Tenancy"),
            software: h.find("Pre Installed S/W"),
            capacity: h.find("CapacityStatus"),
        })
    }
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut left = LeftOut::default();
    let published: std::cell::Cell<Option<Timestamp>> = std::cell::Cell::new(None);
    let mut offer: Option<String> = None;
    read_csv(
        input,
        b,
        WHAT,
        PREAMBLE_LINES,
        Columns::of,
        |cells| match (cells.first().map(String::as_str), cells.get(1)) {
            (Some("Publication Date"), Some(v)) => published.set(time(v)),
            (Some("OfferCode"), Some(v)) => offer = Some(v.clone()),
            _ => {}
        },
        |c, row, b| read_row(c, row, b, published.get(), &mut left),
    )?;
    if let Some(offer) = offer {
        b.metadata
            .insert("offer_code".into(), serde_json::Value::String(offer));
    }
    finish(b, WHAT, &left)
}

/// "2026-11-28T00:00:00Z", or a date alone ("2026-11-01", midnight UTC).
fn time(text: &str) -> Option<Timestamp> {
    let t = text.trim();
    t.parse::<Timestamp>().ok().or_else(|| {
        let date = t.parse::<jiff::civil::Date>().ok()?;
        jiff::tz::TimeZone::UTC.to_timestamp(date.into()).ok()
    })
}

/// Whether the cell says `want` (case aside; "NA" is a value here); an
/// absent column says yes.
fn says(row: &Row<'_>, column: Option<usize>, want: &str) -> bool {
    column.is_none()
        || row
            .raw(column)
            .is_some_and(|v| v.eq_ignore_ascii_case(want))
}

/// A processor column that names a GPU (AWS's names the CPU).
fn gpu_name(row: &Row<'_>, column: Option<usize>) -> Option<String> {
    let (_, v) = row.cell(column)?;
    let lower = v.to_ascii_lowercase();
    ["nvidia", "tesla", "radeon", "instinct", "gaudi"]
        .iter()
        .any(|w| lower.contains(w))
        .then(|| v.to_string())
}

fn read_row(
    c: &Columns,
    row: &Row<'_>,
    b: &mut RunBuilder<'_>,
    published: Option<Timestamp>,
    left: &mut LeftOut,
) -> Result<(), LineError> {
    let count = row.accelerators(c.gpu)?;
    if matches!(count, Accelerators::None) {
        left.no_accelerator += 1;
        return Ok(());
    }
    let term = row.cell(Some(c.term_type)).map(|(_, v)| v).unwrap_or("");
    let mode = match term {
        "OnDemand" => QuoteMode::OnDemand,
        "Reserved" => QuoteMode::Reserved,
        other => {
            return Err(row.error(
                c.term_type,
                format!("\"{other}\" is no term type (OnDemand or Reserved)"),
            ));
        }
    };
    let hourly = says(row, Some(c.unit), "Hrs");
    if !hourly || (mode == QuoteMode::Reserved && !says(row, c.purchase, "No Upfront")) {
        left.upfront += 1;
        return Ok(());
    }
    if !(says(row, c.os, "Linux")
        && says(row, c.tenancy, "Shared")
        && says(row, c.software, "NA")
        && says(row, c.capacity, "Used"))
    {
        left.other_offer += 1;
        return Ok(());
    }
    let Some(instance_type) = row.text(Some(c.instance_type)) else {
        return Err(row.error(c.instance_type, "the instance type is empty"));
    };
    let Some(price) = row.price(Some(c.price))? else {
        return Err(row.error(c.price, "the price is empty"));
    };
    let observed_at = match row.cell(c.effective) {
        Some((i, v)) => {
            Some(time(v).ok_or_else(|| row.error(i, format!("\"{v}\" is not a date")))?)
        }
        None => published,
    };
    let quote = PriceQuote {
        provider: Some("aws".into()),
        region: row.text(c.location),
        zone: None,
        instance_type,
        accelerator: gpu_name(row, c.processor),
        accelerator_count: count.count(),
        vcpus: row.amount(c.vcpu)?,
        memory_gib: row.amount(c.memory)?,
        mode,
        price,
        per: PricePer::Hour,
        currency: row.text(c.currency).unwrap_or_else(|| "USD".into()),
        observed_at,
    };
    push(b, row.line, Some(c.price + 1), quote)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Parse, refusal, run};
    use super::*;
    use crate::domain::money::Decimal;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/aws-price-list-ec2.csv");
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn the_fixture_keeps_plain_linux_hours_on_demand_and_reserved() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        let kept: Vec<(&str, QuoteMode, String)> = run
            .price_quotes
            .iter()
            .map(|q| (q.instance_type.as_str(), q.mode, q.price.to_string()))
            .collect();
        assert_eq!(
            kept,
            vec![
                ("p4d.24xlarge", QuoteMode::OnDemand, "32.7726000000".into()),
                ("p4d.24xlarge", QuoteMode::Reserved, "19.2219000000".into()),
                ("p5.48xlarge", QuoteMode::OnDemand, "55.0400000000".into()),
                ("g5.xlarge", QuoteMode::OnDemand, "1.0060000000".into()),
                ("g5.xlarge", QuoteMode::Reserved, "0.4470000000".into()),
                ("p3.2xlarge", QuoteMode::OnDemand, "3.0600000000".into()),
            ]
        );
        assert_eq!(
            run.price_quotes[0],
            PriceQuote {
                provider: Some("aws".into()),
                region: Some("US East (N. Virginia)".into()),
                zone: None,
                instance_type: "p4d.24xlarge".into(),
                accelerator: None,
                accelerator_count: Some(8),
                vcpus: Some(96.0),
                memory_gib: Some(1152.0),
                mode: QuoteMode::OnDemand,
                price: "32.7726".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "USD".into(),
                observed_at: Some("2026-11-01T00:00:00Z".parse().unwrap()),
            }
        );
        // A date alone is midnight UTC; no effective date: the publication's.
        assert_eq!(
            run.price_quotes[1].observed_at,
            Some("2026-10-01T00:00:00Z".parse().unwrap())
        );
        assert_eq!(
            run.price_quotes[2].observed_at,
            Some("2026-11-28T00:00:00Z".parse().unwrap())
        );
        assert_eq!(
            run.price_quotes[5].region.as_deref(),
            Some("US West (Oregon)")
        );
        for w in [
            "2 rows without accelerators left out",
            "2 rows paid wholly or partly upfront, or in other units than hours, left out",
            "4 rows for other operating systems, tenancies, pre-installed software or capacity reservations left out",
        ] {
            assert!(
                run.warnings.contains(&w.to_string()),
                "{w}: {:?}",
                run.warnings
            );
        }
        assert_eq!(run.metadata["offer_code"], "AmazonEC2");
    }

    #[test]
    fn a_bad_price_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen("\"55.0400000000\"", "\"55,04\"", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (14, Some(10)));
        assert!(reason.starts_with("PricePerUnit: "), "{reason}");
        assert!(reason.contains("55,04"), "{reason}");
    }

    #[test]
    fn a_header_without_its_metadata_reads_too() {
        let text: String = FIXTURE.lines().skip(5).map(|l| format!("{l}\n")).collect();
        let run = run(PARSE, &text, false).unwrap();
        assert_eq!(run.price_quotes.len(), 6);
        // No publication date: the row without an effective date has no time.
        assert_eq!(run.price_quotes[2].observed_at, None);
    }
}
