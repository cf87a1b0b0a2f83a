//! The fast reading gives what the full reading gives, on every fixture, the shared samples,
//! lines written to trip it, and sessions made of them at random.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::answers::{scan_of, summaries_of};
use crate::doctor::doctor_of;
use cctool_core::io::json::value_len;

/// The answers of `scan`, `doctor` and `extract-summary` of `bytes` read the full way and the
/// fast way, which must be the same; the fast reading, when the file has none of the mark.
fn same(name: &str, bytes: &[u8]) -> Option<Session> {
    let src = Source::from_bytes(name, bytes.to_vec());
    let full = file::read(&src).unwrap();
    let text = String::from_utf8_lossy(bytes);
    let fast = |want| read_fast(&src, want).unwrap();
    let read = |want| fast(want).unwrap_or_else(|| full.clone());
    // `doctor` looks at the history's parts borrowed; the request's passes own them.
    for s in [&full, &read(Want::Links)] {
        history_borrowed_is_history(s);
    }
    written_len_is_the_messages_length(&full);
    assert_eq!(
        format!("{:?}", doctor_of(name, &read(Want::Links))),
        format!("{:?}", doctor_of(name, &full)),
        "{text}"
    );
    assert_eq!(
        format!("{:?}", summaries_of(&src, &read(Want::Nothing))),
        format!("{:?}", summaries_of(&src, &full)),
        "{text}"
    );
    assert_eq!(
        format!("{:?}", scan_of(&src, Ok(read(Want::Request)))),
        format!("{:?}", scan_of(&src, Ok(full.clone()))),
        "{text}"
    );
    fast(Want::Request)
}

/// The history of `s` borrowed is its history owned: the same Contents, from the same records,
/// with the same roles and parts.
fn history_borrowed_is_history(s: &Session) {
    let c = crate::chain::Chain::of(s);
    let owned: Vec<_> = c
        .history(s)
        .into_iter()
        .map(|o| {
            let role = o.value.get("role").and_then(Value::as_str).map(str::to_string);
            let parts = o
                .value
                .get("parts")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            (o.from, role, parts)
        })
        .collect();
    let borrowed: Vec<_> = c
        .history_borrowed(s)
        .into_iter()
        .map(|b| {
            (
                b.from,
                b.role.map(str::to_string),
                b.parts.into_iter().cloned().collect::<Vec<_>>(),
            )
        })
        .collect();
    assert_eq!(owned, borrowed);
}

/// How many texts of `s` are stand-ins.
fn stood_in(s: &Session) -> usize {
    let in_values: usize = s
        .records
        .iter()
        .filter_map(|r| r.value.get("message"))
        .map(|m| m.to_string().matches(MARK).count() / 2)
        .sum();
    let mut in_typed = 0;
    for p in s.records.iter().filter_map(|r| r.typed.as_ref()).flat_map(|t| &t.parts) {
        typed_strings(p, &mut |t| in_typed += t.matches(MARK).count() / 2);
    }
    in_values + in_typed
}

/// Each string a typed part holds, for `f`.
fn typed_strings(p: &crate::api::Part<'_>, f: &mut impl FnMut(&str)) {
    let strings = [
        p.string.as_deref(),
        p.text.as_str(),
        p.call.as_ref().and_then(|c| c.id.as_deref()),
        p.call.as_ref().and_then(|c| c.name.as_deref()),
        p.call.as_ref().and_then(|c| c.args.as_deref()),
        p.response.as_ref().and_then(|r| r.id.as_deref()),
        p.response.as_ref().map(|r| r.sent.as_ref()),
        p.media.as_ref().and_then(|m| m.as_deref()),
    ];
    strings.into_iter().flatten().for_each(&mut *f);
    for n in p.response.iter().flat_map(|r| r.parts.iter().flatten()) {
        typed_strings(n, f);
    }
}

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            jsonl_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_and_sample_reads_the_same_fast() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for d in std::fs::read_dir(root.join("fixtures")).unwrap().flatten() {
        if d.file_name().to_string_lossy().starts_with("qwen") {
            jsonl_under(&d.path(), &mut files);
        }
    }
    assert!(files.len() > 5);
    // The real sessions the project is developed with, where `CCTOOL_SAMPLES` names them.
    match std::env::var_os("CCTOOL_SAMPLES").map(|d| PathBuf::from(d).join("qwen-code")) {
        Some(dir) if dir.is_dir() => jsonl_under(&dir, &mut files),
        _ => eprintln!("skipped: the real qwen-code sessions (CCTOOL_SAMPLES names no folder with qwen-code/)"),
    }
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert!(same(&f.display().to_string(), &bytes).is_some(), "{}", f.display());
    }
}

/// A text long enough to be a stand-in.
const LONG_TEXT: &str =
    "a text long enough to stand in for, written by the model at some length, with words and words and more words";

fn rec(uuid: &str, parent: Option<&str>, ty: &str, rest: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("{p:?}"));
    format!(
        r#"{{"uuid":"{uuid}","parentUuid":{parent},"sessionId":"s1","timestamp":"2026-01-01T00:00:0{}Z","type":"{ty}","cwd":"/w","version":"0.24.4"{rest}}}"#,
        uuid.len() % 10
    )
}

/// Records (after a first prompt `u0`) that a reader trusting key order, measuring a text
/// wrongly, or standing in for a text an answer reads would answer otherwise than the full
/// reading; each names its parent `P`.
fn tricky() -> Vec<String> {
    let l = LONG_TEXT;
    let model = |parts: &str| format!(r#","message":{{"role":"model","parts":[{parts}]}},"model":"m1""#);
    let user = |parts: &str| format!(r#","message":{{"role":"user","parts":[{parts}]}}"#);
    vec![
        model(&format!(
            r#"{{"text":"{l} escapes \/ \u00e9 \ud83d\ude00 \n\t\"q\" \\ \u0001 end","thought":true}},{{"text":"{l}"}},{{"functionCall":{{"id":"c1","name":"read","args":{{"path":"{l}","n":[1,2.5,-0,1e3]}}}}}}"#
        )),
        user(&format!(
            r#"{{"functionResponse":{{"id":"c1","name":"read","response":{{"output":"{l} \/ \u2028 out"}}}}}}"#
        )),
        model(&format!(
            r#"{{"functionCall":{{"args":{{"a":"short"}},"id":"c2","name":"x"}}}},{{"functionCall":{{"id":"c3","name":"y","args":"{l}"}}}},{{"functionCall":{{"id":"c4","name":"z","args":[]}}}},{{"functionCall":{{"id":"c5","args":0}}}}"#
        )),
        user(&format!(
            r#"{{"functionResponse":{{"id":"c2","response":{{"error":"{l}"}}}}}},{{"functionResponse":{{"id":"c3","response":{{"output":5,"error":"{l}"}}}}}},{{"functionResponse":{{"id":"c4","response":"{l}"}}}},{{"functionResponse":{{"id":"c5","response":{{"x":"{l}"}},"parts":[{{"text":"{l}"}},{{"inlineData":{{"mimeType":"image/png","data":"{l}"}}}}]}}}}"#
        )),
        model(r#"{"text":"(request timeout)"}"#),
        model(&format!(
            r#"{{"text":"{}(request timeout){}"}}"#,
            " ".repeat(70),
            "\\n".repeat(40)
        )),
        model(&format!(r#"{{"text":"{}(request timeout)"}}"#, "\\u0020".repeat(30))),
        model(&format!(r#"{{"text":"(request{}timeout)"}}"#, "\\t".repeat(60))),
        model(&format!(r#"{{"text":"{}"}}"#, " ".repeat(100))),
        model(&format!(r#"{{"text":"{l}","text":"(request timeout)"}}"#)),
        model(&format!(r#"{{"text":"(request timeout)","text":"{l}"}}"#)),
        format!(
            r#","message":{{"role":"model","parts":[{{"text":"{l}"}}]}},"message":{{"role":"model","parts":[{{"text":"second {l}"}}]}}"#
        ),
        model(&format!(
            r#"{{"t\u0065xt":"{l}"}},{{"text":""}},{{"text":"","thought":true}}"#
        )),
        model(&format!(r#"{{"text":"{l} \ud83d lone"}}"#)),
        model(&format!(
            r#"{{"functionCall":{{"id":"c6","name":"n","args":{{"x":1e400,"y":"{l}"}}}}}}"#
        )),
        model(&format!(r#"{{"text":{}"{l}"{}}}"#, "[".repeat(120), "]".repeat(120))),
        model(&format!(r#"{{"text":[1,"{l}"]}},"a plain string {l}",7,{{}}"#)),
        model(&format!(r#"{{"$serde_json::private::RawValue":"{{}}","text":"{l}"}}"#)),
        user(&format!(r#"{{"text":"{l} a long prompt"}}"#)),
        // A user's texts given back in their places, a text written twice the last.
        user(&format!(
            r#"{{"text":"first {l}"}},{{"text":"{l} then","text":"{l} last {l} {l}"}},{{"text":"{l} {l} {l} {l} {l}"}}"#
        )),
        format!(
            r#","subtype":"mid_turn_user_message"{}"#,
            user(&format!(r#"{{"text":"{l} mid turn"}}"#))
        ),
        format!(
            r#","subtype":"slash_command","systemPayload":{{"phase":"result","rawCommand":"{l} a long prompt","outputHistoryItems":[{{"type":"assistant"}}]}}"#
        ),
        format!(
            r#","subtype":"chat_compression","systemPayload":{{"info":{{"originalTokenCount":100,"newTokenCount":10,"triggerReason":"manual"}},"compressedHistory":[{{"role":"user","parts":[{{"text":"<state_snapshot>{l}</state_snapshot>"}}]}},{{"role":"model","parts":[{{"text":"Got it. {l}"}}]}}]}}"#
        ),
        format!(r#","subtype":"chat_compression","systemPayload":{{"info":{{}}}}"#),
        format!(r#","subtype":"custom_title","systemPayload":{{"customTitle":"named"}}"#),
        model(&format!(
            r#"{{"functionCall":{{"id":"never","name":"w","args":{{"content":"{l}"}}}}}}"#
        )),
        // Arguments whose escapes serde_json writes back otherwise, and a key written twice.
        model(&format!(
            r#"{{"functionCall":{{"id":"c7","name":"e","args":{{"p":"{l} \/ \u0022 \u005C \u0001 \u007f \u00e9 \ud83d\ude00 \\\/ \"","q":[ true , null ]}}}}}},{{"functionCall":{{"id":"c8","name":"e","args":{{"p":"{l}","p":"x"}}}}}}"#
        )),
        user(&format!(
            r#"{{"functionResponse":{{"id":"nobody","response":{{"output":"{l}"}}}}}}"#
        )),
        format!(r#","message":"{l}""#),
        format!(r#","message":{{"role":"model","parts":{{"text":"{l}"}}}}"#),
        model(&format!(
            r#"{{"text":"{l}","thoughtSignature":"sig"}},{{"fileData":{{"mimeType":"application/pdf"}}}}"#
        )),
    ]
}

/// A session of the first prompt and the tricky records `which`, each the child of the one
/// before it, or (`branch`) of the one before that.
fn session(which: &[(usize, bool)]) -> String {
    let all = tricky();
    let mut lines = vec![rec(
        "u0",
        None,
        "user",
        r#","message":{"role":"user","parts":[{"text":"hello"}]}"#,
    )];
    for (n, &(i, branch)) in which.iter().enumerate() {
        let parent = if branch && n > 0 {
            format!("r{}", n - 1)
        } else {
            format!("r{n}")
        };
        let parent = if n == 0 { "u0".to_string() } else { parent };
        let rest = &all[i % all.len()];
        let ty = if rest.contains("systemPayload") {
            "system"
        } else if rest.contains(r#""role":"model""#) {
            "assistant"
        } else if rest.contains("functionResponse") {
            "tool_result"
        } else {
            "user"
        };
        lines.push(rec(&format!("r{}", n + 1), Some(&parent), ty, rest));
    }
    lines.join("\n") + "\n"
}

#[test]
fn tricky_lines_read_the_same_fast() {
    let all = tricky();
    let whole = session(&(0..all.len()).map(|i| (i, false)).collect::<Vec<_>>());
    let fast = same("all.jsonl", whole.as_bytes()).unwrap();
    assert!(stood_in(&fast) > 10, "{}", stood_in(&fast));
    for i in 0..all.len() {
        same("one.jsonl", session(&[(0, false), (i, false), (1, false)]).as_bytes()).unwrap();
    }
    // Cut short, glued onto one line, mixed with another session, a record written twice.
    for cut in [whole.len() - 1, whole.len() / 2, whole.len() / 3] {
        same("cut.jsonl", &whole.as_bytes()[..cut]);
    }
    let glued = whole.replacen("\n", "", 3);
    same("glued.jsonl", glued.as_bytes()).unwrap();
    let mixed = format!("{whole}{}\n", whole.lines().nth(2).unwrap().replace("\"s1\"", "\"s2\""));
    same("mixed.jsonl", mixed.as_bytes()).unwrap();
    let again = format!("{whole}{}\n", whole.lines().nth(3).unwrap());
    same("again.jsonl", again.as_bytes()).unwrap();
    let bad = format!("{whole}not json {LONG_TEXT}\n[1]\n{{\"uuid\":\"x\"}}\n");
    same("bad.jsonl", bad.as_bytes()).unwrap();
}

#[test]
fn lines_that_are_not_utf8_read_the_same_fast() {
    // A byte no UTF-8 text holds in a field nobody reads (which the full reading skips
    // unchecked), in a text a stand-in replaces, in a short text, and in a key.
    let whole = session(&[(0, false), (1, false), (2, false), (18, false)]);
    let lines: Vec<&str> = whole.lines().collect();
    let with = |i: usize, from: &str, to: &[u8]| {
        let mut out = Vec::new();
        for (n, l) in lines.iter().enumerate() {
            match l.split_once(from) {
                Some((a, b)) if n == i => {
                    out.extend_from_slice(a.as_bytes());
                    out.extend_from_slice(to);
                    out.extend_from_slice(b.as_bytes());
                }
                _ => out.extend_from_slice(l.as_bytes()),
            }
            out.push(b'\n');
        }
        out
    };
    let cases = [
        with(2, r#""cwd":"/w""#, b"\"cwd\":\"/w\",\"telemetry\":\"\xff\xfe\""),
        with(2, LONG_TEXT, b"\xc3("),
        with(4, "a long prompt", b"a lo\xffng prompt"),
        with(0, "hello", b"he\xe2\x82llo"),
        with(3, r#""model""#, b"\"mo\xffdel\""),
    ];
    for (i, bytes) in cases.iter().enumerate() {
        assert!(std::str::from_utf8(bytes).is_err(), "case {i}");
        same("not-utf8.jsonl", bytes).unwrap();
    }
}

#[test]
fn a_file_that_writes_the_mark_where_it_is_sent_is_read_whole() {
    let l = LONG_TEXT;
    for mark in ["\u{FDD0}", "\\ufdd0", "\\uFdD0"] {
        let model = |parts: &str| format!(r#","message":{{"role":"model","parts":[{parts}]}}"#);
        let first = rec(
            "u0",
            None,
            "user",
            r#","message":{"role":"user","parts":[{"text":"hi"}]}"#,
        );
        let then = |rest: &str| format!("{first}\n{}\n", rec("a1", Some("u0"), "assistant", rest));
        // A user's record, alone: its texts are given back.
        let user = |text: String| {
            format!(
                "{}\n",
                rec("u0", None, "user", &model(&format!(r#"{{"text":"{text}"}}"#)))
            )
        };
        // Where a text that is sent is kept as written, its mark could be read as a stand-in's.
        let sent = [
            user(format!("{l}{mark}12{mark}")),
            user(format!("x{mark}12{mark} {l}")),
            then(&model(&format!(r#"{{"text":"short {mark}12{mark}"}}"#))),
            then(&model(&format!(
                r#"{{"functionCall":{{"id":"c1","name":"n{mark}","args":{{}}}}}}"#
            ))),
            then(&model(&format!(
                r#"{{"functionCall":{{"id":"c1","name":"n","args":{{"a":"{mark}"}}}}}}"#
            ))),
            then(&model(&format!(
                r#"{{"inlineData":{{"mimeType":"image/{mark}7{mark}","data":"x"}}}}"#
            ))),
            then(&format!(
                r#","subtype":"chat_compression","systemPayload":{{"info":{{}},"compressedHistory":[{{"role":"user","parts":[{{"text":"{mark}9{mark}"}}]}}]}}"#
            )),
        ];
        for text in sent {
            assert!(same("mark.jsonl", text.as_bytes()).is_none(), "{text}");
            let src = Source::from_bytes("mark.jsonl", text.into_bytes());
            assert!(read_fast(&src, Want::Links).unwrap().is_some());
        }
        // A text a stand-in replaces, or one never sent, is no matter.
        let unsent = [
            then(&model(&format!(r#"{{"text":"x{mark}12{mark} {l}"}}"#))),
            then(&model(&format!(r#"{{"text":["{mark}"]}}"#))),
            then(&model(&format!(
                r#"{{"functionCall":{{"id":"c1","name":"n","args":{{"a":"{l}{mark}"}}}}}}"#
            ))),
            format!(
                "{first}\n{}\n",
                rec("a1", Some("u0"), "assistant", &format!(r#","model":"m{mark}""#))
            ),
        ];
        for text in unsent {
            assert!(same("mark.jsonl", text.as_bytes()).is_some(), "{text}");
        }
    }
}

#[test]
fn a_stand_in_counts_as_the_text_it_stands_for() {
    let text = |w| stand_in(w, 12);
    let m = crate::api::Message::User(vec![format!("x{}y{}", text(40), text(7)).into(), text(3).into()]);
    let s = Session {
        stand_ins: true,
        ..Session::default()
    };
    assert_eq!(stood_for_in(&text(40)), 40 - text(40).len() as isize);
    let written = crate::api::Message::User(vec!["x".repeat(49).into(), "abc".into()]);
    assert_eq!(s.sent_len(&m), value_len(&written.value()));
    assert!(surely_long(LONG_TEXT.as_bytes()));
    assert!(!surely_long(format!("{LONG_TEXT}\\u0041").as_bytes()));
    assert!(!surely_long(format!("{LONG_TEXT}\\/").as_bytes()));
    assert!(!surely_long(format!("\\u0041{LONG_TEXT}").as_bytes()));
    assert!(surely_long(format!("  \\n{LONG_TEXT}\\t ").as_bytes()));
    assert!(!surely_long(b"short"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sessions_of_tricky_records_read_the_same_fast(which in prop::collection::vec((0usize..64, any::<bool>()), 0..24)) {
        same("random.jsonl", session(&which).as_bytes()).unwrap();
    }
}

/// A part of one of the kinds the request's passes tell apart (`k`), answering or calling one
/// of four ids (`id`); some long enough to be read as stand-ins.
fn random_part(k: u8, id: u8) -> Value {
    use serde_json::json;
    let id = format!("c{}", id % 4);
    match k % 17 {
        13 => json!({"text": LONG_TEXT}),
        14 => json!({"functionResponse": {"id": id, "name": "run", "response": {"output": LONG_TEXT}}}),
        15 => json!({"functionCall": {"id": id, "name": "run", "args": {"command": LONG_TEXT}}}),
        16 => json!({"text": LONG_TEXT, "thought": true}),
        0 => json!({"text": format!("t{id}")}),
        1 => json!({"text": ""}),
        2 => json!({"text": "think", "thought": true}),
        3 => json!({"functionCall": {"id": id, "name": "run", "args": {"a": 1}}}),
        4 => json!({"functionCall": {"name": "run", "args": {}}}),
        5 => json!({"functionResponse": {"id": id, "name": "run", "response": {"output": "out"}}}),
        6 => json!({"functionResponse": {"id": id, "name": "run", "response": {"error": "bad"}}}),
        7 => {
            json!({"functionResponse": {"id": id, "name": "run", "response": {"x": [1]}, "parts": [{"text": "p"}, {"inlineData": {"mimeType": "image/png", "data": "AA"}}]}})
        }
        8 => json!({"inlineData": {"mimeType": "image/png", "data": "AA"}}),
        9 => json!({"text": " (request timeout) "}),
        10 => json!("plain"),
        11 => json!({"functionResponse": {"id": id, "response": "s"}}),
        12 => json!({"text": "said", "thoughtSignature": "sig"}),
        _ => json!({}),
    }
}

/// A turn: whether it is the model's, its parts (kind, id), whether it is a message after the
/// turn's tool results.
type RandomTurn = (bool, Vec<(u8, u8)>, bool);

/// Sessions of turns made of these parts at random: the request's passes (calls without
/// results, results moved, media, placeholders, thoughts) meet each other.
fn random_session(turns: &[RandomTurn]) -> String {
    let mut lines = String::new();
    let mut prev: Option<String> = None;
    for (n, (model, parts, mid_turn)) in turns.iter().enumerate() {
        let parts: Vec<Value> = parts.iter().map(|(k, i)| random_part(*k, *i)).collect();
        let uuid = format!("u{n}");
        let role = if *model { "model" } else { "user" };
        let mut r = serde_json::json!({"uuid": uuid, "parentUuid": prev, "sessionId": "s",
            "type": if *model { "assistant" } else { "user" }, "message": {"role": role, "parts": parts}});
        if *mid_turn && !*model {
            r["subtype"] = "mid_turn_user_message".into();
        }
        lines.push_str(&r.to_string());
        lines.push('\n');
        prev = Some(uuid);
    }
    lines
}

/// Each message of the request resuming `s` (with a prompt and without) is as long as the
/// JSON it is written as: what `scan` counts is what `--api-view` prints.
fn written_len_is_the_messages_length(s: &Session) {
    let c = crate::chain::Chain::of(s);
    for p in [None, Some("say ok")] {
        for m in crate::api::request(s, &c, p).0 {
            assert_eq!(m.written_len(), value_len(&m.value()), "{m:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sessions_of_random_turns_read_the_same_fast(
        turns in prop::collection::vec((any::<bool>(), prop::collection::vec((any::<u8>(), any::<u8>()), 0..4), any::<bool>()), 0..12)
    ) {
        same("turns.jsonl", random_session(&turns).as_bytes());
    }
}

/// Each part read typed is the part the request's passes read from its `Value`
/// ([`crate::api::Part::of`]); a part whose response is sent as its JSON, or of many keys, is
/// left to the full reading.
#[test]
fn typed_parts_are_the_parts_the_request_reads() {
    use serde_json::json;
    let parts = [
        json!({"text": "short"}),
        json!({"text": "a \"q\" \\ \u{e9} \n"}),
        json!({"text": ""}),
        json!({"text": [1, "x"]}),
        json!({"text": null, "thought": true}),
        json!({"text": "t", "thought": 0}),
        json!({"text": "t", "thought": "yes", "thoughtSignature": ""}),
        json!({"text": "t", "thoughtSignature": {"a": []}}),
        json!({"thought": 0.5}),
        json!({"text": "t", "thought": -1, "thoughtSignature": -0.0}),
        json!({"text": "t", "thought": 0.0, "thoughtSignature": false}),
        json!({"functionCall": {"id": "c1", "name": "run", "args": {"a": 1, "b": [true, null]}}}),
        json!({"functionCall": {"id": 5, "name": ["n"], "args": 0}}),
        json!({"functionCall": {"args": ""}}),
        json!({"functionCall": {"args": "a string"}}),
        json!({"functionCall": {"args": null, "extra": {"k": "v"}}}),
        json!({"functionCall": "not an object"}),
        json!({"functionCall": 0}),
        json!({"functionCall": -3}),
        json!({"functionResponse": -1, "inlineData": 0.0, "fileData": {"mimeType": "text/plain"}}),
        json!({"functionCall": []}),
        json!({"functionResponse": {"id": "c1", "name": "run", "response": {"output": "out"}}}),
        json!({"functionResponse": {"id": "c1", "response": {"error": "bad", "output": 5}}}),
        json!({"functionResponse": {"id": "c1", "response": "a string"}}),
        json!({"functionResponse": {"id": "c1", "response": null}}),
        json!({"functionResponse": {"id": "c1", "response": 12}}),
        json!({"functionResponse": {"id": "c1", "response": -1.5}}),
        json!({"functionResponse": {"id": "c1", "response": false}}),
        json!({"functionResponse": {"id": "c1"}}),
        json!({"functionResponse": {"id": "c1", "response": {"output": "o"}, "parts": [{"text": "p"}, "s", {"inlineData": {"mimeType": "image/png", "data": "AA"}}]}}),
        json!({"functionResponse": {"id": "c1", "response": {"output": "o"}, "parts": {"text": "p"}}}),
        json!({"functionResponse": ""}),
        json!({"functionResponse": [1]}),
        json!({"inlineData": {"mimeType": "image/png", "data": "AA"}}),
        json!({"inlineData": {"mimeType": 7}}),
        json!({"inlineData": {}, "fileData": {"mimeType": "application/pdf"}}),
        json!({"inlineData": null, "fileData": {"mimeType": "application/pdf"}}),
        json!({"inlineData": "x"}),
        json!({"fileData": 0}),
        json!("a plain string"),
        json!(7),
        json!([{"text": "in an array"}]),
        json!(null),
        json!({}),
        json!({"unknown": {"deep": [1, 2, {"x": "y"}]}, "text": "t"}),
    ];
    for p in &parts {
        let message = json!({"role": "model", "parts": [p], "extra": 1}).to_string();
        let typed: typed::Typed<'_> = serde_json::from_str(&message).unwrap();
        assert_eq!(typed.message.role.as_deref(), Some("model"));
        assert_eq!(typed.message.parts, vec![crate::api::Part::of(p)], "{p}");
        assert_eq!(typed.seen.stand_ins, 0, "{p}");
    }
    // A key written twice: the last is read, as `Value` keeps it; the part has one key.
    let twice = r#"{"parts":[{"text":"a","text":"b"}]}"#;
    let typed: typed::Typed<'_> = serde_json::from_str(twice).unwrap();
    assert_eq!(typed.message.parts, vec![crate::api::Part::text("b".into())]);
    // Left to the full reading.
    let nine: serde_json::Map<String, Value> = (0..9).map(|i| (format!("k{i}"), json!(i))).collect();
    for p in [
        json!({"functionResponse": {"response": {"x": [1]}}}),
        json!({"functionResponse": {"response": [1]}}),
        Value::Object(nine),
    ] {
        let message = json!({"parts": [p]}).to_string();
        assert!(serde_json::from_str::<typed::Typed<'_>>(&message).is_err(), "{p}");
    }
    assert!(serde_json::from_str::<typed::Typed<'_>>(r#""a message that is a string""#).is_err());
    // Long texts are stand-ins, and arguments long enough; a user's are given back.
    let long = json!({"role": "user", "parts": [
        {"text": LONG_TEXT},
        {"functionCall": {"id": "c", "args": {"a": LONG_TEXT}}},
        {"functionResponse": {"id": "c", "response": {"output": LONG_TEXT}, "parts": [{"text": LONG_TEXT}]}},
    ]});
    let text = long.to_string();
    let mut typed: typed::Typed<'_> = serde_json::from_str(&text).unwrap();
    assert_eq!(typed.seen.stand_ins, 4);
    typed::given_back(&mut typed.message, &typed.seen.written).unwrap();
    let whole: Vec<_> = long["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(crate::api::Part::of)
        .collect();
    assert_eq!(typed.message.parts, whole);
}
