//! Huawei Cloud's `ListOnDemandResourceRatings` answer (BSS):
//! `{"amount": …, "official_website_amount": …, "measure_id": 1,
//! "currency": "CNY", "product_rating_results": [{"id": "1", "amount": …,
//! …}]}`. Each result answers the product of the same `id` in the request,
//! which the answer does not repeat: it is read with its request,
//! `{"request": {"product_infos": [{"id": "1", "cloud_service_type":
//! "hws.service.type.ec2", "resource_type": "hws.resource.type.vm",
//! "resource_spec": "p2s.2xlarge.8.linux", "region": …, "usage_factor":
//! "Duration", "usage_value": 1, "usage_measure_id": 4, "subscription_num":
//! 1}]}, "response": {…}}`. An ECS product's `amount` (after discounts) for
//! `usage_value` hours of `subscription_num` instances becomes one
//! instance's hourly price; products that are no instance (disks,
//! bandwidth) are left out, counted.

use std::collections::HashMap;
use std::io::BufRead;

use serde_json::{Map, Value};

use super::super::super::ParseContext;
use super::super::super::builder::{ParseResult, RunBuilder};
use super::{Answer, Exchange, LeftOut, Step, at, finish, money_of, per_one, quantity_of, text_of};
use crate::domain::money::Decimal;
use crate::domain::{PricePer, PriceQuote, QuoteMode};

const WHAT: &str = "ListOnDemandResourceRatings answer";

/// Huawei's measure of hours (`usage_measure_id`).
const HOURS: u32 = 4;

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let answer = Answer::read(input, b, WHAT)?;
    let mut left = LeftOut::default();
    for exchange in answer.exchanges() {
        read_exchange(&answer, &exchange, b, &mut left)?;
    }
    finish(b, WHAT, &left)
}

/// The flavour a resource spec prices: "p2s.2xlarge.8.linux" is the
/// flavour p2s.2xlarge.8 running Linux.
fn flavour(spec: &str) -> &str {
    spec.strip_suffix(".linux")
        .or_else(|| spec.strip_suffix(".win"))
        .unwrap_or(spec)
}

/// How many of the currency's units one unit of `measure_id` is: 1 yuan,
/// 2 jiao (a tenth), 3 fen (a hundredth).
fn unit_scale(measure_id: u32) -> Option<Decimal> {
    match measure_id {
        1 => Some(Decimal::ONE),
        2 => Some(Decimal::new(1, 1)),
        3 => Some(Decimal::new(1, 2)),
        _ => None,
    }
}

fn whole(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
}

fn read_exchange(
    answer: &Answer,
    x: &Exchange<'_>,
    b: &mut RunBuilder<'_>,
    left: &mut LeftOut,
) -> ParseResult {
    let Some((request, request_path)) = &x.request else {
        return Err(answer.refuse(
            &x.path,
            "the ListOnDemandResourceRatings answer names no flavour: save it with its request ({\"request\": {\"product_infos\": [{\"id\": …, \"resource_spec\": …, \"region\": …, \"usage_measure_id\": 4, …}]}, \"response\": …})",
        ));
    };
    let res = x.response;
    let res_path = &x.response_path;
    if let Some(code) = res.get("error_code").and_then(text_of) {
        let message = res.get("error_msg").and_then(text_of).unwrap_or_default();
        return Err(answer.refuse(
            res_path,
            format!("the answer is an error: {code}: {message}"),
        ));
    }
    let results_path = at(res_path, &[Step::Key("product_rating_results")]);
    let Some(results) = res.get("product_rating_results").and_then(Value::as_array) else {
        return Err(answer.refuse(res_path, "the answer has no product_rating_results"));
    };
    let infos_path = at(request_path, &[Step::Key("product_infos")]);
    let Some(infos) = request.get("product_infos").and_then(Value::as_array) else {
        return Err(answer.refuse(request_path, "the request has no product_infos"));
    };
    let by_id: HashMap<String, (usize, &Map<String, Value>)> = infos
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let info = v.as_object()?;
            Some((info.get("id").and_then(text_of)?, (i, info)))
        })
        .collect();
    let currency = res
        .get("currency")
        .and_then(text_of)
        .unwrap_or_else(|| "CNY".into());
    let answer_measure = whole(res.get("measure_id")).unwrap_or(1);
    let mut answered = 0;
    for (r, result) in results.iter().enumerate() {
        let result_path = at(&results_path, &[Step::Index(r)]);
        let id = result.get("id").and_then(text_of).unwrap_or_default();
        let Some(&(i, info)) = by_id.get(&id) else {
            return Err(answer.refuse(
                &result_path,
                format!("the result {id:?} answers no product of the request (no product_infos entry has that id)"),
            ));
        };
        answered += 1;
        let info_path = at(&infos_path, &[Step::Index(i)]);
        let refuse_info = |key: &'static str, reason: String| match info.get(key) {
            Some(_) => answer.refuse(&at(&info_path, &[Step::Key(key)]), reason),
            None => answer.refuse(&info_path, reason),
        };
        let service = info.get("cloud_service_type").and_then(text_of);
        let resource = info.get("resource_type").and_then(text_of);
        if service.as_deref() != Some("hws.service.type.ec2")
            || resource.as_deref() != Some("hws.resource.type.vm")
        {
            left.not_instance += 1;
            continue;
        }
        let Some(spec) = info.get("resource_spec").and_then(text_of) else {
            return Err(refuse_info(
                "resource_spec",
                "the product names no resource_spec".into(),
            ));
        };
        if let Some(factor) = info.get("usage_factor").and_then(text_of)
            && factor != "Duration"
        {
            return Err(refuse_info(
                "usage_factor",
                format!("a usage of \"{factor}\" is not read here: only Duration"),
            ));
        }
        let measure = whole(info.get("usage_measure_id"));
        if measure != Some(HOURS) {
            return Err(refuse_info(
                "usage_measure_id",
                format!(
                    "usage_measure_id {} is not read here: only {HOURS} (hours)",
                    info.get("usage_measure_id")
                        .map_or("(none)".into(), Value::to_string)
                ),
            ));
        }
        let hours = match info.get("usage_value") {
            None => Decimal::ONE,
            Some(v) => quantity_of(v).ok_or_else(|| {
                refuse_info(
                    "usage_value",
                    format!("the usage_value {v} is not a positive number"),
                )
            })?,
        };
        let instances = match info.get("subscription_num") {
            None => Decimal::ONE,
            Some(v) => quantity_of(v)
                .filter(|n| n.fract().is_zero())
                .ok_or_else(|| {
                    refuse_info(
                        "subscription_num",
                        format!("the subscription_num {v} is not a whole number"),
                    )
                })?,
        };
        let amount_path = at(&result_path, &[Step::Key("amount")]);
        let amount = match result.get("amount").map(money_of) {
            Some(Ok(Some(a))) => a,
            Some(Ok(None)) | None => {
                return Err(answer.refuse(&result_path, "the result has no amount"));
            }
            Some(Err(reason)) => {
                return Err(answer.refuse(&amount_path, format!("amount: {reason}")));
            }
        };
        let measure_id = whole(result.get("measure_id")).unwrap_or(answer_measure);
        let Some(scale) = unit_scale(measure_id) else {
            return Err(answer.refuse(
                &at(&result_path, &[Step::Key("measure_id")]),
                format!("measure_id {measure_id} is no unit of money (1 yuan, 2 jiao, 3 fen)"),
            ));
        };
        let (price, exact) = per_one(amount * scale, hours * instances);
        if !exact {
            b.warn(format!(
                "{spec}: {amount} for {hours} hours of {instances} instances is {price} an hour, rounded"
            ));
        }
        let quote = PriceQuote {
            provider: Some("huaweicloud".into()),
            region: info.get("region").and_then(text_of),
            zone: info.get("available_zone").and_then(text_of),
            instance_type: flavour(&spec).to_string(),
            accelerator: None,
            accelerator_count: None,
            vcpus: None,
            memory_gib: None,
            mode: QuoteMode::OnDemand,
            price,
            per: PricePer::Hour,
            currency: currency.clone(),
            observed_at: None,
        };
        b.price_quote(quote)
            .map_err(|reason| answer.refuse(&amount_path, reason))?;
    }
    if answered < by_id.len() {
        b.warn(format!(
            "{} product(s) of the request have no result in the answer",
            by_id.len() - answered
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::super::builder::ParseFailure;
    use super::super::testing::{Parse, refusal, run};
    use super::*;

    const FIXTURE: &str =
        include_str!("../../../../../tests/fixtures/logs/catalogs/huawei-resource-ratings.json");
    const BARE: &str = include_str!(
        "../../../../../tests/fixtures/logs/catalogs/huawei-resource-ratings-bare.json"
    );
    const PARSE: Parse = |i, c, b| parse(i, c, b);

    #[test]
    fn each_result_is_matched_to_its_product() {
        let run = run(PARSE, FIXTURE, false).unwrap();
        assert_eq!(run.price_quotes.len(), 3);
        assert_eq!(
            run.price_quotes[0],
            PriceQuote {
                provider: Some("huaweicloud".into()),
                region: Some("cn-north-4".into()),
                zone: Some("cn-north-4a".into()),
                instance_type: "p2s.2xlarge.8".into(),
                accelerator: None,
                accelerator_count: None,
                vcpus: None,
                memory_gib: None,
                mode: QuoteMode::OnDemand,
                price: "15.62".parse::<Decimal>().unwrap(),
                per: PricePer::Hour,
                currency: "CNY".into(),
                observed_at: None,
            }
        );
        // Two instances an hour: one's price.
        assert_eq!(run.price_quotes[2].instance_type, "p2v.8xlarge.8");
        assert_eq!(run.price_quotes[2].price.to_string(), "99.49");
        assert!(
            run.warnings.contains(
                &"1 row pricing other things than instances (disks, bandwidth) left out"
                    .to_string()
            ),
            "{:?}",
            run.warnings
        );
    }

    #[test]
    fn a_bare_answer_is_refused_saying_how_to_save_it() {
        match super::super::testing::run(PARSE, BARE, false) {
            Err(ParseFailure::Line(e)) => {
                assert_eq!((e.line, e.column), (1, Some(1)));
                assert!(
                    e.reason.starts_with("the ListOnDemandResourceRatings answer names no flavour: save it with its request"),
                    "{}",
                    e.reason
                );
            }
            other => panic!("{:?}", other.map(|r| r.price_quotes)),
        }
    }

    #[test]
    fn a_bad_amount_or_unit_is_refused_at_its_line_and_column() {
        let text = FIXTURE.replacen("\"amount\": 6.84,", "\"amount\": \"6.84 yuan\",", 1);
        let (line, column, reason) = refusal(PARSE, &text);
        assert_eq!((line, column), (20, Some(64)));
        assert!(reason.starts_with("amount: "), "{reason}");
        let text = FIXTURE.replacen(
            "\"usage_measure_id\": 4, \"subscription_num\": 2",
            "\"usage_measure_id\": 10, \"subscription_num\": 2",
            1,
        );
        let (line, _, reason) = refusal(PARSE, &text);
        assert_eq!(line, 8);
        assert!(reason.contains("usage_measure_id 10"), "{reason}");
    }
}
