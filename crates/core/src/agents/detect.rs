//! Which agent's file this is, decided from its content by asking every registered agent.
//!
//! Detection reads content, never the file name: the first parseable records decide. Each
//! record is read once into a [`Record`] (its `type` and which top-level keys it has, with a
//! value other than null); every agent says how surely such a record is its own
//! ([`Agent::sniff`]), and the surest claim wins, the registry's order breaking ties. A file
//! that is one JSON document (a cctool session, the 2025 TypeScript Codex rollout) is told by
//! its top-level keys ([`Agent::sniff_document`]), read without keeping any value.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};

use super::Agent;
use crate::io::json::{Key, LStr};
use crate::io::{Line, Source};
use crate::model::AgentId;

/// How many non-blank lines detection looks at before giving up.
const PROBE_LINES: usize = 64;

/// A first line at least this long is probed as a whole-file document first.
const LONG_FIRST_LINE: usize = 1 << 16;

/// How surely one record says which agent wrote it. Stronger claims win over weaker ones
/// whatever the registry's order, so that a record two agents could both claim (a bare
/// Codex item that also has a Claude Code `uuid`) goes to the one whose claim rests on more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sureness {
    /// A shape only this agent's files have, but which others' records could share by chance.
    Weak,
    /// The agent's usual records: its record types or its link fields.
    Typical,
    /// A field or envelope no other agent writes.
    Strong,
    /// The file says what it is (a format's version beside its content).
    Defining,
}

/// One JSON object's `type` and which of its top-level keys have a value other than null:
/// what an agent's [`Agent::sniff`] looks at.
#[derive(Debug, Default)]
pub struct Record<'a> {
    ty: Option<Cow<'a, str>>,
    keys: Vec<Cow<'a, str>>,
    first: bool,
    /// Whether `message` is an object of Gemini's Content shape (`parts`, no `content`).
    parts: bool,
}

impl<'a> Record<'a> {
    /// The record's `type` when it is a string.
    pub fn ty(&self) -> Option<&str> {
        self.ty.as_deref()
    }

    /// Whether the record has `key` with a value other than null.
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// Whether it is the file's first record.
    pub fn is_first(&self) -> bool {
        self.first
    }

    /// Whether its `message` holds `parts` and no `content`: Gemini's Content shape, which
    /// Qwen Code writes in records otherwise shaped like Claude Code's.
    pub fn message_has_parts(&self) -> bool {
        self.parts
    }

    /// The record on `line`, if it is a JSON object. A `type` given twice is no record, as a
    /// serde struct would refuse it.
    pub fn parse(line: &'a [u8], first: bool) -> Option<Record<'a>> {
        // Only objects: an array is never a record.
        if !line.trim_ascii_start().starts_with(b"{") {
            return None;
        }
        let mut r = serde_json::from_slice::<Record<'a>>(line).ok()?;
        r.first = first;
        Some(r)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Record<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Record<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Record<'a>, A::Error> {
                let mut r = Record::default();
                let mut typed = false;
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    if k.as_ref() == "type" {
                        if typed {
                            return Err(serde::de::Error::duplicate_field("type"));
                        }
                        typed = true;
                        r.ty = match a.next_value::<LStr<'de>>()? {
                            LStr::Str(s) => Some(s),
                            _ => None,
                        };
                    } else if k.as_ref() == "message" {
                        let m = a.next_value::<MessageShape>()?;
                        r.parts = m.parts && !m.content;
                        if m.present {
                            r.keys.push(k.0);
                        }
                    } else if a.next_value::<Option<IgnoredAny>>()?.is_some() {
                        r.keys.push(k.0);
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Which keys a record's `message` has, its values skipped: any value but null is present.
#[derive(Default)]
struct MessageShape {
    present: bool,
    parts: bool,
    content: bool,
}

impl<'de> Deserialize<'de> for MessageShape {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageShape;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<MessageShape, A::Error> {
                let mut m = MessageShape {
                    present: true,
                    ..MessageShape::default()
                };
                while let Some(k) = a.next_key::<Key<'de>>()? {
                    let set = a.next_value::<Option<IgnoredAny>>()?.is_some();
                    match k.as_ref() {
                        "parts" => m.parts |= set,
                        "content" => m.content |= set,
                        _ => {}
                    }
                }
                Ok(m)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<MessageShape, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MessageShape {
                    present: true,
                    ..MessageShape::default()
                })
            }
            fn visit_unit<E>(self) -> Result<MessageShape, E> {
                Ok(MessageShape::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<MessageShape, E> {
                Ok(present())
            }
            fn visit_i64<E>(self, _: i64) -> Result<MessageShape, E> {
                Ok(present())
            }
            fn visit_u64<E>(self, _: u64) -> Result<MessageShape, E> {
                Ok(present())
            }
            fn visit_f64<E>(self, _: f64) -> Result<MessageShape, E> {
                Ok(present())
            }
            fn visit_str<E>(self, _: &str) -> Result<MessageShape, E> {
                Ok(present())
            }
        }
        fn present() -> MessageShape {
            MessageShape {
                present: true,
                ..MessageShape::default()
            }
        }
        d.deserialize_any(V)
    }
}

/// The top-level keys of a whole-file JSON document: what [`Agent::sniff_document`] looks at.
#[derive(Debug, Default)]
pub struct Keys(Vec<String>);

impl Keys {
    /// Whether the document has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.0.iter().any(|k| k == key)
    }
}

/// What a file that is no registered agent's looks like, so that a skipped file is named for
/// what it is and `--input-format` is advised only where it could help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    /// Nothing in it.
    Empty,
    /// Not JSON.
    NotJson,
    /// JSON of no shape cctool knows: possibly an agent's file with unusual first records.
    OtherJson,
    /// A Gemini CLI chat.
    GeminiChat,
    /// A pi session.
    PiSession,
    /// A Copilot CLI event log.
    CopilotEvents,
    /// A Qwen Code session.
    QwenSession,
}

impl Looks {
    /// What the notice calls it.
    pub fn describe(self) -> &'static str {
        match self {
            Looks::Empty => "an empty file",
            Looks::NotJson => "not JSON",
            Looks::OtherJson => "JSON that is not a session",
            Looks::GeminiChat => "a Gemini CLI chat",
            Looks::PiSession => "a pi session",
            Looks::CopilotEvents => "a Copilot CLI event log",
            Looks::QwenSession => "a Qwen Code session",
        }
    }

    /// Whether the content could be a registered agent's, read as `--input-format` says.
    pub fn plausible(self) -> bool {
        self == Looks::OtherJson
    }
}

/// Why a file could not be classified, and what it looks like instead.
#[derive(Debug)]
pub struct Undetected(pub String, pub Looks);

/// A file of an agent cctool does not read, told by a record only that agent writes: Gemini
/// CLI's header (`projectHash`), pi's `session` header with its `cwd`, a Copilot CLI event
/// (`type` with a dotted namespace, fields under `data`), a Qwen Code record (Claude Code's
/// link fields around a message of `parts`). Checked before the registered agents: a Gemini or
/// Qwen Code record (`type: user`) would otherwise read as Claude Code.
fn foreign(r: &Record<'_>) -> Option<Looks> {
    let ty = r.ty();
    if r.has("projectHash") && r.has("sessionId") && ty.is_none() {
        return Some(Looks::GeminiChat);
    }
    if ty == Some("session") && r.has("version") && r.has("cwd") {
        return Some(Looks::PiSession);
    }
    if ty.is_some_and(|t| t.contains('.')) && r.has("data") && !r.has("payload") {
        return Some(Looks::CopilotEvents);
    }
    // Qwen Code's records have Claude Code's fields (`uuid`, `parentUuid`, `sessionId`) around
    // a message of Gemini's shape, and a record type of their own for tool results.
    let linked = r.has("uuid") || r.has("parentUuid") || r.has("sessionId");
    if linked && (r.message_has_parts() || ty == Some("tool_result")) {
        return Some(Looks::QwenSession);
    }
    None
}

/// The surest claim on `r` and the agent it names; the earlier agent among equally sure ones.
fn surest(r: &Record<'_>, agents: &[&dyn Agent]) -> Option<(Sureness, AgentId)> {
    let mut best: Option<(Sureness, AgentId)> = None;
    for a in agents {
        if let Some(s) = a.sniff(r)
            && best.is_none_or(|(b, _)| s > b)
        {
            best = Some((s, a.about().format));
        }
    }
    best
}

/// The agent that claims a document of `keys`, the first in the registry's order.
fn claim_document(keys: &Keys, agents: &[&dyn Agent]) -> Option<AgentId> {
    agents.iter().find(|a| a.sniff_document(keys)).map(|a| a.about().format)
}

/// Reads the top-level keys of a JSON document until an agent claims it (a session's
/// `messages` can be gigabytes); stopping makes the parse end in an error, which is ignored:
/// the claim is what counts.
/// What the probe of a whole-file document found: the agent that claims it, else whether it
/// is one JSON object read to its end, and its first keys (for the message that says what
/// it is instead).
#[derive(Default)]
struct DocumentProbe {
    claim: Option<AgentId>,
    object: bool,
    keys: Vec<String>,
}

fn probe_keys<'de, D: serde::Deserializer<'de>>(d: D, agents: &[&dyn Agent]) -> DocumentProbe {
    struct V<'p> {
        agents: &'p [&'p dyn Agent],
        keys: Keys,
        claim: Option<AgentId>,
        whole: bool,
    }
    impl<'de> Visitor<'de> for &mut V<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while let Some(k) = a.next_key::<Key<'de>>()? {
                self.keys.0.push(k.as_ref().to_string());
                self.claim = claim_document(&self.keys, self.agents);
                if self.claim.is_some() {
                    return Err(serde::de::Error::custom("decided"));
                }
                a.next_value::<IgnoredAny>()?;
            }
            self.whole = true;
            Ok(())
        }
    }
    let mut v = V {
        agents,
        keys: Keys::default(),
        claim: None,
        whole: false,
    };
    let _ = d.deserialize_map(&mut v);
    DocumentProbe {
        claim: v.claim,
        object: v.whole,
        keys: v.keys.0,
    }
}

fn probe_document(src: &Source, agents: &[&dyn Agent]) -> DocumentProbe {
    // In memory when it is (mapped or small), else through a buffered reader.
    if let Some(bytes) = src.as_slice() {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if !body.trim_ascii_start().starts_with(b"{") {
            return DocumentProbe::default();
        }
        let mut de = serde_json::Deserializer::from_slice(body);
        let mut probe = probe_keys(&mut de, agents);
        probe.object &= de.end().is_ok();
        return probe;
    }
    let Ok(mut r) = src.reader() else {
        return DocumentProbe::default();
    };
    // Skip a BOM and whitespace, and require an object.
    let mut first = [0u8; 1];
    loop {
        match std::io::Read::read(&mut r, &mut first) {
            Ok(0) | Err(_) => return DocumentProbe::default(),
            Ok(_) => {}
        }
        match first[0] {
            b' ' | b'\t' | b'\r' | b'\n' | 0xEF | 0xBB | 0xBF => continue,
            b'{' => break,
            _ => return DocumentProbe::default(),
        }
    }
    let chained = std::io::Read::chain(&b"{"[..], r);
    let mut de = serde_json::Deserializer::from_reader(chained);
    let mut probe = probe_keys(&mut de, agents);
    probe.object &= de.end().is_ok();
    probe
}

/// The first keys of a document no agent claims, as a message shows them: control
/// characters escaped, each cut short.
fn keys_shown(keys: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = keys
        .iter()
        .take(SHOWN)
        .map(|k| {
            let k: String = k.chars().take(40).collect();
            k.escape_debug().to_string()
        })
        .collect();
    if keys.len() > SHOWN {
        shown.push("…".into());
    }
    shown.join(", ")
}

/// The bytes of the first `n` lines (all of them if the file has fewer).
fn head_lines(src: &Source, n: usize) -> std::io::Result<Cow<'_, [u8]>> {
    if let Some(bytes) = src.as_slice() {
        let end = memchr::memchr_iter(b'\n', bytes)
            .nth(n.saturating_sub(1))
            .map_or(bytes.len(), |i| i + 1);
        return Ok(Cow::Borrowed(&bytes[..end]));
    }
    // A stream: read blocks until n newlines or the end of the file.
    let mut buf = Vec::new();
    let mut seen = 0usize;
    let mut at = 0u64;
    const BLOCK: u64 = 1024 * 1024;
    while at < src.len() {
        let want = (src.len() - at).min(BLOCK) as usize;
        let block = src.read_range(at, want)?;
        for i in memchr::memchr_iter(b'\n', &block) {
            seen += 1;
            if seen == n {
                buf.extend_from_slice(&block[..=i]);
                return Ok(Cow::Owned(buf));
            }
        }
        buf.extend_from_slice(&block);
        at += want as u64;
    }
    Ok(Cow::Owned(buf))
}

/// What the first records of a file said.
#[derive(Default)]
struct LineProbe {
    verdict: Option<AgentId>,
    looks: Option<Looks>,
    seen: usize,
    first_unparsed: Option<u64>,
    objects: usize,
    array: bool,
}

impl LineProbe {
    fn decided(&self) -> bool {
        self.verdict.is_some() || self.looks.is_some() || self.seen >= PROBE_LINES
    }

    fn line(&mut self, line: Line<'_>, agents: &[&dyn Agent]) {
        if self.decided() {
            return;
        }
        let first = self.seen == 0;
        self.seen += 1;
        self.array |= first && line.bytes.trim_ascii_start().starts_with(b"[");
        match Record::parse(line.bytes, first) {
            Some(r) => {
                self.objects += 1;
                // A registered agent whose claim rests on a field or envelope of its own
                // reads the file even where the record would otherwise name an agent cctool
                // does not read (pi's header, once pi is registered).
                let claim = surest(&r, agents);
                match foreign(&r) {
                    Some(l) if claim.is_none_or(|(s, _)| s < Sureness::Strong) => self.looks = Some(l),
                    _ => self.verdict = claim.map(|(_, id)| id),
                }
            }
            None if self.first_unparsed.is_none() => self.first_unparsed = Some(line.no),
            None => {}
        }
    }
}

/// `items` joined as a sentence lists them: `a, b and c` (`or` for `last`).
fn listed(items: &[&str], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., tail] => format!("{} {last} {tail}", init.join(", ")),
    }
}

/// What the registered agents' files are called, as sentences list them: `Claude Code
/// transcripts, Codex rollouts and its own sessions` (`and`), or one of each (`or`).
pub fn files_read(agents: &[&dyn Agent]) -> String {
    let many: Vec<_> = agents.iter().map(|a| a.about().names.files).collect();
    listed(&many, "and")
}

/// One file of any registered agent, as an advice names it: `Claude Code transcript, Codex
/// rollout or cctool session`.
pub fn one_of(agents: &[&dyn Agent]) -> String {
    let one: Vec<_> = agents.iter().map(|a| a.about().names.file).collect();
    listed(&one, "or")
}

/// Decides which of `agents` wrote `src` from its first records.
pub fn detect(src: &Source, agents: &[&dyn Agent]) -> Result<AgentId, Undetected> {
    if src.is_empty() {
        return Err(Undetected("nothing to read".into(), Looks::Empty));
    }
    // A whole-file document on one long line (a cctool session written compactly) would be
    // parsed to its end by the line probe; the document probe stops as soon as it is claimed.
    // It decides only what the line probe would decide too. Files whose first line ends early
    // (every JSONL transcript) are not probed twice.
    if src
        .as_slice()
        .is_some_and(|b| memchr::memchr(b'\n', &b[..b.len().min(LONG_FIRST_LINE)]).is_none())
        && let Some(f) = probe_document(src, agents).claim
    {
        return Ok(f);
    }
    let mut p = LineProbe::default();
    // The first PROBE_LINES whole lines, however long: a first record can hold a large tool
    // result. Only what is probed is read: a file held as one slice is split a line at a
    // time up to the verdict (nearly always the first line), not its whole head first.
    let head = match src.as_slice() {
        Some(bytes) => Cow::Borrowed(bytes),
        None => head_lines(src, PROBE_LINES).map_err(|e| Undetected(format!("cannot read: {e}"), Looks::OtherJson))?,
    };
    let mut stats = crate::io::LineStats::default();
    let mut from = 0usize;
    for _ in 0..PROBE_LINES {
        if p.decided() || from >= head.len() {
            break;
        }
        let end = memchr::memchr(b'\n', &head[from..]).map_or(head.len(), |i| from + i + 1);
        crate::io::lines::split_chunk(from as u64, &head[from..end], true, &mut stats, &mut |line| {
            p.line(line, agents)
        });
        from = end;
    }
    if let Some(f) = p.verdict {
        return Ok(f);
    }
    if let Some(l) = p.looks {
        return Err(Undetected(format!("cctool reads {}", files_read(agents)), l));
    }
    // A single JSON document (cctool session, 2025 TypeScript rollout), pretty-printed or on
    // one long line: probed with a streaming reader, so its size does not matter.
    let document = probe_document(src, agents);
    if let Some(f) = document.claim {
        return Ok(f);
    }
    let seen = p.seen;
    Err(match p.first_unparsed {
        // A pretty-printed document has no line that is JSON, yet it is JSON.
        _ if document.object && !document.keys.is_empty() && p.objects == 0 && !p.array => Undetected(
            format!(
                "one JSON object whose first keys are {}: none of the documents cctool reads",
                keys_shown(&document.keys)
            ),
            Looks::OtherJson,
        ),
        Some(n) if seen == 1 && !p.array => Undetected(
            format!("line {n} is not JSON, and the file is not one JSON document"),
            Looks::NotJson,
        ),
        _ if p.objects == 0 && !p.array => {
            Undetected(format!("none of the first {seen} lines is JSON"), Looks::NotJson)
        }
        _ => {
            let kinds: Vec<_> = agents.iter().map(|a| a.about().names.kind).collect();
            Undetected(
                format!("none of the first {seen} records looks like {}", listed(&kinds, "or")),
                Looks::OtherJson,
            )
        }
    })
}
