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
use serde_json::Value;

use super::history;
use super::rollout::tail::{self, Marks, TailCheck};
use super::rollout::{self as codex, ItemSrc, Record, summary_body};
use crate::io::Source;
use cctool_core::convert::model::{Answered, Conversation, Emitter, Part, Sink, call_key, collect};

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
// Long because it is one pass that hands each entry on as soon as it is complete, its state
// (the head being found, the entry open, what was left out) shared by every step; split, the
// steps would pass that state between them whole.
pub fn read_stream(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    use crate::model::time::{format_ms, parse_ms};
    let mut c = Conversation::new(crate::ID);
    let mut times: Times = Vec::new();
    let mut odd_times: FxHashMap<u64, String> = FxHashMap::default();
    let mut session_id = None;
    let mut head = |no: u64, h: cctool_core::convert::LineHead<'static>| {
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
        type Heads = Vec<(u64, u64, cctool_core::convert::LineHead<'static>, Marks, Option<u64>)>;
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
        let panicked = || std::io::Error::other(ReaderPanicked);
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
            let ks = in_order(src, rollout, &h)?;
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
            for (j, &k) in ks.iter().enumerate().rev() {
                if prefixed(&h.items[k])? {
                    s = Some(j);
                    break;
                }
            }
            let order: Vec<usize> = match s {
                Some(s)
                    if ks[..s]
                        .iter()
                        .all(|&k| h.items[k].role() == Some("user") || h.items[k].context) =>
                {
                    std::iter::once(ks[s])
                        .chain(ks.iter().enumerate().filter(|&(j, _)| j != s).map(|(_, &k)| k))
                        .collect()
                }
                _ => ks,
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

/// The items of `history` (reconstructed from `rollout`) a resume loads, by index, in the
/// order the session model's stream hands them on (`events::events_in`: what a resume
/// loads, from the rollout's last compaction on, read already). Only their places are asked:
/// an item of the rollout's lines is known by its offset, and one made elsewhere (a
/// compaction's replacement history, a legacy rebuild), which has none, is the next of those.
fn in_order(src: &Source, rollout: &codex::Rollout, history: &history::History) -> std::io::Result<Vec<usize>> {
    use cctool_core::model::events::Event;
    let mut by_offset = FxHashMap::default();
    let mut made = Vec::new();
    for (k, item) in history.items.iter().enumerate() {
        match item.src {
            ItemSrc::Raw { offset, .. } => {
                by_offset.insert(offset, k);
            }
            ItemSrc::Synth(_) => made.push(k),
        }
    }
    let mut made = made.into_iter();
    let mut ks = Vec::with_capacity(history.items.len());
    crate::events::events_in(
        src,
        rollout,
        history,
        cctool_core::convert::read::order(false),
        &mut |e| {
            if let Event::Record(r) = e {
                let k = match r.at {
                    Some(at) => by_offset.get(&at.offset).copied(),
                    None => made.next(),
                };
                ks.extend(k);
            }
        },
    )?;
    Ok(ks)
}

/// What the pass over the lines takes of one line: its head as [`cctool_core::convert::line_head`]
/// reads it, its [`Marks`], and the call its output item answers ([`answers`]), if it is one.
type View = (cctool_core::convert::LineHead<'static>, Marks, Option<u64>);

/// The [`View`] of a line from one parse. A line the typed parse refuses is read by each
/// reader as it reads it.
fn line_view(bytes: &[u8]) -> View {
    use crate::io::json::{Key, LStr};
    use serde::de::{Error, IgnoredAny};
    use std::borrow::Cow;
    /// A [`cctool_core::convert::LineHead`] with the other keys the rollout's reader reads of the
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
    /// [`cctool_core::convert::PayloadHead`] and `call_id`, from an object only (the derived reader
    /// would take an array by position).
    struct Payload<'a>(cctool_core::convert::PayloadHead<'a>, Option<Cow<'a, str>>);
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
                    let head = cctool_core::convert::PayloadHead {
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
        let head = cctool_core::convert::LineHead {
            ty: h.ty,
            timestamp: h.timestamp,
            payload: h.payload.map(|p| p.0),
        };
        return (head.into_owned(), marks, answer);
    }
    let one = tail::one_line(&alone(bytes));
    (
        cctool_core::convert::line_head(bytes),
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
        && matches!(item.ty(), "function_call_output" | "custom_tool_call_output")
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

#[cfg(test)]
mod tail_tests;

mod converter;
mod pieces;
mod write;

pub use converter::Converter;
use pieces::{Reader, parts_of};
pub use write::{is_token_count, write, writer};

#[cfg(test)]
mod tests;

/// The typed read of a line and the parallel read of every line against the record reader.
#[cfg(test)]
mod typed_read;

/// A thread reading the rollout that panicked.
#[derive(Debug, thiserror::Error)]
#[error("a reader of the rollout panicked")]
struct ReaderPanicked;
