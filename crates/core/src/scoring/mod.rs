//! Scoring: metric values → 0–100 scores (curves), scores → breakpoint and
//! overall scores under a weight profile (rank), and how far that ranking
//! can be trusted (robustness).

mod acceptability;
pub mod curve;
mod flips;
pub mod presets;
pub mod provisional;
pub mod rank;
mod reach;
pub mod robustness;

pub use rank::{BreakpointScore, MetricScore, PlatformScore, Ranking, rank, rank_evidence};
pub use robustness::{Flip, Robustness, RobustnessOptions, robustness};

#[cfg(test)]
mod tests;
