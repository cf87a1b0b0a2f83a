//! opencode's tools in neutral terms (`docs/convert.md#tools`), as the client (1.18.33) calls
//! them: `bash` (`command`, `description`, `timeout`, `workdir`), `read` (`filePath`, `offset`,
//! `limit`), `write` (`filePath`, `content`), `edit` (`filePath`, `oldString`, `newString`,
//! `replaceAll`: one replacement a call), `glob` (`pattern`, `path`), `grep` (`pattern`,
//! `path`, `include`), `webfetch` (`url`, `format`), `websearch` (`query`) and `task`
//! (`prompt`, `description`, `subagent_type`). `list`, `todowrite`, `patch` and the tools of
//! MCP servers have no neutral kind.
//!
//! An edit of opencode is one replacement: an edit of several hunks has no words in it, and
//! keeps its own tool's name and input.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Vocabulary, Web, Written, command_in, rest,
};

/// opencode's tools.
#[derive(Debug)]
pub struct OpencodeTools;

impl Vocabulary for OpencodeTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "read" | "write" | "edit" => input.get("filePath").and_then(Value::as_str),
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
            Kind::Read(r) => {
                let mut m = obj(json!({ "filePath": r.path }));
                if let Some(o) = r.offset {
                    m.insert("offset".into(), json!(o));
                }
                if let Some(l) = r.limit {
                    m.insert("limit".into(), json!(l));
                }
                ("read", m)
            }
            Kind::Write { path, content } => ("write", obj(json!({ "filePath": path, "content": content }))),
            Kind::Edit { path, edits } => match edits.as_slice() {
                [h] => {
                    let mut m = obj(json!({ "filePath": path, "oldString": h.old, "newString": h.new }));
                    if let Some(all) = &h.replace_all {
                        m.insert("replaceAll".into(), all.clone());
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
                (if *names { "glob" } else { "grep" }, m)
            }
            Kind::Web(Web::Fetch { url }) => ("webfetch", obj(json!({ "url": url }))),
            Kind::Web(Web::Search { query }) => ("websearch", obj(json!({ "query": query }))),
            Kind::Task { prompt } => ("task", obj(json!({ "prompt": prompt }))),
            Kind::Other(_) => return None,
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
            "read" => Gist::Read(arg("filePath")),
            "glob" | "grep" | "list" => Gist::Read(arg("path")),
            "write" | "edit" => Gist::Modify(arg("filePath")),
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

/// The kind of a call and the keys it has no word for; `None` when its arguments fit none.
fn kind_of(name: &str, input: &Value) -> Option<(Kind, Map<String, Value>)> {
    let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    let kind = match name {
        "bash" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "read" => {
            let n = |k: &str| input.get(k).map_or(Some(None), |v| v.as_u64().map(Some));
            let read = Read {
                path: s("filePath")?,
                offset: n("offset")?,
                limit: n("limit")?,
            };
            (Kind::Read(read), rest(input, &["filePath", "offset", "limit"])?)
        }
        "write" => (
            Kind::Write {
                path: s("filePath")?,
                content: s("content")?,
            },
            rest(input, &["filePath", "content"])?,
        ),
        "edit" => {
            let hunk = Hunk {
                old: s("oldString")?,
                new: s("newString")?,
                replace_all: input.get("replaceAll").cloned(),
            };
            let kind = Kind::Edit {
                path: s("filePath")?,
                edits: vec![hunk],
            };
            (
                kind,
                rest(input, &["filePath", "oldString", "newString", "replaceAll"])?,
            )
        }
        "glob" | "grep" => {
            let path = match input.get("path") {
                None => None,
                Some(p) => Some(p.as_str()?.to_string()),
            };
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path,
                names: name == "glob",
            };
            (kind, rest(input, &["pattern", "path"])?)
        }
        "webfetch" => (Kind::Web(Web::Fetch { url: s("url")? }), rest(input, &["url"])?),
        "websearch" => (Kind::Web(Web::Search { query: s("query")? }), rest(input, &["query"])?),
        "task" => (Kind::Task { prompt: s("prompt")? }, rest(input, &["prompt"])?),
        _ => return None,
    };
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::convert::tools::translate;

    fn back(name: &str, input: Value) -> (String, Value) {
        let t = translate(&OpencodeTools, &OpencodeTools, name, &input, None);
        (t.name, t.input.into_value())
    }

    /// Every call of a tool with a kind comes back from the neutral call as it was written.
    #[test]
    fn its_own_calls_come_back_as_they_were() {
        for (name, input) in [
            (
                "bash",
                json!({"command": "ls -la", "description": "List", "timeout": 30}),
            ),
            ("read", json!({"filePath": "/w/src/main.rs", "offset": 10, "limit": 20})),
            ("read", json!({"filePath": "/w/README.md"})),
            ("write", json!({"filePath": "/w/a.txt", "content": "x\n"})),
            (
                "edit",
                json!({"filePath": "/w/a.txt", "oldString": "a", "newString": "b", "replaceAll": true}),
            ),
            (
                "edit",
                json!({"filePath": "/w/a.txt", "oldString": "a", "newString": "b"}),
            ),
            ("grep", json!({"pattern": "fn main", "path": "src", "include": "*.rs"})),
            ("glob", json!({"pattern": "**/*.rs"})),
            ("webfetch", json!({"url": "https://example.com", "format": "markdown"})),
            ("websearch", json!({"query": "rust"})),
            (
                "task",
                json!({"prompt": "p", "description": "d", "subagent_type": "general"}),
            ),
            ("list", json!({"path": "."})),
            ("todowrite", json!({"todos": []})),
        ] {
            assert_eq!(back(name, input.clone()), (name.to_string(), input), "{name}");
        }
    }

    /// Another agent's calls become opencode's; an edit of several hunks, which opencode's
    /// `edit` cannot make, is not one of its calls.
    #[test]
    fn other_agents_calls_map_to_opencode_tools() {
        let neutral = |kind: Kind| Call {
            name: "X".into(),
            kind,
            extra: Map::new(),
            file: None,
        };
        let w = OpencodeTools
            .from_neutral(
                &neutral(Kind::Read(Read {
                    path: "/a".into(),
                    offset: None,
                    limit: Some(5),
                })),
                Context::default(),
            )
            .unwrap();
        assert_eq!(
            (w.name.as_str(), w.input.into_value()),
            ("read", json!({"filePath": "/a", "limit": 5}))
        );
        let h = |o: &str| Hunk {
            old: o.into(),
            new: "n".into(),
            replace_all: None,
        };
        let two = neutral(Kind::Edit {
            path: "f".into(),
            edits: vec![h("a"), h("b")],
        });
        assert!(OpencodeTools.from_neutral(&two, Context::default()).is_none());
    }
}
