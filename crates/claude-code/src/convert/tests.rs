use super::rows::*;
use super::*;

/// The lines a transcript's conversion leaves out, counted by type: the parallel count,
/// which takes message rows' types from the index, and the plain one, which parses every
/// line, agree on every transcript of the fixtures (whole and from the last compaction)
/// and on a file of several windows with rows of every sort off the chain.
#[test]
fn not_loaded_equals_the_plain_count() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| Some((e.path().display().to_string(), std::fs::read(e.path()).ok()?)))
        .filter(|(_, b)| memchr::memmem::find(b, b"\"parentUuid\"").is_some())
        .collect();
    assert!(files.len() > 50, "{} transcripts", files.len());
    files.push(("windows".into(), odd_rows()));
    let mut counted = 0;
    for (name, bytes) in files {
        for (full, fast, plain) in counts_both(&Source::from_bytes(&name, bytes)) {
            assert_eq!(fast, plain, "{name} full={full}");
            counted += fast.values().sum::<u64>();
        }
    }
    assert!(counted > 10_000, "{counted} lines counted");
}

/// The typed read of a row gives what the read of the whole record gives, for every
/// record of the fixtures and records of every odd shape, whatever the row is read for;
/// and it reads most records.
#[test]
fn fast_row_equals_the_plain_row() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let mut lines: Vec<Vec<u8>> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .flat_map(|b| b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>())
        .collect();
    lines.extend(odd_records());
    let needs = [Need::Key, Need::User, Need::Assistant, Need::System, Need::Summary];
    let (mut fast, mut all, mut json) = (0, 0, 0);
    for line in &lines {
        for need in needs {
            all += 1;
            if let Some(row) = fast_row(line, need) {
                fast += 1;
                let plain = plain_row(&crate::io::json::parse_record(line), need);
                let (row, n) = row_plain(row);
                json += n;
                assert_eq!(row, plain, "{need:?} {}", String::from_utf8_lossy(line));
            }
        }
    }
    assert!(fast * 10 > all * 7, "{fast} of {all} read typed");
    assert!(json > 500, "{json} texts kept as written");
}

/// Records of the shapes the typed read must give as the whole read does, or refuse.
fn odd_records() -> Vec<Vec<u8>> {
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let many = |n: usize| format!("[{}]", vec!["1"; n].join(","));
    let many_blocks = |n: usize| format!("[{}]", vec![r#"{"type":"text","text":"x"}"#; n].join(","));
    let msg = |content: &str| {
        format!(r#"{{"type":"user","uuid":"u1","timestamp":"t","message":{{"role":"user","content":{content}}}}}"#)
    };
    let call = |input: &str| {
        msg(&format!(
            r#"[{{"type":"tool_use","id":"c","name":"Bash","input":{input}}}]"#
        ))
    };
    let mut out = vec![
        msg("null"),
        msg("7"),
        msg(r#"{"a":1}"#),
        msg(r#""a \"quoted\" line\n\u00e9\ud83d\ude00""#),
        msg(r#""lone \ud800 surrogate""#),
        msg(r#"[]"#),
        msg(r#"["text"]"#),
        msg(
            r#"[{"type":"text","text":"a\tb"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA="}},{"type":"image"},{"type":"image","source":"x"},{"type":"document"},{}, {"type":7}]"#,
        ),
        msg(r#"[{"type":"text","text":null},{"type":"text","text":3},{"type":"text"}]"#),
        msg(r#"[{"type":"tool_result","tool_use_id":"c","content":"out","is_error":true}]"#),
        msg(r#"[{"type":"tool_result","tool_use_id":"c","content":"out","is_error":"true"}]"#),
        msg(
            r#"[{"type":"tool_result","tool_use_id":"c","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"url","url":"http://x"}},{"type":"other"},"s"]}]"#,
        ),
        msg(
            r#"[{"type":"tool_result","tool_use_id":"c","content":[{"type":"text","text":"a"},{"type":"x"}]},{"type":"text","text":"after"}]"#,
        ),
        msg(
            r#"[{"type":"tool_result","tool_use_id":"c","content":null},{"type":"tool_result","content":{"a":1}},{"type":"tool_result","tool_use_id":5}]"#,
        ),
        msg(
            r#"[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"t"},{"type":"server_tool_use"}]"#,
        ),
        call("null"),
        call(r#"{"command":"ls","n":[1,2.5,-3,1e400,12345678901234567890123]}"#),
        call(r#""a string""#),
        call(r#"{"a":1,"a":2}"#),
        call(r#"{"k":"\ud800"}"#),
        call(&deep(90)),
        call(&deep(96)),
        call(&deep(97)),
        call(&deep(120)),
        call(&many(100_000)),
        call(&many(100_001)),
        msg(&many_blocks(100_000)),
        msg(&many_blocks(100_001)),
        msg(&format!(
            r#"[{{"type":"tool_result","tool_use_id":"c","content":{}}}]"#,
            many_blocks(100_001)
        )),
        msg(r#"[{"type":"tool_use","id":"c","name":"Bash"}]"#),
        format!(r#"{{"uuid":"u","uuid":"v","message":{{"content":"x"}}}}"#),
        format!(r#"{{"uuid":7,"timestamp":"t","message":{{"content":"x"}}}}"#),
        format!(r#"{{"uuid":null,"timestamp":null,"subtype":null,"message":null}}"#),
        format!(
            r#"{{"uuid":"u","subtype":"compact_boundary","skipped":"\ud800","message":{{"content":[{{"type":"text","text":"x"}}]}}}}"#
        ),
        format!(r#"{{"uuid":"u","subtype":5}}"#),
        format!(r#"{{"uuid":"u","message":"text"}}"#),
        format!(r#"{{"uuid":"u","message":{{"content":"x"}}, "other":{}}}"#, deep(200)),
        format!(
            r#"{{"uuid":"u","message":{{"content":"x"}}, "other":{}}}"#,
            many(100_001)
        ),
        format!(r#"{{"uuid":"u","message":{{"content":"x"}}}} trailing"#),
        r#"{"uuid":"u","message":{"content":"cut"#.to_string(),
        "not json".to_string(),
        String::new(),
    ];
    out.extend(
        ["text", "thinking", "tool_use", "tool_result", "image"]
            .map(|ty| msg(&format!(r#"[{{"type":"{ty}","text":"a","thinking":"b","id":"i","name":"n","input":{{}},"tool_use_id":"t","content":"c","is_error":false,"source":{{"data":"d"}}}}]"#))),
    );
    out.into_iter().map(String::into_bytes).collect()
}

/// Past three windows of the parallel reader: a chain with a compaction, rows of another
/// branch, a uuid written twice, progress rows, snapshots, titles, rows of odd shapes and
/// lines that are not JSON.
fn odd_rows() -> Vec<u8> {
    let mut out = Vec::new();
    let mut parent = String::from("null");
    let pad = "p\\\"ad ".repeat(700);
    let mut i = 0u32;
    while out.len() < 26 << 20 {
        let uuid = format!("u{i:08}");
        let ts = format!("2026-01-01T00:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
        let row = |ty: &str, uuid: &str, parent: &str, extra: &str| {
            format!(
                r#"{{"parentUuid":{parent},"isSidechain":false,"type":"{ty}","uuid":"{uuid}","timestamp":"{ts}","sessionId":"s"{extra}}}"#
            )
        };
        let line = match i % 16 {
            0 | 5 => row(
                "user",
                &uuid,
                &parent,
                &format!(r#","message":{{"role":"user","content":"{pad}"}}"#),
            ),
            1 | 6 | 9 => row(
                "assistant",
                &uuid,
                &parent,
                &format!(
                    r#","message":{{"id":"m{}","role":"assistant","content":[{{"type":"text","text":"{pad}"}}]}}"#,
                    i / 4
                ),
            ),
            2 => row("progress", &uuid, &parent, r#","data":{"x":1}"#),
            3 => format!(r#"{{"type":"file-history-snapshot","messageId":"{uuid}","snapshot":{{"a":"{pad}"}}}}"#),
            4 => row("system", &uuid, &parent, r#","subtype":"informational","content":"x""#),
            // Another branch off the same parent.
            7 => row(
                "user",
                &format!("b{i}"),
                &parent,
                r#","message":{"role":"user","content":"side"}"#,
            ),
            8 => row("attachment", &uuid, &parent, r#","attachment":{"type":"x"}"#),
            // A uuid written again: the earlier line is not the row.
            10 => row(
                "user",
                &format!("u{:08}", i - 1),
                &parent,
                r#","message":{"role":"user","content":"again"}"#,
            ),
            11 => r#"{"type":"summary","summary":"t","leafUuid":"x"}"#.to_string(),
            12 => format!(r#"{{"type":"user","uuid":"d{i}","type":"assistant","parentUuid":{parent}}}"#),
            13 => format!(r#"{{"type":7,"uuid":"n{i}"}}"#),
            14 => format!(r#"{{"type":"user","uuid":"x{i}","message":{{"content":"cut"#),
            _ if i % 64 == 15 => format!(
                r#"{{"parentUuid":{parent},"type":"system","subtype":"compact_boundary","uuid":"{uuid}","timestamp":"{ts}","content":"c"}}"#
            ),
            _ => String::new(),
        };
        if matches!(i % 16, 0 | 1 | 4 | 5 | 6 | 9 | 15) && !line.is_empty() {
            parent = format!("\"{uuid}\"");
        }
        out.extend(line.as_bytes());
        out.extend(if i.is_multiple_of(9) { &b"\r\n"[..] } else { b"\n" });
        i += 1;
    }
    out
}

/// The count of what is not carried, from the spans between the index's rows, is the
/// plain count over every line, on files whose lines between rows are of every shape: a
/// BOM, blank and white lines, CRLF, lone CRs, a last line without its newline.
#[test]
fn not_loaded_between_rows_equals_the_plain_count() {
    let row = |u: &str, p: &str, ty: &str| {
        format!(
            r#"{{"parentUuid":{p},"type":"{ty}","uuid":"{u}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"{ty}","content":"x"}}}}"#
        )
    };
    let (a, b, c) = (
        row("a", "null", "user"),
        row("b", "\"a\"", "assistant"),
        row("c", "\"b\"", "user"),
    );
    let side = row("s", "\"a\"", "user");
    let progress = r#"{"type":"progress","uuid":"p"}"#;
    let files = [
        format!("\u{feff}{a}\n{b}\n"),
        format!("\u{feff}{progress}\n{a}\n"),
        format!("\u{feff}\n\n{a}\r\n  \t\n{progress}\r\n\r\n{b}\n\r\n"),
        format!("{progress}\n{a}\n{side}\nnot json\n{b}\n{c}\n{progress}"),
        format!("{a}\r\n{b}\r\n{progress}\r\n{c}"),
        format!("{a}\n{b}\n \n{progress}\n{{\"type\":\"user\",\"uuid\":\"x\",\"message\":{{\"content\":\"cut"),
        "\n\n\n".to_string(),
        format!("{progress}\n{progress}\n"),
        String::new(),
        // Spans between rows past the size read at once: many lines, and one line longer.
        {
            let mut f = format!("{a}\n");
            let mut i = 0;
            while f.len() < 20 << 20 {
                let pad = "x".repeat(i * 7919 % 30_000);
                f.push_str(&format!(r#"{{"type":"progress","n":{i},"p":"{pad}"}}"#));
                f.push_str(["\n", "\r\n", "\n\n", "\n \n"][i % 4]);
                i += 1;
            }
            f.push_str(&format!(r#"{{"type":"long","p":"{}"}}"#, "y".repeat(9 << 20)));
            f.push_str(&format!("\n{b}\n{progress}\n{}\n{c}", "z".repeat(17 << 20)));
            f
        },
    ];
    for (k, text) in files.iter().enumerate() {
        for (full, fast, plain) in counts_both(&Source::from_bytes("t.jsonl", text.clone().into_bytes())) {
            assert_eq!(fast, plain, "file {k} full={full}: {text:?}");
        }
    }
}

type Counted = std::collections::BTreeMap<String, u64>;

/// What a conversion of `src` does not carry, whole and from the last compaction: counted
/// from the spans between rows, and by the plain count over every line.
fn counts_both(src: &Source) -> Vec<(bool, Counted, Counted)> {
    let t = claude::read(src).unwrap();
    [false, true]
        .into_iter()
        .map(|full| {
            let positions = t
                .rebuild(&Options {
                    full,
                    ..Options::default()
                })
                .unwrap_or_default()
                .positions;
            let mut carried = vec![0u64; (t.lines as usize + 64) / 64 + 1];
            for &p in &positions {
                let line = t.node(p).line;
                carried[(line / 64) as usize] |= 1 << (line % 64);
            }
            let fast = not_loaded(src, &t, &positions).unwrap();
            (full, fast, not_loaded_in_order(src, &carried).unwrap())
        })
        .collect()
}

/// `row` with its texts held as text, and how many were held as JSON strings.
fn row_plain(row: Row) -> (Row, usize) {
    let mut n = 0;
    let got = match row.got {
        Got::User(bodies) => Got::User(
            bodies
                .into_iter()
                .map(|body| {
                    n += body.json_texts();
                    body.into_plain()
                })
                .collect(),
        ),
        got => got,
    };
    (Row { got, ..row }, n)
}

/// The records of the stream `convert` takes its order from: asked for their places only,
/// the stream hands on the same records, in the same order, as read whole, and they are the
/// chain's, whole or from the last compaction; on every transcript of the fixtures.
#[test]
fn the_stream_asked_for_places_hands_on_the_chain() {
    use cctool_core::convert::read;
    use cctool_core::model::events::{Ask, Event, Reading, View};
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let (mut rows, mut earlier, mut rewritten) = (0, 0, 0);
    for e in walkdir::WalkDir::new(root).into_iter().filter_map(Result::ok) {
        if e.path().extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let src = Source::from_bytes("t.jsonl", std::fs::read(e.path()).unwrap());
        let Ok(t) = claude::read(&src) else { continue };
        rewritten += usize::from(!t.nodes.is_sorted_by_key(|n| n.offset));
        for full in [false, true] {
            let chain = t
                .rebuild(&Options {
                    full,
                    ..Options::default()
                })
                .unwrap_or_default();
            let places = |ask: Ask<'_>| {
                let mut at = Vec::new();
                crate::events::chain_of(&src, &t, &chain, ask, &mut |e| {
                    if let Event::Record(r) = e {
                        at.push(r.at.map(|a| a.offset));
                    }
                })
                .unwrap();
                at
            };
            // Every record read, one too deep for serde_json too.
            let every = |b: &[u8]| Some(read::exact(b).unwrap_or_default());
            let whole = Ask {
                view: if full { View::History } else { View::Loaded },
                reading: Reading::With(&every),
                native: false,
            };
            assert_eq!(places(read::order(full)), places(whole), "{}", e.path().display());
            let positions = in_order(&src, &t, &chain, full).unwrap();
            assert_eq!(positions, chain.positions, "{}", e.path().display());
            rows += positions.len();
            earlier += usize::from(full) * chain.earlier_parts.len();
        }
    }
    assert!(
        rows > 1_000 && earlier > 10 && rewritten > 0,
        "{rows} rows, {earlier} earlier parts, {rewritten} files with a uuid written twice"
    );
}
