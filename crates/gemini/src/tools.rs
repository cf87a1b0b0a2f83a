//! Gemini CLI's tools in neutral terms (`docs/convert.md#tools`), as the client (0.61.0)
//! declares them: `run_shell_command` (`command`, `description`, `dir_path`), `read_file`
//! (`file_path`, `offset` from line 0, `limit`), `write_file` (`file_path`, `content`),
//! `replace` (`file_path`, `old_string`, `new_string`, `allow_multiple`), `grep_search`
//! (`pattern`, `dir_path`) and `glob` (`pattern`, `dir_path`). Its other tools (web fetch and
//! search, memory, MCP tools) have no neutral kind.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Vocabulary, Written, command_in, rest,
};

/// Gemini CLI's tools.
#[derive(Debug)]
pub struct GeminiTools;

impl Vocabulary for GeminiTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "read_file" | "write_file" | "replace" => input.get("file_path").and_then(Value::as_str),
            _ => None,
        };
        let mut call = match kind_of(name, input) {
            Some((kind, extra)) => Call {
                name: name.to_string(),
                kind,
                extra,
                file: None,
            },
            None => Call::other(name, input),
        };
        call.file = file.map(str::to_string);
        call
    }

    fn from_neutral(&self, call: &Call, _: Context) -> Option<Written> {
        let mut lost = None;
        let (name, mut m) = match &call.kind {
            Kind::Shell(c) => ("run_shell_command", obj(json!({ "command": c.line() }))),
            Kind::Read(r) => {
                let mut m = obj(json!({ "file_path": r.path }));
                // The client counts lines from 0, the neutral read from 1.
                if let Some(o) = r.offset {
                    m.insert("offset".into(), json!(o.saturating_sub(1)));
                }
                if let Some(l) = r.limit {
                    m.insert("limit".into(), json!(l));
                }
                ("read_file", m)
            }
            Kind::Write { path, content } => ("write_file", obj(json!({ "file_path": path, "content": content }))),
            Kind::Edit { path, edits } => {
                // One `replace` call holds one hunk: the others have no place in it.
                let first = edits.first()?;
                if edits.len() > 1 {
                    lost = Some(format!("{} more hunks", edits.len() - 1));
                }
                let mut m = obj(json!({ "file_path": path, "old_string": first.old, "new_string": first.new }));
                if let Some(all) = &first.replace_all {
                    m.insert("allow_multiple".into(), all.clone());
                }
                ("replace", m)
            }
            Kind::Search { pattern, path, names } => {
                let mut m = obj(json!({ "pattern": pattern }));
                if let Some(p) = path {
                    m.insert("dir_path".into(), json!(p));
                }
                (if *names { "glob" } else { "grep_search" }, m)
            }
            Kind::Web(_) | Kind::Task { .. } | Kind::Other(_) => return None,
        };
        m.extend(call.extra.clone());
        Some(Written {
            name: name.into(),
            input: Input::Json(Value::Object(m)),
            lost,
        })
    }

    fn gist(&self, name: &str, input: &Value) -> Gist {
        let arg = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
        match name {
            "read_file" => Gist::Read(arg("file_path")),
            "grep_search" | "glob" | "list_directory" => Gist::Read(arg("dir_path")),
            "write_file" | "replace" => Gist::Modify(arg("file_path")),
            "run_shell_command" => command_in(input).map_or(Gist::Other, Gist::Shell),
            _ => Gist::Other,
        }
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The kind of a call and the keys it has no word for; `None` when its arguments fit none.
fn kind_of(name: &str, input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let dir = || match input.get("dir_path") {
        Some(p) => p.as_str().map(|p| Some(p.to_string())),
        None => Some(None),
    };
    Some(match name {
        "run_shell_command" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "read_file" => {
            let n = |k: &str| input.get(k).map_or(Some(None), |v| v.as_u64().map(Some));
            let read = Read {
                path: s("file_path")?,
                offset: n("offset")?.map(|o| o + 1),
                limit: n("limit")?,
            };
            (Kind::Read(read), rest(input, &["file_path", "offset", "limit"])?)
        }
        "write_file" => (
            Kind::Write {
                path: s("file_path")?,
                content: s("content")?,
            },
            rest(input, &["file_path", "content"])?,
        ),
        "replace" => {
            let hunk = Hunk {
                old: s("old_string")?,
                new: s("new_string")?,
                replace_all: input.get("allow_multiple").cloned(),
            };
            let kind = Kind::Edit {
                path: s("file_path")?,
                edits: vec![hunk],
            };
            (
                kind,
                rest(input, &["file_path", "old_string", "new_string", "allow_multiple"])?,
            )
        }
        "grep_search" | "glob" => {
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path: dir()?,
                names: name == "glob",
            };
            (kind, rest(input, &["pattern", "dir_path"])?)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::tools::translate;

    /// Every call of a tool with a kind comes back from the neutral call as it was written.
    #[test]
    fn its_own_calls_come_back_as_they_were() {
        for (name, input) in [
            ("run_shell_command", json!({"command": "ls -la", "description": "list"})),
            (
                "read_file",
                json!({"file_path": "src/main.rs", "offset": 10, "limit": 20}),
            ),
            ("write_file", json!({"file_path": "a.txt", "content": "x\n"})),
            (
                "replace",
                json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"}),
            ),
            ("grep_search", json!({"pattern": "fn main", "dir_path": "src"})),
            ("glob", json!({"pattern": "**/*.rs"})),
        ] {
            let t = translate(&GeminiTools, &GeminiTools, name, &input, None);
            assert_eq!((t.name.as_str(), t.input.into_value()), (name, input));
        }
    }

    #[test]
    fn a_read_counts_its_lines_from_zero() {
        let c = GeminiTools.to_neutral("read_file", &json!({"file_path": "a", "offset": 0}));
        assert!(matches!(c.kind, Kind::Read(Read { offset: Some(1), .. })));
    }
}
