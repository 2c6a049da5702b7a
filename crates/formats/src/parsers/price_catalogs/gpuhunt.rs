//! gpuhunt's catalogs (dstack's offer catalogs, one CSV per provider): one
//! row per instance type, location and spot-or-not, the price in USD an
//! hour. The provider is the file's name in gpuhunt, never its content:
//! it is left unknown unless a column names it.

use std::io::BufRead;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseResult, RunBuilder};
use super::{Accelerators, Header, LeftOut, Row, finish, names_all, push, read_csv};
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "gpuhunt catalog";

/// A gpuhunt catalog's header: its instance, price, GPU and spot columns.
pub(super) fn recognise(cells: &[String]) -> bool {
    names_all(
        cells,
        &["instance_name", "price", "gpu_count", "gpu_name", "spot"],
    )
}

struct Columns {
    instance: usize,
    location: Option<usize>,
    price: usize,
    cpu: Option<usize>,
    memory: Option<usize>,
    gpu_count: usize,
    gpu_name: usize,
    spot: usize,
    provider: Option<usize>,
}

impl Columns {
    fn of(h: &Header) -> Result<Self, String> {
        Ok(Self {
            instance: h.require("instance_name", WHAT)?,
            location: h.find("location"),
            price: h.require("price", WHAT)?,
            cpu: h.find("cpu"),
            memory: h.find("memory"),
            gpu_count: h.require("gpu_count", WHAT)?,
            gpu_name: h.require("gpu_name", WHAT)?,
            spot: h.require("spot", WHAT)?,
            provider: h.find("provider"),
        })
    }
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut left = LeftOut::default();
    read_csv(
        input,
        b,
        WHAT,
        0,
        Columns::of,
        |_| {},
        |c, row, b| read_row(c, row, b, &mut left),
    )?;
    finish(b, WHAT, &left)
}

/// Python's `True`/`False` as pandas writes them (or any common spelling).
fn spot(row: &Row<'_>, column: usize) -> Result<bool, LineError> {
    let Some((i, v)) = row.cell(Some(column)) else {
        return Ok(false);
    };
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(row.error(i, format!("\"{v}\" is not True or False"))),
    }
}

fn read_row(
    c: &Columns,
    row: &Row<'_>,
    b: &mut RunBuilder<'_>,
    left: &mut LeftOut,
) -> Result<(), LineError> {
    let accelerator = row.text(Some(c.gpu_name));
    let count = row.accelerators(Some(c.gpu_count))?;
    if accelerator.is_none() || matches!(count, Accelerators::None) {
        left.no_accelerator += 1;
        return Ok(());
    }
    let Some(instance_type) = row.text(Some(c.instance)) else {
        let column = c.instance;
        return Err(row.error(column, "the instance name is empty"));
    };
    let Some(price) = row.price(Some(c.price))? else {
        left.no_price += 1;
        return Ok(());
    };
    if matches!(count, Accelerators::Fraction) {
        left.fraction += 1;
    }
    let quote = PriceQuote {
        provider: row.text(c.provider).map(|p| p.to_ascii_lowercase()),
        region: row.text(c.location),
        zone: None,
        instance_type,
        accelerator,
        accelerator_count: count.count(),
        vcpus: row.amount(c.cpu)?,
        memory_gib: row.amount(c.memory)?,
        mode: if spot(row, c.spot)? {
            QuoteMode::Spot
        } else {
            QuoteMode::OnDemand
        },
        price,
        per: PricePer::Hour,
        currency: "USD".into(),
        observed_at: None,
    };
    push(b, row.line, Some(c.price + 1), quote)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Parse, refusal, run};
    use super::*;
    use crate::domain::money::Decimal;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/gpuhunt-aws.csv");
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn the_fixture_gives_one_quote_per_gpu_row() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        assert_eq!(run.price_quotes.len(), 9);
        assert_eq!(
            run.price_quotes[1],
            PriceQuote {
                provider: None,
                region: Some("us-east-1".into()),
                zone: None,
                instance_type: "p4d.24xlarge".into(),
                accelerator: Some("A100".into()),
                accelerator_count: Some(8),
                vcpus: Some(96.0),
                memory_gib: Some(1152.0),
                mode: QuoteMode::Spot,
                price: "12.4198".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "USD".into(),
                observed_at: None,
            }
        );
        assert_eq!(run.price_quotes[0].mode, QuoteMode::OnDemand);
        let amd = run
            .price_quotes
            .iter()
            .find(|q| q.instance_type == "g4ad.xlarge")
            .unwrap();
        assert_eq!(amd.price.to_string(), "0.37853");
        assert!(
            run.warnings
                .contains(&"2 rows without accelerators left out".to_string()),
            "{:?}",
            run.warnings
        );
    }

    #[test]
    fn a_bad_price_or_spot_flag_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen(
            "p5.48xlarge,us-east-1,55.04,",
            "p5.48xlarge,us-east-1,$55.04,",
            1,
        );
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (4, Some(3)));
        assert!(reason.starts_with("price: "), "{reason}");
        let text = FIXTURE.replacen("24.0,True,", "24.0,maybe,", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (6, Some(9)));
        assert!(
            reason.contains("\"maybe\" is not True or False"),
            "{reason}"
        );
    }

    #[test]
    fn bad_rows_are_skipped_when_asked() {
        let text = FIXTURE.replacen(",55.04,", ",fifty,", 1);
        let run = run(PARSE, &text, true).unwrap();
        assert_eq!(run.price_quotes.len(), 8);
        assert_eq!(run.skipped_lines, 1);
    }
}
