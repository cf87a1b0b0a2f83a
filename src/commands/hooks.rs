//! `cctool hooks install|uninstall|run`. The work is in `crate::hooks`.

use std::io::Read;

use crate::ExitStatus;
use crate::cli::{GlobalArgs, HooksAction, HooksArgs, HooksInstallArgs};
use crate::hooks::install::{self, Edit};
use crate::hooks::{Agent, run as hook};
use crate::output::report::Reporter;
use crate::output::sanitize::escape_str;

pub fn run(g: &GlobalArgs, a: &HooksArgs) -> anyhow::Result<ExitStatus> {
    match &a.action {
        HooksAction::Install(i) => edit(g, i, true),
        HooksAction::Uninstall(i) => edit(g, i, false),
        HooksAction::Run(r) => {
            // Whatever happens, the agent's compaction goes on: nothing on stdout, exit 0.
            let archive = super::backup::archive_dir(r.to.as_deref()).ok();
            let mut input = Vec::new();
            let read = std::io::stdin().take(64 << 20).read_to_end(&mut input);
            let Some(dir) = archive else {
                return Ok(ExitStatus::Success);
            };
            let result = match read {
                Ok(_) => std::panic::catch_unwind(|| hook::handle(r.agent, &input, &crate::backup::Archive::new(&dir)))
                    .map_or_else(
                        |_| Err("the hook handler panicked".to_string()),
                        |r| r.map_err(|e| e.to_string()),
                    ),
                Err(e) => Err(format!("cannot read the hook input: {e}")),
            };
            match result {
                Ok(line) => hook::log(&dir, r.agent, &line),
                Err(e) => hook::log(&dir, r.agent, &format!("error: {e}")),
            }
            Ok(ExitStatus::Success)
        }
    }
}

fn edit(g: &GlobalArgs, a: &HooksInstallArgs, add: bool) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let env = |v: &str| std::env::var_os(v).filter(|x| !x.is_empty());
    let path = install::settings_path(a.agent, a.scope, &env, &cwd)
        .ok_or_else(|| crate::Fatal("HOME is unset: cannot find the user's settings; use --scope project".into()))?;
    let shown = escape_str(&path.display().to_string());
    let text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8(b).map_err(|_| crate::Fatal(format!("{shown}: not UTF-8 text; not edited")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(crate::Fatal(format!("{shown}: cannot read: {e}")).into()),
    };
    let say = Reporter::new(g);
    if !add && text.is_empty() {
        say.note(&format!("{shown}: no such file; nothing to remove"));
        return Ok(ExitStatus::Success);
    }
    let edited = if add {
        let exe = std::env::current_exe()
            .map_err(|e| crate::Fatal(format!("cannot tell where this cctool binary is: {e}")))?;
        let archive = a.to.as_deref().map(std::path::absolute).transpose()?;
        let cmd = crate::hooks::command(&exe, a.agent, archive.as_deref());
        match a.agent {
            Agent::ClaudeCode => install::json_install(&text, &cmd),
            Agent::Codex => install::toml_install(&text, &cmd),
        }
    } else {
        match a.agent {
            Agent::ClaudeCode => install::json_uninstall(&text),
            Agent::Codex => install::toml_uninstall(&text),
        }
    }
    .map_err(|e| crate::Fatal(format!("{shown}: {e}")))?;
    match edited {
        Edit::Unchanged => say.note(&format!(
            "{shown}: {}; not changed",
            if add {
                "cctool's hooks are already there"
            } else {
                "no hooks of cctool's in it"
            }
        )),
        Edit::Changed(content, events) => {
            let backup = install::write_settings(&path, &content)
                .map_err(|e| crate::Fatal(format!("{shown}: cannot write: {e}")))?;
            say.note(&format!(
                "{shown}: {} {}{}",
                if add {
                    "added hooks for"
                } else {
                    "removed cctool's hooks for"
                },
                events.join(" and "),
                backup.map_or_else(String::new, |b| format!(" (the file as it was: {})", b.display()))
            ));
        }
    }
    Ok(ExitStatus::Success)
}
