//! The rows of the tables of `scan --rows`: the values, the provenance every row starts
//! with, bodies, and the kit the agents' readers share. The columns themselves, the rows made
//! from the session model's events, the schemas and the writers are `tables`'.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::io::Source;
use crate::model::AgentId;

/// Version of the tables' columns: raised when a column is renamed, removed or changes type
/// (a column added at the end keeps it).
pub const SCHEMA_VERSION: i64 = 1;

/// A table of `scan --rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Table {
    /// One row per session file (the records of `scan --json`, flattened).
    Sessions,
    /// One row per message (Claude Code: per uuid; Codex: per response item, plus the items a
    /// resume loads from compactions; the others: per message, entry, record or event written).
    Messages,
    /// One row per compaction (the summaries of `extract-summary`).
    Compactions,
    /// One row per tool call, with its result.
    ToolCalls,
}

impl Table {
    /// Every table, in the order the man page lists them.
    pub const ALL: [Table; 4] = [Table::Sessions, Table::Messages, Table::Compactions, Table::ToolCalls];

    /// The table's name, as `--rows` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Table::Sessions => "sessions",
            Table::Messages => "messages",
            Table::Compactions => "compactions",
            Table::ToolCalls => "tool-calls",
        }
    }

    /// The columns that order the rows of a table whatever the order of the inputs.
    pub fn key(self) -> &'static [&'static str] {
        match self {
            Table::Sessions => &["source_path"],
            Table::Messages => &["source_path", "message_index"],
            Table::Compactions => &["source_path", "compaction_index"],
            Table::ToolCalls => &["source_path", "call_index"],
        }
    }
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// No value: unknown or not applicable.
    Null,
    /// Text.
    Str(String),
    /// A whole number.
    Int(i64),
    /// A flag.
    Bool(bool),
    /// Milliseconds since the epoch.
    Time(i64),
}

impl Val {
    /// The text, or null.
    pub fn str(s: Option<impl Into<String>>) -> Val {
        s.map_or(Val::Null, |s| Val::Str(s.into()))
    }

    /// The number, or null when absent or outside `i64`.
    pub fn int(n: Option<impl TryInto<i64>>) -> Val {
        n.and_then(|n| n.try_into().ok()).map_or(Val::Null, Val::Int)
    }

    /// A count, null when outside `i64`.
    pub fn count(n: impl TryInto<i64>) -> Val {
        n.try_into().map_or(Val::Null, Val::Int)
    }

    /// The flag, or null.
    pub fn bool(b: Option<bool>) -> Val {
        b.map_or(Val::Null, Val::Bool)
    }

    /// A time in milliseconds since the epoch, or null.
    pub fn time(ms: Option<i64>) -> Val {
        ms.map_or(Val::Null, Val::Time)
    }
}

/// One row: a value per column of its table, in the order of its columns (`tables::columns`).
pub type Row = Vec<Val>;

/// What the rows of one file need besides the file.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Characters of each body kept in the table.
    pub max_text: usize,
    /// Where the rows of a large file wait, in an unnamed temporary file, until the file has
    /// been read whole: the system's temporary folder when `None`.
    pub spill_dir: Option<std::path::PathBuf>,
}

/// A body as three columns: its UTF-8 length, its SHA-256 (null when empty) and its first
/// `max` characters (null when `max` is 0 or the body is empty).
pub fn body(text: &str, max: usize) -> [Val; 3] {
    BodyColumns::of(text, max).columns()
}

/// A body's three columns ([`body`]) held in as few bytes as they need: the hash as its 32
/// bytes rather than 64 hex characters, the prefix only when one is kept. What waits for
/// something read later (a tool result for its call) is held this way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyColumns {
    len: usize,
    /// Meaningless when `len` is 0: an empty body has no hash column.
    sha256: [u8; 32],
    prefix: Option<Box<str>>,
}

impl BodyColumns {
    /// The columns of `text`, its first `max` characters kept.
    pub fn of(text: &str, max: usize) -> BodyColumns {
        if text.is_empty() {
            return BodyColumns {
                len: 0,
                sha256: [0; 32],
                prefix: None,
            };
        }
        let prefix = match max {
            0 => None,
            n => Some(match text.char_indices().nth(n) {
                Some((end, _)) => text[..end].into(),
                None => text.into(),
            }),
        };
        BodyColumns {
            len: text.len(),
            sha256: Sha256::digest(text.as_bytes()).into(),
            prefix,
        }
    }

    /// The length, the hash in lowercase hex and the prefix, as the table writes them.
    pub fn columns(&self) -> [Val; 3] {
        if self.len == 0 {
            return [Val::Int(0), Val::Null, Val::Null];
        }
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(64);
        for b in self.sha256 {
            hex.push(char::from(HEX[usize::from(b >> 4)]));
            hex.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        let prefix = self.prefix.as_deref().map_or(Val::Null, |p| Val::Str(p.to_string()));
        [Val::count(self.len), Val::Str(hex), prefix]
    }
}

/// Concatenated text of a message's content items.
pub fn message_texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items
            .iter()
            .filter_map(|c| c.get("text").and_then(|t| t.as_str()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The provenance columns every row starts with.
pub fn provenance(
    format: AgentId,
    client_version: Option<&str>,
    src: &Source,
    session_id: Option<&str>,
    offset: Option<u64>,
    line: Option<u64>,
) -> Row {
    vec![
        Val::Int(SCHEMA_VERSION),
        Val::Str(format.name().to_string()),
        Val::str(client_version),
        Val::Str(src.name().to_string()),
        Val::str(session_id),
        Val::int(offset),
        Val::int(line),
    ]
}

/// A record's JSON, its lone surrogates repaired when it cannot be read as written, a
/// container past the caps kept as its text ([`crate::io::json::parse_kept`]); `None` when it
/// is not JSON or nests deeper than serde_json reads.
pub fn parse(bytes: &[u8]) -> Option<Value> {
    crate::io::json::serde_reads(bytes)
        .then(|| crate::io::json::parse_kept(bytes))
        .flatten()
}

/// The string at `key` of an object.
pub fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// A body as text: a string as written, anything else (arrays of blocks, objects) as its
/// JSON text (a container kept as text as written).
pub fn as_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => crate::io::json::to_json(other),
    }
}

/// Keeps in `first` the earlier of itself and `ms`.
pub fn earliest(first: &mut Option<i64>, ms: Option<i64>) {
    if let Some(ms) = ms {
        *first = Some(first.map_or(ms, |f| f.min(ms)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_length_hash_and_a_bounded_prefix() {
        let [len, _, text] = body("héllo", 2);
        assert_eq!(len, Val::Int(6));
        assert_eq!(text, Val::Str("hé".into()));
        assert_eq!(
            body("abc", 10),
            [
                Val::Int(3),
                Val::Str("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into()),
                Val::Str("abc".into())
            ]
        );
        assert_eq!(body("", 5), [Val::Int(0), Val::Null, Val::Null]);
        assert_eq!(body("abc", 0)[2], Val::Null);
    }
}
