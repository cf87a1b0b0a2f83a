//! `cctool rebuild-chain --api-view` on Codex rollouts: the `input` Codex 0.171 sends after a
//! resume. Every expected request of `fixtures/codex/api/` (`NAME.sent.json`) is what the real
//! client sent, normalised as `scripts/codex-request.py` says; `null` means the client
//! refused the file. The shared samples are checked against fingerprints of the client's
//! requests (`tests/codex_api_samples.tsv`), and against the client itself when installed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::util::{API_VIEW_FIELDS, cctool, fixture, records, root, shared_files, skip_notice, stdout_of};

const DIR: &str = "codex/api";

/// KEY=VALUE lines of `NAME.view`, if any.
fn view_of(input: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(input.with_extension("view"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

/// The cctool arguments that reproduce how a fixture was recorded.
fn view_args(input: &Path) -> Vec<String> {
    let view = view_of(input);
    let mut args = vec![
        "--api-view".to_string(),
        "--prompt".to_string(),
        view.get("PROMPT").cloned().unwrap_or_else(|| "say ok".into()),
    ];
    if let Some(extra) = view.get("CCTOOL_ARGS") {
        args.extend(extra.split_whitespace().map(str::to_string));
    }
    args
}

struct Run {
    code: Option<i32>,
    items: Vec<Value>,
    record: Value,
    stderr: String,
}

/// `cctool --json rebuild-chain --api-view …` on `input`: the items and the closing record.
fn run(input: &Path, extra: &[String]) -> Run {
    let mut args = vec!["--json".to_string(), "rebuild-chain".to_string()];
    args.extend(extra.iter().cloned());
    args.push(input.to_str().unwrap().to_string());
    let out = cctool().args(&args).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut items = records(&stdout);
    let record = items.pop().expect("a closing record");
    items.retain(|r| r.get("kind").is_none_or(|k| k != "diagnostic"));
    Run {
        code: out.status.code(),
        items,
        record,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn expected(input: &Path) -> Value {
    let sent = input.with_extension("sent.json");
    serde_json::from_slice(&std::fs::read(&sent).unwrap_or_else(|e| panic!("{}: {e}", sent.display()))).unwrap()
}

fn fired(record: &Value) -> Vec<String> {
    record["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap().to_string())
        .collect()
}

/// The fixture's view equals the request the real client sent, item for item, and fires
/// exactly `rules`.
fn assert_fixture(name: &str, rules: &[&str]) {
    let input = fixture(&format!("{DIR}/{name}.jsonl"));
    let got = run(&input, &view_args(&input));
    match expected(&input) {
        Value::Null => {
            assert_eq!(got.code, Some(1), "{name}: Codex refused the file: {}", got.stderr);
            assert!(got.items.is_empty(), "{name}: nothing is sent");
            assert!(
                got.record["refused"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("Codex 0.171 cannot resume")),
                "{name}: {}",
                got.record
            );
        }
        Value::Array(want) => {
            assert_eq!(got.code, Some(0), "{name}: {}", got.stderr);
            assert_eq!(got.items.len(), want.len(), "{name}: item count");
            for (i, (g, w)) in got.items.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{name}: item {i}");
            }
            assert_eq!(got.record["messages"], want.len(), "{name}");
        }
        other => panic!("{name}: unexpected expected request {other}"),
    }
    assert_eq!(fired(&got.record), rules, "{name}: rules");
}

macro_rules! fixtures {
    ($($name:ident => [$($rule:literal),*]),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                assert_fixture(stringify!($name), &[$($rule),*]);
            }
        )*
        const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

fixtures!(
    era_compaction_summary_2025_11 => ["X2"],
    era_document_2025_05 => [],
    era_legacy_no_replacement_history => [],
    era_legacy_raw_summary_2025 => [],
    era_local_compaction_2026 => [],
    era_paginated_2026_08 => ["X2"],
    era_pre_envelope_2025_08 => [],
    era_remote_empty_message => ["X2"],
    era_rollback_after_compaction => [],
    era_rollback_over_compaction => [],
    era_unknown_history_mode => [],
    c1_unreadable_lines => ["X1", "X8", "X9"],
    c2_codex_form => ["X2"],
    c3_tool_output_bytes => ["X3"],
    c3_tool_output_tokens => ["X3"],
    c4_c5_list_outputs => ["X3", "X4", "X5"],
    c6_images => ["X6"],
    c6_images_original_detail => ["X12"],
    c7_audio => ["X7"],
    c8_unanswered_calls => ["X2", "X8"],
    c9_orphan_outputs => ["X2", "X9"],
    c10_inter_agent => ["X10"],
    knob_codex_model => [],
    knob_prompt => [],
);

#[test]
fn every_fixture_has_a_test() {
    let mut found: Vec<String> = std::fs::read_dir(fixture(DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".jsonl").map(str::to_string))
        .filter(|n| !view_of(&fixture(&format!("{DIR}/{n}.jsonl"))).contains_key("NOT_REPRODUCED"))
        .collect();
    found.sort();
    let mut listed: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "a new fixture needs its line in fixtures!()");
}

/// An image Codex resizes: cctool keeps it as written and says so; everything else is equal.
#[test]
fn c11_image_resized() {
    let input = fixture(&format!("{DIR}/c11_image_resized.jsonl"));
    let got = run(&input, &view_args(&input));
    let want = expected(&input);
    let want = want.as_array().unwrap();
    assert_eq!(got.items.len(), want.len());
    for (i, (g, w)) in got.items.iter().zip(want).enumerate() {
        if i == 1 {
            let url = |v: &Value| v["content"][1]["image_url"].as_str().unwrap().to_string();
            assert_ne!(url(g), url(w), "the client re-encodes the image");
            let written: Value = serde_json::from_str(
                std::fs::read_to_string(&input)
                    .unwrap()
                    .lines()
                    .find(|l| l.contains("Banner:"))
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(url(g), url(&written["payload"]), "cctool keeps it as written");
            assert_eq!(g["content"][0], w["content"][0]);
        } else {
            assert_eq!(g, w, "item {i}");
        }
    }
    assert_eq!(fired(&got.record), ["X11"]);
    let diag = stdout_of(&["--json", "rebuild-chain", "--api-view", input.to_str().unwrap()]);
    assert!(diag.contains(r#""code":"image-not-reproduced""#), "{diag}");
}

#[test]
fn era_histories_are_exact() {
    for entry in std::fs::read_dir(fixture(DIR)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "history") {
            continue;
        }
        let input = path.with_extension("jsonl");
        let got = stdout_of(&["-q", "rebuild-chain", input.to_str().unwrap()]);
        let want = std::fs::read_to_string(&path).unwrap();
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn json_record_counts_items_and_tokens_of_what_is_printed() {
    let input = fixture(&format!("{DIR}/c8_unanswered_calls.jsonl"));
    let out = stdout_of(&[
        "--json",
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        input.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    let record: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let keys: Vec<&str> = record.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, API_VIEW_FIELDS);
    assert_eq!(record["kind"], "api_view");
    assert_eq!(record["format"], "codex");
    assert_eq!(record["client"], "0.171");
    assert_eq!(record["model"], "gpt-5.5");
    assert_eq!(record["model_entry"], "gpt-5.5");
    assert_eq!(record["prompt"], true);
    let items: Vec<&str> = lines[..lines.len() - 1].to_vec();
    assert_eq!(record["messages"], items.len());
    let sent = format!("[{}]", items.join(","));
    assert_eq!(record["tokens"], sent.len().div_ceil(4));
    assert_eq!(
        record["rules"][1],
        serde_json::json!({"rule": "X8", "count": 7, "what": "tool calls without an output closed by an \"aborted\" output right after the call"})
    );
}

#[test]
fn the_model_knob_decides_the_budget() {
    // gpt-5.4 is not in Codex's catalog: 12,000 bytes; gpt-5.6-sol is: 12,000 tokens.
    let input = fixture(&format!("{DIR}/knob_codex_model.jsonl"));
    let output = |extra: &[&str]| {
        let mut args = vec!["-q", "rebuild-chain", "--api-view"];
        args.extend_from_slice(extra);
        args.push(input.to_str().unwrap());
        let items = records(&stdout_of(&args));
        items[2]["output"].as_str().unwrap().len()
    };
    assert_eq!(output(&[]), 12_000 + "…8019 chars truncated…".len());
    assert_eq!(output(&["--model", "gpt-5.6-sol"]), 20_019);
}

#[test]
fn refusals_exit_1_and_say_why() {
    let input = fixture(&format!("{DIR}/era_unknown_history_mode.jsonl"));
    let out = cctool()
        .args(["rebuild-chain", "--api-view", input.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("history_mode `threaded`"), "{err}");
}

#[test]
fn api_view_renders_codex_items_for_reading() {
    let input = fixture(&format!("{DIR}/c8_unanswered_calls.jsonl"));
    let text = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--format",
        "text",
        input.to_str().unwrap(),
    ]);
    assert!(
        text.contains("── tool · item 3\n[tool_result call_rh]\naborted\n"),
        "{text}"
    );
    let md = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "go on",
        "--format",
        "markdown",
        input.to_str().unwrap(),
    ]);
    assert!(md.ends_with("### user\n_item 23_\n\ngo on\n\n"), "{md}");
}

#[test]
fn codex_options_are_refused_where_they_do_not_apply() {
    // The Claude Code resume configuration does not describe a Codex resume.
    let rollout = fixture(&format!("{DIR}/c2_codex_form.jsonl"));
    for opt in [["--as-of", "2026-11-29"], ["--base-url", "http://127.0.0.1:9"]] {
        let out = cctool()
            .args(["rebuild-chain", "--api-view", opt[0], opt[1], rollout.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{opt:?}");
    }
    let session = fixture("session/refactor.v5.json");
    let out = cctool()
        .args(["rebuild-chain", "--api-view", session.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = cctool()
        .args(["rebuild-chain", "--model", "gpt-5.5", rollout.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--model needs --api-view");
}

// ---- the shared samples ----------------------------------------------------------------------

/// The folders of Codex samples.
const SAMPLE_DIRS: &[&str] = &["codex/real", "codex/real-2026", "codex/synthetic"];
const TABLE: &str = "tests/codex_api_samples.tsv";

/// Items as canonical JSON (keys sorted), one per line, and the SHA-256 of that text.
fn fingerprint(items: &[Value]) -> String {
    let mut text = String::new();
    for item in items {
        crate::util::sorted_json(item, &|v, out| out.push_str(&v.to_string()), &mut text);
        text.push('\n');
    }
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `relative path → (items, sha256)` of the real client's requests, or "refused".
fn table() -> BTreeMap<String, (String, String)> {
    std::fs::read_to_string(root().join(TABLE))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), (f[1].to_string(), f[2].to_string()))
        })
        .collect()
}

/// The sample's path under the samples folder (`codex/real-2026/….jsonl`).
fn rel(path: &Path) -> String {
    let s = path.to_string_lossy();
    s[s.rfind("/samples/").unwrap() + "/samples/".len()..].to_string()
}

/// cctool's view of a sample, as the table records it.
fn sample_entry(path: &Path) -> (String, String) {
    let got = run(path, &["--api-view".into(), "--prompt".into(), "say ok".into()]);
    if got.code == Some(1) && got.record["refused"].is_string() {
        return ("refused".into(), "-".into());
    }
    assert_eq!(got.code, Some(0), "{}: {}", path.display(), got.stderr);
    (got.items.len().to_string(), fingerprint(&got.items))
}

#[test]
fn samples_match_the_recorded_client_requests() {
    let Some(files) = shared_files(SAMPLE_DIRS) else { return };
    let table = table();
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let mut names: Vec<String> = files.iter().map(|f| rel(f)).collect();
    names.sort();
    assert_eq!(
        names,
        table.keys().cloned().collect::<Vec<_>>(),
        "every Codex sample has a line in {TABLE}"
    );
    for f in &files {
        assert_eq!(&sample_entry(f), &table[&rel(f)], "{}", f.display());
    }
}

// ---- the real client, when installed -----------------------------------------------------------

/// The harness script and an installed Codex binary, if both are there.
pub(crate) fn codex_client() -> Option<PathBuf> {
    let harness = std::env::var_os("CCTOOL_HARNESS")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root().join("scripts/realclient"),
            root().join("../shared/tools/realclient"),
        ])
        .map(|d| d.join("codex-resume-view.sh"))
        .find(|p| p.exists())?;
    let home = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")))?;
    let vendor = home.join("codex/node_modules/@openai");
    let installed = std::fs::read_dir(&vendor).ok()?.flatten().any(|pkg| {
        pkg.file_name().to_string_lossy().starts_with("codex-linux-")
            && std::fs::read_dir(pkg.path().join("vendor"))
                .map(|d| d.flatten().any(|t| t.path().join("bin/codex").exists()))
                .unwrap_or(false)
    });
    installed.then_some(harness)
}

/// The harness's `input` with what the client adds by itself removed (see
/// `scripts/codex-request.py`): the tool list and base instructions first, the new
/// turn's context before the prompt, passthrough metadata, the prompt's fresh id.
pub(crate) fn normalise(input: &Value) -> Vec<Value> {
    let meta = |x: &Value| x["internal_chat_message_metadata_passthrough"].clone();
    let mut items: Vec<Value> = input.as_array().unwrap().clone();
    let base = items
        .iter()
        .position(|x| {
            meta(x)["content_item_kinds"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "model.base_instructions"))
        })
        .unwrap_or(0);
    items.drain(..=base);
    let turn = meta(items.last().unwrap())["turn_id"].clone();
    let last = items.len() - 1;
    let mut out: Vec<Value> = items
        .into_iter()
        .enumerate()
        .filter(|(i, x)| *i == last || turn.is_null() || meta(x)["turn_id"] != turn)
        .map(|(_, x)| x)
        .collect();
    for x in &mut out {
        x.as_object_mut()
            .unwrap()
            .remove("internal_chat_message_metadata_passthrough");
    }
    out.last_mut().unwrap().as_object_mut().unwrap().remove("id");
    out
}

/// What the real client sends for `path`, normalised; `None` when it refuses the file.
fn client_request(script: &Path, path: &Path) -> Option<Vec<Value>> {
    let out = Command::new("bash")
        .arg(script)
        .arg(path)
        .arg("say ok")
        .output()
        .unwrap();
    if out.status.code() == Some(1) {
        return None;
    }
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(normalise(&serde_json::from_slice(&out.stdout).unwrap()))
}

/// Runs the real Codex on every sample and compares with cctool. With
/// `CCTOOL_RECORD_FINGERPRINTS=1` it writes the table the offline test reads.
#[test]
fn samples_match_the_installed_real_client() {
    let Some(files) = shared_files(SAMPLE_DIRS) else { return };
    let Some(script) = codex_client() else {
        skip_notice("Codex 0.171 is not installed (run the realclient harness's install.sh)");
        return;
    };
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    // The client spends most of a run waiting on its own start-up: a few at once.
    let results: Vec<(PathBuf, Option<Vec<Value>>)> = std::thread::scope(|s| {
        files
            .chunks(files.len().div_ceil(4).max(1))
            .map(|chunk| {
                let script = &script;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|f| (f.clone(), client_request(script, f)))
                        .collect::<Vec<_>>()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut lines = vec![format!(
        "# Codex 0.171's request after resuming each sample with the prompt \"say ok\": items and the\n# SHA-256 of the normalised items as canonical JSON lines (see tests/cli/codex_api.rs).\n# Written by CCTOOL_RECORD_FINGERPRINTS=1 cargo test samples_match_the_installed_real_client."
    )];
    for (f, sent) in &results {
        let entry = match sent {
            None => ("refused".to_string(), "-".to_string()),
            Some(items) => (items.len().to_string(), fingerprint(items)),
        };
        assert_eq!(
            sample_entry(f),
            entry,
            "{}: cctool and the real client differ",
            f.display()
        );
        lines.push(format!("{}\t{}\t{}", rel(f), entry.0, entry.1));
    }
    if std::env::var_os("CCTOOL_RECORD_FINGERPRINTS").is_some() {
        std::fs::write(root().join(TABLE), lines.join("\n") + "\n").unwrap();
    }
    eprintln!("compared {} Codex samples with the real client", results.len());
}

/// The fixtures' expectations are what today's installed client sends, too.
#[test]
fn fixtures_match_the_installed_real_client() {
    let Some(script) = codex_client() else {
        skip_notice("Codex 0.171 is not installed (run the realclient harness's install.sh)");
        return;
    };
    for name in [
        "c2_codex_form",
        "c3_tool_output_bytes",
        "c8_unanswered_calls",
        "era_pre_envelope_2025_08",
    ] {
        let input = fixture(&format!("{DIR}/{name}.jsonl"));
        let sent = client_request(&script, &input).map_or(Value::Null, Value::from);
        assert_eq!(
            sent,
            expected(&input),
            "{name}: the installed client sends something else now"
        );
    }
}
