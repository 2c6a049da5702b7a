//! The decision's history: each import that moves the answer — the
//! platform in the lead, any platform's chance of being the best by a
//! point or more, the plan of what to measure next — is kept with the
//! evidence that moved it and the answer as it then stood
//! (`breakpoint decision log`, the PDF's first page).
//!
//! What changed is not stored but said on reading, from each entry and
//! the one before it: the same rule, in either language.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::decision::DecisionKind;
use crate::error::Result;
use crate::ranking::{self, RankRequest};
use crate::store::Store;

/// A chance moved by at least this much is a change worth keeping.
const MOVED: f64 = 0.01;

/// A metric score moved by at least this many points is named as a cause.
const SCORE_MOVED: f64 = 1.0;

/// How many moved scores an entry names.
const CAUSES_SHOWN: usize = 5;

/// How an answer stood, as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub kind: DecisionKind,
    pub leader: Option<String>,
    pub p_best: BTreeMap<String, f64>,
    /// The plan's commands, in order.
    pub plan: Vec<String>,
    /// The answer in words, in English and in Chinese.
    pub sentence: String,
    pub sentence_zh: String,
    /// Each platform's metric scores (those measured, by key, to a tenth
    /// of a point): what a move of the answer is traced back to.
    pub scores: BTreeMap<String, BTreeMap<String, f64>>,
}

/// The evidence that moved the answer: the files imported (each with its
/// run) and the platform they went to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    pub files: Vec<String>,
    pub platform: String,
}

impl Trigger {
    /// "import of node-2.log (run #7) into P".
    pub fn said(&self, zh: bool) -> String {
        let files = self.files.join(if zh { "、" } else { ", " });
        match (self.files.len(), zh) {
            (1, false) => format!("import of {files} into {}", self.platform),
            (n, false) => format!("import of {n} files into {}: {files}", self.platform),
            (1, true) => format!("导入 {files} 到 {}", self.platform),
            (n, true) => format!("导入 {n} 个文件到 {}：{files}", self.platform),
        }
    }
}

/// One entry of the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    pub id: i64,
    pub at: Timestamp,
    /// Which evidence moved it: "import of node-2.log (run #7) into P".
    pub trigger: String,
    /// What changed, in words.
    pub changed: Vec<String>,
    #[serde(skip)]
    pub trigger_zh: String,
    #[serde(skip)]
    pub changed_zh: Vec<String>,
    pub standing: Standing,
}

#[derive(Serialize, Deserialize)]
struct Kept {
    trigger: Trigger,
    standing: Standing,
}

/// How the answer stands now, under the workspace's default profile.
pub fn standing(store: &Store) -> Result<Standing> {
    let out = ranking::rank(store, &RankRequest::default())?;
    let d = &out.decision;
    Ok(Standing {
        kind: d.kind,
        leader: d.leader().map(str::to_string),
        p_best: d.p_best.clone(),
        plan: d.plan.iter().map(|s| s.command.clone()).collect(),
        sentence: d.sentence_in(false),
        sentence_zh: d.sentence_in(true),
        scores: out
            .ranking
            .platforms
            .iter()
            .map(|p| {
                let scores = p
                    .breakpoints
                    .iter()
                    .flat_map(|b| &b.metrics)
                    .filter(|m| m.weight > 0.0)
                    .filter_map(|m| Some((m.key.to_string(), (m.score? * 10.0).round() / 10.0)))
                    .collect();
                (p.platform.name.clone(), scores)
            })
            .collect(),
    })
}

/// Keep the answer as it stands after `trigger`, where it moved since the
/// last entry; what was kept, if anything.
pub fn record(store: &Store, trigger: Trigger) -> Result<Option<LogEntry>> {
    let now = standing(store)?;
    let last = kept(store, 1)?.into_iter().next();
    let before = last.as_ref().map(|(_, _, k)| &k.standing);
    let changed = changes(before, &now, false);
    if changed.is_empty() {
        return Ok(None);
    }
    let at = Timestamp::now();
    let entry = Kept {
        trigger,
        standing: now,
    };
    let json = serde_json::to_string(&entry)
        .map_err(|e| crate::error::Error::Io(std::io::Error::other(e)))?;
    let id = store.add_decision_entry(at.as_millisecond(), &entry.trigger.said(false), &json)?;
    Ok(Some(LogEntry {
        id,
        at,
        trigger: entry.trigger.said(false),
        trigger_zh: entry.trigger.said(true),
        changed,
        changed_zh: changes(before, &entry.standing, true),
        standing: entry.standing,
    }))
}

/// The last `limit` entries, newest first, each with what changed since
/// the one before it.
pub fn entries(store: &Store, limit: usize) -> Result<Vec<LogEntry>> {
    // One more than shown: the oldest shown is said against it.
    let rows = kept(store, limit.saturating_add(1))?;
    Ok(rows
        .iter()
        .enumerate()
        .take(limit)
        .map(|(i, (id, at, k))| {
            let before = rows.get(i + 1).map(|(_, _, b)| &b.standing);
            LogEntry {
                id: *id,
                at: *at,
                trigger: k.trigger.said(false),
                trigger_zh: k.trigger.said(true),
                changed: changes(before, &k.standing, false),
                changed_zh: changes(before, &k.standing, true),
                standing: k.standing.clone(),
            }
        })
        .collect())
}

/// The kept entries, newest first; one the program cannot read (written
/// by a later version) is passed over.
fn kept(store: &Store, limit: usize) -> Result<Vec<(i64, Timestamp, Kept)>> {
    Ok(store
        .decision_entries(limit)?
        .into_iter()
        .filter_map(|(id, at_ms, _, json)| {
            Some((
                id,
                Timestamp::from_millisecond(at_ms).ok()?,
                serde_json::from_str(&json).ok()?,
            ))
        })
        .collect())
}

/// Each platform's chance in whole percent, as the answer says them.
fn percents(s: &Standing) -> BTreeMap<&str, u32> {
    let shares: Vec<f64> = s.p_best.values().copied().collect();
    s.p_best
        .keys()
        .map(String::as_str)
        .zip(crate::decision::whole_percents(&shares))
        .collect()
}

/// "pick P", "leaning P (62 %)", "no decision".
fn said(s: &Standing, zh: bool) -> String {
    let pct = |l: &String| percents(s).get(l.as_str()).copied().unwrap_or(0);
    match (&s.leader, s.kind, zh) {
        (Some(l), DecisionKind::Pick, false) => format!("pick {l}"),
        (Some(l), DecisionKind::Pick, true) => format!("选择 {l}"),
        (Some(l), _, false) => format!("leaning {l} ({} %)", pct(l)),
        (Some(l), _, true) => format!("倾向 {l}（{} %）", pct(l)),
        (None, _, false) => "no decision".to_string(),
        (None, _, true) => "尚无结论".to_string(),
    }
}

/// What moved between two standings, in words; nothing where nothing did.
fn changes(before: Option<&Standing>, now: &Standing, zh: bool) -> Vec<String> {
    let Some(before) = before else {
        return vec![if zh {
            format!("首个答案：{}", said(now, zh))
        } else {
            format!("first answer: {}", said(now, zh))
        }];
    };
    let mut out = Vec::new();
    if before.kind != now.kind || before.leader != now.leader {
        out.push(format!("{} → {}", said(before, zh), said(now, zh)));
    }
    let (was, is) = (percents(before), percents(now));
    let mut moved: Vec<(String, f64, f64)> = now
        .p_best
        .iter()
        .map(|(p, c)| (p.clone(), before.p_best.get(p).copied().unwrap_or(0.0), *c))
        .filter(|(_, a, b)| (b - a).abs() >= MOVED)
        .collect();
    // Largest move first, by whole points (as shown), then by name.
    let points = |p: &str| {
        let (a, b) = (
            was.get(p).copied().unwrap_or(0),
            is.get(p).copied().unwrap_or(0),
        );
        a.abs_diff(b)
    };
    moved.sort_by(|x, y| points(&y.0).cmp(&points(&x.0)).then_with(|| x.0.cmp(&y.0)));
    if !moved.is_empty() {
        let shown: Vec<String> = moved
            .iter()
            .take(3)
            .map(|(p, _, _)| {
                let (a, b) = (
                    was.get(p.as_str()).copied().unwrap_or(0),
                    is.get(p.as_str()).copied().unwrap_or(0),
                );
                format!("{p} {a} % → {b} %")
            })
            .collect();
        out.push(if zh {
            format!("为最佳的概率：{}", shown.join("，"))
        } else {
            format!("chance of being the best: {}", shown.join(", "))
        });
    }
    if before.plan != now.plan {
        let added = now.plan.iter().filter(|c| !before.plan.contains(c)).count();
        let done = before.plan.iter().filter(|c| !now.plan.contains(c)).count();
        out.push(plan_moved(done, added, zh));
    }
    // Why: the metric scores that moved, largest first, where the answer
    // itself did.
    if !out.is_empty() {
        let why = moved_scores(before, now, zh);
        if !why.is_empty() {
            out.push(if zh {
                format!("原因：{}", why.join("，"))
            } else {
                format!("because {}", why.join(", "))
            });
        }
    }
    out
}

/// "plan: 1 step left it, 2 steps joined it".
fn plan_moved(done: usize, added: usize, zh: bool) -> String {
    if zh {
        let mut parts = Vec::new();
        if done > 0 {
            parts.push(format!("{done} 步移出"));
        }
        if added > 0 {
            parts.push(format!("{added} 步加入"));
        }
        if parts.is_empty() {
            parts.push("步骤重新排序".into());
        }
        return format!("计划：{}", parts.join("，"));
    }
    let steps = |n: usize| {
        if n == 1 {
            "1 step".to_string()
        } else {
            format!("{n} steps")
        }
    };
    let mut parts = Vec::new();
    if done > 0 {
        parts.push(format!("{} left it", steps(done)));
    }
    if added > 0 {
        parts.push(format!("{} joined it", steps(added)));
    }
    if parts.is_empty() {
        parts.push("its steps reordered".into());
    }
    format!("plan: {}", parts.join(", "))
}

/// "T: GPUs found faulty 100 → 0", "B: Billing granularity measured, 100",
/// "B: 7 metrics measured first": the metric scores that moved by a point
/// or more, largest first, then those measured for the first time (named
/// where a platform has one or two, counted where it has more).
fn moved_scores(before: &Standing, now: &Standing, zh: bool) -> Vec<String> {
    let none = BTreeMap::new();
    let name = |key: &str| {
        crate::metrics::catalog::metric(key)
            .map_or_else(|| key.to_string(), |m| m.name_in(zh).to_string())
    };
    let mut moved: Vec<(f64, String)> = Vec::new();
    let mut first: Vec<String> = Vec::new();
    for (platform, scores) in &now.scores {
        let was = before.scores.get(platform).unwrap_or(&none);
        let mut new_here: Vec<(&String, f64)> = Vec::new();
        for (key, score) in scores {
            match was.get(key) {
                Some(old) if (score - old).abs() < SCORE_MOVED => {}
                Some(old) => moved.push((
                    (score - old).abs(),
                    format!("{platform}: {} {old:.0} → {score:.0}", name(key)),
                )),
                None => new_here.push((key, *score)),
            }
        }
        match (new_here.len(), zh) {
            (0, _) => {}
            (1 | 2, false) => first.extend(
                new_here
                    .iter()
                    .map(|(k, v)| format!("{platform}: {} measured, {v:.0}", name(k))),
            ),
            (1 | 2, true) => first.extend(
                new_here
                    .iter()
                    .map(|(k, v)| format!("{platform}：{} 首次测得，{v:.0}", name(k))),
            ),
            (n, false) => first.push(format!("{platform}: {n} metrics measured first")),
            (n, true) => first.push(format!("{platform}：首次测得 {n} 项指标")),
        }
    }
    moved.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    moved
        .into_iter()
        .map(|(_, said)| said)
        .chain(first)
        .take(CAUSES_SHOWN)
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::catalogue::keys;

    fn standing(
        kind: DecisionKind,
        leader: Option<&str>,
        p: &[(&str, f64)],
        plan: &[&str],
    ) -> Standing {
        Standing {
            kind,
            leader: leader.map(str::to_string),
            p_best: p.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            plan: plan.iter().map(|s| s.to_string()).collect(),
            sentence: String::new(),
            sentence_zh: String::new(),
            scores: BTreeMap::new(),
        }
    }

    #[test]
    fn what_moved_is_said_and_nothing_else() {
        let leaning = DecisionKind::Leaning;
        let a = standing(
            leaning,
            Some("P"),
            &[("P", 0.62), ("Q", 0.38)],
            &["perf", "bill"],
        );
        assert_eq!(changes(None, &a, false), ["first answer: leaning P (62 %)"]);
        assert_eq!(changes(None, &a, true), ["首个答案：倾向 P（62 %）"]);
        assert!(changes(Some(&a), &a, false).is_empty());
        let nudged = standing(
            leaning,
            Some("P"),
            &[("P", 0.625), ("Q", 0.375)],
            &["perf", "bill"],
        );
        assert!(
            changes(Some(&a), &nudged, false).is_empty(),
            "half a point is no change"
        );
        let b = standing(leaning, Some("Q"), &[("P", 0.2), ("Q", 0.8)], &["bill"]);
        assert_eq!(
            changes(Some(&a), &b, false),
            [
                "leaning P (62 %) → leaning Q (80 %)",
                "chance of being the best: P 62 % → 20 %, Q 38 % → 80 %",
                "plan: 1 step left it",
            ]
        );
        assert_eq!(
            changes(Some(&a), &b, true),
            [
                "倾向 P（62 %） → 倾向 Q（80 %）",
                "为最佳的概率：P 62 % → 20 %，Q 38 % → 80 %",
                "计划：1 步移出",
            ]
        );
        // The scores that moved it are named, the largest first.
        let mut before = a.clone();
        before.scores.insert(
            "P".into(),
            [(keys::SUSTAIN_FAULTY_GPUS_PCT.to_string(), 100.0)].into(),
        );
        let mut after = b.clone();
        after.scores.insert(
            "P".into(),
            [(keys::SUSTAIN_FAULTY_GPUS_PCT.to_string(), 0.0)].into(),
        );
        after.scores.insert(
            "Q".into(),
            [(keys::BILLING_GRANULARITY_S.to_string(), 100.0)].into(),
        );
        assert_eq!(
            changes(Some(&before), &after, false).last().unwrap(),
            "because P: GPUs found faulty 100 → 0, Q: Billing granularity measured, 100"
        );
        // Many metrics measured at once are counted, not listed.
        let mut many = after.clone();
        many.scores.insert(
            "Q".into(),
            [
                keys::BILLING_GRANULARITY_S,
                keys::BILLING_OVERCHARGE_PCT,
                keys::BILLING_DISPUTED_PCT,
            ]
            .iter()
            .map(|k| (k.to_string(), 90.0))
            .collect(),
        );
        assert_eq!(
            changes(Some(&before), &many, false).last().unwrap(),
            "because P: GPUs found faulty 100 → 0, Q: 3 metrics measured first"
        );
        // A score that moved while the answer did not is no entry.
        let mut same = a.clone();
        same.scores.insert(
            "P".into(),
            [(keys::SUSTAIN_FAULTY_GPUS_PCT.to_string(), 50.0)].into(),
        );
        assert!(changes(Some(&before), &same, false).is_empty());
    }

    #[test]
    fn the_trigger_names_the_files_and_the_platform() {
        let one = Trigger {
            files: vec!["node-2.log (run #7)".into()],
            platform: "P".into(),
        };
        assert_eq!(one.said(false), "import of node-2.log (run #7) into P");
        assert_eq!(one.said(true), "导入 node-2.log (run #7) 到 P");
        let two = Trigger {
            files: vec!["a (run #1)".into(), "b (run #2)".into()],
            platform: "P".into(),
        };
        assert_eq!(
            two.said(false),
            "import of 2 files into P: a (run #1), b (run #2)"
        );
    }
}
