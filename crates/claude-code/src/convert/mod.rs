//! Claude Code transcripts to and from the conversation of `cctool convert`
//! (`docs/convert.md`).
//!
//! Read: the chain a resume loads (`chain.rs`), from its last compaction, or with `full` the
//! whole history with every compaction at its place. Written: a linked `uuid`/`parentUuid`
//! chain (without it Claude Code loads only the last record), one `message.id` shared by the
//! rows of one response (without it the client splits the response apart), tool ids the API
//! accepts, every tool input an object, each compaction a `compact_boundary` row and its
//! summary row.

use serde_json::Value;

use super::chain::{self as claude, Kind, Options, flag};
use crate::io::Source;
use cctool_core::convert::model::{Answered, Body, Conversation, Emitter, Sink, call_key, collect};

/// The conversation a resume of `src` loads (`full`: its whole history).
pub fn read(src: &Source, full: bool) -> std::io::Result<Conversation> {
    collect(|sink| read_stream(src, full, false, sink))
}

/// [`read`], streamed: the head, then each entry as soon as it is complete. Only the index
/// of the file is held (as `rebuild-chain` holds it), with the pages read released behind.
/// `answered`: the head carries the calls the conversation answers, from a first pass over
/// the results.
// Long because it is one pass that hands each entry on as soon as it is complete, its state
// (the head being found, the entry open, what was left out) shared by every step; split, the
// steps would pass that state between them whole.
pub fn read_stream(src: &Source, full: bool, answered: bool, sink: Sink<'_>) -> std::io::Result<Conversation> {
    let t = claude::read(src)?;
    let chain = t
        .rebuild(&Options {
            full,
            ..Options::default()
        })
        .unwrap_or_default();
    let positions = &in_order(src, &t, &chain, full)?;
    let mut c = Conversation::new(crate::ID);
    c.session_id = t.session_ids.first().cloned().unwrap_or_else(|| src.name().to_string());
    let record = |p: u32| -> std::io::Result<Value> {
        let node = t.node(p);
        Ok(crate::io::json::parse_record(
            &src.read_range(node.offset, node.len as usize)?,
        ))
    };
    // The writers put the working directory and the model on their first lines. The
    // directory is the session's first: a user who changes directory mid-session still has
    // the same session, whose earlier conversion must stay a prefix of the next (and Claude
    // Code keeps the transcript in the first directory's project folder). The model is the
    // last along the chain, found from its end: the one a resume continues with.
    for &p in positions {
        if let Some(cwd) = record(p)?.get("cwd").and_then(Value::as_str) {
            c.cwd = Some(cwd.to_string());
            break;
        }
    }
    for &p in positions.iter().rev() {
        let node = t.node(p);
        if node.kind == Kind::Assistant
            && !node.has(flag::API_ERROR)
            && !node.is_boundary()
            && let Some(m) = record(p)?.pointer("/message/model").and_then(Value::as_str)
            && m != "<synthetic>"
        {
            c.model = Some(m.to_string());
            break;
        }
    }
    let answered = match answered {
        false => None,
        true => {
            let mut set = Answered::default();
            for &p in positions {
                let node = t.node(p);
                if node.kind == Kind::User && !node.has(flag::COMPACT_SUMMARY) {
                    let rec = record(p)?;
                    for b in rec
                        .pointer("/message/content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                            set.insert(call_key(&str_of(b, "tool_use_id")));
                        }
                    }
                }
            }
            Some(set)
        }
    };
    let mut c = Emitter::new(c, sink);
    c.head(answered)?;
    // The summary row each boundary takes (the first before the next boundary; rows a
    // compaction preserved may come between, 2.1.88 session memory), found from the index.
    let mut summary_of = rustc_hash::FxHashMap::default();
    let mut taken = rustc_hash::FxHashSet::default();
    for (i, &p) in positions.iter().enumerate() {
        if t.node(p).is_boundary()
            && let Some(&q) = positions[i + 1..]
                .iter()
                .take_while(|&&q| !t.node(q).is_boundary())
                .find(|&&q| t.node(q).kind == Kind::User && t.node(q).has(flag::COMPACT_SUMMARY))
        {
            summary_of.insert(i, q);
            taken.insert(q);
        }
    }
    let need = |p: u32| {
        let node = t.node(p);
        match node.kind {
            _ if node.is_boundary() || taken.contains(&p) => Need::Key,
            Kind::User if node.has(flag::COMPACT_SUMMARY) => Need::Summary,
            Kind::User => Need::User,
            Kind::Assistant if node.has(flag::API_ERROR) => Need::Key,
            Kind::Assistant => Need::Assistant,
            Kind::System => Need::System,
            Kind::Attachment => Need::Key,
        }
    };
    let mut last_msg: Option<(u32, usize)> = None;
    let mut released = src.releaser();
    // The rows are read on every core, a batch at a time, while the batch before is taken in
    // chain order here: what depends on the rows before (a response's rows made one entry,
    // the keys) is decided in order.
    let mut each = |i: usize, p: u32, row: Row| -> std::io::Result<()> {
        c.check()?;
        let node = t.node(p);
        released.touch(node.offset, node.len);
        let key = if row.key.is_empty() {
            format!("L{}", node.line)
        } else {
            row.key
        };
        let ts = row.ts;
        if node.is_boundary() {
            // The target has the summary at the boundary, as its own compaction, and the rows
            // a compaction preserved after it.
            let text = match summary_of.get(&i) {
                Some(&q) => crate::summaries::claude_summary_text(&record(q)?).unwrap_or_default(),
                None => String::new(),
            };
            c.push(&key, ts, Body::Compaction(text));
            last_msg = None;
            return Ok(());
        }
        if taken.contains(&p) {
            return Ok(());
        }
        for kind in row.drops {
            c.drop(&kind);
        }
        match row.got {
            // A summary without its boundary in the chain: still the conversation's start.
            Got::Summary(text) => {
                c.push(&key, ts, Body::Compaction(text));
                last_msg = None;
            }
            Got::User(bodies) => {
                for b in bodies {
                    c.push(&key, ts.clone(), b);
                }
                last_msg = None;
            }
            Got::Assistant(blocks) => {
                // Rows of one response (one block per row) become one entry.
                // (`u32::MAX`: a row without a `message.id`, never merged.)
                let same = node.msg_id != u32::MAX
                    && matches!(last_msg, Some((id, i)) if id == node.msg_id && i == c.pushed());
                if same && let Some(Body::Assistant(b)) = c.last_mut().map(|e| &mut e.body) {
                    b.extend(blocks);
                } else {
                    c.push(&key, ts, Body::Assistant(blocks));
                }
                last_msg = Some((node.msg_id, c.pushed()));
            }
            Got::System(sub) => c.drop(&format!("system:{sub}")),
            Got::Nothing if node.kind == Kind::Assistant => c.drop("assistant:api-error"),
            Got::Nothing => c.drop("attachment"),
        }
        Ok(())
    };
    read_rows(src, &t, positions, &need, &mut each)?;
    let mut c = c.finish()?;
    // Every other line: what a resume does not load (earlier history, other branches,
    // progress, snapshots, titles), counted by type.
    for (kind, n) in not_loaded(src, &t, positions)? {
        c.drop_n(&kind, n);
    }
    Ok(c)
}

/// The records the conversation carries, by position in the index, in the order the session
/// model's stream hands them on (`events::chain_of`, which settles what a resume loads, or
/// with `full` the whole history, from the index and chain read already). Only their places
/// are asked: each row is read after, on every core ([`read_rows`]).
fn in_order(src: &Source, t: &claude::Transcript, chain: &claude::Chain, full: bool) -> std::io::Result<Vec<u32>> {
    use cctool_core::model::events::Event;
    // The index's nodes are in file order, save where a uuid written twice took its later
    // copy at the first one's place: only then is a table of them by offset needed.
    let sorted = t.nodes.is_sorted_by_key(|n| n.offset);
    let mut by_offset: Vec<(u64, u32)> = Vec::new();
    if !sorted {
        by_offset = t.nodes.iter().zip(0..).map(|(n, p)| (n.offset, p)).collect();
        by_offset.sort_unstable();
    }
    let pos_of = |offset: u64| match sorted {
        true => t
            .nodes
            .binary_search_by_key(&offset, |n| n.offset)
            .ok()
            .map(|p| p as u32),
        false => by_offset
            .binary_search_by_key(&offset, |&(o, _)| o)
            .ok()
            .map(|i| by_offset[i].1),
    };
    let mut positions = Vec::with_capacity(chain.positions.len());
    crate::events::chain_of(src, t, chain, cctool_core::convert::read::order(full), &mut |e| {
        if let Event::Record(r) = e {
            positions.extend(r.at.and_then(|at| pos_of(at.offset)));
        }
    })?;
    Ok(positions)
}

/// The lines of `src` the conversation does not carry (the rows at `positions`), counted by
/// type. A message row's type is its kind in the index, which read it from the same line; only
/// the lines between the index's rows (progress, snapshots, titles, unreadable ones) are split
/// and parsed, on every core: the rows, most of the file, are not read again.
/// [`not_loaded_in_order`] is the plain reading.
fn not_loaded(
    src: &Source,
    t: &claude::Transcript,
    positions: &[u32],
) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    use rayon::prelude::*;
    use std::collections::BTreeMap;
    let mut starts: Vec<u64> = positions.iter().map(|&p| t.node(p).offset).collect();
    starts.sort_unstable();
    let mut rows: Vec<(u64, u64, Kind)> = t.nodes.iter().map(|n| (n.offset, n.len, n.kind)).collect();
    rows.sort_unstable_by_key(|&(o, _, _)| o);
    let mut counts = BTreeMap::new();
    // The spans between rows, gathered into batches of a few MiB of the file for the cores;
    // each batch's pages are released after it (so the file's pages do not stay mapped).
    let (mut batches, mut batch, mut at) = (Vec::new(), Vec::<(u64, u64)>::new(), 0);
    let mut gap = |from: u64, to: u64, batch: &mut Vec<(u64, u64)>| {
        if to > from {
            batch.push((from, to));
        }
        if batch.first().is_some_and(|&(first, _)| to - first >= BATCH_BYTES) {
            batches.push(std::mem::take(batch));
        }
    };
    for &(offset, len, kind) in &rows {
        if starts.binary_search(&offset).is_err() {
            *counts.entry(format!("not loaded:{}", kind_type(kind))).or_insert(0) += 1;
        }
        gap(at, offset, &mut batch);
        at = at.max(offset + len);
    }
    gap(at, src.len(), &mut batch);
    batches.push(batch);
    let types = batches
        .par_iter()
        .map(|spans| {
            let mut counts = BTreeMap::<String, u64>::new();
            for &(from, to) in spans {
                // A span of many lines is read a few MiB at a time, cut after a newline.
                let mut pos = from;
                while pos < to {
                    let mut bytes = src.read_range(pos, (to - pos).min(BATCH_BYTES) as usize)?;
                    let mut cut = bytes.len();
                    if pos + cut as u64 != to {
                        match memchr::memrchr(b'\n', &bytes) {
                            Some(i) => cut = i + 1,
                            // A line longer than that: read whole.
                            None => {
                                bytes = src.read_range(pos, (to - pos) as usize)?;
                                cut = bytes.len();
                            }
                        }
                    }
                    let bytes = &bytes[..cut];
                    let end = pos + cut as u64;
                    let mut stats = crate::io::lines::LineStats::default();
                    crate::io::lines::split_chunk(pos, bytes, end == src.len(), &mut stats, &mut |l| {
                        *counts.entry(not_loaded_type(l.bytes)).or_insert(0) += 1;
                    });
                    if end - pos >= BATCH_BYTES / 2 {
                        src.done_with(pos, end - pos);
                    }
                    pos = end;
                }
            }
            if let (Some(&(from, _)), Some(&(_, to))) = (spans.first(), spans.last()) {
                src.done_with(from, to - from);
            }
            Ok(counts)
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    for (ty, n) in types.into_iter().flatten() {
        *counts.entry(ty).or_insert(0) += n;
    }
    Ok(counts)
}

/// [`not_loaded`], every line read in order and parsed.
#[cfg(test)]
fn not_loaded_in_order(src: &Source, carried: &[u64]) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    let mut counts = std::collections::BTreeMap::new();
    crate::io::for_each_line(src, |l| {
        let is_carried = carried
            .get((l.no / 64) as usize)
            .is_some_and(|w| w & (1 << (l.no % 64)) != 0);
        if !is_carried {
            *counts.entry(not_loaded_type(l.bytes)).or_insert(0) += 1;
        }
    })?;
    Ok(counts)
}

/// The `type` of a message row of kind `k`.
fn kind_type(k: Kind) -> &'static str {
    match k {
        Kind::User => "user",
        Kind::Assistant => "assistant",
        Kind::System => "system",
        Kind::Attachment => "attachment",
    }
}

fn not_loaded_type(line: &[u8]) -> String {
    let h = cctool_core::convert::line_head(line);
    format!("not loaded:{}", h.ty.as_deref().unwrap_or("unreadable"))
}

mod converter;
mod rows;
mod write;

pub use converter::Converter;
use rows::{BATCH_BYTES, Got, Need, Row, read_rows, str_of};
pub use write::{tool_id, write, writer};

#[cfg(test)]
mod tests;
