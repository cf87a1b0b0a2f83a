//! The fast reading gives what the full reading gives, on every fixture, the shared samples,
//! and lines written to trip it.

use std::path::Path;

use super::*;

fn both(path: &Path) -> (Session, Session) {
    let src = Source::open_path(path, cctool_core::io::source::MmapChoice::Never).unwrap();
    let fast = read(&src).unwrap();
    let full = Session::of(&file::read(&src).unwrap());
    (fast, full)
}

#[test]
fn every_fixture_and_sample_reads_the_same_fast() {
    let files = cctool_core::testing::fixtures_and_samples("copilot", "copilot");
    assert!(!files.is_empty());
    for f in files {
        let (fast, full) = both(&f);
        assert_eq!(fast, full, "{}", f.display());
    }
}

/// Lines that a reader trusting key order, skipping unchecked, or reading a field's type
/// wrongly would read otherwise than the full reading.
const TRICKY: &[&str] = &[
    r#"{"data":{"sessionId":"s1","copilotVersion":"1.0","context":{"cwd":"/w"}},"id":"a","type":"session.start","timestamp":"2026-01-01T00:00:00Z","parentId":null}"#,
    r#"{"type":"user.message","id":"b","parentId":"a","data":{"content":"first"},"data":{"content":"second \"quoted\" \u00e9 \ud83d\ude00"}}"#,
    r#"{"type":"user.message","type":"assistant.message","id":"c","parentId":"b","data":{"model":"m1","model":7,"toolRequests":[{"toolCallId":"t1"},{"toolCallId":"t2","toolCallId":"t3"},"x",{"toolCallId":5},{"name":"n"}]}}"#,
    r#"{"type":"assistant.message","id":"d","parentId":"c","data":{"toolRequests":[{"toolCallId":"t4"}],"toolRequests":{"toolCallId":"t5"},"copilotVersion":"1.1"}}"#,
    r#"{"type":"tool.execution_complete","id":"e","parentId":"d","data":{"toolCallId":"t1","result":{"content":"ok\n"}}}"#,
    r#"{"type":"tool.execution_complete","id":"f","parentId":"zz","data":[1,2]}"#,
    r#"{"type":"session.model_change","id":"g","parentId":"f","data":{"newModel":"m2","model":"ignored"}}"#,
    r#"{"type":"user.message","id":"h","parentId":"g","data":"not an object","timestamp":5}"#,
    r#"{"type":"user.message","id":"i","data":{"content":"lone \ud83d surrogate"}}"#,
    r#"{"type":"user.message","id":"j","data":{"content":"ok","n":1e400}}"#,
    r#"{"type":"session.compaction_complete","id":"k","parentId":"h","data":{"success":true,"summaryContent":"sum","preCompactionTokens":10,"tokensRemoved":-1,"trigger":"auto","checkpointNumber":1}}"#,
    r#"{"type":"user.message","id":"l","parentId":"k","data":{"content":"after"},"data":null}"#,
    r#"{"type":7,"id":"m"}"#,
    r#"{"id":"n"}"#,
    r#"[{"type":"user.message"}]"#,
    r#""a string""#,
    "",
    "   ",
    "\0\0{\"type\":\"user.message\",\"id\":\"o\",\"data\":{\"content\":\"padded\"}}\0\0",
    "\0\0\0\0",
    r#"{"type":"user.message","id":"p","data":{"content":"x"}}{"type":"user.message","id":"q"}"#,
    r#"{"type":"assistant.message","id":"r","data":{"model":"m3","content":"deep","x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}"#,
    "{\"type\":\"user.message\",\"id\":\"s\",\"data\":{\"content\":\"bad utf8 \u{1}\"}}",
    r#"{"type":"user.message","id":"t","data":{"content":"truncated"#,
];

#[test]
fn tricky_lines_read_the_same_fast() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s1");
    std::fs::create_dir(&session).unwrap();
    std::fs::write(session.join("workspace.yaml"), "cwd: /yaml\nname: named\n").unwrap();
    let path = session.join("events.jsonl");
    let mut text = TRICKY.join("\n").into_bytes();
    text.extend_from_slice(b"\n\xef\xbb\xbf{\"type\":\"user.message\",\"id\":\"u\"}\n{\"type\":\"user.message\",\"data\":{\"content\":\"\xff\"}}\n");
    for cut in [text.len(), text.len() - 1, text.len() / 2] {
        std::fs::write(&path, &text[..cut]).unwrap();
        let (fast, full) = both(&path);
        assert_eq!(fast, full, "cut at {cut}");
    }
    std::fs::write(&path, &text).unwrap();
    let (fast, _) = both(&path);
    assert!(!fast.events.is_empty() && !fast.unread.is_empty() && !fast.nuls.is_empty());
    for line in TRICKY {
        std::fs::write(&path, line).unwrap();
        let (fast, full) = both(&path);
        assert_eq!(fast, full, "{line}");
    }
}
