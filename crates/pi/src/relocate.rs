//! How pi's sessions follow a project folder that moved (`docs/stores.md`, "Sessions follow
//! the project"): the session header says the `cwd`, and the default store files a session
//! under the folder named after it (`store::project_folder`).

use std::ops::Range;
use std::path::{Path, PathBuf};

use cctool_core::relocate::{Relocator, refiled, strings_at};

use crate::store::project_folder;

/// pi's answers to `relocate`.
pub struct PiRelocator;

impl Relocator for PiRelocator {
    /// The header's `cwd`: no other record of pi's says the directory.
    fn cwd_spans(&self, line: &[u8], out: &mut Vec<Range<usize>>) {
        strings_at(line, &["cwd"], out);
    }

    /// The folder of the new directory when the session is in the old one's; a session in a
    /// folder a variable or `sessionDir` names stays, since pi lists that folder whatever the
    /// directory.
    fn placed(&self, session: &Path, old_cwd: &str, new_cwd: &str) -> Option<PathBuf> {
        refiled(session, 1, &project_folder(old_cwd), &project_folder(new_cwd))
    }

    /// pi lists and continues the sessions of the folder of the directory it runs in.
    fn copy_keeps_id(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_moves_to_the_folder_of_its_new_directory() {
        let s = Path::new("/h/.pi/agent/sessions/--home-me-app--/2026-01-01T00-00-00-000Z_abc.jsonl");
        assert_eq!(
            PiRelocator.placed(s, "/home/me/app", "/work/app").as_deref(),
            Some(Path::new(
                "/h/.pi/agent/sessions/--work-app--/2026-01-01T00-00-00-000Z_abc.jsonl"
            ))
        );
        let custom = Path::new("/h/my-sessions/2026-01-01T00-00-00-000Z_abc.jsonl");
        assert_eq!(PiRelocator.placed(custom, "/home/me/app", "/work/app"), None);
    }
}
