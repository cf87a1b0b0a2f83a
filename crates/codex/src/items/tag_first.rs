//! Reading a [`Wire`] by its `type` first.
//!
//! A derived internally tagged enum buffers the whole object (every member, unknown ones
//! included) before it can choose a variant, so an item with a huge field Codex does not know
//! costs many times its size. Here `type` is found by a probe that skips every other member
//! without building it, and the variant's fields are then read from the text itself, so
//! unknown members are skipped the same way.
//!
//! [`WireDef`] mirrors [`Wire`] as a remote definition: the compiler checks that its fields
//! match, and the tests check that it reads every item as the derived reader did.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, VariantAccess, Visitor};
use serde_json::Value;

use super::*;

/// `type`, and nothing else.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    tag: Cow<'a, str>,
}

/// The item in `raw`, read in two passes over the text; with a budget, the values the item
/// builds spend it (see [`crate::io::json::Counted`]).
pub(super) fn from_text(raw: &str, budget: Option<&crate::io::json::Budget>) -> serde_json::Result<Wire> {
    let Probe { tag } = serde_json::from_str(raw)?;
    let mut d = serde_json::Deserializer::from_str(raw);
    let wire = match budget {
        Some(b) => WireDef::deserialize(Tagged {
            tag: &tag,
            d: crate::io::json::Counted::new(&mut d, b),
        })?,
        None => WireDef::deserialize(Tagged { tag: &tag, d: &mut d })?,
    };
    d.end()?;
    Ok(wire)
}

/// The item in an already parsed value (a line with a key written twice).
pub(super) fn from_value(v: &Value) -> serde_json::Result<Wire> {
    let Probe { tag } = Probe::deserialize(v)?;
    WireDef::deserialize(Tagged { tag: &tag, d: v })
}

/// An object whose variant is already known: it reads as an externally tagged enum whose
/// content is the object itself (its `type` member is one more unknown field).
struct Tagged<'t, D> {
    tag: &'t str,
    d: D,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tagged<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de, D: Deserializer<'de>> EnumAccess<'de> for Tagged<'_, D> {
    type Error = D::Error;
    type Variant = Content<D>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Content<D>), D::Error> {
        let variant = seed.deserialize(self.tag.into_deserializer())?;
        Ok((variant, Content(self.d)))
    }
}

/// The object a variant's fields are read from.
struct Content<D>(D);

impl<'de, D: Deserializer<'de>> VariantAccess<'de> for Content<D> {
    type Error = D::Error;

    /// `Other`: the probe has already checked the text; nothing in it is kept.
    fn unit_variant(self) -> Result<(), D::Error> {
        self.0.deserialize_ignored_any(de::IgnoredAny).map(drop)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, D::Error> {
        Err(de::Error::invalid_type(
            de::Unexpected::NewtypeVariant,
            &"a history item",
        ))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, D::Error> {
        Err(de::Error::invalid_type(de::Unexpected::TupleVariant, &"a history item"))
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }
}

/// [`Wire`]'s fields and read rules (defaults, id readers, the alias, `Other`), without the
/// tag, which [`Tagged`] supplies.
#[derive(Deserialize)]
#[serde(remote = "Wire", rename_all = "snake_case")]
enum WireDef {
    AdditionalTools {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        role: String,
        tools: Vec<Value>,
    },
    Message {
        #[serde(default)]
        encrypted_content: Option<String>,
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        role: String,
        content: Vec<Part>,
        #[serde(default)]
        phase: Option<Phase>,
    },
    AgentMessage {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        author: String,
        recipient: String,
        content: Vec<AgentPart>,
    },
    Reasoning {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        summary: Vec<SummaryPart>,
        #[serde(default)]
        content: Option<Vec<ReasoningPart>>,
        #[serde(default)]
        encrypted_content: Option<String>,
    },
    LocalShellCall {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        status: ShellStatus,
        action: ShellAction,
    },
    FunctionCall {
        #[serde(default)]
        status: Option<String>,
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        name: String,
        #[serde(default)]
        namespace: Option<String>,
        arguments: String,
        #[serde(default)]
        encrypted_function_args: Option<Vec<String>>,
        call_id: String,
    },
    ToolSearchCall {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        #[serde(default)]
        status: Option<String>,
        execution: String,
        arguments: Value,
    },
    FunctionCallOutput {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        call_id: String,
        output: Output,
    },
    CustomToolCall {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        status: Option<String>,
        call_id: String,
        name: String,
        #[serde(default)]
        namespace: Option<String>,
        input: String,
    },
    CustomToolCallOutput {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        call_id: String,
        #[serde(default)]
        name: Option<String>,
        output: Output,
    },
    ToolSearchOutput {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        status: String,
        execution: String,
        tools: Vec<Value>,
    },
    WebSearchCall {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        status: Option<String>,
        #[serde(default)]
        action: Option<WebSearchAction>,
    },
    ImageGenerationCall {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        status: String,
        #[serde(default)]
        revised_prompt: Option<String>,
        result: String,
    },
    #[serde(alias = "compaction_summary")]
    Compaction {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        encrypted_content: String,
    },
    CompactionTrigger {},
    ContextCompaction {
        #[serde(default, deserialize_with = "item_id")]
        id: Option<String>,
        #[serde(default)]
        encrypted_content: Option<String>,
    },
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived reader of an internally tagged enum, as `parse_item` was before.
    fn derived(raw: &str) -> serde_json::Result<Wire> {
        parse_lenient::<Wire>(raw)
    }

    fn same_as_derived(raw: &str) -> Option<Wire> {
        match (parse_item(raw), derived(raw)) {
            (Ok(new), Ok(old)) => {
                assert_eq!(new, old, "{raw:.300}");
                Some(new)
            }
            (Err(_), Err(_)) => None,
            (new, old) => panic!("{raw:.300}: tag first {new:?}, derived {old:?}"),
        }
    }

    /// Which variant, by an exhaustive match: a new variant must be added to the samples below.
    fn kind(w: &Wire) -> usize {
        match w {
            Wire::AdditionalTools { .. } => 0,
            Wire::Message { .. } => 1,
            Wire::AgentMessage { .. } => 2,
            Wire::Reasoning { .. } => 3,
            Wire::LocalShellCall { .. } => 4,
            Wire::FunctionCall { .. } => 5,
            Wire::ToolSearchCall { .. } => 6,
            Wire::FunctionCallOutput { .. } => 7,
            Wire::CustomToolCall { .. } => 8,
            Wire::CustomToolCallOutput { .. } => 9,
            Wire::ToolSearchOutput { .. } => 10,
            Wire::WebSearchCall { .. } => 11,
            Wire::ImageGenerationCall { .. } => 12,
            Wire::Compaction { .. } => 13,
            Wire::CompactionTrigger {} => 14,
            Wire::ContextCompaction { .. } => 15,
            Wire::Other => 16,
        }
    }
    const KINDS: usize = 17;

    #[test]
    fn every_variant_reads_as_the_derived_reader_did() {
        let full = [
            r#"{"x":[1,{"y":2}],"type":"additional_tools","id":"t_1","role":"developer","tools":[{"a":1}]}"#,
            r#"{"type":"message","encrypted_content":"e","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"x","annotations":[],"logprobs":[]},{"type":"input_image","image_url":"u","detail":"low"},{"type":"input_audio","audio_url":"a"}],"phase":"final_answer","end_turn":true}"#,
            r#"{"type":"agent_message","id":"am_1","author":"/root/w","recipient":"/root","content":[{"type":"input_text","text":"t"},{"type":"encrypted_content","encrypted_content":"E"}]}"#,
            r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"s"}],"content":[{"type":"reasoning_text","text":"r"},{"type":"text","text":"t"}],"encrypted_content":"E"}"#,
            r#"{"type":"local_shell_call","id":"lsc_1","call_id":"c","status":"in_progress","action":{"type":"exec","command":["ls"],"timeout_ms":5,"working_directory":"/","env":{"A":"B"},"user":"u"}}"#,
            r#"{"type":"function_call","status":"completed","id":"fc_1","name":"n","namespace":"ns","arguments":"{}","encrypted_function_args":["a"],"call_id":"c"}"#,
            r#"{"type":"tool_search_call","id":"ts_1","call_id":"c","status":"s","execution":"client","arguments":{"q":1}}"#,
            r#"{"type":"function_call_output","id":"fo_1","call_id":"c","output":[{"type":"input_text","text":"t"},{"type":"encrypted_content","encrypted_content":"E"}]}"#,
            r#"{"type":"custom_tool_call","id":"ct_1","status":"s","call_id":"c","name":"n","namespace":"ns","input":"i"}"#,
            r#"{"type":"custom_tool_call_output","id":"co_1","call_id":"c","name":"n","output":"o"}"#,
            r#"{"type":"tool_search_output","id":"to_1","call_id":"c","status":"s","execution":"e","tools":[]}"#,
            r#"{"type":"web_search_call","id":"ws_1","status":"s","action":{"type":"find_in_page","url":"u","pattern":"p"}}"#,
            r#"{"type":"image_generation_call","id":"ig_1","status":"s","revised_prompt":"p","result":"r"}"#,
            r#"{"type":"compaction_summary","id":"cmp_1","encrypted_content":"E"}"#,
            r#"{"type":"compaction_trigger","x":[1,2]}"#,
            r#"{"type":"context_compaction","id":"cc_1","encrypted_content":"E"}"#,
            r#"{"type":"mcp_tool_call","x":{"y":[1]}}"#,
        ];
        // The same items with only what is required: defaults and the id readers.
        let minimal = [
            r#"{"type":"additional_tools","role":"developer","tools":[]}"#,
            r#"{"role":"user","content":[],"type":"message","id":"abc"}"#,
            r#"{"type":"agent_message","author":"a","recipient":"b","content":[]}"#,
            r#"{"type":"reasoning","summary":[]}"#,
            r#"{"type":"local_shell_call","status":"completed","action":{"type":"exec","command":[]}}"#,
            r#"{"type":"function_call","name":"n","arguments":"","call_id":"c"}"#,
            r#"{"type":"tool_search_call","execution":"e","arguments":null}"#,
            r#"{"type":"function_call_output","call_id":"c","output":"o"}"#,
            r#"{"type":"custom_tool_call","call_id":"c","name":"n","input":"i"}"#,
            r#"{"type":"custom_tool_call_output","call_id":"c","output":[]}"#,
            r#"{"type":"tool_search_output","status":"s","execution":"e","tools":[]}"#,
            r#"{"type":"web_search_call","action":{"type":"weird"}}"#,
            r#"{"type":"image_generation_call","status":"s","result":"r"}"#,
            r#"{"type":"compaction","encrypted_content":"E"}"#,
            r#"{"type":"compaction_trigger"}"#,
            r#"{"type":"context_compaction"}"#,
            r#"{"type":"other"}"#,
        ];
        for samples in [full, minimal] {
            let mut seen = [false; KINDS];
            for raw in samples {
                let w = same_as_derived(raw).unwrap_or_else(|| panic!("{raw}"));
                seen[kind(&w)] = true;
            }
            assert!(seen.iter().all(|s| *s), "{seen:?}");
        }
    }

    #[test]
    fn what_the_derived_reader_refused_is_refused() {
        for raw in [
            r#"{"role":"user","content":[]}"#,
            r#"{"type":5,"role":"user","content":[]}"#,
            r#"{"type":"message","role":"user","content":[]} x"#,
            r#"{"type":"message","role":"user","content":[],"id":5}"#,
            r#"{"type":"message","role":"user"}"#,
            r#"{"type":"compaction"}"#,
            r#"{"type":"function_call_output","call_id":"c","output":{"content":"x"}}"#,
            r#"{"type":"local_shell_call","status":"weird","action":{"type":"exec","command":[]}}"#,
            r#"{"type":"mcp_tool_call","x":}"#,
            r#"[1]"#,
            r#""message""#,
        ] {
            assert!(same_as_derived(raw).is_none(), "{raw}");
        }
        // A key written twice takes its last value, the tag included.
        for raw in [
            r#"{"type":"message","role":"user","content":[],"role":"developer"}"#,
            r#"{"type":"reasoning","type":"message","role":"user","content":[]}"#,
            r#"{"type":"message","type":"message","role":"user","content":[]}"#,
        ] {
            assert!(same_as_derived(raw).is_some(), "{raw}");
        }
    }

    #[test]
    fn the_fixtures_items_read_as_the_derived_reader_did() {
        let root = concat!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."), "/fixtures/codex");
        let mut items = 0;
        for entry in walkdir::WalkDir::new(root) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if v["type"] != "response_item" {
                    continue;
                }
                same_as_derived(&v["payload"].to_string());
                items += 1;
            }
        }
        assert!(items > 50, "{items} items under {root}");
    }
}
