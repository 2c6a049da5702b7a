//! The demo workspace: the four-breakpoint review's six anonymised platforms rebuilt as data.
//!
//! Profiles and billing rules follow the seed; where it is silent the
//! values are plausible choices, and everything is labelled demo. The
//! evidence is *generated in the real formats* — nvidia-smi CSV, startup,
//! switch, drill and billing tables — by a seeded simulator that reproduces
//! what the seed reports, then imported through the real importers, so the
//! demo exercises exactly the path a user's logs take.

mod logs;
mod platforms;

use crate::domain::{BillingRule, OfferingSpec, Platform};
use crate::error::{Result, ValidationError};
use crate::import::{self, Format, ImportError, ImportOptions, ImportOutcome};
use crate::store::Store;

pub use platforms::{DEMO_PLATFORMS, DemoPlatform};

/// Marks every demo platform's notes.
pub const DEMO_LABEL: &str = "DEMO DATA";

/// Where the demo's prices come from, said wherever they are used.
pub const DEMO_PRICE_SOURCE: &str = "the four-breakpoint review's example prices (demo)";

/// What building the demo did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DemoSummary {
    pub platforms: usize,
    pub runs: usize,
    pub samples: u64,
    /// False when the database already held the demo.
    pub built: bool,
}

fn import_failed(e: ImportError) -> crate::Error {
    match e {
        ImportError::Store(e) => e,
        other => crate::Error::Invalid(ValidationError::new("demo", other.to_string())),
    }
}

/// Build the demo into `store`. A database that already holds the demo is
/// left as it is; one that holds anything else is refused, so the demo never
/// mixes with real evidence.
pub fn build(store: &Store, seed: u64) -> Result<DemoSummary> {
    let existing = store.platforms()?;
    let is_demo = |p: &Platform| {
        p.notes
            .as_deref()
            .is_some_and(|n| n.starts_with(DEMO_LABEL))
    };
    if !existing.is_empty() {
        if existing.iter().all(is_demo) && existing.len() == DEMO_PLATFORMS.len() {
            let info = store.info()?;
            return Ok(DemoSummary {
                platforms: existing.len(),
                runs: info.runs as usize,
                samples: info.samples as u64,
                built: false,
            });
        }
        return Err(ValidationError::new(
            "database",
            format!(
                "\"{}\" already holds {} platform(s) that are not the demo; build the demo into a new file with --db PATH",
                store.path().display(),
                existing.iter().filter(|p| !is_demo(p)).count()
            ),
        )
        .into());
    }
    let mut runs = 0;
    let mut samples = 0;
    store.atomically(|store| -> Result<()> {
        for (i, demo) in DEMO_PLATFORMS.iter().enumerate() {
            let platform = store.create_platform(&Platform::new(
                demo.name,
                demo.kind,
                Some(format!("{DEMO_LABEL} — {}", demo.notes)),
            )?)?;
            let mut offering = OfferingSpec {
                accelerator: "NVIDIA A100-SXM4-80GB".into(),
                count: 8,
                interconnect: Some(crate::domain::Interconnect::Nvswitch),
                pcie_gen: Some(4),
                pcie_width: Some(16),
                currency: "CNY".into(),
                price_on_demand: Some(demo.price_per_hour),
                ..OfferingSpec::default()
            }
            .build(platform.id)?;
            // Every price says where it comes from, the demo's too.
            offering.prices.source = Some(DEMO_PRICE_SOURCE.into());
            let offering = store.create_offering(&offering)?;
            store.set_billing_rule(&BillingRule {
                notes: Some(DEMO_LABEL.into()),
                ..demo.rule(platform.id)
            })?;
            for file in logs::generate(demo, seed.wrapping_add(i as u64)) {
                let options = ImportOptions {
                    offering_id: Some(offering.id),
                    tz: jiff::tz::TimeZone::UTC,
                    source: crate::domain::SourceKind::Demo,
                    ..ImportOptions::new(platform.id)
                };
                let outcome = import::import_reader(
                    store,
                    file.bytes.as_slice(),
                    &file.name,
                    file.format,
                    &options,
                    None,
                )
                .map_err(import_failed)?;
                if let ImportOutcome::Imported(report) = outcome {
                    runs += 1;
                    samples += report.samples;
                }
            }
        }
        Ok(())
    })?;
    Ok(DemoSummary {
        platforms: DEMO_PLATFORMS.len(),
        runs,
        samples,
        built: true,
    })
}

/// The simulator's log files for one demo platform (used by `build`, and by
/// benchmarks that need more platforms than the demo has).
pub fn generate_logs(platform: &DemoPlatform, seed: u64) -> Vec<DemoFile> {
    logs::generate(platform, seed)
}

/// A generated log file.
pub struct DemoFile {
    pub name: String,
    pub format: Format,
    pub bytes: Vec<u8>,
}

#[cfg(test)]
mod tests;
