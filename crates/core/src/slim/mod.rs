//! `cctool slim`: duplicated and unneeded payloads out of a session file, every word of text
//! kept (`docs/slim.md`).
//!
//! The engine is the same for every agent; what differs is asked of the agent's [`Slimmer`]:
//! where payloads sit in one of its lines (and which of them are copies the agent never
//! sends), and which bytes of the file a resume loads. A payload is only ever replaced inside
//! its JSON string, by a placeholder string ([`payload::placeholder`]); every other byte of
//! the file is copied as it is, so `--restore` gives back the original byte for byte.
//!
//! Two passes over the file, in bounded memory: the first notes, for each distinct payload
//! (by hash, never the payload itself), whether a resume sends it and where its last copy
//! is; the second writes the file with the copies that are not needed replaced.

pub mod database;
mod error;
pub mod payload;
pub use error::PayloadError;

use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::io::Source;
use crate::io::json::Members;
use crate::io::lines::{Line, for_each_line};
use payload::{Kept, Payload};

/// A JSON string in a line that may hold a payload (or, once slimmed, a placeholder).
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The string as written, quotes included, as a range of the line.
    pub span: Range<usize>,
    /// A copy the agent keeps for its own display and never sends to the model.
    pub copy: bool,
    /// The media type the record states beside it.
    pub media: Option<String>,
    /// The content block that holds the string, as a range of the line: an image or
    /// document block (which a text block can replace where a resume sends it), or a text
    /// block (which may be such a replacement).
    pub block: Option<Range<usize>>,
}

/// What a resume loads: every byte from `from` on, and the ranges before it that it also
/// loads (a preserved segment, the history a compaction record replays).
#[derive(Clone, Debug, Default)]
pub struct Window {
    /// Byte offset from which the resume loads everything, to the end of the file.
    pub from: u64,
    /// Sorted by start.
    pub ranges: Vec<(u64, u64)>,
}

impl Window {
    fn loads(&self, offset: u64) -> bool {
        if offset >= self.from {
            return true;
        }
        let i = self.ranges.partition_point(|&(start, _)| start <= offset);
        i > 0 && {
            let (start, len) = self.ranges[i - 1];
            offset < start + len
        }
    }
}

/// What slim asks of an agent.
pub trait Slimmer: Sync {
    /// The bytes of the file a resume loads. Errs on the side of loading: a payload in a
    /// range it gives is never replaced.
    fn window(&self, src: &Source) -> io::Result<Window>;

    /// The strings of one line that may hold payloads, in the order written.
    fn candidates(&self, line: &[u8], out: &mut Vec<Candidate>);

    /// A text block holding `text`, as the agent writes one in a message's content.
    fn text_block(&self, text: &str) -> String;

    /// The block a payload of `media` whose string holds `content` has when the agent
    /// writes it in its usual form. Only a block in this form is replaced by a text block,
    /// so that `--restore` can write it back exactly.
    fn payload_block(&self, media: &str, content: &[u8]) -> Option<String>;
}

/// Which payloads are replaced by a placeholder and extracted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Images {
    /// Only duplicates (each becomes a reference to the copy kept in the file).
    #[default]
    None,
    /// Every payload a resume does not load.
    OutsideWindow,
    /// Every payload: those a resume sends become a text block the model reads (the
    /// request gets smaller: what a request over the API's size limit needs).
    All,
}

/// How to slim a file: what `cctool slim`'s options chose.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which payloads go out of the file besides those over `max_payload`.
    pub images: Images,
    /// Payloads larger than this (decoded bytes) are extracted too, also where a resume
    /// sends them (as a text block).
    pub max_payload: Option<u64>,
    /// Where extracted payloads are written; `None` with a dry run.
    pub extract: Option<PathBuf>,
    /// Count, write nothing.
    pub dry_run: bool,
}

impl Options {
    /// Whether a payload of `size` bytes that a resume does not send goes out of the file.
    fn extracts(&self, size: u64) -> bool {
        self.images != Images::None || self.max_payload.is_some_and(|m| size > m)
    }

    /// Whether a payload of `size` bytes that a resume sends goes out of the file.
    fn extracts_sent(&self, size: u64) -> bool {
        self.images == Images::All || self.max_payload.is_some_and(|m| size > m)
    }
}

/// What slimming one file did (or, with a dry run, would do).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Size of the file in bytes before slimming.
    pub bytes_before: u64,
    /// Size in bytes of the file written (with a dry run, of the file that would be).
    pub bytes_after: u64,
    /// Distinct payloads in the file.
    pub payloads: u64,
    /// Base64 bytes of every payload copy in the file.
    pub payload_bytes: u64,
    /// Copies replaced by a reference to the copy kept in the file.
    pub deduplicated: u64,
    /// Copies replaced by a placeholder naming the extracted file.
    pub replaced: u64,
    /// Payload files written (each once, also when several copies name it).
    pub extracted: u64,
    /// Copies kept because a resume sends them.
    pub kept_sent: u64,
}

/// Where each distinct payload is, from the first pass.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// A copy a resume sends stays in the file.
    sent: bool,
    /// The name its extracted file gets (from the first copy's media type: copies of one
    /// payload may state different ones, or none).
    name: String,
    /// The last copy in message content (not a display copy), and else the last copy.
    keep: Option<(u64, u32)>,
    keep_copy: Option<(u64, u32)>,
}

/// One payload occurrence: where it is and whether a resume sends it.
struct Found {
    cand: Candidate,
    payload: Payload,
    sent: bool,
    /// The text block that replaces its block, when a resume sends it and its block is in
    /// the agent's usual form.
    as_text: Option<Range<usize>>,
}

impl Found {
    /// Whether this copy stays in the file, a resume sending it.
    fn stays_sent(&self, opts: &Options) -> bool {
        self.sent && !(opts.extracts_sent(self.payload.size) && self.as_text.is_some())
    }
}

fn found_in(
    slimmer: &dyn Slimmer,
    window: &Window,
    line: &Line<'_>,
    buf: &mut Vec<u8>,
    cands: &mut Vec<Candidate>,
) -> Vec<Found> {
    cands.clear();
    slimmer.candidates(line.bytes, cands);
    let mut out = Vec::new();
    let mut end = 0;
    for c in cands.drain(..) {
        // Overlapping candidates would make two edits of the same bytes: the first wins.
        if c.span.start < end || c.span.len() < 2 {
            continue;
        }
        let content = &line.bytes[c.span.start + 1..c.span.end - 1];
        let Some(p) = payload::read(content, c.media.as_deref(), buf) else {
            continue;
        };
        end = c.span.end;
        let sent = !c.copy && window.loads(line.offset + c.span.start as u64);
        let as_text = c.block.clone().filter(|b| {
            sent && slimmer
                .payload_block(&p.media, content)
                .is_some_and(|t| t.as_bytes() == &line.bytes[b.clone()])
        });
        out.push(Found {
            cand: c,
            payload: p,
            sent,
            as_text,
        });
    }
    out
}

/// Writes the file again with some strings of some lines replaced, every other byte (line
/// ends, a BOM, blank lines, an unterminated tail) copied as it is.
struct Rewriter<'a> {
    src: &'a Source,
    out: &'a mut dyn Write,
    pos: u64,
    written: u64,
}

impl Rewriter<'_> {
    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.written += b.len() as u64;
        self.out.write_all(b)
    }

    fn gap_to(&mut self, offset: u64) -> io::Result<()> {
        match offset - self.pos {
            0 => {}
            // After a line, a single byte can only be its newline.
            1 if self.pos > 0 => self.put(b"\n")?,
            n => {
                let g = self.src.read_range(self.pos, n as usize)?;
                self.put(&g)?;
            }
        }
        self.pos = offset;
        Ok(())
    }

    /// `line` with each range of `edits` (sorted, disjoint) replaced by its bytes.
    fn line(&mut self, line: &Line<'_>, edits: &[(Range<usize>, Vec<u8>)]) -> io::Result<()> {
        self.gap_to(line.offset)?;
        let mut at = 0;
        for (r, with) in edits {
            self.put(&line.bytes[at..r.start])?;
            self.put(with)?;
            at = r.end;
        }
        self.put(&line.bytes[at..])?;
        self.pos = line.offset + line.bytes.len() as u64;
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        let end = self.src.len();
        self.gap_to(end)
    }
}

/// A JSON string literal holding `content` (which needs no escaping: placeholders and base64).
fn literal(content: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(content.len() + 2);
    v.push(b'"');
    v.extend_from_slice(content);
    v.push(b'"');
    v
}

/// Slims `src` into `out` (nothing is written with a dry run, `out` may be a sink).
pub fn slim(src: &Source, slimmer: &dyn Slimmer, opts: &Options, out: &mut dyn Write) -> io::Result<Counts> {
    let window = slimmer.window(src)?;
    let mut buf = Vec::new();
    let mut cands = Vec::new();
    let mut seen: FxHashMap<[u8; 32], Seen> = FxHashMap::default();
    let mut counts = Counts {
        bytes_before: src.len(),
        ..Counts::default()
    };
    for_each_line(src, |l| {
        for (i, f) in found_in(slimmer, &window, &l, &mut buf, &mut cands)
            .into_iter()
            .enumerate()
        {
            counts.payload_bytes += f.payload.b64.len() as u64;
            let s = seen.entry(f.payload.hash).or_default();
            if s.name.is_empty() {
                s.name = payload::file_name(&f.payload.hash, &f.payload.media);
            }
            let at = Some((l.no, i as u32));
            if f.stays_sent(opts) {
                s.sent = true;
            } else if f.sent {
                // Taken out as a text block: not a copy that could be kept.
            } else if f.cand.copy {
                s.keep_copy = at;
            } else {
                s.keep = at;
            }
        }
    })?;
    counts.payloads = seen.len() as u64;

    let mut extracted: FxHashSet<[u8; 32]> = FxHashSet::default();
    let out = if opts.dry_run { None } else { Some(out) };
    counts.bytes_after = rewrite(src, out, |l, edits| {
        for (i, f) in found_in(slimmer, &window, l, &mut buf, &mut cands)
            .into_iter()
            .enumerate()
        {
            let s = &seen[&f.payload.hash];
            if f.stays_sent(opts) {
                counts.kept_sent += 1;
                continue;
            }
            let here = Some((l.no, i as u32));
            if f.sent
                && let Some(block) = &f.as_text
            {
                // Sent, and asked out: a text block the model reads takes the block's place.
                counts.replaced += 1;
                if extracted.insert(f.payload.hash) {
                    counts.extracted += 1;
                    let content = &l.bytes[f.cand.span.start + 1..f.cand.span.end - 1];
                    if let Some(dir) = &opts.extract
                        && !opts.dry_run
                    {
                        extract(dir, &s.name, &payload::decode(&content[f.payload.b64.clone()]))?;
                    }
                }
                let text = payload::placeholder(&f.payload, &Kept::SavedAs(s.name.clone()));
                edits.push((block.clone(), slimmer.text_block(&text).into_bytes()));
                continue;
            }
            let kept_in_file = s.sent || !opts.extracts(f.payload.size);
            let kept = if kept_in_file {
                if !s.sent && s.keep.or(s.keep_copy) == here {
                    continue;
                }
                counts.deduplicated += 1;
                Kept::InFile
            } else {
                counts.replaced += 1;
                let name = s.name.clone();
                if extracted.insert(f.payload.hash) {
                    counts.extracted += 1;
                    let content = &l.bytes[f.cand.span.start + 1..f.cand.span.end - 1];
                    if let Some(dir) = &opts.extract
                        && !opts.dry_run
                    {
                        extract(dir, &name, &payload::decode(&content[f.payload.b64.clone()]))?;
                    }
                }
                Kept::SavedAs(name)
            };
            edits.push((
                f.cand.span.clone(),
                literal(payload::placeholder(&f.payload, &kept).as_bytes()),
            ));
        }
        Ok(())
    })?;
    Ok(counts)
}

/// Edits of one line: ranges of it and what replaces each.
type Edits = Vec<(Range<usize>, Vec<u8>)>;

/// Writes `src` to `out` (or, with `None`, only counts) with each line's ranges replaced as
/// `edit` says, every other byte as it is; returns the size of the result. The first error,
/// `edit`'s or the writer's, stops the run.
fn rewrite(
    src: &Source,
    out: Option<&mut dyn Write>,
    mut edit: impl FnMut(&Line<'_>, &mut Edits) -> io::Result<()>,
) -> io::Result<u64> {
    let mut failed: Option<io::Error> = None;
    let mut sink = io::sink();
    let counting = out.is_none();
    let mut w = Rewriter {
        src,
        out: out.unwrap_or(&mut sink),
        pos: 0,
        written: 0,
    };
    let mut edits = Vec::new();
    let (mut removed, mut added) = (0u64, 0u64);
    for_each_line(src, |l| {
        if failed.is_some() {
            return;
        }
        edits.clear();
        if let Err(e) = edit(&l, &mut edits) {
            failed = Some(e);
            return;
        }
        edits.sort_by_key(|(r, _)| r.start);
        removed += edits.iter().map(|(r, _)| r.len() as u64).sum::<u64>();
        added += edits.iter().map(|(_, v)| v.len() as u64).sum::<u64>();
        if !counting && let Err(e) = w.line(&l, &edits) {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    let size = src.len() - removed + added;
    if !counting {
        w.finish()?;
        debug_assert_eq!(w.written, size);
    }
    Ok(size)
}

/// The base64 bytes of every payload copy in `src` (`scan`'s `payload_bytes`).
pub fn payload_bytes(src: &Source, slimmer: &dyn Slimmer) -> io::Result<u64> {
    let mut buf = Vec::new();
    let mut cands = Vec::new();
    let mut total = 0u64;
    for_each_line(src, |l| {
        total += line_payload_bytes(l.bytes, slimmer, true, &mut cands, &mut buf);
    })?;
    Ok(total)
}

/// The base64 bytes of the payloads in one line. `filtered`: a line shorter than a payload, or
/// without a run of base64 as long as one's, holds none and is not parsed (most lines); the
/// tests hold this to the unfiltered parse.
pub fn line_payload_bytes(
    line: &[u8],
    slimmer: &dyn Slimmer,
    filtered: bool,
    cands: &mut Vec<Candidate>,
    buf: &mut Vec<u8>,
) -> u64 {
    if line.len() < payload::MIN_PAYLOAD || (filtered && !payload::may_hold_payload(line)) {
        return 0;
    }
    cands.clear();
    slimmer.candidates(line, cands);
    let mut total = 0;
    for c in cands.iter() {
        let content = &line[c.span.start + 1..c.span.end - 1];
        if let Some(p) = payload::read_unhashed(content, c.media.as_deref(), buf) {
            total += p.b64.len() as u64;
        }
    }
    total
}

/// Writes one extracted payload as `dir/name`, unless a file of that name already holds it.
fn extract(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let path = dir.join(name);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    crate::io::atomic::write_new_file(&path, bytes, true)
        .map_err(|cause| PayloadError::NotExtracted { path, cause }.into())
}

/// What restoring one file did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Restored {
    /// Size of the slimmed file in bytes.
    pub bytes_before: u64,
    /// Size in bytes of the file written, payloads back in place.
    pub bytes_after: u64,
    /// Placeholders replaced by the payload they name.
    pub restored: u64,
}

/// Writes `src` with every placeholder replaced by the payload it names: found in the file
/// itself, or in `dir` (where `--extract` wrote it). A payload found nowhere is an error
/// naming the line.
pub fn restore(src: &Source, slimmer: &dyn Slimmer, dir: &Path, out: &mut dyn Write) -> io::Result<Restored> {
    // Where the base64 of each payload still in the file is.
    let mut index: FxHashMap<[u8; 32], (u64, usize)> = FxHashMap::default();
    let mut buf = Vec::new();
    let mut cands = Vec::new();
    let loads_all = Window::default();
    for_each_line(src, |l| {
        for f in found_in(slimmer, &loads_all, &l, &mut buf, &mut cands) {
            let start = l.offset + (f.cand.span.start + 1 + f.payload.b64.start) as u64;
            index.entry(f.payload.hash).or_insert((start, f.payload.b64.len()));
        }
    })?;
    let mut r = Restored {
        bytes_before: src.len(),
        ..Restored::default()
    };
    r.bytes_after = rewrite(src, Some(out), |l, edits| {
        cands.clear();
        slimmer.candidates(l.bytes, &mut cands);
        for c in &cands {
            if c.span.len() < 2 {
                continue;
            }
            let text = &l.bytes[c.span.start + 1..c.span.end - 1];
            let Some(p) = payload::parse_placeholder(text) else {
                continue;
            };
            // A text block slim wrote in place of a block a resume sent.
            let as_block = c.block.clone().filter(|b| {
                std::str::from_utf8(text).is_ok_and(|t| slimmer.text_block(t).as_bytes() == &l.bytes[b.clone()])
            });
            let b64 = base64_of(src, &index, dir, &p).map_err(|cause| PayloadError::AtLine { line: l.no, cause })?;
            r.restored += 1;
            let content = payload::original(&p, &b64);
            match as_block.and_then(|b| Some((b, slimmer.payload_block(&p.media, &content)?))) {
                Some((b, block)) => edits.push((b, block.into_bytes())),
                None => edits.push((c.span.clone(), literal(&content))),
            }
        }
        Ok(())
    })?;
    Ok(r)
}

/// The base64 text of the payload `p` names.
fn base64_of(
    src: &Source,
    index: &FxHashMap<[u8; 32], (u64, usize)>,
    dir: &Path,
    p: &payload::Placeholder,
) -> io::Result<Vec<u8>> {
    if let Some(&(at, len)) = index.get(&p.hash) {
        return Ok(src.read_range(at, len)?.into_owned());
    }
    let hex = payload::hex(&p.hash);
    let path = match &p.kept {
        Kept::SavedAs(n) => dir.join(n),
        // Kept in the file when it was slimmed, and taken out since by another run.
        Kept::InFile => std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|q| q.file_stem().is_some_and(|s| s == hex.as_str()))
            .unwrap_or_else(|| dir.join(payload::file_name(&p.hash, &p.media))),
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(cause) => return Err(PayloadError::Unreadable { hash: hex, path, cause }.into()),
    };
    let got: [u8; 32] = {
        use sha2::Digest;
        sha2::Sha256::digest(&bytes).into()
    };
    if got != p.hash {
        return Err(PayloadError::Mismatch {
            path,
            hash: hex,
            got: payload::hex(&got),
        }
        .into());
    }
    Ok(payload::encode(&bytes).into_bytes())
}

/// Helpers for the agents' [`Slimmer::candidates`]: values of a line as written, and their
/// places in it.
pub mod json {
    use super::*;

    /// The members of `raw` when it is an object.
    pub fn object(raw: &RawValue) -> Option<Members<'_>> {
        if !raw.get().starts_with('{') {
            return None;
        }
        Members::parse(raw.get().as_bytes())
    }

    /// The elements of `raw` when it is an array.
    pub fn array(raw: &RawValue) -> Option<Vec<&RawValue>> {
        if !raw.get().starts_with('[') {
            return None;
        }
        serde_json::from_str(raw.get()).ok()
    }

    /// `raw`'s string, when it is one.
    pub fn string(raw: &RawValue) -> Option<String> {
        if !raw.get().starts_with('"') {
            return None;
        }
        serde_json::from_str(raw.get()).ok()
    }

    /// Where `raw` (borrowed from `line`) is in `line`.
    pub fn span(line: &[u8], raw: &RawValue) -> Range<usize> {
        let start = raw.get().as_ptr() as usize - line.as_ptr() as usize;
        start..start + raw.get().len()
    }

    /// A candidate for the string `raw`, when it is a string long enough to be a payload or
    /// a placeholder.
    pub fn candidate(line: &[u8], raw: &RawValue, copy: bool, media: Option<String>) -> Option<Candidate> {
        let s = raw.get();
        (s.starts_with('"') && s.len() >= 100).then(|| Candidate {
            span: span(line, raw),
            copy,
            media,
            block: None,
        })
    }

    /// A candidate for the text of a text block, when it could be a placeholder.
    pub fn text_candidate(line: &[u8], block: &RawValue, text: &RawValue) -> Option<Candidate> {
        let s = text.get();
        (s.starts_with("\"[") && s.len() >= 100).then(|| Candidate {
            span: span(line, text),
            copy: false,
            media: None,
            block: Some(span(line, block)),
        })
    }

    /// Every long string under `raw` (nested at most `depth` deep), each with the media type
    /// its object states (`media_type`, or a `type` that is one).
    pub fn all_strings(line: &[u8], raw: &RawValue, depth: usize, copy: bool, out: &mut Vec<Candidate>) {
        if depth == 0 {
            return;
        }
        if let Some(m) = object(raw) {
            let media = ["media_type", "mediaType", "mime_type", "type"]
                .iter()
                .find_map(|k| m.str(k).filter(|t| payload::is_media_type(t)));
            for (_, v) in m.iter() {
                if let Some(c) = candidate(line, v, copy, media.clone()) {
                    out.push(c);
                } else {
                    all_strings(line, v, depth - 1, copy, out);
                }
            }
        } else if let Some(a) = array(raw) {
            for v in a {
                if let Some(c) = candidate(line, v, copy, None) {
                    out.push(c);
                } else {
                    all_strings(line, v, depth - 1, copy, out);
                }
            }
        }
    }
}
