//! `hooks install|uninstall|run`: one copy however often installed, the settings file's other
//! content kept exactly, nothing on stdout and exit 0 whatever the hook is given, summaries
//! archived and read back by `extract-summary`.

use serde_json::Value;

use crate::backup::{Stores, generate};

/// A user's Claude Code settings in Claude Code's own layout, with hooks of their own.
const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  },
  "hooks": {
    "PreCompact": [
      {
        "matcher": "manual",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send compacting"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  },
  "cleanupPeriodDays": 90
}
"#;

const CODEX_CONFIG: &str = "# Codex settings\nmodel = \"gpt-5.5\"   # the default\n\n[features]\nweb_search = true\n\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"say done\" }]\n\n[tui]\n# keep it dark\ntheme = \"dark\"\n";

fn run_ok(st: &Stores, args: &[&str]) -> String {
    let out = st.cmd().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn claude_code_hooks_install_once_and_uninstall_exactly() {
    let st = generate(1);
    let settings = st.claude().join("settings.json");
    std::fs::write(&settings, CLAUDE_SETTINGS).unwrap();
    let said = run_ok(&st, &["hooks", "install", "claude-code"]);
    assert!(said.contains("added hooks for PreCompact and PostCompact"), "{said}");
    assert_eq!(
        std::fs::read_to_string(st.claude().join("settings.json.cctool-hooks.bak")).unwrap(),
        CLAUDE_SETTINGS
    );
    let once = std::fs::read_to_string(&settings).unwrap();
    let said = run_ok(&st, &["hooks", "install", "claude-code"]);
    assert!(said.contains("already there; not changed"), "{said}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    let v: Value = serde_json::from_str(&once).unwrap();
    let ours = |ev: &str| {
        v["hooks"][ev]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().ends_with(" hooks run claude-code"))
            .count()
    };
    assert_eq!((ours("PreCompact"), ours("PostCompact")), (1, 1));
    // The user's own PreCompact hook and everything else are still there, in order.
    assert_eq!(
        v["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "notify-send compacting"
    );
    assert_eq!(v["cleanupPeriodDays"], 90);
    run_ok(&st, &["hooks", "uninstall", "claude-code"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
    let said = run_ok(&st, &["hooks", "uninstall", "claude-code"]);
    assert!(said.contains("no hooks of cctool's in it; not changed"), "{said}");
}

#[test]
fn codex_hooks_keep_every_other_key_and_comment() {
    let st = generate(1);
    let config = st.codex().join("config.toml");
    std::fs::write(&config, CODEX_CONFIG).unwrap();
    run_ok(&st, &["hooks", "install", "codex", "--to", "/tmp/arch ive"]);
    run_ok(&st, &["hooks", "install", "codex"]);
    let text = std::fs::read_to_string(&config).unwrap();
    // Every line of the user's file is still there, in order; ours sit with the other hooks.
    let mut rest = text.lines();
    for line in CODEX_CONFIG.lines() {
        assert!(rest.any(|l| l == line), "{line:?} lost in {text}");
    }
    assert_eq!(
        text.matches(" hooks run codex --to '/tmp/arch ive'").count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("[[hooks.PreCompact]]\nhooks = [{ type = \"command\", command = "),
        "{text}"
    );
    run_ok(&st, &["hooks", "uninstall", "codex"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), CODEX_CONFIG);
    // The project's own file, created when missing.
    run_ok(&st, &["hooks", "install", "codex", "--scope", "project"]);
    assert!(st.dir.path().join(".codex/config.toml").is_file());
}

fn hook(st: &Stores, agent: &str, input: &str) {
    let out = st
        .cmd()
        .args(["hooks", "run", agent])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn post_compact_archives_the_summary_and_extract_summary_reads_it() {
    let st = generate(1);
    let transcript = &st.sessions[0];
    let id = transcript.file_stem().unwrap().to_str().unwrap();
    let boundary = serde_json::json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":48213},"uuid":"b0000000-0000-4000-8000-000000000001","timestamp":"2026-03-01T11:00:00.000Z","sessionId":id});
    let mut f = std::fs::OpenOptions::new().append(true).open(transcript).unwrap();
    std::io::Write::write_all(&mut f, format!("{boundary}\n").as_bytes()).unwrap();
    let input = serde_json::json!({
        "session_id": id, "transcript_path": transcript, "cwd": "/home/me/proj0",
        "hook_event_name": "PostCompact", "trigger": "manual",
        "compact_summary": "<summary>\n1. Primary Request: fix the build\n</summary>"
    });
    hook(&st, "claude-code", &input.to_string());
    let file = st.archive().join("summaries/claude-code").join(format!("{id}.jsonl"));
    let rec: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(rec["kind"], "archived_summary");
    assert_eq!(rec["session_id"], id);
    assert_eq!(rec["trigger"], "manual");
    assert_eq!(rec["pre_tokens"], 48213);
    assert_eq!(
        rec["summary"],
        "<summary>\n1. Primary Request: fix the build\n</summary>"
    );
    let out = st
        .cmd()
        .args(["extract-summary", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let recs: Vec<Value> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert_eq!(recs[0]["kind"], "summary");
    assert_eq!(recs[0]["format"], "archived");
    assert_eq!(recs[0]["current"], true);
    assert_eq!(recs[0]["pre_tokens"], 48213);
    assert_eq!(recs[0]["summary"], rec["summary"]);
    assert_eq!(recs[1]["kind"], "total");
    assert_eq!(recs[1]["summaries"], 1);
}

#[test]
fn codex_post_compact_takes_the_summary_from_the_rollout() {
    let st = generate(1);
    let day = st.codex().join("sessions/2026/03/01");
    let rollout = std::fs::read_dir(&day).unwrap().next().unwrap().unwrap().path();
    let lines = [
        serde_json::json!({"timestamp":"2026-03-01T09:05:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":90000},"last_token_usage":{"total_tokens":61234}}}}),
        serde_json::json!({"timestamp":"2026-03-01T09:05:01.000Z","type":"compacted","payload":{"message":"Summary of the work so far.","replacement_history":[]}}),
    ];
    let mut f = std::fs::OpenOptions::new().append(true).open(&rollout).unwrap();
    for l in lines {
        std::io::Write::write_all(&mut f, format!("{l}\n").as_bytes()).unwrap();
    }
    let input = serde_json::json!({"session_id":"t1","transcript_path":rollout,"cwd":"/x","hook_event_name":"PostCompact","model":"gpt-5.5","trigger":"auto","turn_id":"u1"});
    hook(&st, "codex", &input.to_string());
    let rec: Value =
        serde_json::from_slice(&std::fs::read(st.archive().join("summaries/codex/t1.jsonl")).unwrap()).unwrap();
    assert_eq!(rec["summary"], "Summary of the work so far.");
    assert_eq!(rec["pre_tokens"], 61234);
    assert_eq!(rec["trigger"], "auto");
}

#[test]
fn pre_compact_backs_up_the_transcript_and_bad_input_only_reaches_the_log() {
    let st = generate(2);
    let transcript = &st.sessions[1];
    let input = serde_json::json!({"session_id":"x","transcript_path":transcript,"cwd":"/","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null});
    hook(&st, "claude-code", &input.to_string());
    let listed = st.cmd().args(["restore", "--json"]).output().unwrap().stdout;
    let recs: Vec<Value> = listed
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["path"], transcript.to_str().unwrap());
    assert_eq!(recs[0]["same"], true);
    for bad in [
        "not json",
        "",
        "{\"hook_event_name\":\"PostCompact\",\"transcript_path\":\"/nonexistent/x.jsonl\"}",
    ] {
        hook(&st, "codex", bad);
    }
    let log = std::fs::read_to_string(st.archive().join("hooks.log")).unwrap();
    assert_eq!(
        log.matches("codex error: the hook input is not JSON").count(),
        2,
        "{log}"
    );
    assert_eq!(log.lines().count(), 4, "{log}");
}

/// The run folder the harness kept (`VIEW_KEEP=1`), from what it said on stderr.
fn kept_run(said: &str) -> std::path::PathBuf {
    said.lines()
        .find_map(|l| l.split("run directory kept: ").nth(1))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| panic!("no run folder: {said}"))
}

/// The first session file under `dir`: the one the client resumed in its isolated store.
fn first_jsonl(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.into_path())
}

/// Claude Code's own template around the summary the model wrote: the analysis dropped and
/// `<summary>X</summary>` written as `Summary:\nX` (docs/backup.md).
fn as_claude_code_writes_it(raw: &str) -> String {
    let mut s = raw.to_string();
    if let (Some(a), Some(b)) = (s.find("<analysis>"), s.find("</analysis>")) {
        s.replace_range(a..b + "</analysis>".len(), "");
    }
    if let (Some(a), Some(b)) = (s.find("<summary>"), s.find("</summary>")) {
        let inner = s[a + "<summary>".len()..b].trim().to_string();
        s.replace_range(a..b + "</summary>".len(), &format!("Summary:\n{inner}"));
    }
    s.trim().to_string()
}

#[test]
fn real_claude_code_compact_archives_the_summary_it_writes() {
    let Some(script) = crate::util::realclient(crate::util::Client::ClaudeCode) else {
        return;
    };
    let archive = tempfile::tempdir().unwrap();
    let cmd = format!(
        "'{}' hooks run claude-code --to '{}'",
        env!("CARGO_BIN_EXE_cctool"),
        archive.path().display()
    );
    let group = serde_json::json!([{"hooks": [{"type": "command", "command": cmd}]}]);
    let settings = serde_json::json!({"hooks": {"PreCompact": group, "PostCompact": group}});
    let raw = "<analysis>The user asked for the README block.</analysis>\n<summary>1. Primary Request: show the README's example block.\n2. Pending: nothing.</summary>";
    let out = std::process::Command::new(&script)
        .arg(crate::util::fixture("claude/render.jsonl"))
        .arg("/compact")
        .env("VIEW_SETTINGS", settings.to_string())
        .env("MOCK_REPLY", raw)
        .env("VIEW_KEEP", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let run = kept_run(&said);
    let transcript = first_jsonl(&run.join("home/.claude/projects")).expect("the resumed transcript");
    let stripped = crate::util::cctool()
        .args(["extract-summary", "--strip-template", "--current", "--json"])
        .arg(&transcript)
        .output()
        .unwrap();
    let written: Value = serde_json::from_slice(stripped.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    let id = "5e551000-0000-4000-8000-0000000000d0";
    let archived = std::fs::read(archive.path().join(format!("summaries/claude-code/{id}.jsonl")));
    let log = std::fs::read_to_string(archive.path().join("hooks.log")).unwrap_or_default();
    let pre_compact_snapshot = std::fs::read_dir(archive.path().join("snapshots")).map_or(0, |d| d.count());
    let _ = std::fs::remove_dir_all(&run);
    let rec: Value =
        serde_json::from_slice(&archived.unwrap_or_else(|e| panic!("no summary archived ({e}); log: {log}"))).unwrap();
    assert_eq!(rec["session_id"], id);
    assert_eq!(rec["trigger"], "manual");
    assert_eq!(rec["summary"], raw, "the hook is given the model's own text");
    let in_transcript = written["summary"].as_str().unwrap();
    assert!(
        in_transcript.ends_with(&as_claude_code_writes_it(raw)),
        "{in_transcript:?} does not end with the archived summary"
    );
    assert_eq!(
        pre_compact_snapshot, 1,
        "PreCompact backed up the transcript; log: {log}"
    );
}

/// A Codex rollout of a few turns whose last token count is over the auto-compaction limit the
/// test sets: resumed, Codex compacts before it samples. Its provider is one of its own (a
/// Responses provider the harness points at the mock), so Codex compacts locally, asking the
/// model for the summary, rather than through OpenAI's remote compaction.
fn rollout_due_for_compaction(dir: &std::path::Path) -> std::path::PathBuf {
    let id = "019e0000-0000-7000-8000-00000000c0de";
    let ts = "2026-11-30T10:00:00.000Z";
    let mut lines = vec![serde_json::json!({"timestamp": ts, "type": "session_meta", "payload": {
        "id": id, "timestamp": ts, "cwd": "/work/app", "originator": "codex_cli_rs",
        "cli_version": "0.171.0", "model_provider": "cctool-mock"}})];
    for i in 0..4 {
        lines.push(
            serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": format!("Step {i}: add retries to the HTTP client.")}]}}),
        );
        lines.push(serde_json::json!({"timestamp": ts, "type": "event_msg", "payload": {
            "type": "user_message", "message": format!("Step {i}: add retries to the HTTP client."), "images": []}}));
        lines.push(
            serde_json::json!({"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("Done with step {i}.")}]}}),
        );
    }
    lines.push(
        serde_json::json!({"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count",
        "info": {"total_token_usage": {"input_tokens": 60000, "cached_input_tokens": 0, "output_tokens": 900,
            "reasoning_output_tokens": 0, "total_tokens": 60900},
            "last_token_usage": {"input_tokens": 60000, "cached_input_tokens": 0, "output_tokens": 900,
            "reasoning_output_tokens": 0, "total_tokens": 60900},
            "model_context_window": 258400}}}),
    );
    let path = dir.join(format!("rollout-2026-11-30T10-00-00-{id}.jsonl"));
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, body).unwrap();
    path
}

/// Codex runs only reviewed hooks; `--dangerously-bypass-hook-trust` stands in for the user's
/// review here, and the auto-compaction limit is set low so that the resume compacts first.
#[test]
fn real_codex_compaction_runs_both_hooks_and_the_summary_archived_is_the_one_it_wrote() {
    let Some(script) = crate::util::realclient(crate::util::Client::Codex) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("archive");
    let home = tmp.path().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let installed = crate::util::cctool()
        .args(["hooks", "install", "codex", "--to"])
        .arg(&archive)
        .env("CODEX_HOME", &home)
        .output()
        .unwrap();
    assert_eq!(
        installed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    let hooks_toml = std::fs::read_to_string(home.join("config.toml")).unwrap();
    let rollout = rollout_due_for_compaction(tmp.path());
    let reply = "SUMMARY: retries were added to the HTTP client in four steps; nothing is pending.";
    let out = std::process::Command::new(&script)
        .arg(&rollout)
        .arg("say ok")
        .env("CODEX_CONFIG_EXTRA", &hooks_toml)
        .env("CODEX_AUTO_COMPACT_LIMIT", "2000")
        .env("CODEX_EXTRA_ARGS", "--dangerously-bypass-hook-trust")
        .env("MOCK_REPLY", reply)
        .env("VIEW_KEEP", "1")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let run = kept_run(&said);
    let resumed = first_jsonl(&run.join("codex-home/sessions")).expect("the resumed rollout");
    let written: Vec<String> = std::fs::read_to_string(&resumed)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "compacted")
        .filter_map(|r| r["payload"]["message"].as_str().map(str::to_string))
        .collect();
    let log = std::fs::read_to_string(archive.join("hooks.log")).unwrap_or_default();
    let archived = std::fs::read_to_string(archive.join("summaries/codex/019e0000-0000-7000-8000-00000000c0de.jsonl"));
    let snapshots = std::fs::read_dir(archive.join("snapshots")).map_or(0, |d| d.count());
    let _ = std::fs::remove_dir_all(&run);
    assert_eq!(written.len(), 1, "Codex compacted once on resume; client said: {said}");
    let archived = archived.unwrap_or_else(|e| panic!("no summary archived ({e}); log: {log}"));
    let rec: Value = serde_json::from_str(archived.lines().next().unwrap()).unwrap();
    assert_eq!(rec["trigger"], "auto");
    assert_eq!(rec["summary"].as_str(), Some(written[0].as_str()));
    assert!(written[0].contains(reply), "{:?}", written[0]);
    assert_eq!(snapshots, 1, "PreCompact backed up the rollout; log: {log}");
}

/// A user's Copilot CLI settings with a hook of their own in each of the client's two forms.
const COPILOT_SETTINGS: &str = r#"{
  "model": "gpt-5",
  "hooks": {
    "sessionEnd": [
      {
        "type": "command",
        "bash": "./log-end.sh"
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send bye"
          }
        ]
      }
    ]
  }
}
"#;

/// A Copilot CLI store with `settings.json` holding `settings` and one session.
fn copilot_case(command: &str, settings: &str) -> crate::case::Case {
    crate::case::Case::new(command)
        .env_path("COPILOT_HOME", "copilot-home")
        .file("copilot-home/settings.json", settings)
        .file(
            "copilot-home/session-state/ec97a334-ad63-460c-b67a-5d2afc9b274c/events.jsonl",
            std::fs::read(crate::util::fixture("copilot/real/two-resumes.jsonl")).unwrap(),
        )
}

#[test]
fn copilot_hooks_install_once_keep_the_user_s_hooks_and_uninstall_exactly() {
    let installed = copilot_case("hooks install copilot --command cctool", COPILOT_SETTINGS)
        .run()
        .code(0);
    assert!(
        installed
            .stderr()
            .contains("settings.json: added hooks for PreCompact and SessionEnd"),
        "{}",
        installed.shown()
    );
    let settings = installed.path("copilot-home/settings.json");
    let backup = installed.path("copilot-home/settings.json.cctool-hooks.bak");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), COPILOT_SETTINGS);
    let once = std::fs::read_to_string(&settings).unwrap();
    let v: Value = serde_json::from_str(&once).unwrap();
    assert_eq!(
        v["hooks"]["PreCompact"][0]["hooks"][0]["command"],
        "cctool hooks run copilot"
    );
    // The user's hooks stay first, ours after them; their own form (`sessionEnd`) untouched.
    assert_eq!(v["hooks"]["SessionEnd"][0]["hooks"][0]["command"], "notify-send bye");
    assert_eq!(
        v["hooks"]["SessionEnd"][1]["hooks"][0]["command"],
        "cctool hooks run copilot"
    );
    assert_eq!(v["hooks"]["sessionEnd"][0]["bash"], "./log-end.sh");
    let again = installed
        .then(crate::case::Case::new("hooks install copilot --command cctool").env_path("COPILOT_HOME", "copilot-home"))
        .code(0);
    assert!(
        again.stderr().contains("already there; not changed"),
        "{}",
        again.shown()
    );
    assert_eq!(
        std::fs::read_to_string(again.path("copilot-home/settings.json")).unwrap(),
        once
    );
    let removed = again
        .then(crate::case::Case::new("hooks uninstall copilot").env_path("COPILOT_HOME", "copilot-home"))
        .code(0);
    assert_eq!(
        std::fs::read_to_string(removed.path("copilot-home/settings.json")).unwrap(),
        COPILOT_SETTINGS
    );
}

#[test]
fn copilot_settings_that_are_not_json_are_refused_and_left_as_they_are() {
    let bad = "{\n  \"model\": \"gpt-5\",\n  \"hooks\": {\n";
    let run = copilot_case("hooks install copilot", bad).run();
    assert_ne!(run.status, Some(0), "{}", run.shown());
    assert!(
        run.stderr().contains("settings.json: not valid JSON (line"),
        "{}",
        run.shown()
    );
    assert_eq!(
        std::fs::read_to_string(run.path("copilot-home/settings.json")).unwrap(),
        bad
    );
    assert!(!run.path("copilot-home/settings.json.cctool-hooks.bak").exists());
    let hooks_not_object = copilot_case("hooks install copilot", "{\"hooks\": []}\n").run();
    assert!(
        hooks_not_object.stderr().contains("\"hooks\" is not an object"),
        "{}",
        hooks_not_object.shown()
    );
    let project = copilot_case("hooks install copilot --scope project", "{}").run();
    assert!(
        project
            .stderr()
            .contains("copilot: cctool installs its hooks in the user's settings only (--scope user)"),
        "{}",
        project.shown()
    );
    assert!(!project.path(".github").exists());
}

/// What the hook is given: the client's VS Code-compatible input, `SessionEnd` naming only the
/// session. The backup waits until the session's file has been left alone (here the caller, the
/// test, does not exit), so what the client writes after the hook is in it.
#[test]
fn copilot_session_end_backs_up_the_session_as_the_client_leaves_it() {
    let id = "ec97a334-ad63-460c-b67a-5d2afc9b274c";
    let rel = format!("copilot-home/session-state/{id}/events.jsonl");
    let end = serde_json::json!({"hook_event_name": "SessionEnd", "session_id": id, "timestamp": "2026-12-06T04:22:08.836Z", "cwd": "/w", "reason": "complete"});
    let ran = copilot_case("hooks run copilot", "{}")
        .stdin(end.to_string())
        .run()
        .code(0);
    assert_eq!((ran.stdout(), ran.stderr()), (String::new(), String::new()));
    // The events the client writes after its SessionEnd hook.
    let mut bytes = std::fs::read(ran.path(&rel)).unwrap();
    bytes.extend_from_slice(b"{\"type\":\"session.shutdown\",\"data\":{}}\n");
    std::fs::write(ran.path(&rel), &bytes).unwrap();
    let log = ran.path("home/.local/share/cctool/backup/hooks.log");
    let waited = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("copilot backed up")
    {
        assert!(
            waited.elapsed().as_secs() < 60,
            "no backup: {:?}",
            std::fs::read_to_string(&log)
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("is backed up once the agent (process "), "{text}");
    std::fs::remove_file(ran.path(&rel)).unwrap();
    let restored = ran
        .then(crate::case::Case::new(&format!("restore {id}")).env_path("COPILOT_HOME", "copilot-home"))
        .code(0);
    assert_eq!(
        std::fs::read(restored.path(&rel)).unwrap(),
        bytes,
        "{}",
        restored.shown()
    );
    // A session id that would climb out of the store names no file: the log says so.
    let climbing = serde_json::json!({"hook_event_name": "SessionEnd", "session_id": "../../x"});
    let refused = restored
        .then(
            crate::case::Case::new("hooks run copilot")
                .env_path("COPILOT_HOME", "copilot-home")
                .stdin(climbing.to_string()),
        )
        .code(0);
    let text = std::fs::read_to_string(refused.path("home/.local/share/cctool/backup/hooks.log")).unwrap();
    assert!(
        text.contains("copilot SessionEnd without a transcript: nothing to back up"),
        "{text}"
    );
}
