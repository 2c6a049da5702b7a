//! Fleets through Prometheus: a team judging a platform by its cluster
//! already runs the DCGM exporter and Prometheus (or Thanos,
//! VictoriaMetrics, Mimir). [`pull`] reads the fleet's history where it
//! lives, one run per node; [`serve`] feeds a fleet without DCGM, the
//! probe's readings under the exporter's names. The HTTP API sits behind
//! [`api::PromApi`].

pub mod api;
pub mod pull;
mod scrape;
pub mod serve;
