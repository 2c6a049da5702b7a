//! A claim is a figure somebody states — an SLA in a contract, "99.98 %
//! availability" in a review — kept with its source. Claims are shown beside
//! measurements and never mixed into scores.

use serde::{Deserialize, Serialize};

use super::validate::{self, Checked};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Store id; 0 until stored.
    pub id: i64,
    pub platform_id: i64,
    /// What the figure is about, e.g. "availability" or "stability rank".
    pub subject: String,
    pub value: Option<f64>,
    pub unit: Option<String>,
    /// The claim in words, as the source puts it.
    pub text: Option<String>,
    /// Where it comes from: "the 7-day stability review", "contract §4.2" …
    pub source: String,
}

impl Claim {
    pub fn new(
        platform_id: i64,
        subject: &str,
        value: Option<f64>,
        unit: Option<String>,
        text: Option<String>,
        source: &str,
    ) -> Checked<Self> {
        Ok(Self {
            id: 0,
            platform_id,
            subject: validate::name("subject", subject)?,
            value: value.map(|v| validate::finite("value", v)).transpose()?,
            unit: validate::optional_text(unit),
            text: validate::optional_text(text),
            source: validate::name("source", source)?,
        })
    }
}
