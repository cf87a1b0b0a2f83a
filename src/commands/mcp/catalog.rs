//! The MCP server's answers (`cctool_mcp::Catalog`), made with what the commands share: the
//! user's stores and session ids (`super::super::ids`), the files read in parallel, and each
//! agent's own answers, so that `list_sessions` answers as `scan`, `search` as `cctool
//! search`, `read_session` as `rebuild-chain --format markdown` and `get_summaries` as
//! `extract-summary`.

use std::path::{Path, PathBuf};

use cctool_mcp::{Catalog, Conversation, Filter, Matched, Search, ToolError};

use super::super::FileOutcome;
use crate::cli::{FilesFromArgs, GlobalArgs};
use crate::io::{Input, Source};
use crate::model::AgentId;
use crate::model::session::SessionRecord;
use crate::output::Out;
use crate::output::render::{Render, Style};
use crate::search::{Matcher, Prefilter};
use crate::summary::SummaryRecord;

/// The user's stores, read as the commands read them.
pub(super) struct Stores {
    pub(super) g: GlobalArgs,
}

/// A filter with its agent and dates read.
struct Wanted {
    agent: Option<AgentId>,
    project: Option<PathBuf>,
    since_ms: Option<i64>,
    until_ms: Option<i64>,
}

fn tool(e: impl std::fmt::Display) -> ToolError {
    ToolError(e.to_string())
}

impl Wanted {
    fn of(f: &Filter) -> Result<Wanted, ToolError> {
        let now = jiff::Timestamp::now();
        let agent = match f.agent.as_deref() {
            None => None,
            Some(name) => Some(
                crate::agents::registry()
                    .by_name(name)
                    .map(|a| a.about().format)
                    .ok_or_else(|| {
                        let names: Vec<&str> = crate::agents::all().map(|a| a.about().format.name()).collect();
                        ToolError(format!("agent {name:?}: give one of {}", names.join(", ")))
                    })?,
            ),
        };
        let when = super::super::search::when::bound;
        Ok(Wanted {
            agent,
            project: f
                .project
                .as_ref()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| PathBuf::from(p))),
            since_ms: when("since", f.since.as_deref(), now).map_err(tool)?,
            until_ms: when("until", f.until.as_deref(), now).map_err(tool)?,
        })
    }

    /// Whether a session ran under the project asked.
    fn project(&self, s: &SessionRecord) -> bool {
        self.project
            .as_ref()
            .is_none_or(|dir| s.cwd.as_deref().is_some_and(|cwd| Path::new(cwd).starts_with(dir)))
    }

    /// Whether a session was active in the dates asked: its last activity at or after
    /// `since`, its first before `until`.
    fn active(&self, s: &SessionRecord) -> bool {
        let first = s.first_timestamp.as_deref().and_then(crate::model::time::parse_ms);
        self.since_ms.is_none_or(|t| s.last_ms.is_some_and(|l| l >= t))
            && self.until_ms.is_none_or(|t| first.or(s.last_ms).is_some_and(|f| f < t))
    }
}

impl Stores {
    /// The inputs of a batch command given `paths` (none: the user's stores).
    fn inputs(&self, paths: &[PathBuf]) -> Result<(Vec<Input>, std::collections::HashSet<Input>), ToolError> {
        let (expanded, named) =
            super::super::session_inputs(paths, &FilesFromArgs::default(), &self.g).map_err(tool)?;
        Ok((expanded.inputs, named))
    }

    /// The file `session` names: a session id, a unique prefix of one, or a path.
    fn path(&self, session: &str) -> Result<PathBuf, ToolError> {
        super::super::ids::session_path(Path::new(session)).map_err(|e| ToolError(format!("session {session:?}: {e}")))
    }

    /// The session `session` names, opened.
    fn open(&self, session: &str) -> Result<(Source, AgentId, SessionRecord), ToolError> {
        let input = crate::io::member::input_of(&self.path(session)?);
        let (src, format) =
            super::super::open_session(&input, &self.g).map_err(|e| ToolError(format!("session {session:?}: {e}")))?;
        let record = crate::agents::agent(format)
            .scan(&src, &Default::default())
            .map_err(tool)?;
        Ok((src, format, record))
    }
}

impl Catalog for Stores {
    fn sessions(&self, f: &Filter) -> Result<Vec<SessionRecord>, ToolError> {
        let w = Wanted::of(f)?;
        let (inputs, named) = self.inputs(&[])?;
        let outcomes = super::super::each_session_reading(
            &inputs,
            &named,
            &self.g,
            "scan",
            crate::io::ReadMode::Search,
            |src, format| -> crate::error::Result<Option<SessionRecord>> {
                if w.agent.is_some_and(|a| a != format) {
                    return Ok(None);
                }
                crate::agents::agent(format).scan(src, &Default::default()).map(Some)
            },
        );
        let mut records: Vec<SessionRecord> = outcomes
            .into_iter()
            .filter_map(|o| match o {
                FileOutcome::Done(r) => r,
                _ => None,
            })
            .collect();
        crate::scan::link_subagents(&mut records);
        records.retain(|r| r.role != "subagent" && w.project(r) && w.active(r));
        Ok(records)
    }

    fn search(&self, s: &Search) -> Result<Vec<Matched>, ToolError> {
        let w = Wanted::of(&s.filter)?;
        let matcher = Matcher::new(&s.query).map_err(tool)?;
        let prefilter = Prefilter::of(&matcher);
        let mut opts = s.options.clone();
        opts.since_ms = w.since_ms;
        opts.until_ms = w.until_ms;
        let paths = match &s.session {
            Some(id) => vec![self.path(id)?],
            None => Vec::new(),
        };
        let (inputs, named) = self.inputs(&paths)?;
        let outcomes =
            super::super::search::read_hits(&inputs, &named, &self.g, w.agent, &matcher, prefilter.as_ref(), &opts);
        let mut matched = Vec::new();
        for o in outcomes {
            match o {
                FileOutcome::Done(Some((session, found))) if w.project(&session) => {
                    matched.push(Matched { session, found });
                }
                // A session named that cannot be read is the answer; one of the stores that
                // cannot be read is left out, as `search` goes on past it.
                FileOutcome::Error(e) if s.session.is_some() => return Err(ToolError(e)),
                _ => {}
            }
        }
        Ok(matched)
    }

    fn conversation(&self, session: &str) -> Result<Conversation, ToolError> {
        let (src, format, record) = self.open(session)?;
        let mut out = Out::memory();
        let style = Render::new(Style::Markdown, out.paint(), false);
        let opts = crate::agents::view::ChainOptions::default();
        crate::agents::agent(format)
            .rebuild_chain(&src, &opts, Some(style), &mut out, &indicatif::ProgressBar::hidden())
            .map_err(tool)?;
        src.check()
            .map_err(|e| ToolError(format!("session {session:?}: cannot read: {e}")))?;
        let markdown =
            String::from_utf8(out.take()).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok(Conversation {
            session: record,
            markdown,
        })
    }

    fn summaries(&self, session: &str) -> Result<(SessionRecord, Vec<SummaryRecord>), ToolError> {
        let (src, format, record) = self.open(session)?;
        let (summaries, _) = crate::agents::agent(format)
            .summaries(&src, Default::default(), Default::default())
            .map_err(tool)?;
        src.check()
            .map_err(|e| ToolError(format!("session {session:?}: cannot read: {e}")))?;
        Ok((record, summaries))
    }
}
