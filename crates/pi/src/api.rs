//! `rebuild-chain --api-view`: the request pi 1.6.0 sends after resuming a session, through a
//! `models.json` provider of `api: openai-completions` (`docs/pi.md`, rules P5–P12).
//!
//! The messages are what a resume loads (P1–P4, [`crate::model::sent`]), then pi-ai's
//! `transformMessages` and `convertMessages` (`@earendil-works/pi-ai` `api/transform-messages.js`,
//! `api/openai-completions.js`) as they run for such a provider: no compat flag set, a model of
//! text input and no reasoning. The system prompt and the tools are what the session's own
//! system messages and pi's defaults give ([`prompt`]), from MIT-licensed text of pi 1.6.0 kept
//! beside this file (`api/prompt.json`, `api/tools.json`, their license in `api/NOTICE`).

use serde_json::{Map, Value, json};

use crate::file::Session;
use crate::tree::Tree;

pub(crate) mod prompt;
pub(crate) mod view;

/// The client whose request this is.
pub const CLIENT: &str = "pi 1.6.0";

/// Where the system prompt's documentation paths point when `PI_PACKAGE_DIR` does not say: the
/// package as `npm install -g` puts it with npm's default prefix.
pub const DEFAULT_PACKAGE_DIR: &str = "/usr/local/lib/node_modules/@earendil-works/pi-coding-agent";

/// `max_completion_tokens` of a `models.json` model that sets no `maxTokens`.
const MAX_TOKENS: u64 = 16384;

/// What `transformMessages` sends for a tool call left without a result.
const NO_RESULT: &str = "No result provided";
/// What replaces a user's image for a model of text input.
const USER_IMAGE: &str = "(image omitted: model does not support images)";
/// What replaces a tool result's image for such a model.
const TOOL_IMAGE: &str = "(tool image omitted: model does not support images)";
/// The reasoning fields a thinking signature may name (`OPENAI_COMPLETIONS_REASONING_FIELDS`).
const REASONING_FIELDS: [&str; 3] = ["reasoning", "reasoning_content", "reasoning_text"];

/// What the view does not emulate, so it refuses rather than print a request pi would not send.
#[derive(Debug, thiserror::Error)]
pub enum NotEmulated {
    /// A tool of the loadout the branch records that is not one of pi's built-in tools: pi
    /// declares it again only when the extension or MCP server that registers it is installed
    /// where it resumes, which the file does not say.
    #[error(
        "line {0}: the tool loadout the branch records names {1:?}, not one of pi's built-in tools: whether pi declares it on resume depends on the extension or MCP server that registers it, which the file does not say"
    )]
    UnknownTool(u64, String),
    /// A system message whose prompt or tool fields are not of the kinds pi replays.
    #[error("line {0}: a system message pi cannot replay: {1}")]
    Malformed(u64, String),
    /// A signature holding OpenAI `reasoning_details`, which pi replays as such.
    #[error("line {0}: a thinking signature holding reasoning_details, which --api-view does not replay yet")]
    ReasoningDetails(u64),
}

/// The model a resume continues with: the provider and id of the last `model_change` or
/// assistant message on the branch (`getSessionContextSettings`).
pub fn resume_model(s: &Session, t: &Tree) -> (Option<String>, Option<String>) {
    for &i in t.branch.iter().rev() {
        let e = &s.entries[i];
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        match e.ty() {
            "model_change" => return (text(e.value.get("provider")), text(e.value.get("modelId"))),
            "message" if e.role() == Some("assistant") => {
                let m = e.message();
                let model = text(m.and_then(|m| m.get("model")));
                if model.is_some() {
                    return (text(m.and_then(|m| m.get("provider"))), model);
                }
            }
            _ => {}
        }
    }
    (None, None)
}

/// The request's body: model, messages (the system prompt first, `prompt` last when given),
/// the stream options, the token limit and the tools.
pub fn body(s: &Session, t: &Tree, prompt: Option<&str>, package_dir: &str) -> Result<Value, NotEmulated> {
    let (provider, model) = resume_model(s, t);
    let sent: Vec<(u64, Value)> = crate::model::sent(s, t)
        .into_iter()
        .map(|(i, m)| (s.entries[i].line, m))
        .collect();
    let (system, tools) = prompt::prompt_and_tools(s, t, &sent, s.cwd().unwrap_or_default(), package_dir)?;
    let mut messages = vec![json!({"role": "system", "content": system})];
    let same = |m: &Map<String, Value>| {
        m.get("provider").and_then(Value::as_str) == provider.as_deref()
            && m.get("api").and_then(Value::as_str) == Some("openai-completions")
            && m.get("model").and_then(Value::as_str) == model.as_deref()
    };
    convert(&transform(&sent, &same)?, &mut messages);
    if let Some(p) = prompt {
        messages.push(json!({"role": "user", "content": [{"type": "text", "text": p}]}));
    }
    let mut body = json!({
        "model": model.unwrap_or_default(),
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "store": false,
        "max_completion_tokens": MAX_TOKENS,
    });
    // pi-ai leaves the field out when no tool is declared (P12).
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    Ok(body)
}

/// A message as `transformMessages` leaves it, with whether its model is the resumed one.
struct Sent {
    m: Map<String, Value>,
    same_model: bool,
}

fn blocks(m: &Map<String, Value>) -> Vec<Value> {
    match m.get("content") {
        Some(Value::Array(b)) => b.clone(),
        Some(Value::String(t)) => vec![json!({"type": "text", "text": t})],
        _ => Vec::new(),
    }
}

fn ty(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

/// `transformMessages` (P7): thinking of another model dropped, its call ids rewritten
/// ([`call_id`]), images of a text model replaced, errored and aborted replies left out, a tool
/// call without a result answered with "No result provided".
fn transform(sent: &[(u64, Value)], same: &dyn Fn(&Map<String, Value>) -> bool) -> Result<Vec<Sent>, NotEmulated> {
    let mut out = Vec::new();
    let mut renamed: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    // A set: a turn of many calls costs no more than its calls and results.
    let mut answered: std::collections::HashSet<String> = std::collections::HashSet::new();
    let close =
        |out: &mut Vec<Sent>, pending: &mut Vec<(String, String)>, answered: &mut std::collections::HashSet<String>| {
            for (id, name) in pending.drain(..) {
                if !answered.contains(&id) {
                    let mut m = Map::new();
                    m.insert("role".into(), "toolResult".into());
                    m.insert("toolCallId".into(), id.into());
                    m.insert("toolName".into(), name.into());
                    m.insert("content".into(), json!([{"type": "text", "text": NO_RESULT}]));
                    out.push(Sent { m, same_model: false });
                }
            }
            answered.clear();
        };
    for (_, v) in sent {
        let Some(m) = v.as_object() else { continue };
        let mut m = m.clone();
        let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_string();
        let images = |m: &mut Map<String, Value>, with: &str| {
            if let Some(Value::Array(b)) = m.get_mut("content") {
                for x in b.iter_mut().filter(|x| ty(x) == "image") {
                    *x = json!({"type": "text", "text": with});
                }
            }
        };
        match role.as_str() {
            "assistant" => {
                close(&mut out, &mut pending, &mut answered);
                let stop = m.get("stopReason").and_then(Value::as_str);
                if matches!(stop, Some("error" | "aborted")) {
                    continue;
                }
                let same_model = same(&m);
                let mut kept = Vec::new();
                for b in blocks(&m) {
                    match ty(&b) {
                        "thinking" if !same_model => {}
                        "thinking" => {
                            let signed = b.get("redacted").is_some_and(|r| r == &Value::Bool(true))
                                || b.get("thinkingSignature")
                                    .and_then(Value::as_str)
                                    .is_some_and(|s| !s.is_empty());
                            let blank = b
                                .get("thinking")
                                .and_then(Value::as_str)
                                .is_none_or(|t| t.trim().is_empty());
                            if signed || !blank {
                                kept.push(b);
                            }
                        }
                        "toolCall" => {
                            let mut b = b;
                            let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                            let id = match call_id(&id) {
                                Some(new) if !same_model && new != id => {
                                    renamed.insert(id, new.clone());
                                    b["id"] = new.clone().into();
                                    new
                                }
                                _ => id,
                            };
                            pending.push((id, b.get("name").and_then(Value::as_str).unwrap_or("").to_string()));
                            kept.push(b);
                        }
                        _ => kept.push(b),
                    }
                }
                m.insert("content".into(), Value::Array(kept));
                out.push(Sent { m, same_model });
            }
            "toolResult" => {
                images(&mut m, TOOL_IMAGE);
                let id = m.get("toolCallId").and_then(Value::as_str).map(str::to_string);
                if let Some(id) = id {
                    let id = renamed.get(&id).cloned().unwrap_or(id);
                    m.insert("toolCallId".into(), id.clone().into());
                    answered.insert(id);
                }
                out.push(Sent { m, same_model: false });
            }
            "user" => {
                close(&mut out, &mut pending, &mut answered);
                images(&mut m, USER_IMAGE);
                out.push(Sent { m, same_model: false });
            }
            _ => out.push(Sent { m, same_model: false }),
        }
    }
    close(&mut out, &mut pending, &mut answered);
    reasoning_details(sent, same)?;
    Ok(out)
}

/// Refuses a reply of the resumed model whose thinking signature holds OpenAI
/// `reasoning_details`, which pi replays as such and the view does not yet.
fn reasoning_details(sent: &[(u64, Value)], same: &dyn Fn(&Map<String, Value>) -> bool) -> Result<(), NotEmulated> {
    for (line, v) in sent {
        let Some(m) = v.as_object() else { continue };
        let details = blocks(m).iter().any(|b| {
            ty(b) == "thinking"
                && b.get("thinkingSignature")
                    .and_then(Value::as_str)
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    .is_some_and(|d| d.is_array() || d.is_object())
        });
        if details && m.get("role").and_then(Value::as_str) == Some("assistant") && same(m) {
            return Err(NotEmulated::ReasoningDetails(*line));
        }
    }
    Ok(())
}

/// A tool call id as pi rewrites it for another model (`normalizeToolCallId`, P7): an id of
/// the Responses API, `{call_id}|{item id}`, becomes `{call_id}_{item id}` with every character
/// but letters, digits, `_` and `-` made `_`, and, past 40 characters, the call id cut and a hash
/// of the whole id appended. Other ids stay (the provider is not `openai`).
fn call_id(id: &str) -> Option<String> {
    let (call, item) = id.split_once('|')?;
    // JavaScript's `replace` works on UTF-16 units: a character outside the BMP is two.
    let clean = |s: &str| -> String {
        s.chars()
            .flat_map(|c| {
                let keep = c.is_ascii_alphanumeric() || c == '_' || c == '-';
                std::iter::repeat_n(if keep { c } else { '_' }, if keep { 1 } else { c.len_utf16() })
            })
            .collect()
    };
    let (call, item) = (clean(call), clean(item));
    let combined = if item.is_empty() {
        call.clone()
    } else {
        format!("{call}_{item}")
    };
    if combined.len() <= 40 {
        return Some(combined);
    }
    let hash: String = short_hash(id).chars().take(8).collect();
    let prefix: String = call.chars().take((40 - hash.len() - 1).max(1)).collect();
    Some(format!("{prefix}_{hash}"))
}

/// pi-ai's `shortHash` (`utils/hash.js`): two 32-bit multiplicative hashes of the UTF-16 units,
/// each written in base 36.
fn short_hash(s: &str) -> String {
    let (mut h1, mut h2): (u32, u32) = (0xdead_beef, 0x41c6_ce57);
    for ch in s.encode_utf16().map(u32::from) {
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507) ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507) ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut n: u32) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit(n % 36, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

/// `convertMessages` for Chat Completions (P8): a user's text blocks (empty ones dropped), an
/// assistant's text joined into one string (or `null` with tool calls alone), its calls as
/// `tool_calls` with their arguments as JSON text, each tool result as a `tool` message of its
/// text (`(no tool output)` when blank).
fn convert(msgs: &[Sent], out: &mut Vec<Value>) {
    for Sent { m, same_model } in msgs {
        match m.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" => match m.get("content") {
                Some(Value::String(t)) => out.push(json!({"role": "user", "content": t})),
                _ => {
                    let content: Vec<Value> = blocks(m)
                        .into_iter()
                        .filter(|b| {
                            ty(b) != "text" || b.get("text").and_then(Value::as_str).is_some_and(|t| !t.is_empty())
                        })
                        .map(|b| match ty(&b) {
                            "text" => json!({"type": "text", "text": b["text"]}),
                            _ => json!({"type": "image_url", "image_url": {"url": format!(
                                "data:{};base64,{}",
                                b.get("mimeType").and_then(Value::as_str).unwrap_or(""),
                                b.get("data").and_then(Value::as_str).unwrap_or("")
                            )}}),
                        })
                        .collect();
                    if !content.is_empty() {
                        out.push(json!({"role": "user", "content": content}));
                    }
                }
            },
            "assistant" => {
                if let Some(a) = assistant(m, *same_model) {
                    out.push(a);
                }
            }
            "toolResult" => {
                let b = blocks(m);
                let text = b
                    .iter()
                    .filter(|x| ty(x) == "text")
                    .filter_map(|x| x.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                let content = if !text.trim().is_empty() {
                    text
                } else if b.iter().any(|x| ty(x) == "image") {
                    "(see attached image)".to_string()
                } else {
                    "(no tool output)".to_string()
                };
                out.push(json!({"role": "tool", "content": content, "tool_call_id": m.get("toolCallId").cloned().unwrap_or(Value::Null)}));
            }
            _ => {}
        }
    }
}

/// One assistant message, or `None` when it has neither text nor calls (P9).
fn assistant(m: &Map<String, Value>, same_model: bool) -> Option<Value> {
    let b = blocks(m);
    let text: String = b
        .iter()
        .filter(|x| ty(x) == "text")
        .filter_map(|x| x.get("text").and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .collect();
    let mut a = Map::new();
    a.insert("role".into(), "assistant".into());
    let has_text = !text.is_empty();
    a.insert("content".into(), if has_text { text.into() } else { Value::Null });
    let thinking: Vec<&Value> = b
        .iter()
        .filter(|x| ty(x) == "thinking")
        .filter(|x| {
            x.get("thinking")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.trim().is_empty())
        })
        .collect();
    if same_model
        && let Some(first) = thinking.first()
        && let Some(field) = first
            .get("thinkingSignature")
            .and_then(Value::as_str)
            .filter(|s| REASONING_FIELDS.contains(s))
    {
        let joined: Vec<&str> = thinking
            .iter()
            .filter_map(|x| x.get("thinking").and_then(Value::as_str))
            .collect();
        a.insert(field.to_string(), joined.join("\n").into());
    }
    let calls: Vec<Value> = b
        .iter()
        .filter(|x| ty(x) == "toolCall")
        .map(|c| {
            let mut f = Map::new();
            f.insert("name".into(), c.get("name").cloned().unwrap_or(Value::Null));
            // `JSON.stringify(undefined)` leaves the key out; keys keep the order written.
            if let Some(args) = c.get("arguments") {
                f.insert(
                    "arguments".into(),
                    serde_json::to_string(args).unwrap_or_default().into(),
                );
            }
            json!({"id": c.get("id").cloned().unwrap_or(Value::Null), "type": "function", "function": f})
        })
        .collect();
    if !calls.is_empty() {
        a.insert("tool_calls".into(), Value::Array(calls));
    }
    (has_text || a.contains_key("tool_calls")).then_some(Value::Object(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_is_pi_ai_s_over_utf16_units() {
        // Values printed by pi-ai 1.6.0's own `shortHash`.
        assert_eq!(short_hash("call_abc|x/y+z"), "9d253fehuuw0");
        assert_eq!(short_hash("é😀"), "102l7zrk951la");
        assert_eq!(short_hash(""), "k4n83c7h0j2b");
    }

    #[test]
    fn responses_call_ids_are_rewritten_and_shortened_past_40() {
        assert_eq!(call_id("call_1"), None);
        assert_eq!(call_id("call_a|x/y").as_deref(), Some("call_a_x_y"));
        assert_eq!(call_id("call_a|").as_deref(), Some("call_a"));
        assert_eq!(call_id("c😀|").as_deref(), Some("c__"));
        let long = format!("call_{}|{}", "a".repeat(40), "b".repeat(10));
        // As pi-ai 1.6.0 rewrites it.
        assert_eq!(
            call_id(&long).as_deref(),
            Some("call_aaaaaaaaaaaaaaaaaaaaaaaaaa_8iskqk13")
        );
    }
}
