//! The request model of a resume, the thinking policy and the whole request body: every
//! fixture of `fixtures/claude/model/` equals what the real Claude Code sent under the
//! conditions its `.view` file records, and the shared samples equal the recorded matrix of
//! dates and modes (`fixtures/claude/shared-requests.tsv`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{cctool, faketime, fixture, records, root, shared, skip_notice};

/// cctool in a clean configuration: none of the user's variables, UTC, no settings found.
fn clean() -> assert_cmd::Command {
    let mut c = cctool();
    for v in cctool::agents::claude_code::config::ENV_VARS {
        c.env_remove(v);
    }
    c.env("TZ", "UTC");
    c
}

/// A fixture's `.view` file: how its request was recorded.
struct View {
    name: String,
    env: Vec<(String, String)>,
    prompt: String,
    args: Vec<String>,
    expect: String,
}

fn model_dir() -> PathBuf {
    fixture("claude/model")
}

fn views() -> Vec<View> {
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(model_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "view"))
        .collect();
    names.sort();
    for p in names {
        let text = std::fs::read_to_string(&p).unwrap();
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .map(str::to_string)
        };
        out.push(View {
            name: p.file_stem().unwrap().to_str().unwrap().to_string(),
            env: get("VIEW_ENV")
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            prompt: get("PROMPT").unwrap_or_else(|| "say ok".into()),
            args: get("CCTOOL_ARGS")
                .expect("CCTOOL_ARGS")
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            expect: get("EXPECT").expect("EXPECT"),
        });
    }
    out
}

/// Runs `rebuild-chain --api-view` on a fixture under its recorded conditions, with `extra`.
fn run_view(v: &View, extra: &[&str]) -> String {
    let mut c = clean();
    c.current_dir(model_dir());
    for (k, val) in &v.env {
        c.env(k, val);
    }
    c.args(["-q", "rebuild-chain", "--api-view", "--prompt", &v.prompt]);
    c.args(&v.args).args(extra).arg(format!("{}.jsonl", v.name));
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        v.name,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_file(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

#[test]
fn every_model_fixture_equals_the_real_clients_request_and_body() {
    let views = views();
    // Each case of the model rule, of the thinking policy and of the request fields; a missing
    // recording fails below (record it with scripts/refresh-expected.sh --write NAME).
    assert!(views.len() >= 30, "{} fixtures", views.len());
    for v in &views {
        let sent = json_file(&model_dir().join(format!("{}.sent.json", v.name)));
        let got = Value::Array(records(&run_view(v, &[])));
        assert_eq!(got, sent, "{}: messages", v.name);

        let body = json_file(&model_dir().join(format!("{}.body.json", v.name)));
        let got: Value = serde_json::from_str(&run_view(v, &["--body"])).unwrap();
        assert_eq!(got, body, "{}: body", v.name);

        let rec = records(&run_view(v, &["--json"])).pop().unwrap();
        assert_eq!(rec["kind"], "api_view");
        assert_eq!(rec["model"], body["model"], "{}", v.name);
        assert_eq!(rec["model_choice"], v.expect.as_str(), "{}", v.name);
    }
}

#[test]
fn the_body_keeps_the_clients_key_order_and_places_system_messages() {
    let views = views();
    let v = views.iter().find(|v| v.name == "retired_proxy").unwrap();
    let body = run_view(v, &["--body"]);
    assert_eq!(body.lines().count(), 1, "one JSON object");
    let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&body)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        keys,
        [
            "model",
            "messages",
            "max_tokens",
            "thinking",
            "context_management",
            "output_config"
        ]
    );
    let b: Value = serde_json::from_str(&body).unwrap();
    let roles: Vec<&str> = b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles.first(), Some(&"user"));
    assert_eq!(roles[1], "system", "after the first message: {roles:?}");
    assert_eq!(roles.last(), Some(&"system"));
    assert_eq!(b["messages"][1]["output_config"]["effort"], "medium");
}

/// `--as-of` at `t` on the Sonnet 4.5 fixture, in time zone `tz`.
fn choice_at(t: &str, tz: &str) -> String {
    let out = clean()
        .env("TZ", tz)
        .args([
            "rebuild-chain",
            "--api-view",
            "--json",
            "--settings",
            "/dev/null",
            "--as-of",
            t,
        ])
        .arg(model_dir().join("tz_before_local_midnight.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rec = records(&String::from_utf8(out.stdout).unwrap()).pop().unwrap();
    rec["model_choice"].as_str().unwrap().to_string()
}

#[test]
fn as_of_and_tz_change_the_model_exactly_at_local_midnight() {
    // Sonnet 4.5 is retired from local midnight starting 2026-11-30.
    assert_eq!(choice_at("2026-11-29T23:59:59.999Z", "UTC"), "restored");
    assert_eq!(choice_at("2026-11-30T00:00:00Z", "UTC"), "restored", "midnight itself");
    assert_eq!(choice_at("2026-11-30T00:00:00.001Z", "UTC"), "retired → default");
    // Los Angeles (UTC-8 in November): midnight there is 08:00Z. An IANA name when the
    // system has the zone database, the same rule as a POSIX TZ string everywhere.
    let mut zones = vec!["PST8PDT,M3.2.0,M11.1.0"];
    if Path::new("/usr/share/zoneinfo/America/Los_Angeles").exists() {
        zones.push("America/Los_Angeles");
    }
    for la in zones {
        assert_eq!(choice_at("2026-11-30T00:00:30Z", la), "restored", "{la}");
        assert_eq!(choice_at("2026-11-30T07:59:59.999Z", la), "restored", "{la}");
        assert_eq!(choice_at("2026-11-30T08:00:00.001Z", la), "retired → default", "{la}");
        // A local time without an offset is read in the time zone.
        assert_eq!(choice_at("2026-11-29T23:59:59", la), "restored", "{la}");
        assert_eq!(choice_at("2026-11-30T00:00:01", la), "retired → default", "{la}");
    }
    // East of UTC the flip comes before UTC midnight.
    assert_eq!(choice_at("2026-11-29T14:59:59Z", "JST-9"), "restored");
    assert_eq!(choice_at("2026-11-29T15:00:01Z", "JST-9"), "retired → default");
}

#[test]
fn the_text_view_states_the_model_the_policy_and_the_assumptions() {
    let views = views();
    let v = views.iter().find(|v| v.name == "settings_fallback").unwrap();
    let text = run_view(v, &["--format", "text"]);
    let head: Vec<&str> = text.lines().take(5).collect();
    assert_eq!(head[0], "── request · Claude Code 2.1.332");
    assert_eq!(
        head[1],
        "model claude-opus-4-6 (retired → settings; the session's model is claude-sonnet-4-5-20250929)"
    );
    assert_eq!(
        head[2],
        "the client notes: Session model claude-sonnet-4-5-20250929 could not be restored (retired) — using claude-opus-4-6 instead."
    );
    assert_eq!(
        head[3],
        "thinking of other models: none (base URL http://127.0.0.1:9 is not Anthropic's own API)"
    );
    assert!(
        head[4].starts_with(
            "assuming: at 2026-11-30T12:00:00Z (UTC), provider firstParty, base URL http://127.0.0.1:9, settings: given settings_fallback.settings.json (read); default model claude-opus-5-5"
        ),
        "{}",
        head[4]
    );
    let rec = records(&run_view(v, &["--json"])).pop().unwrap();
    let a = &rec["assumptions"];
    assert_eq!(a["as_of"], "2026-11-30T12:00:00Z");
    assert_eq!(a["time_zone"], "UTC");
    assert_eq!(a["base_url"], "http://127.0.0.1:9");
    assert_eq!(a["base_url_from"], "--base-url");
    assert_eq!(a["settings_model"], "claude-opus-4-6");
    assert_eq!(rec["session_model"], "claude-sonnet-4-5-20250929");
    assert_eq!(rec["session_model_retires"], "2026-11-30");
    assert_eq!(rec["thinking_policy"], "none");
}

#[test]
fn the_users_own_configuration_is_read_by_default() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        r#"{"model":"claude-opus-4-7","env":{"ANTHROPIC_BASE_URL":"https://gateway.example.com"}}"#,
    )
    .unwrap();
    let file = model_dir().join("settings_fallback.jsonl");
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut c = clean();
        c.env("HOME", home.path());
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c
            .args([
                "rebuild-chain",
                "--api-view",
                "--json",
                "--as-of",
                "2026-11-30T12:00:00Z",
            ])
            .args(extra)
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        records(&String::from_utf8(out.stdout).unwrap()).pop().unwrap()
    };
    let r = run(&[], &[]);
    assert_eq!(
        r["model"], "claude-opus-4-7",
        "the user's model setting is the fallback"
    );
    assert_eq!(r["thinking_policy"], "none", "the settings' env sets the base URL");
    assert_eq!(r["assumptions"]["base_url_from"], "settings env");
    assert_eq!(r["assumptions"]["settings"][0]["status"], "read");
    // CLAUDE_CONFIG_DIR moves the user settings; explicit options win.
    let r = run(&[], &[("CLAUDE_CONFIG_DIR", "/nonexistent-config")]);
    assert_eq!(r["model"], "claude-opus-5-5");
    assert_eq!(r["thinking_policy"], "all");
    let r = run(&["--base-url", "https://api.anthropic.com"], &[]);
    assert_eq!(r["thinking_policy"], "all");
    let r = run(&["--thinking-policy", "upgrade"], &[]);
    assert_eq!(r["thinking_policy"], "upgrade");
    let r = run(&[], &[("ANTHROPIC_MODEL", "claude-haiku-4-5")]);
    assert_eq!(
        (r["model"].as_str(), r["model_choice"].as_str()),
        (Some("claude-haiku-4-5"), Some("explicit"))
    );
    assert_eq!(r["assumptions"]["explicit"], "ANTHROPIC_MODEL=claude-haiku-4-5");
}

#[test]
fn bad_resume_options_are_usage_errors() {
    let file = model_dir().join("restored.jsonl");
    let f = file.to_str().unwrap();
    let bad_json = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(bad_json.path(), "{not json").unwrap();
    for (args, says) in [
        (
            vec!["rebuild-chain", "--api-view", "--as-of", "next tuesday", f],
            "--as-of next tuesday",
        ),
        (
            vec![
                "rebuild-chain",
                "--api-view",
                "--settings",
                bad_json.path().to_str().unwrap(),
                f,
            ],
            "invalid JSON",
        ),
        (
            vec!["rebuild-chain", "--as-of", "2026-11-30", f],
            "use them with --api-view",
        ),
        (vec!["rebuild-chain", "--body", f], "--api-view"),
        (vec!["doctor", "--as-of", "soon", f], "--as-of soon"),
        (
            vec!["scan", "--settings", "/nonexistent/s.json", f],
            "/nonexistent/s.json",
        ),
    ] {
        let out = clean().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

fn doctor_at(t: &str, name: &str, extra: &[&str]) -> Vec<Value> {
    let out = clean()
        .args(["doctor", "--json", "--settings", "/dev/null", "--as-of", t])
        .args(extra)
        .arg(model_dir().join(name))
        .output()
        .unwrap();
    records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding" && r["code"].as_str().is_some_and(|c| c.starts_with("session-model")))
        .collect()
}

#[test]
fn doctor_reports_retired_and_retiring_session_models() {
    let f = doctor_at(
        "2026-11-30T12:00:00Z",
        "retired_proxy.jsonl",
        &["--base-url", "http://127.0.0.1:9"],
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["code"], "session-model-retired");
    assert_eq!(f[0]["severity"], "warning");
    assert_eq!(f[0]["line"], 8, "the entry whose model decides");
    let m = f[0]["message"].as_str().unwrap();
    assert!(
        m.contains("claude-sonnet-4-5-20250929 is retired since 2026-11-30")
            && m.contains("sends claude-opus-5-5 instead (max_tokens 128000, adaptive thinking, effort medium)")
            && m.contains("the thinking of 2 assistant messages is removed (thinking policy none"),
        "{m}"
    );
    let kept = doctor_at(
        "2026-11-30T12:00:00Z",
        "retired_proxy.jsonl",
        &["--base-url", "https://api.anthropic.com"],
    );
    assert!(
        kept[0]["message"]
            .as_str()
            .unwrap()
            .contains("no thinking is removed (thinking policy all")
    );

    let soon = doctor_at("2026-11-29T12:00:00Z", "retired_proxy.jsonl", &[]);
    assert_eq!(soon.len(), 1);
    assert_eq!(soon[0]["code"], "session-model-retiring");
    assert_eq!(soon[0]["severity"], "info");
    assert!(
        soon[0]["message"]
            .as_str()
            .unwrap()
            .contains("retires on 2026-11-30 (local midnight, in 1 day)")
    );
    // 30 days ahead is reported, 31 is not.
    let opus = "restored.jsonl";
    assert_eq!(doctor_at("2026-12-23T00:00:00Z", opus, &[]).len(), 1);
    assert!(
        doctor_at("2026-12-23T00:00:00Z", opus, &[])[0]["message"]
            .as_str()
            .unwrap()
            .contains("in 30 days")
    );
    assert!(doctor_at("2026-12-21T23:59:59Z", opus, &[]).is_empty());
    // An explicit model makes the session's own irrelevant.
    assert!(doctor_at("2026-11-30T12:00:00Z", "retired_proxy.jsonl", &["--model", "opus"]).is_empty());
}

#[test]
fn scan_shows_the_model_a_resume_would_use() {
    let out = clean()
        .args([
            "scan",
            "--json",
            "--settings",
            "/dev/null",
            "--as-of",
            "2026-11-30T12:00:00Z",
        ])
        .arg(model_dir())
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(out.stdout).unwrap());
    let model = |name: &str| {
        let r = recs
            .iter()
            .find(|r| {
                r["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with(&format!("/{name}.jsonl")))
            })
            .unwrap();
        (
            r["resume_model"].as_str().unwrap().to_string(),
            r["resume_model_choice"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(
        model("retired_proxy"),
        ("claude-opus-5-5".into(), "retired → default".into())
    );
    assert_eq!(
        model("restored"),
        ("claude-opus-4-5-20251101".into(), "restored".into())
    );
    let table = clean()
        .args(["scan", "--settings", "/dev/null", "--as-of", "2026-11-29T12:00:00Z"])
        .arg(model_dir().join("retired_proxy.jsonl"))
        .output()
        .unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.lines().next().unwrap().contains("model"), "{text}");
    assert!(text.contains("sonnet-4-5"), "{text}");
}

// ---- the shared samples at every date and mode --------------------------------------------

/// Canonical JSON as Python's `json.dumps(v, sort_keys=True, separators=(",", ":"))` writes it.
fn canonical(v: &Value, out: &mut String) {
    crate::util::sorted_json(v, &python_scalar, out);
}

/// A string, number, boolean or null as Python's `json.dumps` writes it (ASCII only).
fn python_scalar(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&i.to_string()),
            (None, Some(u), _) => out.push_str(&u.to_string()),
            (_, _, Some(f)) => out.push_str(&python_float(f)),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            out.push_str(&format!("\\u{u:04x}"));
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        Value::Array(_) | Value::Object(_) => crate::util::sorted_json(v, &python_scalar, out),
    }
}

/// Python's `repr` of a float: the shortest round-trip digits, in exponent form below 1e-4
/// and from 1e16.
fn python_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let sci = format!("{f:e}");
    let (mant, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

fn fnv1a64(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// (model, messages, thinking blocks, hash) of a request, as `scripts/claude-request.py
/// fingerprint` computes it from the real one.
fn fingerprint(model: &str, messages: &[Value]) -> (String, usize, usize, String) {
    let thinking = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")))
        .count();
    let mut s = String::new();
    canonical(&Value::Array(messages.to_vec()), &mut s);
    (model.to_string(), messages.len(), thinking, fnv1a64(s.as_bytes()))
}

#[test]
fn fingerprints_hash_as_the_recorder_does() {
    // Values computed with scripts/claude-request.py's canonical form and hash.
    let msgs = vec![
        serde_json::json!({"role": "user", "content": [{"type": "text", "text": "é \u{1F600}\n\"x\""}], "n": 1.5}),
    ];
    let mut s = String::new();
    canonical(&Value::Array(msgs.clone()), &mut s);
    assert_eq!(
        s,
        r#"[{"content":[{"text":"\u00e9 \ud83d\ude00\n\"x\"","type":"text"}],"n":1.5,"role":"user"}]"#
    );
    assert_eq!(fnv1a64(b""), "cbf29ce484222325");
    assert_eq!(fnv1a64(b"a"), "af63dc4c8601ec8c");
    assert_eq!(python_float(1e-5), "1e-05");
    assert_eq!(python_float(1e16), "1e+16");
    assert_eq!(python_float(100.0), "100.0");
    assert_eq!(python_float(0.0001), "0.0001");
}

/// One row of `fixtures/claude/shared-requests.tsv`.
struct Row {
    sample: String,
    date: String,
    mode: String,
    want: (String, usize, usize, String),
}

fn matrix() -> Vec<Row> {
    let text = std::fs::read_to_string(fixture("claude/shared-requests.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("sample\t"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 7, "{l}");
            Row {
                sample: c[0].into(),
                date: c[1].into(),
                mode: c[2].into(),
                want: (c[3].into(), c[4].parse().unwrap(), c[5].parse().unwrap(), c[6].into()),
            }
        })
        .collect()
}

/// The request cctool emulates for a row, through the library (the CLI is the same code;
/// loading each file once keeps the matrix fast).
fn emulate(
    t: &cctool::agents::claude_code::chain::Transcript,
    chain: &cctool::agents::claude_code::chain::Chain,
    src: &cctool::io::Source,
    date: &str,
    mode: &str,
) -> (String, Vec<Value>) {
    use cctool::agents::claude_code::config::{Config, Overrides};
    let cfg = Config::load(
        &Overrides {
            as_of: Some(format!("{date}T12:00:00Z")),
            settings: Some("/dev/null".into()),
            base_url: Some(
                match mode {
                    "proxy" => "http://127.0.0.1:9",
                    _ => "https://api.anthropic.com",
                }
                .into(),
            ),
            ..Overrides::default()
        },
        None,
        &|k| (k == "TZ").then(|| "UTC".to_string()),
    )
    .unwrap();
    let rm = cctool::agents::claude_code::model::choose(t, chain, src, &cfg).unwrap();
    let view = cctool::agents::claude_code::api::api_view(t, chain, src, Some("say ok"), &rm).unwrap();
    let msgs = view.messages().map(|m| serde_json::from_str(&m).unwrap()).collect();
    (rm.model, msgs)
}

#[test]
fn shared_samples_equal_the_recorded_requests_at_every_date_and_mode() {
    let Some(dir) = shared("") else { return };
    let rows = matrix();
    assert!(rows.len() >= 8 * 60, "{} rows", rows.len());
    let mut by_file: std::collections::BTreeMap<&str, Vec<&Row>> = Default::default();
    for r in &rows {
        by_file.entry(&r.sample).or_default().push(r);
    }
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for (sample, rows) in by_file {
        let path = dir.join(sample);
        let src = cctool::io::Source::open_path(&path, cctool::io::MmapChoice::Never).unwrap();
        let Ok(t) = cctool::agents::claude_code::chain::read(&src) else {
            panic!("{sample}: not readable");
        };
        let chain = t
            .rebuild(&cctool::agents::claude_code::chain::Options::default())
            .unwrap_or_default();
        for r in rows {
            if r.want.0 == "no-request" {
                continue;
            }
            let (model, msgs) = emulate(&t, &chain, &src, &r.date, &r.mode);
            let got = fingerprint(&model, &msgs);
            compared += 1;
            assert_eq!(
                (&got.0, got.2),
                (&r.want.0, r.want.2),
                "{sample} at {} ({}): the request model and the thinking kept",
                r.date,
                r.mode
            );
            if got != r.want {
                mismatches.push(format!("{sample} {} {}: {got:?} != {:?}", r.date, r.mode, r.want));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

// ---- the real client, when installed --------------------------------------------------------

/// The real-client harness: `CCTOOL_HARNESS`, the project's own, or the shared one; `None`
/// when it or the client is not installed.
fn harness() -> Option<PathBuf> {
    let installed = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")))
        .is_some_and(|h| {
            h.join("cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
                .exists()
        });
    let dir = std::env::var_os("CCTOOL_HARNESS")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root().join("scripts/realclient"),
            root().join("../shared/tools/realclient"),
        ])
        .find(|d| d.join("cc-resume-view.sh").exists())?;
    installed.then_some(dir)
}

#[test]
fn the_date_and_time_zone_cases_match_the_installed_real_client() {
    let Some(h) = harness() else {
        skip_notice("Claude Code 2.1.332 is not installed (realclient harness)");
        return;
    };
    if !faketime() {
        return;
    }
    let views = views();
    for name in [
        "tz_before_local_midnight",
        "tz_after_local_midnight",
        "retired_proxy",
        "retired_first_party",
        "settings_fallback",
    ] {
        let v = views.iter().find(|v| v.name == name).unwrap();
        let text = std::fs::read_to_string(model_dir().join(format!("{name}.view"))).unwrap();
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .unwrap_or("")
        };
        let settings = match get("VIEW_SETTINGS") {
            "" => String::new(),
            f => std::fs::read_to_string(model_dir().join(f)).unwrap(),
        };
        let out = Command::new("bash")
            .arg(h.join("cc-resume-view.sh"))
            .arg(model_dir().join(format!("{name}.jsonl")))
            .arg(&v.prompt)
            .env("VIEW_DATE", get("VIEW_DATE"))
            .env("VIEW_ENV", get("VIEW_ENV"))
            .env("VIEW_SETTINGS", settings)
            .env("CC_EXTRA_ARGS", get("CC_EXTRA_ARGS"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
        let live = crate::api_view::normalise(&sent);
        assert_eq!(Value::Array(records(&run_view(v, &[]))), Value::Array(live), "{name}");
    }
    // Today, as the client decides it now and cctool does by default, in both modes.
    for (name, env, url) in [
        ("retired_proxy", "", "http://127.0.0.1:9"),
        (
            "restored",
            "_CLAUDE_CODE_ASSUME_FIRST_PARTY_BASE_URL=1",
            "https://api.anthropic.com",
        ),
    ] {
        let file = model_dir().join(format!("{name}.jsonl"));
        let out = Command::new("bash")
            .arg(h.join("cc-resume-view.sh"))
            .arg(&file)
            .arg("say ok")
            .env("VIEW_ENV", env)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let live = crate::api_view::normalise(&serde_json::from_slice(&out.stdout).unwrap());
        let ours = clean()
            .args([
                "-q",
                "rebuild-chain",
                "--api-view",
                "--prompt",
                "say ok",
                "--settings",
                "/dev/null",
            ])
            .args(["--base-url", url])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            Value::Array(records(&String::from_utf8(ours.stdout).unwrap())),
            Value::Array(live),
            "{name} today"
        );
    }
}
