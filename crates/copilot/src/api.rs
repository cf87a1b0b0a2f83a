//! `rebuild-chain --api-view` of a Copilot CLI session: the chat/completions `messages` the
//! client (1.0.102) sends after a resume, after its system prompt. Each rule is named in
//! `docs/copilot.md#the-request-after-a-resume` with its evidence.
//!
//! - GH1: the system prompt is the resuming client's own; it is not in the view.
//! - GH2: after a compaction, one user message: the earlier prompts as typed, then the summary,
//!   in the client's wrapper (`WRAPPER_*`); nothing else before the compaction is sent.
//! - GH3: a prompt is sent as `transformedContent` (its `<current_datetime>` prefix and
//!   reminders), else as typed.
//! - GH4: a reply is an assistant message; with calls, `content` is null unless it has text,
//!   and each call is a `function` whose `arguments` are the call's arguments as JSON text.
//! - GH5: a result is a `tool` message with the result's `content` (a failure's error message),
//!   and `__copilotMessageSource` naming the tool and the call's `intentionSummary`.
//! - GH6: a call with no result gets the synthetic result [`crate::INTERRUPTED`].

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::file::{Event, Session};
use crate::model::resume_start;

/// The client version whose request is emulated.
pub const CLIENT: &str = "@github/copilot 1.0.102";

const WRAPPER_HEAD: &str = "Some of the conversation history has been summarized to free up context.\n\nYou were originally given instructions from a user over one or more turns. Here were the user messages:\n";
const WRAPPER_SUMMARY: &str = "\nHere is a summary of the prior context:\n<summary>\n";

/// The messages sent after a resume of `s` (the system prompt left out, GH1), then `prompt`.
pub fn messages(s: &Session, prompt: Option<&str>) -> Vec<Value> {
    let start = resume_start(s);
    let mut out = Vec::new();
    let from = match s.events.get(start).filter(|e| e.is_compaction()) {
        Some(c) => {
            out.push(wrapper(&s.events[..start], c));
            start + 1
        }
        None => 0,
    };
    let events = &s.events[from.min(s.events.len())..];
    let answered: HashSet<&str> = events
        .iter()
        .filter(|e| e.ty == "tool.execution_complete")
        .filter_map(|e| e.s("toolCallId"))
        .collect();
    let mut open: Vec<(String, String, String)> = Vec::new();
    for e in events {
        match e.ty.as_str() {
            "user.message" => {
                close(&mut open, &mut out);
                let text = e.s("transformedContent").or_else(|| e.s("content")).unwrap_or("");
                out.push(json!({"role": "user", "content": text}));
            }
            "assistant.message" => {
                close(&mut open, &mut out);
                out.push(assistant(e, &answered, &mut open));
            }
            "tool.execution_complete" => out.push(tool(e, events)),
            _ => {}
        }
    }
    close(&mut open, &mut out);
    if let Some(p) = prompt {
        out.push(json!({"role": "user", "content": p}));
    }
    out
}

/// GH2: the earlier prompts and the summary of compaction `c`, in the client's words.
fn wrapper(before: &[Event], c: &Event) -> Value {
    let mut text = String::from(WRAPPER_HEAD);
    for e in before.iter().filter(|e| e.ty == "user.message") {
        text.push_str("<user_message>\n");
        text.push_str(e.s("content").unwrap_or(""));
        text.push_str("\n</user_message>\n");
    }
    text.push_str(WRAPPER_SUMMARY);
    text.push_str(c.s("summaryContent").unwrap_or(""));
    text.push_str("\n</summary>\n");
    json!({"role": "user", "content": text})
}

/// GH4; the calls no result answers are kept in `open` for GH6.
fn assistant(e: &Event, answered: &HashSet<&str>, open: &mut Vec<(String, String, String)>) -> Value {
    let reqs: Vec<&Value> = e
        .data
        .get("toolRequests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let text = e.s("content").unwrap_or("");
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    if reqs.is_empty() {
        m.insert("content".into(), json!(text));
        return Value::Object(m);
    }
    m.insert(
        "content".into(),
        if text.is_empty() { Value::Null } else { json!(text) },
    );
    let calls: Vec<Value> = reqs
        .iter()
        .map(|r| {
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let args = r.get("arguments").map_or_else(|| "{}".to_string(), |a| a.to_string());
            if !answered.contains(s("toolCallId").as_str()) {
                open.push((s("toolCallId"), s("name"), s("intentionSummary")));
            }
            json!({"id": s("toolCallId"), "type": "function", "function": {"name": s("name"), "arguments": args}})
        })
        .collect();
    m.insert("tool_calls".into(), Value::Array(calls));
    Value::Object(m)
}

/// GH5: the result of one call, named by the call it answers (found among `events`).
fn tool(e: &Event, events: &[Event]) -> Value {
    let id = e.s("toolCallId").unwrap_or("");
    let content = match (e.data.get("result"), e.data.get("error")) {
        (Some(r), _) if !r.is_null() => r.get("content").cloned().unwrap_or(Value::Null),
        (_, Some(err)) if !err.is_null() => err.get("message").cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    };
    let call = events
        .iter()
        .filter(|c| c.ty == "assistant.message")
        .filter_map(|c| c.data.get("toolRequests")?.as_array())
        .flatten()
        .find(|r| r.get("toolCallId").and_then(Value::as_str) == Some(id));
    let of = |k: &str| call.and_then(|c| c.get(k)).cloned().unwrap_or(Value::Null);
    json!({
        "role": "tool",
        "tool_call_id": id,
        "content": content,
        "__copilotMessageSource": {"kind": "tool", "name": of("name"), "summary": of("intentionSummary")},
    })
}

/// GH6: the synthetic results of the calls left open, before the next message.
fn close(open: &mut Vec<(String, String, String)>, out: &mut Vec<Value>) {
    for (id, name, summary) in open.drain(..) {
        out.push(json!({
            "role": "tool",
            "tool_call_id": id,
            "content": crate::INTERRUPTED,
            "__copilotMessageSource": {"kind": "tool", "name": name, "summary": summary},
        }));
    }
}

/// The rules the view followed and how often, for the closing record: counted on the
/// messages it made (`prompt`: the last is the new prompt, no rule's).
pub fn rules(msgs: &[Value], prompt: bool) -> Vec<Value> {
    let made = &msgs[..msgs.len() - usize::from(prompt)];
    let role = |m: &Value, r: &str| m["role"] == r;
    let wrapped = made
        .first()
        .is_some_and(|m| m["content"].as_str().is_some_and(|t| t.starts_with(WRAPPER_HEAD)));
    let synthetic = made
        .iter()
        .filter(|m| role(m, "tool") && m["content"] == crate::INTERRUPTED)
        .count();
    let counts = [
        ("GH1", 1),
        ("GH2", usize::from(wrapped)),
        (
            "GH3",
            made.iter().filter(|m| role(m, "user")).count() - usize::from(wrapped),
        ),
        ("GH4", made.iter().filter(|m| role(m, "assistant")).count()),
        ("GH5", made.iter().filter(|m| role(m, "tool")).count() - synthetic),
        ("GH6", synthetic),
    ];
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| json!({"rule": r, "count": n}))
        .collect()
}
