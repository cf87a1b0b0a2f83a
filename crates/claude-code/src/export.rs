//! Claude Code's sessions for `export`: the chain a resume loads (or the whole history), each
//! record as a message of the document, or as written for `--format jsonl`.

use serde_json::Value;

use super::chain as claude;
use crate::io::Source;
use cctool_core::model::doc::{
    Entry, ExportError, Msg, Part, cannot_read, image_of, local_time, output_text, pretty, s,
};

type ClaudeChain = (Vec<(u64, Vec<u8>)>, Vec<usize>, Option<usize>);

/// The records of the chain Claude Code loads (earlier history too, with `full`), as written,
/// with their line numbers; then the indexes where earlier parts start, and where what a
/// resume loads starts.
fn claude_chain(src: &Source, full: bool) -> Result<ClaudeChain, ExportError> {
    let t = claude::read(src).map_err(|e| cannot_read(src, e))?;
    let chain = t
        .rebuild(&claude::Options {
            loader: claude::Loader::default(),
            tip: None,
            full,
        })
        .map_err(|e| ExportError::Invalid {
            file: src.name().to_string(),
            cause: Box::new(e),
        })?;
    let mut out = Vec::with_capacity(chain.positions.len());
    for &pos in &chain.positions {
        let node = t.node(pos);
        let bytes = src
            .read_range(node.offset, node.len as usize)
            .map_err(|e| cannot_read(src, e))?;
        out.push((node.line, bytes.into_owned()));
    }
    Ok((out, chain.earlier_parts.clone(), chain.loaded_from))
}

/// The document's entries: the chain's messages, with where earlier parts start and where
/// what a resume loads starts marked; each record parsed by `parse`.
pub(crate) fn entries(src: &Source, full: bool, parse: &dyn Fn(&[u8]) -> Value) -> Result<Vec<Entry>, ExportError> {
    let (records, earlier, loaded_from) = claude_chain(src, full)?;
    let mut entries = Vec::with_capacity(records.len());
    for (i, (line, bytes)) in records.iter().enumerate() {
        if earlier.contains(&i) {
            entries.push(Entry::Mark {
                title: "Earlier history, replaced by a compaction (not loaded on resume)".into(),
                summary: None,
            });
        } else if !earlier.is_empty() && loaded_from == Some(i) {
            entries.push(Entry::Mark {
                title: "What a resume loads".into(),
                summary: None,
            });
        }
        if let Some(e) = message(&parse(bytes), *line) {
            entries.push(e);
        }
    }
    Ok(entries)
}

/// `--format jsonl`: the chain's records as written, each handed to `emit`.
pub(crate) fn records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    for (_, bytes) in claude_chain(src, full)?.0 {
        emit(&bytes)?;
    }
    Ok(())
}

/// The parts of Anthropic-style content (a string or a list of blocks).
fn anthropic_parts(content: &Value) -> Vec<Part> {
    match content {
        Value::String(t) => vec![Part::Text(t.clone())],
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match s(b, "type").unwrap_or("") {
                "text" => Part::Text(s(b, "text").unwrap_or("").to_string()),
                "thinking" => Part::Thinking(s(b, "thinking").unwrap_or("").to_string()),
                "redacted_thinking" => Part::Note("[redacted thinking]".into()),
                "tool_use" | "server_tool_use" => Part::ToolCall {
                    name: s(b, "name").unwrap_or("?").to_string(),
                    id: s(b, "id").unwrap_or("").to_string(),
                    input: b.get("input").map(pretty).unwrap_or_default(),
                },
                "tool_result" => {
                    let mut images = Vec::new();
                    let text = output_text(b.get("content").unwrap_or(&Value::Null), &mut images);
                    Part::ToolResult {
                        id: s(b, "tool_use_id").unwrap_or("").to_string(),
                        error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                        text,
                        images,
                    }
                }
                "image" => image_of(b).map_or_else(|| Part::Note("[image]".into()), Part::Image),
                other => Part::Note(format!("[{other}]")),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A Claude Code record as a message; `None` for rows that carry no conversation.
fn message(v: &Value, line: u64) -> Option<Entry> {
    let ty = s(v, "type").unwrap_or("");
    let time = s(v, "timestamp").map(local_time);
    let (role, parts) = match ty {
        "system" => {
            let sub = s(v, "subtype").unwrap_or("");
            if sub == "compact_boundary" {
                let m = v.get("compactMetadata");
                let trigger = m.and_then(|m| s(m, "trigger")).unwrap_or("?");
                let tokens = m
                    .and_then(|m| m.get("preTokens"))
                    .map_or("?".to_string(), Value::to_string);
                return Some(Entry::Mark {
                    title: format!(
                        "Compaction ({trigger}, {tokens} tokens before){}",
                        time.map(|t| format!(" at {t}")).unwrap_or_default()
                    ),
                    summary: None,
                });
            }
            let mut images = Vec::new();
            let text = output_text(v.get("content").unwrap_or(&Value::Null), &mut images);
            (format!("system/{sub}"), vec![Part::Note(text)])
        }
        "attachment" => (
            "attachment".to_string(),
            vec![Part::ToolResult {
                id: String::new(),
                error: false,
                text: v.get("attachment").map(pretty).unwrap_or_default(),
                images: Vec::new(),
            }],
        ),
        "user" | "assistant" => {
            let msg = v.get("message").unwrap_or(&Value::Null);
            let mut role = ty.to_string();
            if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                role = "compaction summary".into();
            } else if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
                role.push_str(" (meta)");
            }
            (role, anthropic_parts(msg.get("content").unwrap_or(&Value::Null)))
        }
        _ => return None,
    };
    Some(Entry::Msg(Msg {
        role,
        line: Some(line),
        time,
        parts,
    }))
}
