//! The text and Markdown views, exactly, and colour: `--color always` colours every text
//! view, `--color never`, `NO_COLOR` and pipes get none, Markdown never.

use crate::util::{cctool, fixture, root};

fn run(args: &[&str], envs: &[(&str, &str)]) -> (String, String) {
    let mut cmd = cctool();
    cmd.current_dir(root()).args(args);
    cmd.env_remove("NO_COLOR");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The render fixture in `format`, with `extra` options.
fn rendered(format: &str, extra: &[&str]) -> String {
    let mut args = vec!["-q", "rebuild-chain", "--format", format];
    args.extend_from_slice(extra);
    args.push("fixtures/claude/render.jsonl");
    run(&args, &[]).0
}

#[test]
fn markdown_and_text_views_exactly() {
    for (format, expected) in [("markdown", "render.expected.md"), ("text", "render.expected.txt")] {
        let (got, _) = run(
            &[
                "-q",
                "rebuild-chain",
                "--format",
                format,
                "fixtures/claude/render.jsonl",
            ],
            &[],
        );
        let want = std::fs::read_to_string(fixture(&format!("claude/{expected}"))).unwrap();
        assert_eq!(got, want, "{format}");
    }
}

#[test]
fn a_code_fence_in_a_tool_result_cannot_close_the_block() {
    let md = rendered("markdown", &[]);
    // The README's own ``` fence sits inside a four-backtick fence that closes after it.
    let block = md.split("[tool_result toolu_1]\n").nth(1).unwrap();
    assert!(block.starts_with("````\n# Demo\n"), "{block}");
    assert!(
        block.contains("```sh\nmake run\n```\n\nInline ``code`` too.\n````\n"),
        "{block}"
    );
}

#[test]
fn cuts_are_marked_and_full_output_keeps_everything() {
    let cut = rendered("markdown", &[]);
    assert!(
        cut.contains("177\n```\n_[… 491 more bytes not shown; --full-output shows all]_\n"),
        "{cut}"
    );
    assert!(
        cut.contains("The us… [390 more bytes not shown; --full-output shows all]\n"),
        "{cut}"
    );
    let full = rendered("markdown", &["--full-output"]);
    assert!(!full.contains("not shown"), "{full}");
    assert!(full.contains("\n299\n300\n```\n"), "{full}");
}

#[test]
fn a_subagent_transcript_renders_its_conversation() {
    let path = ".claude/projects/-home-dev-shop/b2c3d4e5-2222-4bbb-8bbb-00000000000b/subagents/agent-b2c3.jsonl";
    let (md, err) = run(
        &[
            "rebuild-chain",
            "--format",
            "markdown",
            fixture("store").join(path).to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(md.matches("### user (sidechain)").count(), 1, "{md}");
    assert_eq!(md.matches("### assistant (sidechain)").count(), 1, "{md}");
    assert!(md.contains("Done: 14 strings translated."), "{md}");
    assert!(
        err.contains("[subagent-transcript]") && err.contains("2 messages on the chain"),
        "{err}"
    );
}

const ESC: char = '\u{1b}';

/// Each text view, with a file that gives it something to colour (a role, a finding, a
/// warning).
const TEXT_VIEWS: &[&[&str]] = &[
    &["rebuild-chain", "--format", "text", "fixtures/claude/render.jsonl"],
    &[
        "rebuild-chain",
        "--format",
        "text",
        "fixtures/broken/dangling-parent.jsonl",
    ],
    &["doctor", "fixtures/broken/dangling-parent.jsonl"],
    &["scan", "fixtures/store"],
    &["extract-summary", "fixtures/store"],
];

#[test]
fn color_always_colours_every_text_view_and_its_diagnostics() {
    for args in TEXT_VIEWS {
        let mut all = vec!["--color", "always"];
        all.extend_from_slice(args);
        // An explicit --color always wins over NO_COLOR, as the NO_COLOR convention asks.
        for envs in [&[][..], &[("NO_COLOR", "1")]] {
            let (out, _) = run(&all, envs);
            assert!(out.contains(ESC), "{all:?} {envs:?}: no colour\n{out}");
        }
    }
    let (_, err) = run(
        &[
            "--color",
            "always",
            "rebuild-chain",
            "fixtures/broken/dangling-parent.jsonl",
        ],
        &[],
    );
    assert!(err.contains("\u{1b}[1m\u{1b}[31merror\u{1b}[0m"), "{err:?}");
}

#[test]
fn never_no_color_and_pipes_get_none() {
    for args in TEXT_VIEWS {
        for (flags, envs) in [
            (&["--color", "never"][..], &[][..]),
            (&[], &[("NO_COLOR", "1")]),
            (&["--color", "never"], &[("CLICOLOR_FORCE", "1")]),
            // auto, in a pipe
            (&[], &[]),
        ] {
            let mut all = flags.to_vec();
            all.extend_from_slice(args);
            let (out, err) = run(&all, envs);
            assert!(!out.contains(ESC) && !err.contains(ESC), "{all:?} {envs:?}");
        }
    }
    // Markdown is a document: no colour even when asked.
    let (md, _) = run(
        &[
            "--color",
            "always",
            "-q",
            "rebuild-chain",
            "--format",
            "markdown",
            "fixtures/claude/render.jsonl",
        ],
        &[],
    );
    assert!(!md.contains(ESC));
}

/// Whether util-linux `script` can run a command under a pseudo-terminal here; says why not.
pub fn pty_available() -> bool {
    match std::process::Command::new("script").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            crate::util::skip_notice("`script` (util-linux) cannot run a pseudo-terminal here");
            false
        }
    }
}

#[test]
fn a_terminal_gets_colour_unless_no_color() {
    if !pty_available() {
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let cmd = format!(
        "{} doctor {}",
        bin.display(),
        fixture("broken/dangling-parent.jsonl").display()
    );
    let under_tty = |no_color: bool| {
        let mut c = std::process::Command::new("script");
        c.args(["-qec", &cmd, "/dev/null"]).env("TERM", "xterm");
        if no_color {
            c.env("NO_COLOR", "1");
        } else {
            c.env_remove("NO_COLOR");
        }
        String::from_utf8_lossy(&c.output().unwrap().stdout).into_owned()
    };
    assert!(under_tty(false).contains(ESC));
    assert!(!under_tty(true).contains(ESC));
}
