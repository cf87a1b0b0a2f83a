//! Imports (`migrate -o` of a Claude Code transcript or a Codex rollout) lose nothing they
//! promise to keep: every compaction reads back from the v5 file as it reads from the native
//! one, and every user, assistant and tool record arrives as its v5 message whatever the chain
//! looks like.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{cctool, fixture, records, shared_dir, skip_notice, stdout_of};

/// What `extract-summary` says of each summary of `path` that an import must keep.
fn summaries(path: &Path, strip: bool) -> Vec<Value> {
    let mut args = vec!["-q", "--json", "extract-summary"];
    if strip {
        args.push("--strip-template");
    }
    args.push(path.to_str().unwrap());
    records(&stdout_of(&args))
        .into_iter()
        .filter(|r| r["kind"] == "summary")
        .map(|r| {
            json!({
                "summary": r["summary"],
                "origin": r["origin"],
                "encrypted": r["encrypted"],
                "encrypted_len": r["encrypted_len"],
                "retained_messages": r["retained_messages"],
                "trigger": r["trigger"],
                "pre_tokens": r["pre_tokens"],
            })
        })
        .collect()
}

/// Whether cctool reads `path` as a Claude Code transcript or a Codex rollout.
fn is_native_session(path: &Path) -> bool {
    let out = cctool().args(["-q", "--json", "scan"]).arg(path).output().expect("run");
    records(&String::from_utf8_lossy(&out.stdout))
        .iter()
        .any(|r| r["kind"] == "session" && (r["format"] == "claude-code" || r["format"] == "codex"))
}

/// Imports `path` to a v5 file in `dir` and returns its path.
fn import(path: &Path, dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join(format!("{}.v5.json", path.file_name().unwrap().to_string_lossy()));
    let _ = std::fs::remove_file(&out);
    cctool()
        .args(["-q", "migrate"])
        .args(extra)
        .arg(path)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

/// Every native session file under `dir`, recursively, sorted.
fn native_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Asserts that the summaries of each file read back unchanged from its import; returns how
/// many were compared.
fn assert_summaries_survive(files: &[PathBuf]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for f in files {
        if !is_native_session(f) {
            continue;
        }
        let v5 = import(f, dir.path(), &[]);
        for strip in [false, true] {
            let native = summaries(f, strip);
            let imported = summaries(&v5, strip);
            assert_eq!(
                imported,
                native,
                "{} (--strip-template: {strip}): the import's summaries differ",
                f.display()
            );
            compared += native.len();
        }
    }
    compared
}

#[test]
fn every_summary_of_every_fixture_survives_an_import() {
    let files = native_files(&fixture(""));
    assert!(files.len() > 40, "{}", files.len());
    let compared = assert_summaries_survive(&files);
    // Claude Code and Codex compactions of every era, local, remote and legacy, twice.
    assert!(compared >= 40, "{compared}");
}

#[test]
fn every_summary_of_every_shared_sample_survives_an_import() {
    let Some(samples) = shared_dir() else {
        skip_notice("../shared/samples not present");
        return;
    };
    let files = native_files(&samples);
    assert!(files.len() > 60, "{}", files.len());
    let compared = assert_summaries_survive(&files);
    assert!(compared >= 30, "{compared}");
}

/// A v5 message as `(role, item types, source line, off_chain, has a note)`.
type Shape = (String, Vec<String>, Option<u64>, bool, bool);

/// The v5 messages of `doc`.
fn shape(doc: &Value) -> Vec<Shape> {
    doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let items = m["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["type"].as_str().unwrap().to_string())
                .collect();
            (
                m["role"].as_str().unwrap().to_string(),
                items,
                m["source"]["line"].as_u64(),
                m["source"]["off_chain"] == true,
                m["source"]["note"].is_string(),
            )
        })
        .collect()
}

#[test]
fn a_broken_chain_imports_every_message_in_file_order_with_notes() {
    // The first row's parent and the compaction's logical parent are not in the file, a branch
    // was abandoned, and a write gap of 40 s cuts the chain a resume loads down to its last two
    // rows. Everything else still arrives as v5 messages, in file order, marked and noted.
    let f = fixture("migrate/import/broken_chain.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let doc: Value = serde_json::from_slice(&std::fs::read(import(&f, dir.path(), &[])).unwrap()).unwrap();
    let s = |r: &str, items: &[&str], line: u64, off: bool, note: bool| {
        (
            r.to_string(),
            items.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
            Some(line),
            off,
            note,
        )
    };
    assert_eq!(
        shape(&doc),
        vec![
            s("user", &["text"], 1, true, true),
            s("assistant", &["tool_call"], 2, true, false),
            s("tool", &["tool_result"], 3, true, false),
            s("assistant", &["text"], 4, true, false),
            s("user", &["text"], 5, true, false),
            s("assistant", &["text"], 6, true, false),
            s("user", &["summary"], 7, true, true),
            s("assistant", &["tool_call"], 9, true, false),
            s("tool", &["tool_result"], 10, true, false),
            s("user", &["text"], 11, false, true),
            s("assistant", &["text"], 12, false, false),
        ]
    );
    let m = doc["messages"].as_array().unwrap();
    assert_eq!(
        m[0]["source"]["note"],
        "off the chain a resume loads: parent 00000000-0000-4000-8000-000000000900 is not in the file, \
         so this part is not linked to the conversation; in file order"
    );
    assert_eq!(
        m[6]["source"]["note"],
        "logical parent 00000000-0000-4000-8000-000000000950 of this compaction is not in the file: \
         what came before it is in file order"
    );
    assert_eq!(
        m[9]["source"]["note"],
        "parent 00000000-0000-4000-8000-000000000990 is not in the file: the link to what came before \
         is broken, and the messages before this one are in file order"
    );
    let summary = &m[6]["items"][0];
    assert_eq!(summary["origin"], "local");
    assert_eq!(summary["trigger"], "auto");
    assert_eq!(summary["pre_tokens"], 161000);
    assert!(
        summary["text"]
            .as_str()
            .unwrap()
            .ends_with("2. Pending: wire the flag into rsync.")
    );
    assert_eq!(m[2]["tool_call_id"], "toolu_01");
    assert_eq!(m[1]["items"][0]["args"]["file_path"], "/work/app/deploy.sh");
    // Nothing is left as an opaque record: every line of this file is a transcript message.
    assert!(!doc.to_string().contains("\"native\""));
    // --effective: only what a resume loads, the two rows after the gap.
    let eff: Value = serde_json::from_slice(&std::fs::read(import(&f, dir.path(), &["--effective"])).unwrap()).unwrap();
    assert_eq!(
        shape(&eff),
        vec![
            s("user", &["text"], 11, false, true),
            s("assistant", &["text"], 12, false, false)
        ]
    );
}

#[test]
fn a_remote_compaction_keeps_its_origin_encryption_and_plaintext() {
    let f = fixture("codex/summaries/remote_empty_message.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let doc: Value = serde_json::from_slice(&std::fs::read(import(&f, dir.path(), &[])).unwrap()).unwrap();
    let items: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap())
        .filter(|i| i["type"] == "summary")
        .collect();
    assert_eq!(
        items,
        [&json!({
            "type": "summary",
            "text": null,
            "origin": "remote",
            "encrypted": true,
            "encrypted_len": 100,
            "retained_messages": [
                {"role": "user", "text": "migrate the db"},
                {"role": "assistant", "text": "Plan ready."},
                {"role": "user", "text": "go ahead"}
            ],
            "native": {"line": 9}
        })]
    );
    // What a resume loads: the kept messages as messages, then the encrypted summary.
    let eff: Value = serde_json::from_slice(&std::fs::read(import(&f, dir.path(), &["--effective"])).unwrap()).unwrap();
    let summary = eff["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap())
        .find(|i| i["type"] == "summary")
        .unwrap();
    assert_eq!(summary["origin"], "remote");
    assert_eq!(summary["encrypted"], true);
    assert_eq!(summary["encrypted_len"], 100);
}

#[test]
fn a_codex_typescript_document_imports_item_by_item() {
    // The 2025 TypeScript CLI wrote one pretty-printed document, not JSON Lines: its lines
    // are no records, its items are.
    let f = fixture("migrate/import/codex_typescript_2025.json");
    let dir = tempfile::tempdir().unwrap();
    let doc: Value = serde_json::from_slice(&std::fs::read(import(&f, dir.path(), &[])).unwrap()).unwrap();
    let s = |r: &str, items: &[&str], line: u64| {
        (
            r.to_string(),
            items.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
            Some(line),
            false,
            false,
        )
    };
    assert_eq!(
        shape(&doc),
        vec![
            s("system", &["native"], 1),
            s("user", &["text"], 4),
            s("assistant", &["tool_call"], 5),
            s("tool", &["tool_result"], 6),
            s("assistant", &["text"], 7),
        ]
    );
    assert_eq!(doc["messages"][0]["items"][0]["record"]["session"]["id"], "ts-1");
    assert_eq!(doc["messages"][2]["items"][0]["args"], json!({"command": ["ls"]}));
    assert_eq!(doc["messages"][3]["tool_call_id"], "c1");
}
