//! `rebuild-chain --api-view` of a Copilot CLI session: the chat/completions `messages` the
//! client (1.0.102) sends after a resume, after its system prompt. Each rule is named in
//! `docs/copilot.md#the-request-after-a-resume` with its evidence.
//!
//! - GH1: the system prompt is the resuming client's own; it is not in the view.
//! - GH2: after a compaction, one user message: the earlier prompts as typed, then the summary,
//!   in the client's wrapper (`WRAPPER_*`); nothing else before the compaction is sent.
//! - GH3: a prompt is sent as `transformedContent` (its `<current_datetime>` prefix and
//!   reminders), else as typed.
//! - GH4: a reply is an assistant message, its `content` null when it has no text; each call
//!   is a `function` whose `arguments` are the call's arguments as JSON text.
//! - GH5: a result is a `tool` message with the result's `content` (a failure's error message),
//!   and `__copilotMessageSource` naming the tool and the call's `intentionSummary` (no
//!   `summary` when the call has none).
//! - GH6: a call of the last message that has no result gets the synthetic result
//!   [`crate::INTERRUPTED`], with its `__copilotMessageSource`.
//! - GH7: a call left without a result before a later message gets the shorter
//!   [`crate::INTERRUPTED_BEFORE`], with no `__copilotMessageSource`.
//! - GH8: a reply's results follow it in the order of its calls, whatever order they finished
//!   in.
//! - GH9: a `system.notification` is a user message with its `content`, where it was written.
//! - GH10: a sub-agent's events (its prompt, `source: agent-…`; replies and results with a
//!   `parentToolCallId`) are not sent; the result of the `task` call that started it names
//!   `{kind: subagent, name: <agent_type>}` as its source.

use std::collections::{HashMap, HashSet};

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
    let mut results: HashMap<&str, &Event> = HashMap::new();
    for e in events.iter().filter(|e| e.ty == "tool.execution_complete") {
        if let Some(id) = e.s("toolCallId") {
            results.entry(id).or_insert(e);
        }
    }
    let called: HashSet<&str> = events
        .iter()
        .flat_map(requests)
        .filter_map(|r| text(r, "toolCallId"))
        .collect();
    let last = events.iter().rposition(|e| {
        !of_subagent(e)
            && matches!(
                e.ty.as_str(),
                "user.message" | "assistant.message" | "system.notification"
            )
    });
    for (i, e) in events.iter().enumerate() {
        if of_subagent(e) {
            continue;
        }
        match e.ty.as_str() {
            // GH9: a notice the client gave the model (a background shell or agent finished).
            "system.notification" => {
                out.push(json!({"role": "user", "content": e.s("content").unwrap_or("")}));
            }
            "user.message" => {
                let text = e.s("transformedContent").or_else(|| e.s("content")).unwrap_or("");
                out.push(json!({"role": "user", "content": text}));
            }
            "assistant.message" => {
                out.push(assistant(e));
                // GH8: the results follow the reply in the order of its calls.
                for r in requests(e) {
                    let id = text(r, "toolCallId").unwrap_or("");
                    out.push(match results.get(id) {
                        Some(res) => tool(res, Some(r)),
                        None => interrupted(id, r, Some(i) == last),
                    });
                }
            }
            // A result whose call is not in what is sent stays where it was written.
            "tool.execution_complete" if !e.s("toolCallId").is_some_and(|id| called.contains(id)) => {
                out.push(tool(e, None));
            }
            _ => {}
        }
    }
    if let Some(p) = prompt {
        out.push(json!({"role": "user", "content": p}));
    }
    out
}

/// GH10: whether `e` is a sub-agent's (its prompt, `source: agent-…`; its replies and
/// results, which name the call that started it in `parentToolCallId`): the sub-agent's own
/// conversation, not sent in the main one.
fn of_subagent(e: &Event) -> bool {
    e.s("parentToolCallId").is_some() || e.s("source").is_some_and(|s| s.starts_with("agent-"))
}

/// The calls of a reply (none for any other event).
fn requests(e: &Event) -> impl Iterator<Item = &Value> {
    e.data
        .get("toolRequests")
        .filter(|_| e.ty == "assistant.message")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn text<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// GH2: the earlier prompts and the summary of compaction `c`, in the client's words.
fn wrapper(before: &[Event], c: &Event) -> Value {
    let mut text = String::from(WRAPPER_HEAD);
    // Only what the user typed: not the client's own (`source: system`) nor a sub-agent's.
    let typed = |e: &&Event| e.ty == "user.message" && e.s("source").is_none_or(|s| s == "user");
    for e in before.iter().filter(typed) {
        text.push_str("<user_message>\n");
        text.push_str(e.s("content").unwrap_or(""));
        text.push_str("\n</user_message>\n");
    }
    text.push_str(WRAPPER_SUMMARY);
    text.push_str(c.s("summaryContent").unwrap_or(""));
    text.push_str("\n</summary>\n");
    json!({"role": "user", "content": text})
}

/// GH5, GH6: what the client says a result came from: the tool's name and, when the call
/// stated one, its `intentionSummary`.
fn source(call: Option<&Value>) -> Value {
    let of = |k: &str| call.and_then(|c| c.get(k));
    let mut m = Map::new();
    // A `task` call started a sub-agent: the source is the agent, named by its type.
    let agent = of("name")
        .filter(|n| *n == "task")
        .and_then(|_| of("arguments")?.get("agent_type"))
        .filter(|t| t.is_string());
    match agent {
        Some(t) => {
            m.insert("kind".into(), json!("subagent"));
            m.insert("name".into(), t.clone());
        }
        None => {
            m.insert("kind".into(), json!("tool"));
            m.insert("name".into(), of("name").cloned().unwrap_or(Value::Null));
        }
    }
    if let Some(s) = of("intentionSummary").filter(|s| !s.is_null()) {
        m.insert("summary".into(), s.clone());
    }
    Value::Object(m)
}

/// GH4: a reply, its text null when it has none.
fn assistant(e: &Event) -> Value {
    let text = e.s("content").unwrap_or("");
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    m.insert(
        "content".into(),
        if text.is_empty() { Value::Null } else { json!(text) },
    );
    let calls: Vec<Value> = requests(e)
        .map(|r| {
            let args = r.get("arguments").map_or_else(|| "{}".to_string(), Value::to_string);
            json!({"id": text_of(r, "toolCallId"), "type": "function", "function": {"name": text_of(r, "name"), "arguments": args}})
        })
        .collect();
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(m)
}

fn text_of(v: &Value, k: &str) -> String {
    text(v, k).unwrap_or("").to_string()
}

/// GH5: the result `e` of the call `call` (when it is among what is sent).
fn tool(e: &Event, call: Option<&Value>) -> Value {
    let content = match (e.data.get("result"), e.data.get("error")) {
        (Some(r), _) if !r.is_null() => r.get("content").cloned().unwrap_or(Value::Null),
        (_, Some(err)) if !err.is_null() => err.get("message").cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    };
    json!({
        "role": "tool",
        "tool_call_id": e.s("toolCallId").unwrap_or(""),
        "content": content,
        "__copilotMessageSource": source(call),
    })
}

/// The synthetic result of call `call` (id `id`), which has none: GH6 when its reply is the
/// history's last message (`last`), GH7 before a later one.
fn interrupted(id: &str, call: &Value, last: bool) -> Value {
    if last {
        json!({"role": "tool", "tool_call_id": id, "content": crate::INTERRUPTED, "__copilotMessageSource": source(Some(call))})
    } else {
        json!({"role": "tool", "tool_call_id": id, "content": crate::INTERRUPTED_BEFORE})
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
    let synthetic = |text: &str| made.iter().filter(|m| role(m, "tool") && m["content"] == text).count();
    let (at_end, before) = (synthetic(crate::INTERRUPTED), synthetic(crate::INTERRUPTED_BEFORE));
    let counts = [
        ("GH1", 1),
        ("GH2", usize::from(wrapped)),
        (
            "GH3",
            made.iter().filter(|m| role(m, "user")).count() - usize::from(wrapped),
        ),
        ("GH4", made.iter().filter(|m| role(m, "assistant")).count()),
        ("GH5", made.iter().filter(|m| role(m, "tool")).count() - at_end - before),
        ("GH6", at_end),
        ("GH7", before),
    ];
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| json!({"rule": r, "count": n}))
        .collect()
}
