//! Where a file's bytes come from: a memory map, an owned buffer, or a stream.
//!
//! A mapping faults (SIGBUS) where the file was truncated under it. Session files are
//! append-only while an agent writes them, and are rewritten only by tools like cctool itself
//! (which rename a new inode into place, leaving our mapping intact), so the policy is: map
//! only files that are large enough for mapping to pay off *and* have not been modified for
//! [`COLD_AFTER`]. Everything else is read with plain `read` calls: small files into one
//! buffer, large live files in chunks, so memory stays bounded either way. A truncation that
//! happens anyway is caught by [`mapguard`](super::mapguard): the faulting pages read as
//! zeros, the mapping is marked, and every reader here checks the mark after it read (each
//! window, each copied range) and fails with an error naming the change. Callers that use
//! [`Source::as_slice`] directly call [`Source::check`] before they use what they computed.
//!
//! Inputs that are not regular files are held the same way: a pipe named as FILE (or
//! standard input) and a zstd-compressed file are read to their end once, into memory when
//! small and into an unlinked temporary file otherwise (see [`Source::spool`]), and then read
//! like any file. Devices are refused, and inside a folder only regular files are opened.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use memmap2::Mmap;

use super::mapguard;

/// Files below this size are read into memory: `read` beats `mmap` set-up for them.
pub const MMAP_MIN: u64 = 4 * 1024 * 1024;
/// A file modified more recently than this may still be written by its agent.
pub const COLD_AFTER: Duration = Duration::from_secs(60);
/// How long ago a file was modified; `None` when unknown or in the future (clock skew), which
/// says nothing either way.
pub fn age(modified: Option<SystemTime>) -> Option<Duration> {
    modified.and_then(|m| SystemTime::now().duration_since(m).ok())
}

/// Chunk size of the streaming reader.
const CHUNK: usize = 8 * 1024 * 1024;
/// How much of a mapping is scanned before its pages are released again.
const RELEASE_EVERY: usize = 8 * 1024 * 1024;

/// How to choose between mapping and reading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MmapChoice {
    /// Map large files that have not changed for a minute.
    #[default]
    Auto,
    /// Never map; always read.
    Never,
}

/// What the user named: a path, or standard input.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Input {
    Path(PathBuf),
    Stdin,
    /// A file kept in a backup archive (`cctool backup`), named through the archive's folder.
    Archived(Box<super::archive::Stored>),
}

impl Input {
    /// The name used in every message about this input.
    pub fn display_name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
            Input::Archived(s) => s.name.clone(),
        }
    }
}

enum Backing {
    /// A file mapped whole, whose size is checked before each window is touched and whose
    /// guard says whether a page faulted.
    Mapped(Mapped),
    Owned(Vec<u8>),
    /// A large file that may still grow: read in chunks, bodies fetched with `pread`.
    Stream(File),
}

impl Drop for Source {
    /// A source whose mapping faulted leaves word of it, for a command that ends in a panic
    /// caused by the zeros it read (see [`mapguard::any_fault`]).
    fn drop(&mut self) {
        if let Err(e) = self.check() {
            mapguard::note(format!("{}: cannot read: {e}", self.name));
        }
    }
}

/// A registered mapping. The guard is declared first so that it is dropped (unregistered)
/// before the mapping is unmapped.
struct Mapped {
    guard: mapguard::Guard,
    map: Mmap,
    file: File,
    /// Set by [`Source::settle`]: an output made from the bytes read so far was committed.
    settled: std::sync::atomic::AtomicBool,
}

/// Where the bytes read came from, when they are not the named file's bytes as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The file itself.
    AsStored,
    /// A pipe, a FIFO or standard input, read to its end once.
    Stream,
    /// A zstd-compressed file (or stream), decompressed once.
    Decompressed,
    /// A copy kept in a backup archive, put together from its chunks once.
    Archived,
}

/// An opened input. `len` is fixed at open time: bytes appended later are not seen, so
/// every reader sees one consistent prefix of a file that is still being written.
pub struct Source {
    name: String,
    backing: Backing,
    len: u64,
    modified: Option<SystemTime>,
    held: Held,
}

/// The magic number that starts a zstd frame (little-endian 0xFD2FB528).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// An input that cannot be read as a session file for what it is (a directory, a device, or
/// inside a folder anything but a regular file).
fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

/// What a file that is not regular is, in words.
#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> Option<(&'static str, bool)> {
    use std::os::unix::fs::FileTypeExt;
    // (what it is, whether it is read as a stream when named)
    if t.is_fifo() {
        Some(("a named pipe (FIFO)", true))
    } else if t.is_socket() {
        Some(("a socket", true))
    } else if t.is_char_device() {
        Some(("a character device", false))
    } else if t.is_block_device() {
        Some(("a block device", false))
    } else {
        None
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> Option<(&'static str, bool)> {
    None
}

/// Opens `path` for reading without ever blocking: a FIFO opened this way does not wait for a
/// writer, so it can be looked at (and refused) before anything waits on it.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// `path` opened when it is a regular file (after links), without ever waiting on a FIFO.
pub fn open_regular(path: &Path) -> Option<File> {
    let f = open_nonblocking(path).ok()?;
    f.metadata().ok()?.is_file().then_some(f)
}

/// The error of a file that changed under the reader: `len` bytes when opened, `now` now.
fn changed(len: u64, now: Option<u64>) -> io::Error {
    let msg = match now {
        Some(now) if now < len => {
            format!("changed while it was read: truncated from {len} to {now} bytes")
        }
        _ => "changed while it was read: a part of it could no longer be read (truncated and refilled, or a read error of the disk)".to_string(),
    };
    io::Error::new(io::ErrorKind::UnexpectedEof, msg)
}

impl Source {
    /// Opens an input the user named: a path (a regular file, or a pipe or FIFO read as a
    /// stream) or standard input.
    pub fn open(input: &Input, mmap: MmapChoice) -> io::Result<Source> {
        match input {
            Input::Stdin => Source::stream("<stdin>".to_string(), io::stdin().lock(), mmap, None, Held::Stream),
            Input::Path(path) => Source::open_path(path, mmap),
            Input::Archived(s) => Source::stream(s.name.clone(), s.reader(), mmap, s.modified(), Held::Archived),
        }
    }

    /// Opens a file found inside a folder: only a regular file is opened, so a FIFO or a
    /// device in a walked tree can neither block the run nor be read forever.
    pub fn open_found(input: &Input, mmap: MmapChoice) -> io::Result<Source> {
        match input {
            Input::Path(path) => Source::open_file(path, mmap, false),
            Input::Stdin | Input::Archived(_) => Source::open(input, mmap),
        }
    }

    /// Opens a path the user named (see [`open`](Self::open)).
    pub fn open_path(path: &Path, mmap: MmapChoice) -> io::Result<Source> {
        Source::open_file(path, mmap, true)
    }

    fn open_file(path: &Path, mmap: MmapChoice, named: bool) -> io::Result<Source> {
        let name = path.display().to_string();
        // What it is decides how it is opened: a named pipe the user named is opened as `cat`
        // opens it, waiting for its writer (a reader that came and went first would make the
        // writer's data vanish with it); anything else without ever blocking, and looked at
        // again once open, in case it was swapped in between.
        let kind = std::fs::metadata(path)?.file_type();
        let refusal = |kind: &std::fs::FileType| -> Option<io::Error> {
            if kind.is_dir() {
                return Some(refused("is a directory".to_string()));
            }
            if kind.is_file() {
                return None;
            }
            let (what, streamed) = special_kind(kind).unwrap_or(("not a regular file", false));
            Some(refused(if !named {
                format!("is {what}, not a regular file: inside a folder only regular files are read")
            } else if streamed {
                format!("is {what}, and it was replaced while it was opened")
            } else {
                format!("is {what}, not a session file")
            }))
        };
        if named && special_kind(&kind).is_some_and(|(_, streamed)| streamed) {
            return Source::stream(name, File::open(path)?, mmap, None, Held::Stream);
        }
        if let Some(e) = refusal(&kind) {
            return Err(e);
        }
        let file = open_nonblocking(path)?;
        let meta = file.metadata()?;
        if let Some(e) = refusal(&meta.file_type()) {
            return Err(e);
        }
        let len = meta.len();
        let modified = meta.modified().ok();
        if starts_with_zstd(&file, len)? {
            return Source::spool(name, zstd_reader(file)?, mmap, modified, Held::Decompressed);
        }
        let cold = age(modified).is_some_and(|age| age >= COLD_AFTER);
        let backing = if len < MMAP_MIN {
            let mut buf = Vec::with_capacity(len as usize);
            file.take(len).read_to_end(&mut buf)?;
            return Ok(Source {
                name,
                len: buf.len() as u64,
                backing: Backing::Owned(buf),
                modified,
                held: Held::AsStored,
            });
        } else if cold && mmap == MmapChoice::Auto {
            map(file)
        } else {
            Backing::Stream(file)
        };
        let len = match &backing {
            Backing::Mapped(m) => m.map.len() as u64,
            _ => len,
        };
        Ok(Source {
            name,
            backing,
            len,
            modified,
            held: Held::AsStored,
        })
    }

    /// A pipe, a FIFO, standard input or an archived copy (`held` says which): decompressed
    /// when it starts with a zstd frame, then held as [`spool`](Self::spool) says.
    fn stream(
        name: String,
        mut r: impl Read,
        mmap: MmapChoice,
        modified: Option<SystemTime>,
        held: Held,
    ) -> io::Result<Source> {
        let mut head = Vec::with_capacity(4);
        (&mut r).take(4).read_to_end(&mut head)?;
        let whole = io::Cursor::new(head).chain(r);
        if whole.get_ref().0.get_ref()[..] == ZSTD_MAGIC {
            let decoded = zstd::stream::read::Decoder::new(whole).map_err(decompress_error)?;
            let held = if held == Held::Archived {
                held
            } else {
                Held::Decompressed
            };
            return Source::spool(name, decoded, mmap, modified, held);
        }
        Source::spool(name, whole, mmap, modified, held)
    }

    /// Reads `r` to its end once and holds what it gave as a file would be held: in memory
    /// up to [`MMAP_MIN`], else in an unlinked temporary file in the temporary folder
    /// (`TMPDIR`), which nothing else can change or see and which the system removes when
    /// cctool ends however it ends, mapped unless `--mmap never`. The loaders fetch records
    /// back by offset after their index is built, which a pipe or a decompressor cannot
    /// give; the temporary file keeps memory bounded whatever the size.
    fn spool(
        name: String,
        mut r: impl Read,
        mmap: MmapChoice,
        modified: Option<SystemTime>,
        held: Held,
    ) -> io::Result<Source> {
        let failed = |e: io::Error| match held {
            Held::Decompressed => decompress_error(e),
            _ => e,
        };
        let mut buf = Vec::new();
        (&mut r).take(MMAP_MIN + 1).read_to_end(&mut buf).map_err(failed)?;
        if (buf.len() as u64) <= MMAP_MIN {
            return Ok(Source {
                name,
                len: buf.len() as u64,
                backing: Backing::Owned(buf),
                modified,
                held,
            });
        }
        let dir = std::env::temp_dir();
        let no_room = |e: io::Error| {
            io::Error::new(
                e.kind(),
                format!(
                    "cannot hold it in a temporary file in {}: {e} (set TMPDIR to a folder with room)",
                    dir.display()
                ),
            )
        };
        let mut tmp = tempfile::tempfile().map_err(no_room)?;
        tmp.write_all(&buf).map_err(no_room)?;
        let mut len = buf.len() as u64;
        buf.resize(CHUNK, 0);
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(failed(e)),
            };
            tmp.write_all(&buf[..n]).map_err(no_room)?;
            len += n as u64;
        }
        drop(buf);
        // The file is this process's own: it is mapped whatever its age.
        let backing = match mmap {
            MmapChoice::Auto => map(tmp),
            MmapChoice::Never => Backing::Stream(tmp),
        };
        Ok(Source {
            name,
            backing,
            len,
            modified,
            held,
        })
    }

    /// A source over bytes already in memory (standard input, tests, benches).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Source {
        Source {
            name: name.to_string(),
            len: bytes.len() as u64,
            backing: Backing::Owned(bytes),
            modified: None,
            held: Held::AsStored,
        }
    }

    /// Whether the bytes read are the named file's as stored, or a stream's or a
    /// decompressor's held apart: a rewrite in place is only for the first.
    pub fn held(&self) -> Held {
        self.held
    }

    /// Why this input cannot be rewritten in place, when it cannot: its bytes were a stream's
    /// or a decompressor's, and a rewrite would replace the file with something else.
    pub fn in_place_refusal(&self) -> Option<&'static str> {
        match self.held {
            Held::AsStored => None,
            Held::Stream => Some("is a pipe or stream, which cannot be rewritten in place; write the result with -o"),
            Held::Decompressed => Some(
                "is compressed (zstd); cctool writes plain JSON, so it does not rewrite it in place: write the result with -o",
            ),
            Held::Archived => Some(
                "is a copy kept in a backup archive, which cctool never rewrites: write the result with -o, or `cctool restore` it first",
            ),
        }
    }

    /// Fails when the file changed under a mapping in a way that may have put zeros where its
    /// bytes were: a read faulted (see [`mapguard`]), or the file is now shorter than when it
    /// was opened — the tail of the page a truncation cuts reads as zeros without any fault.
    /// What was computed from the bytes read since must not be used. The readers here check
    /// by themselves; a caller that used [`as_slice`](Self::as_slice) checks before it uses
    /// its result.
    pub fn check(&self) -> io::Result<()> {
        if let Backing::Mapped(m) = &self.backing {
            if m.settled.load(std::sync::atomic::Ordering::SeqCst) {
                return Ok(());
            }
            if m.guard.faulted() {
                return Err(changed(self.len, m.file.metadata().ok().map(|m| m.len())));
            }
            let now = m.file.metadata()?.len();
            if now < self.len {
                return Err(changed(self.len, Some(now)));
            }
        }
        Ok(())
    }

    /// [`check`](Self::check) at the point where an output made from this source is
    /// committed (just before its rename): on success every byte that output, and what is
    /// reported of it, was made from is known to be as stored, so a truncation after this
    /// point is no concern of the run and later checks pass. Only for a command that reads
    /// nothing more to use once its output is made.
    pub fn settle(&self) -> io::Result<()> {
        self.check()?;
        if let Backing::Mapped(m) = &self.backing {
            m.settled.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }

    /// The fault half of [`check`](Self::check) alone, for a copy that is known to hold no
    /// zero byte (a truncation's zeros, faulted or not, always leave some).
    fn check_fault(&self) -> io::Result<()> {
        match &self.backing {
            Backing::Mapped(m) if m.guard.faulted() => Err(changed(self.len, m.file.metadata().ok().map(|m| m.len()))),
            _ => Ok(()),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn modified(&self) -> Option<SystemTime> {
        self.modified
    }

    /// How long ago the file was modified, when that is within [`COLD_AFTER`]: its harness may
    /// still be writing it, so it must not be rewritten or snapshotted. A copy in a backup
    /// archive is no agent's: only what the backup took is read, however recent.
    pub fn recently_modified(&self) -> Option<Duration> {
        if self.held == Held::Archived {
            return None;
        }
        age(self.modified).filter(|a| *a < COLD_AFTER)
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self.backing, Backing::Mapped(..))
    }

    /// The whole content, when it is addressable as one slice (mapped or owned). Pages of a
    /// mapping read as zeros once the file was truncated under them: call
    /// [`check`](Self::check) before using what was computed from the slice.
    pub fn as_slice(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Mapped(m) => Some(&m.map[..]),
            Backing::Owned(v) => Some(v),
            Backing::Stream(_) => None,
        }
    }

    /// The whole content: borrowed when it is held as one slice (a mapping: call
    /// [`check`](Self::check) before using what was computed from it, as for
    /// [`as_slice`](Self::as_slice)), else read into memory.
    pub fn whole(&self) -> io::Result<std::borrow::Cow<'_, [u8]>> {
        match self.as_slice() {
            Some(b) => Ok(std::borrow::Cow::Borrowed(b)),
            None => self.read_range(0, self.len as usize),
        }
    }

    /// Bytes `[offset, offset+len)`. A file truncated since it was opened gives an error
    /// rather than a crash or wrong bytes: a mapped range is copied out and the mapping
    /// checked after the copy, so what is returned was read before any truncation (the copy
    /// costs far less than the parse or the write that follows it).
    pub fn read_range(&self, offset: u64, len: usize) -> io::Result<std::borrow::Cow<'_, [u8]>> {
        let end = offset
            .checked_add(len as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "range past end of file"))?;
        match &self.backing {
            Backing::Mapped(m) => {
                let bytes = m.map[offset as usize..end as usize].to_vec();
                // One `fstat` per record would cost more than the copy; a record with no
                // zero byte cannot hold a truncation's zeros, so only those need the full check.
                if memchr::memchr(0, &bytes).is_some() {
                    self.check()?;
                } else {
                    self.check_fault()?;
                }
                Ok(std::borrow::Cow::Owned(bytes))
            }
            Backing::Owned(v) => Ok(std::borrow::Cow::Borrowed(&v[offset as usize..end as usize])),
            Backing::Stream(f) => {
                let mut buf = vec![0u8; len];
                let got = read_at_most(f, &mut buf, offset)?;
                if got < len {
                    return Err(changed(self.len, f.metadata().ok().map(|m| m.len())));
                }
                Ok(std::borrow::Cow::Owned(buf))
            }
        }
    }

    /// The open file behind a source read from disk (not standard input, not a small file
    /// read whole): what a kernel copy of its bytes reads from.
    pub fn file(&self) -> Option<&File> {
        match &self.backing {
            Backing::Mapped(Mapped { file: f, .. }) | Backing::Stream(f) => Some(f),
            Backing::Owned(_) => None,
        }
    }

    /// The content as a reader from the start, for streaming parsers.
    pub fn reader(&self) -> io::Result<Box<dyn Read + '_>> {
        match &self.backing {
            Backing::Mapped(m) => Ok(Box::new(io::BufReader::with_capacity(
                1 << 20,
                Checked {
                    src: self,
                    rest: &m.map[..],
                },
            ))),
            Backing::Owned(v) => Ok(Box::new(&v[..])),
            Backing::Stream(f) => {
                let mut f = f.try_clone()?;
                use std::io::Seek;
                f.seek(io::SeekFrom::Start(0))?;
                // serde_json reads a byte at a time: a large buffer matters.
                Ok(Box::new(io::BufReader::with_capacity(1 << 20, f.take(self.len))))
            }
        }
    }

    /// Whether any of `needles` occurs in the file. Chunks end on line boundaries and no needle
    /// holds a newline, so a match can never straddle two chunks.
    pub fn contains_any(&self, needles: &[&[u8]]) -> io::Result<bool> {
        let finders: Vec<memchr::memmem::Finder<'_>> = needles.iter().map(memchr::memmem::Finder::new).collect();
        let mut found = false;
        self.for_each_chunk(|_, chunk, _| {
            if !found {
                found = finders.iter().any(|f| f.find(chunk).is_some());
            }
        })?;
        Ok(found)
    }

    /// Tells the kernel this process is done with `[offset, offset+len)` for now: mapped pages
    /// leave the resident set (they stay in the page cache). A no-op for other backings.
    pub fn done_with(&self, offset: u64, len: u64) {
        if let Backing::Mapped(m) = &self.backing {
            const PAGE: u64 = 4096;
            let start = offset / PAGE * PAGE;
            let end = (offset + len).div_ceil(PAGE) * PAGE;
            let end = end.min(m.map.len() as u64);
            if end > start {
                release(&m.map, start as usize, (end - start) as usize);
            }
        }
    }

    /// Maps `f` over the content cut into windows that end on line boundaries, the windows
    /// spread over every core, results in file order: for scans that keep little per window
    /// (a substring search). See [`par_rounds`](Self::par_rounds); None for sources that are
    /// not one slice (the caller scans them in order).
    pub fn par_windows<'s, T: Send>(
        &'s self,
        f: impl Fn(u64, &'s [u8], bool) -> T + Sync,
    ) -> Option<io::Result<Vec<T>>> {
        let mut out = Vec::new();
        self.par_rounds(0, rayon::current_num_threads() * 2, f, |t| out.push(t))
            .map(|r| r.map(|()| out))
    }

    /// From byte `from` (a line start) on, cuts the content into windows that end on line
    /// boundaries and maps `f` over them on every core, at most `per_round` windows ahead of
    /// the one `sink` waits for; `sink` gets the results in file order before each window's
    /// mapped pages are released, so results may borrow the windows until then. The file's
    /// size is checked before each window is touched, as
    /// [`for_each_chunk`](Self::for_each_chunk) does, and the mapping after `f` and after
    /// `sink`: a window read on zeros (see [`check`](Self::check)) ends the read with an error
    /// before `sink` sees it, and a fault while `sink` reads ends it after. Only a source held
    /// as one slice (mapped, or small and read) is split: None for the others.
    pub fn par_rounds<'s, T: Send>(
        &'s self,
        from: u64,
        per_round: usize,
        f: impl Fn(u64, &'s [u8], bool) -> T + Sync,
        mut sink: impl FnMut(T),
    ) -> Option<io::Result<()>> {
        let bytes = self.as_slice()?;
        let total = bytes.len();
        let mut bounds = vec![(from as usize).min(total)];
        while let Some(&start) = bounds.last() {
            if start >= total {
                break;
            }
            bounds.push(window_end(bytes, start));
        }
        if bounds.len() == 1 {
            bounds.push(bounds[0]);
        }
        let windows: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        let check = || self.check();
        let mut sink = |t: T| {
            sink(t);
            self.check_fault()
        };
        // On a pool thread (many files at once), nested parallel rounds share the pool by work
        // stealing; threads of its own would oversubscribe the cores and block a pool thread.
        let job = Windows {
            bytes,
            windows: &windows,
            per_round,
            f: &f,
            check: &check,
        };
        let done_with = |a, b| self.done_with(a, b);
        let result = if rayon::current_thread_index().is_some() {
            job.rounds_in_pool(&mut sink, done_with)
        } else {
            job.stream(&mut sink, done_with)
        };
        Some(result.and_then(|()| self.check()))
    }

    /// A tracker that releases mapped pages behind a reader of records (see [`Releaser`]).
    pub fn releaser(&self) -> Releaser<'_> {
        Releaser {
            src: self,
            lo: 0,
            hi: 0,
        }
    }

    /// Feeds the content to `sink` in order, as slices that never split a line unless the
    /// line is longer than a chunk (the splitter stitches those). Mapped pages are released
    /// behind the reader so a multi-GB scan keeps a small resident set.
    pub fn for_each_chunk(&self, sink: impl FnMut(u64, &[u8], bool)) -> io::Result<()> {
        self.for_each_chunk_from(0, sink)
    }

    /// [`for_each_chunk`](Self::for_each_chunk) from byte `from`, which must start a line.
    /// A mapping is checked before and after each window reaches `sink` (see
    /// [`par_rounds`](Self::par_rounds)); a streamed file that comes up short is an error.
    pub fn for_each_chunk_from(&self, from: u64, mut sink: impl FnMut(u64, &[u8], bool)) -> io::Result<()> {
        let from = from.min(self.len);
        match &self.backing {
            Backing::Owned(v) => {
                sink(from, &v[from as usize..], true);
                Ok(())
            }
            Backing::Mapped(Mapped { map: m, .. }) => {
                let _ = m.advise(memmap2::Advice::Sequential);
                let total = m.len();
                let mut start = from as usize;
                while start < total {
                    self.check()?;
                    let end = window_end(m, start);
                    sink(start as u64, &m[start..end], end == total);
                    self.check()?;
                    release(m, start, end - start);
                    start = end;
                }
                if start >= total && from as usize >= total {
                    sink(from, &[], true);
                }
                Ok(())
            }
            Backing::Stream(f) => {
                // One buffer, zeroed once: the unfinished last line moves to the front after
                // each round, and the buffer grows only for a line longer than itself.
                let mut buf = vec![0u8; CHUNK];
                let mut filled = 0usize;
                let mut pos: u64 = from; // file offset of buf[0]
                let mut read_to: u64 = from;
                loop {
                    if filled == buf.len() {
                        buf.resize(buf.len() * 2, 0);
                    }
                    let want = ((self.len - read_to) as usize).min(buf.len() - filled);
                    let got = read_at_most(f, &mut buf[filled..filled + want], read_to)?;
                    filled += got;
                    read_to += got as u64;
                    if got < want {
                        return Err(changed(self.len, f.metadata().ok().map(|m| m.len())));
                    }
                    if read_to >= self.len {
                        sink(pos, &buf[..filled], true);
                        return Ok(());
                    }
                    if let Some(i) = memchr::memrchr(b'\n', &buf[..filled]) {
                        sink(pos, &buf[..=i], false);
                        buf.copy_within(i + 1..filled, 0);
                        filled -= i + 1;
                        pos += (i + 1) as u64;
                    }
                }
            }
        }
    }
}

/// A reader over a mapping that checks it after every copy out of it, so a streaming parser
/// never gets bytes read past a truncation.
struct Checked<'a> {
    src: &'a Source,
    rest: &'a [u8],
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.src.check()?;
        Ok(n)
    }
}

/// Whether a regular file of `len` bytes starts with a zstd frame.
fn starts_with_zstd(f: &File, len: u64) -> io::Result<bool> {
    if len < ZSTD_MAGIC.len() as u64 {
        return Ok(false);
    }
    let mut head = [0u8; 4];
    let got = read_at_most(f, &mut head, 0)?;
    Ok(got == head.len() && head == ZSTD_MAGIC)
}

/// A streaming zstd decoder over a file, with the library's memory limit for a frame's
/// window (128 MiB), so a hostile frame cannot ask for more.
fn zstd_reader(f: File) -> io::Result<impl Read> {
    zstd::stream::read::Decoder::new(f).map_err(decompress_error)
}

fn decompress_error(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot decompress it (zstd): {e}"))
}

/// What the two parallel readers of [`Source::par_rounds`] work on: the content, its windows,
/// how far ahead of `sink` they may map, the function mapped and the size check.
struct Windows<'s, 'w, F, C> {
    bytes: &'s [u8],
    windows: &'w [(usize, usize)],
    per_round: usize,
    f: &'w F,
    check: &'w C,
}

impl<'s, F, C, T> Windows<'s, '_, F, C>
where
    F: Fn(u64, &'s [u8], bool) -> T + Sync,
    C: Fn() -> io::Result<()> + Sync,
    T: Send,
{
    /// `f` over the window `(a, b)`.
    fn map(&self, (a, b): (usize, usize)) -> T {
        (self.f)(a as u64, &self.bytes[a..b], b == self.bytes.len())
    }

    /// On a pool thread: rounds of `per_round` windows, the next round mapped over while `sink`
    /// takes this one.
    fn rounds_in_pool(
        &self,
        sink: &mut impl FnMut(T) -> io::Result<()>,
        done_with: impl Fn(u64, u64),
    ) -> io::Result<()> {
        use rayon::prelude::*;
        let check = self.check;
        // Two rounds are resident at once (this one taken, the next one mapped): rounds of
        // half of `per_round` keep as many windows in flight as the stream does, and the
        // peak memory of a large file read on the pool with it (twice that was 12% of a
        // 1 GiB transcript for `doctor`).
        let rounds: Vec<&[(usize, usize)]> = self.windows.chunks((self.per_round / 2).max(1)).collect();
        let compute = |round: &[(usize, usize)]| -> Vec<T> { round.par_iter().map(|&w| self.map(w)).collect() };
        // The next round is mapped over while `sink` takes this one: the caller's serial work
        // overlaps the parallel part instead of leaving the cores idle. The next round is a job
        // of the pool, never a thread of its own: a pool thread that blocked on such a thread
        // while it waited for the pool would deadlock once every pool thread did the same (one
        // core, or two large files on two).
        let compute_checked = |round: &[(usize, usize)]| -> io::Result<Vec<T>> {
            check()?;
            let r = compute(round);
            check()?;
            Ok(r)
        };
        let mut results = match rounds.first() {
            Some(round) => compute_checked(round)?,
            None => return Ok(()),
        };
        for (i, round) in rounds.iter().enumerate() {
            let mut next: Option<io::Result<Vec<T>>> = None;
            let mut taken: io::Result<()> = Ok(());
            rayon::in_place_scope(|scope| {
                if let Some(following) = rounds.get(i + 1) {
                    let (compute, slot) = (&compute_checked, &mut next);
                    scope.spawn(move |_| *slot = Some(compute(following)));
                }
                // Each window is released as soon as its result is taken.
                taken = std::mem::take(&mut results)
                    .into_iter()
                    .zip(round.iter())
                    .try_for_each(|(t, &(a, b))| {
                        sink(t)?;
                        done_with(a as u64, (b - a) as u64);
                        Ok(())
                    });
            });
            taken?;
            match next {
                Some(r) => results = r?,
                None => break,
            }
        }
        Ok(())
    }

    /// From outside the pool: a worker thread per core streams windows.
    fn stream(&self, sink: &mut impl FnMut(T) -> io::Result<()>, done_with: impl Fn(u64, u64)) -> io::Result<()> {
        let (windows, check) = (self.windows, self.check);
        // Workers take windows in file order, up to `ahead` past the one `sink` waits for;
        // `sink` takes results in order as they come. Nothing waits for a round's slowest
        // window, and the caller's serial work overlaps the parsing throughout. (Further ahead
        // measured slower: the windows in flight no longer fit the caches.)
        let ahead = self.per_round.max(1);
        let workers = rayon::current_num_threads().clamp(1, windows.len().max(1));
        let next = std::sync::atomic::AtomicUsize::new(0);
        // The index of the window `sink` takes next, and whether to stop.
        let gate = (std::sync::Mutex::new((0usize, false)), std::sync::Condvar::new());
        let stop_all = || {
            if let Ok(mut g) = gate.0.lock() {
                g.1 = true;
            }
            gate.1.notify_all();
        };
        std::thread::scope(|scope| -> io::Result<()> {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, io::Result<T>)>();
            for _ in 0..workers {
                let (tx, next, gate) = (tx.clone(), &next, &gate);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(a, b)) = windows.get(i) else { return };
                        {
                            let Ok(mut g) = gate.0.lock() else { return };
                            while !g.1 && i >= g.0 + ahead {
                                let Ok(w) = gate.1.wait(g) else { return };
                                g = w;
                            }
                            if g.1 {
                                return;
                            }
                        }
                        let r = check().map(|()| self.map((a, b))).and_then(|t| check().map(|()| t));
                        if tx.send((i, r)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = std::collections::BTreeMap::new();
            let mut want = 0usize;
            let outcome = (|| -> io::Result<()> {
                for (i, r) in &rx {
                    pending.insert(i, r);
                    while let Some(r) = pending.remove(&want) {
                        sink(r?)?;
                        let (a, b) = windows[want];
                        done_with(a as u64, (b - a) as u64);
                        want += 1;
                        if let Ok(mut g) = gate.0.lock() {
                            g.0 = want;
                        }
                        gate.1.notify_all();
                    }
                }
                // Workers only stop early when something failed; a window must never go missing.
                if want < windows.len() {
                    return Err(io::Error::other("a parallel read stopped before the end of the file"));
                }
                Ok(())
            })();
            // On an error the workers still waiting at the gate are let go.
            stop_all();
            drop(rx);
            outcome
        })
    }
}

/// The end of the window that starts at `start`: [`RELEASE_EVERY`] bytes on, moved to the end
/// of the line there, so that lines are never split between windows and stay borrowed.
fn window_end(bytes: &[u8], start: usize) -> usize {
    let total = bytes.len();
    let end = (start + RELEASE_EVERY).min(total);
    if end < total {
        memchr::memchr(b'\n', &bytes[end..]).map_or(total, |i| end + i + 1)
    } else {
        end
    }
}

/// Releases mapped pages behind a reader that fetches records mostly in file order.
///
/// Releasing each record's own pages is not enough: a page fault maps a whole window of
/// neighbouring cached pages ("fault-around"), which would stay resident. So the span of
/// everything read is tracked and released as a whole every `RELEASE_EVERY` bytes (8 MiB).
pub struct Releaser<'a> {
    src: &'a Source,
    lo: u64,
    hi: u64,
}

impl Releaser<'_> {
    /// Notes that `[offset, offset+len)` was read.
    pub fn touch(&mut self, offset: u64, len: u64) {
        if !self.src.is_mapped() {
            return;
        }
        if self.lo == self.hi {
            (self.lo, self.hi) = (offset, offset + len);
        } else {
            self.lo = self.lo.min(offset);
            self.hi = self.hi.max(offset + len);
        }
        if self.hi - self.lo >= RELEASE_EVERY as u64 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.hi > self.lo {
            // Widen to the fault-around window on both sides.
            let lo = self.lo.saturating_sub(64 * 1024);
            self.src.done_with(lo, self.hi + 64 * 1024 - lo);
        }
        (self.lo, self.hi) = (0, 0);
    }
}

impl Drop for Releaser<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The file mapped and registered with [`mapguard`], or read in chunks when it cannot be
/// (the guard's table is full, or mapping failed).
fn map(file: File) -> Backing {
    match map_raw(&file) {
        Ok(map) => match mapguard::register(map.as_ptr(), map.len()) {
            Some(guard) => Backing::Mapped(Mapped {
                guard,
                map,
                file,
                settled: Default::default(),
            }),
            None => Backing::Stream(file),
        },
        Err(_) => Backing::Stream(file),
    }
}

#[allow(unsafe_code)]
fn map_raw(file: &File) -> io::Result<Mmap> {
    // SAFETY: the mapping is read-only, and is only used once registered with mapguard
    // (the caller drops it otherwise): a truncation of the file under it makes the faulting
    // pages read as zeros and marks the mapping, and every reader checks the mark before
    // using what it read (see the module docs). Only files that have not been modified for
    // COLD_AFTER, or cctool's own temporary files, are mapped, so this is rare.
    unsafe { Mmap::map(file) }
}

#[allow(unsafe_code)]
fn release(m: &Mmap, offset: usize, len: usize) {
    // SAFETY: the mapping is a read-only, shared file mapping. MADV_DONTNEED only drops
    // this process's page-table entries; a later access faults the page back in from the
    // page cache, so no data can be lost or changed.
    unsafe {
        let _ = m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len);
    }
}

#[cfg(unix)]
fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(not(unix))]
fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(offset))?;
    let mut done = 0;
    while done < buf.len() {
        match f.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Windows of a few bytes each, so that many are in flight at once.
    fn windows(bytes: &[u8], size: usize) -> Vec<(usize, usize)> {
        (0..bytes.len())
            .step_by(size)
            .map(|a| (a, (a + size).min(bytes.len())))
            .collect()
    }

    /// A mapped source cut after it was read: an error until an output made from it is
    /// settled, none after.
    #[test]
    fn a_truncation_after_the_output_is_settled_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, vec![b'x'; MMAP_MIN as usize + 4096]).unwrap();
        let old = SystemTime::now() - COLD_AFTER * 2;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        for settle_first in [false, true] {
            let src = Source::open_path(&path, MmapChoice::Auto).unwrap();
            assert!(matches!(src.backing, Backing::Mapped(_)), "the file is mapped");
            if settle_first {
                src.settle().unwrap();
            }
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(100)
                .unwrap();
            assert_eq!(src.check().is_ok(), settle_first);
            std::fs::write(&path, vec![b'x'; MMAP_MIN as usize + 4096]).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }

    #[test]
    fn both_parallel_readers_give_every_window_in_order() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let w = windows(&bytes, 7);
        let f = |at: u64, chunk: &[u8], last: bool| (at, chunk.len(), last);
        for in_pool in [false, true] {
            let (mut got, released) = (Vec::new(), std::cell::RefCell::new(Vec::new()));
            let mut sink = |t| got.push(t);
            let done = |a: u64, n: u64| released.borrow_mut().push((a, n));
            let ok = || Ok(());
            let mut sink = |t| {
                sink(t);
                Ok(())
            };
            let job = Windows {
                bytes: &bytes,
                windows: &w,
                per_round: 3,
                f: &f,
                check: &ok,
            };
            let r = if in_pool {
                job.rounds_in_pool(&mut sink, done)
            } else {
                job.stream(&mut sink, done)
            };
            r.unwrap();
            let want: Vec<_> = w.iter().map(|&(a, b)| (a as u64, b - a, b == bytes.len())).collect();
            assert_eq!(got, want, "in pool: {in_pool}");
            // Pages are released in file order, all of them, each after its results.
            let covered: u64 = released.borrow().iter().map(|&(_, n)| n).sum();
            assert_eq!(covered, bytes.len() as u64);
            assert!(released.borrow().windows(2).all(|p| p[0].0 < p[1].0));
        }
    }

    #[test]
    fn a_failed_size_check_stops_the_streaming_reader() {
        let bytes = vec![b'x'; 1000];
        let w = windows(&bytes, 10);
        let calls = std::sync::atomic::AtomicUsize::new(0);
        // The file "shrinks" after a few windows.
        let check = || match calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
            0..5 => Ok(()),
            _ => Err(io::Error::other("shrank")),
        };
        let mut got = 0;
        let job = Windows {
            bytes: &bytes,
            windows: &w,
            per_round: 2,
            f: &|_, c: &[u8], _| c.len(),
            check: &check,
        };
        let r = job.stream(
            &mut |_| {
                got += 1;
                Ok(())
            },
            |_, _| {},
        );
        assert_eq!(r.unwrap_err().to_string(), "shrank");
        assert!(got < w.len());
    }
}
