//! A price a catalog or a provider's price answer states for an instance
//! type: what users already hold (SkyPilot's and gpuhunt's catalogs, the
//! AWS Price List, the answers of the providers' price APIs) read as
//! evidence of what a platform charges, with where and when it was said.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::money::Decimal;
use super::validate::{self, Checked};
use crate::error::ValidationError;

labelled_enum! {
    /// How the price is paid.
    pub enum QuoteMode ("mode") {
        OnDemand => "on-demand",
        Spot => "spot",
        Monthly => "monthly",
        Yearly => "yearly",
        /// A commitment (AWS reserved instances, savings plans) priced per hour.
        Reserved => "reserved",
    }
}

labelled_enum! {
    /// The time one `price` buys.
    pub enum PricePer ("per") {
        Hour => "hour",
        Month => "month",
        Year => "year",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceQuote {
    /// "aws", "aliyun", "tencentcloud", "huaweicloud", "lambda", … as the
    /// source names it.
    pub provider: Option<String>,
    pub region: Option<String>,
    pub zone: Option<String>,
    /// The instance type or flavour ("p4d.24xlarge", "ecs.gn7e-c16g1.4xlarge").
    pub instance_type: String,
    /// The accelerator as the source names it ("A100-80GB", "V100"), where it
    /// names one.
    pub accelerator: Option<String>,
    pub accelerator_count: Option<u32>,
    pub vcpus: Option<f64>,
    pub memory_gib: Option<f64>,
    pub mode: QuoteMode,
    /// The price of the whole instance for one `per`.
    pub price: Decimal,
    pub per: PricePer,
    /// ISO 4217 ("USD", "CNY").
    pub currency: String,
    /// When the source says the price held (its effective date or the
    /// answer's time); `None` where it says nothing (the file's time is
    /// taken then, by the importer).
    pub observed_at: Option<Timestamp>,
}

impl PriceQuote {
    pub fn validate(self) -> Checked<Self> {
        if self.instance_type.trim().is_empty() {
            return Err(ValidationError::new("instance_type", "is empty"));
        }
        if self.price.is_sign_negative() && !self.price.is_zero() {
            return Err(ValidationError::new(
                "price",
                format!("{} is negative", self.price),
            ));
        }
        // A whole instance for a year: 64 cards × 8 760 h at the most a
        // price may be is under 10¹³.
        if self.price > Decimal::from(10_000_000_000_000u64) {
            return Err(ValidationError::new(
                "price",
                format!(
                    "{} is beyond any instance's price (at most 10¹³ for its period, in any currency)",
                    crate::text::printable_excerpt(&self.price.to_string(), 40)
                ),
            ));
        }
        if self.accelerator_count == Some(0) {
            return Err(ValidationError::new(
                "accelerator_count",
                "0 accelerators: an instance without GPUs is no offering here",
            ));
        }
        Ok(PriceQuote {
            currency: validate::currency("currency", &self.currency)?,
            ..self
        })
    }
}
