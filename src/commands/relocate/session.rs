//! One session relocated: found and planned, checked, then rewritten where it is or moved (or
//! copied) to where its agent looks for the sessions of NEW, with what belongs to it.
//!
//! A move is a sequence in which a kill at any point leaves every session readable and a
//! second run finishes it: the session is first written whole at its destination (a new file,
//! atomically), its subagent transcripts are rewritten in place and their folder renamed
//! beside it, and only then is the original renamed to its backup. A destination that already
//! holds exactly what would be written is the sign of a run that stopped there.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Relocation;
use crate::agents::Agent;
use crate::io::atomic::{InPlace, Output, Seen, backup_path, rename_synced, replace_with_backup_by, write_new_file_by};
use crate::io::source::{COLD_AFTER, MmapChoice};
use crate::io::{Input, Source};
use cctool_core::relocate::{Edit, LineEdits, Moved, PathMap, Relocator, line_edits};

/// Why one session was not relocated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// It may still be written.
    #[error(
        "not relocated: modified {secs} s ago, so its agent may still be writing it; retry in a minute, or pass --force"
    )]
    Live { secs: u64 },
    /// Another process holds it open for writing, or it cannot be rewritten.
    #[error("not relocated: {0}; pass --force to relocate it anyway")]
    Held(&'static str),
    /// A different file is where the session would go.
    #[error("not relocated: {} already exists and is not this session relocated; pass --force to replace it", .0.display())]
    Exists(PathBuf),
    /// The store would hold two sessions with one id.
    #[error(
        "not copied: {agent} finds a session by its id whatever the folder, so a copy would be a second session with the same id; relocate it without --copy"
    )]
    CopyById { agent: &'static str },
    /// Both the old and the new folder of its subagent transcripts exist.
    #[error("not relocated: both {} and {} exist; move what belongs to the session by hand", .from.display(), .to.display())]
    SideFolders { from: PathBuf, to: PathBuf },
    /// A failure of the system, with the file it is about.
    #[error("{}: {cause}", .path.display())]
    Io { path: PathBuf, cause: std::io::Error },
}

pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |cause| Error::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// A session under OLD, or one an agent cctool cannot relocate that mentions it.
pub enum Found {
    /// To be relocated.
    Plan(Plan),
    /// Reported only.
    Unsupported(Relocation),
    /// A session of an agent's database, relocated with the whole database.
    Database(PathBuf, &'static dyn Agent),
}

/// What reading a session file found.
#[derive(Clone, Debug, Default)]
pub struct Survey {
    pub(super) len: u64,
    seen: Option<Seen>,
    age: Option<Duration>,
    held: Option<&'static str>,
    pub(super) cwd: u64,
    content: u64,
    lines: Vec<u64>,
    /// Bytes the file grows (or shrinks) by.
    pub(super) delta: i64,
    /// The working directories under OLD its records name, in order, each once.
    pub(super) cwds: Vec<String>,
}

/// One session to relocate.
pub struct Plan {
    pub(super) agent: &'static dyn Agent,
    pub(super) relocator: &'static dyn Relocator,
    pub(super) path: PathBuf,
    survey: Survey,
    subs: Vec<(PathBuf, Survey)>,
    pub(super) dest: Option<PathBuf>,
    map: PathMap,
    content: bool,
}

/// The session `input` names, when its working directory is under OLD.
pub fn plan(g: &crate::cli::GlobalArgs, input: &Input, map: &PathMap, content: bool) -> Result<Option<Found>, Error> {
    if let Input::Member(m) = input {
        let agent = crate::agents::agent(m.agent);
        // A folder is opencode's older storage, which the client no longer reads once migrated.
        if agent.relocator().is_some() && m.container.is_file() {
            return Ok(Some(Found::Database(m.container.clone(), agent)));
        }
    }
    let src = match Source::open_found(input, g.mmap) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => return Ok(None),
        Err(e) => {
            return Err(Error::Io {
                path: PathBuf::from(input.display_name()),
                cause: e,
            });
        }
    };
    let name = PathBuf::from(input.display_name());
    if !src.contains_any(&[map.needle()]).map_err(io(&name))? {
        return Ok(None);
    }
    let Ok(id) = crate::agents::detect::detect(&src) else {
        return Ok(None);
    };
    let agent = crate::agents::agent(id);
    let (Input::Path(path), Some(relocator)) = (input, agent.relocator()) else {
        return Ok(Some(Found::Unsupported(Relocation {
            agent: id.name().to_string(),
            session: input.display_name(),
            action: "unsupported",
            ..Relocation::default()
        })));
    };
    if agent.is_sub_session_path(path) {
        return Ok(None);
    }
    let found = survey(&src, relocator, map, content).map_err(io(path))?;
    if found.cwds.is_empty() {
        return Ok(None);
    }
    let dest = found.cwds.iter().find_map(|c| relocator.placed(path, c, &map.map(c)?));
    let mut subs = Vec::new();
    for sub in agent.sub_sessions(path, true) {
        let s = Source::open_path(&sub, MmapChoice::Auto).map_err(io(&sub))?;
        let sv = survey(&s, relocator, map, content).map_err(io(&sub))?;
        subs.push((sub, sv));
    }
    Ok(Some(Found::Plan(Plan {
        agent,
        relocator,
        path: path.clone(),
        survey: found,
        subs,
        dest,
        map: map.clone(),
        content,
    })))
}

/// Every line of `src` read for what relocating it would change.
pub(super) fn survey(src: &Source, r: &dyn Relocator, map: &PathMap, content: bool) -> std::io::Result<Survey> {
    let mut s = Survey {
        len: src.len(),
        seen: Some(Seen::of(src)),
        age: src.recently_modified(),
        held: src.in_place_refusal(),
        ..Survey::default()
    };
    let mut edits = Vec::new();
    crate::io::lines::for_each_line(src, |line| {
        let found: LineEdits = line_edits(line.bytes, r, map, content, &mut edits);
        s.cwd += found.cwd;
        s.content += found.content;
        if found.content > 0 {
            s.lines.push(line.no);
        }
        s.delta += edits
            .iter()
            .map(|e| e.with.len() as i64 - e.span.len() as i64)
            .sum::<i64>();
        if found.cwd > 0 {
            let mut spans = Vec::new();
            r.cwd_spans(line.bytes, &mut spans);
            for sp in spans {
                if let Ok(c) = serde_json::from_slice::<String>(&line.bytes[sp])
                    && map.map(&c).is_some()
                    && !s.cwds.contains(&c)
                    && s.cwds.len() < 16
                {
                    s.cwds.push(c);
                }
            }
        }
    })?;
    src.settle()?;
    Ok(s)
}

/// Writes `src` relocated: every byte as it is but the edits, so line endings, blank lines
/// and a last line without its newline stay.
pub(super) fn write_relocated(
    src: &Source,
    r: &dyn Relocator,
    map: &PathMap,
    content: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut at = 0u64;
    let mut failed = None;
    let mut edits: Vec<Edit> = Vec::new();
    let copy = |from: u64, to: u64, w: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut pos = from;
        while pos < to {
            let n = (to - pos).min(1 << 24) as usize;
            w.write_all(&src.read_range(pos, n)?)?;
            pos += n as u64;
        }
        Ok(())
    };
    crate::io::lines::for_each_line(src, |line| {
        if failed.is_some() {
            return;
        }
        line_edits(line.bytes, r, map, content, &mut edits);
        for e in &edits {
            let start = line.offset + e.span.start as u64;
            let done = copy(at, start, w).and_then(|()| w.write_all(&e.with));
            if let Err(err) = done {
                failed = Some(err);
                return;
            }
            at = line.offset + e.span.end as u64;
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    copy(at, src.len(), w)?;
    src.settle()
}

/// `src` relocated written at `to`: a new file, or, over a file that is there (the caller was
/// told to replace it), with that file kept as `FILE.<tag>.bak`; the backup's path then.
pub(super) fn put_relocated(
    src: &Source,
    r: &dyn Relocator,
    map: &PathMap,
    content: bool,
    to: &Path,
    tag: &str,
) -> Result<Option<PathBuf>, Error> {
    let write = |w: &mut Output| write_relocated(src, r, map, content, w);
    match std::fs::metadata(to) {
        Ok(m) => {
            let how = InPlace {
                tag,
                seen: Seen {
                    len: m.len(),
                    modified: m.modified().ok(),
                },
                force: true,
            };
            let done = replace_with_backup_by(to, &how, write).map_err(io(to))?;
            Ok(Some(done.backup))
        }
        Err(_) => write_new_file_by(to, false, write).map(|()| None).map_err(io(to)),
    }
}

/// Whether the file `dest` holds exactly `src` relocated: a run that stopped after writing it,
/// or the same restore done before. Read only when its length is the one expected.
pub(super) fn already_written(
    src: &Source,
    r: &dyn Relocator,
    map: &PathMap,
    content: bool,
    dest: &Path,
    expected: u64,
) -> std::io::Result<bool> {
    use sha2::Digest;
    if std::fs::metadata(dest)?.len() != expected {
        return Ok(false);
    }
    struct Hashing(sha2::Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut want = Hashing(sha2::Sha256::new());
    write_relocated(src, r, map, content, &mut want)?;
    let mut have = Hashing(sha2::Sha256::new());
    std::io::copy(&mut std::fs::File::open(dest)?, &mut have)?;
    Ok(want.0.finalize() == have.0.finalize())
}

/// A run killed here (`CCTOOL_RELOCATE_DIE_AT=STEP`) is what the crash tests resume from.
fn die_at(step: &str) {
    if std::env::var("CCTOOL_RELOCATE_DIE_AT").is_ok_and(|s| s == step) {
        std::process::abort();
    }
}

impl Plan {
    /// The session as its index hears of it.
    pub fn moved(&self) -> Moved {
        let old = self.survey.cwds.first().cloned().unwrap_or_default();
        Moved {
            session: self.path.clone(),
            new_cwd: self.map.map(&old).unwrap_or_default(),
            old_cwd: old,
        }
    }

    /// The record of what this run does, before it does it.
    pub fn record(&self, a: &crate::cli::RelocateArgs) -> Relocation {
        let moved = self.moved();
        Relocation {
            agent: self.agent.about().format.name().to_string(),
            session: self.path.display().to_string(),
            old_cwd: Some(moved.old_cwd),
            new_cwd: Some(moved.new_cwd),
            action: match (&self.dest, a.copy) {
                (None, _) => "rewritten",
                (Some(_), false) => "moved",
                (Some(_), true) => "copied",
            },
            to: self.dest.as_ref().map(|d| d.display().to_string()),
            cwd_fields: self.survey.cwd + self.subs.iter().map(|(_, s)| s.cwd).sum::<u64>(),
            content_rewrites: self.survey.content + self.subs.iter().map(|(_, s)| s.content).sum::<u64>(),
            content_lines: self.survey.lines.clone(),
            subsessions: self.subs.len() as u64,
            dry_run: a.dry_run,
            ..Relocation::default()
        }
    }

    /// Whether the session may be relocated now.
    pub fn check(&self, a: &crate::cli::RelocateArgs) -> Result<(), Error> {
        if a.copy && (self.dest.is_none() || !self.relocator.copy_keeps_id()) {
            return Err(Error::CopyById {
                agent: self.agent.about().display_name,
            });
        }
        if a.dry_run || a.force {
            return Ok(());
        }
        for s in std::iter::once(&self.survey).chain(self.subs.iter().map(|(_, s)| s)) {
            if let Some(age) = s.age.filter(|age| *age < COLD_AFTER) {
                return Err(Error::Live { secs: age.as_secs() });
            }
            if let Some(why) = s.held {
                return Err(Error::Held(why));
            }
        }
        Ok(())
    }

    /// Relocates the session, saying in `rec` where it went and what was kept.
    pub fn apply(&self, a: &crate::cli::RelocateArgs, rec: &mut Relocation) -> Result<(), Error> {
        let side_files = self.relocator.side_files(&self.path, &self.map);
        rec.side_files = side_files.iter().map(|(p, _)| p.display().to_string()).collect();
        if a.dry_run {
            return Ok(());
        }
        // Before the session: once the session names NEW, a second run no longer finds it.
        for (path, bytes) in &side_files {
            crate::io::atomic::replace_with_backup(path, bytes, "relocate").map_err(io(path))?;
        }
        let Some(dest) = &self.dest else {
            for (sub, s) in &self.subs {
                self.rewrite_in_place(sub, s, a.force)?;
            }
            rec.backup = self.rewrite_in_place(&self.path, &self.survey, a.force)?;
            die_at("rewritten");
            return Ok(());
        };
        let folder = dest.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder).map_err(io(folder))?;
        // A copy made before is this run's answer; a move that stopped after writing its
        // destination goes on to the end.
        if !self.write_new(&self.path, &self.survey, dest, a.force)? && a.copy {
            rec.action = "unchanged";
        }
        die_at("written");
        let side = self.relocator.side_folder(&self.path).filter(|s| s.is_dir());
        let to_side = side.as_ref().and_then(|s| Some(folder.join(s.file_name()?)));
        for (sub, s) in &self.subs {
            let inside = side.as_ref().is_some_and(|d| sub.starts_with(d));
            match (inside, a.copy) {
                (true, false) => {
                    self.rewrite_in_place(sub, s, a.force)?;
                }
                (true, true) => {}
                (false, _) => {
                    let to = folder.join(sub.file_name().unwrap_or_default());
                    self.write_new(sub, s, &to, a.force)?;
                    if !a.copy {
                        rename_synced(sub, &backup_path(sub, "relocate")).map_err(io(sub))?;
                    }
                }
            }
        }
        if let (Some(side), Some(to_side)) = (&side, &to_side) {
            match a.copy {
                true => self.copy_side(side, to_side)?,
                false if to_side.exists() => {
                    return Err(Error::SideFolders {
                        from: side.clone(),
                        to: to_side.clone(),
                    });
                }
                false => rename_synced(side, to_side).map_err(io(side))?,
            }
        }
        die_at("side-moved");
        if !a.copy {
            let backup = backup_path(&self.path, "relocate");
            rename_synced(&self.path, &backup).map_err(io(&self.path))?;
            rec.backup = Some(backup.display().to_string());
        }
        Ok(())
    }

    /// `path` rewritten where it is, its original kept as `FILE.relocate.bak`; `None` when
    /// nothing in it changes.
    fn rewrite_in_place(&self, path: &Path, s: &Survey, force: bool) -> Result<Option<String>, Error> {
        if s.cwd + s.content == 0 {
            return Ok(None);
        }
        let src = Source::open_path(path, MmapChoice::Auto).map_err(io(path))?;
        let how = InPlace {
            tag: "relocate",
            seen: s.seen.unwrap_or_else(|| Seen::of(&src)),
            force,
        };
        let done = replace_with_backup_by(path, &how, |w: &mut Output| {
            write_relocated(&src, self.relocator, &self.map, self.content, w)
        })
        .map_err(io(path))?;
        Ok(Some(done.backup.display().to_string()))
    }

    /// `path` relocated, written as the new file `to`: `false` when `to` already holds it
    /// (a run that stopped after writing it).
    fn write_new(&self, path: &Path, s: &Survey, to: &Path, force: bool) -> Result<bool, Error> {
        let src = Source::open_path(path, MmapChoice::Auto).map_err(io(path))?;
        if to.exists() {
            let expected = (s.len as i64 + s.delta) as u64;
            if already_written(&src, self.relocator, &self.map, self.content, to, expected).map_err(io(to))? {
                return Ok(false);
            }
            if !force {
                return Err(Error::Exists(to.to_path_buf()));
            }
        }
        put_relocated(&src, self.relocator, &self.map, self.content, to, "relocate")?;
        Ok(true)
    }

    /// The session's folder copied to `to`, its subagent transcripts relocated and the rest as
    /// it is; a file already there is kept, so a copy that stopped is finished.
    fn copy_side(&self, side: &Path, to: &Path) -> Result<(), Error> {
        for entry in walkdir::WalkDir::new(side).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::Io {
                path: side.to_path_buf(),
                cause: e.into(),
            })?;
            let rel = entry.path().strip_prefix(side).unwrap_or(entry.path());
            let target = to.join(rel);
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).map_err(io(&target))?;
                continue;
            }
            if target.exists() || !entry.file_type().is_file() {
                continue;
            }
            match self.subs.iter().find(|(p, _)| p == entry.path()) {
                Some((p, s)) => {
                    self.write_new(p, s, &target, false)?;
                }
                None => {
                    let mut from = std::fs::File::open(entry.path()).map_err(io(entry.path()))?;
                    write_new_file_by(&target, false, |w: &mut Output| std::io::copy(&mut from, w).map(drop))
                        .map_err(io(&target))?;
                }
            }
        }
        Ok(())
    }
}
