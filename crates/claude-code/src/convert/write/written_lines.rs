use super::*;
use cctool_core::convert::line_with;
use cctool_core::model::AgentId;

fn blocks_of(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => json!({"type": "text", "text": t}),
            Part::Json(j) => json!({"type": "text", "text": j.text()}),
            Part::Image(i) => image_block(i),
        })
        .collect()
}

impl Writer {
    /// A row whose one entry besides the common ones is `key`, already serialized as `raw`
    /// ([`line_with`](cctool_core::convert::line_with)): the bytes of [`Writer::row`] with `{key: raw}`.
    fn row_raw(&mut self, uuid: String, ty: &str, ts: &str, key: &str, raw: &[u8]) -> Vec<u8> {
        let m = self.common(ty);
        let l = line_with(m, key, raw, &[("uuid", json!(uuid)), ("timestamp", json!(ts))]);
        self.parent = Some(uuid);
        l
    }

    /// A user row with one message, counted in the estimate.
    fn user(&mut self, uuid: String, ts: &str, message: Value) -> Vec<u8> {
        let raw = line(&message);
        self.bytes += raw.len();
        self.row_raw(uuid, "user", ts, "message", &raw)
    }

    /// The writer as it built each line as a JSON value before it wrote its lines
    /// directly: the oracle of the lines written.
    fn entry_valued(&mut self, e: &Entry, out: &mut Vec<Vec<u8>>) {
        // A call the conversation went on without answering (interrupted, or its result
        // compacted away) is closed as Codex closes it: Claude Code would otherwise drop it
        // from the request. At the end it may still be answered.
        for (uuid, call_id, ts) in std::mem::take(&mut self.unanswered) {
            let block = json!({"tool_use_id": tool_id(&call_id), "type": "tool_result",
                               "content": "aborted", "is_error": true});
            out.push(self.user(uuid, &ts, json!({"role": "user", "content": [block]})));
            self.tally.closed += 1;
        }
        let ts = self.clock.stamp(e.timestamp.as_deref());
        let sid = self.o.session_id.clone();
        let uuid = |j: usize| ids::uuid(&["convert", &sid, &e.key, &j.to_string()]);
        match &e.body {
            Body::User(parts) => {
                let content = match parts.as_slice() {
                    [Part::Text(t)] => json!(t),
                    _ => Value::Array(blocks_of(parts)),
                };
                out.push(self.user(uuid(0), &ts, json!({"role": "user", "content": content})));
            }
            Body::ToolResult(r) => {
                let content = match r.output.as_slice() {
                    [] => json!(""),
                    [Part::Text(t)] => json!(t),
                    parts => Value::Array(blocks_of(parts)),
                };
                let mut block = json!({"tool_use_id": tool_id(&r.call_id), "type": "tool_result", "content": content});
                if r.is_error {
                    block["is_error"] = json!(true);
                }
                out.push(self.user(uuid(0), &ts, json!({"role": "user", "content": [block]})));
            }
            Body::Assistant(blocks) => {
                let msg_id = ids::message_id(&["convert", &sid, &e.key]);
                for (j, b) in blocks.iter().enumerate() {
                    let block = match b {
                        Block::Text(t) => json!({"type": "text", "text": t}),
                        Block::Reasoning(t) if self.o.reasoning_as_text => {
                            json!({"type": "text", "text": reasoning_text(t)})
                        }
                        Block::Reasoning(_) => {
                            self.tally.drop("reasoning");
                            continue;
                        }
                        Block::Call(call) => {
                            let ((name, input), mapped) = tools::to_claude(self.o.tools, &call.name, &call.input);
                            self.tally.map(mapped);
                            json!({"type": "tool_use", "id": tool_id(&call.id), "name": name, "input": input})
                        }
                    };
                    let mut message = Map::new();
                    message.insert("id".into(), json!(msg_id));
                    message.insert("type".into(), json!("message"));
                    message.insert("role".into(), json!("assistant"));
                    if let Some(m) = &self.o.model {
                        message.insert("model".into(), json!(m));
                    }
                    // The block is serialized once: for the estimate, and into the row.
                    let raw = line(&block);
                    self.bytes += raw.len();
                    let mut content = Vec::with_capacity(raw.len() + 2);
                    content.push(b'[');
                    content.extend(raw);
                    content.push(b']');
                    let usage: Value = serde_json::from_str(NO_USAGE).expect("json");
                    let message = line_with(
                        message,
                        "content",
                        &content,
                        &[
                            ("stop_reason", Value::Null),
                            ("stop_sequence", Value::Null),
                            ("usage", usage),
                        ],
                    );
                    out.push(self.row_raw(uuid(j), "assistant", &ts, "message", &message));
                }
                for (j, b) in blocks.iter().enumerate() {
                    if let Block::Call(call) = b
                        && !self.answered.contains(&call_key(&call.id))
                    {
                        self.unanswered
                            .push((uuid(blocks.len() + j), call.id.clone(), ts.clone()));
                    }
                }
            }
            Body::Compaction(_) => self.entry(e, out),
        }
    }
}

/// The lines written directly are the lines of the JSON values the writer built before,
/// on the conversations of every transcript and rollout of the fixtures and on entries of
/// every shape (images in prompts and results, errors, empty and split outputs, reasoning,
/// calls left unanswered, escapes), with and without a model and reasoning as text.
#[test]
fn the_lines_are_the_values_written() {
    let mut convs = cctool_core::convert::testing::fixture_conversations(&[
        &crate::convert::Converter,
        &cctool_codex::convert::Converter,
    ]);
    use cctool_core::convert::testing::{call, img, result, text};
    let mut odd = Conversation::new(AgentId::new("codex"));
    for (k, body) in [
        Body::User(vec![text("a \"q\"\n\u{1}é😀\u{7f}")]),
        Body::User(vec![
            text("a"),
            img("data:image/png;base64,AAA="),
            text("b"),
            img("http://x/y"),
        ]),
        Body::User(vec![img("data:image/jpeg;base64,/9j/")]),
        Body::User(vec![]),
        Body::Assistant(vec![
            Block::Reasoning("think\t\"".into()),
            Block::Text("t\u{2028}".into()),
            call("c1", "exec_command", json!({"cmd": "ls \"a\"", "n": 1.5})),
            call("c/2", "shell", json!({"command": ["bash", "-lc", "echo hi"]})),
            call("c3", "apply_patch", json!({"input": "*** Begin Patch\n*** End Patch"})),
            call("", "mcp__x", json!({"deep": [[{"k": null}]]})),
        ]),
        result("c1", vec![text("done"), img("data:image/png;base64,AAA=")], false),
        result("c/2", vec![], true),
        result("c3", vec![text("x"), text("y")], false),
        Body::Assistant(vec![call("never", "Bash", json!({"command": "sleep"}))]),
        Body::User(vec![text("after an unanswered call")]),
        Body::Compaction("the summary".into()),
        result("", vec![text("\u{0}")], true),
        Body::Assistant(vec![Block::Text(String::new())]),
    ]
    .into_iter()
    .enumerate()
    {
        odd.push(
            &format!("k{k}"),
            Some(format!("2026-01-01T00:00:{:02}.000Z", 10 - k as i64 % 3)),
            body,
        );
    }
    convs.push(odd);
    assert!(convs.len() > 20, "{} conversations", convs.len());
    let mut compared = 0;
    for c in &convs {
        for (model, as_text) in [(None, false), (Some("m\"1".to_string()), true)] {
            let o = WriteOptions {
                session_id: "s\u{1}".into(),
                cwd: "/w \"d\"".into(),
                model,
                reasoning_as_text: as_text,
                // Codex's tools: the other agent is a dev-dependency of the tests alone.
                tools: &cctool_codex::tools::CodexTools,
            };
            let answered = c.answered_calls();
            let mut direct = Writer::new(&o, c.first_timestamp(), answered.clone());
            let mut valued = Writer::new(&o, c.first_timestamp(), answered);
            for e in &c.entries {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                direct.entry(e, &mut a);
                valued.entry_valued(e, &mut b);
                let text = |ls: Vec<Vec<u8>>| -> Vec<String> {
                    ls.into_iter()
                        .map(|l| String::from_utf8_lossy(&l).into_owned())
                        .collect()
                };
                compared += a.len();
                assert_eq!(text(a), text(b), "{e:?}");
            }
            assert_eq!(direct.tally(), valued.tally());
        }
    }
    assert!(compared > 1_000, "{compared} lines compared");
}
