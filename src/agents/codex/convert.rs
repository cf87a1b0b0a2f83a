//! Codex rollouts to and from the conversation of `cctool convert` (`docs/convert.md`).
//!
//! Read: the history a resume reconstructs (`history.rs`), from its last compaction, or with
//! `full` every item of the file in order with each compaction at its place. Written: a
//! `session_meta` with a UUID id and string timestamps (Codex resumes nothing otherwise), the
//! items as `response_item`s, `user_message` and `agent_message` events (the resume picker and
//! the resumed screen show nothing without them), an estimated `token_count` at the end of
//! each turn (Codex decides on it whether to compact first), each compaction a `compacted`
//! record whose `replacement_history` is the summary.

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use super::history;
use super::rollout::{self as codex, ItemSrc, Record, SUMMARY_PREFIX, summary_body};
use crate::agents::cctool::schema::parse_arguments;
use crate::convert::model::{Block, Body, Conversation, Image, Part, ToolCall, ToolResult};
use crate::convert::tools::{self, CodexCall};
use crate::convert::{Clock, Tally, WriteOptions, line, reasoning_text};
use crate::io::Source;
use crate::model::Format;

/// The conversation a resume of `src` loads (`full`: every item of the file).
pub fn read(src: &Source, full: bool) -> std::io::Result<Conversation> {
    let rollout = codex::read_records(src)?;
    let mut c = Conversation::new(Format::Codex);
    let mut ts_of: FxHashMap<u64, String> = FxHashMap::default();
    let mut session_id = None;
    crate::io::for_each_line(src, |l| {
        let h = crate::convert::line_head(l.bytes);
        let p = h.payload.unwrap_or_default();
        match h.ty.as_deref().unwrap_or("") {
            "session_meta" => {
                session_id = session_id.take().or_else(|| p.id.map(|s| s.into_owned()));
                if let Some(cwd) = p.cwd {
                    c.cwd = Some(cwd.into_owned());
                }
                c.drop("session_meta");
            }
            "turn_context" => {
                if let Some(m) = p.model {
                    c.model = Some(m.into_owned());
                }
                if let Some(cwd) = p.cwd {
                    c.cwd = Some(cwd.into_owned());
                }
                c.drop("turn_context");
            }
            "event_msg" => {
                let et = p.ty.as_deref().unwrap_or("?");
                // The prompt and reply events repeat items that are carried.
                if !matches!(et, "user_message" | "agent_message") {
                    c.drop(&format!("event_msg:{et}"));
                }
            }
            "response_item" | "compacted" => {
                if let Some(ts) = h.timestamp {
                    ts_of.insert(l.no, ts.into_owned());
                }
            }
            "" => {}
            other => c.drop(other),
        }
    })?;
    c.session_id = session_id.unwrap_or_else(|| src.name().to_string());
    let mut r = Reader { src, c, ts_of };
    if full {
        for (line, rec) in &rollout.records {
            match rec {
                Record::Response(item) => r.item(item)?,
                Record::Compacted(cm) => match summary_body(&cm.message) {
                    Some(s) => r.push(&format!("L{line}"), Some(*line), Body::Compaction(s.to_string())),
                    None if !cm.message.is_empty() => {
                        r.push(&format!("L{line}"), Some(*line), Body::Compaction(cm.message.clone()))
                    }
                    // A remote compaction's summary is encrypted: the history before it is
                    // carried instead.
                    None => r.c.drop("compacted:encrypted"),
                },
                _ => {}
            }
        }
    } else {
        let h = history::reconstruct(&rollout);
        // A local compaction's history is the user messages it kept, then the summary: the
        // summary goes first, as a compaction, so the kept messages follow it.
        let prefixed = |i: &codex::Item| -> std::io::Result<bool> {
            Ok(i.summary && {
                let v = match &i.src {
                    ItemSrc::Raw { offset, len, .. } => {
                        crate::io::json::parse_record(&src.read_range(*offset, *len as usize)?)
                    }
                    ItemSrc::Synth(s) => crate::io::json::parse_record(s.as_bytes()),
                };
                let text: String = parts_of(v.get("content").unwrap_or(&Value::Null))
                    .iter()
                    .filter_map(Part::text)
                    .collect();
                summary_body(&text).is_some()
            })
        };
        let mut s = None;
        for (k, item) in h.items.iter().enumerate().rev() {
            if prefixed(item)? {
                s = Some(k);
                break;
            }
        }
        let order: Vec<usize> = match s {
            Some(s)
                if h.items[..s]
                    .iter()
                    .all(|i| i.role.as_deref() == Some("user") || i.context) =>
            {
                std::iter::once(s)
                    .chain((0..h.items.len()).filter(|&i| i != s))
                    .collect()
            }
            _ => (0..h.items.len()).collect(),
        };
        for i in order {
            r.item(&h.items[i])?;
        }
    }
    Ok(r.c)
}

struct Reader<'s> {
    src: &'s Source,
    c: Conversation,
    ts_of: FxHashMap<u64, String>,
}

impl Reader<'_> {
    fn push(&mut self, key: &str, line: Option<u64>, body: Body) {
        let ts = line.and_then(|l| self.ts_of.get(&l).cloned());
        self.c.push(key, ts, body);
    }

    /// Adds a block to the response being read, or starts one.
    fn block(&mut self, key: &str, line: Option<u64>, b: Block) {
        if let Some(Body::Assistant(blocks)) = self.c.entries.last_mut().map(|e| &mut e.body) {
            blocks.push(b);
        } else {
            self.push(key, line, Body::Assistant(vec![b]));
        }
    }

    fn item(&mut self, item: &codex::Item) -> std::io::Result<()> {
        let (v, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => (
                crate::io::json::parse_record(&self.src.read_range(*offset, *len as usize)?),
                Some(*line),
            ),
            ItemSrc::Synth(s) => (crate::io::json::parse_record(s.as_bytes()), None),
        };
        let key = line.map_or_else(|| "S".to_string(), |l| format!("L{l}"));
        let ty = item.ty.as_str();
        if item.remote_compaction {
            self.c.drop("compaction:encrypted");
            return Ok(());
        }
        if item.context {
            self.c.drop("context message");
            return Ok(());
        }
        if !item.api {
            self.c.drop(&format!("response_item:{ty}"));
            return Ok(());
        }
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match ty {
            "message" => {
                let parts = parts_of(v.get("content").unwrap_or(&Value::Null));
                match v.get("role").and_then(Value::as_str) {
                    Some("user") => {
                        let text: String = parts.iter().filter_map(Part::text).collect();
                        match summary_body(&text) {
                            Some(body) => self.push(&key, line, Body::Compaction(body.to_string())),
                            None if parts.is_empty() => self.c.drop("empty user message"),
                            None => self.push(&key, line, Body::User(parts)),
                        }
                    }
                    Some("assistant") => {
                        for p in parts {
                            match p {
                                Part::Text(t) => self.block(&key, line, Block::Text(t)),
                                Part::Image(_) => self.c.drop("assistant image"),
                            }
                        }
                    }
                    r => self.c.drop(&format!("message:{}", r.unwrap_or("?"))),
                }
            }
            "reasoning" => {
                let text = super::import::reasoning_summary(&v);
                if text.is_empty() {
                    self.c.drop("reasoning:encrypted");
                } else {
                    self.block(&key, line, Block::Reasoning(text.join("\n")));
                }
            }
            "function_call" => {
                let args = match parse_arguments(&s("arguments")) {
                    o @ Value::Object(_) => o,
                    other => json!({ "input": other }),
                };
                let call = ToolCall {
                    id: s("call_id"),
                    name: s("name"),
                    input: args,
                };
                self.block(&key, line, Block::Call(call));
            }
            "custom_tool_call" => {
                let call = ToolCall {
                    id: s("call_id"),
                    name: s("name"),
                    input: json!({ "input": s("input") }),
                };
                self.block(&key, line, Block::Call(call));
            }
            "local_shell_call" => {
                let id = Some(s("call_id")).filter(|i| !i.is_empty()).unwrap_or_else(|| s("id"));
                let call = ToolCall {
                    id,
                    name: "local_shell".into(),
                    input: v.get("action").cloned().unwrap_or_else(|| json!({})),
                };
                self.block(&key, line, Block::Call(call));
            }
            "function_call_output" | "custom_tool_call_output" => {
                let output = match v.get("output") {
                    Some(Value::String(t)) => vec![Part::Text(t.clone())],
                    Some(Value::Array(a)) => parts_of(&Value::Array(a.clone())),
                    // The 2025 form `{"content": …, "success": …}`.
                    Some(Value::Object(o)) => match o.get("content") {
                        Some(Value::String(t)) => vec![Part::Text(t.clone())],
                        Some(other) => parts_of(other),
                        None => vec![Part::Text(Value::Object(o.clone()).to_string())],
                    },
                    _ => Vec::new(),
                };
                let r = ToolResult {
                    call_id: s("call_id"),
                    output,
                    is_error: false,
                };
                self.push(&key, line, Body::ToolResult(r));
            }
            other => self.c.drop(other),
        }
        Ok(())
    }
}

/// The text and image parts of a Codex content array.
fn parts_of(content: &Value) -> Vec<Part> {
    let mut out = Vec::new();
    for p in content.as_array().into_iter().flatten() {
        match p.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") => out.push(Part::Text(
                p.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
            )),
            Some("input_image") => {
                let url = p.get("image_url").and_then(Value::as_str).unwrap_or("");
                out.push(Part::Image(Image::from_url(url)));
            }
            _ => {}
        }
    }
    out
}

/// Whether `line` is an estimated `token_count` event: a line the writer adds at the end of
/// each turn, which a later conversion of a grown source may have in another place.
pub fn is_token_count(line: &[u8]) -> bool {
    let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    v.get("type").and_then(Value::as_str) == Some("event_msg")
        && v.pointer("/payload/type").and_then(Value::as_str) == Some("token_count")
}

/// The conversation as rollout lines (without their newlines).
pub fn write(c: &Conversation, o: &WriteOptions, tally: &mut Tally) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut clock = Clock::new(c.first_timestamp());
    let start = clock.stamp(None);
    out.push(line(&json!({
        "timestamp": start,
        "type": "session_meta",
        "payload": {
            "id": o.session_id,
            "timestamp": start,
            "cwd": o.cwd,
            "originator": "cctool_convert",
            "cli_version": env!("CARGO_PKG_VERSION"),
            "source": "cli",
        },
    })));
    if let Some(m) = &o.model {
        out.push(line(&json!({
            "timestamp": start,
            "type": "turn_context",
            "payload": {
                "cwd": o.cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "read-only"},
                "model": m,
                "summary": "auto",
            },
        })));
    }
    // Lengths of the items a resume sends, for the estimate.
    let mut lens: Vec<usize> = Vec::new();
    let mut custom: rustc_hash::FxHashSet<String> = Default::default();
    let mut turn_open = false;
    let token_count = |lens: &[usize], ts: &str| {
        let n = crate::model::json_array_tokens(lens.iter().copied());
        let usage = json!({"input_tokens": n, "cached_input_tokens": 0, "output_tokens": 0,
                           "reasoning_output_tokens": 0, "total_tokens": n});
        line(
            &json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": null},
            "rate_limits": null}}),
        )
    };
    let item = |out: &mut Vec<Vec<u8>>, lens: &mut Vec<usize>, ts: &str, payload: Value| {
        let l = line(&payload);
        lens.push(l.len());
        out.push(line(
            &json!({"timestamp": ts, "type": "response_item", "payload": payload}),
        ));
    };
    let event = |out: &mut Vec<Vec<u8>>, ts: &str, payload: Value| {
        out.push(line(&json!({"timestamp": ts, "type": "event_msg", "payload": payload})));
    };
    for e in &c.entries {
        let ts = clock.stamp(e.timestamp.as_deref());
        match &e.body {
            Body::User(parts) => {
                if turn_open {
                    out.push(token_count(&lens, &ts));
                    turn_open = false;
                }
                let content: Vec<Value> = parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(t) => json!({"type": "input_text", "text": t}),
                        Part::Image(i) => json!({"type": "input_image", "image_url": i.as_url()}),
                    })
                    .collect();
                item(
                    &mut out,
                    &mut lens,
                    &ts,
                    json!({"type": "message", "role": "user", "content": content}),
                );
                let text: Vec<&str> = parts.iter().filter_map(Part::text).collect();
                let images: Vec<String> = parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Image(i) => Some(i.as_url()),
                        Part::Text(_) => None,
                    })
                    .collect();
                event(
                    &mut out,
                    &ts,
                    json!({"type": "user_message", "message": text.join("\n"), "images": images,
                           "local_images": [], "text_elements": []}),
                );
            }
            Body::Assistant(blocks) => {
                turn_open = true;
                for b in blocks {
                    match b {
                        Block::Reasoning(_) if !o.reasoning_as_text => tally.drop("reasoning"),
                        Block::Text(t) | Block::Reasoning(t) => {
                            let text = match b {
                                Block::Reasoning(_) => reasoning_text(t),
                                _ => t.clone(),
                            };
                            item(
                                &mut out,
                                &mut lens,
                                &ts,
                                json!({"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": text}]}),
                            );
                            // A reply the resumed screen shows; carried reasoning is not one.
                            if matches!(b, Block::Text(_)) {
                                event(&mut out, &ts, json!({"type": "agent_message", "message": t}));
                            }
                        }
                        Block::Call(call) => {
                            let (mapped, label) = tools::to_codex(&call.name, &call.input);
                            tally.map(label);
                            match mapped {
                                CodexCall::Function { name, arguments } => item(
                                    &mut out,
                                    &mut lens,
                                    &ts,
                                    json!({
                                    "type": "function_call", "name": name,
                                    "arguments": arguments.to_string(), "call_id": call.id}),
                                ),
                                CodexCall::Custom { name, input } => {
                                    custom.insert(call.id.clone());
                                    item(
                                        &mut out,
                                        &mut lens,
                                        &ts,
                                        json!({
                                        "type": "custom_tool_call", "status": "completed",
                                        "call_id": call.id, "name": name, "input": input}),
                                    );
                                }
                            }
                        }
                    }
                }
            }
            Body::ToolResult(r) => {
                turn_open = true;
                if r.is_error {
                    tally.drop("tool_result:is_error flag");
                }
                let all_text = r.output.iter().all(|p| p.text().is_some());
                let output = if all_text || custom.contains(&r.call_id) {
                    json!(r.output.iter().filter_map(Part::text).collect::<String>())
                } else {
                    Value::Array(
                        r.output
                            .iter()
                            .map(|p| match p {
                                Part::Text(t) => json!({"type": "input_text", "text": t}),
                                Part::Image(i) => json!({"type": "input_image", "image_url": i.as_url()}),
                            })
                            .collect(),
                    )
                };
                let ty = if custom.contains(&r.call_id) {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                item(
                    &mut out,
                    &mut lens,
                    &ts,
                    json!({"type": ty, "call_id": r.call_id, "output": output}),
                );
            }
            Body::Compaction(summary) => {
                let message = format!("{SUMMARY_PREFIX}\n{summary}");
                let kept = json!({"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": message}]});
                lens.clear();
                lens.push(line(&kept).len());
                out.push(line(&json!({"timestamp": ts, "type": "compacted",
                    "payload": {"message": message, "replacement_history": [kept]}})));
                turn_open = true;
            }
        }
    }
    let end = clock.stamp(None);
    out.push(token_count(&lens, &end));
    tally.tokens = crate::model::json_array_tokens(lens.iter().copied()) as u64;
    out
}
