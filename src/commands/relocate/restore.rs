//! `restore --map OLD=NEW`: sessions of an archive made on another machine put back in this
//! one's stores with every path under OLD mapped, as `relocate` maps them: the stores they were
//! in (a store that is not here becomes this machine's store of that agent), the folders the
//! agents file them in, and the working directories their records name.

use std::path::{Path, PathBuf};

use cctool_core::io::archive::{Archive, FileEntry, Stored};
use cctool_core::io::source::MmapChoice;
use cctool_core::io::{Input, Source};
use cctool_core::relocate::PathMap;

use super::session::{already_written, io, put_relocated, survey};
use crate::backup::restore::{self, Escape, Put};

/// The restore of one archive with paths mapped: where each session went, so that the files
/// that belong to it follow.
pub struct Mapped {
    map: PathMap,
    /// Each session's side folder as the archive has it, and where it is put.
    folders: Vec<(PathBuf, PathBuf)>,
    /// The sessions put back, for the files beside them that name their directory.
    sessions: Vec<(&'static dyn crate::agents::Agent, PathBuf)>,
}

impl Mapped {
    /// A restore mapping `old` to `new`.
    pub fn new(old: &str, new: &str) -> Mapped {
        Mapped {
            map: PathMap::new(old, new),
            folders: Vec::new(),
            sessions: Vec::new(),
        }
    }

    /// Where `f` goes: its store mapped (else this machine's store of its agent), checked as
    /// `restore` checks every entry.
    pub fn target(&self, f: &FileEntry, to: Option<&Path>, roots: &[(&str, PathBuf)]) -> Result<PathBuf, Escape> {
        let mut here = f.clone();
        if let Some(store) = self.map.map(&f.store) {
            here.path = Path::new(&store).join(&f.rel).display().to_string();
            here.store = store;
        }
        let known = roots.iter().any(|(a, r)| *a == f.agent && r == Path::new(&here.store));
        if to.is_none()
            && !known
            && let Some((_, root)) = roots.iter().find(|(a, _)| *a == f.agent)
        {
            here.path = root.join(&f.rel).display().to_string();
            here.store = root.display().to_string();
        }
        let target = restore::target(&here, to, roots)?;
        Ok(self
            .folders
            .iter()
            .find_map(|(from, into)| Some(into.join(target.strip_prefix(from).ok()?)))
            .unwrap_or(target))
    }

    /// Puts `f` back at `target` (or where its agent files a session of the mapped directory),
    /// its working directories mapped; where it went.
    pub fn put(
        &mut self,
        archive: &Archive,
        f: &FileEntry,
        target: &Path,
        force: bool,
    ) -> Result<(Put, PathBuf), String> {
        let agent = crate::agents::registry().by_name(&f.agent);
        let relocator = agent.and_then(|a| a.relocator());
        let (Some(agent), Some(r), true) = (agent, relocator, cctool_core::io::paths::is_candidate(target)) else {
            return restore::restore_file(archive, f, target, force)
                .map(|p| (p, target.to_path_buf()))
                .map_err(|e| e.to_string());
        };
        let top = agent.store().map_or("", |s| s.archive_folder());
        let input = Input::Archived(Box::new(Stored::of(&archive.root, top, f)));
        let src = Source::open(&input, MmapChoice::Auto).map_err(|e| format!("{}: {e}", f.path))?;
        let found = survey(&src, r, &self.map, false).map_err(|e| format!("{}: {e}", f.path))?;
        let dest = match f.role.as_str() {
            "session" => found
                .cwds
                .iter()
                .find_map(|c| r.placed(target, c, &self.map.map(c)?))
                .unwrap_or_else(|| target.to_path_buf()),
            _ => target.to_path_buf(),
        };
        let diverged = restore::diverged_name(f, dest.clone());
        if diverged != dest {
            let put = write(
                &src,
                r,
                &self.map,
                &diverged,
                (found.len as i64 + found.delta) as u64,
                force,
            )?;
            return Ok((put, diverged));
        }
        if let (Some(from), Some(into)) = (r.side_folder(target), r.side_folder(&dest))
            && from != into
        {
            self.folders.push((from, into));
        }
        if f.role == "session" {
            self.sessions.push((agent, dest.clone()));
        }
        let expected = (found.len as i64 + found.delta) as u64;
        let put = write(&src, r, &self.map, &dest, expected, force)?;
        Ok((put, dest))
    }

    /// The files beside each session put back that name its directory (Copilot CLI's
    /// `workspace.yaml`), mapped: one message for each that could not be.
    pub fn finish(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (agent, session) in &self.sessions {
            let Some(r) = agent.relocator() else { continue };
            for (path, bytes) in r.side_files(session, &self.map) {
                if let Err(e) = cctool_core::io::atomic::replace_with_backup(&path, &bytes, "relocate") {
                    problems.push(format!("{}: {e}", path.display()));
                }
            }
        }
        problems
    }
}

/// `src` relocated into the new file `dest`; a file there with the length it would have is a
/// restore done before, anything else is refused without `force`.
fn write(
    src: &Source,
    r: &dyn cctool_core::relocate::Relocator,
    map: &PathMap,
    dest: &Path,
    expected: u64,
    force: bool,
) -> Result<Put, String> {
    if dest.exists() {
        if already_written(src, r, map, false, dest, expected).map_err(|e| io(dest)(e).to_string())? {
            return Ok(Put::Same);
        }
        if !force {
            return Err(format!(
                "{}: a different file is there (another copy of the session: see `merge`); pass --force to replace it, \
                 keeping it as FILE.cctool-restore.bak",
                dest.display()
            ));
        }
    }
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir)(e).to_string())?;
    }
    match put_relocated(src, r, map, false, dest, "cctool-restore").map_err(|e| e.to_string())? {
        Some(backup) => Ok(Put::Replaced { backup }),
        None => Ok(Put::New),
    }
}
