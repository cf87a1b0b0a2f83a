//! Replacing a file without ever losing it.
//!
//! The order is: keep the original as a backup beside it (never over an existing backup),
//! write the new content to a temporary file in the same folder, fsync it, rename it over the
//! original, fsync the folder. A crash at any instant leaves the original or the new file
//! whole, and the backup.
//!
//! The backup is a hard link to the original's inode where the filesystem allows it: the
//! original is never written in place (the new content arrives by rename), so the link keeps
//! exactly the old bytes, and a gigabyte file is backed up without copying a byte. Where links
//! are refused (FAT, some network and FUSE filesystems) the original is copied and fsynced. `CCTOOL_FAIL_AT` (a step name) makes the rewrite fail at that step,
//! so tests can check exactly that.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The steps of a rewrite, as `CCTOOL_FAIL_AT` names them.
pub const STEPS: &[&str] = &[
    "before-backup",
    "after-backup",
    "after-temp",
    "before-rename",
    "after-rename",
];

fn fail_at(step: &str) -> io::Result<()> {
    match std::env::var("CCTOOL_FAIL_AT") {
        Ok(s) if s == step => Err(io::Error::other(format!("injected failure at {step}"))),
        _ => Ok(()),
    }
}

/// Where new content is written: a buffered file that can also take a range of another file
/// copied by the kernel (`copy_file_range`, or a reflink), so that an output which starts with
/// its input (an appended compaction) costs what `cp` costs, not a pass through user space.
pub struct Output {
    inner: Inner,
}

enum Inner {
    File(Written),
    /// For tests and fuzzing: the same writers, into memory.
    Memory(Vec<u8>),
}

/// A file being written, and how much of it the kernel has been asked to send to the disk.
struct Written {
    w: io::BufWriter<File>,
    len: u64,
    kicked: u64,
}

/// Written bytes after which writeback is started, so the final fsync finds most of the file
/// already on the disk instead of writing all of it while the user waits.
const KICK_AFTER: u64 = 16 << 20;

impl Written {
    fn wrote(&mut self, n: usize) -> io::Result<()> {
        self.len += n as u64;
        if self.len - self.kicked >= KICK_AFTER {
            self.w.flush()?;
            start_writeback(self.w.get_ref(), self.kicked, self.len - self.kicked);
            self.kicked = self.len;
        }
        Ok(())
    }
}

/// Asks the kernel to start writing a range of `f` to the disk, without waiting; durability
/// still comes from the fsync that follows.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn start_writeback(f: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: sync_file_range only reads its integer arguments; the descriptor is open for
    // the duration of the call (borrowed from `f`). A failure only means no early writeback.
    unsafe {
        libc::sync_file_range(f.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &File, _: u64, _: u64) {}

impl Output {
    pub fn new(f: File) -> Output {
        Output {
            inner: Inner::File(Written {
                w: io::BufWriter::with_capacity(1 << 20, f),
                len: 0,
                kicked: 0,
            }),
        }
    }

    /// An output held in memory ([`Output::into_bytes`]).
    pub fn memory() -> Output {
        Output {
            inner: Inner::Memory(Vec::new()),
        }
    }

    /// Appends bytes `[0, len)` of `from`.
    pub fn copy_from(&mut self, from: &File, len: u64) -> io::Result<()> {
        use std::io::Seek;
        let mut from = from;
        from.seek(io::SeekFrom::Start(0))?;
        let copied = match &mut self.inner {
            Inner::File(f) => {
                f.w.flush()?;
                let n = io::copy(&mut from.take(len), f.w.get_mut())?;
                f.wrote(n as usize)?;
                n
            }
            Inner::Memory(v) => io::copy(&mut from.take(len), v)?,
        };
        if copied != len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the input shrank while it was copied ({copied} of {len} bytes)"),
            ));
        }
        Ok(())
    }

    /// The file, everything written (None for a memory output).
    pub fn into_file(self) -> io::Result<Option<File>> {
        match self.inner {
            Inner::File(f) => f.w.into_inner().map(Some).map_err(io::IntoInnerError::into_error),
            Inner::Memory(_) => Ok(None),
        }
    }

    /// What a memory output holds (empty for a file).
    pub fn into_bytes(self) -> Vec<u8> {
        match self.inner {
            Inner::Memory(v) => v,
            Inner::File(_) => Vec::new(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::File(f) => {
                let n = f.w.write(buf)?;
                f.wrote(n)?;
                Ok(n)
            }
            Inner::Memory(v) => v.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::File(f) => {
                f.w.write_all(buf)?;
                f.wrote(buf.len())
            }
            Inner::Memory(v) => v.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::File(f) => f.w.flush(),
            Inner::Memory(_) => Ok(()),
        }
    }
}

/// The first free backup name: `FILE.<tag>.bak`, then `FILE.<tag>.1.bak`, `FILE.<tag>.2.bak`…
pub fn backup_path(path: &Path, tag: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = folder_of(path);
    let first = dir.join(format!("{name}.{tag}.bak"));
    if !first.exists() {
        return first;
    }
    (1..)
        .map(|n| dir.join(format!("{name}.{tag}.{n}.bak")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// The folder of `path` ("." for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Puts new content at `path` without a moment where it is partial: written by `write` into a
/// temporary file in the same folder, fsynced, renamed over `path`, the folder fsynced. The
/// temporary file does not outlive a failure. `keep_mode`: give it the permissions of the file
/// it replaces.
fn write_via_temp(path: &Path, keep_mode: bool, write: impl FnOnce(&mut Output) -> io::Result<()>) -> io::Result<()> {
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.cctool-{}.tmp", std::process::id()));
    let _ = fs::remove_file(&temp);
    let result = (|| {
        let f = OpenOptions::new().write(true).create_new(true).open(&temp)?;
        let mut w = Output::new(f);
        write(&mut w)?;
        if let Some(f) = w.into_file()? {
            f.sync_all()?;
        }
        if keep_mode && let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&temp, meta.permissions())?;
        }
        fail_at("after-temp")?;
        fail_at("before-rename")?;
        fs::rename(&temp, path)?;
        sync_dir(dir)?;
        fail_at("after-rename")
    })();
    if result.is_err() && temp.exists() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Replaces `path` with `bytes`, keeping a backup tagged `tag`. Returns the backup's path.
pub fn replace_with_backup(path: &Path, bytes: &[u8], tag: &str) -> io::Result<PathBuf> {
    replace_with_backup_by(path, tag, |w| w.write_all(bytes))
}

/// [`replace_with_backup`] with the new content written by `write` straight into the
/// temporary file, so a large document is never held twice in memory.
pub fn replace_with_backup_by(
    path: &Path,
    tag: &str,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> io::Result<PathBuf> {
    fail_at("before-backup")?;
    let backup = backup_path(path, tag);
    keep_backup(path, &backup)?;
    sync_dir(folder_of(path))?;
    fail_at("after-backup")?;
    write_via_temp(path, true, write)?;
    Ok(backup)
}

/// Makes `backup` a second name of `path`'s inode, or else a fsynced copy of it.
fn keep_backup(path: &Path, backup: &Path) -> io::Result<()> {
    // CCTOOL_BACKUP=copy forces the fallback, so tests exercise it where links work.
    if std::env::var_os("CCTOOL_BACKUP").is_none_or(|v| v != "copy") {
        match fs::hard_link(path, backup) {
            Ok(()) => return Ok(()),
            // A name that appeared since `backup_path` looked is someone else's file; a
            // vanished original has nothing to back up: both stop the rewrite.
            Err(e) if matches!(e.kind(), io::ErrorKind::AlreadyExists | io::ErrorKind::NotFound) => return Err(e),
            Err(_) => {}
        }
    }
    // The kernel copies (copy_file_range, or a reflink where the filesystem has them).
    let copied = (|| {
        OpenOptions::new().write(true).create_new(true).open(backup)?;
        fs::copy(path, backup)?;
        File::open(backup)?.sync_all()
    })();
    if copied.is_err() {
        let _ = fs::remove_file(backup);
    }
    copied
}

/// Writes a new file (`-o`, imports): temporary file, fsync, rename; refuses to replace an
/// existing file unless `overwrite`.
pub fn write_new_file(path: &Path, bytes: &[u8], overwrite: bool) -> io::Result<()> {
    write_new_file_by(path, overwrite, |w| w.write_all(bytes))
}

/// [`write_new_file`] with the content written by `write` straight into the temporary file.
pub fn write_new_file_by(
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> io::Result<()> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        // A device or a pipe (/dev/null, a FIFO) is written as it is: there is no file to
        // replace atomically, and nothing to lose.
        let mut w = Output::new(OpenOptions::new().write(true).open(path)?);
        write(&mut w)?;
        return w.flush();
    }
    if !overwrite && occupied(path) {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "exists; not overwritten"));
    }
    write_via_temp(path, false, write)
}

/// Whether a new file at `path` would replace something: a file or a folder is there (a
/// device or a pipe is written to instead).
pub fn occupied(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() || m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backups_are_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.json");
        fs::write(&f, "one").unwrap();
        let b1 = replace_with_backup(&f, b"two", "v1").unwrap();
        let b2 = replace_with_backup(&f, b"three", "v1").unwrap();
        assert_eq!(b1.file_name().unwrap(), "s.json.v1.bak");
        assert_eq!(b2.file_name().unwrap(), "s.json.v1.1.bak");
        assert_eq!(fs::read_to_string(&b1).unwrap(), "one");
        assert_eq!(fs::read_to_string(&b2).unwrap(), "two");
        assert_eq!(fs::read_to_string(&f).unwrap(), "three");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
