use super::*;

fn v1() -> Value {
    json!({"version": 1, "id": "s-1", "messages": [
        {"role": "user", "content": "Refactor module A", "ts": 1752573600},
        {"role": "assistant", "content": "Sure", "thinking": "…",
         "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": "{\"path\":\"src/mod.rs\"}"}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "// module A"}]})
}

#[test]
fn the_spec_example_to_v5() {
    let s = migrate(parse(v1()).unwrap(), 5);
    let v = to_value(&s);
    assert_eq!(v["schema_version"], 5);
    assert_eq!(v["session_id"], "s-1");
    assert_eq!(v["created_at"], "2025-07-15T10:00:00Z");
    assert_eq!(
        v["messages"][0],
        json!({"role": "user", "items": [{"type": "text", "text": "Refactor module A"}], "id": 1, "timestamp": "2025-07-15T10:00:00Z"})
    );
    assert_eq!(v["messages"][1]["items"][0], json!({"type": "reasoning", "text": "…"}));
    assert_eq!(
        v["messages"][1]["items"][2],
        json!({"type": "tool_call", "id": "call_1", "name": "read_file", "args": {"path": "src/mod.rs"}})
    );
    assert_eq!(
        v["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "items": [{"type": "tool_result", "content": "// module A", "original_size": 11}], "id": 3})
    );
}

#[test]
fn versions_and_errors_name_their_path() {
    assert_eq!(
        version_of(&json!({"version": 9, "messages": []})).unwrap_err().message,
        "unknown schema version 9"
    );
    assert_eq!(
        version_of(&json!({"schema_version": 0, "messages": []}))
            .unwrap_err()
            .message,
        "unknown schema version 0"
    );
    assert_eq!(
        version_of(&json!({"schema_version": "2", "messages": []}))
            .unwrap_err()
            .message,
        "unknown schema version \"2\""
    );
    assert!(
        version_of(&json!({"messages": []}))
            .unwrap_err()
            .message
            .contains("missing")
    );
    let e = parse(json!({"version": 1, "id": "x", "messages": [{"role": "user", "content": ""}, {"role": "tool", "content": "x"}]})).unwrap_err();
    assert_eq!(e.path, "messages[1].tool_call_id");
    let e = parse(json!({"version": 1, "id": "x", "messages": [{"content": "no role"}]})).unwrap_err();
    assert_eq!(e.path, "messages[0].role");
    let e = parse(json!({"version": 1, "id": "x", "messages": {}})).unwrap_err();
    assert_eq!(e.path, "messages");
}

#[test]
fn invalid_arguments_are_kept_raw() {
    assert_eq!(parse_arguments("{oops"), json!({"_raw": "{oops"}));
    assert_eq!(parse_arguments("[1]"), json!([1]));
}
