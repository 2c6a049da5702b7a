//! The domain model: what Breakpoint knows about platforms, what they offer
//! and charge, and the evidence (runs) gathered about them.
//!
//! Every type is validated when it is built (`new` or `validate`), so that
//! nothing invalid reaches the store; names may be in any script (阿里云).

pub mod audit;
mod billing;
mod claim;
mod evidence;
mod inventory;
pub mod money;
mod offering;
mod platform;
mod price_quote;
mod rating;
mod run;
pub mod spot;
pub mod validate;
mod weights;

pub use billing::{BillingRule, Rounding};
pub use claim::Claim;
pub use evidence::{
    BillingLine, Event, EventKind, FaultDrill, FaultKind, ImageState, LoadScenario, StartupAttempt,
    StartupOutcome, SwitchAttempt,
};
pub use inventory::{GpuInfo, MigInstance};
pub use offering::{
    BillingMode, FormFactor, Interconnect, MONTH_HOURS, Offering, OfferingSpec, Prices, Vendor,
    pcie_link,
};
pub use platform::{Platform, PlatformKind};
pub use price_quote::{PricePer, PriceQuote, QuoteMode};
pub use rating::Category;
pub use run::{
    CHECKED_GPUS, Duplicate, KEPT_RECORDS, MEASURES_NOTHING, NewRun, PASSIVE_WATCH, Provenance,
    Run, RunKind, STARTUP_STAGES, SUMMARISED, SourceKind, UNDATED, UNTIMED_HEALTH, WATCHED_ECC,
    WATCHED_GPU_MS, WATCHED_NVLINK, WATCHED_PCIE_REPLAYS, WATCHED_STALLS,
};
pub use weights::{Anchors, Breakpoint, BreakpointWeights, WeightProfile};
