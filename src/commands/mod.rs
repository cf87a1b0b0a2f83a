//! One module per subcommand. Each takes its parsed arguments and returns the exit status.

pub mod completions;
pub mod extract_summary;
pub mod man;
pub mod rebuild_chain;

use crate::ExitStatus;
use crate::cli::{Cli, Command};

pub fn dispatch(cli: &Cli) -> anyhow::Result<ExitStatus> {
    match &cli.command {
        Command::ExtractSummary(args) => extract_summary::run(&cli.global, args),
        Command::RebuildChain(args) => rebuild_chain::run(&cli.global, args),
        Command::Completions(args) => completions::run(args),
        Command::GenerateMan { dir } => man::run(dir),
    }
}

/// Opens an input and decides its format (`--input-format` wins over detection). The error
/// is a sentence naming the file and what to do.
pub fn open_session(
    input: &crate::io::Input,
    g: &crate::cli::GlobalArgs,
) -> Result<(crate::io::Source, crate::model::Format), String> {
    let name = input.display_name();
    let src = crate::io::Source::open(input, g.mmap).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let format = match g.input_format {
        Some(f) => f,
        None => crate::formats::detect(&src).map_err(|u| {
            format!(
                "{name}: not a Claude Code transcript, Codex rollout or cctool session ({}); use --input-format to say which it is",
                u.0
            )
        })?,
    };
    Ok((src, format))
}
