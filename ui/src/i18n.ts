// English and Simplified Chinese. The language follows the OS locale until
// the user picks one in Settings.

const en = {
  campaigns: "Campaigns", campaignsIntro: "Startup campaigns launch instances through the platform's own tools (a recipe, docs/campaigns.md), time submitted → provisioned → image ready → first compute, and tear everything down. Nothing launches before you confirm the cost.", recipe: "Recipe", scenario: "Scenario", baseline: "baseline (a few seconds apart)", peak: "peak (all at once)", mixed: "mixed (several offerings at once)", spacingS: "Spacing (s)", image: "Image", fromRecipe: "from the recipe", planCampaign: "Show plan and cost", runCampaign: "Run campaign…", stopCampaign: "Stop (tears down)", waiting: "waiting", campaign: "Campaign", nothingRecorded: "nothing recorded", recordedAsRun: "recorded as run", pastCampaigns: "Past campaigns", ledger: "Ledger", worstCase: "worst case", each: "each", atMost: "at most", unpriced: "no price", instance: "Instance", startsAfter: "Starts after", commands: "Commands", attempts: "Attempts", failureRate: "Failure rate", noCampaigns: "No campaign yet.", ledgerEmpty: "No instance outstanding: everything launched was torn down.", ledgerHolds: "The ledger says these may still be running (and costing money):", cleanUp: "Tear them down", since: "Since", teardown: "Teardown", noIdCheckConsole: "no id: check the console",
  rankings: "Rankings", platforms: "Platforms", runs: "Runs", probe: "Probe", billing: "Billing", export: "Export", settings: "Settings",
  importPrometheus: "Import from Prometheus", prometheusHint: "The fleet's DCGM history from a Prometheus (or Thanos, VictoriaMetrics, Mimir): one run per node, all or nothing; a range pulled before adds nothing twice. A bearer token is read from the environment variable you name, never typed here (docs/fleet.md).",
  promUrl: "Server", from: "From", to: "To", selector: "Selector", tokenEnv: "Token variable", pull: "Pull", node: "Node", requests: "requests", retried: "retried",
  bundles: "Workspace bundles", bundlesHint: "One file with platforms, their runs and weight profiles: hand it to a colleague or a reviewer, or merge theirs. A merge adds nothing twice and overwrites nothing (docs/bundles.md).",
  bundleFile: "Bundle file", exportBundle: "Export bundle", importBundle: "Import bundle", working: "Working…", merged: "Merged", runsAdded: "runs added", alreadyHere: "already here",
  platformsAdded: "Platforms added", keepOurs: "Keep ours (their runs join our platform)", renameTheirs: "Import theirs under a new name",
  energyCol: "Energy (GPU / facility)", energyOfRun: "Energy drawn by the GPUs", co2: "CO₂", noPower: "no power sampled",
  energyNote: "Energy: the workload at each platform's GPU power measured in its runs (working / waiting); facility = GPU × PUE, CO₂ = facility × grid intensity — estimates, not measurements. * default factors (PUE 1.58, 570.3 g CO₂/kWh, docs/energy.md); set a platform's with `breakpoint platform energy`.",
  history: "History", degradation: "degradation", until: "Until", show: "Show", degraded: "Degraded", noHistory: "No run of this platform measured a metric in this window.",
  historyHint: "One point per run, in the order the runs were measured. A metric is flagged when its latest three runs are all worse than every run before and by more than three robust spreads and 10 % (docs/history.md).",
  tooFewRuns: "too few runs to test for degradation", noDegradation: "no degradation", measuredAt: "Measured",
  profile: "Weight profile", saveProfile: "Save as profile…", profileName: "Profile name",
  startup: "Startup", sustain: "Sustain", switch: "Switch", overall: "Overall", coverage: "Coverage", rank: "Rank", platform: "Platform", evidence: "Runs", filterPlatforms: "Filter platforms by name",
  notMeasured: "not measured", insufficient: "insufficient evidence",
  emptyTitle: "No platforms yet", emptyText: "Load the demo workspace to see Breakpoint at work, or add a platform and import its logs.",
  loadDemo: "Load demo workspace", demoBanner: "DEMO DATA — simulated from the four-breakpoint review of domestic GPU clouds (its anonymised platforms A–F).",
  robustness: "Robustness", pFirst: "P(rank 1)", fragile: "Fragile winner", flips: "Flip distances",
  metric: "Metric", value: "Value", range: "Range over runs", scoreCol: "Score", weight: "Weight", runsCol: "Runs (id, file, hash)", close: "Close",
  addTemplate: "Add from template", add: "Add", accelerator: "Accelerator", count: "Count", currency: "Currency", pricePerHour: "On-demand / GPU-h", spotPerHour: "Spot / GPU-h", addOffering: "Add offering", offering: "Offering", checkDelivery: "Check this machine", deliveryCheck: "Delivery check against an order", mismatches: "mismatch(es) between the order and this machine", deliveryMatches: "Delivery matches the order", interval: "Interval", startSampling: "Start sampling", stopSampling: "Stop", sampling: "Sampling", liveSampling: "Live sampling (power per GPU)", importIt: "import it under Runs", wrapTitle: "Or run a workload under the probe", running: "Running", workloadCommand: "Command", folder: "Folder", runWorkload: "Run under the probe",
  workloadHint: "Runs as you once you confirm it in a system dialog, without a shell; its output goes to a file beside the log. Stop sends SIGTERM, then SIGKILL after 10 s.",
  exitCode: "Exit", bySignal: "ended by a signal", stoppedByYou: "stopped", wallTime: "Wall time", gpuBusy: "GPU busy", firstActivity: "First GPU activity",
  neverUsedGpu: "never (it did not use a GPU)", unreadableGpu: "cannot be read", unknownNoUtil: "unknown (no GPU reports utilisation)", gpuUseUnknown: "unknown (the GPUs report neither utilisation nor processes; MIG?)", output: "Output", importLog: "Import the log", imported: "Imported", alreadyImported: "Already imported", subject: "Subject", unit: "Unit", claimText: "In words", addClaim: "Add claim", mode: "Mode", unitSeconds: "Unit (s)", minimumSeconds: "Minimum (s)", rounding: "Rounding", billsIoWait: "bills I/O wait", billsIdle: "bills idle", setRule: "Set rule", wholeSecondsAtLeastOne: "a whole number of seconds, at least 1", wholeSeconds: "a whole number of seconds", addPlatform: "Add a platform", name: "Name", kind: "Kind", notes: "Notes",
  offerings: "Offerings", billingRules: "Billing rules", claims: "Claims (shown, never scored)", delete: "Delete",
  acceptance: "Acceptance checklists", acceptanceEmpty: "No acceptance bundle imported: run `breakpoint accept all --plan plan.toml` on an instance and import the bundle it writes.", check: "Check", measured: "Measured", threshold: "Threshold", verdict: "Verdict", pass: "pass", fail: "FAIL", checksFailed: "check(s) failed", runsOf: "runs",
  importTo: "Import into", importFiles: "Import files…", importPath: "Import from a path", dropHere: "Drop log files here",
  formatsHint: "nvidia-smi (CSV, dmon, -q, plain table), gpustat, DCGM and Prometheus, Breakpoint probe logs, attempt and billing tables — plain, gzipped or UTF-16; the format is read from the content.",
  cancel: "Cancel", file: "File", status: "Status", format: "Format", samples: "Samples", records: "Records", gaps: "Gaps", warnings: "Warnings",
  kindCol: "Kind", all: "All", filterText: "Filter by file or format", source: "Source", started: "Started", hours: "Hours", gpus: "GPUs", runDetail: "Run", events: "Events", eventKind: "Kind", duration: "Duration", detail: "Detail", allGpus: "all", counted: "Counted", countedYes: "yes", countedApplication: "no (application)", healthChecks: "Health checks", test: "Test", deliveryProblems: "Delivery problems", inventory: "Inventory",
  noGpuTitle: "No NVIDIA GPU on this machine", noGpuText: "The probe reads GPUs through the NVIDIA driver. Run `breakpoint probe sample` on a rented instance and import its log here, or import nvidia-smi, dmon or DCGM logs.",
  goImport: "Go to Runs to import", workload: "Workload", compute: "Price it", billed: "Billed", amount: "Amount", fair: "Fair (compute only, per second)", overcharge: "Overcharge", rule: "Rule", price: "Price /h",
  exportTitle: "Decision-matrix PDF", language: "Language", title: "Title", date: "Date", path: "Save to", choose: "Choose…", exportPdf: "Export PDF", openPdf: "Open it", wrote: "Wrote",
  database: "Database", version: "Version",
};

const zh: typeof en = {
  campaigns: "启动测试", campaignsIntro: "启动测试通过平台自己的工具（配方，见 docs/campaigns.md）启动实例，计时 提交 → 分配 → 镜像就绪 → 首次计算，并销毁所有实例。确认费用之前不会启动任何实例。", recipe: "配方", scenario: "场景", baseline: "基线（间隔数秒）", peak: "高峰（同时）", mixed: "混合（多种规格同时）", spacingS: "间隔（秒）", image: "镜像", fromRecipe: "取自配方", planCampaign: "显示计划与费用", runCampaign: "运行测试…", stopCampaign: "停止（销毁实例）", waiting: "等待", campaign: "测试活动", nothingRecorded: "未记录", recordedAsRun: "已记录为运行", pastCampaigns: "历史测试", ledger: "台账", worstCase: "最长", each: "每个", atMost: "最多", unpriced: "无价格", instance: "实例", startsAfter: "开始于", commands: "命令", attempts: "尝试", failureRate: "失败率", noCampaigns: "尚无测试。", ledgerEmpty: "没有未销毁的实例：启动的实例都已销毁。", ledgerHolds: "台账显示以下实例可能仍在运行（并产生费用）：", cleanUp: "销毁它们", since: "自", teardown: "销毁命令", noIdCheckConsole: "无 ID：请在控制台检查",
  rankings: "排名", platforms: "平台", runs: "运行", probe: "探测", billing: "计费", export: "导出", settings: "设置",
  importPrometheus: "从 Prometheus 导入", prometheusHint: "从 Prometheus（或 Thanos、VictoriaMetrics、Mimir）拉取集群的 DCGM 历史：每个节点一条运行记录，全部成功或全部不存；已拉取的时间段不会重复添加。Bearer 令牌从您指定的环境变量读取，不在此输入（见 docs/fleet.md）。",
  promUrl: "服务器", from: "起", to: "止", selector: "选择器", tokenEnv: "令牌变量", pull: "拉取", node: "节点", requests: "次请求", retried: "次重试",
  bundles: "工作区数据包", bundlesHint: "一个文件包含平台、其运行记录与权重配置：交给同事或评审，或合并对方的数据包。合并不会重复添加，也不会覆盖任何内容（见 docs/bundles.md）。",
  bundleFile: "数据包文件", exportBundle: "导出数据包", importBundle: "导入数据包", working: "处理中…", merged: "已合并", runsAdded: "条运行已添加", alreadyHere: "条已存在",
  platformsAdded: "新增平台", keepOurs: "保留我方（对方运行并入我方平台）", renameTheirs: "以新名称导入对方平台",
  energyCol: "能耗（GPU / 设施）", energyOfRun: "GPU 实测耗电", co2: "CO₂", noPower: "未采样功率",
  energyNote: "能耗：按各平台运行中实测的 GPU 功率（计算 / 等待）估算该作业；设施能耗 = GPU × PUE，CO₂ = 设施能耗 × 电网排放因子——均为估算，而非实测。* 为默认系数（PUE 1.58，570.3 g CO₂/kWh，见 docs/energy.md）；可用 `breakpoint platform energy` 设置平台的系数。",
  history: "历史", degradation: "性能退化", until: "截止", show: "显示", degraded: "已退化", noHistory: "此时间窗口内，该平台没有任何运行测得指标。",
  historyHint: "每次运行一个点，按测量时间排序。若最近三次运行均差于此前每一次，且差距超过三个稳健离散度和 10 %，则标记该指标（见 docs/history.md）。",
  tooFewRuns: "运行次数不足，无法检验退化", noDegradation: "未退化", measuredAt: "测量时间",
  profile: "权重方案", saveProfile: "另存为方案…", profileName: "方案名称",
  startup: "启动", sustain: "持续", switch: "切换", overall: "综合", coverage: "覆盖率", rank: "排名", platform: "平台", evidence: "运行数", filterPlatforms: "按名称筛选平台",
  notMeasured: "未测量", insufficient: "证据不足",
  emptyTitle: "还没有平台", emptyText: "加载演示工作区看看 Breakpoint 的效果，或添加平台并导入日志。",
  loadDemo: "加载演示工作区", demoBanner: "演示数据 —— 依据《国产 GPU 云平台四断点评测》中的匿名平台 A–F 模拟生成。",
  robustness: "稳健性", pFirst: "排名第一的概率", fragile: "领先不稳", flips: "翻转距离",
  metric: "指标", value: "数值", range: "多次运行范围", scoreCol: "得分", weight: "权重", runsCol: "运行（编号、文件、哈希）", close: "关闭",
  addTemplate: "从模板添加", add: "添加", accelerator: "加速卡", count: "数量", currency: "币种", pricePerHour: "按需 / 卡时", spotPerHour: "竞价 / 卡时", addOffering: "添加规格", offering: "规格", checkDelivery: "检查本机", deliveryCheck: "按订单核对交付", mismatches: "处与订单不符", deliveryMatches: "交付与订单一致", interval: "采样间隔", startSampling: "开始采样", stopSampling: "停止", sampling: "采样中", liveSampling: "实时采样（每卡功率）", importIt: "可在“运行”中导入", wrapTitle: "或在探针下运行工作负载", running: "运行中", workloadCommand: "命令", folder: "目录", runWorkload: "在探针下运行",
  workloadHint: "在系统对话框中确认后以你的身份运行（不经过 shell）；输出写入日志旁的文件。停止时先发送 SIGTERM，10 秒后发送 SIGKILL。",
  exitCode: "退出码", bySignal: "被信号终止", stoppedByYou: "已停止", wallTime: "总耗时", gpuBusy: "GPU 忙碌", firstActivity: "首次 GPU 活动",
  neverUsedGpu: "从未（未使用 GPU）", unreadableGpu: "无法读取", unknownNoUtil: "未知（GPU 不报告利用率）", gpuUseUnknown: "未知（GPU 既不报告利用率也不报告进程；MIG？）", output: "输出", importLog: "导入日志", imported: "已导入", alreadyImported: "已导入过", subject: "对象", unit: "单位", claimText: "原文", addClaim: "添加声明", mode: "计费方式", unitSeconds: "计费单位（秒）", minimumSeconds: "最低计费（秒）", rounding: "取整", billsIoWait: "I/O 等待计费", billsIdle: "空闲计费", setRule: "设置规则", wholeSecondsAtLeastOne: "整数秒，至少 1", wholeSeconds: "整数秒", addPlatform: "添加平台", name: "名称", kind: "类型", notes: "备注",
  offerings: "规格", billingRules: "计费规则", claims: "声明（仅展示，不计分）", delete: "删除",
  acceptance: "验收检查清单", acceptanceEmpty: "尚未导入验收包：在实例上运行 `breakpoint accept all --plan plan.toml`，再导入它写出的包。", check: "检查项", measured: "实测", threshold: "阈值", verdict: "结论", pass: "通过", fail: "未通过", checksFailed: "项未通过", runsOf: "运行",
  importTo: "导入到", importFiles: "导入文件…", importPath: "按路径导入", dropHere: "把日志文件拖到这里",
  formatsHint: "nvidia-smi（CSV、dmon、-q、默认表格）、gpustat、DCGM 与 Prometheus、Breakpoint 探针日志、启动/切换/演练/账单表格——纯文本、gzip 或 UTF-16 均可；格式由内容识别。",
  cancel: "取消", file: "文件", status: "状态", format: "格式", samples: "样本", records: "记录", gaps: "中断", warnings: "警告",
  kindCol: "类型", all: "全部", filterText: "按文件或格式筛选", source: "来源", started: "开始", hours: "小时", gpus: "GPU", runDetail: "运行", events: "事件", eventKind: "类型", duration: "持续", detail: "详情", allGpus: "全部", counted: "计入", countedYes: "是", countedApplication: "否（应用故障）", healthChecks: "健康检查", test: "测试", deliveryProblems: "交付问题", inventory: "硬件清单",
  noGpuTitle: "本机没有 NVIDIA GPU", noGpuText: "探测通过 NVIDIA 驱动读取 GPU。请在租用的实例上运行 `breakpoint probe sample` 并在此导入日志，或导入 nvidia-smi、dmon、DCGM 日志。",
  goImport: "去“运行”页导入", workload: "任务", compute: "计算费用", billed: "计费时长", amount: "金额", fair: "公平价（仅计算、按秒）", overcharge: "多收", rule: "规则", price: "单价/小时",
  exportTitle: "决策矩阵 PDF", language: "语言", title: "标题", date: "日期", path: "保存到", choose: "选择…", exportPdf: "导出 PDF", openPdf: "打开", wrote: "已写入",
  database: "数据库", version: "版本",
};

export type Key = keyof typeof en;
let current: "en" | "zh" = globalThis.navigator?.language?.startsWith("zh") ? "zh" : "en";

export function setLanguage(lang: string): void {
  current = lang === "zh" ? "zh" : "en";
  document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
}

export function language(): "en" | "zh" {
  return current;
}

export function t(key: Key): string {
  return (current === "zh" ? zh : en)[key];
}

export const dictionaries = { en, zh };
