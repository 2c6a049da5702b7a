//! Every metric Breakpoint scores: its stable key, breakpoint, unit,
//! direction, definition and default scoring anchors. This table is the one
//! source for the scoring engine, `breakpoint explain`, the PDF's method
//! appendix and docs/metrics.md (a test keeps that file in step).

use serde::Serialize;

use crate::domain::{Breakpoint, Category};

pub use crate::domain::Anchors;

#[derive(Debug, Clone, Serialize)]
pub struct MetricDef {
    pub key: &'static str,
    pub breakpoint: Breakpoint,
    /// The ClusterMAX category the metric evidences (startup: lifecycle and
    /// availability; sustain: reliability, monitoring, networking and
    /// storage; switch: orchestration and storage; billing: pricing).
    pub category: Category,
    pub name: &'static str,
    /// The name in Simplified Chinese, for the Chinese report and the app
    /// (abbreviations such as p50, GEMM and NVLink kept as they are).
    pub name_zh: &'static str,
    pub unit: &'static str,
    /// Whether a larger value is better (success rates) or worse (latency).
    pub higher_is_better: bool,
    pub definition: &'static str,
    pub inputs: &'static str,
    pub anchors: Anchors,
    /// Why the anchors sit where they do.
    pub why: &'static str,
    /// Weight inside its breakpoint unless a profile says otherwise.
    pub default_weight: f64,
    /// How the figures of many runs, GPUs and nodes become the platform's.
    pub aggregation: Aggregation,
    /// The unit of exposure and how units combine, in words.
    pub combines: &'static str,
}

/// How one metric's figures from many runs, GPUs and nodes combine into the
/// platform's (docs/metrics.md says it per metric).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregation {
    /// A typical value: the median over runs, minimum and maximum kept.
    Median,
    /// A rate: every run's counts and exposure added up, then divided, so
    /// that a long run weighs by its length and no run's rate hides in a
    /// median.
    Pooled,
    /// A fault met per unit (a node, or a run): each unit judged on its own
    /// and scored as the expected score over the units a buyer may be given
    /// (by their share of the exposure); the value is the share-weighted
    /// mean, and the worst units are named.
    PerUnit,
    /// Judged and scored per unit as `PerUnit`, for a metric that is itself
    /// a maximum (the hottest a GPU ran): the figure shown is the worst
    /// unit's, since a mean of maxima is no temperature any GPU reached.
    PerUnitPeak,
}

const fn fixed(best: f64, worst: f64, log: bool) -> Anchors {
    Anchors::Fixed { best, worst, log }
}

use Breakpoint::{Billing, Startup, Sustain, Switch};
use Category::{
    Availability, Lifecycle, Monitoring, Networking, Orchestration, Pricing, Reliability, Storage,
};

/// Every metric's key as a constant: a key misspelt anywhere is a build
/// error, never a metric that silently scores nothing. The catalogue below
/// is the only place a key is written as text (a test holds it).
pub mod keys {
    pub const STARTUP_BASELINE_P50_S: &str = "startup.baseline_p50_s";
    pub const STARTUP_BASELINE_P95_S: &str = "startup.baseline_p95_s";
    pub const STARTUP_PEAK_P50_S: &str = "startup.peak_p50_s";
    pub const STARTUP_PEAK_P95_S: &str = "startup.peak_p95_s";
    pub const STARTUP_MIXED_P50_S: &str = "startup.mixed_p50_s";
    pub const STARTUP_COLD_IMAGE_PENALTY_S: &str = "startup.cold_image_penalty_s";
    pub const STARTUP_FAILURE_RATE_PCT: &str = "startup.failure_rate_pct";
    pub const STARTUP_DELIVERY_MISMATCHES: &str = "startup.delivery_mismatches";
    pub const SUSTAIN_POWER_DROP_PCT: &str = "sustain.power_drop_pct";
    pub const SUSTAIN_PHANTOM_UTIL_PCT: &str = "sustain.phantom_util_pct";
    pub const SUSTAIN_THROTTLE_PCT: &str = "sustain.throttle_pct";
    pub const SUSTAIN_HOT_TIME_PCT: &str = "sustain.hot_time_pct";
    pub const SUSTAIN_MAX_TEMP_C: &str = "sustain.max_temp_c";
    pub const SUSTAIN_INTERRUPTIONS_PER_100H: &str = "sustain.interruptions_per_100h";
    pub const SUSTAIN_FAULTY_GPUS_PCT: &str = "sustain.faulty_gpus_pct";
    pub const SUSTAIN_AVAILABILITY_PCT: &str = "sustain.availability_pct";
    pub const SUSTAIN_STRESS_UTIL_FLOOR_PCT: &str = "sustain.stress_util_floor_pct";
    pub const SUSTAIN_STRESS_UTIL_SWING_PCT: &str = "sustain.stress_util_swing_pct";
    pub const SUSTAIN_NET_CONNECT_P95_MS: &str = "sustain.net_connect_p95_ms";
    pub const SUSTAIN_NET_JITTER_MS: &str = "sustain.net_jitter_ms";
    pub const SUSTAIN_NET_LOSS_PCT: &str = "sustain.net_loss_pct";
    pub const SUSTAIN_CHECKPOINT_WRITE_S: &str = "sustain.checkpoint_write_s";
    pub const SUSTAIN_DATA_READ_VS_LOCAL_PCT: &str = "sustain.data_read_vs_local_pct";
    pub const SUSTAIN_STORAGE_DRILL: &str = "sustain.storage_drill";
    pub const SUSTAIN_RECOVERY_S: &str = "sustain.recovery_s";
    pub const SUSTAIN_RESUME_SUCCESS_PCT: &str = "sustain.resume_success_pct";
    pub const SUSTAIN_MEMORY_PLATEAU_H: &str = "sustain.memory_plateau_h";
    pub const SUSTAIN_GEMM_NOMINAL_PCT: &str = "sustain.gemm_nominal_pct";
    pub const SUSTAIN_MEMBW_NOMINAL_PCT: &str = "sustain.membw_nominal_pct";
    pub const SUSTAIN_HOST_LINK_PCT: &str = "sustain.host_link_pct";
    pub const SUSTAIN_STRAGGLER_PCT: &str = "sustain.straggler_pct";
    pub const SUSTAIN_FABRIC_NOMINAL_PCT: &str = "sustain.fabric_nominal_pct";
    pub const SUSTAIN_STRAGGLER_NODES_PCT: &str = "sustain.straggler_nodes_pct";
    pub const SUSTAIN_RECURRING_BAD_PCT: &str = "sustain.recurring_bad_pct";
    pub const SUSTAIN_THROUGHPUT_DECAY_PCT: &str = "sustain.throughput_decay_pct";
    pub const SWITCH_SUCCESS_PCT: &str = "switch.success_pct";
    pub const SWITCH_MANUAL_STEPS: &str = "switch.manual_steps";
    pub const SWITCH_UPLOAD_MB_S: &str = "switch.upload_mb_s";
    pub const SWITCH_DURATION_S: &str = "switch.duration_s";
    pub const SWITCH_DRIFT_REL_L2: &str = "switch.drift_rel_l2";
    pub const SWITCH_OP_COVERAGE_PCT: &str = "switch.op_coverage_pct";
    pub const BILLING_GRANULARITY_S: &str = "billing.granularity_s";
    pub const BILLING_OVERCHARGE_PCT: &str = "billing.overcharge_pct";
    pub const BILLING_BILL_ERROR_PCT: &str = "billing.bill_error_pct";
    pub const BILLING_BILLED_IDLE_PCT: &str = "billing.billed_idle_pct";
    pub const BILLING_DISPUTED_PCT: &str = "billing.disputed_pct";
    pub const BILLING_COST_PER_USEFUL_GPU_HOUR: &str = "billing.cost_per_useful_gpu_hour";
    pub const BILLING_REFERENCE_COST: &str = "billing.reference_cost";
}

pub const METRICS: &[MetricDef] = &[
    // ---- startup ----
    MetricDef {
        key: keys::STARTUP_BASELINE_P50_S,
        category: Lifecycle,
        breakpoint: Startup,
        name: "Start latency p50, baseline load",
        name_zh: "启动延迟 p50（基线负载）",
        unit: "s",
        higher_is_better: false,
        definition: "Median time from submitting an instance request to first computation on it, over successful warm-image attempts at baseline load.",
        inputs: "startup attempts (scenario baseline): submitted_at, first_compute_at",
        anchors: fixed(5.0, 1800.0, true),
        why: "5 s is what pre-warmed pools deliver (the four-breakpoint review: platform C's hot pool answers in under 5 s); 30 min is a lost working session. Log scale, because going from 5 s to 50 s hurts as much as from 3 to 30 min.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_BASELINE_P95_S,
        category: Lifecycle,
        breakpoint: Startup,
        name: "Start latency p95, baseline load",
        name_zh: "启动延迟 p95（基线负载）",
        unit: "s",
        higher_is_better: false,
        definition: "95th percentile of submit → first compute over successful warm-image attempts at baseline load.",
        inputs: "startup attempts (scenario baseline)",
        anchors: fixed(5.0, 1800.0, true),
        why: "The tail is what an on-call engineer waits for; same anchors as the median.",
        default_weight: 0.5,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_PEAK_P50_S,
        category: Availability,
        breakpoint: Startup,
        name: "Start latency p50, peak load",
        name_zh: "启动延迟 p50（高峰负载）",
        unit: "s",
        higher_is_better: false,
        definition: "Median submit → first compute of successful warm-image attempts at peak load (many concurrent requests in one zone).",
        inputs: "startup attempts (scenario peak)",
        anchors: fixed(5.0, 1800.0, true),
        why: "The four-breakpoint review: platform A starts in 1.8 s at baseline but 22 min at peak — the figure a launch day depends on.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_PEAK_P95_S,
        category: Availability,
        breakpoint: Startup,
        name: "Start latency p95, peak load",
        name_zh: "启动延迟 p95（高峰负载）",
        unit: "s",
        higher_is_better: false,
        definition: "95th percentile of submit → first compute of successful warm-image attempts at peak load.",
        inputs: "startup attempts (scenario peak)",
        anchors: fixed(5.0, 1800.0, true),
        why: "Queues at peak have long tails (the four-breakpoint review: 142 tasks deep).",
        default_weight: 0.5,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_MIXED_P50_S,
        category: Availability,
        breakpoint: Startup,
        name: "Start latency p50, mixed load",
        name_zh: "启动延迟 p50（混合负载）",
        unit: "s",
        higher_is_better: false,
        definition: "Median submit → first compute of successful warm-image attempts when training, inference and domestic-accelerator requests arrive together.",
        inputs: "startup attempts (scenario mixed)",
        anchors: fixed(5.0, 1800.0, true),
        why: "Mixed-architecture scheduling is a requirement in the four-breakpoint review's shortlist.",
        default_weight: 0.5,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_COLD_IMAGE_PENALTY_S,
        category: Lifecycle,
        breakpoint: Startup,
        name: "Cold-image penalty",
        name_zh: "冷镜像启动额外耗时",
        unit: "s",
        higher_is_better: false,
        definition: "Median latency of successful starts on a cold (first-use custom) image minus the median on a warm image, in the same run.",
        inputs: "startup attempts with image cold and warm",
        anchors: fixed(2.0, 300.0, false),
        why: "The four-breakpoint review: platform B adds 4 min on a first custom image, platform D pre-warms to 1.2 s; an inference service cannot make users wait minutes to scale.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::STARTUP_FAILURE_RATE_PCT,
        category: Availability,
        breakpoint: Startup,
        name: "Start failure rate",
        name_zh: "启动失败率",
        unit: "%",
        higher_is_better: false,
        definition: "Share of start attempts that failed or timed out.",
        inputs: "startup attempts: outcome",
        anchors: fixed(0.0, 20.0, false),
        why: "One start in five failing makes automation unusable.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: failed attempts ÷ all attempts, over every run",
    },
    MetricDef {
        key: keys::STARTUP_DELIVERY_MISMATCHES,
        category: Lifecycle,
        breakpoint: Startup,
        name: "Delivery mismatches",
        name_zh: "交付不符项",
        unit: "mismatches",
        higher_is_better: false,
        definition: "Kinds of difference between the offering and the inventory a delivery check saw (model, VRAM, count where the evidence lists every GPU, PCIe generation, PCIe width x8 for x16, driver or CUDA below the promise, NVLink missing), plus each `dcgmi diag` test of the machine's software and settings that failed and a PCIe link running narrower than the GPU's own width. A hardware test that failed is a faulty GPU, counted in its own metric.",
        inputs: "runs with a GPU inventory and an offering snapshot; dcgmi diag software and settings results; lspci link status",
        anchors: fixed(0.0, 2.0, false),
        why: "The long-term partner assessment's first test of a long-term partner; the four-breakpoint review's x8-for-x16 PCIe trap cost a customer two weeks. Two kinds of mismatch already mean the order was not honoured.",
        default_weight: 1.5,
        aggregation: Aggregation::PerUnit,
        combines: "per delivery: each run that checked an instance is one unit, the deliveries weigh equally",
    },
    // ---- sustain ----
    MetricDef {
        key: keys::SUSTAIN_POWER_DROP_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Sustained power drop",
        name_zh: "持续负载功耗下降",
        unit: "%",
        higher_is_better: false,
        definition: "Per GPU history: median power of busy samples (utilisation ≥ 90 %) in its last stretch vs its first settled stretch after warm-up (each stretch: 1 h or a fifth of the busy time, whichever is shorter): where the GPU ended against where it settled.",
        inputs: "samples: power, GPU utilisation",
        anchors: fixed(2.0, 15.0, false),
        why: "The four-breakpoint review: an A100 sliding from 250 W to 228 W (−9 %) while showing 92 % busy lost 17 % of its throughput; 2 % is measurement noise.",
        default_weight: 1.5,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace), nodes weigh by their GPU-hours",
    },
    MetricDef {
        key: keys::SUSTAIN_PHANTOM_UTIL_PCT,
        category: Monitoring,
        breakpoint: Sustain,
        name: "Phantom utilisation",
        name_zh: "虚假利用率",
        unit: "%",
        higher_is_better: false,
        definition: "Share of busy samples (utilisation ≥ 90 %) whose power or SM clock sits more than 10 % below both the GPU's settled busy level and the level it ended at: busy time spent in a slump it came back from. A slump that lasts to the end is the power drop's, and counted there only.",
        inputs: "samples: power and/or SM clock, GPU utilisation",
        anchors: fixed(0.0, 20.0, false),
        why: "The console says busy, the silicon is not (the four-breakpoint review: platform E after hour 30).",
        default_weight: 1.5,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace), nodes weigh by their GPU-hours",
    },
    MetricDef {
        key: keys::SUSTAIN_THROTTLE_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Throttle time",
        name_zh: "降频时间占比",
        unit: "%",
        higher_is_better: false,
        definition: "Share of working samples (utilisation > 10 %) with a hardware slowdown (0x8), software or hardware thermal slowdown (0x20, 0x40) or power brake (0x80) active. Idle (0x1), application clocks (0x2), the software power cap (0x4, which fires preventively on healthy cards) and sync boost (0x10) are shown but not counted.",
        inputs: "samples: throttle/clock-event reason mask, GPU utilisation",
        anchors: fixed(0.0, 10.0, false),
        why: "A tenth of the time slowed down by heat or power delivery is a cooling or power fault, not a workload property.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace), nodes weigh by their GPU-hours",
    },
    MetricDef {
        key: keys::SUSTAIN_HOT_TIME_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Time above 83 °C",
        name_zh: "温度超过 83 °C 的时间占比",
        unit: "%",
        higher_is_better: false,
        definition: "Share of samples with GPU temperature above 83 °C.",
        inputs: "samples: GPU temperature",
        anchors: fixed(0.0, 10.0, false),
        why: "83 °C is where A100-class cards begin to throttle (the four-breakpoint review).",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace), nodes weigh by their GPU-hours",
    },
    MetricDef {
        key: keys::SUSTAIN_MAX_TEMP_C,
        category: Reliability,
        breakpoint: Sustain,
        name: "Maximum GPU temperature",
        name_zh: "GPU 最高温度",
        unit: "°C",
        higher_is_better: false,
        definition: "Highest GPU temperature seen.",
        inputs: "samples: GPU temperature",
        anchors: fixed(80.0, 87.0, false),
        why: "The four-breakpoint review: edge GPUs of platform F's full cluster reached 87 °C while alerts were set at 90 °C. Below 80 °C leaves margin to the 83 °C throttle point.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnitPeak,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its hottest GPU, nodes weigh by their GPU-hours in the score; the figure shown is the hottest node's",
    },
    MetricDef {
        key: keys::SUSTAIN_INTERRUPTIONS_PER_100H,
        category: Reliability,
        breakpoint: Sustain,
        name: "Interruptions per 100 GPU-hours",
        name_zh: "每 100 GPU 小时中断次数",
        unit: "/100 GPU-h",
        higher_is_better: false,
        definition: "Lost GPUs, XID errors, lost instances and sample gaps, per 100 GPU-hours observed. A gap is a silence longer than three intervals, half a minute and half as long again as the logger's own recurring pause (five or more pauses of about one length, up to five minutes: a `nvidia-smi -l` loop that stalls a few seconds every few dozen rows has no gaps).",
        inputs: "events (gap, gpu-lost, xid, instance-lost); samples for the GPU-hours",
        anchors: fixed(0.0, 5.0, false),
        why: "Five interruptions per 100 GPU-hours is one a day on an 8-GPU node: a multi-day training run cannot finish without restarts.",
        default_weight: 1.5,
        aggregation: Aggregation::Pooled,
        combines: "pooled: counted interruptions ÷ GPU-hours expected, over every GPU of every run. A fault in a log without samples (a kernel log, a journal) counts against the sampled run of the same node that covers its time — matched by host name, a host-less log only where one node's samples cover it — once: not where that run recorded it itself (the same kind and code within two minutes), and the Xids one GPU reports within a minute are one incident. A kernel log's own GPU-hours (its span × the GPUs it saw the driver take) count only from an hour up, so that an excerpt of seconds never gives a rate",
    },
    MetricDef {
        key: keys::SUSTAIN_FAULTY_GPUS_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "GPUs found faulty",
        name_zh: "故障 GPU 占比",
        unit: "%",
        higher_is_better: false,
        definition: "Share of the platform's GPUs found faulty by evidence that has no GPU-hours of its own: a hardware test of `dcgmi diag` that failed (its software and settings tests count as delivery), retired pages or row remaps waiting for a reset and failed remaps (`nvidia-smi -q`, XML, CSV), and platform faults (an Xid blamed on the platform, a GPU lost or needing a reset) in a kernel excerpt too short for a rate or without times, where no sampled run of its node covers them. A fault an interruption rate holds is not counted again.",
        inputs: "dcgmi diag results; health-fault events; kernel-log faults outside every rate; every run's GPUs",
        anchors: fixed(0.0, 25.0, false),
        why: "A synchronous job needs every GPU it is given: one faulty card in eight (12.5 %) stops an 8-GPU node's job at every restart until the card is replaced, and scores 50; a quarter of the GPUs faulty is a fleet that was not maintained. An excerpt of seconds cannot give a rate, but it does name the card that failed.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: GPUs found faulty ÷ GPUs observed (those sampled, and those a finding names), each GPU once across every run of the platform (by UUID, else host and PCI address; a GPU a host-less log names is its own)",
    },
    MetricDef {
        key: keys::SUSTAIN_AVAILABILITY_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Measured availability",
        name_zh: "实测可用率",
        unit: "%",
        higher_is_better: true,
        definition: "Observed GPU time minus the time lost in gaps, as a share of the observation window. Claims (SLAs, reviews) are shown beside it, never mixed in.",
        inputs: "samples (period per GPU), gap events",
        anchors: fixed(99.9, 98.0, false),
        why: "Reviews claim 99.94–99.98 % (the 7-day stability review); 98 % is seven lost days a year.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: GPU-time delivered ÷ GPU-time expected, over every GPU of every run (a lost GPU is expected until its run ends)",
    },
    MetricDef {
        key: keys::SUSTAIN_STRESS_UTIL_FLOOR_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Stress: time at ≥ 95 % utilisation",
        name_zh: "压测：利用率 ≥ 95 % 的时间占比",
        unit: "%",
        higher_is_better: true,
        definition: "Under a full load run by `breakpoint accept stress`, the share of the loaded seconds (first to last second at ≥ 50 %) with SM utilisation at 95 % or above; the worst GPU counts.",
        inputs: "stress checks (probe logs of `breakpoint accept stress`)",
        anchors: fixed(100.0, 80.0, false),
        why: "The four-breakpoint review's acceptance test: under stress-ng or gpu-burn, SM utilisation must stay above 95 %. A fifth of the time below it is a failed delivery.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_STRESS_UTIL_SWING_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Stress: utilisation swing",
        name_zh: "压测：利用率波动幅度",
        unit: "%",
        higher_is_better: false,
        definition: "p95 − p5 of SM utilisation over the loaded seconds of a stress check; the worst GPU counts.",
        inputs: "stress checks (probe logs of `breakpoint accept stress`)",
        anchors: fixed(0.0, 20.0, false),
        why: "The four-breakpoint review again: a swing of more than 10 % under full load means the scheduler or the driver is at fault; 10 % scores 50, 20 % scores 0.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_NET_CONNECT_P95_MS,
        category: Networking,
        breakpoint: Sustain,
        name: "Network connect time p95",
        name_zh: "网络连接耗时 p95",
        unit: "ms",
        higher_is_better: false,
        definition: "95th percentile of the TCP connect time to the endpoints a workload depends on (storage, image registry, …), measured every few seconds on the instance; the worst endpoint counts.",
        inputs: "network logs (`breakpoint accept network`)",
        anchors: fixed(5.0, 200.0, true),
        why: "The 7-day stability review ranks network latency jitter but gives no figures. Chosen here: a few milliseconds is the same region; 200 ms is another continent, or a congested path.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_NET_JITTER_MS,
        category: Networking,
        breakpoint: Sustain,
        name: "Network jitter",
        name_zh: "网络抖动",
        unit: "ms",
        higher_is_better: false,
        definition: "p95 − p50 of the connect times to an endpoint: how far the slow tail sits from the usual; the worst endpoint counts.",
        inputs: "network logs (`breakpoint accept network`)",
        anchors: fixed(1.0, 100.0, true),
        why: "The stability review names latency jitter as the weakness of long multi-card training on one platform. Chosen here: a tail within a millisecond of the median is steady; 100 ms above it stalls collective communication.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_NET_LOSS_PCT,
        category: Networking,
        breakpoint: Sustain,
        name: "Network connection loss",
        name_zh: "网络连接失败率",
        unit: "%",
        higher_is_better: false,
        definition: "Share of connection attempts that failed (refused, unreachable, timed out); the worst endpoint counts.",
        inputs: "network logs (`breakpoint accept network`)",
        anchors: fixed(0.0, 5.0, false),
        why: "A dropped connection to storage or the registry fails a checkpoint or an image pull. Chosen here: one attempt in twenty failing is unusable.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_CHECKPOINT_WRITE_S,
        category: Storage,
        breakpoint: Sustain,
        name: "Checkpoint write time (20 GB)",
        name_zh: "检查点写入耗时（20 GB）",
        unit: "s",
        higher_is_better: false,
        definition: "Seconds to write a 20 GB checkpoint and make it durable (fsync) where the job keeps its data, at the pace measured writing a checkpoint-sized file there (direct I/O where the file system takes it); the slowest data location counts, the local SSD where no other was measured.",
        inputs: "storage logs (`breakpoint accept storage --path`)",
        anchors: fixed(20.0, 600.0, true),
        why: "The total-cost guide counts saving checkpoints among a platform's hidden costs, and its stability advice is to record checkpoint recovery over long runs. Chosen here: 20 s is a local NVMe's gigabyte a second; ten minutes (33 MB/s) every half hour spends a third of the job writing.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_DATA_READ_VS_LOCAL_PCT,
        category: Storage,
        breakpoint: Sustain,
        name: "Data-path read throughput against local SSD",
        name_zh: "数据路径读取吞吐占本地 SSD 比例",
        unit: "%",
        higher_is_better: true,
        definition: "Sequential read throughput of the slowest data location (data disk, shared or network file system) as a share of the instance's local SSD, measured in the same session.",
        inputs: "storage logs (`breakpoint accept storage --path … --local …`)",
        anchors: fixed(100.0, 5.0, true),
        why: "A data loader reading from a path a tenth as fast as the local disk starves the GPUs unless the data is staged locally first. Chosen here: as fast as the local SSD is full marks; a twentieth of it is unusable for reading data during training.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_STORAGE_DRILL,
        category: Storage,
        breakpoint: Sustain,
        name: "Storage outage drill",
        name_zh: "存储中断演练",
        unit: "score",
        higher_is_better: true,
        definition: "What a job checkpointing to the network path did while the path was cut: carried on from the local cache (100), stalled until the path came back (40), or could not write its checkpoint and would have died (0).",
        inputs: "storage logs (`breakpoint accept storage --drill`)",
        anchors: fixed(100.0, 0.0, false),
        why: "The four-breakpoint review's checklist (§6.2), fifth must-do: turn on a local cache on every platform, so that when the cloud storage network fails the job degrades to the local SSD and keeps running. A stall loses time, a failure the job.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_RECOVERY_S,
        category: Reliability,
        breakpoint: Sustain,
        name: "Recovery time",
        name_zh: "故障恢复时间",
        unit: "s",
        higher_is_better: false,
        definition: "Median time to resume work after a fault drill or interruption, over recoveries that succeeded.",
        inputs: "fault drills: recovered, recovery_s",
        anchors: fixed(60.0, 600.0, false),
        why: "The four-breakpoint review: automatic failover takes 47 s on platforms C and D, a manual rsync over 8 min on A; the review's checklist asks for recovery within 2 min.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::SUSTAIN_RESUME_SUCCESS_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Checkpoint-resume success",
        name_zh: "断点续训成功率",
        unit: "%",
        higher_is_better: true,
        definition: "Share of fault drills after which work resumed.",
        inputs: "fault drills: recovered",
        anchors: fixed(100.0, 80.0, false),
        why: "The long-term partner assessment: a partner must let work resume or migrate after an interruption; one failure in five is no checkpoint mechanism at all.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: drills recovered ÷ drills, over every run",
    },
    MetricDef {
        key: keys::SUSTAIN_MEMORY_PLATEAU_H,
        category: Reliability,
        breakpoint: Sustain,
        name: "Longest memory plateau",
        name_zh: "显存占用最长平台期",
        unit: "h",
        higher_is_better: false,
        definition: "Longest stretch of busy samples whose memory use stays within 1 % of one level.",
        inputs: "samples: memory used, GPU utilisation",
        anchors: fixed(1.0, 24.0, false),
        why: "The four-breakpoint review reads a memory curve stuck at one level as a leak or driver fault, but steady training also holds memory flat, so it is shown and not weighted by default.",
        default_weight: 0.0,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a GPU's runs that touch in time are one history, a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace), nodes weigh by their GPU-hours",
    },
    MetricDef {
        key: keys::SUSTAIN_GEMM_NOMINAL_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Matrix throughput, share of nominal",
        name_zh: "矩阵乘（GEMM）吞吐占标称峰值比例",
        unit: "%",
        higher_is_better: true,
        definition: "Per GPU: the median dense matrix-product throughput of the perf suite (8192³, after warm-ups) in the card's training dtype (BF16, else FP16, TF32, FP32) as a share of the vendor's dense datasheet peak for that model (docs/acceptance.md lists the table, with the source and date of every figure). Cards the table does not know give no value.",
        inputs: "perf logs (accept perf): each GPU's matrix products; the reference table of nominal peaks",
        anchors: fixed(75.0, 40.0, false),
        why: "Large BF16 products reach 75–80 % of the dense datasheet peak on healthy H100/H200-class cards (an H200 measured here: 793 of 989.5 TFLOP/s, 80 %); the four-breakpoint review's console showed 98 % busy while the card delivered 63 % of its nominal rate. 40 % is a card that delivers less than half of what was bought.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a node counts as its worst GPU (a synchronous job runs at its slowest GPU's pace); each perf run is one node, the nodes weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_MEMBW_NOMINAL_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Memory bandwidth, share of nominal",
        name_zh: "显存带宽占标称值比例",
        unit: "%",
        higher_is_better: true,
        definition: "Per GPU: the median bandwidth of a 1 GiB device-to-device copy (bytes read plus bytes written) as a share of the datasheet's memory bandwidth for the model.",
        inputs: "perf logs (accept perf): each GPU's device copy; the reference table of nominal peaks",
        anchors: fixed(85.0, 60.0, false),
        why: "A plain copy reaches 85–90 % of the datasheet's HBM bandwidth on a healthy card (an H200 measured here: 4256 of 4800 GB/s, 89 %); memory-bound steps (attention, optimizers, inference decoding) slow in proportion below that.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a node counts as its worst GPU; each perf run is one node, the nodes weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_HOST_LINK_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Host↔device bandwidth, share of the link",
        name_zh: "主机↔设备带宽占链路上限比例",
        unit: "%",
        higher_is_better: true,
        definition: "Per GPU: the slower direction of a pinned 256 MiB host↔device copy as a share of what the card's own PCIe link carries one way at its best generation and width (Gen4 x16: 31.5 GB/s, Gen5 x16: 63 GB/s), so that a card seated in a narrower slot or behind a shared switch shows.",
        inputs: "perf logs (accept perf): each GPU's h2d and d2h copies with the link nvidia-smi reported",
        anchors: fixed(75.0, 40.0, false),
        why: "Pinned copies reach 80–90 % of a link's capacity (an H200 on Gen5 x16 measured here: 55.3 of 63 GB/s, 88 %); the four-breakpoint review's A100 nodes set to x8 capped at half, the GPU waiting for data while its SMs showed busy.",
        default_weight: 1.0,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a node counts as its worst GPU; each perf run is one node, the nodes weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_STRAGGLER_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Straggler GPUs",
        name_zh: "掉队 GPU 占比",
        unit: "%",
        higher_is_better: false,
        definition: "Share of GPUs more than 10 % below the best GPU of their node on any per-GPU test of the perf suite (a matrix product, the device copy, a host↔device copy). A lone GPU has no peer and is not counted.",
        inputs: "perf logs (accept perf): every GPU's figures, per node",
        anchors: fixed(0.0, 25.0, false),
        why: "A synchronous job runs at its slowest GPU's pace: one straggler in eight slows the node by its deficit. DCGM's own tracker records a GPU three times too slow that passed the longest diagnostic; a quarter of the GPUs slow is a fleet that was not maintained.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: stragglers ÷ GPUs compared, over every node measured",
    },
    MetricDef {
        key: keys::SUSTAIN_FABRIC_NOMINAL_PCT,
        category: Networking,
        breakpoint: Sustain,
        name: "Fabric bandwidth, share of nominal",
        name_zh: "互联带宽占标称值比例",
        unit: "%",
        higher_is_better: true,
        definition: "Per node: the bus bandwidth nccl-tests reports at its largest message for a collective inside the node, as a share of one GPU's NVLink bandwidth one way (the datasheet's NVLink figure halved), and an RDMA test's bandwidth (ib_write_bw, ib_read_bw) as a share of the port's rate where an ibstat beside it says the rate; the node counts as its worst such share.",
        inputs: "nccl-tests outputs (all_reduce_perf …) of one node; perftest outputs with the port's rate",
        anchors: fixed(80.0, 40.0, false),
        why: "Healthy 8-GPU NVSwitch nodes reach 80 % or more of a GPU's NVLink bandwidth in a large all-reduce's bus bandwidth, and RDMA writes reach more than 90 % of an InfiniBand port's rate; the ClusterMAX rating asks for NCCL and ib_write_bw results at handover because a fabric at half its rate halves every step a collective waits for. Chosen here: 40 % is a fabric that delivers less than half of what was bought. Weighted half by default: few buyers hold these outputs for every platform yet.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per node: each run of one node is one unit, the node counts as its worst collective or RDMA share, the nodes weigh equally",
    },
    MetricDef {
        key: keys::SUSTAIN_STRAGGLER_NODES_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Straggler nodes",
        name_zh: "掉队节点占比",
        unit: "%",
        higher_is_better: false,
        definition: "Share of nodes whose collective bus bandwidth (the same nccl-tests collective, rank count and largest size) or RDMA bandwidth lies more than 10 % below the median of the other nodes of the platform measured alike.",
        inputs: "nccl-tests and perftest outputs of two or more nodes of the platform",
        anchors: fixed(0.0, 25.0, false),
        why: "A job spread over nodes runs at its slowest node's pace, as a node runs at its slowest GPU's; the ClusterMAX rating counts nodes that fall behind in NCCL tests as a reliability failure. The same 10 % and 25 % as straggler GPUs. Weighted half by default: it needs two or more nodes measured alike.",
        default_weight: 0.5,
        aggregation: Aggregation::Pooled,
        combines: "pooled: straggling nodes ÷ nodes compared, over every comparable test",
    },
    MetricDef {
        key: keys::SUSTAIN_RECURRING_BAD_PCT,
        category: Monitoring,
        breakpoint: Sustain,
        name: "Bad nodes that come back bad",
        name_zh: "故障节点复发率",
        unit: "%",
        higher_is_better: false,
        definition: "Of the nodes (by host, else the GPU by UUID) found faulty or straggling in one run and seen again in a later run, the share found faulty or straggling again.",
        inputs: "every run that names its hosts or GPUs' UUIDs: health findings (dcgmi diag, gpu-burn, kernel faults), straggler GPUs and nodes",
        anchors: fixed(0.0, 50.0, false),
        why: "The ClusterMAX rating asks whether a provider repairs a node it takes back or returns it unchanged; a node handed back after repair that fails again half the time was not repaired. Chosen here: 0 % is every repair holding. Weighted half by default: it needs a node seen twice.",
        default_weight: 0.5,
        aggregation: Aggregation::Pooled,
        combines: "pooled: nodes bad again ÷ bad nodes seen again, over the platform's runs in time order",
    },
    MetricDef {
        key: keys::SUSTAIN_THROUGHPUT_DECAY_PCT,
        category: Reliability,
        breakpoint: Sustain,
        name: "Throughput decay",
        name_zh: "吞吐衰减",
        unit: "%",
        higher_is_better: false,
        definition: "Per GPU, over the perf suite's timeline (the matrix product kept running and timed at an interval): the median throughput of the last stretch against the first settled stretch (each a fifth of the points or an hour, whichever is shorter; the first point left out) — the measured counterpart of the sustained power drop. A rise counts as none.",
        inputs: "perf logs with a timeline (accept perf --duration)",
        anchors: fixed(2.0, 15.0, false),
        why: "The four-breakpoint review: an A100 sliding from 250 W to 228 W lost 17 % of its throughput after 36 h while the console still showed it busy; 2 % is the timing's noise.",
        default_weight: 1.5,
        aggregation: Aggregation::PerUnit,
        combines: "per GPU, then per node: a node counts as its worst GPU; each perf run is one node, the nodes weigh equally",
    },
    // ---- switch ----
    MetricDef {
        key: keys::SWITCH_SUCCESS_PCT,
        category: Orchestration,
        breakpoint: Switch,
        name: "Switch success",
        name_zh: "切换成功率",
        unit: "%",
        higher_is_better: true,
        definition: "Share of environment or accelerator switches that ended with the workload running.",
        inputs: "switch attempts: success",
        anchors: fixed(100.0, 50.0, false),
        why: "A coin-flip switch (50 %) is not a supported path.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: successful switches ÷ switches, over every run",
    },
    MetricDef {
        key: keys::SWITCH_MANUAL_STEPS,
        category: Orchestration,
        breakpoint: Switch,
        name: "Manual steps per switch",
        name_zh: "每次切换的手动步骤数",
        unit: "steps",
        higher_is_better: false,
        definition: "Median number of manual interventions a switch needed.",
        inputs: "switch attempts: manual_steps",
        anchors: fixed(0.0, 37.0, false),
        why: "The four-breakpoint review counted 37 manual configuration traps behind a \"one-click\" PyTorch → Ascend switch.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::SWITCH_UPLOAD_MB_S,
        category: Storage,
        breakpoint: Switch,
        name: "Upload rate",
        name_zh: "数据上传速率",
        unit: "MB/s",
        higher_is_better: true,
        definition: "MB a second a file reached the platform at, copied up through the platform's own tool (object-store CLI, scp) as a job's data would be; the median of the uploads measured.",
        inputs: "storage logs (`breakpoint accept storage --upload`)",
        anchors: fixed(500.0, 5.0, true),
        why: "The total-cost guide counts uploading data among a platform's hidden costs: moving to a platform starts with bringing the data. Chosen here: 500 MB/s brings a terabyte in half an hour; at 5 MB/s it takes more than two days.",
        default_weight: 0.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SWITCH_DURATION_S,
        category: Orchestration,
        breakpoint: Switch,
        name: "Switch duration",
        name_zh: "切换耗时",
        unit: "s",
        higher_is_better: false,
        definition: "Median wall time of a switch.",
        inputs: "switch attempts: duration_s",
        anchors: fixed(600.0, 28_800.0, true),
        why: "Ten minutes is a coffee break; a working day (8 h) is a lost day. Log scale.",
        default_weight: 0.5,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::SWITCH_DRIFT_REL_L2,
        category: Orchestration,
        breakpoint: Switch,
        name: "Numeric drift",
        name_zh: "数值漂移",
        unit: "rel. L2",
        higher_is_better: false,
        definition: "The worst relative L2 error ‖out − ref‖ / ‖ref‖ of the same computation before and after the switch (in a drift log: over the reference suite's operators against a reference platform), since a model that uses the worst operator meets its error; the median is kept as a detail, and the share of operators failing is the operator coverage. Runs above 1e-4 are flagged.",
        inputs: "switch attempts: rel_l2_error; drift logs (accept drift): each operator's rel. L2 against the reference platform",
        anchors: fixed(1e-5, 1e-3, true),
        why: "The four-breakpoint review: above 1e-4 downstream accuracy always suffered; platform E held 5e-5, platform A wandered between 1e-3 and 5e-2. Its checklist asks for < 1e-5.",
        default_weight: 1.5,
        aggregation: Aggregation::PerUnit,
        combines: "per run: each run (a delivery, a measuring day) is one unit, the runs weigh equally",
    },
    MetricDef {
        key: keys::SWITCH_OP_COVERAGE_PCT,
        category: Orchestration,
        breakpoint: Switch,
        name: "Operator coverage",
        name_zh: "算子覆盖率",
        unit: "%",
        higher_is_better: true,
        definition: "Operators that passed as a share of operators tested, over all switch attempts; in a drift log an operator passes when it ran and its output is within the tolerance of the reference's.",
        inputs: "switch attempts: ops_passed, ops_total; drift logs (accept drift): operators within the tolerance",
        anchors: fixed(100.0, 80.0, false),
        why: "The four-breakpoint review: 127/127 (E), 119/127 (F, no RNN ops), 102/127 (C); a model missing a fifth of its operators does not run.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: operators passed ÷ operators compared, over every run",
    },
    // ---- billing ----
    MetricDef {
        key: keys::BILLING_GRANULARITY_S,
        category: Pricing,
        breakpoint: Billing,
        name: "Billing granularity",
        name_zh: "计费粒度",
        unit: "s",
        higher_is_better: false,
        definition: "The billing unit of the platform's on-demand rule.",
        inputs: "billing rules",
        anchors: fixed(1.0, 3600.0, true),
        why: "The four-breakpoint review's checklist: a 1 min 30 s job billed as hours means change platform. Log scale: per-minute is far closer to per-second than to hourly in what it costs short jobs.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per platform: derived from its billing rules; the median where several runs give it",
    },
    MetricDef {
        key: keys::BILLING_OVERCHARGE_PCT,
        category: Pricing,
        breakpoint: Billing,
        name: "Overcharge on the reference workload",
        name_zh: "参考任务超额计费比例",
        unit: "%",
        higher_is_better: false,
        definition: "Bill of the reference workload under the platform's rule ÷ (its compute seconds × the unit price) − 1.",
        inputs: "billing rules; the reference workload",
        anchors: fixed(0.0, 100.0, false),
        why: "The four-breakpoint review's worked bill: 38.40 on hourly ceiling of wall time against 21.82 for compute only (+76 %). Paying double is the worst anchor.",
        default_weight: 1.5,
        aggregation: Aggregation::Median,
        combines: "per platform: derived from its billing rules; the median where several runs give it",
    },
    MetricDef {
        key: keys::BILLING_BILL_ERROR_PCT,
        category: Pricing,
        breakpoint: Billing,
        name: "Bill vs measurement",
        name_zh: "账单与实测偏差",
        unit: "%",
        higher_is_better: false,
        definition: "|billed compute time − measured busy time| ÷ measured busy time, where measured busy time counts the seconds any GPU's utilisation exceeded 10 % in the billed period.",
        inputs: "billing lines with compute_seconds; samples of the same platform over the same period",
        anchors: fixed(3.0, 20.0, false),
        why: "The four-breakpoint review: the two should agree within 3 %; platform C counted utilisation > 5 % as compute (+127 s), platform A billed 15 min of network jitter.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per run: the median of the runs' values (a typical value), their minimum and maximum kept",
    },
    MetricDef {
        key: keys::BILLING_BILLED_IDLE_PCT,
        category: Pricing,
        breakpoint: Billing,
        name: "Billed time with no GPU work",
        name_zh: "无 GPU 负载的计费时间占比",
        unit: "%",
        higher_is_better: false,
        definition: "Of the billed seconds the platform's samples cover (a bill line matched to a probe log by instance id, or by host and time), the share in which no GPU was above 10 % utilisation.",
        inputs: "bill lines (the providers' exports, billing-lines tables); samples of the same instance over the billed period",
        anchors: fixed(5.0, 30.0, false),
        why: "Idle time is billed on every per-instance rule; what a buyer asks is how much of the bill bought no work. The four-breakpoint review recovered ¥2,147 from a platform that billed 15 min of network jitter as GPU compute; past 30 % the instance spent a third of its billed life waiting.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: idle billed seconds ÷ billed seconds sampled, over every bill line",
    },
    MetricDef {
        key: keys::BILLING_DISPUTED_PCT,
        category: Pricing,
        breakpoint: Billing,
        name: "Billed time in question",
        name_zh: "存疑计费时间占比",
        unit: "%",
        higher_is_better: false,
        definition: "Billed seconds the measurements do not bear out — billed while no GPU worked, after the teardown a campaign recorded, or beyond a billing probe's measured job (the unit's rounding) — as a share of all billed seconds. Each is a row of the dispute sheet, priced at its line's rate.",
        inputs: "bill lines; probe logs, campaign runs and billing-probe events of the same instances",
        anchors: fixed(1.0, 20.0, false),
        why: "What a user can take to the provider's support with evidence (the four-breakpoint review: ask for the billing trace and recover what the trace does not support). 1 % is clock disagreement; a fifth of the bill unsupported is a billing fault, not noise.",
        default_weight: 1.0,
        aggregation: Aggregation::Pooled,
        combines: "pooled: seconds in question ÷ billed seconds, over every bill line",
    },
    MetricDef {
        key: keys::BILLING_COST_PER_USEFUL_GPU_HOUR,
        category: Pricing,
        breakpoint: Billing,
        name: "Cost per useful GPU-hour",
        name_zh: "每有效 GPU 小时成本",
        unit: "currency/GPU-h",
        higher_is_better: false,
        definition: "Bill of the reference workload ÷ its compute GPU-hours, at the on-demand price of the platform's cheapest priced offering.",
        inputs: "billing rules, offering prices, the reference workload",
        anchors: Anchors::RelativeToBest { factor: 2.0 },
        why: "The total-cost guide: compare what finishing a job costs, not the price per card-hour. The cheapest platform compared scores 100, twice its cost 0.",
        default_weight: 1.0,
        aggregation: Aggregation::Median,
        combines: "per platform: its price over the useful share of the GPU-time its runs measured",
    },
    MetricDef {
        key: keys::BILLING_REFERENCE_COST,
        category: Pricing,
        breakpoint: Billing,
        name: "Cost to finish the reference workload",
        name_zh: "完成参考任务的成本",
        unit: "currency",
        higher_is_better: false,
        definition: "Bill of the reference workload with its compute phase lengthened by the platform's measured sustained power drop (a proportional model of lost throughput) and, where the rule bills queue time, its measured baseline start latency added as queue.",
        inputs: "billing rules, offering prices, the reference workload, sustain.power_drop_pct, startup.baseline_p50_s",
        anchors: Anchors::RelativeToBest { factor: 2.0 },
        why: "A cheap hour on a throttled GPU finishes later. The proportional model understates the loss (the four-breakpoint review: −9 % power, −17 % throughput), so it never flatters a throttling platform.",
        default_weight: 1.5,
        aggregation: Aggregation::Median,
        combines: "per platform: derived from its billing rules and prices",
    },
];

impl MetricDef {
    /// The metric's name in Chinese or in English.
    pub fn name_in(&self, zh: bool) -> &'static str {
        if zh { self.name_zh } else { self.name }
    }
}

pub fn metric(key: &str) -> Option<&'static MetricDef> {
    METRICS.iter().find(|m| m.key == key)
}

pub fn of(breakpoint: Breakpoint) -> impl Iterator<Item = &'static MetricDef> {
    METRICS.iter().filter(move |m| m.breakpoint == breakpoint)
}

/// docs/metrics.md, generated from this table.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Metrics\n\nGenerated from `crates/core/src/metrics/catalog.rs` (`breakpoint explain --metrics` prints the same); do not edit by hand.\n\n\
         Every metric is derived from stored runs, never typed in. \
         A metric with no data is *not measured*: it counts neither as 0 nor as 100, and lowers the coverage shown beside the score.\n\n\
         ## How evidence combines\n\n\
         A platform is measured across GPUs, nodes, runs and days, and each metric says how those units combine (its *Combines* line):\n\n\
         - **Pooled** rates add up every run's counts and exposure before dividing: interruptions are counted events ÷ all GPU-hours, availability is GPU-time delivered ÷ GPU-time expected. A long run weighs by its length, and a bad run cannot hide in a median of run rates.\n\
         - **Per unit** faults are judged as a buyer meets them. Sample figures are read per GPU: the runs of one GPU (its UUID, else its host and PCI address, else its host and index) that touch or overlap in time are read as one history, so a log split at the onset of a sag still shows it. A node counts as its worst GPU, since a synchronous job runs at its slowest GPU's pace; a node weighs by its share of the fleet's GPU-hours. The metric's score is the expected score over the nodes a buyer may be given, so a fault on any share of the fleet moves it in proportion to that share; the value shown is the share-weighted mean, and the worst nodes and GPUs are named with their share. Runs without GPUs (a delivery check, a network log) are units of equal weight.\n\
         - **Median** keeps a typical value typical: start latency and switch duration are the median over runs, with the minimum and maximum kept.\n\n\
         A GPU that stops reporting while the others in its log go on is a lost GPU: an interruption at its last sample, its time lost until the log ends.\n\n\
         ## How every fault counts, once\n\n\
         - **With GPU-hours**: a fault in a sampled log (an Xid the probe or DCGM saw, a lost GPU, a gap past the logger's own rhythm) is an interruption over that log's GPU-hours. A fault in a log without samples (a kernel log, a journal) counts against the sampled run of the same node that covers its time; a kernel log that saw the driver take every GPU and spans an hour or more is a rate of its own. The Xids one GPU reports within a minute are one incident, and a fault two logs tell of counts once.\n\
         - **Without GPU-hours**: a failed hardware test of `dcgmi diag`, retired pages or row remaps waiting for a reset, a failed remap, and a platform fault in a kernel excerpt that no rate covers (seconds around the fault, or no times at all) make the GPU *faulty*: the share of the platform's GPUs found faulty, each GPU once across every run. A fault an interruption rate holds is not counted in the share.\n\
         - **Not counted**: an Xid the catalogue blames on the program (an illegal memory access, a killed context) and a recorded warning (a corrected error, a row remap that worked) are shown, never counted. A passing health check adds nothing. Evidence that measures no platform (planted slowdowns, devices simulated on the CPU) is kept and shown, never scored.\n\n\
         Scores: 100 at the best anchor, 0 at the worst, linear (or logarithmic where marked) between, clamped. \
         Breakpoint score = weighted mean of its measured metrics' scores; coverage = measured weight ÷ total weight. \
         Overall = weighted mean of the measured breakpoints' scores.\n",
    );
    for b in Breakpoint::ALL {
        out.push_str(&format!("\n## {}\n", title(*b)));
        for m in of(*b) {
            let anchors = match m.anchors {
                Anchors::Fixed { best, worst, log } => format!(
                    "100 at {} {}, 0 at {} {}{}",
                    if m.higher_is_better { "≥" } else { "≤" },
                    number(best),
                    if m.higher_is_better { "≤" } else { "≥" },
                    number(worst),
                    if log { ", logarithmic" } else { "" }
                ),
                Anchors::RelativeToBest { factor } => {
                    format!(
                        "relative: the cheapest platform compared 100, {}× the cheapest 0",
                        number(factor)
                    )
                }
            };
            out.push_str(&format!(
                "\n### `{}` — {} ({})\n\n{}\n\n- Inputs: {}\n- Combines: {}\n- ClusterMAX category: {}\n- Anchors: {} (default weight {})\n- Why: {}\n",
                m.key,
                m.name,
                m.unit,
                m.definition,
                m.inputs,
                m.combines,
                m.category.name_in(false),
                anchors,
                number(m.default_weight),
                m.why
            ));
        }
    }
    out
}

pub fn title(b: Breakpoint) -> &'static str {
    match b {
        Breakpoint::Startup => "Startup",
        Breakpoint::Sustain => "Sustain",
        Breakpoint::Switch => "Switch",
        Breakpoint::Billing => "Billing",
    }
}

fn number(v: f64) -> String {
    if v != 0.0 && (v.abs() < 1e-3) {
        format!("{v:e}")
    } else {
        let t = format!("{v:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A metric key is written as text in one place, the `keys` module
    /// above: everywhere else (the engine, the use cases, the faces, their
    /// tests) names it by its constant, so a misspelt key does not build.
    #[test]
    fn no_metric_key_is_written_as_text_outside_the_catalogue() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut folders = vec![root.join("src-tauri/src")];
        for krate in std::fs::read_dir(root.join("crates")).unwrap_or_else(|e| panic!("{e}")) {
            folders.push(krate.unwrap_or_else(|e| panic!("{e}")).path().join("src"));
        }
        let (mut files, mut written) = (0, Vec::new());
        while let Some(folder) = folders.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs")
                    || path.ends_with("metrics/catalog.rs")
                {
                    continue;
                }
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for m in METRICS {
                    if text.contains(&format!("\"{}\"", m.key)) {
                        written.push(format!("{}: {}", path.display(), m.key));
                    }
                }
            }
        }
        assert!(files > 100, "the sources were not found ({files})");
        assert!(
            written.is_empty(),
            "metric keys written as text (use catalog::keys):\n{}",
            written.join("\n")
        );
        // Each constant is a metric of the table, once.
        let source = std::fs::read_to_string(root.join("crates/core/src/metrics/catalog.rs"))
            .unwrap_or_default();
        let module = source
            .split("pub mod keys {")
            .nth(1)
            .and_then(|rest| rest.split("\n}").next())
            .unwrap_or_default();
        let constants = module.matches("pub const").count();
        assert_eq!(constants, METRICS.len());
        let mut seen: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), METRICS.len(), "a key used twice");
    }

    #[test]
    fn keys_are_unique_and_named_after_their_breakpoint() {
        let mut keys: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), METRICS.len());
        for m in METRICS {
            assert!(
                m.key.starts_with(&format!("{}.", m.breakpoint)),
                "{}",
                m.key
            );
        }
    }

    #[test]
    fn every_metric_has_a_chinese_name() {
        let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
        for m in METRICS {
            assert!(!m.name_zh.trim().is_empty(), "{}", m.key);
            assert_ne!(m.name_zh, m.name, "{}", m.key);
            assert!(m.name_zh.chars().any(cjk), "{}: {}", m.key, m.name_zh);
            assert_eq!(m.name_in(true), m.name_zh);
            assert_eq!(m.name_in(false), m.name);
        }
    }

    #[test]
    fn every_unit_reads_in_chinese() {
        // A unit in words has its Chinese; only symbols stay as they are.
        for m in METRICS {
            assert!(
                crate::text::unit_zh(m.unit).is_some()
                    || ["%", "s", "ms", "°C", "MB/s"].contains(&m.unit),
                "{}: unit \"{}\" has no Chinese (breakpoint_model::text::UNITS_ZH)",
                m.key,
                m.unit
            );
        }
    }

    #[test]
    fn the_metrics_document_is_current() {
        assert_generated_document("metrics.md", &markdown(), "the_metrics_document");
    }

    /// A document generated from code is what the code generates now;
    /// `BREAKPOINT_BLESS=1` rewrites it.
    pub(crate) fn assert_generated_document(name: &str, generated: &str, test: &str) {
        let path = format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"));
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != generated {
            if std::env::var_os("BREAKPOINT_BLESS").is_some() {
                std::fs::write(&path, generated).unwrap();
            } else {
                panic!(
                    "docs/{name} is out of date: run `BREAKPOINT_BLESS=1 cargo test -p breakpoint-core {test}` to regenerate it"
                );
            }
        }
    }
}
