//! Claude Code's records as the session model's events (`cctool_core::model::events`): every
//! record of the transcript in file order, flagged when it is on the chain a resume loads; or
//! the chain itself (with `--full`, the earlier history its compactions replaced, marked).

use rustc_hash::FxHashSet;
use serde_json::Value;

use super::chain::{self as claude, flag};
use crate::io::Source;
use crate::placement::{self, Placed};
use cctool_core::error::Error;
use cctool_core::model::doc::{image_of, output_text};
use cctool_core::model::events::{
    Ask, At, Call, Compaction, Event, Flags, Mark, Measured, Origin, Outcome, Part, Record, Sink, Streamed, Usage, View,
};
use cctool_core::model::rows::str_of;
use cctool_core::model::session::SessionRecord;
use cctool_core::model::time::parse_ms;

/// Streams the transcript as asked.
pub(crate) fn events(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> Result<Streamed, Error> {
    match ask.view {
        View::Records | View::Calls => records(src, ask, sink, &|| false).map(|(s, _)| s),
        View::Loaded | View::History => chain(src, ask, sink),
    }
}

/// [`events`], then, when `named` says so, what names the transcript (`scan::listing`): in
/// [`View::Records`] and [`View::Calls`] from the index and chain the stream read, which are
/// the listing's own.
pub(crate) fn events_listed(
    src: &Source,
    ask: Ask<'_>,
    sink: Sink<'_>,
    named: &dyn Fn() -> bool,
) -> Result<(Streamed, Option<SessionRecord>), Error> {
    match ask.view {
        View::Records | View::Calls => records(src, ask, sink, named),
        View::Loaded | View::History => {
            let streamed = chain(src, ask, sink)?;
            let listed = if named() {
                Some(super::scan::listing(src)?)
            } else {
                None
            };
            Ok((streamed, listed))
        }
    }
}

/// Every record in file order; for [`View::Calls`], only those that hold a `tool_use`, a
/// `server_tool_use` or a `tool_result`, the others not even read. Then, when `named` says
/// so, what names the transcript, from the same index and chain.
fn records(
    src: &Source,
    ask: Ask<'_>,
    sink: Sink<'_>,
    named: &dyn Fn() -> bool,
) -> Result<(Streamed, Option<SessionRecord>), Error> {
    // The index and chain `scan::listing` reads, so that a listing asked after the stream
    // costs no second reading of the file.
    let t = claude::read_for_audit(src)?;
    let chain = t.rebuild(&claude::Options::default()).unwrap_or_default();
    let on_chain: FxHashSet<u32> = chain.positions.iter().copied().collect();
    let calls = flag::TOOL_USE | flag::SERVER_TOOL_USE | flag::TOOL_RESULT;
    // Records are read in file order: the pages of a mapping behind them are given back.
    let mut released = src.releaser();
    for (pos, n) in t.nodes.iter().enumerate() {
        if ask.view == View::Calls && n.flags & calls == 0 {
            continue;
        }
        let bytes = src.read_range(n.offset, n.len as usize)?;
        released.touch(n.offset, n.len);
        let Some(v) = ask.parse(&bytes) else { continue };
        let at = At {
            line: n.line,
            offset: n.offset,
        };
        record(v, at, n.len, on_chain.contains(&(pos as u32)), sink);
    }
    let streamed = Streamed {
        first_ms: t.time_span().map(|s| s.0),
    };
    let listed = if named() {
        Some(super::scan::named(src, &t, &chain)?)
    } else {
        None
    };
    Ok((streamed, listed))
}

/// The chain a resume loads (with [`View::History`], the earlier parts too), in the order it
/// is sent, each earlier part and the start of what a resume loads marked.
fn chain(src: &Source, ask: Ask<'_>, sink: Sink<'_>) -> Result<Streamed, Error> {
    let t = claude::read(src).map_err(Error::Read)?;
    let chain = t
        .rebuild(&claude::Options {
            loader: claude::Loader::default(),
            tip: None,
            full: ask.view == View::History,
        })
        .map_err(Error::agent)?;
    chain_of(src, &t, &chain, ask, sink).map_err(Error::Read)
}

/// [`chain`] of a transcript whose index and chain (with its earlier parts in
/// [`View::History`]) are read already. Asked for all it holds
/// ([`Ask::native`]), what a resume loads starts at the last compaction, each record carries
/// its JSON, and, in [`View::History`], every record off the chain comes among it in file
/// order (`Origin::OffChain`, with a note where its place needs saying), then every line that
/// is no transcript message (`Origin::Unread`).
pub(crate) fn chain_of(
    src: &Source,
    t: &claude::Transcript,
    chain: &claude::Chain,
    ask: Ask<'_>,
    sink: Sink<'_>,
) -> std::io::Result<Streamed> {
    let earlier = &chain.earlier_parts;
    // Where the chain's records start, the ones before a resume's last compaction left out.
    let mut first = 0;
    if ask.native && ask.view == View::Loaded {
        first = chain
            .positions
            .iter()
            .rposition(|&p| t.node(p).is_boundary())
            .unwrap_or(0);
    }
    // Placed only where asked: each placement holds a note, which the chain alone needs not.
    let placed = ask
        .native
        .then(|| placement::order(t, chain, &chain.positions[first..], ask.view != View::History));
    let records: Box<dyn Iterator<Item = (u32, bool, Option<&String>)>> = match &placed {
        Some(placed) => Box::new(placed.iter().map(|p| (p.pos, p.off_chain, p.note.as_ref()))),
        None => Box::new(chain.positions.iter().map(|&pos| (pos, false, None))),
    };
    let mut released = src.releaser();
    let mut next = first;
    for (pos, off_chain, note) in records {
        // The record's index in the chain, which the chain's marks name.
        let i = next;
        next += usize::from(!off_chain);
        if !off_chain {
            if earlier.contains(&i) {
                sink(Event::Mark(Mark::Earlier));
            } else if !earlier.is_empty() && chain.loaded_from == Some(i) {
                sink(Event::Mark(Mark::Loaded));
            }
        }
        let node = t.node(pos);
        let v = if ask.reads() {
            let bytes = src.read_range(node.offset, node.len as usize)?;
            released.touch(node.offset, node.len);
            match ask.parse(&bytes) {
                Some(v) => v,
                None => continue,
            }
        } else {
            Value::Null
        };
        let at = At {
            line: node.line,
            offset: node.offset,
        };
        let loaded = !off_chain && chain.loaded_from.is_none_or(|from| i >= from);
        let native = ask.native.then(|| v.clone());
        let (mut r, compaction) = record_of(v, at, node.len, loaded);
        if ask.native {
            r.native = native;
            r.note = note.cloned();
            if off_chain {
                r.origin = Origin::OffChain;
            }
        }
        send(r, compaction, sink);
    }
    if let Some(placed) = placed.filter(|_| ask.view == View::History) {
        rest(src, t, &placed, ask, sink)?;
    }
    Ok(Streamed {
        first_ms: t.time_span().map(|s| s.0),
    })
}

/// Every line that is no transcript message of `placed` (metadata, progress rows, titles, bad
/// lines, earlier copies of a uuid written twice), in file order.
fn rest(src: &Source, t: &claude::Transcript, placed: &[Placed], ask: Ask<'_>, sink: Sink<'_>) -> std::io::Result<()> {
    let mut lines: Vec<u64> = placed.iter().map(|p| t.node(p.pos).line).collect();
    lines.sort_unstable();
    let mut next = lines.iter().peekable();
    crate::io::for_each_line(src, |line| {
        while next.next_if(|&&l| l < line.no).is_some() {}
        if next.next_if_eq(&&line.no).is_none() {
            let at = At {
                line: line.no,
                offset: line.offset,
            };
            sink(Event::Record(Record::unread(at, line.bytes, &ask)));
        }
    })
    .map(drop)
}

/// The event of one record, followed by the mark of the compaction it records, if any: the
/// record then has no speaker, since a transcript shows the compaction as its mark.
fn record(v: Value, at: At, len: u64, loaded: bool, sink: Sink<'_>) {
    let (r, compaction) = record_of(v, at, len, loaded);
    send(r, compaction, sink);
}

/// [`record`] of a record made already.
fn send(mut r: Record, compaction: Option<Compaction>, sink: Sink<'_>) {
    if compaction.is_some() {
        r.speaker = None;
    }
    sink(Event::Record(r));
    if let Some(c) = compaction {
        sink(Event::Mark(Mark::Compaction(c)));
    }
}

/// One record as the session model's record, with the compaction it records, if any
/// (`rebuild-chain` renders both in one block). The record is taken whole: its texts, inputs
/// and outputs move into the parts, uncopied.
pub(crate) fn record_of(mut v: Value, at: At, len: u64, loaded: bool) -> (Record, Option<Compaction>) {
    let msg = v.get("message");
    let ty = str_of(&v, "type").unwrap_or("").to_string();
    let usage = msg.and_then(|m| m.get("usage"));
    let tokens = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_i64);
    let flag_of = |k: &str| v.get(k).and_then(Value::as_bool);
    let owned = |k: &str| str_of(&v, k).map(str::to_string);
    let flags = Flags {
        sidechain: flag_of("isSidechain"),
        meta: flag_of("isMeta"),
        compact_summary: flag_of("isCompactSummary"),
    };
    let subtype = str_of(&v, "subtype").unwrap_or("");
    let boundary = ty == "system" && subtype == "compact_boundary";
    let speaker = match ty.as_str() {
        "system" => Some(format!("system/{subtype}")),
        "attachment" => Some("attachment".to_string()),
        "user" | "assistant" if flags.compact_summary == Some(true) => Some("compaction summary".to_string()),
        "user" | "assistant" if flags.meta == Some(true) => Some(format!("{ty} (meta)")),
        "user" | "assistant" => Some(ty.clone()),
        _ => None,
    };
    let time = owned("timestamp");
    let compaction = boundary.then(|| {
        let m = v.get("compactMetadata");
        Compaction {
            time: time.clone(),
            measured: Some(Measured {
                trigger: m.and_then(|m| str_of(m, "trigger")).map(str::to_string),
                pre_tokens: m.and_then(|m| m.get("preTokens")).cloned(),
            }),
            ..Compaction::default()
        }
    });
    let mut r = Record {
        at: Some(at),
        loaded,
        ms: time.as_deref().and_then(parse_ms),
        time,
        session_id: owned("sessionId"),
        client_version: owned("version"),
        model: msg.and_then(|m| str_of(m, "model")).map(str::to_string),
        id: owned("uuid"),
        parent: owned("parentUuid"),
        role: msg.and_then(|m| str_of(m, "role")).map(str::to_string),
        speaker,
        flags,
        usage: Usage {
            input: tokens("input_tokens"),
            output: tokens("output_tokens"),
            cache_read: tokens("cache_read_input_tokens"),
            cache_creation: tokens("cache_creation_input_tokens"),
        },
        bytes: Some(len),
        ..Record::default()
    };
    let content = match v.get_mut("message").and_then(|m| m.get_mut("content")) {
        Some(c) => Some(c.take()),
        None => v.get_mut("content").map(Value::take),
    };
    r.parts = match ty.as_str() {
        "system" => vec![Part::Notice(output_text(
            content.as_ref().unwrap_or(&Value::Null),
            &mut Vec::new(),
        ))],
        "attachment" => vec![Part::Attachment(
            v.get_mut("attachment").map(Value::take).unwrap_or(Value::Null),
        )],
        _ => content.map(parts).unwrap_or_default(),
    };
    r.kind = ty;
    (r, compaction)
}

/// The parts of a message's content (Anthropic's: a string, or a list of blocks).
pub(crate) fn parts(content: Value) -> Vec<Part> {
    match content {
        Value::String(s) => vec![Part::Text(s)],
        Value::Array(blocks) => blocks.into_iter().map(block).collect(),
        _ => Vec::new(),
    }
}

/// One content block as a part, its values moved out of it.
fn block(mut b: Value) -> Part {
    let mut take = |k: &str| b.get_mut(k).map(Value::take);
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let string = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let kind = string(take("type")).unwrap_or_default();
    match kind.as_str() {
        "text" => Part::Text(text(take("text"))),
        "thinking" => Part::Reasoning {
            text: text(take("thinking")),
            summary: false,
        },
        "redacted_thinking" => Part::Redacted,
        "tool_use" | "server_tool_use" => Part::Call(Call {
            id: string(take("id")),
            name: string(take("name")),
            kind,
            input: take("input"),
        }),
        "tool_result" => Part::Outcome(Outcome {
            call_id: string(take("tool_use_id")),
            is_error: Some(take("is_error").and_then(|e| e.as_bool()).unwrap_or(false)),
            output: take("content"),
        }),
        "image" => {
            b["type"] = Value::String(kind);
            image_of(&b).map_or_else(|| other("image".into()), Part::Image)
        }
        _ => other(kind),
    }
}

/// A block of a type cctool does not read, by its type alone.
fn other(kind: String) -> Part {
    Part::Other { kind, value: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cctool_core::model::events::Reading;

    fn row(uuid: &str, parent: Option<&str>, ty: &str, text: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"{ty}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{{"role":"{ty}","content":"{text}"}}}}"#
        )
    }

    #[test]
    fn asked_for_all_it_holds_the_history_places_every_record() {
        let a = "00000000-0000-4000-8000-00000000000a";
        let b = "00000000-0000-4000-8000-00000000000b";
        let c = "00000000-0000-4000-8000-00000000000c";
        let d = "00000000-0000-4000-8000-00000000000d";
        let lines = [
            row(a, None, "user", "start"),
            row(b, Some(a), "assistant", "abandoned"),
            row(c, Some(a), "user", "again"),
            row(d, Some(c), "assistant", "done"),
            r#"{"type":"summary","summary":"a title","leafUuid":"x"}"#.to_string(),
        ];
        let src = Source::from_bytes("t.jsonl", (lines.join("\n") + "\n").into_bytes());
        let t = claude::read(&src).unwrap();
        let chain = t
            .rebuild(&claude::Options {
                full: true,
                ..claude::Options::default()
            })
            .unwrap();
        let stream = |native: bool| {
            let ask = Ask {
                view: View::History,
                reading: Reading::With(&|b| Some(cctool_core::v5::build::parse(b))),
                native,
            };
            let mut seen = Vec::new();
            chain_of(&src, &t, &chain, ask, &mut |e| {
                if let Event::Record(r) = e {
                    seen.push((r.at.unwrap().line, r.origin, r.note.is_some(), r.native.is_some()));
                }
            })
            .unwrap();
            seen
        };
        assert_eq!(
            stream(true),
            [
                (1, Origin::Record, false, true),
                (2, Origin::OffChain, true, true),
                (3, Origin::Record, false, true),
                (4, Origin::Record, false, true),
                (5, Origin::Unread, false, true),
            ]
        );
        // Not asked, the chain alone, as written.
        let lean: Vec<_> = stream(false).into_iter().map(|(l, o, n, v)| (l, o, n || v)).collect();
        assert_eq!(
            lean,
            [
                (1, Origin::Record, false),
                (3, Origin::Record, false),
                (4, Origin::Record, false)
            ]
        );
    }
}
