//! The report's words in English and Simplified Chinese.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Zh,
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

/// The text for `key`; unknown keys come back as they are.
pub fn t(lang: Lang, key: &str) -> &str {
    let (en, zh) = match key {
        "title" => ("GPU platform decision matrix", "GPU 算力平台决策矩阵"),
        "date" => ("Date:", "日期："),
        "demo_warning" => (
            "DEMO DATA — the platforms and logs in this report are simulated from the four-breakpoint review of domestic GPU clouds (its anonymised platforms A–F); they are not measurements of real providers.",
            "演示数据 —— 本报告中的平台与日志依据《国产 GPU 云平台四断点评测》中的匿名平台 A–F 模拟生成，并非真实厂商的实测结果。",
        ),
        "platforms_compared" => ("Platforms compared", "参与比较的平台"),
        "platforms" => ("platforms", "个平台"),
        "ranked" => ("ranked", "个参与排名"),
        "mean_coverage" => ("Mean data coverage", "平均数据覆盖率"),
        "profile" => ("Weight profile", "权重方案"),
        "breakpoint" => ("Breakpoint", "断点"),
        "weight" => ("Weight", "权重"),
        "matrix" => ("Decision matrix", "决策矩阵"),
        "rank" => ("Rank", "排名"),
        "platform" => ("Platform", "平台"),
        "startup" => ("Startup", "启动"),
        "sustain" => ("Sustain", "持续"),
        "switch" => ("Switch", "切换"),
        "billing" => ("Billing", "计费"),
        "overall" => ("Overall", "综合"),
        "coverage" => ("Coverage", "覆盖率"),
        "evidence" => ("Evidence", "证据"),
        "runs" => ("runs", "次运行"),
        "matrix_note" => (
            "Scores 0–100 under the weight profile; – means not measured, which never counts as 0. Coverage is the share of the profile's weight backed by measurements; platforms under the threshold are listed without a rank.",
            "得分为 0–100；“–”表示未测量，绝不按 0 分计。覆盖率为有实测支撑的权重占比；低于阈值的平台不参与排名。",
        ),
        "metrics" => ("metrics", "指标"),
        "metric" => ("Metric", "指标"),
        "value" => ("Value", "数值"),
        "range" => ("Range over runs", "多次运行范围"),
        "score" => ("Score", "得分"),
        "runs_col" => ("Runs (id, file, hash)", "运行（编号、文件、哈希）"),
        "breakpoint_score" => ("breakpoint score", "断点得分"),
        "not_measured" => ("not measured", "未测量"),
        "from_rules" => ("platform billing rules", "平台计费规则"),
        "startup_chart" => ("Startup latency", "启动延迟"),
        "billing_chart" => ("Billing: the reference workload", "计费：参考任务"),
        "billing_chart_title" => (
            "The four-breakpoint review's reference job (2 h 17 m wall, 1 h 42 m 18 s compute) on each platform's rule",
            "四断点评测参考任务（总时长 2 小时 17 分，计算 1 小时 42 分 18 秒）在各平台规则下的费用",
        ),
        "timeline" => ("Sustain timeline", "持续运行时间线"),
        "robustness" => ("Robustness of the ranking", "排名稳健性"),
        "flips" => ("Flip distances", "翻转距离"),
        "cannot_overtake" => (
            "cannot overtake, whatever single weight changes:",
            "无论单一权重如何变化都无法超过",
        ),
        "not_fragile" => (
            "The winner is not fragile under these checks.",
            "在上述检验下，第一名的领先是稳健的。",
        ),
        "provenance" => ("Appendix A — run provenance", "附录 A —— 运行来源"),
        "file" => ("File", "文件"),
        "format" => ("Format", "格式"),
        "period" => ("Period (UTC)", "时段（UTC）"),
        "method" => ("Appendix B — method", "附录 B —— 方法"),
        "method_note" => (
            "Every metric is derived from stored runs. With several runs a metric takes the median and keeps the range. A breakpoint score is the weighted mean of its measured metrics; the overall score is the weighted mean of the measured breakpoints. Claims by others (SLAs, reviews) are shown beside the evidence and never scored.",
            "每项指标均由已存储的运行数据推导；多次运行取中位数并保留范围。断点得分为已测指标的加权平均，综合得分为已测断点的加权平均。他人的声明（SLA、评测）仅并列展示，不计入得分。",
        ),
        "page" => ("page", "页"),
        other => return other_key(other),
    };
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

fn other_key(key: &str) -> &str {
    key
}
