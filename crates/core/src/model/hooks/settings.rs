//! The hooks of a JSON settings file in the shape Claude Code and Gemini CLI share:
//! `{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command", "command": …}]}]}}`.
//! cctool adds one group running its command to each event that has none of its own, and
//! removes exactly that again; everything else keeps its text and the file its layout
//! ([`Json`]).

use super::json::Json;
use super::{Edit, McpServer, SettingsError, is_ours};

/// `text` with a group running `command` added to each of `events` that has none of the
/// hooks cctool installs for `agent`.
pub fn install(text: &str, command: &str, events: &[&'static str], agent: &str) -> Result<Edit, SettingsError> {
    let mut root = parse(text)?;
    let hooks = root
        .entry("hooks", Json::Object(Vec::new()))
        .ok_or(SettingsError::NotAnObject)?;
    if !matches!(hooks, Json::Object(_)) {
        return Err(SettingsError::HooksNotAnObject);
    }
    let mut changed = Vec::new();
    for &ev in events {
        let groups = hooks
            .entry(ev, Json::Array(Vec::new()))
            .ok_or(SettingsError::NotAnObject)?;
        let Json::Array(groups) = groups else {
            return Err(SettingsError::EventNotAList { event: ev });
        };
        if commands(groups).iter().any(|c| is_ours(c, agent)) {
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
        Edit::Changed(write(&root, text), changed)
    })
}

/// `text` without any hook cctool installs for `agent` under `events`, without the groups
/// and events that leaves empty, and without `hooks` itself when nothing else is in it.
pub fn uninstall(text: &str, events: &[&'static str], agent: &str) -> Result<Edit, SettingsError> {
    let mut root = parse(text)?;
    if !matches!(root, Json::Object(_)) {
        return Err(SettingsError::NotAnObject);
    }
    let Some(hooks @ Json::Object(_)) = root.get_mut("hooks") else {
        return Ok(Edit::Unchanged);
    };
    let mut changed = Vec::new();
    for &ev in events {
        let Some(Json::Array(groups)) = hooks.get_mut(ev) else {
            continue;
        };
        let before = groups.clone();
        for g in groups.iter_mut() {
            if let Some(Json::Array(list)) = g.get_mut("hooks") {
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Json::as_str)
                        .is_some_and(|c| is_ours(&c, agent))
                });
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
    Ok(Edit::Changed(write(&root, text), changed))
}

/// `server` added to the top-level `mcpServers` as `entry` (the agent's own shape of it);
/// every other byte of the file kept as written. An entry of that name already there is never
/// replaced: `Unchanged` when it starts the same command with the same arguments, refused
/// when it starts another.
pub fn mcp_install(text: &str, server: &McpServer, entry: &serde_json::Value) -> Result<Edit, SettingsError> {
    let mut root = parse(text)?;
    let servers = root
        .entry("mcpServers", Json::Object(Vec::new()))
        .ok_or(SettingsError::NotAnObject)?;
    if !matches!(servers, Json::Object(_)) {
        return Err(SettingsError::McpServersNotATable("\"mcpServers\""));
    }
    if let Some(there) = servers.get(&server.name) {
        let args = server.args.iter().cloned().map(Some).collect::<Vec<_>>();
        let same = there.get("command").and_then(Json::as_str).as_deref() == Some(server.command.as_str())
            && matches!(there.get("args"), Some(Json::Array(a)) if a.iter().map(Json::as_str).collect::<Vec<_>>() == args);
        return match same {
            true => Ok(Edit::Unchanged),
            false => Err(SettingsError::McpServerTaken(server.name.clone())),
        };
    }
    servers.entry(&server.name, Json::from_value(entry));
    Ok(Edit::Changed(write(&root, text), vec!["mcpServers"]))
}

/// The commands of an event's groups.
fn commands(groups: &[Json]) -> Vec<String> {
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

/// Checked by `serde_json` (for its line and column), then read keeping every value's text;
/// an empty file is an empty object.
pub fn parse(text: &str) -> Result<Json, SettingsError> {
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
/// spaces as Claude Code and Gemini CLI write it, four, a tab), on one line if it was on one,
/// with its line endings and its final newline (a new file: two spaces and a newline). A file
/// in any such layout comes back byte for byte from an install and an uninstall.
pub fn write(v: &Json, original: &str) -> String {
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

    const EVENTS: &[&str] = &["PreCompact", "PostCompact"];

    #[test]
    fn a_round_trip_keeps_the_file_s_layout() {
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
            let Edit::Changed(installed, _) = install(&original, cmd, EVENTS, "claude-code").unwrap() else {
                panic!("nothing installed in {original:?}")
            };
            assert_eq!(installed.contains("\r\n"), original.contains("\r\n"), "{installed:?}");
            assert_eq!(installed.lines().count() == 1, original.lines().count() == 1);
            let Edit::Changed(back, _) = uninstall(&installed, EVENTS, "claude-code").unwrap() else {
                panic!("nothing removed from {installed:?}")
            };
            assert_eq!(back, original);
        }
    }

    #[test]
    fn another_agent_s_hooks_and_other_events_are_left_alone() {
        let text = "{\"hooks\":{\"PreCompact\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"cctool hooks run codex\"}]}],\"SessionEnd\":[]}}\n";
        let Edit::Changed(installed, events) =
            install(text, "cctool hooks run gemini-cli", &["PreCompact"], "gemini-cli").unwrap()
        else {
            panic!("nothing installed")
        };
        assert_eq!(events, ["PreCompact"]);
        assert_eq!(
            install(&installed, "cctool hooks run gemini-cli", &["PreCompact"], "gemini-cli").unwrap(),
            Edit::Unchanged
        );
        let Edit::Changed(back, _) = uninstall(&installed, &["PreCompact", "SessionEnd"], "gemini-cli").unwrap() else {
            panic!("nothing removed")
        };
        assert_eq!(back, text);
    }
}
