//! `convert` checked by the real clients: a converted session, resumed by the other agent,
//! sends every text of the source's resumed conversation in order and every tool call with
//! its result. The requests of a few fixtures are recorded in `fixtures/convert/`, so a clean
//! clone checks the rule without the clients; with the clients installed, the fixtures (and,
//! with `CCTOOL_CONVERT_ALL=1`, every sample) are converted and resumed live.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::*;

/// What the source's resumed conversation holds: its texts in order, its tool calls and the
/// calls that have a result.
#[derive(Debug, Default)]
pub struct Expect {
    pub texts: Vec<String>,
    /// Compaction summaries: the target has each as its own compaction, at the start of what
    /// follows it (before messages a compaction preserved), so only their presence is checked.
    pub summaries: Vec<String>,
    pub calls: Vec<String>,
    pub answered: HashSet<String>,
}

/// What a request sent: its texts in order, the ids of its calls and of its results.
#[derive(Debug, Default)]
pub struct Seen {
    pub texts: Vec<String>,
    pub calls: HashSet<String>,
    pub results: HashSet<String>,
}

/// The tool id Claude Code is given for a source id (`agents/claude_code/convert.rs`):
/// kept when the API accepts it. Ids of other shapes are only checked to be paired.
fn api_safe(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn chain(file: &Path) -> Vec<Value> {
    records(&stdout_of(&["rebuild-chain", file.to_str().expect("utf-8 path")]))
}

fn text_of(v: &Value) -> Option<&str> {
    v.get("text").and_then(Value::as_str)
}

fn push_text(texts: &mut Vec<String>, t: &str) {
    if !t.trim().is_empty() {
        texts.push(t.to_string());
    }
}

/// A Claude Code transcript's resumed chain.
pub fn expect_claude(file: &Path) -> Expect {
    let mut e = Expect::default();
    for r in chain(file) {
        let content = r.pointer("/message/content");
        if r.get("isCompactSummary") == Some(&Value::Bool(true)) {
            let s = match content {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(b)) => b.iter().filter_map(text_of).collect(),
                _ => String::new(),
            };
            e.summaries.push(s);
            continue;
        }
        // Rows the client writes for a failed request are never sent (and not carried).
        if r.get("isApiErrorMessage") == Some(&Value::Bool(true)) {
            continue;
        }
        match r.get("type").and_then(Value::as_str) {
            Some("user") => match content {
                Some(Value::String(s)) => push_text(&mut e.texts, s),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => push_text(&mut e.texts, text_of(b).unwrap_or("")),
                            Some("tool_result") => {
                                e.answered.insert(b["tool_use_id"].as_str().unwrap_or("").to_string());
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            },
            Some("assistant") => {
                for b in content.and_then(Value::as_array).into_iter().flatten() {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => push_text(&mut e.texts, text_of(b).unwrap_or("")),
                        Some("tool_use") => e.calls.push(b["id"].as_str().unwrap_or("").to_string()),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    e
}

/// The first line of a Codex compaction summary.
const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

const CODEX_CONTEXT: &[&str] = &[
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<user_instructions>",
];

/// A Codex rollout's resumed history.
pub fn expect_codex(file: &Path) -> Expect {
    let mut e = Expect::default();
    for item in chain(file) {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let role = item.get("role").and_then(Value::as_str);
                for p in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    let t = text_of(p).unwrap_or("");
                    if let Some(summary) = t.strip_prefix(SUMMARY_PREFIX) {
                        e.summaries.push(summary.trim_start_matches('\n').to_string());
                        continue;
                    }
                    let context =
                        CODEX_CONTEXT.iter().any(|m| t.trim_start().starts_with(m)) || t.trim_start().starts_with('<');
                    if matches!(role, Some("user" | "assistant")) && !context {
                        push_text(&mut e.texts, t);
                    }
                }
            }
            Some("function_call" | "custom_tool_call" | "local_shell_call") => {
                let id = item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .or_else(|| item.get("id").and_then(Value::as_str));
                e.calls.push(id.unwrap_or("").to_string());
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                e.answered.insert(item["call_id"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    e
}

/// The wrapper pi sends a compaction's summary in (`docs/pi.md`, rule P4).
const PI_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/// A pi session's resumed context, as pi's own `SessionManager` and `convertToLlm` load it:
/// recorded beside a fixture (`NAME.context.json`), else asked of the installed pi
/// (`scripts/realclient/pi/pi-context.sh`); `None` when neither is there. The replies pi
/// leaves out when it sends them (an error or an abort ends them) are not expected.
pub fn expect_pi(file: &Path) -> Option<Expect> {
    let recorded = file.with_extension("context.json");
    let context: Value = if recorded.is_file() {
        serde_json::from_str(&std::fs::read_to_string(&recorded).expect("recorded context")).expect("json")
    } else {
        let script = root().join("scripts/realclient/pi/pi-context.sh");
        let run = std::process::Command::new("bash").arg(script).arg(file).output().ok()?;
        if !run.status.success() {
            return None;
        }
        serde_json::from_slice(&run.stdout).expect("pi's context is JSON")
    };
    let mut e = Expect::default();
    for m in context.as_array().into_iter().flatten() {
        let blocks: Vec<Value> = match &m["content"] {
            Value::String(t) => vec![serde_json::json!({"type": "text", "text": t})],
            Value::Array(b) => b.clone(),
            _ => Vec::new(),
        };
        match m["role"].as_str() {
            Some("assistant") if matches!(m["stopReason"].as_str(), Some("error" | "aborted")) => {}
            Some(role @ ("user" | "assistant")) => {
                for b in &blocks {
                    match b["type"].as_str() {
                        Some("text") => {
                            let t = text_of(b).unwrap_or("");
                            match t.strip_prefix(PI_SUMMARY_PREFIX).filter(|_| role == "user") {
                                Some(rest) => e.summaries.push(rest.trim_end_matches("\n</summary>").to_string()),
                                None => push_text(&mut e.texts, t),
                            }
                        }
                        Some("toolCall") => e.calls.push(b["id"].as_str().unwrap_or("").to_string()),
                        _ => {}
                    }
                }
            }
            Some("toolResult") => {
                e.answered.insert(m["toolCallId"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    Some(e)
}

/// The text Copilot CLI puts before a prompt it sends (`transformedContent`).
const COPILOT_DATE_END: &str = "</current_datetime>\n\n";

/// A Copilot CLI session's resumed conversation, as `rebuild-chain --api-view` gives the
/// messages the client sends (checked against the client in `tests/cli/copilot.rs`): a prompt
/// without the date and the reminders the client puts around it, a compaction's summary out of
/// its wrapper, and
/// the results the client makes up for calls without one left out.
pub fn expect_copilot(file: &Path) -> Expect {
    let mut e = Expect::default();
    let out = stdout_of(&["-q", "rebuild-chain", "--api-view", file.to_str().expect("utf-8 path")]);
    for m in records(&out) {
        let text = m["content"].as_str().unwrap_or("");
        match m["role"].as_str() {
            Some("user") => {
                if let Some((_, rest)) = text.split_once("<summary>\n") {
                    e.summaries
                        .push(rest.split("\n</summary>").next().unwrap_or("").to_string());
                } else {
                    // The client's own context around the prompt (its date before, its
                    // reminders after) is its own, as another agent's is: not carried.
                    let prompt = text.split_once(COPILOT_DATE_END).map_or(text, |(_, t)| t);
                    // As is the notice of a mode the session was in (GH12).
                    let prompt = match prompt.strip_prefix("<mode_changed_notice>") {
                        Some(notice) => notice
                            .split_once("</mode_changed_notice>\n\n")
                            .map_or(prompt, |(_, t)| t),
                        None => prompt,
                    };
                    let prompt = prompt.split("\n\n<system_reminder>").next().unwrap_or(prompt);
                    push_text(&mut e.texts, prompt);
                }
            }
            Some("assistant") => {
                push_text(&mut e.texts, text);
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    e.calls.push(c["id"].as_str().unwrap_or("").to_string());
                }
            }
            // The results the client makes up for calls without one are its own.
            Some("tool") if !COPILOT_INTERRUPTED.iter().any(|t| text.starts_with(t)) => {
                e.answered.insert(m["tool_call_id"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    e
}

/// How the results Copilot CLI sends for a call without one begin: a call the conversation went
/// on from, and the last turn's.
const COPILOT_INTERRUPTED: &[&str] = &[
    "The execution of this tool, or a previous tool was interrupted.",
    "Tool execution was interrupted before a result was recorded.",
];

/// Whether a file is a Copilot CLI session: its first line is an event of the client.
fn is_copilot(p: &Path) -> bool {
    let first = std::fs::read_to_string(p)
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string));
    first
        .and_then(|l| serde_json::from_str::<Value>(&l).ok())
        .is_some_and(|h| h["type"].as_str().is_some_and(|t| t.starts_with("session.")) && h.get("data").is_some())
}

/// Whether a file is a pi session: its first line is pi's header.
fn is_pi(p: &Path) -> bool {
    let first = std::fs::read_to_string(p)
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string));
    first
        .and_then(|l| serde_json::from_str::<Value>(&l).ok())
        .is_some_and(|h| h["type"] == "session" && h.get("cwd").is_some())
}

/// An opencode session's resumed messages, as `rebuild-chain` gives them (rule OC0, checked
/// against the client in `tests/cli/opencode.rs`): a compaction's summary (the compaction's
/// question and the client's "continue" prompt after it are the client's own, as another
/// agent's compaction is), the user's texts (not those the client marks `ignored`), each
/// reply's texts and calls; a reply that ended in an error the client does not send.
pub fn expect_opencode(file: &Path) -> Expect {
    let mut e = Expect::default();
    for m in chain(file) {
        let info = &m["info"];
        let parts = m["parts"].as_array().cloned().unwrap_or_default();
        let texts = || {
            parts
                .iter()
                .filter(|p| p["type"] == "text" && p["ignored"] != true && p["metadata"]["compaction_continue"] != true)
                .filter_map(text_of)
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        if info["summary"] == true {
            e.summaries.push(texts().join("\n"));
            continue;
        }
        match info["role"].as_str() {
            Some("user") => texts().iter().for_each(|t| push_text(&mut e.texts, t)),
            Some("assistant") => {
                let error = &info["error"];
                let wrote = parts
                    .iter()
                    .any(|p| p["type"] != "step-start" && p["type"] != "reasoning");
                // The client sends a reply that failed only when the user aborted it after it
                // wrote something (OC4).
                let sent = error.is_null() || (error["name"] == "MessageAbortedError" && wrote);
                if !sent {
                    continue;
                }
                texts().iter().for_each(|t| push_text(&mut e.texts, t));
                for p in parts.iter().filter(|p| p["type"] == "tool") {
                    let id = p["callID"].as_str().unwrap_or("").to_string();
                    if matches!(p["state"]["status"].as_str(), Some("completed" | "error")) {
                        e.answered.insert(id.clone());
                    }
                    e.calls.push(id);
                }
            }
            _ => {}
        }
    }
    e
}

/// Whether a source is an opencode session: a session of a database (`DB#ID`), or an export
/// document (`{info, messages}`).
fn is_opencode(p: &Path) -> bool {
    if p.to_string_lossy().contains(".db#") {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(p) else {
        return false;
    };
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(&text).is_ok_and(|v| v.get("info").is_some() && v.get("messages").is_some())
}

/// Whether a file is a Qwen Code session: its first record has Claude Code's link fields
/// around a message of Gemini's `parts`, or a record type or payload of Qwen Code's own.
fn is_qwen(p: &Path) -> bool {
    let first = std::fs::read_to_string(p)
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string));
    first
        .and_then(|l| serde_json::from_str::<Value>(&l).ok())
        .is_some_and(|r| {
            r.get("uuid").is_some()
                && r.get("sessionId").is_some()
                && (r["message"].get("parts").is_some()
                    || r["type"] == "tool_result"
                    || r.get("systemPayload").is_some())
        })
}

/// The acknowledgement Gemini CLI, and Qwen Code after it, keep after a compaction's summary.
pub const ACKNOWLEDGEMENT: &str = "Got it. Thanks for the additional context!";

/// The current compaction's summary of `path`, as `extract-summary` gives it.
fn current_summary(path: &str) -> Option<String> {
    records(&stdout_of(&["-q", "extract-summary", "--json", path]))
        .into_iter()
        .find(|r| r["kind"] == "summary" && r["current"] == true)
        .and_then(|r| r["summary"].as_str().map(str::to_string))
}

/// A Qwen Code session's resumed conversation, as `rebuild-chain --api-view` gives the
/// messages the client sends (checked against the client in `tests/cli/qwen.rs`): the current
/// compaction's summary (the client's acknowledgement after it is its own), the user's and the
/// replies' texts and calls. The results the client makes up for calls without one, and the
/// text it sends in an image's place, are its own and not carried.
pub fn expect_qwen(file: &Path) -> Expect {
    let path = file.to_str().expect("utf-8 path");
    let mut e = Expect::default();
    let summary = current_summary(path);
    if let Some(s) = &summary {
        e.summaries.push(s.clone());
    }
    let mut after_summary = false;
    for m in records(&stdout_of(&["-q", "rebuild-chain", "--api-view", path])) {
        let texts: Vec<String> = match &m["content"] {
            Value::String(t) => vec![t.clone()],
            Value::Array(parts) => parts.iter().filter_map(text_of).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        let was_after = std::mem::take(&mut after_summary);
        match m["role"].as_str() {
            Some("user") => {
                for t in texts {
                    if summary.as_deref() == Some(t.as_str()) {
                        after_summary = true;
                    } else if !(t.starts_with("[image: ") || t.starts_with("[document: ")) {
                        push_text(&mut e.texts, &t);
                    }
                }
            }
            Some("assistant") => {
                for t in texts.iter().filter(|t| !(was_after && *t == ACKNOWLEDGEMENT)) {
                    push_text(&mut e.texts, t);
                }
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    e.calls.push(c["id"].as_str().unwrap_or("").to_string());
                }
            }
            Some("tool")
                if !texts
                    .iter()
                    .any(|t| t.starts_with("Tool execution result was not recorded")) =>
            {
                e.answered.insert(m["tool_call_id"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    e
}

/// Whether a file is a Gemini CLI chat: its first record is the client's header.
fn is_gemini(p: &Path) -> bool {
    let first = std::fs::read_to_string(p)
        .ok()
        .and_then(|t| t.lines().next().map(str::to_string));
    first
        .and_then(|l| serde_json::from_str::<Value>(&l).ok())
        .is_some_and(|h| h.get("sessionId").is_some() && h.get("projectHash").is_some() && h.get("startTime").is_some())
}

/// A Gemini CLI chat's resumed conversation, as `rebuild-chain --api-view` gives the contents
/// the client sends (checked against the client in `tests/cli/gemini.rs`): the current
/// compression's summary (the session context before it and the acknowledgement after it are
/// the client's own), the user's and the model's texts, calls and results.
pub fn expect_gemini(file: &Path) -> Expect {
    let path = file.to_str().expect("utf-8 path");
    let mut e = Expect::default();
    let summary = current_summary(path);
    if let Some(s) = &summary {
        e.summaries.push(s.clone());
    }
    // The client sends an id stored as `<tool>__<id>` as `<id>` (GM8); a conversion carries it
    // as stored.
    let mut stored: Vec<String> = Vec::new();
    for m in chain(file) {
        let parts = m["content"].as_array().into_iter().flatten();
        let ids = parts
            .filter_map(|p| p.pointer("/functionCall/id"))
            .chain(m["toolCalls"].as_array().into_iter().flatten().map(|c| &c["id"]));
        stored.extend(ids.filter_map(Value::as_str).map(str::to_string));
    }
    let as_stored = |sent: &Value| {
        let sent = sent.as_str().unwrap_or("");
        stored
            .iter()
            .find(|s| *s == sent || s.strip_suffix(sent).is_some_and(|t| t.ends_with("__")))
            .cloned()
            .unwrap_or_else(|| sent.to_string())
    };
    let mut contents = records(&stdout_of(&["-q", "rebuild-chain", "--api-view", path]));
    // The last is the prompt of the resumed turn, the harness's own.
    contents.pop();
    let mut after_summary = false;
    for c in contents {
        let was_after = std::mem::take(&mut after_summary);
        let user = c["role"] == "user";
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(t) = text_of(p) {
                if p["thought"] == true || (user && t.starts_with("<session_context>")) {
                    continue;
                }
                if user && summary.as_deref() == Some(t) {
                    after_summary = true;
                } else if !(was_after && !user && t == ACKNOWLEDGEMENT) {
                    push_text(&mut e.texts, t);
                }
            } else if let Some(f) = p.get("functionCall") {
                e.calls.push(as_stored(&f["id"]));
            } else if let Some(f) = p.get("functionResponse") {
                e.answered.insert(as_stored(&f["id"]));
            }
        }
    }
    e
}

/// What Gemini CLI sent (the request's `contents`): the user's and the model's texts (the
/// session context the client makes on resume is its own), calls and results by id.
pub fn seen_gemini(contents: &Value) -> Seen {
    let mut s = Seen::default();
    for c in contents.as_array().into_iter().flatten() {
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(t) = text_of(p) {
                if p["thought"] != true {
                    s.texts.push(t.to_string());
                }
            } else if let Some(f) = p.get("functionCall") {
                s.calls.insert(f["id"].as_str().unwrap_or("").to_string());
            } else if let Some(f) = p.get("functionResponse") {
                s.results.insert(f["id"].as_str().unwrap_or("").to_string());
            }
        }
    }
    s
}

/// What a resume of `src` loads, read by the agent that wrote it; `None` when it cannot be
/// known here (a pi session with neither a recorded context nor pi installed).
pub fn expect_of(src: &Path) -> Option<Expect> {
    if is_gemini(src) {
        Some(expect_gemini(src))
    } else if is_qwen(src) {
        Some(expect_qwen(src))
    } else if is_opencode(src) {
        Some(expect_opencode(src))
    } else if is_pi(src) {
        expect_pi(src)
    } else if is_copilot(src) {
        Some(expect_copilot(src))
    } else if is_rollout(src) {
        Some(expect_codex(src))
    } else {
        Some(expect_claude(src))
    }
}

/// What Codex sent (`input`).
pub fn seen_codex(input: &Value) -> Seen {
    let mut s = Seen::default();
    for item in input.as_array().into_iter().flatten() {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for p in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(t) = text_of(p) {
                        s.texts.push(t.to_string());
                    }
                }
            }
            Some("function_call" | "custom_tool_call") => {
                s.calls.insert(item["call_id"].as_str().unwrap_or("").to_string());
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                s.results.insert(item["call_id"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    s
}

/// What Claude Code sent (`messages`).
pub fn seen_claude(messages: &Value) -> Seen {
    let mut s = Seen::default();
    for m in messages.as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(t) => s.texts.push(t.clone()),
            Value::Array(blocks) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => s.texts.push(text_of(b).unwrap_or("").to_string()),
                        Some("tool_use") => {
                            s.calls.insert(b["id"].as_str().unwrap_or("").to_string());
                        }
                        Some("tool_result") => {
                            s.results.insert(b["tool_use_id"].as_str().unwrap_or("").to_string());
                            // A tool result's text is not a conversation text, but a text the
                            // client merged into the result's message is.
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    s
}

/// What a Chat Completions client sent (pi prints the whole body, Copilot CLI its
/// `messages`): user and assistant texts (a string or text parts), the assistant's
/// `tool_calls` and the `tool` messages answering them. The client's system prompt is its own.
pub fn seen_chat(sent: &Value) -> Seen {
    let mut s = Seen::default();
    let messages = sent.get("messages").unwrap_or(sent);
    for m in messages.as_array().into_iter().flatten() {
        match m["role"].as_str() {
            Some("user" | "assistant") => {
                match &m["content"] {
                    Value::String(t) => s.texts.push(t.clone()),
                    Value::Array(parts) => s.texts.extend(parts.iter().filter_map(text_of).map(str::to_string)),
                    _ => {}
                }
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    s.calls.insert(c["id"].as_str().unwrap_or("").to_string());
                }
            }
            Some("tool") => {
                s.results.insert(m["tool_call_id"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    s
}

/// The client that resumes a conversion to `to`, and how its request is read.
fn client_of(to: &str) -> (Client, fn(&Value) -> Seen) {
    match to {
        "codex" => (Client::Codex, seen_codex),
        "claude-code" => (Client::ClaudeCode, seen_claude),
        "pi" => (Client::Pi, seen_chat),
        "copilot" => (Client::Copilot, seen_chat),
        "opencode" => (Client::Opencode, seen_chat),
        "qwen-code" => (Client::Qwen, seen_chat),
        "gemini-cli" => (Client::Gemini, seen_gemini),
        other => panic!("no client resumes {other}"),
    }
}

/// Every expected text in order (each inside a sent text; several may share one, as the
/// clients merge neighbours), every call sent, every call with a result sent with its result,
/// and every call sent with a result (the clients close unanswered calls themselves; for
/// Gemini CLI, which does not, the conversion closes them).
pub fn check(e: &Expect, s: &Seen) -> Result<(), String> {
    let mut at = 0;
    for t in &e.texts {
        let t = t.trim();
        match s.texts[at..].iter().position(|x| x.contains(t)) {
            Some(k) => at += k,
            None => {
                let found = s.texts.iter().any(|x| x.contains(t));
                return Err(format!(
                    "text {} {}",
                    if found { "out of order" } else { "missing" },
                    t.chars().take(80).collect::<String>()
                ));
            }
        }
    }
    for t in &e.summaries {
        if !s.texts.iter().any(|x| x.contains(t.trim())) {
            return Err(format!("summary missing {}", t.chars().take(80).collect::<String>()));
        }
    }
    for id in &e.calls {
        if api_safe(id) && !s.calls.contains(id) {
            return Err(format!("call {id} not sent"));
        }
        if api_safe(id) && e.answered.contains(id) && !s.results.contains(id) {
            return Err(format!("result of {id} not sent"));
        }
    }
    if s.calls.len() < e.calls.iter().collect::<HashSet<_>>().len() {
        return Err(format!("{} calls sent, {} in the source", s.calls.len(), e.calls.len()));
    }
    if let Some(id) = s.calls.iter().find(|id| !s.results.contains(*id)) {
        return Err(format!("call {id} sent without a result"));
    }
    Ok(())
}

/// Converts `src` to `to` into `dir`, returning the output.
pub fn convert(src: &Path, to: &str, dir: &Path, extra: &[&str]) -> PathBuf {
    // A session of a database (`DB#ID`) is named by its id: the database's name is every
    // session's.
    let name = src.file_name().expect("name").to_string_lossy();
    let stem = match name.split_once('#') {
        Some((_, id)) => id.to_string(),
        None => src.file_stem().expect("name").to_string_lossy().into_owned(),
    };
    let out = dir.join(format!("{stem}.{to}.jsonl"));
    let mut args = vec!["convert", "--to", to, "-q", "-o", out.to_str().expect("utf-8")];
    args.extend(extra);
    args.push(src.to_str().expect("utf-8"));
    stdout_of(&args);
    out
}

/// Whether a file has at least one exchange: a user text and an assistant reply after it.
fn has_exchange(e: &Expect) -> bool {
    e.texts.len() >= 2 || !e.calls.is_empty()
}

/// Converts each file to `to` and resumes it with that agent's client; the failures, by
/// file.
fn sweep(files: &[PathBuf], to: &str) -> Vec<String> {
    if files.is_empty() {
        return Vec::new();
    }
    let (client, seen) = client_of(to);
    let Some(script) = realclient(client) else {
        return Vec::new();
    };
    let mock = match to {
        "opencode" => match crate::util::opencode_mock() {
            Some(m) => Some(m),
            None => return Vec::new(),
        },
        _ => None,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in files {
        let Some(e) = expect_of(f) else { continue };
        if !has_exchange(&e) {
            continue;
        }
        let out = convert(f, to, dir.path(), &[]);
        let sent = match &mock {
            Some(m) => resume_opencode(&script, &out, m),
            None => resume_with(&script, &out),
        };
        let s = seen(&sent);
        checked += 1;
        if let Err(why) = check(&e, &s) {
            failures.push(format!("{} → {to}: {why}", f.display()));
        }
    }
    assert!(checked > 0, "no file with an exchange");
    eprintln!(
        "{checked} of {} files converted and resumed by the {to} client",
        files.len()
    );
    failures
}

/// What opencode sent after resuming `file` (an export, loaded with `opencode import`): the
/// prompt is one word, since `opencode run` wraps one with spaces in literal quotes.
pub fn resume_opencode(script: &Path, file: &Path, mock: &Path) -> Value {
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(file)
        .arg("say-ok")
        .env("OTHERAGENTS", mock)
        .output()
        .expect("run the harness");
    assert!(
        out.status.success(),
        "{} sent nothing: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the harness prints JSON")
}

/// The opencode sessions of the fixtures, as export documents and as sessions of the
/// database, and the shared real exports.
fn opencode_sources() -> Vec<PathBuf> {
    let exports: Vec<PathBuf> = fixture_files(&["opencode"])
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".export.json"))
        .collect();
    let db = fixture("opencode/opencode.db");
    let mut all: Vec<PathBuf> = exports
        .iter()
        .filter_map(|p| {
            p.file_name()?
                .to_str()?
                .strip_suffix(".export.json")
                .map(str::to_string)
        })
        .map(|id| PathBuf::from(format!("{}#{id}", db.display())))
        .collect();
    all.extend(exports);
    if let Some(s) = shared_files(&["opencode/real"]) {
        all.extend(s.into_iter().filter(|p| p.to_string_lossy().ends_with("_full.jsonl")));
    }
    all
}

fn is_transcript(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl")
}

/// Whether a file is a Codex rollout (else a Claude Code transcript), from its first bytes.
fn is_rollout(p: &Path) -> bool {
    let head: Vec<u8> = std::fs::read(p)
        .map(|b| b.into_iter().take(4096).collect())
        .unwrap_or_default();
    let head = String::from_utf8_lossy(&head);
    head.contains("\"session_meta\"") || head.contains("\"response_item\"")
}

/// The fixtures whose conversions are recorded: (source, target).
pub const RECORDED: &[(&str, &str)] = &[
    ("claude/parallel_tool_calls.jsonl", "codex"),
    ("claude/render.jsonl", "codex"),
    ("convert/compacted.claude.jsonl", "codex"),
    ("convert/tools.codex.jsonl", "claude-code"),
    ("codex/rollback_across_replacement_history.jsonl", "claude-code"),
    ("pi/basic.jsonl", "claude-code"),
    ("pi/compaction.jsonl", "codex"),
    ("copilot/turns.jsonl", "claude-code"),
    ("copilot/real/two-resumes.jsonl", "codex"),
    ("convert/compacted.claude.jsonl", "pi"),
    ("convert/tools.codex.jsonl", "copilot"),
    ("convert/tools.codex.jsonl", "opencode"),
    ("convert/tools.codex.jsonl", "gemini-cli"),
    ("gemini/compacted.jsonl", "codex"),
];

fn recorded_paths(src: &str, to: &str) -> (PathBuf, PathBuf) {
    let stem = Path::new(src).file_stem().expect("name").to_string_lossy().into_owned();
    (
        fixture(&format!("convert/recorded/{stem}.{to}.jsonl")),
        fixture(&format!("convert/recorded/{stem}.{to}.sent.json")),
    )
}

/// The recorded conversions are what convert writes today, and the requests the real
/// clients sent after resuming them keep the rule.
#[test]
fn recorded_conversions_keep_every_text_and_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (src, to) in RECORDED {
        let source = fixture(src);
        let (conv, sent) = recorded_paths(src, to);
        let out = convert(&source, to, dir.path(), &[]);
        assert_eq!(
            std::fs::read_to_string(&out).expect("converted"),
            std::fs::read_to_string(&conv).unwrap_or_else(|e| panic!("{}: {e}", conv.display())),
            "{src} → {to} differs from {}",
            conv.display()
        );
        let sent: Value =
            serde_json::from_str(&std::fs::read_to_string(&sent).expect("recorded request")).expect("json");
        let e = expect_of(&source).expect("a recorded context beside each pi fixture");
        let s = client_of(to).1(&sent);
        assert!(has_exchange(&e), "{src} has no exchange");
        check(&e, &s).unwrap_or_else(|why| panic!("{src} → {to}: {why}"));
    }
}

/// The recorded conversions, resumed by the clients installed now. With
/// `CCTOOL_CONVERT_RECORD=1` the conversions and the (normalised) requests are written to
/// `fixtures/convert/recorded/` instead of checked.
#[test]
fn recorded_conversions_resume_live() {
    let record = std::env::var_os("CCTOOL_CONVERT_RECORD").is_some();
    let mut failures = Vec::new();
    for (src, to) in RECORDED {
        if !record {
            failures.extend(sweep(&[fixture(src)], to));
            continue;
        }
        let Some(script) = realclient(client_of(to).0) else {
            return;
        };
        let (conv, sent) = recorded_paths(src, to);
        std::fs::create_dir_all(conv.parent().expect("folder")).expect("mkdir");
        let dir = tempfile::tempdir().expect("tempdir");
        let out = convert(&fixture(src), to, dir.path(), &[]);
        std::fs::copy(&out, &conv).expect("copy");
        // opencode's request is kept without its system prompt, which holds this machine's
        // date and folders.
        if *to == "opencode" {
            let Some(mock) = crate::util::opencode_mock() else {
                return;
            };
            let mut body = resume_opencode(&script, &conv, &mock);
            let messages: Vec<Value> = body["messages"]
                .as_array_mut()
                .map(std::mem::take)
                .unwrap_or_default()
                .into_iter()
                .filter(|m| m["role"] != "system")
                .collect();
            let text = serde_json::to_string_pretty(&messages).expect("json");
            std::fs::write(&sent, text + "\n").expect("write the request");
            continue;
        }
        let run = std::process::Command::new("bash")
            .arg(&script)
            .arg(&conv)
            .arg("say ok")
            // pi's body holds nothing of the run's (no date, ids or paths of this machine).
            .env("VIEW_NORMALISE", if *to == "pi" { "0" } else { "1" })
            .output()
            .expect("run the harness");
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        std::fs::write(&sent, &run.stdout).expect("write the request");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// With `CCTOOL_CONVERT_ONLY=LIST`, keeps the files whose paths end with a line of LIST.
fn only(files: &mut Vec<PathBuf>) {
    if let Some(list) = std::env::var_os("CCTOOL_CONVERT_ONLY") {
        let only = std::fs::read_to_string(list).expect("list");
        files.retain(|p| only.lines().any(|l| p.ends_with(l)));
    }
}

/// Every fixture and sample with an exchange, converted to each other agent and resumed by
/// that agent's client: Claude Code ↔ Codex, pi and Copilot CLI into both, and each of the
/// four into pi and Copilot CLI, each of them into opencode and opencode's sessions into each.
/// Many minutes of client runs: only with `CCTOOL_CONVERT_ALL=1`
/// (`CCTOOL_CONVERT_INVOLVING=AGENT` keeps the conversions from or into one agent;
/// `CCTOOL_CONVERT_ONLY=LIST` keeps the files whose paths end with a line of LIST).
#[test]
fn every_fixture_and_sample_resumes_in_the_other_agent() {
    if std::env::var_os("CCTOOL_CONVERT_ALL").is_none() {
        skip_notice("set CCTOOL_CONVERT_ALL=1 to resume every fixture and sample in the other agent");
        return;
    }
    let mut claude: Vec<PathBuf> =
        fixture_files(&["claude", "claude/api", "claude/chain", "claude/summaries", "compact"])
            .into_iter()
            .filter(|p| is_transcript(p))
            .collect();
    let mut codex: Vec<PathBuf> = fixture_files(&["codex", "codex/chain", "codex/summaries", "codex/api"])
        .into_iter()
        .filter(|p| is_transcript(p))
        .collect();
    if let Some(s) = shared_files(CLAUDE_SAMPLE_DIRS) {
        claude.extend(s.into_iter().filter(|p| is_transcript(p)));
    }
    if let Some(s) = shared_files(&["codex/real", "codex/real-2026", "codex/synthetic"]) {
        codex.extend(s.into_iter().filter(|p| is_transcript(p)));
    }
    let (more_codex, mut claude): (Vec<PathBuf>, Vec<PathBuf>) = claude.into_iter().partition(|p| is_rollout(p));
    codex.extend(more_codex);
    codex.retain(|p| is_rollout(p));
    only(&mut claude);
    only(&mut codex);
    let mut pi: Vec<PathBuf> = fixture_files(&["pi"])
        .into_iter()
        .filter(|p| is_transcript(p))
        .collect();
    if let Some(s) = shared_files(&["pi/real"]) {
        pi.extend(s.into_iter().filter(|p| is_transcript(p)));
    }
    only(&mut pi);
    // `CCTOOL_CONVERT_INVOLVING=AGENT` keeps the conversions from or into that agent.
    let involving = std::env::var("CCTOOL_CONVERT_INVOLVING").ok();
    let pair = |from: &str, files: &[PathBuf], to: &str| match involving.as_deref() {
        Some(a) if a != from && a != to => Vec::new(),
        _ => sweep(files, to),
    };
    let mut failures = pair("claude-code", &claude, "codex");
    failures.extend(pair("codex", &codex, "claude-code"));
    failures.extend(pair("pi", &pi, "claude-code"));
    failures.extend(pair("pi", &pi, "codex"));
    let mut copilot: Vec<PathBuf> = fixture_files(&["copilot", "copilot/real"])
        .into_iter()
        .filter(|p| is_transcript(p) && is_copilot(p))
        .collect();
    if let Some(s) = shared_files(&["copilot/real"]) {
        copilot.extend(s.into_iter().filter(|p| is_transcript(p) && is_copilot(p)));
    }
    only(&mut copilot);
    failures.extend(pair("copilot", &copilot, "claude-code"));
    failures.extend(pair("copilot", &copilot, "codex"));
    // Into pi and Copilot CLI: from every other agent.
    for to in ["pi", "copilot"] {
        failures.extend(pair("claude-code", &claude, to));
        failures.extend(pair("codex", &codex, to));
    }
    failures.extend(pair("copilot", &copilot, "pi"));
    failures.extend(pair("pi", &pi, "copilot"));
    // opencode, Qwen Code and Gemini CLI each both ways with every agent before them.
    let mut opencode = opencode_sources();
    only(&mut opencode);
    // A file the client refuses to load (recorded as `null`) has nothing to carry.
    let refused =
        |p: &PathBuf| std::fs::read_to_string(p.with_extension("sent.json")).is_ok_and(|t| t.trim() == "null");
    let mut qwen: Vec<PathBuf> = fixture_files(&["qwen"])
        .into_iter()
        .filter(|p| is_transcript(p) && !refused(p))
        .collect();
    only(&mut qwen);
    // A stub twin (a header and the session context alone) has no exchange to carry.
    let mut gemini: Vec<PathBuf> = fixture_files(&["gemini"])
        .into_iter()
        .filter(|p| is_transcript(p) && is_gemini(p))
        .collect();
    only(&mut gemini);
    let agents = [
        ("claude-code", &claude),
        ("codex", &codex),
        ("pi", &pi),
        ("copilot", &copilot),
        ("opencode", &opencode),
        ("qwen-code", &qwen),
        ("gemini-cli", &gemini),
    ];
    for (k, (agent, files)) in agents.iter().enumerate().skip(4) {
        for (other, from) in &agents[..k] {
            failures.extend(pair(other, from, agent));
            failures.extend(pair(agent, files, other));
        }
    }
    assert!(failures.is_empty(), "{} failures: {failures:#?}", failures.len());
}

/// Codex takes the size of a converted conversation from the estimate of its last
/// `token_count` (`last_token_usage.total_tokens`, the counts of spent tokens being zero) and
/// compacts before the next request when it is over the limit, not when it is under.
#[test]
fn codex_compacts_a_conversion_over_its_limit_first() {
    let Some(script) = realclient(Client::Codex) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = convert(&fixture("convert/compacted.claude.jsonl"), "codex", dir.path(), &[]);
    let text = std::fs::read_to_string(&out).expect("converted");
    let last = text
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .find(|r| r["payload"]["type"] == "token_count")
        .expect("a token_count");
    let estimate = last["payload"]["info"]["last_token_usage"]["total_tokens"]
        .as_u64()
        .expect("an estimate");
    assert!(estimate > 100, "{last}");
    for (limit, compacts) in [(estimate / 2, true), (estimate * 10, false)] {
        let limit = limit.to_string();
        let sent: Value = serde_json::from_str(&resume_text(
            &script,
            &out,
            &[("CODEX_AUTO_COMPACT_LIMIT", &limit), ("VIEW_BODY", "1")],
        ))
        .expect("json");
        let last_item = sent["input"].as_array().and_then(|i| i.last()).expect("input");
        assert_eq!(
            last_item["type"] == "compaction_trigger",
            compacts,
            "limit {limit}, estimate {estimate}: {last_item}"
        );
    }
}
