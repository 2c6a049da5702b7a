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

mod kinds;
pub use kinds::{FormFactor, Vendor};

mod models;
#[cfg(test)]
mod tests;
pub mod xid;

use FormFactor::{Oam, Pcie, Sxm};
use Vendor::{Amd, Ascend, Cambricon, Nvidia};
use models::MODELS;

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
