//! What each line of a rollout gives the conversation: its pieces (read the fast way, borrowed
//! and only the fields the conversation needs, or from the whole item when that refuses the
//! line), and the [`Reader`] that assembles them into entries.

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use super::*;
use crate::io::Source;
use crate::rollout::tail::{self};
use crate::rollout::{self as codex, ItemSrc, Record, summary_body};
use crate::v5::schema::parse_arguments;
use cctool_core::convert::model::{Block, Body, Conversation, Emitter, Image, Part, ToolCall, ToolResult};

pub(super) struct Reader<'s, 'k> {
    pub(super) src: &'s Source,
    pub(super) c: Emitter<'k>,
    pub(super) times: Times,
    pub(super) odd_times: FxHashMap<u64, String>,
    pub(super) released: crate::io::source::Releaser<'s>,
}

impl Reader<'_, '_> {
    pub(super) fn push(&mut self, key: &str, line: Option<u64>, body: Body) {
        let ts = line.and_then(|l| {
            let k = self.times.binary_search_by_key(&l, |&(l, _)| l).ok()?;
            match self.times[k].1 {
                Some(ms) => Some(crate::model::time::format_ms(ms)),
                None => self.odd_times.get(&l).cloned(),
            }
        });
        self.c.push(key, ts, body);
    }

    /// Adds a block to the response being read, or starts one.
    pub(super) fn block(&mut self, key: &str, line: Option<u64>, b: Block) {
        if let Some(Body::Assistant(blocks)) = self.c.last_mut().map(|e| &mut e.body) {
            blocks.push(b);
        } else {
            self.push(key, line, Body::Assistant(vec![b]));
        }
    }

    /// Carries one item or compaction, in order.
    pub(super) fn step(&mut self, step: Step<'_>) -> std::io::Result<()> {
        match step {
            Step::Item(item) => self.item(item),
            Step::Compacted(line, cm) => {
                let mut pieces = Vec::new();
                compacted_pieces(line, cm, &mut pieces);
                for p in pieces {
                    self.apply(p, 0);
                }
                Ok(())
            }
        }
    }

    pub(super) fn item(&mut self, item: &codex::Item) -> std::io::Result<()> {
        let (bytes, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let b = self.src.read_range(*offset, *len as usize)?;
                self.released.touch(*offset, u64::from(*len));
                (b, Some(*line))
            }
            ItemSrc::Synth(s) => (std::borrow::Cow::Borrowed(s.as_bytes()), None),
        };
        let mut pieces = Vec::new();
        item_pieces(item, &bytes, line, &mut pieces);
        for p in pieces {
            self.apply(p, 0);
        }
        Ok(())
    }

    /// Every item and compaction of a file of JSON lines, in order (`--full`): each line's
    /// records and [`Piece`]s are found on every core, a batch of lines ([`LINES_BATCH`]
    /// bytes) at a time with the next batch read ahead, and taken in file order here. A source
    /// not held as one slice is read in order.
    pub(super) fn every_line(mut self) -> std::io::Result<Conversation> {
        use rayon::prelude::*;
        let src = self.src;
        let Some(all) = src.as_slice() else {
            let mut pieces = Vec::new();
            crate::io::for_each_line(src, |l| {
                line_pieces(&l, &mut pieces);
                for p in pieces.drain(..) {
                    self.apply(p, 0);
                }
            })?;
            return self.c.finish();
        };
        type Batch = (u64, u64, u64, Vec<Vec<Piece>>);
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<std::io::Result<Batch>>(1);
            scope.spawn(move || {
                let mut at = 0usize;
                while at < all.len() {
                    let end = match all.get(at + LINES_BATCH..) {
                        Some(rest) => memchr::memchr(b'\n', rest).map_or(all.len(), |i| at + LINES_BATCH + i + 1),
                        None => all.len(),
                    };
                    let mut stats = crate::io::LineStats::default();
                    let mut lines = Vec::new();
                    crate::io::lines::split_chunk(at as u64, &all[at..end], end == all.len(), &mut stats, &mut |l| {
                        lines.push(l)
                    });
                    let pieces: Vec<Vec<Piece>> = lines
                        .par_iter()
                        .map(|l| {
                            let mut v = Vec::new();
                            line_pieces(l, &mut v);
                            v
                        })
                        .collect();
                    // Read in place: a mapping that faulted (the file cut short) read zeros.
                    let batch = src
                        .check()
                        .map(|()| (at as u64, (end - at) as u64, stats.lines, pieces));
                    if tx.send(batch).is_err() {
                        return;
                    }
                    at = end;
                }
            });
            let mut base = 0u64;
            for batch in rx {
                let (at, len, lines, pieces) = batch?;
                for p in pieces.into_iter().flatten() {
                    self.apply(p, base);
                }
                self.c.check()?;
                self.released.touch(at, len);
                base += lines;
            }
            Ok::<_, std::io::Error>(())
        })?;
        self.c.finish()
    }

    /// Takes one [`Piece`] of the conversation, its line `base` lines further on.
    pub(super) fn apply(&mut self, p: Piece, base: u64) {
        let key = |line: Option<u64>| line.map_or_else(|| "S".to_string(), |l| format!("L{l}"));
        match p {
            Piece::Push(line, body) => {
                let line = line.map(|l| l + base);
                self.push(&key(line), line, body)
            }
            Piece::Block(line, b) => {
                let line = line.map(|l| l + base);
                self.block(&key(line), line, b)
            }
            Piece::Drop(kind) => self.c.drop(&kind),
        }
    }
}

/// Bytes of lines read at once (and held) by the parallel read of every line, at most: a
/// few MiB.
pub(super) const LINES_BATCH: usize = 2 << 20;

/// What one record gives the conversation, found from the record alone (so on any core): an
/// entry, a block of the response being read, or a thing left out. Lines are as the record
/// has them (in a window, counted from its start).
#[derive(Debug, PartialEq)]
pub(super) enum Piece {
    Push(Option<u64>, Body),
    Block(Option<u64>, Block),
    Drop(Cow<'static, str>),
}

use std::borrow::Cow;

/// The [`Piece`]s of the records of one line, as [`codex::for_each_record`] reads them (a line
/// read as the first one differs only in records that give no piece: a bare header).
pub(super) fn line_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) {
    if fast_pieces(l, out).is_some() {
        return;
    }
    plain_pieces(l, out);
}

/// [`line_pieces`] read as every record is: the line's records, then each item's JSON read
/// whole.
pub(super) fn plain_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) {
    for (no, rec) in tail::one_line(l).records {
        match &rec {
            Record::Response(item) => match &item.src {
                ItemSrc::Raw { offset, len, .. } => {
                    let at = (offset - l.offset) as usize;
                    item_pieces(item, &l.bytes[at..at + *len as usize], Some(no), out);
                }
                ItemSrc::Synth(s) => item_pieces(item, s.as_bytes(), None, out),
            },
            Record::Compacted(cm) => compacted_pieces(no, cm, out),
            _ => {}
        }
    }
}

/// A `response_item` line of the kinds most lines are (a reply, reasoning, a call, its
/// output), read in one typed pass that borrows its strings and skips the rest (encrypted
/// reasoning, the fields no piece takes) without building it.
#[derive(serde::Deserialize)]
pub(super) struct FastLine<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow)]
    payload: Obj<FastItem<'a>>,
    // The envelope's other fields, each refused where the record reader refuses it (twice).
    #[serde(default, rename = "timestamp")]
    _timestamp: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    record_type: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "id")]
    _id: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
pub(super) struct FastItem<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Vec<Obj<FastPart<'a>>>>,
    #[serde(borrow, default)]
    summary: Option<Vec<Obj<FastSummary<'a>>>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    /// Kept as written: a result's text is carried as its JSON string ([`Part::from_raw`]).
    #[serde(borrow, default)]
    output: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
pub(super) struct FastPart<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// A `T` read from a JSON object only: a derived reader would also take an array, by
/// position, where the whole read finds no field at all.
pub(super) struct Obj<T>(T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(serde::Deserialize)]
pub(super) struct FastSummary<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// [`plain_pieces`] of a line from one typed read, where that read settles them as the
/// record reader and the whole read of the item do; None (nothing pushed) for any other line:
/// another kind of line or item, a user message (Codex's own types decide whether it is
/// read), a field of another type or written twice, a lone surrogate, an array or object
/// past the caps of a whole read.
pub(super) fn fast_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) -> Option<()> {
    let b = l.bytes;
    // An array or object past the caps (100,000 members) has as many commas, and two bytes
    // each at least: a line long enough to hold one is read the plain way when it has them.
    if b.len() >= 200_000 && memchr::memchr_iter(b',', b).count() >= crate::io::json::KEEP_ELEMENTS {
        return None;
    }
    let Obj(line) = serde_json::from_slice::<Obj<FastLine<'_>>>(b).ok()?;
    if line.ty != "response_item" || line.record_type.is_some() {
        return None;
    }
    let Obj(p) = line.payload;
    let no = Some(l.no);
    let s = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned).unwrap_or_default();
    match p.ty.as_ref() {
        "message" if p.role.as_deref() == Some("assistant") => {
            for Obj(part) in p.content? {
                match part.ty.as_deref() {
                    Some("input_text" | "output_text" | "text") => {
                        out.push(Piece::Block(no, Block::Text(s(part.text))));
                    }
                    Some("input_image") => out.push(Piece::Drop(Cow::Borrowed("assistant image"))),
                    _ => {}
                }
            }
        }
        "reasoning" => {
            let text: Vec<Cow<'_, str>> = p.summary?.into_iter().filter_map(|Obj(x)| x.text).collect();
            if text.is_empty() {
                out.push(Piece::Drop(Cow::Borrowed("reasoning:encrypted")));
            } else {
                out.push(Piece::Block(no, Block::Reasoning(text.join("\n"))));
            }
        }
        "function_call" => out.push(Piece::Block(
            no,
            function_call(s(p.call_id), s(p.name), p.arguments.as_deref().unwrap_or("")),
        )),
        "custom_tool_call" => out.push(Piece::Block(no, custom_call(s(p.call_id), s(p.name), s(p.input)))),
        "function_call_output" | "custom_tool_call_output" => {
            let r = ToolResult {
                call_id: s(p.call_id),
                output: match p.output {
                    Some(raw) => vec![Part::from_raw(Some(raw))?],
                    None => Vec::new(),
                },
                is_error: false,
            };
            out.push(Piece::Push(no, Body::ToolResult(r)));
        }
        _ => return None,
    }
    Some(())
}

/// A `function_call` as a call: its arguments parsed, under `input` when not an object.
pub(super) fn function_call(id: String, name: String, arguments: &str) -> Block {
    let input = match parse_arguments(arguments) {
        o @ Value::Object(_) => o,
        other => json!({ "input": other }),
    };
    Block::Call(ToolCall { id, name, input })
}

/// A `custom_tool_call` as a call: its free-form input under `input`.
pub(super) fn custom_call(id: String, name: String, input: String) -> Block {
    Block::Call(ToolCall {
        id,
        name,
        input: json!({ "input": input }),
    })
}

/// The [`Piece`]s of a compaction on line `line`.
pub(super) fn compacted_pieces(line: u64, cm: &codex::Compacted, out: &mut Vec<Piece>) {
    match summary_body(&cm.message) {
        Some(s) => out.push(Piece::Push(Some(line), Body::Compaction(s.to_string()))),
        None if !cm.message.is_empty() => out.push(Piece::Push(Some(line), Body::Compaction(cm.message.clone()))),
        // A remote compaction's summary is encrypted: the history before it is carried
        // instead.
        None => out.push(Piece::Drop(Cow::Borrowed("compacted:encrypted"))),
    }
}

/// The [`Piece`]s of the item `item`, whose JSON is `bytes`, from line `line`.
pub(super) fn item_pieces(item: &codex::Item, bytes: &[u8], line: Option<u64>, out: &mut Vec<Piece>) {
    let drop = |out: &mut Vec<Piece>, k: &'static str| out.push(Piece::Drop(Cow::Borrowed(k)));
    let ty = item.ty();
    if item.remote_compaction {
        return drop(out, "compaction:encrypted");
    }
    if item.context {
        return drop(out, "context message");
    }
    if !item.api {
        return out.push(Piece::Drop(Cow::Owned(format!("response_item:{ty}"))));
    }
    let v = crate::io::json::parse_record(bytes);
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match ty {
        "message" => {
            let parts = parts_of(v.get("content").unwrap_or(&Value::Null));
            match v.get("role").and_then(Value::as_str) {
                Some("user") => {
                    let text: String = parts.iter().filter_map(Part::text).collect();
                    match summary_body(&text) {
                        Some(body) => out.push(Piece::Push(line, Body::Compaction(body.to_string()))),
                        None if parts.is_empty() => drop(out, "empty user message"),
                        None => out.push(Piece::Push(line, Body::User(parts))),
                    }
                }
                Some("assistant") => {
                    for p in parts {
                        match p {
                            Part::Text(t) => out.push(Piece::Block(line, Block::Text(t))),
                            Part::Json(j) => out.push(Piece::Block(line, Block::Text(j.text()))),
                            Part::Image(_) => drop(out, "assistant image"),
                        }
                    }
                }
                r => out.push(Piece::Drop(Cow::Owned(format!("message:{}", r.unwrap_or("?"))))),
            }
        }
        "reasoning" => {
            let text = crate::import::reasoning_summary(&v);
            if text.is_empty() {
                drop(out, "reasoning:encrypted");
            } else {
                out.push(Piece::Block(line, Block::Reasoning(text.join("\n"))));
            }
        }
        "function_call" => out.push(Piece::Block(
            line,
            function_call(s("call_id"), s("name"), &s("arguments")),
        )),
        "custom_tool_call" => out.push(Piece::Block(line, custom_call(s("call_id"), s("name"), s("input")))),
        "local_shell_call" => {
            let id = Some(s("call_id")).filter(|i| !i.is_empty()).unwrap_or_else(|| s("id"));
            let call = ToolCall {
                id,
                name: "local_shell".into(),
                input: v.get("action").cloned().unwrap_or_else(|| json!({})),
            };
            out.push(Piece::Block(line, Block::Call(call)));
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
            out.push(Piece::Push(line, Body::ToolResult(r)));
        }
        other => out.push(Piece::Drop(Cow::Owned(other.to_string()))),
    }
}

/// The text and image parts of a Codex content array.
pub(super) fn parts_of(content: &Value) -> Vec<Part> {
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
