//! Where payloads sit in a Codex rollout, for `cctool slim` (`docs/slim.md`).
//!
//! Images are `input_image` parts with a `data:` URL, in a message's content or a tool
//! output's; generated images are an `image_generation_call`'s base64 `result`. Every
//! `compacted` record's `replacement_history` copies the images of the history it keeps, so a
//! long session holds the same image once per compaction; a resume replays only the newest
//! surviving one (`docs/codex.md`). A `user_message` event keeps the prompt's images again,
//! for display only.

use std::io;

use serde_json::value::RawValue;

use super::history;
use super::rollout::{self, ItemSrc};
use crate::io::Source;
use crate::io::json::Members;
use cctool_core::slim::json::{array, candidate, object, span, text_candidate};
use cctool_core::slim::{Candidate, Slimmer, Window};

/// The Codex rollout passes of `slim`.
pub struct CodexSlim;

impl Slimmer for CodexSlim {
    /// Everything from the compaction record the resume replays from is loaded (turns a
    /// rollback discards included, which keeps them as they are), and before it the items the
    /// history holds.
    fn window(&self, src: &Source) -> io::Result<Window> {
        let r = rollout::read_records(src)?;
        let h = history::reconstruct(&r);
        let Some(base) = h.base_line else {
            return Ok(Window::default());
        };
        let from = r
            .records
            .iter()
            .find_map(|(_, rec)| match rec {
                rollout::Record::Compacted(c) if c.line == base => Some(c.offset),
                _ => None,
            })
            .unwrap_or(0);
        let mut ranges: Vec<(u64, u64)> = h
            .items
            .iter()
            .filter_map(|i| match i.src {
                ItemSrc::Raw { offset, len, .. } if offset < from => Some((offset, u64::from(len))),
                _ => None,
            })
            .collect();
        ranges.sort_unstable();
        Ok(Window { from, ranges })
    }

    fn candidates(&self, line: &[u8], out: &mut Vec<Candidate>) {
        let Some(rec) = Members::parse(line) else { return };
        let Some(payload) = rec.get("payload") else {
            // The 2025 bare lines: the item is the line.
            if let Ok(raw) = serde_json::from_slice::<&RawValue>(line) {
                item(line, raw, out);
            }
            return;
        };
        match rec.str("type").as_deref() {
            Some("response_item") => item(line, payload, out),
            Some("compacted") => {
                if let Some(p) = object(payload)
                    && let Some(items) = p.get("replacement_history").and_then(array)
                {
                    for i in items {
                        item(line, i, out);
                    }
                }
            }
            Some("event_msg") => {
                if let Some(p) = object(payload)
                    && p.str("type").as_deref() == Some("user_message")
                    && let Some(images) = p.get("images").and_then(array)
                {
                    out.extend(images.into_iter().filter_map(|i| candidate(line, i, true, None)));
                }
            }
            _ => {}
        }
    }

    fn text_block(&self, text: &str) -> String {
        format!(r#"{{"type":"input_text","text":{}}}"#, serde_json::Value::from(text))
    }

    /// As Codex writes an image part: the data URL only (a `detail` is not its usual form).
    fn payload_block(&self, _media: &str, content: &[u8]) -> Option<String> {
        let url = std::str::from_utf8(content).ok()?;
        url.starts_with("data:")
            .then(|| format!(r#"{{"type":"input_image","image_url":"{url}"}}"#))
    }
}

/// The payloads of one response item.
fn item(line: &[u8], raw: &RawValue, out: &mut Vec<Candidate>) {
    let Some(it) = object(raw) else { return };
    match it.str("type").as_deref() {
        Some("message") => parts(line, it.get("content"), out),
        Some("function_call_output" | "custom_tool_call_output") => parts(line, it.get("output"), out),
        Some("image_generation_call") => {
            if let Some(r) = it.get("result")
                && let Some(c) = candidate(line, r, false, Some("image/png".into()))
            {
                out.push(c);
            }
        }
        _ => {}
    }
}

fn parts(line: &[u8], content: Option<&RawValue>, out: &mut Vec<Candidate>) {
    let Some(items) = content.and_then(array) else { return };
    for p in items {
        let Some(part) = object(p) else { continue };
        match part.str("type").as_deref() {
            Some("input_image") => {
                if let Some(url) = part.get("image_url")
                    && let Some(mut c) = candidate(line, url, false, None)
                {
                    c.block = Some(span(line, p));
                    out.push(c);
                }
            }
            Some("input_text") => {
                if let Some(text) = part.get("text")
                    && let Some(c) = text_candidate(line, p, text)
                {
                    out.push(c);
                }
            }
            _ => {}
        }
    }
}
