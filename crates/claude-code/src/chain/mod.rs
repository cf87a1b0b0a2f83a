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

pub use super::intern::Id;
use super::intern::Interner;
use crate::io::json::{LBool, LStr, with_parsed_borrowed};
use crate::io::lines::{LineStats, split_chunk};
use crate::io::{Line, Source};
use crate::records::{Envelope, is_known_type};
use cctool_core::model::diag::{Code, Diagnostic, Severity};
use cctool_core::model::time::parse_ms;

mod diagnostics;
mod history;
mod index;
mod load;
mod recovery;
mod segments;
mod tip;
mod walk;

use index::*;
pub use load::*;
use recovery::*;
pub use walk::*;

pub use cctool_core::model::resume::Loader;

/// B1: the largest gap (child minus fallback timestamp) that 2.1.332 bridges.
pub const GAP_BRIDGE_MS: i64 = 5000;

const NO_TS: i64 = i64::MIN;
/// How often (in bytes read) progress is reported.
const PROGRESS_STEP: u64 = 4 * 1024 * 1024;
/// The parent of a root message (`parentUuid` null or absent).
const ROOT: Id = Id(u32::MAX);
/// A `parentUuid` that is neither a string nor null: it can never resolve.
const INVALID: Id = Id(u32::MAX - 1);
/// No position: an id no message of the file has.
const NONE: u32 = u32::MAX;

/// A message's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `user` row.
    User,
    /// An `assistant` row.
    Assistant,
    /// A `system` row.
    System,
    /// An `attachment` row.
    Attachment,
}

/// A system row's `subtype`, as far as the loaders tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sub {
    /// No subtype, or not a system row.
    None,
    /// `compact_boundary`: a compaction's cut.
    CompactBoundary,
    /// `microcompact_boundary`.
    MicrocompactBoundary,
    /// `local_command`: a slash command's output.
    LocalCommand,
    /// `file_snapshot`.
    FileSnapshot,
    /// `fork_briefing`: what a forked session starts with.
    ForkBriefing,
    /// Any other subtype.
    Other,
}

/// The raw `isSidechain` value: 2.1.332 groups B1 candidates by it, so an absent field and
/// `false` are different groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// No `isSidechain` key.
    Absent = 0,
    /// `isSidechain: false`.
    False = 1,
    /// `isSidechain: true`.
    True = 2,
    /// `isSidechain` of another type.
    Other = 3,
}

/// Bits of [`Node::flags`]: what the row's flags and content say of it.
pub mod flag {
    /// `isMeta` is true.
    pub const META: u16 = 1;
    /// `isCompactSummary` is true.
    pub const COMPACT_SUMMARY: u16 = 1 << 1;
    /// The content holds a `tool_result` block.
    pub const TOOL_RESULT: u16 = 1 << 2;
    /// The content holds a `tool_use` block.
    pub const TOOL_USE: u16 = 1 << 3;
    /// `isApiErrorMessage` is true.
    pub const API_ERROR: u16 = 1 << 4;
    /// `message.model` is `<synthetic>`: the client wrote it, not the model.
    pub const SYNTHETIC: u16 = 1 << 5;
    /// The content is a plain string.
    pub const STRING_CONTENT: u16 = 1 << 6;
    /// The content holds a thinking block.
    pub const THINKING: u16 = 1 << 7;
    /// The content holds a text block.
    pub const TEXT: u16 = 1 << 8;
    /// The content holds a `server_tool_use` block.
    pub const SERVER_TOOL_USE: u16 = 1 << 9;
}

/// One transcript message (a map entry of the real loader).
#[derive(Clone, Debug)]
pub struct Node {
    /// The message's interned `uuid`.
    pub uuid: Id,
    parent: Id,
    /// Where the content comes from: the last occurrence of the uuid.
    pub offset: u64,
    /// Length in bytes of that line.
    pub len: u64,
    /// 1-based line number of that line.
    pub line: u64,
    /// `timestamp` in milliseconds since the epoch, or a sentinel when absent or unreadable.
    pub ts: i64,
    /// Dense id of an assistant row's `message.id` (rows of one reply share it); `u32::MAX` otherwise.
    pub msg_id: u32,
    /// The row's `type`.
    pub kind: Kind,
    /// A system row's `subtype`.
    pub sub: Sub,
    /// The row's `isSidechain` as written.
    pub side: Side,
    /// Bits from [`flag`].
    pub flags: u16,
}

impl Node {
    /// Whether any bit of `f` (of [`flag`]) is set.
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    /// Whether the row is a subagent's (`isSidechain: true`).
    pub fn is_sidechain(&self) -> bool {
        self.side == Side::True
    }

    /// The interned `parentUuid` as written (after progress bridging), if it is a uuid.
    pub fn parent_id(&self) -> Option<Id> {
        (self.parent < INVALID).then_some(self.parent)
    }

    /// Whether the row is a compact boundary.
    pub fn is_boundary(&self) -> bool {
        self.kind == Kind::System && self.sub == Sub::CompactBoundary
    }

    fn is_conversation(&self) -> bool {
        matches!(self.kind, Kind::User | Kind::Assistant)
    }
}

#[derive(Clone, Debug)]
struct Segment {
    /// The boundary's position.
    pos: u32,
    /// The preserved segment's first and last messages and the message it hangs from.
    head: Id,
    anchor: Id,
    tail: Id,
}

/// A compact boundary's metadata, kept for reports.
#[derive(Clone, Debug, Default)]
pub struct BoundaryInfo {
    /// Position of the boundary in [`Transcript::nodes`].
    pub pos: u32,
    /// `logicalParentUuid`: the message the boundary stands in for.
    pub logical_parent: Option<Id>,
    /// `compactMetadata.trigger`.
    pub trigger: Option<String>,
    /// `compactMetadata.preTokens`.
    pub pre_tokens: Option<i64>,
    /// Whether it keeps a preserved segment (a partial compaction).
    pub has_segment: bool,
}

/// Everything read from a transcript: the message map in first-occurrence order and the
/// tables the loaders consult.
#[derive(Debug, Default)]
pub struct Transcript {
    /// The file's name, for messages.
    pub file: String,
    /// The uuids of the file, interned.
    pub ids: Interner,
    /// `message.id` of assistant rows → dense id (text not kept).
    msg_ids: FxHashMap<Box<str>, u32>,
    /// The messages, each uuid once, in first-occurrence order.
    pub nodes: Vec<Node>,
    /// Position in `nodes`, by interned id ([`Id::index`]).
    pos_of: Vec<u32>,
    segments: Vec<Segment>,
    /// A snip boundary's position and the ids it removes.
    snips: Vec<(u32, Vec<Id>)>,
    /// The file's compact boundaries, in file order.
    pub boundaries: Vec<BoundaryInfo>,
    /// What reading found wrong with the file.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines read.
    pub lines: u64,
    /// Lines that are not a JSON object.
    pub bad_lines: u64,
    /// Messages whose uuid an earlier line already had.
    pub duplicate_uuids: u64,
    /// Legacy progress rows bridged over in the parent links.
    pub progress_bridged: u64,
    /// `summary` rows (the other title rows are not counted).
    pub titles: u64,
    /// (offset, length) of each line whose `type` is a title row's (`custom-title`,
    /// `ai-title`, `summary`), in file order: `scan` reads the session's title from them.
    pub title_rows: Vec<(u64, usize)>,
    /// Line of the first occurrence of each duplicated uuid, by its position.
    pub first_lines: FxHashMap<u32, u64>,
    /// Each distinct `sessionId`, in first-seen order.
    pub session_ids: Vec<String>,
    /// Each distinct client `version`, in first-seen order.
    pub versions: Vec<String>,
    /// Earliest and latest timestamps of any record.
    span: Option<(i64, i64)>,
    /// With [`read_for_audit`]: every `parentUuid` as written, by line (progress rows too).
    pub links: Option<Vec<Link>>,
    /// With [`read_for_audit`]: the uuids of legacy progress rows.
    pub progress_ids: FxHashSet<Id>,
    /// Position of the last-written main-chain row (B4), by physical line.
    last_written: Option<u32>,
    unterminated: bool,
}

impl Transcript {
    fn pos(&self, id: Id) -> Option<u32> {
        if id >= INVALID {
            return None;
        }
        self.pos_of.get(id.index()).copied().filter(|&p| p != NONE)
    }

    /// The message at position `pos`.
    pub fn node(&self, pos: u32) -> &Node {
        &self.nodes[pos as usize]
    }

    /// The uuid of the message at position `pos`, as text.
    pub fn uuid_text(&self, pos: u32) -> String {
        self.ids.text(self.nodes[pos as usize].uuid)
    }

    /// Position of the message with interned id `id`, if it is in the file.
    pub fn find_id(&self, id: Id) -> Option<u32> {
        self.pos(id)
    }

    /// Position of the message with `uuid`, if it is in the file.
    pub fn find(&self, uuid: &str) -> Option<u32> {
        self.ids.get(uuid).and_then(|id| self.pos(id))
    }

    /// The position of each message by the offset of its line, for readers of the session
    /// model's stream, whose records say where they are.
    pub fn by_offset(&self) -> ByOffset<'_> {
        // The nodes are in file order, save where a uuid written twice took its later copy
        // at the first one's place: only then is a table of them by offset needed.
        let mut sorted = Vec::new();
        if !self.nodes.is_sorted_by_key(|n| n.offset) {
            sorted = self.nodes.iter().zip(0..).map(|(n, p)| (n.offset, p)).collect();
            sorted.sort_unstable();
        }
        ByOffset { t: self, sorted }
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

/// The position of each message of a [`Transcript`] by the offset of its line
/// ([`Transcript::by_offset`]).
pub struct ByOffset<'t> {
    t: &'t Transcript,
    /// (offset, position) of every node, sorted; empty when the nodes are in file order.
    sorted: Vec<(u64, u32)>,
}

impl ByOffset<'_> {
    /// The position of the message whose line starts at `offset`.
    pub fn pos(&self, offset: u64) -> Option<u32> {
        if self.sorted.is_empty() {
            let i = self.t.nodes.binary_search_by_key(&offset, |n| n.offset).ok()?;
            return u32::try_from(i).ok();
        }
        let i = self.sorted.binary_search_by_key(&offset, |&(o, _)| o).ok()?;
        Some(self.sorted[i].1)
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
    read_inner(src, offset, first_line, progress, false, PARALLEL_MIN, &mut |_| {})
}

/// [`read`], also keeping every parent reference as written (progress rows included), for
/// integrity checks that the loader itself does not need.
pub fn read_for_audit(src: &Source) -> io::Result<Transcript> {
    read_for_audit_seeing(src, &mut |_| {})
}

/// [`read_for_audit`] that also hands every line of the file, in file order, to `each`: a
/// reader that needs something of every line besides the index reads it in the same pass
/// (a second pass costs a read of the file again, or the page faults of its mapping).
pub fn read_for_audit_seeing(src: &Source, each: &mut dyn FnMut(&Line<'_>)) -> io::Result<Transcript> {
    read_inner(src, 0, 1, &mut |_| {}, true, PARALLEL_MIN, each)
}

#[cfg(test)]
mod tests {
    use super::*;

    mod samples {
        include!("../../../../tests/cli/shared_lookup.rs");
    }

    /// What a line handed to the reader beside the index is made of.
    fn seen(l: &Line<'_>) -> (u64, u64, Vec<u8>, bool) {
        (l.no, l.offset, l.bytes.to_vec(), l.terminated)
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
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
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
            // The lines handed on to a reader beside the index are `for_each_line`'s.
            let mut plain = Vec::new();
            crate::io::lines::for_each_line(&src, |l| plain.push(seen(&l))).unwrap();
            for audit in [false, true] {
                let (mut one_lines, mut par_lines) = (Vec::new(), Vec::new());
                let one = read_inner(&src, 0, 1, &mut |_| {}, audit, u64::MAX, &mut |l| {
                    one_lines.push(seen(l))
                })
                .unwrap();
                let par = pool
                    .install(|| read_inner(&src, 0, 1, &mut |_| {}, audit, 0, &mut |l| par_lines.push(seen(l))))
                    .unwrap();
                assert_eq!(format!("{one:?}"), format!("{par:?}"), "{}", f.display());
                assert!(one_lines == plain && par_lines == plain, "{}", f.display());
            }
        }
    }

    /// Many windows and rounds (each mapped over while the previous one is indexed), from the
    /// start and from an offset: still exactly the sequential read.
    #[test]
    fn parallel_rounds_over_a_large_input_read_like_a_sequential_read() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
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
        let mut plain = Vec::new();
        crate::io::lines::for_each_line(&src, |l| plain.push(seen(&l))).unwrap();
        for (offset, line) in [(0u64, 1u64), (from as u64, from_line)] {
            let (mut one_lines, mut par_lines) = (Vec::new(), Vec::new());
            let one = read_inner(&src, offset, line, &mut |_| {}, false, u64::MAX, &mut |l| {
                one_lines.push(seen(l))
            })
            .unwrap();
            let par = pool
                .install(|| {
                    read_inner(&src, offset, line, &mut |_| {}, false, 0, &mut |l| {
                        par_lines.push(seen(l))
                    })
                })
                .unwrap();
            assert_eq!(one.nodes.len(), par.nodes.len());
            assert_eq!(format!("{one:?}"), format!("{par:?}"), "from {offset}");
            let rest: Vec<_> = plain.iter().filter(|l| l.1 >= offset).cloned().collect();
            assert!(one_lines == rest && par_lines == rest, "from {offset}");
        }
    }
}
