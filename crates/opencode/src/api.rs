//! `rebuild-chain --api-view` of an opencode session: the chat/completions `messages` the
//! client (opencode-ai 1.18.33, through its OpenAI-compatible provider) sends after a resume,
//! after its system prompt. Each rule is named in `docs/opencode.md` with its evidence, the
//! requests the real client sent (`fixtures/opencode/*.sent.json`).
//!
//! - OC1: the system prompt is the resuming client's own (its date, folder and tools); it is
//!   not in the view.
//! - OC2: nothing before the last answered compaction ([`crate::model::resume_start`]); its
//!   `compaction` part is sent as the user's text [`COMPACTION_PROMPT`].
//! - OC3: a user message is its text parts (the client's own synthetic ones too, not those it
//!   marks `ignored`), one string when there is one.
//! - OC4: each assistant message (one a model step) is sent with its text parts joined (`""`
//!   when it has none) and its tool parts as `tool_calls`, whose `arguments` are the input as
//!   JSON text; an assistant message with neither is not sent; one that ended in an error is
//!   not sent, unless the user aborted it after it wrote something.
//! - OC5: each tool part's result follows its message as a `tool` message: its output, its
//!   error when it failed, [`CLEARED`] when the client cleared it, [`INTERRUPTED`] when it
//!   never finished.
//!
//! - OC6: reasoning is sent as text, in the order of the parts (for a resumed model declared
//!   without reasoning, as the harness's mock is).
//! - OC7: when an assistant message of what is loaded was the `plan` agent's, the prompt (the
//!   `build` agent's, `opencode run`'s) carries [`BUILD_SWITCH`] as a second text part.
//!
//! - OC8: a `file` part of a text file or a folder is not sent (its content is in the
//!   message's synthetic text parts already).
//!
//! Not emulated, and refused with the part named: `file` parts of other types (images, PDF).

use serde_json::{Value, json};

use crate::file::{Message, Part, Session};
use crate::model::{COMPACTION_PROMPT, resume_start};

/// The client whose request is emulated.
pub const CLIENT: &str = "opencode-ai 1.18.33";

/// What is sent for a tool output the client cleared (`time.compacted`).
pub const CLEARED: &str = "[Old tool result content cleared]";

/// What is sent for a call that never finished.
pub const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// The reminder the client adds to a prompt of the `build` agent after the `plan` agent's
/// replies (1.18.33's text).
pub const BUILD_SWITCH: &str = "<system-reminder>\nYour operational mode has changed from plan to build.\nYou are no longer in read-only mode.\nYou are permitted to make file changes, run shell commands, and utilize your arsenal of tools as needed.\n</system-reminder>\n";

/// A part the view does not emulate, named.
#[derive(Debug, thiserror::Error)]
#[error("--api-view does not emulate how opencode sends a {kind} part (part {part} of message {message})")]
pub struct NotEmulated {
    /// The part's type.
    pub kind: String,
    /// The part's id.
    pub part: String,
    /// Its message's id.
    pub message: String,
}

/// A session whose last compaction was asked and never answered: the client runs it first on
/// resume, and what it sends then starts from a summary the model has not written yet.
#[derive(Debug, thiserror::Error)]
#[error(
    "compaction {0} was never answered: opencode runs it first on resume, and sends what follows from a summary not written yet"
)]
pub struct PendingCompaction(pub String);

/// Why the view is not given: a part it does not emulate, or a compaction still to run.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// A part it does not emulate.
    #[error(transparent)]
    NotEmulated(#[from] NotEmulated),
    /// A compaction the client runs first.
    #[error(transparent)]
    Pending(#[from] PendingCompaction),
}

/// The messages sent after a resume of `s` (the system prompt left out, OC1), then `prompt`.
pub fn messages(s: &Session, prompt: Option<&str>) -> Result<Vec<Value>, Refused> {
    let mut out = Vec::new();
    let start = resume_start(s).min(s.messages.len());
    let loaded = &s.messages[start..];
    if let Some((i, m)) = loaded.iter().enumerate().rev().find(|(_, m)| m.asks_compaction())
        && crate::model::summary_of(s, start + i).is_none_or(|a| !a.is_finished_summary())
    {
        return Err(PendingCompaction(m.id().unwrap_or("?").to_string()).into());
    }
    for m in loaded {
        match m.role() {
            "user" => user(m, &mut out)?,
            "assistant" => assistant(m, &mut out)?,
            _ => {}
        }
    }
    if let Some(p) = prompt {
        let planned = loaded
            .iter()
            .any(|m| m.role() == "assistant" && m.info().get("agent").and_then(Value::as_str) == Some("plan"));
        out.push(match planned {
            false => json!({"role": "user", "content": p}),
            true => json!({"role": "user", "content": [{"type": "text", "text": p}, {"type": "text", "text": BUILD_SWITCH}]}),
        });
    }
    Ok(out)
}

fn ty(p: &Part) -> &str {
    p.ty()
}

fn refused(m: &Message, p: &Part) -> NotEmulated {
    NotEmulated {
        kind: ty(p).to_string(),
        part: p.get("id").and_then(Value::as_str).unwrap_or("?").to_string(),
        message: m.id().unwrap_or("?").to_string(),
    }
}

/// OC2, OC3.
fn user(m: &Message, out: &mut Vec<Value>) -> Result<(), NotEmulated> {
    let mut texts = Vec::new();
    for p in &m.parts {
        match ty(p) {
            "text" if p.get("ignored").and_then(Value::as_bool) != Some(true) => {
                texts.push(p.get("text").and_then(Value::as_str).unwrap_or("").to_string());
            }
            "compaction" => texts.push(COMPACTION_PROMPT.to_string()),
            // A text file or a folder the user named was read into the message's synthetic
            // text parts when it was sent: the part itself is not sent again.
            "file"
                if matches!(
                    p.get("mime").and_then(Value::as_str),
                    Some("text/plain" | "application/x-directory")
                ) => {}
            "file" => return Err(refused(m, p)),
            _ => {}
        }
    }
    match texts.len() {
        0 => {}
        1 => out.push(json!({"role": "user", "content": texts.remove(0)})),
        _ => out.push(json!({
            "role": "user",
            "content": texts.into_iter().map(|t| json!({"type": "text", "text": t})).collect::<Vec<_>>(),
        })),
    }
    Ok(())
}

/// OC4, OC5.
fn assistant(m: &Message, out: &mut Vec<Value>) -> Result<(), NotEmulated> {
    if let Some(e) = m.info().get("error").filter(|e| !e.is_null()) {
        let aborted = e.get("name").and_then(Value::as_str) == Some("MessageAbortedError");
        let wrote = m.parts.iter().any(|p| !matches!(ty(p), "step-start" | "reasoning"));
        if !(aborted && wrote) {
            return Ok(());
        }
    }
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for p in &m.parts {
        match ty(p) {
            "text" | "reasoning" => text.push_str(p.get("text").and_then(Value::as_str).unwrap_or("")),
            "tool" => {
                let id = p.get("callID").and_then(Value::as_str).unwrap_or("");
                let state = p.get("state").unwrap_or(&Value::Null);
                let input = state.get("input").cloned().unwrap_or_else(|| json!({}));
                calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": p.get("tool").and_then(Value::as_str).unwrap_or(""), "arguments": cctool_core::io::json::to_json(&input)},
                }));
                let output = match state.get("status").and_then(Value::as_str) {
                    Some("completed") if state.pointer("/time/compacted").is_some_and(|c| !c.is_null()) => {
                        Value::from(CLEARED)
                    }
                    Some("completed") => state.get("output").cloned().unwrap_or_else(|| Value::from("")),
                    Some("error") => state.get("error").cloned().unwrap_or_else(|| Value::from("")),
                    _ => Value::from(INTERRUPTED),
                };
                results.push(json!({"role": "tool", "tool_call_id": id, "content": output}));
            }
            "file" => return Err(refused(m, p)),
            _ => {}
        }
    }
    if text.is_empty() && calls.is_empty() {
        return Ok(());
    }
    let mut msg = json!({"role": "assistant", "content": text});
    if !calls.is_empty() {
        msg["tool_calls"] = Value::Array(calls);
    }
    out.push(msg);
    out.extend(results);
    Ok(())
}

/// Which rules made the messages, and how many each.
pub fn rules(msgs: &[Value], prompt: bool) -> Vec<Value> {
    let made = &msgs[..msgs.len() - usize::from(prompt)];
    let role = |m: &Value, r: &str| m["role"] == r;
    let compaction = usize::from(made.first().is_some_and(|m| m["content"] == COMPACTION_PROMPT));
    let counts = [
        ("OC1", 1),
        ("OC2", compaction),
        ("OC3", made.iter().filter(|m| role(m, "user")).count() - compaction),
        ("OC4", made.iter().filter(|m| role(m, "assistant")).count()),
        ("OC5", made.iter().filter(|m| role(m, "tool")).count()),
        (
            "OC7",
            usize::from(prompt && msgs.last().is_some_and(|m| m["content"].is_array())),
        ),
    ];
    counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| json!({"rule": r, "count": n}))
        .collect()
}
