//! Tencent Cloud's `InquiryPriceRunInstances` answer: the API's
//! `{"Response": {"Price": {"InstancePrice": {…}, "BandwidthPrice": {…}},
//! "RequestId": …}}`, or `tccli`'s print of what is inside `Response`. An
//! hourly instance's price is `UnitPriceDiscount` (else `UnitPrice`) per
//! `ChargeUnit` (HOUR); a prepaid one's is `DiscountPrice` (else
//! `OriginalPrice`) for the months asked. The answer names no instance
//! type, so it is read with its request: `{"request": {"InstanceType": …,
//! "Placement": {"Zone": …}, "InstanceChargeType": "POSTPAID_BY_HOUR"|
//! "SPOTPAID"|"PREPAID", "InstanceChargePrepaid": {"Period": months}},
//! "response": {…}}`, or an array of these. Prices are in CNY unless the
//! request says otherwise (`"Currency"`).

use std::io::BufRead;

use super::super::super::ParseContext;
use super::super::super::builder::{ParseResult, RunBuilder};
use super::{
    Answer, Exchange, LeftOut, Step, at, field, finish, money_of, per_one, quantity_of, text_of,
};
use crate::domain::money::Decimal;
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "InquiryPriceRunInstances answer";

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let answer = Answer::read(input, b, WHAT)?;
    for exchange in answer.exchanges() {
        read_exchange(&answer, &exchange, b)?;
    }
    finish(b, WHAT, &LeftOut::default())
}

/// A zone's region: "ap-guangzhou-6" is in "ap-guangzhou".
fn region_of(zone: &str) -> Option<String> {
    let (region, n) = zone.rsplit_once('-')?;
    (!n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())).then(|| region.to_string())
}

fn read_exchange(answer: &Answer, x: &Exchange<'_>, b: &mut RunBuilder<'_>) -> ParseResult {
    let Some((request, request_path)) = &x.request else {
        return Err(answer.refuse(
            &x.path,
            "the InquiryPriceRunInstances answer names no instance type: save it with its request ({\"request\": {\"InstanceType\": …, \"Placement\": {\"Zone\": …}, \"InstanceChargeType\": …}, \"response\": …})",
        ));
    };
    // The API's answer wraps its content in "Response"; tccli prints the content.
    let (res, res_path) = match x.response.get("Response") {
        Some(inner) => (inner, at(&x.response_path, &[Step::Key("Response")])),
        None => (x.response, x.response_path.clone()),
    };
    if let Some(error) = res.get("Error") {
        let code = error.get("Code").and_then(text_of).unwrap_or_default();
        let message = error.get("Message").and_then(text_of).unwrap_or_default();
        return Err(answer.refuse(
            &res_path,
            format!("the answer is an error: {code}: {message}"),
        ));
    }
    let price_path = at(&res_path, &[Step::Key("Price"), Step::Key("InstancePrice")]);
    let Some(price) = res
        .pointer("/Price/InstancePrice")
        .filter(|p| p.is_object())
    else {
        return Err(answer.refuse(&res_path, "the answer has no Price.InstancePrice"));
    };
    let refuse_req = |key: &'static str, reason: String| {
        let path = at(request_path, &[Step::Key(key)]);
        match request.get(key) {
            Some(_) => answer.refuse(&path, reason),
            None => answer.refuse(request_path, reason),
        }
    };
    let Some(instance_type) = field(request, "InstanceType").and_then(text_of) else {
        return Err(refuse_req(
            "InstanceType",
            "the request names no InstanceType".into(),
        ));
    };
    let charge = field(request, "InstanceChargeType")
        .and_then(text_of)
        .unwrap_or_else(|| "POSTPAID_BY_HOUR".into());
    // The price, read from the first of `keys` the answer gives.
    let read_price = |keys: [&'static str; 2]| -> ParseResult<Decimal> {
        for key in keys {
            match price.get(key).map(money_of) {
                Some(Ok(Some(p))) => return Ok(p),
                Some(Ok(None)) | None => {}
                Some(Err(reason)) => {
                    return Err(answer.refuse(
                        &at(&price_path, &[Step::Key(key)]),
                        format!("{key}: {reason}"),
                    ));
                }
            }
        }
        Err(answer.refuse(
            &price_path,
            format!("the InstancePrice has neither {} nor {}", keys[0], keys[1]),
        ))
    };
    let (mode, per, price_each, key) = match charge.as_str() {
        "POSTPAID_BY_HOUR" | "SPOTPAID" => {
            if let Some(unit) = price.get("ChargeUnit").and_then(text_of)
                && !unit.eq_ignore_ascii_case("HOUR")
            {
                return Err(answer.refuse(
                    &at(&price_path, &[Step::Key("ChargeUnit")]),
                    format!("an instance charged per {unit} is not read here: only per HOUR"),
                ));
            }
            let mode = if charge == "SPOTPAID" {
                QuoteMode::Spot
            } else {
                QuoteMode::OnDemand
            };
            let p = read_price(["UnitPriceDiscount", "UnitPrice"])?;
            (mode, PricePer::Hour, p, "UnitPriceDiscount")
        }
        "PREPAID" => {
            let months = field(request, "InstanceChargePrepaid.Period")
                .and_then(quantity_of)
                .filter(|m| m.fract().is_zero())
                .ok_or_else(|| {
                    refuse_req(
                        "InstanceChargePrepaid",
                        "a PREPAID request names no whole InstanceChargePrepaid.Period (months)"
                            .into(),
                    )
                })?;
            let total = read_price(["DiscountPrice", "OriginalPrice"])?;
            let twelve = Decimal::from(12);
            let (mode, per, periods) = if (months % twelve).is_zero() {
                (QuoteMode::Yearly, PricePer::Year, months / twelve)
            } else {
                (QuoteMode::Monthly, PricePer::Month, months)
            };
            let (p, exact) = per_one(total, periods);
            if !exact {
                b.warn(format!(
                    "{instance_type}: {total} for {months} months is {p} a {per}, rounded"
                ));
            }
            (mode, per, p, "DiscountPrice")
        }
        other => {
            return Err(refuse_req(
                "InstanceChargeType",
                format!(
                    "the charge type {other} is not read here: only POSTPAID_BY_HOUR, SPOTPAID or PREPAID"
                ),
            ));
        }
    };
    let zone = field(request, "Placement.Zone").and_then(text_of);
    let quote = PriceQuote {
        provider: Some("tencentcloud".into()),
        region: field(request, "Region")
            .and_then(text_of)
            .or_else(|| zone.as_deref().and_then(region_of)),
        zone,
        instance_type,
        accelerator: None,
        accelerator_count: None,
        vcpus: None,
        memory_gib: None,
        mode,
        price: price_each,
        per,
        currency: field(request, "Currency")
            .and_then(text_of)
            .unwrap_or_else(|| "CNY".into()),
        observed_at: None,
    };
    b.price_quote(quote)
        .map_err(|reason| answer.refuse(&at(&price_path, &[Step::Key(key)]), reason))
}

#[cfg(test)]
mod tests {
    use super::super::super::super::builder::ParseFailure;
    use super::super::testing::{Parse, refusal, run};
    use super::*;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/tencent-inquiry-price.json");
    const BARE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/tencent-inquiry-price-bare.txt");
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn answers_with_their_requests_are_quotes() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        assert_eq!(run.price_quotes.len(), 3);
        assert_eq!(
            run.price_quotes[0],
            PriceQuote {
                provider: Some("tencentcloud".into()),
                region: Some("ap-guangzhou".into()),
                zone: Some("ap-guangzhou-6".into()),
                instance_type: "GN7.2XLARGE32".into(),
                accelerator: None,
                accelerator_count: None,
                vcpus: None,
                memory_gib: None,
                mode: QuoteMode::OnDemand,
                price: "8.68".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "CNY".into(),
                observed_at: None,
            }
        );
        // 12 months prepaid: a year's price; the region from the zone.
        let q = &run.price_quotes[1];
        assert_eq!((q.mode, q.per), (QuoteMode::Yearly, PricePer::Year));
        assert_eq!(q.price.to_string(), "62596.8");
        assert_eq!(q.region.as_deref(), Some("ap-shanghai"));
        assert_eq!(q.zone.as_deref(), Some("ap-shanghai-5"));
        // Spot: the discounted unit price.
        let q = &run.price_quotes[2];
        assert_eq!(
            (q.mode, q.price.to_string()),
            (QuoteMode::Spot, "4.34".into())
        );
    }

    #[test]
    fn a_bare_answer_after_its_command_line_is_refused_saying_how_to_save_it() {
        match super::super::testing::run(PARSE, BARE, false) {
            Err(ParseFailure::Line(e)) => {
                assert_eq!((e.line, e.column), (2, Some(1)));
                assert!(
                    e.reason.starts_with("the InquiryPriceRunInstances answer names no instance type: save it with its request"),
                    "{}",
                    e.reason
                );
            }
            other => panic!("{:?}", other.map(|r| r.price_quotes)),
        }
    }

    #[test]
    fn a_bad_price_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen(
            "\"UnitPriceDiscount\": 8.68",
            "\"UnitPriceDiscount\": \"8.6.8\"",
            1,
        );
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (16, Some(34)));
        assert!(reason.starts_with("UnitPriceDiscount: "), "{reason}");
    }

    #[test]
    fn other_charge_units_and_types_are_refused() {
        let text = FIXTURE.replacen("\"ChargeUnit\": \"HOUR\"", "\"ChargeUnit\": \"SECOND\"", 1);
        let (line, _, reason) = refusal(PARSE, &text);
        assert_eq!(line, 15);
        assert!(reason.contains("per SECOND"), "{reason}");
        let text = FIXTURE.replacen("\"PREPAID\"", "\"CDHPAID\"", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (36, Some(29)));
        assert!(reason.contains("CDHPAID"), "{reason}");
    }
}
