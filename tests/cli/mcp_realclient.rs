//! `cctool mcp` as the real Claude Code uses it: the harness (`scripts/realclient/
//! cc-mcp-view.sh`) runs the client with the server over a store, the mock model loads and
//! calls the server's `search` tool, and the client sends the tool's answer back to the model.
//! What Claude Code 2.1.332 sent is recorded in `fixtures/mcp/NAME.sent.json` (and the tool
//! as it offered it in `NAME.tools.json`; `scripts/refresh-expected.sh` records both): the
//! offline tests hold today's server to it, the live one runs the client when installed.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::mcp::{Client, Home, SHOP, bin};
use crate::util::{fixture, realclient, root};

/// The name Claude Code gives the server's `search` tool: `mcp__SERVER__TOOL`, the server
/// being configured as `cctool` (as `cctool mcp --install` names it).
const TOOL: &str = "mcp__cctool__search";

/// A recording's settings (`fixtures/mcp/NAME.view`, KEY=VALUE lines).
fn setting(name: &str, key: &str) -> String {
    let text = std::fs::read_to_string(fixture(&format!("mcp/{name}.view"))).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("{name}.view has no {key}"))
        .to_string()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The call of `search` in a request's messages and the text of the result the client sent
/// back for it (matched by the call's id, wherever the result is).
fn call_and_result(messages: &Value) -> (Value, String) {
    let blocks: Vec<&Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .collect();
    let call = blocks
        .iter()
        .find(|b| b["type"] == "tool_use" && b["name"] == TOOL)
        .unwrap_or_else(|| panic!("no call of {TOOL} in {messages}"));
    let result = blocks
        .iter()
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == call["id"])
        .unwrap_or_else(|| panic!("no tool_result for {}", call["id"]));
    assert_ne!(result["is_error"], true, "{result}");
    let text: Vec<&str> = match &result["content"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => panic!("tool_result content {other}"),
    };
    (call["input"].clone(), text.concat())
}

/// A home that is a copy of the store folder STORE (relative to the repository), as the
/// harness gives it to the server.
fn home_of(store: &str) -> Home {
    let dir = tempfile::tempdir().unwrap();
    crate::util::copy_tree(&root().join(store), dir.path());
    std::fs::create_dir_all(dir.path().join("work")).unwrap();
    Home { dir }
}

/// What `cctool mcp` answers now to a call of `search` with `input`, over STORE: the text of
/// the tool's result, and the tool as `tools/list` describes it.
fn answer_now(store: &str, input: &Value) -> (String, Value) {
    let home = home_of(store);
    let mut c = Client::start(&home, &[]);
    let listed = c.request("tools/list", json!({}));
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search")
        .unwrap()
        .clone();
    let v = c.request("tools/call", json!({"name": "search", "arguments": input}));
    assert_ne!(v["result"]["isError"], true, "{v}");
    let text = v["result"]["content"][0]["text"].as_str().unwrap().to_string();
    assert!(c.close().success());
    (text, tool)
}

/// The hit every recording is made for: the shop session's first prompt.
fn assert_holds_the_hit(text: &str) {
    let hits: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(
        hits["hits"].as_array().unwrap().iter().any(|h| h["session_id"] == SHOP
            && h["role"] == "user"
            && h["snippet"]
                .as_str()
                .is_some_and(|s| s.contains("Refactor the checkout flow"))),
        "{text}"
    );
}

#[test]
fn the_recorded_tool_result_is_what_cctool_mcp_answers_now() {
    let name = "search_checkout";
    let sent = read_json(&fixture(&format!("mcp/{name}.sent.json")));
    let (input, recorded) = call_and_result(&sent);
    assert_eq!(input, json!({"pattern": setting(name, "PATTERN")}));
    assert_holds_the_hit(&recorded);
    let (now, tool) = answer_now(&setting(name, "STORE"), &input);
    assert_eq!(
        now, recorded,
        "cctool mcp answers otherwise than it did to the real client"
    );

    // The client offered the model the tool as the server describes it, under its own name.
    let offered = read_json(&fixture(&format!("mcp/{name}.tools.json")));
    let offered = offered.as_array().unwrap();
    assert_eq!(offered.len(), 1, "only the tool ToolSearch loaded is offered");
    assert_eq!(offered[0]["name"], TOOL);
    assert_eq!(offered[0]["description"], tool["description"]);
    assert_eq!(offered[0]["input_schema"], tool["inputSchema"]);
}

/// A request's messages as the recordings hold them (`scripts/claude-request.py turn`): the
/// client's own additions taken out, the reminders of every user message too.
fn turn(messages: &Value) -> Value {
    let mut msgs = crate::api_view::normalise(messages);
    for m in msgs.iter_mut().filter(|m| m["role"] == "user") {
        if let Some(Value::Array(blocks)) = m.get_mut("content") {
            blocks.retain(|b| !b["text"].as_str().is_some_and(|t| t.starts_with("<system-reminder>")));
        }
    }
    Value::Array(msgs)
}

#[test]
fn the_real_claude_code_sends_back_the_hits_of_cctool_mcp() {
    let Some(resume) = realclient(crate::util::Client::ClaudeCode) else {
        return;
    };
    let script = resume.with_file_name("cc-mcp-view.sh");
    let name = "search_checkout";
    let store = root().join(setting(name, "STORE"));
    let out = Command::new("bash")
        .arg(&script)
        .arg(bin())
        .arg(&store)
        .arg(setting(name, "PATTERN"))
        .arg(setting(name, "PROMPT"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests: Value = serde_json::from_slice(&out.stdout).unwrap();
    let last = requests.as_array().unwrap().last().unwrap();
    let (input, text) = call_and_result(last);
    assert_holds_the_hit(&text);
    let (now, _) = answer_now(&setting(name, "STORE"), &input);
    assert_eq!(text, now, "the client passed on the server's answer changed");
    assert_eq!(
        turn(last),
        read_json(&fixture(&format!("mcp/{name}.sent.json"))),
        "the client sends otherwise than recorded (scripts/refresh-expected.sh {name})"
    );
}
