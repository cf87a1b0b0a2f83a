//! Compacting a Claude Code transcript: the file is kept as written and three things are
//! appended, as Claude Code's own compaction writes them (`claude-code-format.md` §4.1):
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

use super::{Made, Unit, copy_all, ids};
use crate::chain::claude::{self, Kind, Options as ChainOptions, Transcript, flag};
use crate::io::Source;
use crate::migrate::import::{claude_record, content_text, parse};
use crate::model::time::format_ms;

/// The conversation a resume loads, as units (one per chain record).
pub struct Loaded {
    pub t: Transcript,
    pub positions: Vec<u32>,
    pub units: Vec<Unit>,
}

pub fn load(src: &Source) -> io::Result<Loaded> {
    let t = claude::read(src)?;
    let positions = t.rebuild(&ChainOptions::default()).unwrap_or_default().positions;
    let mut units = Vec::with_capacity(positions.len());
    for &p in &positions {
        let node = t.node(p);
        let rec = parse(&src.read_range(node.offset, node.len as usize)?);
        let source = json!({"uuid": rec.get("uuid").cloned().unwrap_or(Value::Null), "line": node.line});
        let ts = rec.get("timestamp").and_then(Value::as_str).map(str::to_string);
        let unit = if node.is_boundary() {
            Unit {
                carry: true,
                ..Unit::default()
            }
        } else if node.kind == Kind::User && node.has(flag::COMPACT_SUMMARY) {
            let text = rec.pointer("/message/content").map(content_text).unwrap_or_default();
            let mut u = Unit::new(Vec::new());
            u.tokens = super::tokens_of_bytes(text.len());
            u.earlier = super::Earlier::from_text(&strip_header(&text));
            u
        } else {
            let mut messages = claude_record(&rec, node.kind, node.line, &source, &ts);
            // Injected rows (reminders, command caveats, hook output) are context, not requests.
            if node.has(flag::META) {
                for m in &mut messages {
                    if m.role == "user" {
                        m.role = "system".into();
                    }
                }
            }
            let mut u = Unit::new(messages);
            u.prompt = node.kind == Kind::User
                && !node.has(flag::META)
                && !node.has(flag::TOOL_RESULT)
                && (node.has(flag::TEXT) || node.has(flag::STRING_CONTENT))
                && !is_command_output(&rec);
            u
        };
        units.push(unit);
    }
    Ok(Loaded { t, positions, units })
}

/// Rows a slash command writes (`<command-name>`, `<local-command-stdout>`) are user rows
/// without being requests.
fn is_command_output(rec: &Value) -> bool {
    let text = rec.pointer("/message/content").map(content_text).unwrap_or_default();
    let t = text.trim_start();
    t.starts_with("<command-") || t.starts_with("<local-command-") || t.starts_with("<bash-")
}

/// Claude Code's header and trailer around a summary, removed before parsing it back.
pub const HEADER: &str = "This session is being continued from a previous conversation that ran out of context. \
The summary below covers the earlier portion of the conversation.";
/// Claude Code's own line for a compaction that keeps recent messages (2.1.88 session memory).
const PRESERVED: &str = "Recent messages are preserved verbatim.";
const TRAILER: &str = "If you need specific details from before compaction (like exact code snippets, error \
messages, or content you generated), read the full transcript at: ";

fn strip_header(text: &str) -> String {
    let body = text.strip_prefix(HEADER).unwrap_or(text).trim_start();
    let body = body.strip_prefix(PRESERVED).unwrap_or(body).trim_start();
    let body = match body.rfind(TRAILER) {
        Some(i) => &body[..i],
        None => body,
    };
    body.trim().to_string()
}

/// The summary row's text: Claude Code's own header, the recap, where the full record is.
pub fn summary_text(made: &Made, transcript: Option<&str>) -> String {
    let mut s = format!("{HEADER}\n\n{PRESERVED}\n\n{}", made.text());
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
    pub boundary_uuid: String,
    pub copies: usize,
}

/// Writes the whole output: the input unchanged, then the boundary, the summary and the tail.
pub fn write(
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
    let tip_uuid = loaded.positions.last().map(|&p| t.uuid_text(p)).unwrap_or_default();
    let session = template
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let fresh = |parts: &[&str]| -> String {
        let mut salt = 0u32;
        loop {
            let s = salt.to_string();
            let mut all: Vec<&str> = vec![&session, &tip_uuid];
            all.extend_from_slice(parts);
            all.push(&s);
            let id = ids::uuid(&all);
            if t.find(&id).is_none() {
                return id;
            }
            salt += 1;
        }
    };
    // After every timestamp in the file, so that a newest-leaf loader (2.1.88) picks the copies too.
    let newest = t.time_span().map_or(i64::MIN, |s| s.1);
    let mut ts = ids::now_ms().max(newest.saturating_add(1));
    let mut next_ts = || {
        let s = format_ms(ts);
        ts += 1;
        s
    };

    let envelope = |m: &mut Map<String, Value>| {
        for k in ENVELOPE {
            if let Some(v) = template.get(*k) {
                m.insert((*k).to_string(), v.clone());
            }
        }
    };

    let boundary_uuid = fresh(&["compact_boundary"]);
    let mut b = Map::new();
    b.insert("parentUuid".into(), Value::Null);
    b.insert("logicalParentUuid".into(), json!(tip_uuid));
    b.insert("isSidechain".into(), json!(false));
    envelope(&mut b);
    b.insert("type".into(), json!("system"));
    b.insert("subtype".into(), json!("compact_boundary"));
    b.insert("content".into(), json!("Conversation compacted"));
    b.insert("isMeta".into(), json!(false));
    b.insert("timestamp".into(), json!(next_ts()));
    b.insert("uuid".into(), json!(boundary_uuid));
    b.insert("level".into(), json!("info"));
    b.insert(
        "compactMetadata".into(),
        json!({"trigger": "manual", "preTokens": pre_tokens}),
    );

    let summary_uuid = fresh(&["compact_summary"]);
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
    s.insert("timestamp".into(), json!(next_ts()));

    // The input as it is; a last line without its newline gets one, so ours start on their own.
    copy_all(src, w)?;
    writeln_json(w, &Value::Object(b))?;
    writeln_json(w, &Value::Object(s))?;

    let mut new_uuid: FxHashMap<String, String> = FxHashMap::default();
    let mut new_msg_id: FxHashMap<String, String> = FxHashMap::default();
    let mut parent = summary_uuid;
    for &p in &tail {
        let node = t.node(p);
        let mut rec = parse(&src.read_range(node.offset, node.len as usize)?);
        let Some(obj) = rec.as_object_mut() else { continue };
        let old = obj.get("uuid").and_then(Value::as_str).unwrap_or("").to_string();
        let id = fresh(&["copy", &old, &node.line.to_string()]);
        new_uuid.insert(old, id.clone());
        obj.insert("parentUuid".into(), json!(parent));
        obj.insert("uuid".into(), json!(id));
        obj.insert("timestamp".into(), json!(next_ts()));
        for key in ["sourceToolAssistantUUID", "logicalParentUuid"] {
            if let Some(new) = obj.get(key).and_then(Value::as_str).and_then(|u| new_uuid.get(u)) {
                let new = new.clone();
                obj.insert(key.into(), json!(new));
            }
        }
        if node.kind == Kind::Assistant
            && let Some(m) = obj.get_mut("message").and_then(Value::as_object_mut)
            && let Some(old_id) = m.get("id").and_then(Value::as_str).map(str::to_string)
        {
            let new = new_msg_id
                .entry(old_id.clone())
                .or_insert_with(|| ids::message_id(&[&session, &tip_uuid, &old_id]))
                .clone();
            m.insert("id".into(), json!(new));
        }
        writeln_json(w, &rec)?;
        parent = id;
    }
    Ok(Appended {
        boundary_uuid,
        copies: tail.len(),
    })
}

fn writeln_json(w: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *w, v)?;
    w.write_all(b"\n")
}
