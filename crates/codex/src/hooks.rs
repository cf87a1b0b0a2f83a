//! Codex's compaction hooks: `config.toml` (in `CODEX_HOME`, else `~/.codex`, or the
//! project's `.codex/`), edited with `toml_edit`, which keeps every other key, comment and
//! blank line as it was; the rollout holds the summary and the tokens before it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::Hooks;
use crate::model::hooks::{Compaction, EVENTS, Edit, McpServer, Scope, SettingsError, tail_records};

/// Codex's hooks.
pub struct CodexHooks;

fn is_ours(cmd: &str) -> bool {
    crate::model::hooks::is_ours(cmd, crate::ID.name())
}

impl Hooks for CodexHooks {
    fn settings_path(
        &self,
        scope: Scope,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        cwd: &Path,
    ) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env("CODEX_HOME")
                .map(PathBuf::from)
                .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")))?
                .join("config.toml"),
            Scope::Project => cwd.join(".codex/config.toml"),
        })
    }

    fn install(&self, text: &str, command: &str) -> Result<Edit, SettingsError> {
        toml_install(text, command)
    }

    fn uninstall(&self, text: &str) -> Result<Edit, SettingsError> {
        toml_uninstall(text)
    }

    fn compaction(&self, path: &Path) -> Compaction {
        compaction(path)
    }

    fn summary_source(&self) -> &'static str {
        "rollout"
    }

    fn trust_note(&self, _: Scope) -> Option<&'static str> {
        Some(
            "Codex runs a hook only once you have reviewed and trusted it: its TUI asks at the next start \
             (codex --dangerously-bypass-hook-trust skips the question for one run)",
        )
    }

    /// `config.toml` (in `CODEX_HOME`, else `~/.codex`), where `codex mcp add` keeps its
    /// servers: `[mcp_servers.NAME]`.
    fn mcp_config_path(&self, env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
        self.settings_path(Scope::User, env, Path::new(""))
    }

    fn mcp_entry(&self, server: &McpServer) -> String {
        let mut doc = toml_edit::DocumentMut::new();
        doc.insert("mcp_servers", implicit_table());
        doc["mcp_servers"][server.name.as_str()] = toml_edit::Item::Table(mcp_table(server));
        doc.to_string()
    }

    fn mcp_install(&self, text: &str, server: &McpServer) -> Result<Edit, SettingsError> {
        toml_mcp_install(text, server)
    }
}

/// The summary of the last `compacted` record and the tokens in use before it.
fn compaction(path: &Path) -> Compaction {
    let lines = tail_records(path, 16 << 20);
    let Some(at) = lines
        .iter()
        .rposition(|v| v.get("type").and_then(Value::as_str) == Some("compacted"))
    else {
        return Compaction::default();
    };
    let summary = lines[at]
        .pointer("/payload/message")
        .and_then(Value::as_str)
        .map(str::to_string);
    let pre_tokens = lines[..at]
        .iter()
        .rev()
        .find(|v| v.pointer("/payload/type").and_then(Value::as_str) == Some("token_count"))
        .and_then(|v| {
            v.pointer("/payload/info/last_token_usage/total_tokens")
                .or_else(|| v.pointer("/payload/info/total_token_usage/total_tokens"))
        })
        .and_then(Value::as_i64);
    Compaction { summary, pre_tokens }
}

/// An `[[hooks.EVENT]]` group running `command` for each event that has none of ours.
fn toml_install(text: &str, command: &str) -> Result<Edit, SettingsError> {
    use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};
    let mut doc: DocumentMut = text.parse().map_err(SettingsError::Toml)?;
    if !doc.contains_key("hooks") {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert("hooks", Item::Table(t));
    }
    let hooks = doc["hooks"].as_table_mut().ok_or(SettingsError::HooksNotATable)?;
    let mut changed = Vec::new();
    for ev in EVENTS {
        if !hooks.contains_key(ev) {
            hooks.insert(ev, Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
        }
        let groups = hooks[ev]
            .as_array_of_tables_mut()
            .ok_or(SettingsError::EventNotTables { event: ev })?;
        let ours = groups.iter().any(|g| toml_commands(g).iter().any(|c| is_ours(c)));
        if ours {
            continue;
        }
        let mut handler = InlineTable::new();
        handler.insert("type", "command".into());
        handler.insert("command", command.into());
        let mut list = Array::new();
        list.push(handler);
        let mut group = Table::new();
        group.insert("hooks", value(list));
        groups.push(group);
        changed.push(ev);
    }
    Ok(if changed.is_empty() {
        Edit::Unchanged
    } else {
        Edit::Changed(doc.to_string(), changed)
    })
}

/// Removes our handlers, the groups and events they leave empty, and `[hooks]` when
/// it is left empty and was not written as a table of its own.
fn toml_uninstall(text: &str) -> Result<Edit, SettingsError> {
    use toml_edit::DocumentMut;
    let mut doc: DocumentMut = text.parse().map_err(SettingsError::Toml)?;
    let Some(hooks) = doc.get_mut("hooks").and_then(|h| h.as_table_mut()) else {
        return Ok(Edit::Unchanged);
    };
    let mut changed = Vec::new();
    for ev in EVENTS {
        let Some(groups) = hooks.get_mut(ev).and_then(|g| g.as_array_of_tables_mut()) else {
            continue;
        };
        let before = groups.len();
        let mut touched = false;
        for g in groups.iter_mut() {
            if let Some(list) = g.get_mut("hooks").and_then(|l| l.as_array_mut()) {
                let n = list.len();
                list.retain(|h| {
                    !h.as_inline_table()
                        .and_then(|t| t.get("command"))
                        .and_then(|c| c.as_str())
                        .is_some_and(is_ours)
                });
                touched |= list.len() != n;
            }
        }
        groups.retain(|g| g.get("hooks").and_then(|l| l.as_array()).is_none_or(|l| !l.is_empty()));
        if touched || groups.len() != before {
            changed.push(ev);
            if groups.is_empty() {
                hooks.remove(ev);
            }
        }
    }
    if changed.is_empty() {
        return Ok(Edit::Unchanged);
    }
    if hooks.is_empty() && hooks.is_implicit() {
        doc.remove("hooks");
    }
    Ok(Edit::Changed(doc.to_string(), changed))
}

fn toml_commands(group: &toml_edit::Table) -> Vec<String> {
    let Some(list) = group.get("hooks") else {
        return Vec::new();
    };
    let cmd = |t: Option<&str>| t.map(str::to_string);
    match list {
        toml_edit::Item::Value(toml_edit::Value::Array(a)) => a
            .iter()
            .filter_map(|h| {
                cmd(h
                    .as_inline_table()
                    .and_then(|t| t.get("command"))
                    .and_then(|c| c.as_str()))
            })
            .collect(),
        toml_edit::Item::ArrayOfTables(a) => a
            .iter()
            .filter_map(|t| cmd(t.get("command").and_then(|c| c.as_str())))
            .collect(),
        _ => Vec::new(),
    }
}

fn implicit_table() -> toml_edit::Item {
    let mut t = toml_edit::Table::new();
    t.set_implicit(true);
    toml_edit::Item::Table(t)
}

/// A stdio server's table, as `codex mcp add` writes one.
fn mcp_table(server: &McpServer) -> toml_edit::Table {
    let mut t = toml_edit::Table::new();
    t.insert("command", toml_edit::value(server.command.as_str()));
    t.insert(
        "args",
        toml_edit::value(server.args.iter().map(String::as_str).collect::<toml_edit::Array>()),
    );
    t
}

/// `server` added as `[mcp_servers.NAME]`; every other key, comment and blank line kept.
fn toml_mcp_install(text: &str, server: &McpServer) -> Result<Edit, SettingsError> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(SettingsError::Toml)?;
    if !doc.contains_key("mcp_servers") {
        doc.insert("mcp_servers", implicit_table());
    }
    let servers = doc["mcp_servers"]
        .as_table_like_mut()
        .ok_or(SettingsError::McpServersNotATable("[mcp_servers]"))?;
    if let Some(there) = servers.get(&server.name) {
        let args: Option<Vec<&str>> = there
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect());
        let same = there.get("command").and_then(|c| c.as_str()) == Some(server.command.as_str())
            && args == Some(server.args.iter().map(String::as_str).collect());
        return match same {
            true => Ok(Edit::Unchanged),
            false => Err(SettingsError::McpServerTaken(server.name.clone())),
        };
    }
    servers.insert(&server.name, toml_edit::Item::Table(mcp_table(server)));
    Ok(Edit::Changed(doc.to_string(), vec!["mcp_servers"]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/usr/local/bin/cctool hooks run codex";

    #[test]
    fn toml_round_trip_keeps_every_other_byte() {
        let original = "# my settings\nmodel = \"gpt-5\" # pinned\n\n[hooks]\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"notify\" }]\n\n[tui]\ntheme = \"dark\"\n";
        let Edit::Changed(installed, evs) = toml_install(original, CMD).unwrap() else {
            panic!()
        };
        assert_eq!(evs, EVENTS);
        assert!(
            installed.starts_with("# my settings\nmodel = \"gpt-5\" # pinned\n"),
            "{installed}"
        );
        assert_eq!(toml_install(&installed, CMD).unwrap(), Edit::Unchanged);
        let Edit::Changed(back, _) = toml_uninstall(&installed).unwrap() else {
            panic!()
        };
        assert_eq!(back, original);
        let plain = "model = \"o3\"\n";
        let Edit::Changed(i, _) = toml_install(plain, CMD).unwrap() else {
            panic!()
        };
        let Edit::Changed(back, _) = toml_uninstall(&i).unwrap() else {
            panic!()
        };
        assert_eq!(back, plain);
    }
}
