//! Where payloads sit in a Claude Code transcript, for `cctool slim` (`docs/slim.md`).
//!
//! Images and documents are sent as `image` / `document` blocks with a base64 `source`, in a
//! message's content or inside a `tool_result`'s content. The same bytes are kept again, for
//! the client's own display, in the row's `toolUseResult` (a Read of an image: `file.base64`)
//! and in progress rows' copies of a subagent's messages; the client never sends those.

use std::io;

use serde_json::value::RawValue;

use super::chain::{self, Options};
use crate::io::Source;
use crate::io::json::Members;
use crate::slim::json::{array, candidate, object, string};
use crate::slim::{Candidate, Slimmer, Window, json};

pub struct ClaudeCodeSlim;

/// Copies nested deeper than this are not looked into (real ones are two or three deep).
const COPY_DEPTH: usize = 8;

impl Slimmer for ClaudeCodeSlim {
    /// A resume starts at the last compact boundary: every row from there on counts as
    /// loaded (also rows of other branches, which `/rewind` or a fork may still load), and so
    /// do the rows before it that the chain loads (a preserved segment).
    fn window(&self, src: &Source) -> io::Result<Window> {
        let t = chain::read(src)?;
        let Some(from) = t.nodes.iter().filter(|n| n.is_boundary()).map(|n| n.offset).max() else {
            return Ok(Window::default());
        };
        let Ok(c) = t.rebuild(&Options::default()) else {
            return Ok(Window::default());
        };
        let mut ranges: Vec<(u64, u64)> = c
            .positions
            .iter()
            .map(|&p| t.node(p))
            .filter(|n| n.offset < from)
            .map(|n| (n.offset, n.len))
            .collect();
        ranges.sort_unstable();
        Ok(Window { from, ranges })
    }

    fn candidates(&self, line: &[u8], out: &mut Vec<Candidate>) {
        let Some(row) = Members::parse(line) else { return };
        for (k, v) in row.iter() {
            match k {
                "message" => {
                    if let Some(m) = object(v)
                        && let Some(content) = m.get("content")
                    {
                        blocks(line, content, 2, out);
                    }
                }
                "toolUseResult" | "data" => json::all_strings(line, v, COPY_DEPTH, true, out),
                _ => {}
            }
        }
    }
}

/// The payloads of content blocks: images and documents, also inside tool results.
fn blocks(line: &[u8], content: &RawValue, depth: usize, out: &mut Vec<Candidate>) {
    let Some(items) = array(content) else { return };
    for b in items {
        let Some(block) = object(b) else { continue };
        match block.str("type").as_deref() {
            Some("image" | "document") => {
                if let Some(source) = block.get("source").and_then(object)
                    && source.str("type").as_deref() == Some("base64")
                    && let Some(data) = source.get("data")
                    && let Some(c) = candidate(line, data, false, source.get("media_type").and_then(string))
                {
                    out.push(c);
                }
            }
            Some("tool_result") if depth > 1 => {
                if let Some(inner) = block.get("content") {
                    blocks(line, inner, depth - 1, out);
                }
            }
            _ => {}
        }
    }
}
