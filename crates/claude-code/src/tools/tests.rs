use proptest::prelude::*;
use serde_json::json;

use super::*;

/// Codex's tools, whose calls these tests write as Claude Code's (the other agent is a
/// dev-dependency: only the tests of a conversion name it).
fn codex() -> &'static dyn Vocabulary {
    &cctool_codex::tools::CodexTools
}

fn claude_of(name: &str, input: Value) -> (String, Value) {
    to_claude(codex(), name, &input).0
}

#[test]
fn codex_tools_become_claude_tools() {
    let (n, i) = claude_of(
        "shell",
        json!({"command": ["bash", "-lc", "cargo test"], "workdir": "/w"}),
    );
    assert_eq!(
        (n.as_str(), i),
        ("Bash", json!({"command": "cargo test", "workdir": "/w"}))
    );
    let (n, i) = claude_of("local_shell", json!({"type": "exec", "command": ["ls", "a b"]}));
    assert_eq!((n.as_str(), i), ("Bash", json!({"command": "ls 'a b'"})));
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@ fn main\n ctx\n-old\n+new\n*** End Patch\n";
    let (n, i) = claude_of("apply_patch", json!({ "input": patch }));
    assert_eq!(
        (n.as_str(), i),
        (
            "Edit",
            json!({"file_path": "src/a.rs", "old_string": "ctx\nold", "new_string": "ctx\nnew"})
        )
    );
    let two = "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch";
    let (n, _) = claude_of("apply_patch", json!({ "input": two }));
    assert_eq!(n, "apply_patch");
    let (n, i) = claude_of("mcp__x__y", json!("s"));
    assert_eq!((n.as_str(), i), ("mcp__x__y", json!({"input": "s"})));
    let ((n, i), mapped) = to_claude(codex(), "exec_command", &json!({"cmd": "nl -ba a.rs | head -n 3"}));
    assert_eq!(
        (n.as_str(), i, mapped.as_deref()),
        (
            "Read",
            json!({"file_path": "a.rs", "limit": 3}),
            Some("exec_command → Read")
        )
    );
}

fn text() -> impl Strategy<Value = String> {
    "[a-z *@+\\-'|\n]{0,16}"
}

fn path() -> impl Strategy<Value = String> {
    "[a-z/._ ]{1,12}"
}

fn edit() -> impl Strategy<Value = Value> {
    (text(), text(), proptest::option::of(any::<bool>())).prop_map(|(old, new, all)| {
        let mut e = json!({"old_string": old, "new_string": new});
        if let Some(all) = all {
            e["replace_all"] = json!(all);
        }
        e
    })
}

/// Calls of every tool Claude Code's vocabulary reads, with and without keys the kind has
/// no word for.
fn call() -> impl Strategy<Value = (String, Value)> {
    let call = prop_oneof![
        text().prop_map(|c| ("Bash", json!({ "command": c }))),
        (path(), proptest::option::of(0u64..99), proptest::option::of(0u64..99)).prop_map(|(p, a, n)| {
            let mut i = json!({ "file_path": p });
            if let Some(a) = a {
                i["offset"] = json!(a);
            }
            if let Some(n) = n {
                i["limit"] = json!(n);
            }
            ("Read", i)
        }),
        (path(), text()).prop_map(|(p, c)| ("Write", json!({"file_path": p, "content": c}))),
        (path(), edit()).prop_map(|(p, e)| {
            let mut i = json!({ "file_path": p });
            i.as_object_mut()
                .expect("object")
                .extend(e.as_object().expect("object").clone());
            ("Edit", i)
        }),
        (path(), proptest::collection::vec(edit(), 2..4))
            .prop_map(|(p, e)| ("Edit", json!({"file_path": p, "edits": e}))),
        (text(), proptest::option::of(path())).prop_map(|(q, p)| {
            let mut i = json!({ "pattern": q });
            if let Some(p) = p {
                i["path"] = json!(p);
            }
            ("Grep", i)
        }),
        text().prop_map(|q| ("Glob", json!({ "pattern": q }))),
        (text(), text()).prop_map(|(u, p)| ("WebFetch", json!({"url": u, "prompt": p}))),
        text().prop_map(|q| ("WebSearch", json!({ "query": q }))),
        (text(), text()).prop_map(|(p, d)| ("Task", json!({"prompt": p, "description": d}))),
    ];
    (call, proptest::option::of(text())).prop_map(|((name, mut input), d)| {
        if let Some(d) = d {
            input["description"] = json!(d);
        }
        (name.to_string(), input)
    })
}

proptest! {
    /// Every call of Claude Code's tools comes back from its neutral call as it was.
    #[test]
    fn claude_calls_come_back_from_their_neutral_call((name, input) in call()) {
        let n = ClaudeCodeTools.to_neutral(&name, &input);
        prop_assert!(!matches!(n.kind, Kind::Other(_)), "{} {}", name, input);
        let w = ClaudeCodeTools.from_neutral(&n, Context::default()).expect("written");
        prop_assert_eq!((w.name, w.input), (name, Input::Json(input)));
    }
}

#[test]
fn a_multiedit_and_a_list_of_one_come_back_as_edit() {
    for (name, input) in [
        (
            "MultiEdit",
            json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q"}]}),
        ),
        (
            "Edit",
            json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}]}),
        ),
    ] {
        let n = ClaudeCodeTools.to_neutral(name, &input);
        let w = ClaudeCodeTools.from_neutral(&n, Context::default()).expect("written");
        assert_eq!(w.name, "Edit");
        assert_eq!(n.file.as_deref(), Some("a"));
    }
}

/// The recap reads a file named by any of its tools, whatever else the call says, and the
/// todo list, which has no neutral kind.
#[test]
fn the_recap_reads_files_todos_and_silent_successes() {
    let t = ClaudeCodeTools;
    let gist = |name: &str, input: Value| t.gist(name, &input);
    assert_eq!(
        gist("Read", json!({"file_path": "a.rs", "offset": "x"})),
        Gist::Read(Some("a.rs".into()))
    );
    assert_eq!(gist("Glob", json!({"pattern": "*"})), Gist::Read(None));
    assert_eq!(
        gist("NotebookEdit", json!({"notebook_path": "n.ipynb"})),
        Gist::Modify(Some("n.ipynb".into()))
    );
    assert_eq!(
        gist("Bash", json!({"command": "ls"})),
        Gist::Shell(Command::Line("ls".into()))
    );
    assert_eq!(gist("Bash", json!({})), Gist::Other);
    assert_eq!(
        gist(
            "TodoWrite",
            json!({"todos": [{"content": "Ship", "status": "pending", "activeForm": "Shipping"}, {"status": "x"}]})
        ),
        Gist::Todo(Some(vec![Todo {
            status: "pending".into(),
            text: "Ship".into()
        }]))
    );
    assert_eq!(gist("WebFetch", json!({"url": "u"})), Gist::Other);
    assert_eq!(t.unstated_exit("Bash", "all good"), Some(0));
    assert_eq!(t.unstated_exit("Bash", "Command timed out after 2m"), None);
    assert_eq!(t.unstated_exit("Read", "all good"), None);
}

#[test]
fn its_exit_code_lines_are_the_status() {
    let t = ClaudeCodeTools;
    assert_eq!(t.stated_exit("Exit code 1\nerror: unused variable"), Some(1));
    assert_eq!(t.stated_exit("ok\n  exit code 2"), Some(2));
    assert_eq!(t.stated_exit("the exit code was 3"), None);
    assert_eq!(t.stated_exit("Process exited with code 1"), None);
}

#[test]
fn a_tool_use_error_is_a_failure() {
    let t = ClaudeCodeTools;
    assert!(t.stated_failure(" <tool_use_error>String to replace not found</tool_use_error>"));
    assert!(!t.stated_failure("no <tool_use_error> here"));
}

#[test]
fn its_reminders_commands_and_interruptions_are_not_the_users_words() {
    let t = ClaudeCodeTools;
    for injected in [
        "<system-reminder>you must obey</system-reminder>",
        "<command-name>/clear</command-name>",
        "<local-command-stdout></local-command-stdout>",
        "\n[Request interrupted by user for tool use]",
    ] {
        assert!(t.injected(injected), "{injected}");
    }
    assert!(!t.injected("Please keep <system-reminder> tags"));
    assert!(!t.injected("<environment_context>"));
}
