//! The answer in words, in the reader's language: the platform cheapest at
//! the median and at the bad case (p90), in one currency, and what its
//! answer rests on least — or why there is no answer yet.

use super::{JobSpec, MoneyBand, PlatformCost};
use crate::domain::BillingMode;
use crate::domain::money::Decimal;

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
pub fn answer(job: &JobSpec, costs: &[PlatformCost]) -> String {
    answer_in(job, costs, false)
}

/// The answer in English, or in Chinese where `zh`.
pub fn answer_in(job: &JobSpec, costs: &[PlatformCost], zh: bool) -> String {
    let say = |en: String, cn: String| if zh { cn } else { en };
    let comparable: Vec<&PlatformCost> = costs
        .iter()
        .filter(|c| c.cost.is_some() && c.not_comparable.is_none())
        .collect();
    let currencies: Vec<&str> = comparable
        .iter()
        .filter_map(|c| c.cost.as_ref().map(|m| m.currency.as_str()))
        .collect();
    if comparable.len() < 2 || currencies.windows(2).any(|w| w[0] != w[1]) {
        return say(
            "No answer yet: fewer than two platforms are priced in one currency (offerings with prices, billing rules, and rates between currencies)".into(),
            "尚无结论：以同一币种定价的平台不足两个（需要规格价格、计费规则，以及币种之间的汇率）".into(),
        );
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
    if zh {
        out.push('。');
    }
    out
}
