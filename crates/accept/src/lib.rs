//! The acceptance run: the checks an engineer makes on a rented instance
//! before going live (the four-breakpoint review, §6.2, the 7-day stability review's stability dimensions), run
//! headless by the same `breakpoint` binary. Each check writes a log in a
//! format the importer reads, so its results come back to the workstation
//! as files and enter the ranking like any evidence.
//!
//! The checks: readiness at boot ([`ready`]), stress stability
//! ([`stress`], the user's load under the probe), the billing probe
//! ([`billing`]), the failover drill ([`failover`]), numeric drift and
//! operator coverage ([`drift`]), network stability ([`network`]),
//! delivered performance ([`perf`]) and the data path with its outage
//! drill ([`storage`]); a
//! [`plan`] runs several and packs their logs into a [`bundle`]. Each
//! check's verdict is written once, in [`verdicts`].

pub mod billing;
pub mod bundle;
pub mod drift;
pub mod failover;
pub mod network;
pub mod perf;
pub mod plan;
pub mod ready;
mod script;
#[cfg(unix)]
pub mod storage;
pub mod stress;
pub mod verdicts;
