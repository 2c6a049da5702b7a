//! The answer in words, in the reader's language: the platform cheapest at
//! the median and at the bad case (p90), in one currency, and what its
//! answer rests on least — or why there is no answer yet.

use super::{JobCost, MoneyBand, PlatformCost};
use crate::domain::BillingMode;
use crate::domain::money::Decimal;

/// Why fewer than two platforms are costed in one currency, platform by
/// platform: the real reason (no billing rule, no price in that mode, no
/// offering of that card, no rate), not a general one.
fn no_answer_why(costs: &[PlatformCost]) -> (String, String) {
    let priced: Vec<&PlatformCost> = costs.iter().filter(|c| c.cost.is_some()).collect();
    let mut en: Vec<String> = Vec::new();
    let mut cn: Vec<String> = Vec::new();
    match priced.len() {
        0 => {
            en.push("no platform can be costed".into());
            cn.push("没有平台可计算成本".into());
        }
        1 => {
            en.push(format!("only {} can be costed", priced[0].platform));
            cn.push(format!("只有 {} 可计算成本", priced[0].platform));
        }
        _ => {
            let mut in_currency: Vec<String> = priced
                .iter()
                .map(|c| {
                    format!(
                        "{} in {}",
                        c.platform,
                        c.cost.as_ref().map_or("", |m| m.currency.as_str())
                    )
                })
                .collect();
            in_currency.dedup();
            en.push(format!(
                "the costs are in different currencies and no rate joins them ({})",
                in_currency.join(", ")
            ));
            cn.push(format!(
                "成本的币种不同且没有汇率换算（{}）",
                in_currency.join("、")
            ));
        }
    }
    for c in costs.iter().filter(|c| c.cost.is_none()) {
        if let Some(why) = &c.missing {
            en.push(format!("{}: {why}", c.platform));
            cn.push(format!("{}：{why}", c.platform));
        }
    }
    for c in costs.iter().filter(|c| c.not_comparable.is_some()) {
        if let Some(why) = &c.not_comparable {
            en.push(format!("{}: not comparable, {why}", c.platform));
            cn.push(format!("{}：无法比较，{why}", c.platform));
        }
    }
    (en.join("; "), cn.join("；"))
}

/// A price mode in words.
pub fn mode_words(mode: BillingMode, zh: bool) -> &'static str {
    match (mode, zh) {
        (_, false) => mode.as_str(),
        (BillingMode::OnDemand, true) => "按需",
        (BillingMode::Spot, true) => "竞价",
        (BillingMode::Monthly, true) => "包月",
    }
}

/// The answer in English.
pub fn answer(cost: &JobCost) -> String {
    answer_in(cost, false)
}

/// The answer in English, or in Chinese where `zh`.
pub fn answer_in(cost: &JobCost, zh: bool) -> String {
    let job = &cost.job;
    let costs = &cost.platforms;
    let say = |en: String, cn: String| if zh { cn } else { en };
    if let Some(why) = &cost.incomparable {
        return say(
            format!("No answer yet: {why}"),
            format!("尚无结论：各平台的工作量按各自的 GPU 计，而它们的 GPU 不同（{why}）"),
        );
    }
    let comparable: Vec<&PlatformCost> = costs
        .iter()
        .filter(|c| c.cost.is_some() && c.not_comparable.is_none())
        .collect();
    let currencies: Vec<&str> = comparable
        .iter()
        .filter_map(|c| c.cost.as_ref().map(|m| m.currency.as_str()))
        .collect();
    if comparable.len() < 2 || currencies.windows(2).any(|w| w[0] != w[1]) {
        let (en, cn) = no_answer_why(costs);
        return say(format!("No answer yet: {en}"), format!("尚无结论：{cn}"));
    }
    let by = |pick: &dyn Fn(&MoneyBand) -> Decimal| {
        comparable
            .iter()
            .min_by_key(|c| c.cost.as_ref().map(pick))
            .copied()
    };
    let (Some(median), Some(bad)) = (by(&|m| m.p50), by(&|m| m.p90)) else {
        return say("No answer yet".into(), "尚无结论".into());
    };
    let money = |c: &PlatformCost, pick: &dyn Fn(&MoneyBand) -> Decimal| {
        c.cost
            .as_ref()
            .map(|m| format!("{} {}", pick(m), m.currency))
            .unwrap_or_default()
    };
    let sep = if zh { "，" } else { ", " };
    let plan = |c: &PlatformCost| {
        c.mode
            .map(|m| format!("{sep}{}", mode_words(m, zh)))
            .unwrap_or_default()
    };
    let guessed: Vec<&str> = median
        .terms
        .iter()
        .filter(|t| t.source.starts_with("not measured"))
        .map(|t| t.key.name_in(zh))
        .collect();
    let never: Vec<String> = costs
        .iter()
        .filter(|c| c.unfinished > 0.0)
        .map(|c| {
            say(
                format!("{} ({:.0} % of draws)", c.platform, 100.0 * c.unfinished),
                format!("{}（{:.0} % 的抽样）", c.platform, 100.0 * c.unfinished),
            )
        })
        .collect();
    let list = |items: &[String]| items.join(if zh { "、" } else { ", " });
    let mut out = match job.horizon {
        Some(h) => say(
            format!(
                "{} runs the workload ({:.0} % of {} GPU(s) over {}) cheapest at the median ({}{})",
                median.platform,
                100.0 * h.utilisation,
                job.gpus,
                crate::text::duration_words(h.seconds),
                money(median, &|m| m.p50),
                plan(median)
            ),
            format!(
                "按中位数，{} 承担该持续负载（{} 块 GPU、{:.0} % 利用率、{:.0} 天）最便宜（{}{}）",
                median.platform,
                job.gpus,
                100.0 * h.utilisation,
                h.seconds / 86_400.0,
                money(median, &|m| m.p50),
                plan(median)
            ),
        ),
        None => say(
            format!(
                "{} finishes the job cheapest at the median ({}{})",
                median.platform,
                money(median, &|m| m.p50),
                plan(median)
            ),
            format!(
                "按中位数，{} 完成该作业最便宜（{}{}）",
                median.platform,
                money(median, &|m| m.p50),
                plan(median)
            ),
        ),
    };
    if bad.platform == median.platform {
        out.push_str(&say(
            " and in the bad case (p90)".into(),
            "，最坏情况（p90）下亦然".into(),
        ));
    } else {
        out.push_str(&say(
            format!(
                "; in the bad case (p90) {} does ({} against {})",
                bad.platform,
                money(bad, &|m| m.p90),
                money(median, &|m| m.p90)
            ),
            format!(
                "；最坏情况（p90）下则是 {}（{}，对比 {}）",
                bad.platform,
                money(bad, &|m| m.p90),
                money(median, &|m| m.p90)
            ),
        ));
    }
    if !never.is_empty() {
        out.push_str(&say(
            format!(
                "; the job may never finish on {}: interrupted faster than it reaches its checkpoints",
                list(&never)
            ),
            format!(
                "；在 {} 上作业可能永远无法完成：中断来得比检查点还快",
                list(&never)
            ),
        ));
    }
    let unpriced: Vec<String> = comparable
        .iter()
        .filter(|c| !c.unpriced.is_empty())
        .map(|c| c.platform.clone())
        .collect();
    if !unpriced.is_empty() {
        out.push_str(&say(
            format!(
                "; storage or transfer is not priced on {}: their costs leave it out",
                list(&unpriced)
            ),
            format!(
                "；{} 未给出存储或传输价格：其成本未计入这部分",
                list(&unpriced)
            ),
        ));
    }
    if !guessed.is_empty() {
        let guessed: Vec<String> = guessed.iter().map(|g| g.to_string()).collect();
        out.push_str(&say(
            format!(
                "; {} for {} rests on defaults, not measurements: measure it to settle the answer",
                list(&guessed),
                median.platform
            ),
            format!(
                "；{} 的{}基于默认值而非实测：实测后结论才可靠",
                median.platform,
                list(&guessed)
            ),
        ));
    }
    // How the work was read, and what it is on the cheapest's card.
    let pace = median
        .pace
        .as_ref()
        .filter(|_| !matches!(job.work, super::Work::OwnCard { .. }))
        .map(|p| {
            say(
                format!("; {}", p.words(false)),
                format!("；{}", p.words(true)),
            )
        })
        .unwrap_or_default();
    out.push_str(&say(
        format!("; the work: {}{pace}", cost.reading),
        format!("；工作量：{}{pace}", cost.reading_zh),
    ));
    if zh {
        out.push('。');
    }
    out
}
