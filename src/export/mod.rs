//! `cctool export`: a session as a document people read (Markdown, one self-contained HTML
//! page) or as records (the chain as JSON Lines, or the whole file in its own format), with
//! secrets and personal data redacted on the way ([`crate::redact`]).
//!
//! Every format is first read into a [`Doc`]: the messages in order, each a list of
//! [`Part`]s (text, thinking, tool calls and results, images), with the compactions marked.
//! Redaction happens on the records' JSON before they become parts, so a renderer never
//! sees a secret. The loaders call the rest of cctool through few entry points:
//! [`crate::agents::claude_code::chain::read`] and `Transcript::rebuild` (the chain a resume loads),
//! [`crate::agents::codex::history::reconstruct`] (Codex's history) and
//! [`crate::agents::cctool::file::read_messages`] (cctool sessions).

pub mod html;
pub mod markdown;
mod md_html;
pub mod records;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::io::Source;
use crate::model::Format;
use crate::redact::Redactor;

/// An image kept in the export (never when redacting, unless `--keep-images`).
#[derive(Clone, Debug)]
pub struct Image {
    pub media_type: String,
    /// Base64 data, or a URL as written (only `data:` URLs are shown).
    pub data: String,
}

impl Image {
    /// A `data:` URL of the image, when it is one that can be shown without fetching anything:
    /// its media type and its base64 text checked character by character, whether they came
    /// as a block's fields or as a data URL (Codex `input_image`).
    pub fn data_url(&self) -> Option<String> {
        let (media_type, data) = match self.data.strip_prefix("data:") {
            Some(url) => url.split_once(";base64,")?,
            None => (self.media_type.as_str(), self.data.as_str()),
        };
        let ok_type = media_type.strip_prefix("image/").is_some_and(|sub| {
            !sub.is_empty()
                && sub
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        });
        let ok_data = !data.is_empty()
            && data
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
        (ok_type && ok_data).then(|| format!("data:{media_type};base64,{data}"))
    }
}

/// A piece of a message.
#[derive(Clone, Debug)]
pub enum Part {
    Text(String),
    Thinking(String),
    ToolCall {
        name: String,
        id: String,
        input: String,
    },
    ToolResult {
        id: String,
        error: bool,
        text: String,
        images: Vec<Image>,
    },
    Image(Image),
    /// Something cctool says about the message (`[redacted thinking]`, an unknown block).
    Note(String),
}

/// One message of the conversation.
#[derive(Clone, Debug)]
pub struct Msg {
    pub role: String,
    /// The physical line of the file it came from.
    pub line: Option<u64>,
    /// Local time, as people read it.
    pub time: Option<String>,
    pub parts: Vec<Part>,
}

/// What a document holds, in order.
#[derive(Clone, Debug)]
pub enum Entry {
    Msg(Msg),
    /// A section mark: a compaction (with its summary, when the file has it in the mark) or
    /// the start of what a resume loads.
    Mark {
        title: String,
        summary: Option<String>,
    },
}

/// A session ready to render.
#[derive(Clone, Debug)]
pub struct Doc {
    pub title: String,
    /// The file's name as given (redacted like its content).
    pub file: String,
    pub agent: &'static str,
    /// The project folder (`scan::project::folder`), redacted like the file's name.
    pub project: Option<String>,
    /// The session's last activity, in milliseconds since the epoch.
    pub last_ms: Option<i64>,
    pub entries: Vec<Entry>,
    /// Subagent transcripts of a Claude Code session, inlined after it.
    pub subagents: Vec<Doc>,
}

/// What an index page says about an exported session.
#[derive(Clone, Debug)]
pub struct Summary {
    pub title: String,
    pub project: Option<String>,
    pub last_ms: Option<i64>,
    pub agent: &'static str,
    pub messages: usize,
    pub first_time: Option<String>,
}

impl Doc {
    pub fn summary(&self) -> Summary {
        Summary {
            title: self.title.clone(),
            project: self.project.clone(),
            last_ms: self.last_ms,
            agent: self.agent,
            messages: self.messages(),
            first_time: self.first_time().map(str::to_string),
        }
    }

    pub fn messages(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e, Entry::Msg(_))).count()
    }

    /// The first time of the session, for an index.
    pub fn first_time(&self) -> Option<&str> {
        self.entries.iter().find_map(|e| match e {
            Entry::Msg(m) => m.time.as_deref(),
            Entry::Mark { .. } => None,
        })
    }
}

/// What to put in the document.
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    /// The whole history, with each compaction marked, instead of what a resume loads.
    pub full: bool,
    /// Inline a Claude Code session's subagent transcripts.
    pub subagents: bool,
}

/// A timestamp as written (RFC 3339) in the local time zone (`TZ` honoured), or as written
/// when it cannot be read.
pub fn local_time(ts: &str) -> String {
    match ts.parse::<jiff::Timestamp>() {
        Ok(t) => t
            .to_zoned_datetime(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S %Z")
            .to_string(),
        Err(_) => ts.to_string(),
    }
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// Text of tool output: a string, or the text of a list of blocks (images taken out).
fn output_text(v: &Value, images: &mut Vec<Image>) -> String {
    match v {
        Value::String(t) => t.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| {
                if let Some(img) = image_of(i) {
                    images.push(img);
                    return None;
                }
                Some(match s(i, "text") {
                    Some(t) => t.to_string(),
                    None => i.to_string(),
                })
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// An Anthropic `image` block or an OpenAI `input_image` item.
fn image_of(b: &Value) -> Option<Image> {
    match s(b, "type")? {
        "image" => {
            let src = b.get("source")?;
            Some(Image {
                media_type: s(src, "media_type").unwrap_or("image/png").to_string(),
                data: s(src, "data").or_else(|| s(src, "url"))?.to_string(),
            })
        }
        "input_image" => Some(Image {
            media_type: String::new(),
            data: s(b, "image_url")?.to_string(),
        }),
        _ => None,
    }
}

/// A tool input as people read it: pretty JSON.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The parts of Anthropic-style content (a string or a list of blocks).
fn anthropic_parts(content: &Value) -> Vec<Part> {
    match content {
        Value::String(t) => vec![Part::Text(t.clone())],
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match s(b, "type").unwrap_or("") {
                "text" => Part::Text(s(b, "text").unwrap_or("").to_string()),
                "thinking" => Part::Thinking(s(b, "thinking").unwrap_or("").to_string()),
                "redacted_thinking" => Part::Note("[redacted thinking]".into()),
                "tool_use" | "server_tool_use" => Part::ToolCall {
                    name: s(b, "name").unwrap_or("?").to_string(),
                    id: s(b, "id").unwrap_or("").to_string(),
                    input: b.get("input").map(pretty).unwrap_or_default(),
                },
                "tool_result" => {
                    let mut images = Vec::new();
                    let text = output_text(b.get("content").unwrap_or(&Value::Null), &mut images);
                    Part::ToolResult {
                        id: s(b, "tool_use_id").unwrap_or("").to_string(),
                        error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                        text,
                        images,
                    }
                }
                "image" => image_of(b).map_or_else(|| Part::Note("[image]".into()), Part::Image),
                other => Part::Note(format!("[{other}]")),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A Claude Code record as a message; `None` for rows that carry no conversation.
pub fn claude_msg(v: &Value, line: u64) -> Option<Entry> {
    let ty = s(v, "type").unwrap_or("");
    let time = s(v, "timestamp").map(local_time);
    let (role, parts) = match ty {
        "system" => {
            let sub = s(v, "subtype").unwrap_or("");
            if sub == "compact_boundary" {
                let m = v.get("compactMetadata");
                let trigger = m.and_then(|m| s(m, "trigger")).unwrap_or("?");
                let tokens = m
                    .and_then(|m| m.get("preTokens"))
                    .map_or("?".to_string(), Value::to_string);
                return Some(Entry::Mark {
                    title: format!(
                        "Compaction ({trigger}, {tokens} tokens before){}",
                        time.map(|t| format!(" at {t}")).unwrap_or_default()
                    ),
                    summary: None,
                });
            }
            let mut images = Vec::new();
            let text = output_text(v.get("content").unwrap_or(&Value::Null), &mut images);
            (format!("system/{sub}"), vec![Part::Note(text)])
        }
        "attachment" => (
            "attachment".to_string(),
            vec![Part::ToolResult {
                id: String::new(),
                error: false,
                text: v.get("attachment").map(pretty).unwrap_or_default(),
                images: Vec::new(),
            }],
        ),
        "user" | "assistant" => {
            let msg = v.get("message").unwrap_or(&Value::Null);
            let mut role = ty.to_string();
            if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                role = "compaction summary".into();
            } else if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (meta)");
            }
            (role, anthropic_parts(msg.get("content").unwrap_or(&Value::Null)))
        }
        _ => return None,
    };
    Some(Entry::Msg(Msg {
        role,
        line: Some(line),
        time,
        parts,
    }))
}

/// A Codex ResponseItem as a message.
pub fn codex_msg(v: &Value, line: Option<u64>, time: Option<String>) -> Option<Entry> {
    let ty = s(v, "type").unwrap_or("");
    let mut images = Vec::new();
    let (role, parts) = match ty {
        "message" => {
            let parts = match v.get("content") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| match image_of(i) {
                        Some(img) => Part::Image(img),
                        None => Part::Text(s(i, "text").unwrap_or("").to_string()),
                    })
                    .collect(),
                Some(other) => vec![Part::Text(output_text(other, &mut images))],
                None => Vec::new(),
            };
            (s(v, "role").unwrap_or("message").to_string(), parts)
        }
        "reasoning" => {
            let text = output_text(v.get("summary").unwrap_or(&Value::Null), &mut images);
            if text.is_empty() {
                return None;
            }
            ("assistant".into(), vec![Part::Thinking(text)])
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let input = match s(v, "arguments").or_else(|| s(v, "input")) {
                Some(a) => serde_json::from_str::<Value>(a).map_or_else(|_| a.to_string(), |j| pretty(&j)),
                None => v.get("action").map(pretty).unwrap_or_default(),
            };
            (
                "assistant".into(),
                vec![Part::ToolCall {
                    name: s(v, "name").unwrap_or(ty).to_string(),
                    id: s(v, "call_id").unwrap_or("").to_string(),
                    input,
                }],
            )
        }
        "function_call_output" | "custom_tool_call_output" => {
            let out = v.get("output").unwrap_or(&Value::Null);
            // Older rollouts wrap the output as `{"output": "...", "metadata": …}` text.
            let text = match out {
                Value::String(t) => serde_json::from_str::<Value>(t)
                    .ok()
                    .and_then(|j| j.get("output").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_else(|| t.clone()),
                other => output_text(other, &mut images),
            };
            (
                "tool".into(),
                vec![Part::ToolResult {
                    id: s(v, "call_id").unwrap_or("").to_string(),
                    error: false,
                    text,
                    images: std::mem::take(&mut images),
                }],
            )
        }
        "compaction" | "compaction_summary" | "context_compaction" => {
            return Some(Entry::Mark {
                title: "Remote compaction (its summary is encrypted by the server)".into(),
                summary: None,
            });
        }
        "ghost_snapshot" => return None,
        other => ("item".into(), vec![Part::Note(format!("[{other}]"))]),
    };
    Some(Entry::Msg(Msg {
        role,
        line,
        time,
        parts,
    }))
}

/// A cctool session message (any schema version).
pub fn session_msg(v: &Value) -> Entry {
    let role = s(v, "role").unwrap_or("?").to_string();
    let time = s(v, "timestamp").or_else(|| s(v, "ts")).map(local_time);
    let mut images = Vec::new();
    let parts = match v.get("items").and_then(Value::as_array) {
        Some(items) => items
            .iter()
            .map(|i| match s(i, "type") {
                Some("text" | "summary") => Part::Text(s(i, "text").unwrap_or("").to_string()),
                Some("reasoning") => Part::Thinking(s(i, "text").unwrap_or("").to_string()),
                Some("tool_call") => Part::ToolCall {
                    name: s(i, "name").unwrap_or("?").to_string(),
                    id: s(i, "id").unwrap_or("").to_string(),
                    input: i.get("args").map(pretty).unwrap_or_default(),
                },
                Some("tool_result") => {
                    let mut imgs = Vec::new();
                    let text = output_text(i.get("content").unwrap_or(&Value::Null), &mut imgs);
                    Part::ToolResult {
                        id: s(i, "call_id").or_else(|| s(i, "id")).unwrap_or("").to_string(),
                        error: i.get("is_error").and_then(Value::as_bool) == Some(true),
                        text,
                        images: imgs,
                    }
                }
                Some(other) => Part::Note(format!("[{other}]")),
                None => Part::Note("[?]".into()),
            })
            .collect(),
        None => vec![Part::Text(output_text(
            v.get("content").unwrap_or(&Value::Null),
            &mut images,
        ))],
    };
    Entry::Msg(Msg {
        role,
        line: None,
        time,
        parts,
    })
}

/// A record parsed for the document, redacted first when asked.
pub fn parse_record(bytes: &[u8], redactor: Option<&Redactor>) -> Value {
    let mut v = crate::io::json::parse_record(bytes);
    if let Some(r) = redactor {
        r.redact_value(&mut v);
    }
    v
}

/// A project's name on an index page and its sessions (each its page's file name and summary).
pub type ProjectGroup<'a> = (Option<String>, Vec<&'a (String, Summary)>);

/// The sessions of an index page by project, each project under the shortest name that tells
/// it from the others (`scan::project::names`): the project with the newest session first,
/// and in each the newest session first. Sessions with no project come last, under `None`.
pub fn by_project(items: &[(String, Summary)]) -> Vec<ProjectGroup<'_>> {
    let names = crate::scan::project::names(items.iter().map(|(_, s)| s.project.as_deref()));
    let mut groups: Vec<ProjectGroup<'_>> = Vec::new();
    for (item, name) in items.iter().zip(names) {
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, g)) => g.push(item),
            None => groups.push((name, vec![item])),
        }
    }
    let newest = |(file, s): &(String, Summary)| (std::cmp::Reverse(s.last_ms), file.clone());
    for (_, g) in &mut groups {
        g.sort_by_key(|i| newest(i));
    }
    groups.sort_by_key(|(name, g)| (name.is_none(), g.first().map(|i| newest(i)), name.clone()));
    groups
}

/// The name a file is shown under: redacted like the content (a path holds the user's name).
pub fn shown_name(name: &str, redactor: Option<&Redactor>) -> String {
    redactor
        .and_then(|r| r.redact_str(name))
        .unwrap_or_else(|| name.to_string())
}

/// Why a session could not be exported; each names the file where one is known.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{file}: cannot read: {cause}")]
    Read { file: String, cause: std::io::Error },
    /// The file is not what its format requires (the sentence says where).
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    #[error("cannot write: {0}")]
    Write(std::io::Error),
    #[error(transparent)]
    Session(#[from] crate::agents::cctool::file::SessionError),
}

/// Reads a session into a document.
pub fn load(src: &Source, format: Format, scope: Scope, redactor: Option<&Redactor>) -> Result<Doc, ExportError> {
    let file = shown_name(src.name(), redactor);
    let (agent, entries) = match format {
        Format::ClaudeCode => ("Claude Code", records::claude_entries(src, scope.full, redactor)?),
        Format::Codex => ("Codex", records::codex_entries(src, scope.full, redactor)?),
        Format::CctoolSession => {
            let m = crate::agents::cctool::file::read_messages(src)?;
            let entries = m
                .messages
                .iter()
                .map(|raw| session_msg(&parse_record(raw, redactor)))
                .collect();
            ("cctool session", entries)
        }
    };
    let mut subagents = Vec::new();
    if scope.subagents && format == Format::ClaudeCode {
        for path in subagent_files(Path::new(src.name())) {
            let sub = open_subagent(&path)?;
            let inner = Scope {
                subagents: false,
                ..scope
            };
            subagents.push(load(&sub, Format::ClaudeCode, inner, redactor)?);
        }
    }
    // The title every command shows comes from the session's scan record (its one rule,
    // `scan::title`), redacted like the content.
    let record = crate::agents::agent(format).scan(src, &Default::default()).ok();
    let title = record
        .as_ref()
        .and_then(|r| r.title.as_deref())
        .map_or_else(|| file.clone(), |t| shown_name(t, redactor));
    let project = record
        .as_ref()
        .and_then(|r| crate::scan::project::folder(r.cwd.as_deref(), &r.path))
        .map(|f| shown_name(&f, redactor));
    Ok(Doc {
        title,
        file,
        agent,
        project,
        last_ms: record.as_ref().and_then(|r| r.last_ms),
        entries,
        subagents,
    })
}

/// A subagent transcript a session's document inlines, opened as any input is.
fn open_subagent(path: &Path) -> Result<Source, ExportError> {
    Source::open_path(path, crate::io::MmapChoice::Auto).map_err(|cause| ExportError::Read {
        file: path.display().to_string(),
        cause,
    })
}

/// The first pass of a redacted export of one input: the secrets of its name, of every
/// record of the file, and of the subagent transcripts its document will inline.
pub fn learn(
    src: &Source,
    format: Format,
    scope: Scope,
    r: &Redactor,
    bar: &indicatif::ProgressBar,
) -> Result<(), ExportError> {
    r.learn_text(src.name());
    records::learn_file(src, r, bar)?;
    if scope.subagents && format == Format::ClaudeCode {
        for path in subagent_files(Path::new(src.name())) {
            let sub = open_subagent(&path)?;
            r.learn_text(sub.name());
            records::learn_file(&sub, r, &indicatif::ProgressBar::hidden())?;
        }
    }
    Ok(())
}

/// The subagent transcripts beside a Claude Code session file, sorted.
fn subagent_files(session: &Path) -> Vec<PathBuf> {
    let mut inputs = vec![crate::io::Input::Path(session.to_path_buf())];
    crate::agents::claude_code::subagents::add_subagent_files(&mut inputs, false);
    let mut files: Vec<PathBuf> = inputs
        .into_iter()
        .skip(1)
        .filter_map(|i| match i {
            crate::io::Input::Path(p) => Some(p),
            crate::io::Input::Stdin | crate::io::Input::Archived(_) => None,
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod image_tests {
    use super::Image;

    fn url(media_type: &str, data: &str) -> Option<String> {
        Image {
            media_type: media_type.into(),
            data: data.into(),
        }
        .data_url()
    }

    #[test]
    fn data_urls_are_checked_like_block_fields() {
        assert_eq!(
            url("", "data:image/png;base64,iVBORw0K").as_deref(),
            Some("data:image/png;base64,iVBORw0K")
        );
        assert_eq!(
            url("image/png", "iVBORw0K").as_deref(),
            Some("data:image/png;base64,iVBORw0K")
        );
        for bad in [
            "data:image/png;base64,iVBO\"><script>alert(1)</script>",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "data:image/png\" onerror=\"x;base64,iVBORw0K",
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/;base64,iVBORw0K",
            "data:image/png;base64,",
        ] {
            assert_eq!(url("", bad), None, "{bad}");
        }
        assert_eq!(url("text/html", "PHNjcmlwdD4="), None);
    }
}
