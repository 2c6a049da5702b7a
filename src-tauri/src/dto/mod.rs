//! What crosses IPC: plain views of the core's results, shaped for the UI.
//! Their TypeScript twins are generated into ui/src/bindings by `cargo test`
//! (ts-rs); CI fails when the committed ones drift.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

macro_rules! view {
    ($($item:item)*) => {
        $(
            #[derive(Debug, Clone, Serialize, Deserialize, TS)]
            #[ts(export, export_to = "../../ui/src/bindings/")]
            $item
        )*
    };
}

// One file per screen (or IPC exchange); the app's commands use them
// through this module.
mod billing;
mod campaigns;
mod decision;
mod exports;
mod fleet;
mod platforms;
mod probe;
mod ranking;
mod runs;

pub use billing::*;
pub use campaigns::*;
pub use decision::*;
pub use exports::*;
pub use fleet::*;
pub use platforms::*;
pub use probe::*;
pub use ranking::*;
pub use runs::*;

view! {
    pub struct AppInfo {
        pub version: String,
        pub db_path: String,
        pub language: String,
        pub platforms: u32,
        pub runs: u32,
        pub demo: bool,
    }
}
