//! Every log format Breakpoint reads, and nothing else: detection from
//! content, the text beneath the formats (lines, values, timestamps,
//! gzip and UTF-16), and one parser per format, each feeding a
//! [`RunBuilder`]. The builder hands samples to a [`SampleSink`] as they
//! are read — the core's store writes them into chunks, a test or a fuzz
//! target keeps them in memory — so no parser knows where they go, and this
//! crate knows nothing of SQLite.
//!
//! The log schemas the probe and the acceptance checks write (probe log,
//! network log, drift log) live beside their parsers, so that the writer
//! and the reader of a file share one definition.

mod blocks;
mod builder;
pub mod decode;
mod detect;
mod lines;
pub mod parsers;
pub mod rates;
mod smi_messages;
pub mod snapshot;
pub mod timestamps;
pub mod timings;
pub mod transcript;
mod values;

use breakpoint_model::labelled_enum;
use jiff::Timestamp;

// The model's modules under the names the parsers have always used.
use breakpoint_model::{accelerator, domain, error, samples, stats, text};

pub use builder::{
    BillLineTaken, BuiltRun, GpuKey, LineError, Loss, ParseFailure, ParseResult, RunBuilder,
    SampleSink, SinkError, normalise_bus_id,
};
pub use detect::detect;

use domain::RunKind;

labelled_enum! {
    /// Every format Breakpoint reads. Detected from content, never from the
    /// file name; `--format` forces one.
    pub enum Format ("format") {
        ProbeLog => "probe-log",
        NetworkLog => "network-log",
        StorageLog => "storage-log",
        DriftLog => "drift-log",
        PerfLog => "perf-log",
        ScriptLog => "script-log",
        SmiCsv => "nvidia-smi-csv",
        SmiDmon => "nvidia-smi-dmon",
        SmiQuery => "nvidia-smi-q",
        SmiTable => "nvidia-smi-table",
        SmiXml => "nvidia-smi-xml",
        Gpustat => "gpustat",
        DcgmDiag => "dcgmi-diag",
        DcgmiDmon => "dcgmi-dmon",
        KernelLog => "kernel-log",
        Lspci => "lspci",
        NpuSmi => "npu-smi",
        Cnmon => "cnmon",
        AmdSmi => "amd-smi",
        RocmSmi => "rocm-smi",
        PromText => "prometheus-text",
        PromRange => "prometheus-range",
        StartupTable => "startup-attempts",
        SwitchTable => "switch-attempts",
        DrillTable => "fault-drills",
        BillingTable => "billing-lines",
        BillingEvents => "billing-events",
        BillExport => "bill-export",
        SkypilotCatalog => "skypilot-catalog",
        GpuhuntCatalog => "gpuhunt-catalog",
        AwsPriceList => "aws-price-list",
        AliyunPrice => "aliyun-price",
        TencentPrice => "tencent-price",
        HuaweiPrice => "huawei-price",
        SpotTrace => "spot-trace",
        SpotAdvisor => "aws-spot-advisor",
        SkyTimeline => "skypilot-timeline",
        SkyJobs => "sky-jobs-queue",
        SkyLaunchLog => "sky-launch-log",
        DstackEvents => "dstack-events",
        NcclTests => "nccl-tests",
        Perftest => "perftest",
        Nvbandwidth => "nvbandwidth",
        GpuBurn => "gpu-burn",
        GpuFryer => "gpu-fryer",
        CmaxAudit => "cmax-audit",
    }
}

impl Format {
    /// A provider's price list: evidence of what an offering costs, not a
    /// measurement of the platform (listed apart from measured runs).
    pub fn is_price_catalog(self) -> bool {
        matches!(
            self,
            Format::SkypilotCatalog
                | Format::GpuhuntCatalog
                | Format::AwsPriceList
                | Format::AliyunPrice
                | Format::TencentPrice
                | Format::HuaweiPrice
        )
    }

    /// Evidence about what an offering is (its price, how its spot
    /// instances live) rather than a measurement of the platform: kept and
    /// used where costs are figured, counted apart from measured runs.
    pub fn is_offering_evidence(self) -> bool {
        self.is_price_catalog() || matches!(self, Format::SpotTrace | Format::SpotAdvisor)
    }

    /// The breakpoint a file of this format informs, unless told otherwise.
    pub fn default_kind(self) -> RunKind {
        match self {
            Format::SmiQuery
            | Format::SmiXml
            | Format::DcgmDiag
            | Format::Lspci
            | Format::CmaxAudit => RunKind::Delivery,
            Format::StartupTable
            | Format::SkyTimeline
            | Format::SkyJobs
            | Format::SkyLaunchLog
            | Format::DstackEvents => RunKind::Startup,
            Format::SwitchTable | Format::DriftLog => RunKind::Switch,
            Format::DrillTable => RunKind::Drill,
            Format::BillingTable
            | Format::BillingEvents
            | Format::BillExport
            | Format::SkypilotCatalog
            | Format::GpuhuntCatalog
            | Format::AwsPriceList
            | Format::AliyunPrice
            | Format::TencentPrice
            | Format::HuaweiPrice
            | Format::SpotTrace
            | Format::SpotAdvisor => RunKind::Billing,
            _ => RunKind::Sustain,
        }
    }
}

/// What parsers may consult besides the text.
pub struct ParseContext {
    pub file_name: String,
    pub times: timestamps::TimeReader,
    pub interval_ms: Option<u32>,
    pub fields: Option<Vec<String>>,
    pub start: Option<Timestamp>,
    /// When the file was last written, where the bytes come from a file: a
    /// single snapshot without a time of its own was taken then.
    pub file_time: Option<Timestamp>,
    /// Where the reading's processor time goes, filled in where it is
    /// `Some` (`import --timings`); `None` costs nothing.
    pub timings: Option<timings::ReadTimings>,
}

impl ParseContext {
    /// A file's context with nothing stated about it yet: times without a
    /// zone read in `zone`, no interval, fields, start or file time.
    pub fn new(file_name: impl Into<String>, zone: jiff::tz::TimeZone) -> Self {
        Self {
            file_name: file_name.into(),
            times: timestamps::TimeReader::new(zone),
            interval_ms: None,
            fields: None,
            start: None,
            file_time: None,
            timings: None,
        }
    }
}

/// Parse `input` as `format` into `builder`.
pub use parsers::parse;
