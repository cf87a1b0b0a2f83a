//! What `rebuild-chain --api-view` builds of each fixture (`cctool_pi::api::body`, rules
//! P5–P12 of docs/pi.md) equals the request pi 1.6.0 sent after resuming it with the prompt
//! "say ok", as `scripts/realclient/pi/refresh-context.sh` recorded it (`NAME.sent.json`); and,
//! where pi is installed (`scripts/realclient/pi/install.sh`), equals what it sends now on the
//! fixtures and on the shared real sessions (`CCTOOL_SAMPLES`).
//!
//! The harness resumes a copy whose header `cwd` is `/tmp` (pi refuses a session whose folder is
//! gone), so the emulation is asked about the same copy.

use std::path::{Path, PathBuf};
use std::process::Command;

use cctool_pi::api::{self, NotEmulated};
use serde_json::Value;

const PROMPT: &str = "say ok";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The file's bytes with its header's `cwd` made `/tmp`, as the harness resumes it.
fn at_tmp(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    let Ok(mut header) = serde_json::from_slice::<Value>(&bytes[..end]) else {
        return bytes;
    };
    if header.get("type").and_then(Value::as_str) != Some("session") {
        return bytes;
    }
    header["cwd"] = "/tmp".into();
    let mut out = serde_json::to_vec(&header).unwrap();
    out.extend_from_slice(&bytes[end..]);
    out
}

fn request(path: &Path) -> Result<Value, NotEmulated> {
    let src = cctool_core::io::Source::from_bytes(&path.display().to_string(), at_tmp(path));
    let s = cctool_pi::file::read(&src).unwrap();
    let t = cctool_pi::tree::Tree::of(&s);
    api::body(&s, &t, Some(PROMPT), api::DEFAULT_PACKAGE_DIR)
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/pi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

/// Compares `got` with what pi sent, `want`, naming the first message that differs.
fn same(f: &Path, got: Result<Value, NotEmulated>, want: &Value) {
    match got {
        Ok(got) => {
            if &got != want {
                let (g, w) = (&got["messages"], &want["messages"]);
                let first = (0..g.as_array().map_or(0, Vec::len)).find(|&i| g[i] != w[i]);
                panic!(
                    "{}: the request differs; first differing message {first:?}: {} / pi sent {}",
                    f.display(),
                    first.map_or(String::new(), |i| g[i].to_string()),
                    first.map_or(String::new(), |i| w[i].to_string())
                );
            }
        }
        Err(e) => panic!("{}: refused: {e}", f.display()),
    }
}

#[test]
fn the_request_equals_the_recorded_one_of_every_fixture() {
    let all = fixtures();
    // The sessions pi 1.6.0 ran itself, whose system messages record its prompt and tools.
    let ran = all
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy().starts_with("ran-")))
        .count();
    assert!(all.len() >= 12 && ran >= 5, "the pi fixtures are missing");
    for f in all {
        let want: Value = serde_json::from_slice(&std::fs::read(f.with_extension("sent.json")).unwrap()).unwrap();
        same(&f, request(&f), &want);
    }
}

/// Says on stderr itself, which the harness does not capture, that a check was skipped.
fn skip(why: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("skipped: {why}\n").as_bytes());
}

#[test]
fn the_request_equals_what_the_installed_pi_sends() {
    let root = std::env::var_os("CCTOOL_REALCLIENTS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cctool-realclients")));
    if !root.is_some_and(|r| r.join("pi/node_modules/.bin/node").exists()) {
        skip("pi is not installed (scripts/realclient/pi/install.sh)");
        return;
    }
    let mut files = fixtures();
    match std::env::var_os("CCTOOL_SAMPLES").map(|d| PathBuf::from(d).join("pi/real")) {
        Some(samples) if samples.is_dir() => {
            let mut real: Vec<PathBuf> = std::fs::read_dir(&samples)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            real.sort();
            files.extend(real);
        }
        _ => skip("no real pi sessions (CCTOOL_SAMPLES names no folder with pi/real)"),
    }
    let script = repo().join("scripts/realclient/pi/pi-resume-view.sh");
    for f in files {
        let out = Command::new(&script)
            .arg(&f)
            .arg(PROMPT)
            .env("VIEW_CWD", "/tmp")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let want: Value = serde_json::from_slice(&out.stdout).unwrap();
        same(&f, request(&f), &want);
    }
}

/// A session of `lines` (JSON values, one a line) after a header, as the view reads it.
fn request_of(lines: &[Value]) -> Result<Value, NotEmulated> {
    let mut text =
        String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/tmp"}"#);
    for l in lines {
        text.push('\n');
        text.push_str(&l.to_string());
    }
    let src = cctool_core::io::Source::from_bytes("inline.jsonl", text.into_bytes());
    let s = cctool_pi::file::read(&src).unwrap();
    let t = cctool_pi::tree::Tree::of(&s);
    api::body(&s, &t, Some(PROMPT), api::DEFAULT_PACKAGE_DIR)
}

fn system(id: &str, parent: Option<&str>, message: Value) -> Value {
    let mut m = message;
    m["role"] = "system".into();
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-05-01T10:00:01.000Z", "message": m})
}

#[test]
fn a_loadout_naming_a_tool_pi_does_not_build_in_is_refused_with_its_line() {
    let tool = serde_json::json!({"name": "deploy", "description": "d", "parameters": {"type": "object"}});
    let got = request_of(&[system(
        "a1",
        None,
        serde_json::json!({"content": "", "toolsAdded": [tool]}),
    )]);
    match got {
        Err(e @ NotEmulated::UnknownTool(2, _)) => assert!(e.to_string().contains("\"deploy\""), "{e}"),
        other => panic!("{other:?}"),
    }
    // Removed again, it is no longer restored, and the view holds.
    let got = request_of(&[
        system("a1", None, serde_json::json!({"content": "", "toolsAdded": [tool]})),
        system(
            "a2",
            Some("a1"),
            serde_json::json!({"content": "", "toolsRemoved": [{"name": "deploy"}]}),
        ),
    ])
    .unwrap();
    // Nothing left declared: no tools, and a prompt without tool rules.
    assert!(got.get("tools").is_none(), "{got}");
    assert!(
        got["messages"][0]["content"].as_str().unwrap().contains("(none)"),
        "{got}"
    );
}

#[test]
fn system_messages_pi_cannot_replay_are_refused_with_their_line_not_a_panic() {
    for (bad, why) in [
        (serde_json::json!({"content": 5}), "content"),
        (serde_json::json!({"content": "", "sections": "preamble"}), "sections"),
        (
            serde_json::json!({"content": "", "sections": {"rules": 3}}),
            "section \"rules\"",
        ),
        (
            serde_json::json!({"content": "", "toolsAdded": {"name": "read"}}),
            "toolsAdded",
        ),
        (
            serde_json::json!({"content": "", "toolsRemoved": ["read"]}),
            "toolsRemoved",
        ),
    ] {
        match request_of(&[system("a1", None, bad.clone())]) {
            Err(e @ NotEmulated::Malformed(2, _)) => assert!(e.to_string().contains(why), "{bad}: {e}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}
