//! Compaction of a cctool v5 session in place, and `decompress`, which undoes tier 1 from a
//! full record (`docs/compaction.md#cctool-sessions`).
//!
//! Tier 1 is reversible by construction: it only removes `reasoning` items and replaces tool
//! result contents with placeholders that keep the size and the first 200 characters, and
//! the full record keeps the originals under the same message ids and tool call ids.

use serde_json::{Map, Value, json};

use crate::v5::schema::{Item, MessageV3, Session, content_size, message_v3_value, rfc3339_seconds};
use cctool_core::compact::recap::Recap;
use cctool_core::compact::{Earlier, Made, Unit, message_tokens};
use cctool_core::model::events::{Part, Record};

/// The messages of a v3+ session.
pub fn messages(s: &Session) -> &[MessageV3] {
    match s {
        Session::V3Plus { messages, .. } => messages,
        _ => &[],
    }
}

fn parts(s: &mut Session) -> Option<(&mut Vec<MessageV3>, &mut Map<String, Value>)> {
    match s {
        Session::V3Plus { messages, extra, .. } => Some((messages, extra)),
        _ => None,
    }
}

/// The agent the session was imported from (`source.format`), when one registered reads it.
pub fn source(s: &Session) -> Option<cctool_core::model::AgentId> {
    let Session::V3Plus { extra, .. } = s else { return None };
    let name = extra.get("source")?.get("format")?.as_str()?;
    Some(cctool_core::agents::registry::installed().by_name(name)?.about().format)
}

/// The session's estimated token count: the sum over its messages.
pub fn tokens(s: &Session) -> usize {
    messages(s).iter().map(message_tokens).sum()
}

fn summary_items(m: &MessageV3) -> impl Iterator<Item = &Value> {
    m.items.iter().filter_map(|it| match it {
        Item::Other(v) if v.get("type").and_then(Value::as_str) == Some("summary") => Some(v),
        _ => None,
    })
}

/// One unit per message.
pub fn units(s: &Session) -> Vec<Unit> {
    messages(s)
        .iter()
        .map(|m| {
            let mut u = Unit::of_messages(std::slice::from_ref(m));
            for item in summary_items(m) {
                match item.get("text").and_then(Value::as_str) {
                    Some(t) => u.earlier.extend(Earlier::from_text(t)),
                    None => match Recap::from_item(item) {
                        Some(r) => u.earlier.push(Earlier::Structured(r)),
                        // An encrypted summary cannot be merged: it stays, as it is.
                        None => u.carry = true,
                    },
                }
            }
            u.prompt =
                m.role == "user" && u.earlier.is_empty() && m.items.iter().any(|i| matches!(i, Item::Text { .. }));
            u
        })
        .collect()
}

/// Streams the span `[0, at)`, recaps left out, as records of the session model (see
/// [`cctool_core::compact::Feed`]).
pub fn feed(s: &Session, units: &[Unit], at: usize, f: &mut dyn FnMut(&Record)) {
    for (m, u) in messages(s)[..at].iter().zip(units) {
        if u.earlier.is_empty() && !u.carry {
            f(&span_record(m));
        }
    }
}

/// A message as the recap reads it: the session model's record of it, a result failed where
/// the message says so.
fn span_record(m: &MessageV3) -> Record {
    let mut r = crate::events::message_record(&message_v3_value(m.clone()));
    if let Some(failed) = m.extra.get("is_error").and_then(Value::as_bool) {
        for p in &mut r.parts {
            if let Part::Outcome(o) = p {
                o.is_error = o.is_error.or(Some(failed));
            }
        }
    }
    r
}

/// `[TRUNCATED: <original_size> bytes] <first 200 characters of the original>`.
pub fn placeholder(content: &Value, original_size: u64) -> String {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p.get("type").and_then(Value::as_str) {
                Some("text") => p.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                _ => "[binary]".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    };
    let head: String = text.chars().take(200).collect();
    format!("[TRUNCATED: {original_size} bytes] {head}")
}

/// Whether a tool result's content is a tier-1 `[TRUNCATED: …]` placeholder.
pub(crate) fn is_placeholder(content: &Value) -> bool {
    content.as_str().is_some_and(|s| s.starts_with("[TRUNCATED:"))
}

/// What tier 1 changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tier1 {
    /// Tool results replaced by a placeholder.
    pub placeholders: usize,
    /// Messages whose reasoning was dropped.
    pub reasoning_removed: usize,
    /// Ids of the first and last message it changed.
    pub span: Option<(u64, u64)>,
}

/// Tier 1 over `messages[..tail_from]`: reasoning removed, tool results placeholdered except
/// the `keep_results` most recent of the whole session.
pub fn tier1(s: &mut Session, tail_from: usize, keep_results: usize) -> Tier1 {
    let Some((messages, _)) = parts(s) else {
        return Tier1::default();
    };
    let total_results: usize = messages
        .iter()
        .flat_map(|m| &m.items)
        .filter(|i| matches!(i, Item::ToolResult { .. }))
        .count();
    let keep_from = total_results.saturating_sub(keep_results);
    let mut seen = 0;
    let mut out = Tier1::default();
    for (i, m) in messages.iter_mut().enumerate() {
        let mut changed = false;
        // decompress finds the original by message id, or a result by its tool call id: what it
        // could not find again is left as it is, so that tier 1 stays reversible.
        let by_id = m.id.is_some();
        let by_call = by_id || m.tool_call_id.is_some();
        for item in &mut m.items {
            if let Item::ToolResult {
                content, original_size, ..
            } = item
            {
                let old_enough = seen < keep_from;
                seen += 1;
                if i < tail_from && old_enough && by_call && !is_placeholder(content) {
                    let size = original_size.unwrap_or_else(|| content_size(content));
                    *original_size = Some(size);
                    *content = Value::String(placeholder(content, size));
                    out.placeholders += 1;
                    changed = true;
                }
            }
        }
        if i < tail_from && by_id {
            let before = m.items.len();
            m.items.retain(|it| !matches!(it, Item::Reasoning { .. }));
            let removed = before - m.items.len();
            out.reasoning_removed += removed;
            changed |= removed > 0;
        }
        if changed {
            let id = m.id.unwrap_or(i as u64 + 1);
            out.span = Some(out.span.map_or((id, id), |(a, _)| (a, id)));
        }
    }
    out
}

/// Tier 2: `messages[..at]` become one user message holding the recap, with the span's first id.
/// Returns the span's first and last ids.
pub fn tier2(s: &mut Session, at: usize, made: &Made) -> Option<(u64, u64)> {
    let (messages, _) = parts(s)?;
    if at == 0 || at > messages.len() {
        return None;
    }
    let first = messages[0].id.unwrap_or(1);
    let last = messages[at - 1].id.unwrap_or(at as u64);
    let mut item = made.recap.to_item();
    if let Some(o) = item.as_object_mut() {
        o.insert("text".into(), json!(made.text()));
    }
    let mut carried: Vec<Item> = Vec::new();
    for m in &messages[..at] {
        for it in &m.items {
            if let Item::Other(v) = it
                && v.get("type").and_then(Value::as_str) == Some("summary")
                && v.get("text").and_then(Value::as_str).is_none()
                && Recap::from_item(v).is_none()
            {
                carried.push(it.clone());
            }
        }
    }
    carried.push(Item::Other(item));
    let summary = MessageV3 {
        id: Some(first),
        ..MessageV3::new("user", carried)
    };
    messages.splice(..at, [summary]);
    Some((first, last))
}

/// Appends to the session's `compactions` log.
pub fn log(s: &mut Session, tier: u8, at_ms: i64, span: (u64, u64), before: usize, after: usize) {
    let Some((_, extra)) = parts(s) else { return };
    let entry = json!({
        "tier": tier,
        "at": rfc3339_seconds(at_ms.div_euclid(1000)),
        "span": [span.0, span.1],
        "tokens_before": before,
        "tokens_after": after,
    });
    match extra.get_mut("compactions") {
        Some(Value::Array(a)) => a.push(entry),
        _ => {
            extra.insert("compactions".into(), Value::Array(vec![entry]));
        }
    }
}

/// A placeholder that could not be restored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unrestored {
    /// Id of the message holding it, if it has one.
    pub message_id: Option<u64>,
    /// Id of the tool call whose result it stands for, if known.
    pub tool_call_id: Option<String>,
}

/// What `decompress` did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Restored {
    /// Messages changed back.
    pub messages: usize,
    /// Placeholders replaced by the original tool result.
    pub placeholders: usize,
    /// Messages whose reasoning was put back.
    pub reasoning: usize,
    /// Placeholders left as they were, for want of the original.
    pub unrestored: Vec<Unrestored>,
}

/// `m` is `f` after tier 1: the same message, reasoning dropped, some results placeholdered.
fn derives(m: &MessageV3, f: &MessageV3) -> bool {
    if m.role != f.role || m.tool_call_id != f.tool_call_id || m.extra != f.extra || m.timestamp != f.timestamp {
        return false;
    }
    let kept: Vec<&Item> = f
        .items
        .iter()
        .filter(|i| !matches!(i, Item::Reasoning { .. }))
        .collect();
    kept.len() == m.items.len()
        && kept.iter().zip(&m.items).all(|(orig, now)| {
            *orig == now
                || match (orig, now) {
                    (
                        Item::ToolResult {
                            content: oc,
                            original_size: os,
                            extra: oe,
                        },
                        Item::ToolResult {
                            content: nc, extra: ne, ..
                        },
                    ) => {
                        let size = os.unwrap_or_else(|| content_size(oc));
                        oe == ne && *nc == Value::String(placeholder(oc, size))
                    }
                    _ => false,
                }
        })
}

/// Restores tier-1 changes of `compacted` from `full`: whole messages where the full record
/// has the same message (by id) that tier 1 derived it from, else each placeholder from the
/// tool result with the same tool call id (the one whose placeholder it is, if several).
pub fn decompress(compacted: &mut Session, full: &[MessageV3]) -> Restored {
    // All messages of an id: a session can repeat one, and only the one tier 1 derived from counts.
    let mut by_id: rustc_hash::FxHashMap<u64, Vec<&MessageV3>> = rustc_hash::FxHashMap::default();
    let mut by_call: rustc_hash::FxHashMap<&str, Vec<(&Value, Option<u64>)>> = rustc_hash::FxHashMap::default();
    for f in full {
        if let Some(id) = f.id {
            by_id.entry(id).or_default().push(f);
        }
        if let Some(call) = f.tool_call_id.as_deref() {
            for it in &f.items {
                if let Item::ToolResult {
                    content, original_size, ..
                } = it
                    && !is_placeholder(content)
                {
                    by_call.entry(call).or_default().push((content, *original_size));
                }
            }
        }
    }
    let mut out = Restored::default();
    let Some((messages, extra)) = parts(compacted) else {
        return out;
    };
    for m in messages.iter_mut() {
        let has_placeholder = m
            .items
            .iter()
            .any(|i| matches!(i, Item::ToolResult { content, .. } if is_placeholder(content)));
        if let Some(f) =
            m.id.and_then(|id| by_id.get(&id))
                .and_then(|fs| fs.iter().find(|f| **f != m && derives(m, f)))
        {
            out.reasoning += f.items.iter().filter(|i| matches!(i, Item::Reasoning { .. })).count();
            out.placeholders += m
                .items
                .iter()
                .filter(|i| matches!(i, Item::ToolResult { content, .. } if is_placeholder(content)))
                .count();
            out.messages += 1;
            *m = (*f).clone();
            continue;
        }
        if !has_placeholder {
            continue;
        }
        let call = m.tool_call_id.clone();
        let mut touched = false;
        for it in &mut m.items {
            let Item::ToolResult {
                content, original_size, ..
            } = it
            else {
                continue;
            };
            if !is_placeholder(content) {
                continue;
            }
            let candidates = call.as_deref().and_then(|c| by_call.get(c));
            let pick = candidates.and_then(|cs| {
                cs.iter()
                    .find(|(c, sz)| Value::String(placeholder(c, sz.unwrap_or_else(|| content_size(c)))) == *content)
                    .or_else(|| cs.first())
            });
            match pick {
                Some((c, sz)) => {
                    // As the full record has it: tier 1 only set the size for its placeholder.
                    *content = (*c).clone();
                    *original_size = *sz;
                    out.placeholders += 1;
                    touched = true;
                }
                None => out.unrestored.push(Unrestored {
                    message_id: m.id,
                    tool_call_id: call.clone(),
                }),
            }
        }
        out.messages += usize::from(touched);
    }
    // A tier-1 entry describes placeholders; once none is left it no longer holds.
    if out.unrestored.is_empty()
        && let Some(Value::Array(log)) = extra.get_mut("compactions")
    {
        log.retain(|e| e.get("tier").and_then(Value::as_u64) != Some(1));
        if log.is_empty() {
            extra.shift_remove("compactions");
        }
    }
    out
}
