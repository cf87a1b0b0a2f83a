//! Memory of the reading commands on small files holding huge arrays: it follows what is kept,
//! not how many elements were read, and where something must be held there is a limit with
//! a clear error. The commands run under an address-space limit (`prlimit --as`), as a user
//! with a memory cap would run them; before, a 2 MB file took 220 MB in `scan`, a 10 MB one
//! 2.2 GB.

use std::path::Path;

/// The address space each run may use (two pool threads): several times what the fixed
/// commands need, and less than they took before.
const CAP: u64 = 256 * 1024 * 1024;

/// `[0,0,…]` with `n` elements.
fn zeros(n: usize) -> String {
    let mut s = String::with_capacity(2 * n + 2);
    s.push('[');
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('0');
    }
    s.push(']');
    s
}

/// Runs cctool under the cap; None (after a notice) where `prlimit` is missing.
fn capped(args: &[&str]) -> Option<(i32, String)> {
    let out = crate::util::under_cap(args, Some(CAP))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{args:?}: killed by a signal under the cap: {stderr:.500}"));
    assert!(!stderr.contains("memory allocation"), "{args:?}: {stderr:.500}");
    Some((code, stderr))
}

fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

const PROMPT: &str = r#"{"parentUuid":null,"type":"user","uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","message":{"role":"user","content":"hi"}}"#;

#[test]
fn huge_arrays_in_small_files_stay_small_or_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let big = zeros(1_000_000);
    // Claude Code: an answer of a million content blocks (2 MB).
    let blocks = write(
        dir.path(),
        "blocks.jsonl",
        &format!(
            "{PROMPT}\n{{\"parentUuid\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"assistant\",\"uuid\":\"00000000-0000-4000-8000-000000000002\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"message\":{{\"role\":\"assistant\",\"model\":\"m\",\"content\":{big}}}}}\n"
        ),
    );
    // Claude Code: names and flags that hold arrays (6 MB), the content sound.
    let fields = write(
        dir.path(),
        "fields.jsonl",
        &format!(
            "{PROMPT}\n{{\"parentUuid\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"assistant\",\"uuid\":\"00000000-0000-4000-8000-000000000002\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"isApiErrorMessage\":{big},\"message\":{{\"id\":{big},\"role\":\"assistant\",\"model\":{big},\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}}]}}}}\n"
        ),
    );
    // Codex: a user message of three million content items (6 MB).
    let codex = write(
        dir.path(),
        "codex.jsonl",
        &format!(
            "{{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.171.0\"}}}}\n{{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":{}}}}}\n",
            zeros(3_000_000)
        ),
    );
    // A cctool v1 session of three million empty messages (9 MB).
    let empties = vec!["{}"; 3_000_000].join(",");
    let session = write(
        dir.path(),
        "session.json",
        &format!("{{\"version\":1,\"id\":\"x\",\"messages\":[{empties}]}}"),
    );
    for file in [&blocks, &fields, &codex, &session] {
        for cmd in [&["scan"][..], &["rebuild-chain"], &["doctor"], &["extract-summary"]] {
            let mut args = cmd.to_vec();
            args.push(file);
            let Some((code, stderr)) = capped(&args) else { return };
            if file == &blocks && cmd == ["scan"] {
                // The request view must hold the blocks: refused, with the line and the limit.
                assert_eq!(code, 2, "{stderr}");
                assert!(stderr.contains("line 2: 1000000 content blocks"), "{stderr}");
            } else {
                assert!(matches!(code, 0 | 1), "{args:?}: exit {code}: {stderr:.500}");
            }
        }
    }
    for file in [&blocks, &fields] {
        let Some((code, stderr)) = capped(&["rebuild-chain", "--api-view", file]) else {
            return;
        };
        if file == &blocks {
            assert_eq!(code, 2);
            assert!(
                stderr.contains("content blocks") && stderr.contains(file.as_str()),
                "{stderr}"
            );
        } else {
            assert_eq!(code, 0, "{stderr}");
        }
    }
}

/// A Codex user message of one word, as a response item's payload.
const USER_HI: &str = r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#;

/// A Codex rollout: its `session_meta` (session `…00N`), then each payload as a response
/// item of its own line, one second apart.
fn codex_rollout(n: u8, payloads: &[String]) -> String {
    let mut s = format!(
        "{{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"019a0000-0000-7000-8000-00000000000{n}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.171.0\"}}}}\n"
    );
    for (i, p) in payloads.iter().enumerate() {
        s.push_str(&format!(
            "{{\"timestamp\":\"2026-01-01T00:00:{:02}.000Z\",\"type\":\"response_item\",\"payload\":{p}}}\n",
            i + 1
        ));
    }
    s
}

#[test]
fn codex_request_view_does_not_build_what_codex_drops() {
    // A call and its output each carrying a field Codex does not know, of four million
    // elements (16 MB): Codex leaves the field out of what it sends, and the view must not hold
    // it as a tree to find that out.
    let dir = tempfile::tempdir().unwrap();
    let big = zeros(4_000_000);
    let rollout = write(
        dir.path(),
        "extra.jsonl",
        &codex_rollout(
            1,
            &[
                USER_HI.to_string(),
                format!(r#"{{"type":"function_call","name":"shell","arguments":"{{}}","call_id":"c1","extra":{big}}}"#),
                format!(r#"{{"type":"function_call_output","call_id":"c1","output":"ok","extra":{big}}}"#),
            ],
        ),
    );
    let Some((code, stderr)) = capped(&["rebuild-chain", "--api-view", "--json", &rollout]) else {
        return;
    };
    assert_eq!(code, 0, "{stderr:.500}");
}

#[test]
fn codex_request_view_reads_an_item_by_its_type_first() {
    // One item of every kind Codex reads the members of, each with an unknown field of eight
    // million elements: reading an item must not build its unknown members before it knows
    // which fields the item's type has, whatever that type is.
    let dir = tempfile::tempdir().unwrap();
    let big = zeros(8_000_000);
    let payloads: Vec<String> = [
        r#""extra":BIG,"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]"#,
        r#""type":"reasoning","extra":BIG,"summary":[]"#,
        r#""type":"mcp_tool_call","extra":BIG"#,
    ]
    .iter()
    .map(|p| format!("{{{}}}", p.replace("BIG", &big)))
    .collect();
    let body = codex_rollout(2, &payloads);
    let rollout = write(dir.path(), "first.jsonl", &body);
    let Some((code, stderr)) = capped(&["rebuild-chain", "--api-view", "--json", &rollout]) else {
        return;
    };
    assert_eq!(code, 0, "{stderr:.500}");
}

/// `["x","x",…]` with `n` strings.
fn strings(n: usize) -> String {
    format!("[{}]", vec!["\"x\""; n].join(","))
}

#[test]
fn codex_request_view_refuses_an_item_it_cannot_hold_naming_its_line() {
    // A shell call whose command holds three million strings (12 MB): Codex sends them all,
    // each a string in its types; the view cannot hold them within bounds, and prints no
    // other request in their place.
    let dir = tempfile::tempdir().unwrap();
    let command = strings(3_000_000);
    let rollout = write(
        dir.path(),
        "shell.jsonl",
        &codex_rollout(
            3,
            &[
                USER_HI.to_string(),
                format!(
                    r#"{{"type":"local_shell_call","call_id":"c1","status":"completed","action":{{"type":"exec","command":{command}}}}}"#
                ),
            ],
        ),
    );
    for extra in [&[][..], &["--json"], &["--format", "text"]] {
        let args = [&["rebuild-chain", "--api-view"][..], extra, &[rollout.as_str()]].concat();
        let Some((code, stderr)) = capped(&args) else {
            return;
        };
        assert_eq!(code, 2, "{args:?}: {stderr:.500}");
        assert!(
            stderr.contains(&format!("{rollout}: cannot read: line 3: a history item of more than")),
            "{stderr:.500}"
        );
    }
}

#[test]
fn claude_code_request_view_renders_a_huge_tool_input_as_written() {
    // A tool input of three million strings (12 MB): the request holds it as written, and
    // the text view shows it as its JSON text, never built as a tree.
    let dir = tempfile::tempdir().unwrap();
    let input = format!("{{\"xs\":{}}}", strings(3_000_000));
    let file = write(
        dir.path(),
        "input.jsonl",
        &format!(
            "{PROMPT}\n{{\"parentUuid\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"assistant\",\"uuid\":\"00000000-0000-4000-8000-000000000002\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{input}}}]}}}}\n"
        ),
    );
    for format in ["text", "markdown"] {
        let args = [
            "rebuild-chain",
            "--api-view",
            "--full-output",
            "--format",
            format,
            &file,
        ];
        let Some(out) = crate::util::under_cap(&args, Some(CAP)) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr:.500}");
        assert!(String::from_utf8_lossy(&out.stdout).contains(&input), "{format}");
    }
}

#[test]
fn rebuild_chain_renders_a_record_of_millions_of_elements_within_bounds() {
    // A Claude Code tool input and a Codex shell command of three million strings each
    // (12 MB): the text views render each record read with the caps the request views use (a
    // container past them kept as its text), never built as a tree of millions of values.
    // Both formats render the same record; each agent is run in one of them.
    let dir = tempfile::tempdir().unwrap();
    let xs = strings(3_000_000);
    let claude = write(
        dir.path(),
        "claude.jsonl",
        &format!(
            "{PROMPT}\n{{\"parentUuid\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"assistant\",\"uuid\":\"00000000-0000-4000-8000-000000000002\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{{\"xs\":{xs}}}}}]}}}}\n"
        ),
    );
    let codex = write(
        dir.path(),
        "codex.jsonl",
        &codex_rollout(
            4,
            &[
                USER_HI.to_string(),
                format!(
                    r#"{{"type":"local_shell_call","call_id":"c1","status":"completed","action":{{"type":"exec","command":{xs}}}}}"#
                ),
            ],
        ),
    );
    for (file, format, shown) in [
        (&claude, "text", "{\"xs\":[\"x\",\"x\""),
        (&codex, "markdown", "\"command\":[\"x\",\"x\""),
    ] {
        let args = ["rebuild-chain", "--format", format, file.as_str()];
        let Some(out) = crate::util::under_cap(&args, Some(CAP)) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr:.500}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(shown) && stdout.contains("more bytes not shown"),
            "{args:?}"
        );
    }
}
