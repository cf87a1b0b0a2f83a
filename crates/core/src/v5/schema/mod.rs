//! cctool session files, versions 1 to 5 (`docs/cctool-session.md`), and the migration
//! chain v1 → v2 → v3 → v4 → v5: one pure function per step.
//!
//! Reading validates the whole document first and names the JSON path of any problem, so an
//! invalid file is reported and nothing is written. Fields a version does not define are kept
//! (after the known ones) through every step: migration never loses information.
//! Output is pretty-printed with two spaces, keys in the order the spec shows them.

use serde_json::{Map, Value, json};

mod read;
mod steps;
mod write;

pub use read::*;
pub use steps::*;
pub use write::*;

/// The newest schema version.
pub const LATEST: u32 = 5;

/// A problem with a session document: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON path (`messages[3].tool_call_id`), empty for the whole document.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl std::error::Error for SchemaError {}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

fn err(path: impl Into<String>, message: impl Into<String>) -> SchemaError {
    SchemaError {
        path: path.into(),
        message: message.into(),
    }
}

/// A tool call of v1/v2: `arguments` is JSON *text*.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallV1 {
    /// The id the answering `tool` message names in `tool_call_id`.
    pub id: String,
    /// The tool called.
    pub name: String,
    /// The arguments as JSON text, parsed from v3 on.
    pub arguments: String,
    /// Fields this version does not define, kept as written after the known ones.
    pub extra: Map<String, Value>,
}

/// A message of v1 and v2.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV1 {
    /// `user`, `assistant`, `tool` or `system`.
    pub role: String,
    /// The message's text, possibly empty.
    pub content: String,
    /// The model's reasoning, when given.
    pub thinking: Option<String>,
    /// The tools an assistant message calls.
    pub tool_calls: Vec<ToolCallV1>,
    /// On a `tool` message: the call it answers.
    pub tool_call_id: Option<String>,
    /// Seconds since 1970.
    pub ts: Option<i64>,
    /// Fields this version does not define, kept as written after the known ones.
    pub extra: Map<String, Value>,
}

/// A typed item of v3 to v5; items of kinds cctool does not rewrite stay as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// The model's reasoning (v1's `thinking`).
    Reasoning {
        /// The reasoning text.
        text: String,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// Text of the message.
    Text {
        /// The text.
        text: String,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// A call of a tool.
    ToolCall {
        /// The id the answering `tool` message names in `tool_call_id`.
        id: String,
        /// The tool called.
        name: String,
        /// The arguments, parsed (text that is not JSON kept as `{"_raw": …}`).
        args: Value,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// What a tool returned.
    ToolResult {
        /// The result as written: text, or any JSON.
        content: Value,
        /// The content's UTF-8 length in bytes (v5), kept when compaction truncates the content.
        original_size: Option<u64>,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// An item of any other type, kept whole (`native` records of an import, for one).
    Other(Value),
}

/// A message of v3 (`ts`), v4 and v5 (`id`, `timestamp`).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV3 {
    /// `user`, `assistant`, `tool` or `system`.
    pub role: String,
    /// On a `tool` message: the call it answers.
    pub tool_call_id: Option<String>,
    /// The message's content, in order.
    pub items: Vec<Item>,
    /// The 1-based position in the session (v4 on).
    pub id: Option<u64>,
    /// Seconds since 1970 (v3 only).
    pub ts: Option<i64>,
    /// RFC 3339 time (v4 on).
    pub timestamp: Option<String>,
    /// Fields this version does not define, kept as written after the known ones.
    pub extra: Map<String, Value>,
}

/// A session of any version.
#[derive(Debug, Clone, PartialEq)]
pub enum Session {
    /// Version 1.
    V1 {
        /// The session's id, any JSON value.
        id: Value,
        /// The messages, in order.
        messages: Vec<MessageV1>,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// Version 2.
    V2 {
        /// The session's id (v1's `id`), any JSON value.
        session_id: Value,
        /// The earliest message time, `YYYY-MM-DDTHH:MM:SSZ`.
        created_at: Option<String>,
        /// The messages, in order.
        messages: Vec<MessageV1>,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
    /// Versions 3, 4 and 5 share a shape; the version says which fields are meaningful.
    V3Plus {
        /// 3, 4 or 5.
        version: u32,
        /// The session's id, any JSON value.
        session_id: Value,
        /// The earliest message time, `YYYY-MM-DDTHH:MM:SSZ`.
        created_at: Option<String>,
        /// The messages, in order.
        messages: Vec<MessageV3>,
        /// Fields this version does not define, kept as written after the known ones.
        extra: Map<String, Value>,
    },
}

impl Item {
    /// A `text` item.
    pub fn text(t: impl Into<String>) -> Item {
        Item::Text {
            text: t.into(),
            extra: Map::new(),
        }
    }

    /// A `tool_call` item.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, args: Value) -> Item {
        Item::ToolCall {
            id: id.into(),
            name: name.into(),
            args,
            extra: Map::new(),
        }
    }

    /// A `tool_result` item; `original_size` is left for v4 → v5 or the caller to set.
    pub fn tool_result(content: Value) -> Item {
        Item::ToolResult {
            content,
            original_size: None,
            extra: Map::new(),
        }
    }
}

impl MessageV3 {
    /// A message of `role` holding `items`, with no id, time or other field.
    pub fn new(role: impl Into<String>, items: Vec<Item>) -> MessageV3 {
        MessageV3 {
            role: role.into(),
            tool_call_id: None,
            items,
            id: None,
            ts: None,
            timestamp: None,
            extra: Map::new(),
        }
    }

    /// A `tool` message answering the call `call_id`.
    pub fn tool(call_id: impl Into<String>, items: Vec<Item>) -> MessageV3 {
        MessageV3 {
            tool_call_id: Some(call_id.into()),
            ..MessageV3::new("tool", items)
        }
    }
}

impl Session {
    /// The schema version the session is in.
    pub fn version(&self) -> u32 {
        match self {
            Session::V1 { .. } => 1,
            Session::V2 { .. } => 2,
            Session::V3Plus { version, .. } => *version,
        }
    }
}

#[cfg(test)]
mod tests;
