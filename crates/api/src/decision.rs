//! The answer a buyer asks for, in words: "pick X because …" where the
//! evidence and the ranking's robustness support it, else "no decision
//! yet" and why — and in both cases the measurements that would most
//! change the answer, each with the command that gathers it.
//!
//! A ranking of platforms that are "not ranked" for want of evidence, or a
//! winner that a small change of weights unseats, is no decision: saying
//! "pick" there would present the order of a few samples as a verdict.

use serde::Serialize;

use crate::domain::Breakpoint;
use crate::scoring::{PlatformScore, Ranking, Robustness};

/// How many measurements to suggest.
const NEXT_SHOWN: usize = 5;

/// A breakpoint lead worth naming, in points.
const LEAD_NAMED: f64 = 5.0;

/// A measured metric whose runs' scores lie this far apart (of 100) is as
/// worth measuring again as a share of a missing one: the evidence says
/// both answers.
const WIDE_SPREAD: f64 = 30.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub verdict: Verdict,
    /// What to measure next, most telling first.
    pub next: Vec<NextMeasurement>,
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
    NotYet {
        reasons: Vec<String>,
        #[serde(skip)]
        reasons_zh: Vec<String>,
    },
}

/// A command that gathers metrics the ranking lacks for some platforms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NextMeasurement {
    pub command: &'static str,
    /// The metrics it gathers that are missing, or whose runs disagree
    /// widely, by key.
    pub metrics: Vec<&'static str>,
    /// Their names, as the ranking shows them.
    pub names: Vec<&'static str>,
    /// The names of those measured everywhere whose runs' scores lie far
    /// apart (more runs would settle them).
    pub spread: Vec<&'static str>,
    /// Their share of the overall score under the profile, together.
    pub weight: f64,
    /// The platforms without them; empty: every platform.
    pub platforms: Vec<String>,
}

impl Decision {
    /// One line: "Pick X because …" or "No decision yet: …".
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
            (Verdict::NotYet { reasons, .. }, false) => {
                format!("No decision yet: {}", reasons.join("; "))
            }
            (Verdict::NotYet { reasons_zh, .. }, true) => {
                format!("尚无结论：{}。", reasons_zh.join("；"))
            }
        }
    }
}

/// The decision a ranking and its robustness support.
pub fn decide(ranking: &Ranking, robustness: &Robustness) -> Decision {
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
    let verdict = match (ranked.first(), ranked.get(1)) {
        (Some(first), Some(second)) if reasons.is_empty() => Verdict::Pick {
            platform: first.platform.name.clone(),
            because: because(first, second, robustness, false),
            because_zh: because(first, second, robustness, true),
        },
        _ => Verdict::NotYet {
            reasons,
            reasons_zh,
        },
    };
    Decision {
        verdict,
        next: next_measurements(ranking),
    }
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

/// The commands that would gather the metrics missing for some platforms,
/// or measured with runs far apart, by the metrics' share of the overall
/// score times the doubt they leave: a missing figure the whole range, a
/// measured one the range between its runs' scores.
fn next_measurements(ranking: &Ranking) -> Vec<NextMeasurement> {
    let Some(any) = ranking.platforms.first() else {
        return Vec::new();
    };
    let everyone = ranking.platforms.len();
    let mut found: Vec<(f64, NextMeasurement)> = Vec::new();
    for (b, share) in Breakpoint::ALL.iter().zip(ranking.weights) {
        let metrics = &any.breakpoint(*b).metrics;
        let total: f64 = metrics.iter().map(|m| m.weight).sum();
        for (i, m) in metrics.iter().enumerate() {
            if m.weight <= 0.0 || total <= 0.0 {
                continue;
            }
            let (mut doubt, mut missing, mut any_missing) = (0.0, Vec::new(), false);
            for p in &ranking.platforms {
                let figure = p.breakpoint(*b).metrics.get(i);
                let absent = figure.is_none_or(|x| x.value.is_none());
                let this = match figure {
                    _ if absent => 1.0,
                    Some(x) => x
                        .score_range
                        .map(|(lo, hi)| (hi - lo).abs())
                        .filter(|w| *w >= WIDE_SPREAD)
                        .map_or(0.0, |w| w / 100.0),
                    None => 1.0,
                };
                if this > 0.0 {
                    any_missing |= absent;
                    doubt += this;
                    missing.push(p.platform.name.clone());
                }
            }
            if missing.is_empty() {
                continue;
            }
            let weight = share * m.weight / total;
            let command = gathered_by(m.key);
            let gain = weight * doubt;
            let spread: Vec<&'static str> = if any_missing { vec![] } else { vec![m.name] };
            match found.iter_mut().find(|(_, n)| n.command == command) {
                Some((g, n)) => {
                    *g += gain;
                    n.weight += weight;
                    n.metrics.push(m.key);
                    n.names.push(m.name);
                    n.spread.extend(spread);
                    for p in missing {
                        if !n.platforms.contains(&p) {
                            n.platforms.push(p);
                        }
                    }
                }
                None => found.push((
                    gain,
                    NextMeasurement {
                        command,
                        metrics: vec![m.key],
                        names: vec![m.name],
                        spread,
                        weight,
                        platforms: missing,
                    },
                )),
            }
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.command.cmp(b.1.command)));
    found
        .into_iter()
        .take(NEXT_SHOWN)
        .map(|(_, mut n)| {
            if n.platforms.len() == everyone {
                n.platforms.clear();
            }
            n
        })
        .collect()
}

/// The command that gathers a metric's evidence (docs/acceptance.md and
/// docs/campaigns.md say more about each).
pub fn gathered_by(key: &str) -> &'static str {
    match key {
        "startup.delivery_mismatches" => {
            "breakpoint probe check (on the instance, against the order)"
        }
        k if k.starts_with("startup.") => {
            "breakpoint campaign run RECIPE (startup attempts at baseline, peak and mixed load)"
        }
        "sustain.stress_util_floor_pct" | "sustain.stress_util_swing_pct" => {
            "breakpoint accept stress -- YOUR_LOAD"
        }
        "sustain.net_connect_p95_ms" | "sustain.net_jitter_ms" | "sustain.net_loss_pct" => {
            "breakpoint accept network --target HOST:PORT"
        }
        "sustain.recovery_s" | "sustain.resume_success_pct" => {
            "breakpoint accept failover --log JOB.log --job train.py"
        }
        "sustain.gemm_nominal_pct"
        | "sustain.membw_nominal_pct"
        | "sustain.host_link_pct"
        | "sustain.straggler_pct"
        | "sustain.throughput_decay_pct" => {
            "breakpoint accept perf (with --duration for the decay)"
        }
        "sustain.checkpoint_write_s" | "sustain.data_read_vs_local_pct" => {
            "breakpoint accept storage --path /mnt/data --local /nvme"
        }
        "sustain.storage_drill" => {
            "breakpoint accept storage --path /mnt/data --local /nvme --drill --cut CMD --restore CMD"
        }
        "switch.upload_mb_s" => "breakpoint accept storage --local /nvme --upload 'CMD {file} …'",
        k if k.starts_with("sustain.") => {
            "breakpoint probe sample --duration 24h -o run.jsonl (under your load), then import it"
        }
        "switch.drift_rel_l2" | "switch.op_coverage_pct" => {
            "breakpoint accept operators here, accept drift --reference on the other platform"
        }
        k if k.starts_with("switch.") => {
            "a switch-attempts table (docs/formats.md), then import it"
        }
        "billing.granularity_s" => {
            "breakpoint accept billing-probe --instance ID, then import it with the platform's bill"
        }
        "billing.bill_error_pct" | "billing.billed_idle_pct" | "billing.disputed_pct" => {
            "import the provider's bill export (docs/billing.md) beside the run's logs"
        }
        _ => "breakpoint offering add … --price-on-demand X, and breakpoint billing set",
    }
}

#[cfg(test)]
mod tests {

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

    use super::*;

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
                        "billing.overcharge_pct"
                            | "billing.cost_per_useful_gpu_hour"
                            | "billing.reference_cost"
                    ),
                    "{} falls through to the price command",
                    m.key
                );
            }
        }
    }
}
