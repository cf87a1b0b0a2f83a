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
//! are refused (FAT, some network and FUSE filesystems) the original is copied and fsynced.
//! `CCTOOL_FAIL_AT` (a step name) makes the rewrite fail at that step, so tests can check
//! exactly that.
//!
//! An in-place rewrite holds an exclusive lock on the file (`flock`, which other cctool runs
//! take too) from its first check to the rename, and replaces the file only if it still has
//! the length and modification time it had when it was read: a record an agent appended
//! meanwhile would otherwise survive only in the backup. A symbolic link is followed: the file
//! it points to is rewritten and backed up beside itself, and the link stays a link.
//!
//! Temporary files are named `.NAME.cctool-unfinished-PID.tmp`. One is removed when its write
//! fails or panics; one left by a killed run (or by a full disk's SIGXFSZ, which is turned into
//! an error instead) is removed by the next run that writes into that folder, once no cctool
//! process has that PID, and the removal is reported ([`take_swept`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use refusal::refused;
pub use refusal::{Changed, HeldOpen, Refused, refusal};

/// The steps of a rewrite, as `CCTOOL_FAIL_AT` names them.
pub const STEPS: &[&str] = &[
    "before-backup",
    "after-backup",
    "after-temp",
    "before-rename",
    "after-rename",
];

fn fail_at(step: &'static str) -> io::Result<()> {
    match std::env::var("CCTOOL_FAIL_AT") {
        Ok(s) if s == step => Err(io::Error::other(Injected { step })),
        _ => Ok(()),
    }
}

/// The failure `CCTOOL_FAIL_AT` asks for at a step of a rewrite.
#[derive(Debug, thiserror::Error)]
#[error("injected failure at {step}")]
struct Injected {
    step: &'static str,
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
    fn new(f: File) -> Output {
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

/// A temporary file that is removed unless it was renamed into place: on an error, and on a
/// panic as the stack unwinds.
struct Temp {
    path: PathBuf,
    renamed: bool,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// What marks a temporary file of cctool's, after `.NAME`.
const TEMP_MARK: &str = ".cctool-unfinished-";

/// The temporary file for `path`: hidden, beside it, and saying whose and what it is. Long
/// names are shortened so that the temporary name stays within the usual 255 bytes.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut short = name.as_str();
    while short.len() > 200 {
        let mut cut = 200;
        while !short.is_char_boundary(cut) {
            cut -= 1;
        }
        short = &short[..cut];
    }
    folder_of(path).join(format!(".{short}{TEMP_MARK}{}.tmp", std::process::id()))
}

/// How a write into a temporary file ended: its content renamed into place, or given up by
/// the writer, for the reason it returns, with nothing renamed and the temporary file removed.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending<S> {
    /// Written to its end and renamed into place.
    Kept,
    /// The writer stopped without a new file, for this reason.
    GaveUp(S),
}

/// Puts new content at `path` without a moment where it is partial: written by `write` into a
/// temporary file in the same folder, fsynced, renamed over `path`, the folder fsynced. The
/// temporary file does not outlive a failure or a panic. `keep_mode`: give it the permissions
/// of the file it replaces. `before_rename` is the last check; its error stops the rewrite.
fn write_via_temp<S>(
    path: &Path,
    keep_mode: bool,
    write: impl FnOnce(&mut Output) -> io::Result<Ending<S>>,
    before_rename: impl FnOnce() -> io::Result<()>,
) -> io::Result<Ending<S>> {
    let dir = folder_of(path);
    ignore_file_size_signal();
    sweep(dir);
    let mut temp = Temp {
        path: temp_path(path),
        renamed: false,
    };
    let _ = fs::remove_file(&temp.path);
    let f = OpenOptions::new().write(true).create_new(true).open(&temp.path)?;
    let mut w = Output::new(f);
    if let Ending::GaveUp(why) = write(&mut w)? {
        // Nothing is renamed into place: the temporary file goes with `temp`.
        return Ok(Ending::GaveUp(why));
    }
    if let Some(f) = w.into_file()? {
        crate::io::own::mark(&f);
        f.sync_all()?;
    }
    if keep_mode && let Ok(meta) = fs::metadata(path) {
        fs::set_permissions(&temp.path, meta.permissions())?;
    }
    fail_at("after-temp")?;
    fail_at("before-rename")?;
    before_rename()?;
    fs::rename(&temp.path, path)?;
    temp.renamed = true;
    sync_dir(dir)?;
    fail_at("after-rename")?;
    Ok(Ending::Kept)
}

/// An exceeded file-size limit (`ulimit -f`) kills the process with SIGXFSZ by default,
/// leaving the temporary file behind; ignored, it is a write error like a full disk.
fn ignore_file_size_signal() {
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
        ONCE.call_once(|| unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        });
    }
}

/// The length and modification time an input had when it was read: a file found otherwise
/// at the rewrite has changed since, and is not replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Length in bytes.
    pub len: u64,
    /// Modification time; `None` when unknown (standard input, or a file system without one).
    pub modified: Option<SystemTime>,
}

impl Seen {
    /// How `src` was when it was opened: its length and modification time then, not now.
    pub fn of(src: &crate::io::Source) -> Seen {
        Seen {
            len: src.len(),
            modified: src.modified(),
        }
    }

    fn differs(&self, now: &fs::Metadata) -> Option<Changed> {
        if now.len() != self.len {
            return Some(Changed::Size {
                was: self.len,
                now: now.len(),
            });
        }
        match (self.modified, now.modified().ok()) {
            (Some(a), Some(b)) if a != b => Some(Changed::Modified),
            _ => None,
        }
    }
}

/// How an in-place rewrite is done.
#[derive(Clone, Copy, Debug)]
pub struct InPlace<'a> {
    /// Names the backup: `FILE.<tag>.bak`.
    pub tag: &'a str,
    /// The input as it was read.
    pub seen: Seen,
    /// Rewrite a read-only file too.
    pub force: bool,
}

/// What an in-place rewrite did.
#[derive(Debug)]
pub struct Replaced {
    /// The file rewritten: the one named, or the file its symbolic link points to.
    pub target: PathBuf,
    /// Where the original content now is: `FILE.<tag>.bak` beside the target (numbered when
    /// that name is taken).
    pub backup: PathBuf,
}

/// The file a path names: itself, or what its symbolic links lead to.
fn resolved(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// Replaces `path` with `bytes`, keeping a backup tagged `tag`. Returns the backup's path.
pub fn replace_with_backup(path: &Path, bytes: &[u8], tag: &str) -> io::Result<PathBuf> {
    let seen = fs::metadata(path).map(|m| Seen {
        len: m.len(),
        modified: m.modified().ok(),
    })?;
    let how = InPlace {
        tag,
        seen,
        force: false,
    };
    replace_with_backup_by(path, &how, |w| w.write_all(bytes)).map(|r| r.backup)
}

/// [`replace_with_backup`] with the new content written by `write` straight into the
/// temporary file, so a large document is never held twice in memory; refused when the file
/// changed since `how.seen`, is read-only or held open for writing by another process
/// (both without `how.force`; [`HeldOpen`]) or is being rewritten by another cctool run
/// ([`refusal`] tells these from failures).
pub fn replace_with_backup_by(
    path: &Path,
    how: &InPlace<'_>,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> io::Result<Replaced> {
    let target = resolved(path)?;
    let held = Held::take(&target, how.seen, how.force)?;
    if held.file.metadata()?.permissions().readonly() && !how.force {
        return Err(refused(Refused::ReadOnly));
    }
    fail_at("before-backup")?;
    let backup = backup_path(&target, how.tag);
    keep_backup(&target, &backup)?;
    sync_dir(folder_of(&target))?;
    fail_at("after-backup")?;
    let recheck = || {
        held.recheck().inspect_err(|_| {
            // The backup is a second name (or a copy) of a file that is still there, whole.
            let _ = fs::remove_file(&backup);
        })
    };
    write_via_temp(&target, true, kept(write), recheck)?;
    Ok(Replaced { target, backup })
}

/// Replaces `path` with content that starts with its first `seen.len` bytes, unchanged (an
/// earlier conversion, extended): as [`replace_with_backup_by`] does, under the same lock and
/// re-checked right before the rename, but without a backup, since the new file keeps every
/// byte of the old one. Refused, nothing changed, when the file changed since `seen` (lines
/// appended meanwhile would be lost), was replaced, or (without `force`) is held open for
/// writing by another process.
pub fn extend_by(
    path: &Path,
    seen: Seen,
    force: bool,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> io::Result<()> {
    extend_until(path, seen, force, kept(write)).map(drop)
}

/// [`extend_by`] with a writer that may give up ([`Ending::GaveUp`]): then nothing changes,
/// and its reason is returned.
pub fn extend_until<S>(
    path: &Path,
    seen: Seen,
    force: bool,
    write: impl FnOnce(&mut Output) -> io::Result<Ending<S>>,
) -> io::Result<Ending<S>> {
    let target = resolved(path)?;
    let held = Held::take(&target, seen, force)?;
    write_via_temp(&target, true, write, || held.recheck())
}

/// A writer that never gives up, as one that may.
fn kept(write: impl FnOnce(&mut Output) -> io::Result<()>) -> impl FnOnce(&mut Output) -> io::Result<Ending<()>> {
    |w| write(w).map(|()| Ending::Kept)
}

/// A file about to be replaced, locked against other cctool runs from its first check to the
/// rename, and what it was when it was read.
struct Held {
    file: File,
    target: PathBuf,
    seen: Seen,
}

impl Held {
    /// Locks `target` and checks it is as `seen` and (without `force`) that no other process
    /// holds it open for writing.
    fn take(target: &Path, seen: Seen, force: bool) -> io::Result<Held> {
        // Held to the rename: a second cctool run on the same file waits for nothing and stops.
        let file = File::open(target)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(refused(Refused::Locked));
            }
            // A filesystem without locks (some network ones): the re-check before the rename
            // still stands.
            Err(fs::TryLockError::Error(_)) => {}
        }
        let held = Held {
            file,
            target: target.to_path_buf(),
            seen,
        };
        if let Some(r) = held.changed(&held.file.metadata()?) {
            return Err(refused(r));
        }
        if !force {
            let writers = crate::io::writers::open_writers(target);
            if !writers.is_empty() {
                return Err(io::Error::other(HeldOpen { writers }));
            }
        }
        Ok(held)
    }

    fn changed(&self, now: &fs::Metadata) -> Option<Refused> {
        self.seen.differs(now).map(|why| Refused::Changed { why })
    }

    /// The last check before the rename: the file at the path is still the one locked, as
    /// it was read.
    fn recheck(&self) -> io::Result<()> {
        let now = self.file.metadata()?;
        let replaced = fs::metadata(&self.target).map_or(true, |m| !same_inode(&m, &now));
        match self.changed(&now) {
            Some(r) => Err(refused(r)),
            None if replaced => Err(refused(Refused::Replaced)),
            None => Ok(()),
        }
    }
}

#[cfg(unix)]
fn same_inode(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Renames `from` (a file or a folder) to `to`, which must not exist, and makes both folders'
/// entries durable: after a crash the entry is under one name or the other, never none.
pub fn rename_synced(from: &Path, to: &Path) -> io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", to.display()),
        ));
    }
    fs::rename(from, to)?;
    sync_dir(folder_of(to))?;
    sync_dir(folder_of(from))
}

#[cfg(not(unix))]
fn same_inode(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
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
    write_new_file_until(path, overwrite, kept(write)).map(drop)
}

/// [`write_new_file_by`] with a writer that may give up ([`Ending::GaveUp`]): then no file is
/// put in place, and its reason is returned. A device or a pipe, written as it is, keeps what
/// was written before the writer gave up.
pub fn write_new_file_until<S>(
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut Output) -> io::Result<Ending<S>>,
) -> io::Result<Ending<S>> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        // A device or a pipe (/dev/null, a FIFO) is written as it is: there is no file to
        // replace atomically, and nothing to lose.
        let mut w = Output::new(OpenOptions::new().write(true).open(path)?);
        let ending = write(&mut w)?;
        w.flush()?;
        return Ok(ending);
    }
    if !overwrite && occupied(path) {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "exists; not overwritten"));
    }
    write_via_temp(path, false, write, || Ok(()))
}

/// Writes a new document to standard output with `write` (`-o -`). A closed pipe is the
/// reader's choice and ends the write as a broken pipe.
pub fn write_stdout(write: impl FnOnce(&mut Output) -> io::Result<()>) -> io::Result<()> {
    write_stdout_until(kept(write)).map(drop)
}

/// [`write_stdout`] with a writer that may give up ([`Ending::GaveUp`]): what it wrote before
/// is already out, and its reason is returned.
pub fn write_stdout_until<S>(write: impl FnOnce(&mut Output) -> io::Result<Ending<S>>) -> io::Result<Ending<S>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdout().as_fd().try_clone_to_owned()?;
        let mut w = Output::new(File::from(fd));
        let ending = write(&mut w)?;
        w.flush()?;
        Ok(ending)
    }
    #[cfg(not(unix))]
    {
        let mut w = Output::memory();
        let ending = write(&mut w)?;
        io::stdout().lock().write_all(&w.into_bytes())?;
        Ok(ending)
    }
}

/// Whether a new file at `path` would replace something: a file or a folder is there (a
/// device or a pipe is written to instead).
pub fn occupied(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() || m.is_dir())
}

mod refusal;
mod sweep;
#[cfg(test)]
mod tests;

#[cfg(test)]
use sweep::temp_pid;
pub use sweep::{Swept, sweep, take_swept};
