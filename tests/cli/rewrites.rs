//! The write side under stress: many boundaries, deep nesting, imports that must not overwrite,
//! temporary files left by killed runs, files that grow or are links while they are rewritten,
//! memory under a limit. Writers and limits here are real processes, as the user's are.

use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{cctool, write_aged};

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
/// 3,000 boundaries took minutes when each looked at all the others, and take well under a
/// second now (the limit leaves room for a debug build on a loaded machine).
#[test]
fn thousands_of_boundaries_cost_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    write_aged(&path, &many_boundaries(3_000));
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
            assert_eq!(summaries.len(), 3_000);
            assert_eq!(summaries[2_999]["current"], true);
            assert_eq!(summaries[1_234]["summary_source"], "parent");
            assert!(summaries[1_234]["summary"].as_str().unwrap().ends_with("\n1234"));
        }
    }
}
