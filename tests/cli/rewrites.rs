//! The write side under stress: many boundaries, deep nesting, imports that must not overwrite,
//! temporary files left by killed runs, files that grow or are links while they are rewritten,
//! memory under a limit. Writers and limits here are real processes, as the user's are.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::compact_crash::names_in;
use crate::util::{cctool, fixture, write_aged};

/// A Claude Code transcript of `n` turns, each compacted: prompt, answer, boundary, summary.
fn many_boundaries(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let env = |v: &mut Value| {
        let o = v.as_object_mut().unwrap();
        o.insert("sessionId".into(), json!("5e551000-0000-4000-8000-0000000000b2"));
        o.insert("cwd".into(), json!("/home/dev/app"));
        o.insert("version".into(), json!("2.1.14"));
    };
    let uuid = |k: usize| format!("00000000-0000-4000-8000-{k:012}");
    let ts = |k: usize| format!("2026-01-01T{:02}:{:02}:{:02}.000Z", k / 3600 % 24, k / 60 % 60, k % 60);
    let mut parent: Option<String> = None;
    for b in 0..n {
        let k = b * 4;
        let mut rows = [
            json!({"parentUuid": parent, "type": "user", "message": {"role": "user", "content": format!("step {b}")},
                "uuid": uuid(k), "timestamp": ts(k)}),
            json!({"parentUuid": uuid(k), "type": "assistant", "message": {"id": format!("msg_{b}"), "role": "assistant",
                "content": [{"type": "text", "text": format!("done {b}")}]}, "uuid": uuid(k + 1), "timestamp": ts(k + 1)}),
            json!({"parentUuid": null, "logicalParentUuid": uuid(k + 1), "type": "system", "subtype": "compact_boundary",
                "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150_000 + b},
                "uuid": uuid(k + 2), "timestamp": ts(k + 2)}),
            json!({"parentUuid": uuid(k + 2), "type": "user", "isCompactSummary": true, "message": {"role": "user",
                "content": format!("This session is being continued from a previous conversation.\nSummary:\n{b}")},
                "uuid": uuid(k + 3), "timestamp": ts(k + 3)}),
        ];
        for r in &mut rows {
            env(r);
            out.extend_from_slice(r.to_string().as_bytes());
            out.push(b'\n');
        }
        parent = Some(uuid(k + 3));
    }
    out
}

/// Every boundary's summary is found by lookups, not by a pass over the boundaries before it:
/// 6,000 boundaries took minutes when each looked at all the others (3,000: 25 s in a debug
/// build), and take about a second now (the limit leaves room for a loaded machine).
#[test]
fn thousands_of_boundaries_cost_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    write_aged(&path, &many_boundaries(6_000));
    for args in [
        &["extract-summary", "--json"][..],
        &["compact", "--dry-run", "--keep-recent", "5"],
    ] {
        let out = cctool()
            .arg("-q")
            .args(args)
            .arg(&path)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if args[0] == "extract-summary" {
            let stdout = String::from_utf8(out.stdout).unwrap();
            let summaries: Vec<Value> = stdout
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|r| r["kind"] == "summary")
                .collect();
            assert_eq!(summaries.len(), 6_000);
            assert_eq!(summaries[5_999]["current"], true);
            assert_eq!(summaries[1_234]["summary_source"], "parent");
            assert!(summaries[1_234]["summary"].as_str().unwrap().ends_with("\n1234"));
        }
    }
}

fn temps_in(dir: &Path) -> Vec<String> {
    names_in(dir).into_iter().filter(|n| n.ends_with(".tmp")).collect()
}

/// An aged copy of the fixture `rel` in `dir`.
fn aged_fixture(dir: &Path, rel: &str, name: &str) -> PathBuf {
    let p = dir.join(name);
    write_aged(&p, &std::fs::read(fixture(rel)).unwrap());
    p
}

/// Runs cctool and checks that it ended by itself (no signal, no panic).
fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let out = cctool()
        .args(args)
        .envs(env.iter().copied())
        .env("SOURCE_DATE_EPOCH", "1764000000")
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some(), "{args:?}: killed by a signal: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    out
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `{"a":…"leaf"…}` nested `n` levels.
fn nested(n: usize) -> String {
    format!("{}\"leaf\"{}", "{\"a\":".repeat(n), "}".repeat(n))
}

/// The Codex fixture with the extra field of its last message nested `n` levels.
fn codex_with_depth(n: usize) -> Vec<u8> {
    let text = std::fs::read_to_string(fixture("broken/codex-deep-items.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines.len() - 2;
    assert!(lines[at].contains(&nested(124)), "the fixture's deep message");
    lines[at] = lines[at].replacen(&nested(124), &nested(n), 1);
    (lines.join("\n") + "\n").into_bytes()
}

/// A Codex message nested past what Codex reads is refused with its line, never a panic, and
/// leaves no file behind: neither an output nor a temporary file (in place: the input as it
/// was, and no backup).
#[test]
fn a_codex_message_too_deep_for_codex_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        (
            "deep.jsonl",
            std::fs::read(fixture("broken/codex-deep-items.jsonl")).unwrap(),
        ),
        ("deeper.jsonl", codex_with_depth(100_000)),
    ] {
        let f = dir.path().join(name);
        for mode in [&["-o", "out.jsonl"][..], &["--in-place"]] {
            write_aged(&f, &bytes);
            let out_file = dir.path().join("out.jsonl");
            let mut args = vec!["compact", "--keep-recent", "30", f.to_str().unwrap()];
            let o = out_file.to_str().unwrap().to_string();
            if mode[0] == "-o" {
                args.extend(["-o", &o]);
            } else {
                args.extend(mode);
            }
            let out = run(&args, &[]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{name} {mode:?}: {err}");
            assert!(
                err.contains("line 7:") && err.contains("Codex reads at most 127"),
                "{err}"
            );
            assert_eq!(std::fs::read(&f).unwrap(), bytes, "{name} {mode:?}: the input changed");
            assert_eq!(names_in(dir.path()), [name], "{name} {mode:?}: files left behind");
        }
        std::fs::remove_file(&f).unwrap();
    }
    // Less deep, it is compacted, and every line written is one Codex can read.
    let f = dir.path().join("ok.jsonl");
    let shallow = String::from_utf8(codex_with_depth(100)).unwrap();
    write_aged(&f, shallow.as_bytes());
    let out = run(&["compact", "--keep-recent", "30", f.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(dir.path().join("ok.compacted.jsonl")).unwrap();
    let appended = &written[shallow.len()..];
    for l in appended.lines() {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
    assert!(appended.contains(&nested(100)), "the kept item as written");
}

/// A record nested past serde_json's 128 levels is on the resumed chain of a compaction, byte
/// for byte, and imports keep it (its deep part as text), at 130 and at 100,000 levels.
#[test]
fn records_nested_past_128_levels_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(fixture("broken/deep-record-on-chain.jsonl")).unwrap();
    for n in [130, 100_000] {
        let text = original.replacen(&nested(130), &nested(n), 1);
        let f = dir.path().join(format!("deep{n}.jsonl"));
        write_aged(&f, text.as_bytes());
        let o = dir.path().join(format!("deep{n}.out.jsonl"));
        let out = run(
            &[
                "compact",
                "--keep-recent",
                "100",
                f.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "{n}: {}", stderr(&out));
        // Boundary, summary and the four kept records, the deep one among them.
        let chain = run(&["-q", "rebuild-chain", o.to_str().unwrap()], &[]);
        let chain = String::from_utf8(chain.stdout).unwrap();
        assert_eq!(chain.lines().count(), 6, "{n}: {chain}");
        let copy = chain
            .lines()
            .find(|l| l.contains("toolUseResult"))
            .expect("the deep record's copy");
        assert!(
            copy.contains(&format!("\"toolUseResult\":{}", nested(n))),
            "{n}: not as written"
        );
        assert!(copy.contains("Done: --verbose prints to stderr only"), "{n}");

        // Imports: the message's text arrives; nothing is null; the document reads back.
        let v5 = dir.path().join(format!("deep{n}.v5.json"));
        let out = run(&["migrate", f.to_str().unwrap(), "-o", v5.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&std::fs::read(&v5).unwrap()).unwrap();
        let texts: Vec<&str> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["items"].as_array().unwrap())
            .filter_map(|i| i["text"].as_str())
            .collect();
        assert!(texts.iter().any(|t| t.starts_with("Done: --verbose")), "{n}: {texts:?}");
        let check = run(&["migrate", "--check", v5.to_str().unwrap()], &[]);
        assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    }
    // Codex: the 300-deep context record is a native item whose deep part is its text.
    let f = aged_fixture(dir.path(), "broken/codex-deep-items.jsonl", "codex.jsonl");
    let v5 = dir.path().join("codex.v5.json");
    let out = run(&["migrate", f.to_str().unwrap(), "-o", v5.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&v5).unwrap();
    assert!(!text.contains("\"record\": null"), "a record lost");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let native = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["items"].as_array().unwrap())
        .find(|i| i["record"]["type"] == "turn_context")
        .expect("the context record");
    let mut at = &native["record"]["payload"]["x"];
    while at.get("a").is_some() {
        at = &at["a"];
    }
    assert_eq!(at["_raw"].as_str().map(|r| r.len()), Some(nested(300 - 98).len()));
}

/// An import never replaces a file that is there (an unrelated transcript, an earlier import)
/// unless `--force`; two inputs of one run never write the same output.
#[test]
fn imports_never_replace_a_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let s = aged_fixture(dir.path(), "compact/claude-work.jsonl", "s.jsonl");
    let other = aged_fixture(dir.path(), "compact/codex-work.jsonl", "other.jsonl");
    let before = std::fs::read(&other).unwrap();
    let out = run(&["migrate", "-o", other.to_str().unwrap(), s.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("exists") && stderr(&out).contains("--force"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&other).unwrap(),
        before,
        "the unrelated transcript was replaced"
    );
    let out = run(
        &["migrate", "--force", "-o", other.to_str().unwrap(), s.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&std::fs::read(&other).unwrap()).unwrap();
    assert_eq!(doc["schema_version"], 5);

    // The default output beside the file: written once, then refused.
    let out = run(&["migrate", s.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = std::fs::read(dir.path().join("s.v5.json")).unwrap();
    let out = run(&["migrate", s.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2), "a second import over the first");
    assert_eq!(std::fs::read(dir.path().join("s.v5.json")).unwrap(), first);

    // a.jsonl and a.json both name a.v5.json: the first in order is written, the other refused.
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    aged_fixture(&tree, "compact/claude-work.jsonl", "a.json");
    aged_fixture(&tree, "compact/codex-work.jsonl", "a.jsonl");
    let dest = dir.path().join("v5");
    let out = run(&["migrate", tree.to_str().unwrap(), "-o", dest.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("also the output of"), "{}", stderr(&out));
    assert_eq!(names_in(&dest), ["a.v5.json"]);
    let doc: Value = serde_json::from_slice(&std::fs::read(dest.join("a.v5.json")).unwrap()).unwrap();
    assert_eq!(doc["source"]["format"], "claude-code", "a.json, the first, was written");
    assert_eq!(temps_in(&dest), Vec::<String>::new());
}

/// A folder's transcripts are imported only into an output folder named with `-o DIR`, its
/// tree mirrored there; without one nothing is written beside the agent's files, session files
/// are still migrated in place, and `--check` is not failed by transcripts.
#[test]
fn a_folder_is_imported_only_into_an_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    let sub = projects.join("-home-dev-app");
    std::fs::create_dir_all(&sub).unwrap();
    aged_fixture(&sub, "compact/claude-work.jsonl", "5f1c.jsonl");
    aged_fixture(&projects, "compact/codex-work.jsonl", "rollout.jsonl");
    aged_fixture(&projects, "migrate/v1.json", "session.json");
    let out = run(&["migrate", projects.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("-o DIR"), "{}", stderr(&out));
    assert_eq!(
        names_in(&sub),
        ["5f1c.jsonl"],
        "nothing written beside the agent's files"
    );
    assert_eq!(
        names_in(&projects),
        ["-home-dev-app", "rollout.jsonl", "session.json", "session.json.v1.bak"]
    );
    let check = run(&["migrate", "--check", projects.to_str().unwrap()], &[]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let json = run(&["--json", "migrate", "--check", projects.to_str().unwrap()], &[]);
    let records: Vec<Value> = String::from_utf8(json.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 3);
    for r in &records {
        assert!(r["from"].is_string() && r["to"] == "v5", "{r}");
    }
    assert_eq!(records.iter().filter(|r| r["note"].is_string()).count(), 2);

    let dest = dir.path().join("out");
    let out = run(
        &["migrate", projects.to_str().unwrap(), "-o", dest.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(names_in(&dest), ["-home-dev-app", "rollout.v5.json"]);
    assert_eq!(names_in(&dest.join("-home-dev-app")), ["5f1c.v5.json"]);
}

/// `-o -` writes the document to standard output (it once made a file named `-`), and the
/// report goes to standard error.
#[test]
fn dash_o_dash_writes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    aged_fixture(dir.path(), "compact/codex-work.jsonl", "s.jsonl");
    let out = cctool()
        .current_dir(dir.path())
        .args(["migrate", "-o", "-", "s.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("the v5 document on stdout");
    assert_eq!(doc["source"]["format"], "codex");
    assert!(stderr(&out).contains("standard output"), "{}", stderr(&out));
    assert_eq!(names_in(dir.path()), ["s.jsonl"]);
    // A v1 session too, left as it was.
    let v1 = aged_fixture(dir.path(), "migrate/v1.json", "v1.json");
    let out = run(&["migrate", "-o", "-", v1.to_str().unwrap()], &[]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema_version"], 5);
    assert_eq!(
        std::fs::read(&v1).unwrap(),
        std::fs::read(fixture("migrate/v1.json")).unwrap()
    );
}

/// A shell process appending numbered JSON lines to `path`, opening it for each (as Claude
/// Code's appendFileSync does), until `stop` exists. Returns the process.
fn appender(path: &Path, stop: &Path) -> std::process::Child {
    let script = "i=0; while [ ! -e \"$STOP\" ]; do \
        printf '{\"type\":\"user\",\"uuid\":\"appended-%d\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\\n' $i >> \"$F\"; \
        i=$((i+1)); done; echo $i";
    std::process::Command::new("sh")
        .args(["-c", script])
        .env("F", path)
        .env("STOP", stop)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Stops the appender and returns how many lines it wrote.
fn stop_appender(child: std::process::Child, stop: &Path) -> usize {
    std::fs::write(stop, "").unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().parse().unwrap()
}

/// `compact --in-place` while an agent appends: every appended record is in the file at the
/// path afterwards, never only in the backup. The rewrite holds a lock and checks size and
/// time before its rename, so it refuses (the usual outcome with a writer this busy).
#[test]
fn an_in_place_rewrite_keeps_what_is_appended_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    let original = crate::compact_crash::big_claude_transcript(8_000);
    for round in 0..3 {
        for n in names_in(dir.path()) {
            std::fs::remove_file(dir.path().join(n)).unwrap();
        }
        write_aged(&f, &original);
        let stop = dir.path().join("stop");
        let writer = appender(&f, &stop);
        // Let it start, so that it appends while the rewrite runs.
        while std::fs::metadata(&f).unwrap().len() == original.len() as u64 {
            std::thread::sleep(Duration::from_millis(1));
        }
        let out = run(
            &[
                "compact",
                "--in-place",
                "--force",
                "--keep-recent",
                "20000",
                f.to_str().unwrap(),
            ],
            &[],
        );
        let written = stop_appender(writer, &stop);
        let now = std::fs::read_to_string(&f).unwrap();
        let kept: std::collections::HashSet<&str> = now
            .match_indices("\"appended-")
            .map(|(at, _)| {
                let rest = &now[at + 10..];
                &rest[..rest.find('"').unwrap_or(0)]
            })
            .collect();
        let lost = (0..written).filter(|i| !kept.contains(i.to_string().as_str())).count();
        assert_eq!(
            lost,
            0,
            "round {round}: appended records lost (exit {:?}: {})",
            out.status,
            stderr(&out)
        );
        if out.status.code() == Some(2) {
            assert!(stderr(&out).contains("changed while"), "{}", stderr(&out));
            assert!(
                now.as_bytes().starts_with(&original),
                "refused: the file is the original and what was appended"
            );
            assert_eq!(
                names_in(dir.path()),
                ["s.jsonl", "stop"],
                "refused: no backup, no temporary file"
            );
        }
    }
    // migrate in place: a session file rewritten by its harness meanwhile is left to it.
    let session = crate::util::big_v1_session();
    let f = dir.path().join("v1.json");
    write_aged(&f, &session);
    let stop = dir.path().join("stop2");
    let script = "while [ ! -e \"$STOP\" ]; do printf ' ' >> \"$F\"; done";
    let writer = std::process::Command::new("sh")
        .args(["-c", script])
        .env("F", &f)
        .env("STOP", &stop)
        .spawn()
        .unwrap();
    while std::fs::metadata(&f).unwrap().len() == session.len() as u64 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let out = run(&["migrate", "--force", f.to_str().unwrap()], &[]);
    std::fs::write(&stop, "").unwrap();
    let mut writer = writer;
    writer.wait().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("changed while"), "{}", stderr(&out));
    let now = std::fs::read(&f).unwrap();
    assert!(now.starts_with(&session) && now[session.len()..].iter().all(|&b| b == b' '));
}

/// A rewrite stops at once while another holds the file (the lock every rewrite takes, held
/// here by `flock(1)` as another cctool run holds it), and then nothing changes.
#[test]
fn a_rewrite_stops_while_another_holds_the_file() {
    if std::process::Command::new("flock").arg("--version").output().is_err() {
        crate::util::skip_notice("flock(1) not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let t = aged_fixture(dir.path(), "compact/claude-work.jsonl", "t.jsonl");
    let v1 = aged_fixture(dir.path(), "migrate/v1.json", "s.json");
    for (f, args) in [
        (&t, vec!["compact", "--in-place", "--keep-recent", "3000"]),
        (&v1, vec!["migrate"]),
    ] {
        let before = std::fs::read(f).unwrap();
        let mut holder = std::process::Command::new("flock")
            .arg(f)
            .args(["sleep", "30"])
            .spawn()
            .unwrap();
        // Held once flock has started its command.
        let started = std::time::Instant::now();
        while std::process::Command::new("flock")
            .args(["--nonblock", "--conflict-exit-code", "9"])
            .arg(f)
            .arg("true")
            .status()
            .unwrap()
            .code()
            != Some(9)
        {
            assert!(started.elapsed() < Duration::from_secs(20), "flock never took the file");
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut all = args.clone();
        all.push(f.to_str().unwrap());
        let out = run(&all, &[]);
        let _ = holder.kill();
        let _ = holder.wait();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("another cctool run"), "{}", stderr(&out));
        assert_eq!(&std::fs::read(f).unwrap(), &before);
    }
    assert_eq!(
        names_in(dir.path()),
        ["s.json", "t.jsonl"],
        "no backup, no temporary file"
    );
}

/// The id of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

/// Temporary files left by killed runs (this version's name and the earlier one) are removed
/// by the next run that writes into the folder, which says so; one of a cctool that is still
/// running is left alone.
#[test]
fn temporary_files_of_killed_runs_are_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let f = aged_fixture(dir.path(), "compact/claude-work.jsonl", "s.jsonl");
    let dead = dead_pid();
    let stale_new = format!(".s.jsonl.cctool-unfinished-{dead}.tmp");
    let stale_old = format!(".s.compacted.jsonl.cctool-{dead}.tmp");
    std::fs::write(dir.path().join(&stale_new), vec![b'x'; 4096]).unwrap();
    std::fs::write(dir.path().join(&stale_old), b"partial").unwrap();
    // A "cctool" that is running: a copy of sleep under that name.
    let fake = dir.path().join("bin");
    std::fs::create_dir(&fake).unwrap();
    std::fs::copy("/bin/sleep", fake.join("cctool")).unwrap();
    let mut live = std::process::Command::new(fake.join("cctool"))
        .arg("30")
        .spawn()
        .unwrap();
    let in_use = format!(".other.jsonl.cctool-unfinished-{}.tmp", live.id());
    std::fs::write(dir.path().join(&in_use), b"being written").unwrap();

    let out = run(&["compact", "--keep-recent", "3000", f.to_str().unwrap()], &[]);
    let _ = live.kill();
    let _ = live.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names = names_in(dir.path());
    assert!(!names.contains(&stale_new) && !names.contains(&stale_old), "{names:?}");
    assert!(names.contains(&in_use), "the file of a running cctool was removed");
    let err = stderr(&out);
    assert!(
        err.contains(&stale_new) && err.contains("4096 bytes") && err.contains(&format!("process {dead}")),
        "{err}"
    );
}

/// A kill mid-rewrite leaves a temporary file at most, and the next run removes it.
#[test]
fn a_killed_rewrite_leaves_nothing_the_next_run_does_not_remove() {
    let original = crate::compact_crash::big_claude_transcript(8_000);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    let mut left = None;
    // Killed as soon as its temporary file appears (a run can finish before it is seen).
    for _ in 0..10 {
        write_aged(&f, &original);
        let mut child = std::process::Command::new(&bin)
            .args(["compact", "--in-place", "--keep-recent", "20000"])
            .arg(&f)
            .env("HOME", "/nonexistent-home")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        while child.try_wait().unwrap().is_none() {
            if !temps_in(dir.path()).is_empty() {
                let _ = child.kill(); // SIGKILL
                break;
            }
        }
        let _ = child.wait();
        if let Some(t) = temps_in(dir.path()).pop() {
            left = Some(t);
            break;
        }
        for n in names_in(dir.path()) {
            std::fs::remove_file(dir.path().join(n)).unwrap();
        }
    }
    let Some(temp) = left else {
        crate::util::skip_notice("no kill landed while the temporary file existed");
        return;
    };
    assert!(temp.contains(".cctool-unfinished-"), "{temp}: the name says what it is");
    let g = aged_fixture(dir.path(), "compact/codex-work.jsonl", "other.jsonl");
    let out = run(&["compact", "--keep-recent", "3000", g.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(temps_in(dir.path()), Vec::<String>::new());
    assert!(stderr(&out).contains(&temp), "{}", stderr(&out));
}

/// A file-size limit (`ulimit -f`) is a write error like a full disk: a clean failure with
/// the reason, no death by SIGXFSZ, no temporary file left.
#[test]
fn a_file_size_limit_is_an_error_not_a_signal() {
    if std::process::Command::new("prlimit").arg("--version").output().is_err() {
        crate::util::skip_notice("prlimit not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    write_aged(&f, &crate::compact_crash::big_claude_transcript(2_000));
    let bin = assert_cmd::cargo::cargo_bin("cctool");
    for args in [
        &["compact", "--keep-recent", "3000"][..],
        &["compact", "--in-place", "--keep-recent", "3000"],
    ] {
        let out = std::process::Command::new("prlimit")
            .arg("--fsize=1000000")
            .arg(&bin)
            .args(args)
            .arg(&f)
            .env("HOME", "/nonexistent-home")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {:?} {err}", out.status);
        assert!(err.contains("too large"), "{args:?}: {err}");
        assert_eq!(temps_in(dir.path()), Vec::<String>::new(), "{args:?}");
    }
}

/// Runs the cctool binary under an address-space limit of `mib` MiB.
fn limited(mib: u64, args: &[&str]) -> Option<std::process::Output> {
    if std::process::Command::new("prlimit").arg("--version").output().is_err() {
        crate::util::skip_notice("prlimit not installed");
        return None;
    }
    let out = std::process::Command::new("prlimit")
        .arg(format!("--as={}", mib << 20))
        .arg(assert_cmd::cargo::cargo_bin("cctool"))
        .args(args)
        .env("HOME", "/nonexistent-home")
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .unwrap();
    Some(out)
}

/// Memory follows what is kept, not what is read: a 10 MB record holding a 5-million-element
/// array is imported and compacted under a 1 GiB limit (it took 4.3 GB), and a session that
/// must be held whole gets a sentence, not an abort, where the limit is too low.
#[test]
fn memory_follows_what_is_kept_under_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("compact/claude-work.jsonl")).unwrap();
    let first_end = text.find('\n').unwrap();
    let first = &text[..first_end];
    let content_at = first.find("\"content\":\"").unwrap() + "\"content\":".len();
    let content_end = content_at + first[content_at..].find("\"}").unwrap() + 1;
    let array = format!("[{}1]", "1,".repeat(5_000_000));
    text.replace_range(content_at..content_end, &array);
    let f = dir.path().join("array.jsonl");
    write_aged(&f, text.as_bytes());
    let v5 = dir.path().join("array.v5.json");
    let out_file = dir.path().join("array.out.jsonl");
    for args in [
        vec!["migrate", f.to_str().unwrap(), "-o", v5.to_str().unwrap()],
        vec![
            "compact",
            "--keep-recent",
            "3000",
            f.to_str().unwrap(),
            "-o",
            out_file.to_str().unwrap(),
        ],
    ] {
        let Some(out) = limited(1024, &args) else { return };
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {:?} {}",
            out.status,
            stderr(&out)
        );
    }
    // The array is kept, as its text.
    let doc = std::fs::read_to_string(&v5).unwrap();
    assert!(doc.contains("\"_raw\": \"[1,1,1,"), "the array's text is in the import");

    // A v1 session of 300,000 short messages held whole by decompress (600 MB before).
    let mut s = String::from("{\"version\":1,\"id\":\"many\",\"messages\":[");
    for i in 0..300_000 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        s.push_str(&format!(
            "{}{{\"role\":\"{role}\",\"content\":\"m{i}\"}}",
            if i > 0 { "," } else { "" }
        ));
    }
    s.push_str("]}");
    let full = dir.path().join("full.json");
    write_aged(&full, s.as_bytes());
    let compacted = dir.path().join("c.json");
    write_aged(&compacted, &std::fs::read(fixture("compact/session-v5.json")).unwrap());
    let args = [
        "decompress",
        "--dry-run",
        compacted.to_str().unwrap(),
        "--from",
        full.to_str().unwrap(),
    ];
    let Some(out) = limited(400, &args) else { return };
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{:?} {}",
        out.status,
        stderr(&out)
    );
    let Some(out) = limited(120, &args) else { return };
    assert_eq!(out.status.code(), Some(2), "{:?} {}", out.status, stderr(&out));
    assert!(stderr(&out).contains("out of memory"), "{}", stderr(&out));
}

/// A `ts` no RFC 3339 timestamp can say is refused with its JSON path, by the typed reader and
/// by the fast one, and nothing is written.
#[test]
fn migrate_refuses_a_time_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let f = aged_fixture(dir.path(), "broken/session-ts-out-of-range.json", "s.json");
    let before = std::fs::read(&f).unwrap();
    let out = run(&["migrate", f.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("messages[1].ts: 253402300800 is outside the years 0 to 9999"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    assert_eq!(names_in(dir.path()), ["s.json"]);
    // A large file, which the fast reader takes.
    let big = String::from_utf8(crate::util::big_v1_session()).unwrap();
    let big = big.replacen("\"ts\":1752573603", "\"ts\":-99999999999", 1);
    let g = dir.path().join("big.json");
    write_aged(&g, big.as_bytes());
    let out = run(&["migrate", g.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("messages[3].ts: -99999999999"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&g).unwrap(), big.as_bytes());
}

/// Through a symbolic link, the file it points to is rewritten and backed up beside itself;
/// the link stays a link.
#[test]
fn in_place_rewrites_follow_a_symbolic_link_to_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let v1 = aged_fixture(&real, "migrate/v1.json", "s.json");
    let t = aged_fixture(&real, "compact/claude-work.jsonl", "t.jsonl");
    let original_v1 = std::fs::read(&v1).unwrap();
    let original_t = std::fs::read(&t).unwrap();
    std::os::unix::fs::symlink(&v1, dir.path().join("s.json")).unwrap();
    std::os::unix::fs::symlink(&t, dir.path().join("t.jsonl")).unwrap();
    let link = dir.path().join("s.json");
    let out = run(&["migrate", link.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let link2 = dir.path().join("t.jsonl");
    let out = run(
        &[
            "compact",
            "--in-place",
            "--keep-recent",
            "3000",
            link2.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (l, target, original, backup) in [
        (&link, &v1, &original_v1, "s.json.v1.bak"),
        (&link2, &t, &original_t, "t.jsonl.precompact.bak"),
    ] {
        assert!(
            std::fs::symlink_metadata(l).unwrap().file_type().is_symlink(),
            "the link stays a link"
        );
        assert_ne!(
            &std::fs::read(target).unwrap(),
            original,
            "{}: the target was rewritten",
            target.display()
        );
        let b = real.join(backup);
        assert!(
            std::fs::symlink_metadata(&b).unwrap().file_type().is_file(),
            "the backup is a file"
        );
        assert_eq!(&std::fs::read(&b).unwrap(), original);
    }
    assert_eq!(names_in(dir.path()), ["real", "s.json", "t.jsonl"]);
}

/// A read-only file may have been protected on purpose: an in-place rewrite says so and stops,
/// unless `--force`.
#[test]
fn read_only_files_are_rewritten_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let v1 = aged_fixture(dir.path(), "migrate/v1.json", "s.json");
    let t = aged_fixture(dir.path(), "compact/claude-work.jsonl", "t.jsonl");
    for p in [&v1, &t] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o444)).unwrap();
        crate::util::age(p);
    }
    let v1s = v1.to_str().unwrap();
    let ts = t.to_str().unwrap();
    for args in [
        vec!["migrate", v1s],
        vec!["compact", "--in-place", "--keep-recent", "3000", ts],
    ] {
        let out = run(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    }
    assert_eq!(names_in(dir.path()), ["s.json", "t.jsonl"]);
    let out = run(&["migrate", "--force", v1s], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = std::fs::metadata(&v1).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444, "the rewritten file keeps its mode");
}

/// A last line without its newline that is a whole record is complete: compacting with `-o`
/// and importing need no `--force`. A torn last line still does.
#[test]
fn a_complete_last_line_without_newline_needs_no_force() {
    let dir = tempfile::tempdir().unwrap();
    let f = aged_fixture(dir.path(), "broken/last-line-without-newline.jsonl", "s.jsonl");
    assert!(!std::fs::read(&f).unwrap().ends_with(b"\n"));
    let out = run(&["compact", "--keep-recent", "40", f.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&["migrate", f.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let torn = aged_fixture(dir.path(), "broken/truncated-last-line.jsonl", "torn.jsonl");
    let out = run(&["compact", "--keep-recent", "0", torn.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
}
