//! pi's entries as the session model's records, and the messages a resume sends of them.
//!
//! What is sent follows the client's `sessionEntryToContextMessages` and `convertToLlm`
//! (`messages.js`): a message as written (`bashExecution` as the user's text unless excluded,
//! `custom` as the user's), a `custom_message` as the user's, a `branch_summary` and a
//! `compaction` as a user message wrapping the summary; the latest `context_edit` of an entry
//! replaces its content, or with a `null` replacement drops it.

use serde_json::{Map, Value, json};

use crate::file::{Entry, Session};
use crate::tree::Tree;
use cctool_core::model::doc::Image;
use cctool_core::model::events::{At, Call, Flags, Outcome, Part, Record, Usage};
use cctool_core::model::time::parse_ms;

/// What the client wraps a compaction's summary in when it sends it.
pub const COMPACTION_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// The end of that wrapper.
pub const COMPACTION_SUFFIX: &str = "\n</summary>";
/// What the client wraps a branch's summary in when it sends it.
pub const BRANCH_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// The end of that wrapper.
pub const BRANCH_SUFFIX: &str = "</summary>";

/// The messages a resume of `s` sends, in order, each with the index of the entry it comes
/// from, as the model reads them (`role` `user`, `assistant`, `toolResult` or `system`).
pub fn sent(s: &Session, t: &Tree) -> Vec<(usize, Value)> {
    let edits = edits(s, &t.context);
    let mut out = Vec::new();
    for (k, &i) in t.context.iter().enumerate() {
        let e = &s.entries[i];
        // Only the compaction the resume starts from sends its summary.
        if e.ty() == "compaction" && k > 0 {
            continue;
        }
        out.extend(messages_of(e, &edits).into_iter().map(|m| (i, m)));
    }
    out
}

/// The latest `context_edit` among the entries `list` (indices into `s`'s entries) of each
/// entry it targets: its replacement, `null` when it drops the entry.
pub fn edits(s: &Session, list: &[usize]) -> Map<String, Value> {
    edits_of(list.iter().map(|&i| &s.entries[i]))
}

/// [`edits`] among `entries`.
pub fn edits_of<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Map<String, Value> {
    let mut edits = Map::new();
    for e in entries {
        if let ("context_edit", Some(target)) = (e.ty(), e.s("targetId")) {
            edits.insert(
                target.to_string(),
                e.value.get("replacement").cloned().unwrap_or(Value::Null),
            );
        }
    }
    edits
}

/// The messages the model reads of the entry `e`, its latest edit among `edits` applied.
pub fn messages_of(e: &Entry, edits: &Map<String, Value>) -> Vec<Value> {
    let edit = e.id.as_deref().and_then(|id| edits.get(id));
    projected(e, edit).into_iter().filter_map(to_llm).collect()
}

/// `sessionEntryToContextMessages` with the entry's latest edit applied.
fn projected(e: &Entry, edit: Option<&Value>) -> Vec<Value> {
    let ts = e.timestamp().and_then(parse_ms);
    let messages = match e.ty() {
        "message" => {
            let Some(Value::Object(m)) = e.value.get("message") else {
                return Vec::new();
            };
            let mut m = m.clone();
            if m.get("content").is_none_or(Value::is_null) {
                match m.get("role").and_then(Value::as_str) {
                    Some("system") => m.insert("content".into(), json!("")),
                    Some("user" | "assistant" | "toolResult") => m.insert("content".into(), json!([])),
                    _ => None,
                };
            }
            vec![Value::Object(m)]
        }
        "custom_message" => vec![json!({
            "role": "custom",
            "content": e.value.get("content").cloned().filter(|c| !c.is_null()).unwrap_or(json!([])),
            "timestamp": ts,
        })],
        "branch_summary" => match e.s("summary").filter(|s| !s.is_empty()) {
            Some(summary) => vec![json!({"role": "branchSummary", "summary": summary, "timestamp": ts})],
            None => Vec::new(),
        },
        "compaction" => {
            let summary = json!({"role": "compactionSummary", "summary": e.value.get("summary"), "timestamp": ts});
            match e.value.get("systemMessage").filter(|v| truthy(v)) {
                Some(system) => vec![system.clone(), summary],
                None => vec![summary],
            }
        }
        _ => Vec::new(),
    };
    let Some(edit) = edit else { return messages };
    if edit.is_null() {
        return Vec::new();
    }
    messages
        .into_iter()
        .map(|mut m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_string();
            if let (true, Some(content)) = (
                matches!(role.as_str(), "user" | "assistant" | "toolResult" | "custom"),
                edit.get("content"),
            ) {
                let content = match content {
                    Value::String(t) if role == "assistant" || role == "toolResult" => {
                        json!([{"type": "text", "text": t}])
                    }
                    c => c.clone(),
                };
                m["content"] = content;
            }
            m
        })
        .collect()
}

fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Null | Value::Bool(false)) && v.as_str() != Some("") && v.as_f64() != Some(0.0)
}

/// `convertToLlm`: the message as the model reads it, or `None` when it is not sent.
fn to_llm(m: Value) -> Option<Value> {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let ts = m.get("timestamp").cloned().unwrap_or(Value::Null);
    let user = |content: Value| Some(json!({"role": "user", "content": content, "timestamp": ts}));
    match role {
        "bashExecution" if truthy(m.get("excludeFromContext").unwrap_or(&Value::Null)) => None,
        "bashExecution" => user(json!([{"type": "text", "text": bash_text(&m)}])),
        "custom" => match m.get("content") {
            Some(Value::String(t)) => user(json!([{"type": "text", "text": t}])),
            Some(c) => user(c.clone()),
            None => user(Value::Null),
        },
        "branchSummary" => user(json!([{"type": "text", "text": wrap(&m, BRANCH_PREFIX, BRANCH_SUFFIX)}])),
        "compactionSummary" => user(json!([{"type": "text", "text": wrap(&m, COMPACTION_PREFIX, COMPACTION_SUFFIX)}])),
        "system" | "user" | "assistant" | "toolResult" => Some(m),
        _ => None,
    }
}

/// A summary in its wrapper, as JavaScript joins strings (a missing summary reads `undefined`).
fn wrap(m: &Value, prefix: &str, suffix: &str) -> String {
    let summary = match m.get("summary") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "undefined".into(),
        Some(v) => v.to_string(),
    };
    format!("{prefix}{summary}{suffix}")
}

/// `bashExecutionToText`: a command the user ran with `!`, as the model is told of it.
fn bash_text(m: &Value) -> String {
    let s = |k: &str| m.get(k).and_then(Value::as_str).filter(|t| !t.is_empty());
    let mut text = format!("Ran `{}`\n", s("command").unwrap_or("undefined"));
    match s("output") {
        Some(o) => text.push_str(&format!("```\n{o}\n```")),
        None => text.push_str("(no output)"),
    }
    let exit = m.get("exitCode").and_then(Value::as_i64);
    if truthy(m.get("cancelled").unwrap_or(&Value::Null)) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = exit.filter(|c| *c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if let (true, Some(path)) = (truthy(m.get("truncated").unwrap_or(&Value::Null)), s("fullOutputPath")) {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

/// The entry read as `v` (the ask's reading of its line) as the session model's record.
pub fn record(e: &Entry, v: &Value, loaded: bool, session_id: Option<&str>) -> Record {
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let mut r = Record {
        at: Some(At {
            line: e.line,
            offset: e.offset,
        }),
        loaded,
        time: v.get("timestamp").and_then(Value::as_str).map(str::to_string),
        session_id: session_id.map(str::to_string),
        id: e.id.clone(),
        parent: e.parent.clone(),
        kind: ty.to_string(),
        bytes: Some(e.raw.len() as u64),
        ..Record::default()
    };
    r.ms = r.time.as_deref().and_then(parse_ms);
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "message" => message(&mut r, v.get("message").unwrap_or(&Value::Null)),
        "compaction" => {
            r.speaker = Some("compaction summary".into());
            r.role = Some("user".into());
            r.flags.compact_summary = Some(true);
            r.parts = vec![Part::Text(text("summary"))];
        }
        // A summary of an abandoned branch, sent in its place: a summary, as a compaction's is.
        "branch_summary" => {
            r.speaker = Some("branch summary".into());
            r.role = Some("user".into());
            r.flags.compact_summary = Some(true);
            r.parts = vec![Part::Text(text("summary"))];
        }
        // An extension's message, sent as the user's.
        "custom_message" => {
            r.speaker = Some("user".into());
            r.role = Some("user".into());
            r.parts = content_parts(v.get("content"));
        }
        _ => r.flags.compact_summary = None,
    }
    r
}

fn message(r: &mut Record, m: &Value) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    r.role = Some(role.to_string());
    r.model = m.get("model").and_then(Value::as_str).map(str::to_string);
    r.flags = Flags {
        compact_summary: Some(role == "compactionSummary"),
        ..Flags::default()
    };
    match role {
        "toolResult" => {
            r.speaker = Some("tool".into());
            r.parts = vec![Part::Outcome(Outcome {
                call_id: m.get("toolCallId").and_then(Value::as_str).map(str::to_string),
                is_error: m.get("isError").and_then(Value::as_bool),
                output: m.get("content").cloned(),
            })];
        }
        "bashExecution" => {
            r.speaker = Some("user (bash)".into());
            r.parts = vec![Part::Text(bash_text(m))];
        }
        "compactionSummary" | "branchSummary" => {
            r.speaker = Some(
                if role == "compactionSummary" {
                    "compaction summary"
                } else {
                    "branch summary"
                }
                .into(),
            );
            r.parts = vec![Part::Text(
                m.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
            )];
        }
        _ => {
            r.speaker = Some(role.to_string());
            r.parts = content_parts(m.get("content"));
        }
    }
    if let Some(u) = m.get("usage") {
        let n = |k: &str| u.get(k).and_then(Value::as_i64);
        r.usage = Usage {
            input: n("input"),
            output: n("output"),
            cache_read: n("cacheRead"),
            cache_creation: n("cacheWrite"),
        };
    }
}

/// A message's content as parts: a string is one text; blocks each by their `type`.
fn content_parts(content: Option<&Value>) -> Vec<Part> {
    match content {
        Some(Value::String(t)) => vec![Part::Text(t.clone())],
        Some(Value::Array(blocks)) => blocks.iter().map(block).collect(),
        _ => Vec::new(),
    }
}

fn block(b: &Value) -> Part {
    let s = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
    match b.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => Part::Text(s("text").unwrap_or_default()),
        "thinking" if b.get("redacted").and_then(Value::as_bool) == Some(true) => Part::Redacted,
        "thinking" => Part::Reasoning {
            text: s("thinking").unwrap_or_default(),
            summary: false,
        },
        "toolCall" => Part::Call(Call {
            id: s("id"),
            name: s("name"),
            kind: "toolCall".into(),
            input: b.get("arguments").cloned(),
        }),
        "image" => Part::Image(Image {
            media_type: s("mimeType").unwrap_or_default(),
            data: s("data").unwrap_or_default(),
        }),
        other => Part::Other {
            kind: other.to_string(),
            value: Some(b.clone()),
        },
    }
}
