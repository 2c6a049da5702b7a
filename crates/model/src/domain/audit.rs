//! A provider audit by ClusterMAX's own tool (`cmax audit`, which writes
//! `audit.values.json`): security versions, container and scheduler setup,
//! fabric isolation, health-check tooling. Breakpoint measures none of
//! this; it keeps the audit's results as the audit wrote them, with its
//! date, and shows them in the rating's categories — never scored.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The run's metadata key for an imported audit ([`Audit`]).
pub const CMAX_AUDIT: &str = "cmax_audit";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    /// The name the audit was run under (`--name`).
    pub cluster: Option<String>,
    /// The host it ran on (a login node, a worker).
    pub host: Option<String>,
    /// `slurm`, `k8s`, `standalone`.
    pub orchestrator: Option<String>,
    /// The GPU model it saw.
    pub gpu: Option<String>,
    /// When it ran; `None` where the file says nothing readable.
    pub audited_at: Option<Timestamp>,
    /// Every check the audit gave a status.
    pub results: Vec<AuditResult>,
    /// What it recorded without a status of its own (its rules judge these
    /// when it reports; Breakpoint shows them as written).
    pub facts: Vec<AuditFact>,
    /// Entries past the limits, left out.
    pub left_out: u64,
}

/// One check with the status the audit wrote for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditResult {
    /// Its place in the audit, dotted: `securityVersions.nvidiaDriver`.
    pub check: String,
    pub status: AuditStatus,
    /// Version against minimum, the audit's message: "580.126.09, minimum
    /// 580.159.03 — Below the minimum version".
    pub detail: String,
}

/// One recorded value: `containers.singularity` = `false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditFact {
    pub path: String,
    pub value: String,
}

/// A status as the audit writes it, its spellings ("not-applicable",
/// "n/a", "skipped") brought to one; any other word (`manual`,
/// `host-patch-required`) is kept, as a result that needs a look.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    Fail,
    Warning,
    Other(String),
    Unknown,
    Pass,
    NotApplicable,
}

impl AuditStatus {
    /// The status a word names, if it names one.
    pub fn read(word: &str) -> Option<AuditStatus> {
        let w = word.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Some(match w.as_str() {
            "pass" | "passed" | "ok" => AuditStatus::Pass,
            "fail" | "failed" | "critical" => AuditStatus::Fail,
            "warning" | "warn" => AuditStatus::Warning,
            "unknown" => AuditStatus::Unknown,
            "not_applicable" | "n/a" | "na" | "skipped" | "skip" => AuditStatus::NotApplicable,
            _ => return None,
        })
    }

    /// The status in words: "fail", "not applicable", "manual".
    pub fn word(&self) -> String {
        match self {
            AuditStatus::Fail => "fail".into(),
            AuditStatus::Warning => "warning".into(),
            AuditStatus::Other(w) => w.replace('_', " "),
            AuditStatus::Unknown => "unknown".into(),
            AuditStatus::Pass => "pass".into(),
            AuditStatus::NotApplicable => "not applicable".into(),
        }
    }

    /// The status in Chinese (a word of the audit's own kept as written).
    pub fn word_zh(&self) -> String {
        match self {
            AuditStatus::Fail => "未通过".into(),
            AuditStatus::Warning => "警告".into(),
            AuditStatus::Other(w) => w.replace('_', " "),
            AuditStatus::Unknown => "未知".into(),
            AuditStatus::Pass => "通过".into(),
            AuditStatus::NotApplicable => "不适用".into(),
        }
    }

    /// Whether a reader needs to look at it: neither passed nor not
    /// applicable.
    pub fn needs_a_look(&self) -> bool {
        !matches!(self, AuditStatus::Pass | AuditStatus::NotApplicable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audits_spellings_of_a_status_are_one() {
        for w in ["not_applicable", "not-applicable", "N/A", "skipped"] {
            assert_eq!(
                AuditStatus::read(w),
                Some(AuditStatus::NotApplicable),
                "{w}"
            );
        }
        assert_eq!(AuditStatus::read("PASS"), Some(AuditStatus::Pass));
        assert_eq!(AuditStatus::read("host-patch-required"), None);
        assert!(AuditStatus::Other("manual".into()).needs_a_look());
        assert!(!AuditStatus::NotApplicable.needs_a_look());
        assert!(AuditStatus::Fail < AuditStatus::Pass, "failures sort first");
    }
}
