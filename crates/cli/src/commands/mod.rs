//! One module per command group; each turns parsed arguments into calls on
//! the core and prints the result.

mod billing;
mod claim;
mod db;
mod import;
mod offering;
mod platform;
mod runs;

use std::path::PathBuf;

use breakpoint_core::store::{self, Store};

use crate::args::{Cli, Command};

/// Why a command failed: the core refused (the message names what is
/// wrong), the output could not be written, or the command line asked for
/// something impossible.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error(transparent)]
    Core(#[from] breakpoint_core::Error),
    #[error(transparent)]
    Invalid(#[from] breakpoint_core::error::ValidationError),
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    #[error("{0}")]
    Refused(String),
    /// Already told the user (one line per problem); just exit non-zero.
    #[error("")]
    Reported,
}

pub type Outcome = Result<(), Failure>;

/// What every command gets: the open store and the output choice.
pub struct Context {
    pub store: Store,
    pub json: bool,
}

fn database_path(explicit: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(path) = explicit {
        return Ok(path);
    }
    let path = store::default_path().ok_or_else(|| {
        Failure::Refused(
            "cannot find a data directory for the database; give one with --db PATH or BREAKPOINT_DB"
                .into(),
        )
    })?;
    // The default location is ours to create; an explicit path is not.
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure::Refused(format!(
                "cannot create the data directory \"{}\": {e}",
                parent.display()
            ))
        })?;
    }
    Ok(path)
}

pub fn run(cli: Cli) -> Outcome {
    let path = database_path(cli.db)?;
    let ctx = Context {
        store: Store::open(&path)?,
        json: cli.json,
    };
    match cli.command {
        Command::Platform(c) => platform::run(&ctx, c),
        Command::Offering(c) => offering::run(&ctx, c),
        Command::Billing(c) => billing::run(&ctx, c),
        Command::Claim(c) => claim::run(&ctx, c),
        Command::Import(args) => import::run(&ctx, args),
        Command::Runs(c) => runs::run(&ctx, c),
        Command::Db(c) => db::run(&ctx, c),
    }
}
