//! Claude Code transcript lines (`~/.claude/projects/<slug>/<session>.jsonl`).
//!
//! [`Envelope`] reads only what loading a conversation needs — type, links, timestamps,
//! flags, `message.id`/`model`/`role` and which kinds of content blocks a message has —
//! and skips everything else (tool results, file snapshots, images) without allocating.
//! Key order is never assumed, a field of an unexpected type is treated as absent rather
//! than failing the line, and a repeated key takes its last value, as `JSON.parse` does.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::io::json::{BorrowedParse, LBool, LNum, LStr};

/// The parts of one transcript line the loader needs.
#[derive(Debug, Default)]
pub struct Envelope<'a> {
    /// `type`: the record kind (`user`, `assistant`, `system`, `attachment`, `summary`…).
    pub ty: LStr<'a>,
    /// `subtype` of a system record (`compact_boundary`, `local_command`…).
    pub subtype: LStr<'a>,
    /// `uuid`: the message's own id.
    pub uuid: LStr<'a>,
    /// `parentUuid`: the message it follows; null at a conversation's root.
    pub parent_uuid: LStr<'a>,
    /// `logicalParentUuid`: the message a compact boundary stands in for.
    pub logical_parent_uuid: LStr<'a>,
    /// `isSidechain`: true in a subagent's messages.
    pub is_sidechain: LBool,
    /// `timestamp`, as written (ISO 8601).
    pub timestamp: LStr<'a>,
    /// `sessionId` of the session that wrote the line.
    pub session_id: LStr<'a>,
    /// `version` of the client that wrote the line.
    pub version: LStr<'a>,
    /// `agentId` of the subagent that wrote the line, if any.
    pub agent_id: LStr<'a>,
    /// `isMeta`: a message the client adds that the user did not type.
    pub is_meta: LBool,
    /// `isCompactSummary`: the user message holding a compaction's summary.
    pub is_compact_summary: LBool,
    /// `isApiErrorMessage`: a synthetic assistant message reporting an API error.
    pub is_api_error_message: LBool,
    /// `leafUuid` of a `summary` line: the message its title belongs to.
    pub leaf_uuid: LStr<'a>,
    /// `message` of a user or assistant line.
    pub message: Message<'a>,
    /// `compactMetadata` of a compact boundary.
    pub compact: Option<CompactMetadata<'a>>,
    /// `snipMetadata.removedUuids` of a snip boundary: the messages it removes.
    pub snip_removed: Vec<Cow<'a, str>>,
}

/// `message` of a user or assistant line.
#[derive(Debug, Default)]
pub struct Message<'a> {
    /// `message.id`: the API response id, shared by the rows of one reply.
    pub id: LStr<'a>,
    /// `message.model` of an assistant message.
    pub model: LStr<'a>,
    /// `message.role`.
    pub role: LStr<'a>,
    /// Which kinds of blocks `message.content` holds.
    pub content: ContentShape,
}

/// What kinds of blocks a message's content holds, without the blocks themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContentShape {
    /// The content is a plain string, not a block array.
    pub is_string: bool,
    /// How many blocks the array holds.
    pub blocks: u32,
    /// It holds a `tool_result` block.
    pub tool_result: bool,
    /// It holds a `tool_use` block.
    pub tool_use: bool,
    /// It holds a `server_tool_use` block (a tool the API runs, web search for one).
    pub server_tool_use: bool,
    /// It holds a `text` block.
    pub text: bool,
    /// It holds a `thinking` or `redacted_thinking` block.
    pub thinking: bool,
}

/// `compactMetadata` of a `compact_boundary`.
#[derive(Debug, Default)]
pub struct CompactMetadata<'a> {
    /// `trigger`: `manual` or `auto`.
    pub trigger: LStr<'a>,
    /// `preTokens`: the context size the compaction started from.
    pub pre_tokens: LNum,
    /// `preservedSegment` of a partial compaction.
    pub preserved_segment: Option<PreservedSegment<'a>>,
}

/// `compactMetadata.preservedSegment`: the kept messages of a partial compaction.
#[derive(Debug, Default, Clone)]
pub struct PreservedSegment<'a> {
    /// `headUuid`: the first kept message.
    pub head: LStr<'a>,
    /// `anchorUuid`: the message the kept messages hang from.
    pub anchor: LStr<'a>,
    /// `tailUuid`: the last kept message.
    pub tail: LStr<'a>,
}

impl BorrowedParse for Envelope<'_> {
    type Out<'x> = Envelope<'x>;
}

/// Line types that take part in the conversation chain.
pub fn is_transcript_type(ty: &str) -> bool {
    matches!(ty, "user" | "assistant" | "attachment" | "system")
}

/// Every top-level `type` a Claude Code transcript is known to contain: the transcript types,
/// and the metadata records Claude Code 2.1.332 reads and writes beside them (its loader's
/// table of record kinds, `docs/claude-code-request.md#record-types`), with older ones.
pub fn is_known_type(ty: &str) -> bool {
    is_transcript_type(ty)
        || matches!(
            ty,
            "progress"
                | "summary"
                | "custom-title"
                | "ai-title"
                | "last-prompt"
                | "task-summary"
                | "tag"
                | "agent-name"
                | "agent-color"
                | "agent-setting"
                | "mode"
                | "permission-mode"
                | "worktree-state"
                | "pr-link"
                | "file-history-snapshot"
                | "attribution-snapshot"
                | "queue-operation"
                | "speculation-accept"
                | "content-replacement"
                | "marble-origami-commit"
                | "marble-origami-snapshot"
                | "continued-in"
                | "file-history-delta"
                | "resume-head-vouch"
                | "data-flow-records"
                | "data-flow-incomplete"
                | "derived-from"
                | "api-request"
                | "api-request-shape"
                | "api-request-blob"
                | "api-request-resumed"
                | "fork-context-ref"
                | "frame-link"
                | "ended-by-model"
                | "relocated"
                | "artifact-comment-monitor"
                | "artifact-autoreact-ledger"
                | "bridge-session"
                | "history-suppression"
                | "isolation-latch"
                | "session-owner"
                | "dev-mods"
                | "memory-mode"
                | "atis-latch"
                | "tools-used"
                | "cost-state"
                | "observer-ref"
                | "host-row"
                | "repl-mode"
                | "hybrid-organization"
        )
}

macro_rules! lenient_map_visitor {
    ($name:ident, $target:ident, $expect:literal, |$map:ident, $out:ident, $key:ident| $body:block) => {
        struct $name<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for $name<'a> {
            type Value = Option<$target<'a>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($expect)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut $map: A) -> Result<Self::Value, A::Error> {
                let mut $out = $target::default();
                while let Some($key) = $map.next_key::<crate::io::json::Key<'de>>()? {
                    $body
                }
                Ok(Some($out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(None)
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
    };
}

lenient_map_visitor!(EnvelopeVisitor, Envelope, "a transcript record", |map, out, key| {
    match key.as_ref() {
        "type" => out.ty = map.next_value()?,
        "subtype" => out.subtype = map.next_value()?,
        "uuid" => out.uuid = map.next_value()?,
        "parentUuid" => out.parent_uuid = map.next_value()?,
        "logicalParentUuid" => out.logical_parent_uuid = map.next_value()?,
        "isSidechain" => out.is_sidechain = map.next_value()?,
        "timestamp" => out.timestamp = map.next_value()?,
        "sessionId" => out.session_id = map.next_value()?,
        "version" => out.version = map.next_value()?,
        "agentId" => out.agent_id = map.next_value()?,
        "isMeta" => out.is_meta = map.next_value()?,
        "isCompactSummary" => out.is_compact_summary = map.next_value()?,
        "isApiErrorMessage" => out.is_api_error_message = map.next_value()?,
        "leafUuid" => out.leaf_uuid = map.next_value()?,
        "message" => out.message = map.next_value::<Lenient<Message<'a>>>()?.0.unwrap_or_default(),
        "compactMetadata" => out.compact = map.next_value::<Lenient<CompactMetadata<'a>>>()?.0,
        "snipMetadata" => {
            out.snip_removed = map
                .next_value::<Lenient<SnipMetadata<'a>>>()?
                .0
                .map(|s| s.removed)
                .unwrap_or_default()
        }
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

lenient_map_visitor!(MessageVisitor, Message, "a message", |map, out, key| {
    match key.as_ref() {
        "id" => out.id = map.next_value()?,
        "model" => out.model = map.next_value()?,
        "role" => out.role = map.next_value()?,
        "content" => out.content = map.next_value()?,
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

lenient_map_visitor!(CompactVisitor, CompactMetadata, "compact metadata", |map, out, key| {
    match key.as_ref() {
        "trigger" => out.trigger = map.next_value()?,
        "preTokens" => out.pre_tokens = map.next_value()?,
        "preservedSegment" => out.preserved_segment = map.next_value::<Lenient<PreservedSegment<'a>>>()?.0,
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

lenient_map_visitor!(
    SegmentVisitor,
    PreservedSegment,
    "a preserved segment",
    |map, out, key| {
        match key.as_ref() {
            "headUuid" => out.head = map.next_value()?,
            "anchorUuid" => out.anchor = map.next_value()?,
            "tailUuid" => out.tail = map.next_value()?,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
);

#[derive(Default)]
struct SnipMetadata<'a> {
    removed: Vec<Cow<'a, str>>,
}

lenient_map_visitor!(SnipVisitor, SnipMetadata, "snip metadata", |map, out, key| {
    match key.as_ref() {
        "removedUuids" => {
            out.removed = map
                .next_value::<Lenient<StrList<'a>>>()?
                .0
                .map(|l| l.0)
                .unwrap_or_default()
        }
        _ => {
            map.next_value::<IgnoredAny>()?;
        }
    }
});

/// Wraps a lenient visitor's `Option` so it can be used with `next_value`.
struct Lenient<T>(Option<T>);

macro_rules! lenient_deserialize {
    ($target:ident, $visitor:ident) => {
        impl<'de: 'a, 'a> Deserialize<'de> for Lenient<$target<'a>> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any($visitor(std::marker::PhantomData)).map(Lenient)
            }
        }
    };
}

lenient_deserialize!(Message, MessageVisitor);
lenient_deserialize!(CompactMetadata, CompactVisitor);
lenient_deserialize!(PreservedSegment, SegmentVisitor);
lenient_deserialize!(SnipMetadata, SnipVisitor);

impl<'de: 'a, 'a> Deserialize<'de> for Envelope<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(EnvelopeVisitor(std::marker::PhantomData))? {
            Some(e) => Ok(e),
            None => Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Other("non-object"),
                &"a JSON object",
            )),
        }
    }
}

#[derive(Default)]
struct StrList<'a>(Vec<Cow<'a, str>>);

struct StrListVisitor<'a>(std::marker::PhantomData<&'a ()>);
impl<'de: 'a, 'a> Visitor<'de> for StrListVisitor<'a> {
    type Value = Option<StrList<'a>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = a.next_element::<LStr<'de>>()? {
            if let LStr::Str(s) = v {
                out.push(s);
            }
        }
        Ok(Some(StrList(out)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Lenient<StrList<'a>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrListVisitor(std::marker::PhantomData)).map(Lenient)
    }
}

impl<'de> Deserialize<'de> for ContentShape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentShape;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<ContentShape, E> {
                Ok(ContentShape {
                    is_string: true,
                    text: true,
                    ..ContentShape::default()
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ContentShape, A::Error> {
                let mut shape = ContentShape::default();
                while let Some(BlockType(ty)) = a.next_element::<BlockType>()? {
                    shape.blocks += 1;
                    match ty {
                        Some(BlockKind::ToolResult) => shape.tool_result = true,
                        Some(BlockKind::ToolUse) => shape.tool_use = true,
                        Some(BlockKind::ServerToolUse) => shape.server_tool_use = true,
                        Some(BlockKind::Text) => shape.text = true,
                        Some(BlockKind::Thinking) => shape.thinking = true,
                        None => {}
                    }
                }
                Ok(shape)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<ContentShape, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentShape::default())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<ContentShape, E> {
                Ok(ContentShape::default())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<ContentShape, E> {
                Ok(ContentShape::default())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<ContentShape, E> {
                Ok(ContentShape::default())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<ContentShape, E> {
                Ok(ContentShape::default())
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<ContentShape, E> {
                Ok(ContentShape::default())
            }
        }
        d.deserialize_any(V)
    }
}

enum BlockKind {
    ToolResult,
    ToolUse,
    ServerToolUse,
    Text,
    Thinking,
}

/// The `type` of one content block; every other key is skipped.
struct BlockType(Option<BlockKind>);

impl<'de> Deserialize<'de> for BlockType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<BlockType, A::Error> {
                let mut kind = None;
                while let Some(k) = a.next_key::<crate::io::json::Key<'de>>()? {
                    if k == "type" {
                        kind = match a.next_value::<LStr<'de>>()?.as_str() {
                            Some("tool_result") => Some(BlockKind::ToolResult),
                            Some("tool_use") => Some(BlockKind::ToolUse),
                            Some("server_tool_use") => Some(BlockKind::ServerToolUse),
                            Some("text") => Some(BlockKind::Text),
                            Some("thinking" | "redacted_thinking") => Some(BlockKind::Thinking),
                            _ => None,
                        };
                    } else {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(BlockType(kind))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<BlockType, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockType(None))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<BlockType, E> {
                Ok(BlockType(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_in_any_order_and_tolerates_odd_types() {
        let line = br#"{"uuid":"u2","type":"user","parentUuid":"u1","isSidechain":"yes","message":{"content":[{"type":"text","text":"hi"},{"tool_use_id":"t","type":"tool_result","content":"x"}],"role":"user"},"timestamp":5,"type":"user"}"#;
        let e: Envelope<'_> = serde_json::from_slice(line).unwrap();
        assert_eq!(e.ty.as_str(), Some("user"));
        assert_eq!(e.parent_uuid.as_str(), Some("u1"));
        assert_eq!(e.is_sidechain, LBool::Other);
        assert_eq!(e.timestamp, LStr::Other);
        assert!(e.message.content.tool_result && e.message.content.text);
        assert_eq!(e.message.content.blocks, 2);
    }

    #[test]
    fn reads_compact_metadata() {
        let line = br#"{"type":"system","subtype":"compact_boundary","parentUuid":null,"compactMetadata":{"trigger":"auto","preTokens":"12","preservedSegment":{"headUuid":"h","anchorUuid":"a","tailUuid":"t"}}}"#;
        let e: Envelope<'_> = serde_json::from_slice(line).unwrap();
        let c = e.compact.unwrap();
        assert_eq!(c.pre_tokens.as_i64(), None);
        assert_eq!(c.preserved_segment.unwrap().anchor.as_str(), Some("a"));
        assert_eq!(e.parent_uuid, LStr::Null);
    }

    #[test]
    fn non_objects_are_errors() {
        assert!(serde_json::from_slice::<Envelope<'_>>(b"[1,2]").is_err());
        assert!(serde_json::from_slice::<Envelope<'_>>(b"42").is_err());
    }
}
