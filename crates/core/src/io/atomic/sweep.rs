//! Temporary files left by cctool runs that did not finish (a kill, a crash, a full disk's
//! SIGXFSZ before it was ignored): removed by the next run that writes into their folder, once
//! no cctool process has the PID in their name.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::TEMP_MARK;

/// Temporary files removed by this run: left by cctool runs that were killed.
static SWEPT: Mutex<Vec<Swept>> = Mutex::new(Vec::new());
/// Folders already swept by this run.
static SWEPT_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file left by a run that did not finish, and removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swept {
    /// The temporary file that was removed.
    pub path: PathBuf,
    /// The process id in its name: the run that left it.
    pub pid: u32,
    /// Its size in bytes when removed.
    pub len: u64,
}

/// The temporary files this run removed so far (each reported once).
pub fn take_swept() -> Vec<Swept> {
    std::mem::take(&mut *SWEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// The process id in the name of one of cctool's temporary files (this version's names and
/// the earlier `.NAME.cctool-PID.tmp`).
pub(super) fn temp_pid(name: &str) -> Option<u32> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, pid) = stem.rsplit_once(TEMP_MARK).or_else(|| stem.rsplit_once(".cctool-"))?;
    pid.parse().ok()
}

/// Whether a cctool process with this id is running here. Where that cannot be told (no
/// `/proc`), the answer is yes: a file that may be in use is never removed.
fn cctool_running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return true;
    }
    // A process id reused by another program does not keep the file.
    match fs::read_to_string(proc.join(pid.to_string()).join("comm")) {
        Ok(comm) => comm.trim_end().starts_with("cctool"),
        Err(_) => false,
    }
}

/// Removes the temporary files in `dir` left by cctool runs that are no longer running (a
/// kill, a crash), once per folder and run; see [`take_swept`].
pub fn sweep(dir: &Path) {
    let key = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    {
        let mut done = SWEPT_DIRS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if done.contains(&key) {
            return;
        }
        done.push(key);
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = temp_pid(&name.to_string_lossy()) else {
            continue;
        };
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() || cctool_running(pid) {
            continue;
        }
        let path = e.path();
        if fs::remove_file(&path).is_ok() {
            SWEPT
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(Swept {
                    path,
                    pid,
                    len: meta.len(),
                });
        }
    }
}
