//! A platform's bills against what was measured: each bill line matched to
//! the evidence of the instance it bills — by instance id (a campaign's
//! instance, a billing probe's job), else by the instance's name and an
//! overlap in time (a probe log of that host), else by time alone where one
//! log without a host name covers the line — and the billed time that
//! evidence does not bear out, priced at the line's own rate:
//!
//! - **idle**: billed seconds beyond those the samples show a GPU working
//!   (some GPU above 10 % utilisation), within the time they cover;
//! - **after teardown**: billed after the platform confirmed the
//!   instance's teardown to a campaign;
//! - **rounding**: billed beyond a job measured whole on the instance (a
//!   billing probe), or beyond the period the line itself names: the
//!   billing unit's rounding.
//!
//! Billed time no measurement covers — a 3-hour line over a log of its
//! first 44 minutes, or a line no evidence matches at all — is
//! **unmeasured**: neither in question nor borne out, counted and priced
//! on its own so that a sheet never reads an uncovered line as settled.
//! Evidence no line bills is listed, priced at nothing. The amount in
//! question (or unmeasured) is the line's amount × those seconds ÷ seconds
//! billed, to the cent.
//!
//! Bills are read a line at a time: a million lines take the memory of a
//! few. Every row of the sheet goes to the caller as it is found (the CSV
//! is written that way); the reconciliation keeps [`LISTED`] of them for
//! screens and reports — the most money in question first — and counts the
//! rest.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use rust_decimal::Decimal;
use serde::Serialize;

use crate::domain::money;
use crate::domain::{BillingLine, EventKind, Run};
use crate::error::Result;
use crate::samples::{Field, median_step};
use crate::store::Store;

use super::sustain::WORKING_UTIL;

/// Why billed time is in question. Serialised by `key`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Finding {
    Idle,
    AfterTeardown,
    Rounding,
    /// A line no evidence matches.
    Unmatched,
    /// Billed time of a matched line that its evidence does not cover.
    Unmeasured,
    /// Evidence no line bills.
    NotBilled,
}

impl Finding {
    /// Its name in JSON and in the app's texts ("after-teardown").
    pub fn key(self) -> &'static str {
        match self {
            Finding::Idle => "idle",
            Finding::AfterTeardown => "after-teardown",
            Finding::Rounding => "rounding",
            Finding::Unmatched => "unmatched",
            Finding::Unmeasured => "unmeasured",
            Finding::NotBilled => "not-billed",
        }
    }

    pub fn label(self) -> &'static str {
        self.label_in(false)
    }

    /// The finding in the reader's language: the one place its words are
    /// written, for the command line, the PDF and the app.
    pub fn label_in(self, zh: bool) -> &'static str {
        match (self, zh) {
            (Finding::Idle, false) => "billed while no GPU worked",
            (Finding::Idle, true) => "GPU 无负载时计费",
            (Finding::AfterTeardown, false) => "billed after the measured teardown",
            (Finding::AfterTeardown, true) => "实测释放之后仍计费",
            (Finding::Rounding, false) => "rounding beyond the job or its period",
            (Finding::Rounding, true) => "超出实测任务或明细时段的计费（取整）",
            (Finding::Unmatched, false) => "no measurement of this instance",
            (Finding::Unmatched, true) => "该实例无实测",
            (Finding::Unmeasured, false) => "billed beyond what was measured",
            (Finding::Unmeasured, true) => "计费超出实测覆盖范围",
            (Finding::NotBilled, false) => "measured, but on no bill line",
            (Finding::NotBilled, true) => "有实测、无账单明细",
        }
    }
}

/// One row of the dispute sheet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dispute {
    pub finding: Finding,
    /// The bill run and the provider's line id, where the line has one.
    pub bill_run: Option<i64>,
    pub line_id: Option<String>,
    pub instance: String,
    pub billed_from: Option<jiff::Timestamp>,
    pub billed_to: Option<jiff::Timestamp>,
    pub billed_seconds: f64,
    pub amount: Option<Decimal>,
    pub currency: Option<String>,
    /// What was measured, in words, with the runs it comes from.
    pub evidence: String,
    pub evidence_runs: Vec<i64>,
    pub seconds_in_question: f64,
    pub amount_in_question: Decimal,
    /// Billed seconds no measurement covers (neither in question nor borne
    /// out), and their price.
    pub seconds_unmeasured: f64,
    pub amount_unmeasured: Decimal,
}

/// Every bill line of a platform read against its evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reconciliation {
    pub lines: usize,
    pub billed_seconds: f64,
    /// Billed seconds on lines whose GPU work the samples tell.
    pub sampled_billed_seconds: f64,
    pub idle_seconds: f64,
    pub seconds_in_question: f64,
    /// Billed seconds no measurement covers: lines no evidence matches,
    /// and the part of matched lines beyond their evidence.
    pub seconds_unmeasured: f64,
    /// Per currency: amount billed, amount in question.
    pub amounts: BTreeMap<String, (Decimal, Decimal)>,
    /// Per currency: the amount billed for unmeasured time.
    pub unmeasured_amounts: BTreeMap<String, Decimal>,
    /// The rows kept for reading (at most [`LISTED`]), in line order.
    pub disputes: Vec<Dispute>,
    /// Rows of the sheet found but not kept in `disputes`: the CSV
    /// (`bill --disputes -o`) has every one.
    pub unlisted: usize,
    /// Every row of the sheet by finding (`idle`, `unmatched`, …), listed or
    /// not.
    pub rows: BTreeMap<String, usize>,
    /// The runs holding the bill lines.
    pub bill_runs: Vec<i64>,
}

/// How many rows of the sheet a reconciliation keeps for screens, the
/// report and JSON.
pub const LISTED: usize = 1000;

/// The rows kept: all while there are fewer than the limit, then those
/// with the most money (then seconds) in question, earlier rows first.
struct Listing {
    kept: BinaryHeap<Reverse<Ranked>>,
    next: u64,
    limit: usize,
    unlisted: usize,
}

/// A row by what it questions; the order of the heap.
struct Ranked {
    amount: Decimal,
    seconds: f64,
    seq: u64,
    dispute: Dispute,
}

impl Ranked {
    fn key(&self) -> (Decimal, f64, Reverse<u64>) {
        (self.amount, self.seconds, Reverse(self.seq))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let (a, b) = (self.key(), other.key());
        a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
    }
}

impl Listing {
    fn new(limit: usize) -> Self {
        Self {
            kept: BinaryHeap::new(),
            next: 0,
            limit,
            unlisted: 0,
        }
    }

    fn add(&mut self, dispute: Dispute) {
        let ranked = Ranked {
            amount: dispute.amount_in_question,
            seconds: dispute.seconds_in_question,
            seq: self.next,
            dispute,
        };
        self.next += 1;
        if self.kept.len() < self.limit {
            self.kept.push(Reverse(ranked));
            return;
        }
        self.unlisted += 1;
        if self
            .kept
            .peek()
            .is_some_and(|Reverse(least)| ranked > *least)
        {
            self.kept.pop();
            self.kept.push(Reverse(ranked));
        }
    }

    /// The kept rows in the order they were found.
    fn rows(self) -> (Vec<Dispute>, usize) {
        let mut kept: Vec<Ranked> = self.kept.into_iter().map(|Reverse(r)| r).collect();
        kept.sort_by_key(|r| r.seq);
        (kept.into_iter().map(|r| r.dispute).collect(), self.unlisted)
    }
}

/// What one run says of an instance's life.
#[derive(Debug, Clone)]
struct Evidence {
    run_id: i64,
    /// The ids and names it answers to.
    names: Vec<String>,
    from_ms: i64,
    to_ms: i64,
    kind: Kind,
    matched: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// Samples of a host; busy times are read when a line asks.
    Samples,
    /// A job recorded on the instance from its first start to its end.
    Job,
    /// A campaign's instance, to its confirmed teardown where there was one.
    Campaign { torn_down: bool },
}

/// Slack for clocks that disagree: billed this little past the evidence is
/// not in question.
const SLACK_S: f64 = 1.0;

/// The runs' bill lines read against their evidence; the sheet's rows kept
/// as [`Reconciliation::disputes`] (at most [`LISTED`]).
pub fn reconcile(store: &Store, runs: &[Run]) -> Result<Reconciliation> {
    reconcile_each(store, runs, &mut |_| Ok(()))
}

/// [`reconcile`], handing every row of the sheet to `each` as it is found,
/// in line order (evidence no line bills last).
pub fn reconcile_each(
    store: &Store,
    runs: &[Run],
    each: &mut dyn FnMut(&Dispute) -> Result<()>,
) -> Result<Reconciliation> {
    let mut out = Reconciliation::default();
    let mut listing = Listing::new(LISTED);
    let mut row = |d: Dispute, out: &mut Reconciliation| -> Result<()> {
        each(&d)?;
        *out.rows.entry(d.finding.key().to_string()).or_default() += 1;
        listing.add(d);
        Ok(())
    };
    // Evidence is gathered once, when the first line asks for it.
    let mut evidence: Option<Vec<Evidence>> = None;
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    for run in runs {
        store.visit_billing_lines(run.id, |line| {
            let evidence = match &mut evidence {
                Some(e) => e,
                None => evidence.insert(gather(store, runs)?),
            };
            if out.bill_runs.last() != Some(&run.id) {
                out.bill_runs.push(run.id);
            }
            out.lines += 1;
            first = first.min(line.start.as_millisecond());
            last = last.max(line.end.as_millisecond());
            for d in judge(store, evidence, run.id, &line, &mut out)? {
                row(d, &mut out)?;
            }
            Ok(())
        })?;
    }
    let Some(evidence) = evidence else {
        return Ok(out);
    };
    for e in evidence.iter().filter(|e| !e.matched) {
        // Only evidence from the time the bills cover can miss a line.
        if e.to_ms < first || e.from_ms > last {
            continue;
        }
        let d = Dispute {
            finding: Finding::NotBilled,
            bill_run: None,
            line_id: None,
            instance: e.names.first().cloned().unwrap_or_default(),
            billed_from: None,
            billed_to: None,
            billed_seconds: 0.0,
            amount: None,
            currency: None,
            evidence: describe(e),
            evidence_runs: vec![e.run_id],
            seconds_in_question: 0.0,
            amount_in_question: money::to_cents(Decimal::ZERO),
            seconds_unmeasured: 0.0,
            amount_unmeasured: money::to_cents(Decimal::ZERO),
        };
        row(d, &mut out)?;
    }
    // Amounts in question to the cent, also where there were none.
    for (_, question) in out.amounts.values_mut() {
        *question = money::to_cents(*question);
    }
    for amount in out.unmeasured_amounts.values_mut() {
        *amount = money::to_cents(*amount);
    }
    (out.disputes, out.unlisted) = listing.rows();
    Ok(out)
}

/// Every run's evidence of an instance's life.
fn gather(store: &Store, runs: &[Run]) -> Result<Vec<Evidence>> {
    let mut out = Vec::new();
    for run in runs {
        if run.watched()
            && let (Some(from), Some(to)) = (run.started_at, run.ended_at)
        {
            out.push(Evidence {
                run_id: run.id,
                names: run.hosts(),
                from_ms: from.as_millisecond(),
                to_ms: to.as_millisecond() + i64::from(run.interval_ms.unwrap_or(0)),
                kind: Kind::Samples,
                matched: false,
            });
        }
        out.extend(jobs(store, run)?);
        out.extend(campaign_instances(run));
    }
    Ok(out)
}

/// A billing probe's jobs: each instance's first phase start to last end.
fn jobs(store: &Store, run: &Run) -> Result<Vec<Evidence>> {
    let mut by_instance: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for e in store.events_of_kind(run.id, EventKind::Phase)? {
        let Some((_, instance)) = e.detail.as_deref().and_then(|d| d.split_once(" on ")) else {
            continue;
        };
        let start = e.at.as_millisecond();
        let end = start + e.duration_ms.unwrap_or(0);
        let span = by_instance
            .entry(instance.to_string())
            .or_insert((start, end));
        span.0 = span.0.min(start);
        span.1 = span.1.max(end);
    }
    Ok(by_instance
        .into_iter()
        .map(|(instance, (from_ms, to_ms))| Evidence {
            run_id: run.id,
            names: vec![instance],
            from_ms,
            to_ms,
            kind: Kind::Job,
            matched: false,
        })
        .collect())
}

/// A campaign's instances: launched (submitted) to torn down.
fn campaign_instances(run: &Run) -> Vec<Evidence> {
    let Some(attempts) = run
        .metadata
        .get("campaign")
        .and_then(|c| c.get("attempts"))
        .and_then(|a| a.as_array())
    else {
        return Vec::new();
    };
    let time = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(|t| t.as_str())
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map(|t| t.as_millisecond())
    };
    attempts
        .iter()
        .filter_map(|a| {
            let id = a.get("id")?.as_str()?.to_string();
            let from = time(a, "submitted_at").or_else(|| time(a, "provisioned_at"))?;
            let to = time(a, "torn_down_at");
            let name = a
                .get("plan")
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                .map(str::to_string);
            Some(Evidence {
                run_id: run.id,
                names: std::iter::once(id).chain(name).collect(),
                from_ms: from,
                to_ms: to.unwrap_or(i64::MAX),
                kind: Kind::Campaign {
                    torn_down: to.is_some(),
                },
                matched: false,
            })
        })
        .collect()
}

fn describe(e: &Evidence) -> String {
    let at = |ms: i64| {
        jiff::Timestamp::from_millisecond(ms)
            .map(|t| t.strftime("%Y-%m-%d %H:%M:%SZ").to_string())
            .unwrap_or_default()
    };
    let run = e.run_id;
    let name = match e.names.first() {
        Some(n) => format!("{n}, run #{run}"),
        None => format!("run #{run} (no host named)"),
    };
    match e.kind {
        Kind::Samples => format!("samples of {name}"),
        Kind::Job => format!(
            "a {:.1} s job from {} ({name})",
            (e.to_ms - e.from_ms) as f64 / 1000.0,
            at(e.from_ms)
        ),
        Kind::Campaign { torn_down: true } => {
            format!("torn down {} ({name}, a campaign)", at(e.to_ms))
        }
        Kind::Campaign { torn_down: false } => {
            format!("teardown not confirmed ({name}, a campaign)")
        }
    }
}

/// The evidence that answers for a line: by instance id, else by the
/// instance's name over the billed period, else the one log without a host
/// name over that period (a bare nvidia-smi CSV answers only so).
fn matching(evidence: &[Evidence], line: &BillingLine) -> Vec<usize> {
    let (from, to) = (line.start.as_millisecond(), line.end.as_millisecond());
    let overlaps = |e: &Evidence| e.from_ms < to && e.to_ms > from;
    let select = |keep: &dyn Fn(&Evidence) -> bool| -> Vec<usize> {
        (0..evidence.len())
            .filter(|&i| keep(&evidence[i]))
            .collect()
    };
    let by_id = select(&|e| e.names.contains(&line.instance));
    if !by_id.is_empty() {
        return by_id;
    }
    let by_host =
        select(&|e| line.host.as_ref().is_some_and(|h| e.names.contains(h)) && overlaps(e));
    if !by_host.is_empty() {
        return by_host;
    }
    let nameless = select(&|e| e.names.is_empty() && overlaps(e));
    if nameless.len() == 1 {
        nameless
    } else {
        Vec::new()
    }
}

/// A row of the sheet for `line`, priced.
fn dispute(
    bill_run: i64,
    line: &BillingLine,
    (finding, seconds, evidence, runs): (Finding, f64, String, Vec<i64>),
) -> Dispute {
    Dispute {
        finding,
        bill_run: Some(bill_run),
        line_id: line.line_id.clone(),
        instance: line.instance.clone(),
        billed_from: Some(line.start),
        billed_to: Some(line.end),
        billed_seconds: line.billed_seconds,
        amount: Some(line.amount),
        currency: Some(line.currency.clone()),
        evidence,
        evidence_runs: runs,
        seconds_in_question: if finding == Finding::Unmeasured {
            0.0
        } else {
            seconds
        },
        amount_in_question: if finding == Finding::Unmeasured {
            money::to_cents(Decimal::ZERO)
        } else {
            price(line, seconds)
        },
        seconds_unmeasured: if finding == Finding::Unmeasured {
            seconds
        } else {
            0.0
        },
        amount_unmeasured: if finding == Finding::Unmeasured {
            price(line, seconds)
        } else {
            money::to_cents(Decimal::ZERO)
        },
    }
}

/// A finding before it is priced: what, how many seconds, the evidence in
/// words and its runs.
type Found = (Finding, f64, String, Vec<i64>);

/// The line against its evidence: the disputes it gives, and its share of
/// the totals.
fn judge(
    store: &Store,
    evidence: &mut [Evidence],
    bill_run: i64,
    line: &BillingLine,
    out: &mut Reconciliation,
) -> Result<Vec<Dispute>> {
    out.billed_seconds += line.billed_seconds;
    out.amounts.entry(line.currency.clone()).or_default().0 += line.amount;
    let matched = matching(evidence, line);
    if matched.is_empty() {
        let host = line
            .host
            .as_ref()
            .filter(|h| **h != line.instance)
            .map(|h| format!(" or {h}"))
            .unwrap_or_default();
        let why = format!("no run names {}{host}", line.instance);
        let mut d = dispute(bill_run, line, (Finding::Unmatched, 0.0, why, Vec::new()));
        // Every second of it is unmeasured.
        d.seconds_unmeasured = line.billed_seconds;
        d.amount_unmeasured = money::to_cents(line.amount);
        out.seconds_unmeasured += d.seconds_unmeasured;
        *out.unmeasured_amounts
            .entry(line.currency.clone())
            .or_default() += line.amount;
        return Ok(vec![d]);
    }
    let mut found: Vec<Found> = Vec::new();
    // A line that bills more seconds than its own period: the unit's
    // rounding, whatever was measured.
    let period_s = (line.end.as_millisecond() - line.start.as_millisecond()) as f64 / 1000.0;
    let rounding_s = (line.billed_seconds - period_s).max(0.0);
    if rounding_s > SLACK_S {
        let why = format!(
            "the line bills {:.0} s for a period of {period_s:.0} s",
            line.billed_seconds
        );
        found.push((Finding::Rounding, rounding_s, why, Vec::new()));
    }
    let mut covered_s = 0.0;
    let mut samples_only = true;
    let mut spans: Vec<(i64, i64)> = Vec::new();
    for i in &matched {
        let e = &mut evidence[*i];
        e.matched = true;
        samples_only &= e.kind == Kind::Samples;
        spans.push((
            e.from_ms.max(from_ms(line)),
            e.to_ms.min(line.end.as_millisecond()),
        ));
        if let Some(f) = finding(store, e, line, rounding_s, &mut covered_s, out)? {
            found.push(f);
        }
    }
    // Billed within the period beyond what the samples cover: a log of the
    // first 44 minutes of a 3-hour line bears out 44 minutes, no more.
    if samples_only {
        let billed = line.billed_seconds - rounding_s;
        let unmeasured = (billed - covered_s).max(0.0);
        if unmeasured > SLACK_S {
            spans.sort_unstable();
            let covered: Vec<String> = spans
                .iter()
                .filter(|(a, b)| b > a)
                .map(|(a, b)| format!("{}–{}", clock(*a), clock(*b)))
                .collect();
            let why = format!(
                "{covered_s:.0} s of {billed:.0} s billed covered by measurements ({})",
                if covered.is_empty() {
                    "none in the billed period".to_string()
                } else {
                    covered.join(", ")
                }
            );
            let runs = matched.iter().map(|i| evidence[*i].run_id).collect();
            found.push((Finding::Unmeasured, unmeasured, why, runs));
        }
    }
    // One line's findings never question more than it billed.
    let mut left = line.billed_seconds;
    let disputes: Vec<Dispute> = found
        .into_iter()
        .map(|(finding, seconds, why, runs)| {
            let seconds = seconds.min(left);
            left -= seconds;
            dispute(bill_run, line, (finding, seconds, why, runs))
        })
        .collect();
    let question = out.amounts.entry(line.currency.clone()).or_default();
    for d in &disputes {
        out.seconds_in_question += d.seconds_in_question;
        question.1 += d.amount_in_question;
    }
    for d in &disputes {
        out.seconds_unmeasured += d.seconds_unmeasured;
        *out.unmeasured_amounts
            .entry(line.currency.clone())
            .or_default() += d.amount_unmeasured;
    }
    Ok(disputes)
}

fn from_ms(line: &BillingLine) -> i64 {
    line.start.as_millisecond()
}

/// "10:44:00Z" of a time in milliseconds.
fn clock(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// What one piece of evidence questions in a line's billed time, if
/// anything; sampled lines add to the idle totals.
fn finding(
    store: &Store,
    e: &Evidence,
    line: &BillingLine,
    rounding_s: f64,
    covered_s: &mut f64,
    out: &mut Reconciliation,
) -> Result<Option<Found>> {
    let (from, to) = (line.start.as_millisecond(), line.end.as_millisecond());
    let (finding, seconds, why) = match e.kind {
        Kind::Samples => {
            let (covered, busy) = busy_seconds(store, e.run_id, from, to)?;
            if covered <= 0.0 {
                return Ok(None);
            }
            // Billed within the period (its rounding is its own finding)
            // beyond the seconds a GPU worked: a line that bills compute
            // alone questions nothing here.
            let billed = (line.billed_seconds - rounding_s).min(covered);
            *covered_s = (*covered_s + billed).min(line.billed_seconds - rounding_s);
            let idle = (billed - busy).max(0.0);
            out.sampled_billed_seconds += billed;
            out.idle_seconds += idle;
            let why = format!(
                "{busy:.0} s of GPU work in {billed:.0} s billed ({})",
                describe(e)
            );
            (Finding::Idle, idle, why)
        }
        // A job measured whole inside the billed period: billed time beyond
        // it is the unit's rounding.
        Kind::Job if e.from_ms >= from - 1000 => {
            let measured = (e.to_ms - e.from_ms) as f64 / 1000.0;
            (
                Finding::Rounding,
                line.billed_seconds - measured,
                describe(e),
            )
        }
        Kind::Campaign { torn_down: true } => {
            let after = (to - e.to_ms.max(from)) as f64 / 1000.0;
            (Finding::AfterTeardown, after, describe(e))
        }
        Kind::Job | Kind::Campaign { torn_down: false } => return Ok(None),
    };
    Ok((seconds > SLACK_S).then(|| (finding, seconds, why, vec![e.run_id])))
}

/// The line's amount for `seconds` of its billed time, to the cent.
fn price(line: &BillingLine, seconds: f64) -> Decimal {
    if line.billed_seconds <= 0.0 || seconds <= 0.0 {
        return money::to_cents(Decimal::ZERO);
    }
    let share = Decimal::from_f64_retain(seconds / line.billed_seconds).unwrap_or(Decimal::ZERO);
    money::to_cents(line.amount * share)
}

/// Seconds of `from..to` the run's samples cover, and of those, seconds
/// with some GPU above 10 % utilisation.
fn busy_seconds(store: &Store, run_id: i64, from: i64, to: i64) -> Result<(f64, f64)> {
    let mut covered: Vec<i64> = Vec::new();
    let mut busy: Vec<i64> = Vec::new();
    let mut step_ms: Option<i64> = None;
    for gpu in store.sample_gpus(run_id)? {
        let frame = store.read_samples(run_id, gpu, Some(from..to), Some(&[Field::UtilGpuPct]))?;
        let Some(util) = frame.column(Field::UtilGpuPct) else {
            continue;
        };
        step_ms = step_ms.or(median_step(&frame.t_ms));
        for (t, u) in frame.t_ms.iter().zip(util.iter()) {
            covered.push(*t);
            if u.is_some_and(|u| u > WORKING_UTIL) {
                busy.push(*t);
            }
        }
    }
    // A moment counts once, whichever GPUs sampled it.
    for v in [&mut covered, &mut busy] {
        v.sort_unstable();
        v.dedup();
    }
    let step = step_ms.unwrap_or(1000) as f64 / 1000.0;
    Ok((covered.len() as f64 * step, busy.len() as f64 * step))
}

#[cfg(test)]
mod tests {
    use super::{Decimal, Dispute, Finding, Listing};

    #[test]
    fn a_listing_keeps_the_most_in_question_in_the_order_found() {
        let row = |amount: i64, seconds: f64| Dispute {
            finding: Finding::Idle,
            bill_run: Some(1),
            line_id: None,
            instance: format!("i-{amount}"),
            billed_from: None,
            billed_to: None,
            billed_seconds: 3600.0,
            amount: None,
            currency: None,
            evidence: String::new(),
            evidence_runs: Vec::new(),
            seconds_in_question: seconds,
            amount_in_question: Decimal::new(amount, 2),
            seconds_unmeasured: 0.0,
            amount_unmeasured: Decimal::ZERO,
        };
        let mut listing = Listing::new(3);
        for (amount, seconds) in [(5, 1.0), (1, 1.0), (9, 1.0), (0, 9.0), (7, 1.0), (0, 0.0)] {
            listing.add(row(amount, seconds));
        }
        let (kept, unlisted) = listing.rows();
        let names: Vec<&str> = kept.iter().map(|d| d.instance.as_str()).collect();
        assert_eq!(names, ["i-5", "i-9", "i-7"]);
        assert_eq!(unlisted, 3);
        // Fewer rows than the limit: all of them, as found.
        let mut listing = Listing::new(10);
        listing.add(row(1, 1.0));
        listing.add(row(5, 1.0));
        let (kept, unlisted) = listing.rows();
        assert_eq!(kept.len(), 2);
        assert_eq!((kept[0].instance.as_str(), unlisted), ("i-1", 0));
    }

    #[test]
    fn a_finding_serialises_as_its_key() {
        for f in [
            Finding::Idle,
            Finding::AfterTeardown,
            Finding::Rounding,
            Finding::Unmatched,
            Finding::NotBilled,
        ] {
            assert_eq!(serde_json::to_value(f).unwrap(), f.key());
        }
    }
}
