//! Every session at a glance: what `scan` reports about one session file.
//!
//! Each file is loaded, its chain rebuilt and the request a resume would send estimated, then
//! dropped: only the small per-file record is kept, so memory does not grow with the number
//! of sessions. A record names the session the way people recognise it: the project (the
//! folder it ran in) and a title (the one the user or the agent gave it, else the first
//! prompt).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::agents::claude_code::api::api_view;
use crate::agents::claude_code::chain::{self as claude, Kind, Options, Transcript, flag};
use crate::agents::claude_code::config::Overrides;
use crate::agents::claude_code::model as claude_model;
use crate::agents::claude_code::subagents::{is_subagent_path, is_uuid_stem};
use crate::agents::codex::history as codex;
use crate::agents::codex::rollout::Record;
use crate::io::Line;
use crate::io::Source;
use crate::model::Format;
use crate::model::time::format_ms;

mod message;
pub mod project;
use message::MessageFacts;

/// One session file. Every field has one JSON type: counts are numbers, lists are lists
/// (empty when there is nothing), and a field that can be unknown is a string or null.
#[derive(Serialize, Debug, Default, Clone)]
pub struct SessionRecord {
    pub path: String,
    pub format: &'static str,
    pub agent_versions: Vec<String>,
    pub session_id: Option<String>,
    /// The folder the session ran in, as the agent recorded it.
    pub cwd: Option<String>,
    /// The last component of `cwd` (or of the file's folder when no cwd was recorded).
    pub project: Option<String>,
    /// The session's title: set by the user or the agent, else its first prompt (one line).
    pub title: Option<String>,
    /// Where the title comes from: `custom-title`, `ai-title`, `summary` or `first-prompt`.
    pub title_source: Option<&'static str>,
    pub bytes: u64,
    pub lines: u64,
    pub bad_lines: u64,
    pub chain_messages: usize,
    pub chain_end: Option<String>,
    pub leaves: Option<usize>,
    pub compactions: usize,
    pub last_compaction_trigger: Option<String>,
    pub last_compaction_pre_tokens: Option<i64>,
    pub compaction_origins: BTreeMap<&'static str, usize>,
    pub resume_tokens: usize,
    /// Claude Code: the model a resume would send the request to, and how the client chose it.
    pub resume_model: Option<String>,
    pub resume_model_choice: Option<String>,
    /// Parent references that name nothing in the file (Claude Code): the links `doctor`
    /// reports as `dangling-parent`.
    pub dangling_parents: Option<usize>,
    /// Of those, the ones where the resumed chain stops and loses messages (doctor errors).
    pub chain_breaks: Option<usize>,
    pub duplicate_uuids: Option<u64>,
    /// Base64 bytes of the payloads (images, documents) the file stores, every copy counted:
    /// what `slim` works on.
    pub payload_bytes: Option<u64>,
    /// Claude Code: bytes of the messages a resume sends, which the API limits to 32 MB.
    pub request_bytes: Option<u64>,
    pub first_timestamp: Option<String>,
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
fn prompt_text(text: &str) -> Option<String> {
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

fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// The first text of Anthropic-style content (a string or a list of blocks).
fn first_text(content: &Value) -> Option<&str> {
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

fn parse(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// The title rows of a Claude Code transcript, the last of each kind: `custom-title` (set
/// with /rename), `ai-title`, and legacy `summary` rows whose leaf is in this file (others
/// name conversations of other files).
#[derive(Default)]
struct Titles {
    custom: Option<String>,
    ai: Option<String>,
    summary: Option<String>,
}

impl Titles {
    /// Reads one line that the index found to be a title row, in file order.
    fn line(&mut self, bytes: &[u8], t: &Transcript) {
        let Some(v) = parse(bytes) else { return };
        let (kind, field) = match v.get("type").and_then(Value::as_str) {
            Some("custom-title") => ("custom-title", "customTitle"),
            Some("ai-title") => ("ai-title", "aiTitle"),
            Some("summary") => ("summary", "summary"),
            _ => return,
        };
        let Some(text) = str_at(&v, &[field]).and_then(one_line) else {
            return;
        };
        match kind {
            "custom-title" => self.custom = Some(text),
            "ai-title" => self.ai = Some(text),
            _ if str_at(&v, &["leafUuid"]).is_some_and(|l| t.find(l).is_some()) => self.summary = Some(text),
            _ => {}
        }
    }

    fn best(self) -> Option<(String, &'static str)> {
        self.custom
            .map(|c| (c, "custom-title"))
            .or(self.ai.map(|a| (a, "ai-title")))
            .or(self.summary.map(|s| (s, "summary")))
    }
}

/// What `scan` reads of a Claude Code transcript beyond the index, in the index's own pass
/// (another pass would cost a read of the file again, or the page faults of its mapping):
/// the base64 bytes of its payloads.
struct ClaudeExtras {
    payload: u64,
    cands: Vec<crate::slim::Candidate>,
    buf: Vec<u8>,
}

impl ClaudeExtras {
    fn new() -> Self {
        ClaudeExtras {
            payload: 0,
            cands: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn line(&mut self, l: &Line<'_>) {
        let slimmer = crate::agents::claude_code::slim::ClaudeCodeSlim;
        self.payload += crate::slim::line_payload_bytes(l.bytes, &slimmer, true, &mut self.cands, &mut self.buf);
    }
}

/// The title rows the index found, read once it can tell which summaries are of this file.
fn claude_titles(src: &Source, t: &Transcript) -> std::io::Result<Option<(String, &'static str)>> {
    let mut titles = Titles::default();
    for &(offset, len) in &t.title_rows {
        titles.line(&src.read_range(offset, len)?, t);
    }
    Ok(titles.best())
}

/// What [`claude_head`] reads of a row: its `cwd` and the texts of its message, and nothing
/// else, so a row holding arrays of millions of items costs a scan and no memory.
#[derive(serde::Deserialize)]
struct HeadRow<'a> {
    #[serde(default)]
    cwd: crate::io::json::LString,
    #[serde(borrow, default)]
    message: Option<HeadMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct HeadMessage<'a> {
    #[serde(borrow, default)]
    content: crate::io::json::ContentTexts<'a>,
}

/// A row's cwd and its message's first text; a row with a lone surrogate is read as the
/// agents read it (repaired to U+FFFD).
fn head_row(bytes: &[u8]) -> Option<(Option<String>, Option<String>)> {
    fn read(b: &[u8]) -> Option<(Option<String>, Option<String>)> {
        let row: HeadRow<'_> = serde_json::from_slice(b).ok()?;
        let first = row
            .message
            .and_then(|m| m.content.0.into_iter().next())
            .map(|t| t.into_owned());
        Some((row.cwd.0, first))
    }
    read(bytes).or_else(|| read(&crate::io::json::repair_surrogates(bytes)?))
}

/// The cwd of the first message that records one, and the first prompt a user typed.
fn claude_head(src: &Source, t: &Transcript, sidechain: bool) -> std::io::Result<(Option<String>, Option<String>)> {
    let (mut cwd, mut prompt) = (None, None);
    // The first few hundred messages are enough: a session whose first prompt is further in
    // is all commands and tool output, and has no better name.
    for n in t.nodes.iter().filter(|n| n.is_sidechain() == sidechain).take(400) {
        let wants_prompt = prompt.is_none()
            && n.kind == Kind::User
            && !n.has(flag::META)
            && !n.has(flag::COMPACT_SUMMARY)
            && !n.has(flag::TOOL_RESULT);
        if cwd.is_some() && !wants_prompt {
            if prompt.is_some() {
                break;
            }
            continue;
        }
        let bytes = src.read_range(n.offset, n.len as usize)?;
        let Some((row_cwd, first)) = head_row(&bytes) else {
            continue;
        };
        if cwd.is_none() {
            cwd = row_cwd;
        }
        if wants_prompt {
            prompt = first.as_deref().and_then(prompt_text);
        }
        if cwd.is_some() && prompt.is_some() {
            break;
        }
    }
    Ok((cwd, prompt))
}

pub fn scan_claude(src: &Source, overrides: &Overrides) -> std::io::Result<SessionRecord> {
    let mut extras = ClaudeExtras::new();
    let t = claude::read_for_audit_seeing(src, &mut |l| extras.line(l))?;
    let chain = t.rebuild(&Options::default()).unwrap_or_default();
    let rm = claude_model::choose_for(&t, &chain, src, overrides)?;
    let view = api_view(&t, &chain, src, None, &rm)?;
    let last = t.boundaries.iter().max_by_key(|b| b.pos);
    let span = t.time_span();
    let session_id = t.session_ids.first().cloned().or_else(|| {
        let p = Path::new(src.name());
        is_uuid_stem(p).then(|| p.file_stem().unwrap_or_default().to_string_lossy().into_owned())
    });
    let links = crate::doctor::links::dangling_links(&t, &chain);
    let (cwd, prompt) = claude_head(src, &t, chain.sidechain)?;
    let (payload_bytes, titles) = (extras.payload, claude_titles(src, &t)?);
    let (title, title_source) = title(titles, prompt);
    Ok(SessionRecord {
        path: src.name().to_string(),
        format: Format::ClaudeCode.name(),
        agent_versions: t.versions.clone(),
        session_id,
        project: project::name(cwd.as_deref(), src.name()),
        cwd,
        title,
        title_source,
        bytes: src.len(),
        lines: t.lines,
        bad_lines: t.bad_lines,
        chain_messages: chain.positions.len(),
        chain_end: chain.end.as_ref().map(ToString::to_string),
        leaves: Some(chain.leaves),
        compactions: t.boundaries.len(),
        last_compaction_trigger: last.and_then(|b| b.trigger.clone()),
        last_compaction_pre_tokens: last.and_then(|b| b.pre_tokens),
        compaction_origins: if t.boundaries.is_empty() {
            BTreeMap::new()
        } else {
            BTreeMap::from([("local", t.boundaries.len())])
        },
        resume_tokens: view.tokens(),
        payload_bytes: Some(payload_bytes),
        request_bytes: Some(crate::agents::claude_code::slim::request_bytes(&view)),
        resume_model: Some(rm.model.clone()),
        resume_model_choice: Some(rm.choice()),
        dangling_parents: Some(links.len()),
        chain_breaks: Some(
            links
                .iter()
                .filter(|l| l.effect.severity() == crate::model::diag::Severity::Error)
                .count(),
        ),
        duplicate_uuids: Some(t.duplicate_uuids),
        first_timestamp: span.map(|s| format_ms(s.0)),
        last_timestamp: span.map(|s| format_ms(s.1)),
        last_ms: span.map(|s| s.1),
        role: if is_subagent_path(src.name()) || chain.sidechain {
            "subagent"
        } else {
            "session"
        },
        ..SessionRecord::default()
    })
}

/// The cwd a Codex rollout's first line (its `session_meta`) records.
fn codex_cwd(src: &Source) -> std::io::Result<Option<String>> {
    // The first line holds the instructions too: read until its end, up to 4 MiB.
    let mut len = 64 * 1024;
    loop {
        let n = len.min(src.len() as usize);
        let head = src.read_range(0, n)?;
        if let Some(end) = memchr::memchr(b'\n', &head) {
            let v = parse(&head[..end]);
            return Ok(v.as_ref().and_then(|v| {
                str_at(v, &["payload", "cwd"])
                    .or_else(|| str_at(v, &["cwd"]))
                    .map(str::to_string)
            }));
        }
        if n == src.len() as usize || len >= 4 << 20 {
            return Ok(parse(&head).and_then(|v| str_at(&v, &["payload", "cwd"]).map(str::to_string)));
        }
        len *= 4;
    }
}

pub fn scan_codex(src: &Source) -> std::io::Result<SessionRecord> {
    let rollout = crate::agents::codex::rollout::read_records(src)?;
    let history = codex::reconstruct(&rollout);
    let tokens = crate::agents::codex::history::history_tokens(&history.items);
    let mut origins: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut compactions = 0;
    let mut versions: Vec<String> = Vec::new();
    let mut session_id = None;
    let mut prompt = None;
    for (_, r) in &rollout.records {
        match r {
            Record::Compacted(c) => {
                compactions += 1;
                let origin = match &c.replacement_history {
                    None => "legacy",
                    Some(rh) if rh.iter().any(|i| i.remote_compaction) => "remote",
                    Some(_) => "local",
                };
                *origins.entry(origin).or_default() += 1;
            }
            Record::SessionMeta { id, cli_version } => {
                if session_id.is_none() {
                    session_id.clone_from(id);
                }
                if let Some(v) = cli_version
                    && !versions.contains(v)
                {
                    versions.push(v.clone());
                }
            }
            Record::Response(item) if prompt.is_none() => {
                prompt = item.user_text.as_deref().and_then(prompt_text);
            }
            _ => {}
        }
    }
    let cwd = codex_cwd(src)?;
    let (title, title_source) = title(None, prompt);
    Ok(SessionRecord {
        path: src.name().to_string(),
        format: Format::Codex.name(),
        agent_versions: versions,
        session_id,
        project: project::name(cwd.as_deref(), src.name()),
        cwd,
        title_source,
        title,
        bytes: src.len(),
        lines: rollout.lines,
        bad_lines: rollout.bad_lines,
        chain_messages: history.items.len(),
        chain_end: Some(
            history
                .base_line
                .map_or_else(|| "start".to_string(), |l| format!("compacted:{l}")),
        ),
        compactions,
        compaction_origins: origins,
        resume_tokens: tokens,
        payload_bytes: Some(crate::slim::payload_bytes(src, &crate::agents::codex::slim::CodexSlim)?),
        first_timestamp: rollout.time_span.map(|s| format_ms(s.0)),
        last_timestamp: rollout.time_span.map(|s| format_ms(s.1)),
        last_ms: rollout.time_span.map(|s| s.1),
        role: "session",
        ..SessionRecord::default()
    })
}

/// A message's time in a cctool session: `timestamp` (v4 on), or `ts` in Unix seconds.
pub fn session_time(m: &Value) -> Option<i64> {
    let field = |k| m.get(k).map(message::pass::Scalar::of);
    message::time(field("timestamp").as_ref(), field("ts").as_ref())
}

pub fn scan_session(src: &Source) -> SessionRecord {
    let mut r = SessionRecord {
        path: src.name().to_string(),
        format: Format::CctoolSession.name(),
        bytes: src.len(),
        lines: src
            .as_slice()
            .map_or(0, |b| memchr::memchr_iter(b'\n', b).count() as u64),
        chain_end: Some("start".into()),
        role: "session",
        ..SessionRecord::default()
    };
    let unread = r.clone();
    let mut span: Option<(i64, i64)> = None;
    let mut bytes = 0usize;
    // The request size counts each message minified, as it is sent.
    let mut minified = Vec::new();
    let streamed = crate::agents::cctool::file::for_each_message(src, |m| {
        minified.clear();
        crate::io::json::minify_into(m, &mut minified);
        bytes += minified.len() + 1;
        let want_title = r.title.is_none();
        let facts = MessageFacts::read(&minified, want_title)
            .or_else(|| parse(&minified).map(|v| MessageFacts::of_value(&v, want_title)));
        let Some(f) = facts else { return };
        if let Some(ts) = f.time {
            span = Some(span.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
        }
        // A compaction is a `summary` item (v5); earlier versions have none.
        for origin in f.summaries {
            r.compactions += 1;
            *r.compaction_origins.entry(origin).or_default() += 1;
        }
        if r.title.is_none() && f.user {
            (r.title, r.title_source) = title(None, f.title_text.as_deref().and_then(prompt_text));
        }
    });
    let Ok(s) = streamed else {
        return unread;
    };
    r.chain_messages = s.messages;
    r.resume_tokens = bytes.div_ceil(4);
    r.session_id = s.session_id;
    r.project = project::name(None, src.name());
    r.first_timestamp = span.map(|s| format_ms(s.0));
    r.last_timestamp = span.map(|s| format_ms(s.1));
    r.last_ms = span.map(|s| s.1);
    r
}

/// Subagent transcripts keep their parent's session id: link both ways.
pub fn link_subagents(records: &mut [SessionRecord]) {
    let mut parents: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if r.format == "claude-code"
            && r.role == "session"
            && let Some(id) = &r.session_id
        {
            parents.entry(id.clone()).or_insert(i);
        }
    }
    let mut links = Vec::new();
    for (i, r) in records.iter_mut().enumerate() {
        if r.role == "subagent" {
            r.parent_session = r.session_id.clone();
            if let Some(&p) = r.session_id.as_ref().and_then(|id| parents.get(id)) {
                links.push((p, i));
            }
        }
    }
    for (p, i) in links {
        let path = records[i].path.clone();
        records[p].subagents.push(path);
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
}
