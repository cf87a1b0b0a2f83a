//! What `scan` reports of a Claude Code transcript: read once through with the index, its
//! chain rebuilt and the request a resume would send sized, then dropped; the session named
//! by its title rows, else its first prompt.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::api::api_view;
use super::chain::{self as claude, Kind, Options, Transcript, flag};
use super::model as claude_model;
use super::subagents::{is_subagent_path, is_uuid_stem};
use crate::io::{Line, Source};
use cctool_core::model::project;
use cctool_core::model::resume::Overrides;
use cctool_core::model::session::{SessionRecord, one_line, parse, prompt_text, str_at, title};
use cctool_core::model::time::format_ms;

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
    cands: Vec<cctool_core::slim::Candidate>,
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
        let slimmer = super::slim::ClaudeCodeSlim;
        self.payload += cctool_core::slim::line_payload_bytes(l.bytes, &slimmer, true, &mut self.cands, &mut self.buf);
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

/// What names a transcript (`SessionRecord::LISTING`), read from its index and chain: its
/// session id, versions, cwd, title, times and role.
pub(crate) fn named(src: &Source, t: &Transcript, chain: &claude::Chain) -> std::io::Result<SessionRecord> {
    let span = t.time_span();
    let session_id = t.session_ids.first().cloned().or_else(|| {
        let p = Path::new(src.name());
        is_uuid_stem(p).then(|| p.file_stem().unwrap_or_default().to_string_lossy().into_owned())
    });
    let (cwd, prompt) = claude_head(src, t, chain.sidechain)?;
    let (title, title_source) = title(claude_titles(src, t)?, prompt);
    Ok(SessionRecord {
        path: src.name().to_string(),
        format: crate::ID.name(),
        agent_versions: t.versions.clone(),
        session_id,
        project: project::name(cwd.as_deref(), src.name()),
        cwd,
        title,
        title_source,
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

/// What `search` names a transcript by, as [`scan`] gives it: the index and the chain, without
/// the request a resume sends (the model chosen, its messages read and sized) or the payloads.
pub fn listing(src: &Source) -> std::io::Result<SessionRecord> {
    // The index and chain `events::records` reads, so that it can answer the listing too.
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&Options::default()).unwrap_or_default();
    named(src, &t, &chain)
}

/// A Claude Code transcript at a glance: its chain rebuilt and the request a resume with
/// `overrides` would send sized, and only the record kept.
pub fn scan(src: &Source, overrides: &Overrides) -> std::io::Result<SessionRecord> {
    let mut extras = ClaudeExtras::new();
    let t = claude::read_for_audit_seeing(src, &mut |l| extras.line(l))?;
    let chain = t.rebuild(&Options::default()).unwrap_or_default();
    let rm = claude_model::choose_for(&t, &chain, src, overrides)?;
    let view = api_view(&t, &chain, src, None, &rm)?;
    let last = t.boundaries.iter().max_by_key(|b| b.pos);
    let links = super::doctor::links::dangling_links(&t, &chain);
    let payload_bytes = extras.payload;
    Ok(SessionRecord {
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
        request_bytes: Some(super::slim::request_bytes(&view)),
        resume_model: Some(rm.model.clone()),
        resume_model_choice: Some(rm.choice()),
        dangling_parents: Some(links.len()),
        chain_breaks: Some(
            links
                .iter()
                .filter(|l| l.effect.severity() == cctool_core::model::diag::Severity::Error)
                .count(),
        ),
        duplicate_uuids: Some(t.duplicate_uuids),
        ..named(src, &t, &chain)?
    })
}
