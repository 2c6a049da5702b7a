//! What the faces do, each once: the command line and the desktop app parse
//! their input into these requests, call one function, and format what it
//! returns. Nothing here prints or knows about windows.

pub mod acceptance;
pub mod decision;
pub mod delivery;
pub mod disputes;
pub mod hardware;
pub mod importing;
pub mod job_cost;
pub mod performance;
pub mod platforms;
pub mod pricing;
pub mod ranking;
pub mod runs;
pub mod timeline;
pub mod weights;
pub mod workspace_bundle;
