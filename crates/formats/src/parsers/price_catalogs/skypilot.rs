//! SkyPilot's catalogs (`~/.sky/catalogs/<version>/<cloud>/vms.csv`): one
//! row per instance type and zone, with `Price` and `SpotPrice` in USD an
//! hour (an empty cell: not offered so). Some clouds add columns
//! (`GpuInfo`, a Python-literal blob; `Generation`): columns are read by
//! name and the others ignored. A row with an accelerator name but no
//! instance type prices GPUs alone (the GCP catalog prices them apart from
//! the machine they attach to): left out, counted.

use std::io::BufRead;

use super::super::super::ParseContext;
use super::super::super::builder::{ParseResult, RunBuilder};
use super::{Accelerators, Header, LeftOut, Row, finish, names_all, push, read_csv};
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "SkyPilot catalog";

/// A SkyPilot catalog's header: an instance type, an accelerator and a price.
pub(super) fn recognise(cells: &[String]) -> bool {
    names_all(
        cells,
        &["InstanceType", "AcceleratorName", "AcceleratorCount"],
    ) && (names_all(cells, &["Price"]) || names_all(cells, &["SpotPrice"]))
}

struct Columns {
    instance_type: usize,
    accelerator: usize,
    count: usize,
    vcpus: Option<usize>,
    memory: Option<usize>,
    price: Option<usize>,
    spot: Option<usize>,
    region: Option<usize>,
    zone: Option<usize>,
    provider: Option<usize>,
}

impl Columns {
    fn of(h: &Header) -> Result<Self, String> {
        let price = h.find("Price");
        let spot = h.find("SpotPrice");
        if price.is_none() && spot.is_none() {
            return Err(format!(
                "the {WHAT} header has no Price or SpotPrice column"
            ));
        }
        Ok(Self {
            instance_type: h.require("InstanceType", WHAT)?,
            accelerator: h.require("AcceleratorName", WHAT)?,
            count: h.require("AcceleratorCount", WHAT)?,
            vcpus: h.find("vCPUs"),
            memory: h.find("MemoryGiB"),
            price,
            spot,
            region: h.find("Region"),
            zone: h.find("AvailabilityZone"),
            provider: h.find_any(&["Cloud", "Provider"]),
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

fn read_row(
    c: &Columns,
    row: &Row<'_>,
    b: &mut RunBuilder<'_>,
    left: &mut LeftOut,
) -> Result<(), super::LineError> {
    let accelerator = row.text(Some(c.accelerator));
    let count = row.accelerators(Some(c.count))?;
    if accelerator.is_none() || matches!(count, Accelerators::None) {
        left.no_accelerator += 1;
        return Ok(());
    }
    let Some(instance_type) = row.text(Some(c.instance_type)) else {
        left.no_instance_type += 1;
        return Ok(());
    };
    // Prices first: a price that cannot be read is refused before anything
    // of the row is kept.
    let on_demand = row.price(c.price)?;
    let spot = row.price(c.spot)?;
    if on_demand.is_none() && spot.is_none() {
        left.no_price += 1;
        return Ok(());
    }
    if matches!(count, Accelerators::Fraction) {
        left.fraction += 1;
    }
    let quote = PriceQuote {
        provider: row.text(c.provider).map(|p| p.to_ascii_lowercase()),
        region: row.text(c.region),
        zone: row.text(c.zone),
        instance_type,
        accelerator,
        accelerator_count: count.count(),
        vcpus: row.amount(c.vcpus)?,
        memory_gib: row.amount(c.memory)?,
        mode: QuoteMode::OnDemand,
        price: Default::default(),
        per: PricePer::Hour,
        currency: "USD".into(),
        observed_at: None,
    };
    for (mode, price, column) in [
        (QuoteMode::OnDemand, on_demand, c.price),
        (QuoteMode::Spot, spot, c.spot),
    ] {
        if let Some(price) = price {
            let q = PriceQuote {
                mode,
                price,
                ..quote.clone()
            };
            push(b, row.line, column.map(|i| i + 1), q)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{Parse, refusal, run, whole_refusal};
    use super::*;
    use crate::domain::money::Decimal;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/skypilot-aws-vms.csv");
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn the_fixture_gives_on_demand_and_spot_quotes_for_gpu_rows() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        // 9 GPU rows: 7 with both prices, 2 without a spot price.
        assert_eq!(run.price_quotes.len(), 16);
        let q = &run.price_quotes[1];
        assert_eq!(
            q,
            &PriceQuote {
                provider: None,
                region: Some("us-east-1".into()),
                zone: Some("us-east-1a".into()),
                instance_type: "p4d.24xlarge".into(),
                accelerator: Some("A100".into()),
                accelerator_count: Some(8),
                vcpus: Some(96.0),
                memory_gib: Some(1152.0),
                mode: QuoteMode::Spot,
                price: "11.8463".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "USD".into(),
                observed_at: None,
            }
        );
        let p5: Vec<_> = run
            .price_quotes
            .iter()
            .filter(|q| q.instance_type == "p5.48xlarge")
            .collect();
        assert_eq!(p5.len(), 1, "no spot price: no spot quote");
        assert_eq!(p5[0].price.to_string(), "55.04");
        assert!(
            run.warnings
                .contains(&"2 rows without accelerators left out".to_string()),
            "{:?}",
            run.warnings
        );
        assert!(
            !run.price_quotes
                .iter()
                .any(|q| q.instance_type.starts_with('m'))
        );
    }

    #[test]
    fn a_bad_price_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen(",5.672,", ",5.67.2,", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (8, Some(7)));
        assert!(reason.starts_with("Price: "), "{reason}");
        assert!(reason.contains("5.67.2"), "{reason}");
    }

    #[test]
    fn gpus_priced_apart_fractions_and_extra_columns() {
        // GCP prices accelerators apart (no instance type); Azure sells
        // shares of a GPU; a Generation column is ignored.
        let text = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone,Generation\n\
                    ,A100,1,,,2.93,0.88,us-central1,us-central1-a,\n\
                    Standard_NV6ads_A10_v5,A10,0.167,6,55,0.454,,eastus,,v5\n\
                    Standard_NC24ads_A100_v4,A100-80GB,1,24,220,3.673,0.9183,eastus,,v4\n";
        let run = run(PARSE, text, false).unwrap();
        assert_eq!(run.price_quotes.len(), 3);
        assert_eq!(run.price_quotes[0].accelerator_count, None);
        assert_eq!(run.price_quotes[1].accelerator_count, Some(1));
        assert!(
            run.warnings
                .iter()
                .any(|w| w.starts_with("1 row pricing accelerators without an instance type")),
            "{:?}",
            run.warnings
        );
    }

    #[test]
    fn a_catalog_without_gpus_is_refused() {
        let text = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n\
                    m6i.xlarge,,,4.0,16.0,0.192,0.0771,us-east-1,us-east-1a\n";
        let reason = whole_refusal(PARSE, text);
        assert!(reason.contains("1 row without accelerators"), "{reason}");
    }
}
