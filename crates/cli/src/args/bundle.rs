//! `breakpoint bundle …`: workspace bundles.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Write platforms (with offerings, billing rules, claims), their runs
    /// with everything stored for them, and the custom weight profiles to
    /// one file [default: the whole workspace].
    Export {
        /// Where to write it (a tar file).
        #[arg(short, long)]
        output: PathBuf,
        /// Only this platform and its runs (repeatable).
        #[arg(long = "platform")]
        platforms: Vec<String>,
        /// Only this run, with its platform (repeatable).
        #[arg(long = "run")]
        runs: Vec<i64>,
        /// Replace what is at the path even if it is not a plain file (a
        /// link, a device, a pipe); the workspace itself never.
        #[arg(long)]
        force: bool,
    },
    /// Merge a bundle into this workspace, all or nothing: runs already
    /// here are skipped; a platform or profile that differs from ours under
    /// the same name stops the merge unless told what to do.
    Import {
        file: PathBuf,
        /// On a conflict keep ours; their runs join our platform.
        #[arg(long, conflicts_with = "rename_theirs")]
        keep_ours: bool,
        /// On a conflict import theirs beside ours under a new name.
        #[arg(long)]
        rename_theirs: bool,
    },
}
