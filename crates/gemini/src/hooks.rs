//! Gemini CLI's hooks (`hooks` in `settings.json`: the user's `~/.gemini/settings.json`, the
//! home being `GEMINI_CLI_HOME` when set, or the project's `.gemini/settings.json`), in the
//! shape Claude Code's settings share (`cctool_core::model::hooks::settings`).
//!
//! Gemini CLI has no hook after a compression, and its compression leaves the history it
//! replaced in the log (a `$set`), so there is no summary to archive apart from the
//! transcript: both of cctool's hooks back the transcript up. `PreCompress` fires before every
//! request (the client asks each time whether to compress, and the hook runs before it
//! decides), so the archive follows the chat turn by turn; `SessionEnd` fires as the client
//! exits, with the last turn in. A chat the client later deletes (a stub twin's full
//! transcript, the retention sweep) is then in the archive, and `restore` brings it back.

use std::path::{Path, PathBuf};

use cctool_core::agents::Hooks;
use cctool_core::model::hooks::{Compaction, Edit, HookAction, McpServer, Scope, SettingsError, names, settings};

/// Gemini CLI's hooks.
pub struct GeminiHooks;

/// The events cctool hooks into, each backing the transcript (`transcript_path`) up.
pub const EVENTS: &[(&str, HookAction)] = &[("PreCompress", HookAction::Backup), ("SessionEnd", HookAction::Backup)];

/// `~/.gemini` (in `GEMINI_CLI_HOME` when set, as the client finds its home).
fn gemini_home(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    Some(PathBuf::from(env("GEMINI_CLI_HOME").or_else(|| env("HOME"))?).join(".gemini"))
}

impl Hooks for GeminiHooks {
    fn settings_path(
        &self,
        scope: Scope,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        cwd: &Path,
    ) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => gemini_home(env)?.join("settings.json"),
            Scope::Project => cwd.join(".gemini/settings.json"),
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

    /// Never asked: no event of Gemini CLI's archives a summary ([`EVENTS`]).
    fn compaction(&self, _: &Path) -> Compaction {
        Compaction::default()
    }

    fn summary_source(&self) -> &'static str {
        "hook"
    }

    fn trust_note(&self, scope: Scope) -> Option<&'static str> {
        (scope == Scope::Project).then_some(
            "Gemini CLI runs a project's hooks only in a folder the user trusts, and warns of new ones at the next start",
        )
    }

    /// The user's `settings.json`, whose `mcpServers` `gemini mcp add --scope user` edits.
    fn mcp_config_path(&self, env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        Some(gemini_home(env)?.join("settings.json"))
    }

    fn mcp_entry(&self, server: &McpServer) -> String {
        let entry = serde_json::json!({"mcpServers": {server.name.as_str(): mcp_value(server)}});
        serde_json::to_string_pretty(&entry).unwrap_or_default() + "\n"
    }

    fn mcp_install(&self, text: &str, server: &McpServer) -> Result<Edit, SettingsError> {
        settings::mcp_install(text, server, &mcp_value(server))
    }
}

/// A stdio server's entry, as `gemini mcp add` writes one.
fn mcp_value(server: &McpServer) -> serde_json::Value {
    serde_json::json!({"command": server.command, "args": server.args})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_installed_names_are_the_events_hooks_run_answers() {
        for ev in names(EVENTS) {
            assert_eq!(GeminiHooks.action(ev), Some(HookAction::Backup));
        }
        assert_eq!(GeminiHooks.action("PreCompact"), None);
    }

    #[test]
    fn the_user_settings_follow_gemini_cli_home() {
        let env = |k: &str| match k {
            "GEMINI_CLI_HOME" => Some("/g".into()),
            "HOME" => Some("/h".into()),
            _ => None,
        };
        let p = GeminiHooks.settings_path(Scope::User, &env, Path::new("/w"));
        assert_eq!(p, Some(PathBuf::from("/g/.gemini/settings.json")));
        let home = |k: &str| (k == "HOME").then(|| "/h".into());
        let p = GeminiHooks.settings_path(Scope::User, &home, Path::new("/w"));
        assert_eq!(p, Some(PathBuf::from("/h/.gemini/settings.json")));
        let p = GeminiHooks.settings_path(Scope::Project, &home, Path::new("/w"));
        assert_eq!(p, Some(PathBuf::from("/w/.gemini/settings.json")));
    }
}
