//! Alibaba Cloud's `DescribePrice` answer, as `aliyun ecs DescribePrice`
//! prints it: `{"PriceInfo": {"Price": {"TradePrice": …, "Currency": …},
//! "Rules": …}, "RequestId": …}`. The answer names neither the instance
//! type nor the region nor the price's unit, so it is read with its
//! request: `{"request": {"InstanceType": …, "RegionId": …, "ZoneId": …,
//! "PriceUnit": "Hour"|"Month"|"Year", "Period": …, "SpotStrategy": …},
//! "response": {…}}`, or an array of these. `TradePrice` (the price after
//! discounts) is the price, for `Period` units of `PriceUnit`: a price for
//! several months or years is divided into one's.

use std::io::BufRead;

use super::super::super::ParseContext;
use super::super::super::builder::{ParseResult, RunBuilder};
use super::{
    Answer, Exchange, LeftOut, Step, at, field, finish, money_of, per_one, quantity_of, text_of,
};
use crate::domain::money::Decimal;
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "DescribePrice answer";

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let answer = Answer::read(input, b, WHAT)?;
    let left = LeftOut::default();
    for exchange in answer.exchanges() {
        read_exchange(&answer, &exchange, b)?;
    }
    finish(b, WHAT, &left)
}

fn read_exchange(answer: &Answer, x: &Exchange<'_>, b: &mut RunBuilder<'_>) -> ParseResult {
    let Some((request, request_path)) = &x.request else {
        return Err(answer.refuse(
            &x.path,
            "the DescribePrice answer names no instance type: save it with its request ({\"request\": {\"InstanceType\": …, \"RegionId\": …, \"PriceUnit\": …}, \"response\": …})",
        ));
    };
    let res = x.response;
    let res_path = &x.response_path;
    if let Some(code) = res.get("Code").and_then(text_of) {
        let message = res.get("Message").and_then(text_of).unwrap_or_default();
        return Err(answer.refuse(
            res_path,
            format!("the answer is an error: {code}: {message}"),
        ));
    }
    let price_path = at(res_path, &[Step::Key("PriceInfo"), Step::Key("Price")]);
    let Some(price) = res.pointer("/PriceInfo/Price").filter(|p| p.is_object()) else {
        return Err(answer.refuse(res_path, "the answer has no PriceInfo.Price"));
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
    if let Some(kind) = field(request, "ResourceType").and_then(text_of)
        && !kind.eq_ignore_ascii_case("instance")
    {
        return Err(refuse_req(
            "ResourceType",
            format!("the request prices a {kind}, not an instance"),
        ));
    }
    let spot = field(request, "SpotStrategy")
        .and_then(text_of)
        .is_some_and(|s| !s.eq_ignore_ascii_case("NoSpot"));
    let unit = field(request, "PriceUnit")
        .and_then(text_of)
        .unwrap_or_else(|| "Hour".into());
    let (mode, per) = match unit.to_ascii_lowercase().as_str() {
        "hour" if spot => (QuoteMode::Spot, PricePer::Hour),
        "hour" => (QuoteMode::OnDemand, PricePer::Hour),
        "month" => (QuoteMode::Monthly, PricePer::Month),
        "year" => (QuoteMode::Yearly, PricePer::Year),
        _ => {
            return Err(refuse_req(
                "PriceUnit",
                format!("a price per \"{unit}\" is not read here: only Hour, Month or Year"),
            ));
        }
    };
    let period = match field(request, "Period") {
        None => Decimal::ONE,
        Some(v) => quantity_of(v)
            .filter(|p| p.fract().is_zero())
            .ok_or_else(|| {
                refuse_req(
                    "Period",
                    format!("the Period {v} is not a whole number of {unit}s"),
                )
            })?,
    };
    let trade_path = at(&price_path, &[Step::Key("TradePrice")]);
    let total = match price.get("TradePrice").map(money_of) {
        Some(Ok(Some(p))) => p,
        Some(Ok(None)) | None => {
            return Err(answer.refuse(&price_path, "the answer's Price has no TradePrice"));
        }
        Some(Err(reason)) => {
            return Err(answer.refuse(&trade_path, format!("TradePrice: {reason}")));
        }
    };
    let (price_each, exact) = per_one(total, period);
    if !exact {
        b.warn(format!(
            "{instance_type}: {total} for {period} {unit}s is {price_each} a {unit}, rounded"
        ));
    }
    let quote = PriceQuote {
        provider: Some("aliyun".into()),
        region: field(request, "RegionId").and_then(text_of),
        zone: field(request, "ZoneId").and_then(text_of),
        instance_type,
        accelerator: None,
        accelerator_count: None,
        vcpus: None,
        memory_gib: None,
        mode,
        price: price_each,
        per,
        currency: price
            .get("Currency")
            .and_then(text_of)
            .unwrap_or_else(|| "CNY".into()),
        observed_at: None,
    };
    b.price_quote(quote)
        .map_err(|reason| answer.refuse(&trade_path, reason))
}

#[cfg(test)]
mod tests {
    use super::super::super::super::builder::ParseFailure;
    use super::super::testing::{Parse, refusal, run};
    use super::*;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/aliyun-describe-price.json");
    const LIST: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/aliyun-describe-price-list.json");
    const BARE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/aliyun-describe-price-bare.json");
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn an_answer_with_its_request_is_a_full_quote() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        assert_eq!(
            run.price_quotes,
            vec![PriceQuote {
                provider: Some("aliyun".into()),
                region: Some("cn-hangzhou".into()),
                zone: Some("cn-hangzhou-i".into()),
                instance_type: "ecs.gn7i-c8g1.2xlarge".into(),
                accelerator: None,
                accelerator_count: None,
                vcpus: None,
                memory_gib: None,
                mode: QuoteMode::OnDemand,
                price: "11.802".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "CNY".into(),
                observed_at: None,
            }]
        );
    }

    #[test]
    fn several_answers_months_years_and_spot() {
        let run = run(PARSE, LIST, false).unwrap();
        let got: Vec<(QuoteMode, PricePer, String)> = run
            .price_quotes
            .iter()
            .map(|q| (q.mode, q.per, q.price.to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                (QuoteMode::Monthly, PricePer::Month, "10352.4".into()),
                (QuoteMode::Yearly, PricePer::Year, "89760".into()),
                (QuoteMode::Spot, PricePer::Hour, "2.1".into()),
            ]
        );
        assert_eq!(run.price_quotes[1].zone, None);
    }

    #[test]
    fn a_bare_answer_is_refused_saying_how_to_save_it() {
        match super::super::testing::run(PARSE, BARE, false) {
            Err(ParseFailure::Line(e)) => {
                assert_eq!((e.line, e.column), (1, Some(1)));
                assert!(e.reason.starts_with("the DescribePrice answer names no instance type: save it with its request ({\"request\": {\"InstanceType\": …"), "{}", e.reason);
            }
            other => panic!("{:?}", other.map(|r| r.price_quotes)),
        }
    }

    #[test]
    fn a_bad_price_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen("\"TradePrice\": 11.802", "\"TradePrice\": \"11,802\"", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (40, Some(19)));
        assert!(reason.starts_with("TradePrice: "), "{reason}");
        // Broken JSON: serde_json's line and column.
        let (line, column, _) = refusal(
            PARSE,
            &FIXTURE.replacen("\"Period\": 1,", "\"Period\": 1,,", 1),
        );
        assert_eq!((line, column), (8, Some(15)));
    }

    #[test]
    fn a_header_line_and_trailing_text_are_tolerated() {
        let text = format!("$ aliyun ecs DescribePrice --RegionId cn-hangzhou\n{FIXTURE}\n");
        let run = run(PARSE, &text, false).unwrap();
        assert_eq!(run.price_quotes.len(), 1);
    }
}
