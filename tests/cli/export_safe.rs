//! `export -o DIR` writes only where it may: an index page already in the folder is refused
//! as the session pages are, unless `--force`.

use crate::case::Case;

const SESSIONS: [&str; 2] = ["export/clean_claude.jsonl", "export/codex_secrets.jsonl"];

/// `export --format <format> -o out` of both sessions, over a page of the user's at `out/<index>`.
fn export(format: &str, index: &str) -> Case {
    Case::new("export")
        .fixture(SESSIONS[0])
        .fixture(SESSIONS[1])
        .file(&format!("out/{index}"), "my own page\n")
        .args(["--format", format, "-o", "out"])
        .args(SESSIONS)
}

#[test]
fn an_index_already_in_the_folder_is_replaced_only_with_force() {
    for (format, index) in [("markdown", "index.md"), ("html", "index.html")] {
        let page = format!("out/{index}");
        let run = export(format, index).run().code(1);
        let err = run.stderr();
        assert!(
            err.contains(&format!("{page}: exists; not overwritten (--force replaces it)")),
            "{format}: {err}"
        );
        assert_eq!(std::fs::read_to_string(run.path(&page)).unwrap(), "my own page\n");

        let run = export(format, index).args(["--force"]).run().code(0);
        assert_ne!(std::fs::read_to_string(run.path(&page)).unwrap(), "my own page\n");
    }
}
