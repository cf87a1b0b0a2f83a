//! The toy agent's side of `convert` ([`cctool_core::agents::Converter`]): its sessions read
//! into the conversation every conversion carries, and that conversation written as toy
//! lines.

use std::path::Path;

use serde_json::{Value, json};

use crate::file::{self, Said};
use cctool_core::convert::model::{
    Block, Body, Conversation, Emitter, Entry, Part, Sink, ToolCall, ToolResult, call_key,
};
use cctool_core::convert::store::{Placement, StoreError};
use cctool_core::convert::tools::translate;
use cctool_core::convert::{Clock, EntryWriter, MakeWriter, Tally, WriteOptions, line, reasoning_text};
use cctool_core::io::Source;

/// Toy sessions, read and written by `convert`.
pub struct Converter;

impl cctool_core::agents::Converter for Converter {
    fn read(&self, src: &Source, _full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
        read(src, answered, sink)
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

/// Streams the conversation of `src` to `sink`: every message, since a resume loads them all
/// (so `full` changes nothing). A model's text and the calls after it are one response.
pub fn read(src: &Source, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let s = file::read(src)?;
    let mut c = Conversation::new(crate::ID);
    c.session_id = s.session_id().map_or_else(|| src.name().to_string(), str::to_string);
    c.cwd = s.cwd().map(str::to_string);
    c.drop_n("unreadable line", s.bad_lines());
    let mut e = Emitter::new(c, sink);
    e.head(answered.then(|| {
        s.messages
            .iter()
            .filter_map(|m| match &m.said {
                Said::Result { id, .. } => Some(call_key(id)),
                _ => None,
            })
            .collect()
    }))?;
    for m in &s.messages {
        let key = format!("line:{}", m.line);
        let at = m.said.at().map(str::to_string);
        let block = match &m.said {
            Said::Text { role: "user", text, .. } => {
                e.push(&key, at, Body::User(vec![Part::Text(text.clone())]));
                continue;
            }
            Said::Result { id, output } => {
                let r = ToolResult {
                    call_id: id.clone(),
                    output: vec![Part::Text(output.clone())],
                    is_error: false,
                };
                e.push(&key, at, Body::ToolResult(r));
                continue;
            }
            Said::Text { text, .. } => Block::Text(text.clone()),
            Said::Call { id, tool, input } => Block::Call(ToolCall {
                id: id.clone(),
                name: tool.clone(),
                input: input.clone(),
            }),
        };
        match e.last_mut() {
            Some(Entry {
                body: Body::Assistant(blocks),
                ..
            }) if matches!(block, Block::Call(_)) => blocks.push(block),
            _ => e.push(&key, at, Body::Assistant(vec![block])),
        }
        e.check()?;
    }
    e.finish()
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
