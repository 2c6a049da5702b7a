//! The profile the ranking uses when the user names none, and how a
//! profile's weights are read.

use crate::domain::Breakpoint;
use crate::metrics::catalog::{self, Anchors, MetricDef};
use crate::store::StoredProfile;

/// The built-in preset used when no profile is named.
pub const DEFAULT_PROFILE: &str = "balanced";

/// A metric's weight under a profile: the profile's own, else the
/// catalogue's default.
pub fn metric_weight(profile: &StoredProfile, def: &MetricDef) -> f64 {
    profile
        .profile
        .metrics
        .get(def.key)
        .copied()
        .unwrap_or(def.default_weight)
}

/// A metric's anchors under a profile.
pub fn anchors(profile: &StoredProfile, def: &MetricDef) -> Anchors {
    profile.curves.get(def.key).copied().unwrap_or(def.anchors)
}

/// Breakpoint weights normalised to sum to 1.
pub fn breakpoint_shares(profile: &StoredProfile) -> [f64; 4] {
    let w = profile.profile.breakpoints;
    let raw: [f64; 4] = std::array::from_fn(|i| w.get(Breakpoint::ALL[i]).max(0.0));
    let total: f64 = raw.iter().sum();
    if total > 0.0 {
        raw.map(|x| x / total)
    } else {
        [0.25; 4]
    }
}

/// Metric keys a profile may weigh, for validating user input.
pub fn is_metric(key: &str) -> bool {
    catalog::metric(key).is_some()
}
