//! The conversation every conversion goes through (`docs/convert.md`): what one agent's
//! resume loads, in the terms both agents share — prompts, replies, tool calls paired with
//! their results, images, reasoning, compactions. A reader per agent fills it from that
//! agent's file, a writer per agent writes it in that agent's format.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::Format;

/// One conversation, in the order a resume sends it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    /// The format read.
    pub source: Option<Format>,
    /// The source's own session id (or, without one, its file name): every id the writers
    /// derive starts from it, so converting the same session twice gives the same ids.
    pub session_id: String,
    /// The working directory the session ran in.
    pub cwd: Option<String>,
    /// The model the source last ran with.
    pub model: Option<String>,
    pub entries: Vec<Entry>,
    /// Records or blocks left out, by kind (`reasoning`, `event_msg:token_count`, …).
    pub dropped: BTreeMap<String, u64>,
    /// Keys handed out so far, to make each one unique.
    keys: BTreeMap<String, u32>,
}

/// One element of the conversation, with where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The source record it comes from (a Claude Code uuid, a Codex line), unique in the
    /// conversation: the writers derive the target's ids from it.
    pub key: String,
    /// As written in the source, when it has one.
    pub timestamp: Option<String>,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// What the user sent: text and images.
    User(Vec<Part>),
    /// One model response: its text, reasoning and tool calls in order.
    Assistant(Vec<Block>),
    /// The result of the call `call_id`.
    ToolResult(ToolResult),
    /// A compaction: what came before is replaced by this summary.
    Compaction(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    Image(Image),
}

/// An image as base64 data with its media type, or as a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub media_type: Option<String>,
    pub data: Option<String>,
    pub url: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Text(String),
    /// Visible reasoning text. Bound to the model that wrote it (signatures, ciphertext), so
    /// it never crosses as reasoning: dropped, or carried as marked text on request.
    Reasoning(String),
    Call(ToolCall),
}

/// A tool call with its input as a JSON object, in the vocabulary of the agent that made it
/// (`Bash`, `exec_command`, …): the writers map it (`crate::convert::tools`).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub output: Vec<Part>,
    pub is_error: bool,
}

impl Conversation {
    pub fn new(source: Format) -> Conversation {
        Conversation {
            source: Some(source),
            ..Conversation::default()
        }
    }

    /// Adds an entry from the source record `key`; a second entry of one record gets `#1`,
    /// the next `#2`, so keys stay unique.
    pub fn push(&mut self, key: &str, timestamp: Option<String>, body: Body) {
        let n = self.keys.entry(key.to_string()).or_insert(0);
        let key = if *n == 0 { key.to_string() } else { format!("{key}#{n}") };
        *n += 1;
        self.entries.push(Entry { key, timestamp, body });
    }

    /// Counts one thing left out.
    pub fn drop(&mut self, kind: &str) {
        self.drop_n(kind, 1);
    }

    pub fn drop_n(&mut self, kind: &str, n: u64) {
        if n > 0 {
            *self.dropped.entry(kind.to_string()).or_insert(0) += n;
        }
    }

    /// The first timestamp of the conversation, else none.
    pub fn first_timestamp(&self) -> Option<&str> {
        self.entries.iter().find_map(|e| e.timestamp.as_deref())
    }
}

impl Part {
    pub fn text(&self) -> Option<&str> {
        match self {
            Part::Text(t) => Some(t),
            Part::Image(_) => None,
        }
    }
}

impl Image {
    /// A `data:` URL (Codex's form) split into its media type and data; any other URL kept.
    pub fn from_url(url: &str) -> Image {
        if let Some(rest) = url.strip_prefix("data:")
            && let Some((mt, data)) = rest.split_once(";base64,")
        {
            return Image {
                media_type: Some(mt.to_string()),
                data: Some(data.to_string()),
                url: None,
            };
        }
        Image {
            media_type: None,
            data: None,
            url: Some(url.to_string()),
        }
    }

    /// The image as one URL: a `data:` URL for base64 data.
    pub fn as_url(&self) -> String {
        match (&self.url, &self.data) {
            (Some(u), _) => u.clone(),
            (None, Some(d)) => format!("data:{};base64,{d}", self.media_type.as_deref().unwrap_or("image/png")),
            (None, None) => String::new(),
        }
    }
}

/// What a conversion counted, for the report.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    pub user_texts: u64,
    pub assistant_texts: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub images: u64,
    pub compactions: u64,
    /// Reasoning blocks carried as marked text (`--reasoning-as-text`).
    pub reasoning_as_text: u64,
}

impl Conversation {
    pub fn counts(&self, reasoning_as_text: bool) -> Counts {
        let mut c = Counts::default();
        let images = |parts: &[Part]| parts.iter().filter(|p| matches!(p, Part::Image(_))).count() as u64;
        for e in &self.entries {
            match &e.body {
                Body::User(parts) => {
                    c.user_texts += parts.iter().filter(|p| p.text().is_some()).count() as u64;
                    c.images += images(parts);
                }
                Body::Assistant(blocks) => {
                    for b in blocks {
                        match b {
                            Block::Text(_) => c.assistant_texts += 1,
                            Block::Call(_) => c.tool_calls += 1,
                            Block::Reasoning(_) if reasoning_as_text => c.reasoning_as_text += 1,
                            Block::Reasoning(_) => {}
                        }
                    }
                }
                Body::ToolResult(r) => {
                    c.tool_results += 1;
                    c.images += images(&r.output);
                }
                Body::Compaction(_) => c.compactions += 1,
            }
        }
        c
    }
}
