#![deny(missing_docs)]
//! cctool: transcript forensics and conversion for Claude Code and Codex sessions.
//!
//! The binary is a thin wrapper around [`run`]; everything else is a library so that tests,
//! benches and fuzz targets can call the same code. Layout (`ARCHITECTURE.md`): `io` (bytes,
//! lines, inputs), `model` (shared vocabulary), `agents` (one folder per format: its records,
//! what it loads on resume, its request view, import and compaction), `compact`, `summary`
//! and `scan` (the parts every agent shares), `output` (printing), `commands` (one module per
//! subcommand).

pub mod agents;
// Not public: clap takes the doc comment of an argument, a subcommand or their struct as its
// help text, so the clap items without one (a flattened group, a subcommand whose help is its
// struct's, a command whose `about` is written out) could not gain one without changing what
// `--help` and the man pages print. What is outside asks for the whole definition ([`command`]).
mod cli;
// Tests, benches and fuzz targets run a command only through `run`, as the binary does.
pub(crate) mod commands;

use std::ffi::OsString;

pub use cctool_core::{ExitStatus, compact, convert, error, io, model, output, slim, summary, v5};
pub use cctool_features::{backup, export, hooks, redact, scan, search, tables};

/// The command line's definition, every subcommand with its arguments and help: what `--help`,
/// the man pages and the completions are made from, for tests and generators.
pub fn command() -> clap::Command {
    cli::command()
}

/// Runs cctool with these arguments (the first is the program name), knowing the agents it is
/// built with ([`agents::BUILTIN`]).
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitStatus {
    run_with(agents::BUILTIN, args)
}

/// Runs cctool knowing the agents of `registry`, in its order: a program that adds an agent
/// to cctool's is its crate and this call with one more line in the list.
pub fn run_with(
    registry: &'static [&'static dyn agents::Agent],
    args: impl IntoIterator<Item = OsString>,
) -> ExitStatus {
    agents::registry::install(registry);
    io::mapguard::quiet_panics();
    let cli = match cli::parse(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::Error
            } else {
                ExitStatus::Success
            };
        }
    };
    // A panic after a mapped file was truncated under a reader comes from the zeros it read
    // (see `io::mapguard::any_fault`): it is reported as that truncation, exit status 2.
    let dispatched = match std::panic::catch_unwind(|| commands::dispatch(&cli)) {
        Ok(r) => r,
        Err(panic) if io::mapguard::any_fault() => {
            let notes = io::mapguard::notes();
            if notes.is_empty() {
                output::report::say("a file changed while it was read: it was truncated");
            }
            for n in notes {
                output::report::say(&n);
            }
            drop(panic);
            return ExitStatus::Error;
        }
        Err(panic) => std::panic::resume_unwind(panic),
    };
    match dispatched {
        Ok(status) => status,
        Err(e) if e.is_broken_pipe() => ExitStatus::Success,
        Err(e) => {
            output::report::say(&crate::error::with_causes(&e));
            ExitStatus::Error
        }
    }
}
