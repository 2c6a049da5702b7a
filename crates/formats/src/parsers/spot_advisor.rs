//! The AWS Spot Instance Advisor's data
//! (`spot-advisor-data.json`, behind aws.amazon.com/ec2/spot/instance-advisor):
//! `ranges` — the interruption bands (`{"index": 0, "label": "<5%", "max": 5}`,
//! …) — and `spot_advisor` → region → OS → instance type → `{"s": saving
//! %, "r": band}`. Kept: the Linux bands of accelerator instance types (the
//! P, G, DL, Trn and Inf families), as evidence about each instance type
//! and region (`SPOT_ADVISOR`), read where a spot job is costed and no spot
//! trace of the platform says more.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde::Deserialize;

use super::super::ParseContext;
use super::super::builder::{ParseFailure, ParseResult, RunBuilder};
use crate::domain::spot::{AdvisorBand, AdvisorEntry, SPOT_ADVISOR, SpotAdvisor};

/// The whole file is a few MiB.
const LIMIT: u64 = 64 << 20;

#[derive(Deserialize)]
struct Document {
    ranges: Vec<Range>,
    spot_advisor: BTreeMap<String, BTreeMap<String, BTreeMap<String, Entry>>>,
}

#[derive(Deserialize)]
struct Range {
    index: u32,
    label: String,
    max: f64,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    s: Option<f64>,
    r: u32,
}

/// Whether `text` is the advisor's data (for detection).
pub(crate) fn is_spot_advisor(text: &str) -> bool {
    text.contains("\"spot_advisor\"") && text.contains("\"ranges\"")
}

/// An accelerator instance type: p3.2xlarge, p4de.24xlarge, p6-b200.48xlarge,
/// g5.xlarge, g6e.12xlarge, dl1.24xlarge, trn1.32xlarge, inf2.xlarge.
fn accelerated(instance_type: &str) -> bool {
    let family = instance_type.split(['.', '-']).next().unwrap_or("");
    let rest = |prefix: &str| family.strip_prefix(prefix);
    let digit_first =
        |s: Option<&str>| s.is_some_and(|s| s.starts_with(|c: char| c.is_ascii_digit()));
    digit_first(rest("p"))
        || digit_first(rest("g"))
        || digit_first(rest("gr"))
        || digit_first(rest("dl"))
        || digit_first(rest("trn"))
        || digit_first(rest("inf"))
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let doc: Document = super::read_json(input, LIMIT, "the AWS Spot Instance Advisor's data")?;
    let mut ranges = doc.ranges;
    ranges.sort_by(|a, b| a.max.total_cmp(&b.max));
    let mut bands = Vec::with_capacity(ranges.len());
    let mut low = 0.0;
    for r in ranges {
        if !(r.max.is_finite() && r.max > low && r.max <= 100.0) {
            return Err(ParseFailure::Whole(format!(
                "range {} ({}) has max {}: the bands' maxima must rise within 0–100 %",
                r.index, r.label, r.max
            )));
        }
        bands.push(AdvisorBand {
            index: r.index,
            label: crate::text::printable_excerpt(&r.label, 16),
            low_pct: low,
            high_pct: r.max,
        });
        low = r.max;
    }
    let mut entries = Vec::new();
    let mut regions = 0;
    for (region, systems) in &doc.spot_advisor {
        let Some(linux) = systems.get("Linux") else {
            continue;
        };
        let before = entries.len();
        for (instance_type, e) in linux.iter().filter(|(t, _)| accelerated(t)) {
            if !bands.iter().any(|b| b.index == e.r) {
                return Err(ParseFailure::Whole(format!(
                    "spot_advisor.{region}.Linux.{instance_type}: band {} is not among the ranges",
                    e.r
                )));
            }
            entries.push(AdvisorEntry {
                region: crate::text::printable_excerpt(region, 40),
                instance_type: crate::text::printable_excerpt(instance_type, 40),
                band: e.r,
                savings_pct: e.s.filter(|s| s.is_finite()),
            });
        }
        regions += usize::from(entries.len() > before);
    }
    if entries.is_empty() {
        return Err(ParseFailure::Whole(
            "the advisor's data names no accelerator instance type (P, G, DL, Trn, Inf) on Linux"
                .into(),
        ));
    }
    b.warn(format!(
        "{} accelerator instance type(s) in {regions} region(s) with their interruption band (Linux): evidence about each instance type and region, used by `cost --mode spot` where no spot trace says more",
        entries.len()
    ));
    let advisor = SpotAdvisor { bands, entries };
    b.metadata.insert(
        SPOT_ADVISOR.into(),
        serde_json::to_value(&advisor).map_err(|e| ParseFailure::Whole(e.to_string()))?,
    );
    b.metadata_records += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::accelerated;

    #[test]
    fn accelerator_families_are_told_from_the_rest() {
        for t in [
            "p3.2xlarge",
            "p4de.24xlarge",
            "p6-b200.48xlarge",
            "g5.xlarge",
            "g6e.12xlarge",
            "gr6.4xlarge",
            "dl1.24xlarge",
            "trn1.32xlarge",
            "inf2.xlarge",
        ] {
            assert!(accelerated(t), "{t}");
        }
        for t in ["m5.large", "c7g.xlarge", "r6i.2xlarge", "gp.x", "t3.micro"] {
            assert!(!accelerated(t), "{t}");
        }
    }
}
