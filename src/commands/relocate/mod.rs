//! `cctool relocate OLD NEW`: the sessions of a project folder that moved, made to follow it
//! (docs/stores.md, "Sessions follow the project").
//!
//! Every session of the user's stores is read once, each line searched for OLD's bytes first
//! (most lines of most sessions never name it). An agent's [`Relocator`] says which strings
//! record the working directory and where its store files a session of another directory; the
//! engine here is the same for every agent: it plans every session, checks them all, tells the
//! indexes, then moves or rewrites each session (`session.rs`).

pub mod restore;
mod session;

use std::path::Path;

use serde::Serialize;

use crate::ExitStatus;
use crate::cli::{GlobalArgs, RelocateArgs};
use crate::output::Out;
use crate::output::sanitize::escape_str;
use cctool_core::relocate::{Moved, PathMap, Relocator};

use super::error::Usage;

/// What happened to one session.
#[derive(Serialize, Debug, Default)]
pub struct Relocation {
    /// The agent's id.
    pub agent: String,
    /// The session file, where it was.
    pub session: String,
    /// Its working directory before (the first one its records name under OLD).
    pub old_cwd: Option<String>,
    /// And after.
    pub new_cwd: Option<String>,
    /// `moved`, `rewritten`, `copied`, `unchanged` or `unsupported`.
    pub action: &'static str,
    /// Where the session is now, when it moved or was copied.
    pub to: Option<String>,
    /// Working-directory fields changed.
    pub cwd_fields: u64,
    /// Paths in the conversation changed (`--rewrite-content`).
    pub content_rewrites: u64,
    /// The lines those paths are on.
    pub content_lines: Vec<u64>,
    /// Subagent transcripts that went with it.
    pub subsessions: u64,
    /// The files beside it that also name its directory, rewritten (Copilot CLI's
    /// `workspace.yaml`).
    pub side_files: Vec<String>,
    /// The original, kept.
    pub backup: Option<String>,
    /// Nothing was changed.
    pub dry_run: bool,
    /// Why it was not relocated.
    pub error: Option<String>,
}

/// Runs `relocate`.
pub fn run(g: &GlobalArgs, a: &RelocateArgs) -> super::Result<ExitStatus> {
    let (old, new) = (absolute(&a.old), absolute(&a.new));
    let map = PathMap::new(&old, &new);
    if map.old() == map.new_path() {
        return Err(Usage::RelocateSame.into());
    }
    if map.map(map.new_path()).is_some() {
        return Err(Usage::RelocateInside { old, new }.into());
    }
    let mut say = g.reporter();
    let (expanded, _) = super::batch_inputs(&[], &crate::cli::FilesFromArgs::default(), g)?;
    let mut plans = Vec::new();
    let mut unsupported = Vec::new();
    let mut databases: Vec<(std::path::PathBuf, &'static dyn crate::agents::Agent)> = Vec::new();
    for input in &expanded.inputs {
        match session::plan(g, input, &map, a.rewrite_content) {
            Ok(Some(session::Found::Plan(p))) => plans.push(p),
            Ok(Some(session::Found::Unsupported(r))) => unsupported.push(r),
            Ok(Some(session::Found::Database(db, agent))) => {
                if !databases.iter().any(|(d, _)| *d == db) {
                    databases.push((db, agent));
                }
            }
            Ok(None) => {}
            Err(e) => say.file_error(&input.display_name(), &e.to_string()),
        }
    }
    let mut out = Out::new(g.color);
    let mut records = Vec::new();
    for (agent, r) in relocators(&plans) {
        let ready: Vec<&session::Plan> = plans
            .iter()
            .filter(|p| p.agent.about().format == agent && p.check(a).is_ok())
            .collect();
        // The index hears first: a rewrite stopped midway leaves sessions the index already
        // lists under NEW, which a second run finishes (a rewritten session would not be found
        // again to be told of).
        let moved: Vec<Moved> = ready.iter().filter(|p| p.dest.is_none()).map(|p| p.moved()).collect();
        match r.reindex(&moved, a.dry_run) {
            Ok(lines) => lines.iter().for_each(|l| say.note(l)),
            Err(e) => say.file_error("index", &e.to_string()),
        }
    }
    for p in &plans {
        let mut rec = p.record(a);
        if let Err(e) = p.check(a).and_then(|()| p.apply(a, &mut rec)) {
            rec.error = Some(e.to_string());
        }
        records.push(rec);
    }
    for (db, agent) in &databases {
        records.extend(whole(a, db, *agent, &mut say, |r, run| {
            r.relocate_database(db, &map, run)
        }));
    }
    // The stores that say which folder a project is (Gemini CLI's projects.json).
    let stores = crate::io::paths::default_stores();
    for dir in &stores.found {
        if let Some((agent, _)) = stores.agent_of(dir)
            && agent.relocator().is_some()
        {
            records.extend(whole(a, dir, agent, &mut say, |r, run| {
                r.relocate_store(dir, &map, run)
            }));
        }
    }
    records.extend(unsupported);
    let mut changed = 0;
    for r in &records {
        if r.error.is_some() {
            say.merge(ExitStatus::Error);
        } else if r.action != "unsupported" && r.action != "unchanged" {
            changed += 1;
        }
        match g.json {
            true => out.json(&super::record::Record::Relocation(r))?,
            false if r.error.is_some() => say.file_error(&r.session, r.error.as_deref().unwrap_or_default()),
            false => out.text(&format!("{}\n", escape_str(&describe(r))))?,
        }
    }
    out.flush()?;
    if a.dry_run && changed > 0 {
        say.merge(ExitStatus::Negative);
    }
    if records.is_empty() {
        say.note(&format!(
            "no session names {} as its working directory",
            escape_str(map.old())
        ));
    }
    say.swept();
    Ok(say.status())
}

/// The sessions of the database or store `db` relocated by `call` all at once, one record
/// each.
fn whole(
    a: &RelocateArgs,
    db: &Path,
    agent: &'static dyn crate::agents::Agent,
    say: &mut crate::output::report::Reporter,
    call: impl Fn(
        &dyn Relocator,
        cctool_core::relocate::DatabaseRun,
    ) -> crate::error::Result<cctool_core::relocate::DatabaseMoves>,
) -> Vec<Relocation> {
    let Some(r) = agent.relocator() else { return Vec::new() };
    let name = agent.about().format.name().to_string();
    let look = cctool_core::relocate::DatabaseRun {
        dry_run: true,
        force: a.force,
    };
    if a.copy && call(r, look).is_ok_and(|m| m.sessions.is_empty()) {
        return Vec::new();
    }
    if a.copy {
        return vec![Relocation {
            agent: name,
            session: db.display().to_string(),
            action: "copied",
            dry_run: a.dry_run,
            error: Some(
                session::Error::CopyById {
                    agent: agent.about().display_name,
                }
                .to_string(),
            ),
            ..Relocation::default()
        }];
    }
    let run = cctool_core::relocate::DatabaseRun {
        dry_run: a.dry_run,
        force: a.force,
    };
    match call(r, run) {
        Ok(moves) if moves.sessions.is_empty() && moves.notes.is_empty() => Vec::new(),
        Ok(moves) => {
            moves.notes.iter().for_each(|n| say.note(n));
            let backup = moves.backup.as_ref().map(|b| b.display().to_string());
            moves
                .sessions
                .into_iter()
                .map(|m| Relocation {
                    agent: name.clone(),
                    session: m.name,
                    old_cwd: Some(m.old_cwd),
                    new_cwd: Some(m.new_cwd),
                    action: "rewritten",
                    cwd_fields: m.fields,
                    backup: backup.clone(),
                    dry_run: a.dry_run,
                    ..Relocation::default()
                })
                .collect()
        }
        Err(e) => vec![Relocation {
            agent: name,
            session: db.display().to_string(),
            action: "rewritten",
            dry_run: a.dry_run,
            error: Some(e.to_string()),
            ..Relocation::default()
        }],
    }
}

/// The agents of `plans` with their relocators, each once (told apart by id: a relocator
/// holds no data, so two may share an address).
fn relocators(plans: &[session::Plan]) -> Vec<(crate::model::AgentId, &'static dyn Relocator)> {
    let mut seen: Vec<(crate::model::AgentId, &'static dyn Relocator)> = Vec::new();
    for p in plans {
        let id = p.agent.about().format;
        if !seen.iter().any(|(a, _)| *a == id) {
            seen.push((id, p.relocator));
        }
    }
    seen
}

/// `p` made absolute against the current folder, as written: OLD may no longer exist, so
/// links are not resolved.
fn absolute(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

fn describe(r: &Relocation) -> String {
    let would = if r.dry_run { "would be " } else { "" };
    let what = match (r.action, &r.to) {
        ("unsupported", _) => {
            return format!(
                "{}: {} session that mentions the folder: cctool cannot relocate {} sessions yet",
                r.session, r.agent, r.agent
            );
        }
        ("unchanged", Some(to)) => format!("already at {to}"),
        (action, Some(to)) => format!("{would}{action} to {to}"),
        (action, None) => format!("{would}{action} in place"),
    };
    let mut s = format!("{}: {} ({} working-directory field(s)", r.session, what, r.cwd_fields);
    if !r.side_files.is_empty() {
        s.push_str(&format!(", {}", r.side_files.join(", ")));
    }
    if r.subsessions > 0 {
        s.push_str(&format!(", {} subagent transcript(s)", r.subsessions));
    }
    if r.content_rewrites > 0 {
        let lines: Vec<String> = r.content_lines.iter().map(u64::to_string).collect();
        s.push_str(&format!(
            ", {} path(s) in the conversation on line(s) {}",
            r.content_rewrites,
            lines.join(", ")
        ));
    }
    s.push(')');
    if let Some(b) = &r.backup {
        s.push_str(&format!("; original kept as {b}"));
    }
    s
}
