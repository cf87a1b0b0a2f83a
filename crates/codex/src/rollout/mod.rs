//! Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), every era.
//!
//! Eras (`docs/codex.md#eras`): the 2025 TypeScript CLI wrote one JSON document
//! `{"session":…,"items":[…]}`; the early Rust CLI wrote a bare header line and bare
//! ResponseItems (with `{"record_type":"state"}` lines from July 2025); since 2025-09-09 every
//! line is an envelope `{"timestamp","type","payload"}` (plus `ordinal` in paginated threads).
//! [`read_records`] turns all of them into one list of [`Record`]s in file order. History
//! items are kept as byte ranges of the file, so output can reproduce them exactly and
//! memory stays proportional to the number of items, not their size.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::items;
use crate::io::json::{self, LNum, LStr};
use crate::io::{Line, Source};
use crate::model::diag::{Code, Diagnostic, Severity};

mod item;
mod read;
pub mod tail;

pub use item::{Item, ItemSrc};
pub use read::*;

/// The fixed first line of a local compaction summary (Codex ≥ 2025-11-14).
pub const SUMMARY_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:";

/// Text starts of user messages that Codex injects as context rather than as a prompt.
const CONTEXTUAL_MARKERS: &[&str] = &[
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<user_instructions>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<codex_internal_context",
    "<goal_context>",
    "<external_",
    "<hook_prompt",
];

/// Rollout-line `type`s of the envelope era.
pub fn is_rollout_type(ty: &str) -> bool {
    matches!(
        ty,
        "session_meta"
            | "response_item"
            | "event_msg"
            | "compacted"
            | "turn_context"
            | "inter_agent_communication"
            | "inter_agent_communication_metadata"
            | "world_state"
    )
}

/// ResponseItem `type`s (payloads of `response_item`, items of `replacement_history`).
pub fn is_response_item_type(ty: &str) -> bool {
    is_api_item_type(ty)
        || matches!(
            ty,
            "ghost_snapshot" | "compaction_trigger" | "mcp_tool_call" | "mcp_tool_call_output"
        )
}

/// Items Codex 0.171 records and sends (`is_api_message`); everything else reads as `Other` and
/// is dropped from a `response_item` line.
fn is_api_item_type(ty: &str) -> bool {
    matches!(
        ty,
        "message"
            | "agent_message"
            | "reasoning"
            | "local_shell_call"
            | "function_call"
            | "function_call_output"
            | "custom_tool_call"
            | "custom_tool_call_output"
            | "tool_search_call"
            | "tool_search_output"
            | "web_search_call"
            | "image_generation_call"
            | "compaction"
            | "compaction_summary"
            | "context_compaction"
            | "additional_tools"
    )
}

/// Turn-lifecycle and history events of `event_msg` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `task_started` or `turn_started`, with its turn id if given.
    TaskStarted(Option<String>),
    /// `task_complete` or `turn_complete`, with its turn id if given.
    TaskComplete(Option<String>),
    /// `turn_aborted`, with its turn id if given.
    TurnAborted(Option<String>),
    /// `user_message`.
    UserMessage,
    /// `thread_rolled_back`: how many turns it drops.
    RolledBack(u64),
    /// Any other event.
    Other,
}

/// One rollout record, in file order.
#[derive(Clone, Debug)]
pub enum Record {
    /// `session_meta`: the header.
    SessionMeta {
        /// The session id.
        id: Option<String>,
        /// The version of the Codex that wrote the file.
        cli_version: Option<String>,
    },
    /// A `response_item`: one history item.
    Response(Item),
    /// A `compacted` line: a compaction (boxed: a record of each line is held, and few are
    /// compactions).
    Compacted(Box<Compacted>),
    /// `turn_context`: the settings a turn ran with.
    TurnContext {
        /// The turn's id.
        turn_id: Option<String>,
        /// The model the turn asked.
        model: Option<String>,
    },
    /// An `event_msg` that reconstruction reads.
    Event(Event),
    /// Inter-agent input (paginated era): replayed as a model-visible item.
    InterAgent(Item),
    /// Any other line.
    Other,
}

/// A `compacted` line.
#[derive(Clone, Debug)]
pub struct Compacted {
    /// The line it is on.
    pub line: u64,
    /// The payload's byte range in the file (window fields, item bodies are read from it).
    pub offset: u64,
    /// Length in bytes of that range.
    pub len: u64,
    /// `message`: the summary of a local compaction.
    pub message: String,
    /// `replacement_history`: the history that replaces everything before, when written.
    pub replacement_history: Option<Vec<Item>>,
    /// The line's `timestamp`, as written.
    pub timestamp: Option<String>,
    /// An item of the replacement history cannot be read into Codex's types, so Codex skips
    /// the whole line: it is listed, never resumed from.
    pub skipped_by_codex: bool,
}

/// All records of a rollout, with the era it was written in.
#[derive(Debug, Default)]
pub struct Rollout {
    /// The file's name, for messages.
    pub file: String,
    /// Each record with its line number.
    pub records: Vec<(u64, Record)>,
    /// The layout the file was written in.
    pub era: Era,
    /// What reading found wrong with the file.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines that could not be read as JSON.
    pub bad_lines: u64,
    /// `ghost_snapshot` items, which are never sent.
    pub ghost_snapshots: u64,
    /// Items of a `type` never sent to the model (besides messages and compaction triggers).
    pub unknown_items: u64,
    /// Earliest and latest line timestamps, in milliseconds.
    pub time_span: Option<(i64, i64)>,
    /// Physical lines.
    pub lines: u64,
    /// Why Codex 0.171 refuses to resume this file, when it does (besides the 2025 eras).
    pub unresumable: Option<String>,
    /// A `session_meta` line was read (the first one is the one Codex checks).
    meta_seen: bool,
    /// Lines of `response_item` user messages Codex cannot read into its types, so skips
    /// (other items are checked when a request is built).
    pub unreadable_lines: Vec<u64>,
    /// The prompts' texts read, each held once however many items repeat it.
    texts: rustc_hash::FxHashSet<std::sync::Arc<str>>,
}

/// The layout a rollout was written in, by Codex's age.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Era {
    /// `{"timestamp","type","payload"}` lines (2025-09-09 on).
    #[default]
    Envelope,
    /// Bare header and bare ResponseItems (2025-05 to 2025-09); real Codex no longer reads them.
    Bare,
    /// One JSON document from the 2025 TypeScript CLI.
    Document,
}

#[derive(Deserialize)]
struct EnvelopeLine<'a> {
    #[serde(borrow, default)]
    timestamp: LStr<'a>,
    #[serde(borrow, default, rename = "type")]
    ty: LStr<'a>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(default)]
    record_type: Option<IgnoredAny>,
    #[serde(default)]
    id: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ItemHead<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: LStr<'a>,
    #[serde(borrow, default)]
    role: LStr<'a>,
}

#[derive(Deserialize)]
struct EventBody<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: LStr<'a>,
    #[serde(borrow, default)]
    turn_id: LStr<'a>,
    #[serde(default)]
    num_turns: LNum,
}

#[derive(Deserialize)]
struct CompactedBody<'a> {
    #[serde(borrow, default)]
    message: LStr<'a>,
    #[serde(borrow, default)]
    replacement_history: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct MetaBody<'a> {
    #[serde(borrow, default)]
    id: LStr<'a>,
    #[serde(borrow, default)]
    cli_version: LStr<'a>,
    #[serde(borrow, default)]
    history_mode: LStr<'a>,
}

#[derive(Deserialize)]
struct TurnContextBody<'a> {
    #[serde(borrow, default)]
    turn_id: LStr<'a>,
    #[serde(borrow, default)]
    model: LStr<'a>,
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow)]
    items: Vec<&'a RawValue>,
    #[serde(default)]
    session: serde_json::Value,
}

/// The summary in a text Codex wrote as `SUMMARY_PREFIX`, a newline and the summary (the test
/// of Codex's `is_summary_message`); None for any other text.
pub fn summary_body(text: &str) -> Option<&str> {
    text.strip_prefix(SUMMARY_PREFIX)?.strip_prefix('\n')
}

/// A `user` message item holding `text`, as Codex writes those it makes itself (kept user
/// messages and summaries of a compaction).
pub fn user_message(text: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
    })
}

pub use crate::model::rows::message_texts;

/// `type` and `role` of an item whose JSON is already known to be valid (it was read as a
/// raw value): the parse stops once they are known, instead of scanning a large tool output
/// to its end a second time. A key seen twice before that fails, as the derived reader does.
fn item_head(raw: &str) -> Option<ItemHead<'_>> {
    if !raw.trim_start().starts_with('{') {
        return serde_json::from_str(raw).ok();
    }
    struct V<'h, 'a>(&'h mut Option<LStr<'a>>, &'h mut Option<LStr<'a>>, &'h mut bool);
    impl<'de> serde::de::Visitor<'de> for V<'_, 'de> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a response item")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while let Some(k) = a.next_key::<json::Key<'de>>()? {
                let slot = match k.as_ref() {
                    "type" => &mut *self.0,
                    "role" => &mut *self.1,
                    _ => {
                        a.next_value::<IgnoredAny>()?;
                        continue;
                    }
                };
                if slot.is_some() {
                    return Err(serde::de::Error::custom("duplicate field"));
                }
                *slot = Some(a.next_value::<LStr<'de>>()?);
                // Only a message's role is read.
                let done = match self.0 {
                    Some(LStr::Str(t)) if t == "message" => self.1.is_some(),
                    Some(_) => true,
                    None => false,
                };
                if done {
                    *self.2 = true;
                    return Err(serde::de::Error::custom("head read"));
                }
            }
            Ok(())
        }
    }
    let (mut ty, mut role, mut stopped) = (None, None, false);
    let mut de = serde_json::Deserializer::from_str(raw);
    let read = serde::Deserializer::deserialize_map(&mut de, V(&mut ty, &mut role, &mut stopped));
    if read.is_err() && !stopped {
        return None;
    }
    Some(ItemHead {
        ty: ty.unwrap_or_default(),
        role: role.unwrap_or_default(),
    })
}

/// Classifies one ResponseItem given as raw JSON at `offset` of the file; `raw` is valid JSON
/// (see `item_head`). `None` for an item that Codex cannot read and that matters to the
/// reconstruction: a user message (it opens a turn), or with `strict` any item (a
/// `replacement_history` item, whose failure makes Codex skip the whole `compacted` line).
/// Other items are checked when their request is built (`--api-view`): reading every tool
/// output into Codex's types here would double the cost of reading a rollout.
pub fn classify_item(raw: &str, offset: u64, line: u64, strict: bool) -> Option<Item> {
    let wire = if strict {
        Some(items::parse_item(raw).ok()?)
    } else {
        None
    };
    let head;
    let value;
    let (ty, role): (&str, Option<&str>) = match item_head(raw) {
        Some(h) => {
            head = h;
            (head.ty.as_str()?, head.role.as_str())
        }
        // A key written twice: Codex takes its last value, as a JSON value does.
        None => {
            value = serde_json::from_str::<serde_json::Value>(raw).ok()?;
            let field = |k: &str| value.get(k).and_then(|x| x.as_str());
            (field("type")?, field("role"))
        }
    };
    let src = ItemSrc::Raw {
        offset,
        len: u32::try_from(raw.len()).ok()?,
        line,
    };
    let mut item = Item::new(src, ty, role);
    item.api = is_api_item_type(ty);
    item.user_turn = ty == "agent_message";
    item.remote_compaction = matches!(ty, "compaction" | "compaction_summary" | "context_compaction");
    if ty != "message" {
        return Some(item);
    }
    match role {
        Some("system") => item.api = false,
        Some("developer") => item.context = true,
        Some("user") => {
            let wire = match wire {
                Some(w) => w,
                None => items::parse_item(raw).ok()?,
            };
            let items::Wire::Message { content, .. } = &wire else {
                return None;
            };
            let texts: Vec<&str> = content.iter().filter_map(items::Part::text).collect();
            let contextual = texts.iter().any(|t| {
                let t = t.trim_start();
                CONTEXTUAL_MARKERS.iter().any(|m| t.starts_with(m))
            });
            if contextual {
                item.context = true;
            } else {
                item.user_turn = true;
                let text: String = texts.concat();
                if summary_body(&text).is_some() {
                    item.summary = true;
                } else {
                    item.set_user_text(text.into());
                }
            }
        }
        _ => {}
    }
    Some(item)
}

/// An `inter_agent_communication` payload: a user turn, recorded as an `agent_message`.
/// `None` when Codex cannot read it (a bad agent path, a missing field).
fn inter_agent_item(raw: &str, offset: u64, line: u64) -> Option<Item> {
    items::parse_inter_agent(raw).ok()?;
    let src = ItemSrc::Raw {
        offset,
        len: u32::try_from(raw.len()).ok()?,
        line,
    };
    let mut item = Item::new(src, "agent_message", None);
    item.api = true;
    item.user_turn = true;
    item.inter_agent = true;
    Some(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_head_reads_type_and_a_messages_role_in_any_order() {
        let head =
            |raw: &str| item_head(raw).map(|h| (h.ty.as_str().map(String::from), h.role.as_str().map(String::from)));
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            head(r#"{"type":"function_call_output","call_id":"c","output":"x"}"#),
            Some((s("function_call_output"), None))
        );
        assert_eq!(
            head(r#"{"content":[],"role":"user","type":"message"}"#),
            Some((s("message"), s("user")))
        );
        assert_eq!(
            head(r#"{"type":"message","id":"m","role":"assistant"}"#),
            Some((s("message"), s("assistant")))
        );
        // As the derived reader: a repeated key fails, a missing one is empty.
        assert_eq!(head(r#"{"type":"message","type":"reasoning"}"#), None);
        assert_eq!(head(r#"{"role":"user"}"#), Some((None, s("user"))));
        assert_eq!(head(r#"["message","user"]"#), Some((s("message"), s("user"))));
    }
}
