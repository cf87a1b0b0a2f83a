//! The conversation Claude Code loads from a transcript.
//!
//! Two loaders are emulated (`docs/claude-code.md`):
//! - 2.1.88 (`docs/claude-code.md#the-2188-load-algorithm`): progress bridging,
//!   first-position/last-content duplicates, preserved-segment relinks and prunes, snip
//!   removals, leaves, the newest-leaf tip, the parent walk with cycle protection, and
//!   parallel tool-result recovery placed after the group's last chain member;
//! - 2.1.332 (`docs/claude-code.md#what-21332-changes`), the current client: the same
//!   without snip removals, with B1 (a broken or cyclic parent link is bridged to the newest
//!   earlier entry at most 5 s older), B2 (recovered parallel calls merged in file order), B3
//!   (system and attachment rows under the tip appended) and B4 (the tip starts from the
//!   last row written).
//!
//! The index keeps offsets and a few flags per record, never bodies, so a multi-GB file
//! needs memory in proportion to its number of records. The >5 MiB pre-compact skip of the
//! real client is deliberately not emulated: it only changes which files it can load fast.

use std::collections::VecDeque;
use std::io;

use rustc_hash::{FxHashMap, FxHashSet};

use super::intern::Interner;
use crate::agents::claude_code::records::{Envelope, is_known_type};
use crate::io::json::{LBool, LStr, with_parsed_borrowed};
use crate::io::lines::{LineStats, split_chunk};
use crate::io::{Line, Source};
use crate::model::diag::{Code, Diagnostic, Severity};
use crate::model::time::parse_ms;

/// Which client's loading rules to follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Loader {
    /// Claude Code 2.1.88: the load rules before the four changes of 2.1.332.
    #[value(name = "2.1.88")]
    V2_1_88,
    /// Claude Code 2.1.332, the current client.
    #[default]
    #[value(name = "2.1.332")]
    V2_1_332,
}

impl Loader {
    pub fn name(self) -> &'static str {
        match self {
            Loader::V2_1_88 => "2.1.88",
            Loader::V2_1_332 => "2.1.332",
        }
    }
}

/// B1: the largest gap (child minus fallback timestamp) that 2.1.332 bridges.
pub const GAP_BRIDGE_MS: i64 = 5000;

const NO_TS: i64 = i64::MIN;
/// How often (in bytes read) progress is reported.
const PROGRESS_STEP: u64 = 4 * 1024 * 1024;
const ROOT: u32 = u32::MAX;
/// A `parentUuid` that is neither a string nor null: it can never resolve.
const INVALID: u32 = u32::MAX - 1;
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    User,
    Assistant,
    System,
    Attachment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sub {
    None,
    CompactBoundary,
    MicrocompactBoundary,
    LocalCommand,
    FileSnapshot,
    ForkBriefing,
    Other,
}

/// The raw `isSidechain` value: 2.1.332 groups B1 candidates by it, so an absent field and
/// `false` are different groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Absent = 0,
    False = 1,
    True = 2,
    Other = 3,
}

pub mod flag {
    pub const META: u16 = 1;
    pub const COMPACT_SUMMARY: u16 = 1 << 1;
    pub const TOOL_RESULT: u16 = 1 << 2;
    pub const TOOL_USE: u16 = 1 << 3;
    pub const API_ERROR: u16 = 1 << 4;
    pub const SYNTHETIC: u16 = 1 << 5;
    pub const STRING_CONTENT: u16 = 1 << 6;
    pub const THINKING: u16 = 1 << 7;
    pub const TEXT: u16 = 1 << 8;
}

/// One transcript message (a map entry of the real loader).
#[derive(Clone, Debug)]
pub struct Node {
    pub uuid: u32,
    parent: u32,
    /// Where the content comes from: the last occurrence of the uuid.
    pub offset: u64,
    pub len: u64,
    pub line: u64,
    pub ts: i64,
    pub msg_id: u32,
    pub kind: Kind,
    pub sub: Sub,
    pub side: Side,
    pub flags: u16,
}

impl Node {
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    pub fn is_sidechain(&self) -> bool {
        self.side == Side::True
    }

    /// The interned `parentUuid` as written (after progress bridging), if it is a uuid.
    pub fn parent_id(&self) -> Option<u32> {
        (self.parent < INVALID).then_some(self.parent)
    }

    pub fn is_boundary(&self) -> bool {
        self.kind == Kind::System && self.sub == Sub::CompactBoundary
    }

    fn is_conversation(&self) -> bool {
        matches!(self.kind, Kind::User | Kind::Assistant)
    }
}

#[derive(Clone, Debug)]
struct Segment {
    pos: u32,
    head: u32,
    anchor: u32,
    tail: u32,
}

/// A compact boundary's metadata, kept for reports.
#[derive(Clone, Debug, Default)]
pub struct BoundaryInfo {
    pub pos: u32,
    pub logical_parent: Option<u32>,
    pub trigger: Option<String>,
    pub pre_tokens: Option<i64>,
    pub has_segment: bool,
}

/// Everything read from a transcript: the message map in first-occurrence order and the
/// tables the loaders consult.
#[derive(Debug, Default)]
pub struct Transcript {
    pub file: String,
    pub ids: Interner,
    /// `message.id` of assistant rows → dense id (text not kept).
    msg_ids: FxHashMap<Box<str>, u32>,
    pub nodes: Vec<Node>,
    /// Interned id → position in `nodes`.
    pos_of: Vec<u32>,
    segments: Vec<Segment>,
    snips: Vec<(u32, Vec<u32>)>,
    pub boundaries: Vec<BoundaryInfo>,
    pub diagnostics: Vec<Diagnostic>,
    pub lines: u64,
    pub bad_lines: u64,
    pub duplicate_uuids: u64,
    pub progress_bridged: u64,
    pub titles: u64,
    /// Line of the first occurrence of each duplicated uuid (its map position).
    pub first_lines: FxHashMap<u32, u64>,
    pub session_ids: Vec<String>,
    pub versions: Vec<String>,
    /// Earliest and latest timestamps of any record.
    span: Option<(i64, i64)>,
    /// With [`read_for_audit`]: every `parentUuid` as written, by line (progress rows too).
    pub links: Option<Vec<Link>>,
    /// With [`read_for_audit`]: the uuids of legacy progress rows.
    pub progress_ids: FxHashSet<u32>,
    /// Position of the last-written main-chain row (B4), by physical line.
    last_written: Option<u32>,
    unterminated: bool,
}

impl Transcript {
    fn pos(&self, id: u32) -> Option<u32> {
        if id >= ROOT - 1 {
            return None;
        }
        self.pos_of.get(id as usize).copied().filter(|&p| p != NONE)
    }

    pub fn node(&self, pos: u32) -> &Node {
        &self.nodes[pos as usize]
    }

    pub fn uuid_text(&self, pos: u32) -> String {
        self.ids.text(self.nodes[pos as usize].uuid)
    }

    /// Position of the message with interned id `id`, if it is in the file.
    pub fn find_id(&self, id: u32) -> Option<u32> {
        self.pos(id)
    }

    /// Position of the message with `uuid`, if it is in the file.
    pub fn find(&self, uuid: &str) -> Option<u32> {
        self.ids.get(uuid).and_then(|id| self.pos(id))
    }

    /// The logical parent of boundary `pos`, when it names a message of this file.
    pub fn logical_parent(&self, pos: u32) -> Option<u32> {
        self.boundaries
            .iter()
            .find(|b| b.pos == pos)
            .and_then(|b| b.logical_parent)
            .and_then(|id| self.pos(id))
    }
}

/// Reads the message map of a transcript (the loader's parse-and-index step,
/// `docs/claude-code.md#parse-and-index`).
pub fn read(src: &Source) -> io::Result<Transcript> {
    read_with_progress(src, &mut |_| {})
}

/// [`read`], reporting the byte offset reached now and then.
pub fn read_with_progress(src: &Source, progress: &mut dyn FnMut(u64)) -> io::Result<Transcript> {
    read_from(src, 0, 1, progress)
}

/// Reads only the lines from byte `offset` (line `first_line`) on: what a loader sees of a
/// file whose earlier part it may ignore (see `summary::claude_current`).
pub fn read_from(src: &Source, offset: u64, first_line: u64, progress: &mut dyn FnMut(u64)) -> io::Result<Transcript> {
    read_inner(src, offset, first_line, progress, false, PARALLEL_MIN)
}

/// [`read`], also keeping every parent reference as written (progress rows included), for
/// integrity checks that the loader itself does not need.
pub fn read_for_audit(src: &Source) -> io::Result<Transcript> {
    read_inner(src, 0, 1, &mut |_| {}, true, PARALLEL_MIN)
}

fn read_inner(
    src: &Source,
    offset: u64,
    first_line: u64,
    progress: &mut dyn FnMut(u64),
    audit: bool,
    parallel_min: u64,
) -> io::Result<Transcript> {
    let mut ix = Indexer {
        t: Transcript {
            file: src.name().to_string(),
            links: audit.then(Vec::new),
            ..Transcript::default()
        },
        bridge: FxHashMap::default(),
        unknown: FxHashMap::default(),
        last_written_line: 0,
        reported: offset,
        progress,
    };
    // A large file held as one slice is split and parsed on every core, a window each, and
    // indexed in file order: everything but the indexing (splitting, parsing, the page faults
    // of a mapping) happens in parallel, and each line parses on its own.
    let threads = rayon::current_num_threads();
    let mut stats = LineStats {
        lines: first_line.saturating_sub(1),
        ..LineStats::default()
    };
    let parallel = (src.len().saturating_sub(offset) >= parallel_min && threads > 1)
        .then(|| {
            src.par_rounds(
                offset,
                threads * 2,
                |at, chunk, last| {
                    let mut local = LineStats::default();
                    let mut parsed = Vec::new();
                    split_chunk(at, chunk, last, &mut local, &mut |l| {
                        // The timestamp is parsed here too, off the serial indexer.
                        let env = serde_json::from_slice::<Envelope<'_>>(l.bytes).ok();
                        let ts = env.as_ref().and_then(|e| e.timestamp.as_str().and_then(parse_ms));
                        parsed.push((l, env.map(|e| (e, ts))));
                    });
                    (parsed, local)
                },
                |(parsed, local)| {
                    let base = stats.lines;
                    stats.lines += local.lines;
                    stats.blank += local.blank;
                    stats.crlf += local.crlf;
                    stats.had_bom |= local.had_bom;
                    stats.unterminated_tail |= local.unterminated_tail;
                    for (mut line, env) in parsed {
                        line.no += base;
                        match env {
                            Some((env, ts)) => {
                                ix.report(&line);
                                ix.index(&line, &env, ts);
                            }
                            // Repaired or reported exactly as a sequential read would.
                            None => ix.line(&line),
                        }
                    }
                },
            )
        })
        .flatten();
    match parallel {
        Some(r) => r?,
        None => stats = crate::io::lines::for_each_line_from(src, offset, first_line, |line| ix.line(&line))?,
    }
    let mut t = ix.t;
    t.lines = stats.lines;
    t.unterminated = stats.unterminated_tail;
    let mut unknown: Vec<_> = ix.unknown.into_iter().collect();
    unknown.sort_by_key(|(_, (first, _))| *first);
    for (ty, (first, count)) in unknown {
        t.diagnostics.push(Diagnostic::new(
            &t.file,
            Some(first),
            Code::UnknownRecordType,
            Severity::Info,
            format!("{count} record(s) of unknown type {ty:?} (first here); not part of the conversation"),
        ));
    }
    Ok(t)
}

/// Files at least this large are split and parsed on every core.
const PARALLEL_MIN: u64 = 32 * 1024 * 1024;

/// The state of a read: the transcript so far and what is needed to extend it line by line.
struct Indexer<'p> {
    t: Transcript,
    bridge: FxHashMap<u32, u32>,
    unknown: FxHashMap<String, (u64, u64)>,
    last_written_line: u64,
    reported: u64,
    progress: &'p mut dyn FnMut(u64),
}

impl Indexer<'_> {
    fn report(&mut self, line: &Line<'_>) {
        if line.offset >= self.reported + PROGRESS_STEP {
            self.reported = line.offset;
            (self.progress)(self.reported);
        }
    }

    /// `ts`: the record's timestamp in milliseconds, parsed by the caller.
    fn index(&mut self, line: &Line<'_>, env: &Envelope<'_>, ts: Option<i64>) {
        index_line(
            &mut self.t,
            &mut self.bridge,
            &mut self.unknown,
            &mut self.last_written_line,
            line,
            env,
            ts,
        );
    }

    /// Parses and indexes one line.
    fn line(&mut self, line: &Line<'_>) {
        self.report(line);
        let r = with_parsed_borrowed::<Envelope<'_>, _>(line.bytes, line.terminated, |env, _| {
            let ts = env.timestamp.as_str().and_then(parse_ms);
            self.index(line, &env, ts)
        });
        match r {
            Ok(((), repaired)) => {
                if repaired {
                    self.t.diagnostics.push(Diagnostic::new(
                        &self.t.file,
                        Some(line.no),
                        Code::LoneSurrogate,
                        Severity::Info,
                        "lone UTF-16 surrogate escape; read as U+FFFD, as Claude Code does",
                    ));
                }
            }
            Err(bad) => {
                self.t.bad_lines += 1;
                self.t.diagnostics.push(Diagnostic::new(
                    &self.t.file,
                    Some(line.no),
                    bad.code,
                    bad.severity,
                    bad.message,
                ));
            }
        }
    }
}

/// Records a value the first time it is seen (session ids, agent versions: a handful).
fn push_unique(list: &mut Vec<String>, value: Option<&str>) {
    if let Some(v) = value
        && !list.iter().any(|x| x == v)
    {
        list.push(v.to_string());
    }
}

fn index_line(
    t: &mut Transcript,
    bridge: &mut FxHashMap<u32, u32>,
    unknown: &mut FxHashMap<String, (u64, u64)>,
    last_written_line: &mut u64,
    line: &Line<'_>,
    env: &Envelope<'_>,
    ts: Option<i64>,
) {
    if let Some(ts) = ts {
        t.span = Some(t.span.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
    }
    let Some(ty) = env.ty.as_str() else {
        let e = unknown.entry("<no type>".into()).or_insert((line.no, 0));
        e.1 += 1;
        return;
    };
    push_unique(&mut t.session_ids, env.session_id.as_str());
    push_unique(&mut t.versions, env.version.as_str());
    let kind = match ty {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        "system" => Kind::System,
        "attachment" => Kind::Attachment,
        "progress" => {
            // Legacy progress rows are never messages; their children are re-parented to
            // the nearest non-progress ancestor (runs of progress collapse).
            if let Some(u) = env.uuid.as_str() {
                let id = t.ids.intern(u);
                let p = match env.parent_uuid.truthy_str() {
                    Some(p) => {
                        let pid = t.ids.intern(p);
                        if let Some(links) = &mut t.links {
                            links.push(Link {
                                line: line.no,
                                uuid: id,
                                parent: pid,
                            });
                        }
                        bridge.get(&pid).copied().unwrap_or(pid)
                    }
                    None => ROOT,
                };
                bridge.insert(id, p);
                if t.links.is_some() {
                    t.progress_ids.insert(id);
                }
            }
            return;
        }
        "summary" => {
            t.titles += 1;
            return;
        }
        other => {
            if !is_known_type(other) {
                let e = unknown.entry(other.to_string()).or_insert((line.no, 0));
                e.1 += 1;
            }
            return;
        }
    };
    let Some(uuid) = env.uuid.as_str() else {
        t.diagnostics.push(Diagnostic::new(
            &t.file,
            Some(line.no),
            Code::MissingUuid,
            Severity::Warning,
            format!("{ty} record without a string uuid; it cannot be linked and is ignored"),
        ));
        return;
    };
    let id = t.ids.intern(uuid);
    let mut parent = match &env.parent_uuid {
        LStr::Str(s) if !s.is_empty() => t.ids.intern(s),
        LStr::Other => INVALID,
        _ => ROOT,
    };
    if parent < INVALID
        && let Some(links) = &mut t.links
    {
        links.push(Link {
            line: line.no,
            uuid: id,
            parent,
        });
    }
    if let Some(&b) = bridge.get(&parent) {
        parent = b;
        t.progress_bridged += 1;
    }
    let sub = match env.subtype.as_str() {
        None => Sub::None,
        Some("compact_boundary") if kind == Kind::System => Sub::CompactBoundary,
        Some("microcompact_boundary") => Sub::MicrocompactBoundary,
        Some("local_command") => Sub::LocalCommand,
        Some("file_snapshot") => Sub::FileSnapshot,
        Some("fork_briefing") => Sub::ForkBriefing,
        Some(_) => Sub::Other,
    };
    let side = match env.is_sidechain {
        LBool::Absent => Side::Absent,
        LBool::Bool(false) => Side::False,
        LBool::Bool(true) => Side::True,
        LBool::Other => Side::Other,
    };
    let c = &env.message.content;
    let mut flags = 0u16;
    let set = |flags: &mut u16, cond: bool, f: u16| {
        if cond {
            *flags |= f;
        }
    };
    set(&mut flags, env.is_meta.is_true(), flag::META);
    set(&mut flags, env.is_compact_summary.is_true(), flag::COMPACT_SUMMARY);
    set(&mut flags, c.tool_result, flag::TOOL_RESULT);
    set(&mut flags, c.tool_use, flag::TOOL_USE);
    set(&mut flags, c.is_string, flag::STRING_CONTENT);
    set(&mut flags, c.thinking, flag::THINKING);
    set(&mut flags, c.text, flag::TEXT);
    set(&mut flags, env.is_api_error_message.is_true(), flag::API_ERROR);
    set(
        &mut flags,
        env.message.model.as_str() == Some("<synthetic>"),
        flag::SYNTHETIC,
    );
    // Message ids only group split rows; their text is never needed again.
    let msg_id = match (kind, env.message.id.as_str()) {
        (Kind::Assistant, Some(m)) => match t.msg_ids.get(m) {
            Some(&id) => id,
            None => {
                let id = t.msg_ids.len() as u32;
                t.msg_ids.insert(m.into(), id);
                id
            }
        },
        _ => NONE,
    };
    let ts = env.timestamp.as_str().and_then(parse_ms).unwrap_or(NO_TS);
    if t.pos_of.len() < t.ids.len() {
        t.pos_of.resize(t.ids.len(), NONE);
    }
    let node = Node {
        uuid: id,
        parent,
        offset: line.offset,
        len: line.bytes.len() as u64,
        line: line.no,
        ts,
        msg_id,
        kind,
        sub,
        side,
        flags,
    };
    let pos = match t.pos_of[id as usize] {
        NONE => {
            let pos = t.nodes.len() as u32;
            t.pos_of[id as usize] = pos;
            t.nodes.push(node);
            pos
        }
        pos => {
            // Map.set on an existing key: the content is replaced, the position is kept.
            t.duplicate_uuids += 1;
            let first_line = *t.first_lines.entry(pos).or_insert(t.nodes[pos as usize].line);
            t.diagnostics.push(Diagnostic::new(
                &t.file,
                Some(line.no),
                Code::DuplicateUuid,
                Severity::Warning,
                format!("uuid {uuid} first written at line {first_line}; this later copy's content is used at the first position, as Claude Code does"),
            ));
            t.nodes[pos as usize] = node;
            t.segments.retain(|s| s.pos != pos);
            t.snips.retain(|s| s.0 != pos);
            t.boundaries.retain(|b| b.pos != pos);
            pos
        }
    };
    let main_row = side != Side::True && !matches!(sub, Sub::FileSnapshot | Sub::ForkBriefing);
    if main_row && line.no >= *last_written_line {
        *last_written_line = line.no;
        t.last_written = Some(pos);
    }
    if sub == Sub::CompactBoundary {
        let meta = env.compact.as_ref();
        let seg = meta.and_then(|m| m.preserved_segment.as_ref());
        if let Some(seg) = seg {
            let mut id_of = |s: &LStr<'_>| s.as_str().map_or(INVALID, |s| t.ids.intern(s));
            let (head, anchor, tail) = (id_of(&seg.head), id_of(&seg.anchor), id_of(&seg.tail));
            t.segments.push(Segment {
                pos,
                head,
                anchor,
                tail,
            });
        }
        let logical_parent = env.logical_parent_uuid.truthy_str().map(|s| t.ids.intern(s));
        t.boundaries.push(BoundaryInfo {
            pos,
            logical_parent,
            trigger: meta.and_then(|m| m.trigger.as_str().map(str::to_string)),
            pre_tokens: meta.and_then(|m| m.pre_tokens.as_i64()),
            has_segment: seg.is_some(),
        });
    }
    if !env.snip_removed.is_empty() {
        let ids = env.snip_removed.iter().map(|s| t.ids.intern(s)).collect();
        t.snips.push((pos, ids));
    }
    if t.pos_of.len() < t.ids.len() {
        t.pos_of.resize(t.ids.len(), NONE);
    }
}

/// A parent reference as written in the file.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub line: u64,
    /// The line's own uuid (interned).
    pub uuid: u32,
    /// The referenced parent (interned).
    pub parent: u32,
}

impl Transcript {
    /// Whether an interned uuid names a message or a progress row of this file.
    pub fn knows(&self, id: u32) -> bool {
        self.pos(id).is_some() || self.progress_ids.contains(&id)
    }

    /// Parent of every message as the loader sees it (after progress bridging), for graph
    /// checks; `None` for a root or a parent that is not a uuid.
    pub fn parents(&self) -> Vec<Option<u32>> {
        self.nodes
            .iter()
            .map(|n| n.parent_id().and_then(|p| self.pos(p)))
            .collect()
    }
}

/// Why the parent walk stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// The first message has no parent.
    Root,
    /// The first message is a compact boundary.
    Boundary,
    /// The next parent is not in the file.
    Dangling(String),
    /// The next parent is already on the chain.
    Cycle,
    /// There was no tip to start from.
    Empty,
}

impl std::fmt::Display for WalkEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkEnd::Root => f.write_str("root"),
            WalkEnd::Boundary => f.write_str("boundary"),
            WalkEnd::Dangling(u) => write!(f, "dangling:{u}"),
            WalkEnd::Cycle => f.write_str("cycle"),
            WalkEnd::Empty => f.write_str("empty"),
        }
    }
}

/// A bridged gap (B1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bridge {
    pub child: u32,
    pub to: u32,
    pub missing_parent: Option<String>,
    pub gap_ms: i64,
}

/// Options of one rebuild.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub loader: Loader,
    /// Start the walk here instead of at the loader's tip.
    pub tip: Option<String>,
    /// Follow compactions back through earlier history.
    pub full: bool,
}

/// The rebuilt conversation, root first, as positions into [`Transcript::nodes`].
#[derive(Clone, Debug, Default)]
pub struct Chain {
    pub positions: Vec<u32>,
    pub end: Option<WalkEnd>,
    pub tip: Option<u32>,
    pub bridges: Vec<Bridge>,
    pub recovered: usize,
    pub appended: usize,
    /// Pruned by a preserved segment (live or stale).
    pub pruned: usize,
    pub relinked: bool,
    /// Messages of earlier history added by `--full`, and where each earlier part begins.
    pub earlier_parts: Vec<usize>,
    /// Index of the first message a resume loads, when `--full` added earlier parts.
    pub loaded_from: Option<usize>,
    /// The 2.1.332 tip choice did not depend on rows other than those loaded.
    pub tip_local: bool,
    /// Leaves of the message graph (`docs/claude-code.md#leaves`): the conversations a picker
    /// could offer.
    pub leaves: usize,
    /// Where the parent walk stopped: the first message it loaded (before recovered rows
    /// and `--full` history are added around it).
    pub walk_root: Option<u32>,
    /// The file has no main-chain conversation, only sidechain rows (a subagent's own
    /// transcript): the chain is the subagent's conversation.
    pub sidechain: bool,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug)]
pub enum ChainError {
    TipNotFound(String),
    TipPruned(String),
}

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainError::TipNotFound(u) => write!(f, "--tip {u}: no message with this uuid in the file"),
            ChainError::TipPruned(u) => write!(
                f,
                "--tip {u}: this message is removed at load time (before the last compact boundary, outside its preserved segment)"
            ),
        }
    }
}

/// Working state of one rebuild: the message map after relinks, with children.
struct View<'t> {
    t: &'t Transcript,
    parent: Vec<u32>,
    alive: Vec<bool>,
    children_start: Vec<u32>,
    children: Vec<u32>,
}

impl<'t> View<'t> {
    fn new(t: &'t Transcript) -> View<'t> {
        View {
            t,
            parent: t.nodes.iter().map(|n| n.parent).collect(),
            alive: vec![true; t.nodes.len()],
            children_start: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Position of the live message with interned id `id`.
    fn live(&self, id: u32) -> Option<u32> {
        self.t.pos(id).filter(|&p| self.alive[p as usize])
    }

    fn parent_pos(&self, pos: u32) -> Option<u32> {
        self.live(self.parent[pos as usize])
    }

    fn build_children(&mut self) {
        let n = self.t.nodes.len();
        let mut counts = vec![0u32; n + 1];
        let parents: Vec<Option<u32>> = (0..n as u32)
            .map(|p| {
                if self.alive[p as usize] {
                    self.parent_pos(p)
                } else {
                    None
                }
            })
            .collect();
        for &p in parents.iter().flatten() {
            counts[p as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut children = vec![0u32; counts[n] as usize];
        for (c, p) in parents.iter().enumerate() {
            if let Some(p) = p {
                children[fill[*p as usize] as usize] = c as u32;
                fill[*p as usize] += 1;
            }
        }
        self.children_start = counts;
        self.children = children;
    }

    fn children(&self, pos: u32) -> &[u32] {
        let s = self.children_start[pos as usize] as usize;
        let e = self.children_start[pos as usize + 1] as usize;
        &self.children[s..e]
    }
}

impl Transcript {
    /// Rebuilds the conversation a resume loads.
    pub fn rebuild(&self, opts: &Options) -> Result<Chain, ChainError> {
        let mut chain = Chain::default();
        let mut v = View::new(self);
        self.apply_preserved_segments(&mut v, &mut chain);
        // Snip removals are part of the 2.1.88 load path; the public 2.1.332 leaves the rows a
        // snip names in place (docs/claude-code.md#snip-removals).
        if opts.loader == Loader::V2_1_88 {
            self.apply_snips(&mut v);
        }
        v.build_children();
        chain.leaves = self.leaves(&v).len();

        let tip = match &opts.tip {
            Some(u) => {
                let pos = self.find(u).ok_or_else(|| ChainError::TipNotFound(u.clone()))?;
                if !v.alive[pos as usize] {
                    return Err(ChainError::TipPruned(u.clone()));
                }
                Some(pos)
            }
            None => match opts.loader {
                Loader::V2_1_88 => self.tip_newest_leaf(&v),
                Loader::V2_1_332 => {
                    let (tip, local) = self.tip_last_written(&v);
                    chain.tip_local = local;
                    tip
                }
            },
        };
        // A subagent's transcript holds only sidechain rows: its conversation is the chain
        // from its last row written (what Claude Code loads to resume that subagent).
        let tip = tip.or_else(|| {
            let sub = opts.tip.is_none().then(|| self.tip_sidechain(&v)).flatten();
            chain.sidechain = sub.is_some();
            sub
        });
        let Some(tip) = tip else {
            chain.end = Some(WalkEnd::Empty);
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                None,
                Code::NoConversation,
                Severity::Info,
                "no user or assistant message to resume from",
            ));
            return Ok(chain);
        };
        chain.tip = Some(tip);
        if chain.sidechain {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                None,
                Code::SubagentTranscript,
                Severity::Info,
                "no main-chain message: this is a subagent's transcript, and its own conversation is the chain",
            ));
        }
        let (mut positions, end, bridges) = self.walk(&v, tip, opts.loader == Loader::V2_1_332);
        chain.bridges = bridges;
        chain.walk_root = positions.first().copied();
        let before = positions.len();
        positions = match opts.loader {
            Loader::V2_1_88 => self.recover_after_last(&v, positions),
            Loader::V2_1_332 => self.recover_in_file_order(&v, positions),
        };
        chain.recovered = positions.len() - before;
        if opts.loader == Loader::V2_1_332 {
            let tail = self.trailing_system_rows(&v, tip, &positions);
            chain.appended = tail.len();
            positions.extend(tail);
        }
        chain.end = Some(end);
        if opts.full {
            self.prepend_earlier_history(&mut positions, &mut chain);
        }
        chain.positions = positions;
        self.chain_diagnostics(&v, &mut chain);
        Ok(chain)
    }

    /// `docs/claude-code.md#preserved-segment-relink-and-prune` (the client's
    /// `applyPreservedSegmentRelinks`): only the last boundary's segment is honoured; a
    /// segment on any boundary prunes everything physically before the last boundary
    /// (except a live segment's messages); no segment anywhere means no prune at all.
    fn apply_preserved_segments(&self, v: &mut View<'_>, chain: &mut Chain) {
        let Some(abs_last) = self.nodes.iter().rposition(Node::is_boundary) else {
            return;
        };
        let Some(seg) = self.segments.iter().max_by_key(|s| s.pos) else {
            return;
        };
        let mut preserved = FxHashSet::default();
        if seg.pos as usize == abs_last {
            let mut seen = FxHashSet::default();
            let mut cur = self.pos(seg.tail);
            let mut reached = false;
            while let Some(p) = cur {
                if !seen.insert(p) {
                    break;
                }
                preserved.insert(p);
                if self.nodes[p as usize].uuid == seg.head {
                    reached = true;
                    break;
                }
                cur = self.pos(v.parent[p as usize]);
            }
            if !reached {
                chain.diagnostics.push(Diagnostic::new(
                    &self.file,
                    Some(self.nodes[seg.pos as usize].line),
                    Code::PreservedSegmentBroken,
                    Severity::Warning,
                    "the preserved segment's walk from tail to head is broken; Claude Code neither relinks nor prunes",
                ));
                return;
            }
            if let Some(head) = self.pos(seg.head) {
                v.parent[head as usize] = seg.anchor;
                for (i, p) in v.parent.iter_mut().enumerate() {
                    if *p == seg.anchor && i != head as usize {
                        *p = seg.tail;
                    }
                }
            }
            chain.relinked = true;
        } else {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.nodes[seg.pos as usize].line),
                Code::StalePreservedSegment,
                Severity::Info,
                "preserved segment made stale by a later compact boundary: not relinked, but everything before the last boundary is pruned",
            ));
        }
        for (i, alive) in v.alive.iter_mut().enumerate().take(abs_last) {
            if *alive && !preserved.contains(&(i as u32)) {
                *alive = false;
                chain.pruned += 1;
            }
        }
    }

    /// `docs/claude-code.md#snip-removals` (the client's `applySnipRemovals`).
    fn apply_snips(&self, v: &mut View<'_>) {
        if self.snips.is_empty() {
            return;
        }
        let mut removed = FxHashSet::default();
        for (pos, ids) in &self.snips {
            if !v.alive[*pos as usize] {
                continue;
            }
            for &id in ids {
                if let Some(p) = v.live(id) {
                    removed.insert(p);
                }
            }
        }
        let parent_of_removed: FxHashMap<u32, u32> = removed
            .iter()
            .map(|&p| (self.nodes[p as usize].uuid, v.parent[p as usize]))
            .collect();
        for &p in &removed {
            v.alive[p as usize] = false;
        }
        for i in 0..v.parent.len() {
            if !v.alive[i] {
                continue;
            }
            let mut p = v.parent[i];
            let mut hops = 0;
            while let Some(&up) = parent_of_removed.get(&p) {
                p = up;
                hops += 1;
                if hops > parent_of_removed.len() {
                    p = ROOT;
                    break;
                }
            }
            if p != v.parent[i] {
                v.parent[i] = if self.pos(p).is_some() || p == ROOT { p } else { ROOT };
            }
        }
    }

    /// `docs/claude-code.md#leaves`: for each terminal message, its nearest user/assistant
    /// ancestor.
    fn leaves(&self, v: &View<'_>) -> Vec<u32> {
        let mut leaves = Vec::new();
        let mut is_leaf = vec![false; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            if !v.alive[i] || !v.children(i as u32).is_empty() {
                continue;
            }
            let _ = node;
            let mut cur = Some(i as u32);
            let mut seen = FxHashSet::default();
            while let Some(p) = cur {
                if !seen.insert(p) {
                    break;
                }
                if self.nodes[p as usize].is_conversation() {
                    if !is_leaf[p as usize] {
                        is_leaf[p as usize] = true;
                        leaves.push(p);
                    }
                    break;
                }
                cur = v.parent_pos(p);
            }
        }
        leaves
    }

    /// 2.1.88 (`--resume <path>` rule): the non-sidechain leaf with the newest timestamp;
    /// ties go to the first; unparsable timestamps never win.
    fn tip_newest_leaf(&self, v: &View<'_>) -> Option<u32> {
        let mut best: Option<u32> = None;
        for p in self.leaves(v) {
            let n = &self.nodes[p as usize];
            if n.is_sidechain() || n.ts == NO_TS {
                continue;
            }
            if best.is_none_or(|b| n.ts > self.nodes[b as usize].ts) {
                best = Some(p);
            }
        }
        best
    }

    /// 2.1.332 (B4): start from the last main-chain row written; if it is not the newest
    /// row, move to its newest descendant (ties to the later row); then up to the first
    /// user or assistant row.
    /// The second value says whether the choice holds for any rows written before the ones
    /// loaded: true when the start row has no descendants or was already not the newest.
    fn tip_last_written(&self, v: &View<'_>) -> (Option<u32>, bool) {
        let eligible = |p: u32| {
            let n = &self.nodes[p as usize];
            v.alive[p as usize] && !n.is_sidechain() && !matches!(n.sub, Sub::FileSnapshot | Sub::ForkBriefing)
        };
        let Some(mut start) = self.last_written.filter(|&p| eligible(p)).or_else(|| {
            // The last row written was pruned; fall back to the last live row in map order.
            (0..self.nodes.len() as u32).rev().find(|&p| eligible(p))
        }) else {
            return (None, true);
        };
        let mut local = v.children(start).is_empty();
        let newest = (0..self.nodes.len() as u32)
            .filter(|&p| eligible(p))
            .map(|p| self.nodes[p as usize].ts)
            .max()
            .unwrap_or(NO_TS);
        if self.nodes[start as usize].ts < newest {
            local = true;
            let mut best: Option<u32> = None;
            let mut seen = FxHashSet::default();
            let mut queue = VecDeque::from([start]);
            while let Some(p) = queue.pop_front() {
                for &c in v.children(p) {
                    if !seen.insert(c) || c == start {
                        continue;
                    }
                    queue.push_back(c);
                    let cn = &self.nodes[c as usize];
                    if cn.ts == NO_TS {
                        continue;
                    }
                    let better = match best {
                        None => true,
                        Some(b) => {
                            let bn = &self.nodes[b as usize];
                            cn.ts > bn.ts || (cn.ts == bn.ts && cn.line > bn.line)
                        }
                    };
                    if better {
                        best = Some(c);
                    }
                }
            }
            if let Some(b) = best {
                start = b;
            }
        }
        let mut cur = Some(start);
        let mut seen = FxHashSet::default();
        while let Some(p) = cur {
            if !seen.insert(p) {
                break;
            }
            if self.nodes[p as usize].is_conversation() {
                return (Some(p), local);
            }
            cur = v.parent_pos(p);
        }
        (None, local)
    }

    /// The tip of a file without main-chain conversation: the last sidechain conversation
    /// row written, when every conversation row is a sidechain row.
    fn tip_sidechain(&self, v: &View<'_>) -> Option<u32> {
        let mut best: Option<u32> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            if !v.alive[i] || !n.is_conversation() {
                continue;
            }
            if !n.is_sidechain() {
                return None;
            }
            if best.is_none_or(|b| n.line > self.nodes[b as usize].line) {
                best = Some(i as u32);
            }
        }
        best
    }

    /// `docs/claude-code.md#the-parent-walk` from the tip, root first. With `bridge`
    /// (`docs/claude-code.md#b1-gap-bridging`), a parent that is
    /// missing or already on the chain is replaced by the newest same-sidechain-group
    /// entry not on the chain whose timestamp is at most the child's and at most 5 s older.
    fn walk(&self, v: &View<'_>, tip: u32, bridge: bool) -> (Vec<u32>, WalkEnd, Vec<Bridge>) {
        let mut on_chain = vec![false; self.nodes.len()];
        let mut out = Vec::new();
        let mut bridges = Vec::new();
        let mut candidates: Option<Candidates> = None;
        let mut cur = tip;
        let end = loop {
            on_chain[cur as usize] = true;
            out.push(cur);
            let pid = v.parent[cur as usize];
            if pid == ROOT {
                break if self.nodes[cur as usize].is_boundary() {
                    WalkEnd::Boundary
                } else {
                    WalkEnd::Root
                };
            }
            let stop = match v.live(pid) {
                Some(p) if !on_chain[p as usize] => {
                    cur = p;
                    continue;
                }
                Some(_) => WalkEnd::Cycle,
                None => WalkEnd::Dangling(if pid == INVALID {
                    "<not a string>".into()
                } else {
                    self.ids.text(pid)
                }),
            };
            if !bridge {
                break stop;
            }
            let c = candidates.get_or_insert_with(|| Candidates::new(self, v));
            match c.fallback(&self.nodes[cur as usize], &on_chain) {
                Some(p) => {
                    bridges.push(Bridge {
                        child: cur,
                        to: p,
                        missing_parent: match &stop {
                            WalkEnd::Dangling(u) => Some(u.clone()),
                            _ => None,
                        },
                        gap_ms: self.nodes[cur as usize].ts - self.nodes[p as usize].ts,
                    });
                    cur = p;
                }
                None => break stop,
            }
        };
        out.reverse();
        (out, end, bridges)
    }

    /// Assistant siblings (same `message.id`) and tool results parented on any group
    /// member, that are not on the chain yet.
    fn orphans_of(&self, v: &View<'_>, members: &[u32], on_chain: &[bool]) -> (Vec<u32>, Vec<u32>) {
        let siblings: Vec<u32> = members.iter().copied().filter(|&m| !on_chain[m as usize]).collect();
        let mut results = Vec::new();
        for &m in members {
            for &c in v.children(m) {
                let n = &self.nodes[c as usize];
                if n.kind == Kind::User && n.has(flag::TOOL_RESULT) && !on_chain[c as usize] {
                    results.push(c);
                }
            }
        }
        (siblings, results)
    }

    /// Live assistant rows grouped by `message.id`, by sorting (a map of vectors would cost
    /// an allocation per message on multi-GB files).
    fn groups(&self, v: &View<'_>) -> Groups {
        let mut rows: Vec<(u32, u32)> = (0..self.nodes.len())
            .filter(|&i| v.alive[i] && self.nodes[i].kind == Kind::Assistant && self.nodes[i].msg_id != NONE)
            .map(|i| (self.nodes[i].msg_id, i as u32))
            .collect();
        rows.sort_unstable();
        Groups { rows }
    }

    /// 2.1.88 `recoverOrphanedParallelToolResults`: orphans sorted by timestamp, inserted
    /// after the group's last chain member.
    fn recover_after_last(&self, v: &View<'_>, chain: Vec<u32>) -> Vec<u32> {
        let groups = self.groups(v);
        let mut on_chain = vec![false; self.nodes.len()];
        for &p in &chain {
            on_chain[p as usize] = true;
        }
        let mut last_index: FxHashMap<u32, usize> = FxHashMap::default();
        for (i, &p) in chain.iter().enumerate() {
            let n = &self.nodes[p as usize];
            if n.kind == Kind::Assistant && n.msg_id != NONE {
                last_index.insert(n.msg_id, i);
            }
        }
        let mut inserts: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
        let mut done = FxHashSet::default();
        for &p in &chain {
            let n = &self.nodes[p as usize];
            if n.kind != Kind::Assistant || n.msg_id == NONE || !done.insert(n.msg_id) {
                continue;
            }
            let members = groups.get(n.msg_id);
            if members.is_empty() {
                continue;
            }
            let (mut sib, mut res) = self.orphans_of(v, &members, &on_chain);
            let by_ts = |a: &u32, b: &u32| self.nodes[*a as usize].ts.cmp(&self.nodes[*b as usize].ts);
            sib.sort_by(by_ts);
            res.sort_by(by_ts);
            sib.extend(res);
            for &r in &sib {
                on_chain[r as usize] = true;
            }
            if !sib.is_empty() {
                inserts.entry(last_index[&n.msg_id]).or_default().extend(sib);
            }
        }
        if inserts.is_empty() {
            return chain;
        }
        let mut out = Vec::with_capacity(chain.len() + inserts.values().map(Vec::len).sum::<usize>());
        for (i, p) in chain.into_iter().enumerate() {
            out.push(p);
            if let Some(extra) = inserts.remove(&i) {
                out.extend(extra);
            }
        }
        out
    }

    /// 2.1.332 B2: each group's span runs from its first to its last chain member and on
    /// over following tool-result, meta, attachment, same-id and non-boundary system rows;
    /// the recovered rows are merged into the span by file position.
    fn recover_in_file_order(&self, v: &View<'_>, chain: Vec<u32>) -> Vec<u32> {
        let groups = self.groups(v);
        let mut on_chain = vec![false; self.nodes.len()];
        for &p in &chain {
            on_chain[p as usize] = true;
        }
        let mut first_last: FxHashMap<u32, (usize, usize)> = FxHashMap::default();
        let mut order = Vec::new();
        for (i, &p) in chain.iter().enumerate() {
            let n = &self.nodes[p as usize];
            if n.kind == Kind::Assistant && n.msg_id != NONE {
                first_last.entry(n.msg_id).and_modify(|e| e.1 = i).or_insert_with(|| {
                    order.push(n.msg_id);
                    (i, i)
                });
            }
        }
        let mut spans: Vec<(usize, usize, Vec<u32>)> = Vec::new();
        for id in order {
            let members = groups.get(id);
            if members.is_empty() {
                continue;
            }
            let (sib, res) = self.orphans_of(v, &members, &on_chain);
            if sib.is_empty() && res.is_empty() {
                continue;
            }
            let (first, mut end) = first_last[&id];
            while end + 1 < chain.len() {
                let n = &self.nodes[chain[end + 1] as usize];
                let extends = match n.kind {
                    Kind::Assistant => n.msg_id == id,
                    Kind::User => n.has(flag::META) || n.has(flag::TOOL_RESULT),
                    Kind::Attachment => true,
                    Kind::System => !n.is_boundary(),
                };
                if !extends {
                    break;
                }
                end += 1;
            }
            let mut rec = sib;
            rec.extend(res);
            for &r in &rec {
                on_chain[r as usize] = true;
            }
            spans.push((first, end, rec));
        }
        if spans.is_empty() {
            return chain;
        }
        spans.sort_by_key(|s| s.0);
        let mut merged: Vec<(usize, usize, Vec<u32>)> = Vec::new();
        for s in spans {
            match merged.last_mut() {
                Some(m) if s.0 <= m.1 => {
                    m.1 = m.1.max(s.1);
                    m.2.extend(s.2);
                }
                _ => merged.push(s),
            }
        }
        let mut out = Vec::with_capacity(chain.len() + merged.iter().map(|m| m.2.len()).sum::<usize>());
        let mut i = 0;
        for (first, end, mut rec) in merged {
            out.extend_from_slice(&chain[i..first]);
            rec.sort_unstable();
            rec.dedup();
            let mut j = 0;
            for &row in &chain[first..=end] {
                while j < rec.len() && rec[j] < row {
                    out.push(rec[j]);
                    j += 1;
                }
                out.push(row);
            }
            out.extend_from_slice(&rec[j..]);
            i = end + 1;
        }
        out.extend_from_slice(&chain[i..]);
        out
    }

    /// 2.1.332 B3: system and attachment descendants of the tip, reached only through such
    /// rows, by timestamp.
    fn trailing_system_rows(&self, v: &View<'_>, tip: u32, chain: &[u32]) -> Vec<u32> {
        let on_chain: FxHashSet<u32> = chain.iter().copied().collect();
        let mut found = Vec::new();
        let mut seen = FxHashSet::default();
        let mut queue = VecDeque::from([tip]);
        while let Some(p) = queue.pop_front() {
            for &c in v.children(p) {
                let n = &self.nodes[c as usize];
                if matches!(n.kind, Kind::System | Kind::Attachment) && !on_chain.contains(&c) && seen.insert(c) {
                    found.push(c);
                    queue.push_back(c);
                }
            }
        }
        found.sort_by_key(|&p| (self.nodes[p as usize].ts, p));
        found
    }

    /// `--full`: before each compact boundary at the root, the history it replaced: from the
    /// boundary's `logicalParentUuid` where it resolves, else from the last conversation
    /// message written before the boundary.
    fn prepend_earlier_history(&self, positions: &mut Vec<u32>, chain: &mut Chain) {
        let mut used: FxHashSet<u32> = positions.iter().copied().collect();
        let mut parts: Vec<Vec<u32>> = vec![std::mem::take(positions)];
        while let Some(&root) = parts.last().and_then(|p| p.first()) {
            if !self.nodes[root as usize].is_boundary() {
                break;
            }
            let start = self.logical_parent(root).filter(|p| !used.contains(p)).or_else(|| {
                (0..root).rev().find(|&p| {
                    let n = &self.nodes[p as usize];
                    n.is_conversation() && !n.is_sidechain() && !used.contains(&p)
                })
            });
            let Some(start) = start else { break };
            let mut part = Vec::new();
            let mut cur = Some(start);
            while let Some(p) = cur {
                if !used.insert(p) {
                    break;
                }
                part.push(p);
                cur = self.pos(self.nodes[p as usize].parent);
            }
            part.reverse();
            parts.push(part);
        }
        let mut starts = Vec::new();
        for part in parts.into_iter().rev() {
            starts.push(positions.len());
            positions.extend(part);
        }
        chain.loaded_from = starts.pop(); // the last part is the loaded chain itself
        chain.earlier_parts = starts;
    }

    fn chain_diagnostics(&self, v: &View<'_>, chain: &mut Chain) {
        for b in &chain.bridges {
            let child = &self.nodes[b.child as usize];
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(child.line),
                Code::GapBridged,
                Severity::Info,
                format!(
                    "parent {} of {} {}; bridged to {} ({} ms older), as Claude Code 2.1.332 does",
                    b.missing_parent.as_deref().unwrap_or("(already on the chain)"),
                    self.ids.text(child.uuid),
                    if b.missing_parent.is_some() {
                        "is not in the file"
                    } else {
                        "closes a cycle"
                    },
                    self.uuid_text(b.to),
                    b.gap_ms
                ),
            ));
        }
        if let (Some(end @ (WalkEnd::Dangling(_) | WalkEnd::Cycle)), Some(root)) = (&chain.end, chain.walk_root) {
            let missing = match end {
                WalkEnd::Dangling(u) => Some(u.as_str()),
                _ => None,
            };
            let (severity, message) = walk_stop(missing, self.not_loaded_before(chain, root));
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.nodes[root as usize].line),
                if matches!(end, WalkEnd::Cycle) {
                    Code::Cycle
                } else {
                    Code::DanglingParent
                },
                severity,
                message,
            ));
        }
        if let Some(last) = self.nodes.iter().rposition(Node::is_boundary) {
            let reaches = chain
                .positions
                .iter()
                .any(|&p| p as usize >= last && self.nodes[p as usize].is_boundary());
            if !reaches && v.alive[last] && chain.earlier_parts.is_empty() {
                chain.diagnostics.push(Diagnostic::new(
                    &self.file,
                    Some(self.nodes[last].line),
                    Code::ChainMissesLastBoundary,
                    Severity::Error,
                    "the resumed chain does not reach the last compact boundary: its summary is not loaded",
                ));
            }
        }
        if self.unterminated {
            chain.diagnostics.push(Diagnostic::new(
                &self.file,
                Some(self.lines),
                Code::UnterminatedLastLine,
                Severity::Info,
                "the file does not end with a newline: possibly still being written",
            ));
        }
    }

    /// Earliest and latest parseable timestamps of any record, in milliseconds.
    pub fn time_span(&self) -> Option<(i64, i64)> {
        self.span
    }

    /// Conversation messages of the main chain written before `pos` in the same compaction
    /// era (after the last compact boundary written before it) that `chain` does not load:
    /// what a walk that stops at `pos` loses. Nothing, when `pos` is where the file's
    /// conversation begins (a session continued from another file, or a file cut short).
    pub fn not_loaded_before(&self, chain: &Chain, pos: u32) -> usize {
        let line = self.nodes[pos as usize].line;
        let era = self
            .nodes
            .iter()
            .filter(|n| n.is_boundary() && n.line < line)
            .map(|n| n.line)
            .max()
            .unwrap_or(0);
        let on: FxHashSet<u32> = chain.positions.iter().copied().collect();
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| {
                n.line > era
                    && n.line < line
                    && n.is_conversation()
                    && n.is_sidechain() == chain.sidechain
                    && !on.contains(&(*i as u32))
            })
            .count()
    }

    /// User and assistant messages of the main chain that the chain does not include.
    pub fn unreachable(&self, chain: &Chain) -> usize {
        let on: FxHashSet<u32> = chain.positions.iter().copied().collect();
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| n.is_conversation() && !n.is_sidechain() && !on.contains(&(*i as u32)))
            .count()
    }
}

/// The severity and the message of a walk that stops at a broken link: `missing` is the
/// parent that is not in the file (`None` for a link that closes a cycle), `lost` what the
/// stop leaves out ([`Transcript::not_loaded_before`]).
pub fn walk_stop(missing: Option<&str>, lost: usize) -> (Severity, String) {
    let why = match missing {
        Some(u) => format!("parent {u} is not in the file"),
        None => "its parent link closes a cycle".to_string(),
    };
    if lost > 0 {
        (
            Severity::Error,
            format!("the resumed chain stops here: {why}, so a resume loses {lost} message(s) written before it"),
        )
    } else {
        let start = if missing.is_some() {
            " (continued from another file, or the file's start is missing)"
        } else {
            ""
        };
        (
            Severity::Info,
            format!("the resumed chain starts here: {why}{start}; nothing written before it in this file is lost"),
        )
    }
}

/// Assistant rows sorted by message id, then position.
struct Groups {
    rows: Vec<(u32, u32)>,
}

impl Groups {
    /// The positions of the rows with this message id, in map order.
    fn get(&self, id: u32) -> Vec<u32> {
        let lo = self.rows.partition_point(|r| r.0 < id);
        let hi = self.rows.partition_point(|r| r.0 <= id);
        self.rows[lo..hi].iter().map(|r| r.1).collect()
    }
}

/// B1 fallback candidates: per raw `isSidechain` group, entries sorted by (time, position).
struct Candidates {
    groups: [Vec<(i64, u32)>; 4],
}

impl Candidates {
    fn new(t: &Transcript, v: &View<'_>) -> Candidates {
        let mut groups: [Vec<(i64, u32)>; 4] = Default::default();
        for (i, n) in t.nodes.iter().enumerate() {
            if v.alive[i] && n.ts != NO_TS && !(n.kind == Kind::System && n.sub == Sub::FileSnapshot) {
                groups[n.side as usize].push((n.ts, i as u32));
            }
        }
        for g in &mut groups {
            g.sort_unstable();
        }
        Candidates { groups }
    }

    fn fallback(&self, child: &Node, on_chain: &[bool]) -> Option<u32> {
        if child.ts == NO_TS {
            return None;
        }
        let g = &self.groups[child.side as usize];
        let upper = g.partition_point(|&(ts, _)| ts <= child.ts);
        // The newest timestamp that still has an entry off the chain...
        let newest = g[..upper].iter().rev().find(|&&(_, p)| !on_chain[p as usize])?.0;
        if child.ts - newest > GAP_BRIDGE_MS {
            return None;
        }
        // ...and among entries with that timestamp, the earliest in the file.
        let lo = g.partition_point(|&(ts, _)| ts < newest);
        g[lo..upper]
            .iter()
            .take_while(|&&(ts, _)| ts == newest)
            .find(|&&(_, p)| !on_chain[p as usize])
            .map(|&(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    mod samples {
        include!("../../../tests/cli/shared_lookup.rs");
    }

    fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                files_under(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }

    /// The parallel batches must index exactly what a sequential read indexes: same nodes,
    /// same order, same diagnostics, bad and repaired lines included.
    #[test]
    fn parallel_batches_read_exactly_like_a_sequential_read() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        files_under(&root.join("fixtures"), &mut files);
        assert!(files.len() > 20, "fixtures found: {}", files.len());
        // The optional samples beside a checkout, when present (the same lookup as the
        // integration tests: a clean clone reads the fixtures alone).
        if let Some(dir) = samples::shared("claude-code") {
            let before = files.len();
            files_under(&dir, &mut files);
            assert!(files.len() > before, "no transcripts in {}", dir.display());
        }
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for f in files {
            let src = Source::from_bytes(&f.display().to_string(), std::fs::read(&f).unwrap());
            for audit in [false, true] {
                let one = read_inner(&src, 0, 1, &mut |_| {}, audit, u64::MAX).unwrap();
                let par = pool.install(|| read_inner(&src, 0, 1, &mut |_| {}, audit, 0)).unwrap();
                assert_eq!(format!("{one:?}"), format!("{par:?}"), "{}", f.display());
            }
        }
    }

    /// Many windows and rounds (each mapped over while the previous one is indexed), from the
    /// start and from an offset: still exactly the sequential read.
    #[test]
    fn parallel_rounds_over_a_large_input_read_like_a_sequential_read() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let one_file = std::fs::read(root.join("fixtures/compact/claude-work.jsonl")).unwrap();
        let mut bytes = Vec::new();
        let mut copies = 0;
        while bytes.len() < 80 * 1024 * 1024 {
            bytes.extend_from_slice(&one_file);
            if copies % 50 == 7 {
                bytes.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"broken\n\n\r\n");
            }
            copies += 1;
        }
        bytes.extend_from_slice(b"{\"type\":\"user\",\"uuid\":\"unterminated\"");
        let src = Source::from_bytes("big.jsonl", bytes);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mid = src.as_slice().unwrap().len() / 3;
        let from = mid + memchr::memchr(b'\n', &src.as_slice().unwrap()[mid..]).unwrap() + 1;
        let from_line = memchr::memchr_iter(b'\n', &src.as_slice().unwrap()[..from]).count() as u64 + 1;
        for (offset, line) in [(0u64, 1u64), (from as u64, from_line)] {
            let one = read_inner(&src, offset, line, &mut |_| {}, false, u64::MAX).unwrap();
            let par = pool
                .install(|| read_inner(&src, offset, line, &mut |_| {}, false, 0))
                .unwrap();
            assert_eq!(one.nodes.len(), par.nodes.len());
            assert_eq!(format!("{one:?}"), format!("{par:?}"), "from {offset}");
        }
    }
}
