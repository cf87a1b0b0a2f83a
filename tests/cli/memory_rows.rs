//! Memory of the tables and of export on records of millions of elements: the element caps
//! of import and compaction apply there too, a container past them kept as its JSON text.
//! Each command runs under an address-space limit its uncapped reading exceeded, and gives
//! what it gives on the same file with the containers written small, the big text in their
//! place: the rows and records hold the exact JSON text as written, a secret inside a big
//! container is redacted by `--share` as anywhere else.

use std::path::Path;

/// The address space each run may use (two pool threads): the reading without the caps
/// needed several times more on these files.
const CAP: u64 = 256 * 1024 * 1024;

/// A secret the redaction recognises by its form.
const SECRET: &str = "ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// `[1,1,…,"SECRET",1]` with `n` elements.
fn array(n: usize) -> String {
    let mut s = String::with_capacity(2 * n + 64);
    s.push('[');
    for _ in 0..n.saturating_sub(2) {
        s.push_str("1,");
    }
    s.push_str(&format!("\"{SECRET}\",1]"));
    s
}

/// `{"k0":1,…,"token":"SECRET"}` with `n` members.
fn object(n: usize) -> String {
    let mut s = String::with_capacity(10 * n + 64);
    s.push('{');
    for i in 0..n.saturating_sub(1) {
        s.push_str(&format!("\"k{i}\":1,"));
    }
    s.push_str(&format!("\"token\":\"{SECRET}\"}}"));
    s
}

/// A Claude Code transcript whose tool input holds `arr` and whose result holds `obj`.
fn claude(arr: &str, obj: &str) -> String {
    let u = |i: u8| format!("00000000-0000-4000-8000-00000000000{i}");
    let head = |i: u8, parent: Option<u8>, ty: &str| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{}\"", u(p)));
        format!(
            "{{\"parentUuid\":{parent},\"type\":\"{ty}\",\"uuid\":\"{}\",\"timestamp\":\"2026-01-01T00:00:0{i}.000Z\",\"sessionId\":\"s\",\"cwd\":\"/\",",
            u(i)
        )
    };
    [
        format!("{}\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}", head(1, None, "user")),
        format!(
            "{}\"message\":{{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{{\"xs\":{arr}}}}}]}}}}",
            head(2, Some(1), "assistant")
        ),
        format!(
            "{}\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{{\"type\":\"text\",\"text\":\"ok\"}},{obj}]}}]}}}}",
            head(3, Some(2), "user")
        ),
        format!(
            "{}\"message\":{{\"id\":\"m2\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"text\",\"text\":\"done\"}}]}}}}",
            head(4, Some(3), "assistant")
        ),
    ]
    .map(|l| l + "\n")
    .concat()
}

/// A Codex rollout whose shell call's command holds `arr` and whose output holds `obj`.
fn codex(arr: &str, obj: &str) -> String {
    let line = |i: u8, ty: &str, payload: &str| {
        format!("{{\"timestamp\":\"2026-01-01T00:00:0{i}.000Z\",\"type\":\"{ty}\",\"payload\":{payload}}}\n")
    };
    [
        line(0, "session_meta", r#"{"id":"019a0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/","originator":"codex_cli_rs","cli_version":"0.171.0"}"#),
        line(1, "response_item", r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#),
        line(2, "response_item", &format!(r#"{{"type":"local_shell_call","call_id":"c1","status":"completed","action":{{"type":"exec","command":{arr}}}}}"#)),
        line(3, "response_item", &format!(r#"{{"type":"function_call_output","call_id":"c1","output":[{{"type":"input_text","text":"ok"}},{obj}]}}"#)),
        line(4, "response_item", r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#),
    ]
    .concat()
}

/// cctool's stdout on `args`, under the cap when `cap`; None (after a notice) where
/// `prlimit` is missing.
fn run(args: &[&str], cap: bool) -> Option<String> {
    let out = crate::util::under_cap(args, cap.then_some(CAP))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr:.500}");
    Some(String::from_utf8(out.stdout).unwrap())
}

/// The tables, which read every record.
const TABLES: &[&[&str]] = &[
    &["scan", "--rows", "messages", "--max-text", "100000000"],
    &["scan", "--rows", "tool-calls", "--max-text", "100000000"],
];

/// Every format of a redacted export, which reads every record to learn its secrets.
const SHARE: &[&[&str]] = &[
    &["export", "--format", "native", "--share"],
    &["export", "--format", "jsonl", "--share"],
    &["export", "--format", "markdown", "--share"],
    &["export", "--format", "html", "--share"],
];

/// The commands `cases` that read these records whole: under the cap on the big file (an
/// array of `n` elements and an object of `n / 5` members), the same as on the small one with
/// the big texts in place of the small.
fn check(name: &str, write: fn(&str, &str) -> String, cases: &[&[&str]], n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (big_arr, big_obj) = (array(n), object(n / 5));
    let (small_arr, small_obj) = (array(3), object(3));
    let big = dir.path().join(format!("{name}-big.jsonl"));
    let small = dir.path().join(format!("{name}-small.jsonl"));
    std::fs::write(&big, write(&big_arr, &big_obj)).unwrap();
    std::fs::write(&small, write(&small_arr, &small_obj)).unwrap();
    let grow = |s: String| s.replace(&small_arr, &big_arr).replace(&small_obj, &big_obj);
    let path = |p: &Path| p.to_str().unwrap().to_string();
    for args in cases {
        let (big_path, small_path) = (path(&big), path(&small));
        let Some(got) = run(&[args, &[big_path.as_str()][..]].concat(), true) else {
            return;
        };
        let want = run(&[args, &[small_path.as_str()][..]].concat(), false).unwrap();
        if args[0] == "scan" {
            assert_eq!(rows(&got, &|s| s.to_string()), rows(&want, &grow), "{args:?}");
            continue;
        }
        let want = want
            .replace(&path(&small), &path(&big))
            .replace(&format!("{name}-small"), &format!("{name}-big"));
        if args.contains(&"--share") {
            assert!(!got.contains(SECRET), "{args:?}: the secret is left");
            assert!(got.contains("[REDACTED:github-token#1]"), "{args:?}");
        }
        if args.contains(&"markdown") || args.contains(&"html") {
            // A small container prints pretty, a big one as written (its secret replaced).
            let shown = big_arr.replace(SECRET, "[REDACTED:github-token#1]");
            let shown = if args.contains(&"html") {
                shown.replace('"', "&quot;")
            } else {
                shown
            };
            assert!(got.contains(&shown), "{args:?}");
            continue;
        }
        let want = if args.contains(&"--share") {
            let redacted = |s: &str| s.replace(SECRET, "[REDACTED:github-token#1]");
            want.replace(&redacted(&small_arr), &redacted(&big_arr))
                .replace(&redacted(&small_obj), &redacted(&big_obj))
        } else {
            grow(want)
        };
        assert!(got == want, "{args:?}: {} bytes against {}", got.len(), want.len());
    }
}

/// The rows of a table, each string grown (`grow`) and each body's length and hash checked
/// against its text, without what depends on the file's bytes (offsets, sizes, its path).
fn rows(out: &str, grow: &dyn Fn(String) -> String) -> Vec<serde_json::Map<String, serde_json::Value>> {
    use serde_json::Value;
    use sha2::Digest;
    let mut rows = Vec::new();
    for line in out.lines() {
        let Value::Object(row) = serde_json::from_str::<Value>(line).unwrap() else {
            panic!("{line}")
        };
        for body in ["text", "input", "output"] {
            if let Some(t) = row.get(body).and_then(Value::as_str) {
                let sha: String = sha2::Sha256::digest(t.as_bytes())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                assert_eq!(row[&format!("{body}_len")], t.chars().count(), "{body}");
                assert_eq!(row[&format!("{body}_sha256")], sha.as_str(), "{body}");
            }
        }
        let mut row: serde_json::Map<String, Value> = row
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => (k, Value::String(grow(s))),
                v => (k, v),
            })
            .collect();
        row.retain(|k, _| {
            !(k.ends_with("_len")
                || k.ends_with("_sha256")
                || ["byte_offset", "record_bytes", "source_path"].contains(&k.as_str()))
        });
        rows.push(row);
    }
    rows
}

// The sizes are the smallest at which the reading without the caps went past the cap.

#[test]
fn claude_code_records_of_millions_of_elements_stay_small_in_the_tables() {
    check("claude", claude, TABLES, 2_000_000);
}

#[test]
fn claude_code_records_of_millions_of_elements_stay_small_in_a_redacted_export() {
    check("claude", claude, SHARE, 1_200_000);
}

#[test]
fn codex_records_of_millions_of_elements_stay_small_in_the_tables() {
    check("codex", codex, TABLES, 2_000_000);
}

#[test]
fn codex_records_of_millions_of_elements_stay_small_in_a_redacted_export() {
    check("codex", codex, SHARE, 1_200_000);
}

/// A record nested deeper than serde_json reads is redacted as text, as it was before the
/// caps (the caps keep its deep containers as text, which a walk element by element would
/// descend without end), and the tables still leave it out.
#[test]
fn a_record_nested_past_what_serde_json_reads_is_redacted_as_text() {
    let deep = crate::util::fixture("broken/deep-nesting-closed.jsonl");
    let deep = deep.to_str().unwrap();
    for format in ["markdown", "native"] {
        let out = crate::util::cctool()
            .args(["export", "--redact", "--format", format, deep])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let native = crate::util::cctool()
        .args(["export", "--redact", "--format", "native", deep])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&native.stdout).lines().count(), 3);
}

/// The address space of the messages of many small records: the rows of the whole file held
/// until it was read (`Vec<Row>`, about 1.4 KB a row) went past it; the file's index and a
/// bounded part of its rows fit.
const MANY_CAP: u64 = 192 * 1024 * 1024;

/// Records (pairs of a call and its result) of the files of many small records: enough that
/// the file is read in chunks, not whole.
const PAIRS: usize = 60_000;
/// A Claude Code transcript of `pairs` assistant records calling a tool, each answered by a
/// user record with its result, all on one chain.
fn claude_many(pairs: usize) -> String {
    let u = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
    let mut s = String::with_capacity(pairs * 600);
    for i in 0..pairs {
        let (a, r) = (2 * i, 2 * i + 1);
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"{}\"", u(a - 1))
        };
        s.push_str(&format!(
            "{{\"parentUuid\":{parent},\"type\":\"assistant\",\"uuid\":\"{}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"sessionId\":\"s\",\"cwd\":\"/\",\"message\":{{\"id\":\"m{i}\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"text\",\"text\":\"step {i}\"}},{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"Bash\",\"input\":{{\"command\":\"echo {i}\"}}}}]}}}}\n",
            u(a)
        ));
        s.push_str(&format!(
            "{{\"parentUuid\":\"{}\",\"type\":\"user\",\"uuid\":\"{}\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"sessionId\":\"s\",\"cwd\":\"/\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{i}\",\"content\":\"{i}\"}}]}}}}\n",
            u(a),
            u(r)
        ));
    }
    s
}

/// A Codex rollout of `pairs` function calls, each followed by its output.
fn codex_many(pairs: usize) -> String {
    let mut s = String::from(
        "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"019a0000-0000-7000-8000-000000000001\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.171.0\"}}\n",
    );
    for i in 0..pairs {
        s.push_str(&format!(
            "{{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{\\\"command\\\":[\\\"echo\\\",\\\"{i}\\\"]}}\",\"call_id\":\"c{i}\"}}}}\n"
        ));
        s.push_str(&format!(
            "{{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c{i}\",\"output\":\"{i}\"}}}}\n"
        ));
    }
    s
}

/// Every row of a file is written once the file is read, but not held as rows until then:
/// a file of many small records stays under a cap its held rows went past, and gives every
/// row.
#[test]
fn the_rows_of_a_file_of_many_small_records_are_not_all_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("claude-many.jsonl");
    std::fs::write(&path, claude_many(PAIRS)).unwrap();
    let Some(rows) = many_rows(&path, "messages", Some(MANY_CAP)) else {
        return;
    };
    assert_eq!(rows.len(), 2 * PAIRS);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["message_index"], i, "{row}");
    }
}

/// The tool calls of a file of many small records, whose rows wait in a temporary file,
/// each get the result that comes after it.
#[test]
fn the_calls_of_a_file_of_many_small_records_get_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("codex-many.jsonl");
    std::fs::write(&path, codex_many(PAIRS)).unwrap();
    let rows = many_rows(&path, "tool-calls", None).unwrap();
    assert_eq!(rows.len(), PAIRS);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["call_index"], i, "{row}");
        assert_eq!(row["call_id"], format!("c{i}"), "{row}");
        assert_eq!(row["has_result"], true, "{row}");
        assert_eq!(row["output_len"], i.to_string().len(), "{row}");
    }
}

/// The rows of `table` for the file at `path`, under `cap` if given; None where `prlimit` is
/// missing.
fn many_rows(path: &Path, table: &str, cap: Option<u64>) -> Option<Vec<serde_json::Value>> {
    let args = ["scan", "--rows", table, "--mmap", "never", path.to_str().unwrap()];
    let out = crate::util::under_cap(&args, cap)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{table}: {stderr:.500}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    Some(stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
}
