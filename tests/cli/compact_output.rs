//! Where `compact` writes without `-o`: beside the input, unless the input is in an agent's
//! store, where the copy would be listed as a second copy of the session and never resumed.

use crate::case::Case;
use crate::util::fixture;

const INPUT: &str = "config/projects/-work/5e551000-0000-4000-8000-000000000001.jsonl";

fn work() -> Vec<u8> {
    std::fs::read(fixture("compact/claude-work.jsonl")).unwrap()
}

#[test]
fn a_session_in_claude_code_s_store_is_compacted_into_the_current_folder() {
    let run = Case::new("compact --keep-recent 10")
        .file(INPUT, work())
        .args([format!("../{INPUT}")])
        .env_path("CLAUDE_CONFIG_DIR", "config")
        .cwd("work")
        .run()
        .code(0);
    let name = "5e551000-0000-4000-8000-000000000001.compacted.jsonl";
    assert!(run.path("work").join(name).is_file(), "written to the current folder");
    assert_eq!(
        std::fs::read_dir(run.path("config/projects/-work")).unwrap().count(),
        1,
        "nothing added to the store"
    );
    assert!(run.stdout().contains(&format!("written to {name}")));
    let e = run.stderr();
    assert!(
        e.contains("written to the current folder instead") && e.contains("--in-place"),
        "{e}"
    );
}

#[test]
fn a_session_outside_a_store_is_compacted_beside_it() {
    let run = Case::new("compact --keep-recent 10 work/s.jsonl")
        .file("work/s.jsonl", work())
        .env_path("CLAUDE_CONFIG_DIR", "config")
        .run()
        .code(0);
    assert!(run.path("work/s.compacted.jsonl").is_file());
    assert!(run.stderr().is_empty(), "{}", run.stderr());
}
