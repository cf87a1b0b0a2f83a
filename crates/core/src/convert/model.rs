//! The conversation every conversion goes through (`docs/convert.md`): what one agent's
//! resume loads, in the terms both agents share — prompts, replies, tool calls paired with
//! their results, images, reasoning, compactions. A reader per agent fills it from that
//! agent's file, a writer per agent writes it in that agent's format.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::AgentId;

/// One conversation, in the order a resume sends it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    /// The format read.
    pub source: Option<AgentId>,
    /// The source's own session id (or, without one, its file name): every id the writers
    /// derive starts from it, so converting the same session twice gives the same ids.
    pub session_id: String,
    /// The working directory the session ran in.
    pub cwd: Option<String>,
    /// The model the source last ran with.
    pub model: Option<String>,
    /// The conversation in order.
    pub entries: Vec<Entry>,
    /// Records or blocks left out, by kind (`reasoning`, `event_msg:token_count`, …).
    pub dropped: BTreeMap<String, u64>,
    /// Keys handed out so far, to make each one unique.
    keys: BTreeMap<String, u32>,
    /// In a streamed head ([`Msg::Head`]), when the reader was asked for them: the calls the
    /// conversation's results answer.
    pub answered: Option<Answered>,
}

/// One element of the conversation, with where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The source record it comes from (a Claude Code uuid, a Codex line), unique in the
    /// conversation: the writers derive the target's ids from it.
    pub key: String,
    /// As written in the source, when it has one.
    pub timestamp: Option<String>,
    /// What the entry is.
    pub body: Body,
}

/// What an entry is.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// What the user sent: text and images.
    User(Vec<Part>),
    /// One model response: its text, reasoning and tool calls in order.
    Assistant(Vec<Block>),
    /// The result of the call `call_id`.
    ToolResult(ToolResult),
    /// A compaction: what came before is replaced by this summary.
    Compaction(String),
}

/// A piece of what the user sent, or of a tool's output.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Plain text.
    Text(String),
    /// An image.
    Image(Image),
    /// A text as the source wrote it as a JSON string, which is the string a writer would
    /// write: carried without unescaping it and escaping it again. A conversation read whole
    /// ([`collect`]) holds every text as [`Part::Text`] ([`Entry::into_plain`]).
    Json(JsonText),
}

/// A JSON string, quotes included, written exactly as serde_json writes its text (`"`, `\\`
/// and the control characters escaped, `\b \t \n \f \r` by name and the others as `\u00xx`,
/// nothing else): so its bytes can go into a line unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonText(Box<str>);

impl JsonText {
    /// `raw`, a JSON string as read from valid JSON (quotes included), when it is written as
    /// serde_json writes its text; None when it holds another escape (`\/`, `\u00e9`, a
    /// surrogate, upper-case hex), which serde_json would write otherwise.
    pub fn canonical(raw: &str) -> Option<JsonText> {
        let b = raw.as_bytes();
        if b.len() < 2 || b[0] != b'"' || b[b.len() - 1] != b'"' {
            return None;
        }
        let inner = &b[1..b.len() - 1];
        // Every escape is valid (the string was read as JSON), so only a `\u` or a `\/` can be
        // one serde_json would write otherwise. Each is found by a substring search; it is an
        // escape when the run of backslashes it ends is odd (the others are `\\` pairs).
        use memchr::memmem;
        let escape = |i: usize| inner[..=i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
        if memmem::find_iter(inner, b"\\/").any(escape) {
            return None;
        }
        for i in memmem::find_iter(inner, b"\\u").filter(|&i| escape(i)) {
            let hex = inner.get(i + 2..i + 6)?;
            let digit = |c: u8| match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                _ => None,
            };
            let c = (digit(hex[2])? << 4) | digit(hex[3])?;
            if &hex[..2] != b"00" || c >= 0x20 || matches!(c, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                return None;
            }
        }
        Some(JsonText(raw.into()))
    }

    /// The JSON string, quotes included.
    pub fn json(&self) -> &str {
        &self.0
    }

    /// The JSON string without its quotes: the escaped text.
    pub fn inner(&self) -> &str {
        &self.0[1..self.0.len() - 1]
    }

    /// The text.
    pub fn text(&self) -> String {
        serde_json::from_str(&self.0).unwrap_or_default()
    }
}

/// An image as base64 data with its media type, or as a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// The media type (`image/png`, …), when the source gives one.
    pub media_type: Option<String>,
    /// The base64 data; `None` for an image given by URL.
    pub data: Option<String>,
    /// The URL; `None` for an image given as data.
    pub url: Option<String>,
}

/// A piece of one model response.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// Text the model wrote.
    Text(String),
    /// Visible reasoning text. Bound to the model that wrote it (signatures, ciphertext), so
    /// it never crosses as reasoning: dropped, or carried as marked text on request.
    Reasoning(String),
    /// A tool call.
    Call(ToolCall),
}

/// A tool call with its input as a JSON object, in the vocabulary of the agent that made it
/// (`Bash`, `exec_command`, …): the writers map it (`crate::convert::tools`).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The call's id, which the result names.
    pub id: String,
    /// The tool's name, as the source agent calls it.
    pub name: String,
    /// The call's input.
    pub input: Value,
}

/// A tool's answer to one call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The id of the call it answers.
    pub call_id: String,
    /// What the tool returned.
    pub output: Vec<Part>,
    /// Whether the tool reported a failure.
    pub is_error: bool,
}

impl Conversation {
    /// An empty conversation read from `source`.
    pub fn new(source: AgentId) -> Conversation {
        Conversation {
            source: Some(source),
            ..Conversation::default()
        }
    }

    /// Adds an entry from the source record `key`; a second entry of one record gets `#1`,
    /// the next `#2`, so keys stay unique.
    pub fn push(&mut self, key: &str, timestamp: Option<String>, body: Body) {
        let n = self.keys.entry(key.to_string()).or_insert(0);
        let key = if *n == 0 { key.to_string() } else { format!("{key}#{n}") };
        *n += 1;
        self.entries.push(Entry { key, timestamp, body });
    }

    /// Counts one thing left out.
    pub fn drop(&mut self, kind: &str) {
        self.drop_n(kind, 1);
    }

    /// Counts `n` things of `kind` left out; zero counts nothing.
    pub fn drop_n(&mut self, kind: &str, n: u64) {
        if n > 0 {
            *self.dropped.entry(kind.to_string()).or_insert(0) += n;
        }
    }

    /// The first timestamp of the conversation, else none.
    pub fn first_timestamp(&self) -> Option<&str> {
        self.entries.iter().find_map(|e| e.timestamp.as_deref())
    }
}

impl Part {
    /// The text of a [`Part::Text`] (not of a [`Part::Json`]: see [`Part::is_text`]).
    pub fn text(&self) -> Option<&str> {
        match self {
            Part::Text(t) => Some(t),
            Part::Image(_) | Part::Json(_) => None,
        }
    }

    /// Whether it is a text, either way it is held.
    pub fn is_text(&self) -> bool {
        !matches!(self, Part::Image(_))
    }

    /// A string value as written (a field read as a `RawValue`), as a part: the JSON string
    /// itself when it is the one a writer would write ([`JsonText::canonical`]), which is then
    /// neither unescaped nor escaped again, else its text; "" when absent or null; None when
    /// it is not a string (the whole read decides) or does not read as one.
    pub fn from_raw(raw: Option<&serde_json::value::RawValue>) -> Option<Part> {
        match raw.map(serde_json::value::RawValue::get) {
            Some(r) if r.starts_with('"') => match JsonText::canonical(r) {
                Some(j) => Some(Part::Json(j)),
                None => text_of(raw).map(Part::Text),
            },
            _ => text_of(raw).map(Part::Text),
        }
    }

    /// The bytes of its text or image, about: what it holds in memory.
    pub fn weight(&self) -> usize {
        match self {
            Part::Text(t) => t.len(),
            Part::Json(j) => j.json().len(),
            Part::Image(i) => i.data.as_ref().or(i.url.as_ref()).map_or(0, String::len),
        }
    }

    /// Writes its text into `out` as a JSON string ([`crate::convert::json::json_str`]; a
    /// [`Part::Json`] as held), without the quotes unless `quoted`; an image writes nothing
    /// (the writers lay out images themselves and call this for texts only).
    pub fn write_text(&self, out: &mut Vec<u8>, quoted: bool) {
        use crate::convert::json::{json_str, json_str_inner};
        match (self, quoted) {
            (Part::Text(t), true) => json_str(out, t),
            (Part::Text(t), false) => json_str_inner(out, t),
            (Part::Json(j), true) => out.extend_from_slice(j.json().as_bytes()),
            (Part::Json(j), false) => out.extend_from_slice(j.inner().as_bytes()),
            (Part::Image(_), _) => {}
        }
    }

    /// The same part with its text held as text.
    pub fn into_plain(self) -> Part {
        match self {
            Part::Json(j) => Part::Text(j.text()),
            p => p,
        }
    }
}

/// About the bytes `parts` take written into a line, escapes included: what a line holding
/// them reserves, and what they weigh in a batch of entries.
pub fn written_len(parts: &[Part]) -> usize {
    parts
        .iter()
        .map(|p| {
            let w = p.weight();
            w + w / 16 + 64
        })
        .sum()
}

/// A string value as written ([`Part::from_raw`]) as text: "" when absent or null, None when
/// it is not a string or does not read as one.
pub fn text_of(raw: Option<&serde_json::value::RawValue>) -> Option<String> {
    match raw {
        None => Some(String::new()),
        Some(r) if r.get().starts_with('"') => serde_json::from_str::<std::borrow::Cow<'_, str>>(r.get())
            .ok()
            .map(std::borrow::Cow::into_owned),
        Some(_) => None,
    }
}

impl Entry {
    /// The same entry without [`Part::Json`]: every text held as text.
    pub fn into_plain(self) -> Entry {
        Entry {
            body: self.body.into_plain(),
            ..self
        }
    }
}

impl Body {
    /// The same body without [`Part::Json`]: every text held as text.
    pub fn into_plain(self) -> Body {
        let plain = |parts: Vec<Part>| parts.into_iter().map(Part::into_plain).collect();
        match self {
            Body::User(parts) if parts.iter().any(|p| matches!(p, Part::Json(_))) => Body::User(plain(parts)),
            Body::ToolResult(r) if r.output.iter().any(|p| matches!(p, Part::Json(_))) => {
                Body::ToolResult(ToolResult {
                    output: plain(r.output),
                    ..r
                })
            }
            b => b,
        }
    }

    /// How many of its texts are held as [`Part::Json`].
    #[cfg(any(test, feature = "testing"))]
    pub fn json_texts(&self) -> usize {
        match self {
            Body::User(p) | Body::ToolResult(ToolResult { output: p, .. }) => {
                p.iter().filter(|p| matches!(p, Part::Json(_))).count()
            }
            _ => 0,
        }
    }
}

impl Image {
    /// A `data:` URL (Codex's form) split into its media type and data; any other URL kept.
    pub fn from_url(url: &str) -> Image {
        if let Some(rest) = url.strip_prefix("data:")
            && let Some((mt, data)) = rest.split_once(";base64,")
        {
            return Image {
                media_type: Some(mt.to_string()),
                data: Some(data.to_string()),
                url: None,
            };
        }
        Image {
            media_type: None,
            data: None,
            url: Some(url.to_string()),
        }
    }

    /// The image as one URL: a `data:` URL for base64 data.
    pub fn as_url(&self) -> String {
        match (&self.url, &self.data) {
            (Some(u), _) => u.clone(),
            (None, Some(d)) => format!("data:{};base64,{d}", self.media_type.as_deref().unwrap_or("image/png")),
            (None, None) => String::new(),
        }
    }
}

/// What a conversion counted, for the report.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Texts the user sent.
    pub user_texts: u64,
    /// Texts of model responses.
    pub assistant_texts: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Tool results.
    pub tool_results: u64,
    /// Images.
    pub images: u64,
    /// Compactions.
    pub compactions: u64,
    /// Reasoning blocks carried as marked text (`--reasoning-as-text`).
    pub reasoning_as_text: u64,
}

impl Conversation {
    /// What the conversation holds; `reasoning_as_text` counts its reasoning as carried.
    pub fn counts(&self, reasoning_as_text: bool) -> Counts {
        let mut c = Counts::default();
        for e in &self.entries {
            c.add(e, reasoning_as_text);
        }
        c
    }
}

/// What a streaming reader hands on: the session's metadata once, before any entry, then the
/// entries in order.
#[derive(Debug)]
pub enum Msg {
    /// The conversation without its entries: ids, working directory, model, and (when asked
    /// for) the results it holds ([`Conversation::answered`]).
    Head(Conversation),
    /// One entry.
    Entry(Entry),
    /// Entries in order, handed over together ([`crate::convert::stream::send_all`] batches
    /// them: one message per entry woke the writer's thread for each).
    Entries(Vec<Entry>),
    /// The read is complete: the conversation's metadata and what was left out (sent by the
    /// driver, [`crate::convert::stream`], never by a reader).
    End(Conversation),
}

/// Where a reader's messages go; an error stops the reader.
pub type Sink<'a> = &'a mut dyn FnMut(Msg) -> std::io::Result<()>;

/// A call id as the set of answered calls keeps it: a 64-bit hash, so the set costs eight
/// bytes a result whatever the ids' length.
pub fn call_key(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// Ids for calls stored without one (a Codex `local_shell_call` may have none), for targets
/// whose client pairs a call and its result by id and would otherwise make ids of its own that
/// do not pair: a call gets an id made from where it is written, and the result that follows
/// it, also without an id, gets the same.
#[derive(Debug, Default)]
pub struct Unnamed {
    last: Option<String>,
}

impl Unnamed {
    /// The id call `n` of the entry `key` is written with: its own, else a made one.
    pub fn call(&mut self, id: &str, key: &str, n: usize) -> String {
        if !id.is_empty() {
            return id.to_string();
        }
        let made = format!(
            "call_{}",
            crate::compact::ids::uuid(&["convert-unnamed-call", key, &n.to_string()]).replace('-', "")
        );
        self.last = Some(made.clone());
        made
    }

    /// The id a result is written with: its call's, else the one made for the last call
    /// without one.
    pub fn result(&mut self, id: &str) -> String {
        match id {
            "" => self.last.take().unwrap_or_default(),
            id => id.to_string(),
        }
    }
}

/// The calls the conversation answers ([`call_key`] of each result's call id): a writer that
/// closes unanswered calls needs it before it writes the first of them.
pub type Answered = rustc_hash::FxHashSet<u64>;

/// A reader's side of a conversation being streamed: entries go to the sink as soon as the
/// next one starts (the last one can still grow, by the blocks of one response), so only one
/// is ever held.
pub struct Emitter<'a> {
    /// The conversation's metadata as the reader fills it in; its entries go to the sink.
    pub c: Conversation,
    last: Option<Entry>,
    pushed: usize,
    /// Hashes of the keys handed out, with how many times each was.
    keys: rustc_hash::FxHashMap<u64, u32>,
    sink: Sink<'a>,
    failed: Option<std::io::Error>,
}

impl<'a> Emitter<'a> {
    /// An emitter of the conversation `c` into `sink`.
    pub fn new(c: Conversation, sink: Sink<'a>) -> Emitter<'a> {
        Emitter {
            c,
            last: None,
            pushed: 0,
            keys: Default::default(),
            sink,
            failed: None,
        }
    }

    /// Sends the head: the metadata is complete.
    pub fn head(&mut self, answered: Option<Answered>) -> std::io::Result<()> {
        let mut head = Conversation {
            source: self.c.source,
            session_id: self.c.session_id.clone(),
            cwd: self.c.cwd.clone(),
            model: self.c.model.clone(),
            ..Conversation::default()
        };
        head.answered = answered;
        (self.sink)(Msg::Head(head))
    }

    /// [`Conversation::push`], streamed.
    pub fn push(&mut self, key: &str, timestamp: Option<String>, body: Body) {
        let n = self.keys.entry(call_key(key)).or_insert(0);
        let key = if *n == 0 { key.to_string() } else { format!("{key}#{n}") };
        *n += 1;
        self.pushed += 1;
        if let Some(prev) = self.last.replace(Entry { key, timestamp, body }) {
            self.send(prev);
        }
    }

    fn send(&mut self, e: Entry) {
        if self.failed.is_none()
            && let Err(err) = (self.sink)(Msg::Entry(e))
        {
            self.failed = Some(err);
        }
    }

    /// The entry pushed last, still open to more blocks.
    pub fn last_mut(&mut self) -> Option<&mut Entry> {
        self.last.as_mut()
    }

    /// How many entries were pushed so far.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    /// Counts one thing left out.
    pub fn drop(&mut self, kind: &str) {
        self.c.drop(kind);
    }

    /// Whether the sink refused an entry: the reader stops.
    pub fn check(&mut self) -> std::io::Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Sends the last entry; the conversation's metadata and what was left out.
    pub fn finish(mut self) -> std::io::Result<Conversation> {
        if let Some(e) = self.last.take() {
            self.send(e);
        }
        self.check()?;
        Ok(self.c)
    }
}

/// A whole conversation read into memory from a streaming reader (tests, small inputs).
pub fn collect(read: impl FnOnce(Sink<'_>) -> std::io::Result<Conversation>) -> std::io::Result<Conversation> {
    let mut entries = Vec::new();
    let mut c = read(&mut |m| {
        match m {
            Msg::Entry(e) => entries.push(e.into_plain()),
            Msg::Entries(es) => entries.extend(es.into_iter().map(Entry::into_plain)),
            Msg::Head(_) | Msg::End(_) => {}
        }
        Ok(())
    })?;
    c.entries = entries;
    Ok(c)
}

impl Counts {
    /// Counts one entry ([`Conversation::counts`] of a streamed conversation).
    pub fn add(&mut self, e: &Entry, reasoning_as_text: bool) {
        let images = |parts: &[Part]| parts.iter().filter(|p| matches!(p, Part::Image(_))).count() as u64;
        match &e.body {
            Body::User(parts) => {
                self.user_texts += parts.iter().filter(|p| p.is_text()).count() as u64;
                self.images += images(parts);
            }
            Body::Assistant(blocks) => {
                for b in blocks {
                    match b {
                        Block::Text(_) => self.assistant_texts += 1,
                        Block::Call(_) => self.tool_calls += 1,
                        Block::Reasoning(_) if reasoning_as_text => self.reasoning_as_text += 1,
                        Block::Reasoning(_) => {}
                    }
                }
            }
            Body::ToolResult(r) => {
                self.tool_results += 1;
                self.images += images(&r.output);
            }
            Body::Compaction(_) => self.compactions += 1,
        }
    }
}

impl Conversation {
    /// The calls its results answer.
    pub fn answered_calls(&self) -> Answered {
        self.entries
            .iter()
            .filter_map(|e| match &e.body {
                Body::ToolResult(r) => Some(call_key(&r.call_id)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON string of `s` escaped in one of the ways JSON allows, chosen per character by
    /// `how`: as serde_json writes it, or `\uXXXX` (either case), or `\/`.
    fn escaped(s: &str, how: &[u8]) -> String {
        let mut out = String::from("\"");
        for (k, c) in s.chars().enumerate() {
            let h = how.get(k).copied().unwrap_or(0) % 4;
            let mut units = [0u16; 2];
            match h {
                1 | 2 => {
                    for u in c.encode_utf16(&mut units) {
                        out.push_str(&match h {
                            1 => format!("\\u{u:04x}"),
                            _ => format!("\\u{u:04X}"),
                        });
                    }
                }
                3 if c == '/' => out.push_str("\\/"),
                _ => {
                    let j = serde_json::to_string(&c.to_string()).unwrap();
                    out.push_str(&j[1..j.len() - 1]);
                }
            }
        }
        out.push('"');
        out
    }

    /// A JSON string is taken as written exactly when it is serde_json's string of its text:
    /// on every character escaped every way, and on any text escaped any way.
    #[test]
    fn json_text_is_serde_jsons_string() {
        let check = |raw: &str| {
            let text: String = serde_json::from_str(raw).unwrap();
            let serde = serde_json::to_string(&text).unwrap();
            match JsonText::canonical(raw) {
                Some(j) => {
                    assert_eq!(j.json(), serde, "{raw}");
                    assert_eq!(j.text(), text, "{raw}");
                    assert_eq!(j.inner(), &serde[1..serde.len() - 1]);
                    true
                }
                None => {
                    assert_ne!(raw, serde, "refused {raw}");
                    false
                }
            }
        };
        let mut taken = 0;
        for c in (0u32..0x800)
            .filter_map(char::from_u32)
            .chain(['\u{ffff}', '😀', '/', '\u{2028}'])
        {
            for how in 0..4u8 {
                taken += usize::from(check(&escaped(&format!("a{c}b"), &[0, how, 0])));
            }
        }
        assert!(taken > 0x800, "{taken}");
        for raw in [
            r#""""#,
            r#""\/""#,
            r#""\u00e9""#,
            r#""\u001F""#,
            r#""\u0008""#,
            r#""\ud83d\ude00""#,
            r#""\\u0041""#,
            r#""\\\u0001""#,
            r#""\\\\u0001""#,
            r#""a\\\/b""#,
            r#""a\\/b\\\\/""#,
            r#""\u001b[0m\\\u001b""#,
        ] {
            check(raw);
        }
        assert!(JsonText::canonical(r#""a\u001fb\n\"\\""#).is_some());
        assert!(JsonText::canonical(r#""\u000a""#).is_none());
        proptest::proptest!(|(s in "(?s).{0,60}", t in "[ -~\\x00-\\x1f\"\\\\é/😀]{0,40}", how in proptest::collection::vec(0u8..8, 0..60))| {
            check(&escaped(&s, &how));
            check(&escaped(&t, &how));
            check(&escaped(&t, &[]));
        });
    }
}
