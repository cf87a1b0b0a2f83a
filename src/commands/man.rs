//! Man pages generated from the clap definitions (`cctool generate-man DIR`, hidden).
//! The committed pages in `man/` are checked against this output by a test, so they can
//! never drift from `--help`.

use std::path::Path;

use clap::CommandFactory;

use crate::ExitStatus;
use crate::cli::Cli;

/// Every page: file name and content.
pub fn pages() -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let cmd = Cli::command();
    let mut out = Vec::new();
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf)?;
    out.push(("cctool.1".to_string(), buf));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("cctool-{}", sub.get_name());
        let sub = sub
            .clone()
            .name(name.clone())
            .version(cmd.get_version().unwrap_or_default().to_string());
        let mut buf = Vec::new();
        clap_mangen::Man::new(sub).render(&mut buf)?;
        out.push((format!("{name}.1"), buf));
    }
    Ok(out)
}

pub fn run(dir: &Path) -> anyhow::Result<ExitStatus> {
    std::fs::create_dir_all(dir)?;
    for (name, content) in pages()? {
        std::fs::write(dir.join(&name), content)?;
    }
    Ok(ExitStatus::Success)
}
