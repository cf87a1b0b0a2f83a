//! The conversation written as rollout lines: a `session_meta`, the items as `response_item`s,
//! the `user_message` and `agent_message` events the picker shows, an estimated `token_count`
//! at the end of each turn, each compaction a `compacted` record.

use serde_json::{Value, json};

use super::super::tools::CodexTools;
use crate::rollout::SUMMARY_PREFIX;
use cctool_core::convert::json::{json_str, json_str_inner};
use cctool_core::convert::model::{Answered, Block, Body, Conversation, Entry, Part, call_key, written_len};
use cctool_core::convert::tools::{self, Input};
use cctool_core::convert::{Clock, EntryWriter, Tally, WriteOptions, line, reasoning_text};

/// Whether `line` is an estimated `token_count` event: a line the writer adds at the end of
/// each turn, which a later conversion of a grown source may have in another place.
pub fn is_token_count(line: &[u8]) -> bool {
    let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    v.get("type").and_then(Value::as_str) == Some("event_msg")
        && v.pointer("/payload/type").and_then(Value::as_str) == Some("token_count")
}

/// The conversation as rollout lines (without their newlines).
pub fn write(c: &Conversation, o: &WriteOptions, tally: &mut Tally) -> Vec<Vec<u8>> {
    cctool_core::convert::write_whole(writer, c, o, tally)
}

/// [`write`], an entry at a time: the session's first lines go to `out` now; `first` is the
/// conversation's first timestamp.
pub fn writer(
    o: &WriteOptions,
    first: Option<&str>,
    _answered: Answered,
    out: &mut Vec<Vec<u8>>,
) -> Box<dyn EntryWriter> {
    Box::new(Writer::new(o, first, out))
}

pub(super) struct Writer {
    o: WriteOptions,
    clock: Clock,
    tally: Tally,
    /// The items a resume sends since the last compaction, and their bytes, for the estimate.
    items: usize,
    item_bytes: usize,
    /// The custom tool calls written ([`call_key`]): their results are custom outputs.
    custom: rustc_hash::FxHashSet<u64>,
    /// The files the calls written so far read or wrote.
    files: tools::Files,
    turn_open: bool,
}

impl Writer {
    pub(super) fn new(o: &WriteOptions, first: Option<&str>, out: &mut Vec<Vec<u8>>) -> Writer {
        let mut clock = Clock::new(first);
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
        Writer {
            o: o.clone(),
            clock,
            tally: Tally::default(),
            items: 0,
            item_bytes: 0,
            custom: Default::default(),
            files: Default::default(),
            turn_open: false,
        }
    }

    fn tokens(&self) -> usize {
        if self.items == 0 {
            0
        } else {
            crate::model::approx_tokens(self.item_bytes + self.items + 1)
        }
    }

    /// The estimate of what a resume sends, where Codex reads the size of its context
    /// (`last_token_usage.total_tokens`, to decide whether to compact first), with every
    /// count of tokens spent zero: none were, and usage readers (ccusage sums the input,
    /// cached, output and reasoning counts of each event) must not bill the conversion.
    fn token_count(&self, ts: &str) -> Vec<u8> {
        let n = self.tokens();
        let usage = |total: usize| {
            json!({"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                   "reasoning_output_tokens": 0, "total_tokens": total})
        };
        line(
            &json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": usage(0), "last_token_usage": usage(n), "model_context_window": null},
            "rate_limits": null}}),
        )
    }

    fn item(&mut self, out: &mut Vec<Vec<u8>>, ts: &str, payload: Value) {
        self.item_with(out, ts, 0, |l| l.extend(line(&payload)));
    }

    /// A `response_item` line whose payload `write` writes: the bytes of [`Writer::item`] of
    /// that payload, written once into the line (of about `size` bytes, allocated once).
    fn item_with(&mut self, out: &mut Vec<Vec<u8>>, ts: &str, size: usize, write: impl FnOnce(&mut Vec<u8>)) {
        let mut l = Vec::with_capacity(LINE_HEAD + size);
        l.extend_from_slice(b"{\"timestamp\":");
        json_str(&mut l, ts);
        l.extend_from_slice(b",\"type\":\"response_item\",\"payload\":");
        let start = l.len();
        write(&mut l);
        self.items += 1;
        self.item_bytes += l.len() - start;
        l.push(b'}');
        out.push(l);
    }
}

/// The texts of `parts` joined by `sep` as one JSON string: a [`Part::Json`] copied as
/// written (escaping is per character, so the escaped join is the join of the escaped texts).
pub(super) fn json_join(out: &mut Vec<u8>, parts: &[Part], sep: &str) {
    out.push(b'"');
    for (k, p) in parts.iter().filter(|p| p.is_text()).enumerate() {
        if k > 0 {
            json_str_inner(out, sep);
        }
        p.write_text(out, false);
    }
    out.push(b'"');
}

/// What a line holds besides its large strings, about: its envelope, the time, the payload's
/// other members.
pub(super) const LINE_HEAD: usize = 192;

/// An `event_msg` line whose payload `write` writes (of about `size` bytes).
pub(super) fn event_with(out: &mut Vec<Vec<u8>>, ts: &str, size: usize, write: impl FnOnce(&mut Vec<u8>)) {
    let mut l = Vec::with_capacity(LINE_HEAD + size);
    l.extend_from_slice(b"{\"timestamp\":");
    json_str(&mut l, ts);
    l.extend_from_slice(b",\"type\":\"event_msg\",\"payload\":");
    write(&mut l);
    l.push(b'}');
    out.push(l);
}

/// A content part as an input item part (`input_text`, `input_image`).
pub(super) fn input_part(l: &mut Vec<u8>, p: &Part) {
    match p {
        Part::Image(i) => {
            l.extend_from_slice(b"{\"type\":\"input_image\",\"image_url\":");
            json_str(l, &i.as_url());
        }
        text => {
            l.extend_from_slice(b"{\"type\":\"input_text\",\"text\":");
            text.write_text(l, true);
        }
    }
    l.push(b'}');
}

pub(super) fn input_parts(l: &mut Vec<u8>, parts: &[Part]) {
    l.push(b'[');
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            l.push(b',');
        }
        input_part(l, p);
    }
    l.push(b']');
}

impl EntryWriter for Writer {
    // Long because it is one arm per kind of entry, each writing the lines that kind becomes
    // with the writer's running state (the chain, the open turn, the tally).
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let ts = self.clock.stamp(e.timestamp.as_deref());
        match &e.body {
            Body::User(parts) => {
                if self.turn_open {
                    out.push(self.token_count(&ts));
                    self.turn_open = false;
                }
                self.item_with(out, &ts, written_len(parts), |l| {
                    l.extend_from_slice(br#"{"type":"message","role":"user","content":"#);
                    input_parts(l, parts);
                    l.push(b'}');
                });
                event_with(out, &ts, written_len(parts), |l| {
                    l.extend_from_slice(br#"{"type":"user_message","message":"#);
                    json_join(l, parts, "\n");
                    l.extend_from_slice(br#","images":["#);
                    let mut first = true;
                    for p in parts {
                        if let Part::Image(i) = p {
                            if !first {
                                l.push(b',');
                            }
                            first = false;
                            json_str(l, &i.as_url());
                        }
                    }
                    l.extend_from_slice(br#"],"local_images":[],"text_elements":[]}"#);
                });
            }
            Body::Assistant(blocks) => {
                self.turn_open = true;
                for b in blocks {
                    match b {
                        Block::Reasoning(_) if !self.o.reasoning_as_text => self.tally.drop("reasoning"),
                        Block::Text(t) | Block::Reasoning(t) => {
                            let text = match b {
                                Block::Reasoning(_) => reasoning_text(t),
                                _ => t.clone(),
                            };
                            // The text escaped once, for the item and the event.
                            let mut esc = Vec::with_capacity(text.len() + 2);
                            json_str(&mut esc, &text);
                            self.item_with(out, &ts, esc.len(), |l| {
                                l.extend_from_slice(
                                    br#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"#,
                                );
                                l.extend_from_slice(&esc);
                                l.extend_from_slice(b"}]}");
                            });
                            // A reply the resumed screen shows; carried reasoning is not one.
                            if matches!(b, Block::Text(_)) {
                                event_with(out, &ts, esc.len(), |l| {
                                    l.extend_from_slice(br#"{"type":"agent_message","message":"#);
                                    l.extend_from_slice(&esc);
                                    l.push(b'}');
                                });
                            }
                        }
                        Block::Call(call) => {
                            let mapped = tools::translate(
                                self.o.tools,
                                &CodexTools,
                                &call.name,
                                &call.input,
                                Some(&mut self.files),
                            );
                            self.tally.map(mapped.mapped);
                            if let Some(lost) = &mapped.lost {
                                self.tally.drop(lost);
                            }
                            match (mapped.name, mapped.input) {
                                (name, Input::Json(arguments)) => self.item_with(out, &ts, 0, |l| {
                                    l.extend_from_slice(br#"{"type":"function_call","name":"#);
                                    json_str(l, &name);
                                    l.extend_from_slice(br#","arguments":"#);
                                    json_str(l, &arguments.to_string());
                                    l.extend_from_slice(br#","call_id":"#);
                                    json_str(l, &call.id);
                                    l.push(b'}');
                                }),
                                (name, Input::Text(input)) => {
                                    self.custom.insert(call_key(&call.id));
                                    self.item(
                                        out,
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
                self.turn_open = true;
                if r.is_error {
                    self.tally.drop("tool_result:is_error flag");
                }
                let custom = self.custom.contains(&call_key(&r.call_id));
                let all_text = r.output.iter().all(Part::is_text);
                let ty = if custom {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                self.item_with(out, &ts, written_len(&r.output), |l| {
                    l.extend_from_slice(br#"{"type":"#);
                    json_str(l, ty);
                    l.extend_from_slice(br#","call_id":"#);
                    json_str(l, &r.call_id);
                    l.extend_from_slice(br#","output":"#);
                    match (all_text || custom, r.output.as_slice()) {
                        (true, [p]) if p.is_text() => p.write_text(l, true),
                        (true, parts) => json_join(l, parts, ""),
                        (false, parts) => input_parts(l, parts),
                    }
                    l.push(b'}');
                });
            }
            Body::Compaction(summary) => {
                let message = format!("{SUMMARY_PREFIX}\n{summary}");
                let kept = json!({"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": message}]});
                self.items = 1;
                self.item_bytes = line(&kept).len();
                out.push(line(&json!({"timestamp": ts, "type": "compacted",
                    "payload": {"message": message, "replacement_history": [kept]}})));
                self.turn_open = true;
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<Vec<u8>>) {
        let end = self.clock.stamp(None);
        out.push(self.token_count(&end));
        self.tally.tokens = self.tokens() as u64;
    }

    fn tally(&mut self) -> Tally {
        std::mem::take(&mut self.tally)
    }
}
