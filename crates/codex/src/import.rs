//! Importing Codex rollouts into a v5 session (`docs/cctool-session.md#imports`), read from
//! the session model's stream ([`crate::v5::import`]): the reader hands on every line with its
//! JSON, and each item becomes v5 messages here ([`CodexBuilder`]).
//!
//! The full history comes in file order with each compaction as a `summary` item at its place;
//! `effective` keeps only what a resume loads. Anything that has no v5 equivalent is kept as a
//! `native` item holding the original record, so no information is lost. Written to a file
//! ([`codex_to`]), each message goes out as soon as nothing can change it.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use rustc_hash::FxHashMap;

use super::history as codex_chain;
use super::rollout::{self as codex, Record};
use crate::io::Source;
use crate::model::events::{Origin, Record as Rec};
use crate::v5::build::*;
use crate::v5::import::{Mapping, ask, import};
use crate::v5::schema::{Item, MessageV3, Session, parse_arguments};

fn codex_texts(item: &Value) -> String {
    codex::message_texts(item.get("content").unwrap_or(&Value::Null)).concat()
}

/// Maps Codex items to messages; assistant-side items in a row share one message.
struct CodexBuilder<'a> {
    messages: &'a mut Vec<MessageV3>,
}

impl CodexBuilder<'_> {
    fn assistant(&mut self, item: Item, source: Value, timestamp: Option<String>) {
        match self.messages.last_mut() {
            Some(last) if last.role == "assistant" => last.items.push(item),
            _ => self.messages.push(message("assistant", vec![item], source, timestamp)),
        }
    }

    fn add(&mut self, v: &Value, line: Option<u64>, timestamp: Option<String>) {
        let source = json!({"line": line});
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => self.add_message(v, line, source, timestamp),
            "reasoning" => {
                let text = reasoning_summary(v);
                let mut extra = Map::new();
                if let Some(e) = v.get("encrypted_content").and_then(Value::as_str) {
                    extra.insert("encrypted_len".into(), json!(e.len()));
                }
                self.assistant(
                    Item::Reasoning {
                        text: text.join("\n"),
                        extra,
                    },
                    source,
                    timestamp,
                );
            }
            "function_call" => {
                let call = Item::ToolCall {
                    id: s("call_id"),
                    name: s("name"),
                    args: parse_arguments(&s("arguments")),
                    extra: Map::new(),
                };
                self.assistant(call, source, timestamp);
            }
            "custom_tool_call" => {
                let call = Item::ToolCall {
                    id: s("call_id"),
                    name: s("name"),
                    args: json!({"input": s("input")}),
                    extra: Map::new(),
                };
                self.assistant(call, source, timestamp);
            }
            "local_shell_call" => {
                let call = Item::ToolCall {
                    id: s("call_id"),
                    name: "local_shell".into(),
                    args: v.get("action").cloned().unwrap_or(Value::Null),
                    extra: Map::new(),
                };
                self.assistant(call, source, timestamp);
            }
            "function_call_output" | "custom_tool_call_output" => {
                let out = v.get("output").cloned().unwrap_or(Value::String(String::new()));
                self.messages.push(tool_message(&s("call_id"), out, source, timestamp));
            }
            "compaction" | "compaction_summary" | "context_compaction" => {
                let n = v.get("encrypted_content").and_then(Value::as_str).map_or(0, str::len);
                let summary = Item::Other(json!({
                    "type": "summary",
                    "text": Value::Null,
                    "origin": "remote",
                    "encrypted": true,
                    "encrypted_len": n,
                }));
                self.messages.push(message("user", vec![summary], source, timestamp));
            }
            _ => self.messages.push(message(
                "system",
                vec![native("codex", v.clone(), line)],
                source,
                timestamp,
            )),
        }
    }

    /// A `message` item: a summary when its text is one, else its texts and images under
    /// its role.
    fn add_message(&mut self, v: &Value, line: Option<u64>, source: Value, timestamp: Option<String>) {
        let role = match v.get("role").and_then(Value::as_str).unwrap_or("") {
            "developer" | "system" => "system".to_string(),
            // A v5 tool message needs a call id, which a Codex message has not: kept native.
            "tool" => {
                let item = native("codex", v.clone(), line);
                self.messages.push(message("system", vec![item], source, timestamp));
                return;
            }
            r => r.to_string(),
        };
        let body = codex_texts(v);
        if let Some(rest) = codex::summary_body(&body) {
            let summary = Item::Other(json!({"type": "summary", "text": rest, "origin": "local"}));
            self.messages.push(message("user", vec![summary], source, timestamp));
            return;
        }
        let mut items = vec![text(&body)];
        for part in v.get("content").and_then(Value::as_array).into_iter().flatten() {
            if part.get("type").and_then(Value::as_str) == Some("input_image") {
                items.push(Item::Other(
                    json!({"type": "image", "media_type": Value::Null, "data": part.get("image_url")}),
                ));
            }
        }
        if role == "assistant" {
            for it in items {
                self.assistant(it, source.clone(), timestamp.clone());
            }
        } else {
            self.messages.push(message(&role, items, source, timestamp));
        }
    }
}

/// The visible text of a `reasoning` item: its summary parts (the rest is encrypted).
pub fn reasoning_summary(item: &Value) -> Vec<&str> {
    item.get("summary")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

/// A Codex rollout as a v5 session.
pub fn codex(src: &Source, effective: bool) -> io::Result<Session> {
    held(codex_into(src, effective, None)?)
}

/// [`codex()`], written to `w` as a v5 file message by message.
pub fn codex_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    codex_into(src, effective, Some(w)).map(drop)
}

fn codex_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let rollout = codex::read_records(src)?;
    let mut session_id = None;
    let mut version = None;
    for (_, r) in &rollout.records {
        if let Record::SessionMeta { id, cli_version } = r {
            session_id = session_id.or_else(|| id.clone());
            version = cli_version.clone().or(version);
        }
    }
    let head = Head {
        session_id: session_id.clone(),
        first_ms: rollout.time_span.map(|s| s.0),
        source: json!({"format": "codex", "path": src.name(), "native_session_id": session_id, "agent_version": version}),
    };
    // Each compaction as `extract-summary` reads it: origin, text, encryption, what the
    // server kept in plaintext.
    let compactions = match effective {
        true => FxHashMap::default(),
        false => crate::summaries::codex(src, &rollout, &codex_chain::History::default())?
            .into_iter()
            .filter_map(|r| Some((r.line?, r)))
            .collect(),
    };
    let mut mapping = Codex { effective, compactions };
    import(head, w, &mut mapping, |sink| {
        crate::events::events_of(src, &rollout, ask(effective), sink).map(drop)
    })
}

/// The v5 messages of a rollout's lines: its items as [`CodexBuilder`] maps them, each
/// `compacted` record as a summary, every other line kept whole. A resume's items carry no
/// time of their own (`effective`).
struct Codex {
    effective: bool,
    compactions: FxHashMap<u64, crate::summary::SummaryRecord>,
}

impl Mapping for Codex {
    fn record(&mut self, r: Rec, raw: &mut Vec<MessageV3>) {
        let (line, origin) = (r.at.map(|a| a.line), r.origin);
        let time = if self.effective { None } else { r.time };
        let v = r.native.unwrap_or(Value::Null);
        if origin != Origin::Unread {
            return CodexBuilder { messages: raw }.add(&v, line, time);
        }
        let source = json!({"line": line});
        // A line of a type with a payload keeps its time; a `compacted` one is its summary.
        let typed = v
            .get("type")
            .and_then(Value::as_str)
            .filter(|_| v.get("payload").is_some());
        let summary = typed
            .filter(|&t| t == "compacted")
            .and(line)
            .and_then(|l| self.compactions.get(&l));
        let ts = typed
            .and(v.get("timestamp"))
            .and_then(Value::as_str)
            .map(str::to_string);
        match summary {
            Some(c) => {
                let mut summary = codex_summary_item(c);
                summary.insert("native".into(), json!({"line": line}));
                raw.push(message("user", vec![Item::Other(Value::Object(summary))], source, ts));
            }
            None => raw.push(message("system", vec![native("codex", v, line)], source, ts)),
        }
    }
}

/// A Codex `compacted` record as a v5 `summary` item, with what `extract-summary` finds in
/// it: the summary text (null when the server encrypted it), its origin (`local`, `remote`,
/// `legacy`), and for a remote one the encrypted blob's length and the messages kept in
/// plaintext.
fn codex_summary_item(r: &crate::summary::SummaryRecord) -> Map<String, Value> {
    let mut summary = Map::from_iter([("type".into(), json!("summary"))]);
    summary.insert("text".into(), json!(r.summary));
    summary.insert("origin".into(), json!(r.origin.unwrap_or("local")));
    if r.encrypted {
        summary.insert("encrypted".into(), json!(true));
        summary.insert("encrypted_len".into(), json!(r.encrypted_len));
    }
    if let Some(kept) = &r.retained_messages {
        summary.insert("retained_messages".into(), json!(kept));
    }
    summary
}
