//! History items as Codex 0.171 reads and sends them.
//!
//! Codex keeps its history as typed values: each line of a rollout is read into its types, and
//! what it sends to the model is those values written out again. So a line Codex cannot read
//! (a content part of an unknown type, a field of the wrong type, a required field missing) is
//! skipped as a whole, and what is sent differs from what is written: fields Codex does not
//! know are left out, absent optional fields are sent as `null` where its types say so, an id
//! that is not `prefix_suffix` is dropped, `compaction_summary` becomes `compaction`. The
//! types below are that wire model, field order included; `docs/codex-request.md` lists what
//! each one does, with the fixtures that show it.
//!
//! Parsing goes through [`parse_item`]; [`Wire`] serialises as Codex sends it.

use std::collections::BTreeMap;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod tag_first;

/// One history item in Codex's types (`ResponseItem`).
///
/// Read through [`parse_item`], never a derived `Deserialize`: the derived reader of an
/// internally tagged enum builds every member of the object, unknown ones included, before it
/// looks at `type`. Tests keep the derived reader to check the two agree.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Wire {
    AdditionalTools {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        role: String,
        tools: Vec<Value>,
    },
    Message {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        role: String,
        content: Vec<Part>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<Phase>,
    },
    AgentMessage {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        author: String,
        recipient: String,
        content: Vec<AgentPart>,
    },
    Reasoning {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        summary: Vec<SummaryPart>,
        /// Sent as `null` when absent, left out when it holds no `reasoning_text`.
        #[serde(default, skip_serializing_if = "reasoning_content_left_out")]
        content: Option<Vec<ReasoningPart>>,
        #[serde(default)]
        encrypted_content: Option<String>,
    },
    LocalShellCall {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        status: ShellStatus,
        action: ShellAction,
    },
    FunctionCall {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        arguments: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_function_args: Option<Vec<String>>,
        call_id: String,
    },
    ToolSearchCall {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        execution: String,
        arguments: Value,
    },
    FunctionCallOutput {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        call_id: String,
        output: Output,
    },
    CustomToolCall {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        call_id: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        input: String,
    },
    CustomToolCallOutput {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        call_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        output: Output,
    },
    ToolSearchOutput {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        status: String,
        execution: String,
        tools: Vec<Value>,
    },
    WebSearchCall {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<WebSearchAction>,
    },
    ImageGenerationCall {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        status: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revised_prompt: Option<String>,
        result: String,
    },
    #[serde(alias = "compaction_summary")]
    Compaction {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        encrypted_content: String,
    },
    CompactionTrigger {},
    ContextCompaction {
        #[serde(default, deserialize_with = "item_id", skip_serializing_if = "not_sent_id")]
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
    },
    /// Any other `type`: read, never recorded from a `response_item` line, but sent as
    /// `{"type":"other"}` when it sits in a `replacement_history`.
    #[serde(other)]
    Other,
}

/// A message content part (`ContentItem`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    InputText {
        text: String,
    },
    InputImage {
        image_url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Detail>,
    },
    InputAudio {
        audio_url: String,
    },
    OutputText {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Vec<Value>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        logprobs: Option<Vec<Value>>,
    },
}

impl Part {
    /// The text of a text part.
    pub fn text(&self) -> Option<&str> {
        match self {
            Part::InputText { text } | Part::OutputText { text, .. } => Some(text),
            Part::InputImage { .. } | Part::InputAudio { .. } => None,
        }
    }
}

/// A part of a list tool output (`FunctionCallOutputContentItem`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutPart {
    InputText {
        text: String,
    },
    InputImage {
        image_url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<Detail>,
    },
    InputAudio {
        audio_url: String,
    },
    EncryptedContent {
        encrypted_content: String,
    },
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentPart {
    InputText { text: String },
    EncryptedContent { encrypted_content: String },
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SummaryPart {
    SummaryText { text: String },
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningPart {
    ReasoningText { text: String },
    Text { text: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Commentary,
    PartialAnswer,
    FinalAnswer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    Auto,
    Low,
    High,
    Original,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellStatus {
    Completed,
    InProgress,
    Incomplete,
}

/// A local shell call's action; every optional field is sent, as `null` when absent.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ShellAction {
    Exec {
        command: Vec<String>,
        #[serde(default)]
        timeout_ms: Option<u64>,
        #[serde(default)]
        working_directory: Option<String>,
        #[serde(default)]
        env: Option<BTreeMap<String, String>>,
        #[serde(default)]
        user: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WebSearchAction {
    Search {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        query: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        queries: Option<Vec<String>>,
    },
    OpenPage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    FindInPage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    #[serde(other)]
    Other,
}

/// A tool output: a string, or a list of parts.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Text(String),
    Parts(Vec<OutPart>),
}

impl Serialize for Output {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Output::Text(t) => s.serialize_str(t),
            Output::Parts(p) => p.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Output {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Output;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of content items")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Output, E> {
                Ok(Output::Text(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Output, E> {
                Ok(Output::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Output, A::Error> {
                let mut parts = Vec::new();
                while let Some(p) = a.next_element()? {
                    parts.push(p);
                }
                Ok(Output::Parts(parts))
            }
        }
        d.deserialize_any(V)
    }
}

fn reasoning_content_left_out(content: &Option<Vec<ReasoningPart>>) -> bool {
    content
        .as_ref()
        .is_some_and(|c| !c.iter().any(|p| matches!(p, ReasoningPart::ReasoningText { .. })))
}

/// Whether Codex keeps an item id: `prefix_suffix`, both sides non-empty.
pub fn is_item_id(id: &str) -> bool {
    matches!(id.split_once('_'), Some((a, b)) if !a.is_empty() && !b.is_empty())
}

/// An id must be a string (anything else fails the line). It is kept as written: Codex derives
/// the ids of the outputs it adds from it, whatever its form.
fn item_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::deserialize(d)
}

/// Codex leaves out of a request every id that is not `prefix_suffix`.
fn not_sent_id(id: &Option<String>) -> bool {
    id.as_deref().is_none_or(|s| !is_item_id(s))
}

/// A message from another agent (`inter_agent_communication` line), before Codex turns it into
/// an `agent_message`.
#[derive(Deserialize)]
struct InterAgent {
    #[serde(default, deserialize_with = "item_id")]
    id: Option<String>,
    author: AgentPath,
    recipient: AgentPath,
    #[serde(default)]
    #[allow(dead_code)] // read so that a bad path fails the line, as in Codex
    other_recipients: Vec<AgentPath>,
    content: String,
    #[serde(default)]
    encrypted_content: Option<String>,
    trigger_turn: bool,
}

/// An agent path: `/root`, `/root/<name>/…` (lowercase letters, digits, `_`), or `/morpheus`.
struct AgentPath(String);

impl<'de> Deserialize<'de> for AgentPath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if is_agent_path(&s) {
            Ok(AgentPath(s))
        } else {
            Err(de::Error::custom(format!("invalid agent path `{s}`")))
        }
    }
}

fn is_agent_path(p: &str) -> bool {
    if p == "/morpheus" {
        return true;
    }
    let Some(rest) = p.strip_prefix("/root") else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(names) = rest.strip_prefix('/') else {
        return false;
    };
    names.split('/').all(|n| {
        !n.is_empty()
            && !matches!(n, "root" | "." | "..")
            && n.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    })
}

/// Reads a history item as Codex does; `Err` means Codex skips the line that holds it.
pub fn parse_item(raw: &str) -> serde_json::Result<Wire> {
    match tag_first::from_text(raw, None) {
        Err(e) if is_duplicate(&e) => tag_first::from_value(&serde_json::from_str(raw)?),
        r => r,
    }
}

/// [`parse_item`], building no more than `cap` values (see [`crate::io::json::Counted`]);
/// `None` when the item holds more that Codex reads (what Codex drops is not counted).
pub fn parse_item_within(raw: &str, cap: usize) -> Option<serde_json::Result<Wire>> {
    use serde::Deserialize;
    let budget = crate::io::json::Budget::new(cap);
    let read = match tag_first::from_text(raw, Some(&budget)) {
        Err(e) if is_duplicate(&e) && !budget.exceeded() => {
            // A key written twice: the item is read from the whole object, every value counted.
            let budget = crate::io::json::Budget::new(cap);
            let mut d = serde_json::Deserializer::from_str(raw);
            let value =
                Value::deserialize(crate::io::json::Counted::new(&mut d, &budget)).and_then(|v| d.end().map(|()| v));
            if budget.exceeded() {
                return None;
            }
            value.and_then(|v| tag_first::from_value(&v))
        }
        r => r,
    };
    (!budget.exceeded()).then_some(read)
}

/// An `inter_agent_communication` payload as the `agent_message` Codex records for it.
pub fn parse_inter_agent(raw: &str) -> serde_json::Result<Wire> {
    let m: InterAgent = parse_lenient(raw)?;
    let content = match m.encrypted_content {
        Some(enc) => vec![
            AgentPart::InputText {
                text: format!(
                    "Message Type: {}\nTask name: {}\nSender: {}\nPayload:\n",
                    if m.trigger_turn { "NEW_TASK" } else { "MESSAGE" },
                    m.recipient.0,
                    m.author.0
                ),
            },
            AgentPart::EncryptedContent { encrypted_content: enc },
        ],
        None => vec![AgentPart::InputText { text: m.content }],
    };
    Ok(Wire::AgentMessage {
        id: m.id,
        author: m.author.0,
        recipient: m.recipient.0,
        content,
    })
}

/// An item of a history as it must be written into a `replacement_history` for Codex to read
/// the compaction: as written when Codex reads it, as the `agent_message` Codex records for a
/// message from another agent, and `None` for an item Codex cannot read (it would skip the
/// whole `compacted` line).
pub fn replacement_item(raw: &str, inter_agent: bool) -> Option<std::borrow::Cow<'_, str>> {
    if inter_agent {
        return parse_inter_agent(raw).ok().map(|w| w.to_json().into());
    }
    parse_item(raw).ok().map(|_| raw.into())
}

/// Parses `raw` into `T`. Codex reads a line into a JSON value first, so a key written twice
/// takes its last value; the typed reader refuses duplicates, so that case goes through a value.
fn parse_lenient<T: serde::de::DeserializeOwned>(raw: &str) -> serde_json::Result<T> {
    match serde_json::from_str::<T>(raw) {
        Ok(v) => Ok(v),
        Err(e) if is_duplicate(&e) => T::deserialize(serde_json::from_str::<Value>(raw)?),
        Err(e) => Err(e),
    }
}

fn is_duplicate(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("duplicate field")
}

impl Wire {
    /// The JSON Codex sends for this item.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The call id of a call that expects an output, and which output kind closes it.
    pub fn call(&self) -> Option<(&str, CallKind)> {
        match self {
            Wire::FunctionCall { call_id, .. } => Some((call_id, CallKind::Function)),
            Wire::LocalShellCall {
                call_id: Some(call_id), ..
            } => Some((call_id, CallKind::Function)),
            Wire::CustomToolCall { call_id, .. } => Some((call_id, CallKind::Custom)),
            Wire::ToolSearchCall {
                call_id: Some(call_id), ..
            } => Some((call_id, CallKind::ToolSearch)),
            _ => None,
        }
    }

    pub fn id(&self) -> Option<&str> {
        match self {
            Wire::AdditionalTools { id, .. }
            | Wire::Message { id, .. }
            | Wire::AgentMessage { id, .. }
            | Wire::Reasoning { id, .. }
            | Wire::LocalShellCall { id, .. }
            | Wire::FunctionCall { id, .. }
            | Wire::ToolSearchCall { id, .. }
            | Wire::FunctionCallOutput { id, .. }
            | Wire::CustomToolCall { id, .. }
            | Wire::CustomToolCallOutput { id, .. }
            | Wire::ToolSearchOutput { id, .. }
            | Wire::WebSearchCall { id, .. }
            | Wire::ImageGenerationCall { id, .. }
            | Wire::Compaction { id, .. }
            | Wire::ContextCompaction { id, .. } => id.as_deref(),
            Wire::CompactionTrigger {} | Wire::Other => None,
        }
    }
}

/// Which output answers a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// `function_call_output` (function calls and local shell calls).
    Function,
    /// `custom_tool_call_output`.
    Custom,
    /// `tool_search_output`.
    ToolSearch,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(raw: &str) -> String {
        parse_item(raw).unwrap().to_json()
    }

    #[test]
    fn absent_optional_fields_are_sent_as_codex_types_say() {
        assert_eq!(
            sent(r#"{"type":"reasoning","summary":[]}"#),
            r#"{"type":"reasoning","summary":[],"content":null,"encrypted_content":null}"#
        );
        // Content without reasoning_text is left out; with it, kept.
        assert_eq!(
            sent(r#"{"type":"reasoning","summary":[],"content":[{"type":"text","text":"t"}]}"#),
            r#"{"type":"reasoning","summary":[],"encrypted_content":null}"#
        );
        assert_eq!(
            sent(r#"{"type":"local_shell_call","status":"completed","action":{"type":"exec","command":["ls"]}}"#),
            r#"{"type":"local_shell_call","call_id":null,"status":"completed","action":{"type":"exec","command":["ls"],"timeout_ms":null,"working_directory":null,"env":null,"user":null}}"#
        );
    }

    #[test]
    fn unknown_fields_are_dropped_and_field_order_is_codexs() {
        assert_eq!(
            sent(
                r#"{"content":[{"text":"x","type":"output_text"}],"metadata":{"a":1},"id":"msg_1","role":"assistant","phase":"commentary","end_turn":true,"encrypted_content":"e","type":"message","internal_chat_message_metadata_passthrough":{"turn_id":"t"}}"#
            ),
            r#"{"type":"message","encrypted_content":"e","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"x"}],"phase":"commentary"}"#
        );
        assert_eq!(
            sent(r#"{"type":"compaction_summary","encrypted_content":"E"}"#),
            r#"{"type":"compaction","encrypted_content":"E"}"#
        );
        assert_eq!(
            sent(r#"{"type":"web_search_call","action":{"type":"weird","x":1}}"#),
            r#"{"type":"web_search_call","action":{"type":"other"}}"#
        );
        assert_eq!(sent(r#"{"type":"mcp_tool_call","x":1}"#), r#"{"type":"other"}"#);
    }

    #[test]
    fn ids_must_be_prefix_underscore_suffix() {
        for (id, kept) in [
            ("msg_1", true),
            ("a__", true),
            ("a b_c", true),
            ("abc", false),
            ("_x", false),
            ("x_", false),
            ("__a", false),
            ("", false),
        ] {
            let raw = format!(
                r#"{{"type":"message","role":"user","content":[],"id":{}}}"#,
                serde_json::json!(id)
            );
            let w = parse_item(&raw).unwrap();
            assert_eq!(w.id(), Some(id), "kept as written");
            assert_eq!(w.to_json().contains(r#""id""#), kept, "{id:?}");
        }
        assert!(parse_item(r#"{"type":"message","role":"user","content":[],"id":5}"#).is_err());
    }

    #[test]
    fn lines_codex_cannot_read_are_errors() {
        for raw in [
            r#"{"type":"message","role":"user","content":[{"type":"text","text":"x"}]}"#,
            r#"{"type":"message","role":"user","content":"plain"}"#,
            r#"{"type":"message","content":[]}"#,
            r#"{"type":"message","role":"assistant","content":[],"phase":"weird"}"#,
            r#"{"type":"function_call","name":"n","call_id":"c"}"#,
            r#"{"type":"function_call","name":"n","arguments":{},"call_id":"c"}"#,
            r#"{"type":"function_call_output","call_id":"c","output":{"content":"x"}}"#,
            r#"{"type":"function_call_output","call_id":"c","output":[{"type":"output_text","text":"x"}]}"#,
            r#"{"type":"reasoning","encrypted_content":"e"}"#,
            r#"{"type":"local_shell_call","status":"weird","action":{"type":"exec","command":[]}}"#,
            r#"{"type":"local_shell_call","status":"completed","action":{"type":"exec","command":[],"env":{"A":1}}}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_image","image_url":"x","detail":"bogus"}]}"#,
        ] {
            assert!(parse_item(raw).is_err(), "{raw}");
        }
    }

    #[test]
    fn a_key_written_twice_takes_its_last_value() {
        assert_eq!(
            sent(
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"1"}],"content":[{"type":"input_text","text":"2"}]}"#
            ),
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"2"}]}"#
        );
    }

    #[test]
    fn inter_agent_messages_become_agent_messages() {
        let w = parse_inter_agent(
            r#"{"author":"/root/w","recipient":"/root","content":"","encrypted_content":"E","trigger_turn":true}"#,
        )
        .unwrap();
        assert_eq!(
            w.to_json(),
            r#"{"type":"agent_message","author":"/root/w","recipient":"/root","content":[{"type":"input_text","text":"Message Type: NEW_TASK\nTask name: /root\nSender: /root/w\nPayload:\n"},{"type":"encrypted_content","encrypted_content":"E"}]}"#
        );
        for bad in ["bad path", "/root/", "/root/Root", "/root/root", "/other"] {
            let raw = format!(r#"{{"author":"{bad}","recipient":"/root","content":"x","trigger_turn":false}}"#);
            assert!(parse_inter_agent(&raw).is_err(), "{bad}");
        }
    }
}
