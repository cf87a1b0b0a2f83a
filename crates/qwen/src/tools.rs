//! Qwen Code's tools in neutral terms (`docs/convert.md#tools`), as 0.24.4 declares them:
//! `run_shell_command` (`command`, `description`, `directory`, …), `read_file` (`file_path`,
//! `offset` counted from 0, `limit`), `write_file` (`file_path`, `content`), `edit`
//! (`file_path`, `old_string`, `new_string`, `replace_all`), `grep_search` (`pattern`, `path`,
//! …), `glob` (`pattern`, `path`) and `agent` (`description`, `prompt`, …).

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Vocabulary, Written, command_in, rest,
};

/// Qwen Code's tools.
#[derive(Debug)]
pub struct QwenTools;

impl Vocabulary for QwenTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "read_file" | "write_file" | "edit" => input.get("file_path").and_then(Value::as_str),
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
        let (name, mut m) = match &call.kind {
            Kind::Shell(c) => ("run_shell_command", obj(json!({ "command": c.line() }))),
            Kind::Read(r) => ("read_file", read_input(r)?),
            Kind::Write { path, content } => ("write_file", obj(json!({ "file_path": path, "content": content }))),
            Kind::Edit { path, edits } => match edits.as_slice() {
                [h] => {
                    let mut m = obj(json!({ "file_path": path, "old_string": h.old, "new_string": h.new }));
                    if let Some(all) = &h.replace_all {
                        m.insert("replace_all".into(), all.clone());
                    }
                    ("edit", m)
                }
                _ => return None,
            },
            Kind::Search { pattern, path, names } => {
                let mut m = obj(json!({ "pattern": pattern }));
                if let Some(p) = path {
                    m.insert("path".into(), json!(p));
                }
                (if *names { "glob" } else { "grep_search" }, m)
            }
            Kind::Task { prompt } => ("agent", obj(json!({ "description": "task", "prompt": prompt }))),
            Kind::Web(_) | Kind::Other(_) => return None,
        };
        m.extend(call.extra.clone());
        Some(Written {
            name: name.into(),
            input: Input::Json(Value::Object(m)),
            lost: None,
        })
    }

    /// Its tools as a recap reads them: a file named is a file read or changed.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        let arg = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
        match name {
            "read_file" => Gist::Read(arg("file_path")),
            "grep_search" | "glob" => Gist::Read(arg("path")),
            "write_file" | "edit" => Gist::Modify(arg("file_path")),
            "run_shell_command" => command_in(input).map_or(Gist::Other, Gist::Shell),
            _ => Gist::Other,
        }
    }

    fn stated_exit(&self, text: &str) -> Option<i64> {
        // The shell's result ends with a line `Exit Code: N`.
        text.lines()
            .find_map(|l| l.strip_prefix("Exit Code: "))
            .and_then(|n| n.trim().parse().ok())
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A read as `read_file`'s arguments: `offset` counted from 0.
fn read_input(r: &Read) -> Option<Map<String, Value>> {
    let mut m = obj(json!({ "file_path": r.path }));
    if let Some(o) = r.offset {
        m.insert("offset".into(), json!(o.checked_sub(1)?));
    }
    if let Some(l) = r.limit {
        m.insert("limit".into(), json!(l));
    }
    Some(m)
}

/// The kind of a call and the keys it has no word for; `None` when its arguments fit none.
fn kind_of(name: &str, input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let n = |k: &str| match input.get(k) {
        None | Some(Value::Null) => Some(None),
        Some(v) => v.as_u64().map(Some),
    };
    let kind = match name {
        "run_shell_command" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "read_file" => {
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
        "edit" => {
            let hunk = Hunk {
                old: s("old_string")?,
                new: s("new_string")?,
                replace_all: input.get("replace_all").cloned(),
            };
            let edit = Kind::Edit {
                path: s("file_path")?,
                edits: vec![hunk],
            };
            (
                edit,
                rest(input, &["file_path", "old_string", "new_string", "replace_all"])?,
            )
        }
        "grep_search" | "glob" => {
            let path = match input.get("path") {
                Some(p) => Some(p.as_str()?.to_string()),
                None => None,
            };
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path,
                names: name == "glob",
            };
            (kind, rest(input, &["pattern", "path"])?)
        }
        "agent" => (Kind::Task { prompt: s("prompt")? }, rest(input, &["prompt"])?),
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::tools::translate;

    fn back(name: &str, input: Value) -> (String, Value) {
        let t = translate(&QwenTools, &QwenTools, name, &input, None);
        (t.name, t.input.into_value())
    }

    /// Every call of a tool with a kind comes back from the neutral call as it was written.
    #[test]
    fn its_own_calls_come_back_as_they_were() {
        for (name, input) in [
            ("run_shell_command", json!({"command": "ls", "description": "list"})),
            ("read_file", json!({"file_path": "/p/a.rs", "offset": 0, "limit": 20})),
            ("read_file", json!({"file_path": "/p/a.rs"})),
            ("write_file", json!({"file_path": "/p/a.txt", "content": "x\n"})),
            (
                "edit",
                json!({"file_path": "/p/a", "old_string": "a", "new_string": "b", "replace_all": true}),
            ),
            ("grep_search", json!({"pattern": "fn main", "path": "src", "limit": 5})),
            ("glob", json!({"pattern": "**/*.rs"})),
            ("agent", json!({"description": "look", "prompt": "look around"})),
        ] {
            assert_eq!(back(name, input.clone()), (name.to_string(), input), "{name}");
        }
    }

    /// A read from line 5 is a read from offset 4: the client counts lines from 0.
    #[test]
    fn a_read_s_offset_counts_from_zero() {
        let c = QwenTools.to_neutral("read_file", &json!({"file_path": "f", "offset": 4}));
        assert!(matches!(c.kind, Kind::Read(Read { offset: Some(5), .. })));
    }

    #[test]
    fn the_exit_code_line_is_read() {
        let text = "Command: ls\nOutput: a\nError: (none)\nExit Code: 2\nSignal: (none)";
        assert_eq!(QwenTools.stated_exit(text), Some(2));
    }
}
