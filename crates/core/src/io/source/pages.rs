//! Mapping a file and releasing its pages behind a reader, so a multi-GB read keeps a small
//! resident set; reads at an offset of a file that is not mapped.

use super::*;

impl Source {
    /// A tracker that releases mapped pages behind a reader of records (see [`Releaser`]).
    pub fn releaser(&self) -> Releaser<'_> {
        Releaser {
            src: self,
            lo: 0,
            hi: 0,
        }
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
pub(super) fn map(file: File) -> Backing {
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
pub(super) fn map_raw(file: &File) -> io::Result<Mmap> {
    // SAFETY: the mapping is read-only, and is only used once registered with mapguard
    // (the caller drops it otherwise): a truncation of the file under it makes the faulting
    // pages read as zeros and marks the mapping, and every reader checks the mark before
    // using what it read (see the module docs). Only files that have not been modified for
    // COLD_AFTER, or cctool's own temporary files, are mapped, so this is rare.
    unsafe { Mmap::map(file) }
}

#[allow(unsafe_code)]
pub(super) fn release(m: &Mmap, offset: usize, len: usize) {
    // SAFETY: the mapping is a read-only, shared file mapping. MADV_DONTNEED only drops
    // this process's page-table entries; a later access faults the page back in from the
    // page cache, so no data can be lost or changed.
    unsafe {
        let _ = m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len);
    }
}

#[cfg(unix)]
pub(super) fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
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
pub(super) fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
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
