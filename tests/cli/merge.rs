//! `cctool merge` and `restore --map` (docs/backup.md, "Merging machines"): two machines' homes
//! (the store fixtures, then each resumed its own way) merge into one archive with every
//! session once and every divergence reported; a second merge adds nothing; the merged
//! archive restored with `--map` on a third home puts each session where the agents of that
//! machine find it, its directories mapped, and the real clients resume it there.

use std::path::Path;

use crate::util::{Client, age, cctool, copy_tree, fixture, realclient};

const SHOP: &str = ".claude/projects/-home-dev-shop";
const A1: &str = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
const B2: &str = "b2c3d4e5-2222-4bbb-8bbb-00000000000b";

fn line(session: &str, text: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"type": "user", "uuid": format!("{text:0>8}-0000-4000-8000-000000000001"),
            "parentUuid": null, "sessionId": session, "cwd": "/home/dev/shop",
            "timestamp": "2026-12-01T10:00:00.000Z", "message": {"role": "user", "content": text}})
    )
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    age(path);
}

/// Machine A and machine B, both from the store fixtures: A1 resumed on each (diverged), B2
/// grown on B only (A's copy is its start), one `api` session on each only (disjoint), the
/// Codex rollouts the same on both (identical).
fn machines() -> (tempfile::TempDir, tempfile::TempDir) {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for m in [&a, &b] {
        copy_tree(&fixture("store/.claude"), &m.path().join(".claude"));
        copy_tree(&fixture("store/.codex"), &m.path().join(".codex"));
    }
    append(&a.path().join(SHOP).join(format!("{A1}.jsonl")), &line(A1, "on-a"));
    append(&b.path().join(SHOP).join(format!("{A1}.jsonl")), &line(A1, "on-b"));
    append(&b.path().join(SHOP).join(format!("{B2}.jsonl")), &line(B2, "more"));
    std::fs::remove_file(
        a.path()
            .join(".claude/projects/-home-dev-api/d4e5f6a7-4444-4ddd-8ddd-00000000000d.jsonl"),
    )
    .unwrap();
    std::fs::remove_file(
        b.path()
            .join(".claude/projects/-home-dev-api/c3d4e5f6-3333-4ccc-8ccc-00000000000c.jsonl"),
    )
    .unwrap();
    (a, b)
}

fn merge(args: &[&Path], to: &Path) -> serde_json::Value {
    let mut cmd = cctool();
    cmd.args(["merge", "--json", "--to"]).arg(to).args(args);
    let out = cmd.assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn every_session_once_and_every_divergence_reported() {
    let (a, b) = machines();
    let arc = tempfile::tempdir().unwrap();
    let r = merge(&[a.path(), b.path()], arc.path());
    assert_eq!(r["kind"], "merge");
    // A: 4 Claude Code files (2 shop sessions, a subagent, one api session) and 2 rollouts;
    // B the same.
    assert_eq!(r["files"], 12, "{r}");
    assert_eq!(r["identical"], 3, "the two rollouts and B2's subagent, on both: {r}");
    assert_eq!(
        r["kept"], 8,
        "A1 twice, B2 and its subagent, two api sessions, two rollouts: {r}"
    );
    assert_eq!(r["prefixes"], 1, "A's B2 is the start of B's: {r}");
    let diverged = r["diverged"].as_array().unwrap();
    assert_eq!(diverged.len(), 1, "{r}");
    assert_eq!(diverged[0]["session"], A1);
    assert_eq!(diverged[0]["copies"].as_array().unwrap().len(), 2);
    assert!(r["snapshot"].is_string());
    // Every session once: scan of the archive lists each id once, A1 twice (its two copies).
    let scan = cctool().args(["scan", "--json"]).arg(arc.path()).output().unwrap();
    let ids: Vec<String> = crate::util::records(&String::from_utf8_lossy(&scan.stdout))
        .iter()
        .filter(|r| r["kind"] == "session" && !r["path"].as_str().unwrap().contains("/subagents/"))
        .filter_map(|r| r["session_id"].as_str().map(str::to_string))
        .collect();
    for id in [
        B2,
        "c3d4e5f6-3333-4ccc-8ccc-00000000000c",
        "d4e5f6a7-4444-4ddd-8ddd-00000000000d",
    ] {
        assert_eq!(ids.iter().filter(|i| *i == id).count(), 1, "{id}: {ids:?}");
    }
    assert_eq!(ids.iter().filter(|i| *i == A1).count(), 2, "{ids:?}");
    // B's B2, the longer, is the one kept.
    let b2 = std::fs::read(b.path().join(SHOP).join(format!("{B2}.jsonl"))).unwrap();
    let got = cctool()
        .args(["restore", "--from"])
        .arg(arc.path())
        .arg(B2)
        .arg("--to")
        .arg(arc.path().join("out"))
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let restored = std::fs::read(
        arc.path()
            .join("out/claude/projects/-home-dev-shop")
            .join(format!("{B2}.jsonl")),
    )
    .unwrap();
    assert_eq!(restored, b2);

    // Again: nothing new. An archive as a source merges as its home did.
    let again = merge(&[a.path(), b.path()], arc.path());
    assert!(again["snapshot"].is_null(), "{again}");
    let backup_of_a = tempfile::tempdir().unwrap();
    cctool()
        .env("HOME", a.path())
        .args(["-q", "backup", "--to"])
        .arg(backup_of_a.path())
        .assert()
        .success();
    let other = tempfile::tempdir().unwrap();
    let via_archive = merge(&[backup_of_a.path(), b.path()], other.path());
    for k in ["files", "kept", "identical", "prefixes"] {
        assert_eq!(via_archive[k], r[k], "{k}");
    }
}

#[test]
fn a_merged_archive_restored_with_a_map_on_a_third_home() {
    let (a, b) = machines();
    let arc = tempfile::tempdir().unwrap();
    merge(&[a.path(), b.path()], arc.path());
    let third = crate::store::codex_home_with_index();
    let home = third.path().join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::rename(third.path().join("state_5.sqlite"), home.join(".codex/state_5.sqlite")).unwrap();
    let restore = || {
        cctool()
            .env("HOME", &home)
            .args(["restore", "--deleted", "--map", "/home/dev=/srv/dev", "--from"])
            .arg(arc.path())
            .output()
            .unwrap()
    };
    let out = restore();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shop = home.join(".claude/projects/-srv-dev-shop");
    let a1 = std::fs::read_to_string(shop.join(format!("{A1}.jsonl"))).unwrap();
    assert!(
        a1.contains(r#""cwd":"/srv/dev/shop""#) && !a1.contains(r#""cwd":"/home/dev"#),
        "{a1}"
    );
    assert!(a1.contains("on-a"));
    let kept = std::fs::read_dir(&shop)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(&format!("{A1}.jsonl.diverged-")))
        .expect("the other copy beside it");
    assert!(std::fs::read_to_string(shop.join(kept)).unwrap().contains("on-b"));
    assert!(shop.join(B2).join("subagents/agent-b2c3.jsonl").is_file());
    let db = rusqlite::Connection::open(home.join(".codex/state_5.sqlite")).unwrap();
    let cwds: Vec<String> = db
        .prepare("SELECT cwd FROM threads ORDER BY cwd")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(cwds, ["/srv/dev/api", "/srv/dev/shop"]);
    let again = restore();
    assert!(again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("0 files restored"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// The real Claude Code, run in the mapped folder of the third home, resumes the merged and
/// restored session by id, with its last prompt.
#[test]
fn real_claude_code_resumes_a_session_restored_from_a_merge() {
    let Some(view) = realclient(Client::ClaudeCode) else {
        return;
    };
    let script = view.with_file_name("cc-store-view.sh");
    let (a, b) = machines();
    let arc = tempfile::tempdir().unwrap();
    merge(&[a.path(), b.path()], arc.path());
    let third = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(third.path()).unwrap();
    let work = root.join("srv/shop");
    std::fs::create_dir_all(&work).unwrap();
    let home = root.join("home");
    let map = format!("/home/dev/shop={}", work.display());
    cctool()
        .env("HOME", &home)
        .args(["-q", "restore", "--deleted", "--map", &map, "--from"])
        .arg(arc.path())
        .assert()
        .success();
    let sent =
        crate::store::store_view(&script, &home.join(".claude"), &work, B2).expect("resumed in the mapped folder");
    assert!(sent.contains("more"), "{sent}");
}
