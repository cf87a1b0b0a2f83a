//! `--api-view` against what the real Claude Code sent: the project's own fixtures
//! (`fixtures/claude/api/NAME.jsonl` with `NAME.sent.json`, recorded by
//! `scripts/refresh-expected.sh`), one test each, and the shared samples through a table of
//! fingerprints (`tests/api_view_fingerprints.tsv`), re-checked live when the client is
//! installed.
//!
//! A fixture's `NAME.view` says how it was recorded (`VIEW_DATE`, `PROMPT`, …), which cctool
//! options express the same assumptions (`CCTOOL_ARGS`), which rules the view must report
//! (`RULES`, exactly) and which loader behaviours it shows (`PROVES`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::util::{cctool, faketime, fixture, records, root, shared_dir, skip_notice};

const FOLDER: &str = "claude/api";

/// The `KEY=VALUE` lines of a fixture's `.view`.
fn view_of(input: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(input.with_extension("view")) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.to_string()))
        .collect()
}

fn view_value(view: &[(String, String)], key: &str) -> Option<String> {
    view.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// The long options `rebuild-chain` accepts today.
fn known_options() -> &'static BTreeSet<String> {
    static KNOWN: OnceLock<BTreeSet<String>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let out = cctool().args(["rebuild-chain", "--help"]).output().expect("run");
        String::from_utf8_lossy(&out.stdout)
            .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']' || c == '=')
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(str::to_string)
            .collect()
    })
}

/// `CCTOOL_ARGS` as arguments, leaving out options this build does not have yet (with a
/// notice): the fixture then runs under the defaults, which equal the recorded assumptions
/// until those options exist.
fn cctool_args(spec: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = spec.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let mut group = vec![w.to_string()];
        while let Some(v) = words.peek().filter(|v| !v.starts_with("--")) {
            group.push(v.to_string());
            words.next();
        }
        let name = w.split('=').next().unwrap_or(w);
        if known_options().contains(name) {
            out.extend(group);
        } else {
            skip_notice(&format!(
                "option {name} of CCTOOL_ARGS not in this build; run without it"
            ));
        }
    }
    out
}

fn view_args(path: &Path, view: &[(String, String)], json: bool) -> Vec<String> {
    let mut args: Vec<String> = vec!["-q".into(), "rebuild-chain".into(), "--api-view".into()];
    args.push("--prompt".into());
    args.push(view_value(view, "PROMPT").unwrap_or_else(|| "say ok".into()));
    args.extend(cctool_args(&view_value(view, "CCTOOL_ARGS").unwrap_or_default()));
    if json {
        args.push("--json".into());
    }
    args.push(path.to_str().unwrap().into());
    args
}

fn run(args: &[String]) -> String {
    let out = cctool().args(args).output().expect("run");
    assert!(
        out.status.success(),
        "cctool {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The view's messages, and the rules its `--json` record reports.
fn view_and_rules(path: &Path) -> (Vec<Value>, Vec<String>) {
    let view = view_of(path);
    let messages = records(&run(&view_args(path, &view, false)));
    let last = records(&run(&view_args(path, &view, true))).pop().expect("a record");
    assert_eq!(last["kind"], "api_view");
    let rules = last["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap().to_string())
        .collect();
    (messages, rules)
}

fn assert_fixture(name: &str) {
    let path = fixture(&format!("{FOLDER}/{name}.jsonl"));
    let want: Vec<Value> =
        serde_json::from_slice(&std::fs::read(path.with_extension("sent.json")).expect("NAME.sent.json")).unwrap();
    let (got, rules) = view_and_rules(&path);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: message {i}");
    }
    assert_eq!(got.len(), want.len(), "{name}: message count");
    let declared: Vec<String> = view_value(&view_of(&path), "RULES")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(rules, declared, "{name}: rules reported (RULES in {name}.view)");
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        $(#[test]
        fn $name() {
            assert_fixture(stringify!($name));
        })*
        const NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

fixtures!(
    a10_empty_text_blocks,
    a11_after_compaction,
    a1_a8_one_merged_message,
    a1_whitespace_rows,
    a2_a4_a6_a10_exit,
    a2_b3_local_command_after_reply,
    a4_api_error_row,
    a5_split_rows_other_model,
    a6_orphan_thinking_row,
    a7_ends_in_exit_command,
    a9_tool_use_before_text,
    b1_gap_bridged_within_5s,
    b1_gap_over_5s_not_bridged,
    b2_parallel_calls_in_file_order,
    b4_tip_is_the_last_row_written,
    c10_c11_rows_not_sent_and_escaped,
    c13_reminders_in_the_last_message,
    c14_mentioned_directories,
    c15_reply_split_by_delivered_rows,
    c1_c2_attachments_before_the_prompt,
    c1_c3_files_directories_diagnostics,
    c1_c3_plan_mode_and_queued_messages,
    c1_mcp_servers_reconnected_and_gone,
    c1_recorded_attachment_texts,
    c1_tool_and_server_changes,
    c3_attachments_in_the_tool_result,
    c4_attachments_as_system_messages,
    c4_picture_beside_system_messages,
    c5_c6_tool_search_results,
    c5_model_without_tool_loaded_text,
    c7_task_notifications,
    c8_fallback_blocks,
    c8_fallback_blocks_first_party,
    c9_c12_tool_inputs_and_citations,
    f4_middle_and_last,
    preserved_segment_prefix_anchor,
    preserved_segment_suffix_anchor,
    progress_rows_bridged,
    record_types_of_current_clients,
    stale_preserved_segment,
);

fn fixture_names() -> BTreeSet<String> {
    std::fs::read_dir(fixture(FOLDER))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".sent.json").map(str::to_string))
        .collect()
}

#[test]
fn every_fixture_has_a_test_and_an_input() {
    let listed: BTreeSet<String> = NAMES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        fixture_names(),
        listed,
        "a fixture in {FOLDER} needs its line in fixtures!()"
    );
    for n in NAMES {
        assert!(fixture(&format!("{FOLDER}/{n}.jsonl")).exists(), "{n}.jsonl");
    }
}

/// Every send-time rule and every loader behaviour is shown by a fixture of the project, so a
/// clean clone proves them all.
#[test]
fn every_rule_and_loader_behaviour_has_a_fixture() {
    let mut rules = BTreeSet::new();
    let mut proves = BTreeSet::new();
    for n in NAMES {
        let view = view_of(&fixture(&format!("{FOLDER}/{n}.jsonl")));
        for (k, into) in [("RULES", &mut rules), ("PROVES", &mut proves)] {
            into.extend(
                view_value(&view, k)
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string),
            );
        }
    }
    for r in cctool::agents::claude_code::api::Rule::ALL {
        // F3 (a thinking-only message dropped) is reported as A6 since 2.1.332.
        if r == cctool::agents::claude_code::api::Rule::F3 {
            continue;
        }
        assert!(rules.contains(r.id()), "no fixture reports rule {}", r.id());
    }
    for b in [
        "B4",
        "B1-limit",
        "preserved-prefix",
        "preserved-suffix",
        "stale-segment",
        "progress-bridge",
        "parallel-recovery",
        "record-types",
    ] {
        assert!(proves.contains(b), "no fixture shows {b} (PROVES in a .view)");
    }
}

#[test]
fn record_types_of_current_clients_are_known_to_the_loader() {
    let path = fixture(&format!("{FOLDER}/record_types_of_current_clients.jsonl"));
    let out = run(&["rebuild-chain".into(), "--json".into(), path.to_str().unwrap().into()]);
    let unknown: Vec<Value> = records(&out)
        .into_iter()
        .filter(|r| r["kind"] == "diagnostic" && r["code"] == "unknown-record-type")
        .collect();
    assert!(unknown.is_empty(), "{unknown:?}");
}

#[test]
fn attachments_the_table_does_not_reproduce_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task_status_attachment.jsonl");
    let sid = "5e550001-0000-4000-8000-000000000001";
    let rows = [
        serde_json::json!({"parentUuid": null, "isSidechain": false, "type": "user", "sessionId": sid,
            "uuid": "5e550001-0000-4000-8000-000000000011", "timestamp": "2026-07-01T10:00:00.000Z",
            "message": {"role": "user", "content": "is the build done?"}}),
        serde_json::json!({"parentUuid": "5e550001-0000-4000-8000-000000000011", "isSidechain": false,
            "type": "attachment", "sessionId": sid, "uuid": "5e550001-0000-4000-8000-000000000012",
            "timestamp": "2026-07-01T10:00:01.000Z",
            "attachment": {"type": "task_status", "taskId": "b1", "taskType": "local_bash",
                "status": "completed", "description": "make"}}),
        serde_json::json!({"parentUuid": "5e550001-0000-4000-8000-000000000012", "isSidechain": false,
            "type": "assistant", "sessionId": sid, "uuid": "5e550001-0000-4000-8000-000000000013",
            "timestamp": "2026-07-01T10:00:02.000Z",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": "Read it."}]}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let out = run(&[
        "rebuild-chain".into(),
        "--api-view".into(),
        "--json".into(),
        path.to_str().unwrap().into(),
    ]);
    let warned: Vec<Value> = records(&out)
        .into_iter()
        .filter(|r| r["kind"] == "diagnostic" && r["code"] == "api-view-not-emulated")
        .collect();
    assert_eq!(warned.len(), 1, "{out}");
    assert_eq!(warned[0]["line"], 2);
    assert_eq!(warned[0]["severity"], "warning");
}

// ---- the shared samples: fingerprints, and the real client when installed ----------------------

const TABLE: &str = "tests/api_view_fingerprints.tsv";

/// The baseline the fixtures and the table's own rows were recorded at.
const BASE_DATE: &str = "2026-11-29";

/// One row of the table: a sample, the date and mode of the resume, and the SHA-256 of the
/// normalised request in canonical JSON (object keys sorted, no spaces).
#[derive(Clone, Debug)]
struct Fingerprint {
    sample: String,
    date: String,
    mode: String,
    sha256: String,
}

fn table() -> Vec<Fingerprint> {
    std::fs::read_to_string(root().join(TABLE))
        .expect("fingerprint table")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{TABLE}: 4 tab-separated columns: {l}");
            Fingerprint {
                sample: f[0].into(),
                date: f[1].into(),
                mode: f[2].into(),
                sha256: f[3].into(),
            }
        })
        .collect()
}

/// The cctool options of a row's assumptions (`proxy`: the harness's loopback base URL;
/// `first-party`: Anthropic's own API).
fn row_args(row: &Fingerprint) -> String {
    let url = match row.mode.as_str() {
        "proxy" => "http://127.0.0.1:9",
        "first-party" => "https://api.anthropic.com",
        other => panic!("{TABLE}: unknown mode {other}"),
    };
    format!("--as-of {}T12:00:00Z --base-url {url} --settings /dev/null", row.date)
}

fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&o[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn fingerprint(messages: &[Value]) -> String {
    let text = serde_json::to_string(&canonical(&Value::Array(messages.to_vec()))).unwrap();
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether this build can express the row's assumptions; the baseline needs no option.
fn expressible(row: &Fingerprint) -> bool {
    (row.date == BASE_DATE && row.mode == "proxy")
        || (known_options().contains("--as-of") && known_options().contains("--base-url"))
}

fn cctool_view_of(path: &Path, args: &str) -> Vec<Value> {
    let view = vec![("CCTOOL_ARGS".to_string(), args.to_string())];
    records(&run(&view_args(path, &view, false)))
}

#[test]
fn shared_samples_match_their_recorded_fingerprints() {
    let Some(dir) = shared_dir() else {
        skip_notice("../shared/samples not present");
        return;
    };
    let rows = table();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for row in &rows {
        if !expressible(row) {
            skip_notice(&format!(
                "{} at {} {}: needs --as-of and --base-url",
                row.sample, row.date, row.mode
            ));
            continue;
        }
        let got = fingerprint(&cctool_view_of(&dir.join(&row.sample), &row_args(row)));
        if got != row.sha256 {
            wrong.push(format!("{} at {} {}", row.sample, row.date, row.mode));
        }
        checked += 1;
    }
    assert!(
        wrong.is_empty(),
        "the view differs from the real client's request for: {wrong:#?}"
    );
    assert!(checked > 0);
}

#[test]
fn every_shared_claude_sample_has_a_fingerprint() {
    let Some(dir) = shared_dir() else {
        skip_notice("../shared/samples not present");
        return;
    };
    let listed: BTreeSet<String> = table()
        .into_iter()
        .filter(|r| r.date == BASE_DATE && r.mode == "proxy")
        .map(|r| r.sample)
        .collect();
    for sample in shared_claude_samples(&dir) {
        assert!(listed.contains(&sample), "{sample} has no row in {TABLE}");
    }
}

fn shared_claude_samples(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["real", "real-2026", "real-excerpts", "synthetic", "resume-2.1.332"] {
        let folder = dir.join("claude-code").join(sub);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") {
                out.push(format!("claude-code/{sub}/{name}"));
            }
        }
    }
    out.sort();
    out
}

/// The harness that runs the real Claude Code, or `None` after a notice.
fn harness() -> Option<PathBuf> {
    let dir = std::env::var_os("CCTOOL_HARNESS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("scripts/realclient"));
    let installs = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")));
    let installed = installs.is_some_and(|h| {
        h.join("cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
            .is_file()
    });
    let script = dir.join("cc-resume-view.sh");
    if !installed || !script.is_file() {
        skip_notice("Claude Code 2.1.332 or its harness is not installed (scripts/realclient/install.sh)");
        return None;
    }
    Some(script)
}

/// What the client sent for `file`, normalised as the fixtures are.
fn real_request(script: &Path, file: &Path, row: &Fingerprint) -> Option<Vec<Value>> {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(script).arg(file).arg("say ok").env("VIEW_DATE", &row.date);
    if row.mode == "first-party" {
        cmd.env("VIEW_ENV", "_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1");
    }
    let out = cmd.output().expect("run the harness");
    if !out.status.success() {
        return None;
    }
    let sent: Value = serde_json::from_slice(&out.stdout).ok()?;
    Some(crate::api_view::normalise(&sent))
}

/// The live re-check: the baseline rows of the current-era samples (`real-2026`; every row
/// with `CCTOOL_LIVE_ALL=1`) are resumed with the real client; each request must still have
/// the recorded fingerprint and equal the view. `CCTOOL_RECORD_FINGERPRINTS=1` writes the
/// baseline rows of every sample instead (other rows kept).
#[test]
fn shared_samples_live_recheck_with_the_real_client() {
    let Some(dir) = shared_dir() else {
        skip_notice("../shared/samples not present");
        return;
    };
    let Some(script) = harness() else { return };
    if !faketime() {
        return;
    }
    let record = std::env::var_os("CCTOOL_RECORD_FINGERPRINTS").is_some();
    let all = std::env::var_os("CCTOOL_LIVE_ALL").is_some();
    let mut rows = table();
    if record {
        rows.retain(|r| !(r.date == BASE_DATE && r.mode == "proxy"));
        for sample in shared_claude_samples(&dir) {
            rows.push(Fingerprint {
                sample,
                date: BASE_DATE.into(),
                mode: "proxy".into(),
                sha256: String::new(),
            });
        }
    }
    let todo: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            let r = &rows[i];
            record
                || all
                || (r.date == BASE_DATE && r.mode == "proxy" && r.sample.starts_with("claude-code/real-2026/"))
        })
        .filter(|&i| !record || rows[i].sha256.is_empty())
        .collect();
    // Two resumes at a time: each takes a second or two, mostly waiting.
    let results: Vec<(usize, Option<Vec<Value>>)> = std::thread::scope(|s| {
        let chunks: Vec<Vec<usize>> = (0..2)
            .map(|k| todo.iter().copied().skip(k).step_by(2).collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (rows, dir, script) = (&rows, &dir, &script);
                s.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|i| (i, real_request(script, &dir.join(&rows[i].sample), &rows[i])))
                        .collect::<Vec<_>>()
                })
            })
            .flat_map(|h| h.join().unwrap())
            .collect();
        handles
    });
    let mut problems = Vec::new();
    for (i, sent) in results {
        let row = &mut rows[i];
        let Some(sent) = sent else {
            problems.push(format!("{}: the client sent no request", row.sample));
            continue;
        };
        let fp = fingerprint(&sent);
        if record {
            row.sha256 = fp;
            continue;
        }
        if fp != row.sha256 {
            problems.push(format!(
                "{} at {} {}: the client's request changed since it was recorded",
                row.sample, row.date, row.mode
            ));
        }
        if expressible(row) && cctool_view_of(&dir.join(&row.sample), &row_args(row)) != sent {
            problems.push(format!("{} at {} {}: the view differs", row.sample, row.date, row.mode));
        }
    }
    if record {
        rows.sort_by(|a, b| (&a.sample, &a.date, &a.mode).cmp(&(&b.sample, &b.date, &b.mode)));
        let mut text = String::from(
            "# sample\tdate\tmode\tsha256 of the normalised request (canonical JSON: keys sorted, no spaces)\n",
        );
        for r in &rows {
            text.push_str(&format!("{}\t{}\t{}\t{}\n", r.sample, r.date, r.mode, r.sha256));
        }
        std::fs::write(root().join(TABLE), text).unwrap();
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The anchors of a page's headings, as GitHub makes them (lower case; letters, digits,
/// spaces, `-` and `_` kept; spaces as `-`).
fn heading_anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim().replace('`', "");
        out.insert(
            title
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect(),
        );
    }
    out
}

/// Every rule's `doc` names a section of the page, and the page cites every fixture.
#[test]
fn every_rule_is_documented_with_its_fixtures() {
    let page = std::fs::read_to_string(root().join("docs/claude-code-request.md")).unwrap();
    let anchors = heading_anchors(&page);
    for r in cctool::agents::claude_code::api::Rule::ALL {
        let (file, anchor) = r.doc().split_once('#').unwrap();
        assert_eq!(file, "docs/claude-code-request.md");
        assert!(anchors.contains(anchor), "{}: no section #{anchor}", r.id());
    }
    for n in NAMES {
        assert!(
            page.contains(&format!("../fixtures/{FOLDER}/{n}.jsonl")),
            "docs/claude-code-request.md does not cite the fixture {n}"
        );
    }
}
