//! Large files read in parallel windows while other files are read too: on a pool of one
//! thread, or of two with two large files, every pool thread is inside a file and the windows
//! must still be read. A command that waited on a thread of its own there would hang.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::util::{big_v1_session, cctool, write_aged};

/// Far longer than any run below takes; a hang fails instead of stalling the suite.
const LIMIT: Duration = Duration::from_secs(120);

/// A Claude Code transcript of about 40 MiB (large enough to be searched and indexed in
/// parallel, in more than one round of 8 MiB windows) with a compaction in its middle.
fn big_compacted_transcript(tag: &str) -> Vec<u8> {
    let pad = "z".repeat(8000);
    let mut out = Vec::new();
    let mut parent = serde_json::Value::Null;
    for i in 0..5200u32 {
        let uuid = format!("00000000-0000-4000-8000-{i:012}");
        let rec = if i == 2600 {
            serde_json::json!({"parentUuid": null, "logicalParentUuid": parent, "isSidechain": false,
                "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 150_000}, "uuid": uuid,
                "timestamp": "2026-01-01T01:00:00.000Z", "sessionId": tag})
        } else if i == 2601 {
            serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": "user", "isCompactSummary": true,
                "message": {"role": "user", "content": format!("This session is being continued. Summary of {tag}.")},
                "uuid": uuid, "timestamp": "2026-01-01T01:00:01.000Z", "sessionId": tag})
        } else {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": role,
                "message": {"role": role, "content": format!("{i} {pad}")},
                "uuid": uuid, "timestamp": "2026-01-01T00:00:00.000Z", "sessionId": tag})
        };
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
        parent = serde_json::Value::String(uuid);
    }
    out
}

fn run(threads: &str, args: &[&str], files: &[PathBuf]) -> Vec<u8> {
    let out = cctool()
        .env("RAYON_NUM_THREADS", threads)
        .timeout(LIMIT)
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?} on {threads} thread(s): {out:?}");
    out.stdout
}

fn files(dir: &Path, make: fn(&str) -> Vec<u8>, ext: &str) -> Vec<PathBuf> {
    ["a", "b"]
        .iter()
        .map(|tag| {
            let p = dir.join(format!("{tag}.{ext}"));
            write_aged(&p, &make(tag));
            p
        })
        .collect()
}

#[test]
fn reading_commands_finish_on_a_pool_of_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let claude = files(dir.path(), big_compacted_transcript, "jsonl");
    for args in [
        &["-q", "extract-summary", "--json"][..],
        &["-q", "scan", "--json"],
        &["-q", "doctor", "--json"],
    ] {
        let reference = run("4", args, &claude);
        assert!(!reference.is_empty());
        for threads in ["1", "2"] {
            assert_eq!(
                run(threads, args, &claude),
                reference,
                "{args:?} on {threads} thread(s)"
            );
        }
    }
    let summaries = String::from_utf8(run("1", &["-q", "extract-summary", "--json"], &claude)).unwrap();
    assert_eq!(summaries.matches(r#""current":true"#).count(), 2, "{summaries}");
}

#[test]
fn migrate_finishes_on_a_pool_of_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut migrated = Vec::new();
    for threads in ["1", "2"] {
        let sub = dir.path().join(threads);
        std::fs::create_dir(&sub).unwrap();
        let v1 = files(&sub, |_| big_v1_session(), "json");
        run(threads, &["-q", "migrate"], &v1);
        migrated.push(v1.iter().map(|p| std::fs::read(p).unwrap()).collect::<Vec<_>>());
    }
    assert!(migrated[0][0].starts_with(b"{\n  \"schema_version\": 5"));
    assert_eq!(migrated[0], migrated[1]);
}
