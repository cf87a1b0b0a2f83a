//! `cctool completions SHELL`: a completion script generated from the clap definitions.

use crate::ExitStatus;
use crate::cli::CompletionsArgs;

pub fn run(args: &CompletionsArgs) -> super::Result<ExitStatus> {
    let mut cmd = crate::cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "cctool", &mut out);
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(ExitStatus::Success)
}
