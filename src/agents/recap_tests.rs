//! The recap reads each agent's tool calls through the agents' vocabularies: the tests that
//! need the registry's agents (`cctool_core::compact::recap`).

use proptest::prelude::*;
use serde_json::json;

use crate::compact::recap::testing::*;
use crate::compact::recap::{Recap, Tools};
use crate::model::events::Record;

/// The builtin agents' tools, as a run reads a session of unknown origin.
fn tools() -> Tools {
    Tools::in_registry(super::registry(), None)
}

fn extract(span: &[Record]) -> Recap {
    Recap::extract_with(span, &tools())
}

fn session() -> Vec<Record> {
    vec![
        user("Refactor   module A\nfor me. You must keep the public API. Never touch module B."),
        msg(
            "system",
            vec![text("<environment_context>cwd must be /x</environment_context>")],
        ),
        msg(
            "assistant",
            vec![
                text("I'll use a trait object rather than generics. Let me look."),
                call("c1", "Read", json!({"file_path": "src/a.rs"})),
            ],
        ),
        result("c1", json!("fn a() {}")),
        calls(vec![
            call(
                "c2",
                "Edit",
                json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            ),
            call("c3", "MultiEdit", json!({"file_path": "src/a.rs", "edits": []})),
            call("c4", "Edit", json!({"file_path": "src/z.rs"})),
        ]),
        result("c2", json!("ok")),
        result("c3", json!("ok")),
        result(
            "c4",
            json!("<tool_use_error>String to replace not found</tool_use_error>"),
        ),
        calls(vec![
            call("c5", "Read", json!({"file_path": "src/a.rs"})),
            call("c6", "Grep", json!({"pattern": "fn", "path": "src/mod.rs"})),
            call("c7", "Glob", json!({"pattern": "**/*.rs"})),
            call("c8", "Bash", json!({"command": "cargo test"})),
            call("c9", "Bash", json!({"command": "cargo clippy"})),
        ]),
        result("c5", json!([{"type": "text", "text": "fn b() {}"}])),
        result("c8", json!("test result: ok. 3 passed")),
        result("c9", json!("Exit code 1\nerror: unused variable")),
        user("```\nlet must = 1; // never\n```\nlooks fine"),
        msg(
            "assistant",
            vec![
                text("We decided to split it.\n```\ninstead();\n```"),
                call("c10", "shell", json!({"command": ["bash", "-lc", "cat src/lib.rs"]})),
                call("c11", "exec_command", json!({"cmd": "cargo build"})),
                call("c12", "shell_command", json!({"command": "rg -n foo src/x.rs"})),
                call("c13", "shell", json!({"command": ["sed", "-n", "1,5p", "src/y.rs"]})),
                call(
                    "c14",
                    "apply_patch",
                    json!({"input": "*** Begin Patch\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Add File: src/d.rs\n+new\n*** End Patch\n"}),
                ),
                call("c15", "Bash", json!({"command": "cd x\nmake"})),
            ],
        ),
        result(
            "c10",
            json!(r#"{"output":"pub mod a;","metadata":{"exit_code":0,"duration_seconds":0.1}}"#),
        ),
        result(
            "c11",
            json!("Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 1\nOutput:\nerror"),
        ),
        result("c12", json!("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n1:foo")),
        result("c13", json!("Exit code: 0\nOutput:\nline")),
        result("c14", json!(r#"{"output":"Success.","metadata":{"exit_code":0}}"#)),
        calls(vec![call(
            "t1",
            "TodoWrite",
            json!({"todos": [{"content": "Old item", "status": "pending"}]}),
        )]),
        calls(vec![call(
            "t2",
            "TodoWrite",
            json!({"todos": [
                {"content": "Extract trait", "status": "completed", "activeForm": "Extracting"},
                {"content": "Adapt module B", "status": "in_progress"},
                {"content": "Write docs", "status": "pending"}
            ]}),
        )]),
        user("<system-reminder>you must obey</system-reminder>"),
        user("Now add tests, and don't use unwrap."),
    ]
}

#[test]
fn extracts_every_field_literally() {
    let r = extract(&session());
    assert_eq!(
        r.goal,
        "\"Refactor module A for me. You must keep the public API. Never touch module B.\""
    );
    assert_eq!(
        r.constraints,
        strings(&[
            "\"You must keep the public API.\"",
            "\"Never touch module B.\"",
            "\"Now add tests, and don't use unwrap.\"",
        ])
    );
    assert_eq!(
        r.key_decisions,
        strings(&[
            "\"I'll use a trait object rather than generics.\"",
            "\"We decided to split it.\""
        ])
    );
    assert_eq!(
        r.progress,
        strings(&[
            "Modified `src/a.rs`",
            "Ran `cargo test` (exit 0)",
            "Ran `cargo clippy` (exit 1)",
            "Ran `cat src/lib.rs` (exit 0)",
            "Ran `cargo build` (exit 1)",
            "Ran `rg -n foo src/x.rs` (exit 0)",
            "Ran `sed -n 1,5p src/y.rs` (exit 0)",
            "Modified `src/b.rs`",
            "Modified `src/c.rs`",
            "Modified `src/d.rs`",
            "Ran `cd x …` (exit ?)",
            "Completed: Extract trait",
        ])
    );
    assert_eq!(
        r.next_steps,
        strings(&[
            "In progress: Adapt module B",
            "Pending: Write docs",
            "Last request: \"Now add tests, and don't use unwrap.\"",
        ])
    );
    assert_eq!(
        r.files.read,
        strings(&["src/mod.rs", "src/lib.rs", "src/x.rs", "src/y.rs"])
    );
    assert_eq!(
        r.files.modified,
        strings(&["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs"])
    );
}

#[test]
fn codex_plan_and_shell_patches_are_understood() {
    let span = vec![
        user("Port it"),
        calls(vec![
            call(
                "p1",
                "shell",
                json!({"command": ["bash", "-lc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: old.rs\n*** End Patch\nEOF"]}),
            ),
            call(
                "p2",
                "update_plan",
                json!({"explanation": "x", "plan": [{"step": "Port parser", "status": "completed"}, {"step": "Port writer", "status": "pending"}]}),
            ),
            call(
                "p3",
                "local_shell",
                json!({"type": "exec", "command": ["cat", "a b.txt"]}),
            ),
        ]),
        result("p1", json!("Exit code: 0\nOutput:\nDone!")),
        result("p3", json!(r#"{"output":"x","metadata":{"exit_code":0}}"#)),
    ];
    let r = extract(&span);
    assert_eq!(
        r.progress,
        strings(&[
            "Ran `apply_patch <<'EOF' …` (exit 0)",
            "Modified `old.rs`",
            "Ran `cat 'a b.txt'` (exit 0)",
            "Completed: Port parser",
        ])
    );
    assert_eq!(
        r.next_steps,
        strings(&["Pending: Port writer", "Last request: \"Port it\""])
    );
    assert_eq!(r.files.read, strings(&["a b.txt"]));
    assert_eq!(r.files.modified, strings(&["old.rs"]));
}

#[test]
fn unfinished_claude_commands_have_no_status() {
    let span = vec![
        user("Build it"),
        calls(vec![
            call(
                "b1",
                "Bash",
                json!({"command": "npm run dev", "run_in_background": true}),
            ),
            call("b2", "Bash", json!({"command": "sleep 999"})),
            call("b3", "Bash", json!({"command": "ls"})),
        ]),
        result("b1", json!("Command running in background with ID: 7")),
        result("b2", json!("Command timed out after 2m 0.0s")),
        result("b3", json!("")),
        user("[Request interrupted by user]"),
    ];
    let r = extract(&span);
    assert_eq!(
        r.progress,
        strings(&[
            "Ran `npm run dev` (exit ?)",
            "Ran `sleep 999` (exit ?)",
            "Ran `ls` (exit 0)"
        ])
    );
    assert_eq!(r.next_steps, strings(&["Last request: \"Build it\""]));
}

proptest! {
    #[test]
    fn extraction_never_panics(cmd in any::<String>(), said in any::<String>(), out in any::<String>()) {
        let span = vec![
            user(&said),
            msg("assistant", vec![text(&said), call("x", "Bash", json!({"command": cmd.clone()})),
                call("y", "shell", json!({"command": ["bash", "-lc", cmd.clone()]})),
                call("z", "apply_patch", json!(format!("*** Begin Patch\n{cmd}")))]),
            result("x", json!(out.clone())),
            result("y", json!(out)),
        ];
        let r = extract(&span);
        prop_assert_eq!(Recap::parse(&r.render()), Some(r));
    }
}

/// The source's tools are asked first, and a call its tools cannot say (kept under the
/// other agent's name by a conversion) is read by the agent that has it.
#[test]
fn a_known_source_reads_first_and_the_others_still_read_theirs() {
    let span = vec![
        user("Go"),
        calls(vec![
            call("a", "Bash", json!({"command": "ls"})),
            call(
                "b",
                "update_plan",
                json!({"plan": [{"step": "Ship", "status": "pending"}]}),
            ),
        ]),
        result("a", json!("")),
    ];
    let from_codex = Tools::in_registry(super::registry(), Some(super::codex::ID));
    let r = Recap::extract_with(&span, &from_codex);
    assert_eq!(r, extract(&span));
    assert_eq!(r.progress, strings(&["Ran `ls` (exit 0)"]));
    assert_eq!(r.next_steps, strings(&["Pending: Ship", "Last request: \"Go\""]));
}
