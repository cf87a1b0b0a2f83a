//! `backup` and `restore` on a generated store of hundreds of sessions: a second run costs
//! about the bytes appended, a run with nothing new writes nothing, deleted sessions come back
//! byte for byte, `--verify` names a damaged chunk, a line being written waits for the next
//! run; and `doctor`'s retention warning names the sessions the next sweep deletes.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::util::cctool;

/// A generated pair of stores and an archive folder, all in one temporary folder.
pub struct Stores {
    pub dir: tempfile::TempDir,
    pub sessions: Vec<PathBuf>,
}

impl Stores {
    pub fn claude(&self) -> PathBuf {
        self.dir.path().join("claude")
    }
    pub fn codex(&self) -> PathBuf {
        self.dir.path().join("codex")
    }
    pub fn archive(&self) -> PathBuf {
        self.dir.path().join("data/cctool/backup")
    }
    /// `cctool` with the stores and the archive of this folder, run in it.
    pub fn cmd(&self) -> assert_cmd::Command {
        let mut c = cctool();
        c.env("CLAUDE_CONFIG_DIR", self.claude())
            .env("CODEX_HOME", self.codex())
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .current_dir(self.dir.path());
        c
    }
}

/// A small deterministic generator of varied prose: the text of real sessions compresses
/// about as well.
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn text(&mut self, n: usize) -> String {
        const W: &[&str] = &[
            "the", "build", "fails", "because", "parser", "returns", "an", "error", "when", "input", "line", "is",
            "empty", "so", "we", "check", "length", "first", "and", "then", "read", "file", "again", "test", "passes",
            "now", "refactor", "module", "rename", "function", "add", "comment",
        ];
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            let w = W[(self.next() % W.len() as u64) as usize];
            s.push_str(w);
            if self.next().is_multiple_of(7) {
                s.push_str(&format!(" {}", self.next() % 10_000));
            }
        }
        s
    }
}

fn uuid(n: u64, k: u64) -> String {
    format!("{:08x}-{:04x}-4000-8000-{:012x}", n, k, n * 7919 + k)
}

/// A Claude Code transcript line.
fn claude_line(w: &mut Words, session: &str, i: u64, parent: Option<&str>, cwd: &str) -> String {
    let role = if i.is_multiple_of(2) { "user" } else { "assistant" };
    let n = 20 + (w.next() % 60) as usize;
    let text = w.text(n);
    let content = if role == "user" {
        Value::String(text)
    } else {
        serde_json::json!([{"type": "text", "text": text}])
    };
    let v = serde_json::json!({
        "parentUuid": parent,
        "isSidechain": false,
        "type": role,
        "message": {"role": role, "content": content},
        "uuid": uuid(i, 0xabc),
        "timestamp": format!("2026-03-01T10:{:02}:{:02}.000Z", (i / 60) % 60, i % 60),
        "sessionId": session,
        "cwd": cwd,
        "version": "2.1.332"
    });
    format!("{v}\n")
}

/// `n` Claude Code sessions over a few projects (every tenth with a subagent transcript),
/// a history file, and a few Codex rollouts.
pub fn generate(n: u64) -> Stores {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Words(42);
    let mut sessions = Vec::new();
    for s in 0..n {
        let project = format!("-home-me-proj{}", s % 7);
        let id = uuid(s, 1);
        let folder = dir.path().join("claude/projects").join(&project);
        std::fs::create_dir_all(&folder).unwrap();
        let mut body = String::new();
        let mut parent: Option<String> = None;
        for i in 0..(4 + s % 9) {
            body.push_str(&claude_line(
                &mut w,
                &id,
                s * 100 + i,
                parent.as_deref(),
                &format!("/home/me/proj{}", s % 7),
            ));
            parent = Some(uuid(s * 100 + i, 0xabc));
        }
        let path = folder.join(format!("{id}.jsonl"));
        std::fs::write(&path, body).unwrap();
        if s % 10 == 0 {
            let sub = folder.join(&id).join("subagents");
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(
                sub.join("agent-a1.jsonl"),
                claude_line(&mut w, &id, 1, None, "/home/me"),
            )
            .unwrap();
        }
        sessions.push(path);
    }
    std::fs::write(
        dir.path().join("claude/history.jsonl"),
        "{\"display\":\"fix the build\",\"timestamp\":1772359200000,\"project\":\"/home/me/proj0\",\"sessionId\":\"00000000-dead-4000-8000-000000000000\"}\n",
    )
    .unwrap();
    let day = dir.path().join("codex/sessions/2026/03/01");
    std::fs::create_dir_all(&day).unwrap();
    for c in 0..5u64 {
        let id = uuid(c, 0xc0de);
        let mut body = format!(
            "{}\n",
            serde_json::json!({"timestamp":"2026-03-01T09:00:00.000Z","type":"session_meta","payload":{"id": id,"timestamp":"2026-03-01T09:00:00.000Z","cwd":"/home/me/x","originator":"codex_cli_rs","cli_version":"0.171.0"}})
        );
        for i in 0..6u32 {
            let role = if i.is_multiple_of(2) { "user" } else { "assistant" };
            let kind = if role == "user" { "input_text" } else { "output_text" };
            body.push_str(&format!(
                "{}\n",
                serde_json::json!({"timestamp":"2026-03-01T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":role,"content":[{"type":kind,"text":w.text(30)}]}})
            ));
        }
        std::fs::write(day.join(format!("rollout-2026-03-01T09-00-00-{id}.jsonl")), body).unwrap();
    }
    Stores { dir, sessions }
}

/// The bytes of every file under `dir`.
fn size_of(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

fn backup_json(st: &Stores) -> Value {
    let out = st.cmd().args(["backup", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn records(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn a_second_backup_costs_about_the_appended_bytes_and_a_third_writes_nothing() {
    let st = generate(300);
    let first = backup_json(&st);
    assert_eq!(first["new_files"], 300 + 30 + 1 + 5);
    let before = size_of(&st.archive());
    let mut w = Words(7);
    let mut appended = 0u64;
    for (i, s) in st.sessions.iter().enumerate() {
        let id = s.file_stem().unwrap().to_string_lossy().into_owned();
        let mut more = String::new();
        for k in 0..8 {
            more.push_str(&claude_line(&mut w, &id, 90_000 + i as u64 * 10 + k, None, "/home/me"));
        }
        appended += more.len() as u64;
        let mut f = std::fs::OpenOptions::new().append(true).open(s).unwrap();
        std::io::Write::write_all(&mut f, more.as_bytes()).unwrap();
    }
    let second = backup_json(&st);
    let added = size_of(&st.archive()) - before;
    assert_eq!(second["changed_files"], 300);
    assert_eq!(second["new_bytes"], appended);
    assert!(
        added > 0 && added * 10 <= appended * 11,
        "{added} bytes added for {appended} appended"
    );
    let third = st.cmd().args(["backup"]).output().unwrap();
    assert_eq!(third.status.code(), Some(0));
    let said = String::from_utf8(third.stderr).unwrap();
    assert!(
        said.starts_with("cctool: nothing new since the last snapshot: 336 files unchanged, nothing written"),
        "{said}"
    );
    assert_eq!(size_of(&st.archive()), before + added);
}

#[test]
fn deleted_sessions_come_back_byte_for_byte() {
    let st = generate(120);
    backup_json(&st);
    let gone: Vec<(PathBuf, Vec<u8>)> = st
        .sessions
        .iter()
        .step_by(6)
        .map(|p| (p.clone(), std::fs::read(p).unwrap()))
        .collect();
    // The first of them has a subagent transcript, deleted with it (as the sweep does).
    let sub = gone[0].0.with_extension("").join("subagents/agent-a1.jsonl");
    let sub_bytes = std::fs::read(&sub).unwrap();
    std::fs::remove_dir_all(gone[0].0.with_extension("")).unwrap();
    for (p, _) in &gone {
        std::fs::remove_file(p).unwrap();
    }
    let listed = records(&st.cmd().args(["restore", "--json"]).output().unwrap().stdout);
    assert_eq!(listed.len(), 120 + 5);
    let deleted: Vec<&Value> = listed.iter().filter(|r| r["exists"] == false).collect();
    assert_eq!(deleted.len(), gone.len());
    assert!(
        deleted
            .iter()
            .all(|r| r["kind"] == "archived_session" && r["agent"] == "claude-code")
    );
    let first_id = gone[0].0.file_stem().unwrap().to_string_lossy().into_owned();
    let rec = listed.iter().find(|r| r["session_id"] == first_id.as_str()).unwrap();
    assert_eq!(rec["subagents"], 1);
    assert_eq!(rec["project"], "proj0");

    let out = st.cmd().args(["restore", "--deleted"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for (p, bytes) in &gone {
        assert_eq!(&std::fs::read(p).unwrap(), bytes, "{}", p.display());
    }
    assert_eq!(std::fs::read(&sub).unwrap(), sub_bytes);
    // Nothing is left to restore, and nothing that exists is overwritten.
    let again = st.cmd().args(["restore", "--deleted"]).output().unwrap();
    assert_eq!(String::from_utf8(again.stderr).unwrap(), "cctool: 0 files restored\n");

    // By id into a folder of its own; a second time only with --force.
    let to = st.dir.path().join("out");
    let args = ["restore", first_id.as_str(), "--to", to.to_str().unwrap()];
    assert_eq!(st.cmd().args(args).output().unwrap().status.code(), Some(0));
    let rel = gone[0].0.strip_prefix(st.claude()).unwrap();
    let copy = to.join("claude").join(rel);
    assert_eq!(std::fs::read(&copy).unwrap(), gone[0].1);
    std::fs::write(&copy, "changed").unwrap();
    let refused = st.cmd().args(args).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8(refused.stderr)
            .unwrap()
            .contains("exists and differs from the archived copy; not overwritten (--force replaces it")
    );
    assert_eq!(std::fs::read(&copy).unwrap(), b"changed");
    assert_eq!(
        st.cmd().args(args).arg("--force").output().unwrap().status.code(),
        Some(0)
    );
    assert_eq!(std::fs::read(&copy).unwrap(), gone[0].1);
    // An id the archive does not hold is said, exit status 1.
    let missing = st.cmd().args(["restore", "no-such-session"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

/// Flips a bit in the middle of the archived chunk of `file`, a file of one chunk (so its chunk
/// is named by the file's hash); returns the chunk's path.
pub fn damage_chunk_of(st: &Stores, file: &Path) -> PathBuf {
    let sha = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(std::fs::read(file).unwrap());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let chunk = st.archive().join("chunks").join(&sha[..2]).join(format!("{sha}.zst"));
    let mut bytes = std::fs::read(&chunk).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&chunk, bytes).unwrap();
    chunk
}

#[test]
fn verify_names_a_damaged_chunk_and_the_file_it_belongs_to() {
    let st = generate(12);
    backup_json(&st);
    let ok = st.cmd().args(["backup", "--verify"]).output().unwrap();
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(ok.stdout.is_empty());
    // The chunk of one session (a file of one chunk: its chunk is named by its hash).
    let target = &st.sessions[3];
    let chunk = damage_chunk_of(&st, target);
    let bad = st.cmd().args(["backup", "--verify"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let said = String::from_utf8(bad.stdout).unwrap();
    assert!(said.contains(&format!("{}: damaged", chunk.display())), "{said}");
    assert!(said.contains(&format!("{}: its copy in ", target.display())), "{said}");
    // Restoring it refuses the damaged copy rather than writing wrong bytes.
    std::fs::remove_file(target).unwrap();
    let r = st.cmd().args(["restore", "--deleted"]).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(!target.exists());
}

#[test]
fn a_line_still_being_written_is_taken_by_the_next_run() {
    let st = generate(3);
    let s = &st.sessions[0];
    let whole = std::fs::read(s).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(s).unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"user\",\"mess").unwrap();
    drop(f);
    let first = backup_json(&st);
    assert_eq!(first["partial_lines"], 1);
    let to = st.dir.path().join("out");
    let id = s.file_stem().unwrap().to_str().unwrap();
    st.cmd()
        .args(["restore", id, "--to", to.to_str().unwrap()])
        .assert()
        .success();
    let copy = to.join("claude").join(s.strip_prefix(st.claude()).unwrap());
    assert_eq!(std::fs::read(&copy).unwrap(), whole);
    // The line is finished: the next run takes it.
    let mut f = std::fs::OpenOptions::new().append(true).open(s).unwrap();
    std::io::Write::write_all(&mut f, b"age\":{}}\n").unwrap();
    drop(f);
    let second = backup_json(&st);
    assert_eq!(second["partial_lines"], 0);
    assert_eq!(second["changed_files"], 1);
    st.cmd()
        .args(["restore", id, "--force", "--to", to.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(s).unwrap());
}

#[test]
fn an_interrupted_run_leaves_the_last_snapshot_usable() {
    let st = generate(5);
    backup_json(&st);
    // What a run killed before its manifest leaves: chunks nobody names, a temporary file.
    let snaps = st.archive().join("snapshots");
    std::fs::write(
        snaps.join(".20990101T000000000Z-1.json.zst.cctool-unfinished-1.tmp"),
        b"partial",
    )
    .unwrap();
    std::fs::create_dir_all(st.archive().join("chunks/00")).unwrap();
    std::fs::write(st.archive().join("chunks/00/.00ff.zst.cctool-unfinished-1.tmp"), b"x").unwrap();
    std::fs::remove_file(&st.sessions[1]).unwrap();
    let listed = records(&st.cmd().args(["restore", "--json"]).output().unwrap().stdout);
    assert_eq!(listed.iter().filter(|r| r["exists"] == false).count(), 1);
    st.cmd().args(["restore", "--deleted"]).assert().success();
    assert!(st.sessions[1].exists());
}

/// Sets a file's modification time `days` ago.
fn age(path: &Path, days: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
        .unwrap();
}

#[test]
fn doctor_names_the_sessions_a_seven_day_retention_deletes() {
    let st = generate(6);
    std::fs::write(st.claude().join("settings.json"), "{\n  \"cleanupPeriodDays\": 7\n}\n").unwrap();
    age(&st.sessions[0], 20);
    backup_json(&st);
    // Written to after the backup: its copy lacks the new line.
    let mut f = std::fs::OpenOptions::new().append(true).open(&st.sessions[1]).unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"system\"}\n").unwrap();
    drop(f);
    age(&st.sessions[1], 8);
    let out = st.cmd().args(["doctor", "--json"]).output().unwrap();
    let recs = records(&out.stdout);
    let r = recs
        .iter()
        .find(|r| r["kind"] == "retention")
        .expect("a retention record");
    assert_eq!(r["cleanup_period_days"], 7);
    assert_eq!(r["source"], st.claude().join("settings.json").to_str().unwrap());
    assert_eq!(r["sessions"], 6);
    assert_eq!(r["at_risk"], 2);
    assert_eq!(r["backed_up"], 1);
    assert_eq!(r["severity"], "warning");
    let named: Vec<(&str, bool)> = r["at_risk_sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["path"].as_str().unwrap(), a["backed_up"].as_bool().unwrap()))
        .collect();
    let mut want = vec![
        (st.sessions[0].to_str().unwrap(), true),
        (st.sessions[1].to_str().unwrap(), false),
    ];
    want.sort();
    assert_eq!(named, want);
    // As text: the message, then one line per session.
    let text = String::from_utf8(st.cmd().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(text.contains("cleanupPeriodDays is 7 (set in "), "{text}");
    assert!(text.contains("next start deletes 2 of 6 sessions"), "{text}");
    assert!(
        text.contains(&format!("NOT backed up  {}", st.sessions[1].display())),
        "{text}"
    );
    // A warning: --min-severity error leaves it out, as it does every other finding.
    let text = String::from_utf8(
        st.cmd()
            .args(["doctor", "--min-severity", "error"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(!text.contains("cleanupPeriodDays"), "{text}");
    // A project setting overrides the user's; 30 days and nothing old: nothing said.
    std::fs::create_dir_all(st.dir.path().join(".claude")).unwrap();
    std::fs::write(
        st.dir.path().join(".claude/settings.json"),
        "{\"cleanupPeriodDays\": 30}",
    )
    .unwrap();
    let recs = records(&st.cmd().args(["doctor", "--json"]).output().unwrap().stdout);
    assert!(recs.iter().all(|r| r["kind"] != "retention"));
}

#[test]
fn history_gives_the_prompts_of_deleted_sessions_marked_partial() {
    let st = generate(2);
    let out = st.cmd().args(["restore", "--from-history", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["kind"], "history_session");
    assert_eq!(recs[0]["partial"], true);
    assert_eq!(recs[0]["session_id"], "00000000-dead-4000-8000-000000000000");
    assert_eq!(recs[0]["prompts"][0]["text"], "fix the build");
    assert_eq!(recs[0]["prompts"][0]["timestamp"], "2026-03-01T10:00:00.000Z");
}
