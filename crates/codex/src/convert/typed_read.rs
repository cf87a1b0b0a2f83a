use super::pieces::*;
use super::*;
use crate::io::Source;
use cctool_core::convert::model::{Body, Conversation, Emitter, collect};

/// Lines of the shapes the typed read must read as the record reader and the whole read
/// of the item do, or leave to them.
fn odd_lines() -> Vec<String> {
    let ts = r#""timestamp":"2026-03-01T10:00:00.000Z""#;
    let item = |p: &str| format!(r#"{{{ts},"type":"response_item","payload":{p}}}"#);
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let many = |n: usize| format!("[{}]", vec!["1"; n].join(","));
    let parts = |n: usize| format!("[{}]", vec![r#"{"type":"output_text","text":"x"}"#; n].join(","));
    let mut out = vec![
        item(r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}"#),
        item(r#"{"type":"function_call","name":"f","arguments":"not json","call_id":"c"}"#),
        item(r#"{"type":"function_call","name":"f","arguments":"[1,2]","call_id":"c"}"#),
        item(r#"{"type":"function_call","name":"f","arguments":"7"}"#),
        item(r#"{"type":"function_call","name":"f","arguments":null,"call_id":null}"#),
        item(r#"{"type":"function_call","name":"f","arguments":{"a":1},"call_id":"c"}"#),
        item(r#"{"type":"function_call","call_id":"a","call_id":"b"}"#),
        item(r#"{"type":"function_call","call_id":5,"name":"f"}"#),
        item(r#"{"type":"function_call","call_\u0069d":"e","n\u0061me":"f\"g","arguments":"{}"}"#),
        item(r#"{"type":"function_call","name":"f","arguments":"{}","call_id":"c","x":"\ud800"}"#),
        item(r#"{"type":"function_call","name":"\ud800","arguments":"{}","call_id":"c"}"#),
        item(r#"["function_call","f","{}","c"]"#),
        item("null"),
        item(r#""function_call""#),
        item(
            r#"{"type":"custom_tool_call","status":"completed","call_id":"p","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"}"#,
        ),
        item(r#"{"type":"custom_tool_call","call_id":"p","name":"apply_patch","input":{"a":1}}"#),
        item(r#"{"type":"custom_tool_call","call_id":"p","name":"x"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":"a\nb \"q\" \u001b[1m é😀"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":"lone \ud800"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":"spelt \u00e9 \/ \u001B \u000a \ud83d\ude00"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":"raw \\u0041 \\/ \u001f\b\f"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":"dup","output":"twice"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":null}"#),
        item(r#"{"type":"function_call_output","call_id":"c1"}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":7}"#),
        item(
            r#"{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"data:image/png;base64,AAA="}]}"#,
        ),
        item(r#"{"type":"function_call_output","call_id":"c1","output":{"content":"x","success":true}}"#),
        item(r#"{"type":"function_call_output","call_id":"c1","output":{"success":true}}"#),
        item(r#"{"type":"custom_tool_call_output","call_id":"p","output":"{\"output\":\"ok\"}"}"#),
        item(
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"},{"type":"input_image","image_url":"x"},{"type":"refusal","refusal":"no"},{"type":"text","text":null},{"text":"untyped"}]}"#,
        ),
        item(r#"{"type":"message","role":"assistant","content":[["output_text","by position"]]}"#),
        item(r#"{"type":"message","role":"assistant","content":["output_text"]}"#),
        item(r#"{"type":"message","role":"assistant","content":"a string"}"#),
        item(r#"{"type":"message","role":"assistant","content":null}"#),
        item(r#"{"type":"message","role":"assistant"}"#),
        item(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":5}]}"#),
        item(r#"{"type":"message","role":"assistant","role":"user","content":[]}"#),
        item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a prompt"}]}"#),
        item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x"}]}"#),
        item(r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"d"}]}"#),
        item(r#"{"type":"message","role":"system","content":[{"type":"input_text","text":"s"}]}"#),
        item(r#"{"type":"message","content":[{"type":"output_text","text":"no role"}]}"#),
        item(
            r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"a"},{"type":"summary_text","text":"b"}],"content":null,"encrypted_content":"gAAA"}"#,
        ),
        item(r#"{"type":"reasoning","summary":[],"encrypted_content":"gAAA"}"#),
        item(r#"{"type":"reasoning","summary":null}"#),
        item(r#"{"type":"reasoning"}"#),
        item(r#"{"type":"reasoning","summary":[{"text":null},{"text":"x"},{}]}"#),
        item(r#"{"type":"reasoning","summary":[{"text":5}]}"#),
        item(r#"{"type":"reasoning","summary":["s",["t"]]}"#),
        item(r#"{"type":"reasoning","summary":[["summary_text"]]}"#),
        item(r#"{"type":"local_shell_call","call_id":"l","action":{"type":"exec","command":["ls"]}}"#),
        item(r#"{"type":"web_search_call","status":"completed"}"#),
        item(r#"{"type":"ghost_snapshot","ghost_commit":{}}"#),
        item(r#"{"type":"compaction","encrypted_content":"x"}"#),
        item(r#"{"type":"other_kind","call_id":"c"}"#),
        item(r#"{"name":"f"}"#),
        item(&format!(
            r#"{{"type":"function_call","name":"f","arguments":"{{}}","call_id":"c","deep":{}}}"#,
            deep(101)
        )),
        item(&format!(
            r#"{{"type":"function_call","name":"f","arguments":"{{}}","call_id":"c","deep":{}}}"#,
            deep(130)
        )),
        item(&format!(
            r#"{{"type":"function_call","name":"f","arguments":"{{}}","call_id":"c","many":{}}}"#,
            many(100_001)
        )),
        item(&format!(
            r#"{{"type":"function_call","name":"f","arguments":"{{}}","call_id":"c","many":{}}}"#,
            many(100_000)
        )),
        item(&format!(
            r#"{{"type":"message","role":"assistant","content":{}}}"#,
            parts(100_001)
        )),
        item(&format!(
            r#"{{"type":"message","role":"assistant","content":{}}}"#,
            parts(1_000)
        )),
        format!(
            r#"{{"record_type":"state",{ts},"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}}}}"#
        ),
        format!(
            r#"{{{ts},{ts},"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}}}}"#
        ),
        format!(
            r#"{{{ts},"type":"response_item","type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}}}}"#
        ),
        format!(
            r#"{{{ts},"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}},"payload":null}}"#
        ),
        format!(
            r#"{{{ts},"id":1,"id":2,"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}}}}"#
        ),
        format!(
            r#"{{{ts},"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}}}} trailing"#
        ),
        format!(
            r#"  {{{ts},"type":"response_\u0069tem","payload":{{"type":"function_call","name":"f","call_id":"c"}}}}"#
        ),
        format!(
            r#"{{"type":"response_item","payload":{{"type":"function_call","name":"f","call_id":"c"}},"timestamp":7}}"#
        ),
        format!(r#"{{{ts},"type":"response_item"}}"#),
        format!(r#"{{{ts},"type":"event_msg","payload":{{"type":"agent_message","message":"m"}}}}"#),
        format!(r#"{{{ts},"type":"compacted","payload":{{"message":"s","replacement_history":[]}}}}"#),
        format!(r#"{{{ts},"type":"turn_context","payload":{{"cwd":"/w","model":"m"}}}}"#),
        r#"{"type":"function_call","name":"bare","arguments":"{}","call_id":"b"}"#.to_string(),
        r#"[1,2]"#.to_string(),
        r#"{"type":"response_item","payload":{"type":"function_call""#.to_string(),
        "not json".to_string(),
    ];
    out.push(item(&format!(
        r#"{{"type":"function_call_output","call_id":"c","output":"{}"}}"#,
        "x,".repeat(120_000)
    )));
    out
}

/// The pieces of every line of the fixtures and of lines of every odd shape: the typed read
/// gives the plain read's wherever it reads a line, and it reads most of the fixtures'.
#[test]
fn fast_pieces_equal_the_plain_pieces() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("fixtures");
    let fixture_lines: Vec<Vec<u8>> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .flat_map(|b| b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>())
        .filter(|l| memchr::memmem::find(l, b"response_item").is_some())
        .collect();
    let odd: Vec<Vec<u8>> = odd_lines().into_iter().map(String::into_bytes).collect();
    let mut fast_fixtures = 0;
    let mut fast_odd = 0;
    let mut json_texts = 0;
    for (k, bytes) in fixture_lines.iter().chain(&odd).enumerate() {
        let line = crate::io::Line {
            no: 7,
            offset: 0,
            bytes,
            terminated: true,
        };
        let (mut fast, mut plain) = (Vec::new(), Vec::new());
        if fast_pieces(&line, &mut fast).is_none() {
            assert!(fast.is_empty(), "{}", String::from_utf8_lossy(bytes));
            continue;
        }
        plain_pieces(&line, &mut plain);
        // A result's text the typed read keeps as its JSON string is the same text.
        let fast: Vec<Piece> = fast
            .into_iter()
            .map(|p| match p {
                Piece::Push(l, body) => {
                    json_texts += body.json_texts();
                    Piece::Push(l, body.into_plain())
                }
                p => p,
            })
            .collect();
        assert_eq!(
            fast,
            plain,
            "{}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
        );
        if k < fixture_lines.len() {
            fast_fixtures += 1;
        } else {
            fast_odd += 1;
        }
    }
    assert!(
        fast_fixtures * 10 > fixture_lines.len() * 6,
        "{fast_fixtures} of {} fixture lines read typed",
        fixture_lines.len()
    );
    assert!(fast_odd > 20, "{fast_odd} odd lines read typed");
    assert!(json_texts > 40, "{json_texts} results kept as their JSON strings");
}

/// A rollout of several windows read whole with `--full`: in order, with every line's
/// pieces, the same conversation as the records read one after the other.
#[test]
fn every_line_reads_what_the_records_give() {
    let mut text = String::from(
        r#"{"timestamp":"2026-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
    );
    text.push('\n');
    let odd = odd_lines();
    let pad = "p\\\"ad ".repeat(500);
    let mut i = 0usize;
    while text.len() < 20 << 20 {
        let ts = format!("2026-03-01T10:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
        let line = match i % 7 {
            0 => format!(
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"q{i}"}}]}}}}"#
            ),
            1 => format!(
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"reasoning","summary":[{{"text":"r{i}"}}]}}}}"#
            ),
            2 => format!(
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{\"command\":[\"ls\"]}}","call_id":"c{i}"}}}}"#
            ),
            3 => format!(
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"function_call_output","call_id":"c{}","output":"{pad}"}}}}"#,
                i - 1
            ),
            4 => format!(
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"a{i} {pad}"}}]}}}}"#
            ),
            5 => odd[i / 7 % odd.len()].clone(),
            _ if i % 700 == 6 => format!(
                r#"{{"timestamp":"{ts}","type":"compacted","payload":{{"message":"summary {i}","replacement_history":[]}}}}"#
            ),
            _ => format!(r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"token_count"}}}}"#),
        };
        text.push_str(&line);
        text.push_str(if i.is_multiple_of(11) { "\r\n" } else { "\n" });
        i += 1;
    }
    let src = Source::from_bytes("t.jsonl", text.into_bytes());
    let par = collect(|sink| read_stream(&src, true, true, sink)).unwrap();
    // The records one after the other, as the reader took them before.
    let seq = collect(|sink| {
        let mut c = Conversation::new(crate::ID);
        c.session_id = "s".into();
        let mut r = Reader {
            src: &src,
            c: Emitter::new(c, sink),
            times: Vec::new(),
            odd_times: Default::default(),
            released: src.releaser(),
        };
        Steps::Full(&src).each(|step| r.step(step))?;
        r.c.finish()
    })
    .unwrap();
    assert!(par.entries.len() > 1_000, "{} entries", par.entries.len());
    let strip = |c: &Conversation| -> Vec<(String, Body)> {
        c.entries.iter().map(|e| (e.key.clone(), e.body.clone())).collect()
    };
    assert!(par.entries.iter().all(|e| e.timestamp.is_some()));
    let (par, seq) = (strip(&par), strip(&seq));
    assert_eq!(par.len(), seq.len());
    if let Some(k) = (0..par.len()).find(|&k| par[k] != seq[k]) {
        panic!("entry {k} differs:\n{:?}\n{:?}", par[k], seq[k]);
    }
}
