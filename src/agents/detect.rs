//! The native formats, one module each, and detection of which one a file holds.
//!
//! Detection reads content, never the file name: the first parseable records decide.
//! A Claude Code line has a Claude record `type` or its link fields (`uuid`, `parentUuid`,
//! `sessionId`, `leafUuid`); a Codex line has an envelope (`type` + `payload`), a bare
//! pre-2025-09 header or `record_type` state line, or is a bare ResponseItem; a cctool
//! session is one JSON document with `messages` and a version field.

use serde::Deserialize;

use crate::agents::claude_code::records as claude;
use crate::agents::codex::rollout as codex;
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
    #[serde(default, rename = "parentId")]
    parent_id: Option<serde::de::IgnoredAny>,
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
    #[serde(default, rename = "projectHash")]
    project_hash: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    cwd: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    data: Option<serde::de::IgnoredAny>,
}

/// What a file that is none of cctool's formats looks like, so that a skipped file is named
/// for what it is and `--input-format` is advised only where it could help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    Empty,
    NotJson,
    /// JSON of no shape cctool knows: possibly one of its formats with unusual first records.
    OtherJson,
    GeminiChat,
    PiSession,
    CopilotEvents,
}

impl Looks {
    /// What the notice calls it.
    pub fn describe(self) -> &'static str {
        match self {
            Looks::Empty => "an empty file",
            Looks::NotJson => "not JSON",
            Looks::OtherJson => "JSON that is not a session",
            Looks::GeminiChat => "a Gemini CLI chat",
            Looks::PiSession => "a pi session",
            Looks::CopilotEvents => "a Copilot CLI event log",
        }
    }

    /// Whether the content could be one of cctool's formats, read as `--input-format` says.
    pub fn plausible(self) -> bool {
        self == Looks::OtherJson
    }
}

/// Another agent's file, told by a record only that agent writes: Gemini CLI's header
/// (`projectHash`), pi's `session` header with its `cwd`, a Copilot CLI event (`type` with a
/// dotted namespace, fields under `data`). Checked before the cctool formats: a Gemini record
/// (`type: user`) would otherwise read as Claude Code.
fn foreign(p: &Probe<'_>) -> Option<Looks> {
    let ty = p.ty.as_str();
    if p.project_hash.is_some() && p.session_id.is_some() && ty.is_none() {
        return Some(Looks::GeminiChat);
    }
    if ty == Some("session") && p.version.is_some() && p.cwd.is_some() {
        return Some(Looks::PiSession);
    }
    if ty.is_some_and(|t| t.contains('.')) && p.data.is_some() && p.payload.is_none() {
        return Some(Looks::CopilotEvents);
    }
    None
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
        // A bare ResponseItem (2025-05 to 2025-09) is a flat item: a `message` carries its own
        // `role`, and no item links to a parent. pi's entries (`type: message` wrapping a
        // `message`, linked by `parentId`) would otherwise read as a rollout.
        let bare_item = codex::is_response_item_type(ty)
            && p.payload.is_none()
            && p.parent_id.is_none()
            && (ty != "message" || p.role.is_some());
        if bare_item {
            return Some(Format::Codex);
        }
    } else if first && p.id.is_some() && p.timestamp.is_some() && p.role.is_none() {
        return Some(Format::Codex); // the bare header of a 2025 Rust rollout
    }
    None
}

/// The top-level keys of a whole-file JSON object, read without keeping any value. The
/// visitor stops as soon as the verdict is known (a session's `messages` can be gigabytes);
/// stopping makes the parse end in an error, which is ignored: the flags are what counts.
#[derive(Default)]
struct DocProbe {
    messages: bool,
    version: bool,
    session: bool,
    items: bool,
}

impl DocProbe {
    fn decided(&self) -> bool {
        (self.messages && self.version) || (self.session && self.items)
    }

    fn run<'de, D: serde::Deserializer<'de>>(d: D) -> DocProbe {
        struct V<'p>(&'p mut DocProbe);
        impl<'de> serde::de::Visitor<'de> for V<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
                while let Some(k) = a.next_key::<crate::io::json::Key<'de>>()? {
                    match k.as_ref() {
                        "messages" => self.0.messages = true,
                        "version" | "schema_version" => self.0.version = true,
                        "session" => self.0.session = true,
                        "items" => self.0.items = true,
                        _ => {}
                    }
                    if self.0.decided() {
                        return Err(serde::de::Error::custom("decided"));
                    }
                    a.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(())
            }
        }
        let mut p = DocProbe::default();
        let _ = d.deserialize_map(V(&mut p));
        p
    }
}

fn probe_document(src: &Source) -> Option<Format> {
    // In memory when it is (mapped or small), else through a buffered reader.
    if let Some(bytes) = src.as_slice() {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if !body.trim_ascii_start().starts_with(b"{") {
            return None;
        }
        return DocProbe::run(&mut serde_json::Deserializer::from_slice(body)).verdict();
    }
    let mut r = src.reader().ok()?;
    // Skip a BOM and whitespace, and require an object: a derived struct would also accept an
    // array, field by position.
    let mut first = [0u8; 1];
    let mut head = Vec::new();
    loop {
        if std::io::Read::read(&mut r, &mut first).ok()? == 0 {
            return None;
        }
        match first[0] {
            b' ' | b'\t' | b'\r' | b'\n' | 0xEF | 0xBB | 0xBF => continue,
            b'{' => {
                head.push(b'{');
                break;
            }
            _ => return None,
        }
    }
    let chained = std::io::Read::chain(&head[..], r);
    DocProbe::run(&mut serde_json::Deserializer::from_reader(chained)).verdict()
}

impl DocProbe {
    fn verdict(&self) -> Option<Format> {
        if self.messages && self.version {
            Some(Format::CctoolSession)
        } else if self.session && self.items {
            Some(Format::Codex)
        } else {
            None
        }
    }
}

/// The bytes of the first `n` lines (all of them if the file has fewer).
fn head_lines(src: &Source, n: usize) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
    if let Some(bytes) = src.as_slice() {
        let end = memchr::memchr_iter(b'\n', bytes)
            .nth(n.saturating_sub(1))
            .map_or(bytes.len(), |i| i + 1);
        return Ok(std::borrow::Cow::Borrowed(&bytes[..end]));
    }
    // A stream: read blocks until n newlines or the end of the file.
    let mut buf = Vec::new();
    let mut seen = 0usize;
    let mut at = 0u64;
    const BLOCK: u64 = 1024 * 1024;
    while at < src.len() {
        let want = (src.len() - at).min(BLOCK) as usize;
        let block = src.read_range(at, want)?;
        for i in memchr::memchr_iter(b'\n', &block) {
            seen += 1;
            if seen == n {
                buf.extend_from_slice(&block[..=i]);
                return Ok(std::borrow::Cow::Owned(buf));
            }
        }
        buf.extend_from_slice(&block);
        at += want as u64;
    }
    Ok(std::borrow::Cow::Owned(buf))
}

/// Why a file could not be classified, and what it looks like instead.
#[derive(Debug)]
pub struct Undetected(pub String, pub Looks);

/// A first line at least this long is probed as a whole-file document first.
const LONG_FIRST_LINE: usize = 1 << 16;

/// Decides the format of `src` from its first records.
pub fn detect(src: &Source) -> Result<Format, Undetected> {
    if src.is_empty() {
        return Err(Undetected("nothing to read".into(), Looks::Empty));
    }
    // A whole-file document on one long line (a cctool session written compactly) would be
    // parsed to its end by the line probe; the document probe stops at `messages`. It decides
    // only what the line probe would decide too. Files whose first line ends early (every
    // JSONL transcript) are not probed twice.
    if src
        .as_slice()
        .is_some_and(|b| memchr::memchr(b'\n', &b[..b.len().min(LONG_FIRST_LINE)]).is_none())
        && let Some(f) = probe_document(src)
    {
        return Ok(f);
    }
    let verdict = std::cell::Cell::new(None);
    let looks = std::cell::Cell::new(None);
    let mut seen = 0usize;
    let mut first_unparsed = None;
    let mut objects = 0usize;
    let mut array = false;
    let mut first = true;
    let mut probe_line = |line: Line<'_>| {
        if verdict.get().is_some() || looks.get().is_some() || seen >= PROBE_LINES {
            return;
        }
        seen += 1;
        // Only objects: a derived struct would also accept an array, field by position.
        array |= first && line.bytes.trim_ascii_start().starts_with(b"[");
        let probe = if line.bytes.trim_ascii_start().starts_with(b"{") {
            serde_json::from_slice::<Probe<'_>>(line.bytes).ok()
        } else {
            None
        };
        match probe {
            Some(p) => {
                objects += 1;
                match foreign(&p) {
                    Some(l) => looks.set(Some(l)),
                    None => verdict.set(classify_object(&p, first)),
                }
            }
            None if first_unparsed.is_none() => first_unparsed = Some(line.no),
            None => {}
        }
        first = false;
    };
    // The first PROBE_LINES whole lines, however long: a first record can hold a large tool
    // result. Only what is probed is read: a file held as one slice is split a line at a
    // time up to the verdict (nearly always the first line), not its whole head first.
    let head = match src.as_slice() {
        Some(bytes) => std::borrow::Cow::Borrowed(bytes),
        None => head_lines(src, PROBE_LINES).map_err(|e| Undetected(format!("cannot read: {e}"), Looks::OtherJson))?,
    };
    let mut stats = crate::io::LineStats::default();
    let mut from = 0usize;
    for _ in 0..PROBE_LINES {
        if verdict.get().is_some() || looks.get().is_some() || from >= head.len() {
            break;
        }
        let end = memchr::memchr(b'\n', &head[from..]).map_or(head.len(), |i| from + i + 1);
        crate::io::lines::split_chunk(from as u64, &head[from..end], true, &mut stats, &mut probe_line);
        from = end;
    }
    if let Some(f) = verdict.get() {
        return Ok(f);
    }
    if let Some(l) = looks.get() {
        return Err(Undetected(
            "cctool reads Claude Code transcripts, Codex rollouts and its own sessions".into(),
            l,
        ));
    }
    // A single JSON document (cctool session, 2025 TypeScript rollout), pretty-printed or on
    // one long line: probed with a streaming reader, so its size does not matter.
    if let Some(f) = probe_document(src) {
        return Ok(f);
    }
    Err(match first_unparsed {
        Some(n) if seen == 1 && !array => Undetected(
            format!("line {n} is not JSON, and the file is not one JSON document"),
            Looks::NotJson,
        ),
        _ if objects == 0 && !array => Undetected(format!("none of the first {seen} lines is JSON"), Looks::NotJson),
        _ => Undetected(
            format!("none of the first {seen} records looks like Claude Code, Codex or a cctool session"),
            Looks::OtherJson,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_bytes(b: &[u8]) -> Result<Format, Undetected> {
        detect(&Source::from_bytes("t", b.to_vec()))
    }

    #[test]
    fn every_codex_era() {
        // 2025 TypeScript CLI: one pretty-printed document.
        let ts = b"{\n  \"session\": {\"id\": \"x\", \"timestamp\": \"2025-05-01\"},\n  \"items\": []\n}\n";
        assert_eq!(detect_bytes(ts).unwrap(), Format::Codex);
        // 2025 Rust CLI: bare header, then state lines and bare items.
        let bare = b"{\"id\":\"x\",\"timestamp\":\"2025-08-20T13:20:47.060Z\",\"instructions\":null}\n{\"record_type\":\"state\"}\n";
        assert_eq!(detect_bytes(bare).unwrap(), Format::Codex);
        let bare_item = b"{\"type\":\"message\",\"role\":\"user\",\"content\":[]}\n";
        assert_eq!(detect_bytes(bare_item).unwrap(), Format::Codex);
        // Envelope, with and without ordinal.
        let env = b"{\"timestamp\":\"t\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n";
        assert_eq!(detect_bytes(env).unwrap(), Format::Codex);
        let pag =
            b"{\"timestamp\":\"t\",\"ordinal\":0,\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\"}}\n";
        assert_eq!(detect_bytes(pag).unwrap(), Format::Codex);
    }

    #[test]
    fn tree_logs_of_other_agents_are_not_bare_codex_items() {
        let pi = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/w\"}\n\
            {\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":[]}}\n";
        assert!(detect_bytes(pi).is_err());
        let linked = b"{\"type\":\"message\",\"role\":\"user\",\"id\":\"a2\",\"parentId\":\"a1\",\"content\":[]}\n";
        assert!(detect_bytes(linked).is_err());
    }

    #[test]
    fn other_agents_files_are_named_for_what_they_are() {
        let looks = |b: &[u8]| detect_bytes(b).unwrap_err().1;
        // Gemini CLI: a header, then records whose `type: user` alone would read as Claude Code.
        let gemini = b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"t\",\"kind\":\"main\"}\n\
            {\"id\":\"m\",\"timestamp\":\"t\",\"type\":\"user\",\"content\":[]}\n";
        assert_eq!(looks(gemini), Looks::GeminiChat);
        let pi = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/w\"}\n";
        assert_eq!(looks(pi), Looks::PiSession);
        let copilot = b"{\"type\":\"session.start\",\"data\":{},\"id\":\"e\",\"timestamp\":\"t\",\"parentId\":null}\n";
        assert_eq!(looks(copilot), Looks::CopilotEvents);
        assert_eq!(looks(b"{\"theme\":\"dark\"}\n"), Looks::OtherJson);
        assert_eq!(looks(b"[1, 2]\n"), Looks::OtherJson);
        assert_eq!(looks(b"some\nnotes\n"), Looks::NotJson);
        assert_eq!(looks(b""), Looks::Empty);
        assert!(Looks::OtherJson.plausible() && !Looks::GeminiChat.plausible() && !Looks::NotJson.plausible());
    }

    #[test]
    fn claude_code_in_any_key_order_and_after_titles() {
        let cc = b"{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u\"}\n{\"type\":\"user\",\"uuid\":\"u\"}\n";
        assert_eq!(detect_bytes(cc).unwrap(), Format::ClaudeCode);
        let meta_first = b"{\"type\":\"file-history-snapshot\",\"messageId\":\"m\"}\n";
        assert_eq!(detect_bytes(meta_first).unwrap(), Format::ClaudeCode);
        let queue = b"\xEF\xBB\xBF{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"s\"}\r\n";
        assert_eq!(detect_bytes(queue).unwrap(), Format::ClaudeCode);
    }

    #[test]
    fn long_first_lines_of_either_kind() {
        let big = "x".repeat(100_000);
        let session = format!(r#"{{"version": 1, "id": "s", "messages": [{{"role": "user", "content": "{big}"}}]}}"#);
        assert_eq!(detect_bytes(session.as_bytes()).unwrap(), Format::CctoolSession);
        let transcript = format!(
            "{{\"type\":\"user\",\"uuid\":\"u\",\"message\":{{\"role\":\"user\",\"content\":\"{big}\"}}}}\n{{\"type\":\"assistant\",\"uuid\":\"v\"}}\n"
        );
        assert_eq!(detect_bytes(transcript.as_bytes()).unwrap(), Format::ClaudeCode);
    }

    #[test]
    fn cctool_sessions_of_every_version() {
        let v1 = b"{\"version\": 1, \"id\": \"s\", \"messages\": []}";
        assert_eq!(detect_bytes(v1).unwrap(), Format::CctoolSession);
        let v5 = b"{\n  \"schema_version\": 5,\n  \"session_id\": \"s\",\n  \"messages\": []\n}\n";
        assert_eq!(detect_bytes(v5).unwrap(), Format::CctoolSession);
    }

    #[test]
    fn arrays_are_never_sessions() {
        // serde fills a derived struct from an array by position: must not be mistaken.
        let pretty = b"[\n {\n  \"role\": \"user\",\n  \"content\": \"A\"\n }\n]\n";
        assert!(detect_bytes(pretty).is_err());
        assert!(detect_bytes(b"[{\"uuid\":1},{\"type\":\"user\"},2,3,4,5,6,7,8,9,10,11,12,13,14,15]\n").is_err());
    }

    #[test]
    fn undetectable_inputs_say_why() {
        assert_eq!(detect_bytes(b"").unwrap_err().1, Looks::Empty);
        assert!(detect_bytes(b"hello\n").unwrap_err().0.contains("not JSON"));
        assert!(
            detect_bytes(b"{\"a\":1}\n{\"b\":2}\n")
                .unwrap_err()
                .0
                .contains("none of the first 2")
        );
    }
}
