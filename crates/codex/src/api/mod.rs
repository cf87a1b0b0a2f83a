//! The `input` Codex 0.171 sends after resuming a rollout: the send-time rules applied to the
//! history that [`super::history`] rebuilds.
//!
//! Codex does not send its history as written. It reads every item into its own types and
//! writes them out again (X2); it cuts the tool outputs it records after the base of the
//! history to the model's budget (X3–X5); when it resumes it checks the images and audio of
//! every item (X6, X7, X11); and each request closes tool calls that have no output and drops
//! outputs that have no call (X8, X9). `docs/codex-request.md` states each rule with the
//! evidence and the fixture of `fixtures/codex/api/` that shows it; [`RULES`] is the table for
//! Codex 0.171, in report order.
//!
//! Left out, as the comparison with the real client leaves them out: the base instructions and
//! tool list Codex puts first, the context messages it adds before a new prompt (permissions,
//! skills, environment, AGENTS.md; they describe the machine, the date and the configuration,
//! not the session), and the `internal_chat_message_metadata_passthrough` of each item.

use std::collections::{BTreeMap, HashSet};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::history::History;
use crate::io::Source;
use crate::items::{self as w, CallKind, Detail, OutPart, Output, Part, Wire};
use crate::rollout::{Era, ItemSrc, Record, Rollout};

mod calls;
mod media;
mod model;
mod truncate;

use calls::*;
use media::*;
pub use model::*;
pub use truncate::*;

/// The client version whose behaviour this module reproduces.
pub const CLIENT: &str = "0.171";

/// The send-time rules of Codex 0.171, in report order, with what each does.
pub const RULES: &[(&str, &str)] = &[
    ("X1", "items Codex cannot read into its types skipped with their line"),
    (
        "X2",
        "items sent in Codex's own form: unknown fields left out, absent optional fields sent as null, ids that are not prefix_suffix dropped, compaction_summary sent as compaction, unknown kinds sent as {\"type\":\"other\"}",
    ),
    (
        "X3",
        "tool outputs recorded after the history's base cut to the model's budget, head and tail around Codex's marker",
    ),
    (
        "X4",
        "text parts of list tool outputs past the budget omitted ([omitted N text items ...])",
    ),
    ("X5", "empty text parts of list tool outputs dropped"),
    (
        "X6",
        "images checked: remote URLs, detail low and unreadable data replaced by a note, data URLs written with the image's own type, detail original sent as high to models that cannot take it",
    ),
    ("X7", "audio replaced by a note (no model takes audio)"),
    (
        "X8",
        "tool calls without an output closed by an \"aborted\" output right after the call",
    ),
    ("X9", "tool outputs without their call removed"),
    (
        "X10",
        "messages from other agents (inter_agent_communication) sent as agent_message",
    ),
    (
        "X11",
        "images the client resizes or converts kept as written (cctool does not re-encode images)",
    ),
    ("X12", "image detail left out for models served through Responses Lite"),
];

/// Rules with counts, in report order, with what each does.
pub fn rules_of(fired: &BTreeMap<&'static str, usize>) -> Vec<serde_json::Value> {
    RULES
        .iter()
        .filter_map(|(id, what)| {
            fired
                .get(id)
                .map(|n| serde_json::json!({"rule": id, "count": n, "what": what}))
        })
        .collect()
}

// ---- the view ------------------------------------------------------------------------------

/// The emulated request input.
#[derive(Debug)]
pub struct CodexView {
    /// Each item as the JSON text Codex sends, the prompt last when one was given.
    pub items: Vec<String>,
    /// How often each rule changed something.
    pub fired: BTreeMap<&'static str, usize>,
    /// The model the request is for, and what it takes.
    pub model: ModelInfo,
    /// Lines of items kept as written although the client would change them (X11).
    pub not_reproduced: Vec<u64>,
    /// History items Codex cannot read, with why (X1): their lines are skipped.
    pub unreadable: Vec<(Option<u64>, String)>,
}

impl CodexView {
    /// ceil(bytes / 4) of the `input` JSON array these items make.
    pub fn tokens(&self) -> usize {
        let body: usize = self.items.iter().map(String::len).sum();
        crate::model::approx_tokens(body + 2 + self.items.len().saturating_sub(1))
    }

    /// The rules that fired, with counts, in report order (see [`rules_of`]).
    pub fn rules(&self) -> Vec<serde_json::Value> {
        rules_of(&self.fired)
    }
}

/// Why Codex 0.171 cannot resume a file at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether Codex 0.171 can resume this rollout at all.
pub fn refusal(rollout: &Rollout) -> Option<Refusal> {
    if matches!(rollout.era, Era::Bare | Era::Document) {
        return Some(Refusal(
            "Codex 0.171 cannot resume this file: it is written in a 2025 format that current Codex no longer reads (it reports the rollout as empty)".into(),
        ));
    }
    let meta = rollout.records.iter().find_map(|(_, r)| match r {
        Record::SessionMeta { id, .. } => Some(id.is_some()),
        _ => None,
    });
    if meta != Some(true) {
        return Some(Refusal(
            "Codex 0.171 cannot resume this file: it has no session_meta with a thread id".into(),
        ));
    }
    rollout
        .unresumable
        .as_ref()
        .map(|why| Refusal(format!("Codex 0.171 cannot resume this file: {why}")))
}

/// The model a resume of this rollout runs with when nothing else is said: the last
/// `turn_context` model.
pub fn rollout_model(rollout: &Rollout) -> Option<String> {
    rollout.records.iter().rev().find_map(|(_, r)| match r {
        Record::TurnContext { model: Some(m), .. } => Some(m.clone()),
        _ => None,
    })
}

/// The `input` items Codex 0.171 sends after resuming `rollout`, whose history is `history`,
/// then `prompt` as the new user message.
pub fn api_view(
    rollout: &Rollout,
    history: &History,
    src: &Source,
    model: Option<&str>,
    prompt: Option<&str>,
) -> std::io::Result<Result<CodexView, Refusal>> {
    if let Some(r) = refusal(rollout) {
        return Ok(Err(r));
    }
    let model = ModelInfo::for_slug(model.map(str::to_string).or_else(|| rollout_model(rollout)).as_deref());
    let mut fired = BTreeMap::new();
    // User messages Codex cannot read were left out when the file was read; those after the
    // history's base would otherwise be in it.
    let skipped_early = rollout
        .unreadable_lines
        .iter()
        .filter(|&&l| history.base_line.is_none_or(|b| l > b))
        .count();
    if skipped_early > 0 {
        fired.insert("X1", skipped_early);
    }
    let mut unreadable = Vec::new();
    let mut items: Vec<Wire> = Vec::with_capacity(history.items.len());
    let mut lines: Vec<Option<u64>> = Vec::with_capacity(history.items.len());
    let mut released = src.releaser();
    for item in &history.items {
        let (raw, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => {
                let bytes = src.read_range(*offset, *len as usize)?.into_owned();
                released.touch(*offset, u64::from(*len));
                (String::from_utf8_lossy(&bytes).into_owned(), Some(*line))
            }
            ItemSrc::Synth(s) => (s.to_string(), None),
        };
        let parsed = if item.inter_agent {
            w::parse_inter_agent(&raw)
        } else {
            w::parse_item_within(&raw, MAX_ITEM_VALUES).ok_or_else(|| too_large(line))?
        };
        let mut wire = match parsed {
            Ok(w) => w,
            Err(why) => {
                bump(&mut fired, "X1");
                unreadable.push((line, why.to_string()));
                continue;
            }
        };
        if item.inter_agent {
            bump(&mut fired, "X10");
        } else if rewritten(&raw, &wire, MAX_ITEM_VALUES) {
            bump(&mut fired, "X2");
        }
        if item.recorded {
            record(&mut wire, model.budget, &mut fired);
        }
        items.push(wire);
        lines.push(line);
    }
    let mut not_reproduced = Vec::new();
    for (wire, line) in items.iter_mut().zip(&lines) {
        let f = prepare_media(wire, &model);
        if f.images {
            bump(&mut fired, "X6");
        }
        if f.audio {
            bump(&mut fired, "X7");
        }
        if f.not_reproduced > 0 {
            *fired.entry("X11").or_default() += f.not_reproduced;
            not_reproduced.extend(*line);
        }
    }
    let closed = close_calls(&mut items);
    if closed > 0 {
        fired.insert("X8", closed);
    }
    let dropped = drop_orphans(&mut items);
    if dropped > 0 {
        fired.insert("X9", dropped);
    }
    if model.responses_lite {
        let stripped = items.iter_mut().map(strip_image_details).filter(|&s| s).count();
        if stripped > 0 {
            fired.insert("X12", stripped);
        }
    }
    let mut out: Vec<String> = items.iter().map(Wire::to_json).collect();
    if let Some(p) = prompt {
        out.push(crate::rollout::user_message(p).to_string());
    }
    Ok(Ok(CodexView {
        items: out,
        fired,
        model,
        not_reproduced,
        unreadable,
    }))
}

/// The most values (see [`crate::io::json::Counted`]) the view builds of one item: what Codex
/// sends is held in its types, each value several times its bytes in the file, so an item
/// past it is refused rather than held at any cost. Real items hold tens of values, a list
/// of tools some thousands; this is the element cap of the other readers
/// ([`crate::io::json::KEEP_ELEMENTS`]), here over the whole item.
pub const MAX_ITEM_VALUES: usize = crate::io::json::KEEP_ELEMENTS;

/// The error of a view that would hold an item of more than [`MAX_ITEM_VALUES`] values.
fn too_large(line: Option<u64>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, TooLargeItem { line })
}

/// A request view refused for an item of more than [`MAX_ITEM_VALUES`] values: the exact
/// request cannot be printed in bounded memory, and no other would be the request.
#[derive(Debug)]
pub struct TooLargeItem {
    /// The line of the item (`None` for one cctool made).
    pub line: Option<u64>,
}

impl std::fmt::Display for TooLargeItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(
            f,
            "a history item of more than {MAX_ITEM_VALUES} values (array elements and members) that Codex sends, more than cctool holds for a request view (real items hold tens)"
        )
    }
}

impl std::error::Error for TooLargeItem {}

/// Whether Codex sends `raw` other than as written, its passthrough metadata aside.
///
/// Member by member, never the whole record as a tree: a member Codex drops (an unknown field,
/// which may hold millions of elements) decides it unread, and a member Codex sends costs no
/// more than the item it becomes. Equal to comparing `raw` as a `Value` with the item sent.
/// `wire` was read within `cap` values: a member of more holds values Codex dropped, so it
/// differs unread past the cap.
fn rewritten(raw: &str, wire: &Wire, cap: usize) -> bool {
    use serde_json::value::RawValue;
    let Ok(MemberOf(written)) = serde_json::from_str::<MemberOf<'_>>(raw) else {
        return true;
    };
    let Ok(serde_json::Value::Object(sent)) = serde_json::to_value(wire) else {
        return true;
    };
    // A repeated key counts once, with its last value, as in a `Value`.
    let mut members: rustc_hash::FxHashMap<&str, &RawValue> = rustc_hash::FxHashMap::default();
    for (k, v) in &written {
        if k != "internal_chat_message_metadata_passthrough" {
            members.insert(k, v);
        }
    }
    if members.len() != sent.len() || members.iter().any(|(k, _)| !sent.contains_key(*k)) {
        return true;
    }
    members
        .iter()
        .any(|(k, v)| value_within(v.get(), cap).is_none_or(|w| sent.get(*k) != Some(&w)))
}

/// `text` as a JSON value of at most `cap` values; `None` when it is not JSON or holds more.
fn value_within(text: &str, cap: usize) -> Option<serde_json::Value> {
    use serde::Deserialize;
    let budget = crate::io::json::Budget::new(cap);
    let mut d = serde_json::Deserializer::from_str(text);
    let v = serde_json::Value::deserialize(crate::io::json::Counted::new(&mut d, &budget)).ok()?;
    d.end().ok().map(|()| v)
}

/// A JSON object's members as written, each value unparsed.
struct MemberOf<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for MemberOf<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MemberOf<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    out.push((k, map.next_value()?));
                }
                Ok(MemberOf(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests;
