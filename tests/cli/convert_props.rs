//! Property tests of `convert`: a generated Claude Code session taken to Codex and back, to pi
//! and back, or to Copilot CLI and back, keeps every text and every tool call — name, input, id and output — in order.

use cctool::agents::{claude_code, codex, copilot, pi};
use cctool::convert::model::{Block, Body, Conversation, Part};
use cctool::convert::{Tally, WriteOptions};
use cctool::io::Source;
use cctool::model::AgentId;
use proptest::prelude::*;
use serde_json::{Value, json};

/// What the round trip must keep, in order.
#[derive(Debug, PartialEq)]
enum Item {
    User(Vec<String>),
    Text(String),
    Call(String, String, Value),
    Result(String, Vec<String>),
    Summary(String),
}

fn flat(c: &Conversation) -> Vec<Item> {
    let texts = |p: &[Part]| p.iter().filter_map(Part::text).map(str::to_string).collect::<Vec<_>>();
    let mut out = Vec::new();
    for e in &c.entries {
        match &e.body {
            Body::User(p) => out.push(Item::User(texts(p))),
            Body::Assistant(blocks) => {
                for b in blocks {
                    match b {
                        Block::Text(t) => out.push(Item::Text(t.clone())),
                        Block::Call(call) => {
                            out.push(Item::Call(call.id.clone(), call.name.clone(), call.input.clone()))
                        }
                        Block::Reasoning(_) => {}
                    }
                }
            }
            Body::ToolResult(r) => out.push(Item::Result(r.call_id.clone(), texts(&r.output))),
            Body::Compaction(s) => out.push(Item::Summary(s.clone())),
        }
    }
    out
}

/// A call as it comes back from an `apply_patch` patch: a patch has no words for an `Edit`'s
/// `replace_all` (false is the default) nor for a `Write` without a final newline, and a
/// `MultiEdit` is the `Edit` of Claude Code 2.1.332 (its `edits` list, or its one edit). The
/// file, the old and the new strings are kept.
fn patched(i: Item) -> Item {
    match edited(i) {
        Item::Call(id, name, mut input) if name == "Write" => {
            let c = input["content"].as_str().expect("content");
            if !c.is_empty() && !c.ends_with('\n') {
                input["content"] = json!(format!("{c}\n"));
            }
            Item::Call(id, name, input)
        }
        i => i,
    }
}

/// A call as it comes back from a tool that edits by replacing strings but has no
/// `replace_all` (pi's `edit`, as a patch): a `MultiEdit` is the `Edit` of Claude Code
/// 2.1.332 (its `edits` list, or its one edit), the file, the old and the new strings kept.
fn edited(i: Item) -> Item {
    let Item::Call(id, name, mut input) = i else { return i };
    match name.as_str() {
        "Edit" => {
            input.as_object_mut().expect("object").shift_remove("replace_all");
        }
        "MultiEdit" if input["edits"].as_array().is_some_and(|e| e.len() == 1) => {
            let mut e = input["edits"][0].clone();
            e.as_object_mut().expect("object").shift_remove("replace_all");
            e["file_path"] = input["file_path"].clone();
            return Item::Call(id, "Edit".into(), e);
        }
        "MultiEdit" => {
            for e in input["edits"].as_array_mut().expect("edits") {
                e.as_object_mut().expect("object").shift_remove("replace_all");
            }
            return Item::Call(id, "Edit".into(), input);
        }
        _ => {}
    }
    Item::Call(id, name, input)
}

/// A call as it comes back from Copilot CLI, whose `edit` makes one replacement of one
/// occurrence: an edit of one hunk not meant for every occurrence is the `Edit` of Claude Code
/// 2.1.332 without its default `replace_all`; any other keeps its name and input. `view` reads
/// a range of lines from its first: a `Read` of a number of lines starts at line 1.
fn copiloted(i: Item) -> Item {
    let Item::Call(id, name, mut input) = i else { return i };
    let all = |e: &Value| e.get("replace_all").is_some_and(|v| v != &json!(false));
    match name.as_str() {
        "Read" if input.get("limit").is_some_and(|l| l != &json!(0)) && input.get("offset").is_none() => {
            let limit = input.as_object_mut().expect("object").shift_remove("limit");
            input["offset"] = json!(1);
            input["limit"] = limit.expect("limit");
            Item::Call(id, name, input)
        }
        "Edit" if input.get("edits").is_none() && !all(&input) => edited(Item::Call(id, name, input)),
        "MultiEdit" if input["edits"].as_array().is_some_and(|e| e.len() == 1 && !all(&e[0])) => {
            edited(Item::Call(id, name, input))
        }
        _ => Item::Call(id, name, input),
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z \n'\"*@+-]{0,24}",
        Just("*** End Patch".to_string()),
        Just("@@\n-x\n+y\n".to_string()),
        Just("line\n".to_string()),
        Just(String::new()),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof!["/[a-z]{1,6}/[a-z]{1,6}\\.rs", "/[a-z ']{1,8}"]
}

fn call() -> impl Strategy<Value = (String, Value)> {
    prop_oneof![
        (text(), proptest::option::of(text())).prop_map(|(c, d)| (
            "Bash".to_string(),
            match d {
                Some(d) => json!({"command": c, "description": d}),
                None => json!({"command": c}),
            }
        )),
        (path(), proptest::option::of(0u64..50), proptest::option::of(0u64..50)).prop_map(|(p, o, l)| {
            let mut m = serde_json::Map::from_iter([("file_path".to_string(), json!(p))]);
            if let Some(o) = o {
                m.insert("offset".into(), json!(o));
            }
            if let Some(l) = l {
                m.insert("limit".into(), json!(l));
            }
            ("Read".to_string(), Value::Object(m))
        }),
        (path(), text(), text(), proptest::option::of(any::<bool>())).prop_map(|(p, a, b, all)| {
            let mut v = json!({"file_path": p, "old_string": a, "new_string": b});
            if let Some(all) = all {
                v["replace_all"] = json!(all);
            }
            ("Edit".to_string(), v)
        }),
        (path(), text()).prop_map(|(p, c)| ("Write".to_string(), json!({"file_path": p, "content": c}))),
        (path(), prop::collection::vec((text(), text(), any::<bool>()), 1..4)).prop_map(|(p, e)| (
            "MultiEdit".to_string(),
            json!({
                "file_path": p,
                "edits": e.into_iter().map(|(a, b, all)| json!({"old_string": a, "new_string": b, "replace_all": all})).collect::<Vec<_>>(),
            })
        )),
        text().prop_map(|p| ("Grep".to_string(), json!({"pattern": p}))),
        text().prop_map(|p| ("mcp__docs__search".to_string(), json!({"query": p, "n": 3}))),
    ]
}

/// One response: thinking, text, calls (each with its result).
type Response = (bool, Option<String>, Vec<((String, Value), String)>);

fn session() -> impl Strategy<Value = Vec<(String, Vec<Response>)>> {
    let response = (
        any::<bool>(),
        proptest::option::of(text()),
        prop::collection::vec((call(), text()), 0..3),
    );
    prop::collection::vec(("[A-Za-z ?]{1,20}", prop::collection::vec(response, 1..3)), 1..5)
}

/// The session as a Claude Code transcript.
fn transcript(turns: &[(String, Vec<Response>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0u32;
    let mut parent: Option<String> = None;
    let mut row = |kind: &str, message: Value, out: &mut Vec<u8>| {
        n += 1;
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let r = json!({"parentUuid": parent, "isSidechain": false, "type": kind, "message": message,
                       "uuid": uuid, "timestamp": format!("2026-11-20T10:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
                       "sessionId": "11111111-2222-4333-8444-555555555555", "cwd": "/w"});
        out.extend(serde_json::to_vec(&r).expect("json"));
        out.push(b'\n');
        parent = Some(uuid);
    };
    let mut call_no = 0;
    for (t, (prompt, responses)) in turns.iter().enumerate() {
        row("user", json!({"role": "user", "content": prompt}), &mut out);
        for (k, (thinking, text, calls)) in responses.iter().enumerate() {
            let id = format!("msg_{t}_{k}");
            let mut blocks = Vec::new();
            if *thinking {
                blocks.push(json!({"type": "thinking", "thinking": "hmm", "signature": "x"}));
            }
            if let Some(s) = text {
                blocks.push(json!({"type": "text", "text": s}));
            }
            let mut ids = Vec::new();
            for ((name, input), _) in calls {
                call_no += 1;
                let cid = format!("toolu_{call_no:04}");
                blocks.push(json!({"type": "tool_use", "id": cid, "name": name, "input": input}));
                ids.push(cid);
            }
            for b in blocks {
                row(
                    "assistant",
                    json!({"id": id, "type": "message", "role": "assistant", "model": "claude-opus-4-6", "content": [b]}),
                    &mut out,
                );
            }
            for (cid, (_, result)) in ids.iter().zip(calls) {
                row(
                    "user",
                    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": result}]}),
                    &mut out,
                );
            }
        }
    }
    out
}

/// The options of a conversion of a conversation of `from`'s: its calls are read through
/// that agent's tools.
fn opts(from: AgentId) -> WriteOptions {
    WriteOptions {
        session_id: "019d0000-0000-7000-8000-000000000001".into(),
        cwd: "/w".into(),
        model: None,
        reasoning_as_text: false,
        tools: cctool::agents::agent(from).tools().expect("an agent with tools"),
    }
}

fn joined(lines: Vec<Vec<u8>>) -> Vec<u8> {
    lines
        .into_iter()
        .flat_map(|mut l| {
            l.push(b'\n');
            l
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn claude_to_codex_and_back_keeps_texts_and_calls(turns in session()) {
        let src = Source::from_bytes("s.jsonl", transcript(&turns));
        let first = claude_code::convert::read(&src, false).expect("read");
        let mut tally = Tally::default();
        let rollout = joined(codex::convert::write(&first, &opts(claude_code::ID), &mut tally));
        // Every file tool's call is an apply_patch patch.
        let file_calls = turns
            .iter()
            .flat_map(|t| &t.1)
            .flat_map(|r| &r.2)
            .filter(|((name, _), _)| matches!(name.as_str(), "Edit" | "MultiEdit" | "Write"))
            .count() as u64;
        let patches: u64 = tally.mapped.iter().filter(|(k, _)| k.ends_with("→ apply_patch")).map(|(_, n)| n).sum();
        prop_assert_eq!(patches, file_calls);
        let mid = codex::convert::read(&Source::from_bytes("r.jsonl", rollout), false).expect("read rollout");
        let back = joined(claude_code::convert::write(&mid, &opts(codex::ID), &mut Tally::default()));
        let last = claude_code::convert::read(&Source::from_bytes("b.jsonl", back), false).expect("read back");
        prop_assert_eq!(flat(&first).into_iter().map(patched).collect::<Vec<_>>(), flat(&last));
        // And nothing is lost on the way in: every call and text of the session is there.
        let calls: usize = turns.iter().flat_map(|t| &t.1).map(|r| r.2.len()).sum();
        prop_assert_eq!(flat(&first).iter().filter(|i| matches!(i, Item::Call(..))).count(), calls);
    }

    /// pi has a tool for each of Claude Code's file and shell tools: every call comes back as it
    /// was, but for what pi's `edit` has no words for (`replace_all`, several edits of
    /// `MultiEdit` as one `Edit`), as through a patch.
    #[test]
    fn claude_to_pi_and_back_keeps_texts_and_calls(turns in session()) {
        let src = Source::from_bytes("s.jsonl", transcript(&turns));
        let first = claude_code::convert::read(&src, false).expect("read");
        let mut tally = Tally::default();
        let session = joined(cctool::convert::write_whole(pi::convert::writer, &first, &opts(claude_code::ID), &mut tally));
        let mid = cctool::convert::model::collect(|sink| {
            pi::convert::read(&Source::from_bytes("p.jsonl", session), false, false, sink)
        })
        .expect("read pi");
        let back = joined(claude_code::convert::write(&mid, &opts(pi::ID), &mut Tally::default()));
        let last = claude_code::convert::read(&Source::from_bytes("b.jsonl", back), false).expect("read back");
        prop_assert_eq!(flat(&first).into_iter().map(edited).collect::<Vec<_>>(), flat(&last));
    }

    /// Copilot CLI has a tool for each of Claude Code's file and shell tools but `MultiEdit`:
    /// every call comes back as it was, an edit as [`copiloted`] says.
    #[test]
    fn claude_to_copilot_and_back_keeps_texts_and_calls(turns in session()) {
        let src = Source::from_bytes("s.jsonl", transcript(&turns));
        let first = claude_code::convert::read(&src, false).expect("read");
        let events = joined(cctool::convert::write_whole(
            copilot::convert::writer,
            &first,
            &opts(claude_code::ID),
            &mut Tally::default(),
        ));
        let mid = cctool::convert::model::collect(|sink| {
            copilot::convert::read(&Source::from_bytes("events.jsonl", events), false, false, sink)
        })
        .expect("read events");
        let back = joined(claude_code::convert::write(&mid, &opts(copilot::ID), &mut Tally::default()));
        let last = claude_code::convert::read(&Source::from_bytes("b.jsonl", back), false).expect("read back");
        // An empty reply text is no text in Copilot's events (a reply's `content` is one string).
        let want: Vec<Item> = flat(&first)
            .into_iter()
            .filter(|i| !matches!(i, Item::Text(t) if t.is_empty()))
            .map(copiloted)
            .collect();
        prop_assert_eq!(want, flat(&last));
    }
}
