//! One backup run: read what changed, store its new chunks, write the manifest last.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::stores::Found;
use crate::io::archive::{Archive, Chunk, FileEntry, Held, Manifest, SessionMeta, hex};

/// Fixed offsets at which a file that is not an extension of its last copy is cut.
pub(crate) const CHUNK: usize = 1 << 20;

/// A last line without its newline is taken only once the file has been left alone this
/// long: before that an agent may be writing it; after, it is what a crash left.
pub const SETTLE: Duration = Duration::from_secs(60);

/// What one backup run did: the `--json` record and the summary line of `backup`.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Report {
    /// The archive folder.
    pub archive: String,
    /// The manifest written, or null when there was nothing new.
    pub snapshot: Option<String>,
    /// Files the snapshot records: those of the stores that were taken.
    pub files: usize,
    /// Files no earlier snapshot holds a copy of.
    pub new_files: usize,
    /// Files that differ from their last copy (grown or rewritten).
    pub changed_files: usize,
    /// Files exactly as their last copy.
    pub unchanged_files: usize,
    /// Files of the last snapshot that are gone from the stores (kept in the archive).
    pub gone_files: usize,
    /// Files whose last line was still being written: the rest of it is taken next time.
    pub partial_lines: usize,
    /// Bytes of the stores taken this run that were not in the archive before.
    pub new_bytes: u64,
    /// Bytes this run wrote: new chunks (compressed) and the manifest.
    pub written_bytes: u64,
    /// A sentence for each snapshot that could not be read and each file that could not be
    /// taken; the run goes on without them.
    pub problems: Vec<String>,
}

/// The length of `path` worth taking now: all of it, except a last line without its newline
/// in a `.jsonl` file changed within `settle`.
fn taken_len(f: &mut File, len: u64, name: &Path, mtime: Option<SystemTime>, settle: Duration) -> io::Result<u64> {
    let is_jsonl = name.extension().is_some_and(|e| e == "jsonl");
    let settled = mtime
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .is_some_and(|age| age >= settle);
    if !is_jsonl || settled || len == 0 {
        return Ok(len);
    }
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut buf[..n])?;
        if let Some(i) = memchr::memrchr(b'\n', &buf[..n]) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

fn mtime_ms(m: &std::fs::Metadata) -> Option<i64> {
    let t = m.modified().ok()?;
    Some(t.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as i64)
}

/// What taking one file cost.
#[derive(Default)]
struct Cost {
    new_bytes: u64,
    /// Bytes of the chunks this run stored that the archive did not hold: what a database,
    /// rewritten in place and copied whole, adds to it.
    fresh_bytes: u64,
    written: u64,
    partial: bool,
}

/// Reads `take` bytes of `f` into chunks, keeping the chunks of `prev` when the file still
/// starts with the bytes it stored.
fn chunk_file(
    archive: &Archive,
    f: &mut File,
    take: u64,
    prev: Option<&FileEntry>,
    cost: &mut Cost,
) -> io::Result<(String, Vec<Chunk>)> {
    let mut hasher = Sha256::new();
    let mut chunks = Vec::new();
    let mut pos = 0u64;
    let mut buf = vec![0u8; CHUNK];
    if let Some(p) = prev.filter(|p| p.size > 0 && p.size <= take) {
        f.seek(SeekFrom::Start(0))?;
        let mut left = p.size;
        while left > 0 {
            let n = left.min(CHUNK as u64) as usize;
            f.read_exact(&mut buf[..n])?;
            hasher.update(&buf[..n]);
            left -= n as u64;
        }
        if hex(&hasher.clone().finalize()) == p.sha256 {
            chunks = p.chunks.clone();
            pos = p.size;
        } else {
            hasher = Sha256::new();
        }
    }
    let reused = pos;
    f.seek(SeekFrom::Start(pos))?;
    while pos < take {
        let n = (take - pos).min(CHUNK as u64) as usize;
        f.read_exact(&mut buf[..n])?;
        hasher.update(&buf[..n]);
        let (c, written) = archive.put_chunk(&buf[..n])?;
        cost.written += written;
        if written > 0 {
            cost.fresh_bytes += n as u64;
        }
        chunks.push(c);
        pos += n as u64;
    }
    cost.new_bytes += take - reused;
    Ok((hex(&hasher.finalize()), chunks))
}

/// The session's id, project, title and dates, from cctool's own scan of it.
pub(crate) fn session_meta(found: &Found) -> Option<SessionMeta> {
    if found.role != "session" && found.role != "subagent" {
        return None;
    }
    let src = crate::io::Source::open_path(&found.path, crate::io::MmapChoice::Never).ok()?;
    let rec = crate::agents::registry()
        .by_name(found.agent)?
        .scan(&src, &Default::default())
        .ok()?;
    Some(SessionMeta {
        session_id: rec.session_id,
        cwd: rec.cwd,
        project: rec.project,
        title: rec.title,
        first_timestamp: rec.first_timestamp,
        last_timestamp: rec.last_timestamp,
    })
}

/// Takes one file: reused whole when its length and time are those of its last copy.
fn take(archive: &Archive, found: &Found, prev: Option<&FileEntry>, settle: Duration) -> io::Result<(FileEntry, Cost)> {
    if found.role == super::stores::DATABASE {
        return take_database(archive, found, prev);
    }
    let mut f = File::open(&found.path)?;
    let meta = f.metadata()?;
    let len = meta.len();
    let mtime = mtime_ms(&meta);
    let mut cost = Cost::default();
    if let Some(p) = prev
        && p.seen_len == len
        && p.mtime_ms == mtime
        && p.size == len
    {
        return Ok((p.clone(), cost));
    }
    let take = taken_len(&mut f, len, &found.path, meta.modified().ok(), settle)?;
    cost.partial = take < len;
    let (sha256, chunks) = chunk_file(archive, &mut f, take, prev, &mut cost)?;
    let entry = FileEntry {
        agent: found.agent.to_string(),
        role: found.role.to_string(),
        path: found.path.to_string_lossy().into_owned(),
        store: found.store.to_string_lossy().into_owned(),
        rel: found.rel.to_string_lossy().into_owned(),
        size: take,
        seen_len: len,
        mtime_ms: mtime,
        sha256,
        chunks,
        session: None,
        held: Vec::new(),
    };
    let session = match prev {
        // Same bytes: same session (an unfinished line was all that changed).
        Some(p) if p.sha256 == entry.sha256 => p.session.clone(),
        _ => session_meta(found),
    };
    let entry = FileEntry { session, ..entry };
    Ok((entry, cost))
}

/// Takes a database in which an agent keeps many sessions: a consistent copy made by its
/// agent ([`crate::agents::Container::snapshot`]) into a file beside the archive's chunks,
/// cut into chunks at fixed offsets (a database rewrites pages in place, so the pieces that
/// did not change are stored once) and the sessions it holds listed for `restore`. Passed
/// over when neither the database nor its log changed since its last copy.
fn take_database(archive: &Archive, found: &Found, prev: Option<&FileEntry>) -> io::Result<(FileEntry, Cost)> {
    let agent = crate::agents::registry()
        .by_name(found.agent)
        .ok_or_else(|| io::Error::other(format!("{}: not a database this cctool reads", found.path.display())))?;
    let container = agent
        .container()
        .ok_or_else(|| io::Error::other(format!("{}: not a database this cctool reads", found.path.display())))?;
    let (seen_len, when) = container.state(&found.path)?;
    let mtime = when.and_then(|t| Some(t.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as i64));
    let mut cost = Cost::default();
    if let Some(p) = prev
        && p.seen_len == seen_len
        && p.mtime_ms == mtime
    {
        return Ok((p.clone(), cost));
    }
    let copy = tempfile::Builder::new()
        .prefix(".database-")
        .suffix(".tmp")
        .tempfile_in(&archive.root)?;
    container.snapshot(&found.path, copy.path())?;
    let mut f = File::open(copy.path())?;
    let size = f.metadata()?.len();
    let (sha256, chunks) = chunk_file(archive, &mut f, size, None, &mut cost)?;
    cost.new_bytes = cost.fresh_bytes;
    let held = held(agent, container, copy.path());
    let entry = FileEntry {
        agent: found.agent.to_string(),
        role: found.role.to_string(),
        path: found.path.to_string_lossy().into_owned(),
        store: found.store.to_string_lossy().into_owned(),
        rel: found.rel.to_string_lossy().into_owned(),
        size,
        seen_len,
        mtime_ms: mtime,
        sha256,
        chunks,
        session: None,
        held,
    };
    Ok((entry, cost))
}

/// The sessions the database copy at `path` holds, each as `scan` sees it. One that cannot
/// be read is listed by its id alone: it is in the copy all the same.
fn held(agent: &dyn crate::agents::Agent, container: &dyn crate::agents::Container, path: &Path) -> Vec<Held> {
    let Some(members) = container.members(path) else {
        return Vec::new();
    };
    members
        .sessions
        .iter()
        .map(|m| {
            let rec = container.read(path, &m.id).ok().and_then(|bytes| {
                let src = crate::io::Source::from_bytes(&m.name(), bytes);
                agent.scan(&src, &Default::default()).ok()
            });
            Held {
                id: m.id.clone(),
                bytes: m.size,
                modified_ms: m.modified_ms,
                session: rec.map_or_else(SessionMeta::default, |rec| SessionMeta {
                    session_id: rec.session_id,
                    cwd: rec.cwd,
                    project: rec.project,
                    title: rec.title,
                    first_timestamp: rec.first_timestamp,
                    last_timestamp: rec.last_timestamp,
                }),
            }
        })
        .collect()
}

/// Backs up `files` into `archive`. `kind`: `backup` for a whole run, `hook` for the few
/// files a hook takes (a hook snapshot never counts files as gone).
pub fn backup(
    archive: &Archive,
    files: &[Found],
    kind: &'static str,
    settle: Duration,
    bar: &indicatif::ProgressBar,
) -> io::Result<Report> {
    let lock = archive.lock()?;
    backup_locked(archive, &lock, files, kind, settle, bar)
}

/// [`backup`] by a caller that holds the archive's lock.
pub(crate) fn backup_locked(
    archive: &Archive,
    _lock: &crate::io::archive::Lock,
    files: &[Found],
    kind: &'static str,
    settle: Duration,
    bar: &indicatif::ProgressBar,
) -> io::Result<Report> {
    use rayon::prelude::*;
    let (manifests, bad) = archive.manifests()?;
    let mut report = Report {
        archive: archive.root.display().to_string(),
        problems: bad.iter().map(ToString::to_string).collect(),
        ..Report::default()
    };
    let mut prev: HashMap<&str, &FileEntry> = HashMap::new();
    for (_, m) in &manifests {
        for f in &m.files {
            prev.insert(f.path.as_str(), f);
        }
    }
    let last_full = manifests.iter().rev().find(|(_, m)| m.kind == "backup").map(|(_, m)| m);
    bar.set_length(files.len() as u64);
    let results: Vec<io::Result<(FileEntry, Cost)>> = files
        .par_iter()
        .map(|found| {
            let r = take(
                archive,
                found,
                prev.get(found.path.to_string_lossy().as_ref()).copied(),
                settle,
            );
            bar.inc(1);
            r
        })
        .collect();
    let mut entries = Vec::with_capacity(files.len());
    for (found, r) in files.iter().zip(results) {
        match r {
            Ok((e, cost)) => {
                match prev.get(e.path.as_str()) {
                    None => report.new_files += 1,
                    Some(p) if p.sha256 == e.sha256 && p.size == e.size => report.unchanged_files += 1,
                    Some(_) => report.changed_files += 1,
                }
                report.partial_lines += usize::from(cost.partial);
                report.new_bytes += cost.new_bytes;
                report.written_bytes += cost.written;
                entries.push(e);
            }
            // Gone between the walk and the read: an agent deleted or renamed it.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => report
                .problems
                .push(format!("{}: cannot back up: {e}", found.path.display())),
        }
    }
    report.files = entries.len();
    if kind == "backup" {
        let now: HashSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        report.gone_files = last_full.map_or(0, |m| m.files.iter().filter(|f| !now.contains(f.path.as_str())).count());
    }
    let same_as_last = last_full.is_some_and(|m| {
        m.files.len() == entries.len()
            && m.files
                .iter()
                .zip(&entries)
                .all(|(a, b)| a.path == b.path && a.sha256 == b.sha256 && a.size == b.size)
    });
    let nothing_new = report.new_files == 0
        && report.changed_files == 0
        && report.gone_files == 0
        && (kind != "backup" || same_as_last);
    if !nothing_new {
        let m = Manifest {
            format: crate::io::archive::FORMAT.into(),
            version: crate::io::archive::VERSION,
            created: crate::model::time::format_ms(now_ms()),
            kind: kind.into(),
            files: entries,
        };
        let (path, size) = archive.write_manifest(&m)?;
        report.written_bytes += size;
        report.snapshot = Some(path.display().to_string());
    }
    Ok(report)
}

/// Each of `files` taken into `archive` (by a caller that holds its lock), unchanged ones
/// from their last copy there without being read: what `merge` reads of a home's stores. A
/// file that cannot be read is a sentence in `problems`.
pub(crate) fn take_all(
    archive: &Archive,
    _lock: &crate::io::archive::Lock,
    files: &[Found],
    settle: Duration,
    bar: &indicatif::ProgressBar,
    problems: &mut Vec<String>,
) -> io::Result<Vec<FileEntry>> {
    use rayon::prelude::*;
    let (manifests, _) = archive.manifests()?;
    let mut prev: HashMap<&str, &FileEntry> = HashMap::new();
    for (_, m) in &manifests {
        for f in &m.files {
            prev.insert(f.path.as_str(), f);
        }
    }
    bar.inc_length(files.len() as u64);
    let results: Vec<io::Result<(FileEntry, Cost)>> = files
        .par_iter()
        .map(|found| {
            let r = take(
                archive,
                found,
                prev.get(found.path.to_string_lossy().as_ref()).copied(),
                settle,
            );
            bar.inc(1);
            r
        })
        .collect();
    let mut out = Vec::with_capacity(files.len());
    for (found, r) in files.iter().zip(results) {
        match r {
            Ok((e, _)) => out.push(e),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => problems.push(format!("{}: cannot read: {e}", found.path.display())),
        }
    }
    Ok(out)
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
