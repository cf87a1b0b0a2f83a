//! The fast reading gives what the full reading gives, on every fixture, the shared samples,
//! lines written to trip it, and chats made of them in any order.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::record::META;
use super::*;
use crate::replay::Msg;

/// What the answers read of a replay, however it was read.
fn view<V: Message>(r: &Replay<V>) -> Vec<String> {
    let mut out: Vec<String> = r
        .msgs
        .iter()
        .map(|m: &Msg<V>| {
            let v = &m.value;
            // A message's text is asked of a user's and of one of a list only.
            let text = (v.ty() == "user" || m.inside).then(|| v.text());
            format!(
                "{} {} {} {} {:?} {:?} {:?} {} {text:?}",
                m.id,
                m.line,
                m.offset,
                m.inside,
                v.ty(),
                v.timestamp(),
                v.model(),
                v.sends(),
            )
        })
        .collect();
    let meta: Vec<_> = META.iter().map(|k| r.meta.get(*k)).collect();
    out.push(format!(
        "{:?} {meta:?} {} {:?} {:?} {:?}",
        r.loaded,
        r.headers,
        r.rewinds,
        r.compressions,
        r.current()
    ));
    out
}

/// Everything both readings of `path` answer, and whether the fast one read it.
fn answers(path: &Path) -> (Vec<String>, Vec<String>, bool) {
    let src = Source::open_path(path, cctool_core::io::source::MmapChoice::Never).unwrap();
    let fast = read_fast(&src).unwrap();
    let went_fast = fast.is_some();
    let fast = match fast {
        Some((c, r)) => Reading::Fast(c, r),
        None => read(&src).unwrap(),
    };
    let mut c = crate::file::read(&src).unwrap();
    let r = crate::replay::replay(&mut c);
    let full = Reading::Full(c, r);
    let of = |reading: Reading| {
        let mut out = match &reading {
            Reading::Fast(c, r) => [view(r), vec![format!("{} {}", c.physical, c.bad_lines())]].concat(),
            Reading::Full(c, r) => [view(r), vec![format!("{} {}", c.physical, c.bad_lines())]].concat(),
        };
        out.push(format!("{:?}", crate::doctor::doctor_of(&src, &reading)));
        out.push(format!("{:?}", crate::answers::summaries_of(&src, &reading)));
        out.push(serde_json::to_string(&crate::answers::scan_of(&src, reading)).unwrap());
        out
    };
    (of(fast), of(full), went_fast)
}

#[test]
fn every_fixture_and_sample_reads_the_same_fast() {
    let files = cctool_core::testing::fixtures_and_samples("gemini", "gemini");
    let fast: usize = files
        .iter()
        .map(|f| {
            let (a, b, went_fast) = answers(f);
            assert_eq!(a, b, "{}", f.display());
            usize::from(went_fast)
        })
        .sum();
    eprintln!("{fast} of {} files read fast", files.len());
    assert!(fast >= 5, "only {fast} of {} files read fast", files.len());
}

const HEADER: &str =
    r#"{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"t","kind":"main"}"#;

/// Lines that a reader trusting key order, skipping unchecked, or counting the JSON otherwise
/// than serde_json writes it would read otherwise than the full reading; and every rule of the
/// request the fast reading measures.
const TRICKY: &[&str] = &[
    r#"{"type":"user","content":[{"text":"<session_context>\nfolder \/x \u00e9\ud83d\ude00</session_context>"}],"id":"ctx","timestamp":"2026-01-01T00:00:01.000Z"}"#,
    r#"{"id":"a","timestamp":"2026-01-01T00:00:02.000Z","type":"user","content":[{"text":"hi \"there\"\n\u00e9\ud83d\ude00\/ \u0001"}]}"#,
    r#"{"id":"b","type":"gemini","content":"","thoughts":[{"subject":"S","description":"d"}],"model":"m1","toolCalls":[{"id":"run__1","name":"run","args":{"n":1.0,"e":1e2,"z":-0,"big":123456789012345678901234567890,"f":0.1},"result":"out\u0001\t","status":"success"},{"id":"2","name":" ","args":{}},7,{"name":"x","result":[{"functionResponse":{"id":"x__9","name":"x","response":{"output":"o"},"extra":1}},"s",null],"id":"x__9"}]}"#,
    r#"{"id":"c","type":"user","content":[{"functionResponse":{"id":"generic_tool__3","response":{"output":"r"}}}]}"#,
    r#"{"id":"d","type":"gemini","content":[{"functionCall":{"name":"t","id":"t__4","args":{"a":[1,{"b":null}]},"more":true},"thoughtSignature":"sig"},{"text":"","functionCall":null},{"text":"","thought":true},{"thought":"why","text":"t"}],"model":"m2"}"#,
    r#"{"id":"e","type":"gemini","content":[{"text":""}],"thoughts":[]}"#,
    r#"{"id":"f","type":"user","content":"/memory show"}"#,
    r#"{"id":"g","type":"info","content":"note"}"#,
    r#"{"id":"h","type":"gemini","content":"reply","toolCalls":[{"id":"y","name":"y","result":{"text":"obj"}},{"id":"z","result":true},{"id":"w","result":0},{"id":"v","result":""},{"id":"u","result":[]}]}"#,
    r#"{"id":"a","type":"user","content":"the first prompt, written again"}"#,
    r#"{"id":"i","type":"user","content":[{"videoMetadata":{}},{"thought":{"k":[1,2]}},{"thought":null,"codeExecutionResult":1},{"executableCode":null,"fileData":"f"},{"functionCall":{"name":"fc"}},{"functionResponse":5},{"inlineData":{}},{"text":7},3,null,[{"text":"nested"}]]}"#,
    r#"{"id":"j","type":"gemini","content":{"thought":true,"text":"x"},"toolCalls":[{"id":"k","name":"k","args":{}}]}"#,
    r#"{"id":"k","type":"gemini","content":false,"thoughts":{},"toolCalls":{}}"#,
    r#"{"id":"l","type":"gemini","content":0,"thoughts":[1,2],"toolCalls":[]}"#,
    r#"{"id":"m","type":"user"}"#,
    r#"{"id":"n","type":"user","content":{"functionCall":{"name":"n"}}}"#,
    r#"{"id":"o","type":"gemini","content":[{"functionCall":{"id":"p__1","name":"p"}}],"thoughts":[{"subject":"s"}]}"#,
    r#"{"id":"q","type":"user","content":[{"functionResponse":{"name":"q","id":"q__1","response":{"output":"unanswered"}}}]}"#,
    r#"{"$rewindTo":"q"}"#,
    r#"{"$rewindTo":"nowhere"}"#,
    r#"{"id":"r","type":"user","content":"after the rewind","timestamp":"2025-12-31T23:59:59.000Z"}"#,
    r#"{"$set":{"lastUpdated":"t2","summary":"named"}}"#,
    r#"{"$set":{"messages":[{"id":"ctx2","type":"user","content":"<session_context>two</session_context>"}],"sessionId":"s2"}}"#,
    r#"{"$set":{"messages":[{"id":"sum","type":"user","content":[{"text":"<state_snapshot>the summary \/ \u00e9</state_snapshot>"}],"timestamp":"2026-01-01T00:01:00.000Z"},{"id":"ack","type":"gemini","content":"Got it."},7,{"id":3}]}}"#,
    r#"{"$set":{"messages":[{"id":"sum","type":"user","content":"<state_snapshot>the summary</state_snapshot>"},{"id":"ack","type":"gemini","content":"Got it.","model":"m3"}],"messages":[]}}"#,
    r#"{"$set":{"messages":[{"id":"g2","type":"gemini","content":"only a reply"}]}}"#,
    r#"{"sessionId":"s3","projectHash":"h","startTime":"2025-06-01T00:00:00.000Z","kind":"main","messages":[{"id":"hm","type":"user","content":"from a header"},"x"]}"#,
    r#"{"$set":"not an object","id":"s","type":"user","content":"a message all the same"}"#,
    r#"{"$set":{"messages":"not a list","startTime":5}}"#,
    r#"{"id":"t","type":"user","content":"x","n":1e400}"#,
    r#"{"id":"u","type":"user","content":"lone \ud83d"}"#,
    r#"{"id":"v","type":"gemini","content":[{"text":"deep","x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]}"#,
    r#"{"id":"w","type":"user","content":"one","content":"two"}"#,
    r#"{"id":"w2","ty\u0070e":"user","content":[{"te\u0078t":""}]}"#,
    r#"{"id":"w3","type":"user","content":[{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7,"k18":8,"k19":9,"k20":0,"k21":1,"k22":2,"k23":3,"k24":4,"k25":5,"k26":6,"k27":7,"k28":8,"k29":9,"k30":0,"k31":1,"k32":2}]}"#,
    r#"{"kind":"nothing the client reads"}"#,
    r#"{"sessionId":"s4","projectHash":7}"#,
    r#"[1,2]"#,
    "not json",
    r#"{"id":"x","type":"user","content":"cut"#,
    "\u{feff}{\"id\":\"y\",\"type\":\"user\",\"content\":\"bom\"}",
    "   ",
];

/// A chat of these lines, headed by a header.
fn chat(dir: &Path, lines: &[&str]) -> PathBuf {
    let path = dir.join("session-2026-01-01T00-00-s1s1s1s1.jsonl");
    std::fs::write(&path, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
    path
}

#[test]
fn tricky_lines_read_the_same_fast() {
    let dir = tempfile::tempdir().unwrap();
    let mut fast = 0;
    for (k, line) in TRICKY.iter().enumerate() {
        // Each line after all the ones before it, and alone.
        for lines in [&TRICKY[..=k], &[*line][..]] {
            let (a, b, went_fast) = answers(&chat(dir.path(), lines));
            assert_eq!(a, b, "{line}");
            fast += usize::from(went_fast);
        }
    }
    assert!(fast > 40, "{fast}");
    for first in [r#"{"id":"a","type":"user","content":"no header"}"#, "not json", ""] {
        let path = dir.path().join("session-2026-01-01T00-00-nohead00.jsonl");
        std::fs::write(&path, format!("{first}\n{}\n", TRICKY[1])).unwrap();
        let (a, b, went_fast) = answers(&path);
        assert_eq!(a, b, "{first}");
        assert!(!went_fast, "{first}");
    }
}

#[test]
fn the_older_single_document_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-2026-01-01T00-00-document.json");
    let doc = r#"{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"t","messages":[{"id":"a","type":"user","content":"hi"},{"id":"b","type":"gemini","content":"ok"}]}"#;
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&serde_json::from_str::<Value>(doc).unwrap()).unwrap(),
    )
    .unwrap();
    let (a, b, went_fast) = answers(&path);
    assert_eq!(a, b);
    assert!(!went_fast);
}

/// The tricky lines the fast reading takes (a chat of any other is read whole).
static FAST_LINES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let fast: Vec<&str> = TRICKY
        .iter()
        .copied()
        .filter(|l| {
            let src = Source::open_path(&chat(dir.path(), &[l]), cctool_core::io::source::MmapChoice::Never).unwrap();
            read_fast(&src).unwrap().is_some()
        })
        .collect();
    assert!(fast.len() > 25, "{}", fast.len());
    fast
});

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Chats of the tricky lines the fast reading takes, in any order and any number.
    #[test]
    fn chats_of_any_lines_read_the_same_fast(picks in proptest::collection::vec(0..25usize, 0..24)) {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<&str> = picks.iter().map(|&i| FAST_LINES[i]).collect();
        let (a, b, _) = answers(&chat(dir.path(), &lines));
        prop_assert_eq!(a, b);
    }
}
