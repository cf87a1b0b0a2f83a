//! Reading and writing a backup archive folder: chunks, manifests and the lock (the layout
//! and why it is cut that way: `crate::backup` and `docs/backup.md`). It sits with the byte
//! layer because every read command opens a file kept in an archive as it opens any other
//! ([`resolve`]).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::io::atomic::write_new_file;

/// The manifest's `format` value: what says a file is one of ours.
pub const FORMAT: &str = "cctool-backup-snapshot";
/// The manifest `version` this cctool writes; a manifest with a higher one is refused
/// ([`ArchiveError::NewerManifest`]).
pub const VERSION: u32 = 1;

/// One piece of a file: the SHA-256 of its uncompressed bytes and their length.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Chunk {
    /// Lowercase hex, which is also the chunk file's name (`chunks/<first two>/<sha256>.zst`).
    pub sha256: String,
    /// Uncompressed length in bytes.
    pub len: u64,
}

/// What a backed-up session is, for listing without reading the chunks.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionMeta {
    /// The session's id, as the agent recorded it.
    pub session_id: Option<String>,
    /// The folder the session ran in, as the agent recorded it.
    pub cwd: Option<String>,
    /// The last component of `cwd`, as `scan` shows it.
    pub project: Option<String>,
    /// The session's title as `scan` gives it (set by the user or the agent, else its first prompt).
    pub title: Option<String>,
    /// The first record's timestamp, as written.
    pub first_timestamp: Option<String>,
    /// The last record's timestamp, as written.
    pub last_timestamp: Option<String>,
}

/// One file as a snapshot holds it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct FileEntry {
    /// The agent's name ([`crate::model::AgentId::name`]: `claude-code`, `codex`).
    pub agent: String,
    /// `session`, `subagent`, `history` (Claude Code's prompt history) or `index` (Codex's
    /// session names).
    pub role: String,
    /// Where the file was, as found.
    pub path: String,
    /// The store folder it was found in (`…/.claude`, `…/.codex`), and the path below it:
    /// where `restore --to DIR` puts it.
    pub store: String,
    /// The path below `store`.
    pub rel: String,
    /// The bytes taken (a last line still being written is left for the next run).
    pub size: u64,
    /// The file's length and modification time when it was read: an unchanged file is not
    /// read again.
    pub seen_len: u64,
    /// Milliseconds since the Unix epoch; `None` when the file system gave no time.
    pub mtime_ms: Option<i64>,
    /// Lowercase hex SHA-256 of the `size` bytes taken: what the chunks must add up to.
    pub sha256: String,
    /// The pieces that make the file, in order.
    pub chunks: Vec<Chunk>,
    /// What the session is, for listing; `None` for files that are not sessions (history, index).
    pub session: Option<SessionMeta>,
    /// For a database (role `database`), the sessions it held when it was copied: what
    /// `restore` lists and chooses from without reading the copy. Absent from the manifest
    /// of any other file, and of archives written before databases were taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<Held>,
}

/// One session inside a stored database.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    /// Its id in the database.
    pub id: String,
    /// What its rows held, in bytes, as the database's agent counts them.
    pub bytes: u64,
    /// When the database says it last changed (milliseconds since the Unix epoch).
    pub modified_ms: Option<i64>,
    /// What `scan` said of it.
    #[serde(flatten)]
    pub session: SessionMeta,
}

/// One run's list of files.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Manifest {
    /// Always [`FORMAT`]: how a reader knows the file is a manifest.
    pub format: String,
    /// The layout version it was written with (see [`VERSION`]).
    pub version: u32,
    /// When the run started, UTC RFC 3339: also the start of the snapshot file's name.
    pub created: String,
    /// `backup` (every file of the stores) or `hook` (one transcript before a compaction).
    pub kind: String,
    /// Every file the run took, unchanged ones included.
    pub files: Vec<FileEntry>,
}

/// The readable snapshots with their paths, and a message for each unreadable one.
pub type Snapshots = (Vec<(PathBuf, Manifest)>, Vec<ArchiveError>);
/// The newest copy of each stored file with its snapshot's name, and the unreadable ones.
pub type Latest = (Vec<(FileEntry, String)>, Vec<ArchiveError>);

/// What can be wrong with an archive's chunk or snapshot, or with a file put together from
/// them. Each names the file on disk (or the archived path) so that `backup --verify` and
/// `restore` can say where the damage is.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// A chunk named in a manifest by something other than a lowercase SHA-256.
    #[error("chunk name {0:?} is not a SHA-256")]
    ChunkName(String),
    /// A file under `chunks/` whose name is not `<sha256>.zst`.
    #[error("{}: not a chunk name", .0.display())]
    NotAChunk(PathBuf),
    /// A chunk or manifest file that could not be read.
    #[error("{}: cannot read: {cause}", .path.display())]
    Unreadable {
        /// The file on disk.
        path: PathBuf,
        /// What reading it said.
        cause: io::Error,
    },
    /// A chunk or manifest that does not decompress, met while reading or restoring a file.
    #[error("{}: not a readable zstd frame: {cause}", .path.display())]
    NotZstd {
        /// The file on disk.
        path: PathBuf,
        /// What the decoder said.
        cause: io::Error,
    },
    /// A chunk file found by `--verify` that does not decompress.
    #[error("{}: damaged (not a readable zstd frame: {cause})", .path.display())]
    DamagedFrame {
        /// The chunk file.
        path: PathBuf,
        /// What the decoder said.
        cause: io::Error,
    },
    /// A chunk whose decompressed bytes do not hash to its name.
    #[error("{}: damaged (its content no longer has the SHA-256 it is named by)", .0.display())]
    Damaged(PathBuf),
    /// A snapshot file that decompresses but is not a manifest's JSON.
    #[error("{}: not a snapshot manifest: {cause}", .path.display())]
    NotManifest {
        /// The snapshot file.
        path: PathBuf,
        /// Why its JSON was refused.
        cause: serde_json::Error,
    },
    /// A manifest of another format, or of a newer version than [`VERSION`].
    #[error("{}: not a snapshot this cctool reads (format {format:?} version {version})", .path.display())]
    NewerManifest {
        /// The snapshot file.
        path: PathBuf,
        /// Its `format`: [`FORMAT`] when only the version is too new.
        format: String,
        /// Its `version`.
        version: u32,
    },
    /// The destination a stored file is written into failed.
    #[error("cannot write: {0}")]
    Write(io::Error),
    /// The chunks of a stored file, each intact, do not make the file recorded (its path
    /// as archived).
    #[error("{0}: the stored copy does not add up to the file backed up (size or SHA-256 differ)")]
    DoesNotAddUp(String),
}

/// A file kept in an archive, as a read command opens it: by its chunks, checked one by one
/// and whole against the hash recorded when it was backed up.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stored {
    /// `<archive>/<claude|codex>/<path below the store>`: the name in every message, laid out
    /// as `restore --to DIR` lays the files out, and a PATH that names the file again.
    pub name: String,
    /// The same below the archive: `<claude|codex>/<path below the store>`.
    pub rel: String,
    /// The archive folder the chunks are read from.
    pub archive: PathBuf,
    /// The pieces, in order.
    pub chunks: Vec<Chunk>,
    /// Length in bytes of the whole file.
    pub size: u64,
    /// Its modification time when backed up, in milliseconds since the Unix epoch; `None`
    /// when unknown.
    pub mtime_ms: Option<i64>,
}

impl Stored {
    /// The stored file `f` of `archive`, its agent's files kept under the folder `top`
    /// ([`crate::agents::Store::archive_folder`]).
    pub fn of(archive: &Path, top: &str, f: &FileEntry) -> Stored {
        let rel = format!("{top}/{}", f.rel);
        Stored {
            name: format!("{}/{rel}", archive.display()),
            rel,
            archive: archive.to_path_buf(),
            chunks: f.chunks.clone(),
            size: f.size,
            mtime_ms: f.mtime_ms,
        }
    }

    /// When the file was last modified before it was backed up.
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        let ms = u64::try_from(self.mtime_ms?).ok()?;
        std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(ms))
    }

    /// The file's bytes, chunk by chunk: memory stays at one chunk whatever the file's size.
    pub fn reader(&self) -> StoredReader {
        StoredReader {
            archive: Archive::new(&self.archive),
            chunks: self.chunks.clone().into_iter(),
            current: io::Cursor::new(Vec::new()),
            len: 0,
            size: self.size,
        }
    }
}

/// Reads a [`Stored`] file; a damaged chunk, or chunks that do not add up to the size backed
/// up, is a read error naming the chunk file. Each chunk is checked against the SHA-256 it is
/// named by as it is read, so the whole file is not hashed again: that second pass (which
/// `restore` makes before it replaces a file) would only add a hash of every byte to every
/// read command's time.
pub struct StoredReader {
    archive: Archive,
    chunks: std::vec::IntoIter<Chunk>,
    current: io::Cursor<Vec<u8>>,
    len: u64,
    size: u64,
}

impl Read for StoredReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(c) = self.chunks.next() else {
                if self.len != self.size {
                    return Err(io::Error::other(CopyShort));
                }
                return Ok(0);
            };
            let bytes = self.archive.get_chunk(&c).map_err(io::Error::other)?;
            self.len += bytes.len() as u64;
            self.current = io::Cursor::new(bytes);
        }
    }
}

/// An archived copy whose chunks, each intact, do not make the file's recorded size.
#[derive(Debug, thiserror::Error)]
#[error(
    "the archived copy does not add up to the file backed up (its chunks do not make its size); `cctool backup --verify` names the damage"
)]
struct CopyShort;

/// An archive folder.
pub struct Archive {
    /// The folder that holds `chunks/`, `snapshots/` and the `lock` file.
    pub root: PathBuf,
}

/// The lock of a run that writes; released when dropped.
pub struct Lock(#[allow(dead_code)] File);

/// Lowercase hex of a digest, two digits a byte.
pub fn hex(digest: &[u8]) -> String {
    use std::fmt::Write;
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The length and SHA-256 of a file, read in 1 MiB pieces.
pub fn hash_file(path: &Path) -> io::Result<(u64, String)> {
    let mut f = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    Ok((len, hex(&hasher.finalize())))
}

fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

impl Archive {
    /// The archive at `root`; nothing is read or created until a method needs it.
    pub fn new(root: &Path) -> Archive {
        Archive {
            root: root.to_path_buf(),
        }
    }

    /// Whether `root` looks like an archive (it has a `snapshots` folder).
    /// Whether `dir` is an archive: its newest snapshot is a manifest cctool reads. Asked of
    /// folders named as PATH, so a folder that merely has a `snapshots` folder is not taken.
    pub fn is_archive(dir: &Path) -> bool {
        let a = Archive::new(dir);
        a.snapshot_paths()
            .ok()
            .and_then(|v| v.last().cloned())
            .is_some_and(|p| Archive::read_manifest(&p).is_ok())
    }

    /// Whether `root` has a `snapshots` folder: a cheap test before a command reads or writes.
    pub fn exists(&self) -> bool {
        self.root.join("snapshots").is_dir()
    }

    /// Creates the folders and takes the writers' lock, waiting for a run that holds it.
    pub fn lock(&self) -> io::Result<Lock> {
        self.create()?;
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.root.join("lock"))?;
        f.lock()?;
        Ok(Lock(f))
    }

    /// The lock if no other run holds it (a hook must not wait).
    pub fn try_lock(&self) -> io::Result<Option<Lock>> {
        self.create()?;
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.root.join("lock"))?;
        match f.try_lock() {
            Ok(()) => Ok(Some(Lock(f))),
            Err(fs::TryLockError::WouldBlock) => Ok(None),
            Err(fs::TryLockError::Error(e)) => Err(e),
        }
    }

    fn create(&self) -> io::Result<()> {
        for d in ["chunks", "snapshots"] {
            fs::create_dir_all(self.root.join(d))?;
        }
        Ok(())
    }

    /// Where the chunk named `sha` is (or would be) stored: `chunks/<first two>/<sha>.zst`.
    /// Panics unless `sha` starts with two ASCII characters (a SHA-256 always does).
    pub fn chunk_path(&self, sha: &str) -> PathBuf {
        self.root.join("chunks").join(&sha[..2]).join(format!("{sha}.zst"))
    }

    /// Stores `bytes` unless a chunk with their hash is there; returns the chunk and the
    /// bytes written to disk (0 when it was there).
    pub fn put_chunk(&self, bytes: &[u8]) -> io::Result<(Chunk, u64)> {
        let sha = sha256_hex(bytes);
        let path = self.chunk_path(&sha);
        let chunk = Chunk {
            sha256: sha,
            len: bytes.len() as u64,
        };
        if path.is_file() {
            return Ok((chunk, 0));
        }
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let packed = zstd::bulk::compress(bytes, 3)?;
        match write_new_file(&path, &packed, false) {
            Ok(()) => Ok((chunk, packed.len() as u64)),
            // Another run stored the same piece a moment ago.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok((chunk, 0)),
            Err(e) => Err(e),
        }
    }

    /// The bytes of a chunk, checked against its name.
    pub fn get_chunk(&self, c: &Chunk) -> Result<Vec<u8>, ArchiveError> {
        if !is_hash(&c.sha256) {
            return Err(ArchiveError::ChunkName(c.sha256.clone()));
        }
        let path = self.chunk_path(&c.sha256);
        let packed = match fs::read(&path) {
            Ok(p) => p,
            Err(cause) => return Err(ArchiveError::Unreadable { path, cause }),
        };
        let mut bytes = Vec::with_capacity(c.len as usize);
        if let Err(cause) = zstd::stream::read::Decoder::new(&packed[..]).and_then(|mut d| d.read_to_end(&mut bytes)) {
            return Err(ArchiveError::NotZstd { path, cause });
        }
        if bytes.len() as u64 != c.len || sha256_hex(&bytes) != c.sha256 {
            return Err(ArchiveError::Damaged(path));
        }
        Ok(bytes)
    }

    /// The snapshot files, oldest first (their names start with the UTC time).
    pub fn snapshot_paths(&self) -> io::Result<Vec<PathBuf>> {
        let dir = self.root.join("snapshots");
        let mut v: Vec<PathBuf> = match fs::read_dir(&dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.ends_with(".json.zst") && !n.starts_with('.'))
                })
                .collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        v.sort();
        Ok(v)
    }

    fn read_manifest(path: &Path) -> Result<Manifest, ArchiveError> {
        let at = || path.to_path_buf();
        let packed = fs::read(path).map_err(|cause| ArchiveError::Unreadable { path: at(), cause })?;
        let bytes =
            zstd::stream::decode_all(&packed[..]).map_err(|cause| ArchiveError::NotZstd { path: at(), cause })?;
        let m: Manifest =
            serde_json::from_slice(&bytes).map_err(|cause| ArchiveError::NotManifest { path: at(), cause })?;
        if m.format != FORMAT || m.version > VERSION {
            return Err(ArchiveError::NewerManifest {
                path: at(),
                format: m.format,
                version: m.version,
            });
        }
        Ok(m)
    }

    /// Every readable snapshot, oldest first, and a message for each that is not.
    pub fn manifests(&self) -> io::Result<Snapshots> {
        let mut ok = Vec::new();
        let mut bad = Vec::new();
        for p in self.snapshot_paths()? {
            match Archive::read_manifest(&p) {
                Ok(m) => ok.push((p, m)),
                Err(e) => bad.push(e),
            }
        }
        Ok((ok, bad))
    }

    /// Writes a manifest as the last step of a run; returns its path and size on disk.
    pub fn write_manifest(&self, m: &Manifest) -> io::Result<(PathBuf, u64)> {
        let json = serde_json::to_vec(m).map_err(io::Error::other)?;
        let packed = zstd::bulk::compress(&json, 9)?;
        let stamp: String = m.created.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        let mut n = 0;
        loop {
            let name = if n == 0 {
                format!("{stamp}-{}.json.zst", std::process::id())
            } else {
                format!("{stamp}-{}-{n}.json.zst", std::process::id())
            };
            let path = self.root.join("snapshots").join(name);
            match write_new_file(&path, &packed, false) {
                Ok(()) => return Ok((path, packed.len() as u64)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => n += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes a stored file into `w` chunk by chunk (memory stays at one chunk), every chunk
    /// checked, and the whole against its hash before the caller keeps what was written.
    pub fn write_file_to(&self, f: &FileEntry, w: &mut dyn std::io::Write) -> Result<(), ArchiveError> {
        let mut hasher = Sha256::new();
        let mut len = 0u64;
        for c in &f.chunks {
            let bytes = self.get_chunk(c)?;
            hasher.update(&bytes);
            len += bytes.len() as u64;
            w.write_all(&bytes).map_err(ArchiveError::Write)?;
        }
        if len != f.size || hex(&hasher.finalize()) != f.sha256 {
            return Err(ArchiveError::DoesNotAddUp(f.path.clone()));
        }
        Ok(())
    }

    /// Every stored file by its original path, the newest copy of each: what `restore`
    /// offers. A file deleted from the store stays here with its last copy.
    pub fn latest_files(&self) -> io::Result<Latest> {
        let (manifests, bad) = self.manifests()?;
        let mut by_path: std::collections::BTreeMap<String, (FileEntry, String)> = Default::default();
        for (p, m) in manifests {
            let snap = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            for f in m.files {
                by_path.insert(f.path.clone(), (f, snap.clone()));
            }
        }
        Ok((by_path.into_values().collect(), bad))
    }

    /// Every chunk file in the archive, checked: how many were read, and the damaged ones
    /// (their hash when the name is one, and what is wrong).
    pub fn verify_chunks(&self, bar: &indicatif::ProgressBar) -> io::Result<(usize, Vec<(String, ArchiveError)>)> {
        use rayon::prelude::*;
        let mut files = Vec::new();
        for e in walkdir::WalkDir::new(self.root.join("chunks"))
            .min_depth(2)
            .max_depth(2)
        {
            let e = e.map_err(io::Error::other)?;
            if e.file_type().is_file() {
                files.push(e.into_path());
            }
        }
        bar.set_length(files.len() as u64);
        let damaged: Vec<(String, ArchiveError)> = files
            .par_iter()
            .filter_map(|p| {
                bar.inc(1);
                let name = p.file_name()?.to_str()?;
                if name.starts_with('.') {
                    return None; // a temporary file of a run that was interrupted
                }
                let Some(sha) = name.strip_suffix(".zst").filter(|s| is_hash(s)) else {
                    return Some((String::new(), ArchiveError::NotAChunk(p.clone())));
                };
                let bad = |e: ArchiveError| Some((sha.to_string(), e));
                let path = p.clone();
                let bytes = match fs::read(p).map(|b| zstd::stream::decode_all(&b[..])) {
                    Ok(Ok(b)) => b,
                    Ok(Err(cause)) => return bad(ArchiveError::DamagedFrame { path, cause }),
                    Err(cause) => return bad(ArchiveError::Unreadable { path, cause }),
                };
                if sha256_hex(&bytes) != sha {
                    return bad(ArchiveError::Damaged(path));
                }
                None
            })
            .collect();
        Ok((files.len(), damaged))
    }
}
