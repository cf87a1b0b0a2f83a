//! Where payloads sit in a Claude Code transcript, for `cctool slim` (`docs/slim.md`).
//!
//! Images and documents are sent as `image` / `document` blocks with a base64 `source`, in a
//! message's content or inside a `tool_result`'s content. The same bytes are kept again, for
//! the client's own display, in the row's `toolUseResult` (a Read of an image: `file.base64`)
//! and in progress rows' copies of a subagent's messages; the client never sends those.

use std::io;

use serde_json::value::RawValue;

use super::chain::{self, Chain, Options, Transcript};
use crate::io::Source;
use crate::io::json::Members;
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::slim::json::{array, candidate, object, string, text_candidate};
use cctool_core::slim::payload::size_text;
use cctool_core::slim::{Candidate, Slimmer, Window, json};

/// The Claude Code transcript passes of `slim`.
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
        let progress = row.str("type").as_deref() == Some("progress");
        for (k, v) in row.iter() {
            match k {
                "message" => {
                    if let Some(m) = object(v)
                        && let Some(content) = m.get("content")
                    {
                        blocks(line, content, 2, out);
                    }
                }
                "toolUseResult" => json::all_strings(line, v, COPY_DEPTH, true, out),
                // A progress row's copy of a subagent's messages: never sent.
                "data" if progress => json::all_strings(line, v, COPY_DEPTH, true, out),
                _ => {}
            }
        }
    }

    fn text_block(&self, text: &str) -> String {
        format!(r#"{{"type":"text","text":{}}}"#, serde_json::Value::from(text))
    }

    /// As the client writes a pasted or read image (or a PDF): `source` after `type`, the
    /// data last.
    fn payload_block(&self, media: &str, content: &[u8]) -> Option<String> {
        let ty = match media {
            "application/pdf" => "document",
            m if m.starts_with("image/") => "image",
            _ => return None,
        };
        let data = std::str::from_utf8(content).ok()?;
        Some(format!(
            r#"{{"type":"{ty}","source":{{"type":"base64","media_type":"{media}","data":"{data}"}}}}"#
        ))
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
                    && let Some(mut c) = candidate(line, data, false, source.get("media_type").and_then(string))
                {
                    c.block = Some(json::span(line, b));
                    out.push(c);
                }
            }
            Some("text") => {
                if let Some(text) = block.get("text")
                    && let Some(c) = text_candidate(line, b, text)
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

/// The API's limit on the size of one request (Anthropic's Messages API: 32 MB).
pub const REQUEST_LIMIT: u64 = 32_000_000;

/// Claude Code does not load a subagent transcript larger than this on resume.
pub const SUBAGENT_LIMIT: u64 = 5 * 1024 * 1024;

/// The bytes of the `messages` a resume sends (`rebuild-chain --api-view`).
pub fn request_bytes(view: &super::api::ApiView) -> u64 {
    view.bytes() as u64
}

/// `doctor`'s payload findings: a request over the API's limit, a subagent transcript too
/// large to be loaded.
pub fn doctor_findings(
    t: &Transcript,
    chain: &Chain,
    src: &Source,
    resume: &super::config::Overrides,
) -> io::Result<Vec<Diagnostic>> {
    let mut out = Vec::new();
    let finding = |line: Option<u64>, code: Code, severity: Severity, message: String| Diagnostic {
        kind: "finding",
        ..Diagnostic::new(t.file.as_str(), line, code, severity, message)
    };
    if src.len() > SUBAGENT_LIMIT && super::subagents::is_subagent_path(src.name()) {
        out.push(finding(
            None,
            Code::SubagentTooLarge,
            Severity::Warning,
            format!(
                "a subagent transcript of {} ({} bytes), over the 5 MiB Claude Code loads on resume: it is skipped; `cctool slim` takes its duplicated payloads out (docs/slim.md)",
                size_text(src.len()),
                src.len()
            ),
        ));
    }
    // The rows loaded are an upper bound of what is sent (they also hold the envelope and the
    // display copies): the request is built only when they could exceed the limit.
    let start = chain
        .positions
        .iter()
        .rposition(|&p| t.node(p).is_boundary())
        .map_or(0, |i| i + 1);
    let loaded: u64 = chain.positions[start..].iter().map(|&p| t.node(p).len).sum();
    if loaded <= REQUEST_LIMIT {
        return Ok(out);
    }
    let rm = super::model::choose_for(t, chain, src, resume)?;
    let Ok(view) = super::api::api_view(t, chain, src, None, &rm) else {
        return Ok(out);
    };
    let bytes = request_bytes(&view);
    if bytes > REQUEST_LIMIT {
        // Images and documents are what slim can take out; text only a compaction can.
        let repair = if view.messages().any(|m| m.contains(r#""type":"base64""#)) {
            "`cctool slim --images all --extract DIR` replaces the images in them with text placeholders (docs/slim.md)"
        } else {
            "they are text, which `cctool compact` summarises (docs/compaction.md)"
        };
        let line = chain.positions.get(start).map(|&p| t.node(p).line);
        out.push(finding(
            line,
            Code::RequestTooLarge,
            Severity::Error,
            format!(
                "the messages a resume sends take {} ({bytes} bytes), over the API's 32 MB request limit (32000000 bytes): Claude Code cannot resume this session; {repair}",
                size_text(bytes)
            ),
        ));
    }
    Ok(out)
}
