//! Codex's rollouts for `export`: the history a resume loads (or, with `full`, every item
//! in file order with each compaction marked), each item as a message of the document, or as
//! written for `--format jsonl`.

use serde_json::Value;

use super::rollout::{Era, ItemSrc};
use crate::io::Source;
use crate::io::lines::for_each_line;
use crate::model::doc::{Entry, ExportError, Msg, Part, cannot_read, image_of, local_time, output_text, pretty, s};

/// The local time of every line that has a `timestamp` (Codex writes one per envelope).
fn line_times(src: &Source) -> Result<Vec<(u64, String)>, ExportError> {
    #[derive(serde::Deserialize)]
    struct Stamp<'a> {
        #[serde(borrow, default)]
        timestamp: Option<std::borrow::Cow<'a, str>>,
    }
    let mut out = Vec::new();
    for_each_line(src, |l| {
        if let Ok(Stamp { timestamp: Some(t) }) = serde_json::from_slice::<Stamp<'_>>(l.bytes) {
            out.push((l.no, local_time(&t)));
        }
    })
    .map_err(|e| cannot_read(src, e))?;
    Ok(out)
}

/// The document's entries, each item parsed by `parse`.
pub(crate) fn entries(src: &Source, full: bool, parse: &dyn Fn(&[u8]) -> Value) -> Result<Vec<Entry>, ExportError> {
    let rollout = super::rollout::read_records(src).map_err(|e| cannot_read(src, e))?;
    let times = line_times(src)?;
    let time_of = |line: u64| {
        times
            .binary_search_by_key(&line, |(l, _)| *l)
            .ok()
            .map(|i| times[i].1.clone())
    };
    let mut entries = Vec::new();
    if full && rollout.era == Era::Envelope {
        // Every item in file order; each compaction marked where it happened, with its summary.
        for_each_line(src, |l| {
            let v = parse(l.bytes);
            let payload = v.get("payload").unwrap_or(&Value::Null);
            match v.get("type").and_then(Value::as_str) {
                Some("response_item") => {
                    if let Some(e) = message(payload, Some(l.no), time_of(l.no)) {
                        entries.push(e);
                    }
                }
                Some("compacted") => entries.push(Entry::Mark {
                    title: format!(
                        "Compaction{}",
                        time_of(l.no).map(|t| format!(" at {t}")).unwrap_or_default()
                    ),
                    summary: payload
                        .get("message")
                        .and_then(Value::as_str)
                        .filter(|m| !m.is_empty())
                        .map(str::to_string),
                }),
                _ => {}
            }
        })
        .map_err(|e| cannot_read(src, e))?;
        return Ok(entries);
    }
    let history = super::history::reconstruct(&rollout);
    if let Some(base) = history.base_line {
        entries.push(Entry::Mark {
            title: format!("Resumed from the compaction at line {base}"),
            summary: None,
        });
    }
    for item in &history.items {
        let (bytes, line) = match &item.src {
            ItemSrc::Raw { offset, len, line } => (
                src.read_range(*offset, *len as usize)
                    .map_err(|e| cannot_read(src, e))?
                    .into_owned(),
                Some(*line),
            ),
            ItemSrc::Synth(s) => (s.clone().into_bytes(), None),
        };
        let v = parse(&bytes);
        if let Some(e) = message(&v, line, line.and_then(time_of)) {
            entries.push(e);
        }
    }
    Ok(entries)
}

/// `--format jsonl`: the items the document shows (with `full`, every item and every
/// compaction) as written, each handed to `emit`.
pub(crate) fn records(
    src: &Source,
    full: bool,
    emit: &mut dyn FnMut(&[u8]) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let rollout = super::rollout::read_records(src).map_err(|e| cannot_read(src, e))?;
    if full && rollout.era == Era::Envelope {
        // The whole history: every item and every compaction, as the lines were written.
        let mut failed = Ok(());
        for_each_line(src, |l| {
            #[derive(serde::Deserialize)]
            struct Kind<'a> {
                #[serde(borrow, rename = "type")]
                ty: Option<std::borrow::Cow<'a, str>>,
            }
            let keep = serde_json::from_slice::<Kind<'_>>(l.bytes)
                .ok()
                .and_then(|k| k.ty)
                .is_some_and(|t| t == "response_item" || t == "compacted");
            if keep && failed.is_ok() {
                failed = emit(l.bytes);
            }
        })
        .map_err(|e| cannot_read(src, e))?;
        return failed;
    }
    for item in super::history::reconstruct(&rollout).items {
        match item.src {
            ItemSrc::Raw { offset, len, .. } => {
                emit(&src.read_range(offset, len as usize).map_err(|e| cannot_read(src, e))?)?
            }
            ItemSrc::Synth(s) => emit(s.as_bytes())?,
        }
    }
    Ok(())
}

/// A Codex ResponseItem as a message.
fn message(v: &Value, line: Option<u64>, time: Option<String>) -> Option<Entry> {
    let ty = s(v, "type").unwrap_or("");
    let mut images = Vec::new();
    let (role, parts) = match ty {
        "message" => {
            let parts = match v.get("content") {
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| match image_of(i) {
                        Some(img) => Part::Image(img),
                        None => Part::Text(s(i, "text").unwrap_or("").to_string()),
                    })
                    .collect(),
                Some(other) => vec![Part::Text(output_text(other, &mut images))],
                None => Vec::new(),
            };
            (s(v, "role").unwrap_or("message").to_string(), parts)
        }
        "reasoning" => {
            let text = output_text(v.get("summary").unwrap_or(&Value::Null), &mut images);
            if text.is_empty() {
                return None;
            }
            ("assistant".into(), vec![Part::Thinking(text)])
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let input = match s(v, "arguments").or_else(|| s(v, "input")) {
                Some(a) => serde_json::from_str::<Value>(a).map_or_else(|_| a.to_string(), |j| pretty(&j)),
                None => v.get("action").map(pretty).unwrap_or_default(),
            };
            (
                "assistant".into(),
                vec![Part::ToolCall {
                    name: s(v, "name").unwrap_or(ty).to_string(),
                    id: s(v, "call_id").unwrap_or("").to_string(),
                    input,
                }],
            )
        }
        "function_call_output" | "custom_tool_call_output" => {
            let out = v.get("output").unwrap_or(&Value::Null);
            // Older rollouts wrap the output as `{"output": "...", "metadata": …}` text.
            let text = match out {
                Value::String(t) => serde_json::from_str::<Value>(t)
                    .ok()
                    .and_then(|j| j.get("output").and_then(Value::as_str).map(str::to_string))
                    .unwrap_or_else(|| t.clone()),
                other => output_text(other, &mut images),
            };
            (
                "tool".into(),
                vec![Part::ToolResult {
                    id: s(v, "call_id").unwrap_or("").to_string(),
                    error: false,
                    text,
                    images: std::mem::take(&mut images),
                }],
            )
        }
        "compaction" | "compaction_summary" | "context_compaction" => {
            return Some(Entry::Mark {
                title: "Remote compaction (its summary is encrypted by the server)".into(),
                summary: None,
            });
        }
        "ghost_snapshot" => return None,
        other => ("item".into(), vec![Part::Note(format!("[{other}]"))]),
    };
    Some(Entry::Msg(Msg {
        role,
        line,
        time,
        parts,
    }))
}
