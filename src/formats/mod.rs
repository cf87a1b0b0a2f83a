//! The native formats, one module each, and detection of which one a file holds.
//!
//! Detection reads content, never the file name: the first parseable records decide.
//! A Claude Code line has a Claude record `type` or its link fields (`uuid`, `parentUuid`,
//! `sessionId`, `leafUuid`); a Codex line has an envelope (`type` + `payload`), a bare
//! pre-2025-09 header or `record_type` state line, or is a bare ResponseItem; a cctool
//! session is one JSON document with `messages` and a version field.

pub mod claude;
pub mod codex;
pub mod session;

use serde::Deserialize;

use crate::io::json::LStr;
use crate::io::{Line, Source};
use crate::model::Format;

/// How many non-blank lines detection looks at before giving up.
const PROBE_LINES: usize = 64;

#[derive(Deserialize, Default)]
struct Probe<'a> {
    #[serde(borrow, default, rename = "type")]
    ty: LStr<'a>,
    #[serde(default)]
    payload: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    record_type: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    uuid: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "parentUuid")]
    parent_uuid: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<serde::de::IgnoredAny>,
    #[serde(default, rename = "leafUuid")]
    leaf_uuid: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    messages: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    version: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    schema_version: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    session: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    items: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    id: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    timestamp: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    role: Option<serde::de::IgnoredAny>,
}

/// The verdict on one JSON object.
fn classify_object(p: &Probe<'_>, first: bool) -> Option<Format> {
    if p.messages.is_some() && (p.version.is_some() || p.schema_version.is_some()) {
        return Some(Format::CctoolSession);
    }
    if p.session.is_some() && p.items.is_some() {
        return Some(Format::Codex); // the 2025 TypeScript CLI's single-document rollout
    }
    let ty = p.ty.as_str();
    if p.payload.is_some() && ty.is_some_and(codex::is_rollout_type) {
        return Some(Format::Codex);
    }
    if p.record_type.is_some() {
        return Some(Format::Codex);
    }
    if let Some(ty) = ty {
        if claude::is_known_type(ty) && ty != "summary"
            || p.uuid.is_some()
            || p.parent_uuid.is_some()
            || p.session_id.is_some()
        {
            return Some(Format::ClaudeCode);
        }
        if ty == "summary" && p.leaf_uuid.is_some() {
            return Some(Format::ClaudeCode);
        }
        if codex::is_response_item_type(ty) && p.payload.is_none() {
            return Some(Format::Codex); // a bare ResponseItem (2025-05 to 2025-09)
        }
    } else if first && p.id.is_some() && p.timestamp.is_some() && p.role.is_none() {
        return Some(Format::Codex); // the bare header of a 2025 Rust rollout
    }
    None
}

/// Why a file could not be classified.
#[derive(Debug)]
pub struct Undetected(pub String);

/// Decides the format of `src` from its first records.
pub fn detect(src: &Source) -> Result<Format, Undetected> {
    if src.is_empty() {
        return Err(Undetected("empty file".into()));
    }
    let mut verdict = None;
    let mut seen = 0usize;
    let mut first_unparsed = None;
    let mut first = true;
    let mut probe_line = |line: Line<'_>| {
        if verdict.is_some() || seen >= PROBE_LINES {
            return;
        }
        seen += 1;
        match serde_json::from_slice::<Probe<'_>>(line.bytes) {
            Ok(p) => verdict = classify_object(&p, first),
            Err(_) if first_unparsed.is_none() => first_unparsed = Some(line.no),
            Err(_) => {}
        }
        first = false;
    };
    // Only the head of the file is needed; a slice avoids reading a whole stream.
    match src.as_slice() {
        Some(bytes) => {
            let head = &bytes[..bytes.len().min(64 * 1024 * 1024)];
            let mut stats = crate::io::LineStats::default();
            crate::io::lines::split_chunk(0, head, head.len() == bytes.len(), &mut stats, &mut probe_line);
        }
        None => {
            let head = src
                .read_range(0, src.len().min(16 * 1024 * 1024) as usize)
                .map_err(|e| Undetected(format!("cannot read: {e}")))?;
            let mut stats = crate::io::LineStats::default();
            crate::io::lines::split_chunk(0, &head, false, &mut stats, &mut probe_line);
        }
    }
    if let Some(f) = verdict {
        return Ok(f);
    }
    // A pretty-printed single document (cctool session, 2025 TypeScript rollout).
    if let Some(bytes) = src.as_slice() {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if let Ok(p) = serde_json::from_slice::<Probe<'_>>(body)
            && let Some(f) = classify_object(&p, true)
        {
            return Ok(f);
        }
    }
    Err(Undetected(match first_unparsed {
        Some(n) if seen == 1 => format!("line {n} is not JSON, and the file is not one JSON document"),
        _ => format!("none of the first {seen} records looks like Claude Code, Codex or a cctool session"),
    }))
}
