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
//! - GH11: a compaction that ran in the background while the agent went on: what was written
//!   after its `session.compaction_start` is sent after the summary, as it was written.
//! - GH12: the new prompt of a session left in autopilot mode is prefixed with the client's
//!   autopilot notice ([`AUTOPILOT_MODE`]); that of a session switched back to interactive
//!   after a mode's notice was delivered, with the notice that the mode ended.
//! - GH13: when what is sent holds the client's deferred-tools reminder ([`DEFERRED_TOOLS`]),
//!   a reminder that the current tool definitions are authoritative follows the new prompt.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::file::{Event, Session};
use crate::model::{compaction_started, resume_start};

/// The client version whose request is emulated.
pub const CLIENT: &str = "@github/copilot 1.0.102";

const WRAPPER_HEAD: &str = "Some of the conversation history has been summarized to free up context.\n\nYou were originally given instructions from a user over one or more turns. Here were the user messages:\n";
const WRAPPER_SUMMARY: &str = "\nHere is a summary of the prior context:\n<summary>\n";

/// GH12: how the client opens and closes the notice it puts before the new prompt.
const NOTICE_OPEN: &str = "<mode_changed_notice>\n";
const NOTICE_CLOSE: &str = "\n</mode_changed_notice>\n\n";

/// GH12: the instructions 1.0.102 gives the model in its notice while the session is in
/// autopilot mode, as it sends them: its own text, not the one a session's system message
/// holds (1.0.74 wrote another), and the same for every model it was run with.
const AUTOPILOT_MODE: &str = "<autopilot_mode>\nAutopilot mode is currently active. While in autopilot mode, persist autonomously to complete the user's task to the best of your ability. You should continue executing on the task without waiting for user input using your best judgment. The user may not even be present while autopilot mode is active and is expecting you to make progress on tasks with minimal supervision.\n\nWhile in autopilot mode:\n- **Decide; don't ask** - resolve ambiguity by making reasonable assumptions, stating those assumptions to the user, and continue executing on the task.\n- **Bias to action** - you should work rigorously to fully complete the task. Only call `task_complete` when you have fulfilled all aspects of the user request.\n- **Verify before claiming success** - Before calling `task_complete`, produce evidence the work satisfies the request: run the relevant tests/build/lint, reproduce the original symptom and confirm it's gone, or otherwise check the result.\n- **Finish all current-request work before `task_complete`** - for taskful requests, check and complete open todos belonging to this request; don't discover unrelated work after the request is complete.\n- **Stop only when no actionable task can be identified** - make reasonable assumptions for ordinary ambiguity. If a short read-only check still reveals no concrete safe action, call `task_complete` with an explanation rather than inventing requirements or files.\n- **Conversational requests complete after one brief reply** - when a greeting, thanks, acknowledgement, identity question, or direct answer needs no repository work, reply once; no validation is needed. Then call `task_complete` without inspecting the workspace or task state.\n\nWhen NOT to call `task_complete`:\n - You finished part of a multi-step request and haven't started the rest, or a current-request todo remains open.\n - Tests, build, or lint are failing in code you just changed and you haven't fixed them.\n - You wrote code but never ran or otherwise validated it.\n\nWhen to call `task_complete`:\n- The task is complete and verified.\n- You are genuinely blocked. If you've completed the user's request or have made as much progress as you can while making reasonable assumptions, you can call the `task_complete` tool. When this happens, call `task_complete` with a summary of the work you've done and a brief explanation of why you're blocked. It's better to declare the task complete than to try to invent work or continue looping.\n\n </autopilot_mode>";

/// GH12: 1.0.102's notice that a mode whose notice the model was given has ended.
const AUTOPILOT_ENDED: &str =
    "Autopilot mode is no longer active. Do not follow autopilot-only instructions from earlier in the conversation.";
const PLAN_ENDED: &str =
    "Plan mode is no longer active. Do not follow plan-mode-only instructions from earlier in the conversation.";

/// GH13: how a message the client sent to say tools were deferred begins (1.0.102's text, and
/// 1.0.74's): the client recognises its reminder by this whole opening paragraph, in its
/// `<system_reminder>`; a message holding only part of it, or not at its start, is not one.
const DEFERRED_TOOLS: &str = "<system_reminder>\nIMPORTANT: The tools listed below are deferred — their full definitions are NOT loaded, so you cannot call them directly yet. Whenever a task could be served by any of these tools, you MUST FIRST call the tool search tool. Do not guess a deferred tool's arguments, or signature, and never invoke one before searching for it.";

/// GH13: what 1.0.102 sends after the new prompt when the history told the model that tools
/// were deferred: the tools of the resumed run are sent in full.
const TOOLS_AUTHORITATIVE: &str = "<system_reminder>\nThe current tool definitions are authoritative. Tool search is no longer required for the tools available in this request; this supersedes earlier reminders that those tools were not loaded.\n</system_reminder>";

/// What the client sends after a resume, with what the rules that count themselves did.
pub struct Request {
    /// The messages after the system prompt (GH1), the new prompt last but for GH13's reminder.
    pub messages: Vec<Value>,
    /// GH11: the messages written between the compaction's start and its end.
    pub during_compaction: usize,
    /// GH12: whether the new prompt carries a mode's notice.
    pub mode_notice: bool,
    /// GH13: whether the tools reminder follows the new prompt.
    pub tools_reminder: bool,
}

/// The messages sent after a resume of `s` (the system prompt left out, GH1), then `prompt`.
pub fn messages(s: &Session, prompt: Option<&str>) -> Request {
    let start = resume_start(s);
    let mut out = Vec::new();
    let (from, ended) = match s.events.get(start).filter(|e| e.is_compaction()) {
        Some(c) => {
            out.push(wrapper(&s.events[..start], c));
            match compaction_started(start, |i| s.events[i].ty.as_str()) {
                // GH11: where the compaction ended among what is sent.
                Some(began) => (began + 1, Some(start - began - 1)),
                None => (start + 1, None),
            }
        }
        None => (0, None),
    };
    let mut during_compaction = 0;
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
        if Some(i) == ended {
            // The summary is the first message.
            during_compaction = out.len().saturating_sub(1);
        }
        if of_subagent(e) {
            continue;
        }
        match e.ty.as_str() {
            // GH9: a notice the client gave the model (a background shell or agent finished).
            "system.notification" => {
                out.push(json!({"role": "user", "content": e.s("content").unwrap_or("")}));
            }
            "user.message" => {
                out.push(json!({"role": "user", "content": sent_text(e)}));
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
    let (mut mode_notice, mut tools_reminder) = (false, false);
    if let Some(p) = prompt {
        // Both are the resuming client's additions to its first prompt, not the history's.
        let notice = mode_notice_of(s);
        mode_notice = notice.is_some();
        out.push(json!({"role": "user", "content": format!("{}{p}", notice.unwrap_or_default())}));
        tools_reminder = events
            .iter()
            .any(|e| e.ty == "user.message" && !of_subagent(e) && deferred_tools(sent_text(e)));
        if tools_reminder {
            out.push(json!({"role": "user", "content": TOOLS_AUTHORITATIVE}));
        }
    }
    Request {
        messages: out,
        during_compaction,
        mode_notice,
        tools_reminder,
    }
}

/// GH3: the text a prompt was sent with.
fn sent_text(e: &Event) -> &str {
    e.s("transformedContent").or_else(|| e.s("content")).unwrap_or("")
}

/// GH13: whether `sent` is the client's reminder that tools were deferred.
fn deferred_tools(sent: &str) -> bool {
    sent.starts_with(DEFERRED_TOOLS)
}

/// GH12: the notice the resuming client puts before the new prompt: the session's mode is
/// that of its last `session.mode_changed`; in autopilot the client gives its instructions on
/// every resume (a `session.mode_notice_delivered` of that mode does not spare them); back in
/// interactive mode it says that the mode whose notice it last delivered has ended, and says
/// nothing when none was delivered or the last delivered was interactive's own.
fn mode_notice_of(s: &Session) -> Option<String> {
    let last = |ty: &str, key: &str| s.events.iter().rev().find(|e| e.ty == ty).and_then(|e| e.s(key));
    let body = match last("session.mode_changed", "newMode")? {
        "autopilot" => format!("\n{AUTOPILOT_MODE}\n"),
        "interactive" => match last("session.mode_notice_delivered", "mode")? {
            "autopilot" => AUTOPILOT_ENDED.to_string(),
            "plan" => PLAN_ENDED.to_string(),
            _ => return None,
        },
        // Plan mode's notice names the resuming client's session folder: not emulated.
        _ => return None,
    };
    Some(format!("{NOTICE_OPEN}{body}{NOTICE_CLOSE}"))
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
/// messages it made (`prompt`: the new prompt is no rule's, nor GH13's reminder after it).
pub fn rules(req: &Request, prompt: bool) -> Vec<Value> {
    let msgs = &req.messages;
    let made = &msgs[..msgs.len() - usize::from(prompt) - usize::from(req.tools_reminder)];
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
        ("GH11", req.during_compaction),
        ("GH12", usize::from(req.mode_notice)),
        ("GH13", usize::from(req.tools_reminder)),
    ];
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| json!({"rule": r, "count": n}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(events: &[(&str, Value)]) -> Session {
        let events = events
            .iter()
            .enumerate()
            .map(|(i, (ty, data))| Event {
                line: i as u64 + 1,
                offset: 0,
                raw: Vec::new(),
                ty: (*ty).into(),
                id: Some(format!("e{i}")),
                parent: None,
                time: None,
                data: data.clone(),
            })
            .collect();
        Session {
            events,
            ..Session::default()
        }
    }

    fn contents(req: &Request) -> Vec<&str> {
        req.messages
            .iter()
            .map(|m| m["content"].as_str().unwrap_or(""))
            .collect()
    }

    #[test]
    fn a_compaction_starts_where_no_other_compaction_ended_since() {
        let start = ("session.compaction_start", json!({}));
        let end = ("session.compaction_complete", json!({"summaryContent": "s"}));
        let failed = ("session.compaction_complete", json!({"success": false}));
        let user = |t: &str| ("user.message", json!({"content": t}));
        let s = session(&[start.clone(), end.clone(), user("a"), end.clone(), user("b")]);
        assert_eq!(compaction_started(3, |i| s.events[i].ty.as_str()), None);
        assert_eq!(contents(&messages(&s, None))[1..], ["b"]);
        let s = session(&[start.clone(), failed, user("a"), start, user("b"), end, user("c")]);
        assert_eq!(compaction_started(5, |i| s.events[i].ty.as_str()), Some(3));
        let req = messages(&s, None);
        assert_eq!(contents(&req)[1..], ["b", "c"]);
        assert_eq!(req.during_compaction, 1);
    }

    #[test]
    fn odd_sessions_give_what_they_can_without_panicking() {
        for events in [
            vec![("session.compaction_complete", json!({}))],
            vec![("session.compaction_start", json!({}))],
            vec![
                ("session.compaction_start", json!(null)),
                ("session.compaction_complete", json!([])),
            ],
            vec![
                ("session.mode_changed", json!({"newMode": 3})),
                ("session.mode_notice_delivered", json!(null)),
            ],
        ] {
            let req = messages(&session(&events), Some("p"));
            assert_eq!(req.messages.last().unwrap()["content"], "p");
        }
    }

    #[test]
    fn the_notice_follows_the_mode_left_and_the_notice_delivered() {
        let mode = |m: &str| ("session.mode_changed", json!({"newMode": m}));
        let delivered = |m: &str| ("session.mode_notice_delivered", json!({"mode": m}));
        let notice = |events: &[(&str, Value)]| mode_notice_of(&session(events));
        assert!(
            notice(&[mode("autopilot"), delivered("autopilot")])
                .unwrap()
                .contains(AUTOPILOT_MODE)
        );
        assert_eq!(notice(&[mode("autopilot"), mode("interactive")]), None);
        let ended = notice(&[mode("plan"), delivered("plan"), mode("interactive")]).unwrap();
        assert_eq!(ended, format!("{NOTICE_OPEN}{PLAN_ENDED}{NOTICE_CLOSE}"));
        assert_eq!(
            notice(&[
                mode("autopilot"),
                delivered("autopilot"),
                mode("interactive"),
                delivered("interactive")
            ]),
            None
        );
        // Plan mode's own notice is not emulated, nor a mode the client did not name.
        assert_eq!(notice(&[mode("plan")]), None);
        assert_eq!(notice(&[mode("shell")]), None);
        assert_eq!(notice(&[]), None);
    }

    #[test]
    fn only_the_whole_opening_of_the_deferred_tools_reminder_is_one() {
        assert!(deferred_tools(&format!("{DEFERRED_TOOLS}\n\n- a\n</system_reminder>")));
        assert!(deferred_tools(&format!("{DEFERRED_TOOLS}\n</system_reminder>")));
        let first_sentence = &DEFERRED_TOOLS[..DEFERRED_TOOLS.find(" Whenever").unwrap()];
        assert!(!deferred_tools(&format!("{first_sentence}\n</system_reminder>")));
        assert!(!deferred_tools(&format!("look: {DEFERRED_TOOLS}\n")));
    }
}
