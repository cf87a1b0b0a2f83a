//! How opencode's sessions follow a project folder that moved (`docs/stores.md`, "Sessions
//! follow the project"): a session is a row of the database whose `directory` the client
//! lists it by; its assistant messages say the directory they ran in (`path.cwd`, `path.root`),
//! and a project's row says its worktree and sandboxes. Everything under OLD is changed in one
//! write transaction, after a copy of the database is kept (`opencode.db.relocate.bak`).

use std::ops::Range;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

use cctool_core::error::{Error, Result};
use cctool_core::relocate::{DatabaseMoves, DatabaseRun, PathMap, Relocator, RowMove};

use crate::reclaim::{ReclaimError, backup, in_use, open};

/// opencode's answers to `relocate`.
pub struct OpencodeRelocator;

impl Relocator for OpencodeRelocator {
    /// An export document holds no directory opencode lists by: only the database does.
    fn cwd_spans(&self, _line: &[u8], _out: &mut Vec<Range<usize>>) {}

    fn placed(&self, _session: &Path, _old_cwd: &str, _new_cwd: &str) -> Option<PathBuf> {
        None
    }

    fn relocate_database(&self, db: &Path, map: &PathMap, run: DatabaseRun) -> Result<DatabaseMoves> {
        relocate(db, map, run).map_err(Error::agent)
    }
}

/// The changes to one row, found before any is made.
struct Plan {
    sessions: Vec<(String, String, String)>,
    messages: Vec<(String, String, Option<String>, Option<String>)>,
    projects: Vec<(String, Option<String>, Option<String>)>,
}

fn relocate(path: &Path, map: &PathMap, run: DatabaseRun) -> std::result::Result<DatabaseMoves, ReclaimError> {
    let mut out = DatabaseMoves::default();
    if !run.dry_run
        && !run.force
        && let Some(why) = in_use(path)
    {
        return Err(ReclaimError::Live(path.to_path_buf(), why));
    }
    let db = match run.dry_run {
        true => crate::db::open(path)?,
        false => open(path, run.force)?.0,
    };
    crate::db::is_opencode(&db)?;
    let plan = plan(&db, map)?;
    for (id, old, new) in &plan.sessions {
        let fields = 1 + plan.messages.iter().filter(|m| &m.1 == id).count() as u64;
        out.sessions.push(RowMove {
            name: format!("{}#{id}", path.display()),
            old_cwd: old.clone(),
            new_cwd: new.clone(),
            fields,
        });
    }
    for (id, worktree, _) in &plan.projects {
        if let Some(w) = worktree {
            out.notes
                .push(format!("{}: project {id}'s worktree is {w}", path.display()));
        }
    }
    if run.dry_run || plan.sessions.is_empty() && plan.projects.is_empty() {
        return Ok(out);
    }
    out.backup = Some(backup(&db, path, None, "relocate")?);
    let tx = rusqlite::Transaction::new_unchecked(&db, rusqlite::TransactionBehavior::Immediate)?;
    for (id, old, new) in &plan.sessions {
        tx.execute(
            "UPDATE session SET directory = ?3 WHERE id = ?1 AND directory = ?2",
            params![id, old, new],
        )?;
    }
    for (id, _, cwd, root) in &plan.messages {
        if let Some(cwd) = cwd {
            tx.execute(
                "UPDATE message SET data = json_set(data, '$.path.cwd', ?2) WHERE id = ?1",
                params![id, cwd],
            )?;
        }
        if let Some(root) = root {
            tx.execute(
                "UPDATE message SET data = json_set(data, '$.path.root', ?2) WHERE id = ?1",
                params![id, root],
            )?;
        }
    }
    for (id, worktree, sandboxes) in &plan.projects {
        if let Some(w) = worktree {
            tx.execute("UPDATE project SET worktree = ?2 WHERE id = ?1", params![id, w])?;
        }
        if let Some(s) = sandboxes {
            tx.execute("UPDATE project SET sandboxes = ?2 WHERE id = ?1", params![id, s])?;
        }
    }
    tx.commit()?;
    Ok(out)
}

/// Every row that names a folder under OLD, with what it will say.
fn plan(db: &Connection, map: &PathMap) -> rusqlite::Result<Plan> {
    let mut sessions = Vec::new();
    let mut st = db.prepare("SELECT id, directory FROM session")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (id, dir): (String, String) = (r.get(0)?, r.get(1)?);
        if let Some(new) = map.map(&dir) {
            sessions.push((id, dir, new));
        }
    }
    let mut messages = Vec::new();
    let mut st = db.prepare(
        "SELECT id, json_extract(data, '$.path.cwd'), json_extract(data, '$.path.root') FROM message \
         WHERE session_id = ?1 AND json_valid(data)",
    )?;
    for (sid, ..) in &sessions {
        let mut rows = st.query([sid])?;
        while let Some(r) = rows.next()? {
            let text = |i| r.get::<_, Option<String>>(i).ok().flatten();
            let (cwd, root) = (text(1).and_then(|c| map.map(&c)), text(2).and_then(|c| map.map(&c)));
            if cwd.is_some() || root.is_some() {
                messages.push((r.get(0)?, sid.clone(), cwd, root));
            }
        }
    }
    let mut projects = Vec::new();
    let mut st = db.prepare("SELECT id, worktree, sandboxes FROM project")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (id, worktree, sandboxes): (String, String, Option<String>) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let worktree = map.map(&worktree);
        let sandboxes = sandboxes.and_then(|s| relocated_list(&s, map));
        if worktree.is_some() || sandboxes.is_some() {
            projects.push((id, worktree, sandboxes));
        }
    }
    Ok(Plan {
        sessions,
        messages,
        projects,
    })
}

/// A JSON array of folders with those under OLD mapped; `None` when none is.
fn relocated_list(text: &str, map: &PathMap) -> Option<String> {
    let list: Vec<String> = serde_json::from_str(text).ok()?;
    let mut changed = false;
    let list: Vec<String> = list
        .into_iter()
        .map(|p| match map.map(&p) {
            Some(n) => {
                changed = true;
                n
            }
            None => p,
        })
        .collect();
    changed.then(|| serde_json::to_string(&list).unwrap_or_default())
}
