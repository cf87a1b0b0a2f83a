//! Qwen Code's hooks (`hooks` in `settings.json`: the user's `~/.qwen/settings.json`, the home
//! being `QWEN_HOME` when set, or the project's `.qwen/settings.json`), in the shape Claude
//! Code's settings share (`cctool_core::model::hooks::settings`), with Claude Code's events.
//!
//! Qwen Code 0.24.4 fires `PreCompact` before a compression and `PostCompact` after one that
//! succeeded, its input carrying the summary (`compact_summary`, the model's snapshot without
//! the instructions the client appends to it in the session); `SessionEnd` as an interactive
//! session exits or is cleared, never after a run with `-p`. Its session log is appended to,
//! never rewritten, so the backups keep each state of it as it grows; the summary is archived
//! as the hook hands it over.

use std::path::{Path, PathBuf};

use cctool_core::agents::Hooks;
use cctool_core::model::hooks::{Compaction, Edit, HookAction, Scope, SettingsError, names, settings};

/// Qwen Code's hooks.
pub struct QwenHooks;

/// The events cctool hooks into: the transcript backed up before a compression and as the client
/// exits, the summary archived after one.
pub const EVENTS: &[(&str, HookAction)] = &[
    ("PreCompact", HookAction::Backup),
    ("PostCompact", HookAction::ArchiveSummary),
    ("SessionEnd", HookAction::Backup),
];

impl Hooks for QwenHooks {
    fn settings_path(
        &self,
        scope: Scope,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        cwd: &Path,
    ) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => crate::store::home(env, cwd)?.join("settings.json"),
            Scope::Project => cwd.join(".qwen/settings.json"),
        })
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

    /// The summary is the hook's input's. Its tokens are in neither the input nor the session
    /// yet: the client writes its `chat_compression` record after the hook returns, so the last
    /// one in the file would be an earlier compaction's.
    fn compaction(&self, _: &Path) -> Compaction {
        Compaction::default()
    }

    fn summary_source(&self) -> &'static str {
        "hook"
    }

    fn trust_note(&self, scope: Scope) -> Option<&'static str> {
        (scope == Scope::Project).then_some(
            "Qwen Code runs a project's hooks only in a folder the user trusts (its user hooks run anywhere)",
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn the_user_settings_follow_qwen_home() {
        let env = |home: Option<&'static str>| {
            move |k: &str| match k {
                "HOME" => Some("/home/me".into()),
                "QWEN_HOME" => home.map(Into::into),
                _ => None,
            }
        };
        let at = |home| QwenHooks.settings_path(Scope::User, &env(home), Path::new("/work"));
        assert_eq!(at(None), Some(PathBuf::from("/home/me/.qwen/settings.json")));
        assert_eq!(at(Some("/q")), Some(PathBuf::from("/q/settings.json")));
        assert_eq!(at(Some("~/q")), Some(PathBuf::from("/home/me/q/settings.json")));
        assert_eq!(at(Some("rel")), Some(PathBuf::from("/work/rel/settings.json")));
        assert_eq!(
            QwenHooks.settings_path(Scope::Project, &env(None), Path::new("/work")),
            Some(PathBuf::from("/work/.qwen/settings.json"))
        );
    }

    #[test]
    fn the_installed_names_are_the_events_hooks_run_answers() {
        let Ok(Edit::Changed(text, events)) = QwenHooks.install("{}", "cctool hooks run qwen-code") else {
            panic!("nothing installed")
        };
        assert_eq!(events, names(EVENTS));
        let v: Value = serde_json::from_str(&text).unwrap();
        for (event, action) in EVENTS {
            assert_eq!(
                v["hooks"][event][0]["hooks"][0]["command"],
                "cctool hooks run qwen-code"
            );
            assert_eq!(QwenHooks.action(event), Some(*action));
        }
        assert_eq!(QwenHooks.action("PreCompress"), None);
    }
}
