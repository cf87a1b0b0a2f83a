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
    crate::util::resume_text(script, file, &[("VIEW_NORMALISE", "1")])
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

/// `slim --images WHICH --extract X -o OUT SRC`, its record.
fn slim_images(src: &Path, which: &str, x: &Path, out: &Path) -> serde_json::Value {
    slim_json(&[
        src.to_str().unwrap(),
        "--images",
        which,
        "--extract",
        x.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
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
    slim_images(&src, "outside-window", &x, &out);
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

/// A payload's file that holds other bytes is not put back: the error names the line, the
/// file and both hashes, and nothing is written.
#[test]
fn restore_from_a_changed_payload_file_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("payloads");
    let src = tmp_copy(dir.path(), "claude");
    let out = dir.path().join("s.jsonl");
    slim_images(&src, "outside-window", &x, &out);
    let payload = std::fs::read_dir(&x).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&payload, b"not the image").unwrap();
    let back = dir.path().join("back.jsonl");
    let o = cctool()
        .args(["slim", "--restore", x.to_str().unwrap(), out.to_str().unwrap(), "-o"])
        .arg(&back)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let name = payload.file_name().unwrap().to_str().unwrap();
    assert!(err.contains("line 11: "), "{err}");
    assert!(
        err.contains(&format!("{name} does not hold the payload sha256:")),
        "{err}"
    );
    assert!(err.contains("; nothing written"), "{err}");
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
        slim_images(&src, "outside-window", &x, &out);
        let before = resume(&script, &src);
        let after = resume(&script, &out);
        assert!(before.contains("iVBORw0KGgo"), "{name}: the request holds images");
        assert!(before == after, "{name}: the requests differ");
    }
}

/// The placeholders of a request made comparable with the images they replaced: each image
/// (Claude Code's image block, Codex's data URL) and each placeholder text block become
/// `IMG:<sha256>`.
fn images_as_hashes(v: &mut serde_json::Value) {
    use base64::Engine;
    use sha2::Digest;
    let hash = |b64: &str| -> String {
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let placeholder = regex::Regex::new(
        r"^\[image/png( data URL)? [0-9.]+ [KM]?B, sha256:([0-9a-f]{64}), saved as [0-9a-f]{64}\.png\]$",
    )
    .unwrap();
    match v {
        serde_json::Value::Object(m) => {
            let ty = m.get("type").and_then(|t| t.as_str()).unwrap_or_default().to_string();
            let text = m.get("text").and_then(|t| t.as_str()).map(str::to_string);
            if ty == "image"
                && let Some(d) = m.get("source").and_then(|s| s.get("data")).and_then(|d| d.as_str())
            {
                *v = serde_json::Value::from(format!("IMG:{}", hash(d)));
            } else if ty == "input_image"
                && let Some(u) = m.get("image_url").and_then(|u| u.as_str())
            {
                *v = serde_json::Value::from(format!("IMG:{}", hash(u.split_once(',').unwrap().1)));
            } else if let Some(t) = &text
                && let Some(c) = placeholder.captures(t)
            {
                *v = serde_json::Value::from(format!("IMG:{}", &c[2]));
            } else if let Some(t) = text {
                // Claude Code joins a user row that starts with text to the text before it
                // with a newline (docs/claude-code-request.md#merge-consecutive-user-rows):
                // a placeholder where an image was adds that seam.
                m.insert("text".into(), serde_json::Value::from(t.trim_end_matches('\n')));
            } else {
                m.values_mut().for_each(images_as_hashes);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(images_as_hashes),
        _ => {}
    }
}

/// `--images all` replaces the images a resume sends by a text block naming the extracted
/// file: the real clients send the same request except exactly those (and the newline
/// Claude Code puts between a text and the text block that follows it), and every image of
/// the request is replaced.
#[test]
fn images_all_sends_placeholders_instead_of_the_images() {
    for (name, client) in [("claude", Client::ClaudeCode), ("codex", Client::Codex)] {
        let Some(script) = realclient(client) else { continue };
        let dir = tempfile::tempdir().unwrap();
        let src = tmp_copy(dir.path(), name);
        let x = dir.path().join("x");
        let out = dir.path().join("slim.jsonl");
        let r = slim_images(&src, "all", &x, &out);
        assert_eq!(r["kept_sent"], 0, "{r}");
        let mut before: serde_json::Value = serde_json::from_str(&resume(&script, &src)).unwrap();
        let after_text = resume(&script, &out);
        assert!(!after_text.contains("iVBORw0KGgo"), "{name}: an image is still sent");
        let mut after: serde_json::Value = serde_json::from_str(&after_text).unwrap();
        images_as_hashes(&mut before);
        images_as_hashes(&mut after);
        assert!(before.to_string().contains("IMG:"));
        assert!(before == after, "{name}: the requests differ beyond the images");
    }
}

/// A Claude Code session whose request is over the API's 32 MB: doctor says so with the
/// size; after `slim --images all` it does not, and the real client resumes it.
#[test]
fn a_request_over_32_mb_is_reported_and_slim_repairs_it() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.jsonl");
    let mut text = String::new();
    let mut parent = serde_json::Value::Null;
    for i in 0..12u32 {
        let bytes: Vec<u8> = (0..2_400_000u32)
            .map(|k| (k.wrapping_mul(2_654_435_761).wrapping_add(i) >> 13) as u8)
            .collect();
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(bytes);
        let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        let user = serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": "user",
            "message": {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64}},
                {"type": "text", "text": format!("screenshot {i}")}]},
            "uuid": uuid, "timestamp": format!("2026-11-20T10:00:{:02}.000Z", 2 * i), "sessionId": "s", "version": "2.1.332"});
        let reply = format!("00000000-0000-4000-8000-{:012}", 100 + i);
        let assistant = serde_json::json!({"parentUuid": uuid, "isSidechain": false, "type": "assistant",
            "message": {"id": format!("msg_{i}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": "seen"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}},
            "uuid": reply, "timestamp": format!("2026-11-20T10:00:{:02}.000Z", 2 * i + 1), "sessionId": "s", "version": "2.1.332"});
        text.push_str(&format!("{user}\n{assistant}\n"));
        parent = serde_json::Value::from(reply);
    }
    write_aged(&f, text.as_bytes());
    let doctor = |p: &Path| {
        let o = cctool()
            .args(["doctor", "--json", "--code", "request-too-large"])
            .arg(p)
            .output()
            .unwrap();
        (o.status.code(), records(&String::from_utf8(o.stdout).unwrap()))
    };
    let (status, recs) = doctor(&f);
    assert_eq!(status, Some(1));
    let finding = recs
        .iter()
        .find(|r| r["code"] == "request-too-large")
        .expect("reported");
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["line"], 1);
    let m = finding["message"].as_str().unwrap();
    assert!(m.starts_with("the messages a resume sends take 38.4 MB ("), "{m}");
    assert!(m.contains("over the API's 32 MB request limit (32000000 bytes)"), "{m}");
    assert!(m.contains("cctool slim --images all --extract DIR"), "{m}");

    let out = dir.path().join("slim.jsonl");
    let x = dir.path().join("x");
    let r = slim_images(&f, "all", &x, &out);
    assert_eq!(r["replaced"], 12, "{r}");
    let (status, recs) = doctor(&out);
    assert_eq!(status, Some(0), "{recs:?}");
    if let Some(script) = realclient(Client::ClaudeCode) {
        let sent = resume(&script, &out);
        assert!(
            sent.contains("screenshot 11") && sent.contains("sha256:"),
            "resumed with the placeholders"
        );
    }
}

/// A subagent transcript over 5 MiB, which Claude Code skips on resume, is a warning.
#[test]
fn a_subagent_transcript_over_5_mib_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("proj/5e551000-0000-4000-8000-000000000001/subagents");
    std::fs::create_dir_all(&sub).unwrap();
    let f = sub.join("agent-a1.jsonl");
    let row = serde_json::json!({"parentUuid": null, "isSidechain": true, "type": "user", "agentId": "a1",
        "message": {"role": "user", "content": "x".repeat(6 << 20)},
        "uuid": "00000000-0000-4000-8000-000000000001", "timestamp": "2026-11-20T10:00:00.000Z", "sessionId": "s"});
    write_aged(&f, format!("{row}\n").as_bytes());
    let o = cctool()
        .args(["doctor", "--json", "--code", "subagent-too-large"])
        .arg(&f)
        .output()
        .unwrap();
    let recs = records(&String::from_utf8(o.stdout).unwrap());
    let finding = recs
        .iter()
        .find(|r| r["code"] == "subagent-too-large")
        .expect("reported");
    assert_eq!(finding["severity"], "warning");
    let m = finding["message"].as_str().unwrap();
    assert!(
        m.starts_with("a subagent transcript of 6.3 MB (6291664 bytes), over the 5 MiB"),
        "{m}"
    );
    // The same file as a session is not a subagent.
    let g = dir.path().join("5e551000-0000-4000-8000-000000000002.jsonl");
    std::fs::copy(&f, &g).unwrap();
    let o = cctool()
        .args(["doctor", "--json", "--code", "subagent-too-large"])
        .arg(&g)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("subagent-too-large"));
}

/// `scan` shows the payload bytes slim works on (every copy, the same count slim reports)
/// and, for Claude Code, the bytes of the messages a resume sends.
#[test]
fn scan_shows_payload_and_request_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, payload, request) in [("claude", 33_984, Some(6_540)), ("codex", 50_976, None)] {
        let src = tmp_copy(dir.path(), name);
        let scan = |p: &Path| {
            let r = records(&stdout_of(&["scan", "--json", p.to_str().unwrap()]));
            r.into_iter().find(|r| r["kind"] == "session").unwrap()
        };
        let r = scan(&src);
        assert_eq!(r["payload_bytes"], payload, "{name}");
        assert_eq!(r["request_bytes"].as_u64(), request, "{name}");
        let o = cctool()
            .args(["slim", "--json", "--dry-run"])
            .arg(&src)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "a dry run that would change something");
        let counted = &records(&String::from_utf8(o.stdout).unwrap())[0];
        assert_eq!(counted["payload_bytes"], payload);
        let out = dir.path().join(format!("{name}.slim.jsonl"));
        slim_json(&[src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let after = scan(&out);
        assert!(after["payload_bytes"].as_u64() < Some(payload), "{after}");
        assert_eq!(
            after["request_bytes"], r["request_bytes"],
            "{name}: the request is the same"
        );
    }
}

/// Several inputs go to an output folder, each under its own name; a file of another format
/// is an error naming it, and the others are still slimmed.
#[test]
fn several_inputs_go_to_a_folder_and_a_bad_one_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let a = tmp_copy(dir.path(), "claude");
    let b = tmp_copy(dir.path(), "codex");
    let session = dir.path().join("s.v5.json");
    std::fs::copy(fixture("session/with_summary.v5.json"), &session).unwrap();
    let out = dir.path().join("out");
    let o = cctool()
        .arg("slim")
        .args([&a, &session, &b])
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("s.v5.json: a cctool-session file holds no payloads slim knows"),
        "{err}"
    );
    assert!(out.join("claude.jsonl").is_file() && out.join("codex.jsonl").is_file());
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);
}
