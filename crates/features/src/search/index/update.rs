//! What changed in a file since it was indexed, and reading what the index needs of it: the
//! whole file, or only what it gained.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::rows::{self, Row, Seen};
use crate::agents::Agent;
use crate::io::Source;

/// A file's identity and size as the index compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Its device.
    pub dev: u64,
    /// Its inode.
    pub ino: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the epoch.
    pub mtime_ns: i64,
}

impl Stat {
    /// The file at `path` as it is now.
    pub fn of(path: &Path) -> io::Result<Stat> {
        Ok(Stat::from(&std::fs::metadata(path)?))
    }
}

impl From<&std::fs::Metadata> for Stat {
    fn from(m: &std::fs::Metadata) -> Stat {
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        Stat {
            dev,
            ino,
            size: m.len(),
            mtime_ns,
        }
    }
}

/// What the index holds about a file.
#[derive(Clone, Debug)]
pub(crate) struct Indexed {
    pub(crate) id: i64,
    pub(crate) agent: String,
    pub(crate) stat: Stat,
    /// Where the first line not indexed as complete starts.
    pub(crate) resume_at: u64,
    /// How many complete lines end before `resume_at`.
    pub(crate) lines: u64,
    /// Where the last complete line starts, and its hash.
    pub(crate) tail_at: u64,
    pub(crate) tail_hash: Vec<u8>,
}

/// What to do about a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Indexed as it is now.
    Unchanged,
    /// Only grew since: read from where its indexed lines end.
    Grown,
    /// New, or changed otherwise: read whole.
    Whole,
}

/// The change of `path` since `old` was indexed; `read` counts the bytes read to tell.
pub(crate) fn change(path: &Path, old: Option<&Indexed>, now: &Stat, read: &mut u64) -> io::Result<Change> {
    let Some(old) = old else { return Ok(Change::Whole) };
    if old.stat == *now {
        return Ok(Change::Unchanged);
    }
    let same_file = old.stat.dev == now.dev && old.stat.ino == now.ino;
    if !same_file || now.size < old.stat.size || now.size == old.stat.size {
        return Ok(Change::Whole);
    }
    let mut f = File::open(path)?;
    let tail = read_range(&mut f, old.tail_at, old.resume_at - old.tail_at)?;
    *read += tail.len() as u64;
    Ok(if Sha256::digest(&tail).as_slice() == old.tail_hash {
        Change::Grown
    } else {
        Change::Whole
    })
}

fn read_range(f: &mut File, at: u64, len: u64) -> io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(at))?;
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.take(len).read_to_end(&mut buf)?;
    if (buf.len() as u64) < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file got shorter while it was read",
        ));
    }
    Ok(buf)
}

/// What reading a file gave the index.
#[derive(Debug)]
pub struct Updated {
    pub(crate) rows: Vec<Row>,
    /// Read whole (else from where it grew).
    pub whole: bool,
    /// The first line read (rows of this line on, from an earlier read of an unfinished
    /// last line, are replaced).
    pub(crate) first_line: u64,
    pub(crate) stat: Stat,
    pub(crate) resume_at: u64,
    pub(crate) lines: u64,
    pub(crate) tail_at: u64,
    pub(crate) tail_hash: Vec<u8>,
    /// Whether the rows hold what a resume's rebuilt history adds (a whole read); a grown
    /// file's may have changed, so `--scope effective` reads it.
    pub(crate) rebuilt_known: bool,
    /// Bytes read from the file.
    pub bytes_read: u64,
    /// Rows indexed.
    pub rows_count: usize,
}

/// Where complete lines end in `bytes` (which starts at `base` in the file, after `lines`
/// complete lines): the new resume point, line count and last complete line.
fn lines_of(bytes: &[u8], base: u64, lines: u64, old_tail: (u64, u64)) -> (u64, u64, (u64, u64)) {
    let mut count = lines;
    let mut last_end = None;
    let mut prev_end = None;
    for i in memchr::memchr_iter(b'\n', bytes) {
        count += 1;
        prev_end = last_end;
        last_end = Some(i + 1);
    }
    match last_end {
        None => (base, lines, old_tail),
        Some(end) => {
            let start = prev_end.map_or(base, |p| base + p as u64);
            (base + end as u64, count, (start, base + end as u64))
        }
    }
}

/// Reads the whole file `src` (at `path`, whose bytes are read once more to find its lines).
pub(crate) fn whole(agent: &dyn Agent, src: &Source, path: &Path, stat: Stat) -> crate::error::Result<Updated> {
    let mut rows = rows::read(agent, src, Seen::Records, 1)?;
    rows.extend(rows::read(agent, src, Seen::Rebuilt, 1)?);
    let mut f = File::open(path)?;
    let mut resume = (0, 0, (0, 0));
    let mut buf = vec![0; 8 << 20];
    let mut at = 0u64;
    while at < src.len() {
        let want = usize::try_from((src.len() - at).min(buf.len() as u64)).unwrap_or(buf.len());
        let n = f.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        resume = lines_of(&buf[..n], at, resume.1, resume.2);
        at += n as u64;
    }
    let (resume_at, lines, (tail_at, tail_end)) = resume;
    let tail = read_range(&mut f, tail_at, tail_end - tail_at)?;
    Ok(Updated {
        rows_count: rows.len(),
        rows,
        whole: true,
        first_line: 1,
        stat: Stat {
            size: src.len(),
            ..stat
        },
        resume_at,
        lines,
        tail_at,
        tail_hash: Sha256::digest(&tail).to_vec(),
        rebuilt_known: true,
        bytes_read: src.len(),
    })
}

/// Reads what `path` gained since `old` was indexed, up to `stat.size`.
pub(crate) fn grown(agent: &dyn Agent, path: &Path, old: &Indexed, stat: Stat) -> crate::error::Result<Updated> {
    let mut f = File::open(path)?;
    let bytes = read_range(&mut f, old.resume_at, stat.size - old.resume_at)?;
    let (resume_at, lines, (tail_at, tail_end)) =
        lines_of(&bytes, old.resume_at, old.lines, (old.tail_at, old.resume_at));
    let tail_hash = if tail_end == old.resume_at {
        old.tail_hash.clone()
    } else {
        let from = usize::try_from(tail_at - old.resume_at).unwrap_or(0);
        let to = usize::try_from(tail_end - old.resume_at).unwrap_or(0);
        Sha256::digest(&bytes[from..to]).to_vec()
    };
    let bytes_read = bytes.len() as u64;
    let src = Source::from_bytes(&path.display().to_string(), bytes);
    let rows = rows::read(agent, &src, Seen::Records, old.lines + 1)?;
    Ok(Updated {
        rows_count: rows.len(),
        rows,
        whole: false,
        first_line: old.lines + 1,
        stat,
        resume_at,
        lines,
        tail_at,
        tail_hash,
        rebuilt_known: false,
        bytes_read,
    })
}
