//! Codex's rollouts as the session model's events (`cctool_core::model::events`): one per
//! response item of the rollout, then the items a resume loads from elsewhere (a
//! compaction's replacement history, a legacy rebuild), each with the session id, client
//! version and model in force where it was written.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::history::History;
use super::rollout::{Item, ItemSrc, Record, Rollout, message_texts};
use crate::io::Source;
use crate::model::events::{At, Call, Event, Flags, Origin, Outcome, Part, Sink, Streamed};
use crate::model::rows::{parse, str_of};
use crate::model::time::parse_ms;

/// Codex item types that call a tool, and those that carry a call's output.
const CODEX_CALLS: [&str; 4] = [
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "tool_search_call",
];
const CODEX_OUTPUTS: [&str; 3] = ["function_call_output", "custom_tool_call_output", "tool_search_output"];

/// The timestamp of every line of a rollout (items carry none of their own).
fn line_times(src: &Source) -> std::io::Result<FxHashMap<u64, i64>> {
    #[derive(serde::Deserialize)]
    struct Ts<'a> {
        #[serde(borrow, default)]
        timestamp: Option<std::borrow::Cow<'a, str>>,
    }
    let mut times = FxHashMap::default();
    crate::io::for_each_line(src, |line| {
        if let Ok(Ts { timestamp: Some(ts) }) = serde_json::from_slice::<Ts<'_>>(line.bytes)
            && let Some(ms) = parse_ms(&ts)
        {
            times.insert(line.no, ms);
        }
    })?;
    Ok(times)
}

/// The session id, client version and model in force where an item was written.
type Meta = (Option<String>, Option<String>, Option<String>);

/// The items of the rollout's own lines, then those a resume loads from elsewhere (the
/// replacement history of a compaction, or a legacy rebuild): each with where it comes from,
/// whether a resume loads it, and the [`Meta`] in force.
fn listed<'r>(rollout: &'r Rollout, history: &'r History) -> Vec<(&'r Item, Origin, bool, Meta)> {
    let on_chain: FxHashSet<u64> = history
        .items
        .iter()
        .filter_map(|i| match i.src {
            ItemSrc::Raw { offset, .. } => Some(offset),
            ItemSrc::Synth(_) => None,
        })
        .collect();
    let (mut session_id, mut version, mut model) = (None::<String>, None::<String>, None::<String>);
    let mut recorded: FxHashSet<u64> = FxHashSet::default();
    let mut items = Vec::new();
    for (_, r) in &rollout.records {
        match r {
            Record::SessionMeta { id, cli_version } => {
                if session_id.is_none() {
                    session_id.clone_from(id);
                }
                if cli_version.is_some() {
                    version.clone_from(cli_version);
                }
            }
            Record::TurnContext { model: Some(m), .. } => model = Some(m.clone()),
            Record::Response(item) | Record::InterAgent(item) => {
                if let ItemSrc::Raw { offset, .. } = item.src {
                    recorded.insert(offset);
                    let chain = on_chain.contains(&offset);
                    items.push((
                        item,
                        Origin::Record,
                        chain,
                        (session_id.clone(), version.clone(), model.clone()),
                    ));
                }
            }
            _ => {}
        }
    }
    for item in &history.items {
        let origin = match item.src {
            ItemSrc::Raw { offset, .. } if recorded.contains(&offset) => continue,
            ItemSrc::Raw { .. } => Origin::ReplacementHistory,
            ItemSrc::Synth(_) => Origin::Rebuilt,
        };
        items.push((item, origin, true, (session_id.clone(), version.clone(), model.clone())));
    }
    items
}

/// Streams the rollout's items: those of its own lines, then those a resume loads from
/// elsewhere. Every item is read: a rollout's items are what its lines hold.
pub(crate) fn events(src: &Source, sink: Sink<'_>) -> std::io::Result<Streamed> {
    let rollout = super::rollout::read_records(src)?;
    let history = super::history::reconstruct(&rollout);
    let times = line_times(src)?;
    for (item, origin, loaded, (session_id, client_version, model)) in listed(&rollout, &history) {
        let (at, bytes, p) = match &item.src {
            &ItemSrc::Raw { offset, len, line } => (
                Some(At { line, offset }),
                u64::from(len),
                parse(&src.read_range(offset, len as usize)?),
            ),
            ItemSrc::Synth(json) => (None, json.len() as u64, parse(json.as_bytes())),
        };
        let Some(p) = p else { continue };
        let kind = str_of(&p, "type").unwrap_or(&item.ty).to_string();
        sink(Event {
            at,
            origin,
            loaded,
            ms: at.and_then(|at| times.get(&at.line).copied()),
            session_id,
            client_version,
            model,
            role: str_of(&p, "role").map(str::to_string),
            flags: Flags {
                compact_summary: Some(item.summary || item.remote_compaction),
                ..Flags::default()
            },
            parts: parts(&kind, &p),
            kind,
            bytes: Some(bytes),
            ..Event::default()
        });
    }
    Ok(Streamed {
        first_ms: rollout.time_span.map(|s| s.0),
    })
}

/// The parts of an item: a reasoning item's summary (its content is the reasoning itself),
/// another item's content texts; the call of an item that calls a tool, the result of one
/// that carries a call's output.
fn parts(ty: &str, p: &Value) -> Vec<Part> {
    let mut out = Vec::new();
    if ty == "reasoning" {
        let texts = |k: &str| p.get(k).and_then(Value::as_array).into_iter().flatten();
        for (key, summary) in [("summary", true), ("content", false)] {
            out.extend(texts(key).filter_map(|b| str_of(b, "text")).map(|t| Part::Reasoning {
                text: t.to_string(),
                summary,
            }));
        }
    } else if let Some(c) = p.get("content") {
        out.extend(message_texts(c).into_iter().map(|t| Part::Text(t.to_string())));
    }
    if CODEX_CALLS.contains(&ty) {
        let input = p
            .get("arguments")
            .or_else(|| p.get("input"))
            .or_else(|| p.get("action"))
            .or_else(|| p.get("query"));
        out.push(Part::Call(Call {
            id: str_of(p, "call_id").or_else(|| str_of(p, "id")).map(str::to_string),
            name: str_of(p, "name").map(str::to_string),
            kind: ty.to_string(),
            input: input.cloned(),
        }));
    } else if CODEX_OUTPUTS.contains(&ty) {
        let output = p.get("output");
        // Function outputs were once written as {"content", "success"}.
        let success = output.and_then(|o| o.get("success")).and_then(Value::as_bool);
        let output = match output.and_then(|o| o.get("content")) {
            Some(c) if output.is_some_and(Value::is_object) => Some(c),
            _ => output,
        };
        out.push(Part::Outcome(Outcome {
            call_id: str_of(p, "call_id").map(str::to_string),
            is_error: success.map(|s| !s),
            output: output.cloned(),
        }));
    }
    out
}
