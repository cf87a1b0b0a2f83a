//! `cctool hooks install|uninstall|run`. The work is in `crate::hooks`.

use std::io::Read;

use crate::ExitStatus;
use crate::agents::{Agent, Hooks};
use crate::cli::{GlobalArgs, HooksAction, HooksArgs, HooksInstallArgs};
use crate::hooks::install::{self, Edit, HooksError};
use crate::hooks::run as hook;

pub fn run(g: &GlobalArgs, a: &HooksArgs) -> super::Result<ExitStatus> {
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
            let result = match (read, with_hooks(&r.agent)) {
                (Ok(_), Ok((agent, _))) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    hook::handle(agent, &input, &crate::backup::Archive::new(&dir), r.after)
                }))
                .map_or_else(
                    |_| Err("the hook handler panicked".to_string()),
                    |r| r.map_err(|e| e.to_string()),
                ),
                (Err(e), _) => Err(format!("cannot read the hook input: {e}")),
                (_, Err(e)) => Err(e.to_string()),
            };
            match result {
                Ok(line) => hook::log(&dir, &r.agent, &line),
                Err(e) => hook::log(&dir, &r.agent, &format!("error: {e}")),
            }
            if r.index {
                let refreshed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| refresh_index(g, &input)))
                    .unwrap_or_else(|_| Some(Err("the index update panicked".to_string())));
                match refreshed {
                    Some(Ok(line)) => hook::log(&dir, &r.agent, &line),
                    Some(Err(e)) => hook::log(&dir, &r.agent, &format!("error: {e}")),
                    None => {}
                }
            }
            Ok(ExitStatus::Success)
        }
    }
}

/// `hooks run --index`: the index brought up to date with the transcript the hook input
/// names; `None` when it names none.
fn refresh_index(g: &GlobalArgs, input: &[u8]) -> Option<Result<String, String>> {
    let v: serde_json::Value = serde_json::from_slice(input).ok()?;
    let path = v.get("transcript_path")?.as_str().filter(|p| !p.is_empty())?;
    let Some(dir) = super::index::index_dir(None) else {
        return Some(Err(
            "index: no folder for the search index (HOME, XDG_CACHE_HOME or CCTOOL_INDEX_DIR)".into(),
        ));
    };
    Some(super::index::refresh(g, &dir, std::path::Path::new(path)))
}

/// The agent `name` names and its hooks: the one place the `hooks` commands' AGENT becomes
/// an agent; one without hooks is refused.
fn with_hooks(name: &str) -> Result<(&'static dyn Agent, &'static dyn Hooks), HooksError> {
    crate::agents::registry()
        .by_name(name)
        .and_then(|a| Some((a, a.hooks()?)))
        .ok_or_else(|| HooksError::NoHooks(name.to_string()))
}

/// What `hooks install` or `uninstall` did, as its `--json` record.
#[derive(serde::Serialize)]
pub struct HooksEdit {
    agent: &'static str,
    settings: String,
    /// `added`, `removed`, `removed_file` (nothing else was in it) or `unchanged`.
    action: &'static str,
    events: Vec<&'static str>,
    /// The command the hooks run (install), else null.
    command: Option<String>,
    /// The copy of the settings file as it was, else null.
    backup: Option<String>,
    /// Whether the agent runs the hooks only once the user trusts them (Codex).
    trust_required: bool,
}

fn edit(g: &GlobalArgs, a: &HooksInstallArgs, add: bool) -> super::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let env = |v: &str| std::env::var_os(v).filter(|x| !x.is_empty());
    let (agent, hooks) = with_hooks(&a.agent)?;
    if !hooks.has_scope(a.scope) {
        return Err(HooksError::UserScopeOnly(a.agent.clone()).into());
    }
    let path = hooks.settings_path(a.scope, &env, &cwd).ok_or(HooksError::NoHome)?;
    let shown = path.display().to_string();
    let text = install::read_settings(&path)?;
    let say = g.reporter();
    let mut record = HooksEdit {
        agent: agent.about().format.name(),
        settings: path.display().to_string(),
        action: "unchanged",
        events: Vec::new(),
        command: None,
        backup: None,
        trust_required: add && hooks.trust_note(a.scope).is_some(),
    };
    let settings_error = |cause| HooksError::Settings {
        path: path.clone(),
        cause,
    };
    let edited = if add {
        let program = match &a.command {
            Some(p) if !crate::hooks::is_cctool(p) => return Err(HooksError::Program(p.clone()).into()),
            Some(p) => p.clone(),
            None => std::env::current_exe()
                .map_err(HooksError::NoExe)?
                .to_string_lossy()
                .into_owned(),
        };
        let archive = a.to.as_deref().map(std::path::absolute).transpose()?;
        let mut cmd = crate::hooks::command(&program, record.agent, archive.as_deref());
        if a.index {
            cmd.push_str(" --index");
        }
        record.command = Some(cmd.clone());
        hooks.install(&text, &cmd).map_err(settings_error)?
    } else if text.is_empty() {
        Edit::Unchanged
    } else {
        hooks.uninstall(&text).map_err(settings_error)?
    };
    if let Edit::Changed(content, events) = edited {
        record.events = events;
        record.action = match install::write_settings(&path, &content)? {
            install::Written::Removed => "removed_file",
            install::Written::Replaced(b) => {
                record.backup = Some(b.display().to_string());
                if add { "added" } else { "removed" }
            }
            install::Written::Created => "added",
        };
    }
    if g.json {
        let mut out = crate::output::Out::new(g.color);
        out.json(&super::record::Record::Hooks(&record))?;
        out.flush()?;
    } else {
        let missing = !add && text.is_empty() && !path.exists();
        for line in describe(
            &shown,
            &record,
            add && a.command.is_none(),
            missing,
            hooks.trust_note(a.scope),
        ) {
            say.note(&line);
        }
    }
    Ok(ExitStatus::Success)
}

/// `names` as a sentence lists them: `A`, `A and B`, `A, B and C`.
fn listed<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// What `hooks install` and `uninstall` say on stderr, line by line.
/// `trust`: what the agent asks before it runs a new hook, said when one was added.
fn describe(shown: &str, r: &HooksEdit, absolute: bool, missing: bool, trust: Option<&str>) -> Vec<String> {
    let add = r.command.is_some();
    let mut s = match (r.action, add) {
        _ if missing => format!("{shown}: no such file; nothing to remove"),
        ("unchanged", true) => format!("{shown}: cctool's hooks are already there; not changed"),
        ("unchanged", false) => format!("{shown}: no hooks of cctool's in it; not changed"),
        ("removed_file", _) => format!(
            "{shown}: removed cctool's hooks for {}; nothing else was in it, so the file is removed",
            listed(&r.events)
        ),
        (_, true) => format!("{shown}: added hooks for {}", listed(&r.events)),
        (_, false) => format!("{shown}: removed cctool's hooks for {}", listed(&r.events)),
    };
    if let Some(b) = &r.backup {
        s.push_str(&format!(" (the file as it was: {b})"));
    }
    let mut lines = vec![s];
    if let (Some(c), true) = (&r.command, r.action == "added") {
        lines.push(format!(
            "the hooks run: {c}{}",
            if absolute {
                " (this binary's absolute path: install again if it moves, or pass --command cctool to run the one on PATH)"
            } else {
                ""
            }
        ));
    }
    if let Some(note) = trust.filter(|_| r.trust_required && r.action == "added") {
        lines.push(note.to_string());
    }
    lines
}
