//! Subagent transcripts: Claude Code writes each subagent's conversation to a file of its
//! own beside the session, `<project>/<session>/subagents/agent-*.jsonl` (earlier versions:
//! `<project>/agent-*.jsonl`), holding the session's id. A session's subagents belong to it:
//! `scan` and `doctor` read them with the session, and link them to it.

use std::path::{Path, PathBuf};

use crate::io::Input;

/// Whether `s` is a uuid (of any version): hex digits in groups of 8-4-4-4-12.
pub fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// Whether a file's stem is a uuid, as Claude Code names session files.
pub fn is_uuid_stem(p: &Path) -> bool {
    p.file_stem().and_then(|s| s.to_str()).is_some_and(is_uuid)
}

/// Whether a path names a subagent transcript.
pub fn is_subagent_path(path: &str) -> bool {
    let p = Path::new(path);
    p.components().any(|c| c.as_os_str() == "subagents")
        || p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("agent-"))
}

/// Adds the subagent transcripts of every Claude Code session among `inputs` that are not
/// inputs yet: `<dir>/<session>/subagents/**.jsonl`, and legacy `<dir>/agent-*.jsonl` that
/// hold the session's id. Only regular files are opened: a FIFO or a device named like a
/// subagent file is never read.
pub fn add_subagent_files(inputs: &mut Vec<Input>, follow: bool) {
    let mut extra: Vec<PathBuf> = Vec::new();
    for input in inputs.iter() {
        let Input::Path(p) = input else { continue };
        if !is_uuid_stem(p) || p.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let (Some(dir), Some(stem)) = (p.parent(), p.file_stem().and_then(|s| s.to_str())) else {
            continue;
        };
        let sub = dir.join(stem).join("subagents");
        if sub.is_dir() {
            extra.extend(
                crate::io::paths::expand(&[sub], follow)
                    .inputs
                    .into_iter()
                    .filter_map(|i| match i {
                        Input::Path(p) => Some(p),
                        Input::Stdin | Input::Archived(_) => None,
                    }),
            );
        }
        if let Ok(entries) = std::fs::read_dir(dir) {
            let needle = format!("\"sessionId\":\"{stem}\"");
            for e in entries.flatten() {
                let ap = e.path();
                let name = ap.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.starts_with("agent-")
                    && name.ends_with(".jsonl")
                    && e.file_type().is_ok_and(|t| t.is_file())
                    && head_contains(&ap, needle.as_bytes())
                {
                    extra.push(ap);
                }
            }
        }
    }
    for p in extra {
        let i = Input::Path(p);
        if !inputs.contains(&i) {
            inputs.push(i);
        }
    }
}

/// Whether the first 64 KiB of a file hold `needle`.
fn head_contains(path: &Path, needle: &[u8]) -> bool {
    // Opened as a regular file only: a FIFO named like a subagent file would block.
    crate::io::paths::regular_file_head(path, 64 * 1024).is_some_and(|buf| memchr::memmem::find(&buf, needle).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subagent_paths() {
        assert!(is_subagent_path("/p/x/5e55/subagents/agent-a1.jsonl"));
        assert!(is_subagent_path("/p/x/agent-a1.jsonl"));
        assert!(!is_subagent_path("/p/x/5e551000-0000-4000-8000-000000000000.jsonl"));
        assert!(is_uuid_stem(Path::new("/p/5e551000-0000-4000-8000-000000000000.jsonl")));
    }
}
