//! Reading a Copilot CLI `events.jsonl`: its events in file order, each with where it is, and
//! the lines that are no event, each with why; the `workspace.yaml` beside it.
//!
//! The client appends one event a line, each naming the one before it (`parentId`), and a
//! resume reads the file in its order; so the order of the file is the conversation's, and a
//! link that names anything but an earlier event is reported, never followed.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use cctool_core::io::Source;
use cctool_core::io::json::{BadLine, classify};
use cctool_core::model::diag::{Code, Severity};

/// One event of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written (NUL bytes around it taken off).
    pub raw: Vec<u8>,
    /// Its `type` (`user.message`, `session.compaction_complete`, …).
    pub ty: String,
    /// Its `id`.
    pub id: Option<String>,
    /// Its `parentId`.
    pub parent: Option<String>,
    /// Its `timestamp`, as written.
    pub time: Option<String>,
    /// Its `data`.
    pub data: Value,
}

impl Event {
    /// A string of its `data`.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(Value::as_str)
    }

    /// Whether it is a compaction the client finished (a `session.compaction_complete` not
    /// marked failed), which a resume starts from.
    pub fn is_compaction(&self) -> bool {
        self.ty == "session.compaction_complete" && self.data.get("success").and_then(Value::as_bool) != Some(false)
    }
}

/// A line that is no event: not JSON, not an object, or an object without a `type`.
#[derive(Clone, Debug, PartialEq)]
pub struct Unread {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// The line as written.
    pub raw: Vec<u8>,
    /// Why it was not read.
    pub why: BadLine,
}

/// A run of NUL bytes found in the file: what a crash leaves where the client had reserved
/// room for a write it never made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NulRun {
    /// The line it is on.
    pub line: u64,
    /// How many NUL bytes.
    pub bytes: u64,
    /// Whether an event was read from the rest of the line.
    pub before_event: bool,
}

/// A Copilot CLI session, read whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// Its events, in file order.
    pub events: Vec<Event>,
    /// The lines that are no event.
    pub unread: Vec<Unread>,
    /// The NUL bytes found, by line.
    pub nuls: Vec<NulRun>,
    /// Physical lines, blank ones included.
    pub lines: u64,
    /// What `workspace.yaml` beside the file says, when there is one.
    pub workspace: Workspace,
}

/// What the client's `workspace.yaml` (beside `events.jsonl`) says of the session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workspace {
    /// `cwd`.
    pub cwd: Option<String>,
    /// The session's name (`name`, else `summary`).
    pub name: Option<String>,
}

/// Reads `src` as a Copilot CLI session; only reading the file itself fails.
pub fn read(src: &Source) -> std::io::Result<Session> {
    let mut s = Session::default();
    let stats = cctool_core::io::for_each_line(src, |l| {
        let (bytes, nul) = strip_nuls(l.bytes);
        if nul > 0 {
            s.nuls.push(NulRun {
                line: l.no,
                bytes: nul,
                before_event: false,
            });
        }
        if bytes.is_empty() {
            return;
        }
        match event_of(l.no, l.offset, l.bytes, bytes, l.terminated) {
            Ok(e) => {
                if let Some(n) = s.nuls.last_mut().filter(|n| n.line == l.no) {
                    n.before_event = true;
                }
                s.events.push(e);
            }
            Err(u) => s.unread.push(u),
        }
    })?;
    s.lines = stats.lines;
    s.workspace = workspace_beside(Path::new(src.name()));
    Ok(s)
}

/// The event the line `no` at `offset` is (`bytes`: the `line` without its NUL bytes), or why
/// it is none.
pub(crate) fn event_of(no: u64, offset: u64, line: &[u8], bytes: &[u8], terminated: bool) -> Result<Event, Unread> {
    let unread = |why: BadLine| Unread {
        line: no,
        offset,
        raw: line.to_vec(),
        why,
    };
    let mut m = match serde_json::from_slice::<Map<String, Value>>(bytes) {
        Err(e) => return Err(unread(interleaved(bytes, classify(bytes, terminated, &e)))),
        Ok(m) => m,
    };
    let Some(ty) = m.get("type").and_then(Value::as_str).map(str::to_string) else {
        return Err(unread(BadLine {
            code: Code::UnknownRecordType,
            severity: Severity::Info,
            message: "an object without a `type`: no Copilot CLI event; not part of the conversation".into(),
        }));
    };
    let s_of = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(Event {
        line: no,
        offset,
        raw: bytes.to_vec(),
        id: s_of(&m, "id"),
        parent: s_of(&m, "parentId"),
        time: s_of(&m, "timestamp"),
        data: m.remove("data").unwrap_or(Value::Null),
        ty,
    })
}

/// The line without the NUL bytes before and after it, and how many there were.
pub(crate) fn strip_nuls(b: &[u8]) -> (&[u8], u64) {
    let start = b.iter().position(|&c| c != 0).unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c != 0).map_or(start, |i| i + 1);
    (&b[start..end], (b.len() - (end - start)) as u64)
}

/// Says so when a line that cannot be read holds the start of another event after its own:
/// two writers' lines interleaved (two processes appending to one session), which the client
/// cannot parse either.
fn interleaved(bytes: &[u8], why: BadLine) -> BadLine {
    let another =
        (1..bytes.len()).any(|i| bytes[i] == b'{' && bytes[i + 1..].trim_ascii_start().starts_with(br#""type""#));
    if !another || why.code == Code::TruncatedLastLine {
        return why;
    }
    BadLine {
        message: format!(
            "interleaved lines: a second event starts inside this one (two writers appended to the session at once); {}",
            why.message
        ),
        ..why
    }
}

/// The `workspace.yaml` beside `events` (a session's folder), read for its top-level `cwd`
/// and name; nothing when there is none.
pub fn workspace_beside(events: &Path) -> Workspace {
    let Some(dir) = events.parent() else {
        return Workspace::default();
    };
    match std::fs::read_to_string(dir.join("workspace.yaml")) {
        Ok(text) => workspace(&text),
        Err(_) => Workspace::default(),
    }
}

/// The top-level scalars of `workspace.yaml` that cctool reads. The client writes a flat map
/// of scalars; a nested or multi-line value is left unread rather than guessed at.
pub fn workspace(text: &str) -> Workspace {
    let mut w = Workspace::default();
    let mut summary = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some((k, v)) = line.split_once(':') else { continue };
        let v = scalar(v.trim());
        match (k.trim(), v) {
            ("cwd", Some(v)) => w.cwd = Some(v),
            ("name", Some(v)) => w.name = Some(v),
            ("summary", Some(v)) => summary = Some(v),
            _ => {}
        }
    }
    w.name = w.name.or(summary);
    w
}

/// A YAML scalar as written on one line: plain, or quoted (double quotes with JSON's escapes,
/// single quotes with `''`); `None` for an empty value or a block.
fn scalar(v: &str) -> Option<String> {
    if v.is_empty() || v.starts_with(['|', '>', '[', '{', '&', '*']) {
        return None;
    }
    if v.starts_with('"') {
        return serde_json::from_str::<String>(v).ok();
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return Some(inner.replace("''", "'"));
    }
    let plain = v.split(" #").next().unwrap_or(v).trim_end();
    Some(plain.to_string())
}

impl Session {
    /// The index of the last compaction a resume starts from, if any.
    pub fn last_compaction(&self) -> Option<usize> {
        self.events.iter().rposition(Event::is_compaction)
    }

    /// The session id (`session.start`'s `sessionId`).
    pub fn session_id(&self) -> Option<&str> {
        self.events
            .iter()
            .filter(|e| e.ty == "session.start" || e.ty == "session.resume")
            .find_map(|e| e.s("sessionId"))
    }

    /// The folder it ran in: `workspace.yaml`'s, else the last start or resume event's.
    pub fn cwd(&self) -> Option<&str> {
        self.workspace.cwd.as_deref().or_else(|| {
            self.events
                .iter()
                .rev()
                .filter(|e| e.ty == "session.start" || e.ty == "session.resume")
                .find_map(|e| e.data.get("context")?.get("cwd")?.as_str())
        })
    }

    /// The client versions that wrote it, in order, each once.
    pub fn versions(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.events {
            if let Some(v) = e.s("copilotVersion").filter(|v| !out.iter().any(|o| o == v)) {
                out.push(v.to_string());
            }
        }
        out
    }

    /// The parent links that name no earlier event: `(line, parentId)`. The `model.*` events
    /// (the log of a compaction's own model call) are chained apart, from a parent the file
    /// does not hold, as the client writes them; they are not the conversation's links.
    pub fn broken_links(&self) -> Vec<(u64, &str)> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for e in self.events.iter().filter(|e| !e.ty.starts_with("model.")) {
            if let Some(p) = e.parent.as_deref().filter(|p| !seen.contains(p)) {
                out.push((e.line, p));
            }
            if let Some(id) = e.id.as_deref() {
                seen.insert(id);
            }
        }
        out
    }

    /// The lines that could not be read at all (not JSON, not an object).
    pub fn bad_lines(&self) -> u64 {
        self.unread
            .iter()
            .filter(|u| u.why.code != Code::UnknownRecordType)
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_runs_are_taken_off_and_counted() {
        assert_eq!(strip_nuls(b"\0\0{}\0"), (&b"{}"[..], 3));
        assert_eq!(strip_nuls(b"\0\0\0"), (&b""[..], 3));
        assert_eq!(strip_nuls(b"{}"), (&b"{}"[..], 0));
    }

    #[test]
    fn workspace_reads_flat_scalars_only() {
        let w = workspace("id: x\ncwd: \"/a b/c\"\nsummary: 'it''s'\nnested:\n  cwd: /no\n");
        assert_eq!(w.cwd.as_deref(), Some("/a b/c"));
        assert_eq!(w.name.as_deref(), Some("it's"));
        let w = workspace("name: plain # comment\nsummary: other\ncwd: |\n  /x\n");
        assert_eq!(w.name.as_deref(), Some("plain"));
        assert_eq!(w.cwd, None);
    }
}
