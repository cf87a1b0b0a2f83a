//! The request Qwen Code (0.24.4) sends after resuming a session, through its OpenAI-compatible
//! provider: the `messages` of `/chat/completions`, without what only the resuming machine
//! knows (QW6). Each rule is named in `docs/qwen.md` with its evidence.
//!
//! - QW4: the history is sent curated (`extractCuratedHistory`): consecutive user Contents are
//!   one, a run of model Contents with an invalid one (no parts, an empty text) is dropped, and
//!   a model turn that is only the upstream placeholder `(request timeout)` too.
//! - QW5: each Content becomes OpenAI messages (`convertLlmRequestToOpenAI`): a user's texts
//!   as an array of text parts, each function response as a `tool` message (its `output`, else
//!   its `error`, else the response as JSON), a model's texts joined into one string beside its
//!   `tool_calls` (arguments as JSON), its thoughts as `reasoning_content`; consecutive
//!   assistant messages joined; a call no adjacent result answers dropped, and a result that
//!   answers no call.
//! - QW8: the images and files of the history are sent as `[image: MIME]` texts, as to a
//!   model that reads no media (the harness's; a model the client knows to read images gets
//!   them, which is not emulated).
//! - QW6: the system prompt, and the `<system-reminder>` parts the client puts before the first
//!   and the new prompt (its skills, its tools, the date, the folder), are the client's own and
//!   are not shown.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::chain::{Chain, truthy};
use crate::file::Session;

/// The client whose request this is, as `--api-view` names it.
pub const CLIENT: &str = "Qwen Code 0.24.4";

/// The text of a model turn the client never sends again (`UPSTREAM_DEGRADED_PLACEHOLDER`).
pub(crate) const DEGRADED_PLACEHOLDER: &str = "(request timeout)";

/// How often the send-time rules changed what a resume loads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// QW4: Contents dropped or joined by the curation.
    pub curated: usize,
    /// QW5: calls and results dropped for want of the other.
    pub orphans: usize,
    /// QW7: results put in a call's place, moved or dropped.
    pub repaired: usize,
    /// QW8: images and files sent as text.
    pub media: usize,
}

/// The messages the client sends resuming `s` with `prompt` (the prompt last, when given).
pub fn messages(s: &Session, chain: &Chain, prompt: Option<&str>) -> Vec<Value> {
    request(s, chain, prompt).0
}

/// [`messages`], and how often each send-time rule applied.
pub fn request(s: &Session, chain: &Chain, prompt: Option<&str>) -> (Vec<Value>, Applied) {
    let mut applied = Applied::default();
    let mut contents: Vec<Value> = chain.history(s).into_iter().map(|c| c.value).collect();
    if let Some(p) = prompt {
        contents.push(json!({"role": "user", "parts": [{"text": p}]}));
    }
    applied.repaired = repair(&mut contents);
    let before = contents.len();
    let contents = curated(contents);
    applied.curated = before - contents.len();
    let mut out = Vec::new();
    for c in contents {
        convert(&without_media(c, &mut applied.media), &mut out);
    }
    let merged = merge_assistants(out);
    let calls = |m: &[Value]| {
        m.iter()
            .map(|x| calls_of(x).len() + usize::from(x["role"] == "tool"))
            .sum::<usize>()
    };
    let had = calls(&merged);
    let cleaned = merge_assistants(clean_orphans(merged));
    applied.orphans = had - calls(&cleaned);
    (cleaned, applied)
}

/// What the client answers, in a call's place, for a call whose result was never written.
pub const NOT_RECORDED: &str = "Tool execution result was not recorded \u{2014} likely interrupted by network failure, abort, or process exit. Treat as failure and retry if needed.";

/// QW7: `repairOrphanedToolUseTurns`, run on the history once the new prompt is in it. Each
/// model Content's calls get their results in the user Content right after it (past model
/// placeholders): a result found in a later user Content is moved there, a second result of a
/// call dropped, and a call with none answered with [`NOT_RECORDED`] as its error; a user
/// Content left empty is dropped.
/// Returns how many results it put in, moved or dropped.
pub fn repair(history: &mut Vec<Value>) -> usize {
    let mut changed = 0;
    let mut i = 0;
    while i < history.len() {
        if role(&history[i]) != "model" {
            i += 1;
            continue;
        }
        let mut expected: Vec<(String, String)> = Vec::new();
        for p in parts_of(&history[i]) {
            if let Some(id) = member(p, "functionCall", "id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
            {
                let name = member(p, "functionCall", "name")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                match expected.iter_mut().find(|(e, _)| e == id) {
                    Some(e) => e.1 = name.to_string(),
                    None => expected.push((id.to_string(), name.to_string())),
                }
            }
        }
        if expected.is_empty() {
            i += 1;
            continue;
        }
        let mut adjacent = i + 1;
        while adjacent < history.len() && role(&history[adjacent]) == "model" && degraded(&history[adjacent]) {
            adjacent += 1;
        }
        let mut end = adjacent;
        // (content, part) of each result of each expected call, in order.
        let mut found: Vec<Vec<(usize, usize)>> = vec![Vec::new(); expected.len()];
        while end < history.len() && role(&history[end]) == "user" {
            for (k, p) in parts_of(&history[end]).iter().enumerate() {
                let id = member(p, "functionResponse", "id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty());
                if let Some(e) = id.and_then(|id| expected.iter().position(|(x, _)| x == id)) {
                    found[e].push((end, k));
                }
            }
            end += 1;
        }
        let mut inject: Vec<Value> = Vec::new();
        let mut removals: Vec<(usize, usize)> = Vec::new();
        let mut hoisted: Vec<Value> = Vec::new();
        for (e, (id, name)) in expected.iter().enumerate() {
            let Some(&(t, k)) = found[e].first() else {
                inject.push(json!({"functionResponse": {"id": id, "name": name, "response": {"error": NOT_RECORDED}}}));
                continue;
            };
            if t != adjacent {
                hoisted.push(parts_of(&history[t])[k].clone());
                removals.push((t, k));
            }
            removals.extend(found[e].iter().skip(1));
        }
        if inject.is_empty() && removals.is_empty() {
            i += 1;
            continue;
        }
        changed += inject.len() + removals.len();
        inject.extend(hoisted);
        removals.sort_unstable_by(|a, b| b.cmp(a));
        for (t, k) in removals {
            if let Some(Value::Array(p)) = history[t].get_mut("parts") {
                p.remove(k);
            }
        }
        for j in (adjacent + 1..end).rev() {
            if role(&history[j]) == "user" && parts_of(&history[j]).is_empty() {
                history.remove(j);
            }
        }
        let inserted = put_results(history, adjacent, inject);
        i += 1 + usize::from(inserted);
    }
    changed
}

/// `p[outer][inner]`, as `p.pointer("/outer/inner")` finds it without parsing a pointer.
fn member<'a>(p: &'a Value, outer: &str, inner: &str) -> Option<&'a Value> {
    p.get(outer)?.as_object()?.get(inner)
}

/// Puts `results` into the user Content at `at` before its first part that is no result, or
/// as a new user Content there; whether one was inserted.
fn put_results(history: &mut Vec<Value>, at: usize, results: Vec<Value>) -> bool {
    if results.is_empty() {
        return false;
    }
    if let Some(next) = history.get_mut(at).filter(|c| role(c) == "user") {
        let mut parts = parts_of(next).to_vec();
        let k = parts
            .iter()
            .position(|p| p.get("functionResponse").is_none())
            .unwrap_or(parts.len());
        parts.splice(k..k, results);
        next["parts"] = Value::Array(parts);
        return false;
    }
    history.insert(at, json!({"role": "user", "parts": results}));
    true
}

/// QW8: `slimCompactionInput` for a model that reads no media: each image (or other file) of
/// a Content, or of a function response's parts, becomes the text `[image: MIME]`
/// (`[document: MIME]`).
fn without_media(mut c: Value, count: &mut usize) -> Value {
    if let Some(Value::Array(parts)) = c.get_mut("parts") {
        for p in parts.iter_mut() {
            slim_part(p, count);
        }
    }
    c
}

fn slim_part(p: &mut Value, count: &mut usize) {
    let media = ["inlineData", "fileData"]
        .iter()
        .find_map(|k| p.get(*k).filter(|m| truthy(m)));
    if let Some(m) = media {
        let mime = m
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("application/octet-stream");
        let clean: String = mime
            .split(['\r', '\n', '\t'])
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .replace(['[', ']'], "");
        let clean: String = clean.trim().chars().take(128).collect();
        let kind = if mime.starts_with("image/") {
            "image"
        } else {
            "document"
        };
        *p = json!({"text": format!("[{kind}: {clean}]")});
        *count += 1;
        return;
    }
    if let Some(Value::Array(nested)) = p.pointer_mut("/functionResponse/parts") {
        for inner in nested.iter_mut() {
            slim_part(inner, count);
        }
    }
}

/// QW4: `extractCuratedHistory`.
pub fn curated(mut history: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut i = 0;
    while i < history.len() {
        if role(&history[i]) == "user" {
            // Each Content is looked at once: moved out rather than copied.
            let content = std::mem::take(&mut history[i]);
            match out.last_mut() {
                Some(last) if role(last) == "user" => {
                    let more = match content {
                        Value::Object(mut o) => match o.swap_remove("parts") {
                            Some(Value::Array(p)) => p,
                            _ => Vec::new(),
                        },
                        _ => Vec::new(),
                    };
                    match last.get_mut("parts") {
                        Some(Value::Array(p)) => p.extend(more),
                        _ => last["parts"] = Value::Array(more),
                    }
                }
                _ => out.push(content),
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < history.len() && role(&history[i]) == "model" {
            i += 1;
        }
        if i == start {
            // A Content of neither role: the client's loop would stop on it; cctool passes it over.
            i += 1;
            continue;
        }
        let run = &mut history[start..i];
        if run.iter().all(valid) {
            out.extend(run.iter_mut().filter(|c| !degraded(c)).map(std::mem::take));
        }
    }
    out
}

fn role(c: &Value) -> &str {
    c.get("role").and_then(Value::as_str).unwrap_or("")
}

fn parts_of(c: &Value) -> &[Value] {
    c.get("parts").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `isValidContent`: parts, none of them empty, none an empty text that is no thought.
fn valid(c: &Value) -> bool {
    let p = parts_of(c);
    !p.is_empty()
        && p.iter().all(|part| {
            let Some(o) = part.as_object() else { return false };
            let empty_text = o.get("text").and_then(Value::as_str) == Some("")
                && !o.get("thought").is_some_and(truthy)
                && !o.get("thoughtSignature").is_some_and(truthy)
                && o.get("functionCall").is_none();
            !o.is_empty() && !empty_text
        })
}

/// `isDegradedPlaceholderTurn`.
fn degraded(c: &Value) -> bool {
    let p = parts_of(c);
    let texts = p.iter().all(|part| {
        part.get("functionCall").is_none() && (part.get("thought").is_some_and(truthy) || part.get("text").is_some())
    });
    let said: String = p
        .iter()
        .filter(|part| !part.get("thought").is_some_and(truthy))
        .map(|part| part.get("text").and_then(Value::as_str).unwrap_or(""))
        .collect();
    !p.is_empty() && texts && said.trim() == DEGRADED_PLACEHOLDER
}

/// QW5: `processContent` of one Content.
fn convert(c: &Value, out: &mut Vec<Value>) {
    let assistant = role(c) == "model";
    let mut texts: Vec<Value> = Vec::new();
    let mut reasoning = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut call_ids = HashSet::new();
    let mut result_ids = HashSet::new();
    for part in parts_of(c) {
        if let Some(t) = part.as_str() {
            texts.push(json!({"type": "text", "text": t}));
            continue;
        }
        let text = part.get("text").and_then(Value::as_str).filter(|t| !t.is_empty());
        let thought = part.get("thought").is_some_and(truthy);
        match (text, thought) {
            (Some(t), true) if assistant => reasoning.push_str(t),
            (Some(t), false) => texts.push(json!({"type": "text", "text": t})),
            _ => {}
        }
        if let (Some(f), true) = (part.get("functionCall").filter(|f| truthy(f)), assistant) {
            let id = f.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
            if id.is_some_and(|i| !call_ids.insert(i.to_string())) {
                continue;
            }
            let args = f.get("args").filter(|a| truthy(a)).cloned().unwrap_or(json!({}));
            calls.push(json!({
                "id": id.map_or_else(|| format!("call_{}", calls.len()), str::to_string),
                "type": "function",
                "function": {
                    "name": f.get("name").and_then(Value::as_str).unwrap_or(""),
                    "arguments": cctool_core::io::json::to_json(&args),
                },
            }));
        }
        if let (Some(r), false) = (part.get("functionResponse").filter(|r| truthy(r)), assistant) {
            let id = r.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
            if id.is_some_and(|i| !result_ids.insert(i.to_string())) {
                continue;
            }
            out.push(tool_message(r));
        }
    }
    if !assistant {
        if !texts.is_empty() {
            out.push(json!({"role": "user", "content": texts}));
        }
        return;
    }
    if texts.is_empty() && calls.is_empty() && reasoning.is_empty() {
        return;
    }
    let joined: String = texts.iter().filter_map(|t| t["text"].as_str()).collect();
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    let content = match (joined.is_empty(), reasoning.is_empty()) {
        (false, _) => json!(joined),
        (true, false) => json!(""),
        (true, true) => Value::Null,
    };
    m.insert("content".into(), content);
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    if !reasoning.is_empty() {
        m.insert("reasoning_content".into(), json!(reasoning));
    }
    out.push(Value::Object(m));
}

/// `createToolMessage`: a function response as a `tool` message.
fn tool_message(r: &Value) -> Value {
    let text = match r.get("response") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(o @ Value::Object(m)) => match (m.get("output"), m.get("error")) {
            (Some(Value::String(s)), _) => s.clone(),
            (_, Some(Value::String(s))) => s.clone(),
            _ => cctool_core::io::json::to_json(o),
        },
        Some(v) => cctool_core::io::json::to_json(v),
    };
    let mut content: Vec<Value> = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    for p in r.get("parts").and_then(Value::as_array).into_iter().flatten() {
        if let Some(t) = p.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            content.push(json!({"type": "text", "text": t}));
        }
    }
    let id = r.get("id").and_then(Value::as_str).unwrap_or("");
    let content = if content.is_empty() {
        json!("")
    } else {
        Value::Array(content)
    };
    json!({"role": "tool", "tool_call_id": id, "content": content})
}

fn calls_of(m: &Value) -> &[Value] {
    if m["role"] != "assistant" {
        return &[];
    }
    m.get("tool_calls").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `mergeConsecutiveAssistantMessages`.
fn merge_assistants(messages: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for m in messages {
        let Some(last) = out
            .last_mut()
            .filter(|l| l["role"] == "assistant" && m["role"] == "assistant")
        else {
            out.push(m);
            continue;
        };
        let as_parts = |c: &Value| match c {
            Value::Array(a) => a.clone(),
            Value::String(s) if !s.is_empty() => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        let content = if last["content"].is_array() || m["content"].is_array() {
            let mut p = as_parts(&last["content"]);
            p.extend(as_parts(&m["content"]));
            if p.is_empty() { Value::Null } else { Value::Array(p) }
        } else {
            let joined = format!(
                "{}{}",
                last["content"].as_str().unwrap_or(""),
                m["content"].as_str().unwrap_or("")
            );
            if joined.is_empty() { Value::Null } else { json!(joined) }
        };
        let mut calls = calls_of(last).to_vec();
        calls.extend(
            m.get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        let reasoning = format!(
            "{}{}",
            last.get("reasoning_content").and_then(Value::as_str).unwrap_or(""),
            m.get("reasoning_content").and_then(Value::as_str).unwrap_or("")
        );
        last["content"] = content;
        if !calls.is_empty() {
            last["tool_calls"] = Value::Array(calls);
        }
        if !reasoning.is_empty() {
            last["reasoning_content"] = json!(reasoning);
        }
    }
    out
}

/// `cleanOrphanedToolCalls`: each assistant's calls kept only when a `tool` message right
/// after it (past other tool messages and assistants without calls) answers them, those
/// results moved to follow it; a result left over is dropped, and an assistant left with no
/// call and no text.
fn clean_orphans(messages: Vec<Value>) -> Vec<Value> {
    let n = messages.len();
    // Per assistant with calls: the positions among them of the calls kept, and its results.
    let mut valid: Vec<Option<(Vec<usize>, Vec<usize>)>> = vec![None; n];
    let mut surviving: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        if calls_of(m).is_empty() {
            continue;
        }
        let mut ids: Vec<&str> = Vec::new();
        let mut candidates: Vec<(usize, &str)> = Vec::new();
        for (k, c) in calls_of(m).iter().enumerate() {
            let Some(id) = c["id"].as_str().filter(|id| !id.is_empty()) else {
                continue;
            };
            if surviving.contains(id) || ids.contains(&id) {
                continue;
            }
            ids.push(id);
            candidates.push((k, id));
        }
        let mut answered: Vec<&str> = Vec::new();
        let mut results = Vec::new();
        for (j, next) in messages.iter().enumerate().skip(i + 1) {
            if next["role"] == "tool" {
                if let Some(id) = next["tool_call_id"].as_str().filter(|id| !id.is_empty())
                    && ids.contains(&id)
                    && !answered.contains(&id)
                {
                    answered.push(id);
                    results.push(j);
                }
                continue;
            }
            if next["role"] == "assistant" && calls_of(next).is_empty() {
                continue;
            }
            break;
        }
        let kept: Vec<(usize, &str)> = candidates.into_iter().filter(|(_, c)| answered.contains(c)).collect();
        surviving.extend(kept.iter().map(|(_, id)| id.to_string()));
        valid[i] = Some((kept.into_iter().map(|(k, _)| k).collect(), results));
    }
    // Each message is emitted at most once, so each is moved out rather than copied: a result
    // is taken by the one assistant whose run of results it stands in (the run stops at the
    // next assistant with calls), and never visited again.
    let mut messages = messages;
    let mut emitted = vec![false; n];
    let mut out = Vec::new();
    for (i, valid) in valid.into_iter().enumerate() {
        if emitted[i] {
            continue;
        }
        let mut m = std::mem::take(&mut messages[i]);
        if let Some((kept, results)) = valid {
            if !kept.is_empty() {
                let mut calls = match m.get_mut("tool_calls") {
                    Some(Value::Array(calls)) => std::mem::take(calls),
                    _ => Vec::new(),
                };
                m["tool_calls"] = Value::Array(
                    kept.into_iter()
                        .filter_map(|k| calls.get_mut(k).map(std::mem::take))
                        .collect(),
                );
                out.push(m);
                for j in results {
                    out.push(std::mem::take(&mut messages[j]));
                    emitted[j] = true;
                }
            } else if m["content"].as_str().is_some_and(|t| !t.trim().is_empty())
                || m.get("reasoning_content").is_some_and(truthy)
            {
                if let Some(o) = m.as_object_mut() {
                    o.remove("tool_calls");
                }
                out.push(m);
            }
        } else if m["role"] != "tool" {
            out.push(m);
        }
    }
    out
}
