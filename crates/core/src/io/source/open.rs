//! Opening an input: a regular file (mapped or read), a pipe or standard input, a
//! compressed file, a copy kept in a backup archive; what is refused and why.

use super::*;

impl Source {
    /// Opens an input the user named: a path (a regular file, or a pipe or FIFO read as a
    /// stream) or standard input.
    pub fn open(input: &Input, mmap: MmapChoice) -> io::Result<Source> {
        match input {
            Input::Stdin => Source::stream("<stdin>".to_string(), io::stdin().lock(), mmap, None, Held::Stream),
            Input::Path(path) => Source::open_path(path, mmap),
            Input::Archived(s) => Source::stream(s.name.clone(), s.reader(), mmap, s.modified(), Held::Archived),
            Input::Member(m) => Source::member(m),
        }
    }

    /// Reads a session out of its container through the agent that keeps it: its document,
    /// made in one snapshot of the container, held in memory.
    fn member(m: &crate::io::member::Member) -> io::Result<Source> {
        let container = crate::agents::registry::installed()
            .find(m.agent)
            .and_then(|a| a.container())
            .ok_or_else(|| io::Error::other(format!("no agent of this run reads {}", m.agent.name())))?;
        let bytes = container.read(&m.container, &m.id)?;
        let mut src = Source::from_bytes(&m.name(), bytes);
        src.modified = m.modified();
        src.held = Held::Member;
        Ok(src)
    }

    /// Opens a file found inside a folder: only a regular file is opened, so a FIFO or a
    /// device in a walked tree can neither block the run nor be read forever.
    pub fn open_found(input: &Input, mmap: MmapChoice) -> io::Result<Source> {
        Source::open_found_reading(input, mmap, ReadMode::Whole)
    }

    /// [`open`](Self::open), the file to be read as `mode` says (a pipe, a compressed file
    /// or an archived copy is held as always).
    pub fn open_reading(input: &Input, mmap: MmapChoice, mode: ReadMode) -> io::Result<Source> {
        match input {
            Input::Path(path) => Source::open_file(path, mmap, true, mode),
            Input::Stdin | Input::Archived(_) | Input::Member(_) => Source::open(input, mmap),
        }
    }

    /// [`open_found`](Self::open_found), the file to be read as `mode` says.
    pub fn open_found_reading(input: &Input, mmap: MmapChoice, mode: ReadMode) -> io::Result<Source> {
        match input {
            Input::Path(path) => Source::open_file(path, mmap, false, mode),
            Input::Stdin | Input::Archived(_) | Input::Member(_) => Source::open(input, mmap),
        }
    }

    /// Opens a path the user named (see [`open`](Self::open)).
    pub fn open_path(path: &Path, mmap: MmapChoice) -> io::Result<Source> {
        Source::open_file(path, mmap, true, ReadMode::Whole)
    }

    pub(super) fn open_file(path: &Path, mmap: MmapChoice, named: bool, mode: ReadMode) -> io::Result<Source> {
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
        let own = crate::io::own::untouched(&file, &meta);
        if starts_with_zstd(&file, len)? {
            return Source::spool(name, zstd_reader(file)?, mmap, modified, Held::Decompressed);
        }
        let cold = age(modified).is_some_and(|age| age >= COLD_AFTER);
        let backing = if len < MMAP_MIN {
            let (buf, len) = match mode {
                ReadMode::Search => read_whole_reused(&file, len)?,
                ReadMode::Whole => {
                    let mut buf = Vec::with_capacity(len as usize);
                    file.take(len).read_to_end(&mut buf)?;
                    let got = buf.len() as u64;
                    (buf, got)
                }
            };
            return Ok(Source {
                name,
                len,
                backing: Backing::Owned(buf),
                modified,
                held: Held::AsStored,
                mode,
                own,
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
            mode,
            own,
        })
    }

    /// A pipe, a FIFO, standard input or an archived copy (`held` says which): decompressed
    /// when it starts with a zstd frame, then held as [`spool`](Self::spool) says.
    pub(super) fn stream(
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
    pub(super) fn spool(
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
                mode: ReadMode::Whole,
                own: false,
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
            mode: ReadMode::Whole,
            own: false,
        })
    }
}

/// An input that cannot be read as a session file for what it is (a directory, a device, or
/// inside a folder anything but a regular file).
pub(super) fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, why)
}

/// What a file that is not regular is, in words.
#[cfg(unix)]
pub(super) fn special_kind(t: &std::fs::FileType) -> Option<(&'static str, bool)> {
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
pub(super) fn special_kind(_: &std::fs::FileType) -> Option<(&'static str, bool)> {
    None
}

/// Opens `path` for reading without ever blocking: a FIFO opened this way does not wait for a
/// writer, so it can be looked at (and refused) before anything waits on it.
#[cfg(unix)]
pub(super) fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
pub(super) fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// `path` opened when it is a regular file (after links), without ever waiting on a FIFO.
pub fn open_regular(path: &Path) -> Option<File> {
    let f = open_nonblocking(path).ok()?;
    f.metadata().ok()?.is_file().then_some(f)
}

/// The error of a file that changed under the reader: `len` bytes when opened, `now` now.
pub(super) fn changed(len: u64, now: Option<u64>) -> io::Error {
    let msg = match now {
        Some(now) if now < len => {
            format!("changed while it was read: truncated from {len} to {now} bytes")
        }
        _ => "changed while it was read: a part of it could no longer be read (truncated and refilled, or a read error of the disk)".to_string(),
    };
    io::Error::new(io::ErrorKind::UnexpectedEof, msg)
}

/// Whether a regular file of `len` bytes starts with a zstd frame.
pub(super) fn starts_with_zstd(f: &File, len: u64) -> io::Result<bool> {
    if len < ZSTD_MAGIC.len() as u64 {
        return Ok(false);
    }
    let mut head = [0u8; 4];
    let got = read_at_most(f, &mut head, 0)?;
    Ok(got == head.len() && head == ZSTD_MAGIC)
}

/// A streaming zstd decoder over a file, with the library's memory limit for a frame's
/// window (128 MiB), so a hostile frame cannot ask for more.
pub(super) fn zstd_reader(f: File) -> io::Result<impl Read> {
    zstd::stream::read::Decoder::new(f).map_err(decompress_error)
}

pub(super) fn decompress_error(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot decompress it (zstd): {e}"))
}
