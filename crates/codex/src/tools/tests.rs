use proptest::prelude::*;
use serde_json::json;

use super::*;
use cctool_core::convert::tools::{Files, Translated, Web, translate};

/// Claude Code's tools, whose calls these tests write as Codex's (the other agent is a
/// dev-dependency: only the tests of a conversion name it).
fn claude() -> &'static dyn Vocabulary {
    &cctool_claude_code::tools::ClaudeCodeTools
}

fn to_codex(name: &str, input: &Value, files: &mut Files) -> Translated {
    translate(claude(), &CodexTools, name, input, Some(files))
}

/// A Claude Code call in Codex's terms, and back.
fn round(name: &str, input: Value) -> (Translated, (String, Value)) {
    let c = to_codex(name, &input, &mut Files::default());
    let back = translate(&CodexTools, claude(), &c.name, &c.input.clone().into_value(), None);
    (c, (back.name, back.input.into_value()))
}

#[test]
fn claude_tools_map_and_come_back() {
    let cases = [
        ("Bash", json!({"command": "ls -la", "description": "list"})),
        ("Read", json!({"file_path": "/a b/c.rs"})),
        ("Read", json!({"file_path": "/x.rs", "offset": 10, "limit": 5})),
        ("Read", json!({"file_path": "/x.rs", "offset": 10})),
        ("Read", json!({"file_path": "/x.rs", "limit": 7})),
        ("Write", json!({"file_path": "/x.rs", "content": "a\nb\n"})),
        (
            "Edit",
            json!({"file_path": "/x.rs", "old_string": "a\nb", "new_string": "c"}),
        ),
        (
            "Edit",
            json!({"file_path": "/x.rs", "old_string": "", "new_string": "c\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
        ),
    ];
    for (name, input) in cases {
        let (c, back) = round(name, input.clone());
        assert!(
            c.name == "exec_command" || c.name == "apply_patch",
            "{name} not mapped: {c:?}"
        );
        assert_eq!(back, (name.to_string(), input));
    }
}

fn patch_of(name: &str, input: Value, files: &mut Files) -> (String, Option<String>) {
    let m = to_codex(name, &input, files);
    assert_eq!(m.mapped.as_deref(), Some(&*format!("{name} → apply_patch")), "{input}");
    match m.input {
        Input::Text(input) => (input, m.lost),
        c => panic!("{c:?}"),
    }
}

#[test]
fn file_tools_are_patches_as_codex_writes_them() {
    let mut files = Files::default();
    let edit = json!({"file_path": "src/a.rs", "old_string": "fn a() {\n    1\n}",
                      "new_string": "fn a() {\n    2\n}", "replace_all": false});
    // The lines both strings share are the hunk's context.
    assert_eq!(
        patch_of("Edit", edit, &mut files),
        (
            "*** Begin Patch\n*** Update File: src/a.rs\n@@\n fn a() {\n-    1\n+    2\n }\n*** End Patch".into(),
            None
        )
    );
    let all = json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": true});
    assert_eq!(
        patch_of("Edit", all, &mut files),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch".into(),
            Some("Edit:replace_all flag".into())
        )
    );
    // A new file is added; one the conversation has read or written is replaced.
    let write = json!({"file_path": "b.txt", "content": "one\ntwo"});
    assert_eq!(
        patch_of("Write", write.clone(), &mut files),
        (
            "*** Begin Patch\n*** Add File: b.txt\n+one\n+two\n*** End Patch".into(),
            Some("Write:no final newline".into())
        )
    );
    assert_eq!(
        patch_of("Write", write, &mut files).0,
        "*** Begin Patch\n*** Delete File: b.txt\n*** Add File: b.txt\n+one\n+two\n*** End Patch"
    );
    let one = json!({"file_path": "c", "edits": [{"old_string": "p", "new_string": "q", "replace_all": false}]});
    assert_eq!(
        patch_of("MultiEdit", one, &mut files).0,
        "*** Begin Patch\n*** Update File: c\n@@\n-p\n+q\n*** End Patch"
    );
}

#[test]
fn a_patch_comes_back_as_the_edit_less_what_it_cannot_say() {
    let cases = [
        (
            "Edit",
            json!({"file_path": "/x", "old_string": "a\nb\n", "new_string": "a\nc\n", "replace_all": true}),
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "a\nb\n", "new_string": "a\nc\n"}),
            ),
        ),
        (
            "Write",
            json!({"file_path": "/x", "content": "no final newline"}),
            ("Write", json!({"file_path": "/x", "content": "no final newline\n"})),
        ),
        (
            "Write",
            json!({"file_path": "/x", "content": ""}),
            ("Write", json!({"file_path": "/x", "content": ""})),
        ),
        (
            "Write",
            json!({"file_path": "/x", "content": "\n"}),
            ("Write", json!({"file_path": "/x", "content": "\n"})),
        ),
        (
            "MultiEdit",
            json!({"file_path": "/x", "edits": [{"old_string": "*** End Patch", "new_string": "@@", "replace_all": false}]}),
            (
                "Edit",
                json!({"file_path": "/x", "old_string": "*** End Patch", "new_string": "@@"}),
            ),
        ),
        (
            "MultiEdit",
            json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d", "replace_all": true}]}),
            (
                "Edit",
                json!({"file_path": "/x", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
            ),
        ),
        (
            "Edit",
            json!({"file_path": "/x", "old_string": "a", "new_string": "b", "edits": [{"old_string": "c", "new_string": "d"}]}),
            ("Edit", json!({"file_path": "/x", "old_string": "c", "new_string": "d"})),
        ),
    ];
    for (name, input, (to, expected)) in cases {
        let (c, back) = round(name, input.clone());
        assert!(matches!(c.input, Input::Text(_)), "{input}");
        assert_eq!(back, (to.to_string(), expected), "{input}");
    }
}

#[test]
fn calls_the_target_cannot_express_keep_their_name() {
    for (name, input) in [
        (
            "Edit",
            json!({"file_path": "/x\ny", "old_string": "a", "new_string": "b"}),
        ),
        (
            "Edit",
            json!({"file_path": "/x", "old_string": "a", "new_string": "b", "other": 1}),
        ),
        ("Read", json!({"file_path": "/x", "offset": "3"})),
        ("Grep", json!({"pattern": "x"})),
        (
            "MultiEdit",
            json!({"file_path": "/x", "old_string": "a", "new_string": "b"}),
        ),
        ("Bash", json!({"command": "nl -ba x"})),
    ] {
        let (c, back) = round(name, input.clone());
        assert_eq!(
            (c.name.as_str(), c.input, c.mapped),
            (name, Input::Json(input.clone()), None)
        );
        assert_eq!(back, (name.to_string(), input));
    }
}

#[test]
fn a_patch_kept_as_codex_wrote_it_goes_back_as_its_own() {
    // A patch of several files came to Claude Code as `apply_patch`: it goes back free-form.
    let two = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch";
    let c = to_codex("apply_patch", &json!({ "input": two }), &mut Files::default());
    assert_eq!((c.input, c.mapped), (Input::Text(two.into()), None));
    // One that reads as an edit would come back as the edit: it stays a function call.
    let one = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch";
    let c = to_codex("apply_patch", &json!({ "input": one }), &mut Files::default());
    assert_eq!(c.input, Input::Json(json!({ "input": one })));
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z *@+\\-'|$\n]{0,24}",
        Just("*** End Patch".to_string()),
        Just("@@\n".to_string()),
        Just(String::new()),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z/._ ]{1,12}", "[a-z' |]{1,8}"]
}

fn hunks() -> impl Strategy<Value = Vec<Hunk>> {
    proptest::collection::vec(
        (text(), text()).prop_map(|(old, new)| Hunk {
            old,
            new,
            replace_all: None,
        }),
        1..4,
    )
}

/// Neutral calls of every kind Codex may write.
fn neutral() -> impl Strategy<Value = Call> {
    let kind = prop_oneof![
        text().prop_map(|c| Kind::Shell(Command::Line(c))),
        proptest::collection::vec(text(), 0..4).prop_map(|a| Kind::Shell(Command::Argv(a))),
        (path(), proptest::option::of(0u64..50), proptest::option::of(0u64..50))
            .prop_map(|(path, offset, limit)| Kind::Read(Read { path, offset, limit })),
        (path(), text()).prop_map(|(path, content)| Kind::Write { path, content }),
        (path(), hunks()).prop_map(|(path, edits)| Kind::Edit { path, edits }),
        path().prop_map(|url| Kind::Web(Web::Fetch { url })),
    ];
    let extra = proptest::option::of(text()).prop_map(|d| {
        d.map(|d| Map::from_iter([("description".to_string(), json!(d))]))
            .unwrap_or_default()
    });
    (kind, extra).prop_map(|(kind, extra)| Call {
        name: "t".into(),
        kind,
        extra,
        file: None,
    })
}

proptest! {
    /// Every call Codex writes comes back from its neutral call as it was.
    #[test]
    fn codex_calls_come_back_from_their_neutral_call(call in neutral(), exists: bool) {
        let ctx = Context { exists };
        if let Some(w) = CodexTools.from_neutral(&call, ctx) {
            let n = CodexTools.to_neutral(&w.name, &w.input.clone().into_value());
            let again = CodexTools.from_neutral(&n, ctx).expect("written again");
            prop_assert_eq!((again.name, again.input), (w.name, w.input));
        }
    }
}

/// The recap reads every shell tool's command as given (a read by `nl -ba` too), the plan,
/// and the files of every patch in a call, the tool's or one run through a shell.
#[test]
fn the_recap_reads_commands_plans_and_patches() {
    let t = CodexTools;
    assert_eq!(
        t.gist("exec_command", &json!({"cmd": "nl -ba a.rs"})),
        Gist::Shell(Command::Line("nl -ba a.rs".into()))
    );
    assert_eq!(
        t.gist("local_shell", &json!({"action": {"command": ["ls", 1]}})),
        Gist::Shell(Command::Argv(vec!["ls".into()]))
    );
    assert_eq!(
        t.gist(
            "update_plan",
            &json!({"plan": [{"step": "Port", "status": "completed"}]})
        ),
        Gist::Todo(Some(vec![Todo {
            status: "completed".into(),
            text: "Port".into()
        }]))
    );
    assert_eq!(t.gist("apply_patch", &json!({"input": "x"})), Gist::Other);
    let patch = "*** Begin Patch\n*** Update File: b.rs\n*** Move to: c.rs\n*** Add File: b.rs\n*** End Patch";
    assert_eq!(
        t.patched(&json!({"command": ["bash", "-lc", format!("apply_patch <<'EOF'\n{patch}\nEOF")]})),
        ["b.rs", "c.rs"]
    );
    assert!(t.patched(&json!({"input": "*** Add File: not a patch"})).is_empty());
}

#[test]
fn its_json_metadata_and_status_lines_are_the_status() {
    let t = CodexTools;
    assert_eq!(
        t.stated_exit(r#" {"output": "Exit code: 0", "metadata": {"exit_code": 2}} "#),
        Some(2)
    );
    assert_eq!(
        t.stated_exit("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"),
        Some(0)
    );
    assert_eq!(
        t.stated_exit("Chunk ID: 1\nWall time: 1.0 seconds\nProcess exited with code 1\nOutput:\nerror"),
        Some(1)
    );
    assert_eq!(t.stated_exit(r#"{"output": "x"}"#), None);
    assert_eq!(t.stated_exit("exit status 1"), None);
}

#[test]
fn its_context_and_instructions_are_not_the_users_words() {
    let t = CodexTools;
    for injected in [
        "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
        "<user_instructions>be brief</user_instructions>",
        "  # AGENTS.md instructions for /w",
    ] {
        assert!(t.injected(injected), "{injected}");
    }
    assert!(!t.injected("Read # AGENTS.md first"));
    assert!(!t.injected("<system-reminder>"));
}
