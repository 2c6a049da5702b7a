//! The discrete evidence a run carries besides its sample series: events,
//! startup and switch attempts, fault drills and billing lines.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::money::{self, Decimal};

use super::validate::{self, Checked};
use crate::error::ValidationError;

labelled_enum! {
    pub enum EventKind ("event") {
        /// No samples for longer than three sampling intervals.
        Gap => "gap",
        /// A GPU stopped answering (fell off the bus, NVML lost it).
        GpuLost => "gpu-lost",
        /// An NVIDIA XID error; the code is in `Event::code`.
        Xid => "xid",
        /// The GPU must be reset before it works again (after an
        /// uncorrectable ECC error, say); it answers nothing until then.
        ResetRequired => "reset-required",
        /// The GPU is there but no reading could be taken: every query
        /// failed (the reason is in `detail`).
        Unreadable => "gpu-unreadable",
        /// The whole instance went away (preempted, crashed, reclaimed).
        InstanceLost => "instance-lost",
        /// A deliberate fault injected by a drill.
        Fault => "fault",
        /// Work resumed after an interruption.
        Recovered => "recovered",
        /// A health check found the GPU faulty without stopping it: a
        /// failed `dcgmi diag` test, retired pages waiting for a reset, a
        /// row remap that failed (what was found is in `detail`). Counted
        /// in the share of GPUs found faulty, never as an interruption.
        HealthFault => "health-fault",
        /// A billing phase (compute, queue, io-wait, idle) with its duration;
        /// the phase name is in `detail`.
        Phase => "phase",
        Note => "note",
    }
}

impl EventKind {
    /// Whether the event stopped work: counted as an interruption, marked
    /// on the timeline.
    pub fn interrupts(self) -> bool {
        matches!(
            self,
            EventKind::Gap
                | EventKind::GpuLost
                | EventKind::Xid
                | EventKind::InstanceLost
                | EventKind::ResetRequired
                | EventKind::Unreadable
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at: Timestamp,
    pub gpu: Option<u32>,
    pub kind: EventKind,
    /// XID number, exit status … depending on the kind.
    pub code: Option<i64>,
    pub duration_ms: Option<i64>,
    pub detail: Option<String>,
}

impl Event {
    pub fn new(at: Timestamp, kind: EventKind) -> Self {
        Self {
            at,
            gpu: None,
            kind,
            code: None,
            duration_ms: None,
            detail: None,
        }
    }

    /// Whether work stopped: the kind interrupts, and an Xid is more than a
    /// recorded warning.
    pub fn interrupts(&self) -> bool {
        self.kind.interrupts()
            && (self.kind != EventKind::Xid || crate::accelerator::xid::interrupts(self.code))
    }

    /// Whether the interruption counts against the platform: an Xid the
    /// catalogue blames on the application does not.
    pub fn counts_against_platform(&self) -> bool {
        self.interrupts()
            && (self.kind != EventKind::Xid
                || crate::accelerator::xid::counts_against_platform(self.code))
    }

    pub fn validate(self) -> Checked<Self> {
        if let Some(d) = self.duration_ms.filter(|d| *d < 0) {
            return Err(ValidationError::new(
                "duration_ms",
                format!("{d} is negative"),
            ));
        }
        Ok(self)
    }
}

labelled_enum! {
    /// The load on the platform when an instance was requested (the four-breakpoint review
    /// tests starts at baseline, peak and mixed load).
    pub enum LoadScenario ("scenario") {
        Baseline => "baseline",
        Peak => "peak",
        Mixed => "mixed",
    }
}

labelled_enum! {
    pub enum ImageState ("image") {
        /// The image was already cached on the host.
        Warm => "warm",
        /// A custom image that had to be pulled first.
        Cold => "cold",
    }
}

labelled_enum! {
    pub enum StartupOutcome ("outcome") {
        Ok => "ok",
        Failed => "failed",
        Timeout => "timeout",
    }
}

/// One request for a GPU, timed from submission to first computation, with
/// the intermediate stages where the source records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartupAttempt {
    pub scenario: LoadScenario,
    pub image: ImageState,
    pub submitted_at: Timestamp,
    pub provisioned_at: Option<Timestamp>,
    pub image_ready_at: Option<Timestamp>,
    pub first_compute_at: Option<Timestamp>,
    pub outcome: StartupOutcome,
}

impl StartupAttempt {
    /// Stages must not go back in time, and a successful start must say when
    /// computation began.
    pub fn validate(self) -> Checked<Self> {
        let stages = [
            ("provisioned_at", self.provisioned_at),
            ("image_ready_at", self.image_ready_at),
            ("first_compute_at", self.first_compute_at),
        ];
        let mut previous = ("submitted_at", self.submitted_at);
        for (field, at) in stages {
            if let Some(at) = at {
                if at < previous.1 {
                    return Err(ValidationError::new(
                        field,
                        format!("{at} is before {} ({})", previous.0, previous.1),
                    ));
                }
                previous = (field, at);
            }
        }
        if self.outcome == StartupOutcome::Ok && self.first_compute_at.is_none() {
            return Err(ValidationError::new(
                "first_compute_at",
                "a successful start needs the time of first compute",
            ));
        }
        Ok(self)
    }

    /// Submission to first compute, for successful starts.
    pub fn latency_s(&self) -> Option<f64> {
        let end = self.first_compute_at?;
        Some(end.duration_since(self.submitted_at).as_secs_f64())
    }
}

/// One attempt to move a workload to another environment or accelerator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchAttempt {
    pub from_env: String,
    pub to_env: String,
    pub success: bool,
    pub manual_steps: u32,
    pub duration_s: f64,
    /// ‖out − ref‖ / ‖ref‖ of the same computation before and after.
    pub rel_l2_error: Option<f64>,
    pub ops_passed: Option<u32>,
    pub ops_total: Option<u32>,
}

impl SwitchAttempt {
    pub fn validate(mut self) -> Checked<Self> {
        self.from_env = validate::name("from_env", &self.from_env)?;
        self.to_env = validate::name("to_env", &self.to_env)?;
        self.duration_s = validate::non_negative("duration_s", self.duration_s)?;
        self.rel_l2_error = validate::non_negative_opt("rel_l2_error", self.rel_l2_error)?;
        validate::at_least_one_opt("ops_total", self.ops_total)?;
        match (self.ops_passed, self.ops_total) {
            (Some(passed), Some(total)) if passed > total => {
                return Err(ValidationError::new(
                    "ops_passed",
                    format!("{passed} passed is more than the {total} tested"),
                ));
            }
            (Some(_), None) => {
                return Err(ValidationError::new(
                    "ops_total",
                    "is needed when ops_passed is given",
                ));
            }
            _ => {}
        }
        Ok(self)
    }
}

labelled_enum! {
    /// The drills of the long-term partner assessment's test, plus the
    /// interruptions a platform imposes by itself.
    pub enum FaultKind ("fault") {
        ProcessKill => "process-kill",
        OutOfMemory => "out-of-memory",
        BadDataPath => "bad-data-path",
        InstanceRecreate => "instance-recreate",
        CheckpointResume => "checkpoint-resume",
        Preemption => "preemption",
        NodeFailure => "node-failure",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FaultDrill {
    pub fault: FaultKind,
    pub detected: bool,
    pub recovered: bool,
    pub recovery_s: Option<f64>,
    pub progress_lost_s: Option<f64>,
}

impl FaultDrill {
    pub fn validate(mut self) -> Checked<Self> {
        self.recovery_s = validate::non_negative_opt("recovery_s", self.recovery_s)?;
        self.progress_lost_s = validate::non_negative_opt("progress_lost_s", self.progress_lost_s)?;
        Ok(self)
    }
}

/// One line of a platform's bill, with the split of the billed time where
/// the platform (or the user's own measurement) provides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BillingLine {
    pub instance: String,
    pub start: Timestamp,
    pub end: Timestamp,
    pub billed_seconds: f64,
    pub compute_seconds: Option<f64>,
    pub queue_seconds: Option<f64>,
    pub io_wait_seconds: Option<f64>,
    /// Exact decimal text in JSON ("108.32", never 108.32399999999961).
    pub amount: Decimal,
    pub currency: String,
    /// Exact decimal text in JSON ("108.32", never 108.32399999999961).
    pub unit_price: Decimal,
    /// The provider's own id of the line (what its support asks for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_id: Option<String>,
    /// The instance's name or host, where the bill gives one besides its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// What was billed ("GPU instance", "ecs.gn7i", "AmazonEC2 p4d.24xlarge").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
}

impl BillingLine {
    pub fn validate(mut self) -> Checked<Self> {
        self.instance = validate::name("instance", &self.instance)?;
        if self.end < self.start {
            return Err(ValidationError::new(
                "end",
                format!("{} is before the start {}", self.end, self.start),
            ));
        }
        self.billed_seconds = validate::non_negative("billed_seconds", self.billed_seconds)?;
        self.check_billed_within_period()?;
        self.compute_seconds = validate::non_negative_opt("compute_seconds", self.compute_seconds)?;
        self.queue_seconds = validate::non_negative_opt("queue_seconds", self.queue_seconds)?;
        self.io_wait_seconds = validate::non_negative_opt("io_wait_seconds", self.io_wait_seconds)?;
        self.amount = money::non_negative("amount", self.amount)?;
        self.unit_price = money::non_negative("unit_price", self.unit_price)?;
        self.currency = validate::currency("currency", &self.currency)?;
        self.line_id = validate::optional_cell("line_id", self.line_id)?;
        self.host = validate::optional_cell("host", self.host)?;
        self.product = validate::optional_cell("product", self.product)?;
        Ok(self)
    }

    /// The seconds of the billed period.
    pub fn period_seconds(&self) -> f64 {
        (self.end.as_millisecond() - self.start.as_millisecond()) as f64 / 1000.0
    }

    /// A line bills its period, less (usage within it), or its period
    /// rounded up to a whole unit of billing — minute, hour, day or a
    /// month of 28 to 31 days (ten minutes billed as an hour). Anything
    /// beyond is not time spent in that period: 10¹⁸ s inside one hour
    /// would dilute every share of the bill that is in question.
    fn check_billed_within_period(&self) -> Checked<()> {
        const UNITS_S: [f64; 7] = [
            60.0,
            3_600.0,
            86_400.0,
            28.0 * 86_400.0,
            29.0 * 86_400.0,
            30.0 * 86_400.0,
            31.0 * 86_400.0,
        ];
        // Exports round times and usages to the second.
        const SLACK_S: f64 = 1.0;
        let period = self.period_seconds();
        let billed = self.billed_seconds;
        if billed <= period + SLACK_S {
            return Ok(());
        }
        let rounded =
            |unit: f64| ((period / unit).ceil().max(1.0) * unit - billed).abs() <= SLACK_S;
        if UNITS_S.iter().any(|u| rounded(*u)) {
            return Ok(());
        }
        Err(ValidationError::new(
            "billed_seconds",
            format!(
                "{billed} s billed for a period of {period} s ({} to {}): a line bills its period, or its period rounded up to a whole minute, hour, day or month",
                self.start, self.end
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn startup_stages_must_move_forward() {
        let attempt = StartupAttempt {
            scenario: LoadScenario::Peak,
            image: ImageState::Cold,
            submitted_at: at("2024-06-01T10:00:00Z"),
            provisioned_at: Some(at("2024-06-01T10:00:30Z")),
            image_ready_at: Some(at("2024-06-01T10:00:10Z")),
            first_compute_at: Some(at("2024-06-01T10:01:00Z")),
            outcome: StartupOutcome::Ok,
        };
        let e = attempt.clone().validate().unwrap_err();
        assert_eq!(e.field, "image_ready_at");
        let fixed = StartupAttempt {
            image_ready_at: None,
            ..attempt
        }
        .validate()
        .unwrap();
        assert_eq!(fixed.latency_s(), Some(60.0));
    }

    #[test]
    fn a_successful_start_needs_first_compute() {
        let attempt = StartupAttempt {
            scenario: LoadScenario::Baseline,
            image: ImageState::Warm,
            submitted_at: at("2024-06-01T10:00:00Z"),
            provisioned_at: None,
            image_ready_at: None,
            first_compute_at: None,
            outcome: StartupOutcome::Ok,
        };
        assert_eq!(
            attempt.clone().validate().unwrap_err().field,
            "first_compute_at"
        );
        let failed = StartupAttempt {
            outcome: StartupOutcome::Timeout,
            ..attempt
        };
        assert!(failed.validate().is_ok());
    }

    #[test]
    fn switch_ops_passed_cannot_exceed_tested() {
        let attempt = SwitchAttempt {
            from_env: "PyTorch 2.1 + cu118".into(),
            to_env: "MindSpore 2.3 + CANN 7.0".into(),
            success: true,
            manual_steps: 37,
            duration_s: 5400.0,
            rel_l2_error: Some(5e-5),
            ops_passed: Some(128),
            ops_total: Some(127),
        };
        assert_eq!(attempt.validate().unwrap_err().field, "ops_passed");
    }

    #[test]
    fn billing_lines_refuse_negative_amounts_and_reversed_spans() {
        let line = BillingLine {
            instance: "i-1".into(),
            start: at("2024-06-01T10:00:00Z"),
            end: at("2024-06-01T12:17:00Z"),
            billed_seconds: 10800.0,
            compute_seconds: Some(6138.0),
            queue_seconds: None,
            io_wait_seconds: None,
            amount: Decimal::new(3840, 2),
            currency: "cny".into(),
            unit_price: Decimal::new(128, 1),
            line_id: None,
            host: None,
            product: None,
        };
        assert_eq!(line.clone().validate().unwrap().currency, "CNY");
        let e = BillingLine {
            amount: Decimal::NEGATIVE_ONE,
            ..line.clone()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "amount");
        let e = BillingLine {
            end: at("2024-06-01T09:00:00Z"),
            ..line
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "end");
    }

    /// One hour of instance i-1 billed as one hour.
    fn hour_line() -> BillingLine {
        BillingLine {
            instance: "i-1".into(),
            start: at("2026-11-01T10:00:00Z"),
            end: at("2026-11-01T11:00:00Z"),
            billed_seconds: 3600.0,
            compute_seconds: None,
            queue_seconds: None,
            io_wait_seconds: None,
            amount: Decimal::ONE,
            currency: "CNY".into(),
            unit_price: Decimal::ONE,
            line_id: None,
            host: None,
            product: None,
        }
    }

    #[test]
    fn a_line_bills_its_period_or_the_period_rounded_to_a_whole_unit() {
        let line = |start: &str, end: &str, billed: f64| {
            BillingLine {
                start: at(start),
                end: at(end),
                billed_seconds: billed,
                ..hour_line()
            }
            .validate()
        };
        let hour = ("2026-11-01T10:00:00Z", "2026-11-01T11:00:00Z");
        assert!(line(hour.0, hour.1, 3600.0).is_ok());
        assert!(line(hour.0, hour.1, 1200.0).is_ok(), "usage within it");
        assert!(line(hour.0, hour.1, 86_400.0).is_ok(), "a day's minimum");
        // Ten minutes billed as an hour; 2 h 17 m billed as three hours.
        assert!(line("2026-11-01T10:00:00Z", "2026-11-01T10:10:00Z", 3600.0).is_ok());
        assert!(line("2026-11-01T10:00:00Z", "2026-11-01T12:17:00Z", 10_800.0).is_ok());
        // A month's subscription over the days it ran.
        assert!(
            line(
                "2026-11-01T00:00:00Z",
                "2026-11-20T00:00:00Z",
                30.0 * 86_400.0
            )
            .is_ok()
        );
        for billed in [1e18, 7200.0, 3600.0 * 5.5] {
            let e = line(hour.0, hour.1, billed).unwrap_err();
            assert_eq!(e.field, "billed_seconds", "{billed}");
            assert!(e.reason.contains("a period of 3600 s"), "{}", e.reason);
        }
    }

    #[test]
    fn cells_that_would_split_a_row_are_refused() {
        let line = BillingLine {
            line_id: Some(" L-1 ".into()),
            host: Some("node\r=HYPERLINK(\"x\")".into()),
            ..hour_line()
        };
        let e = line.clone().validate().unwrap_err();
        assert_eq!(e.field, "host");
        assert!(e.reason.contains("U+000D"), "{}", e.reason);
        let fine = BillingLine {
            host: Some("node-1".into()),
            ..line
        }
        .validate()
        .unwrap();
        assert_eq!(fine.line_id.as_deref(), Some("L-1"));
    }
}
