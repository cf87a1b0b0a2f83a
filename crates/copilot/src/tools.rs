//! Copilot CLI's tools in neutral terms (`docs/convert.md#tools`), as its sessions call them
//! (1.0.64 to 1.0.102): `bash` (`command`, `description`, …), `view` (`path`, `view_range`:
//! `[first, last]`, `-1` for the end), `create` (`path`, `file_text`), `edit` (`path`,
//! `old_str`, `new_str`: one replacement a call), `grep` (`pattern`, `path`, …), `glob`
//! (`pattern`, `path`) and `task` (`prompt`, …). `powershell` runs another shell's language,
//! and the other tools (`read_bash`, `sql`, MCP tools) have no neutral kind.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Vocabulary, Written, command_in, rest,
};

/// Copilot CLI's tools.
#[derive(Debug)]
pub struct CopilotTools;

impl Vocabulary for CopilotTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "view" | "create" | "edit" => input.get("path").and_then(Value::as_str),
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
            Kind::Shell(c) => ("bash", obj(json!({ "command": c.line() }))),
            Kind::Read(r) => ("view", view_input(r)?),
            Kind::Write { path, content } => ("create", obj(json!({ "path": path, "file_text": content }))),
            // One replacement a call: an edit of several, or of every occurrence, is not one.
            Kind::Edit { path, edits } => match edits.as_slice() {
                [h] if h.replace_all.as_ref().is_none_or(|v| v == &json!(false)) => {
                    ("edit", obj(json!({ "path": path, "old_str": h.old, "new_str": h.new })))
                }
                _ => return None,
            },
            Kind::Search { pattern, path, names } => {
                let mut m = obj(json!({ "pattern": pattern }));
                if let Some(p) = path {
                    m.insert("path".into(), json!(p));
                }
                (if *names { "glob" } else { "grep" }, m)
            }
            Kind::Task { prompt } => ("task", obj(json!({ "prompt": prompt }))),
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
            "view" | "grep" | "glob" => Gist::Read(arg("path")),
            "create" | "edit" => Gist::Modify(arg("path")),
            "bash" => command_in(input).map_or(Gist::Other, Gist::Shell),
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

/// A read as `view`'s arguments: lines `[offset, offset + limit - 1]`, `-1` for the end; a
/// limit without an offset reads from the first line. `None` for a read `view` cannot say
/// (no line to start from: an offset of zero).
fn view_input(r: &Read) -> Option<Map<String, Value>> {
    let mut m = obj(json!({ "path": r.path }));
    let first = match (r.offset, r.limit) {
        (None, None) => return Some(m),
        (Some(0), _) => return None,
        (o, _) => o.unwrap_or(1),
    };
    let last = match r.limit {
        Some(0) => return None,
        Some(l) => json!(first + l - 1),
        None => json!(-1),
    };
    m.insert("view_range".into(), json!([first, last]));
    Some(m)
}

/// The kind of a call and the keys it has no word for; `None` when its arguments fit none.
fn kind_of(name: &str, input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let path = || match input.get("path") {
        Some(p) => p.as_str().map(|p| Some(p.to_string())),
        None => Some(None),
    };
    let kind = match name {
        "bash" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "view" => (Kind::Read(read_of(input)?), rest(input, &["path", "view_range"])?),
        "create" => (
            Kind::Write {
                path: s("path")?,
                content: s("file_text")?,
            },
            rest(input, &["path", "file_text"])?,
        ),
        "edit" => {
            let hunk = Hunk {
                old: s("old_str")?,
                new: s("new_str")?,
                replace_all: None,
            };
            let edit = Kind::Edit {
                path: s("path")?,
                edits: vec![hunk],
            };
            (edit, rest(input, &["path", "old_str", "new_str"])?)
        }
        "grep" | "glob" => {
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path: path()?,
                names: name == "glob",
            };
            (kind, rest(input, &["pattern", "path"])?)
        }
        "task" => (Kind::Task { prompt: s("prompt")? }, rest(input, &["prompt"])?),
        _ => return None,
    };
    Some(kind)
}

/// `view`'s path and range as a read: `[first, last]` is lines first to last, `last` `-1`
/// for the end; any other range (a directory's, a reversed one) fits no read.
fn read_of(input: &Value) -> Option<Read> {
    let path = input.get("path")?.as_str()?.to_string();
    let Some(range) = input.get("view_range") else {
        return Some(Read {
            path,
            offset: None,
            limit: None,
        });
    };
    let [first, last] = range.as_array()?.as_slice() else {
        return None;
    };
    let first = first.as_u64().filter(|f| *f >= 1)?;
    let limit = match last.as_i64()? {
        -1 => None,
        l if l >= first as i64 => Some(l as u64 - first + 1),
        _ => return None,
    };
    Some(Read {
        path,
        offset: Some(first),
        limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::tools::translate;

    fn back(name: &str, input: Value) -> (String, Value) {
        let t = translate(&CopilotTools, &CopilotTools, name, &input, None);
        (t.name, t.input.into_value())
    }

    /// Every call of a tool with a kind comes back from the neutral call as it was written.
    #[test]
    fn its_own_calls_come_back_as_they_were() {
        for (name, input) in [
            ("bash", json!({"command": "ls -la", "description": "List"})),
            ("view", json!({"path": "src/main.rs", "view_range": [10, 29]})),
            ("view", json!({"path": "src/main.rs", "view_range": [10, -1]})),
            ("view", json!({"path": "README.md"})),
            ("create", json!({"path": "a.txt", "file_text": "x\n"})),
            ("edit", json!({"path": "a.txt", "old_str": "a", "new_str": "b"})),
            ("grep", json!({"pattern": "fn main", "path": "src", "-n": true})),
            ("glob", json!({"pattern": "**/*.rs"})),
            ("task", json!({"prompt": "look", "agent_type": "explore"})),
            ("powershell", json!({"command": "dir"})),
        ] {
            assert_eq!(back(name, input.clone()), (name.to_string(), input), "{name}");
        }
    }

    /// A range `view` cannot read as lines keeps the call as it was.
    #[test]
    fn a_range_that_is_no_read_keeps_the_call() {
        let odd = json!({"path": "d", "view_range": [5, 2]});
        assert!(matches!(CopilotTools.to_neutral("view", &odd).kind, Kind::Other(_)));
    }

    /// Another agent's reads and edits become Copilot's where one call says them.
    #[test]
    fn reads_and_edits_of_other_agents_map_where_one_call_says_them() {
        let call = |kind: Kind| Call {
            name: "X".into(),
            kind,
            extra: Map::new(),
            file: None,
        };
        let read = Read {
            path: "f".into(),
            offset: None,
            limit: Some(5),
        };
        let w = CopilotTools
            .from_neutral(&call(Kind::Read(read)), Context::default())
            .unwrap();
        assert_eq!(w.input.into_value(), json!({"path": "f", "view_range": [1, 5]}));
        let hunk = |all: Option<Value>| Hunk {
            old: "a".into(),
            new: "b".into(),
            replace_all: all,
        };
        let two = Kind::Edit {
            path: "f".into(),
            edits: vec![hunk(None), hunk(None)],
        };
        assert!(CopilotTools.from_neutral(&call(two), Context::default()).is_none());
        let all = Kind::Edit {
            path: "f".into(),
            edits: vec![hunk(Some(json!(true)))],
        };
        assert!(CopilotTools.from_neutral(&call(all), Context::default()).is_none());
    }
}
