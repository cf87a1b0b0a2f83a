//! Recognising a file cctool itself wrote, untouched since.
//!
//! A session modified in the last minute may still be written by its agent, so the rewriting
//! commands refuse it without `--force`; but a file `migrate -o` or `convert` wrote a moment
//! ago is nobody's live session. Every file cctool writes carries, in an extended attribute,
//! its length and modification time as cctool left them; a file whose attribute still matches
//! both was not written by anyone since. An agent that appends changes both, and a copy does
//! not carry the attribute, so either is judged by its modification time again. Where the
//! filesystem keeps no extended attributes, nothing is marked and every file is judged by its
//! time, as before.

use std::fs::{File, Metadata};

/// The attribute's name: the `user` namespace, which any file's owner may write.
#[cfg(target_os = "linux")]
const ATTR: &std::ffi::CStr = c"user.cctool.written";

/// What the attribute holds for a file of this length and modification time.
fn stamp(meta: &Metadata) -> Option<String> {
    let t = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("{} {}.{:09}", meta.len(), t.as_secs(), t.subsec_nanos()))
}

/// Marks `f`, written in full, as cctool's own as it is now. A filesystem that refuses the
/// attribute leaves the file unmarked: it is then judged by its time.
pub fn mark(f: &File) {
    if let Some(s) = f.metadata().ok().as_ref().and_then(stamp) {
        imp::set(f, s.as_bytes());
    }
}

/// Whether `f`, whose metadata is `meta`, is a file cctool wrote and nobody changed since.
pub fn untouched(f: &File, meta: &Metadata) -> bool {
    stamp(meta).is_some_and(|s| imp::get(f).is_some_and(|got| got == s.as_bytes()))
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod imp {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    use super::ATTR;

    pub(super) fn set(f: &File, value: &[u8]) {
        // SAFETY: the name is a NUL-terminated constant, the value a live slice whose length
        // is passed with it, and the descriptor is borrowed from `f` for the call. A failure
        // (no extended attributes here) only leaves the file unmarked.
        unsafe {
            libc::fsetxattr(f.as_raw_fd(), ATTR.as_ptr(), value.as_ptr().cast(), value.len(), 0);
        }
    }

    pub(super) fn get(f: &File) -> Option<Vec<u8>> {
        let mut buf = [0u8; 64];
        // SAFETY: the kernel writes at most `buf.len()` bytes into `buf`, which outlives the
        // call; the name is a NUL-terminated constant and the descriptor is borrowed from `f`.
        let n = unsafe { libc::fgetxattr(f.as_raw_fd(), ATTR.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        usize::try_from(n).ok().map(|n| buf[..n].to_vec())
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn set(_: &std::fs::File, _: &[u8]) {}

    pub(super) fn get(_: &std::fs::File) -> Option<Vec<u8>> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A marked file is cctool's until anything is appended to it; an unmarked one never is.
    #[test]
    fn a_marked_file_is_own_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, "{}\n").unwrap();
        let f = File::open(&p).unwrap();
        assert!(!untouched(&f, &f.metadata().unwrap()));
        mark(&f);
        if imp::get(&f).is_none() {
            return; // A filesystem without extended attributes: nothing to test here.
        }
        assert!(untouched(&f, &f.metadata().unwrap()));
        std::io::Write::write_all(&mut File::options().append(true).open(&p).unwrap(), b"{}\n").unwrap();
        assert!(!untouched(&f, &f.metadata().unwrap()));
    }
}
