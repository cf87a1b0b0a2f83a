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
use super::rollout::tail::{self, Marks, TailCheck};
use super::rollout::{self as codex, ItemSrc, Record, SUMMARY_PREFIX, summary_body};
use crate::agents::cctool::schema::parse_arguments;
use crate::convert::json::{json_str, json_str_inner};
use crate::convert::model::{
    Answered, Block, Body, Conversation, Emitter, Entry, Image, Part, Sink, ToolCall, ToolResult, call_key, collect,
    written_len,
};
use crate::convert::tools::{self, CodexCall};
use crate::convert::{Clock, EntryWriter, Tally, WriteOptions, line, reasoning_text};
use crate::io::Source;
use crate::model::Format;

/// The conversation a resume of `src` loads (`full`: every item of the file).
pub fn read(src: &Source, full: bool) -> std::io::Result<Conversation> {
    collect(|sink| read_stream(src, full, false, sink))
}

/// Item timestamps by line, in line order: the time in milliseconds (all a writer reads of a
/// timestamp is its milliseconds), or `None` for one kept as written (unreadable, or a time
/// whose milliseconds would not read back the same).
type Times = Vec<(u64, Option<i64>)>;

/// [`read`], streamed: the head, then each entry as soon as it is complete. Only the index
/// of the rollout is held. `answered`: the head carries the calls the conversation answers,
/// from a first pass over its outputs.
pub fn read_stream(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    use crate::model::time::{format_ms, parse_ms};
    let mut c = Conversation::new(Format::Codex);
    let mut times: Times = Vec::new();
    let mut odd_times: FxHashMap<u64, String> = FxHashMap::default();
    let mut session_id = None;
    let mut head = |no: u64, h: crate::convert::LineHead<'static>| {
        let p = h.payload.unwrap_or_default();
        match h.ty.as_deref().unwrap_or("") {
            "session_meta" => {
                session_id = session_id.take().or_else(|| p.id.map(|s| s.into_owned()));
                // The session's first directory, as Codex keeps it in session_meta: one
                // changed mid-session must not make the earlier conversion another session's.
                if let Some(cwd) = p.cwd
                    && c.cwd.is_none()
                {
                    c.cwd = Some(cwd.into_owned());
                }
                c.drop("session_meta");
            }
            "turn_context" => {
                if let Some(m) = p.model {
                    c.model = Some(m.into_owned());
                }
                // The session's first directory, as Codex keeps it in session_meta: one
                // changed mid-session must not make the earlier conversion another session's.
                if let Some(cwd) = p.cwd
                    && c.cwd.is_none()
                {
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
                    match parse_ms(&ts).filter(|&ms| parse_ms(&format_ms(ms)) == Some(ms)) {
                        Some(ms) => times.push((no, Some(ms))),
                        None => {
                            times.push((no, None));
                            odd_times.insert(no, ts.into_owned());
                        }
                    }
                }
            }
            "" => {}
            other => c.drop(other),
        }
    };
    // Two passes over the whole file at once: the rollout's index (every item in order needs
    // none: it is read as the items are carried) on its own thread, and the lines' heads,
    // parsed on every core and taken in file order. The index is read from the last
    // compaction on, where the heads show that nothing before it changes the history
    // (`rollout::tail`).
    let mut check = TailCheck::default();
    // Every item of the file is carried: the calls they answer are taken from the lines (a
    // 2025 document's records are not its lines: read meanwhile).
    // A file of JSON lines (not a 2025 document): its records are its lines'.
    let jsonl = full && codex::first_line_is_a_record(src)?;
    let lines_answer = full && answered && jsonl;
    let mut lines_answered = Answered::default();
    let (rollout, full_answered) = std::thread::scope(|scope| {
        let rollout = (!full).then(|| scope.spawn(|| tail::read_candidate(src, |l| line_view(l.bytes).1)));
        let answered =
            (full && answered && !lines_answer).then(|| scope.spawn(|| answered_calls(src, &Steps::Full(src))));
        type Heads = Vec<(u64, u64, crate::convert::LineHead<'static>, Marks, Option<u64>)>;
        crate::io::lines::par_fold(
            src,
            Vec::new,
            |w: &mut Heads, l| {
                let (h, m, a) = line_view(l.bytes);
                w.push((l.no, l.offset, h, m, a))
            },
            |w, base| {
                for (no, offset, h, m, a) in w {
                    check.add(no + base, offset, m);
                    lines_answered.extend(a);
                    head(no + base, h);
                }
            },
        )?;
        let panicked = || std::io::Error::other("a reader of the rollout panicked");
        let rollout = rollout
            .map(|r| r.join().unwrap_or_else(|_| Err(panicked())))
            .transpose()?;
        let answered = answered
            .map(|a| a.join().unwrap_or_else(|_| Err(panicked())))
            .transpose()?;
        Ok::<_, std::io::Error>((rollout, answered))
    })?;
    let rollout = rollout.map(|r| r.resolve(src, &check)).transpose()?;
    c.session_id = session_id.unwrap_or_else(|| src.name().to_string());
    let h;
    let steps = match &rollout {
        None => Steps::Full(src),
        Some(rollout) => {
            h = history::reconstruct(rollout);
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
            Steps::Resumed(&h.items, order)
        }
    };
    let answered = match (answered, full_answered) {
        (false, _) => None,
        (true, Some(set)) => Some(set),
        (true, None) if lines_answer => Some(lines_answered),
        (true, None) => Some(answered_calls(src, &steps)?),
    };
    let mut r = Reader {
        src,
        c: Emitter::new(c, sink),
        times,
        odd_times,
        released: src.releaser(),
    };
    r.c.head(answered)?;
    if jsonl {
        return r.every_line();
    }
    steps.each(|step| {
        r.c.check()?;
        r.step(step)
    })?;
    r.c.finish()
}

/// What the pass over the lines takes of one line: its head as [`crate::convert::line_head`]
/// reads it, its [`Marks`], and the call its output item answers ([`answers`]), if it is one.
type View = (crate::convert::LineHead<'static>, Marks, Option<u64>);

/// The [`View`] of a line from one parse. A line the typed parse refuses is read by each
/// reader as it reads it.
fn line_view(bytes: &[u8]) -> View {
    use crate::io::json::{Key, LStr};
    use serde::de::{Error, IgnoredAny};
    use std::borrow::Cow;
    /// A [`crate::convert::LineHead`] with the other keys the rollout's reader reads of the
    /// envelope, each failing the parse where that reader's does, and the payload's call id.
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow, default)]
        ty: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        timestamp: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        payload: Option<Payload<'a>>,
        #[serde(default)]
        record_type: Option<IgnoredAny>,
        #[serde(default, rename = "id")]
        _id: Option<IgnoredAny>,
    }
    /// [`crate::convert::PayloadHead`] and `call_id`, from an object only (the derived reader
    /// would take an array by position).
    struct Payload<'a>(crate::convert::PayloadHead<'a>, Option<Cow<'a, str>>);
    impl<'de: 'a, 'a> serde::Deserialize<'de> for Payload<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V<'a>(std::marker::PhantomData<&'a ()>);
            impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
                type Value = Payload<'a>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a payload object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Payload<'a>, A::Error> {
                    let mut f: [LStr<'de>; 5] = Default::default();
                    while let Some(k) = a.next_key::<Key<'de>>()? {
                        let i = match k.as_ref() {
                            "type" => 0,
                            "id" => 1,
                            "cwd" => 2,
                            "model" => 3,
                            "call_id" => 4,
                            _ => {
                                a.next_value::<IgnoredAny>()?;
                                continue;
                            }
                        };
                        if f[i] != LStr::Absent {
                            return Err(A::Error::custom("duplicate field"));
                        }
                        f[i] = a.next_value::<LStr<'de>>()?;
                    }
                    let mut s = f.into_iter().map(|v| match v {
                        LStr::Absent | LStr::Null => Ok(None),
                        LStr::Str(s) => Ok(Some(s)),
                        LStr::Other => Err(A::Error::custom("not a string")),
                    });
                    let mut next = || s.next().unwrap_or(Ok(None));
                    let head = crate::convert::PayloadHead {
                        ty: next()?,
                        id: next()?,
                        cwd: next()?,
                        model: next()?,
                    };
                    Ok(Payload(head, next()?))
                }
            }
            d.deserialize_map(V(std::marker::PhantomData))
        }
    }
    // An array would be read by position, which the envelope's reader takes in another order.
    if bytes.trim_ascii_start().starts_with(b"{")
        && let Ok(h) = serde_json::from_slice::<Head<'_>>(bytes)
    {
        let pty = h.payload.as_ref().map(|p| p.0.ty.as_deref());
        let marks = Marks::of_envelope(h.ty.as_deref(), pty);
        let answer = match (h.ty.as_deref(), &h.payload) {
            _ if h.record_type.is_some() => None,
            (Some("response_item"), Some(Payload(p, call_id))) => matches!(
                p.ty.as_deref(),
                Some("function_call_output" | "custom_tool_call_output")
            )
            .then(|| call_key(call_id.as_deref().unwrap_or(""))),
            // A bare item of the early Rust CLI: read as the reader reads it.
            (Some(t), None) if codex::is_response_item_type(t) => answer_of(bytes, &tail::one_line(&alone(bytes))),
            _ => None,
        };
        let head = crate::convert::LineHead {
            ty: h.ty,
            timestamp: h.timestamp,
            payload: h.payload.map(|p| p.0),
        };
        return (head.into_owned(), marks, answer);
    }
    let one = tail::one_line(&alone(bytes));
    (
        crate::convert::line_head(bytes),
        Marks::of_line(&one),
        answer_of(bytes, &one),
    )
}

/// `bytes` as a line of its own.
fn alone(bytes: &[u8]) -> crate::io::Line<'_> {
    crate::io::Line {
        no: 1,
        offset: 0,
        bytes,
        terminated: true,
    }
}

/// The call answered by the output item `one` (the records of the one line `bytes`) holds.
fn answer_of(bytes: &[u8], one: &codex::Rollout) -> Option<u64> {
    one.records.iter().find_map(|(_, r)| match r {
        Record::Response(item) if answers(item) => match &item.src {
            ItemSrc::Raw { offset, len, .. } => {
                let raw = bytes.get(*offset as usize..*offset as usize + *len as usize)?;
                Some(call_key(&call_id_of(raw)))
            }
            ItemSrc::Synth(s) => Some(call_key(&call_id_of(s.as_bytes()))),
        },
        _ => None,
    })
}

/// Whether `item` is the output of a call, which answers it.
fn answers(item: &codex::Item) -> bool {
    item.api
        && !item.remote_compaction
        && !item.context
        && matches!(item.ty.as_str(), "function_call_output" | "custom_tool_call_output")
}

/// The items of a rollout in the order they are carried.
enum Steps<'a> {
    /// Every item and compaction of the file (`--full`), read as they are carried.
    Full(&'a Source),
    /// The history a resume reconstructs, in this order.
    Resumed(&'a [codex::Item], Vec<usize>),
}

enum Step<'a> {
    Item(&'a codex::Item),
    Compacted(u64, &'a codex::Compacted),
}

impl Steps<'_> {
    fn each(&self, mut f: impl FnMut(Step<'_>) -> std::io::Result<()>) -> std::io::Result<()> {
        match self {
            Steps::Full(src) => {
                let mut failed = None;
                codex::for_each_record(src, |line, rec| {
                    let done = match &rec {
                        _ if failed.is_some() => Ok(()),
                        Record::Response(item) => f(Step::Item(item)),
                        Record::Compacted(cm) => f(Step::Compacted(line, cm)),
                        _ => Ok(()),
                    };
                    if let Err(e) = done {
                        failed = Some(e);
                    }
                })?;
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            Steps::Resumed(items, order) => {
                for &i in order {
                    f(Step::Item(&items[i]))?;
                }
            }
        }
        Ok(())
    }
}

/// The calls the results among `steps` answer, from a pass over them.
fn answered_calls(src: &Source, steps: &Steps<'_>) -> std::io::Result<Answered> {
    let mut set = Answered::default();
    let mut released = src.releaser();
    steps.each(|step| {
        if let Step::Item(item) = step
            && answers(item)
        {
            let id = match &item.src {
                ItemSrc::Raw { offset, len, .. } => {
                    let id = call_id_of(&src.read_range(*offset, *len as usize)?);
                    released.touch(*offset, u64::from(*len));
                    id
                }
                ItemSrc::Synth(s) => call_id_of(s.as_bytes()),
            };
            set.insert(call_key(&id));
        }
        Ok(())
    })?;
    Ok(set)
}

/// The `call_id` of an output item, as its lenient read gives it ("" when it has none).
fn call_id_of(raw: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        call_id: Option<std::borrow::Cow<'a, str>>,
    }
    // The typed read skips the output without building it; an item it refuses (a repeated
    // key, a call id of another type) is read as every reader reads it.
    match serde_json::from_slice::<Head<'_>>(raw) {
        Ok(h) => h.call_id.map(|c| c.into_owned()).unwrap_or_default(),
        Err(_) => crate::io::json::parse_record(raw)
            .get("call_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

struct Reader<'s, 'k> {
    src: &'s Source,
    c: Emitter<'k>,
    times: Times,
    odd_times: FxHashMap<u64, String>,
    released: crate::io::source::Releaser<'s>,
}

impl Reader<'_, '_> {
    fn push(&mut self, key: &str, line: Option<u64>, body: Body) {
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
    fn block(&mut self, key: &str, line: Option<u64>, b: Block) {
        if let Some(Body::Assistant(blocks)) = self.c.last_mut().map(|e| &mut e.body) {
            blocks.push(b);
        } else {
            self.push(key, line, Body::Assistant(vec![b]));
        }
    }

    /// Carries one item or compaction, in order.
    fn step(&mut self, step: Step<'_>) -> std::io::Result<()> {
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

    fn item(&mut self, item: &codex::Item) -> std::io::Result<()> {
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
    fn every_line(mut self) -> std::io::Result<Conversation> {
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
    fn apply(&mut self, p: Piece, base: u64) {
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
const LINES_BATCH: usize = 2 << 20;

/// What one record gives the conversation, found from the record alone (so on any core): an
/// entry, a block of the response being read, or a thing left out. Lines are as the record
/// has them (in a window, counted from its start).
#[derive(Debug, PartialEq)]
enum Piece {
    Push(Option<u64>, Body),
    Block(Option<u64>, Block),
    Drop(Cow<'static, str>),
}

use std::borrow::Cow;

/// The [`Piece`]s of the records of one line, as [`codex::for_each_record`] reads them (a line
/// read as the first one differs only in records that give no piece: a bare header).
fn line_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) {
    if fast_pieces(l, out).is_some() {
        return;
    }
    plain_pieces(l, out);
}

/// [`line_pieces`] read as every record is: the line's records, then each item's JSON read
/// whole.
fn plain_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) {
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
struct FastLine<'a> {
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
struct FastItem<'a> {
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
struct FastPart<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// A `T` read from a JSON object only: a derived reader would also take an array, by
/// position, where the whole read finds no field at all.
struct Obj<T>(T);

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
struct FastSummary<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// [`plain_pieces`] of a line from one typed read, where that read settles them as the
/// record reader and the whole read of the item do; None (nothing pushed) for any other line:
/// another kind of line or item, a user message (Codex's own types decide whether it is
/// read), a field of another type or written twice, a lone surrogate, an array or object
/// past the caps of a whole read.
fn fast_pieces(l: &crate::io::Line<'_>, out: &mut Vec<Piece>) -> Option<()> {
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
fn function_call(id: String, name: String, arguments: &str) -> Block {
    let input = match parse_arguments(arguments) {
        o @ Value::Object(_) => o,
        other => json!({ "input": other }),
    };
    Block::Call(ToolCall { id, name, input })
}

/// A `custom_tool_call` as a call: its free-form input under `input`.
fn custom_call(id: String, name: String, input: String) -> Block {
    Block::Call(ToolCall {
        id,
        name,
        input: json!({ "input": input }),
    })
}

/// The [`Piece`]s of a compaction on line `line`.
fn compacted_pieces(line: u64, cm: &codex::Compacted, out: &mut Vec<Piece>) {
    match summary_body(&cm.message) {
        Some(s) => out.push(Piece::Push(Some(line), Body::Compaction(s.to_string()))),
        None if !cm.message.is_empty() => out.push(Piece::Push(Some(line), Body::Compaction(cm.message.clone()))),
        // A remote compaction's summary is encrypted: the history before it is carried
        // instead.
        None => out.push(Piece::Drop(Cow::Borrowed("compacted:encrypted"))),
    }
}

/// The [`Piece`]s of the item `item`, whose JSON is `bytes`, from line `line`.
fn item_pieces(item: &codex::Item, bytes: &[u8], line: Option<u64>, out: &mut Vec<Piece>) {
    let drop = |out: &mut Vec<Piece>, k: &'static str| out.push(Piece::Drop(Cow::Borrowed(k)));
    let ty = item.ty.as_str();
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
            let text = super::import::reasoning_summary(&v);
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
    crate::convert::write_whole(writer, c, o, tally)
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

struct Writer {
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
    fn new(o: &WriteOptions, first: Option<&str>, out: &mut Vec<Vec<u8>>) -> Writer {
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
fn json_join(out: &mut Vec<u8>, parts: &[Part], sep: &str) {
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
const LINE_HEAD: usize = 192;

/// An `event_msg` line whose payload `write` writes (of about `size` bytes).
fn event_with(out: &mut Vec<Vec<u8>>, ts: &str, size: usize, write: impl FnOnce(&mut Vec<u8>)) {
    let mut l = Vec::with_capacity(LINE_HEAD + size);
    l.extend_from_slice(b"{\"timestamp\":");
    json_str(&mut l, ts);
    l.extend_from_slice(b",\"type\":\"event_msg\",\"payload\":");
    write(&mut l);
    l.push(b'}');
    out.push(l);
}

/// A content part as an input item part (`input_text`, `input_image`).
fn input_part(l: &mut Vec<u8>, p: &Part) {
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

fn input_parts(l: &mut Vec<u8>, parts: &[Part]) {
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
                            let mapped = tools::to_codex(&call.name, &call.input, &mut self.files);
                            self.tally.map(mapped.mapped);
                            if let Some(lost) = mapped.lost {
                                self.tally.drop(lost);
                            }
                            match mapped.call {
                                CodexCall::Function { name, arguments } => self.item_with(out, &ts, 0, |l| {
                                    l.extend_from_slice(br#"{"type":"function_call","name":"#);
                                    json_str(l, &name);
                                    l.extend_from_slice(br#","arguments":"#);
                                    json_str(l, &arguments.to_string());
                                    l.extend_from_slice(br#","call_id":"#);
                                    json_str(l, &call.id);
                                    l.push(b'}');
                                }),
                                CodexCall::Custom { name, input } => {
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

#[cfg(test)]
mod tail_tests;

mod converter;
pub use converter::Converter;

#[cfg(test)]
mod tests;

/// The typed read of a line and the parallel read of every line against the record reader.
#[cfg(test)]
mod typed_read;
