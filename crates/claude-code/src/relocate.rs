//! How Claude Code's sessions follow a project folder that moved (`docs/stores.md`, "Sessions
//! follow the project"): the store files a transcript under the folder named after the
//! directory Claude Code ran in (`store::project_slug`), and every record says its `cwd`.

use std::ops::Range;
use std::path::{Path, PathBuf};

use cctool_core::relocate::{Relocator, refiled, strings_at};

use crate::store::project_slug;

/// Claude Code's answers to `relocate`.
pub struct ClaudeCodeRelocator;

impl Relocator for ClaudeCodeRelocator {
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
        strings_at(line, &["cwd"], out);
    }

    /// The project folder of the new directory, when the transcript is in the one of the old:
    /// `claude --resume` and `--continue` look in the folder of the directory they run in only.
    fn placed(&self, session: &Path, old_cwd: &str, new_cwd: &str) -> Option<PathBuf> {
        refiled(session, 1, &project_slug(old_cwd), &project_slug(new_cwd))
    }

    /// `<project>/<session id>/`: the subagent transcripts and the tool results kept apart.
    fn side_folder(&self, session: &Path) -> Option<PathBuf> {
        let stem = session.file_stem()?;
        Some(session.with_file_name(stem))
    }

    /// A session is looked up in the folder of the directory `claude` runs in: the copy under
    /// the new folder and the original under the old one never meet.
    fn copy_keeps_id(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_moves_to_the_folder_of_its_new_directory() {
        let r = ClaudeCodeRelocator;
        let s = Path::new("/h/.claude/projects/-home-me-app/0b1c.jsonl");
        assert_eq!(
            r.placed(s, "/home/me/app", "/work/app").as_deref(),
            Some(Path::new("/h/.claude/projects/-work-app/0b1c.jsonl"))
        );
        // Started in a subfolder: filed under the subfolder's own name, which moves with it.
        assert_eq!(r.placed(s, "/home/me/app/src", "/work/app/src"), None);
        assert_eq!(
            r.side_folder(s).as_deref(),
            Some(Path::new("/h/.claude/projects/-home-me-app/0b1c"))
        );
    }
}
