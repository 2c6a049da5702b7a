//! The commands the UI calls, one file per area. Each takes its arguments
//! and the state, calls the core, and converts the result: no SQL and no
//! business logic here.

pub mod app;
pub mod billing;
pub mod platforms;
pub mod probe;
pub mod ranking;
pub mod report;
pub mod runs;
