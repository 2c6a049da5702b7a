//! The acceptance run: the checks an engineer makes on a rented instance
//! before going live (seed 003 §6.2, seed 000's stability dimensions), run
//! headless by the same `breakpoint` binary. Each check writes a log in a
//! format the importer reads, so its results come back to the workstation
//! as files and enter the ranking like any evidence.
//!
//! Done so far: network stability ([`network`]), the billing probe
//! ([`billing`]), the failover drill ([`failover`]); stress stability runs
//! the user's load through the probe.

pub mod billing;
pub mod bundle;
pub mod failover;
pub mod network;
pub mod plan;
pub mod ready;
pub mod stress;
