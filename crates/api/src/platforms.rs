//! Adding platforms: by hand, or from a built-in template with the claims
//! the source documents make about it.

use crate::domain::{BillingMode, BillingRule, Claim, Platform, PlatformKind};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::templates;

/// The built-in platform templates a profile can start from.
pub use breakpoint_core::templates::{PlatformTemplate, TEMPLATES};

/// The template a user names (by name or Latin alias), or why there is none.
pub fn template(wanted: &str) -> Result<&'static PlatformTemplate> {
    templates::find(wanted).ok_or_else(|| Error::NotFound {
        what: "template",
        name: format!("{} (see `breakpoint platform templates`)", wanted.trim()),
    })
}

/// Create the platform and its claims from a template, atomically; `name`
/// and `notes` replace the template's where given.
pub fn add_from_template(
    store: &Store,
    wanted: &str,
    name: Option<&str>,
    notes: Option<String>,
) -> Result<Platform> {
    let template = template(wanted)?;
    store.atomically(|store| {
        let mut platform = Platform::new(
            name.unwrap_or(template.name),
            template.kind,
            Some(notes.unwrap_or_else(|| template.notes.into())),
        )?;
        platform.template = Some(template.name.to_string());
        let platform = store.create_platform(&platform)?;
        for c in template.claims {
            let claim = Claim::new(
                platform.id,
                c.subject,
                c.value,
                c.unit.map(String::from),
                Some(c.text.to_string()),
                c.source,
            )?;
            store.add_claim(&claim)?;
        }
        if let Some(b) = &template.billing {
            let rule = BillingRule {
                granularity_s: b.granularity_s,
                minimum_charge_s: b.minimum_s,
                notes: Some(format!("from the {} template: {}", template.name, b.source)),
                ..BillingRule::per_second(platform.id, BillingMode::OnDemand)
            }
            .validate()?;
            store.set_billing_rule(&rule)?;
        }
        Ok(platform)
    })
}

/// Create a platform by hand.
pub fn add(
    store: &Store,
    name: &str,
    kind: PlatformKind,
    notes: Option<String>,
) -> Result<Platform> {
    store.create_platform(&Platform::new(name, kind, notes)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn every_template_makes_a_platform_with_valid_claims() {
        let store = Store::open_in_memory().unwrap();
        for t in templates::TEMPLATES {
            add_from_template(&store, t.name, None, None).unwrap();
        }
        assert_eq!(store.platforms().unwrap().len(), templates::TEMPLATES.len());
        let autodl = store.platform("autodl").unwrap();
        let claims = store.claims(Some(autodl.id)).unwrap();
        assert_eq!(claims[0].value, Some(99.98));
        assert!(
            claims[0]
                .source
                .contains("7-day high-load stability review")
        );
        // A template with the provider's published rule sets it, with its source.
        let aws = store.platform("aws").unwrap();
        let rules = store.billing_rules(aws.id).unwrap();
        assert_eq!((rules[0].granularity_s, rules[0].minimum_charge_s), (1, 60));
        assert!(
            rules[0]
                .notes
                .as_deref()
                .unwrap()
                .contains("Amazon EC2 On-Demand pricing")
        );
        let err = add_from_template(&store, "nowhere", None, None).unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");
    }
}

/// What to do with a platform's energy factors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FactorsChange {
    /// Only read them.
    Keep,
    Set {
        pue: f64,
        grid_g_per_kwh: f64,
    },
    /// Back to the documented defaults.
    Reset,
}

/// A platform's PUE and grid intensity after `change`: the platform's own,
/// or the defaults (`set` says which).
pub fn energy_factors(
    store: &Store,
    name: &str,
    change: FactorsChange,
) -> Result<(Platform, crate::metrics::energy::EnergyFactors)> {
    let platform = store.platform(name)?;
    match change {
        FactorsChange::Keep => {}
        FactorsChange::Set {
            pue,
            grid_g_per_kwh,
        } => store.set_energy_factors(platform.id, pue, grid_g_per_kwh)?,
        FactorsChange::Reset => store.clear_energy_factors(platform.id)?,
    }
    let factors = crate::metrics::energy::EnergyFactors::of_platform(store, platform.id)?;
    Ok((platform, factors))
}
