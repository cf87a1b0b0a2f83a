//! Sessions named by id or id prefix (`docs/stores.md`, "Sessions named by id"): every
//! command taking PATH or FILE finds them in the user's stores, a fake home built from
//! `fixtures/store`.

use std::path::PathBuf;

use assert_cmd::Command;

use crate::util::{cctool, fixture};

const SHOP: &str = "a1b2c3d4-1111-4aaa-8aaa-00000000000a";
const CODEX_API: &str = "019d2a29-fe67-7632-b14f-5419a515b120";
const CODEX_SHOP: &str = "019d2a2a-0b11-7c22-8d33-4e445f667788";

/// A home holding the fixture stores, and the command run in an empty folder of it with that
/// home.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        crate::util::copy_tree(&fixture("store/.claude"), &dir.path().join(".claude"));
        crate::util::copy_tree(&fixture("store/.codex"), &dir.path().join(".codex"));
        std::fs::create_dir(dir.path().join("work")).unwrap();
        Home { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn shop(&self) -> PathBuf {
        self.path(&format!(".claude/projects/-home-dev-shop/{SHOP}.jsonl"))
    }

    fn cmd(&self) -> Command {
        let mut c = cctool();
        c.env("HOME", self.dir.path()).current_dir(self.path("work"));
        c
    }
}

fn stdout_of(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_id_prefix_reads_as_the_session_file_in_every_reading_command() {
    let h = Home::new();
    let shop = h.shop();
    let shop = shop.to_str().unwrap();
    for args in [
        vec!["rebuild-chain"],
        vec!["rebuild-chain", "--api-view"],
        vec!["scan", "--json"],
        vec!["doctor", "--json"],
        vec!["extract-summary"],
        vec!["export", "--format", "markdown"],
        vec!["compact", "--dry-run", "--json"],
        vec!["slim", "--dry-run", "--json"],
    ] {
        let by_path = stdout_of(h.cmd().args(&args).arg(shop));
        let by_id = stdout_of(h.cmd().args(&args).arg(&SHOP[..8]));
        assert_eq!(by_id, by_path, "{args:?}");
    }
    // A Codex rollout by its whole id, converted.
    let rollout = h.path(&format!(
        ".codex/sessions/2026/04/03/rollout-2026-04-03T14-00-00-{CODEX_API}.jsonl"
    ));
    let by_path = stdout_of(h.cmd().args(["convert", "--to", "claude-code"]).arg(&rollout));
    let by_id = stdout_of(h.cmd().args(["convert", "--to", "claude-code", CODEX_API]));
    assert_eq!(by_id, by_path);
}

#[test]
fn the_stores_are_the_ones_the_environment_names() {
    let h = Home::new();
    let mut c = cctool();
    c.env("CLAUDE_CONFIG_DIR", h.path(".claude"))
        .env("CODEX_HOME", h.path(".codex"))
        .current_dir(h.path("work"));
    let out = stdout_of(c.args(["scan", "--json", &CODEX_SHOP[..10], &SHOP[..8]]));
    assert_eq!(
        out.lines().filter(|l| l.contains("\"kind\":\"session\"")).count(),
        2,
        "{out}"
    );
    assert!(out.contains(CODEX_SHOP) && out.contains(SHOP), "{out}");
}

#[test]
fn an_ambiguous_prefix_is_refused_with_its_candidates() {
    let h = Home::new();
    let out = h.cmd().args(["rebuild-chain", "019d2a2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("019d2a2: no such file, and 2 sessions have an id starting with it"),
        "{err}"
    );
    for want in [
        CODEX_API,
        CODEX_SHOP,
        "codex, project api",
        "codex, project shop",
        "rollout-2026-04-06T14",
    ] {
        assert!(err.contains(want), "{want} in {err}");
    }
    // In a batch, the one argument is an error and the others are read.
    let out = h.cmd().args(["scan", "019d2a2", &SHOP[..8]]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("shop"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("019d2a2: error: no such file, and 2 sessions"));
}

#[test]
fn an_unknown_id_names_the_stores_searched() {
    let h = Home::new();
    let out = h.cmd().args(["compact", "--dry-run", "ffff0000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ffff0000: no such file, and no session id starts with it"),
        "{err}"
    );
    for store in [".claude/projects", ".codex/sessions"] {
        assert!(err.contains(&h.path(store).display().to_string()), "{store} in {err}");
    }
    // A name that cannot be an id is a missing file, as before.
    let out = h.cmd().args(["rebuild-chain", "notes.jsonl"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.jsonl: cannot read"));
}

#[test]
fn a_real_path_wins_over_an_id() {
    let h = Home::new();
    let other = fixture("claude/render.jsonl");
    std::fs::copy(&other, h.path(&format!("work/{}", &SHOP[..8]))).unwrap();
    let by_name = stdout_of(h.cmd().args(["rebuild-chain", &SHOP[..8]]));
    let other_out = stdout_of(h.cmd().arg("rebuild-chain").arg(&other));
    assert_eq!(by_name, other_out);
}

#[test]
fn a_file_whose_name_carries_no_id_is_known_by_its_head() {
    let h = Home::new();
    let renamed = h.path(".claude/projects/-home-dev-shop/kept.jsonl");
    std::fs::rename(h.shop(), &renamed).unwrap();
    let by_path = stdout_of(h.cmd().arg("rebuild-chain").arg(&renamed));
    assert_eq!(stdout_of(h.cmd().args(["rebuild-chain", &SHOP[..8]])), by_path);
}

#[test]
fn the_shortened_id_scan_prints_for_a_clash_is_accepted() {
    let h = Home::new();
    let by_path = stdout_of(h.cmd().arg("rebuild-chain").arg(h.shop()));
    assert_eq!(stdout_of(h.cmd().args(["rebuild-chain", "A1B2C3D4…0000a"])), by_path);
}

#[test]
fn tip_takes_a_unique_uuid_prefix() {
    let h = Home::new();
    let full = "6e0d1f2a-0000-4000-8000-000000000006";
    let text = std::fs::read_to_string(h.shop()).unwrap();
    std::fs::write(h.shop(), text.replace("a1b2c3d4-0000-4000-8000-000000000006", full)).unwrap();
    let whole = stdout_of(h.cmd().args(["rebuild-chain", SHOP, "--tip", full]));
    let prefix = stdout_of(h.cmd().args(["rebuild-chain", SHOP, "--tip", "6E0D"]));
    assert_eq!(prefix, whole);
    assert!(whole.contains(full), "{whole}");
    let out = h
        .cmd()
        .args(["rebuild-chain", SHOP, "--tip", "a1b2c3d4-0000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--tip a1b2c3d4-0000: 7 messages have a uuid starting with it"),
        "{err}"
    );
    assert!(err.contains("a1b2c3d4-0000-4000-8000-000000000001 (line 1)"), "{err}");
    assert!(err.contains(", and 2 more"), "{err}");
}
