//! The four source documents the method is drawn from, by the names the
//! rest of the product cites them with. A metric's reason (`why`) cites a
//! document by its name; `docs/sources.md` is generated from here and from
//! the catalogue, so which anchors come from which document cannot drift
//! from the reasons themselves.

use super::catalog::{self, MetricDef};
use crate::domain::Breakpoint;

pub struct SourceDocument {
    /// How user-facing text cites it ("the four-breakpoint review, §6.2").
    pub name: &'static str,
    /// A phrase every citation of it contains (lower case): reasons also
    /// say "the stability review" or "the total-cost guide".
    pub cited_as: &'static [&'static str],
    /// Its own title, in its own language (the documents are Chinese).
    pub title: &'static str,
    /// The title in English.
    pub title_en: &'static str,
    /// What it gives the product.
    pub contributes: &'static str,
}

pub const DOCUMENTS: &[SourceDocument] = &[
    SourceDocument {
        name: "the four-breakpoint review",
        cited_as: &["four-breakpoint review"],
        title: "2026年国内GPU算力云平台测评",
        title_en: "Domestic GPU cloud platforms reviewed, 2026",
        contributes: "The four breakpoints themselves (§2.2) and their measurements: startup at baseline, peak and mixed load, on cold and warm images (§3.1); 48 h sustain sampling every 30 s of power, temperature, memory and utilisation, and its monitoring script (§3.2); hidden throttling (an A100 sliding from 250 W to 228 W while the console still said 92 % busy, 17 % less throughput) and the 83 °C throttle point; the switch matrix of five standard environments, 37 manual steps, numeric drift by relative L2 error, operator coverage (§3.3, §4.3); billing granularity, the compute / queue / io-wait split, billed compute against seconds of utilisation above 10 %, and the worked bill (38.40 on an hourly ceiling against 21.82 per second of compute); the PCIe x8-for-x16 trap; the engineer's checklist (§6.2, Breakpoint's acceptance run) and the decision tree by scenario (§6.1, the weight presets); energy per job (§6.3). Its anonymised platforms A–F are the demo workspace.",
    },
    SourceDocument {
        name: "the 7-day stability review",
        cited_as: &["stability review"],
        title: "GPU算力平台稳定性实测排名",
        title_en: "GPU compute platforms: stability measured and ranked",
        contributes: "A seven-day high-load test of AutoDL, 润云, 阿里云 and 腾讯云 on five dimensions: annualised availability, abnormal interruption frequency, network latency jitter, failover recovery speed and checkpoint-resume stability. Its figures are kept as claims with their source in the platform templates; its dimensions are the network and failover checks of the acceptance run.",
    },
    SourceDocument {
        name: "the long-term partner assessment",
        cited_as: &["partner assessment"],
        title: "业内公认的最靠谱GPU平台有哪些？从“长期合作资格”而不是单次体验重新判断",
        title_en: "Which GPU platforms are reliable? Judged as long-term partners, not by one good run",
        contributes: "Whether the delivered GPU is what was described (model, memory, driver, CUDA, CPU, RAM, multi-GPU topology): the delivery check; whether work resumes or migrates after an interruption, and the fault drills (kill the process, force out-of-memory, a bad data path, recreate the instance, resume from a checkpoint): the fault-drill records and the failover drill; whether every bill line traces to a resource.",
    },
    SourceDocument {
        name: "the total-cost guide",
        cited_as: &["total-cost guide"],
        title: "GPU算力需求还在增长，平台也越来越多（六家平台的资源、费用、稳定性与上手难度）",
        title_en: "Six GPU platforms by resources, cost, stability and ease of use",
        contributes: "Compare the total cost of finishing a job, not the price per card-hour (the cost per useful GPU-hour); the same model is not the same configuration (PCIe against SXM, NVLink and NVSwitch topology: the delivery check's form factor and interconnect); stability runs of 24–72 h recording utilisation, throughput, interruptions and checkpoint recovery.",
    },
];

/// The documents a reason cites.
pub fn cited_by(why: &str) -> Vec<&'static SourceDocument> {
    let why = why.to_lowercase();
    DOCUMENTS
        .iter()
        .filter(|d| d.cited_as.iter().any(|phrase| why.contains(phrase)))
        .collect()
}

/// `docs/sources.md`.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Sources\n\nGenerated from `crates/core/src/metrics/sources.rs` and the metric catalogue; do not edit by hand.\n\n\
         Breakpoint's method is drawn from four public documents, written in Chinese. The product cites them by the names below. \
         Figures they state are their authors' claims: Breakpoint keeps such figures as *claims with a source*, never as measurements, \
         and uses them to choose where a metric's scoring anchors lie.\n",
    );
    for d in DOCUMENTS {
        out.push_str(&format!(
            "\n## {}\n\n*{}* ({})\n\n{}\n",
            capitalised(d.name),
            d.title,
            d.title_en,
            d.contributes
        ));
        let anchored: Vec<&MetricDef> = all_metrics()
            .filter(|m| cited_by(m.why).iter().any(|c| c.name == d.name))
            .collect();
        if !anchored.is_empty() {
            out.push_str("\nAnchors and reasons drawn from it:\n\n");
            for m in anchored {
                out.push_str(&format!("- `{}` — {}\n", m.key, m.name));
            }
        }
    }
    out.push_str("\n## Chosen here\n\nThese metrics' anchors cite no document; each reason says why they lie where they do (`docs/metrics.md`):\n\n");
    for m in all_metrics().filter(|m| cited_by(m.why).is_empty()) {
        out.push_str(&format!("- `{}` — {}\n", m.key, m.name));
    }
    out
}

fn all_metrics() -> impl Iterator<Item = &'static MetricDef> {
    Breakpoint::ALL.iter().flat_map(|b| catalog::of(*b))
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_that_names_a_document_names_one_we_list() {
        // "review", "assessment" and "guide" are how reasons cite a
        // document; one cited under a name not listed here would be a
        // source no reader can look up.
        for m in all_metrics() {
            let why = m.why.to_lowercase();
            let names_a_document = ["review", "assessment", "guide"]
                .iter()
                .any(|w| why.contains(w));
            if names_a_document {
                assert!(
                    !cited_by(m.why).is_empty(),
                    "{}: cites a document not in DOCUMENTS: {}",
                    m.key,
                    m.why
                );
            }
        }
    }

    #[test]
    fn every_document_anchors_something_or_says_what_it_gives() {
        for d in DOCUMENTS {
            assert!(
                !d.contributes.is_empty() && !d.title.is_empty(),
                "{}",
                d.name
            );
        }
        assert!(!cited_by("the four-breakpoint review: 38.40").is_empty());
        assert!(cited_by("chosen here").is_empty());
    }

    #[test]
    fn the_sources_document_is_current() {
        crate::metrics::catalog::tests::assert_generated_document(
            "sources.md",
            &markdown(),
            "the_sources_document",
        );
    }
}
