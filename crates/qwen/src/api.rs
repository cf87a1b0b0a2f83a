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
//!
//! The passes work on the history's parts borrowed from the session ([`Turn`]) and make typed
//! messages ([`Message`]), written as the client writes them: `scan` measures the request
//! without building it as JSON, and `--api-view` prints it.
//!
//! - QW6: the system prompt, and the `<system-reminder>` parts the client puts before the first
//!   and the new prompt (its skills, its tools, the date, the folder), are the client's own and
//!   are not shown.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::chain::{Chain, truthy};
use crate::file::Session;

mod message;
pub use message::{Assistant, Call, Message};

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

/// A Content of the history as the passes hold it: its role (`""` where it has none that is a
/// string) and its parts, each borrowed from the session until a pass changes or makes it.
#[derive(Clone, Debug, Default)]
struct Turn<'s> {
    role: &'s str,
    parts: Vec<Cow<'s, Value>>,
}

/// The messages the client sends resuming `s` with `prompt` (the prompt last, when given), as
/// JSON.
pub fn messages(s: &Session, chain: &Chain, prompt: Option<&str>) -> Vec<Value> {
    request(s, chain, prompt).0.iter().map(Message::value).collect()
}

/// The messages the client sends resuming `s` with `prompt`, and how often each send-time
/// rule applied.
pub fn request<'s>(s: &'s Session, chain: &Chain, prompt: Option<&'s str>) -> (Vec<Message<'s>>, Applied) {
    let mut applied = Applied::default();
    let mut contents: Vec<Turn<'s>> = chain
        .history_borrowed(s)
        .into_iter()
        .map(|c| Turn {
            role: c.role.unwrap_or(""),
            parts: c.parts.into_iter().map(Cow::Borrowed).collect(),
        })
        .collect();
    if let Some(p) = prompt {
        contents.push(Turn {
            role: "user",
            parts: vec![Cow::Owned(json!({"text": p}))],
        });
    }
    applied.repaired = repair(&mut contents);
    let before = contents.len();
    let contents = curated(contents);
    applied.curated = before - contents.len();
    let mut out = Vec::new();
    for mut c in contents {
        without_media(&mut c, &mut applied.media);
        convert(&c, &mut out);
    }
    let merged = merge_assistants(out);
    let calls = |m: &[Message<'_>]| {
        m.iter()
            .map(|x| x.calls().len() + usize::from(matches!(x, Message::Tool { .. })))
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
fn repair(history: &mut Vec<Turn<'_>>) -> usize {
    let mut changed = 0;
    let mut i = 0;
    while i < history.len() {
        if history[i].role != "model" {
            i += 1;
            continue;
        }
        let Some(Found {
            adjacent,
            end,
            mut inject,
            mut removals,
            hoisted,
        }) = found(history, i)
        else {
            i += 1;
            continue;
        };
        if inject.is_empty() && removals.is_empty() {
            i += 1;
            continue;
        }
        changed += inject.len() + removals.len();
        inject.extend(hoisted);
        // Each Content's parts kept or dropped in one pass, and the user Contents left empty
        // dropped in one more: removed one at a time, many results would cost their square.
        removals.sort_unstable();
        for group in removals.chunk_by(|a, b| a.0 == b.0) {
            let t = group[0].0;
            let mut drop = group.iter().map(|&(_, k)| k).peekable();
            let mut k = 0;
            history[t].parts.retain(|_| {
                let gone = drop.next_if_eq(&k).is_some();
                k += 1;
                !gone
            });
        }
        if end > adjacent + 1 {
            let after: Vec<Turn<'_>> = history
                .drain(adjacent + 1..end)
                .filter(|c| !(c.role == "user" && c.parts.is_empty()))
                .collect();
            history.splice(adjacent + 1..adjacent + 1, after);
        }
        let inserted = put_results(history, adjacent, inject);
        i += 1 + usize::from(inserted);
    }
    changed
}

/// What [`repair`] changes around the model Content at `i`: the user Contents that answer it
/// (from `adjacent`, past model placeholders, to `end`), the results it puts in, the parts it
/// removes (content, part), and the results it moves up.
struct Found<'s> {
    adjacent: usize,
    end: usize,
    inject: Vec<Cow<'s, Value>>,
    removals: Vec<(usize, usize)>,
    hoisted: Vec<Cow<'s, Value>>,
}

/// [`Found`] of the model Content at `i`; `None` where it has no call.
fn found<'s>(history: &[Turn<'s>], i: usize) -> Option<Found<'s>> {
    // Each call id once, in order, with its last name; a map finds its place, so a turn of
    // many calls costs no more than its parts. The ids are borrowed: only a call without a
    // result has its own copied, into the result put in.
    let mut expected: Vec<(&str, &str)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    for p in &history[i].parts {
        if let Some(id) = member(p, "functionCall", "id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
        {
            let name = member(p, "functionCall", "name")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            match place.get(id) {
                Some(&e) => expected[e].1 = name,
                None => {
                    place.insert(id, expected.len());
                    expected.push((id, name));
                }
            }
        }
    }
    if expected.is_empty() {
        return None;
    }
    let mut adjacent = i + 1;
    while adjacent < history.len() && history[adjacent].role == "model" && degraded(&history[adjacent]) {
        adjacent += 1;
    }
    let mut end = adjacent;
    while end < history.len() && history[end].role == "user" {
        end += 1;
    }
    // (content, part) of each result of each expected call, in order.
    let mut found: Vec<Vec<(usize, usize)>> = vec![Vec::new(); expected.len()];
    for (t, turn) in history.iter().enumerate().take(end).skip(adjacent) {
        for (k, p) in turn.parts.iter().enumerate() {
            let id = member(p, "functionResponse", "id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty());
            if let Some(&e) = id.and_then(|id| place.get(id)) {
                found[e].push((t, k));
            }
        }
    }
    let mut out = Found {
        adjacent,
        end,
        inject: Vec::new(),
        removals: Vec::new(),
        hoisted: Vec::new(),
    };
    for (e, (id, name)) in expected.iter().enumerate() {
        let Some(&(t, k)) = found[e].first() else {
            out.inject.push(Cow::Owned(
                json!({"functionResponse": {"id": id, "name": name, "response": {"error": NOT_RECORDED}}}),
            ));
            continue;
        };
        if t != adjacent {
            out.hoisted.push(history[t].parts[k].clone());
            out.removals.push((t, k));
        }
        out.removals.extend(found[e].iter().skip(1));
    }
    Some(out)
}

/// `p[outer][inner]`, as `p.pointer("/outer/inner")` finds it without parsing a pointer.
fn member<'a>(p: &'a Value, outer: &str, inner: &str) -> Option<&'a Value> {
    p.get(outer)?.as_object()?.get(inner)
}

/// Puts `results` into the user Content at `at` before its first part that is no result, or
/// as a new user Content there; whether one was inserted.
fn put_results<'s>(history: &mut Vec<Turn<'s>>, at: usize, results: Vec<Cow<'s, Value>>) -> bool {
    if results.is_empty() {
        return false;
    }
    if let Some(next) = history.get_mut(at).filter(|c| c.role == "user") {
        let k = next
            .parts
            .iter()
            .position(|p| p.get("functionResponse").is_none())
            .unwrap_or(next.parts.len());
        next.parts.splice(k..k, results);
        return false;
    }
    history.insert(
        at,
        Turn {
            role: "user",
            parts: results,
        },
    );
    true
}

/// QW8: `slimCompactionInput` for a model that reads no media: each image (or other file) of
/// a Content, or of a function response's parts, becomes the text `[image: MIME]`
/// (`[document: MIME]`). A part is copied from the session only when it holds one.
fn without_media(c: &mut Turn<'_>, count: &mut usize) {
    for p in &mut c.parts {
        if holds_media(p) {
            slim_part(p.to_mut(), count);
        }
    }
}

/// Whether the part `p`, or a part of its function response, is an image or a file.
fn holds_media(p: &Value) -> bool {
    // Every part is asked, and a part holds a key or two: each looked at in turn, rather than
    // the media text built only to be dropped.
    p.as_object().is_some_and(|o| {
        o.iter().any(|(k, v)| match k.as_str() {
            "inlineData" | "fileData" => truthy(v),
            "functionResponse" => v
                .get("parts")
                .and_then(Value::as_array)
                .is_some_and(|nested| nested.iter().any(holds_media)),
            _ => false,
        })
    })
}

/// The text the client sends in place of the part `p` when it is an image or a file.
fn media_text(p: &Value) -> Option<String> {
    let m = ["inlineData", "fileData"]
        .iter()
        .find_map(|k| p.get(*k).filter(|m| truthy(m)))?;
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
    Some(format!("[{kind}: {clean}]"))
}

fn slim_part(p: &mut Value, count: &mut usize) {
    if let Some(text) = media_text(p) {
        *p = json!({ "text": text });
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
fn curated(mut history: Vec<Turn<'_>>) -> Vec<Turn<'_>> {
    let mut out: Vec<Turn<'_>> = Vec::new();
    let mut i = 0;
    while i < history.len() {
        if history[i].role == "user" {
            // Each Content is looked at once: moved out rather than copied.
            let content = std::mem::take(&mut history[i]);
            match out.last_mut() {
                Some(last) if last.role == "user" => last.parts.extend(content.parts),
                _ => out.push(content),
            }
            i += 1;
            continue;
        }
        let start = i;
        while i < history.len() && history[i].role == "model" {
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

/// `isValidContent`: parts, none of them empty, none an empty text that is no thought.
fn valid(c: &Turn<'_>) -> bool {
    !c.parts.is_empty()
        && c.parts.iter().all(|part| {
            let Some(o) = part.as_object() else { return false };
            let empty_text = o.get("text").and_then(Value::as_str) == Some("")
                && !o.get("thought").is_some_and(truthy)
                && !o.get("thoughtSignature").is_some_and(truthy)
                && o.get("functionCall").is_none();
            !o.is_empty() && !empty_text
        })
}

/// `isDegradedPlaceholderTurn`.
fn degraded(c: &Turn<'_>) -> bool {
    let p = &c.parts;
    let texts = p.iter().all(|part| {
        part.get("functionCall").is_none() && (part.get("thought").is_some_and(truthy) || part.get("text").is_some())
    });
    if p.is_empty() || !texts {
        return false;
    }
    // What the turn says, trimmed, is the placeholder: read in place, not joined into a copy.
    let mut said = p
        .iter()
        .filter(|part| !part.get("thought").is_some_and(truthy))
        .flat_map(|part| part.get("text").and_then(Value::as_str).unwrap_or("").chars())
        .skip_while(|c| c.is_whitespace());
    DEGRADED_PLACEHOLDER.chars().all(|w| said.next() == Some(w)) && said.all(char::is_whitespace)
}

/// How a string of a part goes into a message: borrowed from the session, or copied from a
/// part a pass made (an injected result, an image made text, the new prompt).
type Keep<'a, 's> = dyn Fn(&'a str) -> Cow<'s, str> + 'a;

/// QW5: `processContent` of one Content.
fn convert<'s>(c: &Turn<'s>, out: &mut Vec<Message<'s>>) {
    let mut content = Processed {
        assistant: c.role == "model",
        ..Processed::default()
    };
    for part in &c.parts {
        match part {
            Cow::Borrowed(v) => content.part(v, &Cow::Borrowed, out),
            Cow::Owned(v) => content.part(v, &|t: &str| Cow::Owned(t.to_string()), out),
        }
    }
    content.finish(out);
}

/// What `processContent` gathers of a Content's parts.
#[derive(Default)]
struct Processed<'s> {
    assistant: bool,
    texts: Vec<Cow<'s, str>>,
    reasoning: String,
    calls: Vec<Call<'s>>,
    // The ids as the messages hold them: borrowed from the session, copied only from a part a
    // pass made.
    call_ids: HashSet<Cow<'s, str>>,
    result_ids: HashSet<Cow<'s, str>>,
}

impl<'s> Processed<'s> {
    /// One part: its text or thought, its call (a model's), its result as a `tool` message (a
    /// user's), each call or result id once.
    fn part<'a>(&mut self, part: &'a Value, keep: &Keep<'a, 's>, out: &mut Vec<Message<'s>>) {
        if let Some(t) = part.as_str() {
            self.texts.push(keep(t));
            return;
        }
        let text = part.get("text").and_then(Value::as_str).filter(|t| !t.is_empty());
        let thought = part.get("thought").is_some_and(truthy);
        match (text, thought) {
            (Some(t), true) if self.assistant => self.reasoning.push_str(t),
            (Some(t), false) => self.texts.push(keep(t)),
            _ => {}
        }
        if let (Some(f), true) = (part.get("functionCall").filter(|f| truthy(f)), self.assistant) {
            let id = f.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
            if id.is_some_and(|i| !self.call_ids.insert(keep(i))) {
                return;
            }
            let arguments = match f.get("args").filter(|a| truthy(a)) {
                Some(args) => cctool_core::io::json::to_json(args),
                None => "{}".to_string(),
            };
            self.calls.push(Call {
                id: id.map_or_else(|| Cow::Owned(format!("call_{}", self.calls.len())), keep),
                name: keep(f.get("name").and_then(Value::as_str).unwrap_or("")),
                arguments,
            });
        }
        if let (Some(r), false) = (part.get("functionResponse").filter(|r| truthy(r)), self.assistant) {
            let id = r.get("id").and_then(Value::as_str).filter(|i| !i.is_empty());
            if id.is_some_and(|i| !self.result_ids.insert(keep(i))) {
                return;
            }
            out.push(tool_message(r, keep));
        }
    }

    /// The user's texts as one message, or the model's texts, calls and thoughts as one.
    fn finish(self, out: &mut Vec<Message<'s>>) {
        if !self.assistant {
            if !self.texts.is_empty() {
                out.push(Message::User(self.texts));
            }
            return;
        }
        if self.texts.is_empty() && self.calls.is_empty() && self.reasoning.is_empty() {
            return;
        }
        let joined: String = self.texts.concat();
        let content = match (joined.is_empty(), self.reasoning.is_empty()) {
            (false, _) => Some(joined),
            (true, false) => Some(String::new()),
            (true, true) => None,
        };
        out.push(Message::Assistant(Assistant {
            content,
            calls: self.calls,
            reasoning: self.reasoning,
            calls_last: false,
        }));
    }
}

/// `createToolMessage`: the function response `r` as a `tool` message.
fn tool_message<'a, 's>(r: &'a Value, keep: &Keep<'a, 's>) -> Message<'s> {
    let text: Cow<'s, str> = match r.get("response") {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(s)) => keep(s),
        Some(o @ Value::Object(m)) => match (m.get("output"), m.get("error")) {
            (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => keep(s),
            _ => Cow::Owned(cctool_core::io::json::to_json(o)),
        },
        Some(v) => Cow::Owned(cctool_core::io::json::to_json(v)),
    };
    let nested = r.get("parts").and_then(Value::as_array).into_iter().flatten();
    let texts = std::iter::once(text)
        .filter(|t| !t.is_empty())
        .chain(
            nested
                .filter_map(|p| p.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()))
                .map(keep),
        )
        .collect();
    Message::Tool {
        id: keep(r.get("id").and_then(Value::as_str).unwrap_or("")),
        texts,
    }
}

/// `mergeConsecutiveAssistantMessages`. An assistant message's content is never an array
/// here ([`convert`] writes a string or `null`), so contents are joined as strings.
fn merge_assistants(messages: Vec<Message<'_>>) -> Vec<Message<'_>> {
    let mut out: Vec<Message<'_>> = Vec::new();
    for m in messages {
        if let Message::Assistant(next) = m {
            if let Some(Message::Assistant(last)) = out.last_mut() {
                last.join(next);
                continue;
            }
            out.push(Message::Assistant(next));
            continue;
        }
        out.push(m);
    }
    out
}

/// `cleanOrphanedToolCalls`: each assistant's calls kept only when a `tool` message right
/// after it (past other tool messages and assistants without calls) answers them, those
/// results moved to follow it; a result left over is dropped, and an assistant left with no
/// call and no text.
fn clean_orphans(messages: Vec<Message<'_>>) -> Vec<Message<'_>> {
    let n = messages.len();
    // Per assistant with calls: the positions among them of the calls kept, and its results.
    let mut valid: Vec<Option<(Vec<usize>, Vec<usize>)>> = vec![None; n];
    let mut surviving: HashSet<&str> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        if m.calls().is_empty() {
            continue;
        }
        // Sets, not lists: a message of many calls costs no more than its calls.
        let mut ids: HashSet<&str> = HashSet::new();
        let mut candidates: Vec<(usize, &str)> = Vec::new();
        for (k, c) in m.calls().iter().enumerate() {
            let id: &str = &c.id;
            if id.is_empty() || surviving.contains(id) || !ids.insert(id) {
                continue;
            }
            candidates.push((k, id));
        }
        let mut answered: HashSet<&str> = HashSet::new();
        let mut results = Vec::new();
        for (j, next) in messages.iter().enumerate().skip(i + 1) {
            match next {
                Message::Tool { id, .. } => {
                    let id: &str = id;
                    if !id.is_empty() && ids.contains(id) && answered.insert(id) {
                        results.push(j);
                    }
                }
                Message::Assistant(a) if a.calls.is_empty() => {}
                _ => break,
            }
        }
        let kept: Vec<(usize, &str)> = candidates.into_iter().filter(|(_, c)| answered.contains(c)).collect();
        surviving.extend(kept.iter().map(|(_, id)| *id));
        valid[i] = Some((kept.into_iter().map(|(k, _)| k).collect(), results));
    }
    // Each message is emitted at most once, so each is moved out rather than copied: a result
    // is taken by the one assistant whose run of results it stands in (the run stops at the
    // next assistant with calls), and never visited again.
    let mut messages: Vec<Option<Message<'_>>> = messages.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for (i, valid) in valid.into_iter().enumerate() {
        let Some(mut m) = messages[i].take() else { continue };
        match (valid, &mut m) {
            (Some((kept, results)), Message::Assistant(a)) => {
                if !kept.is_empty() {
                    let mut calls: Vec<Option<Call<'_>>> = std::mem::take(&mut a.calls).into_iter().map(Some).collect();
                    a.calls = kept
                        .into_iter()
                        .filter_map(|k| calls.get_mut(k).and_then(Option::take))
                        .collect();
                    out.push(m);
                    out.extend(results.into_iter().filter_map(|j| messages[j].take()));
                } else if a.content.as_deref().is_some_and(|t| !t.trim().is_empty()) || !a.reasoning.is_empty() {
                    a.calls.clear();
                    a.calls_last = false;
                    out.push(m);
                }
            }
            (_, Message::Tool { .. }) => {}
            _ => out.push(m),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `isDegradedPlaceholderTurn` as the client writes it: the non-thought texts joined, then
    /// trimmed, are the placeholder.
    fn joined_then_trimmed(parts: &[Value]) -> bool {
        let texts = parts.iter().all(|part| {
            part.get("functionCall").is_none()
                && (part.get("thought").is_some_and(truthy) || part.get("text").is_some())
        });
        let said: String = parts
            .iter()
            .filter(|part| !part.get("thought").is_some_and(truthy))
            .map(|part| part.get("text").and_then(Value::as_str).unwrap_or(""))
            .collect();
        !parts.is_empty() && texts && said.trim() == DEGRADED_PLACEHOLDER
    }

    #[test]
    fn a_placeholder_turn_is_told_as_the_client_tells_it() {
        let t = |s: &str| json!({ "text": s });
        let turns = [
            vec![t("(request timeout)")],
            vec![t(" \n\u{3000}(request timeout)\t ")],
            vec![t("(request"), t(" timeout)")],
            vec![
                t("  (req"),
                json!({"text": "hidden", "thought": true}),
                t("uest timeout)\n"),
            ],
            vec![t("(request timeout)x")],
            vec![t("(request timeout"), t("")],
            vec![t("x(request timeout)")],
            vec![t("(request timeout) (request timeout)")],
            vec![t("(request timeout)"), json!({"functionCall": {"name": "f"}})],
            vec![t("(request timeout)"), json!({"thought": true})],
            vec![t("(request timeout)"), json!({"inlineData": {}})],
            vec![json!({"text": 5}), t("(request timeout)")],
            vec![t("")],
            vec![],
        ];
        for parts in turns {
            let turn = Turn {
                role: "model",
                parts: parts.iter().map(Cow::Borrowed).collect(),
            };
            assert_eq!(degraded(&turn), joined_then_trimmed(&parts), "{parts:?}");
        }
    }
}
