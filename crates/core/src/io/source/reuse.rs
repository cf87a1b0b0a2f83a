//! The search read mode: buffers reused by each thread instead of a buffer or a mapping per
//! file, for commands that read most files once, looking for a few markers.
//!
//! Reading many small files each into a fresh buffer costs the kernel a zeroed page for every
//! 4 KiB of each buffer and an unmapping when it is freed, and reading a mapped file costs a
//! fault per mapped window and a release behind it; for a search over every file that is
//! about as much as the copy of the bytes itself. A buffer reused from file to file is warm in
//! the caches and in the page tables: a search reads small files whole into one buffer per
//! thread, and the chunks of a large file (mapped or not) through another, with `pread`. A
//! large file stays mapped for the passes that need it as one slice, which only files that
//! hold a marker go on to.

use std::cell::RefCell;

use super::*;

/// How a command reads its sources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadMode {
    /// Each small file into a buffer of its own; a large cold one read through its mapping.
    #[default]
    Whole,
    /// Buffers reused by each thread (see the module docs).
    Search,
}

/// Chunk size of a search's read of a large file: the chunk stays in the core's L2 cache
/// between the copy and the search.
pub(super) const SEARCH_CHUNK: usize = 256 * 1024;

/// A search keeps the mapped pages of a file up to this size until the file is closed.
pub(super) const KEEP_MAPPED_MAX: u64 = 64 * 1024 * 1024;

/// A chunk buffer grown beyond this by a long line is not kept for the next file.
const KEEP_CHUNK_MAX: usize = 8 * SEARCH_CHUNK;

thread_local! {
    /// The buffer a small file is read into whole; its length is the largest file it held,
    /// all of it initialised, so reuse never zeroes it again.
    static WHOLE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static CHUNKS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The first `len` bytes of `file` read into this thread's reused buffer: the buffer and how
/// many bytes were read (fewer when the file shrank since its size was taken). The buffer
/// goes back with [`give_back_whole`] when the source is dropped.
pub(super) fn read_whole_reused(file: &File, len: u64) -> io::Result<(Vec<u8>, u64)> {
    let mut buf = WHOLE.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let len = len as usize;
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let got = read_at_most(file, &mut buf[..len], 0)?;
    Ok((buf, got as u64))
}

pub(super) fn give_back_whole(buf: Vec<u8>) {
    if buf.len() as u64 <= MMAP_MIN {
        WHOLE.with(|b| {
            let mut b = b.borrow_mut();
            if b.len() < buf.len() {
                *b = buf;
            }
        });
    }
}

/// [`chunks_of`] through this thread's reused chunk buffer.
pub(super) fn chunks_reused(f: &File, from: u64, len: u64, sink: &mut impl FnMut(u64, &[u8], bool)) -> io::Result<()> {
    let mut buf = CHUNKS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    if buf.len() < SEARCH_CHUNK {
        buf.resize(SEARCH_CHUNK, 0);
    }
    let r = chunks_of(f, from, len, &mut buf, sink);
    if buf.len() <= KEEP_CHUNK_MAX {
        CHUNKS.with(|b| *b.borrow_mut() = buf);
    }
    r
}

/// Feeds bytes `[from, len)` of `f` (`from` starts a line) to `sink` in order, read with
/// `pread` through `buf` (not empty): slices that end on a line end, the last one with what
/// follows the last newline. The unfinished last line moves to the front after each round,
/// and the buffer grows only for a line longer than itself. A file that comes up short is an
/// error naming the change.
pub(super) fn chunks_of(
    f: &File,
    from: u64,
    len: u64,
    buf: &mut Vec<u8>,
    sink: &mut impl FnMut(u64, &[u8], bool),
) -> io::Result<()> {
    if buf.is_empty() {
        buf.resize(SEARCH_CHUNK, 0);
    }
    let mut filled = 0usize;
    let mut pos: u64 = from; // file offset of buf[0]
    let mut read_to: u64 = from;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let want = (len.saturating_sub(read_to) as usize).min(buf.len() - filled);
        let got = read_at_most(f, &mut buf[filled..filled + want], read_to)?;
        filled += got;
        read_to += got as u64;
        if got < want {
            return Err(changed(len, f.metadata().ok().map(|m| m.len())));
        }
        if read_to >= len {
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
