//! Claude Code's compaction hooks: `settings.json` (in `CLAUDE_CONFIG_DIR`, else `~/.claude`,
//! or the project's `.claude/`), edited with a parser that keeps its key order and is written
//! back in its own layout ([`json::Json`]); the PostCompact input carries the summary, the
//! transcript the tokens before it.

pub mod json;

use std::path::{Path, PathBuf};

use serde_json::Value;

use self::json::Json;
use crate::agents::Hooks;
use cctool_core::model::hooks::{Compaction, EVENTS, Edit, McpServer, Scope, SettingsError, tail_records};

/// Claude Code's hooks.
pub struct ClaudeCodeHooks;

/// The name cctool's hook command gives the agent (`hooks run claude-code`).
fn name() -> &'static str {
    crate::ID.name()
}

fn is_ours(cmd: &str) -> bool {
    cctool_core::model::hooks::is_ours(cmd, name())
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
        json_install(text, command)
    }

    fn uninstall(&self, text: &str) -> Result<Edit, SettingsError> {
        json_uninstall(text)
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
        json_mcp_install(text, server)
    }
}

/// A stdio server's entry, as `claude mcp add` writes one.
fn mcp_value(server: &McpServer) -> Value {
    serde_json::json!({"type": "stdio", "command": server.command, "args": server.args, "env": {}})
}

/// `server` added to the top-level `mcpServers`; every other byte of the file kept as written
/// (the file is Claude Code's own state: its projects, its caches).
fn json_mcp_install(text: &str, server: &McpServer) -> Result<Edit, SettingsError> {
    let mut root = parse_json(text)?;
    let servers = root
        .entry("mcpServers", Json::Object(Vec::new()))
        .ok_or(SettingsError::NotAnObject)?;
    if !matches!(servers, Json::Object(_)) {
        return Err(SettingsError::McpServersNotATable("\"mcpServers\""));
    }
    if let Some(there) = servers.get(&server.name) {
        let same = there.get("command").and_then(Json::as_str).as_deref() == Some(server.command.as_str())
            && matches!(there.get("args"), Some(Json::Array(a))
                if a.iter().map(Json::as_str).collect::<Vec<_>>() == server.args.iter().cloned().map(Some).collect::<Vec<_>>());
        return match same {
            true => Ok(Edit::Unchanged),
            false => Err(SettingsError::McpServerTaken(server.name.clone())),
        };
    }
    servers.entry(&server.name, Json::from_value(&mcp_value(server)));
    Ok(Edit::Changed(write_json(&root, text), vec!["mcpServers"]))
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

/// Adds a matcher group running `command` to each event that has none of ours.
/// Everything else keeps its text ([`Json`]).
fn json_install(text: &str, command: &str) -> Result<Edit, SettingsError> {
    let mut root = parse_json(text)?;
    let hooks = root
        .entry("hooks", Json::Object(Vec::new()))
        .ok_or(SettingsError::NotAnObject)?;
    if !matches!(hooks, Json::Object(_)) {
        return Err(SettingsError::HooksNotAnObject);
    }
    let mut changed = Vec::new();
    for ev in EVENTS {
        let groups = hooks
            .entry(ev, Json::Array(Vec::new()))
            .ok_or(SettingsError::NotAnObject)?;
        let Json::Array(groups) = groups else {
            return Err(SettingsError::EventNotAList { event: ev });
        };
        if json_commands(groups).iter().any(|c| is_ours(c)) {
            continue;
        }
        groups.push(Json::from_value(
            &serde_json::json!({"hooks": [{"type": "command", "command": command}]}),
        ));
        changed.push(ev);
    }
    Ok(if changed.is_empty() {
        Edit::Unchanged
    } else {
        Edit::Changed(write_json(&root, text), changed)
    })
}

/// Removes every hook of ours, the groups and events left empty by that, and
/// `hooks` itself when nothing else is in it.
fn json_uninstall(text: &str) -> Result<Edit, SettingsError> {
    let mut root = parse_json(text)?;
    if !matches!(root, Json::Object(_)) {
        return Err(SettingsError::NotAnObject);
    }
    let Some(hooks @ Json::Object(_)) = root.get_mut("hooks") else {
        return Ok(Edit::Unchanged);
    };
    let mut changed = Vec::new();
    for ev in EVENTS {
        let Some(Json::Array(groups)) = hooks.get_mut(ev) else {
            continue;
        };
        let before = groups.clone();
        for g in groups.iter_mut() {
            if let Some(Json::Array(list)) = g.get_mut("hooks") {
                list.retain(|h| !h.get("command").and_then(Json::as_str).is_some_and(|c| is_ours(&c)));
            }
        }
        groups.retain(|g| !matches!(g.get("hooks"), Some(Json::Array(l)) if l.is_empty()));
        if *groups != before {
            changed.push(ev);
            if groups.is_empty() {
                hooks.remove(ev);
            }
        }
    }
    if changed.is_empty() {
        return Ok(Edit::Unchanged);
    }
    if *hooks == Json::Object(Vec::new()) {
        root.remove("hooks");
    }
    Ok(Edit::Changed(write_json(&root, text), changed))
}

fn json_commands(groups: &[Json]) -> Vec<String> {
    groups
        .iter()
        .filter_map(|g| match g.get("hooks") {
            Some(Json::Array(l)) => Some(l),
            _ => None,
        })
        .flatten()
        .filter_map(|h| h.get("command").and_then(Json::as_str))
        .collect()
}

/// Checked by `serde_json` (for its line and column), then read keeping every value's text.
fn parse_json(text: &str) -> Result<Json, SettingsError> {
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|cause| SettingsError::Json {
        line: cause.line(),
        column: cause.column(),
        cause,
    })?;
    Json::parse(text).ok_or(SettingsError::NotAnObject)
}

/// Written back in the file's own layout: the indentation of its first indented line (two
/// spaces as Claude Code writes it, four, a tab), on one line if it was on one, with its
/// line endings and its final newline (a new file: two spaces and a newline). A file in any
/// such layout comes back byte for byte from an install and an uninstall.
fn write_json(v: &Json, original: &str) -> String {
    let body = original.trim();
    let one_line = !body.is_empty() && !body.contains('\n');
    let indent = original
        .lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ");
    let mut s = String::new();
    v.write(&mut s, (!one_line).then_some(indent), 0);
    if original.contains("\r\n") {
        s = s.replace('\n', "\r\n");
    }
    if original.is_empty() || original.ends_with('\n') {
        s.push_str(if original.ends_with("\r\n") { "\r\n" } else { "\n" });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_keeps_the_file_s_layout() {
        let cmd = "/usr/local/bin/cctool hooks run claude-code";
        let pretty = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"env\": {}\n}";
        let layouts = [
            pretty.to_string() + "\n",
            pretty.replace("  ", "    ") + "\n",
            pretty.replace("  ", "\t"),
            (pretty.to_string() + "\n").replace('\n', "\r\n"),
            "{\"model\":\"opus\",\"hooks\":{\"Stop\":[]},\"env\":{}}".to_string(),
        ];
        for original in layouts {
            let Edit::Changed(installed, _) = json_install(&original, cmd).unwrap() else {
                panic!("nothing installed in {original:?}")
            };
            assert_eq!(installed.contains("\r\n"), original.contains("\r\n"), "{installed:?}");
            assert_eq!(installed.lines().count() == 1, original.lines().count() == 1);
            let Edit::Changed(back, _) = json_uninstall(&installed).unwrap() else {
                panic!("nothing removed from {installed:?}")
            };
            assert_eq!(back, original);
        }
    }
}
