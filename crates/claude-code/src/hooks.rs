//! Claude Code's compaction hooks: `settings.json` (in `CLAUDE_CONFIG_DIR`, else `~/.claude`,
//! or the project's `.claude/`), edited with a parser that keeps its key order and is written
//! back in its own layout (`cctool_core::model::hooks::settings`); the PostCompact input carries the summary, the
//! transcript the tokens before it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::Hooks;
use cctool_core::model::hooks::settings;
use cctool_core::model::hooks::{Compaction, EVENTS, Edit, McpServer, Scope, SettingsError, tail_records};

/// Claude Code's hooks.
pub struct ClaudeCodeHooks;

/// The name cctool's hook command gives the agent (`hooks run claude-code`).
fn name() -> &'static str {
    crate::ID.name()
}

impl Hooks for ClaudeCodeHooks {
    fn settings_path(
        &self,
        scope: Scope,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        cwd: &Path,
    ) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env("CLAUDE_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".claude")))?
                .join("settings.json"),
            Scope::Project => cwd.join(".claude/settings.json"),
        })
    }

    fn install(&self, text: &str, command: &str) -> Result<Edit, SettingsError> {
        settings::install(text, command, &EVENTS, name())
    }

    fn uninstall(&self, text: &str) -> Result<Edit, SettingsError> {
        settings::uninstall(text, &EVENTS, name())
    }

    fn compaction(&self, path: &Path) -> Compaction {
        Compaction {
            summary: None,
            pre_tokens: pre_tokens(path),
        }
    }

    fn summary_source(&self) -> &'static str {
        "hook"
    }

    /// `~/.claude.json` (in `CLAUDE_CONFIG_DIR` when it is set), where `claude mcp add
    /// --scope user` keeps the servers of every project: its top-level `mcpServers`.
    fn mcp_config_path(&self, env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        Some(
            env("CLAUDE_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(PathBuf::from))?
                .join(".claude.json"),
        )
    }

    fn mcp_entry(&self, server: &McpServer) -> String {
        let entry = serde_json::json!({"mcpServers": {server.name.as_str(): mcp_value(server)}});
        serde_json::to_string_pretty(&entry).unwrap_or_default() + "\n"
    }

    fn mcp_install(&self, text: &str, server: &McpServer) -> Result<Edit, SettingsError> {
        settings::mcp_install(text, server, &mcp_value(server))
    }
}

/// A stdio server's entry, as `claude mcp add` writes one.
fn mcp_value(server: &McpServer) -> Value {
    serde_json::json!({"type": "stdio", "command": server.command, "args": server.args, "env": {}})
}

/// `preTokens` of the last compact boundary in the transcript (the boundary may not be
/// written yet when the hook runs; then none).
fn pre_tokens(path: &Path) -> Option<i64> {
    tail_records(path, 4 << 20)
        .iter()
        .rev()
        .find(|v| v.get("subtype").and_then(Value::as_str) == Some("compact_boundary"))
        .and_then(|v| v.pointer("/compactMetadata/preTokens"))
        .and_then(Value::as_i64)
}
