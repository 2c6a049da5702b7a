//! A platform is a provider of rentable accelerators (AutoDL, 阿里云, AWS …).

use serde::{Deserialize, Serialize};

use super::validate::{self, Checked};

labelled_enum! {
    /// What sort of provider a platform is; it shapes which questions matter
    /// (a marketplace's delivery varies more than a hyperscaler's).
    pub enum PlatformKind ("kind") {
        Hyperscaler => "hyperscaler",
        AiNative => "ai-native",
        ChipVendor => "chip-vendor",
        Marketplace => "marketplace",
        Other => "other",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// Store id; 0 until stored.
    pub id: i64,
    pub name: String,
    pub kind: PlatformKind,
    pub notes: Option<String>,
    /// The built-in template this platform was created from, if any.
    pub template: Option<String>,
}

impl Platform {
    pub fn new(name: &str, kind: PlatformKind, notes: Option<String>) -> Checked<Self> {
        Ok(Self {
            id: 0,
            name: validate::name("name", name)?,
            kind,
            notes: validate::optional_text(notes),
            template: None,
        })
    }
}
