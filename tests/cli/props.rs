//! Property tests of the library: the line splitter does not depend on how the input is
//! chunked, surrogate repair keeps lengths, and the chain loaders terminate on any parent
//! graph — cycles, dangling parents, duplicates — with every message at most once.

use cctool::agents::claude_code::chain::{self as claude, Loader, Options};
use cctool::io::Source;
use cctool::io::lines::{LineStats, lines_of, split_chunk};
use proptest::prelude::*;

proptest! {
    #[test]
    fn chunking_never_changes_lines(text in "[a-c\\r\\n ]{0,200}", cut in 0usize..200) {
        let bytes = text.as_bytes();
        // Chunks end on a newline, as the readers guarantee.
        let cut = bytes[..cut.min(bytes.len())].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let whole: Vec<_> = lines_of(bytes).0.iter().map(|l| (l.no, l.offset, l.bytes.to_vec(), l.terminated)).collect();
        let mut stats = LineStats::default();
        let mut parts = Vec::new();
        split_chunk(0, &bytes[..cut], false, &mut stats, &mut |l| parts.push((l.no, l.offset, l.bytes.to_vec(), l.terminated)));
        split_chunk(cut as u64, &bytes[cut..], true, &mut stats, &mut |l| parts.push((l.no, l.offset, l.bytes.to_vec(), l.terminated)));
        prop_assert_eq!(whole, parts);
    }

    #[test]
    fn surrogate_repair_keeps_length(s in "[a\\\\u0dD8f\"]{0,40}") {
        let line = format!("{{\"a\":\"{s}\"}}");
        if let Some(fixed) = cctool::io::json::repair_surrogates(line.as_bytes()) {
            prop_assert_eq!(fixed.len(), line.len());
        }
    }

    #[test]
    fn loaders_terminate_on_any_parent_graph(
        parents in prop::collection::vec((0usize..12, 0u8..4, 0i64..20, 0u8..3), 1..12),
        loader in prop_oneof![Just(Loader::V2_1_88), Just(Loader::V2_1_332)],
    ) {
        let mut file = String::new();
        for (i, (p, kind, ts, side)) in parents.iter().enumerate() {
            let uuid = format!("00000000-0000-4000-8000-{:012}", i % 10); // some duplicates
            let parent = if *p >= 11 { "null".to_string() } else { format!("\"00000000-0000-4000-8000-{p:012}\"") };
            let (ty, extra) = match kind {
                0 => ("user", r#""message":{"role":"user","content":"q"}"#.to_string()),
                1 => ("assistant", format!(r#""message":{{"id":"msg_{}","role":"assistant","content":[{{"type":"text","text":"a"}}]}}"#, i % 3)),
                2 => ("system", r#""subtype":"turn_duration""#.to_string()),
                _ => ("progress", r#""data":{}"#.to_string()),
            };
            let side = ["", r#","isSidechain":false"#, r#","isSidechain":true"#][*side as usize];
            file.push_str(&format!(
                "{{\"parentUuid\":{parent}{side},\"type\":\"{ty}\",{extra},\"uuid\":\"{uuid}\",\"timestamp\":\"2026-01-01T00:00:{ts:02}.000Z\"}}\n"
            ));
        }
        let t = claude::read(&Source::from_bytes("prop", file.into_bytes())).unwrap();
        let chain = t.rebuild(&Options { loader, ..Options::default() }).unwrap();
        let mut seen = std::collections::HashSet::new();
        for p in &chain.positions {
            prop_assert!(seen.insert(*p), "message twice on the chain");
        }
        let full = t.rebuild(&Options { loader, full: true, tip: None }).unwrap();
        prop_assert!(full.positions.len() >= chain.positions.len());
    }
}

mod migrate_props {
    use cctool::v5::schema::{self as migrate, Session};
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn message() -> impl Strategy<Value = Value> {
        let text = "[a-zé😀 {}\":,\\\\\n]{0,12}";
        (
            0u8..4,
            text,
            proptest::option::of(text),
            proptest::option::of(0i64..4_000_000_000),
            proptest::collection::vec((text, text), 0..3),
        )
            .prop_map(|(role, content, thinking, ts, calls)| {
                let mut m = serde_json::Map::new();
                m.insert(
                    "role".into(),
                    json!(["user", "assistant", "tool", "system"][role as usize]),
                );
                m.insert("content".into(), json!(content));
                if role == 2 {
                    m.insert("tool_call_id".into(), json!("call_x"));
                }
                if let Some(t) = thinking {
                    m.insert("thinking".into(), json!(t));
                }
                if let Some(ts) = ts {
                    m.insert("ts".into(), json!(ts));
                }
                if role == 1 && !calls.is_empty() {
                    let calls: Vec<Value> = calls
                        .into_iter()
                        .enumerate()
                        .map(|(i, (name, args))| json!({"id": format!("call_{i}"), "name": name, "arguments": args}))
                        .collect();
                    m.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(m)
            })
    }

    fn session() -> impl Strategy<Value = Value> {
        proptest::collection::vec(message(), 0..16).prop_map(|msgs| json!({"version": 1, "id": "s", "messages": msgs}))
    }

    /// JSON text with every non-ASCII character written as `\uXXXX` (surrogate pairs above
    /// the BMP), as Python's `json.dumps` does by default.
    fn ascii_escaped(json: &str) -> String {
        let mut out = String::new();
        for c in json.chars() {
            if c.is_ascii() {
                out.push(c);
            } else {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn step_by_step_equals_at_once_and_v5_is_a_fixed_point(doc in session(), part in 1usize..200) {
            let at_once = migrate::to_bytes(&migrate::migrate(migrate::parse(doc.clone()).unwrap(), 5));
            // One step at a time, through the file format each time.
            let mut bytes = serde_json::to_vec(&doc).unwrap();
            for to in 2..=5 {
                let s = migrate::parse(serde_json::from_slice(&bytes).unwrap()).unwrap();
                bytes = migrate::to_bytes(&migrate::migrate(s, to));
            }
            prop_assert_eq!(&bytes, &at_once);
            // The output re-parses and validates as v5, and migrating it again is the identity.
            let v5: Session = migrate::parse(serde_json::from_slice(&at_once).unwrap()).unwrap();
            prop_assert_eq!(v5.version(), 5);
            prop_assert_eq!(migrate::to_bytes(&migrate::migrate(v5, 5)), at_once.clone());
            // The streaming path writes exactly what the general path writes.
            let input = serde_json::to_vec(&doc).unwrap();
            let fast = cctool::agents::cctool::fast::read(&input);
            prop_assert!(fast.is_some(), "serde's own output always takes the fast path");
            let mut out = Vec::new();
            cctool::agents::cctool::fast::write_v5(&fast.unwrap(), &mut out).unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(at_once.clone()).unwrap());
            // Read in parts of a few bytes, compact and pretty-printed: every guessed element
            // start, right or wrong (strings hold `},{`), gives the same document, whether the
            // parts are held or only spanned and read again when written (large files).
            for input in [input.clone(), serde_json::to_vec_pretty(&doc).unwrap()] {
                for spans in [false, true] {
                    let fast = cctool::agents::cctool::fast::read_in_parts(&input, part, spans);
                    prop_assert!(fast.is_some());
                    let mut out = Vec::new();
                    cctool::agents::cctool::fast::write_v5(&fast.unwrap(), &mut out).unwrap();
                    prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(at_once.clone()).unwrap());
                }
            }
            // Written as Python writes by default (non-ASCII as \u escapes): the same result.
            let ascii = ascii_escaped(&String::from_utf8(input).unwrap());
            let fast = cctool::agents::cctool::fast::read(ascii.as_bytes()).expect("escaped files take the fast path too");
            let mut out = Vec::new();
            cctool::agents::cctool::fast::write_v5(&fast, &mut out).unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(at_once).unwrap());
        }
    }
}

mod compact_props {
    use cctool::agents::cctool::compact as session;
    use cctool::v5::schema as migrate;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// A v5 message of a generated session: assistants with reasoning and tool calls, tool
    /// messages with string or block contents (with and without `original_size`).
    fn message() -> impl Strategy<Value = (u8, String, bool, u8, bool)> {
        (
            0u8..3,
            "[a-zé😀 \n\\[\\]:]{0,300}",
            any::<bool>(),
            0u8..3,
            any::<bool>(),
        )
    }

    fn session() -> impl Strategy<Value = Value> {
        proptest::collection::vec(message(), 0..24).prop_map(|parts| {
            let mut msgs = Vec::new();
            let mut open: Vec<String> = Vec::new();
            for (i, (role, text, flag, shape, sized)) in parts.into_iter().enumerate() {
                let id = i + 1;
                let m = match role {
                    0 => json!({"role": "user", "items": [{"type": "text", "text": text}], "id": id}),
                    1 => {
                        let call = format!("call_{id}");
                        open.push(call.clone());
                        let mut items = vec![json!({"type": "reasoning", "text": text.clone()})];
                        if flag {
                            items.push(json!({"type": "text", "text": "ok"}));
                        }
                        items.push(json!({"type": "tool_call", "id": call, "name": "read_file", "args": {"path": text}}));
                        json!({"role": "assistant", "items": items, "id": id})
                    }
                    _ => {
                        let call = open.pop().unwrap_or_else(|| "call_missing".into());
                        let content = match shape {
                            0 => json!(text),
                            1 => json!([{"type": "text", "text": text}, {"type": "text", "text": "more"}]),
                            _ => json!([{"type": "image", "media_type": "image/png", "data": "AAAA"}, {"type": "text", "text": text}]),
                        };
                        let mut r = json!({"type": "tool_result", "content": content});
                        if sized {
                            r["original_size"] = json!(migrate::content_size(&r["content"]));
                        }
                        json!({"role": "tool", "tool_call_id": call, "items": [r], "id": id})
                    }
                };
                msgs.push(m);
            }
            json!({"schema_version": 5, "session_id": "p", "messages": msgs})
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn tier1_then_decompress_gives_the_original_messages(doc in session(), tail in 0usize..30, keep in 0usize..4) {
            let original = migrate::parse(doc).unwrap();
            let mut compacted = original.clone();
            let tail = tail.min(session::messages(&original).len());
            session::tier1(&mut compacted, tail, keep);
            session::log(&mut compacted, 1, 0, (1, 1), 0, 0);
            // Through the file format, as decompress reads it.
            let bytes = migrate::to_bytes(&compacted);
            let mut back = migrate::parse(serde_json::from_slice(&bytes).unwrap()).unwrap();
            let r = session::decompress(&mut back, session::messages(&original));
            prop_assert!(r.unrestored.is_empty(), "{:?}", r.unrestored);
            prop_assert_eq!(session::messages(&back), session::messages(&original));
            prop_assert_eq!(migrate::to_bytes(&back), migrate::to_bytes(&original));
        }
    }
}
