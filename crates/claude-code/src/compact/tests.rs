use super::*;

#[test]
fn a_request_measured_in_windows_is_measured_whole() {
    // Turns of a prompt, a tool exchange with split rows and an answer, some rows meta or
    // attachments: every window ends before a prompt that follows a plain answer.
    let mut rows = Vec::new();
    let mut parent = serde_json::Value::Null;
    let mut push = |rows: &mut Vec<String>, mut r: Value| {
        let uuid = format!("00000000-0000-4000-8000-{:012}", rows.len() + 1);
        r["parentUuid"] = parent.clone();
        r["uuid"] = json!(uuid);
        r["timestamp"] = json!(format!(
            "2026-01-01T00:{:02}:{:02}.000Z",
            rows.len() / 60 % 60,
            rows.len() % 60
        ));
        rows.push(r.to_string());
        parent = json!(uuid);
    };
    let assistant = |id: &str, content: Value| json!({"type": "assistant", "message": {"id": id, "role": "assistant", "model": "m", "content": content}});
    for turn in 0..40 {
        push(
            &mut rows,
            json!({"type": "user", "message": {"role": "user", "content": format!("prompt {turn} ").repeat(20)}}),
        );
        if turn % 3 == 0 {
            push(&mut rows, json!({"type": "attachment", "attachment": {"type": "x"}}));
            push(
                &mut rows,
                json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": "<command-name>/x</command-name>"}}),
            );
        }
        let id = format!("toolu_{turn}");
        push(
            &mut rows,
            assistant(
                &format!("m{turn}"),
                json!([{"type": "thinking", "thinking": "hm", "signature": "s"}]),
            ),
        );
        push(
            &mut rows,
            assistant(
                &format!("m{turn}"),
                json!([{"type": "tool_use", "id": id, "name": "Read", "input": {}}]),
            ),
        );
        push(
            &mut rows,
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "r".repeat(300)}]}}),
        );
        push(
            &mut rows,
            assistant(&format!("e{turn}"), json!([{"type": "text", "text": "done"}])),
        );
    }
    let src = Source::from_bytes("t.jsonl", rows.join("\n").into_bytes());
    let t = claude::read(&src).unwrap();
    let positions = t.rebuild(&ChainOptions::default()).unwrap().positions;
    let whole = api_view(
        &t,
        &Chain {
            positions: positions.clone(),
            ..Chain::default()
        },
        &src,
        None,
        &claude_model::choose_for(
            &t,
            &Chain {
                positions: positions.clone(),
                ..Chain::default()
            },
            &src,
            &Overrides::default(),
        )
        .unwrap(),
    )
    .unwrap()
    .tokens();
    assert!(whole > 3000, "{whole}");
    for window in [1, 500, 2000, u64::MAX] {
        assert_eq!(
            request_tokens_in(&src, &t, &positions, window).unwrap(),
            whole,
            "windows of {window}"
        );
    }
}

/// The recap reads the span as Claude Code loads it: the record's type says who speaks, a
/// row the client wrote for the model (`isMeta`) is no request, and a result in the next
/// user row answers its call.
#[test]
fn the_span_is_read_as_claude_code_loads_it() {
    use cctool_core::compact::recap::{Recap, Tools};
    let rows = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "message": {"content": "Fix the build"}}),
        json!({"type": "user", "uuid": "u2", "parentUuid": "u1", "isMeta": true, "message": {"role": "user", "content": "You must answer in French."}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u2", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}}),
        json!({"type": "user", "uuid": "u3", "parentUuid": "a1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "Exit code 2\nmake: *** [all] Error 2", "is_error": true}]}}),
    ];
    let text: Vec<String> = rows.iter().map(Value::to_string).collect();
    let src = Source::from_bytes("t.jsonl", text.join("\n").into_bytes());
    let loaded = load_with(&src, false).unwrap();
    let mut records = Vec::new();
    loaded
        .feed(&src, loaded.units.len(), &mut |r| records.push(r.clone()))
        .unwrap();
    assert_eq!(records.len(), 4);
    assert_eq!(records[0].role.as_deref(), Some("user"));
    let tools = Tools::new(&[&crate::tools::ClaudeCodeTools]);
    let recap = Recap::extract_with(&records, &tools);
    assert_eq!(recap.goal, "\"Fix the build\"");
    assert!(recap.constraints.is_empty(), "{:?}", recap.constraints);
    assert_eq!(recap.progress, vec!["Ran `make` (exit 2)".to_string()]);
}
