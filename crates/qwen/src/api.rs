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
//! The passes work on the history's parts as they read them ([`Part`]: each key they ask for,
//! read once), their strings borrowed from the session ([`Turn`]), and make typed messages
//! ([`Message`]), written as the client writes them: `scan` measures the request without
//! building it as JSON, and `--api-view` prints it. `scan`'s fast reader reads its parts
//! straight from the file ([`crate::lite`]), a whole session's are read from their `Value`s
//! ([`Part::of`]).
//!
//! - QW6: the system prompt, and the `<system-reminder>` parts the client puts before the first
//!   and the new prompt (its skills, its tools, the date, the folder), are the client's own and
//!   are not shown.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::chain::Chain;
use crate::file::Session;

mod message;
pub mod part;
pub use message::{Assistant, Call, Message};
pub use part::Part;
use part::{ResponsePart, Shape, Text};

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
/// string) and its parts, their strings borrowed from the session unless a pass made them.
#[derive(Clone, Debug, Default)]
struct Turn<'s> {
    role: &'s str,
    parts: Vec<Part<'s>>,
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
        .history_parts(s)
        .into_iter()
        .map(|c| Turn {
            role: c.role.unwrap_or(""),
            parts: c.parts,
        })
        .collect();
    if let Some(p) = prompt {
        contents.push(Turn {
            role: "user",
            parts: vec![Part::text(Cow::Borrowed(p))],
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
    inject: Vec<Part<'s>>,
    removals: Vec<(usize, usize)>,
    hoisted: Vec<Part<'s>>,
}

/// [`Found`] of the model Content at `i`; `None` where it has no call.
fn found<'s>(history: &[Turn<'s>], i: usize) -> Option<Found<'s>> {
    // Each call id once, in order; a map finds its place, so a turn of many calls costs no
    // more than its parts. The ids are borrowed: only a call without a result has its own
    // copied, into the result put in. (The client names that result after the call's last
    // name, which no message sends.)
    let mut expected: Vec<&Cow<'s, str>> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    for p in &history[i].parts {
        if let Some(id) = p.call.as_ref().and_then(|c| c.id.as_ref()).filter(|id| !id.is_empty())
            && !place.contains_key(id.as_ref())
        {
            place.insert(id, expected.len());
            expected.push(id);
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
            let id = p
                .response
                .as_ref()
                .and_then(|r| r.id.as_deref())
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
    for (e, id) in expected.into_iter().enumerate() {
        let Some(&(t, k)) = found[e].first() else {
            out.inject.push(Part {
                keys: 1,
                response: Some(ResponsePart {
                    truthy: true,
                    id: Some(id.clone()),
                    sent: Cow::Borrowed(NOT_RECORDED),
                    parts: None,
                }),
                ..Part::default()
            });
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

/// Puts `results` into the user Content at `at` before its first part that is no result, or
/// as a new user Content there; whether one was inserted.
fn put_results<'s>(history: &mut Vec<Turn<'s>>, at: usize, results: Vec<Part<'s>>) -> bool {
    if results.is_empty() {
        return false;
    }
    if let Some(next) = history.get_mut(at).filter(|c| c.role == "user") {
        let k = next
            .parts
            .iter()
            .position(|p| p.response.is_none())
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
/// (`[document: MIME]`).
fn without_media(c: &mut Turn<'_>, count: &mut usize) {
    for p in &mut c.parts {
        if holds_media(p) {
            slim_part(p, count);
        }
    }
}

/// Whether the part `p`, or a part of its function response, is an image or a file.
fn holds_media(p: &Part<'_>) -> bool {
    p.media.is_some()
        || p.response
            .as_ref()
            .and_then(|r| r.parts.as_ref())
            .is_some_and(|nested| nested.iter().any(holds_media))
}

/// The text the client sends in place of the part `p` when it is an image or a file.
fn media_text(p: &Part<'_>) -> Option<String> {
    let mime = p.media.as_ref()?.as_deref().unwrap_or("application/octet-stream");
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

fn slim_part(p: &mut Part<'_>, count: &mut usize) {
    if let Some(text) = media_text(p) {
        *p = Part::text(Cow::Owned(text));
        *count += 1;
        return;
    }
    if let Some(nested) = p.response.as_mut().and_then(|r| r.parts.as_mut()) {
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
            if part.shape != Shape::Object {
                return false;
            }
            let empty_text = part.text.as_str() == Some("") && !part.thought && !part.signature && part.call.is_none();
            part.keys != 0 && !empty_text
        })
}

/// `isDegradedPlaceholderTurn`.
fn degraded(c: &Turn<'_>) -> bool {
    let p = &c.parts;
    let texts = p
        .iter()
        .all(|part| part.call.is_none() && (part.thought || part.text != Text::Absent));
    if p.is_empty() || !texts {
        return false;
    }
    // What the turn says, trimmed, is the placeholder: read in place, not joined into a copy.
    let mut said = p
        .iter()
        .filter(|part| !part.thought)
        .flat_map(|part| part.text.as_str().unwrap_or("").chars())
        .skip_while(|c| c.is_whitespace());
    DEGRADED_PLACEHOLDER.chars().all(|w| said.next() == Some(w)) && said.all(char::is_whitespace)
}

/// QW5: `processContent` of one Content.
fn convert<'s>(c: &Turn<'s>, out: &mut Vec<Message<'s>>) {
    let mut content = Processed {
        assistant: c.role == "model",
        ..Processed::default()
    };
    for part in &c.parts {
        content.part(part, out);
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
    fn part(&mut self, part: &Part<'s>, out: &mut Vec<Message<'s>>) {
        if let Some(t) = &part.string {
            self.texts.push(t.clone());
            return;
        }
        let text = match &part.text {
            Text::Str(t) if !t.is_empty() => Some(t),
            _ => None,
        };
        match (text, part.thought) {
            (Some(t), true) if self.assistant => self.reasoning.push_str(t),
            (Some(t), false) => self.texts.push(t.clone()),
            _ => {}
        }
        if let (Some(f), true) = (part.call.as_ref().filter(|f| f.truthy), self.assistant) {
            let id = f.id.as_ref().filter(|i| !i.is_empty());
            if id.is_some_and(|i| !self.call_ids.insert(i.clone())) {
                return;
            }
            self.calls.push(Call {
                id: id.map_or_else(|| Cow::Owned(format!("call_{}", self.calls.len())), Cow::clone),
                name: f.name.clone().unwrap_or(Cow::Borrowed("")),
                arguments: f.args.clone().unwrap_or(Cow::Borrowed("{}")),
            });
        }
        if let (Some(r), false) = (part.response.as_ref().filter(|r| r.truthy), self.assistant) {
            let id = r.id.as_ref().filter(|i| !i.is_empty());
            if id.is_some_and(|i| !self.result_ids.insert(i.clone())) {
                return;
            }
            out.push(tool_message(r));
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
fn tool_message<'s>(r: &ResponsePart<'s>) -> Message<'s> {
    let nested = r.parts.iter().flatten().filter_map(|p| match &p.text {
        Text::Str(t) if !t.is_empty() => Some(t.clone()),
        _ => None,
    });
    let texts = std::iter::once(r.sent.clone())
        .filter(|t| !t.is_empty())
        .chain(nested)
        .collect();
    Message::Tool {
        id: r.id.clone().unwrap_or(Cow::Borrowed("")),
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
    use serde_json::json;

    use super::*;
    use crate::chain::truthy;

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
                parts: parts.iter().map(Part::of).collect(),
            };
            assert_eq!(degraded(&turn), joined_then_trimmed(&parts), "{parts:?}");
        }
    }
}
