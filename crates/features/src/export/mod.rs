//! `cctool export`: a session as a document people read (Markdown, one self-contained HTML
//! page) or as records (the chain as JSON Lines, or the whole file in its own format), with
//! secrets and personal data redacted on the way ([`crate::redact`]).
//!
//! Every format is first read into a [`Doc`]: the messages in order, each a list of
//! [`Part`]s (text, thinking, tool calls and results, images), with the compactions marked.
//! Redaction happens on the records' JSON before they become parts, so a renderer never
//! sees a secret. Each agent streams its records as the session model's events
//! (`Agent::events`: what a resume loads, or the whole history), which `entries` makes into
//! the document's entries; what is here is the same for every agent.

mod entries;
pub mod html;
pub mod markdown;
mod md_html;
pub mod records;

use std::path::Path;

use serde_json::Value;

use crate::io::Source;
use crate::model::AgentId;
pub use crate::model::doc::{Entry, ExportError, Image, Msg, Part};
use crate::redact::Redactor;

/// A session ready to render.
#[derive(Clone, Debug)]
pub struct Doc {
    pub(crate) title: String,
    /// The file's name as given (redacted like its content).
    pub(crate) file: String,
    pub(crate) agent: &'static str,
    /// The project folder (`scan::project::folder`), redacted like the file's name.
    pub(crate) project: Option<String>,
    /// The session's last activity, in milliseconds since the epoch.
    pub(crate) last_ms: Option<i64>,
    pub(crate) entries: Vec<Entry>,
    /// Subagent transcripts of a Claude Code session, inlined after it.
    pub(crate) subagents: Vec<Doc>,
}

/// What an index page says about an exported session.
#[derive(Clone, Debug)]
pub struct Summary {
    pub(crate) title: String,
    pub(crate) project: Option<String>,
    pub(crate) last_ms: Option<i64>,
    pub(crate) agent: &'static str,
    /// The messages it shows (not counting marks such as compactions).
    pub messages: usize,
    pub(crate) first_time: Option<String>,
}

impl Doc {
    /// What the index page says of this session.
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

    pub(crate) fn messages(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e, Entry::Msg(_))).count()
    }

    /// The first time of the session, for an index.
    pub(crate) fn first_time(&self) -> Option<&str> {
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

/// A record parsed for the document, redacted first when asked.
pub(crate) fn parse_record(bytes: &[u8], redactor: Option<&Redactor>) -> Value {
    let mut v = crate::io::json::parse_kept(bytes).unwrap_or(Value::Null);
    if let Some(r) = redactor {
        r.redact_value(&mut v);
    }
    v
}

/// A project's name on an index page and its sessions (each its page's file name and summary).
pub(crate) type ProjectGroup<'a> = (Option<String>, Vec<&'a (String, Summary)>);

/// The sessions of an index page by project, each project under the shortest name that tells
/// it from the others (`scan::project::names`): the project with the newest session first,
/// and in each the newest session first. Sessions with no project come last, under `None`.
pub(crate) fn by_project(items: &[(String, Summary)]) -> Vec<ProjectGroup<'_>> {
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
pub(crate) fn shown_name(name: &str, redactor: Option<&Redactor>) -> String {
    redactor
        .and_then(|r| r.redact_str(name))
        .unwrap_or_else(|| name.to_string())
}

/// Reads a session into a document.
pub fn load(src: &Source, format: AgentId, scope: Scope, redactor: Option<&Redactor>) -> Result<Doc, ExportError> {
    let agent = crate::agents::agent(format);
    let file = shown_name(src.name(), redactor);
    let entries = entries::entries(src, format, scope.full, &|bytes| parse_record(bytes, redactor))?;
    let mut subagents = Vec::new();
    if scope.subagents {
        for path in agent.sub_sessions(Path::new(src.name()), false) {
            let sub = open_subagent(&path)?;
            let inner = Scope {
                subagents: false,
                ..scope
            };
            subagents.push(load(&sub, format, inner, redactor)?);
        }
    }
    // The title every command shows comes from the session's scan record (its one rule,
    // `scan::title`), redacted like the content.
    let record = agent.scan(src, &Default::default()).ok();
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
        agent: agent.about().display_name,
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
    format: AgentId,
    scope: Scope,
    r: &Redactor,
    bar: &indicatif::ProgressBar,
) -> Result<(), ExportError> {
    r.learn_text(src.name());
    records::learn_file(src, r, bar)?;
    if scope.subagents {
        for path in crate::agents::agent(format).sub_sessions(Path::new(src.name()), false) {
            let sub = open_subagent(&path)?;
            r.learn_text(sub.name());
            records::learn_file(&sub, r, &indicatif::ProgressBar::hidden())?;
        }
    }
    Ok(())
}
