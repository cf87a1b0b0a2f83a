//! A backup archive named as a PATH: `scan`, `extract-summary`, `rebuild-chain` and `doctor`
//! read the files it keeps as they read the stores, deleted sessions included; a selection
//! below the archive names sessions; nothing is ever written into an archive.

use std::path::Path;

use serde_json::Value;

use crate::backup::{Stores, generate};

fn run(st: &Stores, args: &[&str]) -> std::process::Output {
    st.cmd().args(args).output().unwrap()
}

fn ok(st: &Stores, args: &[&str]) -> Vec<u8> {
    let out = run(st, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn records(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// The records with the field naming the file taken out, and the subagent transcripts
/// counted rather than named: the same sessions read from the store and from the archive
/// differ only in where their files are.
fn without(mut recs: Vec<Value>, field: &str) -> Vec<Value> {
    for r in &mut recs {
        if let Some(o) = r.as_object_mut() {
            o.remove(field);
            if let Some(Value::Array(subs)) = o.get("subagents") {
                let n = subs.len();
                o.insert("subagents".into(), n.into());
            }
        }
    }
    recs
}

fn backed_up(n: u64) -> (Stores, String) {
    let st = generate(n);
    ok(&st, &["backup"]);
    let archive = st.archive().display().to_string();
    (st, archive)
}

#[test]
fn scan_of_the_archive_equals_scan_of_the_stores_it_took() {
    let (st, archive) = backed_up(30);
    let claude = st.claude().display().to_string();
    let codex = st.codex().display().to_string();
    // The stores also hold Claude Code's prompt history, which scan skips with a note and the
    // archive keeps apart from the sessions.
    let mut from_store = records(&ok(&st, &["scan", "--json", &claude, &codex]));
    from_store.retain(|r| r["kind"] != "diagnostic");
    for r in &mut from_store {
        if r["kind"] == "total" {
            r["skipped"] = 0.into();
        }
    }
    let from_archive = records(&ok(&st, &["scan", "--json", &archive]));
    assert_eq!(
        from_archive.len(),
        from_store.len(),
        "{:?}\n{:?}",
        from_store
            .iter()
            .map(|r| (&r["kind"], &r["path"], &r["role"]))
            .collect::<Vec<_>>(),
        from_archive
            .iter()
            .map(|r| (&r["kind"], &r["path"], &r["role"]))
            .collect::<Vec<_>>()
    );
    // Each file is named by its place under the archive, as `restore --to DIR` lays it out.
    let names: Vec<&str> = from_archive.iter().filter_map(|r| r["path"].as_str()).collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with(&format!("{archive}/claude/projects/"))
                || n.starts_with(&format!("{archive}/codex/sessions/"))
                || n.is_empty()),
        "{names:?}"
    );
    let key = |r: &Value| r["session_id"].to_string() + &r["kind"].to_string() + &r["role"].to_string();
    let mut a = without(from_store, "path");
    let mut b = without(from_archive, "path");
    a.sort_by_key(key);
    b.sort_by_key(key);
    assert_eq!(a, b);
}

#[test]
fn a_session_deleted_from_the_store_is_read_from_the_archive_by_its_id() {
    let (st, archive) = backed_up(12);
    let session = st.sessions[4].clone();
    let id = session.file_stem().unwrap().to_string_lossy().into_owned();
    let before = ok(&st, &["rebuild-chain", session.to_str().unwrap()]);
    let summaries_before = ok(&st, &["extract-summary", "--json", session.to_str().unwrap()]);
    let first = st.dir.path().join("converted-first.jsonl");
    ok(
        &st,
        &[
            "convert",
            "--to",
            "codex",
            "-o",
            first.to_str().unwrap(),
            session.to_str().unwrap(),
        ],
    );
    let converted_before = std::fs::read(&first).unwrap();
    std::fs::remove_file(&session).unwrap();
    let by_id = format!("{archive}/{id}");
    assert_eq!(ok(&st, &["rebuild-chain", &by_id]), before);
    // The same session by its path under the archive.
    let rel = session.strip_prefix(st.claude()).unwrap().display().to_string();
    let by_path = format!("{archive}/claude/{rel}");
    assert_eq!(ok(&st, &["rebuild-chain", &by_path]), before);
    let summaries = records(&ok(&st, &["extract-summary", "--json", &by_id]));
    assert_eq!(without(summaries, "file"), without(records(&summaries_before), "file"));
    // convert reads it too: the same conversion as from the file that was deleted.
    let converted = st.dir.path().join("converted.jsonl");
    ok(
        &st,
        &["convert", "--to", "codex", "-o", converted.to_str().unwrap(), &by_id],
    );
    assert_eq!(std::fs::read(&converted).unwrap(), converted_before);
    let doctor = run(&st, &["doctor", "--json", &by_id]);
    assert!(
        doctor.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&doctor.stderr)
    );
}

#[test]
fn a_selection_names_a_part_of_the_archive() {
    let (st, archive) = backed_up(10);
    let codex = records(&ok(&st, &["scan", "--json", &format!("{archive}/codex")]));
    let sessions: Vec<&Value> = codex.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(sessions.len(), 5, "{codex:?}");
    assert!(sessions.iter().all(|r| r["format"] == "codex"));
    // One session with its subagent transcript (session 0 has one).
    let id = st.sessions[0].file_stem().unwrap().to_string_lossy().into_owned();
    let one = records(&ok(&st, &["scan", "--json", &format!("{archive}/{id}")]));
    let files: Vec<&str> = one.iter().filter_map(|r| r["path"].as_str()).collect();
    assert!(files.iter().any(|f| f.ends_with(&format!("{id}.jsonl"))), "{files:?}");
    assert!(
        files.iter().any(|f| f.ends_with("subagents/agent-a1.jsonl")),
        "{files:?}"
    );
    // A name the archive does not hold is an error that says where to look.
    let missing = run(&st, &["scan", "--json", &format!("{archive}/no-such-session")]);
    assert_eq!(missing.status.code(), Some(2));
    // With --json the problem is a diagnostic record on stdout.
    let said = String::from_utf8([missing.stdout, missing.stderr].concat()).unwrap();
    assert!(
        said.contains("no-such-session") && said.contains("in the backup archive"),
        "{said}"
    );
    assert!(said.contains("cctool restore --from"), "{said}");
    // A single-file command needs one session.
    let many = run(&st, &["rebuild-chain", &format!("{archive}/codex")]);
    assert_eq!(many.status.code(), Some(2));
    let said = String::from_utf8(many.stderr).unwrap();
    assert!(
        said.contains("names 5 sessions in the backup archive; name one"),
        "{said}"
    );
}

#[test]
fn nothing_is_written_into_an_archive() {
    let (st, archive) = backed_up(6);
    let id = st.sessions[2].file_stem().unwrap().to_string_lossy().into_owned();
    let by_id = format!("{archive}/{id}");
    let listing = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.path().display().to_string())
            .collect();
        v.sort();
        v
    };
    let before = listing(&st.archive());
    for args in [
        vec!["compact", by_id.as_str()],
        vec!["compact", "--in-place", by_id.as_str()],
        vec!["migrate", by_id.as_str()],
    ] {
        let out = run(&st, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8(out.stderr).unwrap();
        assert!(said.contains("backup archive"), "{args:?}: {said}");
    }
    assert_eq!(listing(&st.archive()), before);
    // With -o the copy is read and the result written where asked.
    let out = st.dir.path().join("imported.v5.json");
    ok(&st, &["migrate", &by_id, "-o", out.to_str().unwrap()]);
    assert!(std::fs::metadata(&out).unwrap().len() > 0);
}

#[test]
fn a_damaged_chunk_is_an_error_for_its_file_and_the_run_goes_on() {
    let (st, archive) = backed_up(8);
    let target = &st.sessions[3];
    let chunk = crate::backup::damage_chunk_of(&st, target);
    let out = run(&st, &["scan", "--json", &archive]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(said.contains(&chunk.display().to_string()), "{said}");
    let recs = records(&out.stdout);
    let sessions = recs.iter().filter(|r| r["kind"] == "session").count();
    // Eight Claude Code sessions, the first with a subagent transcript, five rollouts; one lost.
    assert_eq!(sessions, 8 + 1 + 5 - 1, "{recs:?}");
}
