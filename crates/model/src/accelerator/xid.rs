//! What an NVIDIA Xid error means, and whose fault it is.
//!
//! The driver reports serious GPU errors as numbered "Xid" messages in the
//! kernel log (and DCGM as `XID_ERRORS`). Some are the platform's doing —
//! memory that fails ECC, a GPU that fell off the bus, a link that broke —
//! others are the program's — an illegal memory access, a kernel killed by
//! its owner. A buyer judges the platform only on the first kind, so each
//! code carries who is at fault; the second kind is shown, never counted.
//!
//! Written from NVIDIA's public Xid catalogue (the "Xid Errors" chapter of
//! the GPU deployment and management documentation): the meanings are
//! summarised, and where the documentation lists both driver or hardware and
//! user program as causes the code is marked `Either`.

use serde::Serialize;

labelled_enum! {
    /// Who caused an error, as far as the code tells.
    pub enum Blame ("blame") {
        /// Hardware, firmware, driver or interconnect: counts against the
        /// platform.
        Platform => "platform",
        /// The user's program (bad memory access, killed context): shown,
        /// not counted against the platform.
        Application => "application",
        /// The documentation names both; counted, with the doubt shown.
        Either => "either",
    }
}

labelled_enum! {
    pub enum Severity ("severity") {
        /// The GPU is unusable until reset or the node is serviced.
        Fatal => "fatal",
        /// The work on the GPU stopped; the GPU itself may go on.
        Error => "error",
        /// Recorded and corrected; nothing stopped.
        Warning => "warning",
    }
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct XidInfo {
    pub code: u32,
    pub meaning: &'static str,
    pub severity: Severity,
    pub blame: Blame,
}

impl XidInfo {
    /// Whether the error stopped work on the GPU (a warning did not).
    pub fn interrupts(&self) -> bool {
        self.severity != Severity::Warning
    }

    /// Whether it counts against the platform's sustain score.
    pub fn counts_against_platform(&self) -> bool {
        self.interrupts() && self.blame != Blame::Application
    }
}

const fn x(code: u32, meaning: &'static str, severity: Severity, blame: Blame) -> XidInfo {
    XidInfo {
        code,
        meaning,
        severity,
        blame,
    }
}

use Blame::{Application, Either, Platform};
use Severity::{Error, Fatal, Warning};

/// Sorted by code (looked up by binary search).
const CATALOGUE: &[XidInfo] = &[
    x(8, "GPU stopped processing", Error, Either),
    x(
        13,
        "graphics engine exception (illegal instruction or address in a kernel)",
        Error,
        Application,
    ),
    x(
        31,
        "GPU memory page fault (illegal memory access by the program)",
        Error,
        Application,
    ),
    x(32, "invalid or corrupted push buffer stream", Error, Either),
    x(38, "driver firmware error", Error, Platform),
    x(
        43,
        "GPU stopped processing a context (the program faulted or was stopped)",
        Error,
        Application,
    ),
    x(
        44,
        "graphics engine fault during a context switch",
        Error,
        Platform,
    ),
    x(
        45,
        "preemptive cleanup after a context ended (follows a killed or faulted program)",
        Error,
        Application,
    ),
    x(
        48,
        "double-bit ECC error (uncorrectable memory error)",
        Fatal,
        Platform,
    ),
    x(56, "display engine error", Error, Platform),
    x(
        57,
        "error programming the video memory interface",
        Fatal,
        Platform,
    ),
    x(
        61,
        "internal micro-controller breakpoint or warning",
        Error,
        Platform,
    ),
    x(62, "internal micro-controller halt", Fatal, Platform),
    x(
        63,
        "ECC page retirement or row remapping recorded",
        Warning,
        Platform,
    ),
    x(
        64,
        "ECC page retirement or row remapping failed",
        Fatal,
        Platform,
    ),
    x(68, "video decoder exception", Error, Either),
    x(69, "graphics engine class error", Error, Either),
    x(74, "NVLink error", Fatal, Platform),
    x(79, "GPU has fallen off the bus", Fatal, Platform),
    x(92, "high single-bit ECC error rate", Warning, Platform),
    x(
        94,
        "contained ECC error (the affected program was stopped)",
        Error,
        Platform,
    ),
    x(
        95,
        "uncontained ECC error (every program on the GPU was stopped)",
        Fatal,
        Platform,
    ),
    x(109, "context switch timeout", Error, Either),
    x(119, "GSP firmware RPC timeout", Fatal, Platform),
    x(120, "GSP firmware error", Fatal, Platform),
    x(121, "C2C link corrected error", Warning, Platform),
    x(122, "SPI PMU RPC read failure", Error, Platform),
    x(123, "SPI PMU RPC write failure", Error, Platform),
    x(124, "SPI PMU RPC erase failure", Error, Platform),
    x(140, "unrecovered ECC error", Fatal, Platform),
    x(143, "GPU initialisation failure", Fatal, Platform),
    x(144, "NVLink: SAW MVB non-fatal error", Warning, Platform),
    x(145, "NVLink: RLW error", Fatal, Platform),
    x(146, "NVLink: TLW error", Fatal, Platform),
    x(147, "NVLink: TREX error", Fatal, Platform),
    x(148, "NVLink: NVLPW_CTRL error", Fatal, Platform),
    x(
        149,
        "NVLink: NETIR link event (link down or fatal link error)",
        Fatal,
        Platform,
    ),
    x(150, "NVLink: MSE watchdog timeout", Fatal, Platform),
    x(
        154,
        "GPU recovery action changed (reset or reboot required)",
        Fatal,
        Platform,
    ),
];

/// The catalogue entry for a code, if the code is known.
pub fn lookup(code: u32) -> Option<&'static XidInfo> {
    CATALOGUE
        .binary_search_by_key(&code, |e| e.code)
        .ok()
        .map(|i| &CATALOGUE[i])
}

/// Whether an Xid counts against the platform: known application faults
/// and recorded warnings do not; unknown codes do, because a buyer would
/// rather see an unexplained error than miss one.
pub fn counts_against_platform(code: Option<i64>) -> bool {
    match code.and_then(|c| u32::try_from(c).ok()).and_then(lookup) {
        Some(info) => info.counts_against_platform(),
        None => true,
    }
}

/// Whether an Xid stopped work (anything but a recorded warning).
pub fn interrupts(code: Option<i64>) -> bool {
    code.and_then(|c| u32::try_from(c).ok())
        .and_then(lookup)
        .is_none_or(XidInfo::interrupts)
}

/// Two faults of the same GPU this close are one incident: a fallen-off
/// line next to its Xid 79, an NVLink error behind its link event, a failed
/// initialisation retried by every nvidia-smi call.
pub const SAME_INCIDENT_MS: i64 = 60_000;

/// "Xid 79: GPU has fallen off the bus (fatal, platform)" — or the bare
/// code when it is not in the catalogue.
pub fn describe(code: i64) -> String {
    match u32::try_from(code).ok().and_then(lookup) {
        Some(info) => format!(
            "Xid {code}: {} ({}, {})",
            info.meaning,
            info.severity.as_str(),
            match info.blame {
                Blame::Platform => "platform fault",
                Blame::Application => "application fault, not counted",
                Blame::Either => "platform or application",
            }
        ),
        None => format!("Xid {code}: not in the catalogue (counted as a platform fault)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_sorted_and_unique() {
        assert!(CATALOGUE.windows(2).all(|w| w[0].code < w[1].code));
    }

    #[test]
    fn application_faults_and_warnings_do_not_count_against_the_platform() {
        for code in [13, 31, 43, 45] {
            assert!(!counts_against_platform(Some(code)), "{code}");
            assert!(interrupts(Some(code)), "{code}");
        }
        for code in [48, 79, 74, 95, 109, 119, 149] {
            assert!(counts_against_platform(Some(code)), "{code}");
        }
        assert!(!counts_against_platform(Some(63)));
        assert!(!interrupts(Some(92)));
        // Unknown and missing codes count: better seen than missed.
        assert!(counts_against_platform(Some(999)));
        assert!(counts_against_platform(None));
    }

    #[test]
    fn descriptions_name_meaning_severity_and_blame() {
        assert_eq!(
            describe(79),
            "Xid 79: GPU has fallen off the bus (fatal, platform fault)"
        );
        assert!(describe(31).contains("application fault, not counted"));
        assert!(describe(4242).contains("not in the catalogue"));
    }
}
