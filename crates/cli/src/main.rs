//! The `breakpoint` command line: parse, validate, then act on the core.
//! Human tables by default, `--json` for scripts; errors as one line.

mod args;
mod commands;
mod output;

use std::io::ErrorKind;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind as ClapErrorKind;

use args::Cli;

/// A ranking of a thousand platforms builds and frees a few hundred
/// thousand small values; mimalloc does that in about half the time of the
/// system allocator, and keeps import's memory just as flat. Built without
/// transparent huge pages (`no_thp`): an import's encoder frees and takes
/// pages all the time, and each fresh huge page cost zeroing 2 MiB (an
/// eighth of the import's time, and a quarter of its memory).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit status for errors in the input or the data (3: no NVIDIA GPU to probe;
/// `probe run` passes the workload's own status through).
const EXIT_USER_ERROR: u8 = 1;
/// Exit status for command lines that do not parse.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if matches!(
                e.kind(),
                ClapErrorKind::DisplayHelp
                    | ClapErrorKind::DisplayVersion
                    | ClapErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ClapErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(EXIT_USAGE)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line naming what is wrong; `--help` has the rest. Clap
            // lists missing arguments on the lines below its first: they
            // join it.
            let rendered = e.render().to_string();
            let mut lines = rendered.lines();
            let first = lines.next().unwrap_or("error: invalid command line");
            let listed: Vec<&str> = lines
                .take_while(|l| l.starts_with("  "))
                .map(str::trim)
                .collect();
            if listed.is_empty() {
                eprintln!("{first}");
            } else {
                eprintln!("{first} {}", listed.join(", "));
            }
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(commands::Failure::Output(e)) if e.kind() == ErrorKind::BrokenPipe => {
            // `breakpoint … | head` is not an error.
            ExitCode::SUCCESS
        }
        Err(commands::Failure::Reported) => ExitCode::from(EXIT_USER_ERROR),
        Err(commands::Failure::Exit(code)) => ExitCode::from(code),
        Err(commands::Failure::NoGpu(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(commands::probe::EXIT_NO_GPU)
        }
        Err(failure) => {
            // Messages may quote names and file names: shown, never obeyed.
            let message = failure.to_string();
            eprintln!(
                "error: {}",
                breakpoint_api::text::printable_multiline(&message)
            );
            ExitCode::from(EXIT_USER_ERROR)
        }
    }
}
