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
use serde_json::{Map, Value, json};

use super::history;
use super::rollout::tail::{self, Marks, TailCheck};
use super::rollout::{self as codex, ItemSrc, Record, SUMMARY_PREFIX, summary_body};
use crate::agents::cctool::schema::parse_arguments;
use crate::convert::model::{
    Answered, Block, Body, Conversation, Emitter, Entry, Image, Part, Sink, ToolCall, ToolResult, call_key, collect,
};
use crate::convert::tools::{self, CodexCall};
use crate::convert::{Clock, EntryWriter, Tally, WriteOptions, line, line_with, reasoning_text};
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
    let lines_answer = full && answered && codex::first_line_is_a_record(src)?;
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
    steps.each(|step| {
        r.c.check()?;
        match step {
            Step::Item(item) => r.item(item),
            Step::Compacted(line, cm) => {
                match summary_body(&cm.message) {
                    Some(s) => r.push(&format!("L{line}"), Some(line), Body::Compaction(s.to_string())),
                    None if !cm.message.is_empty() => {
                        r.push(&format!("L{line}"), Some(line), Body::Compaction(cm.message.clone()))
                    }
                    // A remote compaction's summary is encrypted: the history before it is
                    // carried instead.
                    None => r.c.drop("compacted:encrypted"),
                }
                Ok(())
            }
        }
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

    fn item(&mut self, item: &codex::Item) -> std::io::Result<()> {
        let (v, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let v = crate::io::json::parse_record(&self.src.read_range(*offset, *len as usize)?);
                self.released.touch(*offset, u64::from(*len));
                (v, Some(*line))
            }
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

    fn token_count(&self, ts: &str) -> Vec<u8> {
        let n = self.tokens();
        let usage = json!({"input_tokens": n, "cached_input_tokens": 0, "output_tokens": 0,
                           "reasoning_output_tokens": 0, "total_tokens": n});
        line(
            &json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": null},
            "rate_limits": null}}),
        )
    }

    fn item(&mut self, out: &mut Vec<Vec<u8>>, ts: &str, payload: Value) {
        let l = line(&payload);
        self.items += 1;
        self.item_bytes += l.len();
        let head = Map::from_iter([
            ("timestamp".to_string(), json!(ts)),
            ("type".to_string(), json!("response_item")),
        ]);
        out.push(line_with(head, "payload", &l, &[]));
    }
}

fn event(out: &mut Vec<Vec<u8>>, ts: &str, payload: Value) {
    out.push(line(&json!({"timestamp": ts, "type": "event_msg", "payload": payload})));
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
                let content: Vec<Value> = parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(t) => json!({"type": "input_text", "text": t}),
                        Part::Image(i) => json!({"type": "input_image", "image_url": i.as_url()}),
                    })
                    .collect();
                self.item(out, &ts, json!({"type": "message", "role": "user", "content": content}));
                let text: Vec<&str> = parts.iter().filter_map(Part::text).collect();
                let images: Vec<String> = parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Image(i) => Some(i.as_url()),
                        Part::Text(_) => None,
                    })
                    .collect();
                event(
                    out,
                    &ts,
                    json!({"type": "user_message", "message": text.join("\n"), "images": images,
                           "local_images": [], "text_elements": []}),
                );
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
                            self.item(
                                out,
                                &ts,
                                json!({"type": "message", "role": "assistant",
                                "content": [{"type": "output_text", "text": text}]}),
                            );
                            // A reply the resumed screen shows; carried reasoning is not one.
                            if matches!(b, Block::Text(_)) {
                                event(out, &ts, json!({"type": "agent_message", "message": t}));
                            }
                        }
                        Block::Call(call) => {
                            let (mapped, label) = tools::to_codex(&call.name, &call.input);
                            self.tally.map(label);
                            match mapped {
                                CodexCall::Function { name, arguments } => self.item(
                                    out,
                                    &ts,
                                    json!({
                                    "type": "function_call", "name": name,
                                    "arguments": arguments.to_string(), "call_id": call.id}),
                                ),
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
                let all_text = r.output.iter().all(|p| p.text().is_some());
                let output = if all_text || custom {
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
                let ty = if custom {
                    "custom_tool_call_output"
                } else {
                    "function_call_output"
                };
                self.item(out, &ts, json!({"type": ty, "call_id": r.call_id, "output": output}));
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
mod tail_tests {
    use super::*;

    /// What a resume reconstructs from `bytes`, from every record and from the records after
    /// the last compaction as the conversion reads them, and the line the latter started at.
    fn both(bytes: &[u8]) -> (String, String, Option<u64>) {
        let src = Source::from_bytes("t.jsonl", bytes.to_vec());
        let whole = history::reconstruct(&codex::read_records(&src).unwrap());
        let mut check = TailCheck::default();
        crate::io::for_each_line(&src, |l| check.add(l.no, l.offset, line_view(l.bytes).1)).unwrap();
        let cand = tail::read_candidate(&src, |l| line_view(l.bytes).1).unwrap();
        let from = cand.tail_from(&check);
        let fast = history::reconstruct(&cand.resolve(&src, &check).unwrap());
        (format!("{whole:?}"), format!("{fast:?}"), from)
    }

    /// Every fixture: the history from the tail read is the history from every record.
    #[test]
    fn the_tail_read_gives_the_history_of_every_fixture() {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                    files.push(p);
                }
            }
        }
        let mut tails = 0;
        for f in &files {
            let (whole, fast, from) = both(&std::fs::read(f).unwrap());
            assert_eq!(whole, fast, "{}", f.display());
            tails += usize::from(from.is_some());
        }
        assert!(tails >= 3, "{tails} fixtures read from their last compaction");
    }

    /// A generated rollout: mostly plain turns, with now and then a compaction of each kind,
    /// a rollback, a line of an older era, a line no reader takes, or a `"compacted"` that is
    /// no compaction.
    fn rollout(seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let ts = "\"timestamp\":\"2026-03-01T10:00:00.000Z\"";
        let user =
            |t: &str| format!(r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{t}"}}]}}"#);
        let mut out = format!("{{{ts},\"type\":\"session_meta\",\"payload\":{{\"id\":\"s\",\"cwd\":\"/w\"}}}}\n");
        let lines = 5 + next(40);
        for i in 0..lines {
            let item = |p: String| format!("{{{ts},\"type\":\"response_item\",\"payload\":{p}}}");
            let compacted = |p: String| format!("{{{ts},\"type\":\"compacted\",\"payload\":{p}}}");
            let kind = match next(100) {
                0..=9 => 3 + next(20),
                10..=15 => 0,
                16..=25 => 40 + next(12),
                k => 23 + k % 17,
            };
            let line = match kind {
                0..=2 => compacted(format!(
                    r#"{{"message":"s{i}","replacement_history":[{}]}}"#,
                    user(&format!("kept {i}"))
                )),
                3 => compacted(format!(r#"{{"message":"s{i}"}}"#)),
                4 => compacted(
                    r#"{"message":"s","replacement_history":[{"type":"message","role":"user","content":7}]}"#.into(),
                ),
                5 => compacted(r#"{"message":5,"replacement_history":[]}"#.into()),
                6 => format!(r#"{{{ts},"type":"compacted","payload":null}}"#),
                7 => format!(
                    r#"{{{ts},"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":{}}}}}"#,
                    next(3)
                ),
                8 => r#"{"record_type":"state"}"#.into(),
                9 => user("bare"),
                10 => format!(r#"{{{ts},"type":"compacted","payload":{{"message":"cut"#),
                11 => format!(
                    r#"{{{ts},"type":"compact\u0065d","payload":{{"message":"e{i}","replacement_history":[]}}}}"#
                ),
                12 => format!(
                    r#"{{{ts},"type":"compacted","payload":{{"message":"\ud800{i}","replacement_history":[]}}}}"#
                ),
                13 => format!(
                    r#"{{{ts},"type":"compacted","type":"compacted","payload":{{"message":"d","replacement_history":[]}}}}"#
                ),
                14 => item(
                    r#"{"type":"function_call","name":"f","arguments":"{}","call_id":"c","x":{"type":"compacted"}}"#
                        .into(),
                ),
                15 => r#"["2026","compacted",{"message":"a","replacement_history":[]}]"#.into(),
                16 => format!(
                    r#"{{{ts},"type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"\"compacted\" {i}"}}]}}}}"#
                ),
                17 => format!(r#"{{{ts},"type":"event_msg","payload":{{"type":"task_started","turn_id":"t{i}"}}}}"#),
                18 => format!(r#"{{{ts},"type":"event_msg","payload":{{"type":"user_message","message":"u"}}}}"#),
                19 => String::new(),
                20 => format!(
                    r#"{{{ts},"type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":1,"num_turns":2}}}}"#
                ),
                21 => format!(r#"{{{ts},"type":"turn_context","payload":{{"model":"m","cwd":"/w"}}}}"#),
                22 => format!(r#"{{{ts},"type":"inter_agent_communication","payload":{{"x":1}}}}"#),
                40 => item(format!(
                    r#"{{"type":"custom_tool_call_output","call_id":"k{i}","output":"o"}}"#
                )),
                41 => item(format!(
                    r#"{{"type":"function_call_output","call_id":"a","call_id":"b{i}","output":"o"}}"#
                )),
                42 => item(format!(r#"["function_call_output","x{i}",null,null,"y"]"#)),
                43 => format!(r#"{{"type":"function_call_output","call_id":"bare{i}","output":"o"}}"#),
                44 => format!(
                    r#"{{"record_type":"x",{ts},"type":"response_item","payload":{{"type":"function_call_output","call_id":"r{i}"}}}}"#
                ),
                45 => item(format!(
                    r#"{{"type":"function_call_output","call_id":{i},"output":"o"}}"#
                )),
                46 => item(format!(
                    r#"{{"type":"function_call_output","call_\u0069d":"e{i}","output":"\ud800"}}"#
                )),
                47 => item(format!(r#"{{"type":"function_call_output","output":"no id {i}"}}"#)),
                48 => format!(
                    r#"{{{ts},"type":"response_item","id":1,"id":2,"payload":{{"type":"function_call_output","call_id":"d{i}"}}}}"#
                ),
                49 => format!(
                    r#"{{{ts},"type":"response_item","payload":{{"type":"custom_tool_call_output","call_id":"t{i}","output":"o"}},"timestamp":5}}"#
                ),
                50 => format!(
                    r#"{{{ts},"type":"response_item","payload":{{"type":"function_call_output","call_id":"z{i}","cwd":7}}}}"#
                ),
                51 => item(format!(
                    r#"{{"type":"message","role":"user","call_id":"m{i}","content":[]}}"#
                )),
                23..=28 => item(user(&format!("prompt {i}"))),
                _ => item(format!(
                    r#"{{"type":"function_call_output","call_id":"c","output":"out {i}"}}"#
                )),
            };
            out.push_str(&line);
            out.push_str(if next(9) == 0 { "\r\n" } else { "\n" });
        }
        if next(4) == 0 {
            out.pop();
        }
        out.into_bytes()
    }

    /// The calls answered, from the lines' views and from the records.
    fn answered_both(bytes: &[u8]) -> (Vec<u64>, Vec<u64>) {
        let src = Source::from_bytes("t.jsonl", bytes.to_vec());
        let mut records: Vec<u64> = answered_calls(&src, &Steps::Full(&src)).unwrap().into_iter().collect();
        let mut lines = Vec::new();
        crate::io::for_each_line(&src, |l| lines.extend(line_view(l.bytes).2)).unwrap();
        records.sort_unstable();
        lines.sort_unstable();
        lines.dedup();
        (records, lines)
    }

    /// Every fixture and generated rollout: the calls answered are the same from the lines as
    /// from the records (for the JSON Lines files, whose records are their lines).
    #[test]
    fn the_lines_answer_the_calls_the_records_answer() {
        let mut some = 0;
        let fixtures = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut dirs = vec![fixtures];
        let mut files = Vec::new();
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(std::fs::read(p).unwrap());
                }
            }
        }
        files.extend((0..1500).map(rollout));
        for bytes in files {
            let src = Source::from_bytes("t.jsonl", bytes.clone());
            if !codex::first_line_is_a_record(&src).unwrap() {
                continue;
            }
            let (records, lines) = answered_both(&bytes);
            assert_eq!(records, lines, "{}", String::from_utf8_lossy(&bytes));
            some += usize::from(!records.is_empty());
        }
        assert!(some > 500, "{some}");
    }

    /// Generated rollouts of every shape: the same history both ways, and the tail read taken
    /// often enough to be tested.
    #[test]
    fn the_tail_read_gives_the_history_of_generated_rollouts() {
        let (mut tails, mut others) = (0, 0);
        for seed in 0..2000 {
            let bytes = rollout(seed);
            let (whole, fast, from) = both(&bytes);
            assert_eq!(whole, fast, "seed {seed}:\n{}", String::from_utf8_lossy(&bytes));
            if from.is_some() { tails += 1 } else { others += 1 }
        }
        assert!(
            tails > 200 && others > 200,
            "{tails} read from the last compaction, {others} whole"
        );
    }
}
