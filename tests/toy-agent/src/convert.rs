//! The toy agent's side of `convert` ([`cctool_core::agents::Converter`]): its sessions read
//! into the conversation every conversion carries, and that conversation written as toy
//! lines.

use std::path::Path;

use serde_json::{Value, json};

use crate::file;
use cctool_core::convert::model::{Block, Body, Conversation, Entry, Part, Sink, ToolCall, ToolResult};
use cctool_core::convert::read::{Item, ask, from_stream, key};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::translate;
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;
use cctool_core::model::events::{self, Record};

/// Toy sessions, read and written by `convert`.
pub struct Converter;

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, full, answered, sink)
    }

    fn writer(&self) -> MakeWriter {
        writer
    }

    fn needs_answered(&self) -> bool {
        false
    }

    fn noun(&self) -> &'static str {
        "a toy session"
    }

    /// A toy session names no model.
    fn keeps_foreign_model(&self) -> bool {
        false
    }

    fn place(&self, _: Option<&[u8]>, _: &WriteOptions, _: Option<&Path>, _: bool) -> Result<Placement, StoreError> {
        Err(StoreError::NoStore(
            "the toy agent keeps no store of sessions: write with -o OUT",
        ))
    }
}

/// Streams the conversation of `src` to `sink`: the records the session model's stream hands
/// on in the view asked (every message: a resume loads them all, so `full` changes nothing),
/// each mapped by `entries`. A model's text and the calls after it are one response.
pub fn read(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.cwd().map(str::to_string);
    c.drop_n("unreadable line", s.bad_lines());
    from_stream(
        c,
        answered,
        sink,
        |sink| {
            crate::answers::events_of(&s, ask(full), sink);
        },
        |r, _, items| entries(r, items),
    )
}

/// A record's parts as the conversation's entries: the user's text a prompt, a result, and the
/// model's text a response that the calls after it join.
fn entries(r: Record, items: &mut Vec<Item>) {
    let key = key(&r);
    let user = r.speaker.as_deref() == Some("user");
    for p in r.parts {
        let block = match p {
            events::Part::Text(t) if user => {
                items.push((key.clone(), r.time.clone(), Body::User(vec![Part::Text(t)])));
                continue;
            }
            events::Part::Outcome(o) => {
                let output = match o.output {
                    Some(Value::String(t)) => t,
                    _ => String::new(),
                };
                let result = ToolResult {
                    call_id: o.call_id.unwrap_or_default(),
                    output: vec![Part::Text(output)],
                    is_error: o.is_error == Some(true),
                };
                items.push((key.clone(), r.time.clone(), Body::ToolResult(result)));
                continue;
            }
            events::Part::Text(t) => Block::Text(t),
            events::Part::Call(call) => Block::Call(ToolCall {
                id: call.id.unwrap_or_default(),
                name: call.name.unwrap_or_default(),
                input: call.input.unwrap_or_else(|| json!({})),
            }),
            _ => continue,
        };
        match items.last_mut() {
            Some((_, _, Body::Assistant(blocks))) if matches!(block, Block::Call(_)) => blocks.push(block),
            _ => items.push((key.clone(), r.time.clone(), Body::Assistant(vec![block]))),
        }
    }
}

/// The writer of toy lines; the header goes to `out`.
pub fn writer(
    o: &WriteOptions,
    first: Option<&str>,
    _: cctool_core::convert::model::Answered,
    out: &mut Vec<Vec<u8>>,
) -> Box<dyn EntryWriter> {
    let mut w = Writer {
        o: o.clone(),
        clock: Clock::new(first),
        tally: Tally::default(),
        bytes: 0,
    };
    let started = w.clock.stamp(first);
    out.push(line(
        &json!({"toy_session": o.session_id, "cwd": o.cwd, "started": started}),
    ));
    Box::new(w)
}

struct Writer {
    o: WriteOptions,
    clock: Clock,
    tally: Tally,
    /// Bytes of the message lines written, which a resume sends.
    bytes: usize,
}

impl Writer {
    fn emit(&mut self, v: Value, out: &mut Vec<Vec<u8>>) {
        let l = line(&v);
        self.bytes += l.len() + 1;
        out.push(l);
    }

    fn said(&mut self, role: &str, text: &str, ts: Option<&str>, out: &mut Vec<Vec<u8>>) {
        let at = self.clock.stamp(ts);
        self.emit(json!({"toy": role, "text": text, "at": at}), out);
    }
}

/// The texts of `parts` joined, and how many images were among them (the toy agent has no
/// images).
fn texts(parts: &[Part]) -> (String, u64) {
    let text: Vec<String> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.clone()),
            Part::Json(j) => Some(j.text()),
            Part::Image(_) => None,
        })
        .collect();
    let images = parts.iter().filter(|p| matches!(p, Part::Image(_))).count() as u64;
    (text.join("\n"), images)
}

impl EntryWriter for Writer {
    fn entry(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        let ts = e.timestamp.as_deref();
        match &e.body {
            Body::User(parts) => {
                let (text, images) = texts(parts);
                (0..images).for_each(|_| self.tally.drop("image"));
                self.said("user", &text, ts, out);
            }
            // The toy agent has no compaction: what a resume of the source loads in its place
            // is the summary, which the model reads as the user's.
            Body::Compaction(summary) => self.said("user", summary, ts, out),
            Body::Assistant(blocks) => {
                for b in blocks {
                    match b {
                        Block::Text(t) => self.said("assistant", t, ts, out),
                        Block::Reasoning(t) if self.o.reasoning_as_text => {
                            self.said("assistant", &reasoning_text(t), ts, out)
                        }
                        Block::Reasoning(_) => self.tally.drop("reasoning"),
                        Block::Call(c) => {
                            let t = translate(self.o.tools, &crate::tools::ToyTools, &c.name, &c.input, None);
                            self.tally.map(t.mapped);
                            let call =
                                json!({"toy": "call", "id": c.id, "tool": t.name, "input": t.input.into_value()});
                            self.emit(call, out);
                        }
                    }
                }
            }
            Body::ToolResult(r) => {
                let (output, images) = texts(&r.output);
                (0..images).for_each(|_| self.tally.drop("image"));
                self.emit(json!({"toy": "result", "id": r.call_id, "output": output}), out);
            }
        }
    }

    fn finish(&mut self, _: &mut Vec<Vec<u8>>) {}

    fn tally(&mut self) -> Tally {
        Tally {
            tokens: cctool_core::model::approx_tokens(self.bytes) as u64,
            ..self.tally.clone()
        }
    }
}
