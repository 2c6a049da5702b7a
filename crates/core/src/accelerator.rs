//! Accelerator name normalisation.
//!
//! Platforms, drivers and people spell the same card many ways ("NVIDIA
//! A100-SXM4-80GB", "A100 80GB PCIe", "a100-80g"). To compare an offering with
//! the inventory a run saw, names are reduced to vendor, family, exact model,
//! memory and form factor. The raw name is always kept.
//!
//! The work is table-driven: the name is cut into upper-case tokens, the first
//! table entry whose tokens are all present gives the model, and explicit
//! tokens (`80GB`, `SXM4`, `PCIe`) override the model's defaults.

use serde::{Deserialize, Serialize};

use crate::domain::{FormFactor, Vendor};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accelerator {
    /// The name exactly as given.
    pub raw: String,
    pub vendor: Vendor,
    /// The product line used to compare offerings and inventories ("A100",
    /// "Ascend 910B").
    pub family: String,
    /// The exact model ("A100", "Ascend 910B3").
    pub model: String,
    /// Memory in GB, from the name or, where a model has only one size, from
    /// the model.
    pub memory_gb: Option<u32>,
    pub form_factor: Option<FormFactor>,
    /// One canonical spelling, e.g. "NVIDIA A100 80GB SXM".
    pub canonical: String,
    /// Whether the model was recognised; unknown names still compare by text.
    pub known: bool,
}

impl Accelerator {
    /// Whether two names denote the same product, where both say enough to
    /// tell: family must match; memory and form factor only where both know.
    pub fn same_product(&self, other: &Accelerator) -> bool {
        let family = self.vendor == other.vendor && self.family == other.family;
        let memory = match (self.memory_gb, other.memory_gb) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let form = match (self.form_factor, other.form_factor) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        family && memory && form
    }
}

/// One known model: the tokens that identify it and what it implies.
struct Model {
    tokens: &'static [&'static str],
    vendor: Vendor,
    family: &'static str,
    model: &'static str,
    memory_gb: Option<u32>,
    form_factor: Option<FormFactor>,
}

const fn m(
    tokens: &'static [&'static str],
    vendor: Vendor,
    family: &'static str,
    model: &'static str,
    memory_gb: Option<u32>,
    form_factor: Option<FormFactor>,
) -> Model {
    Model {
        tokens,
        vendor,
        family,
        model,
        memory_gb,
        form_factor,
    }
}

use FormFactor::{Oam, Pcie, Sxm};
use Vendor::{Amd, Ascend, Cambricon, Nvidia};

/// More specific entries come first: the first entry whose tokens are all
/// present wins.
const MODELS: &[Model] = &[
    // NVIDIA data-centre parts.
    m(&["GB200"], Nvidia, "GB200", "GB200", None, None),
    m(&["GH200"], Nvidia, "GH200", "GH200", None, None),
    m(&["B200"], Nvidia, "B200", "B200", None, Some(Sxm)),
    m(&["B100"], Nvidia, "B100", "B100", None, Some(Sxm)),
    m(
        &["H200", "NVL"],
        Nvidia,
        "H200",
        "H200 NVL",
        Some(141),
        Some(Pcie),
    ),
    m(&["H200"], Nvidia, "H200", "H200", Some(141), None),
    m(
        &["H100", "NVL"],
        Nvidia,
        "H100",
        "H100 NVL",
        Some(94),
        Some(Pcie),
    ),
    // "NVIDIA H100 80GB HBM3" is how the driver names the SXM5 part.
    m(
        &["H100", "HBM3"],
        Nvidia,
        "H100",
        "H100",
        Some(80),
        Some(Sxm),
    ),
    m(&["H100"], Nvidia, "H100", "H100", Some(80), None),
    m(&["H800"], Nvidia, "H800", "H800", Some(80), None),
    m(&["H20"], Nvidia, "H20", "H20", Some(96), None),
    m(&["A100"], Nvidia, "A100", "A100", None, None),
    m(&["A800"], Nvidia, "A800", "A800", None, None),
    m(&["A10G"], Nvidia, "A10G", "A10G", Some(24), Some(Pcie)),
    m(&["A10"], Nvidia, "A10", "A10", Some(24), Some(Pcie)),
    m(&["A16"], Nvidia, "A16", "A16", Some(64), Some(Pcie)),
    m(&["A30"], Nvidia, "A30", "A30", Some(24), Some(Pcie)),
    m(&["A40"], Nvidia, "A40", "A40", Some(48), Some(Pcie)),
    m(&["A2"], Nvidia, "A2", "A2", Some(16), Some(Pcie)),
    m(&["L40S"], Nvidia, "L40S", "L40S", Some(48), Some(Pcie)),
    m(&["L40"], Nvidia, "L40", "L40", Some(48), Some(Pcie)),
    m(&["L20"], Nvidia, "L20", "L20", Some(48), Some(Pcie)),
    m(&["L4"], Nvidia, "L4", "L4", Some(24), Some(Pcie)),
    m(&["T4"], Nvidia, "T4", "T4", Some(16), Some(Pcie)),
    m(&["V100S"], Nvidia, "V100S", "V100S", Some(32), Some(Pcie)),
    m(&["V100"], Nvidia, "V100", "V100", None, None),
    m(&["P100"], Nvidia, "P100", "P100", None, None),
    m(&["P40"], Nvidia, "P40", "P40", Some(24), Some(Pcie)),
    m(&["P4"], Nvidia, "P4", "P4", Some(8), Some(Pcie)),
    m(&["K80"], Nvidia, "K80", "K80", Some(24), Some(Pcie)),
    // NVIDIA workstation parts.
    m(
        &["6000", "ADA"],
        Nvidia,
        "RTX 6000 Ada",
        "RTX 6000 Ada",
        Some(48),
        Some(Pcie),
    ),
    m(
        &["5000", "ADA"],
        Nvidia,
        "RTX 5000 Ada",
        "RTX 5000 Ada",
        Some(32),
        Some(Pcie),
    ),
    m(
        &["4000", "ADA"],
        Nvidia,
        "RTX 4000 Ada",
        "RTX 4000 Ada",
        Some(20),
        Some(Pcie),
    ),
    m(
        &["A6000"],
        Nvidia,
        "RTX A6000",
        "RTX A6000",
        Some(48),
        Some(Pcie),
    ),
    m(
        &["A5000"],
        Nvidia,
        "RTX A5000",
        "RTX A5000",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["A4000"],
        Nvidia,
        "RTX A4000",
        "RTX A4000",
        Some(16),
        Some(Pcie),
    ),
    m(
        &["RTX", "8000"],
        Nvidia,
        "Quadro RTX 8000",
        "Quadro RTX 8000",
        Some(48),
        Some(Pcie),
    ),
    m(
        &["RTX", "6000"],
        Nvidia,
        "Quadro RTX 6000",
        "Quadro RTX 6000",
        Some(24),
        Some(Pcie),
    ),
    // NVIDIA GeForce parts (the "D" variants are the China-market cards).
    m(
        &["5090", "D"],
        Nvidia,
        "RTX 5090D",
        "RTX 5090D",
        Some(32),
        Some(Pcie),
    ),
    m(
        &["5090"],
        Nvidia,
        "RTX 5090",
        "RTX 5090",
        Some(32),
        Some(Pcie),
    ),
    m(
        &["5080"],
        Nvidia,
        "RTX 5080",
        "RTX 5080",
        Some(16),
        Some(Pcie),
    ),
    m(
        &["4090", "D"],
        Nvidia,
        "RTX 4090D",
        "RTX 4090D",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["4090D"],
        Nvidia,
        "RTX 4090D",
        "RTX 4090D",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["4090"],
        Nvidia,
        "RTX 4090",
        "RTX 4090",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["4080"],
        Nvidia,
        "RTX 4080",
        "RTX 4080",
        Some(16),
        Some(Pcie),
    ),
    m(
        &["3090", "TI"],
        Nvidia,
        "RTX 3090 Ti",
        "RTX 3090 Ti",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["3090"],
        Nvidia,
        "RTX 3090",
        "RTX 3090",
        Some(24),
        Some(Pcie),
    ),
    m(
        &["3080", "TI"],
        Nvidia,
        "RTX 3080 Ti",
        "RTX 3080 Ti",
        Some(12),
        Some(Pcie),
    ),
    m(&["3080"], Nvidia, "RTX 3080", "RTX 3080", None, Some(Pcie)),
    m(
        &["2080", "TI"],
        Nvidia,
        "RTX 2080 Ti",
        "RTX 2080 Ti",
        Some(11),
        Some(Pcie),
    ),
    m(
        &["TITAN", "RTX"],
        Nvidia,
        "TITAN RTX",
        "TITAN RTX",
        Some(24),
        Some(Pcie),
    ),
    // AMD Instinct.
    m(&["MI325X"], Amd, "MI325X", "MI325X", Some(256), Some(Oam)),
    m(&["MI300X"], Amd, "MI300X", "MI300X", Some(192), Some(Oam)),
    m(&["MI250X"], Amd, "MI250X", "MI250X", Some(128), Some(Oam)),
    m(&["MI250"], Amd, "MI250", "MI250", Some(128), Some(Oam)),
    m(&["MI210"], Amd, "MI210", "MI210", Some(64), Some(Pcie)),
    m(&["MI100"], Amd, "MI100", "MI100", Some(32), Some(Pcie)),
    // Huawei Ascend.
    m(
        &["910C"],
        Ascend,
        "Ascend 910C",
        "Ascend 910C",
        Some(128),
        None,
    ),
    m(
        &["910B1"],
        Ascend,
        "Ascend 910B",
        "Ascend 910B1",
        Some(64),
        None,
    ),
    m(
        &["910B2"],
        Ascend,
        "Ascend 910B",
        "Ascend 910B2",
        Some(64),
        None,
    ),
    m(
        &["910B3"],
        Ascend,
        "Ascend 910B",
        "Ascend 910B3",
        Some(64),
        None,
    ),
    m(
        &["910B4"],
        Ascend,
        "Ascend 910B",
        "Ascend 910B4",
        Some(32),
        None,
    ),
    m(&["910B"], Ascend, "Ascend 910B", "Ascend 910B", None, None),
    m(
        &["910A"],
        Ascend,
        "Ascend 910",
        "Ascend 910A",
        Some(32),
        None,
    ),
    m(
        &["ASCEND", "910"],
        Ascend,
        "Ascend 910",
        "Ascend 910",
        Some(32),
        None,
    ),
    m(
        &["310P3"],
        Ascend,
        "Ascend 310P",
        "Ascend 310P3",
        None,
        Some(Pcie),
    ),
    m(
        &["310P"],
        Ascend,
        "Ascend 310P",
        "Ascend 310P",
        None,
        Some(Pcie),
    ),
    // Cambricon.
    m(
        &["MLU370", "X8"],
        Cambricon,
        "MLU370",
        "MLU370-X8",
        Some(48),
        Some(Pcie),
    ),
    m(
        &["MLU370", "X4"],
        Cambricon,
        "MLU370",
        "MLU370-X4",
        Some(24),
        Some(Pcie),
    ),
    m(&["MLU370"], Cambricon, "MLU370", "MLU370", None, Some(Pcie)),
    m(&["MLU590"], Cambricon, "MLU590", "MLU590", Some(80), None),
];

/// Words that only say who made the card or which marketing line it is in.
const BRAND_WORDS: &[&str] = &[
    "NVIDIA",
    "TESLA",
    "GEFORCE",
    "QUADRO",
    "HUAWEI",
    "ASCEND",
    "AMD",
    "INSTINCT",
    "CAMBRICON",
    "GENERATION",
    "GPU",
    "RTX",
];

/// Prefixes that people glue to the model number ("RTX4090", "Ascend910B").
const GLUED_PREFIXES: &[&str] = &["RTX", "GTX", "ASCEND", "TESLA"];

fn tokens(raw: &str) -> Vec<String> {
    let upper = raw.to_uppercase();
    let mut out = Vec::new();
    for word in upper
        .split(|c: char| c.is_whitespace() || "-_/(),;:".contains(c))
        .filter(|w| !w.is_empty())
    {
        match GLUED_PREFIXES
            .iter()
            .find(|p| word.len() > p.len() && word.starts_with(**p))
        {
            Some(prefix) => {
                out.push((*prefix).to_string());
                out.push(word[prefix.len()..].to_string());
            }
            None => out.push(word.to_string()),
        }
    }
    // "80 GB" written apart: glue the unit back to its number.
    let mut glued: Vec<String> = Vec::with_capacity(out.len());
    for t in out {
        let unit = matches!(t.as_str(), "GB" | "G" | "GIB");
        match glued.last_mut() {
            Some(last) if unit && last.chars().all(|c| c.is_ascii_digit()) => last.push_str(&t),
            _ => glued.push(t),
        }
    }
    glued
}

fn memory_token(token: &str) -> Option<u32> {
    let digits = token
        .strip_suffix("GIB")
        .or_else(|| token.strip_suffix("GB"))
        .or_else(|| token.strip_suffix('G'))?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|gb| (1..=4096).contains(gb))
}

fn form_token(token: &str) -> Option<FormFactor> {
    match token {
        t if t.starts_with("SXM") => Some(Sxm),
        "PCIE" | "PCI" => Some(Pcie),
        "OAM" => Some(Oam),
        _ => None,
    }
}

fn guess_vendor(tokens: &[String]) -> Vendor {
    let has = |w: &str| tokens.iter().any(|t| t == w);
    if ["NVIDIA", "TESLA", "GEFORCE", "QUADRO", "RTX", "GTX"]
        .iter()
        .any(|w| has(w))
    {
        Nvidia
    } else if has("ASCEND") || has("HUAWEI") {
        Ascend
    } else if has("CAMBRICON") || tokens.iter().any(|t| t.starts_with("MLU")) {
        Cambricon
    } else if has("AMD") || has("INSTINCT") || has("RADEON") {
        Amd
    } else {
        Vendor::Other
    }
}

fn brand(vendor: Vendor) -> &'static str {
    match vendor {
        Nvidia => "NVIDIA",
        Ascend => "Huawei",
        Cambricon => "Cambricon",
        Amd => "AMD",
        Vendor::Other => "",
    }
}

/// Normalise an accelerator name. Never fails: an unknown name keeps its own
/// words as family and model, so two identical unknown names still match.
pub fn normalise(raw: &str) -> Accelerator {
    let toks = tokens(raw);
    let memory_from_name = toks.iter().find_map(|t| memory_token(t));
    let form_from_name = toks.iter().find_map(|t| form_token(t));
    let known = MODELS
        .iter()
        .find(|m| m.tokens.iter().all(|want| toks.iter().any(|t| t == want)));

    let (vendor, family, model, memory_gb, form_factor) = match known {
        Some(m) => (
            m.vendor,
            m.family.to_string(),
            m.model.to_string(),
            memory_from_name.or(m.memory_gb),
            form_from_name.or(m.form_factor),
        ),
        None => {
            let words: Vec<&str> = toks
                .iter()
                .map(String::as_str)
                .filter(|t| {
                    !BRAND_WORDS.contains(t) && memory_token(t).is_none() && form_token(t).is_none()
                })
                .collect();
            let name = if words.is_empty() {
                raw.trim().to_string()
            } else {
                words.join(" ")
            };
            (
                guess_vendor(&toks),
                name.clone(),
                name,
                memory_from_name,
                form_from_name,
            )
        }
    };

    let mut canonical = String::new();
    for part in [
        brand(vendor).to_string(),
        model.clone(),
        memory_gb.map(|gb| format!("{gb}GB")).unwrap_or_default(),
        match form_factor {
            Some(Sxm) => "SXM".to_string(),
            Some(Pcie) => "PCIe".to_string(),
            Some(Oam) => "OAM".to_string(),
            None => String::new(),
        },
    ] {
        if !part.is_empty() {
            if !canonical.is_empty() {
                canonical.push(' ');
            }
            canonical.push_str(&part);
        }
    }

    Accelerator {
        raw: raw.to_string(),
        vendor,
        family,
        model,
        memory_gb,
        form_factor,
        canonical,
        known: known.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (raw spelling, vendor, family, model, memory GB, form factor)
    #[allow(clippy::type_complexity)]
    const SPELLINGS: &[(&str, Vendor, &str, &str, Option<u32>, Option<FormFactor>)] = &[
        (
            "NVIDIA A100-SXM4-80GB",
            Nvidia,
            "A100",
            "A100",
            Some(80),
            Some(Sxm),
        ),
        (
            "NVIDIA A100-SXM4-40GB",
            Nvidia,
            "A100",
            "A100",
            Some(40),
            Some(Sxm),
        ),
        (
            "NVIDIA A100-PCIE-40GB",
            Nvidia,
            "A100",
            "A100",
            Some(40),
            Some(Pcie),
        ),
        (
            "NVIDIA A100 80GB PCIe",
            Nvidia,
            "A100",
            "A100",
            Some(80),
            Some(Pcie),
        ),
        (
            "A100 80GB PCIe",
            Nvidia,
            "A100",
            "A100",
            Some(80),
            Some(Pcie),
        ),
        ("a100-80g", Nvidia, "A100", "A100", Some(80), None),
        ("A100 80 GB", Nvidia, "A100", "A100", Some(80), None),
        (
            "NVIDIA A800-SXM4-80GB",
            Nvidia,
            "A800",
            "A800",
            Some(80),
            Some(Sxm),
        ),
        (
            "NVIDIA A800 80GB PCIe",
            Nvidia,
            "A800",
            "A800",
            Some(80),
            Some(Pcie),
        ),
        (
            "Tesla V100S-PCIE-32GB",
            Nvidia,
            "V100S",
            "V100S",
            Some(32),
            Some(Pcie),
        ),
        (
            "Tesla V100-SXM2-32GB",
            Nvidia,
            "V100",
            "V100",
            Some(32),
            Some(Sxm),
        ),
        (
            "Tesla V100-SXM2-16GB",
            Nvidia,
            "V100",
            "V100",
            Some(16),
            Some(Sxm),
        ),
        (
            "Tesla V100-PCIE-16GB",
            Nvidia,
            "V100",
            "V100",
            Some(16),
            Some(Pcie),
        ),
        (
            "Tesla P100-PCIE-16GB",
            Nvidia,
            "P100",
            "P100",
            Some(16),
            Some(Pcie),
        ),
        ("Tesla T4", Nvidia, "T4", "T4", Some(16), Some(Pcie)),
        ("Tesla P40", Nvidia, "P40", "P40", Some(24), Some(Pcie)),
        ("Tesla K80", Nvidia, "K80", "K80", Some(24), Some(Pcie)),
        (
            "NVIDIA H100 80GB HBM3",
            Nvidia,
            "H100",
            "H100",
            Some(80),
            Some(Sxm),
        ),
        (
            "NVIDIA H100 PCIe",
            Nvidia,
            "H100",
            "H100",
            Some(80),
            Some(Pcie),
        ),
        (
            "NVIDIA H100 NVL",
            Nvidia,
            "H100",
            "H100 NVL",
            Some(94),
            Some(Pcie),
        ),
        (
            "H100 SXM5 80GB",
            Nvidia,
            "H100",
            "H100",
            Some(80),
            Some(Sxm),
        ),
        ("NVIDIA H800", Nvidia, "H800", "H800", Some(80), None),
        ("NVIDIA H20", Nvidia, "H20", "H20", Some(96), None),
        ("NVIDIA H200", Nvidia, "H200", "H200", Some(141), None),
        (
            "NVIDIA H200 NVL",
            Nvidia,
            "H200",
            "H200 NVL",
            Some(141),
            Some(Pcie),
        ),
        ("NVIDIA B200", Nvidia, "B200", "B200", None, Some(Sxm)),
        ("NVIDIA L40S", Nvidia, "L40S", "L40S", Some(48), Some(Pcie)),
        ("NVIDIA L40", Nvidia, "L40", "L40", Some(48), Some(Pcie)),
        ("NVIDIA L20", Nvidia, "L20", "L20", Some(48), Some(Pcie)),
        ("NVIDIA L4", Nvidia, "L4", "L4", Some(24), Some(Pcie)),
        ("NVIDIA A10", Nvidia, "A10", "A10", Some(24), Some(Pcie)),
        ("NVIDIA A10G", Nvidia, "A10G", "A10G", Some(24), Some(Pcie)),
        ("NVIDIA A30", Nvidia, "A30", "A30", Some(24), Some(Pcie)),
        ("NVIDIA A40", Nvidia, "A40", "A40", Some(48), Some(Pcie)),
        (
            "NVIDIA RTX A6000",
            Nvidia,
            "RTX A6000",
            "RTX A6000",
            Some(48),
            Some(Pcie),
        ),
        (
            "NVIDIA RTX 6000 Ada Generation",
            Nvidia,
            "RTX 6000 Ada",
            "RTX 6000 Ada",
            Some(48),
            Some(Pcie),
        ),
        (
            "Quadro RTX 8000",
            Nvidia,
            "Quadro RTX 8000",
            "Quadro RTX 8000",
            Some(48),
            Some(Pcie),
        ),
        (
            "GeForce RTX 4090",
            Nvidia,
            "RTX 4090",
            "RTX 4090",
            Some(24),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 4090",
            Nvidia,
            "RTX 4090",
            "RTX 4090",
            Some(24),
            Some(Pcie),
        ),
        (
            "RTX4090",
            Nvidia,
            "RTX 4090",
            "RTX 4090",
            Some(24),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 4090 D",
            Nvidia,
            "RTX 4090D",
            "RTX 4090D",
            Some(24),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 3090",
            Nvidia,
            "RTX 3090",
            "RTX 3090",
            Some(24),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 3090 Ti",
            Nvidia,
            "RTX 3090 Ti",
            "RTX 3090 Ti",
            Some(24),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 5090",
            Nvidia,
            "RTX 5090",
            "RTX 5090",
            Some(32),
            Some(Pcie),
        ),
        (
            "NVIDIA GeForce RTX 2080 Ti",
            Nvidia,
            "RTX 2080 Ti",
            "RTX 2080 Ti",
            Some(11),
            Some(Pcie),
        ),
        (
            "Ascend 910B3",
            Ascend,
            "Ascend 910B",
            "Ascend 910B3",
            Some(64),
            None,
        ),
        (
            "Ascend910B4",
            Ascend,
            "Ascend 910B",
            "Ascend 910B4",
            Some(32),
            None,
        ),
        (
            "Huawei Ascend 910B",
            Ascend,
            "Ascend 910B",
            "Ascend 910B",
            None,
            None,
        ),
        (
            "Ascend 910",
            Ascend,
            "Ascend 910",
            "Ascend 910",
            Some(32),
            None,
        ),
        (
            "Ascend 310P3",
            Ascend,
            "Ascend 310P",
            "Ascend 310P3",
            None,
            Some(Pcie),
        ),
        (
            "MLU370-X8",
            Cambricon,
            "MLU370",
            "MLU370-X8",
            Some(48),
            Some(Pcie),
        ),
        (
            "Cambricon MLU590",
            Cambricon,
            "MLU590",
            "MLU590",
            Some(80),
            None,
        ),
        (
            "AMD Instinct MI300X",
            Amd,
            "MI300X",
            "MI300X",
            Some(192),
            Some(Oam),
        ),
        (
            "AMD Instinct MI250X",
            Amd,
            "MI250X",
            "MI250X",
            Some(128),
            Some(Oam),
        ),
    ];

    #[test]
    fn real_spellings_normalise() {
        for (raw, vendor, family, model, memory, form) in SPELLINGS {
            let a = normalise(raw);
            assert_eq!(
                (
                    a.vendor,
                    a.family.as_str(),
                    a.model.as_str(),
                    a.memory_gb,
                    a.form_factor
                ),
                (*vendor, *family, *model, *memory, *form),
                "normalising {raw:?}"
            );
            assert_eq!(a.raw, *raw);
        }
        assert!(SPELLINGS.len() >= 30);
    }

    #[test]
    fn canonical_spelling_is_stable() {
        assert_eq!(
            normalise("NVIDIA A100-SXM4-80GB").canonical,
            "NVIDIA A100 80GB SXM"
        );
        assert_eq!(normalise("a100-80g").canonical, "NVIDIA A100 80GB");
        assert_eq!(
            normalise("Ascend 910B3").canonical,
            "Huawei Ascend 910B3 64GB"
        );
        assert_eq!(
            normalise("GeForce RTX 4090").canonical,
            "NVIDIA RTX 4090 24GB PCIe"
        );
    }

    #[test]
    fn same_product_tolerates_what_a_side_does_not_say() {
        let ordered = normalise("A100 80GB SXM");
        assert!(ordered.same_product(&normalise("NVIDIA A100-SXM4-80GB")));
        assert!(ordered.same_product(&normalise("a100-80g")));
        assert!(!ordered.same_product(&normalise("NVIDIA A100-PCIE-40GB")));
        assert!(!ordered.same_product(&normalise("NVIDIA A800-SXM4-80GB")));
        assert!(normalise("Ascend 910B").same_product(&normalise("Ascend 910B3")));
    }

    #[test]
    fn unknown_names_keep_their_words() {
        let a = normalise("Kunlunxin P800");
        assert!(!a.known);
        assert_eq!(a.vendor, Vendor::Other);
        assert_eq!(a.family, "KUNLUNXIN P800");
        assert!(a.same_product(&normalise("kunlunxin p800")));
        let empty = normalise("   ");
        assert_eq!(empty.family, "");
    }
}
