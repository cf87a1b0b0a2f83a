//! Claude Code's tools in neutral terms (`docs/convert.md#tools`): `Bash`, `Read`, `Write`,
//! `Edit` and `MultiEdit`, `Grep` and `Glob`, `WebFetch` and `WebSearch`, `Task`.
//!
//! Every call of these tools whose arguments fit its kind comes back from the neutral call
//! as it was, but for `MultiEdit` and an `Edit` whose `edits` list holds one edit: they come
//! back as the `Edit` of Claude Code 2.1.332 (an `edits` list of several, one edit as its
//! own fields), whose request drops an `Edit`'s single-edit fields beside such a list.

use serde_json::{Map, Value, json};

use cctool_core::convert::tools::{
    Call, Command, Context, Gist, Hunk, Input, Kind, Read, Todo, Vocabulary, Web, Written, command_in, exit_on_line,
    rest, starts_with_any, translate,
};

/// Claude Code's tools.
#[derive(Debug)]
pub struct ClaudeCodeTools;

impl Vocabulary for ClaudeCodeTools {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        let file = match name {
            "Read" | "Write" | "Edit" | "MultiEdit" => input.get("file_path").and_then(Value::as_str),
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

    /// Its tools as a recap reads them, whatever else the arguments say: a file named is a
    /// file read or changed; notebooks and the todo list too, which have no neutral kind.
    fn gist(&self, name: &str, input: &Value) -> Gist {
        let arg = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
        match name {
            "Read" => Gist::Read(arg("file_path")),
            "NotebookRead" => Gist::Read(arg("notebook_path")),
            "Grep" | "Glob" => Gist::Read(arg("path")),
            "Write" | "Edit" | "MultiEdit" => Gist::Modify(arg("file_path")),
            "NotebookEdit" => Gist::Modify(arg("notebook_path")),
            "TodoWrite" => Gist::Todo(todos(input)),
            "Bash" => command_in(input).map_or(Gist::Other, Gist::Shell),
            _ => Gist::Other,
        }
    }

    /// Claude Code reports a failing command as `Exit code N` and a successful one by its
    /// output alone: a `Bash` result without that line, and not an error, is a success,
    /// unless the command was interrupted, timed out or went to the background.
    fn unstated_exit(&self, name: &str, text: &str) -> Option<i64> {
        const UNFINISHED: [&str; 3] = [
            "[Request interrupted",
            "Command timed out",
            "Command running in background",
        ];
        (name == "Bash" && !UNFINISHED.iter().any(|u| text.contains(u))).then_some(0)
    }

    /// A failing `Bash` result's `Exit code N` line.
    fn stated_exit(&self, text: &str) -> Option<i64> {
        exit_on_line(text, &["exit code"])
    }

    /// A call its tool refused (a file not read first, a string to replace not found).
    fn stated_failure(&self, text: &str) -> bool {
        text.trim_start().starts_with("<tool_use_error>")
    }

    /// Its reminders, the slash commands and their output it records as the user's, and its
    /// notice of an interruption.
    fn injected(&self, text: &str) -> bool {
        starts_with_any(
            text,
            &[
                "<system-reminder>",
                "<command-",
                "<local-command-",
                "[Request interrupted by user",
            ],
        )
    }

    fn from_neutral(&self, call: &Call, _: Context) -> Option<Written> {
        let (name, mut m) = match &call.kind {
            Kind::Shell(c) => ("Bash", Map::from_iter([("command".to_string(), json!(c.line()))])),
            Kind::Read(r) => ("Read", read_input(r)),
            Kind::Write { path, content } => ("Write", obj(json!({"file_path": path, "content": content}))),
            Kind::Edit { path, edits } => ("Edit", edit_input(path, edits)),
            Kind::Search { pattern, path, names } => {
                let mut m = Map::from_iter([("pattern".to_string(), json!(pattern))]);
                if let Some(p) = path {
                    m.insert("path".into(), json!(p));
                }
                (if *names { "Glob" } else { "Grep" }, m)
            }
            Kind::Web(Web::Fetch { url }) => ("WebFetch", obj(json!({ "url": url }))),
            Kind::Web(Web::Search { query }) => ("WebSearch", obj(json!({ "query": query }))),
            Kind::Task { prompt } => ("Task", obj(json!({ "prompt": prompt }))),
            Kind::Other(_) => return None,
        };
        m.extend(call.extra.clone());
        Some(Written {
            name: name.into(),
            input: Input::Json(Value::Object(m)),
            lost: None,
        })
    }
}

/// The call `name(input)` of `from`'s tools as a Claude Code call, and the mapping it took.
pub(crate) fn to_claude(
    from: &dyn Vocabulary,
    name: &str,
    input: &Value,
) -> ((String, Value), cctool_core::convert::tools::Mapped) {
    let t = translate(from, &ClaudeCodeTools, name, input, None);
    ((t.name, t.input.into_value()), t.mapped)
}

/// The entries of a `TodoWrite` list: each one's `status` and `content`.
fn todos(input: &Value) -> Option<Vec<Todo>> {
    let list = input.get("todos")?.as_array()?;
    Some(
        list.iter()
            .filter_map(|t| {
                Some(Todo {
                    text: t.get("content")?.as_str()?.to_string(),
                    status: t.get("status").and_then(Value::as_str).unwrap_or_default().to_string(),
                })
            })
            .collect(),
    )
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
        "Bash" => (Kind::Shell(Command::Line(s("command")?)), rest(input, &["command"])?),
        "Read" => {
            let n = |k: &str| input.get(k).map_or(Some(None), |v| v.as_u64().map(Some));
            let read = Read {
                path: s("file_path")?,
                offset: n("offset")?,
                limit: n("limit")?,
            };
            (Kind::Read(read), rest(input, &["file_path", "offset", "limit"])?)
        }
        "Write" => (
            Kind::Write {
                path: s("file_path")?,
                content: s("content")?,
            },
            rest(input, &["file_path", "content"])?,
        ),
        "Edit" | "MultiEdit" => edit_of(name, input)?,
        "Grep" | "Glob" => {
            let path = match input.get("path") {
                Some(p) => Some(p.as_str()?.to_string()),
                None => None,
            };
            let kind = Kind::Search {
                pattern: s("pattern")?,
                path,
                names: name == "Glob",
            };
            (kind, rest(input, &["pattern", "path"])?)
        }
        "WebFetch" => (Kind::Web(Web::Fetch { url: s("url")? }), rest(input, &["url"])?),
        "WebSearch" => (Kind::Web(Web::Search { query: s("query")? }), rest(input, &["query"])?),
        "Task" => (Kind::Task { prompt: s("prompt")? }, rest(input, &["prompt"])?),
        _ => return None,
    };
    Some(kind)
}

/// An edit, one (`Edit`) or a list (`edits`, of `Edit` or `MultiEdit`); a `MultiEdit` without
/// a list is none. Beside a list, an `Edit`'s own single-edit fields are not read, as Claude
/// Code does not read them.
fn edit_of(name: &str, input: &Value) -> Option<(Kind, Map<String, Value>)> {
    const EDIT: [&str; 3] = ["old_string", "new_string", "replace_all"];
    let path = input.get("file_path")?.as_str()?.to_string();
    let hunk = |e: &Value| -> Option<Hunk> {
        Some(Hunk {
            old: e.get("old_string")?.as_str()?.to_string(),
            new: e.get("new_string")?.as_str()?.to_string(),
            replace_all: e.get("replace_all").cloned(),
        })
    };
    let (edits, extra) = match input.get("edits") {
        Some(list) => {
            let edits = list
                .as_array()?
                .iter()
                .map(|e| {
                    let known = e.as_object()?.keys().all(|k| EDIT.contains(&k.as_str()));
                    known.then(|| hunk(e)).flatten()
                })
                .collect::<Option<Vec<_>>>()?;
            (
                edits,
                rest(
                    input,
                    &["file_path", "edits", "old_string", "new_string", "replace_all"],
                )?,
            )
        }
        None if name == "Edit" => (
            vec![hunk(input)?],
            rest(input, &["file_path", "old_string", "new_string", "replace_all"])?,
        ),
        None => return None,
    };
    Some((Kind::Edit { path, edits }, extra))
}

fn read_input(r: &Read) -> Map<String, Value> {
    let mut m = Map::from_iter([("file_path".to_string(), json!(r.path))]);
    if let Some(a) = r.offset {
        m.insert("offset".into(), json!(a));
    }
    if let Some(n) = r.limit {
        m.insert("limit".into(), json!(n));
    }
    m
}

fn hunk_input(h: &Hunk) -> Map<String, Value> {
    let mut m = obj(json!({"old_string": h.old, "new_string": h.new}));
    if let Some(all) = &h.replace_all {
        m.insert("replace_all".into(), all.clone());
    }
    m
}

/// One edit as the `Edit`'s own fields, several as its `edits` list.
fn edit_input(path: &str, edits: &[Hunk]) -> Map<String, Value> {
    let mut m = Map::from_iter([("file_path".to_string(), json!(path))]);
    match edits {
        [one] => m.extend(hunk_input(one)),
        _ => {
            let list: Vec<Value> = edits.iter().map(|h| Value::Object(hunk_input(h))).collect();
            m.insert("edits".into(), Value::Array(list));
        }
    }
    m
}

#[cfg(test)]
mod tests;
