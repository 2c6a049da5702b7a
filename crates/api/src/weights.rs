//! Editing weight profiles: a metric's weight and its scoring curve as a
//! user writes them, checked against the metric catalogue, and the profile
//! saved only when every part of it is valid.

use crate::domain::{Anchors, Breakpoint, WeightProfile};
use crate::error::{Error, Result, ValidationError};
use crate::metrics::catalog;

use crate::store::{Store, StoredProfile};

/// The scenario presets a profile starts from.
pub use breakpoint_core::scoring::presets;

fn key_and_value(text: &str) -> std::result::Result<(String, &str), ValidationError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| ValidationError::new("metric", "write it as key=value"))?;
    let key = key.trim();
    check_metric(key)?;
    Ok((key.to_string(), value.trim()))
}

fn check_metric(key: &str) -> std::result::Result<(), ValidationError> {
    if catalog::metric(key).is_none() {
        return Err(ValidationError::new(
            "metric",
            format!("\"{key}\" is not a metric (see `breakpoint explain --metrics`)"),
        ));
    }
    Ok(())
}

/// "sustain.power_drop_pct=2": a metric's weight inside its breakpoint.
pub fn parse_metric_weight(text: &str) -> std::result::Result<(String, f64), ValidationError> {
    let (key, value) = key_and_value(text)?;
    let weight = value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            ValidationError::new("metric", format!("\"{value}\" is not a weight ≥ 0"))
        })?;
    Ok((key, weight))
}

/// "startup.peak_p50_s=5:1800:log": a metric's anchors, best:worst, linear
/// or logarithmic (which needs values above 0).
pub fn parse_curve(text: &str) -> std::result::Result<(String, Anchors), ValidationError> {
    let (key, value) = key_and_value(text)?;
    let parts: Vec<&str> = value.split(':').collect();
    let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    let anchors = match parts.as_slice() {
        [best, worst] | [best, worst, "linear"] => {
            num(best)
                .zip(num(worst))
                .map(|(best, worst)| Anchors::Fixed {
                    best,
                    worst,
                    log: false,
                })
        }
        [best, worst, "log"] => num(best)
            .zip(num(worst))
            .filter(|(b, w)| *b > 0.0 && *w > 0.0)
            .map(|(best, worst)| Anchors::Fixed {
                best,
                worst,
                log: true,
            }),
        _ => None,
    }
    .ok_or_else(|| {
        ValidationError::new(
            "curve",
            "write best:worst or best:worst:log (log needs values above 0)",
        )
    })?;
    Ok((key.clone(), anchors.validate(&key)?))
}

/// Whether an edit makes a profile, changes one, or either.
#[derive(Debug, Clone, PartialEq)]
pub enum EditMode {
    /// A new profile, starting from `from` [default: balanced]; refused if
    /// the name (or one reading the same) is taken.
    Add { from: Option<String> },
    /// An existing profile; refused if there is none.
    Set,
    /// The profile of that name if there is one, else a new one from the
    /// default (the app's "save these weights as").
    Save,
}

/// A change to a weight profile, as a face read it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileEdit {
    pub name: String,
    pub mode: EditMode,
    pub breakpoints: Vec<(Breakpoint, f64)>,
    pub metrics: Vec<(String, f64)>,
    pub curves: Vec<(String, Anchors)>,
    pub coverage_threshold: Option<f64>,
}

impl ProfileEdit {
    pub fn new(name: &str, mode: EditMode) -> Self {
        Self {
            name: name.to_string(),
            mode,
            breakpoints: Vec::new(),
            metrics: Vec::new(),
            curves: Vec::new(),
            coverage_threshold: None,
        }
    }
}

/// Make or change a profile and save it, checked as a whole.
pub fn edit(store: &Store, e: &ProfileEdit) -> Result<StoredProfile> {
    let existing = store.weight_profile(&e.name).ok();
    let new_from = |from: Option<&str>| -> Result<StoredProfile> {
        let mut base = store.weight_profile(from.unwrap_or(presets::DEFAULT_PROFILE))?;
        base.profile = WeightProfile::new(&e.name, base.profile.breakpoints, base.profile.metrics)?;
        Ok(base)
    };
    let mut p = match (existing, &e.mode) {
        (Some(p), EditMode::Add { .. }) if p.profile.name != e.name.trim() => {
            return Err(Error::LooksLike {
                what: "weight profile",
                name: e.name.clone(),
                existing: p.profile.name,
            });
        }
        (Some(_), EditMode::Add { .. }) => {
            return Err(Error::AlreadyExists {
                what: "weight profile",
                name: e.name.clone(),
            });
        }
        (None, EditMode::Set) => return Err(Error::not_found("weight profile", &e.name)),
        (Some(p), EditMode::Set | EditMode::Save) => p,
        (None, EditMode::Add { from }) => new_from(from.as_deref())?,
        (None, EditMode::Save) => new_from(None)?,
    };
    for (b, w) in &e.breakpoints {
        p.profile.breakpoints.set(*b, *w);
    }
    p.profile.metrics.extend(e.metrics.iter().cloned());
    p.curves.extend(e.curves.iter().cloned());
    if let Some(t) = e.coverage_threshold {
        p.coverage_threshold = t;
    }
    save(store, &p)
}

/// Save a profile whose every metric key names a metric; the store checks
/// the rest (weights, threshold, built-in presets, look-alike names).
pub fn save(store: &Store, profile: &StoredProfile) -> Result<StoredProfile> {
    for key in profile.profile.metrics.keys().chain(profile.curves.keys()) {
        check_metric(key)?;
    }
    store.save_weight_profile(profile)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::catalogue::keys;

    #[test]
    fn metric_weights_and_curves_are_read_and_checked_here() {
        assert_eq!(
            parse_metric_weight("sustain.power_drop_pct=2").unwrap(),
            (keys::SUSTAIN_POWER_DROP_PCT.to_string(), 2.0)
        );
        assert!(
            parse_metric_weight("speed=2")
                .unwrap_err()
                .reason
                .contains("not a metric")
        );
        assert!(parse_metric_weight("sustain.power_drop_pct=-1").is_err());
        assert!(parse_metric_weight(keys::SUSTAIN_POWER_DROP_PCT).is_err());
        let (_, a) = parse_curve("startup.peak_p50_s=5:1800:log").unwrap();
        assert_eq!(
            a,
            Anchors::Fixed {
                best: 5.0,
                worst: 1800.0,
                log: true
            }
        );
        assert!(parse_curve("startup.peak_p50_s=0:1800:log").is_err());
        assert!(parse_curve("startup.peak_p50_s=5").is_err());
    }

    #[test]
    fn edits_add_set_or_save_and_refuse_the_wrong_one() {
        let store = Store::open_in_memory().unwrap();
        let mut add = ProfileEdit::new("Fast", EditMode::Add { from: None });
        add.breakpoints = vec![(Breakpoint::Startup, 3.0)];
        assert_eq!(edit(&store, &add).unwrap().profile.breakpoints.startup, 3.0);
        assert!(
            edit(&store, &add)
                .unwrap_err()
                .to_string()
                .contains("already exists")
        );
        let look_alike = ProfileEdit::new("FAST", EditMode::Add { from: None });
        assert!(
            edit(&store, &look_alike)
                .unwrap_err()
                .to_string()
                .contains("reads the same")
        );
        assert!(edit(&store, &ProfileEdit::new("nope", EditMode::Set)).is_err());
        let mut set = ProfileEdit::new("Fast", EditMode::Set);
        set.metrics = vec![(keys::SUSTAIN_POWER_DROP_PCT.into(), 2.0)];
        let p = edit(&store, &set).unwrap();
        assert_eq!(p.profile.breakpoints.startup, 3.0, "kept");
        assert_eq!(p.profile.metrics[keys::SUSTAIN_POWER_DROP_PCT], 2.0);
        let mut save_new = ProfileEdit::new("Mine", EditMode::Save);
        save_new.breakpoints = vec![(Breakpoint::Billing, 9.0)];
        assert_eq!(
            edit(&store, &save_new).unwrap().profile.breakpoints.billing,
            9.0
        );
    }

    #[test]
    fn a_profile_naming_an_unknown_metric_is_not_saved() {
        let store = Store::open_in_memory().unwrap();
        let mut p = store.weight_profile("balanced").unwrap();
        p.profile.name = "mine".into();
        p.profile.builtin = false;
        p.profile.metrics.insert("speed".into(), 1.0);
        assert!(save(&store, &p).is_err());
        assert!(store.weight_profile("mine").is_err());
    }
}
