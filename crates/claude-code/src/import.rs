//! Importing Claude Code transcripts into a v5 session (`docs/cctool-session.md#imports`),
//! read from the session model's stream ([`cctool_core::v5::import`]): the reader hands on all
//! the transcript holds in the order of its history (`events::chain_of`), and each record
//! becomes v5 messages here ([`claude_record`]).
//!
//! The full history comes in chain order (the `--full` chain) with each compaction as a
//! `summary` item at its place; `effective` keeps only what a resume loads. Anything that has
//! no v5 equivalent is kept as a `native` item holding the original record, so no information
//! is lost. Written to a file ([`claude_to`]), each message goes out as soon as nothing can
//! change it.

use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::chain::{self as claude, Kind, Options, Sub, flag};
use crate::io::Source;
use crate::v5::build::*;
use crate::v5::schema::{Item, MessageV3, Session};
use cctool_core::model::events::{Ask, Origin, Record as Rec, View};
use cctool_core::v5::import::{Mapping, ask, import};

/// A Claude Code transcript as a v5 session.
pub fn claude(src: &Source, effective: bool) -> io::Result<Session> {
    held(claude_into(src, effective, None)?)
}

/// [`claude()`], written to `w` as a v5 file message by message.
pub fn claude_to(src: &Source, effective: bool, w: &mut dyn Write) -> io::Result<()> {
    claude_into(src, effective, Some(w)).map(drop)
}

fn claude_into(src: &Source, effective: bool, w: Option<&mut dyn Write>) -> io::Result<Option<Session>> {
    let t = claude::read(src)?;
    let chain = t
        .rebuild(&Options {
            full: !effective,
            ..Options::default()
        })
        .unwrap_or_default();
    // The records the stream hands on, which say which summaries are taken: all of them, or
    // what a resume loads from its last compaction on.
    let loaded = effective.then(|| {
        let from = chain.positions.iter().rposition(|&p| t.node(p).is_boundary());
        &chain.positions[from.unwrap_or(0)..]
    });
    let head = Head {
        session_id: t.session_ids.first().cloned(),
        first_ms: t.time_span().map(|s| s.0),
        source: json!({
            "format": "claude-code",
            "path": src.name(),
            "native_session_id": t.session_ids.first(),
            "agent_version": t.versions.last(),
        }),
    };
    let mut mapping = Claude {
        src,
        t: &t,
        summaries: ClaudeSummaries::of(&t, loaded),
        at: t.by_offset(),
        last_assistant_id: None,
        carried_note: None,
        failed: None,
    };
    let ask = Ask {
        view: if effective { View::Loaded } else { View::History },
        ..ask(effective)
    };
    let session = import(head, w, &mut mapping, |sink| {
        crate::events::chain_of(src, &t, &chain, ask, sink).map(drop)
    })?;
    mapping.failed.map_or(Ok(session), Err)
}

/// The v5 messages of a transcript's records, handed on in the order of its history: each
/// compaction's boundary and summary message as one summary item, the rows of one reply as
/// one message, every line that is no transcript message kept whole after them.
struct Claude<'a> {
    src: &'a Source,
    t: &'a claude::Transcript,
    summaries: ClaudeSummaries,
    /// Each record's position in the transcript's index, by where it is.
    at: claude::ByOffset<'a>,
    last_assistant_id: Option<String>,
    /// The note of a record that becomes part of another message goes to the next one.
    carried_note: Option<String>,
    /// The first summary that could not be read, which ends the import.
    failed: Option<io::Error>,
}

impl Mapping for Claude<'_> {
    fn record(&mut self, r: Rec, raw: &mut Vec<MessageV3>) {
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.take(r, raw) {
            self.failed = Some(e);
        }
    }
}

impl Claude<'_> {
    fn take(&mut self, mut r: Rec, raw: &mut Vec<MessageV3>) -> io::Result<()> {
        let (src, t) = (self.src, self.t);
        let line = r.at.map_or(0, |a| a.line);
        let rec = r.native.take().unwrap_or(Value::Null);
        if r.origin == Origin::Unread {
            return self.rest(line, rec, raw);
        }
        let Some(pos) = r.at.and_then(|a| self.at.pos(a.offset)) else {
            return Ok(());
        };
        let node = t.node(pos);
        let uuid = rec.get("uuid").cloned().unwrap_or(Value::Null);
        let mut source = Map::from_iter([("uuid".into(), uuid), ("line".into(), json!(node.line))]);
        if r.origin == Origin::OffChain {
            source.insert("off_chain".into(), json!(true));
        }
        let note = r.note.take().or_else(|| self.carried_note.take());
        let noted = note.is_some();
        if let Some(n) = note.clone() {
            source.insert("note".into(), json!(n));
        }
        let source = Value::Object(source);
        let timestamp = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        match node.kind {
            Kind::System if node.sub == Sub::CompactBoundary => {
                // The boundary and its summary message become one summary item.
                let mut source = source;
                let item = self.summaries.item(src, t, pos, &rec, &mut source)?;
                raw.push(message("user", vec![item], source, timestamp));
                self.last_assistant_id = None;
            }
            Kind::User if self.summaries.is_used(pos) => {
                // Already the text of its boundary's summary item.
                self.carried_note = note;
            }
            Kind::Assistant => {
                let msg_id = rec.pointer("/message/id").and_then(Value::as_str).map(str::to_string);
                let items = claude_record(&rec, node.kind, node.line, &source, &timestamp)
                    .into_iter()
                    .flat_map(|m| m.items)
                    .collect::<Vec<_>>();
                // Rows of one API message (split one block per row) become one message.
                let same = msg_id.is_some() && msg_id == self.last_assistant_id && !noted;
                match raw.last_mut() {
                    Some(last) if same && last.role == "assistant" => last.items.extend(items),
                    _ => raw.push(message("assistant", items, source, timestamp)),
                }
                self.last_assistant_id = msg_id;
            }
            kind => {
                raw.extend(claude_record(&rec, kind, node.line, &source, &timestamp));
                self.last_assistant_id = None;
            }
        }
        Ok(())
    }

    /// A line that is no transcript message: a boundary without a uuid as its compaction's
    /// summary, anything else kept whole.
    fn rest(&self, line: u64, rec: Value, raw: &mut Vec<MessageV3>) -> io::Result<()> {
        match self.summaries.unlinked(self.src, self.t, line, &rec)? {
            // A boundary without a uuid is no transcript message, but still a compaction.
            Some(item) => {
                let source = json!({"off_chain": true, "line": line});
                let ts = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
                raw.push(message("user", vec![item], source, ts));
            }
            None => {
                let item = native("claude-code", rec, Some(line));
                raw.push(message("system", vec![item], json!({"off_chain": true}), None));
            }
        }
        Ok(())
    }
}

/// The compactions of a transcript as `extract-summary` reads them, found from the transcript's
/// own index (no marker pass, nothing held but positions): each boundary's summary message
/// (the one parented on it, else the first after it), and which summary messages are so taken.
struct ClaudeSummaries {
    /// Boundary position → its summary message's position.
    of: rustc_hash::FxHashMap<u32, u32>,
    /// Summary messages that are the text of an imported boundary.
    used: rustc_hash::FxHashSet<u32>,
    /// Summary messages by line.
    summaries: Vec<(u64, u32)>,
    /// Which summary each boundary takes, also for boundaries without a uuid.
    index: crate::summaries::SummaryIndex,
}

impl ClaudeSummaries {
    /// The compactions of `t`, the summaries taken by the boundaries `imported` (`None`: by
    /// every boundary, as the full import hands on every record).
    fn of(t: &claude::Transcript, imported: Option<&[u32]>) -> ClaudeSummaries {
        let mut boundaries: Vec<u32> = (0..t.nodes.len() as u32).filter(|&p| t.node(p).is_boundary()).collect();
        boundaries.sort_by_key(|&p| t.node(p).line);
        let mut summaries: Vec<(u64, u32)> = (0..t.nodes.len() as u32)
            .filter(|&p| t.node(p).kind == Kind::User && t.node(p).has(flag::COMPACT_SUMMARY))
            .map(|p| (t.node(p).line, p))
            .collect();
        summaries.sort_unstable();
        let parents: Vec<Option<String>> = summaries
            .iter()
            .map(|&(_, p)| t.node(p).parent_id().map(|id| t.ids.text(id)))
            .collect();
        let imported: Option<rustc_hash::FxHashSet<u32>> = imported.map(|p| p.iter().copied().collect());
        let index = crate::summaries::SummaryIndex::new(
            summaries.iter().zip(&parents).map(|(s, p)| (s.0, p.as_deref())),
            boundaries.iter().map(|&b| t.node(b).line),
        );
        let mut out = ClaudeSummaries {
            of: Default::default(),
            used: Default::default(),
            summaries,
            index,
        };
        for &b in &boundaries {
            let uuid = t.uuid_text(b);
            if let Some((k, _)) = out.index.of(Some(&uuid), t.node(b).line) {
                let s = out.summaries[k].1;
                out.of.insert(b, s);
                if imported.as_ref().is_none_or(|i| i.contains(&b)) {
                    out.used.insert(s);
                }
            }
        }
        out
    }

    /// The summary item of the boundary at `pos` (its record `rec`); a note on `source` when
    /// its logical parent is not in the file.
    fn item(
        &self,
        src: &Source,
        t: &claude::Transcript,
        pos: u32,
        rec: &Value,
        source: &mut Value,
    ) -> io::Result<Item> {
        let unresolved =
            t.boundaries.iter().any(|b| b.pos == pos && b.logical_parent.is_some()) && t.logical_parent(pos).is_none();
        if unresolved
            && let Some(m) = source.as_object_mut()
            && !m.contains_key("note")
        {
            let lp = rec.get("logicalParentUuid").and_then(Value::as_str).unwrap_or("");
            m.insert(
                "note".into(),
                json!(format!(
                    "logical parent {lp} of this compaction is not in the file: what came before it is in file order"
                )),
            );
        }
        let text = match self.of.get(&pos) {
            Some(&s) => Some(summary_text(src, t, s)?),
            None => None,
        };
        Ok(claude_summary_item(rec, text))
    }

    /// The summary item of a boundary on `line` without a uuid (no transcript message): its
    /// summary is the first written after it.
    fn unlinked(&self, src: &Source, t: &claude::Transcript, line: u64, rec: &Value) -> io::Result<Option<Item>> {
        let boundary = rec.get("type").and_then(Value::as_str) == Some("system")
            && rec.get("subtype").and_then(Value::as_str) == Some("compact_boundary");
        if !boundary {
            return Ok(None);
        }
        let text = match self.index.after(line) {
            Some(k) => Some(summary_text(src, t, self.summaries[k].1)?),
            None => None,
        };
        Ok(Some(claude_summary_item(rec, text)))
    }

    /// Whether the summary message at `pos` is the text of an imported boundary.
    fn is_used(&self, pos: u32) -> bool {
        self.used.contains(&pos)
    }
}

/// The text of the summary message at `pos`.
fn summary_text(src: &Source, t: &claude::Transcript, pos: u32) -> io::Result<String> {
    let n = t.node(pos);
    let rec = parse(&src.read_range(n.offset, n.len as usize)?);
    Ok(crate::summaries::claude_summary_text(&rec).unwrap_or_default())
}

/// A Claude Code compaction as a v5 `summary` item: the summary text as written, the
/// boundary's trigger and tokens before.
fn claude_summary_item(boundary: &Value, text: Option<String>) -> Item {
    let mut summary = Map::from_iter([("type".into(), json!("summary"))]);
    summary.insert("text".into(), text.map_or(Value::Null, Value::String));
    summary.insert("origin".into(), json!("local"));
    if let Some(meta) = boundary.get("compactMetadata") {
        summary.insert("trigger".into(), meta.get("trigger").cloned().unwrap_or(Value::Null));
        summary.insert(
            "pre_tokens".into(),
            meta.get("preTokens").cloned().unwrap_or(Value::Null),
        );
    }
    Item::Other(Value::Object(summary))
}

/// The v5 messages of one Claude Code chain record (not a compact boundary): a user row gives a
/// `tool` message per tool result and a `user` message for the rest, an assistant row one
/// `assistant` message, anything else a `system` message holding the record.
pub fn claude_record(rec: &Value, kind: Kind, line: u64, source: &Value, timestamp: &Option<String>) -> Vec<MessageV3> {
    let mut messages = Vec::new();
    match kind {
        Kind::User => {
            let content = rec.pointer("/message/content").cloned().unwrap_or(Value::Null);
            let mut items = Vec::new();
            match &content {
                Value::String(s) => items.push(text(s)),
                Value::Array(blocks) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => items.push(text(b.get("text").and_then(Value::as_str).unwrap_or(""))),
                            Some("tool_result") => {
                                let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                                let c = b.get("content").cloned().unwrap_or(Value::String(String::new()));
                                let mut m = tool_message(id, c, source.clone(), timestamp.clone());
                                // A failed call is only marked so; the recap needs to know.
                                if b.get("is_error") == Some(&Value::Bool(true))
                                    && let Some(Item::ToolResult { extra, .. }) = m.items.first_mut()
                                {
                                    extra.insert("is_error".into(), Value::Bool(true));
                                }
                                messages.push(m);
                            }
                            Some("image") => items.push(Item::Other(json!({
                                "type": "image",
                                "media_type": b.pointer("/source/media_type").cloned().unwrap_or(Value::Null),
                                "data": b.pointer("/source/data").cloned().unwrap_or(Value::Null),
                            }))),
                            _ => items.push(native("claude-code", b.clone(), None)),
                        }
                    }
                }
                _ => items.push(native("claude-code", rec.clone(), Some(line))),
            }
            if !items.is_empty() {
                messages.push(message("user", items, source.clone(), timestamp.clone()));
            }
        }
        Kind::Assistant => {
            let mut items = Vec::new();
            for b in rec
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => items.push(text(b.get("text").and_then(Value::as_str).unwrap_or(""))),
                    Some("thinking") => items.push(Item::Reasoning {
                        text: b.get("thinking").and_then(Value::as_str).unwrap_or("").to_string(),
                        extra: Map::new(),
                    }),
                    Some("tool_use") => items.push(Item::ToolCall {
                        id: b.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
                        name: b.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                        args: b.get("input").cloned().unwrap_or(Value::Null),
                        extra: Map::new(),
                    }),
                    _ => items.push(native("claude-code", b.clone(), None)),
                }
            }
            messages.push(message("assistant", items, source.clone(), timestamp.clone()));
        }
        Kind::System | Kind::Attachment => messages.push(message(
            "system",
            vec![native("claude-code", rec.clone(), Some(line))],
            source.clone(),
            timestamp.clone(),
        )),
    }
    messages
}
