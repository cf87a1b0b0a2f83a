//! The converter's own tests: fixture sessions and generated conversations through the writer
//! and back, ids in the client's form and order, and bad documents read around.

use super::*;
use cctool_core::agents::Converter as _;
use cctool_core::convert::model::collect;
use cctool_core::convert::testing::{call, result, text};
use cctool_core::convert::tools::Verbatim;
use cctool_core::convert::write_whole;

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/opencode")
        .join(name)
}

fn read_bytes(name: &str, bytes: Vec<u8>, full: bool) -> Conversation {
    let src = Source::from_bytes(name, bytes);
    collect(|sink| Converter.read(&src, full, false, sink)).expect("read")
}

fn opts(tools: &'static dyn cctool_core::convert::tools::Vocabulary) -> WriteOptions {
    WriteOptions {
        session_id: "5f0c1d2e-0000-4000-8000-000000000001".into(),
        cwd: "/work/project".into(),
        model: Some("mock/mock-model".into()),
        reasoning_as_text: false,
        tools,
    }
}

/// The conversation written as a document, one line.
fn write(c: &Conversation, o: &WriteOptions) -> Vec<u8> {
    let mut tally = Tally::default();
    let lines = write_whole(writer, c, o, &mut tally);
    assert_eq!(lines.len(), 1, "one document");
    lines.into_iter().next().unwrap_or_default()
}

/// The bodies a writer carries: reasoning left out, and a reply left with nothing.
fn carried(c: &Conversation) -> Vec<Body> {
    c.entries
        .iter()
        .filter_map(|e| match &e.body {
            Body::Assistant(bs) => {
                let kept: Vec<Block> = bs
                    .iter()
                    .filter(|b| !matches!(b, Block::Reasoning(_)))
                    .cloned()
                    .collect();
                (!kept.is_empty()).then_some(Body::Assistant(kept))
            }
            b => Some(b.clone()),
        })
        .collect()
}

/// Ids as the client makes them: its prefix, a hex head ascending in the order written, and
/// fourteen base-62 characters; each unique.
fn check_ids(doc: &Value) {
    let form = |id: &str, prefix: &str| {
        let rest = id.strip_prefix(prefix).unwrap_or_else(|| panic!("{id}: not {prefix}"));
        assert_eq!(rest.len(), 26, "{id}");
        assert!(rest[..12].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert!(rest[12..].bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    };
    let sid = doc["info"]["id"].as_str().expect("session id");
    form(sid, "ses_");
    let mut last = String::new();
    for m in doc["messages"].as_array().expect("messages") {
        let id = m["info"]["id"].as_str().expect("message id");
        form(id, "msg_");
        assert!(
            id[4..16] > last[last.len().min(4)..last.len().min(16)],
            "{id} after {last}"
        );
        assert_eq!(m["info"]["sessionID"], sid);
        last = id.to_string();
        for p in m["parts"].as_array().expect("parts") {
            let pid = p["id"].as_str().expect("part id");
            form(pid, "prt_");
            assert!(pid[4..16] > last[4..16], "{pid} after {last}");
            assert_eq!(p["messageID"], id);
            last = pid.to_string();
        }
        if m["info"]["role"] == "assistant" {
            assert!(m["info"]["parentID"].as_str().is_some_and(|p| p.starts_with("msg_")));
            assert!(m["info"]["modelID"].is_string() && m["info"]["providerID"].is_string());
        }
    }
}

/// Each fixture session read, written as a document and read back gives the same texts,
/// calls, results and compactions, with ids in the client's form and order.
#[test]
fn fixtures_come_back_from_their_document() {
    for name in [
        "ses_dc2d20407ffefXjqV2vNPG4N14.export.json",
        "ses_dc2d25b60ffektCxuYSkdGjDi7.export.json",
        "ses_dc2d3a7f7ffePjSuyqFAs2GNEo.export.json",
    ] {
        for full in [false, true] {
            let bytes = std::fs::read(fixture(name)).expect("fixture");
            let c = read_bytes(name, bytes, full);
            assert!(!c.entries.is_empty(), "{name}");
            let doc = write(&c, &opts(&crate::tools::OpencodeTools));
            let v: Value = serde_json::from_slice(&doc).expect("json");
            check_ids(&v);
            assert_eq!(v["info"]["directory"], "/work/project");
            let back = read_bytes("back.json", doc, true);
            assert_eq!(carried(&back), carried(&c), "{name} full={full}");
        }
    }
}

/// The reader counts on the stream it reads the order from: one record a message of the view,
/// in order, from where a resume starts (every message with `full`).
#[test]
fn the_stream_read_for_its_order_hands_on_each_message_of_the_view_once() {
    for name in [
        "ses_dc2d20407ffefXjqV2vNPG4N14.export.json",
        "ses_dc2d3a7f7ffePjSuyqFAs2GNEo.export.json",
    ] {
        let src = Source::from_bytes(name, std::fs::read(fixture(name)).expect("fixture"));
        let s = file::read(&src).expect("read");
        for full in [false, true] {
            let mut records = 0;
            crate::view::events_of(&s, order(full), &mut |e| {
                records += usize::from(matches!(e, cctool_core::model::events::Event::Record(_)));
            });
            let first = if full { 0 } else { resume_start(&s) };
            assert_eq!(records, s.messages.len() - first, "{name} full={full}");
        }
    }
}

/// A session of the database reads as its export does.
#[test]
fn a_session_of_the_database_reads_as_its_export() {
    let id = "ses_dc2d3a7f7ffePjSuyqFAs2GNEo";
    let db = crate::db::export(&fixture("opencode.db"), id).expect("export");
    let from_db = read_bytes(&format!("opencode.db#{id}"), db, false);
    let export = std::fs::read(fixture(&format!("{id}.export.json"))).expect("fixture");
    let from_export = read_bytes("export.json", export, false);
    assert_eq!(from_db.entries, from_export.entries);
    assert_eq!(from_db.session_id, id);
    assert!(
        matches!(from_db.entries[0].body, Body::Compaction(_)),
        "a resume starts at the compaction"
    );
}

/// A call without a result is written pending (the client sends it as interrupted), an
/// error as the client's error state, and what is left out is counted.
#[test]
fn results_fill_their_calls_state() {
    let mut c = Conversation::new(crate::ID);
    c.session_id = "s".into();
    c.push("u1", None, Body::User(vec![text("go")]));
    c.push(
        "a1",
        None,
        Body::Assistant(vec![
            Block::Reasoning("hmm".into()),
            call("c1", "bash", json!({"command": "ls"})),
            call("c2", "bash", json!({"command": "false"})),
            call("c3", "bash", json!({"command": "sleep 9"})),
        ]),
    );
    c.push("r1", None, result("c1", vec![text("a\nb")], false));
    c.push("r2", None, result("c2", vec![text("exit 1")], true));
    c.push("r9", None, result("nope", vec![text("?")], false));
    let mut tally = Tally::default();
    let doc = write_whole(writer, &c, &opts(&Verbatim), &mut tally);
    let v: Value = serde_json::from_slice(&doc[0]).expect("json");
    let parts = v["messages"][1]["parts"].as_array().expect("parts").clone();
    let state = |i: usize| parts[i]["state"].clone();
    assert_eq!(state(1)["status"], "completed");
    assert_eq!(state(1)["output"], "a\nb");
    assert_eq!(state(2)["status"], "error");
    assert_eq!(state(2)["error"], "exit 1");
    assert_eq!(state(3)["status"], "pending");
    assert_eq!(state(3)["raw"], r#"{"command":"sleep 9"}"#);
    assert_eq!(parts.last().expect("a step")["type"], "step-finish");
    assert_eq!(v["messages"][1]["info"]["parentID"], v["messages"][0]["info"]["id"]);
    assert_eq!(v["messages"][1]["info"]["finish"], "tool-calls");
    assert_eq!(tally.dropped.get("reasoning"), Some(&1));
    assert_eq!(tally.dropped.get("result of a call no reply sent"), Some(&1));
}

/// A compaction is written as the client writes an automatic one, and a resume starts
/// from it.
#[test]
fn a_compaction_is_written_as_the_clients() {
    let mut c = Conversation::new(crate::ID);
    c.push("u0", None, Body::User(vec![text("before")]));
    c.push("k", None, Body::Compaction("the summary".into()));
    c.push("u1", None, Body::User(vec![text("after")]));
    c.push("a1", None, Body::Assistant(vec![Block::Text("ok".into())]));
    let doc = write(&c, &opts(&Verbatim));
    let v: Value = serde_json::from_slice(&doc).expect("json");
    let m = &v["messages"];
    assert_eq!(m[1]["parts"][0]["type"], "compaction");
    assert_eq!(m[2]["info"]["summary"], true);
    assert_eq!(m[2]["info"]["parentID"], m[1]["info"]["id"]);
    assert_eq!(m[2]["parts"][1]["text"], "the summary");
    assert_eq!(m[3]["parts"][0]["text"], CONTINUE);
    let resumed = read_bytes("d.json", doc, false);
    assert_eq!(
        carried(&resumed),
        vec![
            Body::Compaction("the summary".into()),
            Body::User(vec![text("after")]),
            Body::Assistant(vec![Block::Text("ok".into())]),
        ]
    );
}

/// An image whose data the client could not decode is left out and counted: it would fail
/// the resumed turn.
#[test]
fn an_image_of_bad_data_is_left_out() {
    assert!(is_base64("iVBORw0KGgo=") && is_base64("AAAA") && !is_base64("not-base64!") && !is_base64("AA=A"));
    let mut c = Conversation::new(crate::ID);
    let img = cctool_core::convert::testing::img;
    c.push(
        "u",
        None,
        Body::User(vec![
            text("see"),
            img("data:image/png;base64,not-base64!"),
            img("data:image/png;base64,AAAA"),
        ]),
    );
    let mut tally = Tally::default();
    let doc = write_whole(writer, &c, &opts(&Verbatim), &mut tally);
    let v: Value = serde_json::from_slice(&doc[0]).expect("json");
    assert_eq!(v["messages"][0]["parts"].as_array().map(Vec::len), Some(2));
    assert_eq!(tally.dropped.get("image whose data is not base64"), Some(&1));
}

/// Bad input never panics: a document that is not one, or messages of the wrong shapes.
#[test]
fn bad_documents_are_errors_or_read_around() {
    for bad in [&b"[]"[..], b"not json", b"{\"info\": 1, \"messages\": 2}", b""] {
        let src = Source::from_bytes("bad.json", bad.to_vec());
        let _ = collect(|sink| Converter.read(&src, false, false, sink));
    }
    let odd = br#"{"info":{"id":"ses_x"},"messages":[1,{"info":{"role":"assistant","error":{"name":"X"}},"parts":[{"type":"text","text":"t"}]},{"info":{"role":"user"},"parts":[{"type":"tool"},{"type":"text","text":7},{"type":"file","mime":"image/png","url":"https://x"}]},{"info":{"role":"assistant"},"parts":[{"type":"tool","state":{"status":"completed","input":[1],"attachments":[5]}}]}]}"#;
    let c = read_bytes("odd.json", odd.to_vec(), true);
    assert!(c.dropped.contains_key("reply that ended in an error"));
}

proptest::proptest! {
    /// Any conversation of prompts, replies, calls with or without results and
    /// compactions, written and read back whole, is the same conversation.
    #[test]
    fn any_conversation_comes_back(
        turns in proptest::collection::vec(
            (
                proptest::bool::ANY,
                "(?s).{0,40}",
                proptest::collection::vec(
                    ("(?s).{0,20}", proptest::collection::vec((0u8..3, "[a-z ]{0,12}"), 0..3)),
                    1..3,
                ),
            ),
            1..5,
        )
    ) {
        let mut c = Conversation::new(crate::ID);
        let mut n = 0;
        for (compact, prompt, replies) in &turns {
            n += 1;
            if *compact {
                c.push(&format!("k{n}"), None, Body::Compaction(format!("summary {n}")));
            }
            c.push(&format!("u{n}"), None, Body::User(vec![text(prompt)]));
            for (say, calls) in replies {
                n += 1;
                let mut blocks = vec![Block::Text(say.clone())];
                blocks.extend(calls.iter().enumerate().map(|(k, (_, cmd))| {
                    call(&format!("call_{n}_{k}"), "bash", json!({"command": cmd}))
                }));
                c.push(&format!("a{n}"), None, Body::Assistant(blocks));
                for (k, (how, out)) in calls.iter().enumerate() {
                    if *how < 2 {
                        c.push(&format!("r{n}_{k}"), None, result(&format!("call_{n}_{k}"), vec![text(out)], *how == 1));
                    }
                }
            }
        }
        let doc = write(&c, &opts(&Verbatim));
        let v: Value = serde_json::from_slice(&doc).expect("json");
        check_ids(&v);
        let back = read_bytes("p.json", doc, true);
        proptest::prop_assert_eq!(carried(&back), carried(&c));
    }
}
