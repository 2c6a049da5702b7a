//! An offering is one rentable configuration of a platform: which
//! accelerator, how many per node, how they are connected, and what an
//! accelerator-hour costs in each billing mode.

use serde::{Deserialize, Serialize};

use super::validate::{self, Checked};
use crate::accelerator::{self, Accelerator};
pub use crate::accelerator::{FormFactor, Vendor};
use crate::error::ValidationError;

labelled_enum! {
    pub enum Interconnect ("interconnect") {
        Pcie => "pcie",
        Nvlink => "nvlink",
        Nvswitch => "nvswitch",
        Hccs => "hccs",
        None => "none",
    }
}

labelled_enum! {
    pub enum BillingMode ("mode") {
        OnDemand => "on-demand",
        Spot => "spot",
        Monthly => "monthly",
    }
}

/// The hours of a month as providers bill it: 30 days.
pub const MONTH_HOURS: u32 = 720;

/// Prices per accelerator-hour, per billing mode, in one currency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    pub currency: String,
    pub on_demand: Option<f64>,
    pub spot: Option<f64>,
    /// A monthly subscription, expressed per accelerator-hour so modes
    /// compare: a month of one GPU costs it [`MONTH_HOURS`] times.
    pub monthly: Option<f64>,
    /// Keeping data on the platform's disks, per GB-month: a job's
    /// dataset and checkpoints stay there as long as it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_gb_month: Option<f64>,
    /// Moving data in or out, per GB, where the platform bills it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_gb: Option<f64>,
    /// Where the prices come from ("skypilot-catalog vms.csv, us-east-1"),
    /// where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The day the source gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priced_on: Option<jiff::civil::Date>,
}

impl Prices {
    pub fn new(
        currency: &str,
        on_demand: Option<f64>,
        spot: Option<f64>,
        monthly: Option<f64>,
    ) -> Checked<Self> {
        Ok(Self {
            currency: validate::currency("currency", currency)?,
            on_demand: validate::price_opt("price_on_demand", on_demand)?,
            spot: validate::price_opt("price_spot", spot)?,
            monthly: validate::price_opt("price_monthly", monthly)?,
            storage_gb_month: None,
            transfer_gb: None,
            source: None,
            priced_on: None,
        })
    }

    /// These prices with storage and transfer priced too, checked as money.
    pub fn with_data_prices(
        self,
        storage_gb_month: Option<f64>,
        transfer_gb: Option<f64>,
    ) -> Checked<Self> {
        Ok(Self {
            storage_gb_month: validate::price_opt("price_storage", storage_gb_month)?,
            transfer_gb: validate::price_opt("price_transfer", transfer_gb)?,
            ..self
        })
    }

    pub fn for_mode(&self, mode: BillingMode) -> Option<f64> {
        match mode {
            BillingMode::OnDemand => self.on_demand,
            BillingMode::Spot => self.spot,
            BillingMode::Monthly => self.monthly,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offering {
    /// Store id; 0 until stored.
    pub id: i64,
    pub platform_id: i64,
    /// The accelerator as the platform names it, normalised for comparison.
    pub accelerator: Accelerator,
    pub count: u32,
    pub vram_gib: Option<u32>,
    pub form_factor: Option<FormFactor>,
    pub interconnect: Option<Interconnect>,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub cpu_cores: Option<u32>,
    pub ram_gib: Option<u32>,
    pub region: Option<String>,
    /// Minimum driver and CUDA versions the platform promises, as written ("535.104", "12.2").
    pub min_driver: Option<String>,
    pub min_cuda: Option<String>,
    pub prices: Prices,
}

/// What a caller supplies to describe an offering; `build` validates it and
/// fills in what the accelerator name implies (vendor, VRAM, form factor).
#[derive(Debug, Clone, Default)]
pub struct OfferingSpec {
    pub accelerator: String,
    pub vendor: Option<Vendor>,
    pub count: u32,
    pub vram_gib: Option<u32>,
    pub form_factor: Option<FormFactor>,
    pub interconnect: Option<Interconnect>,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub cpu_cores: Option<u32>,
    pub ram_gib: Option<u32>,
    pub region: Option<String>,
    pub min_driver: Option<String>,
    pub min_cuda: Option<String>,
    pub currency: String,
    pub price_on_demand: Option<f64>,
    pub price_spot: Option<f64>,
    pub price_monthly: Option<f64>,
    /// Per GB-month of the platform's disks.
    pub price_storage: Option<f64>,
    /// Per GB moved in or out.
    pub price_transfer: Option<f64>,
}

impl OfferingSpec {
    pub fn build(self, platform_id: i64) -> Checked<Offering> {
        let raw = validate::name("accelerator", &self.accelerator)?;
        let mut accelerator = accelerator::normalise(&raw);
        if let Some(vendor) = self.vendor {
            accelerator.vendor = vendor;
        }
        let pcie_gen = validate::at_least_one_opt("pcie_gen", self.pcie_gen)?;
        if let Some(g) = pcie_gen.filter(|g| *g > 7) {
            return Err(ValidationError::new(
                "pcie_gen",
                format!("PCIe generation {g} does not exist (1–7)"),
            ));
        }
        let pcie_width = validate::at_least_one_opt("pcie_width", self.pcie_width)?;
        if let Some(w) = pcie_width.filter(|w| ![1, 2, 4, 8, 16, 32].contains(w)) {
            return Err(ValidationError::new(
                "pcie_width",
                format!("x{w} is not a PCIe link width (1, 2, 4, 8, 16 or 32)"),
            ));
        }
        Ok(Offering {
            id: 0,
            platform_id,
            count: validate::at_least_one("count", self.count)?,
            vram_gib: validate::at_least_one_opt("vram_gib", self.vram_gib)?
                .or(accelerator.memory_gb),
            form_factor: self.form_factor.or(accelerator.form_factor),
            accelerator,
            interconnect: self.interconnect,
            pcie_gen,
            pcie_width,
            cpu_cores: validate::at_least_one_opt("cpu_cores", self.cpu_cores)?,
            ram_gib: validate::at_least_one_opt("ram_gib", self.ram_gib)?,
            region: validate::optional_text(self.region),
            min_driver: validate::optional_text(self.min_driver),
            min_cuda: validate::optional_text(self.min_cuda),
            prices: Prices::new(
                &self.currency,
                self.price_on_demand,
                self.price_spot,
                self.price_monthly,
            )?
            .with_data_prices(self.price_storage, self.price_transfer)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> OfferingSpec {
        OfferingSpec {
            accelerator: "NVIDIA A100-SXM4-80GB".into(),
            count: 8,
            currency: "CNY".into(),
            price_on_demand: Some(12.8),
            ..OfferingSpec::default()
        }
    }

    #[test]
    fn builds_and_fills_in_what_the_name_implies() {
        let o = spec().build(1).unwrap();
        assert_eq!(o.vram_gib, Some(80));
        assert_eq!(o.form_factor, Some(FormFactor::Sxm));
        assert_eq!(o.accelerator.vendor, Vendor::Nvidia);
        assert_eq!(o.prices.for_mode(BillingMode::OnDemand), Some(12.8));
    }

    #[test]
    fn refuses_negative_prices_zero_counts_and_odd_links() {
        let e = OfferingSpec {
            price_on_demand: Some(-1.0),
            ..spec()
        }
        .build(1)
        .unwrap_err();
        assert_eq!(e.field, "price_on_demand");
        assert_eq!(
            OfferingSpec { count: 0, ..spec() }
                .build(1)
                .unwrap_err()
                .field,
            "count"
        );
        assert_eq!(
            OfferingSpec {
                pcie_width: Some(12),
                ..spec()
            }
            .build(1)
            .unwrap_err()
            .field,
            "pcie_width"
        );
        assert_eq!(
            OfferingSpec {
                currency: "$".into(),
                ..spec()
            }
            .build(1)
            .unwrap_err()
            .field,
            "currency"
        );
    }

    #[test]
    fn labels_parse_loosely_and_print_strictly() {
        assert_eq!(
            "On_Demand".parse::<BillingMode>().unwrap(),
            BillingMode::OnDemand
        );
        let e = "hourly".parse::<BillingMode>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "mode: unknown value \"hourly\" (expected one of: on-demand, spot, monthly)"
        );
    }
}

/// A PCIe link as people write it: "Gen4 x16", "Gen4", "x8"; "–" when
/// neither is known. One spelling for every table and screen.
pub fn pcie_link(generation: Option<u32>, width: Option<u32>) -> String {
    match (generation, width) {
        (None, None) => "–".to_string(),
        (Some(g), Some(w)) => format!("Gen{g} x{w}"),
        (Some(g), None) => format!("Gen{g}"),
        (None, Some(w)) => format!("x{w}"),
    }
}

#[cfg(test)]
mod link_tests {
    use super::pcie_link;

    #[test]
    fn a_link_reads_as_people_write_it() {
        assert_eq!(pcie_link(Some(4), Some(16)), "Gen4 x16");
        assert_eq!(pcie_link(None, Some(8)), "x8");
        assert_eq!(pcie_link(Some(5), None), "Gen5");
        assert_eq!(pcie_link(None, None), "–");
    }
}
