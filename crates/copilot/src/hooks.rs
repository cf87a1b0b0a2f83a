//! Copilot CLI's hooks, in the user's `settings.json` of `COPILOT_HOME` (else `~/.copilot`),
//! under `hooks`, in the shape Claude Code's settings share
//! (`cctool_core::model::hooks::settings`). What 1.0.102 does with hooks, and how it was
//! checked, is in `docs/copilot.md` ("Hooks").
//!
//! The events are named as the client's VS Code-compatible form names them (`PreCompact`,
//! `SessionEnd`), because then the client gives the hook `hook_event_name`, `session_id` and
//! `transcript_path` as Claude Code does (its camelCase form, `preCompact`, names them
//! `sessionId` and `transcriptPath`). `PreCompact` backs the session up before a compaction;
//! `SessionEnd` fires before the client writes the session's last events (the hook's own end
//! and `session.shutdown`), so its backup is taken once the client has exited.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use cctool_core::agents::Hooks;
use cctool_core::model::hooks::{Compaction, Edit, HookAction, Scope, SettingsError, names, settings};
use serde_json::Value;

/// Copilot CLI's hooks.
pub struct CopilotHooks;

/// The events cctool hooks into and what `hooks run` does on each.
pub const EVENTS: &[(&str, HookAction)] = &[
    ("PreCompact", HookAction::Backup),
    ("SessionEnd", HookAction::BackupAfterExit),
];

/// `COPILOT_HOME`, else `~/.copilot`: where the client keeps its settings and sessions.
fn copilot_home(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    env("COPILOT_HOME")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(env("HOME")?).join(".copilot")))
}

/// Whether `id` can name a session's folder: the client's ids are UUIDs, and anything that
/// could climb out of `session-state/` (a separator, `..`) is not one.
fn session_id_ok(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Hooks for CopilotHooks {
    /// The user's settings only: 1.0.102 did not run a repository's `.github/hooks/*.json`
    /// in the runs cctool was checked with, so a project scope would install hooks that never
    /// fire.
    fn settings_path(&self, scope: Scope, env: &dyn Fn(&str) -> Option<OsString>, _cwd: &Path) -> Option<PathBuf> {
        match scope {
            Scope::User => Some(copilot_home(env)?.join("settings.json")),
            Scope::Project => None,
        }
    }

    fn has_scope(&self, scope: Scope) -> bool {
        scope == Scope::User
    }

    fn events(&self) -> &'static [(&'static str, HookAction)] {
        EVENTS
    }

    fn install(&self, text: &str, command: &str) -> Result<Edit, SettingsError> {
        settings::install(text, command, &names(EVENTS), crate::ID.name())
    }

    fn uninstall(&self, text: &str) -> Result<Edit, SettingsError> {
        settings::uninstall(text, &names(EVENTS), crate::ID.name())
    }

    /// `transcript_path` when the input has one (`PreCompact`), else the session's
    /// `events.jsonl` under the store the client runs with (`SessionEnd` names only the
    /// session): the hook inherits the client's `COPILOT_HOME` and `HOME`.
    fn transcript(&self, input: &Value, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        let s = |k: &str| input.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        if let Some(p) = s("transcript_path") {
            return Some(PathBuf::from(p));
        }
        let id = s("session_id").filter(|id| session_id_ok(id))?;
        Some(
            copilot_home(env)?
                .join(crate::store::SESSION_FOLDER)
                .join(id)
                .join(crate::store::EVENTS),
        )
    }

    /// Never asked: no event of Copilot CLI's archives a summary ([`EVENTS`]); the summary
    /// stays in the session (`session.compaction_complete`).
    fn compaction(&self, _: &Path) -> Compaction {
        Compaction::default()
    }

    fn summary_source(&self) -> &'static str {
        "hook"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).into())
    }

    #[test]
    fn the_installed_names_are_the_events_hooks_run_answers() {
        assert_eq!(CopilotHooks.action("PreCompact"), Some(HookAction::Backup));
        assert_eq!(CopilotHooks.action("SessionEnd"), Some(HookAction::BackupAfterExit));
        assert_eq!(CopilotHooks.action("preCompact"), None);
    }

    #[test]
    fn the_user_settings_follow_copilot_home_and_there_is_no_project_scope() {
        let both = env(&[("COPILOT_HOME", "/c"), ("HOME", "/h")]);
        let p = CopilotHooks.settings_path(Scope::User, &both, Path::new("/w"));
        assert_eq!(p, Some(PathBuf::from("/c/settings.json")));
        let home = env(&[("HOME", "/h")]);
        let p = CopilotHooks.settings_path(Scope::User, &home, Path::new("/w"));
        assert_eq!(p, Some(PathBuf::from("/h/.copilot/settings.json")));
        assert_eq!(CopilotHooks.settings_path(Scope::Project, &home, Path::new("/w")), None);
        assert!(!CopilotHooks.has_scope(Scope::Project));
    }

    #[test]
    fn the_transcript_is_the_input_s_path_else_the_session_s_events() {
        let e = env(&[("COPILOT_HOME", "/c"), ("HOME", "/h")]);
        let pre = serde_json::json!({"hook_event_name": "PreCompact", "session_id": "s", "transcript_path": "/t/events.jsonl"});
        assert_eq!(
            CopilotHooks.transcript(&pre, &e),
            Some(PathBuf::from("/t/events.jsonl"))
        );
        let end =
            serde_json::json!({"hook_event_name": "SessionEnd", "session_id": "03acb950-8ba5-42f9-a7c0-bef5031932d4"});
        assert_eq!(
            CopilotHooks.transcript(&end, &e),
            Some(PathBuf::from(
                "/c/session-state/03acb950-8ba5-42f9-a7c0-bef5031932d4/events.jsonl"
            ))
        );
        for bad in ["", "../x", "a/b", ".."] {
            let v = serde_json::json!({"session_id": bad});
            assert_eq!(CopilotHooks.transcript(&v, &e), None, "{bad:?}");
        }
        assert_eq!(CopilotHooks.transcript(&serde_json::json!({"session_id": 7}), &e), None);
    }

    #[test]
    fn another_hook_of_the_user_s_stays_where_it_is() {
        let text = "{\n  \"model\": \"gpt-5\",\n  \"hooks\": {\n    \"sessionEnd\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./log.sh\"\n      }\n    ],\n    \"SessionEnd\": [\n      {\n        \"type\": \"command\",\n        \"command\": \"./end.sh\"\n      }\n    ]\n  }\n}\n";
        let cmd = "'/usr/bin/cctool' hooks run copilot";
        let Edit::Changed(installed, events) = CopilotHooks.install(text, cmd).unwrap() else {
            panic!("nothing installed")
        };
        assert_eq!(events, names(EVENTS));
        assert_eq!(CopilotHooks.install(&installed, cmd).unwrap(), Edit::Unchanged);
        let Edit::Changed(back, _) = CopilotHooks.uninstall(&installed).unwrap() else {
            panic!("nothing removed")
        };
        assert_eq!(back, text);
    }
}
