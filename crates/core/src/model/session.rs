//! A session file at a glance: the record `scan` prints for each file, which every agent
//! fills from its own format, and the rules they share for naming a session (its title, a
//! prompt fit for one line, a session id).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::model::time::parse_ms;

/// One session file. Every field has one JSON type: counts are numbers, lists are lists
/// (empty when there is nothing), and a field that can be unknown is a string or null.
#[derive(Serialize, Debug, Default, Clone)]
pub struct SessionRecord {
    /// The file, as found.
    pub path: String,
    /// The format's name ([`AgentId::name`](crate::model::AgentId::name)).
    pub format: &'static str,
    /// The versions of the agent that wrote the file, as it recorded them.
    pub agent_versions: Vec<String>,
    /// The session's id, as the file records it.
    pub session_id: Option<String>,
    /// The folder the session ran in, as the agent recorded it.
    pub cwd: Option<String>,
    /// The last component of `cwd` (or of the file's folder when no cwd was recorded).
    pub project: Option<String>,
    /// The session's title: set by the user or the agent, else its first prompt (one line).
    pub title: Option<String>,
    /// Where the title comes from: `custom-title`, `ai-title`, `summary` or `first-prompt`.
    pub title_source: Option<&'static str>,
    /// Size of the file.
    pub bytes: u64,
    /// Lines of the file.
    pub lines: u64,
    /// Lines that are not a record the format can read.
    pub bad_lines: u64,
    /// Messages of the conversation a resume loads.
    pub chain_messages: usize,
    /// Where the walk back from the resumed tip stopped (Claude Code).
    pub chain_end: Option<String>,
    /// Leaves of the message graph: the conversations a picker could offer (Claude Code).
    pub leaves: Option<usize>,
    /// Compactions the file records.
    pub compactions: usize,
    /// What triggered the last compaction, when recorded.
    pub last_compaction_trigger: Option<String>,
    /// The tokens before the last compaction, when recorded.
    pub last_compaction_pre_tokens: Option<i64>,
    /// Compactions counted by where they were made.
    pub compaction_origins: BTreeMap<&'static str, usize>,
    /// Tokens of what a resume sends the model.
    pub resume_tokens: usize,
    /// Claude Code: the model a resume would send the request to.
    pub resume_model: Option<String>,
    /// How the client chose `resume_model`.
    pub resume_model_choice: Option<String>,
    /// Parent references that name nothing in the file (Claude Code): the links `doctor`
    /// reports as `dangling-parent`.
    pub dangling_parents: Option<usize>,
    /// Of those, the ones where the resumed chain stops and loses messages (doctor errors).
    pub chain_breaks: Option<usize>,
    /// Records whose uuid an earlier record already has (Claude Code).
    pub duplicate_uuids: Option<u64>,
    /// Base64 bytes of the payloads (images, documents) the file stores, every copy counted:
    /// what `slim` works on.
    pub payload_bytes: Option<u64>,
    /// Claude Code: bytes of the messages a resume sends, which the API limits to 32 MB.
    pub request_bytes: Option<u64>,
    /// The earliest time a record carries.
    pub first_timestamp: Option<String>,
    /// The latest time a record carries.
    pub last_timestamp: Option<String>,
    /// `session` or `subagent`.
    pub role: &'static str,
    /// For a subagent transcript: the session it belongs to.
    pub parent_session: Option<String>,
    /// For a session: the subagent transcripts found for it.
    pub subagents: Vec<String>,
    /// Last activity in milliseconds, for sorting and local times.
    #[serde(skip)]
    pub last_ms: Option<i64>,
}

impl SessionRecord {
    /// The names of the fields [`SessionRecord::listing`] keeps: what `search` shows of a
    /// session and asks of it (`--project`, `--session`).
    pub const LISTING: &'static [&'static str] = &[
        "path",
        "format",
        "agent_versions",
        "session_id",
        "cwd",
        "project",
        "title",
        "title_source",
        "role",
        "first_timestamp",
        "last_timestamp",
        "last_ms",
    ];

    /// The record with only the fields of [`SessionRecord::LISTING`]: what an agent's
    /// `listing` answers, the rest left at their default so that no caller comes to rely on
    /// a field a cheaper reading does not fill.
    pub fn listing(self) -> SessionRecord {
        SessionRecord {
            path: self.path,
            format: self.format,
            agent_versions: self.agent_versions,
            session_id: self.session_id,
            cwd: self.cwd,
            project: self.project,
            title: self.title,
            title_source: self.title_source,
            role: self.role,
            first_timestamp: self.first_timestamp,
            last_timestamp: self.last_timestamp,
            last_ms: self.last_ms,
            ..SessionRecord::default()
        }
    }
}

/// A title fit for one line: the first words of `text` with all whitespace collapsed, at
/// most 200 characters.
pub fn one_line(text: &str) -> Option<String> {
    let mut out = String::new();
    for w in text.split_whitespace() {
        if out.chars().count() >= 200 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    let out: String = out.chars().take(200).collect();
    (!out.is_empty()).then_some(out)
}

/// The text a user typed, or `None` for what only looks like a prompt: command wrappers
/// (`<command-name>`, `<local-command-stdout>`), caveats, context the agent adds.
pub fn prompt_text(text: &str) -> Option<String> {
    let t = text.trim_start();
    if t.starts_with('<') || t.starts_with("Caveat:") || t.starts_with("[Request interrupted") {
        return None;
    }
    one_line(t)
}

/// The title of a session, the one rule every command shows: the title the user set
/// (`custom-title`), else the agent's (`ai-title`), else a legacy `summary` title of a branch
/// in the file (the research's precedence, `docs/claude-code.md`), else the first prompt the
/// user typed; with where it comes from.
pub fn title(
    named: Option<(String, &'static str)>,
    first_prompt: Option<String>,
) -> (Option<String>, Option<&'static str>) {
    match named {
        Some((title, from)) => (Some(title), Some(from)),
        None => {
            let from = first_prompt.as_ref().map(|_| "first-prompt");
            (first_prompt, from)
        }
    }
}

/// The string at `path` (a key at each level) of `v`.
pub fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// The first text of Anthropic-style content (a string or a list of blocks).
pub fn first_text(content: &Value) -> Option<&str> {
    match content {
        Value::String(s) => Some(s),
        Value::Array(blocks) => blocks
            .iter()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|b| b.get("text"))
            .and_then(Value::as_str),
        _ => None,
    }
}

/// A JSON record of a session file, read as the agents read it: a lone surrogate escape
/// is repaired to U+FFFD rather than refused.
pub fn parse(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// Whether `s` is a uuid (of any version): hex digits in groups of 8-4-4-4-12.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// A message's time in a cctool session: `timestamp` (v4 on) when it is a string, else `ts`,
/// Unix seconds when a number, a time when a string.
pub fn session_time(m: &Value) -> Option<i64> {
    match (m.get("timestamp"), m.get("ts")) {
        (Some(Value::String(s)), _) => parse_ms(s),
        (_, Some(Value::Number(n))) => n.as_i64().and_then(|s| s.checked_mul(1000)),
        (_, Some(Value::String(s))) => parse_ms(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_line_and_skip_wrappers() {
        assert_eq!(one_line("  Fix the\n\nparser  now "), Some("Fix the parser now".into()));
        assert_eq!(prompt_text("<command-name>/compact</command-name>"), None);
        assert_eq!(prompt_text("Caveat: the messages below"), None);
        assert_eq!(one_line(&"x ".repeat(500)).unwrap().chars().count(), 200);
    }

    #[test]
    fn a_session_time_is_its_timestamp_else_its_ts() {
        let t = |j: &str| session_time(&serde_json::from_str(j).unwrap());
        assert_eq!(t(r#"{"timestamp":"1970-01-01T00:00:01Z","ts":5}"#), Some(1000));
        assert_eq!(t(r#"{"timestamp":7,"ts":5}"#), Some(5000));
        assert_eq!(t(r#"{"ts":"1970-01-01T00:00:02Z"}"#), Some(2000));
        assert_eq!(t(r#"{"ts":1.5}"#), None);
        assert_eq!(t(r#"{"ts":9223372036854775807}"#), None);
    }
}
