use super::testing::{call, calls, msg, result, strings, text, user};
use super::*;
use crate::convert::tools::{Call, Context, Gist, Kind, Vocabulary, Written};
use proptest::prelude::*;

/// Two made-up agents that name the same tool differently, for the order the vocabularies
/// are asked in; `Patcher` also has a patch format and reports a success by silence.
#[derive(Debug)]
struct Reader;
#[derive(Debug)]
struct Patcher;

impl Vocabulary for Reader {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        Call::other(name, input)
    }
    fn from_neutral(&self, _: &Call, _: Context) -> Option<Written> {
        None
    }
    fn gist(&self, name: &str, input: &Value) -> Gist {
        match name {
            "look" => Gist::Read(input.get("at").and_then(Value::as_str).map(str::to_string)),
            _ => Gist::Other,
        }
    }
}

impl Vocabulary for Patcher {
    fn to_neutral(&self, name: &str, input: &Value) -> Call {
        match (name, input.get("line").and_then(Value::as_str)) {
            ("look" | "run", Some(line)) => Call {
                name: name.into(),
                kind: Kind::Shell(crate::convert::tools::Command::Line(line.into())),
                extra: Default::default(),
                file: None,
            },
            _ => Call::other(name, input),
        }
    }
    fn from_neutral(&self, _: &Call, _: Context) -> Option<Written> {
        None
    }
    fn unstated_exit(&self, name: &str, _: &str) -> Option<i64> {
        (name == "run").then_some(0)
    }
    fn stated_exit(&self, text: &str) -> Option<i64> {
        crate::convert::tools::exit_on_line(text, &["rc"])
    }
    fn stated_failure(&self, text: &str) -> bool {
        text.starts_with("refused")
    }
    fn injected(&self, text: &str) -> bool {
        text.starts_with("<patcher>")
    }
    fn patched(&self, input: &Value) -> Vec<String> {
        input
            .get("patch")
            .and_then(Value::as_str)
            .map(str::to_string)
            .into_iter()
            .collect()
    }
}

#[test]
fn each_call_is_read_by_the_first_vocabulary_that_knows_it() {
    let span = vec![
        user("Go"),
        calls(vec![
            call("a", "look", json!({"at": "a.rs", "line": "cat b.rs"})),
            call("b", "run", json!({"line": "make", "patch": "c.rs"})),
            call("c", "mystery", json!({"patch": "d.rs"})),
        ]),
        result("a", json!("")),
        result("b", json!("done")),
        result("c", json!("")),
    ];
    // The default reading is the neutral kind: Patcher's `look` runs a command.
    let r = Recap::extract_with(&span, &Tools::new(&[&Patcher, &Reader]));
    assert_eq!(
        r.progress,
        strings(&[
            "Ran `cat b.rs` (exit ?)",
            "Ran `make` (exit 0)",
            "Modified `c.rs`",
            "Modified `d.rs`"
        ])
    );
    assert_eq!(r.files.read, strings(&["b.rs"]));
    let r = Recap::extract_with(&span, &Tools::new(&[&Reader, &Patcher]));
    assert_eq!(
        r.progress,
        strings(&["Ran `make` (exit 0)", "Modified `c.rs`", "Modified `d.rs`"])
    );
    assert_eq!(r.files.read, strings(&["a.rs"]));
}

#[test]
fn results_and_user_texts_are_read_in_the_agents_words() {
    let span = vec![
        user("<patcher>must not be quoted"),
        user("Go"),
        calls(vec![
            call("a", "run", json!({"line": "make"})),
            call("b", "run", json!({"line": "make check"})),
            call("c", "run", json!({"line": "make lint"})),
            call("d", "run", json!({"line": "make doc", "patch": "d.rs"})),
        ]),
        result("a", json!("rc: 2")),
        // The first vocabulary that reads a status wins over a later line of another.
        result("b", json!("Rc 0\nexit status 3")),
        result("c", json!("exit status 4")),
        result("d", json!("refused: no such target")),
    ];
    let r = Recap::extract_with(&span, &Tools::new(&[&Patcher]));
    assert_eq!(r.goal, "\"Go\"");
    assert!(r.constraints.is_empty());
    assert_eq!(
        r.progress,
        strings(&[
            "Ran `make` (exit 2)",
            "Ran `make check` (exit 0)",
            "Ran `make lint` (exit 4)",
            "Ran `make doc` (exit ?)"
        ])
    );
    // A refused call changed nothing, its patch included.
    assert!(r.files.modified.is_empty());
    // Without the agent, its words are the user's.
    let r = Recap::extract_with(&span, &Tools::new(&[]));
    assert_eq!(r.goal, "\"<patcher>must not be quoted\"");
}

#[test]
fn a_status_is_read_at_a_line_start_only() {
    use crate::convert::tools::exit_on_line;
    assert_eq!(
        exit_on_line("out\n  Exit Status = -1 (killed)", &["exit status"]),
        Some(-1)
    );
    assert_eq!(exit_on_line("exit status ?\nexit status 5", &["exit status"]), Some(5));
    assert_eq!(exit_on_line("the exit status 1", &["exit status"]), None);
    assert_eq!(exit_on_line("a\nb: 1\nc: 2", &["c", "b"]), Some(1));
}

#[test]
fn the_v5_spec_names_are_read_without_any_agent() {
    let span = vec![
        user("Go"),
        calls(vec![
            call("a", "read_file", json!({"path": "a.rs"})),
            call("b", "view_file", json!({"filename": "b.rs"})),
            call("c", "write_file", json!({"file_path": "c.rs"})),
            call("d", "str_replace", json!({"path": "d.rs"})),
            call("e", "edit_file", json!({"path": "e.rs"})),
            call("f", "bash", json!({"command": ["bash", "-lc", "cat f.rs"]})),
            call("g", "bash", json!({"cmd": "false"})),
        ]),
        result("a", json!("x")),
        result("b", json!("x")),
        result("c", json!("ok")),
        result("d", json!("ok")),
        result("e", json!("ok")),
        result("f", json!("exit status 0")),
        result("g", json!("Exit status: 1")),
    ];
    let r = Recap::extract_with(&span, &Tools::new(&[]));
    assert_eq!(r.files.read, strings(&["a.rs", "b.rs", "f.rs"]));
    assert_eq!(r.files.modified, strings(&["c.rs", "d.rs", "e.rs"]));
    assert_eq!(
        r.progress,
        strings(&[
            "Modified `c.rs`",
            "Modified `d.rs`",
            "Modified `e.rs`",
            "Ran `cat f.rs` (exit 0)",
            "Ran `false` (exit 1)"
        ])
    );
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
            "bash",
            json!({"command": format!("echo {i}")}),
        )]));
    }
    // A repeated command counts once, at its latest run.
    span.push(calls(vec![call("again", "bash", json!({"command": "echo 34"}))]));
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
            msg("assistant", vec![text(&said), call("x", "bash", json!({"command": cmd.clone()})),
                call("y", "bash", json!({"command": ["bash", "-lc", cmd.clone()]})),
                call("z", "run", json!(format!("{{\"line\": {cmd:?}, \"patch\": {cmd:?}}}")))]),
            result("x", json!(out.clone())),
            result("y", json!(out)),
        ];
        let r = Recap::extract_with(&span, &Tools::new(&[&Patcher]));
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
fn an_earlier_recap_is_updated_by_the_span_after_it() {
    // What `compact::make_recap` does with the recap a unit carries.
    let earlier = example();
    let span = vec![
        user("Also never break the CLI."),
        calls(vec![call(
            "w",
            "write_file",
            json!({"path": "src/new.rs", "content": "x"}),
        )]),
    ];
    let r = Recap::merge(&earlier, &Recap::extract(&span));
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
    assert!(Recap::extract(&[]).is_empty());
}

/// The recap reads records as every format writes them: a result inside the user's record
/// (Anthropic's messages), arguments written as JSON text (OpenAI's), a failure flagged on
/// the result, and text the client wrote for the model, which is no request.
#[test]
fn records_are_read_as_every_format_writes_them() {
    use crate::model::events::{Flags, Outcome, Part};
    let reminder = Record {
        flags: Flags {
            meta: Some(true),
            ..Flags::default()
        },
        ..user("You must answer in French.")
    };
    let answered = |id: &str, is_error: Option<bool>, out: &str| {
        Part::Outcome(Outcome {
            call_id: Some(id.into()),
            is_error,
            output: Some(json!(out)),
        })
    };
    let span = vec![
        reminder,
        user("Tidy the repo"),
        calls(vec![
            call("a", "look", json!(r#"{"at": "src/a.rs"}"#)),
            call("b", "look", json!({"at": "src/b.rs"})),
        ]),
        msg(
            "user",
            vec![
                answered("a", Some(false), "fn a() {}"),
                answered("b", Some(true), "no such file"),
                text("and keep it short"),
            ],
        ),
    ];
    let r = Recap::extract_with(&span, &Tools::new(&[&Reader]));
    assert_eq!(r.goal, "\"Tidy the repo\"");
    assert_eq!(r.next_steps, strings(&["Last request: \"and keep it short\""]));
    // The reminder's "must" is not the user's.
    assert_eq!(r.constraints, strings(&["\"and keep it short\""]));
    assert_eq!(r.files.read, strings(&["src/a.rs"]));
}
