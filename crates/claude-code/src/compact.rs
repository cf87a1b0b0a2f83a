//! Compacting a Claude Code transcript: the file is kept as written and three things are
//! appended, as Claude Code's own compaction writes them (`docs/compaction.md#claude-code`):
//! a `compact_boundary` system row (`parentUuid: null`, so the loader's walk stops there),
//! the `isCompactSummary` user row holding the recap, and the kept tail.
//!
//! The tail is re-appended as copies chained after the summary rather than relinked in place
//! with a preserved segment: copies load the same way in every Claude Code that knows
//! boundaries, and the originals stay where they were, untouched. The copies get new uuids
//! and new `message.id`s (one per original id, so split assistant rows still merge), and
//! `sourceToolAssistantUUID` follows the new ids; otherwise the parallel tool-call recovery,
//! which groups rows by `message.id` and tool results by their assistant, could pull the
//! pre-boundary originals back into the conversation.

use std::io::{self, Write};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

use crate::api::api_view;
use crate::chain::{self as claude, Chain, Kind, Options as ChainOptions, Sub, Transcript, flag};
use crate::config::Overrides;
use crate::events::record_of;
use crate::import::claude_record;
use crate::io::Source;
use crate::io::atomic::Output;
use crate::io::json::Members;
use crate::model as claude_model;
use crate::v5::build::{content_text, parse};
use crate::v5::schema::MessageV3;
use cctool_core::compact::{Made, Unit, copy_all, ids};
use cctool_core::model::events::{At, Record};
use cctool_core::model::time::format_ms;
use serde_json::value::RawValue;

/// The conversation a resume loads, as units (one per chain record).
pub struct Loaded {
    /// The transcript read.
    pub t: Transcript,
    /// The chain's messages, as positions into [`Transcript::nodes`], root first.
    pub positions: Vec<u32>,
    /// One unit per chain record, in the same order.
    pub units: Vec<Unit>,
}

/// Runs `f` over the chain records at `positions`, in order, parsed on every core (see
/// [`cctool_core::compact::batched`]).
fn batched<T: Send>(
    src: &Source,
    t: &Transcript,
    positions: &[u32],
    parse_one: impl Fn(u32, &[u8]) -> T + Sync,
    f: impl FnMut(T),
) -> io::Result<()> {
    cctool_core::compact::batched(
        src,
        positions,
        |&p| src.read_range(t.node(p).offset, t.node(p).len as usize),
        |&p| Some((t.node(p).offset, t.node(p).offset + t.node(p).len)),
        |&p, bytes| parse_one(p, bytes),
        f,
    )
}

/// The conversation a resume of `src` loads, as units (see [`load_with`]).
pub fn load(src: &Source) -> io::Result<Loaded> {
    load_with(src, true)
}

/// [`load`]; `from_tail`: after a compaction, what a resume loads is usually decided by the
/// rows from the last boundary on, and those alone are indexed when that provably changes
/// nothing (`summary::resume_tail`). Without it the whole file is indexed.
pub fn load_with(src: &Source, from_tail: bool) -> io::Result<Loaded> {
    let tail = if from_tail {
        let (markers, _) = crate::summaries::claude_markers(src)?;
        crate::summaries::resume_tail(src, &markers)?
    } else {
        None
    };
    let (t, positions) = match tail {
        Some((t, chain)) => (t, chain.positions),
        None => {
            let t = claude::read(src)?;
            let positions = t.rebuild(&ChainOptions::default()).unwrap_or_default().positions;
            (t, positions)
        }
    };
    let mut units = Vec::with_capacity(positions.len());
    batched(
        src,
        &t,
        &positions,
        |p, bytes| unit(t.node(p), bytes),
        |u| units.push(u),
    )?;
    Ok(Loaded { t, positions, units })
}

impl Loaded {
    /// Streams the records of the span `[0, at)` (see [`cctool_core::compact::Feed`]).
    pub fn feed(&self, src: &Source, at: usize, f: &mut dyn FnMut(&Record)) -> io::Result<()> {
        let t = &self.t;
        let span: Vec<u32> = self.positions[..at]
            .iter()
            .zip(&self.units)
            .filter(|(_, u)| u.earlier.is_empty() && !u.carry)
            .map(|(&p, _)| p)
            .collect();
        batched(src, t, &span, |p, bytes| span_record(t.node(p), bytes), |r| f(&r))
    }
}

/// The session model's record of a chain record, as the recap reads it: who speaks is the
/// record's type, which is what the loader goes by.
fn span_record(node: &claude::Node, bytes: &[u8]) -> Record {
    let at = At {
        line: node.line,
        offset: node.offset,
    };
    let (mut r, _) = record_of(parse(bytes), at, node.len, true);
    if matches!(node.kind, Kind::User | Kind::Assistant) {
        r.role = Some(r.kind.clone());
    }
    r
}

/// The v5 view of a chain record, which a unit is measured in where its bytes are not strict
/// JSON.
fn messages(node: &claude::Node, bytes: &[u8]) -> Vec<MessageV3> {
    let rec = parse(bytes);
    let source = json!({"uuid": rec.get("uuid").cloned().unwrap_or(Value::Null), "line": node.line});
    let ts = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
    claude_record(&rec, node.kind, node.line, &source, &ts)
}

#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    message: Option<MessageHead<'a>>,
}

#[derive(serde::Deserialize)]
struct MessageHead<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(serde::Deserialize)]
struct BlockHead<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// `{"role":"assistant","content":` … `}` and the comma after it: what a message of the
/// request adds to its content.
const MESSAGE_FRAME: usize = 32;

/// Bytes of `text` as a JSON string.
fn json_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(text.len(), |s| s.len())
}

/// The unit of one chain record, read without copying its bodies. Its tokens estimate its
/// share of the request a resume sends ([`request_tokens`]): a quarter of `message.content` as
/// written (JSON, as the agent sends it) and of the message around it; rows a resume does not
/// send (attachments, system rows other than local commands, boundaries) count nothing. Only
/// the block types and tool ids are decoded.
fn unit(node: &claude::Node, bytes: &[u8]) -> Unit {
    if node.is_boundary() {
        return Unit {
            carry: true,
            ..Unit::default()
        };
    }
    if node.kind == Kind::User && node.has(flag::COMPACT_SUMMARY) {
        let rec = parse(bytes);
        let text = rec.pointer("/message/content").map(content_text).unwrap_or_default();
        return Unit {
            tokens: cctool_core::model::approx_tokens(json_len(&text) + MESSAGE_FRAME),
            earlier: cctool_core::compact::Earlier::from_text(&crate::summary::template::strip(&text)),
            ..Unit::default()
        };
    }
    if node.kind == Kind::System && node.sub == Sub::LocalCommand {
        // Sent as the user's text.
        let rec = parse(bytes);
        let text = rec.get("content").and_then(Value::as_str).unwrap_or_default();
        return Unit {
            tokens: cctool_core::model::approx_tokens(json_len(text) + MESSAGE_FRAME),
            ..Unit::default()
        };
    }
    if !matches!(node.kind, Kind::User | Kind::Assistant) {
        // Other system rows and attachments are not in the request a resume sends.
        return Unit::default();
    }
    let head: Option<Head<'_>> = serde_json::from_slice(bytes).ok();
    let Some(content) = head.and_then(|h| h.message).and_then(|m| m.content) else {
        // Not strict JSON (a lone surrogate): the general parse, which repairs it.
        return Unit::of_messages(&messages(node, bytes));
    };
    let raw = content.get();
    let mut u = Unit {
        tokens: cctool_core::model::approx_tokens(raw.len() + MESSAGE_FRAME),
        ..Unit::default()
    };
    let mut first_text: Option<&str> = raw.starts_with('"').then_some(raw);
    if raw.starts_with('[') {
        // Block by block, never all held: a row of millions of blocks costs their ids only.
        let (mut calls, mut results, mut text) = (Vec::new(), Vec::new(), None);
        let whole = crate::io::json::for_each_element(raw, |b: BlockHead<'_>| match b.ty.as_deref() {
            Some("tool_use") => calls.extend(b.id.as_deref().map(Into::into)),
            Some("tool_result") => results.extend(b.tool_use_id.as_deref().map(Into::into)),
            Some("text") if text.is_none() => text = b.text.map(RawValue::get),
            _ => {}
        });
        // Blocks that do not all read count as none, as a list read whole would.
        if whole {
            u.calls = calls;
            u.results = results;
            first_text = first_text.or(text);
        }
    }
    // Slash-command rows (`<command-name>`, `<local-command-stdout>`) are not requests.
    let command = first_text.is_some_and(|t| {
        let t = t.trim_start_matches('"').trim_start();
        t.starts_with("<command-") || t.starts_with("<local-command-") || t.starts_with("<bash-")
    });
    u.prompt = node.kind == Kind::User
        && !node.has(flag::META)
        && !node.has(flag::TOOL_RESULT)
        && (node.has(flag::TEXT) || node.has(flag::STRING_CONTENT))
        && !command;
    u
}

/// Claude Code's header, its line for a compaction that keeps recent messages (2.1.88 session
/// memory) and its trailer, around the recap as Claude Code lays them out; the summary
/// template of `extract-summary` (`summary::template::strip`) removes them again.
pub const HEADER: &str = "This session is being continued from a previous conversation that ran out of context. \
The summary below covers the earlier portion of the conversation.";
const PRESERVED: &str = "Recent messages are preserved verbatim.";
const TRAILER: &str = "If you need specific details from before compaction (like exact code snippets, error \
messages, or content you generated), read the full transcript at: ";

/// The summary row's text: Claude Code's own header, the recap, the preserved-messages line,
/// where the full record is.
pub fn summary_text(made: &Made, transcript: Option<&str>) -> String {
    let mut s = format!("{HEADER}\n\n{}\n\n{PRESERVED}", made.text());
    if let Some(p) = transcript {
        s.push_str("\n\n");
        s.push_str(TRAILER);
        s.push_str(p);
    }
    s
}

/// Envelope fields a boundary and a summary row copy from the session's own rows.
const ENVELOPE: &[&str] = &[
    "userType",
    "entrypoint",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "slug",
];

/// What was appended.
pub struct Appended {
    /// The uuid of the compact boundary written.
    pub boundary_uuid: String,
    /// How many rows were re-appended as copies after the summary.
    pub copies: usize,
}

/// Tokens of the request a resume of the chain `positions` sends: ceil(bytes / 4) of the
/// `messages` of `rebuild-chain --api-view`, from the last boundary on. `scan` reports the
/// same number as `resume_tokens`: one estimate everywhere.
///
/// The request is built whole to be measured, which holds its content in memory; a chain of
/// more than [`WINDOW_BYTES`] is measured window by window instead, each ending before a user
/// prompt that follows an assistant row without tool calls, where no rule of the request
/// looks across (no merge, no tool pairing). Only the model whose thinking is kept is then
/// decided per window rather than for the whole request.
pub fn request_tokens(src: &Source, t: &Transcript, positions: &[u32]) -> io::Result<usize> {
    request_tokens_in(src, t, positions, WINDOW_BYTES)
}

fn request_tokens_in(src: &Source, t: &Transcript, positions: &[u32], window_bytes: u64) -> io::Result<usize> {
    // The model (and so whose thinking is kept) is decided once, for the whole request.
    let whole = Chain {
        positions: positions.to_vec(),
        ..Chain::default()
    };
    let rm = claude_model::choose_for(t, &whole, src, &Overrides::default())?;
    let start = positions
        .iter()
        .rposition(|&p| t.node(p).is_boundary())
        .map_or(0, |i| i + 1);
    let positions = &positions[start..];
    let (mut bytes, mut messages) = (0usize, 0usize);
    let (mut from, mut size) = (0usize, 0u64);
    let mut last_sent: Option<&claude::Node> = None;
    for i in 0..=positions.len() {
        let node = positions.get(i).map(|&p| t.node(p));
        let seam = node.is_some_and(|n| {
            size >= window_bytes
                && is_prompt_row(n)
                && last_sent.is_some_and(|l| l.kind == Kind::Assistant && !l.has(flag::TOOL_USE))
        });
        if node.is_none() || seam {
            let window = &positions[from..i];
            let chain = Chain {
                positions: window.to_vec(),
                ..Chain::default()
            };
            match api_view(t, &chain, src, None, &rm) {
                Ok(view) => {
                    for m in view.messages() {
                        bytes += m.len();
                        messages += 1;
                    }
                }
                // A window with a message of more blocks than a view holds (no real session
                // has one) is measured by its records' size instead: compaction is how such a
                // session gets smaller, so it must not be refused for it.
                Err(e) if crate::api::TooManyBlocks::is(&e) => {
                    bytes += window.iter().map(|&p| t.node(p).len as usize).sum::<usize>();
                    messages += window.len();
                }
                Err(e) => return Err(e),
            }
            let (lo, hi) = window.iter().fold((u64::MAX, 0), |(lo, hi), &p| {
                let n = t.node(p);
                (lo.min(n.offset), hi.max(n.offset + n.len))
            });
            if lo < hi {
                src.done_with(lo, hi - lo);
            }
            (from, size) = (i, 0);
        }
        if let Some(n) = node {
            size += n.len;
            if matches!(n.kind, Kind::User | Kind::Assistant) || n.sub == Sub::LocalCommand {
                last_sent = Some(n);
            }
        }
    }
    // `[`, the messages, a comma between each two, `]`: as `ApiView::tokens` counts them.
    Ok((bytes + 2 + messages.saturating_sub(1)).div_ceil(4))
}

/// Records of a chain measured as one request at most; larger chains are measured in windows
/// of about this size, so memory stays bounded.
pub const WINDOW_BYTES: u64 = 32 << 20;

/// A user row holding a prompt: text from the user, not a tool result, injected context or a
/// summary.
fn is_prompt_row(n: &claude::Node) -> bool {
    n.kind == Kind::User
        && !n.has(flag::META)
        && !n.has(flag::TOOL_RESULT)
        && !n.has(flag::COMPACT_SUMMARY)
        && (n.has(flag::TEXT) || n.has(flag::STRING_CONTENT))
}

impl Loaded {
    /// [`request_tokens`] of the conversation a resume loads now.
    pub fn tokens(&self, src: &Source) -> io::Result<usize> {
        request_tokens(src, &self.t, &self.positions)
    }

    /// [`request_tokens`] of the tail kept from `at` on (0 for none).
    pub fn tail_tokens(&self, src: &Source, at: usize) -> io::Result<usize> {
        if at >= self.positions.len() {
            return Ok(0);
        }
        request_tokens(src, &self.t, &self.positions[at..])
    }

    /// [`request_tokens`] of the compacted file: what [`append`] adds, read as the whole
    /// output would be (the boundary's null parent ends every walk through it, and its last
    /// row is the tip), so `scan` of the output says the same.
    pub fn tokens_after(&self, src: &Source, at: usize, made: &Made, transcript: Option<&str>) -> io::Result<usize> {
        let mut appended = Vec::new();
        append(src, self, at, made, 0, transcript, &mut appended)?;
        let out = Source::from_bytes(src.name(), appended);
        let t = claude::read(&out)?;
        let chain = t.rebuild(&ChainOptions::default()).unwrap_or_default();
        request_tokens(&out, &t, &chain.positions)
    }
}

/// Writes the whole output: the input unchanged, then the boundary, the summary and the tail.
pub fn write(
    src: &Source,
    loaded: &Loaded,
    at: usize,
    made: &Made,
    pre_tokens: usize,
    transcript: Option<&str>,
    w: &mut Output,
) -> io::Result<Appended> {
    // The input as it is; a last line without its newline gets one, so ours start on their own.
    copy_all(src, w)?;
    append(src, loaded, at, made, pre_tokens, transcript, w)
}

/// Writes what a compaction appends: the boundary, the summary and the tail's copies.
fn append(
    src: &Source,
    loaded: &Loaded,
    at: usize,
    made: &Made,
    pre_tokens: usize,
    transcript: Option<&str>,
    w: &mut dyn Write,
) -> io::Result<Appended> {
    let t = &loaded.t;
    let tail: Vec<u32> = loaded.positions[at..]
        .iter()
        .copied()
        .filter(|&p| !t.node(p).is_boundary())
        .collect();
    // The template for envelope fields: the newest user or assistant row of the conversation.
    let template_pos = loaded
        .positions
        .iter()
        .rev()
        .copied()
        .find(|&p| matches!(t.node(p).kind, Kind::User | Kind::Assistant))
        .or_else(|| loaded.positions.last().copied());
    let template = match template_pos {
        Some(p) => parse(&src.read_range(t.node(p).offset, t.node(p).len as usize)?),
        None => Value::Null,
    };
    // After every timestamp in the file, so that a newest-leaf loader (2.1.88) picks the copies too.
    let newest = t.time_span().map_or(i64::MIN, |s| s.1);
    let mut new = Renamed {
        t,
        session: template
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        tip_uuid: loaded.positions.last().map(|&p| t.uuid_text(p)).unwrap_or_default(),
        ts: ids::now_ms().max(newest.saturating_add(1)),
        uuids: FxHashMap::default(),
        msg_ids: FxHashMap::default(),
    };
    let envelope = |m: &mut Map<String, Value>| {
        for k in ENVELOPE {
            if let Some(v) = template.get(*k) {
                m.insert((*k).to_string(), v.clone());
            }
        }
    };

    let boundary_uuid = new.id(&["compact_boundary"]);
    let mut b = Map::new();
    b.insert("parentUuid".into(), Value::Null);
    b.insert("logicalParentUuid".into(), json!(new.tip_uuid));
    b.insert("isSidechain".into(), json!(false));
    envelope(&mut b);
    b.insert("type".into(), json!("system"));
    b.insert("subtype".into(), json!("compact_boundary"));
    b.insert("content".into(), json!("Conversation compacted"));
    b.insert("isMeta".into(), json!(false));
    b.insert("timestamp".into(), json!(new.ts()));
    b.insert("uuid".into(), json!(boundary_uuid));
    b.insert("level".into(), json!("info"));
    b.insert(
        "compactMetadata".into(),
        json!({"trigger": "manual", "preTokens": pre_tokens}),
    );

    let summary_uuid = new.id(&["compact_summary"]);
    let mut s = Map::new();
    s.insert("parentUuid".into(), json!(boundary_uuid));
    s.insert("isSidechain".into(), json!(false));
    envelope(&mut s);
    s.insert("type".into(), json!("user"));
    s.insert(
        "message".into(),
        json!({"role": "user", "content": summary_text(made, transcript)}),
    );
    s.insert("isVisibleInTranscriptOnly".into(), json!(true));
    s.insert("isCompactSummary".into(), json!(true));
    s.insert("uuid".into(), json!(summary_uuid));
    s.insert("timestamp".into(), json!(new.ts()));

    writeln_json(w, &Value::Object(b))?;
    writeln_json(w, &Value::Object(s))?;

    let mut parent = summary_uuid;
    for &p in &tail {
        parent = new.copy(src, p, &parent, w)?;
    }
    Ok(Appended {
        boundary_uuid,
        copies: tail.len(),
    })
}

/// The new ids and times of what a compaction appends, and the tail's old ids mapped to them.
struct Renamed<'a> {
    t: &'a Transcript,
    session: String,
    tip_uuid: String,
    /// The next timestamp, in milliseconds.
    ts: i64,
    uuids: FxHashMap<String, String>,
    msg_ids: FxHashMap<String, String>,
}

impl Renamed<'_> {
    /// A uuid derived from `parts` that no record of the file has.
    fn id(&self, parts: &[&str]) -> String {
        let mut salt = 0u32;
        loop {
            let s = salt.to_string();
            let mut all: Vec<&str> = vec![&self.session, &self.tip_uuid];
            all.extend_from_slice(parts);
            all.push(&s);
            let id = ids::uuid(&all);
            if self.t.find(&id).is_none() {
                return id;
            }
            salt += 1;
        }
    }

    /// The next timestamp, each one later than the one before.
    fn ts(&mut self) -> String {
        let s = format_ms(self.ts);
        self.ts += 1;
        s
    }

    /// Writes the copy of the tail record at `p` under `parent`, and returns its new uuid.
    fn copy(&mut self, src: &Source, p: u32, parent: &str, w: &mut dyn Write) -> io::Result<String> {
        let node = self.t.node(p);
        // Only the linking fields are rewritten; every other byte of the record is copied as
        // written, so nothing is re-encoded and no depth of nesting can cost the record.
        let bytes = src.read_range(node.offset, node.len as usize)?;
        let repaired = crate::io::json::repair_surrogates(&bytes);
        let Some(mut rec) = Members::parse(&bytes).or_else(|| repaired.as_deref().and_then(Members::parse)) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                NotAnObject { line: node.line },
            ));
        };
        let old = rec.str("uuid").unwrap_or_default();
        let id = self.id(&["copy", &old, &node.line.to_string()]);
        self.uuids.insert(old, id.clone());
        rec.set("parentUuid", &parent);
        rec.set("uuid", &id);
        rec.set("timestamp", &self.ts());
        for key in ["sourceToolAssistantUUID", "logicalParentUuid"] {
            if let Some(new) = rec.str(key).and_then(|u| self.uuids.get(&u).cloned()) {
                rec.set(key, &new);
            }
        }
        if node.kind == Kind::Assistant
            && let Some(message) = rec.get("message").map(|m| m.get().as_bytes().to_vec())
            && let Some(mut m) = Members::parse(&message)
            && let Some(old_id) = m.str("id")
        {
            let new = self
                .msg_ids
                .entry(old_id.clone())
                .or_insert_with(|| ids::message_id(&[&self.session, &self.tip_uuid, &old_id]))
                .clone();
            m.set("id", &new);
            let m = RawValue::from_string(String::from_utf8_lossy(&m.to_vec()).into_owned())?;
            rec.set("message", &m);
        }
        rec.write(w)?;
        w.write_all(b"\n")?;
        Ok(id)
    }
}

fn writeln_json(w: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *w, v)?;
    w.write_all(b"\n")
}

/// A record the compaction copies after its summary that is not a JSON object, so that its
/// linking fields cannot be rewritten.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: the record to copy is not a JSON object")]
struct NotAnObject {
    /// Its line in the transcript.
    line: u64,
}

#[cfg(test)]
mod tests;
