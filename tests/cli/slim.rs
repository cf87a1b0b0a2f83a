//! `cctool slim`: duplicated payloads out, the resume unchanged, and back byte for byte.
//!
//! The fixtures `fixtures/slim/{claude,codex}.jsonl` come from
//! `cargo run --example gen-payloads -- fixtures/slim --image-kib 2 --compactions 3`: four
//! rounds, each with a pasted image (from a pool of three) and one the agent reads, separated
//! by three compactions.

use std::path::{Path, PathBuf};

use crate::util::{Client, cctool, fixture, realclient, records, stdout_of, write_aged};

/// What the client sends after resuming `file`, normalised (the run's own folder names out).
fn resume(script: &Path, file: &Path) -> String {
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(file)
        .arg("say ok")
        .env("VIEW_NORMALISE", "1")
        .output()
        .expect("run the harness");
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const AGENTS: &[&str] = &["claude", "codex"];

fn tmp_copy(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(format!("{name}.jsonl"));
    write_aged(&p, &std::fs::read(fixture(&format!("slim/{name}.jsonl"))).unwrap());
    p
}

fn slim_json(args: &[&str]) -> serde_json::Value {
    let out = cctool().arg("slim").arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut r = records(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(r.len(), 1);
    r.remove(0)
}

fn counts(r: &serde_json::Value) -> [u64; 7] {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    [
        n("bytes_before"),
        n("bytes_after"),
        n("payloads"),
        n("deduplicated"),
        n("replaced"),
        n("extracted"),
        n("kept_sent"),
    ]
}

/// The measured savings of the generated sessions: every copy a resume does not send becomes
/// a reference; the copies it sends stay (two images in Claude Code's last round, the five of
/// the Codex history since its last compaction).
#[test]
fn duplicates_become_references_and_the_sent_copies_stay() {
    let dir = tempfile::tempdir().unwrap();
    let expected = [
        ("claude", [49_004, 24_533, 3, 9, 0, 0, 2]),
        ("codex", [63_025, 27_509, 3, 13, 0, 0, 5]),
    ];
    for (name, want) in expected {
        let src = tmp_copy(dir.path(), name);
        let out = dir.path().join(format!("{name}.slim.jsonl"));
        let r = slim_json(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(counts(&r), want, "{name}: {r}");
        assert_eq!(
            std::fs::metadata(&out).unwrap().len(),
            want[1],
            "{name}: bytes_after is the file written"
        );
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            text.matches(", kept once in this file]\"").count() as u64,
            want[3],
            "{name}"
        );
    }
}

/// The api-view records with the file's name and the run's time taken out.
fn same_view(stdout: &str, file: &str) -> String {
    let re = regex::Regex::new(r#""as_of":"[^"]*""#).unwrap();
    re.replace_all(&stdout.replace(file, "F"), "").into_owned()
}

/// What a resume sends is the same before and after, as cctool emulates it, and so are the
/// summaries; `--images outside-window` changes nothing a resume loads either.
#[test]
fn the_resume_and_the_summaries_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("payloads");
    for name in AGENTS {
        let src = tmp_copy(dir.path(), name);
        let before_view = stdout_of(&["rebuild-chain", "--api-view", "--json", src.to_str().unwrap()]);
        let before_sum = stdout_of(&["extract-summary", "--json", src.to_str().unwrap()]);
        for extra in [
            &[][..],
            &["--images", "outside-window", "--extract", x.to_str().unwrap()][..],
        ] {
            let out = dir.path().join(format!("{name}.{}.jsonl", extra.len()));
            let mut args = vec![src.to_str().unwrap(), "-o", out.to_str().unwrap()];
            args.extend_from_slice(extra);
            slim_json(&args);
            let o = out.to_str().unwrap();
            let view = stdout_of(&["rebuild-chain", "--api-view", "--json", o]);
            assert!(
                same_view(&view, o) == same_view(&before_view, src.to_str().unwrap()),
                "{name} {extra:?}: the request differs"
            );
            let sum = stdout_of(&["extract-summary", "--json", o]);
            assert_eq!(
                sum.replace(o, "F"),
                before_sum.replace(src.to_str().unwrap(), "F"),
                "{name}"
            );
        }
    }
}

/// Slimmed, extracted, then restored: the original file byte for byte.
#[test]
fn restore_gives_back_the_original_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("payloads");
    for name in AGENTS {
        let src = tmp_copy(dir.path(), name);
        let original = std::fs::read(&src).unwrap();
        for (i, extra) in [
            vec![],
            vec!["--images", "outside-window", "--extract", x.to_str().unwrap()],
            vec!["--images", "all", "--extract", x.to_str().unwrap()],
            vec!["--max-payload", "1K", "--extract", x.to_str().unwrap()],
        ]
        .into_iter()
        .enumerate()
        {
            let out = dir.path().join(format!("{name}.{i}.jsonl"));
            let back = dir.path().join(format!("{name}.{i}.back.jsonl"));
            let mut args = vec![src.to_str().unwrap(), "-o", out.to_str().unwrap()];
            args.extend_from_slice(&extra);
            let r = slim_json(&args);
            assert!(r["bytes_after"].as_u64() < r["bytes_before"].as_u64(), "{r}");
            let r = slim_json(&[
                "--restore",
                x.to_str().unwrap(),
                out.to_str().unwrap(),
                "-o",
                back.to_str().unwrap(),
            ]);
            assert_eq!(r["bytes_after"].as_u64(), Some(original.len() as u64), "{r}");
            assert!(
                std::fs::read(&back).unwrap() == original,
                "{name} {extra:?}: not the original"
            );
        }
    }
    // Each payload was written once, named by the sha256 of its bytes.
    for e in std::fs::read_dir(&x).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(p.file_name().unwrap().to_str().unwrap(), format!("{hex}.png"));
        assert!(bytes.starts_with(b"\x89PNG"));
    }
}

/// A payload taken out without its folder cannot be put back: the error names the line and
/// the file it looked for, and nothing is written.
#[test]
fn restore_without_the_payload_says_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("payloads");
    let src = tmp_copy(dir.path(), "claude");
    let out = dir.path().join("s.jsonl");
    slim_json(&[
        src.to_str().unwrap(),
        "--images",
        "outside-window",
        "--extract",
        x.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let back = dir.path().join("back.jsonl");
    let empty = dir.path().join("empty");
    let o = cctool()
        .args([
            "slim",
            "--restore",
            empty.to_str().unwrap(),
            out.to_str().unwrap(),
            "-o",
        ])
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 11: the payload sha256:"), "{err}");
    assert!(err.contains("give --restore the folder it was extracted to"), "{err}");
    assert!(!back.exists());
}

/// `--images` without `--extract` would lose payloads: refused before anything is read.
#[test]
fn taking_payloads_out_needs_a_folder_to_keep_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = tmp_copy(dir.path(), "codex");
    let o = cctool()
        .args(["slim", "--images", "all", src.to_str().unwrap(), "-o"])
        .arg(dir.path().join("o.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give --extract DIR"));
    let o = cctool().args(["slim", src.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-o OUT, --in-place, or --dry-run"));
}

/// A dry run writes nothing and exits 1 when something would change.
#[test]
fn a_dry_run_counts_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = tmp_copy(dir.path(), "codex");
    let x = dir.path().join("x");
    let o = cctool()
        .args(["slim", "--dry-run", "--images", "outside-window", src.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "{}: would be 63 KB -> 28 KB: 3 payloads, 13 copies replaced by a reference, 0 by a placeholder, 0 files extracted, 5 sent on resume and kept\n",
            src.display()
        )
    );
    assert!(!x.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// In place: the migrate protocol (a backup beside the file, a live file refused without
/// --force); a file with nothing to slim is left alone, without a backup.
#[test]
fn in_place_keeps_a_backup_and_refuses_live_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = tmp_copy(dir.path(), "claude");
    let original = std::fs::read(&src).unwrap();
    let r = slim_json(&["--in-place", src.to_str().unwrap()]);
    let backup = dir.path().join("claude.jsonl.slim.bak");
    assert_eq!(r["backup"].as_str(), Some(backup.to_str().unwrap()));
    assert!(std::fs::read(&backup).unwrap() == original);
    assert_eq!(
        std::fs::metadata(&src).unwrap().len(),
        r["bytes_after"].as_u64().unwrap()
    );
    // Slimmed already: nothing to do, no second backup.
    write_aged(&src, &std::fs::read(&src).unwrap());
    let r = slim_json(&["--in-place", src.to_str().unwrap()]);
    assert_eq!(r["backup"], serde_json::Value::Null);
    assert_eq!(r["bytes_after"], r["bytes_before"]);
    // Just written: may be live.
    let fresh = dir.path().join("fresh.jsonl");
    std::fs::write(&fresh, &original).unwrap();
    let o = cctool().args(["slim", "--in-place"]).arg(&fresh).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not slimmed: modified"));
    assert!(std::fs::read(&fresh).unwrap() == original);
    slim_json(&["--in-place", "--force", fresh.to_str().unwrap()]);
    assert!(std::fs::metadata(&fresh).unwrap().len() < original.len() as u64);
}

/// The real clients resume the slimmed files and send exactly what they sent before
/// (skipped where they are not installed).
#[test]
fn the_real_clients_send_the_same_request() {
    for (name, client) in [("claude", Client::ClaudeCode), ("codex", Client::Codex)] {
        let Some(script) = realclient(client) else { continue };
        let dir = tempfile::tempdir().unwrap();
        let src = tmp_copy(dir.path(), name);
        let x = dir.path().join("x");
        let out = dir.path().join("slim.jsonl");
        slim_json(&[
            src.to_str().unwrap(),
            "--images",
            "outside-window",
            "--extract",
            x.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        let before = resume(&script, &src);
        let after = resume(&script, &out);
        assert!(before.contains("iVBORw0KGgo"), "{name}: the request holds images");
        assert!(before == after, "{name}: the requests differ");
    }
}
