//! One module per subcommand. Each takes its parsed arguments and returns the exit status.

pub mod completions;
pub mod man;
pub mod rebuild_chain;

use crate::ExitStatus;
use crate::cli::{Cli, Command};

pub fn dispatch(cli: &Cli) -> anyhow::Result<ExitStatus> {
    match &cli.command {
        Command::RebuildChain(args) => rebuild_chain::run(&cli.global, args),
        Command::Completions(args) => completions::run(args),
        Command::GenerateMan { dir } => man::run(dir),
    }
}
