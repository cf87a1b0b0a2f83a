//! Claude Code's compaction summaries (`extract-summary`): each `compact_boundary` and its
//! `isCompactSummary` user message (the one parented on the boundary, else the first after it
//! before the next boundary); the current summary is the boundary the rebuilt chain starts
//! from. Markers are found with a prefilter, and only the tail a resume loads is indexed.

use crate::chain::{Chain, Loader, Options as LoadOptions, Transcript, WalkEnd, read_from};
use crate::io::Source;
use crate::summary::*;
use serde_json::{Map, Value};

/// The text of a Claude Code summary message (`message.content`), as `extract-summary` reports it.
pub fn claude_summary_text(rec: &Value) -> Option<String> {
    rec.get("message")
        .and_then(|msg| msg.get("content"))
        .and_then(content_text)
}

/// A line that can hold a Claude Code boundary or summary, parsed.
#[derive(Clone, Debug)]
pub struct Marker {
    /// The line it is on.
    pub line: u64,
    /// Byte offset of that line in the file.
    pub offset: u64,
    /// Shared: a boundary written twice keeps its first position and its last content, and
    /// the lists built from the markers point at them instead of copying them.
    pub value: std::sync::Arc<Value>,
}

impl Marker {
    fn uuid(&self) -> Option<&str> {
        self.value.get("uuid").and_then(Value::as_str)
    }

    fn subtype(&self) -> Option<&str> {
        self.value.get("subtype").and_then(Value::as_str)
    }

    fn is_boundary(&self) -> bool {
        self.value.get("type").and_then(Value::as_str) == Some("system") && self.subtype() == Some("compact_boundary")
    }

    fn is_micro(&self) -> bool {
        self.value.get("type").and_then(Value::as_str) == Some("system")
            && self.subtype() == Some("microcompact_boundary")
    }

    fn is_summary(&self) -> bool {
        self.value.get("type").and_then(Value::as_str) == Some("user")
            && self.value.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
    }
}

/// Byte strings one of which every boundary or summary line holds.
const CLAUDE_NEEDLES: &[&[u8]] = &[b"compact_boundary", b"isCompactSummary"];

/// Parses only the lines that hold a marker. Returns those that are boundaries or summaries,
/// and the count of marker lines that could not be parsed.
pub fn claude_markers(src: &Source) -> std::io::Result<(Vec<Marker>, u64)> {
    let mut out = Vec::new();
    let mut bad = 0u64;
    crate::io::lines::for_each_marker_line(src, CLAUDE_NEEDLES, |line| match parse_line(line.bytes) {
        Some(value) => {
            let mut m = Marker {
                line: line.no,
                offset: line.offset,
                value: std::sync::Arc::new(value),
            };
            if m.is_boundary() || m.is_micro() || m.is_summary() {
                let value = std::mem::take(std::sync::Arc::make_mut(&mut m.value));
                m.value = std::sync::Arc::new(kept_fields(value));
                out.push(m);
            }
        }
        None => bad += 1,
    })?;
    Ok((out, bad))
}

/// The fields of a marker that summaries are made of. A file can hold tens of thousands of
/// markers, each kept until its summary is written: its envelope fields (cwd, version,
/// branch…) would cost more than its summary text.
fn kept_fields(v: Value) -> Value {
    const KEPT: &[&str] = &[
        "type",
        "subtype",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "timestamp",
        "sessionId",
        "compactMetadata",
        "microcompactMetadata",
        "isCompactSummary",
    ];
    let Value::Object(o) = v else { return v };
    let mut kept = Map::new();
    for (k, v) in o {
        if KEPT.contains(&k.as_str()) {
            kept.insert(k, v);
        } else if k == "message"
            && let Value::Object(mut m) = v
            && let Some(content) = m.remove("content")
        {
            kept.insert(k, Value::Object(Map::from_iter([("content".into(), content)])));
        }
    }
    Value::Object(kept)
}

fn parse_line(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .or_else(|| crate::io::json::repair_surrogates(bytes).and_then(|b| serde_json::from_slice(&b).ok()))
}

/// Which boundary the next resume starts from.
#[derive(Debug, Default)]
pub struct Current {
    /// The uuid of that boundary, if the file has one.
    pub boundary_uuid: Option<String>,
    /// The rebuilt chain starts at that boundary (else it is only the last one in the file).
    pub reached: bool,
    /// Where the parent walk stopped, when the chain was rebuilt.
    pub end: Option<WalkEnd>,
    /// The whole transcript, when it had to be loaded.
    pub transcript: Option<Transcript>,
    /// Loaded only from the last boundary on (see [`claude_current`]).
    pub from_tail: bool,
    /// Which logical parents of the boundaries are uuids of transcript messages, when the
    /// pass that checked the tail's uuids found that too (see [`uuids_in_file`]).
    pub resolved: Option<rustc_hash::FxHashSet<String>>,
}

/// Boundaries deduplicated as the loader's map does: first position, last content.
/// A map from uuid to position, so a file of 50,000 boundaries costs 50,000 lookups, not
/// 50,000 scans of what came before.
fn dedup_boundaries(markers: &[Marker]) -> Vec<Marker> {
    let mut out: Vec<Marker> = Vec::new();
    let mut at: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for m in markers.iter().filter(|m| m.is_boundary()) {
        match m.uuid().and_then(|u| at.get(u)) {
            Some(&i) => out[i].value = m.value.clone(),
            None => {
                if let Some(u) = m.uuid() {
                    at.insert(u, out.len());
                }
                out.push(m.clone());
            }
        }
    }
    out
}

/// The transcript from the last boundary on, and the chain the current loader (2.1.332)
/// rebuilds from it, when that is provably the chain of the whole file: no preserved segment
/// anywhere, and the chain starts at that boundary without bridging a gap, its tip chosen
/// among these rows — the boundary's null parent ends every walk through it, so nothing
/// written before it can change the answer. None: the whole file must be read.
pub fn resume_tail(src: &Source, markers: &[Marker]) -> std::io::Result<Option<(Transcript, Chain)>> {
    Ok(resume_tail_resolving(src, markers, false)?.map(|(t, chain, _)| (t, chain)))
}

/// [`resume_tail`], and when `resolve` and a pass over the file checks the tail's uuids (a
/// preserved segment anywhere), which logical parents of the boundaries resolve, found in that
/// pass instead of one of their own ([`uuids_in_file`]).
#[allow(clippy::type_complexity)]
fn resume_tail_resolving(
    src: &Source,
    markers: &[Marker],
    resolve: bool,
) -> std::io::Result<Option<(Transcript, Chain, Option<rustc_hash::FxHashSet<String>>)>> {
    let boundaries = dedup_boundaries(markers);
    let Some(last) = boundaries.last() else {
        return Ok(None);
    };
    let segment_of = |b: &Marker| b.value.pointer("/compactMetadata/preservedSegment").cloned();
    let any_segment = boundaries.iter().any(|b| segment_of(b).is_some());
    // A live segment's messages were written before its boundary: start at the first of them.
    let live = segment_of(last);
    let (offset, line) = match &live {
        None => (last.offset, last.line),
        Some(seg) => {
            let Some(start) = seg
                .get("headUuid")
                .and_then(Value::as_str)
                .and_then(|head| record_start(src, head, last.offset, markers))
            else {
                return Ok(None);
            };
            start
        }
    };
    let t = read_from(src, offset, line, &mut |_| {})?;
    let chain = t.rebuild(&LoadOptions::default()).unwrap_or_default();
    let starts_here = chain
        .positions
        .first()
        .is_some_and(|&p| t.node(p).is_boundary() && Some(t.uuid_text(p).as_str()) == last.uuid());
    let mut sound = starts_here
        && chain.end == Some(WalkEnd::Boundary)
        && chain.bridges.is_empty()
        && chain.tip_local
        && (live.is_none() || chain.relinked);
    // A segment anywhere prunes what precedes the last boundary by first position: a uuid
    // written again after `offset` would be pruned there, so none may have been written before.
    let mut resolved = None;
    if sound && any_segment {
        let logical = logical_parents(&boundaries);
        let (found, left) = match resolve {
            true => uuids_near(src, &logical)?,
            false => Default::default(),
        };
        let (before, also) = uuids_before(src, &t, offset, &left);
        sound = !before;
        resolved = resolve.then(|| found.into_iter().chain(also).collect());
    }
    Ok(sound.then_some((t, chain, resolved)))
}

/// The logical parents the boundaries name (not empty), each with its boundary's offset.
fn logical_parents(boundaries: &[Marker]) -> Vec<(&str, u64)> {
    boundaries
        .iter()
        .filter_map(|b| Some((b.value.get("logicalParentUuid")?.as_str()?, b.offset)))
        .filter(|(u, _)| !u.is_empty())
        .collect()
}

/// Byte offset and line number of the record with `uuid`, searched backwards from `before`
/// (only in a file held as one slice). The line is counted from the last of `markers` (in
/// file order, each numbered) at or before the record, else from the start of the file.
fn record_start(src: &Source, uuid: &str, before: u64, markers: &[Marker]) -> Option<(u64, u64)> {
    let bytes = src.as_slice()?;
    let key = format!("\"uuid\":\"{uuid}\"");
    let end = (before as usize).min(bytes.len());
    let found = memchr::memmem::rfind(&bytes[..end], key.as_bytes());
    // The backward search touched everything from the match (or the start) to `before`.
    let touched = found.unwrap_or(0);
    src.done_with(touched as u64, (end - touched) as u64);
    let at = found?;
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    // A marker's line holds no newline before its offset (only a BOM can be there), so the
    // lines before `start` are those before the marker's and the newlines from it on.
    let known = markers[..markers.partition_point(|m| m.offset <= start as u64)].last();
    if let Some(m) = known {
        let newlines = memchr::memchr_iter(b'\n', &bytes[m.offset as usize..start]).count() as u64;
        return Some((start as u64, m.line + newlines));
    }
    // Counted on every core, window by window, releasing the pages behind.
    let lines: u64 = src
        .par_windows(|base, chunk, _| {
            let upto = (start as u64).saturating_sub(base).min(chunk.len() as u64) as usize;
            memchr::memchr_iter(b'\n', &chunk[..upto]).count() as u64
        })?
        .ok()?
        .iter()
        .sum();
    Some((start as u64, lines + 1))
}

/// Whether any uuid of `t` is written as a `"uuid"` before byte `offset` (true when that
/// cannot be checked); and, in the same pass over every `"uuid"` field of the file, which of
/// `wanted` are uuids of transcript messages ([`holds_message`]), as [`uuids_in_file`]'s pass
/// finds them.
fn uuids_before(
    src: &Source,
    t: &Transcript,
    offset: u64,
    wanted: &rustc_hash::FxHashSet<&str>,
) -> (bool, rustc_hash::FxHashSet<String>) {
    let ours: rustc_hash::FxHashSet<String> = (0..t.nodes.len() as u32).map(|p| t.uuid_text(p)).collect();
    let found = src.par_windows(|base, chunk, _| {
        let before = (offset.saturating_sub(base) as usize).min(chunk.len());
        let mut hit = false;
        let mut found: Vec<String> = Vec::new();
        let fields = if wanted.is_empty() { &chunk[..before] } else { chunk };
        for (at, u) in uuid_fields(fields) {
            hit = hit || (at < before && ours.contains(u));
            if hit && wanted.is_empty() {
                break;
            }
            if wanted.contains(u) && !found.iter().any(|f| f == u) {
                let start = memchr::memrchr(b'\n', &chunk[..at]).map_or(0, |i| i + 1);
                let end = memchr::memchr(b'\n', &chunk[at..]).map_or(chunk.len(), |i| at + i);
                if holds_message(&chunk[start..end], u) {
                    found.push(u.to_string());
                }
            }
        }
        (hit, found)
    });
    match found {
        Some(Ok(windows)) => {
            let hit = windows.iter().any(|(h, _)| *h);
            (hit, windows.into_iter().flat_map(|(_, f)| f).collect())
        }
        _ => (true, Default::default()),
    }
}

/// Decides the current boundary. With the current loader and no preserved segment anywhere,
/// the lines from the last boundary on are loaded first: if that chain starts at this
/// boundary without bridging a gap, and its tip choice did not depend on older rows, nothing
/// written before the boundary can change the answer (the boundary's null parent ends every
/// walk through it). Otherwise the whole file is loaded.
pub fn claude_current(src: &Source, markers: &[Marker], loader: Loader) -> std::io::Result<Current> {
    let boundaries = dedup_boundaries(markers);
    let Some(last) = boundaries.last() else {
        return Ok(Current::default());
    };
    if loader == Loader::V2_1_332
        && let Some((_, chain, resolved)) = resume_tail_resolving(src, markers, true)?
    {
        return Ok(Current {
            boundary_uuid: last.uuid().map(str::to_string),
            reached: true,
            end: chain.end,
            transcript: None,
            from_tail: true,
            resolved,
        });
    }
    let t = crate::chain::read(src)?;
    let chain = t
        .rebuild(&LoadOptions {
            loader,
            ..LoadOptions::default()
        })
        .unwrap_or_default();
    let first = chain.positions.first().copied().filter(|&p| t.node(p).is_boundary());
    Ok(Current {
        boundary_uuid: first
            .map(|p| t.uuid_text(p))
            .or_else(|| last.uuid().map(str::to_string)),
        reached: first.is_some(),
        end: chain.end,
        transcript: Some(t),
        from_tail: false,
        resolved: None,
    })
}

/// The `"uuid"` values written in `bytes`, with where each is: the key, optional spaces, a
/// colon, optional spaces, then the string (written by any JSON encoder, spaced or not).
fn uuid_fields(bytes: &[u8]) -> impl Iterator<Item = (usize, &str)> {
    memchr::memmem::find_iter(bytes, b"\"uuid\"").filter_map(move |at| {
        let mut i = at + 6;
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if bytes.get(i) != Some(&b'"') {
            return None;
        }
        let rest = &bytes[i + 1..];
        let end = memchr::memchr(b'"', rest)?;
        std::str::from_utf8(&rest[..end]).ok().map(|u| (at, u))
    })
}

/// Which of `wanted` (each a uuid and the offset of the boundary that names it) are uuids of
/// transcript messages in the file: from the loaded map when there is one, else from the
/// file. A boundary's logical parent is nearly always a message shortly before it, so the
/// lines holding a wanted uuid's text in the [`NEAR`] bytes before its boundary are checked
/// first; the uuids not found there are looked for in one pass over the file. Either way a
/// line counts when it holds a wanted `"uuid"` and parses as a transcript message with it
/// ([`holds_message`]), so the answer is the pass's over every line.
fn uuids_in_file(
    src: &Source,
    transcript: Option<&Transcript>,
    wanted: &[(&str, u64)],
) -> std::io::Result<rustc_hash::FxHashSet<String>> {
    if let Some(t) = transcript {
        return Ok(wanted
            .iter()
            .filter(|(u, _)| t.find(u).is_some())
            .map(|(u, _)| u.to_string())
            .collect());
    }
    let (mut found, wanted) = uuids_near(src, wanted)?;
    if wanted.is_empty() {
        return Ok(found);
    }
    // A few uuids are searched for by their own text, found on few lines; every line holds a
    // `"uuid"` field, and reading each one's value cost most of the pass. A line counts the
    // same either way: it holds the uuid's text wherever it writes it as its `"uuid"`.
    let texts: Option<Vec<&str>> =
        (wanted.len() <= BY_TEXT_MAX && !wanted.contains("")).then(|| wanted.iter().copied().collect());
    let search = texts.as_ref().map(|texts| {
        let bytes: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        crate::io::needles::Needles::texts(&bytes, b'-')
    });
    src.for_each_chunk(|_, chunk, _| {
        let hits: Vec<(usize, &str)> = match (&texts, &search) {
            (Some(texts), Some(search)) => search
                .find_all(chunk)
                .into_iter()
                .flat_map(|at| {
                    texts
                        .iter()
                        .filter(move |t| chunk[at..].starts_with(t.as_bytes()))
                        .map(move |t| (at, *t))
                })
                .collect(),
            _ => uuid_fields(chunk).filter(|(_, u)| wanted.contains(u)).collect(),
        };
        for (hit, uuid) in hits {
            if found.contains(uuid) {
                continue;
            }
            let start = memchr::memrchr(b'\n', &chunk[..hit]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &chunk[hit..]).map_or(chunk.len(), |i| hit + i);
            if holds_message(&chunk[start..end], uuid) {
                found.insert(uuid.to_string());
            }
        }
    })?;
    Ok(found)
}

/// The first half of [`uuids_in_file`]: which of `wanted` are found as messages in the
/// [`NEAR`] bytes before their boundaries, and the others, left for a pass over the file.
#[allow(clippy::type_complexity)]
fn uuids_near<'w>(
    src: &Source,
    wanted: &[(&'w str, u64)],
) -> std::io::Result<(rustc_hash::FxHashSet<String>, rustc_hash::FxHashSet<&'w str>)> {
    let mut found = rustc_hash::FxHashSet::default();
    if let Some(bytes) = src.as_slice() {
        // Uuids that resolve nowhere must not cost a window each over and over (a file of
        // 50,000 boundaries): past twice the file's bytes searched, the pass does the rest.
        let mut budget = 2 * bytes.len() + 8 * NEAR;
        for &(uuid, before) in wanted {
            if uuid.is_empty() || found.contains(uuid) {
                continue;
            }
            let end = (before as usize).min(bytes.len());
            let start = end.saturating_sub(NEAR);
            if budget < end - start {
                break;
            }
            let near = &bytes[start..end];
            let _release = Release(src, start as u64, (end - start) as u64);
            let mut searched = near.len();
            for at in memchr::memmem::rfind_iter(near, uuid.as_bytes()) {
                let at = start + at;
                let from = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
                let to = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                if holds_message(&bytes[from..to], uuid) {
                    found.insert(uuid.to_string());
                    searched = end.saturating_sub(from);
                    break;
                }
            }
            budget -= searched.min(budget);
        }
        src.check()?;
    }
    let left = wanted.iter().map(|&(u, _)| u).filter(|u| !found.contains(*u)).collect();
    Ok((found, left))
}

/// How far before a boundary its logical parent is looked for first.
const NEAR: usize = 256 * 1024;
/// Up to this many uuids left for the pass are searched for by their text (their dashes,
/// found at every uuid, are not what the search compares first); more, by every `"uuid"` field.
const BY_TEXT_MAX: usize = 32;

/// Releases the mapped pages of a range once it was searched (a file of many boundaries
/// would otherwise keep every window it looked at resident).
struct Release<'s>(&'s Source, u64, u64);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.done_with(self.1, self.2);
    }
}

/// Whether `line` writes `uuid` as a `"uuid"` and is a transcript message with that uuid.
fn holds_message(line: &[u8], uuid: &str) -> bool {
    uuid_fields(line).any(|(_, u)| u == uuid)
        && serde_json::from_slice::<Value>(line).is_ok_and(|v| {
            v.get("uuid").and_then(Value::as_str) == Some(uuid)
                && v.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(crate::records::is_transcript_type)
        })
}

/// Which summary message a compact boundary takes, of a file's summary messages (each its
/// line and `parentUuid`, in file order): the first parented on it, else the first written
/// after it and before the next boundary. Built once, each lookup costs a hash and a
/// bisection, so a file of 50,000 compactions is not a pass over its summaries per boundary.
pub struct SummaryIndex {
    lines: Vec<u64>,
    by_parent: rustc_hash::FxHashMap<String, usize>,
    /// The lines of every boundary, sorted: where the summary of the one before may be.
    boundaries: Vec<u64>,
}

impl SummaryIndex {
    /// Indexes `summaries` (each its line and `parentUuid`, in file order) against the lines
    /// of the file's compact boundaries, in file order.
    pub fn new<'a>(
        summaries: impl Iterator<Item = (u64, Option<&'a str>)>,
        boundary_lines: impl Iterator<Item = u64>,
    ) -> SummaryIndex {
        let mut index = SummaryIndex {
            lines: Vec::new(),
            by_parent: Default::default(),
            boundaries: boundary_lines.collect(),
        };
        index.boundaries.sort_unstable();
        for (i, (line, parent)) in summaries.enumerate() {
            index.lines.push(line);
            if let Some(p) = parent {
                index.by_parent.entry(p.to_string()).or_insert(i);
            }
        }
        index
    }

    /// The summary of the boundary `uuid` on `line`: its index, and `parent` or `fallback`.
    pub fn of(&self, uuid: Option<&str>, line: u64) -> Option<(usize, &'static str)> {
        let by_parent = uuid.and_then(|u| self.by_parent.get(u)).map(|&i| (i, "parent"));
        by_parent.or_else(|| self.after(line).map(|i| (i, "fallback")))
    }

    /// The first summary written after the boundary on `line` and before the next boundary.
    pub fn after(&self, line: u64) -> Option<usize> {
        let next = self
            .boundaries
            .get(self.boundaries.partition_point(|&l| l <= line))
            .copied()
            .unwrap_or(u64::MAX);
        let i = self.lines.partition_point(|&l| l <= line);
        self.lines.get(i).filter(|&&l| l < next).map(|_| i)
    }
}

/// Claude Code: every compact boundary with its summary, in file order.
pub fn claude(
    src: &Source,
    markers: &[Marker],
    current: &Current,
    opts: Options,
) -> std::io::Result<Vec<SummaryRecord>> {
    let boundaries = dedup_boundaries(markers);
    // Markers come in file order, so both lists are sorted by line; looked up by bisection
    // and by map, each boundary costs a logarithm, not a pass over the file's markers.
    let summaries: Vec<&Marker> = markers.iter().filter(|m| m.is_summary()).collect();
    let by_boundary = SummaryIndex::new(
        summaries
            .iter()
            .map(|s| (s.line, s.value.get("parentUuid").and_then(Value::as_str))),
        boundaries.iter().map(|b| b.line),
    );
    let session_id = markers.iter().find_map(|m| str_of(&m.value, "sessionId"));
    let file = src.name().to_string();
    let mut out = Vec::new();
    let mut events: Vec<&Marker> = boundaries.iter().collect();
    if opts.all_events {
        events.extend(markers.iter().filter(|m| m.is_micro()));
        events.sort_by_key(|m| m.line);
    }
    let logical = logical_parents(&boundaries);
    let resolved = match &current.resolved {
        Some(r) => r.clone(),
        None => uuids_in_file(src, current.transcript.as_ref(), &logical)?,
    };
    let mut index = 0;
    for m in events {
        let v = &m.value;
        let mut rec = SummaryRecord {
            kind: "summary",
            file: file.clone(),
            format: "claude-code",
            session_id: session_id.clone(),
            line: Some(m.line),
            timestamp: str_of(v, "timestamp"),
            boundary_uuid: m.uuid().map(str::to_string),
            ..SummaryRecord::default()
        };
        if m.is_micro() {
            rec.kind = "event";
            rec.event = "microcompact_boundary";
            let meta = v.get("microcompactMetadata").cloned();
            rec.trigger = meta.as_ref().and_then(|m| str_of(m, "trigger"));
            rec.pre_tokens = meta.as_ref().and_then(|m| m.get("preTokens")).and_then(Value::as_i64);
            rec.metadata = meta;
            out.push(rec);
            continue;
        }
        rec.event = "compact_boundary";
        rec.index = index;
        index += 1;
        rec.origin = Some("local");
        rec.current = rec.boundary_uuid.is_some() && rec.boundary_uuid == current.boundary_uuid;
        if let Some(Value::Object(meta)) = v.get("compactMetadata") {
            rec.trigger = meta.get("trigger").and_then(Value::as_str).map(str::to_string);
            rec.pre_tokens = meta.get("preTokens").and_then(Value::as_i64);
            let rest: Map<String, Value> = meta
                .iter()
                .filter(|(k, _)| *k != "trigger" && *k != "preTokens")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            rec.metadata = Some(Value::Object(rest));
        }
        rec.logical_parent_resolves = match v.get("logicalParentUuid").and_then(Value::as_str) {
            Some(lp) if !lp.is_empty() => Some(resolved.contains(lp)),
            _ => None,
        };
        let found = by_boundary.of(m.uuid(), m.line).map(|(i, how)| (summaries[i], how));
        match found {
            Some((s, source)) => {
                let text = claude_summary_text(&s.value);
                rec.summary = text.map(|x| if opts.strip_template { template::strip(&x) } else { x });
                rec.summary_line = Some(s.line);
                rec.summary_source = Some(source);
            }
            None => rec.warning = Some("no summary message follows this boundary".into()),
        }
        if rec.current && !current.reached {
            let why = match &current.end {
                Some(WalkEnd::Dangling(u)) => format!("the walk stopped at a missing parent ({u})"),
                Some(WalkEnd::Cycle) => "the walk stopped at a parent cycle".to_string(),
                Some(WalkEnd::Empty) => "there is no message to resume from".to_string(),
                _ => "the walk ended before any boundary".to_string(),
            };
            rec.warning = Some(format!(
                "the resumed chain does not reach a compact boundary ({why}); this is the last boundary in the file"
            ));
        }
        out.push(rec);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
