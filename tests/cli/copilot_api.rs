//! `rebuild-chain --api-view` of Copilot CLI sessions against what Copilot CLI 1.0.102 sent
//! after resuming them: offline, against the requests recorded beside every fixture
//! (`fixtures/copilot/**/NAME.sent.json`, by `scripts/refresh-expected.sh`); live, against the
//! installed client on every fixture and every shared sample (skipped with a notice where the
//! client or the samples are absent).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{Client, cctool, fixture, realclient, records, root, shared_files, skip_notice};

/// The date the recordings were made at (`scripts/refresh-expected.sh`'s Copilot folders): the
/// live runs use it too, so nothing but the client's behaviour can differ.
const VIEW_DATE: &str = "2026-12-03";

/// The sessions of the fixtures that are resumed as they are (the store's is a layout, not a
/// resume case), each with its recording `NAME.sent.json` beside it, when there is one.
fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["copilot", "copilot/real"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            let sent = f.with_extension("sent.json");
            out.push((f, sent));
        }
    }
    out
}

/// The prompt a fixture was resumed with: `PROMPT=` of its `NAME.view`, else "say ok".
fn prompt_of(file: &Path) -> String {
    std::fs::read_to_string(file.with_extension("view"))
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("PROMPT=").map(str::to_string)))
        .unwrap_or_else(|| "say ok".to_string())
}

/// The messages `rebuild-chain --api-view --prompt PROMPT` prints for `file`, and its stderr.
fn api_view(file: &Path, prompt: &str) -> (Vec<Value>, String) {
    let out = cctool()
        .args(["rebuild-chain", "--api-view", "--prompt", prompt])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        records(&String::from_utf8(out.stdout).unwrap()),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Whether doctor names a problem of `file` that makes a resume fail (an error finding).
fn doctor_errors(file: &Path) -> Vec<Value> {
    let out = cctool().args(["doctor", "--json"]).arg(file).output().unwrap();
    records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding" && r["severity"] == "error")
        .collect()
}

/// Every fixture has its recording, and `--api-view` prints exactly the messages recorded;
/// where the client refused the file (`null`), doctor names an error in it.
#[test]
fn api_view_equals_the_recorded_request_on_every_fixture() {
    let all = fixtures();
    assert!(all.len() >= 6, "{all:?}");
    for (file, sent) in all {
        let text = std::fs::read(&sent).unwrap_or_else(|_| {
            panic!(
                "{}: no recording (scripts/refresh-expected.sh --write NAME)",
                file.display()
            )
        });
        let expected: Value = serde_json::from_slice(&text).unwrap();
        if expected.is_null() {
            assert!(
                !doctor_errors(&file).is_empty(),
                "{}: the client refuses it, doctor names no error",
                file.display()
            );
            continue;
        }
        let (got, _) = api_view(&file, &prompt_of(&file));
        assert_eq!(Value::Array(got), expected, "{}", file.display());
    }
}

/// GH6 and GH7 apart: the calls left open before a later message get the short result and no
/// source, the open call of the last message the long one with its source.
#[test]
fn dangling_calls_get_the_result_of_their_place() {
    let (got, err) = api_view(&fixture("copilot/dangling.jsonl"), "say ok");
    let synthetic: Vec<(&str, &str, bool)> = got
        .iter()
        .filter(|m| m["role"] == "tool" && m["content"].as_str().is_some_and(|c| c.contains("interrupted")))
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
                m.get("__copilotMessageSource").is_some(),
            )
        })
        .collect();
    let short = "The execution of this tool, or a previous tool was interrupted.";
    assert_eq!(synthetic.len(), 3, "{got:?}");
    assert_eq!(synthetic[0], ("call_build", short, false));
    assert_eq!(synthetic[1], ("call_view", short, false));
    assert_eq!(synthetic[2].0, "call_again");
    assert!(
        synthetic[2]
            .1
            .starts_with("Tool execution was interrupted before a result was recorded. Its effects")
    );
    assert!(synthetic[2].2);
    assert!(err.contains("GH6 x1") && err.contains("GH7 x2"), "{err}");
    // A call that states no intention has a source without `summary`.
    let view = got.iter().find(|m| m["tool_call_id"] == "call_ls").unwrap();
    assert_eq!(view["__copilotMessageSource"]["summary"], "List src");
    let (turns, _) = api_view(&fixture("copilot/turns.jsonl"), "say ok");
    let ls = turns.iter().find(|m| m["tool_call_id"] == "call_ls").unwrap();
    assert!(ls["__copilotMessageSource"].get("summary").is_none(), "{ls}");
}

/// GH11: after a compaction that ran in the background, what was written after its start is
/// sent after the summary, a prompt written meanwhile in both; a compaction whose start comes
/// just before its end sends nothing from before it.
#[test]
fn background_compaction_keeps_what_followed_its_start() {
    let (got, err) = api_view(&fixture("copilot/background-compaction.jsonl"), "say ok");
    let summary = got[0]["content"].as_str().unwrap();
    assert!(
        summary.contains("<user_message>\nalso run clippy when you are done\n</user_message>"),
        "{summary}"
    );
    assert_eq!(got[1]["tool_calls"][0]["id"], "call_view", "{got:?}");
    assert!(got.iter().all(|m| m["tool_call_id"] != "call_test"), "{got:?}");
    assert!(
        got.iter().any(|m| m["content"]
            .as_str()
            .is_some_and(|c| c.ends_with("also run clippy when you are done"))
            && m != &got[0]),
        "{got:?}"
    );
    assert!(err.contains("GH11 x4"), "{err}");
    let (adjacent, err) = api_view(&fixture("copilot/compacted.jsonl"), "say ok");
    assert!(!err.contains("GH11"), "{err}");
    assert_eq!(
        adjacent[1]["content"],
        "<current_datetime>2026-11-02T10:00:00.000Z</current_datetime>\n\nNow append a second stanza"
    );
}

/// GH11 beyond the request: what a resume loads after a background compaction is the same
/// everywhere — `rebuild-chain` gives the summary, then what was written after the compaction
/// began, and `scan` and `convert` count and carry the same messages.
#[test]
fn background_compaction_loads_the_same_in_every_command() {
    let file = fixture("copilot/background-compaction.jsonl");
    let path = file.to_str().unwrap();
    let out = cctool().args(["-q", "rebuild-chain", path]).output().unwrap();
    let chain = records(&String::from_utf8(out.stdout).unwrap());
    let kinds: Vec<&str> = chain.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds[0], "session.compaction_complete", "{kinds:?}");
    assert_eq!(
        chain[1]["data"]["content"],
        "The nesting depth is off by one; reading the parser."
    );
    let scan = cctool().args(["scan", "--json", path]).output().unwrap();
    let scan = records(&String::from_utf8(scan.stdout).unwrap());
    assert_eq!(scan[0]["chain_messages"], chain.len(), "{scan:?}");
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("c.jsonl");
    let run = cctool()
        .args(["-q", "convert", "--to", "claude-code", "-o", to.to_str().unwrap(), path])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&to).unwrap();
    let summary = text.find("<overview>").expect("the summary");
    let during = text
        .find("The nesting depth is off by one")
        .expect("what was written meanwhile");
    assert!(summary < during);
}

/// GH12 and GH13: a session left in autopilot gets the notice before the new prompt, and the
/// tools reminder after it when its history told the model tools were deferred; one switched
/// back to interactive after the notice was delivered gets the notice that autopilot ended;
/// neither is added without a new prompt.
#[test]
fn mode_notice_and_tools_reminder_follow_the_session() {
    let (got, err) = api_view(&fixture("copilot/autopilot.jsonl"), "say ok");
    let n = got.len();
    let prompt = got[n - 2]["content"].as_str().unwrap();
    assert!(
        prompt.starts_with("<mode_changed_notice>\n\n<autopilot_mode>\nAutopilot mode is currently active."),
        "{prompt}"
    );
    assert!(
        prompt.ends_with("</autopilot_mode>\n\n</mode_changed_notice>\n\nsay ok"),
        "{prompt}"
    );
    let reminder = got[n - 1]["content"].as_str().unwrap();
    assert!(
        reminder.starts_with("<system_reminder>\nThe current tool definitions are authoritative."),
        "{reminder}"
    );
    assert!(err.contains("GH12 x1") && err.contains("GH13 x1"), "{err}");
    let (ended, err) = api_view(&fixture("copilot/mode-ended.jsonl"), "say ok");
    assert_eq!(
        ended.last().unwrap()["content"],
        "<mode_changed_notice>\nAutopilot mode is no longer active. Do not follow autopilot-only instructions from earlier in the conversation.\n</mode_changed_notice>\n\nsay ok"
    );
    assert!(err.contains("GH12 x1") && !err.contains("GH13"), "{err}");
    let out = cctool()
        .args(["rebuild-chain", "--api-view"])
        .arg(fixture("copilot/autopilot.jsonl"))
        .output()
        .unwrap();
    let history = records(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(history.len(), n - 2, "{history:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("GH12") && !err.contains("GH13"), "{err}");
}

/// The shared samples on which cctool is known to differ from the client, with why (`docs/copilot.md`,
/// "What is not done yet"). The live test checks they still differ, so a fix removes them here.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// What the client sent for `file`, normalised as the recordings are; `None` when it refused
/// the file.
fn client_sent(script: &Path, file: &Path, prompt: &str) -> Option<Value> {
    let out = Command::new("bash")
        .arg(script)
        .arg(file)
        .arg(prompt)
        .env("VIEW_DATE", VIEW_DATE)
        .env("VIEW_BODY", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(1) && err.contains("Session file is corrupted") {
        return None;
    }
    assert!(out.status.success(), "{}: {err}", file.display());
    let mut norm = Command::new("python3")
        .arg(root().join("scripts/copilot-request.py"))
        .arg("sent")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    norm.stdin.take().unwrap().write_all(&out.stdout).unwrap();
    let done = norm.wait_with_output().unwrap();
    assert!(done.status.success(), "{}: cannot normalise", file.display());
    Some(serde_json::from_slice(&done.stdout).unwrap())
}

/// Runs the installed client on every fixture and every shared sample: `--api-view` is what it
/// sends, and a file it refuses is one doctor names an error in.
#[test]
fn api_view_equals_what_the_installed_client_sends() {
    let Some(script) = realclient(Client::Copilot) else {
        return;
    };
    let mut files: Vec<PathBuf> = fixtures().into_iter().map(|(f, _)| f).collect();
    match shared_files(&["copilot/real"]) {
        Some(samples) => files.extend(
            samples
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl")),
        ),
        None => skip_notice("the shared Copilot CLI samples are absent: the fixtures alone are compared"),
    }
    // The client spends most of a run starting: a few at once.
    let results: Vec<(PathBuf, Option<Value>)> = std::thread::scope(|s| {
        files
            .chunks(files.len().div_ceil(3).max(1))
            .map(|chunk| {
                let script = &script;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|f| (f.clone(), client_sent(script, f, &prompt_of(f))))
                        .collect::<Vec<_>>()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    for (file, sent) in results {
        match sent {
            None => assert!(
                !doctor_errors(&file).is_empty(),
                "{}: the client refuses it, doctor names no error",
                file.display()
            ),
            Some(sent) => {
                let (got, _) = api_view(&file, &prompt_of(&file));
                let name = file.file_name().unwrap().to_string_lossy();
                match KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == name) {
                    Some((_, why)) => {
                        assert_ne!(
                            Value::Array(got),
                            sent,
                            "{}: now equal; drop it from KNOWN_DIFFERENCES",
                            file.display()
                        );
                        skip_notice(&format!("{name} differs as known: {why}"));
                    }
                    None => assert_eq!(Value::Array(got), sent, "{}", file.display()),
                }
            }
        }
    }
}
