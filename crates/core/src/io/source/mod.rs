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

mod open;
mod pages;
pub use pages::Releaser;
mod parallel;
mod reuse;
pub use reuse::ReadMode;

pub use open::open_regular;
use open::*;
use pages::*;
use parallel::*;
use reuse::*;

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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
    /// A file (or a folder, before expansion) as the user named it.
    Path(PathBuf),
    /// Standard input, named `-`; messages call it `<stdin>`.
    Stdin,
    /// A file kept in a backup archive (`cctool backup`), named through the archive's folder.
    Archived(Box<super::archive::Stored>),
    /// A session held inside a file that holds many (an agent's database), named `FILE#ID`.
    Member(Box<super::member::Member>),
}

impl Input {
    /// The name used in every message about this input.
    pub fn display_name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
            Input::Archived(s) => s.name.clone(),
            Input::Member(m) => m.name(),
        }
    }
}

enum Backing {
    /// A file mapped whole, whose size is checked before each window is touched and whose
    /// guard says whether a page faulted.
    Mapped(Mapped),
    /// The content is the first `len` bytes (a reused buffer can be longer).
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
        if self.mode == ReadMode::Search
            && let Backing::Owned(v) = &mut self.backing
        {
            give_back_whole(std::mem::take(v));
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
    /// A session read out of an agent's database into memory, in one snapshot.
    Member,
}

/// An opened input. `len` is fixed at open time: bytes appended later are not seen, so
/// every reader sees one consistent prefix of a file that is still being written.
pub struct Source {
    name: String,
    backing: Backing,
    len: u64,
    modified: Option<SystemTime>,
    held: Held,
    mode: ReadMode,
    /// Written by cctool and not changed since ([`crate::io::own`]).
    own: bool,
}

/// The magic number that starts a zstd frame (little-endian 0xFD2FB528).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

impl Source {
    /// A source over bytes already in memory (standard input, tests, benches).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Source {
        Source {
            name: name.to_string(),
            len: bytes.len() as u64,
            backing: Backing::Owned(bytes),
            modified: None,
            held: Held::AsStored,
            own: false,
            mode: ReadMode::Whole,
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
            Held::Member => Some(
                "is a session inside an agent's database, which cctool never writes into: write the result with -o",
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
    /// zero byte (a truncation's zeros, faulted or not, always leave some), or for what was
    /// computed from such bytes read in place from [`as_slice`](Self::as_slice).
    pub fn check_fault(&self) -> io::Result<()> {
        match &self.backing {
            Backing::Mapped(m) if m.guard.faulted() => Err(changed(self.len, m.file.metadata().ok().map(|m| m.len()))),
            _ => Ok(()),
        }
    }

    /// The name every message about this input uses (see [`Input::display_name`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Length in bytes of the content (decompressed, for a zstd file), fixed when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the input has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Modification time when it was opened; `None` for standard input, a pipe or bytes in memory.
    pub fn modified(&self) -> Option<SystemTime> {
        self.modified
    }

    /// How long ago the file was modified, when that is within [`COLD_AFTER`]: its harness may
    /// still be writing it, so it must not be rewritten or snapshotted. A copy in a backup
    /// archive is no agent's: only what the backup took is read, however recent; nor is a
    /// file cctool wrote and nobody changed since.
    pub fn recently_modified(&self) -> Option<Duration> {
        if self.held == Held::Archived || self.own {
            return None;
        }
        age(self.modified).filter(|a| *a < COLD_AFTER)
    }

    /// Whether the content is a memory map of the file rather than a copy read into memory.
    pub fn is_mapped(&self) -> bool {
        matches!(self.backing, Backing::Mapped(..))
    }

    /// The whole content, when it is addressable as one slice (mapped or owned). Pages of a
    /// mapping read as zeros once the file was truncated under them: call
    /// [`check`](Self::check) before using what was computed from the slice.
    pub fn as_slice(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Mapped(m) => Some(&m.map[..]),
            Backing::Owned(v) => Some(&v[..self.len as usize]),
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
            Backing::Owned(v) => Ok(Box::new(&v[..self.len as usize])),
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

    /// Whether mapped pages are released behind a reader. A search keeps those of a file of
    /// up to [`KEEP_MAPPED_MAX`] (bounded, and only a file that holds a marker is read again):
    /// each later pass would fault them all in again.
    fn releases(&self) -> bool {
        !(self.mode == ReadMode::Search && self.len <= KEEP_MAPPED_MAX)
    }

    /// Tells the kernel this process is done with `[offset, offset+len)` for now: mapped pages
    /// leave the resident set (they stay in the page cache). A no-op for other backings.
    pub fn done_with(&self, offset: u64, len: u64) {
        if !self.releases() {
            return;
        }
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
                sink(from, &v[from as usize..self.len as usize], true);
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
                    if self.releases() {
                        release(m, start, end - start);
                    }
                    start = end;
                }
                if start >= total && from as usize >= total {
                    sink(from, &[], true);
                }
                Ok(())
            }
            Backing::Stream(f) if self.mode == ReadMode::Search => chunks_reused(f, from, self.len, &mut sink),
            Backing::Stream(f) => chunks_of(f, from, self.len, &mut vec![0u8; CHUNK], &mut sink),
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

#[cfg(test)]
mod tests;
