//! What a resume sends: the loaded messages as the client turns them into its history
//! (`convertSessionToClientHistory`), the turn it closes, the prompt, and the request's own
//! passes (`getHistoryTurns(true)`: curated, thoughts stripped, roles coalesced; then
//! `stripToolCallIdPrefixes`). Each rule is named in `docs/gemini.md` (GM1…).

use serde_json::{Map, Value, json};

use crate::replay::Replay;

/// What the client puts in after a turn that ends on an unanswered tool response (GM6).
pub const INTERRUPTED: &str = "[The previous response was interrupted before it completed.]";
/// The signature the client gives a model turn's first call when it strips the turn's
/// thoughts (GM7).
pub const SYNTHETIC_SIGNATURE: &str = "skip_thought_signature_validator";
/// How the client's session context starts: sent first, never kept from the log (GM1).
pub const SESSION_CONTEXT: &str = "<session_context>";

/// A part list as the client reads it into a string (`partListUnionToString`, verbose).
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().map(|p| text_of(Some(p))).collect(),
        Some(Value::Object(p)) => part_text(p),
        _ => String::new(),
    }
}

fn part_text(p: &Map<String, Value>) -> String {
    let name = |k: &str| {
        p.get(k)
            .and_then(|v| v.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("undefined")
            .to_string()
    };
    let has = |k: &str| p.get(k).is_some_and(|v| !v.is_null());
    if has("videoMetadata") {
        "[Video Metadata]".into()
    } else if let Some(t) = p.get("thought").filter(|v| !v.is_null()) {
        format!("[Thought: {}]", js_string(t))
    } else if has("codeExecutionResult") {
        "[Code Execution Result]".into()
    } else if has("executableCode") {
        "[Executable Code]".into()
    } else if has("fileData") {
        "[File Data]".into()
    } else if has("functionCall") {
        format!("[Function Call: {}]", name("functionCall"))
    } else if has("functionResponse") {
        format!("[Function Response: {}]", name("functionResponse"))
    } else if has("inlineData") {
        "[Media]".into()
    } else {
        p.get("text").and_then(Value::as_str).unwrap_or("").to_string()
    }
}

fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether the client leaves out a user message of this text (`isIgnoredUserContent`): empty,
/// a slash command or `?` help (GM2), the session context or a hook's context (GM1).
pub fn ignored(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.starts_with('/')
        || t.starts_with('?')
        || t.starts_with(SESSION_CONTEXT)
        || t.starts_with("<hook_context>")
}

/// A content as parts (`ensurePartArray`).
fn parts_of(content: Value) -> Vec<Value> {
    match content {
        Value::Array(a) => a
            .into_iter()
            .map(|p| match p {
                Value::String(s) => json!({ "text": s }),
                other => other,
            })
            .collect(),
        Value::String(s) => vec![json!({ "text": s })],
        other => vec![other],
    }
}

/// The turns (`role`, parts) the client makes of one loaded message (GM2, GM3), its parts
/// moved out of it.
pub fn turns_of(mut m: Map<String, Value>) -> Vec<(&'static str, Vec<Value>)> {
    match m.get("type").and_then(Value::as_str) {
        Some("user") => {
            if ignored(&text_of(m.get("content"))) {
                return Vec::new();
            }
            vec![("user", parts_of(m.swap_remove("content").unwrap_or(Value::Null)))]
        }
        Some("gemini") => gemini_turns(m),
        _ => Vec::new(),
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(_) => true,
    }
}

fn gemini_turns(mut m: Map<String, Value>) -> Vec<(&'static str, Vec<Value>)> {
    let content = m.swap_remove("content").filter(|c| truthy(Some(c)));
    let content_parts = content.map(parts_of).unwrap_or_default();
    let mut calls = match m.swap_remove("toolCalls") {
        Some(Value::Array(c)) => c,
        _ => Vec::new(),
    };
    let mut model = Vec::new();
    let in_content = content_parts
        .iter()
        .any(|p| truthy(p.get("functionCall")) || truthy(p.get("thought")));
    if in_content {
        model = content_parts;
    } else {
        for t in m.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
            let d = js_string(t.get("description").unwrap_or(&Value::Null));
            let text = match t.get("subject").filter(|s| truthy(Some(s))) {
                Some(s) => format!("**{}** {d}", js_string(s)),
                None => d,
            };
            model.push(json!({ "text": text, "thought": true }));
        }
        model.extend(content_parts);
        for c in &mut calls {
            let args = c.as_object_mut().and_then(|o| o.swap_remove("args"));
            let call = object([
                ("id", c.get("id").cloned()),
                ("name", c.get("name").cloned()),
                ("args", args),
            ]);
            model.push(json!({ "functionCall": call }));
        }
    }
    model_turns(model, || calls.iter_mut().flat_map(response_parts).collect())
}

/// The turns of a `gemini` message: its model turn, then a user turn of its calls' results;
/// none when the model turn is empty (GM3).
pub fn model_turns<P>(model: Vec<P>, responses: impl FnOnce() -> Vec<P>) -> Vec<(&'static str, Vec<P>)> {
    if model.is_empty() {
        return Vec::new();
    }
    let mut out = vec![("model", model)];
    let responses = responses();
    if !responses.is_empty() {
        out.push(("user", responses));
    }
    out
}

/// The function responses the client makes of one stored call's `result`, moved out of it.
fn response_parts(c: &mut Value) -> Vec<Value> {
    match c.as_object_mut().and_then(|o| o.swap_remove("result")) {
        None | Some(Value::Null) => Vec::new(),
        Some(r) if !truthy(Some(&r)) => Vec::new(),
        Some(Value::String(s)) => {
            let output = json!({ "output": s });
            let f = object([
                ("id", c.get("id").cloned()),
                ("name", c.get("name").cloned()),
                ("response", Some(output)),
            ]);
            vec![json!({ "functionResponse": f })]
        }
        Some(r @ Value::Array(_)) => parts_of(r),
        Some(other) => vec![other],
    }
}

/// An object of the fields that are there, as JavaScript writes one whose other fields are
/// `undefined`.
fn object<const N: usize>(fields: [(&str, Option<Value>); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
            .collect(),
    )
}

/// Whether a resume sends anything of message `m`: whether [`turns_of`] makes any turn of it,
/// told from what the turns would hold without building them (a user's text; a model's parts,
/// thoughts and calls).
pub fn sends(m: &Map<String, Value>) -> bool {
    match m.get("type").and_then(Value::as_str) {
        Some("user") => !ignored(&text_of(m.get("content"))),
        Some("gemini") => {
            let content = match m.get("content").filter(|c| truthy(Some(c))) {
                Some(Value::Array(a)) => a.len(),
                Some(_) => 1,
                None => 0,
            };
            let thoughts = m.get("thoughts").and_then(Value::as_array).map_or(0, Vec::len);
            let calls = m.get("toolCalls").and_then(Value::as_array).map_or(0, Vec::len);
            content + thoughts + calls > 0
        }
        _ => false,
    }
}

/// The session context a resume sends first: the client makes it anew in the folder and on the
/// day it runs; the latest one the log holds is the one it made last (GM1).
pub fn session_context(r: &Replay) -> Option<Vec<Value>> {
    r.msgs.iter().rev().find_map(|m| {
        let text = text_of(m.value.get("content"));
        (m.ty() == "user" && text.trim().starts_with(SESSION_CONTEXT))
            .then(|| parts_of(m.value.get("content").cloned().unwrap_or(Value::Null)))
    })
}

/// A part of the request as its passes read and change it: a `Value`, or the fast reading's
/// part kept as its length and the few fields the passes ask of it ([`crate::lite::LitePart`]).
pub trait Part: Sized {
    /// `{"text": s}`.
    fn text(s: &str) -> Self;
    /// What `isValidContent` asks of each part: an object with a field, and not an empty text
    /// alone.
    fn valid(&self) -> bool;
    /// Whether it is a thought (a truthy `thought`).
    fn thought(&self) -> bool;
    /// Whether it answers a call (a truthy `functionResponse`).
    fn answers(&self) -> bool;
    /// On a part with a `functionCall`: gives it the synthetic signature unless it has one, and
    /// says it did (GM7).
    fn sign(&mut self) -> bool;
    /// `stripToolCallIdPrefixes` of one part: `None` when it goes (GM8).
    fn strip_ids(self) -> Option<Self>;
}

impl Part for Value {
    fn text(s: &str) -> Self {
        json!({ "text": s })
    }

    fn valid(&self) -> bool {
        let Some(o) = self.as_object() else { return false };
        let others = o.keys().any(|k| k != "text" && k != "thought" && k != "callIndex");
        !o.is_empty() && (truthy(o.get("thought")) || o.get("text").and_then(Value::as_str) != Some("") || others)
    }

    fn thought(&self) -> bool {
        truthy(self.get("thought"))
    }

    fn answers(&self) -> bool {
        truthy(self.get("functionResponse"))
    }

    fn sign(&mut self) -> bool {
        if self.get("functionCall").is_none() {
            return false;
        }
        if let Some(o) = self.as_object_mut() {
            o.entry("thoughtSignature").or_insert(json!(SYNTHETIC_SIGNATURE));
        }
        true
    }

    fn strip_ids(mut self) -> Option<Self> {
        let o = self.as_object_mut()?;
        for key in ["functionCall", "functionResponse"] {
            let Some(Value::Object(f)) = o.get_mut(key) else {
                continue;
            };
            let Some(rest) = f
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| id.strip_prefix(&call_prefix(f.get("name").and_then(Value::as_str))))
            else {
                continue;
            };
            let rest = json!(rest);
            let second = if key == "functionCall" { "args" } else { "response" };
            let rebuilt = object([
                ("name", f.swap_remove("name")),
                (second, f.swap_remove(second)),
                ("id", Some(rest)),
            ]);
            o.insert(key.into(), rebuilt);
        }
        if let Some(Value::Object(f)) = o.get_mut("functionCall") {
            // The API library writes a call's fields in its own order.
            let mut ordered = Map::new();
            for k in ["id", "args", "name"] {
                if let Some(v) = f.remove(k) {
                    ordered.insert(k.into(), v);
                }
            }
            ordered.append(f);
            *f = ordered;
        }
        let others = o.keys().any(|k| k != "text" && k != "thought" && k != "callIndex");
        if o.get("text").and_then(Value::as_str) == Some("") {
            if !others {
                return None;
            }
            o.remove("text");
        }
        Some(self)
    }
}

/// What `stripToolCallIdPrefixes` strips from a call's id: its tool's name (trimmed) and `__`.
pub fn call_prefix(name: Option<&str>) -> String {
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    format!("{}__", name.unwrap_or("generic_tool"))
}

/// The request's `contents` after a resume of `r` with `prompt`; each loaded message is
/// sent once, so its parts are moved into the request, not copied.
pub fn contents(mut r: Replay, prompt: &str) -> Vec<Value> {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    if let Some(ctx) = session_context(&r) {
        turns.push(("user", ctx));
    }
    for &i in &r.loaded {
        turns.extend(turns_of(std::mem::take(&mut r.msgs[i].value)));
    }
    request(turns, prompt)
        .into_iter()
        .map(|(role, parts)| {
            // As `json!` writes it, without passing the parts through the serializer again.
            let mut content = Map::new();
            content.insert("parts".into(), Value::Array(parts));
            content.insert("role".into(), Value::from(role));
            Value::Object(content)
        })
        .collect()
}

/// The request's turns (role, parts) after the history's `turns`: the turn an unanswered tool
/// response needs (GM6), the prompt, then the client's passes (GM5, GM7, GM4, GM8).
pub fn request<P: Part>(mut turns: Vec<(&'static str, Vec<P>)>, prompt: &str) -> Vec<(&'static str, Vec<P>)> {
    let unanswered = turns
        .last()
        .is_some_and(|(role, parts)| *role == "user" && parts.iter().any(P::answers));
    if unanswered {
        turns.push(("model", vec![P::text(INTERRUPTED)]));
    }
    turns.push(("user", vec![P::text(prompt)]));
    let turns = strip_thoughts(curated(turns));
    coalesce(turns)
        .into_iter()
        .map(|(role, parts)| (role, parts.into_iter().filter_map(P::strip_ids).collect()))
        .collect()
}

/// `isValidContent`: what makes the curated history leave a run of model turns out.
fn valid<P: Part>(role: &str, parts: &[P]) -> bool {
    if parts.is_empty() {
        return role == "model";
    }
    parts.iter().all(P::valid)
}

/// `extractCuratedHistory`: a run of model turns with one invalid turn is left out whole (GM5).
fn curated<P: Part>(turns: Vec<(&'static str, Vec<P>)>) -> Vec<(&'static str, Vec<P>)> {
    let mut out = Vec::new();
    let mut run: Vec<(&'static str, Vec<P>)> = Vec::new();
    let flush = |run: &mut Vec<(&'static str, Vec<P>)>, out: &mut Vec<_>| {
        if run.iter().all(|(r, p)| valid(r, p)) {
            out.append(run);
        }
        run.clear();
    };
    for t in turns {
        if t.0 == "model" {
            run.push(t);
        } else {
            flush(&mut run, &mut out);
            out.push(t);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// `stripThoughts`: thought parts go; a model turn that had some gives its first call the
/// synthetic signature; a turn left with no parts goes (GM7).
fn strip_thoughts<P: Part>(turns: Vec<(&'static str, Vec<P>)>) -> Vec<(&'static str, Vec<P>)> {
    turns
        .into_iter()
        .filter_map(|(role, parts)| {
            if !parts.iter().any(P::thought) {
                return Some((role, parts));
            }
            let mut patched = false;
            let kept: Vec<P> = parts
                .into_iter()
                .filter(|p| !p.thought())
                .map(|mut p| {
                    if role == "model" && !patched {
                        patched = p.sign();
                    }
                    p
                })
                .collect();
            (!kept.is_empty()).then_some((role, kept))
        })
        .collect()
}

/// `coalesceConsecutiveRoles`: turns of one role in a row become one (GM4).
fn coalesce<P>(turns: Vec<(&'static str, Vec<P>)>) -> Vec<(&'static str, Vec<P>)> {
    let mut out: Vec<(&'static str, Vec<P>)> = Vec::new();
    for (role, parts) in turns {
        match out.last_mut() {
            Some((r, p)) if *r == role => p.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::io::Source;

    fn sent(lines: &[&str]) -> Vec<Value> {
        let head = r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#;
        let text = format!("{head}\n{}\n", lines.join("\n"));
        let src = Source::from_bytes("t.jsonl", text.into_bytes());
        contents(crate::replay::replay(&mut crate::file::read(&src).unwrap()), "go")
    }

    #[test]
    fn an_unanswered_tool_response_is_closed_by_the_placeholder() {
        let c = sent(&[
            r#"{"id":"a","type":"user","content":"run it"}"#,
            r#"{"id":"b","type":"gemini","content":"","toolCalls":[{"id":"t__1","name":"t","args":{},"result":"out"}]}"#,
        ]);
        assert_eq!(c[2]["parts"][0]["functionResponse"]["id"], "1", "{c:?}");
        assert_eq!(c[3], json!({"parts": [{"text": INTERRUPTED}], "role": "model"}));
        assert_eq!(c[4]["parts"][0]["text"], "go");
    }

    #[test]
    fn thoughts_are_stripped_and_the_first_call_signed() {
        let c = sent(&[
            r#"{"id":"a","type":"user","content":"hi"}"#,
            r#"{"id":"b","type":"gemini","content":"ok","thoughts":[{"subject":"S","description":"d"}],"toolCalls":[{"id":"x","name":"t","args":{}}]}"#,
        ]);
        let parts = c[1]["parts"].as_array().unwrap();
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(parts[1]["thoughtSignature"], SYNTHETIC_SIGNATURE);
    }

    #[test]
    fn a_run_of_model_turns_with_an_empty_text_is_left_out() {
        let c = sent(&[
            r#"{"id":"a","type":"user","content":"hi"}"#,
            r#"{"id":"b","type":"gemini","content":[{"text":""}],"thoughts":[]}"#,
        ]);
        // The prompt follows the user's text in one turn: the model's invalid turn went.
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0]["parts"].as_array().unwrap().len(), 2);
    }

    /// Every message of every fixture, and edge cases: `sends` says what `turns_of` makes.
    #[test]
    fn sends_is_whether_any_turn_is_made() {
        let mut msgs: Vec<Value> = [
            r#"{"type":"gemini"}"#,
            r#"{"type":"gemini","content":"","thoughts":[],"toolCalls":[]}"#,
            r#"{"type":"gemini","content":[],"thoughts":{},"toolCalls":{}}"#,
            r#"{"type":"gemini","content":0,"thoughts":[{}]}"#,
            r#"{"type":"gemini","content":false,"toolCalls":[{"id":"x"}]}"#,
            r#"{"type":"gemini","content":{"thought":true},"toolCalls":[]}"#,
            r#"{"type":"gemini","content":[{"functionCall":{}}],"thoughts":[{"subject":"s"}]}"#,
            r#"{"type":"gemini","content":"x","type":"user"}"#,
            r#"{"type":"user","content":[{"text":" /x"}]}"#,
            r#"{"type":"user","content":{"functionCall":{"name":"n"}}}"#,
            r#"{"type":"user"}"#,
            r#"{"type":"info","content":"x"}"#,
            r#"{"content":"x"}"#,
        ]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        for f in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/gemini")).unwrap() {
            let path = f.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let src = Source::from_bytes("f.jsonl", std::fs::read(&path).unwrap());
                let r = crate::replay::replay(&mut crate::file::read(&src).unwrap());
                msgs.extend(r.msgs.into_iter().map(|m| Value::Object(m.value)));
            }
        }
        assert!(msgs.len() > 50);
        for m in &msgs {
            let m = m.as_object().unwrap();
            assert_eq!(sends(m), !turns_of(m.clone()).is_empty(), "{m:?}");
        }
    }

    #[test]
    fn slash_commands_and_notices_are_not_sent() {
        let c = sent(&[
            r#"{"id":"a","type":"user","content":"/memory show"}"#,
            r#"{"id":"i","type":"info","content":"note"}"#,
            r#"{"id":"b","type":"gemini","content":"reply"}"#,
        ]);
        assert_eq!(c[0], json!({"parts": [{"text": "reply"}], "role": "model"}));
    }
}
