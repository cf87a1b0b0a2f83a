use super::*;
use proptest::prelude::*;

fn msg(role: &str, items: Vec<Item>) -> MessageV3 {
    MessageV3::new(role, items)
}

fn text(t: &str) -> Item {
    Item::text(t)
}

fn user(t: &str) -> MessageV3 {
    msg("user", vec![text(t)])
}

fn call(id: &str, name: &str, args: Value) -> Item {
    Item::tool_call(id, name, args)
}

fn calls(items: Vec<Item>) -> MessageV3 {
    msg("assistant", items)
}

fn result(id: &str, content: Value) -> MessageV3 {
    MessageV3::tool(id, vec![Item::tool_result(content)])
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn session() -> Vec<MessageV3> {
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
    let r = Recap::extract(&session());
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
    let r = Recap::extract(&span);
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
    let r = Recap::extract(&span);
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

#[test]
fn only_unambiguous_shell_reads_are_tracked() {
    let reads = |cmd: &str| Command::Script(cmd.into()).reads();
    assert_eq!(reads("sed -n '1,20p' src/a.rs"), ["src/a.rs"]);
    assert_eq!(reads("sed -n -e 1p a b"), ["a", "b"]);
    assert_eq!(reads("head -n 5 a b"), ["a", "b"]);
    assert_eq!(reads("tail -20 log.txt"), ["log.txt"]);
    assert_eq!(reads("nl -ba src/x.rs"), ["src/x.rs"]);
    assert_eq!(reads("grep -rn 'x y' src tests"), ["src", "tests"]);
    assert_eq!(reads("rg -g '*.rs' -C 3 pattern src"), ["src"]);
    assert_eq!(reads("rg -e a -e b src"), ["src"]);
    assert_eq!(reads("bash -lc 'cat \"my file\"'"), ["my file"]);
    assert_eq!(reads("/bin/cat -n a # comment"), ["a"]);
    for none in [
        "rg foo",
        "cat a | grep x",
        "cat a && cat b",
        "cat a; cat b",
        "cat a > b",
        "tail -f log 2>/dev/null",
        "cat $HOME/x",
        "cat \"$(ls)\"",
        "cat *.rs",
        "cat ~/x",
        "sed 's/a/b/' f",
        "sed -n -i 's/a/b/p' f",
        "vim f",
        "cat 'unterminated",
        "",
    ] {
        assert!(reads(none).is_empty(), "{none}");
    }
}

#[test]
fn commands_are_capped_to_the_most_recent() {
    let mut span = vec![user("go")];
    for i in 0..35 {
        span.push(calls(vec![call(
            &format!("c{i}"),
            "Bash",
            json!({"command": format!("echo {i}")}),
        )]));
    }
    // A repeated command counts once, at its latest run.
    span.push(calls(vec![call("again", "Bash", json!({"command": "echo 34"}))]));
    let r = Recap::extract(&span);
    assert_eq!(r.progress.len(), 31);
    assert_eq!(r.progress[0], "(5 earlier commands omitted)");
    assert_eq!(r.progress[1], "Ran `echo 5` (exit ?)");
    assert_eq!(r.progress[30], "Ran `echo 34` (exit ?)");
}

#[test]
fn quotes_are_capped_deduplicated_and_one_line() {
    let long = "a".repeat(3000);
    let mut span = vec![user(&format!("{long}\n\n  second   line"))];
    for i in 0..25 {
        span.push(user(&format!("Never do {i}. Never do 0.")));
    }
    let r = Recap::extract(&span);
    assert!(
        r.goal.ends_with("…\"") && r.goal.chars().count() == GOAL_CAP + 3,
        "{}",
        r.goal.len()
    );
    assert_eq!(r.constraints.len(), MAX_QUOTES);
    assert_eq!(r.constraints.last().map(String::as_str), Some("\"Never do 0.\""));
    assert_eq!(r.constraints.iter().filter(|c| *c == "\"Never do 0.\"").count(), 1);
    assert!(!r.constraints.contains(&"\"Never do 1.\"".to_string()));
    // Whole words only: "musty" and "keeper" do not state constraints.
    let r = Recap::extract(&[user("A musty keeper. Don\u{2019}t panic! Make  sure it works")]);
    assert_eq!(
        r.constraints,
        strings(&["\"Don\u{2019}t panic!\"", "\"Make sure it works\""])
    );
}

fn example() -> Recap {
    Recap {
        goal: "\"Refactor module A for me\"".into(),
        constraints: strings(&["\"never touch module B\""]),
        progress: strings(&["Modified `src/a.rs`", "Ran `cargo test` (exit 0)"]),
        key_decisions: vec![],
        next_steps: strings(&["Pending: docs"]),
        files: FileTracking {
            read: strings(&["src/mod.rs", "src/interface.rs"]),
            modified: strings(&["src/interface.rs"]),
        },
    }
}

#[test]
fn renders_the_spec_layout() {
    assert_eq!(
        example().render(),
        "[Summary]\nGoal: \"Refactor module A for me\"\nConstraints: \"never touch module B\"\nProgress:\n\
         - Modified `src/a.rs`\n- Ran `cargo test` (exit 0)\nKey Decisions: (none)\nNext Steps: Pending: docs\n\n\
         [File Tracking]\nRead: src/mod.rs, src/interface.rs\nModified: src/interface.rs\n"
    );
    let empty = Recap::default().render();
    assert!(empty.contains("Goal: (none)\n") && empty.contains("Read: (none)\nModified: (none)\n"));
    assert_eq!(Recap::parse(&empty), Some(Recap::default()));
}

#[test]
fn parse_finds_the_block_inside_other_text() {
    let r = example();
    let wrapped = format!(
        "This session continues an earlier one.\r\n\r\n{}\nPlease continue.\n",
        r.render()
    );
    assert_eq!(Recap::parse(&wrapped), Some(r.clone()));
    let crlf = r.render().replace('\n', "\r\n");
    assert_eq!(Recap::parse(&crlf), Some(r));
    assert_eq!(Recap::parse("no summary here"), None);
    assert_eq!(Recap::parse("[Summary]\nnot a goal"), None);
    let partial = Recap::parse("Header: [Summary]\nGoal: x\nConstraints: y\n").expect("partial");
    assert_eq!((partial.goal.as_str(), partial.constraints), ("x", strings(&["y"])));
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ,\\-\n\r()\"`:]{0,12}",
        Just("(none)".to_string()),
        Just("- item".to_string()),
        Just("a, b".to_string()),
        Just("Goal: x".to_string()),
        Just("[File Tracking]".to_string()),
        any::<String>(),
    ]
}

fn recap() -> impl Strategy<Value = Recap> {
    let list = || proptest::collection::vec(value(), 0..4);
    (value(), list(), list(), list(), list(), list(), list()).prop_map(|(g, c, p, k, n, r, m)| Recap {
        goal: g,
        constraints: c,
        progress: p,
        key_decisions: k,
        next_steps: n,
        files: FileTracking { read: r, modified: m },
    })
}

proptest! {
    #[test]
    fn render_then_parse_round_trips(r in recap()) {
        let n = r.normalized();
        prop_assert_eq!(n.normalized(), n.clone());
        prop_assert_eq!(Recap::parse(&r.render()), Some(n.clone()));
        prop_assert_eq!(Recap::from_item(&r.to_item()), Some(n.clone()));
        let text_only = json!({"type": "summary", "text": r.render()});
        prop_assert_eq!(Recap::from_item(&text_only), Some(n));
    }

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
        let r = Recap::extract(&span);
        prop_assert_eq!(Recap::parse(&r.render()), Some(r));
    }
}

#[test]
fn merge_follows_the_spec() {
    let old = Recap {
        goal: "\"old goal\"".into(),
        constraints: strings(&["a", "b"]),
        progress: strings(&["p1"]),
        key_decisions: strings(&["d1"]),
        next_steps: strings(&["old step"]),
        files: FileTracking {
            read: strings(&["x", "y"]),
            modified: strings(&["z"]),
        },
    };
    let new = Recap {
        goal: String::new(),
        constraints: strings(&["b", "c"]),
        progress: strings(&["p1", "p2"]),
        key_decisions: vec![],
        next_steps: strings(&["new step"]),
        files: FileTracking {
            read: strings(&["z", "w"]),
            modified: strings(&["y"]),
        },
    };
    let m = Recap::merge(&old, &new);
    assert_eq!(m.goal, "\"old goal\"");
    assert_eq!(m.constraints, strings(&["a", "b", "c"]));
    assert_eq!(m.progress, strings(&["p1", "p2"]));
    assert_eq!(m.key_decisions, strings(&["d1"]));
    assert_eq!(m.next_steps, strings(&["new step"]));
    assert_eq!(m.files.read, strings(&["x", "w"]));
    assert_eq!(m.files.modified, strings(&["z", "y"]));
    let newer = Recap {
        goal: "\"new goal\"".into(),
        ..Recap::default()
    };
    let m2 = Recap::merge(&m, &newer);
    assert_eq!(m2.goal, "\"new goal\"");
    assert!(m2.next_steps.is_empty());
    // Merging the same recap again changes nothing.
    assert_eq!(Recap::merge(&old, &Recap::merge(&old, &new)), Recap::merge(&old, &new));
}

#[test]
fn item_keys_are_in_spec_order() {
    let item = example().to_item();
    let keys: Vec<&str> = item
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "type",
            "goal",
            "constraints",
            "progress",
            "key_decisions",
            "next_steps",
            "files",
            "text"
        ]
    );
    assert_eq!(
        item["files"],
        json!({"read": ["src/mod.rs", "src/interface.rs"], "modified": ["src/interface.rs"]})
    );
    assert_eq!(item["text"], json!(example().render()));
    assert_eq!(Recap::from_item(&item), Some(example()));
    assert_eq!(
        Recap::from_item(&json!({"type": "summary", "text": null, "encrypted": true})),
        None
    );
    assert_eq!(
        Recap::from_item(&json!({"type": "summary", "text": "Claude's prose"})),
        None
    );
    assert_eq!(Recap::from_item(&json!({"type": "text", "goal": "x"})), None);
    assert_eq!(Recap::from_item(&json!("summary")), None);
}

#[test]
fn an_earlier_recap_in_the_span_is_updated() {
    let earlier = example();
    let span = vec![
        msg("user", vec![Item::Other(earlier.to_item())]),
        user("Also never break the CLI."),
        calls(vec![call(
            "w",
            "Write",
            json!({"file_path": "src/new.rs", "content": "x"}),
        )]),
    ];
    let r = Recap::extract(&span);
    assert_eq!(r.goal, "\"Also never break the CLI.\"");
    assert_eq!(
        r.constraints,
        strings(&["\"never touch module B\"", "\"Also never break the CLI.\""])
    );
    assert_eq!(
        r.progress,
        strings(&[
            "Modified `src/a.rs`",
            "Ran `cargo test` (exit 0)",
            "Modified `src/new.rs`"
        ])
    );
    assert_eq!(r.next_steps, strings(&["Last request: \"Also never break the CLI.\""]));
    assert_eq!(r.files.modified, strings(&["src/interface.rs", "src/new.rs"]));
    assert_eq!(Recap::merge(&earlier, &r), r);
    // A span holding only the earlier recap gives it back unchanged.
    assert_eq!(Recap::extract(&span[..1]), earlier);
    assert!(Recap::extract(&[]).is_empty());
}
