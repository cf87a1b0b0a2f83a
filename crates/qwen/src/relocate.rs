//! How Qwen Code's sessions follow a project folder that moved (`docs/stores.md`, "Sessions
//! follow the project"): every record says its `cwd`, and the store files a session under
//! `projects/<the folder, sanitized>/chats/`; `--resume` and `--continue` look only in the
//! current folder's, and take a session whose first record's `cwd` is that folder.

use std::ops::Range;
use std::path::{Path, PathBuf};

use cctool_core::relocate::{Relocator, refiled, strings_at};

use crate::store::project_folder;

/// Qwen Code's answers to `relocate`.
pub struct QwenRelocator;

impl Relocator for QwenRelocator {
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
        strings_at(line, &["cwd"], out);
    }

    fn placed(&self, session: &Path, old_cwd: &str, new_cwd: &str) -> Option<PathBuf> {
        if session.parent()?.file_name()? != "chats" {
            return None;
        }
        refiled(session, 2, &project_folder(old_cwd), &project_folder(new_cwd))
    }

    fn copy_keeps_id(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_moves_to_the_chats_of_its_new_folder() {
        let s = Path::new("/h/.qwen/projects/-home-me-app/chats/7f0c.jsonl");
        assert_eq!(
            QwenRelocator.placed(s, "/home/me/app", "/work/app").as_deref(),
            Some(Path::new("/h/.qwen/projects/-work-app/chats/7f0c.jsonl"))
        );
        assert_eq!(QwenRelocator.placed(s, "/home/me/other", "/work/app"), None);
    }
}
