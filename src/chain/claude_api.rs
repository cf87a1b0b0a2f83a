//! The request Claude Code 2.1.332 sends after a resume: the send-time pipeline
//! (`docs/claude-code-request.md`) applied to the loaded chain.
//!
//! The chain on disk is not what the model receives. From the last compact boundary on, the
//! client keeps user and assistant rows (and `local_command` system rows, as user text),
//! drops synthetic API-error rows, removes the signed thinking of other models than the request
//! model unless the thinking policy keeps it (`docs/claude-code-model.md`), filters
//! thinking-only and whitespace-only assistant rows, merges consecutive user rows with a
//! newline seam (tool results first), regroups an assistant message split over several
//! rows, reorders tool uses after text, removes empty text, repairs tool-result pairing,
//! closes unanswered tool calls, and adds "No response requested." before a new prompt
//! unless the history ends in a local command. Every rule that changes the request is
//! counted, so a user can see why the request differs from the file.

use std::collections::BTreeMap;

use std::sync::Arc;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::claude::{Chain, Kind, Sub, Transcript};
use super::claude_model::RequestModel;
use crate::io::Source;
use crate::io::json::{LBool, LStr, LString};

/// The reply the client inserts when the history ends with a user message.
pub const SENTINEL: &str = "No response requested.";
/// What replaces tool results that lost their call when they start the request.
pub const ORPHANED: &str = "[Orphaned tool result removed due to conversation resume]";
/// The result given to a tool call left unanswered in the last message.
pub const INTERRUPTED: &str = "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]";
const NO_CONTENT: &str = "(no content)";
const EMPTY_REMOVED: &str = "[Empty text removed]";

/// Rule identifiers and what each one does, in report order.
pub const RULES: &[(&str, &str)] = &[
    ("A1", "whitespace-only assistant text dropped"),
    ("A2", "local-command system rows sent as user text"),
    ("A4", "synthetic API-error assistant rows dropped"),
    ("A5", "signed thinking of another model removed (thinking policy)"),
    ("A6", "orphaned thinking-only assistant rows dropped"),
    ("A7", "no sentinel reply after a trailing local command"),
    ("A8", "tool_result blocks hoisted to the front of a merged user message"),
    ("A9", "tool_use blocks moved after the text of their message"),
    ("A10", "empty text blocks removed or replaced"),
    ("A11", "tool results without their call removed"),
    ("F1", "an assistant message split over several rows regrouped"),
    ("F2", "tool names canonicalised (Task becomes Agent)"),
    ("F3", "thinking-only assistant message dropped"),
    ("F4", "unanswered tool calls closed or removed"),
    ("F5", "sentinel reply added before the prompt"),
    ("merge", "consecutive user rows merged with a newline seam"),
    (
        "B1",
        "loader: a broken parent link bridged to an entry at most 5 s older",
    ),
    ("B2", "loader: parallel tool calls recovered in file order"),
    ("B3", "loader: system rows under the tip appended"),
];

/// Rules with counts, in report order, with what each does.
pub fn rules_of(fired: &BTreeMap<&'static str, usize>) -> Vec<Value> {
    RULES
        .iter()
        .filter_map(|(id, what)| fired.get(id).map(|n| json!({"rule": id, "count": n, "what": what})))
        .collect()
}

/// The emulated request.
#[derive(Debug, Default)]
pub struct ApiView {
    msgs: Vec<Msg>,
    /// How often each rule changed something (the loader's B rules are added by the caller).
    pub fired: BTreeMap<&'static str, usize>,
    /// The model the request names (`claude_model::choose`).
    pub model: Option<String>,
}

impl ApiView {
    /// ceil(bytes / 4) of the `messages` JSON sent.
    pub fn tokens(&self) -> usize {
        let body: usize = self.msgs.iter().map(msg_json_len).sum();
        (body + 2 + self.msgs.len().saturating_sub(1)).div_ceil(4)
    }

    /// How many messages the request holds.
    pub fn len(&self) -> usize {
        self.msgs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.msgs.is_empty()
    }

    /// Each message as the JSON text the client sends.
    pub fn messages(&self) -> impl Iterator<Item = String> + '_ {
        self.msgs.iter().map(msg_json)
    }

    /// The fired rules in report order, with counts and descriptions.
    pub fn rules(&self) -> Vec<Value> {
        rules_of(&self.fired)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

#[derive(Clone, Debug)]
struct Row {
    role: Role,
    content: Content,
    msg_id: Option<String>,
    model: Option<String>,
    is_meta: bool,
    /// `isApiErrorMessage` (A4 drops it when the model is `<synthetic>`).
    api_error: bool,
    local_command: bool,
}

#[derive(Clone, Debug)]
struct Msg {
    role: Role,
    content: Content,
    msg_id: Option<String>,
}

/// A message's content: a plain string, or blocks.
#[derive(Clone, Debug)]
enum Content {
    Str(String),
    Blocks(Vec<Block>),
}

impl Content {
    fn as_array(&self) -> Option<&Vec<Block>> {
        match self {
            Content::Blocks(b) => Some(b),
            Content::Str(_) => None,
        }
    }
}

/// One content block: its JSON as written (shared, so copies are cheap), the few fields the
/// pipeline reads, and a rewritten form once a rule changes it. Building and re-serialising a
/// JSON tree for every block cost more than loading the whole transcript.
#[derive(Clone, Debug)]
struct Block {
    raw: Option<Arc<RawValue>>,
    value: Option<Value>,
    ty: String,
    text: Option<String>,
    id: Option<String>,
    name: Option<String>,
    tool_use_id: Option<String>,
}

#[derive(Deserialize, Default)]
struct Peek<'a> {
    #[serde(default, borrow, rename = "type")]
    ty: LStr<'a>,
    #[serde(default, borrow)]
    text: LStr<'a>,
    #[serde(default, borrow)]
    id: LStr<'a>,
    #[serde(default, borrow)]
    name: LStr<'a>,
    #[serde(default, borrow)]
    tool_use_id: LStr<'a>,
    /// Top-level members the API does not take, found by the same parse.
    #[serde(default, deserialize_with = "present")]
    cache_control: bool,
    #[serde(default, deserialize_with = "is_false")]
    is_error: bool,
}

/// A member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

fn is_false<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Value::deserialize(d).map(|v| v == Value::Bool(false))
}

/// The object `raw` without its top-level members named in `drop`, the other members kept as
/// written: a large tool result loses `"is_error":false` without being decoded and encoded
/// again. `None` when `raw` is not an object.
fn without_members(raw: &str, drop: &[&str]) -> Option<String> {
    struct V<'x>(&'x [&'x str]);
    impl<'de> Visitor<'de> for V<'_> {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<String, A::Error> {
            let mut out = String::from("{");
            while let Some(k) = a.next_key::<crate::io::json::Key<'de>>()? {
                let v = a.next_value::<&'de RawValue>()?;
                if self.0.contains(&k.as_ref()) {
                    continue;
                }
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k.as_ref()).map_err(serde::de::Error::custom)?);
                out.push(':');
                out.push_str(v.get());
            }
            out.push('}');
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    serde::Deserializer::deserialize_map(&mut de, V(drop)).ok()
}

fn peek_str(v: LStr<'_>) -> Option<String> {
    v.as_str().map(str::to_string)
}

impl Block {
    fn from_raw(raw: Arc<RawValue>) -> Block {
        // The client sends compact JSON; a block written with spaces (hand-made files, other
        // tools) is minified so that sizes and output match what is sent.
        let r = raw.get();
        // Spacing shows at the first key (`{"type": …`); escaped JSON inside strings further on
        // would give false alarms.
        let head = &r.as_bytes()[..r.len().min(24)];
        let spaced = r.starts_with("{ ") || memchr::memmem::find(head, b"\": ").is_some();
        let raw = if spaced {
            let min = crate::io::json::minify(r.as_bytes());
            std::str::from_utf8(&min)
                .ok()
                .and_then(|m| RawValue::from_string(m.to_string()).ok())
                .map_or(raw, Arc::from)
        } else {
            raw
        };
        let peek: Peek<'_> = serde_json::from_str(raw.get()).unwrap_or_default();
        let unsent = (peek.cache_control, peek.is_error);
        let mut b = Block {
            ty: peek_str(peek.ty).unwrap_or_default(),
            text: peek_str(peek.text),
            id: peek_str(peek.id),
            name: peek_str(peek.name),
            tool_use_id: peek_str(peek.tool_use_id),
            raw: Some(raw),
            value: None,
        };
        // What the API does not take is removed (the client never sends it).
        let drop: &[&str] = match unsent {
            (true, true) => &["cache_control", "is_error"],
            (true, false) => &["cache_control"],
            (false, true) => &["is_error"],
            (false, false) => &[],
        };
        if let Some(kept) = b
            .raw
            .as_ref()
            .filter(|_| !drop.is_empty())
            .and_then(|r| without_members(r.get(), drop))
            .and_then(|kept| RawValue::from_string(kept).ok())
        {
            b.raw = Some(Arc::from(kept));
        }
        b
    }

    fn from_value(v: Value) -> Block {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Block {
            ty: s("type").unwrap_or_default(),
            text: s("text"),
            id: s("id"),
            name: s("name"),
            tool_use_id: s("tool_use_id"),
            raw: None,
            value: Some(v),
        }
    }

    fn text_block(t: &str) -> Block {
        Block::from_value(json!({"type": "text", "text": t}))
    }

    fn value_mut(&mut self) -> &mut Value {
        if self.value.is_none() {
            let parsed = self
                .raw
                .as_ref()
                .and_then(|r| serde_json::from_str(r.get()).ok())
                .unwrap_or(Value::Null);
            self.value = Some(parsed);
        }
        self.value.get_or_insert(Value::Null)
    }

    fn set_text(&mut self, t: String) {
        self.value_mut()["text"] = Value::String(t.clone());
        self.text = Some(t);
    }

    fn set_name(&mut self, n: &str) {
        self.value_mut()["name"] = Value::String(n.to_string());
        self.name = Some(n.to_string());
    }

    fn write_json(&self, out: &mut String) {
        match (&self.value, &self.raw) {
            (Some(v), _) => out.push_str(&v.to_string()),
            (None, Some(r)) => out.push_str(r.get()),
            (None, None) => out.push_str("null"),
        }
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Block) -> bool {
        let (mut a, mut b) = (String::new(), String::new());
        self.write_json(&mut a);
        other.write_json(&mut b);
        a == b
    }
}

fn block_type(b: &Block) -> &str {
    &b.ty
}

fn is_thinking(b: &Block) -> bool {
    matches!(block_type(b), "thinking" | "redacted_thinking")
}

fn text_of(b: &Block) -> Option<&str> {
    (block_type(b) == "text").then(|| b.text.as_deref().unwrap_or(""))
}

/// Text the client treats as no content at all (`KJe`).
fn is_blank_text(b: &Block) -> bool {
    text_of(b).is_some_and(|t| matches!(t.trim(), "" | NO_CONTENT | EMPTY_REMOVED))
}

fn blocks(content: &Content) -> Vec<Block> {
    match content {
        Content::Str(s) => vec![Block::text_block(s)],
        Content::Blocks(a) => a.clone(),
    }
}

/// Counts bytes written.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn json_len<T: serde::Serialize>(v: &T) -> usize {
    let mut c = Counter(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// The length of [`msg_json`] without building it.
fn msg_json_len(m: &Msg) -> usize {
    let head = match m.role {
        Role::User => r#"{"role":"user","content":"#.len(),
        Role::Assistant => r#"{"role":"assistant","content":"#.len(),
    };
    let body = match &m.content {
        Content::Str(s) => json_len(s),
        Content::Blocks(b) => {
            2 + b.len().saturating_sub(1)
                + b.iter()
                    .map(|x| match (&x.value, &x.raw) {
                        (Some(v), _) => json_len(v),
                        (None, Some(r)) => r.get().len(),
                        (None, None) => 4,
                    })
                    .sum::<usize>()
        }
    };
    head + body + 1
}

/// A message as the JSON the client sends.
fn msg_json(m: &Msg) -> String {
    let mut out = String::from(match m.role {
        Role::User => r#"{"role":"user","content":"#,
        Role::Assistant => r#"{"role":"assistant","content":"#,
    });
    match &m.content {
        Content::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Content::Blocks(b) => {
            out.push('[');
            for (i, block) in b.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                block.write_json(&mut out);
            }
            out.push(']');
        }
    }
    out.push('}');
    out
}

struct Pipeline {
    fired: BTreeMap<&'static str, usize>,
}

impl Pipeline {
    fn fire(&mut self, rule: &'static str) {
        *self.fired.entry(rule).or_default() += 1;
    }
}

/// Builds the request for the loaded `chain` of `t` to the `request` model; `prompt` adds
/// what a resume with that prompt adds.
pub fn api_view(
    t: &Transcript,
    chain: &Chain,
    src: &Source,
    prompt: Option<&str>,
    request: &RequestModel,
) -> std::io::Result<ApiView> {
    let mut p = Pipeline { fired: BTreeMap::new() };
    let start = chain
        .positions
        .iter()
        .rposition(|&pos| t.node(pos).is_boundary())
        .map_or(0, |i| i + 1);
    let mut rows = Vec::new();
    let mut blocks_held = 0usize;
    for &pos in &chain.positions[start..] {
        let node = t.node(pos);
        let sendable = matches!(node.kind, Kind::User | Kind::Assistant)
            || (node.kind == Kind::System && node.sub == Sub::LocalCommand);
        if !sendable {
            continue;
        }
        let bytes = src.read_range(node.offset, node.len as usize)?;
        let Some(rec) = parse(&bytes) else { continue };
        if let Some(MsgPeek {
            content: RawContent::TooMany(n),
            ..
        }) = &rec.message
        {
            return Err(too_many(node.line, *n));
        }
        if let Some(row) = row_of(rec, node.kind, &mut p) {
            blocks_held += row.content.as_array().map_or(1, Vec::len);
            if blocks_held > MAX_BLOCKS {
                return Err(too_many(node.line, blocks_held));
            }
            rows.push(row);
        }
    }
    drop_api_errors(&mut rows, &mut p);
    strip_other_models_thinking(&mut rows, request, &mut p);
    filter_rows(&mut rows, &mut p);
    let sentinel = needs_sentinel(&rows, &mut p);
    let mut msgs = merge(rows, &mut p);
    remove_empty_text(&mut msgs, &mut p);
    pair_tool_results(&mut msgs, &mut p);
    // A history that now ends in an interrupted call's result gets the sentinel as well.
    let closed = close_tool_calls(&mut msgs, &mut p);
    merge_adjacent(&mut msgs, &mut p);
    if let Some(prompt) = prompt {
        add_prompt(&mut msgs, prompt, sentinel || closed, &mut p);
    }
    Ok(ApiView {
        msgs,
        fired: p.fired,
        model: Some(request.model.clone()),
    })
}

/// The error of a view over [`MAX_BLOCKS`] content blocks, `n` of them by `line`.
fn too_many(line: u64, n: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "line {line}: {n} content blocks in the request by this message, more than the {MAX_BLOCKS} cctool holds for a request view (real sessions send a few hundred)"
        ),
    )
}

/// The parts of a record the pipeline reads; everything else (tool results' structured
/// copies, usage, snapshots) is skipped unparsed.
/// Fields of unexpected types are skipped without being built: a name that holds an array
/// of millions of elements must not become a tree.
#[derive(Deserialize)]
struct RecPeek {
    #[serde(default)]
    content: LString,
    #[serde(default, rename = "isMeta")]
    is_meta: LBool,
    #[serde(default, rename = "isApiErrorMessage")]
    api_error: LBool,
    #[serde(default)]
    message: Option<MsgPeek>,
}

#[derive(Deserialize)]
struct MsgPeek {
    #[serde(default)]
    id: LString,
    #[serde(default)]
    model: LString,
    #[serde(default)]
    content: RawContent,
}

/// The most content blocks the request view holds, in one record and in all: several hundred
/// times what real sessions send after their last compaction (a few hundred), and about
/// 100 MB held at most. A file over it is refused with an error rather than held at any cost
/// (five million blocks, ten bytes each in the file, took 2 GB).
pub const MAX_BLOCKS: usize = 100_000;

/// `message.content` with each block kept as written.
#[derive(Default)]
enum RawContent {
    Str(String),
    Blocks(Vec<Arc<RawValue>>),
    /// More than [`MAX_BLOCKS`] blocks: counted, not kept.
    TooMany(usize),
    #[default]
    Other,
}

impl<'de> Deserialize<'de> for RawContent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawContent;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawContent, E> {
                Ok(RawContent::Str(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<RawContent, E> {
                Ok(RawContent::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<RawContent, A::Error> {
                let mut out = Vec::new();
                loop {
                    if out.len() == MAX_BLOCKS {
                        // The rest is counted for the message, not kept.
                        let mut n = out.len();
                        while a.next_element::<IgnoredAny>()?.is_some() {
                            n += 1;
                        }
                        return Ok(match n {
                            MAX_BLOCKS => RawContent::Blocks(out),
                            _ => RawContent::TooMany(n),
                        });
                    }
                    match a.next_element::<Box<RawValue>>()? {
                        Some(b) => out.push(Arc::from(b)),
                        None => return Ok(RawContent::Blocks(out)),
                    }
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<RawContent, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(RawContent::Other)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<RawContent, E> {
                Ok(RawContent::Other)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<RawContent, E> {
                Ok(RawContent::Other)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<RawContent, E> {
                Ok(RawContent::Other)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<RawContent, E> {
                Ok(RawContent::Other)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<RawContent, E> {
                Ok(RawContent::Other)
            }
        }
        d.deserialize_any(V)
    }
}

fn parse(bytes: &[u8]) -> Option<RecPeek> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// Item 1: the rows sent, as (role, content).
fn row_of(rec: RecPeek, kind: Kind, p: &mut Pipeline) -> Option<Row> {
    match kind {
        Kind::System => {
            p.fire("A2");
            Some(Row {
                role: Role::User,
                content: Content::Str(rec.content.0.unwrap_or_default()),
                msg_id: None,
                model: None,
                is_meta: false,
                api_error: false,
                local_command: true,
            })
        }
        Kind::User => {
            let content = match rec.message?.content {
                RawContent::Str(s) => Content::Str(s),
                RawContent::Blocks(b) => Content::Blocks(b.into_iter().map(Block::from_raw).collect()),
                RawContent::Other | RawContent::TooMany(_) => return None,
            };
            Some(Row {
                role: Role::User,
                content,
                msg_id: None,
                model: None,
                is_meta: rec.is_meta.is_true(),
                api_error: false,
                local_command: false,
            })
        }
        Kind::Assistant => {
            let msg = rec.message?;
            let content = match msg.content {
                RawContent::Str(s) => vec![Block::text_block(&s)],
                RawContent::Blocks(b) => b.into_iter().map(Block::from_raw).collect(),
                RawContent::Other | RawContent::TooMany(_) => return None,
            };
            Some(Row {
                role: Role::Assistant,
                content: Content::Blocks(content),
                msg_id: msg.id.0,
                model: msg.model.0,
                is_meta: false,
                api_error: rec.api_error.is_true(),
                local_command: false,
            })
        }
        Kind::Attachment => None,
    }
}

/// Item 2: A4 drops synthetic API-error rows. (The request model is chosen before, by
/// `claude_model::choose`.)
fn drop_api_errors(rows: &mut Vec<Row>, p: &mut Pipeline) {
    let before = rows.len();
    rows.retain(|r| !(r.role == Role::Assistant && r.api_error && r.model.as_deref() == Some("<synthetic>")));
    for _ in rows.len()..before {
        p.fire("A4");
    }
}

/// Item 3, A5: rows written by another model than the request's (or by none) lose their
/// signed and redacted thinking unless the thinking policy keeps it
/// (`RequestModel::strips_thinking_of`); unsigned thinking stays. A row emptied so vanishes.
fn strip_other_models_thinking(rows: &mut Vec<Row>, request: &RequestModel, p: &mut Pipeline) {
    for r in rows.iter_mut() {
        if r.role != Role::Assistant || !request.strips_thinking_of(r.model.as_deref()) {
            continue;
        }
        if let Content::Blocks(a) = &mut r.content {
            let before = a.len();
            a.retain(|b| !signed_thinking(b));
            if a.len() != before {
                p.fire("A5");
            }
        }
    }
    rows.retain(|r| r.role != Role::Assistant || r.content.as_array().is_some_and(|a| !a.is_empty()));
}

/// A `redacted_thinking` block, or a `thinking` block with a non-empty `signature`: what
/// another model's request cannot verify.
fn signed_thinking(b: &Block) -> bool {
    #[derive(Deserialize)]
    struct Sig<'a> {
        #[serde(default, borrow)]
        signature: LStr<'a>,
    }
    match block_type(b) {
        "redacted_thinking" => true,
        "thinking" => {
            let sig = |text: &str| {
                serde_json::from_str::<Sig<'_>>(text).is_ok_and(|s| s.signature.as_str().is_some_and(|v| !v.is_empty()))
            };
            match (&b.value, &b.raw) {
                (Some(v), _) => v
                    .get("signature")
                    .and_then(Value::as_str)
                    .is_some_and(|v| !v.is_empty()),
                (None, Some(r)) => sig(r.get()),
                (None, None) => false,
            }
        }
        _ => false,
    }
}

/// Item 4: A6 and A1a, repeated until nothing changes.
fn filter_rows(rows: &mut Vec<Row>, p: &mut Pipeline) {
    loop {
        let mut drop = vec![false; rows.len()];
        let group_has = |id: &Option<String>, pred: &dyn Fn(&Block) -> bool| {
            id.as_ref().is_some_and(|id| {
                rows.iter().any(|r| {
                    r.role == Role::Assistant
                        && r.msg_id.as_ref() == Some(id)
                        && r.content.as_array().is_some_and(|a| a.iter().any(pred))
                })
            })
        };
        for (i, r) in rows.iter().enumerate() {
            if r.role != Role::Assistant {
                continue;
            }
            let a = r.content.as_array().map(Vec::as_slice).unwrap_or(&[]);
            if a.is_empty() {
                continue;
            }
            if a.iter().all(is_thinking) {
                if !group_has(&r.msg_id, &|b| !is_thinking(b)) {
                    drop[i] = true;
                    p.fire("A6");
                }
                continue;
            }
            let lead = a.iter().take_while(|b| is_thinking(b)).count();
            let rest = &a[lead..];
            if !rest.is_empty()
                && rest.iter().all(is_blank_text)
                && !group_has(&r.msg_id, &|b| !is_thinking(b) && !is_blank_text(b))
            {
                drop[i] = true;
                p.fire("A1");
            }
        }
        if !drop.contains(&true) {
            return;
        }
        let mut i = 0;
        rows.retain(|_| {
            i += 1;
            !drop[i - 1]
        });
    }
}

/// How `E6` classifies a user row by the start of its last text.
#[derive(PartialEq, Eq)]
enum Local {
    Record,
    Output,
    Caveat,
    Other,
}

fn classify_local(r: &Row) -> Local {
    let last = match &r.content {
        Content::Str(s) => Some(s.as_str()),
        Content::Blocks(a) => a.iter().rev().find_map(text_of),
    };
    let Some(t) = last else { return Local::Other };
    if t.starts_with("<command-name>") {
        Local::Record
    } else if t.starts_with("<local-command-stdout>") || t.starts_with("<local-command-stderr>") {
        Local::Output
    } else if t.starts_with("<local-command-caveat>") && r.is_meta {
        Local::Caveat
    } else if t.starts_with('/') && !r.is_meta {
        Local::Record
    } else {
        Local::Other
    }
}

/// Item 5 (A7): the sentinel is added when the last conversation row is a user row, unless
/// the history ends in a local command written as [caveat (meta), command, output].
fn needs_sentinel(rows: &[Row], p: &mut Pipeline) -> bool {
    let convo: Vec<&Row> = rows.iter().filter(|r| !r.local_command).collect();
    let Some(last) = convo.last() else { return false };
    if last.role != Role::User {
        return false;
    }
    let mut passed = false;
    for r in convo.iter().rev() {
        if r.role != Role::User {
            break;
        }
        match classify_local(r) {
            Local::Output | Local::Record => passed = true,
            Local::Caveat if passed => {
                p.fire("A7");
                return false;
            }
            _ => break,
        }
    }
    true
}

/// Item 6: user rows merge into a directly preceding user message (newline seam, tool
/// results first); assistant rows merge into the latest assistant message with their
/// `message.id`, looking back over assistant messages and tool-result user messages.
fn merge(rows: Vec<Row>, p: &mut Pipeline) -> Vec<Msg> {
    let mut msgs: Vec<Msg> = Vec::new();
    for r in rows {
        match r.role {
            Role::User => match msgs.last_mut() {
                Some(last) if last.role == Role::User => {
                    p.fire("merge");
                    merge_user(last, &r.content, p);
                }
                _ => msgs.push(Msg {
                    role: Role::User,
                    content: r.content,
                    msg_id: None,
                }),
            },
            Role::Assistant => {
                let mut content = blocks(&r.content);
                canonical_tool_names(&mut content, p);
                let target = r.msg_id.as_ref().and_then(|id| {
                    for (j, m) in msgs.iter().enumerate().rev() {
                        match m.role {
                            Role::Assistant if m.msg_id.as_ref() == Some(id) => return Some(j),
                            Role::Assistant => {}
                            Role::User if has_tool_result(&m.content) => {}
                            Role::User => return None,
                        }
                    }
                    None
                });
                match target {
                    Some(j) => {
                        p.fire("F1");
                        let mut merged = blocks(&msgs[j].content);
                        merged.extend(content);
                        let merged = drop_inner_whitespace(merged, p);
                        msgs[j].content = Content::Blocks(tool_uses_last(merged, p));
                    }
                    None => msgs.push(Msg {
                        role: Role::Assistant,
                        content: Content::Blocks(tool_uses_last(content, p)),
                        msg_id: r.msg_id,
                    }),
                }
            }
        }
    }
    msgs
}

fn has_tool_result(content: &Content) -> bool {
    content
        .as_array()
        .is_some_and(|a| a.iter().any(|b| block_type(b) == "tool_result"))
}

fn merge_user(last: &mut Msg, next: &Content, p: &mut Pipeline) {
    let mut merged = blocks(&last.content);
    let add = blocks(next);
    if let (Some(prev), Some(first)) = (merged.last_mut(), add.first())
        && block_type(prev) == "text"
        && block_type(first) == "text"
    {
        let t = format!("{}\n", prev.text.as_deref().unwrap_or(""));
        prev.set_text(t);
    }
    merged.extend(add);
    // A8: tool results first, each group in its order.
    let moved = merged
        .iter()
        .skip_while(|b| block_type(b) == "tool_result")
        .any(|b| block_type(b) == "tool_result");
    if moved {
        p.fire("A8");
    }
    let (mut hoisted, others): (Vec<Block>, Vec<Block>) =
        merged.into_iter().partition(|b| block_type(b) == "tool_result");
    hoisted.extend(others);
    last.content = Content::Blocks(hoisted);
}

/// A1b: whitespace-only text inside a regrouped message goes, unless it sits between two
/// thinking blocks; if nothing but thinking would remain, the list is kept as it was.
fn drop_inner_whitespace(blocks: Vec<Block>, p: &mut Pipeline) -> Vec<Block> {
    let keep: Vec<bool> = (0..blocks.len())
        .map(|i| {
            let b = &blocks[i];
            let ws = text_of(b).is_some_and(|t| !t.is_empty() && t.trim().is_empty());
            if !ws {
                return true;
            }
            let before = i > 0 && is_thinking(&blocks[i - 1]);
            let after = blocks.get(i + 1).is_some_and(is_thinking);
            before && after
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return blocks;
    }
    let filtered: Vec<Block> = blocks
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(b, _)| b.clone())
        .collect();
    if !filtered.iter().any(|b| !is_thinking(b)) {
        return blocks;
    }
    p.fire("A1");
    filtered
}

/// A9 (`Ter`): when anything but a tool use follows a tool use, all tool uses move to the
/// end in their order — except a thinking block that follows [thinking, tool_use…].
fn tool_uses_last(blocks: Vec<Block>, p: &mut Pipeline) -> Vec<Block> {
    let is_tu = |b: &Block| block_type(b) == "tool_use";
    let mut seen_tu = false;
    let mut trigger = false;
    for (j, b) in blocks.iter().enumerate() {
        if is_tu(b) {
            seen_tu = true;
            continue;
        }
        if !seen_tu {
            continue;
        }
        if is_thinking(b) {
            let run = blocks[..j].iter().rev().take_while(|x| is_tu(x)).count();
            if run > 0 && j > run && is_thinking(&blocks[j - run - 1]) {
                continue;
            }
        }
        trigger = true;
        break;
    }
    if !trigger {
        return blocks;
    }
    p.fire("A9");
    let (tus, others): (Vec<Block>, Vec<Block>) = blocks.into_iter().partition(|b| is_tu(b));
    let mut out = others;
    out.extend(tus);
    out
}

/// F2: legacy tool names as the current tool list spells them.
fn canonical_tool_names(blocks: &mut [Block], p: &mut Pipeline) {
    for b in blocks.iter_mut() {
        if block_type(b) == "tool_use" && b.name.as_deref() == Some("Task") {
            b.set_name("Agent");
            p.fire("F2");
        }
    }
}

/// Item 7 (A10): empty text blocks leave assistant messages; between two thinking blocks one
/// becomes a marker; an emptied message that is not last says "(no content)".
fn remove_empty_text(msgs: &mut [Msg], p: &mut Pipeline) {
    let n = msgs.len();
    for (i, m) in msgs.iter_mut().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let Content::Blocks(a) = &m.content else { continue };
        let mut out = Vec::with_capacity(a.len());
        let mut changed = false;
        for (k, b) in a.iter().enumerate() {
            if text_of(b) == Some("") {
                changed = true;
                let between = k > 0 && is_thinking(&a[k - 1]) && a.get(k + 1).is_some_and(is_thinking);
                if between {
                    // The client builds this block fresh, with an empty citation list.
                    out.push(Block::from_value(
                        json!({"type": "text", "text": EMPTY_REMOVED, "citations": []}),
                    ));
                }
                continue;
            }
            out.push(b.clone());
        }
        if out.is_empty() && i + 1 != n {
            out.push(Block::text_block(NO_CONTENT));
            changed = true;
        }
        if changed {
            p.fire("A10");
            m.content = Content::Blocks(out);
        }
    }
}

fn tool_use_ids(m: &Msg) -> Vec<String> {
    m.content
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|b| block_type(b) == "tool_use")
                .filter_map(|b| b.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Item 8 (A11, `ensureToolResultPairing`).
fn pair_tool_results(msgs: &mut Vec<Msg>, p: &mut Pipeline) {
    let mut out: Vec<Msg> = Vec::with_capacity(msgs.len());
    for (i, mut m) in std::mem::take(msgs).into_iter().enumerate() {
        if m.role == Role::User
            && let Content::Blocks(a) = &m.content
            && a.iter().any(|b| block_type(b) == "tool_result")
        {
            let allowed: Vec<String> = match out.last() {
                Some(prev) if prev.role == Role::Assistant => tool_use_ids(prev),
                _ => Vec::new(),
            };
            let kept: Vec<Block> = a
                .iter()
                .filter(|b| {
                    block_type(b) != "tool_result"
                        || b.tool_use_id
                            .as_deref()
                            .is_some_and(|id| allowed.iter().any(|x| x == id))
                })
                .cloned()
                .collect();
            if kept.len() != a.len() {
                p.fire("A11");
                if kept.is_empty() {
                    if i == 0 {
                        m.content = Content::Blocks(vec![Block::text_block(ORPHANED)]);
                        out.push(m);
                    }
                    continue;
                }
                m.content = Content::Blocks(kept);
            }
        }
        out.push(m);
    }
    *msgs = out;
}

/// Item 9 (F4): a tool call without its result is closed with an error result when it is in
/// the last message, and removed elsewhere (with its message, if nothing else is left).
/// Returns whether the history now ends in such a closing result.
fn close_tool_calls(msgs: &mut Vec<Msg>, p: &mut Pipeline) -> bool {
    let n = msgs.len();
    let mut drop = vec![false; n];
    let mut closing: Option<Vec<String>> = None;
    for i in 0..n {
        if msgs[i].role != Role::Assistant {
            continue;
        }
        let answered: Vec<String> = msgs
            .get(i + 1)
            .filter(|m| m.role == Role::User)
            .and_then(|m| m.content.as_array())
            .map(|a| {
                a.iter()
                    .filter(|b| block_type(b) == "tool_result")
                    .filter_map(|b| b.tool_use_id.clone())
                    .collect()
            })
            .unwrap_or_default();
        let open: Vec<String> = tool_use_ids(&msgs[i])
            .into_iter()
            .filter(|id| !answered.contains(id))
            .collect();
        if open.is_empty() {
            continue;
        }
        p.fire("F4");
        if i + 1 == n {
            closing = Some(open);
            continue;
        }
        if let Content::Blocks(a) = &mut msgs[i].content {
            a.retain(|b| {
                !(block_type(b) == "tool_use" && b.id.as_deref().is_some_and(|id| open.iter().any(|x| x == id)))
            });
            if a.iter().all(is_thinking) {
                drop[i] = true;
            }
        }
    }
    if drop.contains(&true) {
        let mut k = 0;
        msgs.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
    }
    let Some(open) = closing else { return false };
    {
        let results: Vec<Block> = open
            .iter()
            .map(|id| {
                Block::from_value(
                    json!({"type": "tool_result", "content": INTERRUPTED, "is_error": true, "tool_use_id": id}),
                )
            })
            .collect();
        msgs.push(Msg {
            role: Role::User,
            content: Content::Blocks(results),
            msg_id: None,
        });
    }
    true
}

/// Messages left next to one of the same role, after A11 or F4 removed what stood between
/// them, are merged as rows are: user messages with the newline seam and tool results first,
/// assistant messages by concatenation.
fn merge_adjacent(msgs: &mut Vec<Msg>, p: &mut Pipeline) {
    let mut out: Vec<Msg> = Vec::with_capacity(msgs.len());
    for m in std::mem::take(msgs) {
        match out.last_mut() {
            Some(last) if last.role == m.role && m.role == Role::User => {
                p.fire("merge");
                merge_user(last, &m.content, p);
            }
            Some(last) if last.role == m.role => {
                let mut merged = blocks(&last.content);
                merged.extend(blocks(&m.content));
                last.content = Content::Blocks(merged);
            }
            _ => out.push(m),
        }
    }
    *msgs = out;
}

/// Item 9, end (F5 as refined by A7): the sentinel reply, then the prompt — merged into a
/// final user message when there is no sentinel.
fn add_prompt(msgs: &mut Vec<Msg>, prompt: &str, sentinel: bool, p: &mut Pipeline) {
    let ends_with_user = msgs.last().is_some_and(|m| m.role == Role::User);
    let prompt_block = Content::Blocks(vec![Block::text_block(prompt)]);
    if ends_with_user && sentinel {
        p.fire("F5");
        msgs.push(Msg {
            role: Role::Assistant,
            content: Content::Blocks(vec![Block::text_block(SENTINEL)]),
            msg_id: None,
        });
    } else if ends_with_user && let Some(last) = msgs.last_mut() {
        merge_user(last, &prompt_block, p);
        return;
    }
    msgs.push(Msg {
        role: Role::User,
        content: prompt_block,
        msg_id: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsent_members_are_cut_from_the_block_as_written() {
        let raw = |s: &str| Arc::from(RawValue::from_string(s.to_string()).unwrap());
        let b = Block::from_raw(raw(
            r#"{"type":"tool_result","tool_use_id":"t","content":"caf\u00e9 {\"is_error\":false}","is_error":false,"cache_control":null}"#,
        ));
        // Only the top-level members go; everything else keeps its bytes (escapes included).
        assert_eq!(
            b.raw.as_ref().unwrap().get(),
            r#"{"type":"tool_result","tool_use_id":"t","content":"caf\u00e9 {\"is_error\":false}"}"#
        );
        assert!(b.value.is_none(), "no JSON tree is built");
        let failed = Block::from_raw(raw(
            r#"{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}"#,
        ));
        assert_eq!(
            failed.raw.as_ref().unwrap().get(),
            r#"{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}"#
        );
    }
}
