//! Adding and removing cctool's hooks in the agents' settings files, with real parsers:
//! Claude Code's JSON keeps its key order and is written back in its own layout; Codex's `config.toml` is edited with `toml_edit`,
//! which keeps every other key, comment and blank line as it was.

use std::path::{Path, PathBuf};

use super::json::Json;
use super::{Agent, EVENTS, is_ours};

/// `user` or `project`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    User,
    Project,
}

/// The settings file of `agent` at `scope`: Claude Code's `settings.json` in
/// `CLAUDE_CONFIG_DIR` (else `~/.claude`) or the project's `.claude/`; Codex's `config.toml`
/// in `CODEX_HOME` (else `~/.codex`) or the project's `.codex/`.
pub fn settings_path(
    agent: Agent,
    scope: Scope,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    cwd: &Path,
) -> Option<PathBuf> {
    let home = env("HOME").map(PathBuf::from);
    Some(match (agent, scope) {
        (Agent::ClaudeCode, Scope::User) => env("CLAUDE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".claude")))?
            .join("settings.json"),
        (Agent::ClaudeCode, Scope::Project) => cwd.join(".claude/settings.json"),
        (Agent::Codex, Scope::User) => env("CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".codex")))?
            .join("config.toml"),
        (Agent::Codex, Scope::Project) => cwd.join(".codex/config.toml"),
    })
}

/// What an edit did.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    /// The new content, and the events changed.
    Changed(String, Vec<&'static str>),
    /// Already as asked.
    Unchanged,
}

/// Why an agent's settings file cannot be edited; nothing is written then.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("not valid JSON (line {line}, column {column}): {cause}; fix it or move it aside first")]
    Json {
        line: usize,
        column: usize,
        cause: serde_json::Error,
    },
    #[error("not valid TOML: {0}; fix it or move it aside first")]
    Toml(toml_edit::TomlError),
    #[error("the settings file is not a JSON object")]
    NotAnObject,
    /// A key the hooks go under holds something else than hooks (the sentence names it).
    #[error("{0}")]
    Shape(String),
}

/// Claude Code: adds a matcher group running `command` to each event that has none of ours.
/// Everything else keeps its text ([`Json`]).
pub fn json_install(text: &str, command: &str) -> Result<Edit, SettingsError> {
    let mut root = parse_json(text)?;
    let hooks = root
        .entry("hooks", Json::Object(Vec::new()))
        .ok_or(SettingsError::NotAnObject)?;
    if !matches!(hooks, Json::Object(_)) {
        return Err(SettingsError::Shape("\"hooks\" is not an object".into()));
    }
    let mut changed = Vec::new();
    for ev in EVENTS {
        let groups = hooks
            .entry(ev, Json::Array(Vec::new()))
            .ok_or(SettingsError::NotAnObject)?;
        let Json::Array(groups) = groups else {
            return Err(SettingsError::Shape(format!("\"hooks\".\"{ev}\" is not a list")));
        };
        if json_commands(groups).iter().any(|c| is_ours(c, Agent::ClaudeCode)) {
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

/// Claude Code: removes every hook of ours, the groups and events left empty by that, and
/// `hooks` itself when nothing else is in it.
pub fn json_uninstall(text: &str) -> Result<Edit, SettingsError> {
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
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Json::as_str)
                        .is_some_and(|c| is_ours(&c, Agent::ClaudeCode))
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

/// Codex: an `[[hooks.EVENT]]` group running `command` for each event that has none of ours.
pub fn toml_install(text: &str, command: &str) -> Result<Edit, SettingsError> {
    use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};
    let mut doc: DocumentMut = text.parse().map_err(SettingsError::Toml)?;
    if !doc.contains_key("hooks") {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert("hooks", Item::Table(t));
    }
    let hooks = doc["hooks"]
        .as_table_mut()
        .ok_or(SettingsError::Shape("[hooks] is not a table".into()))?;
    let mut changed = Vec::new();
    for ev in EVENTS {
        if !hooks.contains_key(ev) {
            hooks.insert(ev, Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
        }
        let groups = hooks[ev]
            .as_array_of_tables_mut()
            .ok_or_else(|| SettingsError::Shape(format!("hooks.{ev} is not a list of tables ([[hooks.{ev}]])")))?;
        let ours = groups
            .iter()
            .any(|g| toml_commands(g).iter().any(|c| is_ours(c, Agent::Codex)));
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

/// Codex: removes our handlers, the groups and events they leave empty, and `[hooks]` when
/// it is left empty and was not written as a table of its own.
pub fn toml_uninstall(text: &str) -> Result<Edit, SettingsError> {
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
                        .is_some_and(|c| is_ours(c, Agent::Codex))
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

/// Why `hooks install` or `uninstall` left the settings file as it was.
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    #[error("HOME is unset: cannot find the user's settings; use --scope project")]
    NoHome,
    #[error("cannot tell where this cctool binary is: {0}")]
    NoExe(std::io::Error),
    #[error(
        "--command {0:?}: the program must be a file named cctool… (that is how install and uninstall find the hook again)"
    )]
    Program(String),
    #[error(
        "{}: a symbolic link to {}, which does not exist (dotfiles not mounted?); not edited, the link is left as it is",
        .path.display(),
        .target.display()
    )]
    Dangling { path: PathBuf, target: PathBuf },
    #[error("{}: read-only; not edited (make it writable, e.g. `chmod u+w`, and run again)", .0.display())]
    ReadOnly(PathBuf),
    #[error("{}: cannot read: {cause}", .path.display())]
    Read { path: PathBuf, cause: std::io::Error },
    #[error("{}: not UTF-8 text; not edited", .0.display())]
    NotUtf8(PathBuf),
    #[error("{}: {cause}", .path.display())]
    Settings { path: PathBuf, cause: SettingsError },
    #[error("{}: cannot write: {cause}", .path.display())]
    Write { path: PathBuf, cause: std::io::Error },
}

/// The settings file's text (empty when there is none), refusing what cannot be edited in
/// place: a dangling link (its target is written, never the link replaced) and a read-only
/// file.
pub fn read_settings(path: &Path) -> Result<String, HooksError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && std::fs::metadata(path).is_err() {
        return Err(HooksError::Dangling {
            path: path.to_path_buf(),
            target: std::fs::read_link(path).unwrap_or_default(),
        });
    }
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => return Err(HooksError::ReadOnly(path.to_path_buf())),
        _ => {}
    }
    match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).map_err(|_| HooksError::NotUtf8(path.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(cause) => Err(HooksError::Read {
            path: path.to_path_buf(),
            cause,
        }),
    }
}

/// What writing the settings did.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// A new file.
    Created,
    /// Replaced; the file as it was is kept at this path.
    Replaced(PathBuf),
    /// Nothing was left in it but what install added to a file it created: removed, so the
    /// absence comes back.
    Removed,
}

/// Writes `content` to `path` (through a symbolic link, its target): an existing file is
/// first copied to a backup beside it, a new one is created with its folder, and one left
/// empty is removed.
pub fn write_settings(path: &Path, content: &str) -> Result<Written, HooksError> {
    let failed = |cause| HooksError::Write {
        path: path.to_path_buf(),
        cause,
    };
    if path.exists() {
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if content.is_empty() && !link {
            std::fs::remove_file(path).map_err(failed)?;
            return Ok(Written::Removed);
        }
        return crate::io::atomic::replace_with_backup(path, content.as_bytes(), "cctool-hooks")
            .map(Written::Replaced)
            .map_err(failed);
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(failed)?;
    }
    crate::io::atomic::write_new_file(path, content.as_bytes(), false)
        .map(|()| Written::Created)
        .map_err(failed)
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

    #[test]
    fn ours_is_recognised_by_program_and_agent() {
        assert!(is_ours("'/a b/cctool' hooks run codex --to /x", Agent::Codex));
        assert!(is_ours("cctool hooks run claude-code", Agent::ClaudeCode));
        assert!(!is_ours("cctool hooks run claude-code", Agent::Codex));
        assert!(!is_ours("other hooks run codex", Agent::Codex));
        assert!(!is_ours("cctool hooks run codexx", Agent::Codex));
    }
}
