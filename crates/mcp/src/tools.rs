//! The four tools: what the client is told of each (name, description, the JSON Schema of
//! its arguments) and its arguments read back. The schemas are written out rather than
//! derived: they are the interface a model reads, and each word of them is chosen.

use serde::Deserialize;
use serde_json::{Value, json};

/// How many sessions `list_sessions` gives unless asked, and at most.
pub(crate) const SESSIONS: (usize, usize) = (50, 500);
/// How many hits `search` gives unless asked, and at most.
pub(crate) const HITS: (usize, usize) = (20, 200);
/// How many bytes of Markdown one `read_session` answer holds unless asked, and at most.
pub(crate) const PAGE: (usize, usize) = (32 * 1024, 256 * 1024);

/// A tool as `tools/list` describes it.
pub(crate) struct Spec {
    pub(crate) name: &'static str,
    pub(crate) description: String,
    pub(crate) schema: Value,
}

fn filters() -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(
        "agent".into(),
        json!({"type": "string", "description": "Only sessions of this agent, named as list_sessions names it (its agent field)."}),
    );
    m.insert(
        "project".into(),
        json!({"type": "string", "description": "Only sessions that ran in this folder or a folder below it (an absolute path)."}),
    );
    m.insert(
        "since".into(),
        json!({"type": "string", "description": "Only from this local date on (2027-01-22), or the last N days (7d) or hours (12h)."}),
    );
    m.insert(
        "until".into(),
        json!({"type": "string", "description": "Only before this local date, or before N days (7d) or hours ago."}),
    );
    m
}

fn object(mut props: serde_json::Map<String, Value>, more: Value, required: &[&str]) -> Value {
    if let Value::Object(more) = more {
        props.extend(more);
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The agents whose sessions the server reads, as sentences name them: the registry's.
pub(crate) fn agents() -> String {
    let names: Vec<_> = cctool_core::agents::registry::installed()
        .all()
        .map(|a| a.about().display_name)
        .collect();
    names.join(", ")
}

/// Every tool, in the order `tools/list` gives them.
pub(crate) fn specs() -> Vec<Spec> {
    vec![
        Spec {
            name: "list_sessions",
            description: format!(
                "List the coding-agent sessions on this machine ({}), newest activity first: \
                each session's id, agent, title, project, first and last activity, messages on the chain a resume loads, and file. \
                Any id, or a unique prefix of one, names the session to read_session, get_summaries and search.",
                agents()
            ),
            schema: object(
                filters(),
                json!({"limit": {"type": "integer", "minimum": 1, "maximum": SESSIONS.1, "description": format!("At most this many sessions (default {}).", SESSIONS.0)}}),
                &[],
            ),
        },
        Spec {
            name: "search",
            description: "Find the messages of past sessions whose text matches a pattern: the decoded text of user and assistant \
                messages and compaction summaries (reasoning and tool calls on request), never metadata. Literal text by default, \
                matching any case unless the pattern holds an upper-case letter. Each hit gives its session id, message id, role, \
                time, whether a resume still loads it (scope effective) or only the full history holds it, and a snippet."
                .into(),
            schema: object(
                filters(),
                json!({
                    "pattern": {"type": "string", "minLength": 1, "description": "What to look for: literal text, or with regex a regular expression (Rust regex syntax)."},
                    "and": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "More patterns the same message must match too."},
                    "regex": {"type": "boolean", "description": "Read the patterns as regular expressions."},
                    "case": {"type": "string", "enum": ["smart", "sensitive", "insensitive"], "description": "smart (default): any case unless a pattern holds an upper-case letter."},
                    "word": {"type": "boolean", "description": "Match whole words only."},
                    "scope": {"type": "string", "enum": ["full", "effective"], "description": "full (default): every record, what compactions replaced too; effective: only what a resume loads."},
                    "role": {"type": "array", "items": {"type": "string", "enum": ["user", "assistant", "tool", "summary"]}, "description": "Only texts of these roles."},
                    "thinking": {"type": "boolean", "description": "Search the model's reasoning too."},
                    "tools": {"type": "boolean", "description": "Search tool calls' inputs and outputs too."},
                    "session": {"type": "string", "description": "Only this session (an id or a unique prefix of one)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": HITS.1, "description": format!("At most this many hits (default {}).", HITS.0)}
                }),
                &["pattern"],
            ),
        },
        Spec {
            name: "read_session",
            description: "Read a session's effective conversation (what a resume of it loads) as Markdown, a page at a time: \
                give the next_offset of an answer as offset to read on; next_offset is null at the end."
                .into(),
            schema: object(
                serde_json::Map::new(),
                json!({
                    "session": {"type": "string", "description": "The session: an id, or a unique prefix of one, as list_sessions gives it."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Where to start, in bytes of the Markdown (0, or an answer's next_offset)."},
                    "max_bytes": {"type": "integer", "minimum": 1024, "maximum": PAGE.1, "description": format!("At most this many bytes of Markdown in the answer (default {}).", PAGE.0)}
                }),
                &["session"],
            ),
        },
        Spec {
            name: "get_summaries",
            description: "The compaction summaries of a session (the text an agent wrote to stand for the history it compacted), \
                oldest first, with which one a resume loads now (current)."
                .into(),
            schema: object(
                serde_json::Map::new(),
                json!({"session": {"type": "string", "description": "The session: an id, or a unique prefix of one."}}),
                &["session"],
            ),
        },
    ]
}

/// `list_sessions`'s arguments.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListArgs {
    pub(crate) agent: Option<String>,
    pub(crate) project: Option<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
    pub(crate) limit: Option<usize>,
}

/// `search`'s arguments.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    pub(crate) pattern: String,
    #[serde(default)]
    pub(crate) and: Vec<String>,
    #[serde(default)]
    pub(crate) regex: bool,
    pub(crate) case: Option<String>,
    #[serde(default)]
    pub(crate) word: bool,
    pub(crate) scope: Option<String>,
    #[serde(default)]
    pub(crate) role: Vec<String>,
    #[serde(default)]
    pub(crate) thinking: bool,
    #[serde(default)]
    pub(crate) tools: bool,
    pub(crate) session: Option<String>,
    pub(crate) agent: Option<String>,
    pub(crate) project: Option<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
    pub(crate) limit: Option<usize>,
}

/// `read_session`'s arguments.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadArgs {
    pub(crate) session: String,
    #[serde(default)]
    pub(crate) offset: usize,
    pub(crate) max_bytes: Option<usize>,
}

/// `get_summaries`'s arguments.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct SummaryArgs {
    pub(crate) session: String,
}

/// A count asked for, within the tool's bounds.
pub(crate) fn bounded(asked: Option<usize>, (default, max): (usize, usize)) -> usize {
    asked.unwrap_or(default).clamp(1, max)
}
