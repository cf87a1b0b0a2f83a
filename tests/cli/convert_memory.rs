//! `cctool convert` of a large session in bounded memory: the conversation is streamed from
//! the reader to the writer, never held whole (`docs/convert.md#performance`).

use std::path::Path;

use serde_json::json;

use crate::special_inputs::peak_rss_kib;
use crate::util::*;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A Claude Code transcript of about `mib` MiB: turns of a prompt, a call and its large
/// output, and a reply.
fn big_claude(mib: usize) -> Vec<u8> {
    let pad = "o".repeat(16_000);
    let mut out = Vec::with_capacity((mib + 1) << 20);
    let mut parent = serde_json::Value::Null;
    let mut n = 0usize;
    let mut row = |out: &mut Vec<u8>, parent: &mut serde_json::Value, ty: &str, message: serde_json::Value| {
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let ts = format!(
            "2026-01-01T{:02}:{:02}:{:02}.000Z",
            (n / 3600) % 24,
            (n / 60) % 60,
            n % 60
        );
        let rec = json!({"parentUuid": parent, "type": ty, "uuid": uuid, "timestamp": ts, "sessionId": "s",
                         "cwd": "/w", "message": message});
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
        *parent = json!(uuid);
        n += 1;
    };
    let mut i = 0;
    while out.len() < mib << 20 {
        let call = format!("toolu_{i:08}");
        row(
            &mut out,
            &mut parent,
            "user",
            json!({"role": "user", "content": format!("request {i}")}),
        );
        row(
            &mut out,
            &mut parent,
            "assistant",
            json!({"id": format!("msg_{i}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": format!("cat f{i}")}}]}),
        );
        row(
            &mut out,
            &mut parent,
            "user",
            json!({"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call, "content": format!("line {i}\n{pad}")}]}),
        );
        row(
            &mut out,
            &mut parent,
            "assistant",
            json!({"id": format!("msg_{i}b"), "role": "assistant",
            "content": [{"type": "text", "text": format!("answer {i} {pad}")}]}),
        );
        i += 1;
    }
    out
}

/// What converting `file` costs in memory above converting `small`, in KiB (None where
/// `/usr/bin/time` is missing).
fn cost(args: &[&str], file: &Path, small: &Path, out: &Path) -> Option<u64> {
    let with = |f: &Path| {
        let _ = std::fs::remove_file(out);
        let mut a = args.to_vec();
        a.extend(["-q", "-o", s(out), s(f)]);
        peak_rss_kib(&a)
    };
    let base = with(small)?;
    let rss = with(file)?;
    Some(rss.saturating_sub(base))
}

#[test]
fn a_large_session_converts_in_bounded_memory_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("big.jsonl");
    std::fs::write(&claude, big_claude(64)).unwrap();
    let small_claude = dir.path().join("small.jsonl");
    let first = std::fs::read_to_string(&claude)
        .unwrap()
        .lines()
        .take(2)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(&small_claude, first).unwrap();
    // The rollouts: the same sessions converted (the large one is checked below).
    let codex = dir.path().join("big-codex.jsonl");
    let small_codex = dir.path().join("small-codex.jsonl");
    for (from, to) in [(&claude, &codex), (&small_claude, &small_codex)] {
        let out = cctool()
            .args(["convert", "-q", "--full", "--to", "codex", "-o", s(to), s(from)])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let rollout = std::fs::read_to_string(&codex).unwrap();
    assert!(rollout.len() > 64 << 20 && rollout.contains("function_call_output"));
    let out = dir.path().join("out.jsonl");
    for (args, file, small) in [
        (&["convert", "--full", "--to", "codex"][..], &claude, &small_claude),
        (&["convert", "--full", "--to", "claude-code"], &codex, &small_codex),
    ] {
        let Some(cost) = cost(args, file, small, &out) else {
            return;
        };
        // Held whole, the conversation alone is the file's 64 MiB, and its output as much.
        assert!(
            cost < 24 * 1024,
            "{args:?}: {cost} KiB resident above a one-turn session's, for 64 MiB"
        );
    }
}
