//! `cctool search PATTERN [PATH...]`: the messages whose decoded text matches, read through
//! the session model (`crate::search`), files in parallel; hits grouped by session on a
//! terminal, one record each with --json. Exits 0 on a match, 1 on none, 2 on an error.

use serde::Serialize;

use super::FileOutcome;
use crate::ExitStatus;
use crate::cli::{GlobalArgs, SearchArgs};
use crate::model::diag::{Diagnostic, Severity};
use crate::model::session::SessionRecord;
use crate::output::Out;
use crate::search::{Case, Found, Hit, Matcher, Options, Prefilter, Query};

mod indexed;
mod show;
pub(crate) mod when;

/// A session with hits.
pub(crate) struct Matched {
    pub(crate) session: SessionRecord,
    pub(crate) found: Found,
}

pub fn run(g: &GlobalArgs, a: &SearchArgs) -> super::Result<ExitStatus> {
    let query = Query {
        patterns: std::iter::once(&a.pattern).chain(&a.and).cloned().collect(),
        regex: a.regex,
        case: match (a.ignore_case, a.case_sensitive) {
            (true, _) => Case::Insensitive,
            (_, true) => Case::Sensitive,
            _ => Case::Smart,
        },
        word: a.word,
    };
    if query.patterns.iter().any(String::is_empty) {
        return Err(super::error::Usage::EmptyPattern.into());
    }
    let matcher = Matcher::new(&query).map_err(super::error::Usage::Pattern)?;
    let prefilter = Prefilter::of(&matcher);
    let now = jiff::Timestamp::now();
    let opts = Options {
        scope: a.scope,
        thinking: a.thinking,
        tools: a.tools,
        roles: a.role.clone(),
        since_ms: when::bound("--since", a.since.as_deref(), now)?,
        until_ms: when::bound("--until", a.until.as_deref(), now)?,
        keep_messages: a.context > 0,
        prefilter: !a.no_prefilter,
        // People's `-l` names the sessions alone; `-c` and `--json` count every hit.
        first_hit: a.files_with_matches && !a.count && !g.json,
    };
    let (expanded, named) = super::session_inputs(&a.paths, &a.files, g)?;
    let used = indexed::narrow(g, a, &matcher, &opts, &expanded.inputs);
    let inputs = used.as_ref().map_or(&expanded.inputs, |(kept, _)| kept);
    let outcomes = read_hits(inputs, &named, g, a.agent, &matcher, prefilter.as_ref(), &opts);
    let mut diags: Vec<Diagnostic> = expanded.problems.clone();
    let mut errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let mut skipped = 0;
    let mut matched = Vec::new();
    for (input, o) in inputs.iter().zip(outcomes) {
        match o {
            FileOutcome::Done(Some((session, found))) if wanted(&session, a) => {
                matched.push((input.clone(), Matched { session, found }));
            }
            FileOutcome::Done(_) => {}
            other => diags.extend(other.problem_counted(input, &mut errors, &mut skipped)),
        }
    }
    if let (true, Some((_, used))) = (a.rank, &used) {
        used.rank(&mut matched);
    }
    let matched: Vec<Matched> = matched.into_iter().map(|(_, m)| m).collect();
    let mut out = Out::new(g.color);
    print(&mut out, g, a, &matched)?;
    out.flush()?;
    let mut say = g.reporter();
    super::show_diagnostics(&mut out, &mut say, g, &diags)?;
    out.flush()?;
    if skipped > 0 && !g.json {
        say.note(&super::skipped_note(skipped));
    }
    match &used {
        Some((_, used)) => say.note(&used.note()),
        None if a.rank => say.note("search: --rank needs a fresh index (`cctool index`); the hits are in file order"),
        None => {}
    }
    say.merge(if matched.is_empty() {
        ExitStatus::Negative
    } else {
        ExitStatus::Success
    });
    if errors > 0 {
        say.merge(ExitStatus::Error);
    }
    Ok(say.status())
}

/// Whether a session with hits passes `--project` and `--session`.
fn wanted(s: &SessionRecord, a: &SearchArgs) -> bool {
    let project = a.project.as_ref().is_none_or(|dir| {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        s.cwd
            .as_deref()
            .is_some_and(|cwd| std::path::Path::new(cwd).starts_with(&dir))
    });
    let session = a
        .session
        .as_deref()
        .is_none_or(|id| s.session_id.as_deref().is_some_and(|s| super::ids::names(id, s)));
    project && session
}

/// The hits, as records or for people.
/// Reads each of `inputs` for hits, files in parallel, as `search` and the MCP server's
/// `search` both do: a file of an agent other than `agent` is passed over, and only a file with
/// hits is read for what names it (its agent's `listing`: title, project, session id, last
/// activity).
pub(crate) fn read_hits(
    inputs: &[crate::io::Input],
    named: &std::collections::HashSet<crate::io::Input>,
    g: &GlobalArgs,
    agent: Option<crate::model::AgentId>,
    matcher: &Matcher,
    prefilter: Option<&Prefilter>,
    opts: &Options,
) -> Vec<FileOutcome<Option<(SessionRecord, Found)>>> {
    super::each_session_reading(
        inputs,
        named,
        g,
        "search",
        crate::io::ReadMode::Search,
        |src, format| -> crate::error::Result<Option<(SessionRecord, Found)>> {
            if agent.is_some_and(|only| only != format) {
                return Ok(None);
            }
            let (found, session) = crate::search::search_listed(src, format, matcher, prefilter, opts, true)?;
            if found.hits.is_empty() {
                return Ok(None);
            }
            let session = match session {
                Some(s) => s,
                None => crate::agents::agent(format).listing(src)?,
            };
            Ok(Some((session, found)))
        },
    )
}

fn print(out: &mut Out, g: &GlobalArgs, a: &SearchArgs, matched: &[Matched]) -> std::io::Result<()> {
    let per_session = a.files_with_matches || a.count;
    if !g.json {
        return show::text(out, a, matched);
    }
    for m in matched {
        if per_session {
            out.json(&super::record::Record::SearchSession(&SessionHits::of(m)))?;
            continue;
        }
        for h in &m.found.hits {
            out.json(&super::record::Record::Hit(&HitRecord::of(&m.session, h)))?;
        }
    }
    Ok(())
}

/// `--json`: one text of a message that matched.
#[derive(Serialize)]
pub struct HitRecord<'a> {
    session_id: Option<&'a str>,
    agent: &'static str,
    file: &'a str,
    subagent: bool,
    line: Option<u64>,
    message_id: Option<&'a str>,
    role: &'static str,
    field: &'static str,
    timestamp: Option<&'a str>,
    scope: &'static str,
    start: usize,
    end: usize,
    matches: Vec<[usize; 2]>,
    snippet: &'a str,
    snippet_start: usize,
}

impl<'a> HitRecord<'a> {
    fn of(s: &'a SessionRecord, h: &'a Hit) -> HitRecord<'a> {
        let first = h.matches.first().copied().unwrap_or_default();
        HitRecord {
            session_id: s.session_id.as_deref(),
            agent: s.format,
            file: &s.path,
            subagent: s.role == "subagent",
            line: h.line,
            message_id: h.message_id.as_deref(),
            role: h.role.name(),
            field: h.field.name(),
            timestamp: h.time.as_deref(),
            scope: if h.effective { "effective" } else { "full" },
            start: first.0,
            end: first.1,
            matches: h.matches.iter().map(|&(s, e)| [s, e]).collect(),
            snippet: &h.snippet.text,
            snippet_start: h.snippet.start,
        }
    }
}

/// `--json -l` and `--json -c`: a session that matched, and how many texts did.
#[derive(Serialize)]
pub struct SessionHits<'a> {
    session_id: Option<&'a str>,
    agent: &'static str,
    file: &'a str,
    project: Option<&'a str>,
    title: Option<&'a str>,
    hits: usize,
}

impl<'a> SessionHits<'a> {
    fn of(m: &'a Matched) -> SessionHits<'a> {
        let s = &m.session;
        SessionHits {
            session_id: s.session_id.as_deref(),
            agent: s.format,
            file: &s.path,
            project: s.project.as_deref(),
            title: s.title.as_deref(),
            hits: m.found.hits.len(),
        }
    }
}
