//! `compact --into-store`: the compaction placed in the store of the input's agent as a new
//! session of its own. The agent's `Converter` places and registers it as `convert
//! --into-store` does, and renames each line of it into the new session
//! (`Converter::rename`): the agent's own compaction is written first to a staging file, then
//! into the store, renamed, by the atomic writer.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use crate::agents::Converter;
use crate::cli::CompactArgs;
use crate::commands::error::Refusal;
use crate::compact::Report;
use crate::compact::file::Target;
use crate::convert::WriteOptions;
use crate::convert::store::{Rename, StoreError};
use crate::error::Error;
use crate::io::Source;
use crate::io::atomic::{occupied, write_new_file_by};
use crate::model::AgentId;
use crate::model::store::SessionHead;

/// How much of the input's head is read for its session id: a Claude Code transcript may
/// open with rows that name no session (summaries, file snapshots).
const HEAD_BYTES: u64 = 1024 * 1024;

/// A compaction on its way into its agent's store.
pub(super) struct Placing {
    converter: &'static dyn Converter,
    rename: Rename,
    /// The input's session id.
    old: String,
    /// The new session's id.
    id: String,
    /// Where the new session goes.
    path: PathBuf,
    resume: String,
    /// The folder of the staging file the agent's compaction is written to; `None` with
    /// `--dry-run`, which writes nothing.
    staging: Option<tempfile::TempDir>,
}

impl Placing {
    /// Where the compaction of `src` (of `format`) goes in its agent's store, and under which
    /// id; refused when the agent has no store, the file names no session, or (without
    /// `--force`) the new session exists already.
    pub(super) fn plan(src: &Source, format: AgentId, a: &CompactArgs) -> super::super::Result<Placing> {
        let agent = crate::agents::agent(format);
        let refused = || Refusal::CompactNoStore {
            kind: agent.about().names.kind,
        };
        let (Some(store), Some(converter)) = (agent.store(), agent.converter()) else {
            return Err(refused().into());
        };
        let rename = converter.rename().ok_or_else(refused)?;
        let head = head(src, store).map_err(Error::Read)?;
        let old = head.id.ok_or(Refusal::CompactNoSessionId)?;
        let id = new_id(format, &old, src.len(), a);
        let opts = WriteOptions {
            session_id: id.clone(),
            cwd: head
                .cwd
                .unwrap_or_else(|| std::env::current_dir().map_or_else(|_| "/".into(), |d| d.display().to_string())),
            model: None,
            reasoning_as_text: false,
            tools: &crate::convert::tools::Verbatim,
        };
        // The compaction starts with the input as written: its first line is the output's.
        let first = first_line(src).map_err(Error::Read)?;
        // No source is named: a compaction is no transcript the agent's own importer took.
        let placed = converter
            .place(first.as_deref(), &opts, None, true)
            .map_err(|e| match e {
                StoreError::NoStore(why) => super::super::Error::from(Refusal::NoStore(why)),
                e => Error::agent(e).into(),
            })?;
        if !a.dry_run && !a.force && occupied(&placed.path) {
            return Err(Error::exists(&placed.path).into());
        }
        let staging = match a.dry_run {
            true => None,
            false => Some(
                tempfile::Builder::new()
                    .prefix("cctool-compact-")
                    .tempdir()
                    .map_err(|e| Error::Io(e).about("cannot make a staging folder for the compaction"))?,
            ),
        };
        Ok(Placing {
            converter,
            rename,
            old,
            id,
            path: placed.path,
            resume: placed.resume,
            staging,
        })
    }

    /// Where the agent's compaction writes: the staging file, or (with `--dry-run`, which
    /// writes nothing) the new session's path, which the report then names.
    pub(super) fn target(&self) -> Target {
        Target::New(self.staged().unwrap_or_else(|| self.path.clone()))
    }

    fn staged(&self) -> Option<PathBuf> {
        self.staging.as_ref().map(|d| d.path().join("compacted"))
    }

    /// The compaction written to the staging file, renamed into the new session at its place
    /// in the store (replacing one there only with `force`) and registered; the report names
    /// the new session and how to resume it.
    pub(super) fn finish(self, r: &mut Report, force: bool) -> super::super::Result<()> {
        if r.output.is_none() {
            // Nothing was compacted: nothing goes into the store.
            return Ok(());
        }
        r.output = Some(self.path.display().to_string());
        r.session_id = Some(self.id.clone());
        let Some(staged) = self.staged() else {
            return Ok(());
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::Io(e).about(format!("cannot create {}", parent.display())))?;
        }
        write_new_file_by(&self.path, force, |w| self.renamed(&staged, w))
            .map_err(|e| Error::new_file(&self.path, e))?;
        r.resume = Some(self.resume.clone());
        r.registered = self.converter.register(&self.path, Some(&self.resume));
        Ok(())
    }

    /// Every line of the staged compaction, renamed into the new session where the agent
    /// records its id; refused when no line does, since the agent would then see a second copy
    /// of the input's session.
    fn renamed(&self, staged: &std::path::Path, w: &mut dyn Write) -> std::io::Result<()> {
        let mut lines = std::io::BufReader::new(std::fs::File::open(staged)?);
        let mut line = Vec::new();
        let mut renamed = 0u64;
        loop {
            line.clear();
            if lines.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let (body, end) = match line.strip_suffix(b"\n") {
                Some(body) => (body, &b"\n"[..]),
                None => (&line[..], &b""[..]),
            };
            match (self.rename)(body, &self.old, &self.id) {
                Some(new) => {
                    renamed += 1;
                    w.write_all(&new)?;
                }
                None => w.write_all(body)?,
            }
            w.write_all(end)?;
        }
        if renamed == 0 {
            return Err(std::io::Error::other(NotRenamed { id: self.old.clone() }));
        }
        Ok(())
    }
}

/// No record of the compaction names the input's session, so none could name the new one.
#[derive(Debug, thiserror::Error)]
#[error(
    "no record names the session {id} where its agent reads the session's id, so the compaction cannot become a new session; write it with -o OUT"
)]
struct NotRenamed {
    id: String,
}

/// The session id and working folder the first records of `src` give, as its agent's store
/// reads them.
fn head(src: &Source, store: &dyn crate::agents::Store) -> std::io::Result<SessionHead> {
    let bytes = src.read_range(0, src.len().min(HEAD_BYTES) as usize)?;
    let mut head = SessionHead::default();
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(rec) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        store.read_head(&rec, &mut head);
        if head.id.is_some() && head.cwd.is_some() {
            break;
        }
    }
    Ok(head)
}

/// The input's first line, without its newline.
fn first_line(src: &Source) -> std::io::Result<Option<Vec<u8>>> {
    let bytes = src.read_range(0, src.len().min(HEAD_BYTES) as usize)?;
    Ok(bytes
        .split(|&b| b == b'\n')
        .next()
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec))
}

/// The new session's id: derived from the input's session, its length (a session the agent
/// went on with is compacted anew) and what shapes the compaction, so that compacting the
/// same session the same way again names the same session, which `--force` replaces.
fn new_id(format: AgentId, old: &str, len: u64, a: &CompactArgs) -> String {
    let budget = a.budget.map(|b| b.to_string()).unwrap_or_default();
    crate::compact::ids::uuid(&[
        "cctool-compact",
        format.name(),
        old,
        &len.to_string(),
        &a.keep_recent.to_string(),
        &budget,
        &format!("{:?}", a.tier),
        &a.keep_results.to_string(),
        a.summarizer.as_deref().unwrap_or(""),
    ])
}
