//! The answer a buyer asks for, in words: "pick X because …" where the
//! evidence and the ranking's robustness support it; with partial
//! evidence, which platform leans ahead on what was measured and the
//! probability that each is the best once the missing metrics are known
//! ("Leaning X (62 %): not a decision"); and in every case a plan — the
//! measurements and the configuration that could change the answer, each
//! with what it costs to run and the chance it changes the lead, cheapest
//! chance first — and when to stop measuring.
//!
//! A ranking of platforms that are "not ranked" for want of evidence, or a
//! winner that a small change of weights unseats, is no decision: saying
//! "pick" there would present the order of a few samples as a verdict.
//! The provisional line never reads like one.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::catalogue::keys;
use crate::domain::Breakpoint;
use crate::domain::money::{self, Decimal};
use crate::error::Result;
use crate::scoring::provisional::{self, Board, Candidate};
use crate::scoring::{PlatformScore, Ranking, Robustness};
use crate::store::Store;

/// The most steps a plan lists.
const PLAN_SHOWN: usize = 7;

/// The most metrics a step names in one line.
const MEASURES_NAMED: usize = 3;

/// A breakpoint lead worth naming, in points.
const LEAD_NAMED: f64 = 5.0;

/// The chance of changing the lead below which a measurement is not worth
/// its cost: once no step of the plan has more, measuring stops.
pub const ENOUGH: f64 = 0.05;

/// A platform this likely to be the best with nothing left to change it is
/// picked even before every platform is ranked.
const SURE_ENOUGH: f64 = 0.9;

/// Draws of the provisional answer: its own, a fifth of the robustness's
/// (the same seed and generator, so its first weights are theirs); a
/// ranking re-drawn at every slider move must stay quick.
const OUTLOOK_DRAWS: usize = 2000;

/// What the answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// "Pick X": the evidence and the robustness support a choice.
    Pick,
    /// "Leaning X (62 %)": a lead on what was measured, not a choice.
    Leaning,
    /// Nothing to lean on yet.
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub kind: DecisionKind,
    pub verdict: Verdict,
    /// The probability that each platform is the best once the missing
    /// metrics are known (sums to 1 where any platform could be scored).
    pub p_best: BTreeMap<String, f64>,
    /// What to measure or configure next, in the order shown.
    pub plan: Vec<PlanStep>,
    /// No step of the plan has more than [`ENOUGH`] chance of changing the
    /// lead: measuring more will not change the answer.
    pub enough: bool,
    /// Draws behind `p_best` and each step's chance.
    pub draws: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    Pick {
        platform: String,
        because: Vec<String>,
        /// The same reasons in Chinese, for the Chinese report and app.
        #[serde(skip)]
        because_zh: Vec<String>,
    },
    Leaning {
        platform: String,
        p_best: f64,
        /// The next most likely best, where it has a chance worth naming.
        within_reach: Option<(String, f64)>,
        /// Why it is no decision yet.
        reasons: Vec<String>,
        #[serde(skip)]
        reasons_zh: Vec<String>,
    },
    NotYet {
        reasons: Vec<String>,
        #[serde(skip)]
        reasons_zh: Vec<String>,
    },
}

/// Whether a step is configuration (free, in the workspace) or a
/// measurement (run on the platform, at its price).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Configuration,
    Measurement,
}

/// An amount of money in a currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Amount {
    pub amount: Decimal,
    pub currency: String,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanStep {
    pub command: String,
    /// The metrics it gives, by name.
    pub measures: Vec<String>,
    /// Their keys.
    #[serde(skip)]
    pub keys: Vec<&'static str>,
    /// Those of them measured already, by runs that disagree (their
    /// scores at least 30 points apart): measuring again settles them.
    pub spread: Vec<String>,
    /// The platforms it is run on (or configured for).
    pub platforms: Vec<String>,
    /// What running it costs there (hours × the offering's price, in the
    /// reporting currency); zero for configuration and a bill import;
    /// none where a platform's price is unknown.
    pub cost: Option<Amount>,
    /// Why there is no cost, where there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_unknown: Option<String>,
    /// The share of draws in which it changes the platform in the lead.
    pub p_change: f64,
    pub kind: StepKind,
    /// Its metrics' share of the overall score, together.
    pub weight: f64,
}

impl PlanStep {
    /// What it costs, as every face says it: "free", "87.50 CNY", "cost
    /// unknown (Q has no price)".
    pub fn cost_in(&self, zh: bool) -> String {
        match (&self.cost, &self.cost_unknown, zh) {
            (Some(c), _, false) if c.amount.is_zero() => "free".into(),
            (Some(c), _, true) if c.amount.is_zero() => "免费".into(),
            (Some(c), _, _) => format!("{} {}", money::to_cents(c.amount), c.currency),
            (None, Some(why), false) => format!("cost unknown ({why})"),
            (None, Some(why), true) => format!("成本未知（{why}）"),
            (None, None, false) => "cost unknown".into(),
            (None, None, true) => "成本未知".into(),
        }
    }

    /// The metrics it gives, by name in the reader's language; those
    /// measured again marked as such.
    pub fn measures_in(&self, zh: bool) -> Vec<String> {
        self.keys
            .iter()
            .zip(&self.measures)
            .map(|(key, name)| {
                let named = crate::metrics::catalog::metric(key)
                    .map_or(name.as_str(), |m| m.name_in(zh))
                    .to_string();
                match (self.spread.contains(name), zh) {
                    (false, _) => named,
                    (true, false) => format!("{named} (runs disagree)"),
                    (true, true) => format!("{named}（多次运行结果不一致）"),
                }
            })
            .collect()
    }
}

impl PlanStep {
    /// "12 %": its chance of changing the lead, in whole percent.
    pub fn chance_said(&self) -> String {
        format!("{:.0} %", 100.0 * self.p_change)
    }

    /// The metrics it gives in one line, the first few named (those
    /// measured again first): "Start latency p50, baseline load,
    /// Cold-image penalty, Start failure rate and 4 more".
    pub fn measures_said(&self, zh: bool) -> String {
        // Those measured again first: why the step is there.
        let mut names: Vec<(bool, String)> = self
            .measures
            .iter()
            .map(|m| !self.spread.contains(m))
            .zip(self.measures_in(zh))
            .collect();
        names.sort_by_key(|(fresh, _)| *fresh);
        let names: Vec<String> = names.into_iter().map(|(_, n)| n).collect();
        let shown = names.len().min(MEASURES_NAMED);
        let named = names[..shown].join(if zh { "、" } else { ", " });
        match (names.len() - shown, zh) {
            (0, _) => named,
            (more, false) => format!("{named} and {more} more"),
            (more, true) => format!("{named} 等 {} 项", shown + more),
        }
    }
}

impl Decision {
    /// Each platform's chance of being the best, likeliest first (ties by
    /// name).
    pub fn chances(&self) -> Vec<(&str, f64)> {
        let mut chances: Vec<(&str, f64)> =
            self.p_best.iter().map(|(p, c)| (p.as_str(), *c)).collect();
        chances.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        chances
    }

    /// Each platform's chance in whole percent, likeliest first, rounded
    /// so that they add up to 100 (largest remainders), as every face
    /// prints them.
    pub fn percents(&self) -> Vec<(&str, u32)> {
        let chances = self.chances();
        let whole = whole_percents(&chances.iter().map(|(_, c)| *c).collect::<Vec<_>>());
        chances.into_iter().map(|(p, _)| p).zip(whole).collect()
    }

    /// "62 %": a platform's chance as `percents` rounds it.
    pub fn percent_of(&self, platform: &str) -> String {
        let p = self
            .percents()
            .into_iter()
            .find(|(p, _)| *p == platform)
            .map_or(0, |(_, c)| c);
        format!("{p} %")
    }

    /// "A 62 %, B 30 %, C 8 %".
    pub fn chances_said(&self) -> String {
        self.percents()
            .iter()
            .map(|(p, c)| format!("{p} {c} %"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One line: "Pick X because …", "Leaning X (62 %): …" or "No
    /// decision yet: …".
    pub fn sentence(&self) -> String {
        self.sentence_in(false)
    }

    /// The same line, in Chinese where `zh`.
    pub fn sentence_in(&self, zh: bool) -> String {
        match (&self.verdict, zh) {
            (
                Verdict::Pick {
                    platform, because, ..
                },
                false,
            ) => {
                format!("Pick {platform} because {}", because.join("; "))
            }
            (
                Verdict::Pick {
                    platform,
                    because_zh,
                    ..
                },
                true,
            ) => format!("选择 {platform}，因为{}。", because_zh.join("；")),
            (
                Verdict::Leaning {
                    platform,
                    within_reach,
                    reasons,
                    ..
                },
                false,
            ) => {
                let mut line = format!(
                    "Leaning {platform} ({} likely the best once the missing metrics are known): not a decision",
                    self.percent_of(platform)
                );
                if let Some((other, _)) = within_reach {
                    line.push_str(&format!(
                        " — {other} is within reach ({})",
                        self.percent_of(other)
                    ));
                }
                if !reasons.is_empty() {
                    line.push_str(&format!("; {}", reasons.join("; ")));
                }
                line
            }
            (
                Verdict::Leaning {
                    platform,
                    within_reach,
                    reasons_zh,
                    ..
                },
                true,
            ) => {
                let mut line = format!(
                    "倾向 {platform}（缺失指标补齐后为最佳的概率 {}）：尚非结论",
                    self.percent_of(platform)
                );
                if let Some((other, _)) = within_reach {
                    line.push_str(&format!("——{other} 仍有机会（{}）", self.percent_of(other)));
                }
                if !reasons_zh.is_empty() {
                    line.push_str(&format!("；{}", reasons_zh.join("；")));
                }
                line.push('。');
                line
            }
            (Verdict::NotYet { reasons, .. }, false) => {
                format!("No decision yet: {}", reasons.join("; "))
            }
            (Verdict::NotYet { reasons_zh, .. }, true) => {
                format!("尚无结论：{}。", reasons_zh.join("；"))
            }
        }
    }

    /// The platform in the lead, picked or leaned towards.
    pub fn leader(&self) -> Option<&str> {
        match &self.verdict {
            Verdict::Pick { platform, .. } | Verdict::Leaning { platform, .. } => Some(platform),
            Verdict::NotYet { .. } => None,
        }
    }
}

/// Shares in whole percent that add up to 100: each floored, the points
/// left going to the largest remainders (the first on a tie); all zero
/// where nothing was shared.
pub fn whole_percents(shares: &[f64]) -> Vec<u32> {
    let total: f64 = shares.iter().sum();
    if total <= 0.0 {
        return vec![0; shares.len()];
    }
    let exact: Vec<f64> = shares.iter().map(|x| 100.0 * x / total).collect();
    let mut whole: Vec<u32> = exact.iter().map(|x| x.floor() as u32).collect();
    let short = 100u32.saturating_sub(whole.iter().sum());
    let mut by_remainder: Vec<usize> = (0..exact.len()).collect();
    by_remainder.sort_by(|a, b| {
        (exact[*b] - exact[*b].floor())
            .total_cmp(&(exact[*a] - exact[*a].floor()))
            .then(a.cmp(b))
    });
    for i in by_remainder.into_iter().take(short as usize) {
        whole[i] += 1;
    }
    whole
}

/// The decision a ranking and its robustness support, with the plan that
/// could change it (priced from the store, in the reporting currency).
pub fn decide(
    store: &Store,
    ranking: &Ranking,
    robustness: &Robustness,
    reporting: Option<&str>,
) -> Result<Decision> {
    let mut ranked: Vec<&PlatformScore> = ranking
        .platforms
        .iter()
        .filter(|p| p.rank.is_some())
        .collect();
    ranked.sort_by_key(|p| p.rank);
    let unranked: Vec<&PlatformScore> = ranking
        .platforms
        .iter()
        .filter(|p| p.rank.is_none())
        .collect();
    let threshold = 100.0 * ranking.coverage_threshold;
    // Every reason in both languages, from the one rule.
    let reasons_in = |zh: bool| {
        let mut reasons = Vec::new();
        if ranked.len() < 2 {
            reasons.push(if zh {
                format!(
                    "有足够证据参与排名（覆盖率至少 {threshold:.0} %）的平台只有 {} 个，选择需要两个",
                    ranked.len()
                )
            } else {
                format!(
                    "{} platform(s) have the evidence to be ranked (coverage of at least {threshold:.0} %); a choice needs two",
                    ranked.len()
                )
            });
        }
        if !unranked.is_empty() {
            let named: Vec<String> = unranked
                .iter()
                .map(|p| format!("{} ({:.0} %)", p.platform.name, 100.0 * p.coverage))
                .collect();
            reasons.push(if zh {
                format!(
                    "因证据不足未参与排名：{}（覆盖率低于 {threshold:.0} %）",
                    named.join("、")
                )
            } else {
                format!(
                    "not ranked for want of evidence: {} (coverage below {threshold:.0} %)",
                    named.join(", ")
                )
            });
        }
        let fragile = if zh {
            &robustness.fragile_winner_zh
        } else {
            &robustness.fragile_winner
        };
        if let Some(fragile) = fragile {
            reasons.push(fragile.clone());
        }
        reasons
    };
    let (reasons, reasons_zh) = (reasons_in(false), reasons_in(true));
    // The provisional outlook: P(best) and each step's chance.
    let board = Board::of(ranking);
    let mut steps = plan_steps(store, ranking, &board, reporting)?;
    let candidates: Vec<Candidate> = steps
        .iter()
        .map(|s| Candidate {
            fills: s.fills.clone(),
        })
        .collect();
    let outlook = provisional::outlook(
        &board,
        &candidates,
        OUTLOOK_DRAWS,
        robustness.seed,
        robustness.concentration,
    );
    for (step, p) in steps.iter_mut().zip(&outlook.p_change) {
        step.step.p_change = *p;
    }
    let p_best: BTreeMap<String, f64> = board
        .platforms
        .iter()
        .cloned()
        .zip(outlook.p_best.iter().copied())
        .collect();
    let plan = order(steps);
    let enough = plan.iter().all(|s| s.p_change <= ENOUGH);
    // The likeliest best, and the next.
    let likeliest = outlook.leaning.map(|i| (i, outlook.p_best[i]));
    let second = outlook
        .p_best
        .iter()
        .enumerate()
        .filter(|(i, p)| Some(*i) != outlook.leaning && **p >= ENOUGH)
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(i, p)| (board.platforms[i].clone(), *p));
    let verdict = match (ranked.first(), ranked.get(1)) {
        (Some(first), Some(second_ranked)) if reasons.is_empty() => Verdict::Pick {
            platform: first.platform.name.clone(),
            because: because(first, second_ranked, robustness, false),
            because_zh: because(first, second_ranked, robustness, true),
        },
        // Nothing left that could change the lead, and the lead is sure:
        // a decision, said with why.
        _ if enough
            && board.platforms.len() >= 2
            && likeliest.is_some_and(|(_, p)| p >= SURE_ENOUGH) =>
        {
            let (i, p) = likeliest.unwrap_or((0, 0.0));
            Verdict::Pick {
                platform: board.platforms[i].clone(),
                because: vec![format!(
                    "it is the best in {:.0} % of draws over the metrics still missing, and no remaining measurement has more than a {:.0} % chance of changing that",
                    100.0 * p,
                    100.0 * ENOUGH
                )],
                because_zh: vec![format!(
                    "在缺失指标的抽样中，它有 {:.0} % 为最佳，且剩余的测量改变这一结论的概率都不超过 {:.0} %",
                    100.0 * p,
                    100.0 * ENOUGH
                )],
            }
        }
        // A lean needs something measured to lean on.
        _ if board.platforms.len() >= 2
            && likeliest.is_some()
            && board.scores.iter().flatten().any(Option::is_some) =>
        {
            let (i, p) = likeliest.unwrap_or((0, 0.0));
            Verdict::Leaning {
                platform: board.platforms[i].clone(),
                p_best: p,
                within_reach: second,
                reasons,
                reasons_zh,
            }
        }
        _ => Verdict::NotYet {
            reasons,
            reasons_zh,
        },
    };
    let kind = match verdict {
        Verdict::Pick { .. } => DecisionKind::Pick,
        Verdict::Leaning { .. } => DecisionKind::Leaning,
        Verdict::NotYet { .. } => DecisionKind::None,
    };
    Ok(Decision {
        kind,
        verdict,
        p_best,
        plan,
        enough,
        draws: outlook.draws,
    })
}

/// Why the first beats the second: how often it ranks first, the
/// breakpoints where it leads, and by how much overall.
fn because(
    first: &PlatformScore,
    second: &PlatformScore,
    robustness: &Robustness,
    zh: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = robustness
        .acceptability
        .iter()
        .find(|a| a.platform == first.platform.name)
        .and_then(|a| a.ranks.first())
    {
        let (pct, draws) = (100.0 * p, robustness.samples);
        out.push(if zh {
            format!("在您的权重方案附近的 {draws} 次权重抽样中，它有 {pct:.0} % 排名第一")
        } else {
            format!("it ranks first under {pct:.0} % of {draws} weight draws around your profile")
        });
    }
    let leads: Vec<String> = Breakpoint::ALL
        .iter()
        .filter_map(|b| {
            let (a, c) = (first.breakpoint(*b).score?, second.breakpoint(*b).score?);
            (a - c >= LEAD_NAMED).then(|| {
                if zh {
                    format!("{} {a:.0} 对 {c:.0}", b.name_in(true))
                } else {
                    format!("{b} {a:.0} vs {c:.0}")
                }
            })
        })
        .collect();
    if !leads.is_empty() {
        let other = &second.platform.name;
        out.push(if zh {
            format!("它在{}上领先 {other}", leads.join("、"))
        } else {
            format!("it leads {other} at {}", leads.join(", "))
        });
    }
    if let (Some(a), Some(c)) = (first.overall, second.overall) {
        out.push(if zh {
            format!("综合得分 {a:.1} 对 {c:.1}")
        } else {
            format!("overall {a:.1} vs {c:.1}")
        });
    }
    out
}

/// A step of the plan while it is made: the step, and the (platform, slot)
/// pairs of the board it fills.
struct Drafted {
    step: PlanStep,
    fills: Vec<(usize, usize)>,
}

/// The plan's order ([`provisional::precedence`]), at most
/// [`PLAN_SHOWN`] steps.
fn order(steps: Vec<Drafted>) -> Vec<PlanStep> {
    let mut steps: Vec<PlanStep> = steps.into_iter().map(|d| d.step).collect();
    let terms = |s: &PlanStep| provisional::StepTerms {
        configuration: s.kind == StepKind::Configuration,
        p_change: s.p_change,
        cost: s.cost.as_ref().map(|a| money::to_f64(a.amount)),
        weight: s.weight,
    };
    steps.sort_by(|a, b| {
        provisional::precedence(&terms(a), &terms(b)).then(a.command.cmp(&b.command))
    });
    steps.truncate(PLAN_SHOWN);
    steps
}

/// Hours one instance runs for a measurement, by its command: what its
/// cost is made of (docs/decision.md, "The plan", holds the same table).
pub fn instance_hours(command: &str) -> f64 {
    match command {
        c if c.starts_with("breakpoint campaign run") => 2.5,
        c if c.starts_with("breakpoint probe check") => 0.1,
        c if c.starts_with("breakpoint probe sample") => 24.0,
        c if c.starts_with("breakpoint accept network") => 0.5,
        c if c.starts_with("breakpoint accept perf") => 0.5,
        c if c.starts_with("nccl-tests all_reduce_perf") => 0.5,
        c if c.starts_with("breakpoint accept storage --local /nvme --upload") => 0.5,
        c if c.starts_with("breakpoint accept") => 1.0,
        c if c.starts_with("a switch-attempts table") => 5.0,
        // Importing what the provider already sent costs nothing.
        c if c.starts_with("import the provider's bill") => 0.0,
        _ => 1.0,
    }
}

/// Every step that could fill a missing metric, or settle one whose runs
/// disagree: configuration the workspace lacks (a billing rule, a price, a
/// rate) for the metrics it holds back, and each command for the metrics
/// it gathers, on the platforms in doubt about them.
fn plan_steps(
    store: &Store,
    ranking: &Ranking,
    board: &Board,
    reporting: Option<&str>,
) -> Result<Vec<Drafted>> {
    let Some(first) = ranking.platforms.first() else {
        return Ok(Vec::new());
    };
    // Each slot's metric: its key, name and share of the overall score.
    let mut slot_metrics: Vec<(&'static str, &'static str, f64)> = Vec::new();
    for (b, bp) in first.breakpoints.iter().enumerate() {
        let total: f64 = bp.metrics.iter().map(|m| m.weight).sum();
        for m in bp.metrics.iter().filter(|m| m.weight > 0.0) {
            slot_metrics.push((
                m.key,
                m.name,
                ranking.weights[b] * m.weight / total.max(1e-12),
            ));
        }
    }
    let book = crate::rates::RateBook::of(store)?;
    let today = crate::rates::today();
    let platforms = store.platforms()?;
    let mut drafted: Vec<Drafted> = Vec::new();
    let add = |drafted: &mut Vec<Drafted>,
               command: String,
               kind: StepKind,
               p: usize,
               name: &str,
               slot: usize,
               again: bool,
               cost: PlatformCost| {
        let (key, metric, weight) = slot_metrics[slot];
        let step = match drafted.iter_mut().find(|d| d.step.command == command) {
            Some(d) => d,
            None => {
                drafted.push(Drafted {
                    step: PlanStep {
                        command: command.clone(),
                        measures: Vec::new(),
                        keys: Vec::new(),
                        spread: Vec::new(),
                        platforms: Vec::new(),
                        cost: Some(Amount {
                            amount: Decimal::ZERO,
                            currency: reporting.unwrap_or("").to_string(),
                        }),
                        cost_unknown: None,
                        p_change: 0.0,
                        kind,
                        weight: 0.0,
                    },
                    fills: Vec::new(),
                });
                let last = drafted.len() - 1;
                &mut drafted[last]
            }
        };
        if !step.step.keys.contains(&key) {
            step.step.keys.push(key);
            step.step.measures.push(metric.to_string());
            step.step.weight += weight;
        }
        if again && !step.step.spread.iter().any(|m| m == metric) {
            step.step.spread.push(metric.to_string());
        }
        if !step.step.platforms.iter().any(|x| x == name) {
            step.step.platforms.push(name.to_string());
            match (cost, &mut step.step.cost) {
                (PlatformCost::Known(amount), Some(total)) => {
                    total.amount += amount;
                }
                (PlatformCost::Known(_), None) => {}
                (PlatformCost::Unknown(why), cost) => {
                    *cost = None;
                    match &mut step.step.cost_unknown {
                        Some(said) if !said.split("; ").any(|x| x == why) => {
                            said.push_str("; ");
                            said.push_str(&why);
                        }
                        Some(_) => {}
                        None => step.step.cost_unknown = Some(why),
                    }
                }
            }
        }
        step.fills.push((p, slot));
    };
    for (p, score) in ranking.platforms.iter().enumerate() {
        let platform = platforms.iter().find(|x| x.id == score.platform.id);
        let runs = store.runs(Some(score.platform.id))?;
        let rule = match platform {
            Some(x) => crate::metrics::billing::rule(store, x)?,
            None => None,
        };
        let priced = match platform {
            Some(x) => crate::metrics::billing::price(store, x, &runs, None)?,
            None => None,
        };
        // What an hour of one instance costs there, in the reporting
        // currency.
        let hourly: std::result::Result<Decimal, String> = match &priced {
            None => Err(format!("{} has no price", score.platform.name)),
            Some(pr) => {
                let count = store.offering(pr.offering_id).map_or(8, |o| o.count.max(1));
                let to = reporting.unwrap_or(pr.currency.as_str());
                match book.rate(&pr.currency, to, today) {
                    None => Err(crate::rates::missing_rate(&pr.currency, to)),
                    Some(rate) => money::checked_exact(pr.price * f64::from(count))
                        .and_then(|h| h.checked_mul(rate.rate))
                        .ok_or_else(|| "past what an amount can hold".to_string()),
                }
            }
        };
        let name = score.platform.name.as_str();
        let mut slot = 0;
        for bp in &score.breakpoints {
            for m in bp.metrics.iter().filter(|m| m.weight > 0.0) {
                let this = slot;
                slot += 1;
                // Measured, and settled: nothing to do.
                let again = m.value.is_some();
                if again && board.doubt(p, this).is_none() {
                    continue;
                }
                let not_comparable = m.details.iter().any(|d| d.contains("not comparable"));
                let needs_rule = matches!(
                    m.key,
                    keys::BILLING_GRANULARITY_S
                        | keys::BILLING_OVERCHARGE_PCT
                        | keys::BILLING_COST_PER_USEFUL_GPU_HOUR
                        | keys::BILLING_REFERENCE_COST
                );
                let needs_price = matches!(
                    m.key,
                    keys::BILLING_COST_PER_USEFUL_GPU_HOUR | keys::BILLING_REFERENCE_COST
                );
                let free = || PlatformCost::Known(Decimal::ZERO);
                // Runs that disagree are measured again; a missing figure
                // may first want configuration the workspace lacks.
                if !again && not_comparable {
                    add(
                        &mut drafted,
                        "breakpoint rates add FROM TO RATE --on DATE (a rate between the prices' currencies)".into(),
                        StepKind::Configuration,
                        p,
                        name,
                        this,
                        false,
                        free(),
                    );
                } else if !again && needs_price && priced.is_none() {
                    add(
                        &mut drafted,
                        format!(
                            "breakpoint offering add --platform \"{name}\" … --price-on-demand X (the price of what was measured)"
                        ),
                        StepKind::Configuration,
                        p,
                        name,
                        this,
                        false,
                        free(),
                    );
                } else if !again && needs_rule && rule.is_none() {
                    add(
                        &mut drafted,
                        format!(
                            "breakpoint billing set --platform \"{name}\" --granularity SECONDS (its billing rule)"
                        ),
                        StepKind::Configuration,
                        p,
                        name,
                        this,
                        false,
                        free(),
                    );
                } else {
                    let command = gathered_by(m.key);
                    let hours = instance_hours(command);
                    let cost = if hours == 0.0 {
                        free()
                    } else {
                        match &hourly {
                            Ok(h) => money::checked_exact(hours)
                                .and_then(|x| x.checked_mul(*h))
                                .map_or_else(
                                    || PlatformCost::Unknown("past what an amount can hold".into()),
                                    |c| PlatformCost::Known(money::to_cents(c)),
                                ),
                            Err(why) => PlatformCost::Unknown(why.clone()),
                        }
                    };
                    add(
                        &mut drafted,
                        command.to_string(),
                        StepKind::Measurement,
                        p,
                        name,
                        this,
                        again,
                        cost,
                    );
                }
            }
        }
    }
    Ok(drafted)
}

/// What a step costs on one platform.
enum PlatformCost {
    Known(Decimal),
    Unknown(String),
}

/// The command that gathers a metric's evidence (docs/acceptance.md and
/// docs/campaigns.md say more about each).
pub fn gathered_by(key: &str) -> &'static str {
    match key {
        keys::STARTUP_DELIVERY_MISMATCHES => {
            "breakpoint probe check (on the instance, against the order)"
        }
        k if k.starts_with("startup.") => {
            "breakpoint campaign run RECIPE (startup attempts at baseline, peak and mixed load)"
        }
        keys::SUSTAIN_STRESS_UTIL_FLOOR_PCT | keys::SUSTAIN_STRESS_UTIL_SWING_PCT => {
            "breakpoint accept stress -- YOUR_LOAD"
        }
        keys::SUSTAIN_NET_CONNECT_P95_MS
        | keys::SUSTAIN_NET_JITTER_MS
        | keys::SUSTAIN_NET_LOSS_PCT => "breakpoint accept network --target HOST:PORT",
        keys::SUSTAIN_RECOVERY_S | keys::SUSTAIN_RESUME_SUCCESS_PCT => {
            "breakpoint accept failover --log JOB.log --job train.py"
        }
        keys::SUSTAIN_GEMM_NOMINAL_PCT
        | keys::SUSTAIN_MEMBW_NOMINAL_PCT
        | keys::SUSTAIN_HOST_LINK_PCT
        | keys::SUSTAIN_STRAGGLER_PCT
        | keys::SUSTAIN_THROUGHPUT_DECAY_PCT => {
            "breakpoint accept perf (with --duration for the decay)"
        }
        keys::SUSTAIN_FABRIC_NOMINAL_PCT | keys::SUSTAIN_STRAGGLER_NODES_PCT => {
            "nccl-tests all_reduce_perf on each node (and ib_write_bw between two), then import the outputs"
        }
        keys::SUSTAIN_RECURRING_BAD_PCT => {
            "breakpoint probe check on each node again after the provider repairs it, then import it"
        }
        keys::SUSTAIN_CHECKPOINT_WRITE_S | keys::SUSTAIN_DATA_READ_VS_LOCAL_PCT => {
            "breakpoint accept storage --path /mnt/data --local /nvme"
        }
        keys::SUSTAIN_STORAGE_DRILL => {
            "breakpoint accept storage --path /mnt/data --local /nvme --drill --cut CMD --restore CMD"
        }
        keys::SWITCH_UPLOAD_MB_S => {
            "breakpoint accept storage --local /nvme --upload 'CMD {file} …'"
        }
        k if k.starts_with("sustain.") => {
            "breakpoint probe sample --duration 24h -o run.jsonl (under your load), then import it"
        }
        keys::SWITCH_DRIFT_REL_L2 | keys::SWITCH_OP_COVERAGE_PCT => {
            "breakpoint accept operators here, accept drift --reference on the other platform"
        }
        k if k.starts_with("switch.") => {
            "a switch-attempts table (docs/formats.md), then import it"
        }
        keys::BILLING_GRANULARITY_S => {
            "breakpoint accept billing-probe --instance ID, then import it with the platform's bill"
        }
        keys::BILLING_BILL_ERROR_PCT
        | keys::BILLING_BILLED_IDLE_PCT
        | keys::BILLING_DISPUTED_PCT => {
            "import the provider's bill export (docs/billing.md) beside the run's logs"
        }
        _ => "breakpoint offering add … --price-on-demand X, and breakpoint billing set",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_are_said_in_whole_percents_that_add_up_to_100() {
        let d = Decision {
            kind: DecisionKind::Leaning,
            verdict: Verdict::NotYet {
                reasons: vec![],
                reasons_zh: vec![],
            },
            p_best: [("A", 0.444), ("B", 0.2775), ("C", 0.1745), ("D", 0.104)]
                .iter()
                .map(|(p, c)| (p.to_string(), *c))
                .collect(),
            plan: vec![],
            enough: false,
            draws: 2000,
        };
        // 44.4 + 27.75 + 17.45 + 10.4: floors 44 + 27 + 17 + 10 = 98, the two
        // largest remainders (B's .75, C's .45) take the two points left.
        assert_eq!(d.chances_said(), "A 44 %, B 28 %, C 18 %, D 10 %");
        assert_eq!(d.percent_of("C"), "18 %");
        let total: u32 = d.percents().iter().map(|(_, c)| c).sum();
        assert_eq!(total, 100);
    }

    /// A metric whose inputs name the `breakpoint` command that gathers
    /// it is sent to that command by "what to measure next", not to a
    /// neighbour's: the catalogue and this table say the same.
    #[test]
    fn each_metric_is_gathered_by_the_command_its_inputs_name() {
        for m in crate::metrics::catalog::METRICS {
            let Some((_, rest)) = m.inputs.split_once("`breakpoint ") else {
                continue;
            };
            let command: String = rest.split(['`', ' ']).take(2).collect::<Vec<_>>().join(" ");
            let gathered = gathered_by(m.key);
            assert!(
                gathered.starts_with(&format!("breakpoint {command}")),
                "{}: its inputs name `breakpoint {command}`, what to measure next says {gathered}",
                m.key
            );
        }
    }

    /// docs/decision.md's table of hours says what `instance_hours` does,
    /// for every command the plan can name.
    #[test]
    fn the_documented_hours_are_the_hours_priced() {
        let doc = include_str!("../../../docs/decision.md");
        let rows: Vec<(String, f64)> = doc
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l
                    .trim()
                    .trim_matches('|')
                    .split('|')
                    .map(str::trim)
                    .collect();
                let [first, hours] = cells[..] else {
                    return None;
                };
                let hours: f64 = hours.parse().ok()?;
                let command = match first.split('`').nth(1) {
                    Some(inside) => inside,
                    None => first,
                };
                Some((command.to_string(), hours))
            })
            .collect();
        assert!(rows.len() >= 8, "{rows:?}");
        for m in crate::metrics::catalog::METRICS {
            let command = gathered_by(m.key);
            if command.starts_with("breakpoint offering add") {
                continue;
            }
            let row = rows
                .iter()
                .filter(|(prefix, _)| command.starts_with(prefix.as_str()))
                .max_by_key(|(prefix, _)| prefix.len())
                .unwrap_or_else(|| panic!("docs/decision.md has no hours for {command}"));
            assert_eq!(row.1, instance_hours(command), "{command}");
        }
    }

    #[test]
    fn every_metric_names_the_command_that_gathers_it() {
        for m in crate::metrics::catalog::METRICS {
            let command = gathered_by(m.key);
            assert!(!command.is_empty(), "{}", m.key);
        }
        // The fallback is for prices and rules only.
        for m in crate::metrics::catalog::METRICS {
            if gathered_by(m.key).starts_with("breakpoint offering add") {
                assert!(
                    matches!(
                        m.key,
                        keys::BILLING_OVERCHARGE_PCT
                            | keys::BILLING_COST_PER_USEFUL_GPU_HOUR
                            | keys::BILLING_REFERENCE_COST
                    ),
                    "{} falls through to the price command",
                    m.key
                );
            }
        }
    }
}
