//! The decision matrix in the categories of the industry's rating of GPU
//! clouds (SemiAnalysis ClusterMAX 2.0): every measured metric placed in
//! the category it evidences, each category's expected checks said as
//! measured or not per platform with the command that measures each, and
//! the results of a `cmax` audit (ClusterMAX's own tool) shown as the audit
//! wrote them, with its date, for what Breakpoint does not measure.
//!
//! Every face shows this view as it comes: the strings are final, in the
//! language asked for.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::catalogue::METRICS;
use crate::catalogue::keys;
use crate::domain::Category;
use crate::domain::audit::{Audit, AuditResult, AuditStatus, CMAX_AUDIT};
use crate::error::Result;
use crate::metrics::checks_ran::{self, CheckRan};
use crate::presentation;
use crate::ranking::RankRequest;
use crate::store::Store;

/// What a category's evidence is, said once for every face.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterMaxView {
    /// The platforms, in the ranking's order: every per-platform list below
    /// follows it.
    pub platforms: Vec<String>,
    pub categories: Vec<CategoryView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CategoryView {
    pub category: Category,
    /// "Reliability", "可靠性".
    pub name: String,
    /// "measured by Breakpoint", "a cmax audit's results", or why neither.
    pub evidenced_by: String,
    /// The category's metrics measured on at least one platform.
    pub metrics: Vec<MetricLine>,
    /// The checks the rating expects here, each with its command.
    pub checks: Vec<CheckLine>,
    /// Each audited platform's results for the category.
    pub audits: Vec<AuditLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricLine {
    pub key: &'static str,
    pub name: String,
    /// Per platform: "12.5 %", or "–" where not measured.
    pub figures: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckLine {
    pub name: String,
    /// How to measure it: the command, then how to import what it prints.
    pub command: String,
    /// Per platform: what measured it ("2 runs", "12.5 %"), `None` where
    /// nothing did.
    pub measured: Vec<Option<String>>,
    /// Breakpoint does not read this check's output yet: the command shows
    /// it, and nothing here can say it was measured.
    pub not_read: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct AuditLine {
    pub platform: String,
    /// "cmax audit of example-b300 (login-0), 2026-06-03: 2 fail, 1 warning,
    /// 3 pass, 6 not applicable".
    pub said: String,
    /// The results that need a look, failures first: "fail —
    /// securityVersions.nvidiaDriver: 580.126.09, minimum 580.159.03".
    pub results: Vec<String>,
}

/// Where a check's measurement is read from.
#[derive(Debug, Clone, Copy)]
enum Evidence {
    /// One of the field's checks, in a run's evidence.
    Ran(CheckRan),
    /// A metric of the catalogue: measured where it has a value.
    Metric(&'static str),
    /// A check whose output Breakpoint does not read yet.
    NotRead,
}

struct Expected {
    category: Category,
    name: &'static str,
    name_zh: &'static str,
    evidence: Evidence,
    /// The command for a check read from runs (a metric's is the catalogue
    /// plan's, `decision::gathered_by`).
    command: &'static str,
}

const IMPORT: &str = ", then breakpoint import FILE --platform P";

/// What the rating expects in each category, as named in its criteria
/// (passive and active health checks, the fabric tests, the audit).
const EXPECTED: &[Expected] = &[
    Expected {
        category: Category::Security,
        name: "Versions, isolation and exposure audited",
        name_zh: "版本、隔离与暴露面审计",
        evidence: Evidence::Ran(CheckRan::CmaxAudit),
        command: "cmax audit security (ClusterMAX's audit tool), then breakpoint import audit.values.json --platform P",
    },
    Expected {
        category: Category::Lifecycle,
        name: "Node delivered as ordered",
        name_zh: "交付与订单一致",
        evidence: Evidence::Metric(keys::STARTUP_DELIVERY_MISMATCHES),
        command: "",
    },
    Expected {
        category: Category::Lifecycle,
        name: "Start to first computation, warm image",
        name_zh: "热镜像启动到首次计算",
        evidence: Evidence::Metric(keys::STARTUP_BASELINE_P50_S),
        command: "",
    },
    Expected {
        category: Category::Orchestration,
        name: "Scheduler, containers and access audited",
        name_zh: "调度、容器与访问审计",
        evidence: Evidence::Ran(CheckRan::CmaxAudit),
        command: "cmax audit (ClusterMAX's audit tool), then breakpoint import audit.values.json --platform P",
    },
    Expected {
        category: Category::Orchestration,
        name: "A job moved between environments",
        name_zh: "作业在环境间迁移",
        evidence: Evidence::Metric(keys::SWITCH_SUCCESS_PCT),
        command: "",
    },
    Expected {
        category: Category::Storage,
        name: "Checkpoint write and data-path read",
        name_zh: "检查点写入与数据读取",
        evidence: Evidence::Metric(keys::SUSTAIN_CHECKPOINT_WRITE_S),
        command: "",
    },
    Expected {
        category: Category::Storage,
        name: "Shared storage outage drill",
        name_zh: "共享存储故障演练",
        evidence: Evidence::Metric(keys::SUSTAIN_STORAGE_DRILL),
        command: "",
    },
    Expected {
        category: Category::Networking,
        name: "NCCL all-reduce inside a node",
        name_zh: "节点内 NCCL all-reduce",
        evidence: Evidence::Ran(CheckRan::CollectiveInNode),
        command: "all_reduce_perf -b 8 -e 8G -f 2 -g 8 > nccl.txt on each node",
    },
    Expected {
        category: Category::Networking,
        name: "NCCL all-reduce across nodes, over the fabric",
        name_zh: "跨节点 NCCL all-reduce（经网络）",
        evidence: Evidence::Ran(CheckRan::CollectiveOverFabric),
        command: "mpirun -np 16 -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 all_reduce_perf -b 8 -e 8G -f 2 -g 1 > nccl.txt",
    },
    Expected {
        category: Category::Networking,
        name: "RDMA bandwidth and latency between hosts",
        name_zh: "主机间 RDMA 带宽与延迟",
        evidence: Evidence::Ran(CheckRan::Rdma),
        command: "ib_write_bw -d mlx5_0 --report_gbits HOST > ib.txt (and ib_write_lat), with ibstat's output pasted above",
    },
    Expected {
        category: Category::Networking,
        name: "NVLink CRC and replay errors (passive)",
        name_zh: "NVLink CRC 与重放错误（被动）",
        evidence: Evidence::Ran(CheckRan::NvlinkCounters),
        command: "a DCGM exporter's history with the DCGM_FI_DEV_NVLINK_*_ERROR_COUNT_TOTAL fields: breakpoint import --prometheus URL",
    },
    Expected {
        category: Category::Networking,
        name: "InfiniBand/Ethernet link flaps (passive)",
        name_zh: "InfiniBand/以太网链路抖动（被动）",
        evidence: Evidence::NotRead,
        command: "perfquery (link_downed, symbol_error), or /sys/class/infiniband/*/ports/*/counters",
    },
    Expected {
        category: Category::Networking,
        name: "Connections from the instance: time, jitter, loss",
        name_zh: "实例对外连接：耗时、抖动、丢失",
        evidence: Evidence::Metric(keys::SUSTAIN_NET_CONNECT_P95_MS),
        command: "",
    },
    Expected {
        category: Category::Reliability,
        name: "DCGM diagnostics (dcgmi diag -r 3)",
        name_zh: "DCGM 诊断（dcgmi diag -r 3）",
        evidence: Evidence::Ran(CheckRan::DcgmDiag),
        command: "dcgmi diag -r 3 > diag.txt",
    },
    Expected {
        category: Category::Reliability,
        name: "Burn-in (gpu-burn or gpu-fryer)",
        name_zh: "烤机（gpu-burn 或 gpu-fryer）",
        evidence: Evidence::Ran(CheckRan::BurnIn),
        command: "gpu_burn 600 > burn.txt (or gpu-fryer 600)",
    },
    Expected {
        category: Category::Reliability,
        name: "Silent data corruption: results compared",
        name_zh: "静默数据损坏：结果比对",
        evidence: Evidence::Ran(CheckRan::ResultsCompared),
        command: "gpu_burn 600 > burn.txt (it compares every GPU's results), or nccl-tests with -c 1",
    },
    Expected {
        category: Category::Reliability,
        name: "Host↔device copies (nvbandwidth)",
        name_zh: "主机↔设备拷贝（nvbandwidth）",
        evidence: Evidence::Ran(CheckRan::HostDeviceCopy),
        command: "nvbandwidth -t host_to_device_memcpy_ce -t device_to_host_memcpy_ce > nvb.txt (or breakpoint accept perf)",
    },
    Expected {
        category: Category::Reliability,
        name: "Xid errors over a watched run (passive)",
        name_zh: "监测期内的 Xid 错误（被动）",
        evidence: Evidence::Metric(keys::SUSTAIN_INTERRUPTIONS_PER_100H),
        command: "",
    },
    Expected {
        category: Category::Reliability,
        name: "ECC single- and double-bit counts (passive)",
        name_zh: "ECC 单比特与双比特计数（被动）",
        evidence: Evidence::Ran(CheckRan::EccCounters),
        command: "breakpoint probe sample --duration 24h -o run.jsonl (or nvidia-smi's query CSV with the ecc.errors.*.volatile.total fields, or a DCGM exporter's history)",
    },
    Expected {
        category: Category::Reliability,
        name: "A training step's throughput over hours",
        name_zh: "训练步吞吐的长时变化",
        evidence: Evidence::Metric(keys::SUSTAIN_THROUGHPUT_DECAY_PCT),
        command: "",
    },
    Expected {
        category: Category::Monitoring,
        name: "PCIe replay counters watched (passive)",
        name_zh: "PCIe 重放计数监测（被动）",
        evidence: Evidence::Ran(CheckRan::PcieReplays),
        command: "breakpoint probe sample --duration 24h -o run.jsonl, then breakpoint import run.jsonl --platform P (or a DCGM exporter's history: breakpoint import --prometheus URL)",
    },
    Expected {
        category: Category::Monitoring,
        name: "Stalled collective: busy at idle power (passive)",
        name_zh: "集合通信停滞：满载而功耗近空闲（被动）",
        evidence: Evidence::Ran(CheckRan::StalledCollective),
        command: "breakpoint probe sample --duration 24h -o run.jsonl (utilisation and power together)",
    },
    Expected {
        category: Category::Monitoring,
        name: "Bad nodes kept out after repair",
        name_zh: "修复后坏节点不再回归",
        evidence: Evidence::Metric(keys::SUSTAIN_RECURRING_BAD_PCT),
        command: "",
    },
    Expected {
        category: Category::Monitoring,
        name: "Health checks and monitoring stack audited",
        name_zh: "健康检查与监控栈审计",
        evidence: Evidence::Ran(CheckRan::CmaxAudit),
        command: "cmax audit (ClusterMAX's audit tool), then breakpoint import audit.values.json --platform P",
    },
    Expected {
        category: Category::Pricing,
        name: "Bill reconciled with measured time",
        name_zh: "账单与实测时间对账",
        evidence: Evidence::Metric(keys::BILLING_BILL_ERROR_PCT),
        command: "",
    },
    Expected {
        category: Category::Pricing,
        name: "Cost of the reference workload",
        name_zh: "参考工作负载成本",
        evidence: Evidence::Metric(keys::BILLING_REFERENCE_COST),
        command: "",
    },
    Expected {
        category: Category::Availability,
        name: "Starts at peak load",
        name_zh: "高峰负载下的启动",
        evidence: Evidence::Metric(keys::STARTUP_PEAK_P50_S),
        command: "",
    },
    Expected {
        category: Category::Availability,
        name: "Start failures",
        name_zh: "启动失败",
        evidence: Evidence::Metric(keys::STARTUP_FAILURE_RATE_PCT),
        command: "",
    },
];

/// The category an audit's check evidences, by where the audit keeps it;
/// `None` for who, where and when it ran.
fn audit_category(check: &str) -> Option<Category> {
    let top = check.split('.').next().unwrap_or(check);
    Some(match top {
        "securityVersions"
        | "security"
        | "hbm_memory_exposure"
        | "vm_iommu"
        | "arm_smmu_virtualization" => Category::Security,
        "containers"
        | "slurm"
        | "access"
        | "lmod"
        | "software"
        | "orchestration"
        | "partitions"
        | "resourceLimits"
        | "kubelet_cpu_manager_policy"
        | "kubernetes_nodes_proxy" => Category::Orchestration,
        "networking" | "nccl_topo_file" | "nccl_ib_qps" | "nic_topology" => Category::Networking,
        "storage" | "driveConfig" => Category::Storage,
        "healthChecks" => Category::Monitoring,
        "gpus" | "gpu_controls" | "nodes" => Category::Reliability,
        _ => return None,
    })
}

/// The view of every platform under the request's window and currency.
pub fn view(store: &Store, request: &RankRequest, zh: bool) -> Result<ClusterMaxView> {
    // The figures alone: no metric's sources are read.
    let request = RankRequest {
        sources: crate::ranking::Sources::None,
        ..request.clone()
    };
    let scored = crate::ranking::scored(store, &request)?;
    let platforms = &scored.ranking.platforms;
    // Each platform's runs in the window that measure it: which checks
    // they hold, and its latest audit.
    let mut ran: Vec<BTreeMap<CheckRan, usize>> = Vec::with_capacity(platforms.len());
    let mut audits: Vec<Option<(Audit, usize)>> = Vec::with_capacity(platforms.len());
    for p in platforms {
        let mut checks = BTreeMap::new();
        let mut found: Vec<Audit> = Vec::new();
        for run in store.runs(Some(p.platform.id))? {
            if !request.window.contains(&run) || crate::metrics::not_evidence(&run).is_some() {
                continue;
            }
            for check in checks_ran::ran_in(&run) {
                *checks.entry(check).or_insert(0) += 1;
            }
            if let Some(audit) = run
                .metadata
                .get(CMAX_AUDIT)
                .and_then(|v| serde_json::from_value::<Audit>(v.clone()).ok())
            {
                found.push(audit);
            }
        }
        ran.push(checks);
        // The latest audit speaks for the platform; the others are counted.
        found.sort_by_key(|a| a.audited_at);
        let earlier = found.len().saturating_sub(1);
        audits.push(found.pop().map(|a| (a, earlier)));
    }
    let currency = scored.money.currency.as_ref().map(|c| c.currency.clone());
    let figure_of = |p: usize, key: &str| {
        platforms[p]
            .breakpoints
            .iter()
            .flat_map(|b| &b.metrics)
            .find(|m| m.key == key)
            .and_then(|m| {
                m.value
                    .map(|v| presentation::metric_value(v, m.unit, currency.as_deref(), zh))
            })
    };
    let categories = Category::ALL
        .iter()
        .map(|&category| {
            let metrics: Vec<MetricLine> = METRICS
                .iter()
                .filter(|m| m.category == category)
                .filter_map(|m| {
                    let figures: Vec<Option<String>> =
                        (0..platforms.len()).map(|p| figure_of(p, m.key)).collect();
                    figures.iter().any(Option::is_some).then(|| MetricLine {
                        key: m.key,
                        name: m.name_in(zh).to_string(),
                        figures: figures
                            .into_iter()
                            .map(|f| f.unwrap_or_else(|| "–".into()))
                            .collect(),
                    })
                })
                .collect();
            let checks: Vec<CheckLine> = EXPECTED
                .iter()
                .filter(|e| e.category == category)
                .map(|e| CheckLine {
                    name: (if zh { e.name_zh } else { e.name }).to_string(),
                    command: match e.evidence {
                        Evidence::Metric(key) => crate::decision::gathered_by(key).to_string(),
                        Evidence::Ran(_) if !e.command.contains("breakpoint import") => {
                            format!("{}{IMPORT}", e.command)
                        }
                        _ => e.command.to_string(),
                    },
                    measured: (0..platforms.len())
                        .map(|p| match e.evidence {
                            Evidence::Ran(check) => ran[p].get(&check).map(|&n| runs(n, zh)),
                            Evidence::Metric(key) => figure_of(p, key)
                                .map(|_| (if zh { "已测" } else { "✓" }).to_string()),
                            Evidence::NotRead => None,
                        })
                        .collect(),
                    not_read: matches!(e.evidence, Evidence::NotRead),
                })
                .collect();
            let audit_lines: Vec<AuditLine> = platforms
                .iter()
                .zip(&audits)
                .filter_map(|(p, audit)| {
                    let (audit, earlier) = audit.as_ref()?;
                    audit_line(&p.platform.name, audit, *earlier, category, zh)
                })
                .collect();
            CategoryView {
                category,
                name: category.name_in(zh).to_string(),
                evidenced_by: evidenced_by(
                    category,
                    !metrics.is_empty(),
                    !audit_lines.is_empty(),
                    zh,
                ),
                metrics,
                checks,
                audits: audit_lines,
            }
        })
        .collect();
    Ok(ClusterMaxView {
        platforms: platforms.iter().map(|p| p.platform.name.clone()).collect(),
        categories,
    })
}

fn runs(n: usize, zh: bool) -> String {
    match (zh, n) {
        (true, n) => format!("{n} 次运行"),
        (false, 1) => "1 run".into(),
        (false, n) => format!("{n} runs"),
    }
}

fn evidenced_by(category: Category, measured: bool, audited: bool, zh: bool) -> String {
    let has_metrics = METRICS.iter().any(|m| m.category == category);
    let said = match (measured, audited, zh) {
        (true, true, false) => "measured by Breakpoint; a cmax audit's results beside",
        (true, true, true) => "由 Breakpoint 实测；并列 cmax 审计结果",
        (true, false, false) => "measured by Breakpoint",
        (true, false, true) => "由 Breakpoint 实测",
        (false, true, false) if has_metrics => {
            "a cmax audit's results; nothing measured by Breakpoint yet"
        }
        (false, true, true) if has_metrics => "cmax 审计结果；Breakpoint 尚无实测",
        (false, true, false) => "a cmax audit's results (Breakpoint measures none of it)",
        (false, true, true) => "cmax 审计结果（Breakpoint 不测量此项）",
        (false, false, _) if category == Category::Partnerships => {
            if zh {
                "Breakpoint 与 cmax 审计均不测量：ClusterMAX 依据服务商的合作关系评定"
            } else {
                "measured by neither Breakpoint nor a cmax audit: ClusterMAX rates it from the provider's relationships"
            }
        }
        (false, false, false) => "nothing measured yet: the checks below say how",
        (false, false, true) => "尚无实测：下列检查说明如何测量",
    };
    said.to_string()
}

/// A platform's audit results in one category; `None` where the audit
/// recorded nothing for it.
fn audit_line(
    platform: &str,
    audit: &Audit,
    earlier: usize,
    category: Category,
    zh: bool,
) -> Option<AuditLine> {
    let results: Vec<&AuditResult> = audit
        .results
        .iter()
        .filter(|r| audit_category(&r.check) == Some(category))
        .collect();
    if results.is_empty() {
        return None;
    }
    let mut counts: Vec<(AuditStatus, usize)> = Vec::new();
    for r in &results {
        match counts.iter_mut().find(|(s, _)| *s == r.status) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.status.clone(), 1)),
        }
    }
    counts.sort();
    let word = |s: &AuditStatus| if zh { s.word_zh() } else { s.word() };
    let tally = counts
        .iter()
        .map(|(s, n)| format!("{n} {}", word(s)))
        .collect::<Vec<_>>()
        .join(", ");
    let of = match (&audit.cluster, &audit.host) {
        (Some(c), Some(h)) => format!(" {c} ({h})"),
        (Some(c), None) => format!(" {c}"),
        (None, Some(h)) => format!(" {h}"),
        (None, None) => String::new(),
    };
    let date = audit.audited_at.map_or_else(
        || {
            if zh {
                "未注明日期".to_string()
            } else {
                "undated".to_string()
            }
        },
        |t| t.strftime("%Y-%m-%d").to_string(),
    );
    let mut said = if zh {
        format!("cmax 审计{of}，{date}：{tally}")
    } else {
        format!("cmax audit of{of}, {date}: {tally}")
    };
    if earlier > 0 {
        said.push_str(&if zh {
            format!("（另有 {earlier} 次较早审计）")
        } else {
            format!(" (the latest of {} audits)", earlier + 1)
        });
    }
    let results = results
        .iter()
        .filter(|r| r.status.needs_a_look())
        .map(|r| {
            let mut line = format!("{} — {}", word(&r.status), r.check);
            if !r.detail.is_empty() {
                line.push_str(&format!(": {}", r.detail));
            }
            line
        })
        .collect();
    Some(AuditLine {
        platform: platform.to_string(),
        said,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Breakpoint;

    #[test]
    fn every_metric_sits_in_a_category_its_breakpoint_evidences() {
        for m in METRICS {
            let allowed: &[Category] = match m.breakpoint {
                Breakpoint::Startup => &[Category::Lifecycle, Category::Availability],
                Breakpoint::Sustain => &[
                    Category::Reliability,
                    Category::Monitoring,
                    Category::Networking,
                    Category::Storage,
                ],
                Breakpoint::Switch => &[Category::Orchestration, Category::Storage],
                Breakpoint::Billing => &[Category::Pricing],
            };
            assert!(allowed.contains(&m.category), "{}: {}", m.key, m.category);
        }
    }

    #[test]
    fn every_expected_check_names_a_metric_of_its_category_or_a_command() {
        for e in EXPECTED {
            match e.evidence {
                Evidence::Metric(key) => {
                    let m = crate::catalogue::metric(key)
                        .unwrap_or_else(|| panic!("{}: no metric {key}", e.name));
                    assert_eq!(m.category, e.category, "{}", e.name);
                    assert!(e.command.is_empty(), "{}: the plan's command", e.name);
                }
                Evidence::Ran(_) | Evidence::NotRead => {
                    assert!(!e.command.is_empty(), "{}", e.name)
                }
            }
        }
        // Partnerships aside, every category expects something.
        for c in Category::ALL {
            let expected = EXPECTED.iter().filter(|e| e.category == *c).count();
            assert_eq!(expected == 0, *c == Category::Partnerships, "{c}");
        }
    }

    #[test]
    fn an_audits_places_fall_in_the_ratings_categories() {
        assert_eq!(
            audit_category("securityVersions.nvidiaDriver"),
            Some(Category::Security)
        );
        assert_eq!(
            audit_category("containers.pyxis"),
            Some(Category::Orchestration)
        );
        assert_eq!(
            audit_category("healthChecks.dcgmDiagnostics.diagR1"),
            Some(Category::Monitoring)
        );
        assert_eq!(audit_category("audit.timestamp"), None);
    }
}
