use serde_json::{Value, json};

use super::write::*;
use crate::model::AgentId;
use crate::tools::CodexTools;
use cctool_core::convert::model::{Block, Body, Conversation, Entry, Part, call_key};
use cctool_core::convert::tools::{self, Input};
use cctool_core::convert::{Clock, EntryWriter, WriteOptions, line, reasoning_text};

/// The lines of an entry as the writer built them as JSON values before it wrote them
/// directly: the oracle of [`the_lines_are_the_values_written`].
pub(super) fn valued(
    e: &Entry,
    ts: &str,
    custom: &mut rustc_hash::FxHashSet<u64>,
    files: &mut tools::Files,
    from: &dyn tools::Vocabulary,
    as_text: bool,
) -> Vec<Vec<u8>> {
    let e = &e.clone().into_plain();
    let item = |payload: Value| line(&json!({"timestamp": ts, "type": "response_item", "payload": payload}));
    let event = |payload: Value| line(&json!({"timestamp": ts, "type": "event_msg", "payload": payload}));
    let part = |p: &Part| match p {
        Part::Text(t) => json!({"type": "input_text", "text": t}),
        Part::Json(j) => json!({"type": "input_text", "text": j.text()}),
        Part::Image(i) => json!({"type": "input_image", "image_url": i.as_url()}),
    };
    let mut out = Vec::new();
    match &e.body {
        Body::User(parts) => {
            let content: Vec<Value> = parts.iter().map(part).collect();
            out.push(item(json!({"type": "message", "role": "user", "content": content})));
            let text: Vec<&str> = parts.iter().filter_map(Part::text).collect();
            let images: Vec<String> = parts
                .iter()
                .filter_map(|p| match p {
                    Part::Image(i) => Some(i.as_url()),
                    Part::Text(_) | Part::Json(_) => None,
                })
                .collect();
            out.push(event(json!({"type": "user_message", "message": text.join("\n"),
                "images": images, "local_images": [], "text_elements": []})));
        }
        Body::Assistant(blocks) => {
            for b in blocks {
                match b {
                    Block::Reasoning(_) if !as_text => {}
                    Block::Text(t) | Block::Reasoning(t) => {
                        let text = match b {
                            Block::Reasoning(_) => reasoning_text(t),
                            _ => t.clone(),
                        };
                        out.push(item(json!({"type": "message", "role": "assistant",
                            "content": [{"type": "output_text", "text": text}]})));
                        if matches!(b, Block::Text(_)) {
                            out.push(event(json!({"type": "agent_message", "message": t})));
                        }
                    }
                    Block::Call(call) => {
                        match tools::translate(from, &CodexTools, &call.name, &call.input, Some(files)) {
                            tools::Translated {
                                name,
                                input: Input::Json(arguments),
                                ..
                            } => out.push(item(json!({
                            "type": "function_call", "name": name,
                            "arguments": arguments.to_string(), "call_id": call.id}))),
                            tools::Translated {
                                name,
                                input: Input::Text(input),
                                ..
                            } => {
                                custom.insert(call_key(&call.id));
                                out.push(item(json!({"type": "custom_tool_call", "status": "completed",
                                "call_id": call.id, "name": name, "input": input})));
                            }
                        }
                    }
                }
            }
        }
        Body::ToolResult(r) => {
            let is_custom = custom.contains(&call_key(&r.call_id));
            let output = if r.output.iter().all(|p| p.text().is_some()) || is_custom {
                json!(r.output.iter().filter_map(Part::text).collect::<String>())
            } else {
                Value::Array(r.output.iter().map(part).collect())
            };
            let ty = if is_custom {
                "custom_tool_call_output"
            } else {
                "function_call_output"
            };
            out.push(item(json!({"type": ty, "call_id": r.call_id, "output": output})));
        }
        Body::Compaction(_) => {}
    }
    out
}

/// The tools of Claude Code, the conversions to Codex read their calls through (the other
/// agent is a dev-dependency: only the tests of a conversion name it).
fn claude_code_tools() -> &'static dyn tools::Vocabulary {
    &cctool_claude_code::tools::ClaudeCodeTools
}

/// The writer's lines are those of the JSON values it used to build, on the conversations
/// of every transcript and rollout of the fixtures and on entries of every shape (images
/// in prompts and results, custom calls and their results, reasoning, escapes).
#[test]
fn the_lines_are_the_values_written() {
    let mut convs = cctool_core::convert::testing::fixture_conversations(&[
        &cctool_claude_code::convert::Converter,
        &super::Converter,
    ]);
    use cctool_core::convert::testing::{call, img, text};
    let result = |id: &str, output: Vec<Part>| cctool_core::convert::testing::result(id, output, true);
    let mut odd = Conversation::new(AgentId::new("claude-code"));
    for (k, body) in [
        Body::User(vec![
            text("a \"q\"\n\u{1}é😀"),
            img("data:image/png;base64,AAA="),
            text("b"),
            img("http://x/y"),
        ]),
        Body::User(vec![img("data:image/jpeg;base64,/9j/")]),
        Body::User(vec![]),
        Body::Assistant(vec![
            Block::Reasoning("think\t\"".into()),
            Block::Text("t\u{7f}\u{2028}".into()),
            call("c1", "Write", json!({"file_path": "/a", "content": "x\n"})),
            call("c2", "Bash", json!({"command": "ls \"a\"", "n": 1.5})),
            call("c3", "mcp__x", json!({"deep": [[{"k": null}]]})),
            call(
                "c5",
                "Edit",
                json!({"file_path": "/a", "old_string": "x", "new_string": "y"}),
            ),
        ]),
        result("c1", vec![text("done"), img("data:image/png;base64,AAA=")]),
        result("c2", vec![text("a"), img("data:image/png;base64,AAA="), text("b")]),
        result("c3", vec![]),
        result("c3", vec![text("x"), text("y")]),
        result("c4", vec![img("http://x")]),
        result("c5", vec![text("ok")]),
    ]
    .into_iter()
    .enumerate()
    {
        odd.push(&format!("k{k}"), Some(format!("2026-01-01T00:00:0{k}.000Z")), body);
    }
    convs.push(odd);
    assert!(convs.len() > 20, "{} conversations", convs.len());
    let mut compared = 0;
    for c in &convs {
        for as_text in [false, true] {
            let o = WriteOptions {
                session_id: "s".into(),
                cwd: "/w".into(),
                model: None,
                reasoning_as_text: as_text,
                tools: claude_code_tools(),
            };
            let mut head = Vec::new();
            let mut w = Writer::new(&o, c.first_timestamp(), &mut head);
            let mut clock = Clock::new(c.first_timestamp());
            let mut custom = Default::default();
            let mut files = Default::default();
            for e in &c.entries {
                let mut out = Vec::new();
                w.entry(e, &mut out);
                let ts = clock.stamp(e.timestamp.as_deref());
                let text = |ls: Vec<Vec<u8>>| -> Vec<String> {
                    ls.into_iter()
                        .map(|l| String::from_utf8_lossy(&l).into_owned())
                        .collect()
                };
                let written = text(out.into_iter().filter(|l| !is_token_count(l)).collect());
                let expected = text(valued(e, &ts, &mut custom, &mut files, o.tools, as_text));
                if !matches!(e.body, Body::Compaction(_)) {
                    assert_eq!(written, expected, "{e:?}");
                    compared += written.len();
                }
            }
        }
    }
    assert!(compared > 1_000, "{compared} lines compared");
}
