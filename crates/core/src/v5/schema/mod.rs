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
    pub id: String,
    pub name: String,
    pub arguments: String,
    pub extra: Map<String, Value>,
}

/// A message of v1 and v2.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV1 {
    pub role: String,
    pub content: String,
    pub thinking: Option<String>,
    pub tool_calls: Vec<ToolCallV1>,
    pub tool_call_id: Option<String>,
    pub ts: Option<i64>,
    pub extra: Map<String, Value>,
}

/// A typed item of v3 to v5; items of kinds cctool does not rewrite stay as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Reasoning {
        text: String,
        extra: Map<String, Value>,
    },
    Text {
        text: String,
        extra: Map<String, Value>,
    },
    ToolCall {
        id: String,
        name: String,
        args: Value,
        extra: Map<String, Value>,
    },
    ToolResult {
        content: Value,
        original_size: Option<u64>,
        extra: Map<String, Value>,
    },
    Other(Value),
}

/// A message of v3 (`ts`), v4 and v5 (`id`, `timestamp`).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageV3 {
    pub role: String,
    pub tool_call_id: Option<String>,
    pub items: Vec<Item>,
    pub id: Option<u64>,
    pub ts: Option<i64>,
    pub timestamp: Option<String>,
    pub extra: Map<String, Value>,
}

/// A session of any version.
#[derive(Debug, Clone, PartialEq)]
pub enum Session {
    V1 {
        id: Value,
        messages: Vec<MessageV1>,
        extra: Map<String, Value>,
    },
    V2 {
        session_id: Value,
        created_at: Option<String>,
        messages: Vec<MessageV1>,
        extra: Map<String, Value>,
    },
    /// Versions 3, 4 and 5 share a shape; the version says which fields are meaningful.
    V3Plus {
        version: u32,
        session_id: Value,
        created_at: Option<String>,
        messages: Vec<MessageV3>,
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
