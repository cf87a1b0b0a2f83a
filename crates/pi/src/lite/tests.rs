//! The fast reading gives what the full reading gives, on every fixture, the shared samples,
//! and lines written to trip it.

use std::path::Path;

use super::*;
use crate::tree::Tree;

/// What the answers read of each entry, however it was read.
fn view(e: &Lite) -> String {
    let sent = match &e.kind {
        Kind::Sent(m) => vec![m.len],
        Kind::Whole(w) => crate::model::messages_of(w, &serde_json::Map::new())
            .iter()
            .map(cctool_core::io::json::json_len)
            .collect(),
    };
    format!(
        "{} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {sent:?}",
        e.line,
        e.id,
        e.parent,
        e.ms,
        e.ty(),
        e.role(),
        e.first_kept(),
        e.model(),
        e.first_text(),
        e.calls_and_result(),
    )
}

/// The answers of both readings of `path`, and whether the fast one read it.
fn answers(path: &Path) -> (Vec<String>, Vec<String>, bool) {
    let src = Source::open_path(path, cctool_core::io::source::MmapChoice::Never).unwrap();
    let fast = read_fast(&src).unwrap();
    let went_fast = fast.is_some();
    let fast = fast.unwrap_or_else(|| read(&src).unwrap());
    let full = Session::of(&file::read(&src).unwrap());
    let of = |s: &Session| {
        let mut out: Vec<String> = s.entries.iter().map(view).collect();
        out.push(format!("{:?} {:?} {} {:?}", s.header, s.unread, s.lines, s.span()));
        let t = Tree::over(&s.entries, None);
        out.push(format!("{t:?}"));
        out.push(serde_json::to_string(&crate::answers::scan_of(&src, s)).unwrap());
        out.push(format!("{:?}", crate::doctor::doctor_of(&src, s)));
        out.push(format!("{:?}", crate::answers::summaries_of(&src, s)));
        out
    };
    (of(&fast), of(&full), went_fast)
}

#[test]
fn every_fixture_and_sample_reads_the_same_fast() {
    let files = cctool_core::testing::fixtures_and_samples("pi", "pi");
    let mut fast = 0;
    for f in &files {
        let (a, b, went_fast) = answers(f);
        assert_eq!(a, b, "{}", f.display());
        fast += usize::from(went_fast);
    }
    assert!(fast >= 5, "only {fast} of {} files read fast", files.len());
}

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/nowhere/at/all"}"#;

/// Lines that a reader trusting key order, skipping unchecked, or counting the JSON otherwise
/// than serde_json writes it would read otherwise than the full reading.
const TRICKY: &[&str] = &[
    r#"{"message":{"content":[{"text":"hi \"there\"\n\u00e9\ud83d\ude00\/","type":"text"}],"role":"user","timestamp":1},"parentId":null,"id":"a","timestamp":"2026-01-01T00:00:01.000Z","type":"message"}"#,
    r#"{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","model":"m1","content":[{"type":"thinking","thinking":"x"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls","n":1.0,"e":1e2,"z":-0,"big":123456789012345678901234567890,"f":0.1}},{"type":"toolCall","id":7}],"usage":{"input":1,"output":2.5}}}"#,
    r#"{"type":"message","id":"c","parentId":"b","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"out\u0001\t"}],"isError":false}}"#,
    r#"{"type":"message","id":"d","parentId":"c","message":{"role":"user","content":"plain string"},"message":{"role":"user","content":[{"type":"image","data":"AA=="},{"type":"text","text":5},{"type":"text","text":"second"}]}}"#,
    r#"{"type":"message","id":"e","parentId":"d","message":{"role":"user","content":null}}"#,
    r#"{"type":"message","id":"f","parentId":"e","message":{"role":"assistant"}}"#,
    r#"{"type":"message","id":"g","parentId":"f","message":{"role":"assistant","model":5,"model":"m2","content":[]}}"#,
    r#"{"type":"message","id":"h","parentId":"g","message":{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}}"#,
    r#"{"type":"message","id":"i","parentId":"h","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":1}}"#,
    r#"{"type":"message","id":"j","parentId":"i","message":"not an object"}"#,
    r#"{"type":"model_change","id":"k","parentId":"j","modelId":"m3","timestamp":"2026-01-01T00:00:09.000Z"}"#,
    r#"{"type":"session_info","id":"l","parentId":"k","name":" named "}"#,
    r#"{"type":"message","type":"custom_message","id":"m","parentId":"l","content":"ext","message":{"role":"user","content":"no"}}"#,
    r#"{"type":"compaction","id":"n","parentId":"m","summary":"sum","firstKeptEntryId":"k","tokensBefore":99}"#,
    r#"{"type":"message","id":"o","parentId":"n","message":{"role":"system","content":"sys"},"timestamp":"bad"}"#,
    r#"{"type":"message","id":"p","parentId":"zz","message":{"role":"user","content":[1,"s",null,true,[{"a":1}],{"type":"text","text":"late"}]}}"#,
    r#"{"type":"message","id":"q","parentId":"o","message":{"content":{"type":"text"},"role":"user","extra":{"k":[1,{"k":2}],"k2":"v"}}}"#,
    r#"{"type":"message","id":"r","parentId":"q","message":{"role":"user","content":"x","n":1e400}}"#,
    r#"{"type":"message","id":"s","parentId":"r","message":{"role":"user","content":"lone \ud83d"}}"#,
    r#"{"type":"context_edit","id":"t","parentId":"s","targetId":"a","replacement":{"content":"edited"}}"#,
    r#"{"type":"session","version":3,"id":"s2"}"#,
    r#"{"type":"branch_summary","id":"u","parentId":"t","summary":"branch"}"#,
    r#"[1,2]"#,
    r#"{"type":"message","id":"v","parentId":"u","message":{"role":"user","content":"cut"#,
    "\u{feff}{\"type\":\"message\",\"id\":\"w\",\"message\":{\"role\":\"user\",\"content\":\"bom\"}}",
    "   ",
];

#[test]
fn tricky_lines_read_the_same_fast() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut fast = 0;
    for (k, line) in TRICKY.iter().enumerate() {
        // Each line after all the ones before it that the fast reading takes, and alone.
        let before: Vec<&str> = TRICKY[..k].iter().copied().filter(|l| !l.is_empty()).collect();
        for text in [
            format!("{HEADER}\n{}\n{line}\n", before.join("\n")),
            format!("{HEADER}\n{line}"),
        ] {
            std::fs::write(&path, &text).unwrap();
            let (a, b, went_fast) = answers(&path);
            assert_eq!(a, b, "{line}");
            fast += usize::from(went_fast);
        }
    }
    assert!(fast > 20, "{fast}");
    for header in [
        r#"{"type":"session","version":2,"id":"s1"}"#,
        r#"{"type":"session","id":"s1"}"#,
        r#"{"type":"message","id":"a"}"#,
        "not json",
    ] {
        std::fs::write(&path, format!("{header}\n{}\n", TRICKY[..3].join("\n"))).unwrap();
        let (a, b, went_fast) = answers(&path);
        assert_eq!(a, b, "{header}");
        assert!(!went_fast, "{header}");
    }
}
