//! Built-in platform templates: the platforms the source documents name,
//! with their kind and the figures those documents state — as claims with a
//! source, never as measurements. No prices: the documents give none, and an
//! invented price would be worse than an empty field.

use crate::domain::PlatformKind;

pub struct ClaimTemplate {
    pub subject: &'static str,
    pub value: Option<f64>,
    pub unit: Option<&'static str>,
    pub text: &'static str,
    pub source: &'static str,
}

pub struct PlatformTemplate {
    pub name: &'static str,
    /// Latin spellings accepted by `--template` (lower case).
    pub aliases: &'static [&'static str],
    pub kind: PlatformKind,
    pub notes: &'static str,
    pub claims: &'static [ClaimTemplate],
    /// The zone its machines' clocks keep (their region's): times a log
    /// writes without a zone are read in it unless `--tz` says otherwise.
    /// `None` for a provider of many regions.
    pub zone: Option<&'static str>,
    /// How the provider says it bills on demand, with where it says so;
    /// `None` where no published rule is at hand.
    pub billing: Option<TemplateBilling>,
}

/// A provider's published on-demand billing rule.
pub struct TemplateBilling {
    pub granularity_s: u32,
    pub minimum_s: u32,
    pub source: &'static str,
}

/// China Standard Time: the zone of every provider the templates name.
const CHINA: &str = "Asia/Shanghai";

const STABILITY_REVIEW: &str = "7-day high-load stability review (AutoDL, 润云, 阿里云, 腾讯云)";
const PARTNER_ASSESSMENT: &str = "long-term partner assessment of GPU clouds";

const fn claim(
    subject: &'static str,
    value: Option<f64>,
    unit: Option<&'static str>,
    text: &'static str,
    source: &'static str,
) -> ClaimTemplate {
    ClaimTemplate {
        subject,
        value,
        unit,
        text,
        source,
    }
}

pub const TEMPLATES: &[PlatformTemplate] = &[
    PlatformTemplate {
        name: "AutoDL",
        aliases: &["autodl"],
        kind: PlatformKind::AiNative,
        zone: Some(CHINA),
        billing: None,
        notes: "GPU rental aimed at individuals and research groups (notebook and terminal workflow).",
        claims: &[
            claim(
                "availability",
                Some(99.98),
                Some("%"),
                "annualised availability in a 7-day high-load test",
                STABILITY_REVIEW,
            ),
            claim(
                "stability rank",
                Some(1.0),
                Some("of 4"),
                "ranked 1st of 4 on overall stability",
                STABILITY_REVIEW,
            ),
            claim(
                "suitability",
                None,
                None,
                "suited to personal and academic experiments; enterprises should apply their own criteria",
                PARTNER_ASSESSMENT,
            ),
        ],
    },
    PlatformTemplate {
        name: "润云",
        aliases: &["runyun", "run-yun"],
        kind: PlatformKind::AiNative,
        zone: Some(CHINA),
        billing: None,
        notes: "Specialised AI compute platform with distributed nodes and RDMA interconnect.",
        claims: &[
            claim(
                "availability",
                Some(99.97),
                Some("%"),
                "annualised availability in a 7-day high-load test",
                STABILITY_REVIEW,
            ),
            claim(
                "stability rank",
                Some(2.0),
                Some("of 4"),
                "ranked 2nd of 4 on overall stability",
                STABILITY_REVIEW,
            ),
            claim(
                "failover",
                None,
                None,
                "tasks migrate automatically within seconds when a node fails",
                STABILITY_REVIEW,
            ),
        ],
    },
    PlatformTemplate {
        name: "阿里云",
        aliases: &["aliyun", "alibaba-cloud", "alibaba"],
        kind: PlatformKind::Hyperscaler,
        zone: Some(CHINA),
        billing: None,
        notes: "Public cloud; GPU instances integrate with VPC, access control, snapshots and billing tags.",
        claims: &[
            claim(
                "stability rank",
                Some(3.0),
                Some("of 4"),
                "ranked 3rd of 4 on overall stability; GPU stock can run short at peak times",
                STABILITY_REVIEW,
            ),
            claim(
                "billing modes",
                None,
                None,
                "on-demand, monthly subscription and spot; spot instances may be released on price or stock",
                PARTNER_ASSESSMENT,
            ),
        ],
    },
    PlatformTemplate {
        name: "腾讯云",
        aliases: &["tencent", "tencent-cloud", "tencentcloud"],
        kind: PlatformKind::Hyperscaler,
        zone: Some(CHINA),
        billing: None,
        notes: "Public cloud; GPU compute for production, HAI for quick AI prototypes.",
        claims: &[
            claim(
                "availability",
                Some(99.94),
                Some("%"),
                "annualised availability in a 7-day high-load test",
                STABILITY_REVIEW,
            ),
            claim(
                "stability rank",
                Some(4.0),
                Some("of 4"),
                "ranked 4th of 4 on overall stability; network latency jitter in long multi-GPU training",
                STABILITY_REVIEW,
            ),
        ],
    },
    PlatformTemplate {
        name: "智星云",
        aliases: &["zhixingyun", "zhi-xing-yun"],
        kind: PlatformKind::AiNative,
        zone: Some(CHINA),
        billing: None,
        notes: "GPU cloud hosts, containers, bare metal and enterprise clusters.",
        claims: &[claim(
            "accelerators offered",
            None,
            None,
            "H100, A100, A800, A6000, A5000, A40, A30, V100, RTX 5090, 4090, 3090 and some domestic accelerators; stock varies",
            PARTNER_ASSESSMENT,
        )],
    },
    PlatformTemplate {
        name: "百度智能云",
        aliases: &["baidu", "baidu-cloud", "baidu-ai-cloud"],
        kind: PlatformKind::Hyperscaler,
        zone: Some(CHINA),
        billing: None,
        notes: "Public cloud with GPU monitoring and fault detection.",
        claims: &[claim(
            "diagnostics",
            None,
            None,
            "provides GPU monitoring and fault-detection capabilities",
            PARTNER_ASSESSMENT,
        )],
    },
    PlatformTemplate {
        name: "华为云",
        aliases: &["huawei", "huawei-cloud", "huaweicloud"],
        kind: PlatformKind::Hyperscaler,
        zone: Some(CHINA),
        billing: None,
        notes: "Public cloud offering NVIDIA GPUs and Ascend accelerators.",
        claims: &[claim(
            "accelerators offered",
            None,
            None,
            "NVIDIA GPUs and Ascend AI compute; moving from CUDA involves framework, operator and precision work",
            PARTNER_ASSESSMENT,
        )],
    },
    PlatformTemplate {
        name: "UCloud",
        aliases: &["ucloud"],
        kind: PlatformKind::Hyperscaler,
        zone: Some(CHINA),
        billing: None,
        notes: "Public cloud; spot GPU instances suit interruptible, checkpointed work.",
        claims: &[claim(
            "interruption",
            None,
            None,
            "spot GPU instances may be reclaimed; this is part of the product",
            PARTNER_ASSESSMENT,
        )],
    },
    PlatformTemplate {
        name: "AWS",
        aliases: &["aws", "amazon", "ec2"],
        kind: PlatformKind::Hyperscaler,
        zone: None,
        billing: Some(TemplateBilling {
            granularity_s: 1,
            minimum_s: 60,
            source: "Amazon EC2 On-Demand pricing: Linux instances are billed per second, with a minimum of 60 seconds",
        }),
        notes: "Amazon Web Services EC2 GPU instances (P and G families), priced in USD by region; its price list and SkyPilot's catalog import as price catalogs.",
        claims: &[],
    },
];

/// Find a template by its name or a Latin alias (case-insensitive).
pub fn find(name: &str) -> Option<&'static PlatformTemplate> {
    let wanted = name.trim().to_lowercase();
    TEMPLATES
        .iter()
        .find(|t| t.name.to_lowercase() == wanted || t.aliases.contains(&wanted.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_found_by_name_or_alias() {
        assert_eq!(find("阿里云").map(|t| t.name), Some("阿里云"));
        assert_eq!(find("AliYun").map(|t| t.name), Some("阿里云"));
        assert_eq!(find("autodl").map(|t| t.name), Some("AutoDL"));
        assert!(find("nowhere").is_none());
    }

    #[test]
    fn every_seed_platform_has_a_template() {
        for name in [
            "AutoDL",
            "润云",
            "阿里云",
            "腾讯云",
            "智星云",
            "百度智能云",
            "华为云",
            "UCloud",
        ] {
            assert!(find(name).is_some(), "{name}");
        }
    }
}
