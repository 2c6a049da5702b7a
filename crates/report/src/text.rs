//! The report's words in English and Simplified Chinese.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    /// Whether the words are Chinese: what the engine's `name_in`,
    /// `meaning_in` and `unit_in` ask.
    pub fn is_zh(self) -> bool {
        self == Lang::Zh
    }
}

impl std::str::FromStr for Lang {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "en" | "english" => Ok(Lang::En),
            "zh" | "zh-cn" | "chinese" => Ok(Lang::Zh),
            other => Err(format!("unknown language \"{other}\" (expected en or zh)")),
        }
    }
}

/// Every catalogue text: its key, English, Chinese.
const TEXTS: &[(&str, &str, &str)] = &[
    (
        "title",
        "GPU platform decision matrix",
        "GPU 算力平台决策矩阵",
    ),
    ("date", "Date:", "日期："),
    (
        "demo_warning",
        "DEMO DATA — the platforms and logs in this report are simulated from the four-breakpoint review of domestic GPU clouds (its anonymised platforms A–F); they are not measurements of real providers.",
        "演示数据 —— 本报告中的平台与日志依据《国产 GPU 云平台四断点评测》中的匿名平台 A–F 模拟生成，并非真实厂商的实测结果。",
    ),
    ("platforms_compared", "Platforms compared", "参与比较的平台"),
    ("platforms", "platforms", "个平台"),
    ("ranked", "ranked", "个参与排名"),
    ("mean_coverage", "Mean data coverage", "平均数据覆盖率"),
    ("profile", "Weight profile", "权重方案"),
    ("breakpoint", "Breakpoint", "断点"),
    ("weight", "Weight", "权重"),
    ("matrix", "Decision matrix", "决策矩阵"),
    ("rank", "Rank", "排名"),
    ("platform", "Platform", "平台"),
    ("startup", "Startup", "启动"),
    ("sustain", "Sustain", "持续"),
    ("switch", "Switch", "切换"),
    ("billing", "Billing", "计费"),
    ("overall", "Overall", "综合"),
    ("coverage", "Coverage", "覆盖率"),
    ("evidence", "Evidence", "证据"),
    ("runs", "runs", "次运行"),
    (
        "matrix_note",
        "Scores 0–100 under the weight profile; – means not measured, which never counts as 0. Coverage is the share of the profile's weight backed by measurements; platforms under the threshold are listed without a rank.",
        "得分为 0–100；“–”表示未测量，绝不按 0 分计。覆盖率为有实测支撑的权重占比；低于阈值的平台不参与排名。",
    ),
    ("metrics", "metrics", "指标"),
    ("metric", "Metric", "指标"),
    ("value", "Value", "数值"),
    ("range", "Range (runs, units)", "范围（运行、单元）"),
    ("score", "Score", "得分"),
    (
        "runs_col",
        "Runs (id, file, hash)",
        "运行（编号、文件、哈希）",
    ),
    ("breakpoint_score", "breakpoint score", "断点得分"),
    ("not_measured", "not measured", "未测量"),
    ("anchors_clause", "Anchors: {}.", "评分锚点：{}。"),
    (
        "anchors_fixed",
        "100 at {}, 0 at {}",
        "{} 为 100 分，{} 为 0 分",
    ),
    ("anchors_log", ", log scale", "，对数刻度"),
    (
        "anchors_relative",
        "cheapest 100, {}× cheapest 0",
        "最低者 100 分，最低者的 {} 倍为 0 分",
    ),
    ("from_rules", "platform billing rules", "平台计费规则"),
    (
        "units_behind",
        "The worst units behind the figures (node and GPU, share of the fleet's GPU-hours)",
        "数值背后最差的单元（节点与 GPU，占机群 GPU 时的比例）",
    ),
    ("startup_chart", "Startup latency", "启动延迟"),
    ("performance", "Delivered performance", "交付性能"),
    ("disputes", "Bills against measurements", "账单与实测对账"),
    (
        "disputes_note",
        "Each imported bill line matched to the evidence of the instance it bills (by instance id, else by its name and time) and priced at its own rate where the evidence does not bear it out: billed while no GPU worked, after the teardown a campaign recorded, or beyond the measured job or the line's own period (rounding). The rows are what to send to the provider's support, with the line id it asks for.",
        "每条导入的账单明细按实例 ID（否则按实例名称与时间）与该实例的实测证据匹配；证据不支持的计费时长按该明细自身的单价计价：GPU 无负载时计费、活动记录的释放之后仍计费、超出实测任务或明细自身时段的计费（取整）。各行即可提交给服务商客服的内容，附其要求的明细 ID。",
    ),
    (
        "disputes_platform",
        "{}: {} bill line(s), {} of {} billed seconds in question ({})",
        "{}：{} 条账单明细，{} 秒存疑（共计费 {} 秒；{}）",
    ),
    (
        "disputes_more",
        "{} more row(s) of {} are not shown here (those with the most in question are); `breakpoint bill --disputes -o sheet.csv` writes every one.",
        "另有 {} 行未在此列出（共 {} 行；此处列出存疑金额最大的行）；`breakpoint bill --disputes -o sheet.csv` 写出全部各行。",
    ),
    ("dispute_finding", "Finding", "发现"),
    ("dispute_line", "Line · instance", "明细 · 实例"),
    ("dispute_billed", "Billed", "计费"),
    ("dispute_question", "In question", "存疑"),
    ("dispute_evidence", "Evidence", "证据"),
    (
        "performance_note",
        "Measured by the perf suite (accept perf) on each platform's nodes: each figure is the median over the platform's GPUs, held against the model's dense datasheet peak (host copies: against the card's own PCIe link) and placed among the other platforms measured on the same model. The matrix product is the card's training dtype (BF16 where it has one).",
        "由性能套件（accept perf）在各平台节点上测得：每个数值为该平台所有 GPU 的中位数，对照该型号数据手册的稠密峰值（主机拷贝对照该卡自身的 PCIe 链路），并与同型号的其他平台比较。矩阵乘使用该卡的训练精度（有 BF16 时用 BF16）。",
    ),
    ("perf_test", "Test", "测试"),
    ("perf_median", "Median", "中位数"),
    ("of_nominal", "Of nominal", "占标称"),
    ("among_peers", "Among the same model", "同型号平台中"),
    (
        "above_peers",
        "above {} % of {} others",
        "高于 {} % 的其他平台（共 {} 个）",
    ),
    ("alone", "the only platform measured", "唯一测得的平台"),
    (
        "per_gpu",
        "{}, {} (run #{}): per GPU",
        "{}，{}（运行 #{}）：逐 GPU",
    ),
    ("perf_matrix", "Matrix TFLOP/s", "矩阵乘 TFLOP/s"),
    ("perf_copy", "Memory copy", "显存拷贝"),
    ("perf_link", "Host link", "主机链路"),
    ("perf_decay", "Decay", "衰减"),
    ("perf_straggler", "Straggler", "掉队"),
    (
        "trails_by",
        "{}: {} % below the node's best",
        "{}：比本节点最佳低 {} %",
    ),
    (
        "billing_chart",
        "Billing: the reference workload",
        "计费：参考任务",
    ),
    (
        "billing_chart_title",
        "The four-breakpoint review's reference job (2 h 17 m wall, 1 h 42 m 18 s compute) on each platform's rule",
        "四断点评测参考任务（总时长 2 小时 17 分，计算 1 小时 42 分 18 秒）在各平台规则下的费用",
    ),
    ("timeline", "Sustain timeline", "持续运行时间线"),
    (
        "timelines_left_out",
        "Timelines of the {} best-ranked platforms with samples; {} more are left out of this report (the app's Runs screen draws any run's).",
        "此处仅列出排名最前且有采样数据的 {} 个平台的时间线；另有 {} 个未列入本报告（应用的“运行”页面可绘制任一运行）。",
    ),
    ("robustness", "Robustness of the ranking", "排名稳健性"),
    ("flips", "Flip distances", "翻转距离"),
    (
        "cannot_overtake",
        "cannot overtake, whatever single weight changes:",
        "无论单一权重如何变化都无法超过",
    ),
    ("decision", "Decision", "结论"),
    (
        "no_winner",
        "No winner yet: fewer than two platforms have the evidence to be ranked.",
        "尚无胜出者：具备排名证据的平台不足两个。",
    ),
    (
        "p_best",
        "Chance of being the best once the missing metrics are known ({} draws): {}.",
        "缺失指标补齐后为最佳的概率（{} 次抽样）：{}。",
    ),
    (
        "plan",
        "The plan: configuration first, then the cheapest chance of changing the lead; stop once no step has more than {} %.",
        "计划：先补配置，再按改变领先者的概率与成本之比排序；当所有步骤改变结论的概率都不超过 {} % 时即可停止。",
    ),
    (
        "plan_step",
        "• {} — on {}: {}; {} chance of changing the lead; gives {}",
        "• {} —— 平台 {}：{}；改变领先者的概率 {}；得到 {}",
    ),
    (
        "plan_enough",
        "Enough: no remaining step is likely to change the answer.",
        "已足够：剩余的步骤都不太可能改变结论。",
    ),
    ("configuration", "[configuration]", "［配置］"),
    ("history", "How the answer moved", "结论的变化"),
    ("history_entry", "{} — {}: {}", "{} —— {}：{}"),
    ("converted_at", "Converted at {}.", "按 {} 换算。"),
    (
        "job_cost",
        "What finishing the job costs",
        "完成该作业的成本",
    ),
    (
        "job_cost_job",
        "{} on {} GPUs, a checkpoint every {} minutes: p10 / p50 / p90 over {} seeded draws of each platform's measured terms.",
        "工作量：{}；{} 块 GPU，每 {} 分钟一次检查点：按各平台实测项的 {} 次种子抽样给出 p10 / p50 / p90。",
    ),
    (
        "job_cost_money",
        "cost p10 / p50 / p90",
        "成本 p10 / p50 / p90",
    ),
    (
        "job_cost_hours",
        "hours p10 / p50 / p90",
        "小时 p10 / p50 / p90",
    ),
    ("job_cost_deadline", "deadline met", "按期完成概率"),
    ("job_cost_mode", "mode", "计费方式"),
    ("left_out", "left out of the cost:", "成本未计入："),
    (
        "job_cost_horizon",
        "A steady workload: {} % of {} GPUs over {} days, in the price mode cheapest for each platform; the last column is the chance the work fits in the horizon on these GPUs.",
        "持续负载：{} % 的时间使用 {} 块 GPU，持续 {} 天，各平台取最便宜的计费方式；最后一列为在这些 GPU 上于期限内完成工作量的概率。",
    ),
    (
        "chart_job_cost_title",
        "Cost to finish the job: p10–p90 band, median marked",
        "完成作业的成本：p10–p90 区间，竖线为中位数",
    ),
    (
        "chart_job_hours_title",
        "Where the median hours go",
        "中位时长的构成",
    ),
    ("chart_job_data", "bringing the data", "数据上传"),
    ("chart_job_start", "start-up", "启动"),
    ("chart_job_compute", "compute", "计算"),
    ("chart_job_lost", "lost to interruptions", "中断损失"),
    (
        "chart_job_hours_axis",
        "Wall hours (median)",
        "墙钟小时（中位数）",
    ),
    (
        "chart_job_cost_axis",
        "Cost of the job ({})",
        "作业成本（{}）",
    ),
    (
        "chart_job_no_price",
        "No platform priced: offerings with prices and billing rules give the cost",
        "没有平台有价格：为规格填写价格和计费规则后才能给出成本",
    ),
    (
        "job_cost_note",
        "Each term says what it rests on; a term marked \"not measured\" takes a stated default with a wide band — measure it to narrow the answer (docs/cost.md).",
        "每一项都注明依据；标为“not measured”的项采用注明的默认值和较宽的区间——实测后区间会收窄（docs/cost.md）。",
    ),
    (
        "bills_not_comparable",
        "Not comparable (prices in another currency and no exchange rate; breakpoint rates add): {}.",
        "无法比较（价格为其他币种且无汇率；breakpoint rates add）：{}。",
    ),
    (
        "not_fragile",
        "The winner is not fragile under these checks.",
        "在上述检验下，第一名的领先是稳健的。",
    ),
    (
        "provenance",
        "Appendix A — run provenance",
        "附录 A —— 运行来源",
    ),
    (
        "hardware",
        "Hardware evidence from the logs",
        "日志中的硬件证据",
    ),
    (
        "clustermax",
        "The matrix in ClusterMAX's categories",
        "按 ClusterMAX 类别的决策矩阵",
    ),
    (
        "clustermax_note",
        "The same evidence placed in the ten categories of SemiAnalysis ClusterMAX 2.0: each measured metric in the category it evidences, each check the rating expects as measured (✓, or the runs that hold it) or not (–), with the command that measures it, and a cmax audit's results as the audit wrote them, with its date.",
        "同一证据按 SemiAnalysis ClusterMAX 2.0 的十个类别排列：每个已测指标归入其所证明的类别；评级所要求的每项检查标明已测（“已测”或所依据的运行次数）或未测（–），并给出测量命令；cmax 审计的结果按审计原文列出，并注明日期。",
    ),
    (
        "clustermax_legend",
        "The decision matrix in SemiAnalysis ClusterMAX 2.0's categories (docs/clustermax.md); \"–\": not measured, \"✓\": measured (its figure above).",
        "按 SemiAnalysis ClusterMAX 2.0 类别排列的决策矩阵（见 docs/clustermax.md）；“–”：未测，“已测”：已测量（数值见上表）。",
    ),
    ("clustermax_metric", "Metric", "指标"),
    ("clustermax_check", "Expected check", "应有检查"),
    ("clustermax_to_measure", "To measure", "测量方法"),
    (
        "clustermax_not_read",
        "not read by Breakpoint yet; shown by",
        "Breakpoint 尚不读取；可用以下命令查看",
    ),
    ("acceptance", "Acceptance checklists", "验收检查清单"),
    (
        "acceptance_note",
        "As each instance printed them at the end of `breakpoint accept all` (the four-breakpoint review, §6.2): the measured figure, the threshold, pass or fail. The figures also enter the metrics above through the logs in the bundle.",
        "即各实例在 `breakpoint accept all` 结束时打印的清单（《国产 GPU 云平台四断点评测》§6.2）：实测值、阈值、通过与否。这些数据也通过数据包中的日志进入上文的指标。",
    ),
    ("acceptance_check", "Check", "检查项"),
    ("acceptance_measured", "Measured", "实测"),
    ("acceptance_threshold", "Threshold", "阈值"),
    ("acceptance_verdict", "Verdict", "结论"),
    ("pass", "pass", "通过"),
    ("fail", "FAIL", "未通过"),
    (
        "chart_stages_title",
        "A campaign's attempts, stage by stage",
        "测试活动的每次尝试（分阶段）",
    ),
    ("chart_stage_provision", "provisioning", "资源分配"),
    ("chart_stage_image", "image", "镜像就绪"),
    ("chart_stage_compute", "first compute", "首次计算"),
    (
        "chart_stage_failed",
        "× failed or timed out",
        "× 失败或超时",
    ),
    (
        "chart_stages_axis",
        "time since the campaign's first submission",
        "自首次提交起的时间",
    ),
    (
        "campaigns_behind",
        "Startup campaigns behind these figures",
        "这些数据背后的启动测试活动",
    ),
    ("campaign", "campaign", "测试活动"),
    ("attempts", "attempts", "尝试次数"),
    ("recipe", "recipe", "配方"),
    ("sha256_short", "SHA-256", "SHA-256"),
    (
        "hardware_note",
        "Xid errors from kernel logs, the probe and DCGM, by meaning. An application fault (the program's illegal memory access, a killed context) is shown but not counted against the platform; a recorded warning (a row remap) stopped nothing. Health checks are dcgmi diag results other than pass; a link narrower than the card's own halves its bandwidth to the host.",
        "来自内核日志、探针与 DCGM 的 Xid 错误，按含义列出。应用故障（程序的非法内存访问、被终止的上下文）列出但不计入平台；记录类警告（行重映射）并未中断工作。健康检查列出 dcgmi diag 中未通过的结果；链路宽度低于卡本身时，到主机的带宽减半。",
    ),
    ("xid_meaning", "Meaning", "含义"),
    ("xid_severity", "Severity", "严重性"),
    ("xid_blame", "Fault of", "责任方"),
    ("xid_count", "Count", "次数"),
    ("xid_counted", "Counted", "计入"),
    ("xid_runs", "Runs", "运行"),
    ("fatal", "fatal", "致命"),
    ("error", "error", "错误"),
    ("warning", "warning", "警告"),
    ("degradation", "degradation", "性能退化"),
    (
        "evidence_bundle",
        "Evidence: the bundle {} (SHA-256 {}) holds every platform, run and profile behind this report; `breakpoint bundle import` it into an empty workspace and run `breakpoint report` with the same options to rebuild the ranking.",
        "证据：数据包 {}（SHA-256 {}）包含本报告所依据的全部平台、运行与权重配置；将其 `breakpoint bundle import` 导入空工作区，并以相同选项运行 `breakpoint report`，即可重建此排名。",
    ),
    (
        "energy",
        "Energy of the reference job (estimates from measured GPU power)",
        "参考作业能耗（基于实测 GPU 功率的估算）",
    ),
    ("gpu_kwh", "GPU energy", "GPU 能耗"),
    ("facility_kwh", "facility energy", "设施能耗"),
    ("factors", "factors", "系数"),
    (
        "energy_note",
        "GPU energy: the job's compute time at the platform's measured working power and its loading time at its waiting power. Facility energy = GPU energy × PUE; CO₂ = facility energy × grid intensity. Both factors are estimates; * marks the documented defaults (PUE 1.58, Uptime Institute 2023; 570.3 g CO₂/kWh, China's 2022 national grid factor).",
        "GPU 能耗：按平台实测的计算功率计作业的计算时间，按等待功率计其加载时间。设施能耗 = GPU 能耗 × PUE；CO₂ = 设施能耗 × 电网排放因子。两个系数均为估算；* 表示文档中的默认值（PUE 1.58，Uptime Institute 2023；570.3 g CO₂/kWh，中国 2022 年全国电网平均排放因子）。",
    ),
    ("blame_platform", "platform", "平台"),
    ("blame_application", "application", "应用"),
    ("blame_either", "either", "均有可能"),
    ("yes", "yes", "是"),
    ("no", "no", "否"),
    (
        "gpus_lost",
        "GPUs lost outside an Xid (fell off the bus, failed to start, stopped answering)",
        "Xid 之外丢失的 GPU（掉卡、初始化失败、无响应）",
    ),
    ("health_test", "Health check", "健康检查"),
    ("health_status", "Status", "状态"),
    ("health_message", "Message", "信息"),
    ("all_gpus", "all", "全部"),
    ("link_width", "PCIe width now / max", "PCIe 当前/最大宽度"),
    ("file", "File", "文件"),
    ("format", "Format", "格式"),
    ("period", "Period (UTC)", "时段（UTC）"),
    ("method", "Appendix B — method", "附录 B —— 方法"),
    (
        "method_note",
        "Every metric is derived from stored runs and combines GPUs, nodes and runs as it says: rates are pooled over all their exposure, faults are judged per GPU and node and scored over the share of the fleet they touch, typical values are medians with their range. A breakpoint score is the weighted mean of its measured metrics; the overall score is the weighted mean of the measured breakpoints. Claims by others (SLAs, reviews) are shown beside the evidence and never scored.",
        "每项指标均由已存储的运行数据推导，并按各自的规则合并 GPU、节点与运行：比率按全部暴露量汇总，故障按 GPU 与节点判定并按其所占集群份额计分，典型值取中位数并保留范围。断点得分为已测指标的加权平均，综合得分为已测断点的加权平均。他人的声明（SLA、评测）仅并列展示，不计入得分。",
    ),
    ("page", "page", "页"),
    // The charts' words.
    (
        "chart_ranking_title",
        "Overall score by breakpoint contribution — profile {}",
        "综合得分及各断点贡献 —— 权重方案 {}",
    ),
    (
        "chart_ranking_axis",
        "overall score (0–100); grey: insufficient evidence, not ranked",
        "综合得分（0–100）；灰色：证据不足，未参与排名",
    ),
    (
        "chart_score_coverage",
        "{}  (coverage {} %)",
        "{}  （覆盖率 {} %）",
    ),
    (
        "chart_heatmap_title",
        "Scores by breakpoint (0–100)",
        "各断点得分（0–100）",
    ),
    ("chart_startup", "startup", "启动"),
    ("chart_sustain", "sustain", "持续"),
    ("chart_switch", "switch", "切换"),
    ("chart_billing", "billing", "计费"),
    ("chart_overall", "overall", "综合"),
    (
        "chart_acceptability_title",
        "Rank acceptability — {} weight draws (concentration {}, seed {})",
        "排名可接受度 —— {} 次权重抽样（集中度 {}，种子 {}）",
    ),
    ("chart_rank_n", "rank {}", "第 {} 名"),
    ("chart_p_first", "P(1st) {} %", "P(第一) {} %"),
    (
        "chart_acceptability_axis",
        "share of weight draws in which the platform takes each rank",
        "平台取得各名次的权重抽样占比",
    ),
    (
        "chart_startup_title",
        "Start latency: submit → first compute (log scale)",
        "启动延迟：提交 → 首次计算（对数坐标）",
    ),
    (
        "chart_startup_axis",
        "latency (s, log scale); × beyond the axis: failed or timed out",
        "延迟（秒，对数坐标）；轴外 ×：失败或超时",
    ),
    ("chart_baseline", "baseline", "基线"),
    ("chart_peak", "peak", "高峰"),
    ("chart_mixed", "mixed", "混合"),
    ("chart_power", "power (W)", "功耗（W）"),
    (
        "chart_temperature",
        "GPU temperature (°C)",
        "GPU 温度（°C）",
    ),
    ("chart_sm_clock", "SM clock (MHz)", "SM 时钟（MHz）"),
    ("chart_hours", "hours since start", "开始后的小时数"),
    ("chart_thermal", "thermal slowdown", "温度降频"),
    (
        "chart_hw_slowdown",
        "HW slowdown / power brake",
        "硬件降频 / 功率制动",
    ),
    ("chart_interruption", "interruption", "中断"),
    (
        "chart_gpu_lost",
        "GPU lost, until it answered again",
        "GPU 丢失，直至恢复响应",
    ),
    (
        "chart_billed",
        "billed under the platform's rule",
        "按平台规则计费",
    ),
    (
        "chart_fair",
        "fair: compute only, per second",
        "公平：仅计算时间，按秒",
    ),
    (
        "chart_cost_axis",
        "cost of the reference workload ({})",
        "参考任务费用（{}）",
    ),
    (
        "chart_timeline_run",
        "run #{} {} ({} GPUs, {} samples)",
        "运行 #{} {}（{} 块 GPU，{} 个样本）",
    ),
];

/// The text for `key`; unknown keys come back as they are.
pub fn t(lang: Lang, key: &str) -> &str {
    match TEXTS.iter().find(|(k, _, _)| *k == key) {
        Some((_, en, _)) if lang == Lang::En => en,
        Some((_, _, zh)) => zh,
        None => key,
    }
}

/// A catalogue text with its `{}` filled in order.
pub fn fill(template: &str, values: &[&dyn std::fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    for v in values {
        match rest.split_once("{}") {
            Some((before, after)) => {
                out.push_str(before);
                out.push_str(&v.to_string());
                rest = after;
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `t()` gives an unknown key back as its own text, so a key the
    /// sources ask for and the catalogue lacks would land in the PDF as
    /// "chart_job_cost_axis": every literal key asked for is listed.
    #[test]
    fn every_key_the_sources_ask_for_is_listed() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut folders = vec![src];
        let mut missing = Vec::new();
        let mut asked = 0;
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{e}")) {
                let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let whole = std::fs::read_to_string(&path).unwrap_or_default();
                let text = whole.split("#[cfg(test)]").next().unwrap_or_default();
                // `t(lang, "key")`, whatever the language's name.
                for piece in text.split("t(").skip(1) {
                    let Some((_, rest)) = piece.split_once(", \"") else {
                        continue;
                    };
                    let Some((key, _)) = rest.split_once("\")") else {
                        continue;
                    };
                    let head = piece.split_once(',').map_or("", |(h, _)| h);
                    if !head
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                        || !key
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit())
                        || key.is_empty()
                    {
                        continue;
                    }
                    asked += 1;
                    if !TEXTS.iter().any(|(k, _, _)| *k == key) {
                        missing.push(format!("{}: {key}", path.display()));
                    }
                }
            }
        }
        assert!(asked > 50, "the keys were not found ({asked})");
        assert!(
            missing.is_empty(),
            "keys not in TEXTS:\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn every_key_is_listed_once() {
        let mut keys: Vec<&str> = TEXTS.iter().map(|(k, _, _)| *k).collect();
        let all = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys.len(),
            all,
            "a key listed twice reads only its first entry"
        );
        assert_eq!(t(Lang::Zh, "title"), "GPU 算力平台决策矩阵");
        assert_eq!(t(Lang::En, "no such key"), "no such key");
    }
}
