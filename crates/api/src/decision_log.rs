//! The decision's history: each import that moves the answer — the
//! platform in the lead, any platform's chance of being the best by a
//! point or more, the plan of what to measure next — is kept with what
//! changed and the evidence that moved it (`breakpoint decision log`, the
//! PDF's first page).

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::decision::DecisionKind;
use crate::error::Result;
use crate::ranking::{self, RankRequest};
use crate::store::Store;

/// A chance moved by at least this much is a change worth keeping.
const MOVED: f64 = 0.01;

/// How an answer stood, as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub kind: String,
    pub leader: Option<String>,
    pub p_best: BTreeMap<String, f64>,
    /// The plan's commands, in order.
    pub plan: Vec<String>,
    /// The answer in words.
    pub sentence: String,
    /// Each platform's metric scores (those measured, by key, to a tenth
    /// of a point): what a move of the answer is traced back to.
    #[serde(default)]
    pub scores: BTreeMap<String, BTreeMap<String, f64>>,
}

/// One entry of the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    pub id: i64,
    pub at: Timestamp,
    /// Which evidence moved it: "import of node-2.log into P (run #7)".
    pub trigger: String,
    /// What changed, in words.
    pub changed: Vec<String>,
    pub standing: Standing,
}

#[derive(Serialize, Deserialize)]
struct Kept {
    changed: Vec<String>,
    standing: Standing,
}

/// How the answer stands now, under the workspace's default profile.
pub fn standing(store: &Store) -> Result<Standing> {
    let out = ranking::rank(store, &RankRequest::default())?;
    let d = &out.decision;
    Ok(Standing {
        kind: match d.kind {
            DecisionKind::Pick => "pick",
            DecisionKind::Leaning => "leaning",
            DecisionKind::None => "none",
        }
        .into(),
        leader: d.leader().map(str::to_string),
        p_best: d.p_best.clone(),
        plan: d.plan.iter().map(|s| s.command.clone()).collect(),
        sentence: d.sentence(),
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
pub fn record(store: &Store, trigger: &str) -> Result<Option<LogEntry>> {
    let now = standing(store)?;
    let last = entries(store, 1)?.into_iter().next();
    let changed = changes(last.as_ref().map(|e| &e.standing), &now);
    if changed.is_empty() {
        return Ok(None);
    }
    let at = Timestamp::now();
    let entry = serde_json::to_string(&Kept {
        changed: changed.clone(),
        standing: now.clone(),
    })
    .map_err(|e| crate::error::Error::Io(std::io::Error::other(e)))?;
    let id = store.add_decision_entry(at.as_millisecond(), trigger, &entry)?;
    Ok(Some(LogEntry {
        id,
        at,
        trigger: trigger.to_string(),
        changed,
        standing: now,
    }))
}

/// The last `limit` entries, newest first.
pub fn entries(store: &Store, limit: usize) -> Result<Vec<LogEntry>> {
    Ok(store
        .decision_entries(limit)?
        .into_iter()
        .filter_map(|(id, at_ms, trigger, json)| {
            let kept: Kept = serde_json::from_str(&json).ok()?;
            Some(LogEntry {
                id,
                at: Timestamp::from_millisecond(at_ms).ok()?,
                trigger,
                changed: kept.changed,
                standing: kept.standing,
            })
        })
        .collect())
}

/// What moved between two standings, in words; nothing where nothing did.
fn changes(before: Option<&Standing>, now: &Standing) -> Vec<String> {
    let said = |s: &Standing| match (&s.leader, s.kind.as_str()) {
        (Some(l), "pick") => format!("pick {l}"),
        (Some(l), _) => format!(
            "leaning {l} ({:.0} %)",
            100.0 * s.p_best.get(l).copied().unwrap_or(0.0)
        ),
        (None, _) => "no decision".to_string(),
    };
    let Some(before) = before else {
        return vec![format!("first answer: {}", said(now))];
    };
    let mut out = Vec::new();
    if before.kind != now.kind || before.leader != now.leader {
        out.push(format!("{} → {}", said(before), said(now)));
    }
    let mut moved: Vec<(String, f64, f64)> = now
        .p_best
        .iter()
        .map(|(p, c)| (p.clone(), before.p_best.get(p).copied().unwrap_or(0.0), *c))
        .filter(|(_, a, b)| (b - a).abs() >= MOVED)
        .collect();
    // Largest move first, by whole points (as shown), then by name.
    let points = |(_, a, b): &(String, f64, f64)| (100.0 * (b - a).abs()).round() as i64;
    moved.sort_by(|x, y| points(y).cmp(&points(x)).then_with(|| x.0.cmp(&y.0)));
    if !moved.is_empty() {
        let shown: Vec<String> = moved
            .iter()
            .take(3)
            .map(|(p, a, b)| format!("{p} {:.0} % → {:.0} %", 100.0 * a, 100.0 * b))
            .collect();
        out.push(format!("chance of being the best: {}", shown.join(", ")));
    }
    if before.plan != now.plan {
        let added: Vec<&String> = now
            .plan
            .iter()
            .filter(|c| !before.plan.contains(c))
            .collect();
        let done: Vec<&String> = before
            .plan
            .iter()
            .filter(|c| !now.plan.contains(c))
            .collect();
        let mut parts = Vec::new();
        let steps = |n: usize| {
            if n == 1 {
                "1 step".to_string()
            } else {
                format!("{n} steps")
            }
        };
        if !done.is_empty() {
            parts.push(format!("{} left it", steps(done.len())));
        }
        if !added.is_empty() {
            parts.push(format!("{} joined it", steps(added.len())));
        }
        if parts.is_empty() {
            parts.push("its steps reordered".into());
        }
        out.push(format!("plan: {}", parts.join(", ")));
    }
    // Why: the metric scores that moved, largest first, where the answer
    // itself did.
    if !out.is_empty() {
        let why = moved_scores(before, now);
        if !why.is_empty() {
            out.push(format!("because {}", why.join(", ")));
        }
    }
    out
}

/// "T: GPUs found faulty 100 → 0", "B: Billing granularity now 100": the
/// metric scores that moved by a point or more or were measured first,
/// the five largest moves.
fn moved_scores(before: &Standing, now: &Standing) -> Vec<String> {
    let none = BTreeMap::new();
    let mut moved: Vec<(f64, String)> = Vec::new();
    for (platform, scores) in &now.scores {
        let was = before.scores.get(platform).unwrap_or(&none);
        for (key, score) in scores {
            let name = crate::metrics::catalog::metric(key).map_or(key.as_str(), |m| m.name);
            match was.get(key) {
                Some(old) if (score - old).abs() >= 1.0 => moved.push((
                    (score - old).abs(),
                    format!("{platform}: {name} {old:.0} → {score:.0}"),
                )),
                Some(_) => {}
                None => moved.push((100.0, format!("{platform}: {name} measured, {score:.0}"))),
            }
        }
    }
    moved.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    moved.into_iter().take(5).map(|(_, said)| said).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn standing(kind: &str, leader: Option<&str>, p: &[(&str, f64)], plan: &[&str]) -> Standing {
        Standing {
            kind: kind.into(),
            leader: leader.map(str::to_string),
            p_best: p.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            plan: plan.iter().map(|s| s.to_string()).collect(),
            sentence: String::new(),
            scores: BTreeMap::new(),
        }
    }

    #[test]
    fn what_moved_is_said_and_nothing_else() {
        let a = standing(
            "leaning",
            Some("P"),
            &[("P", 0.62), ("Q", 0.38)],
            &["perf", "bill"],
        );
        assert_eq!(changes(None, &a), ["first answer: leaning P (62 %)"]);
        assert!(changes(Some(&a), &a).is_empty());
        let nudged = standing(
            "leaning",
            Some("P"),
            &[("P", 0.625), ("Q", 0.375)],
            &["perf", "bill"],
        );
        assert!(
            changes(Some(&a), &nudged).is_empty(),
            "half a point is no change"
        );
        let b = standing("leaning", Some("Q"), &[("P", 0.2), ("Q", 0.8)], &["bill"]);
        assert_eq!(
            changes(Some(&a), &b),
            [
                "leaning P (62 %) → leaning Q (80 %)",
                "chance of being the best: P 62 % → 20 %, Q 38 % → 80 %",
                "plan: 1 step left it",
            ]
        );
        // The scores that moved it are named, the largest first.
        let mut before = a.clone();
        before.scores.insert(
            "P".into(),
            [("sustain.faulty_gpus_pct".to_string(), 100.0)].into(),
        );
        let mut after = b.clone();
        after.scores.insert(
            "P".into(),
            [("sustain.faulty_gpus_pct".to_string(), 0.0)].into(),
        );
        after.scores.insert(
            "Q".into(),
            [("billing.granularity_s".to_string(), 100.0)].into(),
        );
        let said = changes(Some(&before), &after);
        assert_eq!(
            said.last().unwrap(),
            "because P: GPUs found faulty 100 → 0, Q: Billing granularity measured, 100"
        );
    }
}
