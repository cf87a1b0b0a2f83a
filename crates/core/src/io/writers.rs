//! Which processes hold a file open for writing.
//!
//! A rewrite puts new content at the path by rename; a process that keeps the old file open
//! (Codex holds its rollout open for the whole session, idle or not) goes on appending to the
//! old inode, which after the rename is only the backup: every line it writes is lost to the
//! file its client loads next. The file's modification time says nothing of an idle writer,
//! so the open descriptors are looked at: on Linux each process's `/proc/PID/fd` links, with
//! the access mode in `/proc/PID/fdinfo/FD`. Neither Claude Code nor Codex keeps a lock file
//! beside a session (Claude Code opens its transcript for each append and closes it), so
//! there is nothing else to ask. Processes of other users cannot be looked into and are not
//! reported; where there is no `/proc`, nothing is.

use std::fmt;
use std::path::Path;

/// A process with the file open for writing.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Writer {
    /// Its process id.
    pub pid: u32,
    /// Its command line, arguments joined by spaces (its name when that cannot be read).
    pub command: String,
}

impl fmt::Display for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pid {} ({})", self.pid, self.command)
    }
}

/// The processes other than this one that hold `path`'s file (the inode, under any name)
/// open for writing.
pub fn open_writers(path: &Path) -> Vec<Writer> {
    imp::open_writers(path)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::fs;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    use super::Writer;

    /// `O_ACCMODE`, `O_WRONLY` and `O_RDWR` as fdinfo's octal `flags:` line holds them.
    const ACCMODE: u32 = 0o3;
    const WRONLY: u32 = 0o1;
    const RDWR: u32 = 0o2;

    pub(super) fn open_writers(path: &Path) -> Vec<Writer> {
        let Ok(meta) = fs::metadata(path) else {
            return Vec::new();
        };
        let me = std::process::id();
        let Ok(procs) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for p in procs.flatten() {
            let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if pid != me && holds_for_writing(&p.path(), meta.dev(), meta.ino()) {
                found.push(Writer {
                    pid,
                    command: command(&p.path()),
                });
            }
        }
        found
    }

    /// Whether the process at `/proc/PID` has a descriptor on inode `ino` of `dev` opened
    /// for writing.
    fn holds_for_writing(proc: &Path, dev: u64, ino: u64) -> bool {
        // A process that exits meanwhile, or is another user's, has nothing to read here.
        let Ok(fds) = fs::read_dir(proc.join("fd")) else {
            return false;
        };
        fds.flatten().any(|fd| {
            // The link is followed to the open file itself, whatever its name now.
            fs::metadata(fd.path()).is_ok_and(|m| m.dev() == dev && m.ino() == ino)
                && writable(&proc.join("fdinfo").join(fd.file_name()))
        })
    }

    fn writable(fdinfo: &Path) -> bool {
        let Ok(info) = fs::read_to_string(fdinfo) else {
            return false;
        };
        info.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|flags| matches!(flags & ACCMODE, WRONLY | RDWR))
    }

    fn command(proc: &Path) -> String {
        let line = fs::read(proc.join("cmdline")).unwrap_or_default();
        let words: Vec<String> = line
            .split(|&b| b == 0)
            .filter(|w| !w.is_empty())
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if words.is_empty() {
            fs::read_to_string(proc.join("comm"))
                .map(|c| c.trim_end().to_string())
                .unwrap_or_default()
        } else {
            words.join(" ")
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn open_writers(_: &std::path::Path) -> Vec<super::Writer> {
        Vec::new()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A child holding the file open: for appending it is found, for reading it is not.
    #[test]
    fn a_process_holding_the_file_open_for_writing_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        for (redirect, writes) in [("3>>", true), ("3<", false), ("3<>", true)] {
            let mut child = std::process::Command::new("sh")
                .args(["-c", &format!("exec {redirect}\"$F\"; echo ready; read _")])
                .env("F", &f)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut ready = String::new();
            std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.as_mut().unwrap()), &mut ready)
                .unwrap();
            let got = open_writers(&f);
            drop(child.stdin.take());
            child.wait().unwrap();
            let pids: Vec<u32> = got.iter().map(|w| w.pid).collect();
            assert_eq!(pids.contains(&child.id()), writes, "{redirect}: {got:?}");
            if let Some(w) = got.iter().find(|w| w.pid == child.id()) {
                assert!(w.command.starts_with("sh -c"), "{got:?}");
            }
        }
        assert!(open_writers(&f).is_empty());
    }
}
