//! pi's tools in neutral terms (`docs/convert.md#tools`), as the client (1.6.0) declares
//! them in `core/tools/*.js`: `bash` (`command`, `timeout`), `read` (`path`, `offset`,
//! `limit`), `write` (`path`, `content`), `edit` (`path`, `edits: [{oldText, newText}]`, or
//! the older `oldText`/`newText` the client still accepts), `grep` (`pattern`, `path`, …) and
//! `find` (`pattern`, `path`, …). `ls` and the tools of extensions have no neutral kind.
//!
//! An edit of pi replaces text that occurs once: a hunk meant for every occurrence has no
//! words in it, and is counted as lost.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Vocabulary, Written, command_in, exit_on_line, rest,
};

/// pi's tools.
#[derive(Debug)]
pub struct PiTools;

impl Vocabulary for PiTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "read" | "write" | "edit" => input.get("path").and_then(Value::as_str),
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
            Kind::Shell(c) => ("bash", obj(json!({ "command": c.line() }))),
            Kind::Read(r) => {
                let mut m = obj(json!({ "path": r.path }));
                if let Some(o) = r.offset {
                    m.insert("offset".into(), json!(o));
                }
                if let Some(l) = r.limit {
                    m.insert("limit".into(), json!(l));
                }
                ("read", m)
            }
            Kind::Write { path, content } => ("write", obj(json!({ "path": path, "content": content }))),
            Kind::Edit { path, edits } => {
                if edits.iter().any(|h| h.replace_all.as_ref().is_some_and(truthy)) {
                    lost = Some("replace_all".to_string());
                }
                let edits: Vec<Value> = edits
                    .iter()
                    .map(|h| json!({ "oldText": h.old, "newText": h.new }))
                    .collect();
                ("edit", obj(json!({ "path": path, "edits": edits })))
            }
            Kind::Search { pattern, path, names } => {
                let mut m = obj(json!({ "pattern": pattern }));
                if let Some(p) = path {
                    m.insert("path".into(), json!(p));
                }
                (if *names { "find" } else { "grep" }, m)
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

    /// Its tools as a recap reads them: a file named is a file read or changed.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        let arg = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
        match name {
            "read" | "grep" | "find" | "ls" => Gist::Read(arg("path")),
            "write" | "edit" => Gist::Modify(arg("path")),
            "bash" => command_in(input).map_or(Gist::Other, Gist::Shell),
            _ => Gist::Other,
        }
    }

    /// pi's `bash` result ends with `Command exited with code N` when the command failed.
    fn stated_exit(&self, text: &str) -> Option<i64> {
        exit_on_line(text, &["command exited with code"])
    }
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false))
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
    let path = || match input.get("path") {
        Some(p) => p.as_str().map(|p| Some(p.to_string())),
        None => Some(None),
    };
    let kind = match name {
        "bash" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "read" => {
            let n = |k: &str| input.get(k).map_or(Some(None), |v| v.as_u64().map(Some));
            let read = Read {
                path: s("path")?,
                offset: n("offset")?,
                limit: n("limit")?,
            };
            (Kind::Read(read), rest(input, &["path", "offset", "limit"])?)
        }
        "write" => (
            Kind::Write {
                path: s("path")?,
                content: s("content")?,
            },
            rest(input, &["path", "content"])?,
        ),
        "edit" => edit_of(input)?,
        "grep" | "find" => {
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path: path()?,
                names: name == "find",
            };
            (kind, rest(input, &["pattern", "path"])?)
        }
        _ => return None,
    };
    Some(kind)
}

/// An edit as the client prepares it (`prepareEditArguments`): its `edits` list, then the
/// older single `oldText`/`newText` appended to it.
fn edit_of(input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let path = input.get("path")?.as_str()?.to_string();
    let hunk = |e: &Value| -> Option<Hunk> {
        Some(Hunk {
            old: e.get("oldText")?.as_str()?.to_string(),
            new: e.get("newText")?.as_str()?.to_string(),
            replace_all: None,
        })
    };
    let mut edits = match input.get("edits") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.iter().map(hunk).collect::<Option<Vec<_>>>()?,
        Some(single @ Value::Object(_)) => vec![hunk(single)?],
        Some(_) => return None,
    };
    match (input.get("oldText"), input.get("newText")) {
        (None, None) => {}
        (Some(_), Some(_)) => edits.push(hunk(input)?),
        _ => return None,
    }
    if edits.is_empty() {
        return None;
    }
    Some((
        Kind::Edit { path, edits },
        rest(input, &["path", "edits", "oldText", "newText"])?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::tools::translate;

    fn back(name: &str, input: Value) -> (String, Value) {
        let t = translate(&PiTools, &PiTools, name, &input, None);
        (t.name, t.input.into_value())
    }

    /// Every call of a tool with a kind comes back from the neutral call as it was written.
    #[test]
    fn its_own_calls_come_back_as_they_were() {
        for (name, input) in [
            ("bash", json!({"command": "ls -la", "timeout": 30})),
            ("read", json!({"path": "src/main.rs", "offset": 10, "limit": 20})),
            ("read", json!({"path": "README.md"})),
            ("write", json!({"path": "a.txt", "content": "x\n"})),
            (
                "edit",
                json!({"path": "a.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
            ),
            ("grep", json!({"pattern": "fn main", "path": "src", "ignoreCase": true})),
            ("find", json!({"pattern": "*.rs"})),
            ("ls", json!({"path": "."})),
        ] {
            assert_eq!(back(name, input.clone()), (name.to_string(), input), "{name}");
        }
    }

    /// The older single edit and a lone edit object read as the one-hunk list the client makes.
    #[test]
    fn older_edit_forms_read_as_the_client_prepares_them() {
        let list = json!({"path": "a", "edits": [{"oldText": "x", "newText": "y"}]});
        assert_eq!(
            back("edit", json!({"path": "a", "oldText": "x", "newText": "y"})).1,
            list
        );
        assert_eq!(
            back("edit", json!({"path": "a", "edits": {"oldText": "x", "newText": "y"}})).1,
            list
        );
    }

    /// Another agent's calls become pi's; what pi cannot say is counted, not dropped silently.
    #[test]
    fn other_agents_calls_map_to_pi_tools() {
        let neutral = |kind: Kind| Call {
            name: "X".into(),
            kind,
            extra: Map::new(),
            file: None,
        };
        let w = PiTools
            .from_neutral(
                &neutral(Kind::Shell(Command::Line("cargo test".into()))),
                Context::default(),
            )
            .unwrap();
        assert_eq!(
            (w.name.as_str(), w.input.into_value()),
            ("bash", json!({"command": "cargo test"}))
        );
        let all = Hunk {
            old: "a".into(),
            new: "b".into(),
            replace_all: Some(json!(true)),
        };
        let w = PiTools
            .from_neutral(
                &neutral(Kind::Edit {
                    path: "f".into(),
                    edits: vec![all],
                }),
                Context::default(),
            )
            .unwrap();
        assert_eq!(w.lost.as_deref(), Some("replace_all"));
        assert!(
            PiTools
                .from_neutral(&neutral(Kind::Task { prompt: "p".into() }), Context::default())
                .is_none()
        );
    }
}
