//! How Codex's sessions follow a project folder that moved (`docs/stores.md`, "Sessions follow
//! the project"): rollouts are filed by date, not by directory, so a rollout stays where it is;
//! its `session_meta` and every `turn_context` say the directory, and the thread index's `cwd`
//! column is what `codex resume` lists by.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use cctool_core::relocate::{Moved, Relocator, string_at, strings_at};

use crate::store::{Thread, relocate_threads};

/// Codex's answers to `relocate`.
pub struct CodexRelocator;

impl Relocator for CodexRelocator {
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
        // Only the records that state the directory: a tool call's `payload.cwd`-like field
        // elsewhere would be the conversation's, which moves with `--rewrite-content` only.
        if memchr::memmem::find(line, b"session_meta").is_none()
            && memchr::memmem::find(line, b"turn_context").is_none()
        {
            return;
        }
        let kind = string_at(line, &["type"]);
        if matches!(kind.as_deref(), Some("session_meta" | "turn_context")) {
            strings_at(line, &["payload", "cwd"], out);
        }
    }

    fn placed(&self, _session: &Path, _old_cwd: &str, _new_cwd: &str) -> Option<PathBuf> {
        None
    }

    fn reindex(&self, moved: &[Moved], dry_run: bool) -> cctool_core::error::Result<Vec<String>> {
        let mut homes: BTreeMap<PathBuf, Vec<(String, String, String)>> = BTreeMap::new();
        for m in moved {
            let Some(home) = codex_home_of(&m.session) else {
                continue;
            };
            let t = Thread::from_rollout(&m.session).map_err(cctool_core::error::Error::agent)?;
            homes
                .entry(home)
                .or_default()
                .push((t.id, m.old_cwd.clone(), m.new_cwd.clone()));
        }
        let mut said = Vec::new();
        for (home, moves) in homes {
            let r = relocate_threads(&home, &moves, dry_run).map_err(cctool_core::error::Error::agent)?;
            let Some(file) = r.file else { continue };
            let verb = if dry_run { "would change" } else { "changed" };
            let mut line = format!("{}: {verb} the directory of {} thread(s)", file.display(), r.rows);
            if let Some(b) = r.backup {
                line.push_str(&format!(" (the index as it was: {})", b.display()));
            }
            said.push(line);
        }
        Ok(said)
    }
}

/// The Codex home of a rollout under its `sessions/` or `archived_sessions/`.
fn codex_home_of(rollout: &Path) -> Option<PathBuf> {
    rollout
        .ancestors()
        .find(|a| {
            a.file_name()
                .is_some_and(|n| n == "sessions" || n == "archived_sessions")
        })
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        CodexRelocator.cwd_spans(line.as_bytes(), &mut out);
        out.into_iter().map(|s| line[s].to_string()).collect()
    }

    #[test]
    fn only_the_records_that_state_the_directory_are_read() {
        assert_eq!(
            spans(r#"{"payload":{"cwd":"/a","id":"x"},"type":"session_meta"}"#),
            [r#""/a""#]
        );
        assert_eq!(spans(r#"{"type":"turn_context","payload":{"cwd":"/b"}}"#), [r#""/b""#]);
        assert!(spans(r#"{"type":"response_item","payload":{"cwd":"/c","note":"turn_context"}}"#).is_empty());
        assert_eq!(
            codex_home_of(Path::new("/h/.codex/sessions/2026/01/02/rollout-x.jsonl")).as_deref(),
            Some(Path::new("/h/.codex"))
        );
    }
}
