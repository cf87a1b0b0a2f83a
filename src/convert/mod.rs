//! `cctool convert`: a session continued in the other agent (`docs/convert.md`).
//!
//! Each agent's reader (`agents/<agent>/convert.rs`) turns the conversation its resume loads
//! into a [`model::Conversation`]; the target agent's writer turns that into the target's
//! lines. Every id the writers make is derived from the source session and the source record
//! (`compact::ids`), so the same source always gives the same lines, and a source that grew
//! gives the old lines followed by new ones: [`incremental`] appends only those.

pub mod incremental;
pub mod model;
pub mod place;
pub mod tools;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::time::{format_ms, parse_ms};

/// What a writer needs besides the conversation.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// The target's session id.
    pub session_id: String,
    pub cwd: String,
    /// The model written into the target (`--model`), if any.
    pub model: Option<String>,
    /// Visible reasoning carried as marked text (`--reasoning-as-text`).
    pub reasoning_as_text: bool,
}

/// What a writer mapped and left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Tool calls mapped to another tool, per mapping (`Bash → exec_command`).
    pub mapped: BTreeMap<String, u64>,
    /// Left out by the writer (reasoning), by kind.
    pub dropped: BTreeMap<String, u64>,
    /// Estimated tokens of what the target receives on resume.
    pub tokens: u64,
    /// Calls left unanswered in the source, closed with an `aborted` result.
    pub closed: u64,
}

impl Tally {
    pub fn map(&mut self, label: Option<String>) {
        if let Some(l) = label {
            *self.mapped.entry(l).or_insert(0) += 1;
        }
    }

    pub fn drop(&mut self, kind: &str) {
        *self.dropped.entry(kind.to_string()).or_insert(0) += 1;
    }
}

/// The marker of reasoning carried as text.
pub fn reasoning_text(text: &str) -> String {
    format!("<reasoning carried over by cctool convert>\n{text}\n</reasoning carried over by cctool convert>")
}

/// Timestamps for the target: each entry's own, never earlier than the one before (both
/// agents order by them), as `YYYY-MM-DDTHH:MM:SS.mmmZ` strings.
pub struct Clock {
    last: i64,
}

impl Clock {
    pub fn new(first: Option<&str>) -> Clock {
        Clock {
            last: first.and_then(parse_ms).unwrap_or(0),
        }
    }

    pub fn stamp(&mut self, ts: Option<&str>) -> String {
        if let Some(ms) = ts.and_then(parse_ms) {
            self.last = self.last.max(ms);
        }
        format_ms(self.last)
    }
}

/// A JSON line (serde_json never writes a raw newline inside one).
pub fn line(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// One agent's side of a conversion: its reader, its writer, and the lines of its own that
/// a later conversion may place elsewhere ([`incremental::plan`]).
pub struct Side {
    pub read: fn(&crate::io::Source, bool) -> std::io::Result<model::Conversation>,
    pub write: fn(&model::Conversation, &WriteOptions, &mut Tally) -> Vec<Vec<u8>>,
    pub passable: fn(&[u8]) -> bool,
}

/// The agents `convert` reads and writes.
pub fn side(format: crate::model::Format) -> Option<Side> {
    use crate::agents::{claude_code, codex};
    use crate::model::Format;
    match format {
        Format::ClaudeCode => Some(Side {
            read: claude_code::convert::read,
            write: claude_code::convert::write,
            passable: |_| false,
        }),
        Format::Codex => Some(Side {
            read: codex::convert::read,
            write: codex::convert::write,
            passable: codex::convert::is_token_count,
        }),
        Format::CctoolSession => None,
    }
}

/// The target's session id: a UUID derived from the source session, the target format and
/// what is carried, so converting again names the same session.
pub fn target_session_id(c: &model::Conversation, to: crate::model::Format, full: bool) -> String {
    let from = c.source.map_or("", |f| f.name());
    let scope = if full { "full" } else { "resumed" };
    crate::compact::ids::uuid(&["cctool-convert", from, &c.session_id, to.name(), scope])
}
