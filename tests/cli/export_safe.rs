//! `export -o DIR` writes only where it may: an index page already in the folder is refused
//! as the session pages are, unless `--force`.

use crate::util::{cctool, fixture};

const SESSIONS: [&str; 2] = ["export/clean_claude.jsonl", "export/codex_secrets.jsonl"];

#[test]
fn an_index_already_in_the_folder_is_replaced_only_with_force() {
    for (format, index) in [("markdown", "index.md"), ("html", "index.html")] {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join(index);
        std::fs::write(&page, "my own page\n").unwrap();
        let run = |force: bool| {
            let mut c = cctool();
            c.args(["export", "--format", format, "-o"]).arg(dir.path());
            if force {
                c.arg("--force");
            }
            c.args(SESSIONS.map(fixture)).output().unwrap()
        };
        let out = run(false);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}: {err}");
        assert!(
            err.contains(&format!(
                "{}: exists; not overwritten (--force replaces it)",
                page.display()
            )),
            "{format}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "my own page\n");

        // The session pages written by the first run are refused too; --force replaces all.
        let out = run(true);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert_ne!(std::fs::read_to_string(&page).unwrap(), "my own page\n");
    }
}
