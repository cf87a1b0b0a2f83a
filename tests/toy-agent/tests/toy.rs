//! The proof that adding an agent is its crate and one line in a registry: this binary is
//! cctool with the toy agent registered (when `CCTOOL_TOY_AS_CLI` is set), and otherwise runs
//! cctool's commands on toy sessions through itself, checking what they print.

// The `ok NAME` lines on stdout are the test's report (there is no harness to print them).
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

use cctool::agents::Agent;

const AS_CLI: &str = "CCTOOL_TOY_AS_CLI";

fn main() -> ExitCode {
    if std::env::var_os(AS_CLI).is_some() {
        let agents: Vec<&'static dyn Agent> = cctool::agents::BUILTIN
            .iter()
            .copied()
            .chain([&cctool_toy_agent::Toy as &dyn Agent]) // the one registry line
            .collect();
        return cctool::run_with(Box::leak(agents.into_boxed_slice()), std::env::args_os()).into();
    }
    // A failed case says why in one message, without a backtrace.
    std::panic::set_hook(Box::new(|p| eprintln!("{p}")));
    let mut failed = 0;
    for (name, case) in CASES {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        match std::panic::catch_unwind(|| case(scratch.path())) {
            Ok(()) => println!("ok {name}"),
            Err(_) => {
                println!("FAILED {name}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        println!("{failed} of {} cases failed", CASES.len());
        return ExitCode::FAILURE;
    }
    println!("{} cases passed", CASES.len());
    ExitCode::SUCCESS
}

type Case = fn(&Path);

const CASES: &[(&str, Case)] = &[
    ("help_lists_toy", help_lists_toy),
    ("scan", scan),
    ("scan_json", scan_json),
    ("scan_rows_messages", scan_rows_messages),
    ("scan_rows_tool_calls", scan_rows_tool_calls),
    ("rebuild_chain", rebuild_chain),
    ("rebuild_chain_text", rebuild_chain_text),
    ("export_markdown", export_markdown),
    ("search", search),
    ("doctor", doctor),
    ("compact_refuses", compact_refuses),
    ("migrate_imports_into_v5", migrate_imports_into_v5),
    ("convert_toy_to_claude_code", convert_toy_to_claude_code),
    ("convert_claude_code_to_toy", convert_claude_code_to_toy),
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

/// cctool with the toy agent, run in `dir` with `args`.
fn cctool(dir: &Path, args: &[&str]) -> Output {
    let exe = std::env::current_exe().expect("the test binary");
    Command::new(exe)
        .args(args)
        .current_dir(dir)
        .env(AS_CLI, "1")
        .env("HOME", dir)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()
        .expect("cctool runs")
}

/// What a run printed, for a failure's message.
fn shown(args: &[&str], out: &Output) -> String {
    format!(
        "$ cctool {}\n[exit {:?}]\n{}{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(dir: &Path, args: &[&str]) -> (String, String) {
    let out = cctool(dir, args);
    assert!(out.status.success(), "{}", shown(args, &out));
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn session() -> String {
    fixture("session.jsonl").display().to_string()
}

fn help_lists_toy(dir: &Path) {
    let (help, _) = ok(dir, &["scan", "--help"]);
    let at = help.find("--input-format").expect("scan --help names --input-format");
    assert!(help[at..].contains("toy"), "--input-format does not list toy");
    let (help, _) = ok(dir, &["convert", "--help"]);
    let at = help.find("--to").expect("convert --help names --to");
    assert!(help[at..].contains("toy"), "convert --to does not list toy");
    assert!(help[at..].contains("A toy agent session"));
    // What cctool reads, what a resume of each agent loads and which records are summaries:
    // each agent's own words, from its crate.
    let (help, _) = ok(dir, &["--help"]);
    assert!(
        help.contains("toy sessions"),
        "cctool --help does not name the toy agent's files"
    );
    let (help, _) = ok(dir, &["rebuild-chain", "--help"]);
    assert!(help.contains("Toy agent: every message of the file"), "{help}");
    let (help, _) = ok(dir, &["extract-summary", "--help"]);
    assert!(help.contains("Toy agent: none; it does not compact."), "{help}");
}

fn scan(dir: &Path) {
    let (table, _) = ok(dir, &["scan", &session()]);
    let row = table
        .lines()
        .find(|l| l.contains("toy-0001"))
        .expect("a row for the session");
    assert!(row.contains("List the files here."), "{row}");
    assert!(row.trim_end().ends_with("toy"), "the agent column says toy: {row}");
}

fn scan_json(dir: &Path) {
    let (out, _) = ok(dir, &["scan", "--json", &session()]);
    let records = json_lines(&out);
    let r = records
        .iter()
        .find(|r| r["path"].as_str().is_some_and(|p| p.ends_with("session.jsonl")))
        .expect("a record for the file");
    assert_eq!(r["format"], "toy");
    assert_eq!(r["session_id"], "toy-0001");
    assert_eq!(r["cwd"], "/w");
    assert_eq!(r["chain_messages"], 5);
    assert_eq!(r["title"], "List the files here.");
    assert_eq!(r["first_timestamp"], "2026-03-01T10:00:00.000Z");
    assert_eq!(r["last_timestamp"], "2026-03-01T10:00:04.000Z");
    assert!(r["resume_tokens"].as_u64().unwrap() > 0);
    // Detection asks every agent: the others' files are not taken for the toy's.
    let claude = fixture("claude.jsonl").display().to_string();
    let (out, _) = ok(dir, &["scan", "--json", &claude]);
    assert_eq!(json_lines(&out)[0]["format"], "claude-code");
}

fn rows(dir: &Path, table: &str) -> Vec<serde_json::Value> {
    let (out, _) = ok(
        dir,
        &[
            "scan",
            "--rows",
            table,
            "--format",
            "jsonl",
            "--max-text",
            "100",
            &session(),
        ],
    );
    json_lines(&out)
}

fn scan_rows_messages(dir: &Path) {
    let rows = rows(dir, "messages");
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows.iter().all(|r| r["agent"] == "toy"));
    let types: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["user", "assistant", "call", "result", "assistant"]);
    assert_eq!(rows[0]["text"], "List the files here.");
    assert_eq!(rows[0]["session_id"], "toy-0001");
    assert_eq!(rows[2]["tool_calls"], 1);
    assert_eq!(rows[3]["tool_results"], 1);
}

fn scan_rows_tool_calls(dir: &Path) {
    let rows = rows(dir, "tool-calls");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["agent"], "toy");
    assert_eq!(r["call_id"], "c1");
    assert_eq!(r["name"], "shell");
    assert_eq!(r["input"], r#"{"command":"ls"}"#);
    assert_eq!(r["has_result"], true);
    assert_eq!(r["output"], "README.md\nsrc");
    assert_eq!(r["result_line"], 5);
}

fn rebuild_chain(dir: &Path) {
    let (out, err) = ok(dir, &["rebuild-chain", &session()]);
    let records = json_lines(&out);
    assert_eq!(records.len(), 5);
    assert_eq!(records[0]["toy"], "user");
    assert_eq!(records[3]["output"], "README.md\nsrc");
    assert!(err.contains("5 messages on the chain (toy"), "{err}");
}

fn rebuild_chain_text(dir: &Path) {
    let (out, _) = ok(dir, &["rebuild-chain", "--format", "text", &session()]);
    for said in [
        "List the files here.",
        "I will run ls.",
        "[call shell ",
        "README.md",
        "two entries",
    ] {
        assert!(out.contains(said), "the text lacks {said:?}:\n{out}");
    }
    assert!(out.contains("line 2"), "blocks name their lines:\n{out}");
}

fn export_markdown(dir: &Path) {
    ok(dir, &["export", "--format", "markdown", "-o", "page.md", &session()]);
    let page = std::fs::read_to_string(dir.join("page.md")).expect("export wrote the page");
    for said in [
        "Toy agent",
        "List the files here.",
        "I will run ls.",
        "shell",
        "README.md",
        "two entries",
    ] {
        assert!(page.contains(said), "the page lacks {said:?}:\n{page}");
    }
}

/// The toy's messages are searched with no line of search naming it: text, and with
/// `--tools` a call's input and a result's output.
fn search(dir: &Path) {
    let (out, _) = ok(dir, &["search", "--json", "files here", &session()]);
    let hits = json_lines(&out);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["agent"], "toy");
    assert_eq!(hits[0]["session_id"], "toy-0001");
    assert_eq!(hits[0]["role"], "user");
    assert_eq!(hits[0]["line"], 2);
    assert_eq!(
        (hits[0]["start"].as_u64(), hits[0]["end"].as_u64()),
        (Some(9), Some(19))
    );
    let (out, _) = ok(
        dir,
        &["search", "--json", "--tools", "--role", "tool", "README.md", &session()],
    );
    let hits = json_lines(&out);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["field"], "tool_output");
    let none = cctool(dir, &["search", "--role", "tool", "README.md", &session()]);
    assert_eq!(
        none.status.code(),
        Some(1),
        "tool output is not searched without --tools"
    );
}

fn doctor(dir: &Path) {
    let out = cctool(
        dir,
        &["doctor", "--json", &fixture("damaged.jsonl").display().to_string()],
    );
    let findings = json_lines(&String::from_utf8(out.stdout).unwrap());
    let at = |code: &str| {
        findings
            .iter()
            .find(|f| f["code"] == code)
            .unwrap_or_else(|| panic!("no {code} finding: {findings:?}"))["line"]
            .clone()
    };
    assert_eq!(at("invalid-json"), 3);
    assert_eq!(at("tool-call-without-result"), 4);
    let (_, err) = ok(dir, &["doctor", &session()]);
    assert!(!err.contains("invalid-json"), "{err}");
}

fn compact_refuses(dir: &Path) {
    let out = cctool(dir, &["compact", "-o", "out.jsonl", &session()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("the toy agent does not compact"));
    assert!(!dir.join("out.jsonl").exists());
}

fn migrate_imports_into_v5(dir: &Path) {
    ok(dir, &["migrate", "--to", "v5", "-o", "v5.json", &session()]);
    let v5: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("v5.json")).unwrap()).unwrap();
    assert_eq!(v5["schema_version"], 5);
    assert_eq!(v5["session_id"], "toy-0001");
    let roles: Vec<&str> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    let m = &v5["messages"];
    assert_eq!(m[0]["items"][0]["type"], "native", "the header is kept whole");
    assert_eq!(m[0]["items"][0]["record"]["toy_session"], "toy-0001");
    assert_eq!(m[2]["items"][1]["args"], serde_json::json!({"command": "ls"}));
    assert_eq!(m[3]["items"][0]["content"], "README.md\nsrc");
    let (out, _) = ok(dir, &["scan", "--json", "v5.json"]);
    assert_eq!(json_lines(&out)[0]["format"], "cctool-session");
    // A line that is no record is kept at its place, and left out of what a resume loads.
    let damaged = fixture("damaged.jsonl").display().to_string();
    ok(dir, &["migrate", "--to", "v5", "-o", "d.json", &damaged]);
    let v5: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("d.json")).unwrap()).unwrap();
    let kinds: Vec<(String, Option<u64>)> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_string(), m["source"]["line"].as_u64()))
        .collect();
    let want = [("system", 1), ("user", 2), ("system", 3), ("assistant", 4)];
    let want: Vec<_> = want.iter().map(|(r, l)| (r.to_string(), Some(*l))).collect();
    assert_eq!(kinds[..4], want[..]);
    ok(dir, &["migrate", "--effective", "-o", "e.json", &damaged]);
    let v5: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("e.json")).unwrap()).unwrap();
    let roles: Vec<_> = v5["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert!(!roles.contains(&serde_json::json!("system")), "{roles:?}");
}

fn convert_toy_to_claude_code(dir: &Path) {
    ok(dir, &["convert", "--to", "claude-code", "-o", "cc.jsonl", &session()]);
    let (out, _) = ok(dir, &["scan", "--json", "cc.jsonl"]);
    let r = &json_lines(&out)[0];
    assert_eq!(r["format"], "claude-code");
    assert_eq!(r["title"], "List the files here.");
    let text = std::fs::read_to_string(dir.join("cc.jsonl")).unwrap();
    assert!(text.contains(r#""name":"Bash""#), "shell became Bash:\n{text}");
    assert!(text.contains("There are two entries"));
}

fn convert_claude_code_to_toy(dir: &Path) {
    let from = fixture("claude.jsonl").display().to_string();
    ok(dir, &["convert", "--to", "toy", "-o", "toy.jsonl", &from]);
    let lines = json_lines(&std::fs::read_to_string(dir.join("toy.jsonl")).unwrap());
    assert!(lines[0]["toy_session"].is_string(), "{:?}", lines[0]);
    assert_eq!(lines[1]["toy"], "user");
    assert_eq!(lines[1]["text"], "Show me the README's example block");
    let call = lines.iter().find(|l| l["tool"] == "shell").expect("Bash became shell");
    assert!(call["input"]["command"].is_string());
    let (out, _) = ok(dir, &["scan", "--json", "toy.jsonl"]);
    let r = &json_lines(&out)[0];
    assert_eq!(r["format"], "toy");
    assert_eq!(r["chain_messages"], lines.len() - 1);
}
