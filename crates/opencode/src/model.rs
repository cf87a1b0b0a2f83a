//! opencode's messages as the session model's records and marks, and which of them a resume
//! loads.
//!
//! A message holds typed parts: `text`, `reasoning`, `tool` (a call with its `state`: the
//! input, and the output or error once it ran), `file`, `step-start` and `step-finish` (the
//! tokens of one model step), `compaction`, and others the client uses for its own
//! bookkeeping (`snapshot`, `patch`, `agent`, `subtask`, `retry`). A compaction is a user
//! message holding a `compaction` part, answered by an assistant message with `summary: true`
//! whose text is the summary, then (an automatic one) a synthetic user message that asks the
//! model to continue.

use serde_json::Value;

use crate::file::{Message, Session};
use cctool_core::model::events::{self, Call, Compaction, Flags, Measured, Outcome, Part, Record, Usage};
use cctool_core::model::time::format_ms;

/// The text a resume sends for a user message's `compaction` part (`toModelMessages`).
pub const COMPACTION_PROMPT: &str = "What did we do so far?";

/// Where what a resume loads starts (`filterCompacted`): walking back from the newest message,
/// the first user message that asks for a compaction and whose summary was finished without
/// an error; the first message when there is none. An unanswered or failed compaction is not
/// where a resume starts.
pub fn resume_start(s: &Session) -> usize {
    let mut answered: Vec<&str> = Vec::new();
    for (i, m) in s.messages.iter().enumerate().rev() {
        if m.asks_compaction() && m.id().is_some_and(|id| answered.contains(&id)) {
            return i;
        }
        if m.is_finished_summary()
            && let Some(p) = m.parent()
        {
            answered.push(p);
        }
    }
    0
}

/// The index of the compaction a resume starts from, when there is one.
pub fn current_compaction(s: &Session) -> Option<usize> {
    let start = resume_start(s);
    s.messages.get(start).filter(|m| m.asks_compaction()).map(|_| start)
}

/// The summary message that answers the compaction asked by message `i`.
pub fn summary_of(s: &Session, i: usize) -> Option<&Message> {
    let id = s.messages[i].id()?;
    s.messages[i + 1..]
        .iter()
        .find(|m| m.is_summary() && m.parent() == Some(id))
}

/// The text of a message's text parts, joined.
pub fn text_of(m: &Message) -> String {
    m.parts
        .iter()
        .filter(|p| p.ty() == "text")
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the compaction asked by message `i` records of itself, as the mark of the session
/// model: whether it was automatic, the tokens of the step before it, and its summary.
pub fn compaction(s: &Session, i: usize) -> Compaction {
    let m = &s.messages[i];
    let auto = m
        .parts
        .iter()
        .find(|p| p.ty() == "compaction")
        .and_then(|p| p.get("auto"))
        .and_then(Value::as_bool);
    Compaction {
        time: m.created_ms().map(format_ms),
        measured: Some(Measured {
            trigger: auto.map(|a| if a { "auto" } else { "manual" }.to_string()),
            pre_tokens: pre_tokens(s, i),
        }),
        summary: summary_of(s, i).map(text_of),
        ..Compaction::default()
    }
}

/// The tokens of the last model step before message `i` (what overflowed, for an automatic
/// compaction).
pub fn pre_tokens(s: &Session, i: usize) -> Option<Value> {
    s.messages[..i]
        .iter()
        .rev()
        .find(|m| m.role() == "assistant")
        .and_then(|m| {
            m.info()
                .pointer("/tokens/total")
                .or_else(|| m.info().pointer("/tokens/input"))
        })
        .cloned()
}

/// The session model's record of message `m`, read as `v` (the ask's reading of its line);
/// `loaded` says whether a resume loads it.
pub fn record(m: &Message, v: &Value, loaded: bool, session_id: Option<&str>) -> Record {
    let info = v.get("info").unwrap_or(&Value::Null);
    let s = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_string);
    let role = s("role").unwrap_or_default();
    let mut r = Record {
        loaded,
        ms: m.created_ms(),
        time: m.created_ms().map(format_ms),
        session_id: session_id.map(str::to_string),
        model: s("modelID").or_else(|| {
            info.pointer("/model/modelID")
                .and_then(Value::as_str)
                .map(str::to_string)
        }),
        id: s("id"),
        parent: s("parentID"),
        kind: role.clone(),
        role: Some(role.clone()),
        speaker: Some(role.clone()),
        bytes: Some(m.raw.len() as u64),
        ..Record::default()
    };
    r.flags = Flags {
        compact_summary: Some(m.is_summary()),
        ..Flags::default()
    };
    if m.is_summary() {
        r.speaker = Some("compaction summary".into());
    } else if m.asks_compaction() {
        r.speaker = Some("compaction".into());
    }
    if let Some(t) = info.get("tokens") {
        let n = |p: &str| t.pointer(p).and_then(Value::as_i64);
        r.usage = Usage {
            input: n("/input"),
            output: n("/output"),
            cache_read: n("/cache/read"),
            cache_creation: n("/cache/write"),
        };
    }
    for p in v.get("parts").and_then(Value::as_array).into_iter().flatten() {
        part(p, &mut r.parts);
    }
    r
}

/// The session model's parts of one opencode part.
fn part(p: &Value, out: &mut Vec<Part>) {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let text = || p.get("text").and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "text" => out.push(Part::Text(text())),
        "reasoning" => out.push(Part::Reasoning {
            text: text(),
            summary: false,
        }),
        "tool" => {
            let state = p.get("state").unwrap_or(&Value::Null);
            let call_id = p.get("callID").and_then(Value::as_str).map(str::to_string);
            out.push(Part::Call(Call {
                id: call_id.clone(),
                name: p.get("tool").and_then(Value::as_str).map(str::to_string),
                kind: "tool".into(),
                input: state.get("input").cloned(),
            }));
            // A call still pending or running has no result yet.
            match state.get("status").and_then(Value::as_str) {
                Some("completed") => out.push(Part::Outcome(Outcome {
                    call_id,
                    is_error: Some(false),
                    output: state.get("output").cloned(),
                })),
                Some("error") => out.push(Part::Outcome(Outcome {
                    call_id,
                    is_error: Some(true),
                    output: state.get("error").cloned(),
                })),
                _ => {}
            }
        }
        // A resume sends it as the user's text `COMPACTION_PROMPT`, which the record does not
        // hold: kept as its part, so that every text of a record is its own (search reads
        // a record's bytes first).
        "compaction" => out.push(Part::Other {
            kind: ty.to_string(),
            value: Some(p.clone()),
        }),
        "file" => out.push(Part::Attachment(p.clone())),
        // The bounds of a model step: its tokens are the message's, read above.
        "step-start" | "step-finish" => {}
        _ => out.push(Part::Other {
            kind: ty.to_string(),
            value: None,
        }),
    }
}

/// The marks a view puts before message `i` of `s`: a compaction, the start of the history
/// before it, or where what a resume loads starts.
pub fn marks_before(s: &Session, i: usize, view: events::View, start: usize) -> Vec<events::Mark> {
    use events::Mark;
    let mut out = Vec::new();
    if view == events::View::History {
        if i == 0 && start > 0 {
            out.push(Mark::Earlier);
        }
        if s.messages[i].asks_compaction() {
            out.push(Mark::Compaction(compaction(s, i)));
        }
        if i == start && start > 0 {
            out.push(Mark::Loaded);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(info: Value, parts: Value) -> Message {
        let raw = serde_json::to_vec(&json!({"info": info, "parts": parts})).unwrap();
        let parts = parts
            .as_array()
            .into_iter()
            .flatten()
            .cloned()
            .map(crate::file::Part::from_value);
        Message::new(info, parts.collect(), raw)
    }

    fn session(ms: Vec<Message>) -> Session {
        Session {
            messages: ms,
            ..Session::default()
        }
    }

    #[test]
    fn a_resume_starts_at_the_last_answered_compaction() {
        let user = |id: &str, compaction: bool| {
            let parts = if compaction {
                json!([{"type": "compaction", "auto": true}])
            } else {
                json!([{"type": "text", "text": id}])
            };
            msg(json!({"id": id, "role": "user"}), parts)
        };
        let summary = |parent: &str, finish: Value| {
            msg(
                json!({"id": format!("s-{parent}"), "role": "assistant", "summary": true, "parentID": parent, "finish": finish}),
                json!([{"type": "text", "text": "sum"}]),
            )
        };
        let s = session(vec![
            user("a", false),
            user("b", true),
            summary("b", json!("stop")),
            user("c", false),
            user("d", true),
            // Unfinished: the client does not start there.
            summary("d", Value::Null),
        ]);
        assert_eq!(resume_start(&s), 1);
        assert_eq!(current_compaction(&s), Some(1));
        assert_eq!(session(vec![user("a", false), user("b", true)]).messages.len(), 2);
        assert_eq!(resume_start(&session(vec![user("a", false), user("b", true)])), 0);
    }

    #[test]
    fn a_tool_part_is_a_call_and_its_result_when_it_ran() {
        let m = msg(
            json!({"id": "m", "role": "assistant", "tokens": {"input": 5, "output": 1, "cache": {"read": 2, "write": 0}}}),
            json!([{"type": "tool", "tool": "bash", "callID": "c1", "state": {"status": "completed", "input": {"command": "ls"}, "output": "x"}},
                   {"type": "tool", "tool": "bash", "callID": "c2", "state": {"status": "running", "input": {}}},
                   {"type": "step-finish"}]),
        );
        let r = record(&m, &serde_json::from_slice(&m.raw).unwrap(), true, Some("ses"));
        assert_eq!(r.calls().count(), 2);
        assert_eq!(r.outcomes().count(), 1);
        assert_eq!(r.usage.cache_read, Some(2));
    }
}
