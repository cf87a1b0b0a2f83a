//! pi's sessions (`crates/pi`, docs/pi.md): told by their content, read by the client's rules
//! (the branch ending at the last entry, the latest compaction and its first kept entry), and
//! found in pi's store. What a resume loads is checked against pi itself in
//! `crates/pi/tests/context.rs`.

use serde_json::Value;

use crate::util::{cctool, fixture, records, root, stdout_of};

fn ids(args: &[&str]) -> Vec<String> {
    let mut all = vec!["-q", "rebuild-chain"];
    all.extend_from_slice(args);
    records(&stdout_of(&all))
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("-").to_string())
        .collect()
}

fn pi(name: &str) -> String {
    fixture(&format!("pi/{name}")).display().to_string()
}

#[test]
fn only_pi_files_are_read_as_pi_and_every_pi_fixture_is() {
    let out = cctool()
        .args(["scan", "--json", root().join("fixtures").to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut pi_files: Vec<String> = records(&stdout)
        .into_iter()
        .filter(|r| r["format"] == "pi")
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    pi_files.sort();
    let want: Vec<String> = [
        "basic",
        "branch",
        "compaction",
        "damaged",
        "extensions",
        "ran-builtins",
        "ran-compaction",
        "ran-loadout",
        "ran-plain",
        "ran-tools",
        "replay",
        "v1",
    ]
    .iter()
    .map(|n| pi(&format!("{n}.jsonl")))
    // A recorded conversion into pi (tests/cli/convert_clients.rs) is a pi session too.
    .chain([fixture("convert/recorded/compacted.claude.pi.jsonl")
        .display()
        .to_string()])
    .collect();
    let mut want = want;
    want.sort();
    assert_eq!(pi_files, want);
}

#[test]
fn a_resume_follows_the_branch_of_the_last_entry() {
    let got = ids(&[&pi("branch.jsonl")]);
    assert_eq!(
        got,
        ["c0000001", "c0000002", "c0000006", "c0000007", "c0000008", "c0000009"]
    );
    // --tip resumes the abandoned branch instead; --full shows the whole tree.
    let tip = ids(&["--tip", "c0000005", &pi("branch.jsonl")]);
    assert_eq!(tip, ["c0000001", "c0000002", "c0000003", "c0000004", "c0000005"]);
    assert_eq!(ids(&["--full", &pi("branch.jsonl")]).len(), 9);
}

#[test]
fn a_resume_starts_at_the_latest_compaction_and_keeps_from_its_first_kept_entry() {
    // The system message between the first kept entry and the compaction is left out.
    let got = ids(&[&pi("compaction.jsonl")]);
    assert_eq!(got, ["b0000007", "b0000004", "b0000006", "b0000008", "b0000009"]);
}

#[test]
fn summaries_are_extracted_exactly_as_stored() {
    let s: Vec<Value> = records(&stdout_of(&["extract-summary", "--json", &pi("compaction.jsonl")]))
        .into_iter()
        .filter(|r| r["kind"] == "summary")
        .collect();
    assert_eq!(s.len(), 1);
    assert_eq!(
        s[0]["summary"],
        "The user asked for haikus about rust and tin; both were written."
    );
    assert_eq!(s[0]["current"], true);
    assert_eq!(s[0]["line"], 8);
    assert_eq!(s[0]["pre_tokens"], 123456);
    assert_eq!(s[0]["boundary_uuid"], "b0000007");
}

#[test]
fn doctor_names_what_breaks_a_resume_with_its_line() {
    let out = cctool()
        .args(["doctor", "--json", &pi("damaged.jsonl")])
        .output()
        .unwrap();
    let found: Vec<(String, Option<u64>, String)> = records(&String::from_utf8(out.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding")
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
            (s("code"), r["line"].as_u64(), s("severity"))
        })
        .collect();
    let want = [
        ("missing-cwd", 1, "error"),
        ("invalid-json", 4, "error"),
        ("dangling-parent", 5, "info"),
        ("dangling-parent", 6, "error"),
        ("duplicate-uuid", 6, "warning"),
        ("first-kept-off-branch", 7, "warning"),
        ("truncated-last-line", 9, "warning"),
    ];
    for (code, line, severity) in want {
        assert!(
            found.contains(&(code.to_string(), Some(line), severity.to_string())),
            "{code} at line {line} ({severity}) not in {found:?}"
        );
    }
    // A sound session has no finding.
    let clean = stdout_of(&["doctor", "--json", &pi("basic.jsonl")]);
    assert!(!clean.contains("\"finding\""), "{clean}");
}

#[test]
fn scan_reads_title_project_model_and_compactions() {
    let r = &records(&stdout_of(&[
        "scan",
        "--json",
        &pi("branch.jsonl"),
        &pi("compaction.jsonl"),
    ]))[..2];
    let by = |n: &str| r.iter().find(|x| x["path"].as_str().unwrap().ends_with(n)).unwrap();
    assert_eq!(by("branch.jsonl")["title"], "Colours");
    assert_eq!(by("branch.jsonl")["leaves"], 2);
    assert_eq!(by("compaction.jsonl")["project"], "tmp");
    assert_eq!(by("compaction.jsonl")["compactions"], 1);
    assert_eq!(by("compaction.jsonl")["resume_model"], "mock-model");
    assert_eq!(by("compaction.jsonl")["chain_messages"], 5);
}

#[test]
fn scan_without_a_path_finds_pi_s_store_and_its_variables() {
    let home = tempfile::tempdir().unwrap();
    let store = home.path().join(".pi/agent/sessions/--tmp--");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::copy(
        fixture("pi/basic.jsonl"),
        store.join("2026-05-01T10-00-00-000Z_x.jsonl"),
    )
    .unwrap();
    let listed = |envs: &[(&str, &std::path::Path)]| {
        let mut c = cctool();
        c.env("HOME", home.path());
        envs.iter().for_each(|(k, v)| {
            c.env(k, v);
        });
        let out = c.args(["scan", "--json"]).output().unwrap();
        (
            records(&String::from_utf8(out.stdout).unwrap())
                .iter()
                .filter(|r| r["format"] == "pi")
                .count(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    assert_eq!(listed(&[]).0, 1);
    let moved = home.path().join("elsewhere");
    std::fs::create_dir_all(moved.join("sessions/--w--")).unwrap();
    std::fs::copy(fixture("pi/branch.jsonl"), moved.join("sessions/--w--/a.jsonl")).unwrap();
    std::fs::copy(fixture("pi/v1.jsonl"), moved.join("sessions/--w--/b.jsonl")).unwrap();
    assert_eq!(listed(&[("PI_CODING_AGENT_DIR", &moved)]).0, 2);
    let (n, err) = listed(&[("PI_CODING_AGENT_SESSION_DIR", &home.path().join("nope"))]);
    assert_eq!(n, 0);
    assert!(err.contains("no pi store at"), "{err}");
}

#[test]
fn rows_export_and_search_read_the_session_model() {
    let rows = records(&stdout_of(&[
        "scan",
        "--rows",
        "tool-calls",
        "--json",
        &pi("basic.jsonl"),
    ]));
    let calls: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(calls, ["bash", "read"], "{rows:?}");
    let md = stdout_of(&["export", &pi("compaction.jsonl")]);
    assert!(md.contains("Green skin on the roof"), "{md}");
    assert!(!md.contains("Iron sleeps in rain"), "a resume does not load it: {md}");
    let hits = stdout_of(&["search", "-l", "patina", &pi("compaction.jsonl"), &pi("basic.jsonl")]);
    assert_eq!(hits.lines().count(), 1, "{hits}");
    assert!(hits.contains("Write a haiku about rust."), "{hits}");
}

#[test]
fn an_older_session_is_read_as_the_client_migrates_it() {
    let out = stdout_of(&["-q", "rebuild-chain", &pi("v1.jsonl")]);
    let texts: Vec<String> = records(&out)
        .iter()
        .map(|r| {
            let m = &r["message"];
            m["content"][0]["text"]
                .as_str()
                .or(m["content"].as_str())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    // From the compaction (firstKeptEntryIndex 3: the second question) on.
    assert_eq!(texts[1], "Second question.");
    assert_eq!(texts.len(), 5);
}

/// The texts, call ids and result ids of the messages a resume of a pi file sends, in order,
/// as cctool reads it back (`rebuild-chain`).
fn resumed(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for r in records(&stdout_of(&["-q", "rebuild-chain", path])) {
        match r["type"].as_str() {
            Some("compaction") => out.push(format!("summary: {}", r["summary"].as_str().unwrap_or(""))),
            Some("message") => {
                let m = &r["message"];
                if m["role"] == "toolResult" {
                    out.push(format!("result {}", m["toolCallId"].as_str().unwrap_or("")));
                }
                for b in m["content"].as_array().into_iter().flatten() {
                    match b["type"].as_str() {
                        Some("text") => out.push(b["text"].as_str().unwrap_or("").to_string()),
                        Some("toolCall") => out.push(format!("call {} {}", b["id"], b["name"])),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn a_conversion_to_pi_is_a_pi_session_that_resumes_the_source_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.jsonl");
    let out_s = out.to_str().unwrap();
    let src = fixture("convert/compacted.claude.jsonl");
    stdout_of(&["-q", "convert", "--to", "pi", "-o", out_s, src.to_str().unwrap()]);
    let scan = records(&stdout_of(&["scan", "--json", out_s]));
    assert_eq!(scan[0]["format"], "pi", "{scan:?}");
    // The compaction comes first, keeping nothing before it as pi's own does; doctor is quiet.
    let got = resumed(out_s);
    assert!(got[0].starts_with("summary: "), "{got:?}");
    // The source's folder (/home/dev/app) is not on this machine: that finding is about the
    // machine, not the conversion.
    let doctor = cctool().args(["doctor", "--json", out_s]).output().unwrap();
    let findings: Vec<Value> = records(&String::from_utf8(doctor.stdout).unwrap())
        .into_iter()
        .filter(|r| r["kind"] == "finding" && r["code"] != "missing-cwd")
        .filter(|r| r["severity"] == "warning" || r["severity"] == "error")
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
    // A pi session converted to Codex and back resumes the same texts and calls.
    let codex = dir.path().join("c.jsonl");
    let back = dir.path().join("b.jsonl");
    let basic = pi("basic.jsonl");
    stdout_of(&["-q", "convert", "--to", "codex", "-o", codex.to_str().unwrap(), &basic]);
    stdout_of(&[
        "-q",
        "convert",
        "--to",
        "pi",
        "-o",
        back.to_str().unwrap(),
        codex.to_str().unwrap(),
    ]);
    let texts = |v: Vec<String>| -> Vec<String> { v.into_iter().filter(|t| !t.starts_with("call ")).collect() };
    let want = texts(resumed(&basic));
    let got = texts(resumed(back.to_str().unwrap()));
    assert_eq!(got, want);
}

#[test]
fn a_pi_session_is_not_converted_to_pi() {
    let out = cctool()
        .args(["convert", "--to", "pi", &pi("basic.jsonl")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn into_store_places_the_session_where_pi_finds_it_and_converting_again_adds_nothing() {
    let home = tempfile::tempdir().unwrap();
    let src = fixture("claude/parallel_tool_calls.jsonl");
    let run = || {
        let out = cctool()
            .env("HOME", home.path())
            .args(["convert", "--to", "pi", "--into-store", src.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (stdout, _) = run();
    let folder = home.path().join(".pi/agent/sessions/--home-dev-app--");
    let files: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    let header: Value =
        serde_json::from_str(std::fs::read_to_string(&files[0]).unwrap().lines().next().unwrap()).unwrap();
    let id = header["id"].as_str().unwrap();
    // Named as pi names a session: the time it started, then its id.
    assert_eq!(name, format!("2026-03-01T10-00-00-000Z_{id}.jsonl"));
    assert_eq!(stdout.trim(), format!("cd /home/dev/app && pi --session {id}"));
    let before = std::fs::read(&files[0]).unwrap();
    let (_, stderr) = run();
    assert_eq!(std::fs::read(&files[0]).unwrap(), before, "{stderr}");
}

/// The session id of `fixtures/pi/basic.jsonl`, and the name pi gives its file.
const BASIC_ID: &str = "019e0000-0000-7000-8000-000000000001";
const BASIC_FILE: &str =
    "home/.pi/agent/sessions/--tmp-x--/2026-05-01T10-00-00-000Z_019e0000-0000-7000-8000-000000000001.jsonl";

/// A scratch `HOME` with a pi store (one session named as pi names it, one whose name carries
/// no id) beside a Codex store, whose `sessions/` folder is named as pi's is.
fn pi_home(command: &str) -> crate::case::Case {
    // Its id made to share only its first 8 characters with the other's.
    let v1 = std::fs::read_to_string(fixture("pi/v1.jsonl")).unwrap().replacen(
        "019e0000-0000-7000",
        "019e0000-ffff-7000",
        1,
    );
    crate::case::Case::new(command)
        .file(BASIC_FILE, std::fs::read(fixture("pi/basic.jsonl")).unwrap())
        .file("home/.pi/agent/sessions/--tmp-y--/renamed.jsonl", v1)
        .fixture_at("store/.codex", "home/.codex")
}

#[test]
fn a_pi_session_id_that_scan_prints_is_accepted_as_input() {
    let scanned = pi_home("scan --json").run().code(0);
    let ids: Vec<String> = records(&String::from_utf8(scanned.stdout.clone()).unwrap())
        .iter()
        .filter(|r| r["format"] == "pi")
        .map(|r| r["session_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{}", scanned.shown());
    let want = std::fs::read(scanned.path(BASIC_FILE)).unwrap();
    for id in &ids {
        // The whole id, and a prefix only it has.
        for arg in [id.as_str(), &id[..13]] {
            let run = pi_home(&format!("rebuild-chain --full {arg}")).run().code(0);
            assert!(!run.stdout.is_empty(), "{}", run.shown());
            if id == BASIC_ID {
                assert_eq!(run.stdout, want[want.iter().position(|&b| b == b'\n').unwrap() + 1..]);
            }
        }
    }
    for command in [
        "export",
        "doctor --json",
        "extract-summary --json",
        "scan --rows messages --json",
    ] {
        pi_home(&format!("{command} {}", &BASIC_ID[..13])).run().code(0);
    }
    // A prefix both share names both, with their agent and project.
    let both = pi_home("rebuild-chain 019e0000").run().code(2);
    let err = both.stderr();
    assert!(err.contains("2 sessions have an id starting with it"), "{err}");
    assert!(err.contains("(pi, project tmp)"), "{err}");
}

#[test]
fn backup_keeps_pi_s_store_as_pi_s_and_restore_puts_it_back() {
    let run = pi_home("backup --json").run().code(0);
    let listed = run.then(crate::case::Case::new("restore --json")).code(0);
    let sessions = records(&listed.stdout());
    let agent_of = |id: &str| {
        sessions
            .iter()
            .find(|r| r["session_id"] == id)
            .map(|r| r["agent"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(agent_of(BASIC_ID).as_deref(), Some("pi"), "{}", listed.shown());
    assert_eq!(
        agent_of("019d2a29-fe67-7632-b14f-5419a515b120").as_deref(),
        Some("codex"),
        "{}",
        listed.shown()
    );
    let path = listed.path(BASIC_FILE);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let restored = listed
        .then(crate::case::Case::new(&format!("restore {BASIC_ID}")))
        .code(0);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", restored.shown());
    let to = restored
        .then(crate::case::Case::new(&format!("restore {} --to out", &BASIC_ID[..13])))
        .code(0);
    let under =
        to.path("out/pi/sessions/--tmp-x--/2026-05-01T10-00-00-000Z_019e0000-0000-7000-8000-000000000001.jsonl");
    assert_eq!(std::fs::read(under).unwrap(), bytes, "{}", to.shown());
}

#[test]
fn api_view_prints_the_request_pi_sends_a_message_a_line_or_whole() {
    let recorded: Value = serde_json::from_slice(&std::fs::read(fixture("pi/basic.sent.json")).unwrap()).unwrap();
    let lines = records(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--prompt",
        "say ok",
        &pi("basic.jsonl"),
    ]));
    assert_eq!(Value::Array(lines), recorded["messages"]);
    let body: Value = serde_json::from_str(&stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--body",
        "--prompt",
        "say ok",
        &pi("basic.jsonl"),
    ]))
    .unwrap();
    assert_eq!(body, recorded);
    let json = records(&stdout_of(&[
        "rebuild-chain",
        "--api-view",
        "--json",
        &pi("basic.jsonl"),
    ]));
    let last = json.last().unwrap();
    assert_eq!(last["format"], "pi", "{last}");
    assert_eq!(last["model"], "mock-model", "{last}");
    assert_eq!(last["client"], "pi 1.6.0", "{last}");
    assert_eq!(last["prompt"], false, "{last}");
    // Without --prompt the request ends with what the session holds.
    assert_eq!(
        last["messages"],
        recorded["messages"].as_array().unwrap().len() - 1,
        "{last}"
    );
    let text = stdout_of(&[
        "-q",
        "rebuild-chain",
        "--api-view",
        "--format",
        "text",
        &pi("basic.jsonl"),
    ]);
    assert!(text.contains("There are two entries"), "{text}");
}

#[test]
fn api_view_of_a_session_pi_1_6_0_ran_replays_its_prompt_and_tools() {
    for name in ["ran-plain", "ran-compaction", "replay"] {
        let recorded: Value =
            serde_json::from_slice(&std::fs::read(fixture(&format!("pi/{name}.sent.json"))).unwrap()).unwrap();
        // The harness resumed it in /tmp: the view is asked about the same folder.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join(format!("{name}.jsonl"));
        let text = std::fs::read_to_string(pi(&format!("{name}.jsonl"))).unwrap();
        let (head, rest) = text.split_once('\n').unwrap();
        let mut header: Value = serde_json::from_str(head).unwrap();
        header["cwd"] = "/tmp".into();
        std::fs::write(&copy, format!("{header}\n{rest}")).unwrap();
        let body: Value = serde_json::from_str(&stdout_of(&[
            "-q",
            "rebuild-chain",
            "--api-view",
            "--body",
            "--prompt",
            "say ok",
            copy.to_str().unwrap(),
        ]))
        .unwrap();
        assert_eq!(body, recorded, "{name}");
    }
}

#[test]
fn api_view_refuses_what_it_does_not_emulate_and_tip_or_full() {
    // A loadout naming a tool an extension registered: whether pi declares it again is not in
    // the file.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    let text = std::fs::read_to_string(pi("ran-plain.jsonl")).unwrap().replacen(
        r#""toolsAdded":[{"name":"read""#,
        r#""toolsAdded":[{"name":"deploy","description":"d","parameters":{}},{"name":"read""#,
        1,
    );
    std::fs::write(&f, text).unwrap();
    let out = cctool()
        .args(["rebuild-chain", "--api-view", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 4: the tool loadout the branch records names \"deploy\""),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = cctool()
        .args(["rebuild-chain", "--api-view", "--full", &pi("basic.jsonl")])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--tip and --full do not apply"), "{err}");
}
