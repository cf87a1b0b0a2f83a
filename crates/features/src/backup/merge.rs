//! `cctool merge SOURCE…`: the archives and stores of several machines made one archive, each
//! session once. A session is known by its agent and id wherever its machine kept it; of the
//! copies the sources hold, one that is a prefix of another (the same session, backed up
//! earlier or on a machine that saw less of it) is the longer one's, and copies that went
//! apart (resumed on two machines) are all kept and reported. The archive merged into is a
//! source too, so a second merge adds only what is new, and nothing in it is ever rewritten.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::stores::{self, Found};
use crate::io::archive::{Archive, FileEntry, Manifest, hex};

/// What a merge read, kept, and found apart.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Report {
    /// The archive merged into.
    pub archive: String,
    /// Each source, as named.
    pub sources: Vec<String>,
    /// Files read from the sources (the archive's own included).
    pub files: usize,
    /// Files kept in the merged snapshot.
    pub kept: usize,
    /// Copies left out because another copy holds the same bytes.
    pub identical: usize,
    /// Copies left out because another copy holds them and more.
    pub prefixes: usize,
    /// Sessions whose copies went apart: every copy is kept.
    pub diverged: Vec<Diverged>,
    /// The snapshot written; null when the archive already held everything.
    pub snapshot: Option<String>,
    /// What could not be read, one sentence each; the merge goes on without it.
    pub problems: Vec<String>,
}

/// A session whose copies differ past a common start.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Diverged {
    /// The agent's id.
    pub agent: String,
    /// The session's id (or the file's path below its store).
    pub session: String,
    /// Each copy kept: where it was, on which source, and its length.
    pub copies: Vec<Copy>,
}

/// One copy of a diverged session.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Copy {
    /// The source it came from.
    pub source: String,
    /// The path it had there.
    pub path: String,
    /// The path the merged snapshot files it under: the original path for the longest copy,
    /// with `#diverged-<sha>` for the others (which `restore` writes beside it, as
    /// `FILE.diverged-<sha>`, a name the agent does not list).
    pub kept_as: String,
    /// Its length in bytes.
    pub bytes: u64,
}

/// A source of a merge.
pub enum Source {
    /// Another archive: its newest copy of every file.
    Archive(PathBuf),
    /// A home folder of another machine (or this one's), whose agents' stores are read as
    /// cctool reads them under that home.
    Home(PathBuf),
}

impl Source {
    /// An archive when the folder is one, else a home.
    pub fn of(path: &Path) -> Source {
        match Archive::is_archive(path) {
            true => Source::Archive(path.to_path_buf()),
            false => Source::Home(path.to_path_buf()),
        }
    }

    fn name(&self) -> String {
        match self {
            Source::Archive(p) | Source::Home(p) => p.display().to_string(),
        }
    }
}

/// One copy of a file, its chunks in the archive merged into.
struct Cand {
    source: String,
    /// The source's place in the command line; the archive's own copies last.
    rank: usize,
    entry: FileEntry,
}

/// Merges `sources` into `archive`.
pub fn merge(archive: &Archive, sources: &[Source], bar: &indicatif::ProgressBar) -> io::Result<Report> {
    let lock = archive.lock()?;
    let mut report = Report {
        archive: archive.root.display().to_string(),
        sources: sources.iter().map(Source::name).collect(),
        ..Report::default()
    };
    let (own, bad) = archive.latest_files()?;
    report.problems.extend(bad.iter().map(ToString::to_string));
    let mut cands: Vec<Cand> = own
        .into_iter()
        .map(|(entry, _)| Cand {
            source: archive.root.display().to_string(),
            rank: usize::MAX,
            entry,
        })
        .collect();
    // What the last merge kept: the same again is nothing new (the archive's older snapshots
    // may still list copies a merge left out).
    let (manifests, _) = archive.manifests()?;
    let merged_before: Vec<(String, String)> = manifests
        .iter()
        .rev()
        .find(|(_, m)| m.kind == "merge")
        .map(|(_, m)| m.files.iter().map(|f| (f.path.clone(), f.sha256.clone())).collect())
        .unwrap_or_default();
    for (rank, s) in sources.iter().enumerate() {
        let found = match s {
            Source::Archive(dir) => from_archive(archive, dir, &mut report)?,
            Source::Home(home) => from_home(archive, &lock, home, bar, &mut report)?,
        };
        cands.extend(found.into_iter().map(|(source, entry)| Cand { source, rank, entry }));
    }
    report.files = cands.len();
    let mut groups: BTreeMap<Key, Vec<Cand>> = BTreeMap::new();
    for c in cands {
        let key = key_of(&c);
        groups.entry(key).or_default().push(c);
    }
    let mut kept: Vec<FileEntry> = Vec::new();
    for (key, copies) in groups {
        choose(archive, key, copies, &mut report, &mut kept);
    }
    report.kept = kept.len();
    kept.sort_by(|a, b| a.path.cmp(&b.path));
    let mut now: Vec<(String, String)> = kept.iter().map(|f| (f.path.clone(), f.sha256.clone())).collect();
    let mut before = merged_before;
    now.sort();
    before.sort();
    if now != before {
        let m = Manifest {
            format: crate::io::archive::FORMAT.into(),
            version: crate::io::archive::VERSION,
            created: crate::model::time::format_ms(super::run::now_ms()),
            kind: "merge".into(),
            files: kept,
        };
        let (path, _) = archive.write_manifest(&m)?;
        report.snapshot = Some(path.display().to_string());
    }
    Ok(report)
}

/// The copies of one file that the merge keeps, into `kept`: the longest, and each that is
/// neither the same as nor the start of one kept (a divergence, reported).
fn choose(archive: &Archive, key: Key, mut copies: Vec<Cand>, report: &mut Report, kept: &mut Vec<FileEntry>) {
    // The longest first; of equal ones, a source's before the archive's own (what the report
    // names), then in the order the sources were given.
    copies.sort_by(|a, b| b.entry.size.cmp(&a.entry.size).then_with(|| a.rank.cmp(&b.rank)));
    let mut chosen: Vec<Cand> = Vec::new();
    for c in copies {
        if chosen
            .iter()
            .any(|k| k.entry.sha256 == c.entry.sha256 && k.entry.size == c.entry.size)
        {
            report.identical += 1;
        } else if chosen
            .iter()
            .any(|k| is_prefix(archive, &c.entry, &k.entry).unwrap_or(false))
        {
            report.prefixes += 1;
        } else {
            chosen.push(c);
        }
    }
    let mut copies_kept = Vec::new();
    for (i, mut c) in chosen.into_iter().enumerate() {
        let original = c.entry.path.clone();
        if i > 0 {
            let sha = &c.entry.sha256[..12.min(c.entry.sha256.len())];
            c.entry.path = format!("{}#diverged-{sha}", c.entry.path);
        }
        copies_kept.push(Copy {
            source: c.source,
            path: original,
            kept_as: c.entry.path.clone(),
            bytes: c.entry.size,
        });
        kept.push(c.entry);
    }
    if copies_kept.len() > 1 && !key.own {
        report.diverged.push(Diverged {
            agent: key.agent,
            session: key.session.split('\0').next().unwrap_or_default().to_string(),
            copies: copies_kept,
        });
    }
}

/// What makes two copies the same file.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    /// A file each machine keeps of its own (the prompt history, the name index, a database of
    /// many sessions): every source's copy is kept, and copies that differ are no finding.
    own: bool,
    agent: String,
    session: String,
}

/// A session is known by its agent and id (and file name: a Claude Code session continued
/// into a new file keeps its id); a file that belongs to a session by its path below the
/// session's project folder (which depends on where the machine kept the project); a file of
/// the machine's own by its path there (its copies are that machine's, taken at other times).
fn key_of(c: &Cand) -> Key {
    let f = &c.entry;
    let rel = Path::new(&f.rel);
    let (own, session) = match f.role.as_str() {
        "session" => {
            let id = f.session.as_ref().and_then(|s| s.session_id.clone());
            let name = rel
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (false, id.map_or(name.clone(), |id| format!("{id}\0{name}")))
        }
        "subagent" => {
            let below: PathBuf = rel.components().skip(2).collect();
            (false, below.display().to_string())
        }
        "companion" => (false, f.rel.clone()),
        _ => (true, f.path.clone()),
    };
    Key {
        own,
        agent: f.agent.clone(),
        session,
    }
}

/// Whether `small` is the start of `big`: by their chunks when `big` began as `small` (backups
/// of a growing file share its chunks), else by hashing `big`'s first bytes.
fn is_prefix(archive: &Archive, small: &FileEntry, big: &FileEntry) -> io::Result<bool> {
    if small.size > big.size {
        return Ok(false);
    }
    let n = small.chunks.len();
    if n > 0 && big.chunks.len() >= n && big.chunks[..n] == small.chunks[..] {
        return Ok(true);
    }
    let mut hasher = Sha256::new();
    let mut left = small.size;
    for c in &big.chunks {
        if left == 0 {
            break;
        }
        let bytes = archive.get_chunk(c).map_err(io::Error::other)?;
        let take = (bytes.len() as u64).min(left) as usize;
        hasher.update(&bytes[..take]);
        left -= take as u64;
    }
    Ok(left == 0 && hex(&hasher.finalize()) == small.sha256)
}

/// The newest copy of every file of the archive `dir`, its chunks copied into `archive`.
fn from_archive(archive: &Archive, dir: &Path, report: &mut Report) -> io::Result<Vec<(String, FileEntry)>> {
    let other = Archive::new(dir);
    let (files, bad) = other.latest_files()?;
    report
        .problems
        .extend(bad.iter().map(|b| format!("{}: {b}", dir.display())));
    let mut out = Vec::new();
    for (entry, _) in files {
        match copy_chunks(&other, archive, &entry) {
            Ok(()) => out.push((dir.display().to_string(), entry)),
            Err(e) => report.problems.push(format!("{}: {}: {e}", dir.display(), entry.path)),
        }
    }
    Ok(out)
}

/// Every chunk of `f` that `to` lacks, copied from `from` (checked: a damaged chunk is not
/// carried over).
fn copy_chunks(from: &Archive, to: &Archive, f: &FileEntry) -> io::Result<()> {
    for c in &f.chunks {
        if to.chunk_path(&c.sha256).is_file() {
            continue;
        }
        let bytes = from.get_chunk(c).map_err(io::Error::other)?;
        to.put_chunk(&bytes)?;
    }
    Ok(())
}

/// Every file of the stores under `home`, taken into `archive` as `backup` takes them.
fn from_home(
    archive: &Archive,
    lock: &crate::io::archive::Lock,
    home: &Path,
    bar: &indicatif::ProgressBar,
    report: &mut Report,
) -> io::Result<Vec<(String, FileEntry)>> {
    let home_var = home.as_os_str().to_os_string();
    let st = crate::io::paths::stores_from(&|k| (k == "HOME").then(|| home_var.clone()));
    if st.found.is_empty() {
        report.problems.push(format!(
            "{}: neither an archive nor a home with an agent's store (looked in {})",
            home.display(),
            st.looked_in()
        ));
        return Ok(Vec::new());
    }
    let files: Vec<Found> = stores::files(&st, &mut report.problems);
    let entries = super::run::take_all(archive, lock, &files, super::run::SETTLE, bar, &mut report.problems)?;
    Ok(entries
        .into_iter()
        .map(|entry| (home.display().to_string(), entry))
        .collect())
}
