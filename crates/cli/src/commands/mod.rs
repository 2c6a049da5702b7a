//! One module per command group; each turns parsed arguments into calls on
//! the core and prints the result.

mod accept;
mod bill;
mod billing;
mod bundle;
mod campaign;
mod claim;
mod cost;
mod db;
mod decision;
mod demo;
mod explain;
mod import;
mod offering;
mod perf;
mod platform;
pub mod probe;
mod rank;
mod rates;
mod report;
mod runs;
mod weights;

use std::path::{Path, PathBuf};

use breakpoint_api::workspace::{self as store, Store};
use breakpoint_destination::{Destination, Protected};

use crate::args::{CampaignCommand, Cli, Command, PlatformCommand};

/// Why a command failed: the core refused (the message names what is
/// wrong), the output could not be written, or the command line asked for
/// something impossible.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error(transparent)]
    Core(#[from] breakpoint_api::Error),
    #[error(transparent)]
    Invalid(#[from] breakpoint_api::ValidationError),
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Report(#[from] breakpoint_report::ReportError),
    #[error(transparent)]
    Write(#[from] breakpoint_destination::WriteError),
    /// Already told the user (one line per problem); just exit non-zero.
    #[error("")]
    Reported,
    /// No NVIDIA driver or GPU: its own exit status, so scripts can tell.
    #[error("{0}")]
    NoGpu(String),
    /// Pass a wrapped workload's exit status through, silently.
    #[error("")]
    Exit(u8),
}

pub type Outcome = Result<(), Failure>;

/// What every command gets: the open store and the output choice.
pub struct Context {
    pub store: Store,
    pub json: bool,
    /// The database file, where there is one (a campaign's ledger lies
    /// beside it).
    pub db: Option<PathBuf>,
    /// The workspaces no output may replace: the one named or opened, the
    /// default one and the demo's, also for commands that open none.
    pub protected: Protected,
}

impl Context {
    /// `path` checked as an output (see `breakpoint_destination`).
    pub fn destination(&self, path: &Path, force: bool) -> Result<Destination, Failure> {
        Ok(Destination::check(path, &self.protected, force)?)
    }
}

/// Every workspace the user has that this command could name: the one
/// given, the default one and the demo's beside it.
fn protected(explicit: Option<&Path>, open: &Store) -> Protected {
    let mut protected = Protected::workspace(open.path());
    if let Some(db) = explicit {
        protected = protected.and(db);
    }
    if let Some(default) = store::default_path() {
        protected = protected
            .and(&default)
            .and(&default.with_file_name("demo.db"));
    }
    protected
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

fn demo_path() -> Result<PathBuf, Failure> {
    let main = database_path(None)?;
    Ok(main.with_file_name("demo.db"))
}

pub fn run(cli: Cli) -> Outcome {
    // The demo gets a file of its own unless told otherwise, so it never
    // mixes with real evidence.
    let mut db_file = None;
    let explicit_db = cli.db.clone();
    let store = match (&cli.command, cli.db) {
        (Command::Probe(p), _) if !p.needs_database() => Store::open_in_memory()?,
        // A check that imports nothing needs no database: on a rented
        // instance there is none.
        (Command::Accept(c), _) if !cli.command.writes() && !c.reads_database() => {
            Store::open_in_memory()?
        }
        // Built into the binary: no database needed.
        (Command::Platform(PlatformCommand::Templates), _) => Store::open_in_memory()?,
        (Command::Explain(args), _) if args.metrics => Store::open_in_memory()?,
        (Command::Demo(_), None) => Store::open(&demo_path()?)?,
        (command, db) if command.writes() => {
            let path = database_path(db)?;
            let store = Store::open(&path)?;
            db_file = Some(path);
            // A person would rather wait for an import in another terminal
            // to end than be told "database is locked".
            store::on_wait(|waited| {
                eprintln!(
                    "waiting for another process to finish writing to the database ({} s)…",
                    waited.as_secs()
                );
            });
            store.wait_for_other_writers()?;
            store
        }
        (Command::Campaign(c), db) if !matches!(c, CampaignCommand::List) => {
            // Status and cleanup need the ledger, not the database.
            let path = database_path(db)?;
            db_file = Some(path.clone());
            Store::open_in_memory()?
        }
        (_, db) => Store::open_existing(&database_path(db)?)?,
    };
    let protected = protected(explicit_db.as_deref(), &store);
    crate::output::set_wide(cli.wide);
    let ctx = Context {
        store,
        json: cli.json,
        db: db_file,
        protected,
    };
    match cli.command {
        Command::Platform(c) => platform::run(&ctx, c),
        Command::Offering(c) => offering::run(&ctx, c),
        Command::Billing(c) => billing::run(&ctx, c),
        Command::Claim(c) => claim::run(&ctx, c),
        Command::Rates(c) => rates::run(&ctx, c),
        Command::Decision(c) => decision::run(&ctx, c),
        Command::Import(args) => import::run(&ctx, args),
        Command::Runs(c) => runs::run(&ctx, c),
        Command::Rank(args) => rank::run(&ctx, args),
        Command::Cost(args) => cost::run(&ctx, args),
        Command::Explain(args) => explain::run(&ctx, args),
        Command::Bill(args) => bill::run(&ctx, args),
        Command::Perf => perf::run(&ctx),
        Command::Weights(c) => weights::run(&ctx, c),
        Command::Probe(c) => probe::run(&ctx, c),
        Command::Campaign(c) => campaign::run(&ctx, c),
        Command::Accept(c) => accept::run(&ctx, c),
        Command::Bundle(c) => bundle::run(&ctx, c),
        Command::Report(args) => report::run(&ctx, args),
        Command::Demo(args) => demo::run(&ctx, args),
        Command::Db(c) => db::run(&ctx, c),
    }
}

/// Ask `question` on the terminal; without a terminal, refuse with
/// `refusal` (which says how to go on without one).
pub(crate) fn confirm(refusal: &str, question: &str) -> Result<bool, Failure> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Err(Failure::Refused(refusal.into()));
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// A flag Ctrl-C sets: a measurement stops at its next step, cleans up and
/// keeps what it measured, instead of dying mid-write.
pub(crate) fn stop_on_ctrl_c() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    stop
}
