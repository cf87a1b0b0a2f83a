//! Copilot CLI's events as the session model's records and marks: who speaks in each, what it
//! holds, and which of them a resume loads.
//!
//! A turn is written as several events: `assistant.message` holds the model's text, its
//! reasoning and its calls (`toolRequests`); `tool.execution_complete` the result of one call.
//! `tool.execution_start` repeats the call the message already holds, so it is bookkeeping
//! like the hooks and turn markers. A resume loads the conversation from the last finished
//! compaction on (its summary first), else from the start.

use serde_json::Value;

use crate::file::{Event, Session};
use cctool_core::model::events::{self, At, Call, Compaction, Flags, Measured, Outcome, Part, Record, Usage};
use cctool_core::model::time::parse_ms;

/// The event types that carry the conversation: what a resume loads (from the last
/// compaction on) and `rebuild-chain` prints. The system prompt is not among them: a resume
/// sends the system prompt of the client that resumes, not the one written.
pub fn conversational(ty: &str) -> bool {
    matches!(
        ty,
        "user.message" | "assistant.message" | "tool.execution_complete" | "session.compaction_complete"
    )
}

/// Where the conversation a resume loads starts: the last finished compaction, else the first
/// event.
pub fn resume_start(s: &Session) -> usize {
    s.last_compaction().unwrap_or(0)
}

/// GH11: the `session.compaction_start` of the compaction at `end` (`ty` gives an event's
/// type by its index): the last one before it that no other compaction's end follows. Without
/// one (a file that holds only the end), the compaction is taken to have held up the agent.
pub fn compaction_started<'a>(end: usize, ty: impl Fn(usize) -> &'a str) -> Option<usize> {
    (0..end)
        .rev()
        .map(|i| (i, ty(i)))
        .find(|(_, t)| *t == "session.compaction_start" || *t == "session.compaction_complete")
        .filter(|(_, t)| *t == "session.compaction_start")
        .map(|(i, _)| i)
}

/// The indexes of the events a resume loads, in the order it loads them, of a session of `len`
/// events whose last finished compaction is `compaction`: that compaction (its summary first),
/// then what was written after it began (GH11: a compaction that ran in the background while
/// the agent went on keeps what the agent wrote meanwhile), then what followed its end.
pub fn resume_order<'a>(len: usize, compaction: Option<usize>, ty: impl Fn(usize) -> &'a str) -> Vec<usize> {
    match compaction {
        None => (0..len).collect(),
        Some(c) => match compaction_started(c, ty) {
            Some(began) => std::iter::once(c).chain(began + 1..c).chain(c + 1..len).collect(),
            None => (c..len).collect(),
        },
    }
}

/// [`resume_order`] of a session read whole.
pub fn loaded_order(s: &Session) -> Vec<usize> {
    resume_order(s.events.len(), s.last_compaction(), |i| s.events[i].ty.as_str())
}

/// The session model's record of `e`, read as `v` (the ask's reading of its line); `loaded`
/// says whether a resume loads it.
pub fn record(e: &Event, v: &Value, loaded: bool) -> Record {
    let data = v.get("data").unwrap_or(&Value::Null);
    let text = |k: &str| data.get(k).and_then(Value::as_str);
    let mut r = Record {
        at: Some(At {
            line: e.line,
            offset: e.offset,
        }),
        loaded,
        time: e.time.clone(),
        ms: e.time.as_deref().and_then(parse_ms),
        id: e.id.clone(),
        parent: e.parent.clone(),
        kind: e.ty.clone(),
        bytes: Some(e.raw.len() as u64),
        ..Record::default()
    };
    match e.ty.as_str() {
        "user.message" => {
            speaks(&mut r, "user");
            r.parts.push(Part::Text(text("content").unwrap_or("").to_string()));
        }
        "assistant.message" => {
            speaks(&mut r, "assistant");
            r.model = text("model").map(str::to_string);
            if let Some(t) = text("reasoningText").filter(|t| !t.is_empty()) {
                r.parts.push(Part::Reasoning {
                    text: t.to_string(),
                    summary: false,
                });
            } else if data.get("reasoningOpaque").is_some_and(|o| !o.is_null()) {
                r.parts.push(Part::Redacted);
            }
            if let Some(t) = text("content").filter(|t| !t.is_empty()) {
                r.parts.push(Part::Text(t.to_string()));
            }
            for req in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
                r.parts.push(Part::Call(call(req)));
            }
            r.usage = Usage {
                output: data.get("outputTokens").and_then(Value::as_i64),
                ..Usage::default()
            };
        }
        "tool.execution_complete" => {
            speaks(&mut r, "tool");
            r.parts.push(Part::Outcome(outcome(data)));
        }
        "system.message" => {
            speaks(&mut r, "system");
            r.parts.push(Part::Text(text("content").unwrap_or("").to_string()));
        }
        "system.notification" => {
            r.speaker = Some("system/notification".into());
            r.parts.push(Part::Notice(text("content").unwrap_or("").to_string()));
        }
        "session.compaction_complete" => {
            speaks(&mut r, "user");
            r.flags.compact_summary = Some(true);
            r.parts
                .push(Part::Text(text("summaryContent").unwrap_or("").to_string()));
        }
        "session.start" | "session.resume" => {
            r.session_id = text("sessionId").map(str::to_string);
            r.client_version = text("copilotVersion").map(str::to_string);
        }
        // Bookkeeping (turn markers, hooks, usage, model changes) and types cctool does not
        // read yet: kept as records no transcript shows.
        _ => {}
    }
    r
}

fn speaks(r: &mut Record, role: &str) {
    r.role = Some(role.into());
    r.speaker = Some(role.into());
    r.flags = Flags {
        compact_summary: Some(false),
        ..Flags::default()
    };
}

/// A call of `toolRequests`.
fn call(req: &Value) -> Call {
    let s = |k: &str| req.get(k).and_then(Value::as_str).map(str::to_string);
    Call {
        id: s("toolCallId"),
        name: s("name"),
        kind: "toolRequest".into(),
        input: req.get("arguments").cloned(),
    }
}

/// What `tool.execution_complete` records of a call's end: the result's `content` (else the
/// whole result), or the error's `message` when it failed.
fn outcome(data: &Value) -> Outcome {
    let failed = data.get("success").and_then(Value::as_bool).map(|ok| !ok);
    let output = match (data.get("result"), data.get("error")) {
        (Some(r), _) if !r.is_null() => Some(r.get("content").cloned().unwrap_or_else(|| r.clone())),
        (_, Some(e)) if !e.is_null() => Some(e.get("message").cloned().unwrap_or_else(|| e.clone())),
        _ => None,
    };
    Outcome {
        call_id: data.get("toolCallId").and_then(Value::as_str).map(str::to_string),
        is_error: failed,
        output,
    }
}

/// What a finished compaction recorded of itself, as the mark of the session model.
pub fn compaction(e: &Event) -> Compaction {
    Compaction {
        time: e.time.clone(),
        measured: Some(Measured {
            trigger: e.s("trigger").map(str::to_string),
            pre_tokens: e.data.get("preCompactionTokens").cloned(),
        }),
        summary: e.s("summaryContent").map(str::to_string),
        ..Compaction::default()
    }
}

/// The marks a view puts before event `i` of `s`: a compaction, the start of the history
/// before it, or where what a resume loads starts.
pub fn marks_before(s: &Session, i: usize, view: events::View, start: usize) -> Vec<events::Mark> {
    use events::Mark;
    let e = &s.events[i];
    let mut out = Vec::new();
    if view == events::View::History {
        if i == 0 && start > 0 {
            out.push(Mark::Earlier);
        }
        if e.is_compaction() {
            out.push(Mark::Compaction(compaction(e)));
        }
        if i == start && start > 0 {
            out.push(Mark::Loaded);
        }
    } else if view == events::View::Loaded && i == start && e.is_compaction() {
        out.push(Mark::ResumedFrom(e.line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::View;
    use serde_json::json;

    fn event(line: u64, ty: &str, data: Value) -> Event {
        let raw = serde_json::to_vec(&json!({"type": ty, "data": data, "id": format!("e{line}")})).unwrap();
        Event {
            line,
            offset: 0,
            raw,
            ty: ty.into(),
            id: Some(format!("e{line}")),
            parent: None,
            time: None,
            data,
        }
    }

    #[test]
    fn a_reply_holds_its_reasoning_text_and_calls_and_a_result_its_output_or_error() {
        let e = event(
            1,
            "assistant.message",
            json!({"content": "ok", "reasoningText": "think", "toolRequests": [{"toolCallId": "c1", "name": "bash", "arguments": {"command": "ls"}}]}),
        );
        let r = record(&e, &serde_json::from_slice(&e.raw).unwrap(), true);
        assert_eq!(r.role.as_deref(), Some("assistant"));
        assert_eq!(r.parts.len(), 3);
        assert_eq!(r.calls().next().unwrap().id.as_deref(), Some("c1"));
        let failed = event(
            2,
            "tool.execution_complete",
            json!({"toolCallId": "c1", "success": false, "error": {"message": "boom"}}),
        );
        let r = record(&failed, &serde_json::from_slice(&failed.raw).unwrap(), true);
        let o = r.outcomes().next().unwrap();
        assert_eq!((o.is_error, o.output.clone()), (Some(true), Some(json!("boom"))));
    }

    #[test]
    fn a_resume_starts_at_the_last_finished_compaction() {
        let s = Session {
            events: vec![
                event(1, "user.message", json!({"content": "a"})),
                event(2, "session.compaction_complete", json!({"summaryContent": "s1"})),
                event(3, "user.message", json!({"content": "b"})),
                event(4, "session.compaction_complete", json!({"success": false})),
                event(5, "user.message", json!({"content": "c"})),
            ],
            ..Session::default()
        };
        assert_eq!(resume_start(&s), 1);
        assert_eq!(marks_before(&s, 1, View::Loaded, 1), vec![events::Mark::ResumedFrom(2)]);
        let history: Vec<_> = (0..5).flat_map(|i| marks_before(&s, i, View::History, 1)).collect();
        assert!(matches!(history[0], events::Mark::Earlier));
        assert!(matches!(history[1], events::Mark::Compaction(_)));
        assert!(matches!(history[2], events::Mark::Loaded));
        assert_eq!(history.len(), 3);
    }
}
