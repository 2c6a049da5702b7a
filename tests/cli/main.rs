//! End-to-end tests of the `breakpoint` binary: every command, and each bad
//! input with its exact one-line message and a check that nothing changed.

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod util;

mod accept;
mod bills;
mod bundles;
mod campaign;
mod clustermax;
mod cost;
mod database;
mod decision;
mod energy;
mod errors;
mod fleet;
mod health_checks;
mod history;
mod hostile;
mod hostile_bundles;
mod hostile_corpus;
mod hostile_money;
mod imports;
mod launch_records;
mod layout;
mod money;
mod offerings;
mod perf;
mod platforms;
mod price_evidence;
mod probe;
mod report;
mod runs;
mod scoring;
mod snapshots;
mod verdicts;
