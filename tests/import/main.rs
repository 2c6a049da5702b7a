//! Import of every fixture under tests/fixtures/logs through the public
//! API, with golden values from the fixtures' READMEs; properties of the
//! parsers (round trips, column order, no panics on any bytes).

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod util;

mod dcgm;
mod errors;
mod fragments;
mod health;
mod hostile;
mod kernel;
mod launch;
mod lspci;
mod properties;
mod smi_csv;
mod smi_other;
mod smi_xml;
mod spot;
mod tables;
mod vendors;
